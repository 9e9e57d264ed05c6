//! Ratings: a Bradley–Terry model refitted over every rated game of a ladder, as Kaggle's
//! Game Arena and LMSYS's Chatbot Arena rate their players, on the Elo scale.
//!
//! The model: player `i` scores against `j` with probability `1 / (1 + 10^((r_j - r_i) / 400))`,
//! a draw counting half a win and half a loss. The ratings are those that make the games
//! played most likely, with a normal prior on each rating (mean [`PRIOR_MEAN`], standard
//! deviation [`PRIOR_SD`]): the prior keeps the rating of a player that has only won (or only
//! lost) finite, and pulls a newcomer's rating towards the mean until its games say otherwise.
//! Newton's method finds the maximum; the interval is ±1.96 standard errors of a rating
//! relative to the pool's average, from the inverse of the log-posterior's curvature there
//! (the games measure differences only: the common level is the prior's).
//!
//! Why this and not Glicko-2: the fit depends only on which games were played and how they
//! ended, never on their order. A ladder's games end in parallel, and a database rebuilt from
//! the records, or caught up after a crash, then has exactly the ratings of the live one; and
//! old games keep informing every rating (a bot that beat a newcomer is credited when the
//! newcomer turns out strong). The cost is a refit per game: a few Newton steps over the
//! players who met, each a linear solve in as many unknowns as players (milliseconds for a
//! hundred, the ladders this serves).
//!
//! The sums run over pairs in a fixed order (the players' numbers), so the same games give the
//! same ratings to the last bit, whatever order they came in.

use std::collections::BTreeMap;

/// The prior's mean: a rating nobody's games have moved.
pub const PRIOR_MEAN: f64 = 1500.0;
/// The prior's standard deviation, in Elo.
pub const PRIOR_SD: f64 = 350.0;
/// Elo per natural unit of the logistic: 400 / ln 10.
const ELO_UNIT: f64 = 400.0 / std::f64::consts::LN_10;
/// Newton stops when no rating moves by more than this many Elo.
const TOLERANCE: f64 = 1e-7;
const MAX_STEPS: usize = 100;

/// Every rated game's outcome, summed per pair of players.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Games {
    /// (lower player, higher player) -> (games, points of the lower one).
    pairs: BTreeMap<(i64, i64), (u64, f64)>,
}

impl Games {
    /// One game: `first` scored `score` (1, ½ or 0) against `second`.
    pub fn add(&mut self, first: i64, second: i64, score: f64) {
        if first == second {
            return;
        }
        let (key, points) = if first < second {
            ((first, second), score)
        } else {
            ((second, first), 1.0 - score)
        };
        let e = self.pairs.entry(key).or_default();
        e.0 += 1;
        e.1 += points;
    }

    /// Every player that played, in order.
    pub fn players(&self) -> Vec<i64> {
        let mut all: Vec<i64> = self.pairs.keys().flat_map(|&(a, b)| [a, b]).collect();
        all.sort_unstable();
        all.dedup();
        all
    }

    /// How many games were added.
    pub fn len(&self) -> u64 {
        self.pairs.values().map(|(n, _)| n).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }
}

/// A player's rating and its 95% interval's half width, in Elo.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    pub rating: f64,
    pub interval: f64,
}

impl Rating {
    /// A player with no games: the prior.
    pub fn unrated() -> Rating {
        Rating {
            rating: PRIOR_MEAN,
            interval: 1.96 * PRIOR_SD,
        }
    }
}

