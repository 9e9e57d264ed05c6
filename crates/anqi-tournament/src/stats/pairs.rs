//! Two engines that met on opposite sides: their results from the first one's point of view,
//! with Elo, nElo, LOS and the draw ratio, over complete pairs of games on one deal when there
//! are any (pentanomial), single games otherwise (trinomial).

use super::elo::{Model, Sample};
use serde::Serialize;

/// Paired-deal results of `first` against `second`.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Pentanomial {
    pub first: String,
    pub second: String,
    pub counts: [usize; 5],
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
    /// Fewer than [`MIN_SAMPLE`](super::MIN_SAMPLE) observations: reports say "sample too
    /// small" instead of Elo, nElo and LOS.
    pub small_sample: bool,
    /// Pentanomial counts (pairs where the first engine scored 0, 0.5, 1, 1.5, 2) when the two
    /// met in two-player games; `None` when they met only in games of more players.
    pub pentanomial: Option<[usize; 5]>,
}

/// Wins, draws and losses among results of 1, 0.5 and 0.
pub(super) fn wdl(results: &[f64]) -> (usize, usize, usize) {
    let count = |x: f64| results.iter().filter(|&&r| r == x).count();
    (count(1.0), count(0.5), count(0.0))
}

impl PairStats {
    /// The statistics of `first` against `second` from the first engine's results in their
    /// games, and the pentanomial counts when they met in two-player games.
    pub(super) fn new(
        first: &str,
        second: &str,
        results: &[f64],
        pentanomial: Option<[usize; 5]>,
    ) -> Self {
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
            small_sample: sample.n < super::MIN_SAMPLE,
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
