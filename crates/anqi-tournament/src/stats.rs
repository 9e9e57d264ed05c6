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
//!   μ ± 1.96·√(σ²/N).
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

use super::config::SprtConfig;
use anqi_core::record::GameRecord;
use anqi_core::rules::Variant;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

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
    pub deals: Option<super::seeds::DealsCheck>,
}

/// The results of one one-side variant's games: a game is a success when its side reached the
/// goal (the record's `winner_side` is the side, 0), and every engine of the game shares it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct GoalStandings {
    /// The variant's name, and its `(game TYPE)` (`single`, `cooperative`, ...).
    pub variant: String,
    pub game_type: String,
    pub games: usize,
    pub successes: usize,
    /// Successes per game.
    pub success_rate: f64,
    /// Engines, best success rate first (ties in the engines' order).
    pub engines: Vec<GoalStats>,
    /// Cooperative games: the engines that played a game together (whatever their seats),
    /// best first. Empty for single-player games.
    pub teams: Vec<GoalStats>,
}

/// Successes out of games, of an engine or of a team of engines.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct GoalStats {
    /// The engine's name; a team's engines joined by ` + `.
    pub name: String,
    /// The engine itself, or the team's engines.
    pub engines: Vec<String>,
    pub games: usize,
    pub successes: usize,
    pub success_rate: f64,
    /// The 95% Wilson interval of the success rate.
    pub success_low: f64,
    pub success_high: f64,
    /// How the games ended, by termination.
    pub terminations: BTreeMap<String, usize>,
}

/// The 95% Wilson score interval of `successes` out of `n` (see the module documentation);
/// (0, 1) without games.
pub fn wilson(successes: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (s, n) = (successes as f64, n as f64);
    let p = s / n;
    let z2 = Z95 * Z95;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z95 / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// Games, successes and terminations, summed up as the records come.
#[derive(Default)]
struct GoalTally {
    games: usize,
    successes: usize,
    terminations: BTreeMap<String, usize>,
}

impl GoalTally {
    fn add(&mut self, success: bool, reason: &str) {
        self.games += 1;
        self.successes += usize::from(success);
        *self.terminations.entry(reason.to_string()).or_default() += 1;
    }

    fn stats(self, name: String, engines: Vec<String>) -> GoalStats {
        let (success_low, success_high) = wilson(self.successes, self.games);
        GoalStats {
            name,
            engines,
            games: self.games,
            successes: self.successes,
            success_rate: self.successes as f64 / self.games.max(1) as f64,
            success_low,
            success_high,
            terminations: self.terminations,
        }
    }
}

/// One one-side variant's games as the records come.
struct GoalSection {
    game_type: String,
    all: GoalTally,
    /// By engine rank.
    engines: BTreeMap<usize, GoalTally>,
    /// By the team's engine ranks, sorted (cooperative games).
    teams: BTreeMap<Vec<usize>, GoalTally>,
}

impl GoalSection {
    fn standings(self, variant: String, names: &[String]) -> GoalStandings {
        // Best rate first; the sort is stable, so ties keep the engines' order.
        let by_rate = |a: &GoalStats, b: &GoalStats| b.success_rate.total_cmp(&a.success_rate);
        let mut engines: Vec<GoalStats> = self
            .engines
            .into_iter()
            .map(|(rank, t)| t.stats(names[rank].clone(), vec![names[rank].clone()]))
            .collect();
        engines.sort_by(by_rate);
        let mut teams: Vec<GoalStats> = self
            .teams
            .into_iter()
            .map(|(ranks, t)| {
                let members: Vec<String> = ranks.iter().map(|&r| names[r].clone()).collect();
                t.stats(members.join(" + "), members)
            })
            .collect();
        teams.sort_by(by_rate);
        let all = self.all.stats(String::new(), Vec::new());
        GoalStandings {
            variant,
            game_type: self.game_type,
            games: all.games,
            successes: all.successes,
            success_rate: all.success_rate,
            engines,
            teams,
        }
    }
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
    /// How this engine's games ended, by termination.
    pub terminations: BTreeMap<String, usize>,
}

/// Points out of games.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq)]
pub struct Score {
    pub points: f64,
    pub games: usize,
}

/// Paired-deal results of `first` against `second`.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Pentanomial {
    pub first: String,
    pub second: String,
    pub counts: [usize; 5],
}

/// What a pair's Elo, nElo, LOS and SPRT are computed from.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Model {
    /// Pairs of games on one deal with the seats swapped: each pair is one observation.
    Pentanomial,
    /// Single games: each game is one observation.
    Trinomial,
}

/// The results of `first` against `second`, from `first`'s point of view, over the games where
/// they sat on opposite sides (in a team game, each pair of opponents counts the game once).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PairStats {
    pub first: String,
    pub second: String,
    pub games: usize,
    pub wins: usize,
    pub draws: usize,
    pub losses: usize,
    /// The first engine's points, and per game.
    pub points: f64,
    pub score: f64,
    /// Drawn games per game.
    pub draw_ratio: f64,
    /// Where `elo`, `nelo` and `los` come from: complete pairs of games when there are any
    /// (games outside a complete pair, from a lone shard or an event stopped early, count in
    /// W/D/L and `score` only), single games otherwise.
    pub model: Model,
    /// How many observations: pairs (pentanomial) or games (trinomial).
    pub observations: usize,
    /// Elo difference (first minus second) and its 95% interval; `None` where infinite.
    pub elo: Option<f64>,
    pub elo_low: Option<f64>,
    pub elo_high: Option<f64>,
    /// Normalized Elo and its 95% error (±); `None` when the results have no spread.
    pub nelo: Option<f64>,
    pub nelo_error: Option<f64>,
    /// Likelihood of superiority of the first engine, in [0, 1].
    pub los: Option<f64>,
    /// Pentanomial counts (pairs where the first engine scored 0, 0.5, 1, 1.5, 2) when the two
    /// met in two-player games; `None` when they met only in games of more players.
    pub pentanomial: Option<[usize; 5]>,
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

