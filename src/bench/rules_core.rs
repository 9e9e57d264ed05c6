//! R1: the rules core's random playouts in this process, one thread, against OpenSpiel's banqi
//! driven from Python (`pyspiel`) for the same wall time, when it is installed.

use anqi_core::rules::playout::{self, Playouts};
use anqi_core::rules::Variant;
use anyhow::{bail, Context, Result};
use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The variant with OpenSpiel banqi's rules (protocol/variants/openspiel.sexp).
pub const VARIANT: &str = "openspiel";

/// How many turns each contender takes: short rounds in turn, so that a machine busy with
/// other work slows both alike.
const ROUNDS: u32 = 5;

/// R1's two figures for about `seconds` each: anqi's plies per second, and pyspiel's (`None`
/// when `python3` cannot import `pyspiel`), measured in turns.
///
/// # Errors
/// When pyspiel imports but its loop fails or prints something else.
pub fn measure(seconds: f64) -> Result<(f64, Option<f64>)> {
    let variant = Arc::new(Variant::load(VARIANT)?);
    let slice = Duration::from_secs_f64(seconds / f64::from(ROUNDS));
    let mut anqi = Playing::default();
    let mut spiel = Pyspiel::start()?;
    let (mut spiel_plies, mut spiel_seconds) = (0u64, 0f64);
    for _ in 0..ROUNDS {
        anqi.round(&variant, slice);
        if let Some(s) = spiel.as_mut() {
            let (plies, secs) = s.round(slice)?;
            spiel_plies += plies;
            spiel_seconds += secs;
        }
    }
    let floor = spiel.map(|_| spiel_plies as f64 / spiel_seconds.max(1e-9));
    Ok((anqi.plies as f64 / anqi.seconds.max(1e-9), floor))
}

/// anqi's side: `anqi::rules::playout::run` in batches, one thread.
#[derive(Default)]
struct Playing {
    plies: u64,
    seconds: f64,
    batches: u32,
    batch: u64,
}

impl Playing {
    /// Batches for about `slice` (whole batches).
    fn round(&mut self, variant: &Arc<Variant>, slice: Duration) {
        let start = Instant::now();
        self.batch = self.batch.max(16);
        while start.elapsed() < slice {
            let batch = Playouts::new(format!("bench-{}", self.batches), self.batch);
            let played = Instant::now();
            let tally = playout::run(variant, &batch);
            self.plies += tally.plies;
            self.batches += 1;
            // Batches of about a tenth of the slice, so the round ends near its time.
            if played.elapsed() < slice / 10 {
                self.batch *= 2;
            }
        }
        self.seconds += start.elapsed().as_secs_f64();
    }
}

/// The floor's program, shared with `python -m anqi.speed` so both measure the same loop: it
/// plays one round per line of seconds it reads, and answers each with `PLIES SECONDS`.
const PYSPIEL_SCRIPT: &str = include_str!("../../clients/python/anqi/pyspiel_floor.py");

/// pyspiel's side: a `python3` running [`PYSPIEL_SCRIPT`], killed when dropped.
struct Pyspiel {
    child: std::process::Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Pyspiel {
    /// Starts it, or `None` when `python3` cannot import `pyspiel`.
    fn start() -> Result<Option<Pyspiel>> {
        let importable = Command::new("python3")
            .args(["-c", "import pyspiel"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !importable {
            return Ok(None);
        }
        let mut child = Command::new("python3")
            .args(["-c", PYSPIEL_SCRIPT])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .context("cannot run python3")?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = BufReader::new(child.stdout.take().expect("piped"));
        let mut spiel = Pyspiel {
            child,
            stdin,
            stdout,
        };
        let ready = spiel.line()?;
        if ready.trim() != "ready" {
            bail!("the pyspiel floor printed {ready:?}");
        }
        Ok(Some(spiel))
    }

    fn line(&mut self) -> Result<String> {
        let mut line = String::new();
        self.stdout.read_line(&mut line)?;
        Ok(line)
    }

    /// One round of about `slice`: plies and seconds.
    fn round(&mut self, slice: Duration) -> Result<(u64, f64)> {
        writeln!(self.stdin, "{}", slice.as_secs_f64())?;
        self.stdin.flush()?;
        let line = self.line()?;
        let mut words = line.split_whitespace();
        let plies = words.next().and_then(|w| w.parse().ok());
        let seconds = words.next().and_then(|w| w.parse().ok());
        plies
            .zip(seconds)
            .with_context(|| format!("the pyspiel floor printed {line:?}"))
    }
}

impl Drop for Pyspiel {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
