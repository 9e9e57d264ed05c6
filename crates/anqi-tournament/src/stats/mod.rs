//! Standings from tournament records: points, W/D/L, Elo with a 95% interval, the crosstable,
//! statistics for every pair of engines that met (Elo, normalized Elo, LOS, draw ratio,
//! pentanomial counts over paired deals), standings per team in team games, terminations per
//! engine, and the SPRT for a pair. One-side games (single-player, cooperative) are scored
//! apart, per variant: each engine's success rate with its Wilson interval, per team in
//! cooperative games, and terminations ([`GoalStandings`]).
//!
//! Everything here depends only on the records' results, never on their timing, so the
//! standings of a merged set of shards equal those of one uninterrupted run.
//!
//! # Layout
//!
//! - this file: [`Standings`] and what it holds of engines and teams, and [`standings`].
//! - `table`: the standings summed up as the records come, one section per method.
//! - `pairs`: the statistics of two engines that met ([`PairStats`]), and the pentanomial
//!   counts of their paired deals.
//! - `elo`: a sample of scores ([`Sample`], trinomial or pentanomial) and what the formulas
//!   make of it: the score's interval, Elo, nElo and LOS.
//! - `sprt`: the SPRT of a pair ([`SprtResult`], [`llr`]; [`SprtError`], why a pair cannot be
//!   tested).
//! - `one_side`: one-side games' success rates with their Wilson intervals
//!   ([`GoalStandings`]).
//! - `seats`: each engine's win rate in each seat, with its Wilson interval ([`seats`]; not
//!   part of [`Standings`]: the Python package's `anqi.standings` shows it beside them).
//!
//! # The formulas, and where they come from
//!
//! They are the ones fastchess (<https://github.com/Disservin/fastchess>) and Stockfish's
//! fishtest (<https://github.com/official-stockfish/fishtest>) use for engine testing
//! (fastchess: `app/src/matchmaking/elo/elo_wdl.cpp` and `elo_pentanomial.cpp`, whose test
//! values in `app/tests/elo_test.cpp` and `sprt_test.cpp` our tests check; fishtest, for the
//! normalized Elo: `server/fishtest/templates/tests_stats.mak` and `elo_results.mak`).
//! Each is written once, in [`Sample`], [`elo_of`] and [`llr`]:
//!
//! - An **observation** is a game scoring 0, ½ or 1 (the *trinomial* model) or, when the deals
//!   were played in pairs with the seats swapped, a pair of games scoring 0, ¼, ½, ¾ or 1 per
//!   game (the *pentanomial* model: pairing the seats takes most of the deal's luck out of
//!   the variance).
//! - The **score** μ is the mean per-game score of the observations; its variance σ² is the
//!   variance of one observation (over the observed frequencies), and the standard error of μ is
//!   √(σ²/N) for N observations.
//! - **Elo** = −400·log₁₀(1/μ − 1) (the logistic model); its 95% interval is the Elo of
//!   μ ± 1.96·√(σ²/N), unless that interval reaches a score of 0 or 1: there the normal
//!   approximation fails (at a score of 0 or 1 the results have no spread and the interval no
//!   width), and the interval is the Wilson interval below, of the points won out of the games
//!   played. So 60 wins in 60 games read +inf [+477, +inf], not +inf [+inf, +inf].
//! - **nElo** (normalized Elo) = (μ − ½) / σ_game · 800/ln 10, with σ_game the standard deviation
//!   of one game's score: σ for a game, √2·σ for a pair (the mean of two games). Its 95% error
//!   is 1.96·√(σ²/N) / σ_game · 800/ln 10 (about 681/√games). Measured in units of the
//!   results' own spread, nElo depends little on the draw rate, so it compares tests played
//!   under different conditions.
//! - **LOS** (likelihood of superiority) = Φ((μ − ½) / √(σ²/N)), Φ the standard normal
//!   distribution function: the probability that the first engine is the stronger.
//! - The **SPRT**'s log-likelihood ratio for H0: Elo = elo0 against H1: Elo = elo1 is the
//!   normal approximation of the generalized SPRT, N·(s₁ − s₀)·(2μ − s₀ − s₁) / (2σ²) with
//!   s = 1/(1 + 10^(−elo/400)) (μ and σ² estimated with half an observation added to every
//!   outcome, so that a few identical results do not look like certainty); it accepts H1 at
//!   ln((1 − β)/α) and H0 at ln(β/(1 − α)).
//! - A **success rate** p̂ = s/n (one-side games) has the Wilson score interval (Wilson, 1927):
//!   (p̂ + z²/2n ± z·√(p̂(1 − p̂)/n + z²/4n²)) / (1 + z²/n), z = 1.96, which stays within
//!   [0, 1] and is not empty at p̂ = 0 or 1, where the normal approximation fails ([`wilson`]).

mod elo;
mod one_side;
mod pairs;
mod seats;
mod sprt;
mod table;

pub use elo::{elo_of, normal_cdf, wilson_rate, Model, Sample, Z95};
pub use one_side::{wilson, GoalStandings, GoalStats};
pub use pairs::{PairStats, Pentanomial};
pub use seats::{seats, SeatStats};
pub use sprt::{llr, SprtError, SprtResult, Verdict};

use crate::config::SprtConfig;
use anqi_core::record::GameRecord;
use serde::Serialize;
use std::collections::BTreeMap;