/// The SPRT of one pair of engines, from the first engine's point of view: H0 says the first is
/// `elo0` stronger than the second, H1 that it is `elo1` stronger.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SprtResult {
    pub first: String,
    pub second: String,
    /// Pentanomial when the two met in two-player games (an unfinished pair of games waits for
    /// its second game), trinomial when they met only in games of more players.
    pub model: Model,
    /// Pairs or games observed.
    pub observations: usize,
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    pub verdict: Verdict,
}

/// What an SPRT says so far; in JSON `"H1"`, `"H0"` or `"continue"`.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub enum Verdict {
    /// The first engine is `elo1` stronger rather than `elo0`: stop.
    H1,
    /// The first engine is `elo0` stronger rather than `elo1`: stop.
    H0,
    /// Neither yet: play on.
    #[serde(rename = "continue")]
    Continue,
}

impl Verdict {
    /// Whether the test has decided (the event may stop).
    pub fn is_decided(self) -> bool {
        self != Verdict::Continue
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Verdict::H1 => "H1",
            Verdict::H0 => "H0",
            Verdict::Continue => "continue",
        })
    }
}

/// The two-sided 95% quantile of the standard normal distribution.
pub const Z95: f64 = 1.959963984540054;

/// A sample of scores: N observations, their mean per-game score and the variance of one
/// observation. See the module documentation for the formulas and their sources.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub model: Model,
    pub n: usize,
    pub mean: f64,
    pub variance: f64,
}

impl Sample {
    /// Games: `wins`, `draws`, `losses` of the engine whose point of view is taken.
    pub fn trinomial(wins: usize, draws: usize, losses: usize) -> Sample {
        Sample::of(Model::Trinomial, &[0.0, 0.5, 1.0], &[losses, draws, wins])
    }

    /// Pairs of games: how many pairs scored 0, 0.5, 1, 1.5 and 2 points.
    pub fn pentanomial(counts: &[usize; 5]) -> Sample {
        Sample::of(Model::Pentanomial, &[0.0, 0.25, 0.5, 0.75, 1.0], counts)
    }

    /// `counts[i]` observations of per-game score `scores[i]`.
    fn of(model: Model, scores: &[f64], counts: &[usize]) -> Sample {
        let counts: Vec<f64> = counts.iter().map(|&c| c as f64).collect();
        let (mean, variance) = mean_and_variance(scores, &counts);
        Sample {
            model,
            n: counts.iter().sum::<f64>() as usize,
            mean,
            variance,
        }
    }

    /// Games in one observation.
    fn games_per_observation(&self) -> f64 {
        match self.model {
            Model::Pentanomial => 2.0,
            Model::Trinomial => 1.0,
        }
    }

    /// The standard error of the mean score, √(σ²/N).
    pub fn standard_error(&self) -> f64 {
        (self.variance / self.n as f64).sqrt()
    }

    /// The 95% interval of the mean score, within [0, 1].
    pub fn score_interval(&self) -> (f64, f64) {
        let half = Z95 * self.standard_error();
        ((self.mean - half).max(0.0), (self.mean + half).min(1.0))
    }

    /// Elo of the mean score and of the ends of its 95% interval (`None` where infinite).
    pub fn elo(&self) -> (Option<f64>, Option<f64>, Option<f64>) {
        let (low, high) = self.score_interval();
        (elo_of(self.mean), elo_of(low), elo_of(high))
    }

    /// Normalized Elo: (μ − ½) / σ_game · 800/ln 10, with σ_game = √(games per observation ·
    /// σ²). `None` without observations or without spread (every result the same).
    pub fn nelo(&self) -> Option<f64> {
        let sigma_game = (self.games_per_observation() * self.variance).sqrt();
        (self.n > 0 && sigma_game > 0.0).then(|| (self.mean - 0.5) / sigma_game * NELO_SCALE)
    }

    /// The 95% error (±) of [`Sample::nelo`]: the nElo of the score interval's half-width.
    pub fn nelo_error(&self) -> Option<f64> {
        let sigma_game = (self.games_per_observation() * self.variance).sqrt();
        (self.n > 0 && sigma_game > 0.0)
            .then(|| Z95 * self.standard_error() / sigma_game * NELO_SCALE)
    }

    /// Likelihood of superiority: Φ((μ − ½) / √(σ²/N)). Without spread it is 1, 0 or ½ as the
    /// score is above, below or at ½; `None` without observations.
    pub fn los(&self) -> Option<f64> {
        if self.n == 0 {
            return None;
        }
        let se = self.standard_error();
        Some(if se > 0.0 {
            normal_cdf((self.mean - 0.5) / se)
        } else if self.mean > 0.5 {
            1.0
        } else if self.mean < 0.5 {
            0.0
        } else {
            0.5
        })
    }
}

/// 800/ln 10: the slope of the logistic Elo curve at an even score, times 2 (nElo's unit).
const NELO_SCALE: f64 = 800.0 / std::f64::consts::LN_10;

/// The mean and (population) variance of `scores` weighted by `counts`; (0.5, 0) when empty.
fn mean_and_variance(scores: &[f64], counts: &[f64]) -> (f64, f64) {
    let total: f64 = counts.iter().sum();
    if total <= 0.0 {
        return (0.5, 0.0);
    }
    let mean = scores.iter().zip(counts).map(|(s, c)| s * c).sum::<f64>() / total;
    let variance = scores
        .iter()
        .zip(counts)
        .map(|(s, c)| c * (s - mean).powi(2))
        .sum::<f64>()
        / total;
    (mean, variance)
}

