//! Standings from tournament records: points, W/D/L, Elo with a 95% interval, the crosstable,
//! pentanomial counts over paired deals, terminations per engine, and the SPRT for a match.
//!
//! Everything here depends only on the records' results, never on their timing, so the
//! standings of a merged set of shards equal those of one uninterrupted run.

use super::config::SprtConfig;
use crate::record::GameRecord;
use crate::rules::Variant;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// The standings of an event.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Standings {
    pub variant: String,
    pub games: usize,
    /// Engines, best first.
    pub engines: Vec<EngineStats>,
    /// Points of the row engine against the column engine: `crosstable[a][b]`.
    pub crosstable: BTreeMap<String, BTreeMap<String, Score>>,
    /// Pentanomial counts per pair of engines (two-player games played on the same deal with
    /// seats swapped), from the first engine's point of view: pairs scoring 0, 0.5, 1, 1.5, 2.
    pub pentanomial: Vec<Pentanomial>,
    pub sprt: Option<SprtResult>,
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

/// The SPRT of a two-engine match.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SprtResult {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    /// `"H1"` (the first engine is at least elo1 stronger), `"H0"`, or `"continue"`.
    pub verdict: String,
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
/// order); engines found only in the records come after.
pub fn standings(records: &[GameRecord], order: &[String], sprt: Option<&SprtConfig>) -> Standings {
    let mut records: Vec<&GameRecord> = records.iter().filter(|r| r.tournament.is_some()).collect();
    records.sort_by_key(|r| r.tournament.as_ref().map(|t| t.index));
    let mut names: Vec<String> = order.to_vec();
    for r in &records {
        for e in &r.tournament.as_ref().expect("filtered").engines {
            if !names.contains(e) {
                names.push(e.clone());
            }
        }
    }
    let mut variants: HashMap<&str, Variant> = HashMap::new();
    let mut per_engine: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut terminations: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    let mut cross: BTreeMap<String, BTreeMap<String, Score>> = BTreeMap::new();
    // Deal -> the games played on it (index order), for pentanomials.
    let mut deals: BTreeMap<u64, Vec<(&GameRecord, Vec<f64>)>> = BTreeMap::new();
    for r in &records {
        let v = variants
            .entry(r.variant_source.as_str())
            .or_insert_with(|| {
                Variant::parse(&r.variant_source).unwrap_or_else(|_| placeholder(r))
            });
        let tag = r.tournament.as_ref().expect("filtered");
        let results: Vec<f64> = (1..=tag.engines.len())
            .map(|seat| result_for(r, seat, v))
            .collect();
        for (i, e) in tag.engines.iter().enumerate() {
            per_engine.entry(e.clone()).or_default().push(results[i]);
            *terminations
                .entry(e.clone())
                .or_default()
                .entry(r.result.reason.name().to_string())
                .or_default() += 1;
            for (j, other) in tag.engines.iter().enumerate() {
                if v.side_of(i + 1) != v.side_of(j + 1) {
                    let cell = cross
                        .entry(e.clone())
                        .or_default()
                        .entry(other.clone())
                        .or_default();
                    cell.points += results[i];
                    cell.games += 1;
                }
            }
        }
        deals.entry(tag.deal).or_default().push((r, results));
    }
    let mut engines: Vec<EngineStats> = names
        .iter()
        .filter_map(|name| {
            let results = per_engine.get(name)?;
            let games = results.len();
            let points: f64 = results.iter().sum();
            let score = points / games as f64;
            let (score_low, score_high) = score_interval(results);
            Some(EngineStats {
                name: name.clone(),
                games,
                points,
                wins: results.iter().filter(|&&x| x == 1.0).count(),
                draws: results.iter().filter(|&&x| x == 0.5).count(),
                losses: results.iter().filter(|&&x| x == 0.0).count(),
                score,
                score_low,
                score_high,
                elo: elo_of(score),
                elo_low: elo_of(score_low),
                elo_high: elo_of(score_high),
                terminations: terminations.remove(name).unwrap_or_default(),
            })
        })
        .collect();
    engines.sort_by(|a, b| b.points.total_cmp(&a.points).then(a.games.cmp(&b.games)));

    // Pentanomials: two-seat deals played exactly twice by the same two engines.
    let mut penta: BTreeMap<(usize, usize), [usize; 5]> = BTreeMap::new();
    for games in deals.values() {
        if let [(a, ra), (b, rb)] = games.as_slice() {
            let (ea, eb) = (
                &a.tournament.as_ref().expect("tagged").engines,
                &b.tournament.as_ref().expect("tagged").engines,
            );
            if ea.len() != 2 || eb.len() != 2 || ea[0] != eb[1] || ea[1] != eb[0] {
                continue;
            }
            let (i, j) = (rank_of(&names, &ea[0]), rank_of(&names, &ea[1]));
            let (first, first_seat_a) = if i < j { ((i, j), 0) } else { ((j, i), 1) };
            let first_points = ra[first_seat_a] + rb[1 - first_seat_a];
            penta.entry(first).or_insert([0; 5])[(first_points * 2.0).round() as usize] += 1;
        }
    }
    let pentanomial: Vec<Pentanomial> = penta
        .into_iter()
        .map(|((i, j), counts)| Pentanomial {
            first: names[i].clone(),
            second: names[j].clone(),
            counts,
        })
        .collect();
    let sprt = sprt.map(|s| {
        let counts = pentanomial.first().map_or([0; 5], |p| p.counts);
        sprt_result(s, &counts)
    });
    Standings {
        variant: records.first().map_or(String::new(), |r| r.variant.clone()),
        games: records.len(),
        engines,
        crosstable: cross,
        pentanomial,
        sprt,
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

/// Logistic Elo of a score in (0, 1).
pub fn elo_of(score: f64) -> Option<f64> {
    (score > 0.0 && score < 1.0).then(|| -400.0 * (1.0 / score - 1.0).log10())
}

/// The 95% interval of the mean score from per-game scores (normal approximation), within
/// [0, 1].
fn score_interval(results: &[f64]) -> (f64, f64) {
    let n = results.len() as f64;
    let mean = results.iter().sum::<f64>() / n;
    let var = results.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    let half = 1.96 * (var / n).sqrt();
    ((mean - half).max(0.0), (mean + half).min(1.0))
}

/// The GSPRT log-likelihood ratio from pentanomial counts (pairs of games as observations).
pub fn sprt_result(cfg: &SprtConfig, counts: &[usize; 5]) -> SprtResult {
    let n: usize = counts.iter().sum();
    let lower = (cfg.beta / (1.0 - cfg.alpha)).ln();
    let upper = ((1.0 - cfg.beta) / cfg.alpha).ln();
    let llr = if n == 0 {
        0.0
    } else {
        let scores = [0.0, 0.25, 0.5, 0.75, 1.0];
        // The pair-score distribution is estimated with half a pair added to every outcome: a
        // few identical pairs (zero observed spread) must not look like certainty.
        let regularized: Vec<f64> = counts.iter().map(|&c| c as f64 + 0.5).collect();
        let total: f64 = regularized.iter().sum();
        let mean: f64 = regularized
            .iter()
            .zip(scores)
            .map(|(c, s)| c * s)
            .sum::<f64>()
            / total;
        let var: f64 = regularized
            .iter()
            .zip(scores)
            .map(|(c, s)| c * (s - mean).powi(2))
            .sum::<f64>()
            / total;
        let nf = n as f64;
        let s = |elo: f64| 1.0 / (1.0 + 10f64.powf(-elo / 400.0));
        let (s0, s1) = (s(cfg.elo0), s(cfg.elo1));
        nf * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
    };
    let verdict = if llr >= upper {
        "H1"
    } else if llr <= lower {
        "H0"
    } else {
        "continue"
    };
    SprtResult {
        elo0: cfg.elo0,
        elo1: cfg.elo1,
        alpha: cfg.alpha,
        beta: cfg.beta,
        llr,
        lower,
        upper,
        verdict: verdict.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_of_even_and_skewed_scores() {
        assert_eq!(elo_of(0.5), Some(0.0));
        assert!((elo_of(0.75).unwrap() - 190.85).abs() < 0.1);
        assert_eq!(elo_of(1.0), None);
    }

    #[test]
    fn sprt_accepts_a_clearly_stronger_engine_and_rejects_an_equal_one() {
        let cfg = SprtConfig {
            elo0: 0.0,
            elo1: 50.0,
            alpha: 0.05,
            beta: 0.05,
        };
        let strong = sprt_result(&cfg, &[0, 1, 3, 6, 20]);
        assert_eq!(strong.verdict, "H1", "{strong:?}");
        let equal = sprt_result(&cfg, &[30, 60, 120, 60, 30]);
        assert_eq!(equal.verdict, "H0", "{equal:?}");
        let few = sprt_result(&cfg, &[0, 0, 1, 1, 0]);
        assert_eq!(few.verdict, "continue");
        // One pair won 2-0 proves nothing, nor do three.
        assert_eq!(sprt_result(&cfg, &[0, 0, 0, 0, 1]).verdict, "continue");
        assert_eq!(sprt_result(&cfg, &[0, 0, 0, 0, 3]).verdict, "continue");
        assert_eq!(sprt_result(&cfg, &[3, 0, 0, 0, 0]).verdict, "continue");
    }
}
