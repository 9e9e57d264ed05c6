//! The games already played: the records a run resumes from (a half-written last line cut
//! off, every game checked against this schedule and seed), and what they say of the event.

use crate::config::TournamentConfig;
use crate::deals;
use crate::deals::Dealer;
use crate::schedule::ScheduledGame;
use crate::stats;
use crate::TournamentError;
use anqi_core::record::{read_records, GameRecord};
use std::collections::BTreeSet;
use std::path::Path;

/// The schedule indexes of `records`' games.
pub(super) fn recorded(records: &[GameRecord]) -> BTreeSet<u64> {
    records
        .iter()
        .filter_map(|r| r.tournament.as_ref().map(|t| t.index))
        .collect()
}

/// Whether the SPRT (when the event has one) has decided over `records`: nothing more is played.
pub(super) fn sprt_decided(records: &[GameRecord], config: &TournamentConfig) -> bool {
    stats::standings(records, &config.engine_names(), config.sprt.as_ref())
        .sprt
        .is_some_and(|s| s.verdict.is_decided())
}

/// Reads the games already in the output file, after cutting off a last line left half-written
/// by a crash; checks they belong to this schedule.
pub(super) fn resume_point(
    output: &Path,
    config: &TournamentConfig,
    dealer: &Dealer,
    games: &[ScheduledGame],
) -> Result<Vec<GameRecord>, TournamentError> {
    let Ok(bytes) = std::fs::read(output) else {
        return Ok(Vec::new());
    };
    if let Some(last_newline) = bytes.iter().rposition(|&b| b == b'\n') {
        if last_newline + 1 != bytes.len() {
            truncate(output, last_newline as u64 + 1)?;
        }
    } else if !bytes.is_empty() {
        truncate(output, 0)?;
    }
    let mut done = Vec::new();
    let records = read_records(output).map_err(TournamentError::io(format!(
        "cannot read {}",
        output.display()
    )))?;
    for (line, r) in records {
        let r = r.map_err(|e| {
            TournamentError::Records(format!(
                "{}:{line}: not a game record: {e}",
                output.display()
            ))
        })?;
        let Some(tag) = &r.tournament else {
            return Err(TournamentError::Records(format!(
                "{}:{line}: a game from outside a tournament",
                output.display()
            )));
        };
        let Some(g) = games.iter().find(|g| g.index == tag.index) else {
            let beyond = games.iter().all(|g| g.index < tag.index);
            return Err(TournamentError::Records(format!(
                "{}:{line}: game {} is not in this schedule of {} games ({} deals per pairing{}): {}",
                output.display(),
                tag.index,
                games.len(),
                config.deals,
                if config.cycles > 1 { format!(", {} cycles", config.cycles) } else { String::new() },
                if beyond {
                    "the file holds more games than this configuration schedules; were `deals` (or --deals, or `cycles`) lowered? Resume with the same numbers, or more"
                } else {
                    "another event's file, or another shard's?"
                }
            )));
        };
        let expected: Vec<&str> = g
            .seats
            .iter()
            .map(|&e| config.engines[e].name.as_str())
            .collect();
        if tag.engines != expected || tag.deal != g.deal {
            return Err(TournamentError::Records(format!(
                "{}:{line}: game {} was played by {:?} on deal {}, but this configuration schedules {:?} on deal {}",
                output.display(),
                tag.index,
                tag.engines,
                tag.deal,
                expected,
                g.deal
            )));
        }
        // Committed to this event's seed, and dealt from it (or its book) as its deal number
        // says.
        if let Err(e) = deals::check_deal(&r, dealer) {
            let hint = match e {
                deals::DealsError::Uncommitted { .. } => ": finish that event with the anqi that started it, or start a new one (another output)",
                deals::DealsError::BookNotGiven { .. }
                | deals::DealsError::NotFromBook { .. }
                | deals::DealsError::OtherBook { .. }
                | deals::DealsError::UnknownOrder { .. }
                | deals::DealsError::NotTheEntry { .. } => ": this run plays another deal book, or none, or in another order, or from another entry ([tournament.book] file, order and skip; --book, --book-order; cutechess's -openings file=, order= and start=)",
                _ => ": this run deals from another master seed (seed, --seed, seed_file, --seed-file)",
            };
            return Err(TournamentError::Records(format!(
                "{}:{line}: {e}{hint}",
                output.display()
            )));
        }
        done.push(r);
    }
    Ok(done)
}

fn truncate(path: &Path, len: u64) -> Result<(), TournamentError> {
    let cut = |e| TournamentError::io(format!("cannot repair {}", path.display()))(e);
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(cut)?;
    f.set_len(len).map_err(cut)?;
    Ok(())
}
