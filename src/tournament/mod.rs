//! Headless tournaments: `anqi tournament`, `anqi report`, `anqi merge`.
//!
//! - `config`: the `[tournament]` section.
//! - `schedule`: every game of the event, numbered, with its deal and seating.
//! - `engine`: starting and stopping engine processes.
//! - `token`: the secret tokens that seat engines.
//! - `runner`: playing the schedule against an in-process server; resume, shards, SPRT.
//! - `stats`: standings, Elo, crosstable, pentanomials, SPRT.
//! - `report`: standings as text.

pub mod config;
pub mod engine;
pub mod report;
pub mod runner;
pub mod schedule;
pub mod stats;
pub mod token;

use crate::record::{read_records, GameRecord};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Reads tournament records from files, one record per game index: identical duplicates are
/// merged, conflicting ones are an error. Returns them in index order.
///
/// # Errors
/// Unreadable files, lines that are not tournament records, conflicting duplicates.
pub fn merge_records(inputs: &[PathBuf]) -> anyhow::Result<Vec<GameRecord>> {
    let mut by_index: BTreeMap<u64, (GameRecord, String)> = BTreeMap::new();
    for path in inputs {
        for (line, r) in read_records(path)
            .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?
        {
            let at = format!("{}:{line}", path.display());
            let r = r.map_err(|e| anyhow::anyhow!("{at}: not a game record: {e}"))?;
            let index = r
                .tournament
                .as_ref()
                .ok_or_else(|| anyhow::anyhow!("{at}: not a tournament game"))?
                .index;
            match by_index.get(&index) {
                Some((prev, _)) if same_game(prev, &r) => {}
                Some((_, where_)) => {
                    anyhow::bail!("{at}: game {index} differs from the one at {where_}")
                }
                None => {
                    by_index.insert(index, (r, at));
                }
            }
        }
    }
    Ok(by_index.into_values().map(|(r, _)| r).collect())
}

/// Two records of one game agree on everything but timing.
fn same_game(a: &GameRecord, b: &GameRecord) -> bool {
    a.tournament == b.tournament
        && a.seeds == b.seeds
        && a.result == b.result
        && a.plies
            .iter()
            .map(|p| &p.action)
            .eq(b.plies.iter().map(|p| &p.action))
}

/// Reads all tournament records of the given files (for `anqi report`).
///
/// # Errors
/// As [`merge_records`].
pub fn load(inputs: &[PathBuf]) -> anyhow::Result<Vec<GameRecord>> {
    merge_records(inputs)
}

/// Writes records as JSON lines.
///
/// # Errors
/// I/O failures.
pub fn write_records(path: &Path, records: &[GameRecord]) -> anyhow::Result<()> {
    let mut text = String::new();
    for r in records {
        text.push_str(&serde_json::to_string(r)?);
        text.push('\n');
    }
    std::fs::write(path, text).map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))
}
