//! R1: the rules core's random playouts in this process, one thread, against OpenSpiel's banqi
//! driven from Python (`pyspiel`) for the same wall time, when it is installed.

use crate::rules::playout::{self, Playouts};
use crate::rules::Variant;
use anyhow::{Context, Result};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The variant with OpenSpiel banqi's rules (protocol/variants/openspiel.sexp).
pub const VARIANT: &str = "openspiel";

/// Plies per second of `anqi::rules::playout::run` on [`VARIANT`], in batches for about
/// `seconds` of wall time.
///
/// # Errors
/// Never in practice: the variant is built in.
pub fn anqi_plies_per_second(seconds: f64) -> Result<f64> {
    let variant = Arc::new(Variant::load(VARIANT)?);
    let budget = Duration::from_secs_f64(seconds);
    let start = Instant::now();
    let (mut plies, mut batch, mut round) = (0u64, 16u64, 0u32);
    while start.elapsed() < budget {
        let tally = playout::run(&variant, &Playouts::new(format!("bench-{round}"), batch));
        plies += tally.plies;
        round += 1;
        // Batches of about a tenth of the budget, so the run ends near its time.
        if tally.elapsed < budget / 10 {
            batch *= 2;
        }
    }
    Ok(plies as f64 / start.elapsed().as_secs_f64())
}

/// The floor's loop, written as `python -m anqi.speed` writes it (clients/python/anqi/speed.py):
/// a method call per step, the action by `random.Random.choice` over the legal ids, chance
/// nodes resolved by their probabilities and not counted as plies.
const PYSPIEL_SCRIPT: &str = r#"
import random, sys, time
import pyspiel
game = pyspiel.load_game("banqi")
rng = random.Random(1)
seconds = float(sys.argv[1])
plies = 0
start = time.perf_counter()
while time.perf_counter() - start < seconds:
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            r = rng.random()
            outcomes = state.chance_outcomes()
            action = outcomes[-1][0]
            for a, p in outcomes:
                r -= p
                if r < 0:
                    action = a
                    break
            state.apply_action(action)
        else:
            state.apply_action(rng.choice(state.legal_actions()))
            plies += 1
print(plies, time.perf_counter() - start)
"#;

/// Plies per second of pyspiel's banqi for about `seconds`, or `None` when `python3` cannot
/// import `pyspiel`.
///
/// # Errors
/// When pyspiel imports but the script fails or prints something else.
pub fn pyspiel_plies_per_second(seconds: f64) -> Result<Option<f64>> {
    let importable = Command::new("python3")
        .args(["-c", "import pyspiel"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !importable {
        return Ok(None);
    }
    let out = Command::new("python3")
        .args(["-c", PYSPIEL_SCRIPT, &seconds.to_string()])
        .stderr(Stdio::inherit())
        .output()
        .context("cannot run python3")?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut words = text.split_whitespace();
    let parsed = (|| {
        let plies: f64 = words.next()?.parse().ok()?;
        let secs: f64 = words.next()?.parse().ok()?;
        Some(plies / secs)
    })();
    parsed
        .map(Some)
        .with_context(|| format!("the pyspiel floor printed {text:?}"))
}
