//! `anqi.playouts`: random playouts run natively, without the GIL, for measurements and as a
//! baseline for search.

use crate::variant::load_any;
use anqi_core::rules::playout::{self, Pick, Playouts, Tally};
use anqi_core::rules::Variant;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;
use std::time::Instant;

/// Plays `n` games of random legal actions natively (the GIL released), and returns a dict:
/// `variant`, `seed`, `games`, `plies`, `seconds`, `plies_per_second`, `by_reason` (reason
/// name to games) and `by_winner_side` (winning side, counted from 0, or `None` for no winner,
/// to games). Game `i` is dealt as `Game(variant, seed=f"{seed}/{i}")`; `seed`: a str, or an
/// int meaning its decimal string (`None`: a fresh random one). `max_plies`: a game
/// still going then is stopped as a draw (reason `ply-cap`). `threads`: games are shared out
/// over this many threads (the results do not depend on it). Ctrl-C (SIGINT) stops it within
/// about 0.1 s, raising KeyboardInterrupt. `pick`: `"count"` (count the legal actions, make
/// only the one drawn) or `"list"` (list every ply's legal actions and pick from the list, as
/// a caller that needs them all does: a mask, `VecGame`); both give the same games.
#[pyfunction]
#[pyo3(signature = (variant = None, n = 100, seed = None, max_plies = None, threads = 1, pick = "count"))]
pub fn playouts<'py>(
    py: Python<'py>,
    variant: Option<&Bound<'py, PyAny>>,
    n: u64,
    seed: Option<&Bound<'py, PyAny>>,
    max_plies: Option<u32>,
    threads: usize,
    pick: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let pick = match pick {
        "count" => Pick::Nth,
        "list" => Pick::List,
        other => {
            return Err(PyValueError::new_err(format!(
                "pick {other:?}: \"count\" or \"list\""
            )))
        }
    };
    let loaded = match variant {
        Some(v) => load_any(v)?,
        None => crate::variant::load("traditional")?,
    };
    let seed = crate::seeds::seed_text_or_fresh("seed", seed)?;
    if threads == 0 {
        return Err(PyValueError::new_err("threads must be at least 1"));
    }
    let threads = threads.min(n.max(1) as usize) as u64;
    let variant = loaded.variant.clone();
    let batch = Playouts {
        max_plies,
        pick,
        ..Playouts::new(seed.clone(), n)
    };
    // The games are played in chunks, the GIL released for each, so that Ctrl-C (a signal
    // Python handles only while it holds the GIL) stops a long batch within a chunk's time.
    // A chunk grows until it takes about CHUNK_TIME; game `i` is the same game whatever the
    // chunks, so the results do not depend on them.
    let started = Instant::now();
    let mut tally = Tally::default();
    let (mut next, mut chunk) = (0u64, 64 * threads);
    while next < n {
        let end = next.saturating_add(chunk).min(n);
        let chunk_started = Instant::now();
        let part = py.detach(|| play_range(&variant, &batch, next, end, threads));
        tally.merge(part);
        next = end;
        py.check_signals()?;
        if chunk_started.elapsed() < CHUNK_TIME / 2 {
            chunk = chunk.saturating_mul(2);
        }
    }
    let seconds = started.elapsed().as_secs_f64();
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

/// About how long a chunk of playouts runs without the GIL (see [`playouts`]).
const CHUNK_TIME: std::time::Duration = std::time::Duration::from_millis(100);

/// Games `first..end` of `batch`, shared out over `threads` threads (game `first + t`,
/// `first + t + threads`, ... to thread `t`).
fn play_range(
    variant: &Arc<Variant>,
    batch: &Playouts,
    first: u64,
    end: u64,
    threads: u64,
) -> Tally {
    let share = |t: u64| Playouts {
        games: end,
        first: first + t,
        step: threads,
        ..batch.clone()
    };
    if threads == 1 {
        return playout::run(variant, &share(0));
    }
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let share = share(t);
                s.spawn(move || playout::run(variant, &share))
            })
            .collect();
        let mut all = Tally::default();
        for h in handles {
            all.merge(h.join().expect("a playout thread panicked"));
        }
        all
    })
}