/// The standard normal distribution function Φ(x) = erfc(−x/√2)/2, with erfc from the
/// Chebyshev fit of Numerical Recipes (Press et al., 2nd ed., §6.2, `erfcc`), whose relative
/// error is below 1.2·10⁻⁷ everywhere.
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = [
        -1.265_512_23,
        1.000_023_68,
        0.374_091_96,
        0.096_784_18,
        -0.186_288_06,
        0.278_868_07,
        -1.135_203_98,
        1.488_515_87,
        -0.822_152_23,
        0.170_872_77,
    ]
    .iter()
    .rev()
    .fold(0.0, |acc, c| c + t * acc);
    let r = t * (-z * z + poly).exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// A game's result for one engine: 1, 0.5 or 0.
fn result_for(record: &GameRecord, seat: usize, variant: &Variant) -> f64 {
    match record.result.winner_side {
        None => 0.5,
        Some(side) if variant.side_of(seat) == side => 1.0,
        Some(_) => 0.0,
    }
}

/// Computes the standings. `order` lists engine names in the order to break ties in (config
/// order); engines found only in the records come after. With `sprt`, tests the first two
/// engines of that order (the tournament's two engines), from the first one's point of view;
/// [`Standings::run_sprt`] tests any pair.
pub fn standings(records: &[GameRecord], order: &[String], sprt: Option<&SprtConfig>) -> Standings {
    let (mut standings, names) = table(records, order);
    if let (Some(cfg), [first, second, ..]) = (sprt, names.as_slice()) {
        let pair = standings.pair(first, second);
        standings.sprt = Some(sprt_result(cfg, first, second, pair.as_ref()));
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

    /// Runs the SPRT on `pair` (first engine, second engine: H1 says the first is the
    /// stronger), or, when no pair is named, on the only two engines of the records.
    ///
    /// # Errors
    /// No pair named while the records hold more (or fewer) than two engines, an engine not in
    /// the records, an engine paired with itself, or two engines that never met.
    pub fn run_sprt(&mut self, cfg: &SprtConfig, pair: Option<(&str, &str)>) -> Result<(), String> {
        if self.engines.is_empty() && !self.one_side.is_empty() {
            let variants: Vec<&str> = self.one_side.iter().map(|g| g.variant.as_str()).collect();
            return Err(format!(
                "the records hold one-side games only ({}: a side plays for a goal, not against another engine), whose engines get success rates, not Elo; the SPRT tests the Elo difference of two engines playing each other",
                variants.join(", ")
            ));
        }
        let names: Vec<&str> = self.engines.iter().map(|e| e.name.as_str()).collect();
        let (first, second) = match pair {
            Some((a, b)) => {
                for n in [a, b] {
                    let one_side_only = self
                        .one_side
                        .iter()
                        .any(|g| g.engines.iter().any(|e| e.name == n));
                    if !names.contains(&n) && one_side_only {
                        return Err(format!(
                            "engine {n:?} played only one-side games, which have success rates, not Elo"
                        ));
                    }
                    if !names.contains(&n) {
                        return Err(format!(
                            "no engine {n:?} in the records (engines: {})",
                            names.join(", ")
                        ));
                    }
                }
                if a == b {
                    return Err(format!("the SPRT tests two engines, not {a:?} against itself"));
                }
                (a.to_string(), b.to_string())
            }
            None => match (names.len(), self.pairs.as_slice()) {
                (2, [p]) => (p.first.clone(), p.second.clone()),
                (2, _) => {
                    return Err(format!("{} and {} never met", names[0], names[1]));
                }
                (n, _) if n > 2 => {
                    return Err(format!(
                        "the records hold {n} engines ({}): name the pair to test with --pair FIRST,SECOND",
                        names.join(", ")
                    ))
                }
                (n, _) => {
                    return Err(format!(
                        "the SPRT needs two engines; the records hold {n}"
                    ))
                }
            },
        };
        let stats = self
            .pair(&first, &second)
            .ok_or_else(|| format!("{first} and {second} never met"))?;
        self.sprt = Some(sprt_result(cfg, &first, &second, Some(&stats)));
        Ok(())
    }
}

/// Everything but the SPRT, and the engines in tie-break order.
fn table(records: &[GameRecord], order: &[String]) -> (Standings, Vec<String>) {
    let mut records: Vec<&GameRecord> = records.iter().filter(|r| r.tournament.is_some()).collect();
    records.sort_by_key(|r| r.tournament.as_ref().map(|t| t.index));
    let mut table = Table::new(&records, order);
    for r in &records {
        table.add(r);
    }
    let standings = Standings {
        variant: table
            .competitive_variant
            .clone()
            .or_else(|| records.first().map(|r| r.variant.clone()))
            .unwrap_or_default(),
        games: records.len(),
        engines: table.engine_standings(),
        crosstable: std::mem::take(&mut table.cross),
        pentanomial: Vec::new(),
        pairs: table.pair_stats(),
        teams: table.team_standings(),
        sprt: None,
        one_side: table.goal_standings(),
        deals: None,
    };
    let pentanomial = standings
        .pairs
        .iter()
        .filter_map(|p| {
            let counts = p.pentanomial.filter(|c| c.iter().sum::<usize>() > 0)?;
            Some(Pentanomial {
                first: p.first.clone(),
                second: p.second.clone(),
                counts,
            })
        })
        .collect();
    (
        Standings {
            pentanomial,
            ..standings
        },
        table.names,
    )
}

/// The standings as the records come, one field per section, each filled by its own method
/// and turned into its part of [`Standings`] by another.
/// A game of two sides, each one engine's: the engines by side, and each side's result.
type SidesGame<'r> = (Vec<&'r str>, [f64; 2]);

