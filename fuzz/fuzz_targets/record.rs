//! Game records: what `anqi replay` does with one line of a records file.
//!
//! Invariants:
//! - reading a record (`serde_json`) and verifying it (`anqi_core::replay::verify`) never panic,
//!   whatever the record claims: records come from files anyone can edit;
//! - a record that reads writes back to JSON that reads as the same record, and verifying that
//!   copy gives the same verdict.
#![no_main]

use anqi_core::record::GameRecord;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(record) = serde_json::from_str::<GameRecord>(text) else {
        return;
    };
    let verdict = anqi_core::replay::verify(&record);
    let json = serde_json::to_string(&record).expect("a record serializes");
    let again: GameRecord = serde_json::from_str(&json)
        .unwrap_or_else(|e| panic!("{record:?} writes as {json}, which does not read: {e}"));
    assert_eq!(again, record, "written as {json}");
    assert_eq!(anqi_core::replay::verify(&again), verdict);
});
