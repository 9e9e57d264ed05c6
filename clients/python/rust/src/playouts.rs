//! `anqi.playouts`: random playouts run natively, without the GIL, for measurements and as a
//! baseline for search.

use crate::variant::load_any;
use anqi_core::rules::playout::{self, Playouts, Tally};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::time::Instant;

pub use anqi_core::rules::playout::SplitMix64;

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
        None => crate::fresh_seed(),
        Some(s) => s.str()?.to_string(),
    };
    if threads == 0 {
        return Err(PyValueError::new_err("threads must be at least 1"));
    }
    let threads = threads.min(n.max(1) as usize);
    let variant = loaded.variant.clone();
    let (tally, seconds) = py.detach(|| {
        let started = Instant::now();
        let batch = Playouts {
            max_plies,
            ..Playouts::new(seed.clone(), n)
        };
        let tally = if threads == 1 {
            playout::run(&variant, &batch)
        } else {
            std::thread::scope(|s| {
                let handles: Vec<_> = (0..threads as u64)
                    .map(|t| {
                        let share = Playouts {
                            first: t,
                            step: threads as u64,
                            ..batch.clone()
                        };
                        let variant = &variant;
                        s.spawn(move || playout::run(variant, &share))
                    })
                    .collect();
                let mut all = Tally::default();
                for h in handles {
                    all.merge(h.join().expect("a playout thread panicked"));
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
