//! A sample of scores (games scoring 0, ½ or 1, or pairs of games on one deal) and what the
//! formulas of the module documentation make of it: the score's 95% interval, Elo, nElo and
//! LOS.

use serde::Serialize;

/// What a pair's Elo, nElo, LOS and SPRT are computed from.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Model {
    /// Pairs of games on one deal with the seats swapped: each pair is one observation.
    Pentanomial,
    /// Single games: each game is one observation.
    Trinomial,
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

    /// The 95% interval of the mean score, within [0, 1]: the normal one, or, where that one
    /// reaches 0 or 1 or has no width, the Wilson interval of the points won out of the games
    /// played (see the module documentation). At a score of 0 or 1 every observation is the
    /// same, the normal interval has no width, and the Elo would be ±∞ with no room for doubt:
    /// the Wilson one keeps an honest finite end (60 wins of 60 games: an Elo of at least
    /// +476). Every observation alike at another score (one pair scoring 1.5) is the same
    /// case: a normal interval of no width would read `+191 [+191, +191]`.
    pub fn score_interval(&self) -> (f64, f64) {
        let half = Z95 * self.standard_error();
        let (low, high) = (self.mean - half, self.mean + half);
        if self.n > 0 && half > 0.0 && low > 0.0 && high < 1.0 {
            return (low, high);
        }
        wilson_rate(self.mean, self.n as f64 * self.games_per_observation())
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
pub(super) fn mean_and_variance(scores: &[f64], counts: &[f64]) -> (f64, f64) {
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

/// The 95% Wilson score interval of a rate `p` observed over `n` trials (Wilson, 1927; the
/// module documentation): within [0, 1], never empty, (0, 1) without trials. `p·n` need not be
/// a whole number (points, with draws as halves).
pub fn wilson_rate(p: f64, n: f64) -> (f64, f64) {
    if n <= 0.0 {
        return (0.0, 1.0);
    }
    let z2 = Z95 * Z95;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z95 / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    // At p = 0 or 1 an end is exactly 0 or 1; rounding would make it a hair inside, and an
    // Elo of thousands where it is unbounded.
    let low = if p <= 0.0 {
        0.0
    } else {
        (centre - half).max(0.0)
    };
    let high = if p >= 1.0 {
        1.0
    } else {
        (centre + half).min(1.0)
    };
    (low, high)
}

/// Logistic Elo of a score in (0, 1): −400·log₁₀(1/score − 1).
pub fn elo_of(score: f64) -> Option<f64> {
    (score > 0.0 && score < 1.0).then(|| -400.0 * (1.0 / score - 1.0).log10())
}
