//! Game records for `anqi.records`, read by the one definition of their schema: the Rust types
//! of [`anqi_core::record`], which the server writes them with and `anqi replay` reads them
//! with (protocol/RECORDS.md, "One definition").
//!
//! `read_record(text)` reads one line into a [`GameRecord`] (every field's presence, type and
//! range checked as `anqi replay` checks it, with the path of the field that is wrong) and
//! gives it back as the dict of the record the types write; `RECORD_FIELDS` names the keys of
//! each object of a record, read off the same types, so that a test can check that
//! `anqi.records`' dataclasses have every field; `RECORD_FORMAT` and `TERMINATIONS` (the
//! result's `reason`s) come from the same place.

use anqi_core::record::{
    Adjudication, DropRecord, FaultRecord, GameRecord, LadderTag, PlayerRecord, PlyRecord,
    ResultRecord, SeatTag, TournamentTag, RECORD_FORMAT,
};
use anqi_core::rules::{ActionCounts, SeedInputs, Termination};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use serde::de::{self, DeserializeOwned, Deserializer, Visitor};

/// Reads one line of a records file (without its newline) as `anqi replay` does, and gives the
/// record back as a dict: the JSON the record types write for it (optional fields left out
/// when absent). ValueError when the text is not a record, naming the field that is wrong
/// (`players[0].id: invalid type: string "1", expected usize at line 1 column 302`).
#[pyfunction]
fn read_record<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    let mut reader = serde_json::Deserializer::from_str(text);
    let record: GameRecord = serde_path_to_error::deserialize(&mut reader)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    reader
        .end()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let json = serde_json::to_string(&record).map_err(|e| PyValueError::new_err(e.to_string()))?;
    py.import("json")?.call_method1("loads", (json,))
}

/// The keys of each kind of object in a record, by where it stands (`""`: the record itself,
/// `players[]`: each player, `plies[].legal`: each ply's counts, ...), each in the order of
/// its Rust type's fields.
fn record_fields<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    let objects: [(&str, &[&str]); 12] = [
        ("", fields::<GameRecord>()),
        ("seeds", fields::<SeedInputs>()),
        ("players[]", fields::<PlayerRecord>()),
        ("plies[]", fields::<PlyRecord>()),
        ("plies[].legal", fields::<ActionCounts>()),
        ("faults[]", fields::<FaultRecord>()),
        ("result", fields::<ResultRecord>()),
        ("result.adjudication", fields::<Adjudication>()),
        ("tournament", fields::<TournamentTag>()),
        ("tournament.seats[]", fields::<SeatTag>()),
        ("drops[]", fields::<DropRecord>()),
        ("ladder", fields::<LadderTag>()),
    ];
    for (at, names) in objects {
        out.set_item(at, PyTuple::new(py, names)?)?;
    }
    Ok(out)
}

/// Adds `read_record`, `RECORD_FORMAT`, `RECORD_FIELDS` and `TERMINATIONS` (every `reason` a
/// result may give, in the order of [`Termination`]) to the native module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_function(wrap_pyfunction!(read_record, m)?)?;
    m.add("RECORD_FORMAT", RECORD_FORMAT)?;
    m.add("RECORD_FIELDS", record_fields(py)?)?;
    m.add("TERMINATIONS", PyTuple::new(py, fields::<Termination>())?)?;
    Ok(())
}

/// The names a type's derived `Deserialize` reads: a struct's fields, an enum's variants (as
/// serde names them in JSON). Asked of a [`Deserializer`] that answers nothing but notes what
/// it was asked for.
fn fields<T: DeserializeOwned>() -> &'static [&'static str] {
    match T::deserialize(Names) {
        Err(Asked(names)) => names,
        Ok(_) => &[],
    }
}

/// A deserializer that gives nothing, and fails with the names it was asked to read.
struct Names;

/// The names a [`Names`] deserializer was asked for (none for anything but a struct or enum).
#[derive(Debug)]
struct Asked(&'static [&'static str]);

impl std::fmt::Display for Asked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "asked for {:?}", self.0)
    }
}

impl std::error::Error for Asked {}

impl de::Error for Asked {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Asked(&[])
    }
}

impl<'de> Deserializer<'de> for Names {
    type Error = Asked;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Asked> {
        Err(Asked(&[]))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Asked> {
        Err(Asked(fields))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        variants: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Asked> {
        Err(Asked(variants))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map identifier ignored_any
    }
}