/// The ratings the games give, by player (every player that played).
pub fn fit(games: &Games) -> BTreeMap<i64, Rating> {
    let players = games.players();
    let index: BTreeMap<i64, usize> = players.iter().enumerate().map(|(i, &p)| (p, i)).collect();
    let n = players.len();
    // Worked in natural units around the prior's mean: x = (r - mean) / ELO_UNIT.
    let prior = (ELO_UNIT / PRIOR_SD).powi(2);
    let mut x = vec![0.0; n];
    let mut hessian = vec![vec![0.0; n]; n];
    for _ in 0..MAX_STEPS {
        let mut gradient: Vec<f64> = x.iter().map(|xi| -prior * xi).collect();
        for row in hessian.iter_mut() {
            row.iter_mut().for_each(|h| *h = 0.0);
        }
        for (i, row) in hessian.iter_mut().enumerate() {
            row[i] = prior;
        }
        for (&(a, b), &(count, points)) in &games.pairs {
            let (i, j) = (index[&a], index[&b]);
            let p = 1.0 / (1.0 + (x[j] - x[i]).exp());
            let count = count as f64;
            let g = points - count * p;
            gradient[i] += g;
            gradient[j] -= g;
            let w = count * p * (1.0 - p);
            hessian[i][i] += w;
            hessian[j][j] += w;
            hessian[i][j] -= w;
            hessian[j][i] -= w;
        }
        // The negated Hessian is positive definite (the prior sees to it): solve for the step.
        let step = solve(hessian.clone(), gradient);
        let largest = step.iter().fold(0.0f64, |m, s| m.max(s.abs()));
        x.iter_mut().zip(&step).for_each(|(xi, s)| *xi += s);
        if largest * ELO_UNIT < TOLERANCE {
            break;
        }
    }
    let variances = relative_variances(&hessian);
    players
        .iter()
        .enumerate()
        .map(|(i, &p)| {
            (
                p,
                Rating {
                    rating: PRIOR_MEAN + x[i] * ELO_UNIT,
                    interval: 1.96 * variances[i].sqrt() * ELO_UNIT,
                },
            )
        })
        .collect()
}

/// Solves `a · x = b` for a symmetric positive definite `a`, by Cholesky.
fn solve(mut a: Vec<Vec<f64>>, b: Vec<f64>) -> Vec<f64> {
    cholesky(&mut a);
    substitute(&a, b)
}

/// Solves `L·Lᵀ·x = b` for the factor `l` that [`cholesky`] left.
fn substitute(l: &[Vec<f64>], mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    for i in 0..n {
        let s: f64 = (0..i).map(|k| l[i][k] * b[k]).sum();
        b[i] = (b[i] - s) / l[i][i];
    }
    for i in (0..n).rev() {
        let s: f64 = (i + 1..n).map(|k| l[k][i] * b[k]).sum();
        b[i] = (b[i] - s) / l[i][i];
    }
    b
}

/// Each rating's variance relative to the pool's average, from the curvature `a` (factored
/// once, then solved for each unit vector: the whole inverse `C`). The games measure only
/// differences (adding a constant to every rating changes no probability); the common level
/// is the prior's, and its uncertainty (the prior's deviation over the square root of the
/// number of players) is no knowledge of any player. So the interval is that of `r_i - r̄`:
/// `C_ii - 2/n Σ_j C_ij + 1/n² Σ_jk C_jk`, as Ordo and BayesElo give theirs.
fn relative_variances(a: &[Vec<f64>]) -> Vec<f64> {
    let n = a.len();
    let mut l = a.to_vec();
    cholesky(&mut l);
    let inverse: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            let mut e = vec![0.0; n];
            e[i] = 1.0;
            substitute(&l, e)
        })
        .collect();
    let nf = n as f64;
    let row_sums: Vec<f64> = inverse.iter().map(|row| row.iter().sum()).collect();
    let total: f64 = row_sums.iter().sum();
    (0..n)
        .map(|i| (inverse[i][i] - 2.0 * row_sums[i] / nf + total / (nf * nf)).max(0.0))
        .collect()
}

