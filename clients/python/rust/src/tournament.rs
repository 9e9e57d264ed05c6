//! What the Python package shares with `anqi tournament` and `anqi report`, from
//! `anqi-tournament`'s pure half: the standings of records (`anqi.standings`, the statistics
//! `anqi report` computes, by the same code), the tournament file `anqi.play` writes (read and
//! checked by the types `anqi tournament` reads it with), and TOML text of a plain document
//! (the `config.toml` `anqi.Server` writes).

use anqi_core::record::{GameRecord, TournamentTag};
use anqi_tournament::config::TournamentConfig;
use anqi_tournament::stats;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyList, PyMapping, PyString, PyTuple};

/// The standings of `records` (JSON texts, one record each, as the records files hold them),
/// as a JSON text: `{"standings": ..., "seats": [...], "text": ...}`. `standings` is exactly
/// what `anqi report --json` prints for the same records (`anqi_tournament::stats::standings`),
/// `seats` each engine's win rate per seat (`stats::seats`), `text` the report's text
/// (`anqi_tournament::report::text`). `order`: engine names, to break ties in (the others come
/// after, as the records show them). A record of no tournament (an in-process game, a server's)
/// counts as one: the players' names are its engines, and it is a deal of its own, numbered
/// after the tournament records given.
#[pyfunction]
#[pyo3(signature = (records, order = Vec::new()))]
pub fn standings_json(
    py: Python<'_>,
    records: Vec<String>,
    order: Vec<String>,
) -> PyResult<String> {
    let mut parsed: Vec<GameRecord> = records
        .iter()
        .enumerate()
        .map(|(i, text)| {
            serde_json::from_str(text).map_err(|e| {
                PyValueError::new_err(format!("record {}: not a game record: {e}", i + 1))
            })
        })
        .collect::<PyResult<_>>()?;
    py.detach(|| {
        tag_loose_records(&mut parsed);
        let mut standings = stats::standings(&parsed, &order, None);
        // As `anqi report --json` leaves it without a seed to check the deals against.
        standings.deals = None;
        // Written section by section, so that every row keeps its fields in their order.
        let seats = stats::seats(&parsed, &order);
        let text = anqi_tournament::report::text(&standings);
        Ok(format!(
            "{{\"standings\":{},\"seats\":{},\"text\":{}}}",
            serde_json::to_string(&standings).expect("standings serialize"),
            serde_json::to_string(&seats).expect("seats serialize"),
            serde_json::to_string(&text).expect("a string serializes"),
        ))
    })
}

/// Gives every record without a tournament tag one: its players' names in its seats, a game
/// number and a deal after every tagged record's, so that it pairs with no other game.
fn tag_loose_records(records: &mut [GameRecord]) {
    let tags = records.iter().filter_map(|r| r.tournament.as_ref());
    let next_index = tags.clone().map(|t| t.index + 1).max().unwrap_or(0);
    let next_deal = tags.map(|t| t.deal + 1).max().unwrap_or(0);
    for (n, r) in (0..).zip(records.iter_mut().filter(|r| r.tournament.is_none())) {
        let mut players: Vec<_> = r.players.iter().collect();
        players.sort_by_key(|p| p.id);
        r.tournament = Some(TournamentTag {
            index: next_index + n,
            deal: next_deal + n,
            engines: players.iter().map(|p| p.name.clone()).collect(),
            seats: Vec::new(),
            commitment: None,
            node: None,
            book: None,
        });
    }
}

/// A tournament file's text from the keys of its `[tournament]` table (a dict, or its JSON
/// text): read and checked as `anqi tournament` reads a file (`TournamentConfig::parse`, with
/// its error texts), then written out with every key (`TournamentConfig::to_toml`). Keys set
/// to None are left out.
#[pyfunction]
pub fn tournament_config_toml(section: &Bound<'_, PyAny>) -> PyResult<String> {
    let section = to_toml_value(section, "tournament")?;
    let mut doc = toml::Table::new();
    doc.insert("tournament".into(), section);
    let text = toml::to_string(&doc).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let config =
        TournamentConfig::parse(&text).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let written = config.to_toml();
    // What is written reads back as what was checked (the file's own test checks it too).
    match TournamentConfig::parse(&written) {
        Ok(again) if again == config => Ok(written),
        _ => Err(PyValueError::new_err(format!(
            "the tournament file written does not read back as the configuration given:\n{written}"
        ))),
    }
}

