//! The SPRT of a pair of engines: the log-likelihood ratio of H1 against H0 and its verdict,
//! for the event's two engines or any pair of the records (`anqi report --sprt`).

use super::elo::{mean_and_variance, Model};
use super::pairs::PairStats;
use super::Standings;
use crate::config::SprtConfig;
use serde::Serialize;

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
pub(super) fn sprt_result(
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

/// Why the SPRT cannot be run on the records ([`Standings::run_sprt`]): which pair to test is
/// not known, or the pair named cannot be tested. The texts say what to give instead.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SprtError {
    /// The records hold one-side games only (their variants named): success rates, no Elo.
    #[error("the records hold one-side games only ({}: a side plays for a goal, not against another engine), whose engines get success rates, not Elo; the SPRT tests the Elo difference of two engines playing each other", variants.join(", "))]
    OneSideOnly { variants: Vec<String> },
    /// An engine named in the pair played only one-side games.
    #[error("engine {name:?} played only one-side games, which have success rates, not Elo")]
    OneSideEngine { name: String },
    /// An engine named in the pair is not in the records (which hold `engines`).
    #[error("no engine {name:?} in the records (engines: {})", engines.join(", "))]
    NoSuchEngine { name: String, engines: Vec<String> },
    /// The pair names one engine twice.
    #[error("the SPRT tests two engines, not {name:?} against itself")]
    AgainstItself { name: String },
    /// The two engines never played each other.
    #[error("{first} and {second} never met")]
    NeverMet { first: String, second: String },
    /// No pair named, and the records hold more than two engines.
    #[error("the records hold {} engines ({}): name the pair to test with --pair FIRST,SECOND", engines.len(), engines.join(", "))]
    PairNeeded { engines: Vec<String> },
    /// No pair named, and the records hold fewer than two engines.
    #[error("the SPRT needs two engines; the records hold {count}")]
    TooFewEngines { count: usize },
}

impl Standings {
    /// Runs the SPRT on `pair` (first engine, second engine: H1 says the first is the
    /// stronger), or, when no pair is named, on the only two engines of the records.
    ///
    /// # Errors
    /// No pair named while the records hold more (or fewer) than two engines, an engine not in
    /// the records, an engine paired with itself, or two engines that never met.
    pub fn run_sprt(
        &mut self,
        cfg: &SprtConfig,
        pair: Option<(&str, &str)>,
    ) -> Result<(), SprtError> {
        if self.engines.is_empty() && !self.one_side.is_empty() {
            return Err(SprtError::OneSideOnly {
                variants: self.one_side.iter().map(|g| g.variant.clone()).collect(),
            });
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
                        return Err(SprtError::OneSideEngine {
                            name: n.to_string(),
                        });
                    }
                    if !names.contains(&n) {
                        return Err(SprtError::NoSuchEngine {
                            name: n.to_string(),
                            engines: owned(&names),
                        });
                    }
                }
                if a == b {
                    return Err(SprtError::AgainstItself {
                        name: a.to_string(),
                    });
                }
                (a.to_string(), b.to_string())
            }
            None => match (names.len(), self.pairs.as_slice()) {
                (2, [p]) => (p.first.clone(), p.second.clone()),
                (2, _) => {
                    return Err(SprtError::NeverMet {
                        first: names[0].to_string(),
                        second: names[1].to_string(),
                    });
                }
                (n, _) if n > 2 => {
                    return Err(SprtError::PairNeeded {
                        engines: owned(&names),
                    })
                }
                (count, _) => return Err(SprtError::TooFewEngines { count }),
            },
        };
        let Some(stats) = self.pair(&first, &second) else {
            return Err(SprtError::NeverMet { first, second });
        };
        self.sprt = Some(sprt_result(cfg, &first, &second, Some(&stats)));
        Ok(())
    }
}

/// The engines' names, owned (for an error that outlives the standings' borrow).
fn owned(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| n.to_string()).collect()
}
