//! anqi-tournament: headless events between engines on anqi (`anqi tournament`, `anqi match`,
//! `anqi report`, `anqi merge`), the bridges that let engines of other protocols play on anqi
//! (`anqi bridge`), and the keepers that make every engine process die with its game (`anqi
//! keep`).
//!
//! The `anqi` program is its user today: its commands parse the command line and call in here.
//! It builds on `anqi-core` (the rules, the records, the settings a tournament shares with a
//! server) and, for what runs games, on `anqi-server` (the in-process server a tournament
//! plays on), `anqi-web` (a tournament's pages) and `anqi-client` (the bridges' connection and
//! tracker).
//!
//! What runs games is behind the `run` feature, on by default: the runner, engine processes,
//! the bridges' translators, the keeper and the process calls, on tokio. Without it
//! (`default-features = false`) the crate is its pure half, which compiles neither tokio nor
//! `anqi-server`: reading and checking a tournament's configuration, its schedule and seeds,
//! standings and reports from records, and what a bridge protocol can play.
//!
//! What is public is what a front end needs: the configuration ([`config::TournamentConfig`],
//! its engines, its overrides) and the results ([`stats::Standings`] and what it holds) as
//! plain data with public fields, which a front end builds or reads; the functions that read,
//! check, schedule, run and report an event; the bridge's options, `run` and `check`; and the
//! process calls the program's `keep`, `bridge` and `bench` commands make. How a game is run
//! (engine processes, the translators, the runner's bookkeeping) is the crate's own.
//!
//! # Crate map
//!
//! Builds on: `anqi-core`, `anqi-server`, `anqi-web`, `anqi-client`.
//! Compiles tokio: only with its `run` feature (on by default: what runs games).
//!
//! (`tests/integration/layout.rs` checks both lines against `cargo metadata` and `cargo tree`.)
//!
//! # Layout
//!
//! - this file: [`TournamentError`], and reading, merging and writing tournament records.
//! - `config`: the `[tournament]` section, `[tournament.each]` and the command line's
//!   overrides; `config::ray`, `[tournament.ray]` (an event on a Ray cluster);
//!   `config::book`, `[tournament.book]` (the deal book an event plays);
//!   `config::log_bytes`, `engine_log_bytes`.
//! - `time_control` (re-exported from `anqi-core`, where the web pages' seats read it too):
//!   time controls as strings (`40/60+0.6`, `st=2`, `inf`).
//! - `quick_match`: `anqi match A B`, an event built from the command line.
//! - `cutechess`: the cutechess-cli and fastchess command line (`anqi match -engine cmd=...`),
//!   read into `anqi match`'s settings, or refused naming the nearest anqi option.
//! - `schedule`: every game of the event, numbered, with its deal and seating (one-side
//!   variants: every group on the same deals).
//! - `seeds`: the event's master seed, the deals and engine seeds derived from it by a keyed
//!   function, the commitment to it, and its seed file.
//! - `book/`: deal books, files of deals that several events play (`[tournament.book]`, `anqi
//!   book`), and which entry each deal of an event is; `merkle`, the tree a book commits to,
//!   and `proof`, proofs of the entries an event played (`anqi book prove`).
//! - `deals`: where an event's deals come from (its master seed, or its book: `Dealer`), and
//!   checking them from its records.
//! - `token`: the secret tokens that seat engines.
//! - `secret_file`: files that hold secrets (seed files, deal books): created private, read
//!   capped.
//! - `stats/`: standings from records: the engines' points, Elo and crosstable, teams, and the
//!   SPRT; for one-side variants (single-player, cooperative), success rates with their
//!   Wilson intervals.
//!   - `table`: the standings summed up as the records come.
//!   - `pairs`: two engines that met: Elo, nElo, LOS, draw ratio, pentanomial counts.
//!   - `elo`: a sample of scores and its formulas (score interval, Elo, nElo, LOS).
//!   - `sprt`: the SPRT of a pair.
//!   - `one_side`: success rates.
//!   - `seats`: each engine's win rate per seat, with its Wilson interval (`anqi.standings`).
//! - `report`: standings as text.
//! - `bridge`: engines of other protocols (`tcg`, `uci-banqi`, `cdc-platform`) on anqi, one
//!   game per bridge. Pure: the protocols, what a protocol can play (`assess`) and the rule
//!   presets engines believe (`presets`). With `run`: the anqi side (`session`, a client
//!   asking for every extension, a thin layer over `anqi-client`'s connection and tracker),
//!   line engines (`engine`), and one translator per protocol with its coordinate map.
//!
//! With the `run` feature:
//!
//! - `check/`: `anqi check ENGINE`, a compliance check: the engine's handshake (a bridge's
//!   `check`), a short match per variant its protocol can play, and a rejoin, each judged
//!   from the referee's records; `proxy`, the relay that keeps the exchange an item failed on.
//! - `runner/`: playing the schedule against an in-process server or on a Ray cluster;
//!   resume, shards, SPRT.
//!   - `preflight`: what is checked before any engine starts (the variant, each engine).
//!   - `server` and `pages`: the event's in-process server and its web pages.
//!   - `seed`: the event's master seed, announced before the games and revealed after, and
//!     its deal book, read and checked against the variant and the schedule.
//!   - `resume`: the records a run resumes from.
//!   - `event`: the games of one run, `concurrency` at a time, each record appended as its
//!     game ends, and the end of the event.
//!   - `game`: one game, from its order to its completed record, and the seeds it needs of
//!     the master seed (`GameSecrets`).
//!   - `ray/`: the event on a Ray cluster (`--ray`): the games handed out a deal at a time,
//!     the records taken back exactly once; `dispatcher` and `dispatch.py`, the Python
//!     process that talks to Ray.
//!   - `unit`: a node's unit of work (`anqi tournament-unit`): a few games with their seeds
//!     in, a line per game out.
//!   - `progress`: what a run says on stderr as it goes.
//! - `engine`: starting and stopping engine processes, each under its keeper.
//! - `keeper`: engines die with their games: `anqi keep` (and the bridge) run an engine as a
//!   child subreaper and end every process below it when the game, or the runner, ends.
//! - `process`: the operating-system calls for engine processes (parent death, the
//!   subreaper, kills, descendants, a process's CPU time), and `process::cgroup`, a cgroup v2
//!   per engine where one can be made.