/// The 95% Wilson score interval of `successes` out of `n` trials (`successes` may hold halves:
/// points with draws), as `anqi report` computes it (anqi-tournament's `stats::wilson_rate`):
/// within [0, 1], (0, 1) without trials. `anqi.wilson` in Python.
#[pyfunction]
pub fn wilson(successes: f64, n: f64) -> PyResult<(f64, f64)> {
    if !(n >= 0.0 && (0.0..=n).contains(&successes)) {
        return Err(PyValueError::new_err(format!(
            "wilson({successes}, {n}): successes from 0 to n, n at least 0"
        )));
    }
    Ok(if n == 0.0 {
        (0.0, 1.0)
    } else {
        stats::wilson_rate(successes / n, n)
    })
}

/// TOML text of a document (a dict of tables, or its JSON text), written by the `toml` crate:
/// strings, numbers, booleans, lists and dicts. Keys set to None are left out.
#[pyfunction]
pub fn toml_dumps(doc: &Bound<'_, PyAny>) -> PyResult<String> {
    let doc = to_toml_value(doc, "the document")?;
    if !doc.is_table() {
        return Err(PyTypeError::new_err(
            "a TOML document is a table: a dict of keys",
        ));
    }
    toml::to_string(&doc).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// A Python value, or its JSON text (read by `json.loads`), as a TOML value: mappings (of
/// string keys), lists and tuples, strings, booleans, integers (64-bit signed) and finite floats.
/// `what` names it in errors.
fn to_toml_value(value: &Bound<'_, PyAny>, what: &str) -> PyResult<toml::Value> {
    let parsed;
    let value = if value.is_instance_of::<PyString>() {
        parsed = value.py().import("json")?.call_method1("loads", (value,))?;
        &parsed
    } else {
        value
    };
    toml_of(value, what)?.ok_or_else(|| PyTypeError::new_err(format!("{what}: None")))
}

/// A Python value as a TOML value; `None` for None (left out of a table, refused in a list).
fn toml_of(value: &Bound<'_, PyAny>, at: &str) -> PyResult<Option<toml::Value>> {
    if value.is_none() {
        return Ok(None);
    }
    Ok(Some(if let Ok(b) = value.cast::<PyBool>() {
        toml::Value::Boolean(b.is_true())
    } else if value.is_instance_of::<PyInt>() {
        toml::Value::Integer(value.extract().map_err(|_| {
            PyValueError::new_err(format!(
                "{at}: {value} is out of TOML's integers (64-bit signed)"
            ))
        })?)
    } else if let Ok(f) = value.cast::<PyFloat>() {
        let f = f.value();
        if !f.is_finite() {
            return Err(PyValueError::new_err(format!(
                "{at}: {f} is not a number a configuration takes"
            )));
        }
        toml::Value::Float(f)
    } else if let Ok(s) = value.cast::<PyString>() {
        toml::Value::String(s.to_str()?.to_owned())
    } else if let Ok(map) = value.cast::<PyMapping>() {
        let mut table = toml::Table::new();
        for item in map.items()?.iter() {
            let (k, v): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item.extract()?;
            let key: String = k.extract().map_err(|_| {
                PyTypeError::new_err(format!("{at}: the key {k:?} is not a string"))
            })?;
            if let Some(v) = toml_of(&v, &format!("{at}.{key}"))? {
                table.insert(key, v);
            }
        }
        toml::Value::Table(table)
    } else if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        let mut items = Vec::new();
        for (i, v) in value.try_iter()?.enumerate() {
            let at = format!("{at}[{i}]");
            items.push(toml_of(&v?, &at)?.ok_or_else(|| {
                PyValueError::new_err(format!("{at}: None cannot be written in TOML"))
            })?);
        }
        toml::Value::Array(items)
    } else {
        return Err(PyTypeError::new_err(format!(
            "{at}: a {} cannot be written in TOML",
            value.get_type().name()?
        )));
    }))
}