/// In place: the lower triangle of `a` becomes `L` with `L·Lᵀ = a`.
fn cholesky(a: &mut [Vec<f64>]) {
    let n = a.len();
    for j in 0..n {
        let s: f64 = (0..j).map(|k| a[j][k] * a[j][k]).sum();
        a[j][j] = (a[j][j] - s).max(f64::MIN_POSITIVE).sqrt();
        for i in j + 1..n {
            let s: f64 = (0..j).map(|k| a[i][k] * a[j][k]).sum();
            a[i][j] = (a[i][j] - s) / a[j][j];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_games_no_ratings_and_an_even_record_stays_at_the_mean() {
        assert!(fit(&Games::default()).is_empty());
        let mut g = Games::default();
        for _ in 0..10 {
            g.add(1, 2, 1.0);
            g.add(2, 1, 1.0);
        }
        let r = fit(&g);
        assert!((r[&1].rating - PRIOR_MEAN).abs() < 1e-9);
        assert!((r[&2].rating - PRIOR_MEAN).abs() < 1e-9);
    }

    #[test]
    fn a_three_to_one_record_is_near_191_elo_apart_and_the_interval_narrows() {
        // 75% expected score is 400·log10(3) ≈ 190.8 Elo; the prior pulls it in a little.
        let mut few = Games::default();
        let mut many = Games::default();
        for _ in 0..3 {
            few.add(1, 2, 1.0);
        }
        few.add(1, 2, 0.0);
        for _ in 0..300 {
            many.add(1, 2, 1.0);
        }
        for _ in 0..100 {
            many.add(2, 1, 1.0);
        }
        let (f, m) = (fit(&few), fit(&many));
        let gap = m[&1].rating - m[&2].rating;
        assert!((gap - 190.8).abs() < 3.0, "{gap}");
        assert!(f[&1].rating - f[&2].rating < gap);
        assert!(m[&1].interval < f[&1].interval);
        // The mean of the two stays at the prior's (a symmetric problem).
        assert!((m[&1].rating + m[&2].rating - 2.0 * PRIOR_MEAN).abs() < 1e-6);
    }

    #[test]
    fn an_unbeaten_player_stays_finite_and_draws_count_half() {
        let mut g = Games::default();
        for _ in 0..50 {
            g.add(1, 2, 1.0);
        }
        let r = fit(&g);
        assert!(r[&1].rating.is_finite() && r[&1].rating > r[&2].rating + 400.0);
        let mut d = Games::default();
        for _ in 0..20 {
            d.add(1, 2, 0.5);
        }
        let r = fit(&d);
        assert!((r[&1].rating - r[&2].rating).abs() < 1e-9);
    }

    #[test]
    fn the_order_of_the_games_does_not_matter_to_the_last_bit() {
        let games = [
            (1, 2, 1.0),
            (2, 3, 0.5),
            (3, 1, 0.0),
            (1, 3, 1.0),
            (2, 1, 1.0),
        ];
        let mut forward = Games::default();
        let mut backward = Games::default();
        for &(a, b, s) in &games {
            forward.add(a, b, s);
        }
        for &(a, b, s) in games.iter().rev() {
            backward.add(a, b, s);
        }
        assert_eq!(fit(&forward), fit(&backward));
    }

    #[test]
    fn many_games_make_a_narrow_interval_whatever_the_pool() {
        // 400 games between two: the difference is known to about ±40 Elo; the level of the
        // pair (the prior's) is no part of it.
        let mut g = Games::default();
        for i in 0..400 {
            g.add(1, 2, if i % 4 == 0 { 0.0 } else { 1.0 });
        }
        let r = fit(&g);
        assert!(
            r[&1].interval < 40.0 && r[&1].interval > 10.0,
            "{:?}",
            r[&1]
        );
        // Six players, 40 games for every pair (200 each): about ±41 each, where counting the
        // prior's level in would say about ±280.
        let mut six = Games::default();
        for a in 1..=6 {
            for b in a + 1..=6 {
                for i in 0..40 {
                    six.add(a, b, if i % 3 == 0 { 0.0 } else { 1.0 });
                }
            }
        }
        let r = fit(&six);
        assert!(r.values().all(|x| x.interval < 50.0), "{r:?}");
    }

    #[test]
    fn a_chain_of_strengths_is_ordered() {
        // 1 beats 2 mostly, 2 beats 3 mostly, 1 and 3 never met.
        let mut g = Games::default();
        for _ in 0..8 {
            g.add(1, 2, 1.0);
            g.add(2, 3, 1.0);
        }
        g.add(1, 2, 0.0);
        g.add(2, 3, 0.0);
        let r = fit(&g);
        assert!(r[&1].rating > r[&2].rating && r[&2].rating > r[&3].rating);
        // 2 played both: its rating is the best known.
        assert!(r[&2].interval < r[&1].interval && r[&2].interval < r[&3].interval);
    }
}