struct Table<'r> {
    /// Engines in tie-break order: the given order, then as the records show them. An
    /// engine's rank is its place here.
    names: Vec<String>,
    /// Each description met, parsed once.
    variants: HashMap<&'r str, Arc<Variant>>,
    /// The variant of the first competitive game.
    competitive_variant: Option<String>,
    /// Each engine's result in each competitive game it played, and how those games ended.
    per_engine: BTreeMap<String, Vec<f64>>,
    terminations: BTreeMap<String, BTreeMap<String, usize>>,
    /// Points of the row engine against the column engine.
    cross: BTreeMap<String, BTreeMap<String, Score>>,
    /// (first, second) by rank -> the first engine's result in each game they met.
    pair_games: BTreeMap<(usize, usize), Vec<f64>>,
    /// Pairs that met in two-player games, and their pentanomial counts.
    two_player: BTreeMap<(usize, usize), [usize; 5]>,
    /// Deal -> its games of two sides each held by one engine (two-player games, or team
    /// games where each engine fields a side), as (the engines by side, their results), in
    /// index order, for pentanomials.
    deals: BTreeMap<u64, Vec<SidesGame<'r>>>,
    /// Team (engine ranks, sorted) -> its results.
    team_games: BTreeMap<Vec<usize>, Vec<f64>>,
    /// One-side games, by variant name, in the order first seen.
    goals: Vec<(String, GoalSection)>,
}