/// The standings of an event.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Standings {
    /// The variant of the first competitive game (of the first game when all are one-side).
    pub variant: String,
    pub games: usize,
    /// Engines, best first.
    pub engines: Vec<EngineStats>,
    /// Points of the row engine against the column engine: `crosstable[a][b]`.
    pub crosstable: BTreeMap<String, BTreeMap<String, Score>>,
    /// Pentanomial counts per pair of engines (two-player games played on the same deal with
    /// seats swapped), from the first engine's point of view: pairs scoring 0, 0.5, 1, 1.5, 2.
    /// Only pairs with at least one complete pair of games; the same counts are in `pairs`.
    pub pentanomial: Vec<Pentanomial>,
    /// Every pair of engines that met on opposite sides, in the order of the engines (the
    /// tournament file's order, then the order they appear in the records).
    pub pairs: Vec<PairStats>,
    /// Standings per team (the engines on one side), best first; empty unless some game was a
    /// team game.
    pub teams: Vec<TeamStats>,
    pub sprt: Option<SprtResult>,
    /// The one-side games (single-player, cooperative), one entry per variant, in the order
    /// the records first show them. Their games count in `games` above, and nowhere else
    /// above: they have success rates, not points against anyone.
    pub one_side: Vec<GoalStandings>,
    /// How the games' deals stand against the event's commitment to its master seed (`anqi
    /// report`; left out when nobody asked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deals: Option<crate::deals::DealsCheck>,
}

/// One engine's results.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct EngineStats {
    pub name: String,
    pub games: usize,
    pub points: f64,
    pub wins: usize,
    pub draws: usize,
    pub losses: usize,
    /// Points per game.
    pub score: f64,
    /// The 95% interval of the score (normal approximation).
    pub score_low: f64,
    pub score_high: f64,
    /// Elo against the field, and its 95% interval (`None` where infinite: a score of 0 or 1).
    pub elo: Option<f64>,
    pub elo_low: Option<f64>,
    pub elo_high: Option<f64>,
    /// Fewer than [`MIN_SAMPLE`] games: reports say so instead of the Elo.
    pub small_sample: bool,
    /// How this engine's games ended, by termination.
    pub terminations: BTreeMap<String, usize>,
}

/// Points out of games.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq)]
pub struct Score {
    pub points: f64,
    pub games: usize,
}

/// One team's results: a team is the set of engines on one side of a game.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct TeamStats {
    /// The engines joined by ` + `.
    pub name: String,
    pub engines: Vec<String>,
    pub games: usize,
    pub points: f64,
    pub wins: usize,
    pub draws: usize,
    pub losses: usize,
    /// Points per game.
    pub score: f64,
}

/// The fewest observations (pairs of games on one deal, or single games where there are no
/// pairs) from which reports show Elo with its interval, nElo and LOS. Below it those figures
/// rest on a normal approximation with almost nothing under it (one pair scoring 1.5 of 2
/// read `+191 [+191, +191]`, `±0`, LOS 100%): the text says "sample too small" instead, and
/// the JSON marks the pair or engine `small_sample` (its figures stay, for those who want
/// them).
pub const MIN_SAMPLE: usize = 5;

/// The fault code of a record whose bridged engine was slow to acknowledge a command (the
/// bridge's `--ack-timeout`): the game ends as a `disconnect`, and "Terminations per engine"
/// counts it as [`SLOW_ACK_TERMINATION`], apart from a disconnect or a crash.
pub const SLOW_ACK_FAULT: &str = "slow-ack";
/// What a bridge's report says of an engine slow to acknowledge (`BridgeError::SlowAck`).
pub const SLOW_ACK_TEXT: &str = "slow to acknowledge";
/// How reports name such a game's end.
pub const SLOW_ACK_TERMINATION: &str = "slow-to-acknowledge";

/// How a report names a game's end: its termination, but a disconnect caused by an engine slow
/// to acknowledge is [`SLOW_ACK_TERMINATION`].
pub fn termination_name(r: &GameRecord) -> &'static str {
    let slow = r.faults.iter().any(|f| f.code == SLOW_ACK_FAULT);
    if slow && r.result.reason == anqi_core::rules::Termination::Disconnect {
        SLOW_ACK_TERMINATION
    } else {
        r.result.reason.name()
    }
}

/// Computes the standings. `order` lists engine names in the order to break ties in (config
/// order); engines found only in the records come after. With `sprt`, tests the first two
/// engines of that order (the tournament's two engines), from the first one's point of view;
/// [`Standings::run_sprt`] tests any pair.
pub fn standings(records: &[GameRecord], order: &[String], sprt: Option<&SprtConfig>) -> Standings {
    let (mut standings, names) = table::table(records, order);
    if let (Some(cfg), [first, second, ..]) = (sprt, names.as_slice()) {
        let pair = standings.pair(first, second);
        standings.sprt = Some(sprt::sprt_result(cfg, first, second, pair.as_ref()));
    }
    standings
}

impl Standings {
    /// The statistics of `first` against `second`, from `first`'s point of view, if they met.
    pub fn pair(&self, first: &str, second: &str) -> Option<PairStats> {
        self.pairs.iter().find_map(|p| {
            if p.first == first && p.second == second {
                Some(p.clone())
            } else if p.first == second && p.second == first {
                Some(p.flipped())
            } else {
                None
            }
        })
    }
}

#[cfg(test)]
mod tests;