pub mod book;
pub mod bridge;
pub mod config;
pub mod cutechess;
pub mod deals;
pub mod quick_match;
pub mod report;
pub mod schedule;
mod secret_file;
pub mod seeds;
pub mod stats;
/// Time controls as strings, the core's (the web pages' seats read them too).
pub use anqi_core::time_control;
pub mod token;

#[cfg(feature = "run")]
pub mod check;
#[cfg(feature = "run")]
pub mod engine;
#[cfg(feature = "run")]
pub mod keeper;
#[cfg(feature = "run")]
pub mod process;
#[cfg(feature = "run")]
pub mod runner;

use anqi_core::record::{read_records, GameRecord};
use anqi_core::rules::Variant;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Whether `variant` is a one-side game (single-player, cooperative: one side plays for a
/// goal, `(objective (clear N))`) rather than a competitive one. Its engines are scored by
/// success rate, not against each other.
pub fn one_side(variant: &Variant) -> bool {
    variant.sides.len() == 1
}

/// Why a tournament command cannot go on. The texts name the file and line concerned.
#[derive(Debug, thiserror::Error)]
pub enum TournamentError {
    /// The configuration cannot be played (variant, schedule, engines).
    #[error("{0}")]
    Config(String),
    /// A records file that holds something other than this event's games.
    #[error("{0}")]
    Records(String),
    /// A file or directory that cannot be read or written.
    #[error("{what}: {source}")]
    Io {
        what: String,
        source: std::io::Error,
    },
    /// An engine that cannot take part: its program cannot be started, or it never connected
    /// before it had connected once. The event stops, since every game would be lost.
    #[error("{0}")]
    Engine(String),
    /// The in-process server stopped, or a game task failed.
    #[error("{0}")]
    Server(String),
    /// The Ray cluster cannot play the event (`--ray`): it cannot be reached, or its units
    /// fail again and again.
    #[error("{0}")]
    Cluster(String),
}

impl TournamentError {
    /// An I/O error about `what` (a file, a directory).
    pub(crate) fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> TournamentError {
        let what = what.into();
        move |source| TournamentError::Io { what, source }
    }
}

#[cfg(feature = "run")]
impl From<anqi_server::ServerStopped> for TournamentError {
    fn from(e: anqi_server::ServerStopped) -> TournamentError {
        TournamentError::Server(e.to_string())
    }
}

/// Reads tournament records from files, one record per game index: identical duplicates are
/// merged, conflicting ones are an error. Returns them in index order.
///
/// # Errors
/// Unreadable files, lines that are not tournament records, conflicting duplicates.
pub fn merge_records(inputs: &[PathBuf]) -> Result<Vec<GameRecord>, TournamentError> {
    let mut by_index: BTreeMap<u64, (GameRecord, String)> = BTreeMap::new();
    for path in inputs {
        for (line, r) in read_records(path).map_err(TournamentError::io(format!(
            "cannot read {}",
            path.display()
        )))? {
            let at = format!("{}:{line}", path.display());
            let r =
                r.map_err(|e| TournamentError::Records(format!("{at}: not a game record: {e}")))?;
            let index = r
                .tournament
                .as_ref()
                .ok_or_else(|| TournamentError::Records(format!("{at}: not a tournament game")))?
                .index;
            match by_index.get(&index) {
                Some((prev, _)) if same_game(prev, &r) => {}
                Some((_, where_)) => {
                    let other_event =
                        inputs.len() > 1 && !where_.starts_with(&format!("{}:", path.display()));
                    return Err(TournamentError::Records(format!(
                        "{at}: game {index} differs from the one at {where_}{}",
                        if other_event {
                            ": the files are not shards of one event; to pool events into one table, give --pool (anqi report --pool)"
                        } else {
                            ""
                        }
                    )));
                }
                None => {
                    by_index.insert(index, (r, at));
                }
            }
        }
    }
    let records: Vec<GameRecord> = by_index.into_values().map(|(r, _)| r).collect();
    // Shards of one event deal from one master seed: one commitment in every game.
    deals::commitment_of(&records).map_err(|e| {
        TournamentError::Records(format!(
            "{e}{}",
            if inputs.len() > 1 {
                " (shards of one event share one seed file; to pool events into one table, give --pool)"
            } else {
                ""
            }
        ))
    })?;
    // And from one deal book, in one order, or none.
    deals::book_of(&records).map_err(|e| {
        TournamentError::Records(format!(
            "{e}{}",
            if inputs.len() > 1 {
                " (shards of one event play one deal book: give every shard the same [tournament.book])"
            } else {
                ""
            }
        ))
    })?;
    Ok(records)
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

/// Reads the records of several events, one per file (`anqi report --pool`): each file's
/// games are merged by game number as [`merge_records`] does, then numbered after the previous
/// files' games and deals, so that no two events' games or deals share a number (pairs of
/// games on one deal stay within their event). Engines are matched by name, but an engine
/// that played under different `assumes` in different events is kept apart, one entry per
/// belief ([`keep_beliefs_apart`]); the notes say which.
///
/// # Errors
/// As [`merge_records`], for each file.
pub fn pool(inputs: &[PathBuf]) -> Result<(Vec<GameRecord>, Vec<String>), TournamentError> {
    let mut out = Vec::new();
    let (mut index_base, mut deal_base) = (0u64, 0u64);
    for path in inputs {
        let mut records = merge_records(std::slice::from_ref(path))?;
        let (mut next_index, mut next_deal) = (index_base, deal_base);
        for r in &mut records {
            if let Some(tag) = r.tournament.as_mut() {
                tag.index += index_base;
                tag.deal += deal_base;
                next_index = next_index.max(tag.index + 1);
                next_deal = next_deal.max(tag.deal + 1);
            }
        }
        (index_base, deal_base) = (next_index, next_deal);
        out.extend(records);
    }
    let notes = keep_beliefs_apart(&mut out);
    Ok((out, notes))
}

/// Renames, in pooled records, each engine that played under more than one `assumes` (the
/// rules a bridged engine believes): `NAME (assumes PRESET)`, or `NAME (assumes nothing)`
/// where it had none. The same program told other rules is another player: merged, its
/// results under one belief would pass for results under the other. Returns a note per
/// engine renamed.
pub fn keep_beliefs_apart(records: &mut [GameRecord]) -> Vec<String> {
    use std::collections::{BTreeMap, BTreeSet};
    let mut beliefs: BTreeMap<String, BTreeSet<Option<String>>> = BTreeMap::new();
    for tag in records.iter().filter_map(|r| r.tournament.as_ref()) {
        for (name, seat) in tag.engines.iter().zip(&tag.seats) {
            beliefs
                .entry(name.clone())
                .or_default()
                .insert(seat.assumes.clone());
        }
    }
    beliefs.retain(|_, b| b.len() > 1);
    let label = |name: &str, assumes: &Option<String>| {
        format!(
            "{name} (assumes {})",
            assumes.as_deref().unwrap_or("nothing")
        )
    };
    for tag in records.iter_mut().filter_map(|r| r.tournament.as_mut()) {
        for (name, seat) in tag.engines.iter_mut().zip(&tag.seats) {
            if beliefs.contains_key(name.as_str()) {
                *name = label(name, &seat.assumes);
            }
        }
    }
    beliefs
        .iter()
        .map(|(name, b)| {
            let apart: Vec<String> = b.iter().map(|a| format!("{:?}", label(name, a))).collect();
            format!(
                "engine {name:?} played under different assumes in these events: kept apart as {}",
                apart.join(", ")
            )
        })
        .collect()
}

/// Reads all tournament records of the given files (for `anqi report`).
///
/// # Errors
/// As [`merge_records`].
pub fn load(inputs: &[PathBuf]) -> Result<Vec<GameRecord>, TournamentError> {
    merge_records(inputs)
}

/// Writes records as JSON lines.
///
/// # Errors
/// I/O failures.
pub fn write_records(path: &Path, records: &[GameRecord]) -> Result<(), TournamentError> {
    let mut text = String::new();
    for r in records {
        text.push_str(&serde_json::to_string(r).expect("records serialize"));
        text.push('\n');
    }
    std::fs::write(path, text).map_err(TournamentError::io(format!(
        "cannot write {}",
        path.display()
    )))
}