impl<'r> Table<'r> {
    fn new(records: &[&'r GameRecord], order: &[String]) -> Table<'r> {
        let mut names: Vec<String> = order.to_vec();
        for r in records {
            for e in &r.tournament.as_ref().expect("filtered").engines {
                if !names.contains(e) {
                    names.push(e.clone());
                }
            }
        }
        Table {
            names,
            variants: HashMap::new(),
            competitive_variant: None,
            per_engine: BTreeMap::new(),
            terminations: BTreeMap::new(),
            cross: BTreeMap::new(),
            pair_games: BTreeMap::new(),
            two_player: BTreeMap::new(),
            deals: BTreeMap::new(),
            team_games: BTreeMap::new(),
            goals: Vec::new(),
        }
    }

    fn rank(&self, name: &str) -> usize {
        rank_of(&self.names, name)
    }

    /// Takes in one tournament record.
    fn add(&mut self, r: &'r GameRecord) {
        let v = self
            .variants
            .entry(r.variant_source.as_str())
            .or_insert_with(|| {
                Arc::new(Variant::parse(&r.variant_source).unwrap_or_else(|_| placeholder(r)))
            })
            .clone();
        if super::one_side(&v) {
            return self.add_goal(r, &v);
        }
        self.competitive_variant
            .get_or_insert_with(|| r.variant.clone());
        let engines = &r.tournament.as_ref().expect("filtered").engines;
        let seats = engines.len().min(v.players);
        let results: Vec<f64> = (1..=seats).map(|seat| result_for(r, seat, &v)).collect();
        self.add_engines(r, &v, &engines[..seats], &results);
        self.add_pairs(&v, &engines[..seats], &results);
        self.add_teams(&v, &engines[..seats], &results);
        // Two sides, each one engine's (a two-player game, or a team game where each engine
        // fields a side): the game joins its deal's pair for the pentanomial counts.
        if seats == v.players && v.sides.len() == 2 {
            let by_side: Vec<Vec<&'r str>> = v
                .sides
                .iter()
                .map(|members| {
                    let mut names: Vec<&'r str> =
                        members.iter().map(|&p| engines[p - 1].as_str()).collect();
                    names.dedup();
                    names
                })
                .collect();
            if let [first, second] = by_side.as_slice() {
                if first.len() == 1 && second.len() == 1 {
                    let deal = r.tournament.as_ref().expect("filtered").deal;
                    let results = [results[v.sides[0][0] - 1], results[v.sides[1][0] - 1]];
                    self.deals
                        .entry(deal)
                        .or_default()
                        .push((vec![first[0], second[0]], results));
                }
            }
        }
    }

    /// A one-side game: a success for its engines and its team when the side reached its goal.
    fn add_goal(&mut self, r: &GameRecord, v: &Variant) {
        let tag = r.tournament.as_ref().expect("filtered");
        let mut team: Vec<usize> = tag
            .engines
            .iter()
            .take(v.players)
            .map(|e| self.rank(e))
            .collect();
        let i = match self.goals.iter().position(|(name, _)| *name == v.name) {
            Some(i) => i,
            None => {
                self.goals.push((
                    v.name.clone(),
                    GoalSection {
                        game_type: v.game_type.clone(),
                        all: GoalTally::default(),
                        engines: BTreeMap::new(),
                        teams: BTreeMap::new(),
                    },
                ));
                self.goals.len() - 1
            }
        };
        let section = &mut self.goals[i].1;
        // The only side is 0: the game succeeded when it won.
        let success = r.result.winner_side == Some(0);
        let reason = r.result.reason.name();
        section.all.add(success, reason);
        for &rank in &team {
            section
                .engines
                .entry(rank)
                .or_default()
                .add(success, reason);
        }
        if v.players > 1 {
            team.sort_unstable();
            section.teams.entry(team).or_default().add(success, reason);
        }
    }

    /// Each seat's result for its engine, how the game ended, and the crosstable's cells of
    /// every two engines on opposite sides.
    fn add_engines(&mut self, r: &GameRecord, v: &Variant, engines: &[String], results: &[f64]) {
        let side = |seat_index: usize| v.side_of(seat_index + 1);
        // An engine in several seats of one side (it fields the side) plays the game once: its
        // first seat counts, and each opponent once.
        let first_seat = |i: usize| engines.iter().position(|e| *e == engines[i]) == Some(i);
        for (i, e) in engines.iter().enumerate() {
            if !first_seat(i) {
                continue;
            }
            self.per_engine
                .entry(e.clone())
                .or_default()
                .push(results[i]);
            *self
                .terminations
                .entry(e.clone())
                .or_default()
                .entry(r.result.reason.name().to_string())
                .or_default() += 1;
            for (j, other) in engines.iter().enumerate() {
                if side(i) != side(j) && first_seat(j) {
                    let cell = self
                        .cross
                        .entry(e.clone())
                        .or_default()
                        .entry(other.clone())
                        .or_default();
                    cell.points += results[i];
                    cell.games += 1;
                }
            }
        }
    }

    /// The game for every pair of opponents, once whatever the seats they hold; an engine on
    /// both sides of a game has no result against anyone in it.
    fn add_pairs(&mut self, v: &Variant, engines: &[String], results: &[f64]) {
        let seats = engines.len();
        let side = |seat_index: usize| v.side_of(seat_index + 1);
        let ranks: Vec<usize> = engines.iter().map(|e| self.rank(e)).collect();
        let sides_of = |rank: usize| -> Vec<usize> {
            let mut s: Vec<usize> = (0..seats).filter(|&i| ranks[i] == rank).map(side).collect();
            s.sort_unstable();
            s.dedup();
            s
        };
        let mut met: Vec<(usize, usize, usize)> = Vec::new(); // (first, second, seat of first)
        for i in 0..seats {
            for j in 0..seats {
                let (a, b) = (ranks[i], ranks[j]);
                if a < b
                    && side(i) != side(j)
                    && sides_of(a).len() == 1
                    && sides_of(b).len() == 1
                    && !met.iter().any(|&(x, y, _)| (x, y) == (a, b))
                {
                    met.push((a, b, i));
                }
            }
        }
        for (a, b, seat) in met {
            self.pair_games
                .entry((a, b))
                .or_default()
                .push(results[seat]);
            if seats == 2 {
                self.two_player.entry((a, b)).or_insert([0; 5]);
            }
        }
    }

    /// In a team game, each side's result for its team of engines.
    fn add_teams(&mut self, v: &Variant, engines: &[String], results: &[f64]) {
        if !v.has_teams() {
            return;
        }
        let seats = engines.len();
        for members in &v.sides {
            let mut team: Vec<usize> = members
                .iter()
                .filter(|&&p| p <= seats)
                .map(|&p| self.rank(&engines[p - 1]))
                .collect();
            team.sort_unstable();
            team.dedup();
            // An engine fielding a side alone is no team: the engines' table has it.
            if team.len() < 2 {
                continue;
            }
            if let Some(&first) = members.first().filter(|&&p| p <= seats) {
                self.team_games
                    .entry(team)
                    .or_default()
                    .push(results[first - 1]);
            }
        }
    }

    /// The engines of competitive games, most points first (fewer games first on equal points).
    fn engine_standings(&mut self) -> Vec<EngineStats> {
        let mut engines: Vec<EngineStats> = self
            .names
            .iter()
            .filter_map(|name| {
                let results = self.per_engine.get(name)?;
                let (wins, draws, losses) = wdl(results);
                let sample = Sample::trinomial(wins, draws, losses);
                let (score_low, score_high) = sample.score_interval();
                let (elo, elo_low, elo_high) = sample.elo();
                Some(EngineStats {
                    name: name.clone(),
                    games: results.len(),
                    points: results.iter().sum(),
                    wins,
                    draws,
                    losses,
                    score: sample.mean,
                    score_low,
                    score_high,
                    elo,
                    elo_low,
                    elo_high,
                    terminations: self.terminations.remove(name).unwrap_or_default(),
                })
            })
            .collect();
        engines.sort_by(|a, b| b.points.total_cmp(&a.points).then(a.games.cmp(&b.games)));
        engines
    }

    /// Every pair that met, with its pentanomial counts: two-seat deals played exactly twice
    /// by the same two engines, swapped.
    fn pair_stats(&mut self) -> Vec<PairStats> {
        for games in self.deals.values() {
            if let [(ea, ra), (eb, rb)] = games.as_slice() {
                if ea.len() != 2
                    || eb.len() != 2
                    || ea[0] != eb[1]
                    || ea[1] != eb[0]
                    || ea[0] == ea[1]
                {
                    continue;
                }
                let (i, j) = (rank_of(&self.names, ea[0]), rank_of(&self.names, ea[1]));
                let (first, first_seat_a) = if i < j { ((i, j), 0) } else { ((j, i), 1) };
                let first_points = ra[first_seat_a] + rb[1 - first_seat_a];
                self.two_player.entry(first).or_insert([0; 5])
                    [(first_points * 2.0).round() as usize] += 1;
            }
        }
        self.pair_games
            .iter()
            .map(|(&(i, j), results)| {
                PairStats::new(
                    &self.names[i],
                    &self.names[j],
                    results,
                    self.two_player.get(&(i, j)).copied(),
                )
            })
            .collect()
    }

    /// The teams of team games, most points first.
    fn team_standings(&self) -> Vec<TeamStats> {
        let mut teams: Vec<TeamStats> = self
            .team_games
            .iter()
            .map(|(members, results)| {
                let engines: Vec<String> = members.iter().map(|&m| self.names[m].clone()).collect();
                let (wins, draws, losses) = wdl(results);
                let points: f64 = results.iter().sum();
                TeamStats {
                    name: engines.join(" + "),
                    engines,
                    games: results.len(),
                    points,
                    wins,
                    draws,
                    losses,
                    score: points / results.len() as f64,
                }
            })
            .collect();
        teams.sort_by(|a, b| b.points.total_cmp(&a.points).then(a.games.cmp(&b.games)));
        teams
    }

    /// Each one-side variant's success rates.
    fn goal_standings(&mut self) -> Vec<GoalStandings> {
        std::mem::take(&mut self.goals)
            .into_iter()
            .map(|(variant, section)| section.standings(variant, &self.names))
            .collect()
    }
}

/// Wins, draws and losses among results of 1, 0.5 and 0.
fn wdl(results: &[f64]) -> (usize, usize, usize) {
    let count = |x: f64| results.iter().filter(|&&r| r == x).count();
    (count(1.0), count(0.5), count(0.0))
}

impl PairStats {
    /// The statistics of `first` against `second` from the first engine's results in their
    /// games, and the pentanomial counts when they met in two-player games.
    fn new(first: &str, second: &str, results: &[f64], pentanomial: Option<[usize; 5]>) -> Self {
        let (wins, draws, losses) = wdl(results);
        let games = results.len();
        let points: f64 = results.iter().sum();
        let sample = match pentanomial {
            Some(counts) if counts.iter().sum::<usize>() > 0 => Sample::pentanomial(&counts),
            _ => Sample::trinomial(wins, draws, losses),
        };
        let (elo, elo_low, elo_high) = sample.elo();
        PairStats {
            first: first.into(),
            second: second.into(),
            games,
            wins,
            draws,
            losses,
            points,
            score: points / games as f64,
            draw_ratio: draws as f64 / games as f64,
            model: sample.model,
            observations: sample.n,
            elo,
            elo_low,
            elo_high,
            nelo: sample.nelo(),
            nelo_error: sample.nelo_error(),
            los: sample.los(),
            pentanomial,
        }
    }

    /// The same statistics from the second engine's point of view.
    pub fn flipped(&self) -> PairStats {
        let mut results = vec![0.0; self.wins];
        results.extend(std::iter::repeat_n(0.5, self.draws));
        results.extend(std::iter::repeat_n(1.0, self.losses));
        let pentanomial = self.pentanomial.map(|mut c| {
            c.reverse();
            c
        });
        PairStats::new(&self.second, &self.first, &results, pentanomial)
    }
}

fn placeholder(r: &GameRecord) -> Variant {
    // A record whose description no longer parses still counts: assume one player per side.
    let mut v = Variant::shipped("traditional").expect("shipped");
    v.players = r.players.len();
    v.sides = (1..=r.players.len()).map(|p| vec![p]).collect();
    v
}

fn rank_of(names: &[String], name: &str) -> usize {
    names.iter().position(|n| n == name).unwrap_or(usize::MAX)
}

/// Logistic Elo of a score in (0, 1): −400·log₁₀(1/score − 1).
pub fn elo_of(score: f64) -> Option<f64> {
    (score > 0.0 && score < 1.0).then(|| -400.0 * (1.0 / score - 1.0).log10())
}

/// The SPRT log-likelihood ratio of H1 (Elo `elo1`) against H0 (Elo `elo0`) from `counts[i]`
/// observations of per-game score `scores[i]` (the normal approximation of the generalized
/// SPRT; see the module documentation). The mean and variance are estimated with half an
/// observation added to every outcome: a few identical results (no observed spread) must not
/// look like certainty.
pub fn llr(scores: &[f64], counts: &[usize], elo0: f64, elo1: f64) -> f64 {
    let n: usize = counts.iter().sum();
    if n == 0 {
        return 0.0;
    }
    let regularized: Vec<f64> = counts.iter().map(|&c| c as f64 + 0.5).collect();
    let (mean, variance) = mean_and_variance(scores, &regularized);
    let s = |elo: f64| 1.0 / (1.0 + 10f64.powf(-elo / 400.0));
    let (s0, s1) = (s(elo0), s(elo1));
    n as f64 * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * variance)
}

/// The SPRT of `first` against `second` (`pair`: their statistics from `first`'s point of
/// view, `None` when they have not met yet).
fn sprt_result(
    cfg: &SprtConfig,
    first: &str,
    second: &str,
    pair: Option<&PairStats>,
) -> SprtResult {
    let (model, observations, llr) = match pair {
        Some(PairStats {
            pentanomial: Some(counts),
            ..
        }) => (
            Model::Pentanomial,
            counts.iter().sum(),
            llr(&[0.0, 0.25, 0.5, 0.75, 1.0], counts, cfg.elo0, cfg.elo1),
        ),
        Some(p) => (
            Model::Trinomial,
            p.games,
            llr(
                &[0.0, 0.5, 1.0],
                &[p.losses, p.draws, p.wins],
                cfg.elo0,
                cfg.elo1,
            ),
        ),
        None => (Model::Pentanomial, 0, 0.0),
    };
    let lower = (cfg.beta / (1.0 - cfg.alpha)).ln();
    let upper = ((1.0 - cfg.beta) / cfg.alpha).ln();
    let verdict = if llr >= upper {
        Verdict::H1
    } else if llr <= lower {
        Verdict::H0
    } else {
        Verdict::Continue
    };
    SprtResult {
        first: first.into(),
        second: second.into(),
        model,
        observations,
        elo0: cfg.elo0,
        elo1: cfg.elo1,
        alpha: cfg.alpha,
        beta: cfg.beta,
        llr,
        lower,
        upper,
        verdict,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(got: f64, want: f64, tolerance: f64) {
        assert!(
            (got - want).abs() <= tolerance,
            "got {got}, want {want} ± {tolerance}"
        );
    }

    #[test]
    fn elo_of_even_and_skewed_scores() {
        assert_eq!(elo_of(0.5), Some(0.0));
        assert!((elo_of(0.75).unwrap() - 190.85).abs() < 0.1);
        assert_eq!(elo_of(1.0), None);
        assert_eq!(elo_of(0.0), None);
    }

    /// Wilson intervals by hand: 7/10 gives p̂ = 0.7, centre (0.7 + 0.19208)/1.38415 = 0.64446,
    /// half-width 1.96/1.38415 · √(0.021 + 0.0096040) = 0.24776: [0.3967, 0.8922]. All or
    /// nothing keeps a one-sided interval: 0/10 is [0, 0.2775].
    #[test]
    fn wilson_intervals_by_hand() {
        let (low, high) = wilson(7, 10);
        close(low, 0.3967, 0.0001);
        close(high, 0.8922, 0.0001);
        let (low, high) = wilson(0, 10);
        close(low, 0.0, 1e-12);
        close(high, 0.2775, 0.0001);
        let (low, high) = wilson(10, 10);
        close(low, 0.7225, 0.0001);
        close(high, 1.0, 1e-12);
        assert_eq!(wilson(0, 0), (0.0, 1.0));
    }

    #[test]
    fn normal_cdf_at_known_points() {
        close(normal_cdf(0.0), 0.5, 1e-7);
        close(normal_cdf(1.959963984540054), 0.975, 1e-7);
        close(normal_cdf(-1.0), 0.158_655_253_9, 1e-7);
        close(normal_cdf(3.0), 0.998_650_101_97, 1e-7);
        close(normal_cdf(-8.0), 0.0, 1e-12);
    }

    /// W/D/L = 10/5/5 by hand: μ = 12.5/20 = 0.625; σ² = (10·0.375² + 5·0.125² + 5·0.625²)/20
    /// = 0.171875; se = √(σ²/20) = 0.092702; Elo = −400·log₁₀(0.6) = 88.74; interval
    /// 0.625 ± 1.96·0.092702 = [0.44331, 0.80669] → [−39.6, +248.2]; LOS = Φ(0.125/0.092702)
    /// = Φ(1.3484) = 0.9112; nElo = 0.125/√0.171875 · 347.436 = 104.76.
    #[test]
    fn trinomial_by_hand() {
        let s = Sample::trinomial(10, 5, 5);
        close(s.mean, 0.625, 1e-12);
        close(s.variance, 0.171875, 1e-12);
        let (elo, low, high) = s.elo();
        close(elo.unwrap(), 88.74, 0.01);
        close(low.unwrap(), -39.56, 0.01);
        close(high.unwrap(), 248.18, 0.01);
        close(s.los().unwrap(), 0.9112, 0.0001);
        close(s.nelo().unwrap(), 104.76, 0.01);
    }

    /// fastchess's app/tests/elo_test.cpp, "EloWDL 1" to "EloWDL 3" (its Stats(W, L, D)).
    #[test]
    fn trinomial_matches_fastchess() {
        let s = Sample::trinomial(76, 123, 89);
        close(s.nelo().unwrap(), -20.76, 0.01);
        close(s.nelo_error().unwrap(), 40.13, 0.01);
        assert_eq!(format!("{:.2}", 100.0 * s.los().unwrap()), "15.53");
        let s = Sample::trinomial(136, 111, 96);
        close(s.nelo().unwrap(), 49.77, 0.01);
        close(s.nelo_error().unwrap(), 36.77, 0.01);
        let (elo, low, high) = s.elo();
        close(elo.unwrap(), 40.70, 0.01);
        close((high.unwrap() - low.unwrap()) / 2.0, 30.43, 0.01);
        assert_eq!(format!("{:.2}", 100.0 * s.los().unwrap()), "99.60");
        let s = Sample::trinomial(34, 0, 356);
        close(s.nelo().unwrap(), -508.44, 0.01);
        close(s.nelo_error().unwrap(), 34.48, 0.01);
    }

    /// fastchess's app/tests/elo_test.cpp, "EloPentanomial 1" to "3" (its Stats(LL, LD, WL, DD,
    /// WD, WW); WL and DD both score one point in two games, our middle count).
    #[test]
    fn pentanomial_matches_fastchess() {
        let s = Sample::pentanomial(&[34, 54, 31 + 32, 64, 75]);
        close(s.nelo().unwrap(), 57.94, 0.01);
        close(s.nelo_error().unwrap(), 28.28, 0.01);
        let (elo, low, high) = s.elo();
        close(elo.unwrap(), 55.58, 0.01);
        close((high.unwrap() - low.unwrap()) / 2.0, 27.65, 0.01);
        assert_eq!(format!("{:.2}", 100.0 * s.los().unwrap()), "100.00");
        let s = Sample::pentanomial(&[332, 433, 457 + 41, 333, 334]);
        close(s.nelo().unwrap(), -9.17, 0.01);
        close(s.nelo_error().unwrap(), 10.96, 0.01);
        let (elo, low, high) = s.elo();
        close(elo.unwrap(), -8.64, 0.01);
        close((high.unwrap() - low.unwrap()) / 2.0, 10.33, 0.01);
        assert_eq!(format!("{:.2}", 100.0 * s.los().unwrap()), "5.05");
        let s = Sample::pentanomial(&[7895, 8757, 5485 + 200, 568, 9999]);
        close(s.nelo().unwrap(), -19.01, 0.01);
        close(s.nelo_error().unwrap(), 2.65, 0.01);
        let (elo, low, high) = s.elo();
        close(elo.unwrap(), -21.04, 0.01);
        close((high.unwrap() - low.unwrap()) / 2.0, 2.95, 0.01);
    }

    /// Five pairs by hand: [0, 1, 2, 1, 1] pairs scoring 0..2, i.e. per-game 0.25, 0.5, 0.5,
    /// 0.75, 1: μ = 3/5 = 0.6; σ² = (0.35² + 2·0.1² + 0.15² + 0.4²)/5 = 0.065; nElo =
    /// 0.1/√(2·0.065) · 347.436 = 96.36.
    #[test]
    fn pentanomial_by_hand() {
        let s = Sample::pentanomial(&[0, 1, 2, 1, 1]);
        close(s.mean, 0.6, 1e-12);
        close(s.variance, 0.065, 1e-12);
        close(s.nelo().unwrap(), 96.36, 0.01);
        close(
            s.los().unwrap(),
            normal_cdf(0.1 / (0.065f64 / 5.0).sqrt()),
            1e-12,
        );
    }

    #[test]
    fn no_spread_and_no_observations() {
        let all_draws = Sample::trinomial(0, 4, 0);
        assert_eq!(all_draws.nelo(), None);
        assert_eq!(all_draws.los(), Some(0.5));
        assert_eq!(Sample::trinomial(3, 0, 0).los(), Some(1.0));
        assert_eq!(Sample::trinomial(3, 0, 0).elo().0, None);
        assert_eq!(Sample::pentanomial(&[0; 5]).los(), None);
    }

    /// fastchess's app/tests/sprt_test.cpp, the logistic cases: the normal approximation
    /// agrees to the two decimals given.
    #[test]
    fn llr_matches_fastchess() {
        let penta = [0.0, 0.25, 0.5, 0.75, 1.0];
        let tri = [0.0, 0.5, 1.0];
        close(
            llr(&penta, &[223, 9863, 20279 + 1000, 10037, 246], 0.5, 2.5),
            -3.07,
            0.01,
        );
        close(
            llr(&penta, &[871, 26175, 55003 + 980, 26678, 821], 0.0, 2.0),
            -4.98,
            0.01,
        );
        // Stats(W, L, D): counts are L, D, W.
        close(llr(&tri, &[21184, 40708, 21404], 0.5, 2.5), -1.57, 0.01);
        close(llr(&tri, &[57030, 106593, 57433], 0.0, 2.0), -2.59, 0.01);
    }

    fn pair(wins: usize, draws: usize, losses: usize, penta: Option<[usize; 5]>) -> PairStats {
        let mut results = vec![1.0; wins];
        results.extend(std::iter::repeat_n(0.5, draws));
        results.extend(std::iter::repeat_n(0.0, losses));
        PairStats::new("new", "old", &results, penta)
    }

    #[test]
    fn sprt_accepts_a_clearly_stronger_engine_and_rejects_an_equal_one() {
        let cfg = SprtConfig {
            elo0: 0.0,
            elo1: 50.0,
            alpha: 0.05,
            beta: 0.05,
        };
        let run =
            |penta: [usize; 5]| sprt_result(&cfg, "new", "old", Some(&pair(0, 0, 0, Some(penta))));
        let strong = run([0, 1, 3, 6, 20]);
        assert_eq!(strong.verdict, Verdict::H1, "{strong:?}");
        assert_eq!(
            (strong.first.as_str(), strong.second.as_str()),
            ("new", "old")
        );
        assert_eq!(
            (strong.model, strong.observations),
            (Model::Pentanomial, 30)
        );
        let equal = run([30, 60, 120, 60, 30]);
        assert_eq!(equal.verdict, Verdict::H0, "{equal:?}");
        assert_eq!(run([0, 0, 1, 1, 0]).verdict, Verdict::Continue);
        // One pair won 2-0 proves nothing, nor do three.
        assert_eq!(run([0, 0, 0, 0, 1]).verdict, Verdict::Continue);
        assert_eq!(run([0, 0, 0, 0, 3]).verdict, Verdict::Continue);
        assert_eq!(run([3, 0, 0, 0, 0]).verdict, Verdict::Continue);
        // Met only in games of more players: single games.
        let team = sprt_result(&cfg, "new", "old", Some(&pair(60, 20, 5, None)));
        assert_eq!((team.model, team.observations), (Model::Trinomial, 85));
        assert_eq!(team.verdict, Verdict::H1);
        // Not met yet: nothing to decide on.
        assert_eq!(
            sprt_result(&cfg, "new", "old", None).verdict,
            Verdict::Continue
        );
    }

    #[test]
    fn pair_statistics_take_the_pentanomial_when_there_are_pairs() {
        let p = pair(10, 5, 5, Some([0, 1, 3, 4, 2]));
        assert_eq!((p.model, p.observations), (Model::Pentanomial, 10));
        close(p.score, 0.625, 1e-12);
        close(p.draw_ratio, 0.25, 1e-12);
        assert_eq!(p.nelo, Sample::pentanomial(&[0, 1, 3, 4, 2]).nelo());
        // A lone shard: two-player games but no complete pair.
        let p = pair(10, 5, 5, Some([0; 5]));
        assert_eq!((p.model, p.observations), (Model::Trinomial, 20));
        close(p.elo.unwrap(), 88.74, 0.01);
        close(p.los.unwrap(), 0.9112, 0.0001);
        // Seen from the other side: everything mirrored.
        let f = pair(10, 5, 5, Some([0, 1, 3, 4, 2])).flipped();
        assert_eq!((f.first.as_str(), f.wins, f.losses), ("old", 5, 10));
        assert_eq!(f.pentanomial, Some([2, 4, 3, 1, 0]));
        close(f.score, 0.375, 1e-12);
        close(
            f.nelo.unwrap(),
            -Sample::pentanomial(&[0, 1, 3, 4, 2]).nelo().unwrap(),
            1e-9,
        );
    }
}
