//! `anqi.playouts`: random playouts run natively, without the GIL, for measurements and as a
//! baseline for search.

use crate::variant::load_any;
use anqi::rules::{self, SeedInputs, Termination};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::collections::BTreeMap;
use std::time::Instant;

/// A small, fast generator (Steele, Lea and Flood's SplitMix64): random playouts need speed and
/// reproducibility, not cryptographic quality.
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform integer in `0..n` (`n >= 1`), by rejection (no modulo bias).
    pub fn below(&mut self, n: u32) -> u32 {
        let n = u64::from(n);
        let threshold = n.wrapping_neg() % n;
        loop {
            let x = self.next_u64();
            if x >= threshold {
                return (x % n) as u32;
            }
        }
    }
}

/// What a batch of playouts came to.
#[derive(Default)]
struct Tally {
    games: u64,
    plies: u64,
    reasons: BTreeMap<&'static str, u64>,
    /// Winning side (`None`: nobody won) to games.
    winners: BTreeMap<Option<usize>, u64>,
}

impl Tally {
    fn add(&mut self, other: Tally) {
        self.games += other.games;
        self.plies += other.plies;
        for (k, n) in other.reasons {
            *self.reasons.entry(k).or_default() += n;
        }
        for (k, n) in other.winners {
            *self.winners.entry(k).or_default() += n;
        }
    }
}

/// Plays games `first, first + step, ...` below `n`: game `i` is dealt from the seed
/// contributions `[]` and `"{seed}/{i}"` and picks its actions uniformly at random.
fn run(
    variant: &std::sync::Arc<rules::Variant>,
    seed: &str,
    n: u64,
    first: u64,
    step: u64,
    max_plies: Option<u32>,
) -> Tally {
    let mut tally = Tally::default();
    let mut i = first;
    while i < n {
        let inputs = SeedInputs {
            clients: Vec::new(),
            server: format!("{seed}/{i}"),
        };
        let key = inputs.key();
        let mut rng = SplitMix64::new(u64::from_le_bytes(key[..8].try_into().expect("8 bytes")));
        let mut game = rules::Game::new(variant.clone(), inputs.deal_for(variant));
        while game.outcome().is_none() {
            if max_plies.is_some_and(|cap| game.ply() >= cap) {
                game.adjudicate_draw(Termination::PlyCap);
                break;
            }
            // Count the mover's legal actions, choose an index among them, and only that
            // action is made (no list). Counted from the public state: `Game::counts` would
            // keep the figures for later, which costs more here than it saves.
            let k = rng.below(game.public_state().counts().total());
            let a = game
                .nth_legal(k as usize)
                .expect("an index below the count is a legal action");
            game.play(game.to_move(), a)
                .expect("a legal action is accepted");
        }
        let outcome = game.outcome().expect("the game ended");
        tally.games += 1;
        tally.plies += u64::from(game.ply());
        *tally.reasons.entry(outcome.reason.name()).or_default() += 1;
        *tally.winners.entry(outcome.winner).or_default() += 1;
        i += step;
    }
    tally
}

/// Plays `n` games of random legal actions natively (the GIL released), and returns a dict:
/// `variant`, `seed`, `games`, `plies`, `seconds`, `plies_per_second`, `by_reason` (reason
/// name to games) and `by_winner_side` (winning side, counted from 0, or `None` for no winner,
/// to games). Game `i` is dealt as `Game(variant, seed=f"{seed}/{i}")`. `max_plies`: a game
/// still going then is stopped as a draw (reason `ply-cap`). `threads`: games are shared out
/// over this many threads (the results do not depend on it).
#[pyfunction]
#[pyo3(signature = (variant = None, n = 100, seed = None, max_plies = None, threads = 1))]
pub fn playouts<'py>(
    py: Python<'py>,
    variant: Option<&Bound<'py, PyAny>>,
    n: u64,
    seed: Option<&Bound<'py, PyAny>>,
    max_plies: Option<u32>,
    threads: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let loaded = match variant {
        Some(v) => load_any(v)?,
        None => crate::variant::load("traditional")?,
    };
    let seed: String = match seed {
        None => rules::random_server_seed(),
        Some(s) => s.str()?.to_string(),
    };
    if threads == 0 {
        return Err(PyValueError::new_err("threads must be at least 1"));
    }
    let threads = threads.min(n.max(1) as usize);
    let variant = loaded.variant.clone();
    let (tally, seconds) = py.detach(|| {
        let started = Instant::now();
        let tally = if threads == 1 {
            run(&variant, &seed, n, 0, 1, max_plies)
        } else {
            std::thread::scope(|s| {
                let handles: Vec<_> = (0..threads as u64)
                    .map(|t| {
                        let (variant, seed) = (&variant, &seed);
                        s.spawn(move || run(variant, seed, n, t, threads as u64, max_plies))
                    })
                    .collect();
                let mut all = Tally::default();
                for h in handles {
                    all.add(h.join().expect("a playout thread panicked"));
                }
                all
            })
        };
        (tally, started.elapsed().as_secs_f64())
    });
    let out = PyDict::new(py);
    out.set_item("variant", &loaded.variant.name)?;
    out.set_item("seed", seed)?;
    out.set_item("games", tally.games)?;
    out.set_item("plies", tally.plies)?;
    out.set_item("seconds", seconds)?;
    out.set_item(
        "plies_per_second",
        if seconds > 0.0 {
            tally.plies as f64 / seconds
        } else {
            0.0
        },
    )?;
    let reasons = PyDict::new(py);
    for (k, v) in tally.reasons {
        reasons.set_item(k, v)?;
    }
    out.set_item("by_reason", reasons)?;
    let winners = PyDict::new(py);
    for (k, v) in tally.winners {
        winners.set_item(k, v)?;
    }
    out.set_item("by_winner_side", winners)?;
    Ok(out)
}
