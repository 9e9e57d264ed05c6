//! The Python reference bot plays every shipped variant against the real `anqi` binary.
//!
//! For each variant in [`anqi_core::rules::SHIPPED`], the test starts `anqi serve` on a free port with
//! no clock, starts one `clients/python/anqi_random_bot.py` per seat (told nothing: it plays by
//! the description the server sends, the `variant` extension), and lets them play two games
//! each. Every bot must exit 0 with two `game over:` lines and nothing on
//! stderr (the bot logs every error reply there), and the records must verify with
//! `anqi replay` and hold no faults. So a rules disagreement between the bot and the server, in
//! any variant, fails the test.

use anqi_core::rules::{Variant, SHIPPED};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const ANQI: &str = env!("CARGO_BIN_EXE_anqi");
const BOT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/clients/python/anqi_random_bot.py"
);
/// Games each bot plays, one connection after the other.
const GAMES: usize = 2;
/// Variants played at once: each needs a server and a few Python processes on 2 cores.
const WORKERS: usize = 3;
/// Longest a variant may take before its processes are killed and it fails.
const VARIANT_TIMEOUT: Duration = Duration::from_secs(60);

/// A directory removed on drop (a copy of the idea in `tests/common`, kept here so this test
/// does not depend on that module's other helpers).
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!(
            "anqi-python-variants-{tag}-{}-{n}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create a temporary directory");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A child process killed on drop, so a failing variant leaves nothing running.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

fn file_in(dir: &Path, name: &str) -> Result<File, String> {
    File::create(dir.join(name)).map_err(|e| format!("cannot create {name}: {e}"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// Waits for `child` until `deadline`; `None` when it is still running then.
fn wait_until(child: &mut Child, deadline: Instant) -> Option<std::process::ExitStatus> {
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            _ => return None,
        }
    }
}

/// `anqi serve` for `variant`; returns the process, its stdout (kept open so the server can
/// still write to it) and the address it printed.
fn start_server(
    dir: &Path,
    variant: &str,
    records: &Path,
) -> Result<(Guard, BufReader<ChildStdout>, String), String> {
    let config = dir.join("config.toml");
    std::fs::write(&config, "[clock]\ngame_ms = 0\n").map_err(|e| e.to_string())?;
    let mut child = Command::new(ANQI)
        .arg("serve")
        .args(["--listen", "127.0.0.1:0", "--variant", variant, "--records"])
        .arg(records)
        .arg("--config")
        .arg(&config)
        .stdout(Stdio::piped())
        .stderr(file_in(dir, "server.log")?)
        .spawn()
        .map_err(|e| format!("cannot start {ANQI}: {e}"))?;
    let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
    let server = Guard(child);
    let mut line = String::new();
    stdout.read_line(&mut line).map_err(|e| e.to_string())?;
    let addr = line
        .trim()
        .strip_prefix("listening on ")
        .ok_or_else(|| {
            format!(
                "expected `listening on HOST:PORT`, got {line:?}; server log:\n{}",
                read(&dir.join("server.log"))
            )
        })?
        .to_string();
    Ok((server, stdout, addr))
}

/// Plays `GAMES` games of `variant` with Python bots and checks everything; `Err` says why not.
fn play_variant(variant: &str, index: usize) -> Result<(), String> {
    let players = Variant::shipped(variant)
        .map_err(|e| e.to_string())?
        .players;
    let dir = TempDir::new(variant);
    let records = dir.0.join("games.jsonl");
    let (mut server, server_stdout, addr) = start_server(&dir.0, variant, &records)?;
    let deadline = Instant::now() + VARIANT_TIMEOUT;

    let mut bots = Vec::new();
    for seat in 0..players {
        let seed = (1000 * (index + 1) + seat + 1).to_string();
        let child = Command::new("python3")
            .arg(BOT)
            .args(["--connect", &addr, "--quiet"])
            .args(["--games", &GAMES.to_string(), "--seed", &seed])
            .stdout(file_in(&dir.0, &format!("bot{seat}.out"))?)
            .stderr(file_in(&dir.0, &format!("bot{seat}.err"))?)
            .spawn()
            .map_err(|e| format!("cannot start python3: {e}"))?;
        bots.push(Guard(child));
    }
    let mut problems = Vec::new();
    for (seat, bot) in bots.iter_mut().enumerate() {
        let status = wait_until(&mut bot.0, deadline);
        let out = read(&dir.0.join(format!("bot{seat}.out")));
        let err = read(&dir.0.join(format!("bot{seat}.err")));
        let over = out.lines().filter(|l| l.starts_with("game over: ")).count();
        match status {
            None => problems.push(format!("bot {seat} still runs after {VARIANT_TIMEOUT:?}")),
            Some(s) if !s.success() => problems.push(format!("bot {seat} exited with {s}")),
            Some(_) => {}
        }
        if over != GAMES {
            problems.push(format!("bot {seat} finished {over} games, not {GAMES}"));
        }
        if !err.is_empty() {
            problems.push(format!("bot {seat} logged on stderr:\n{err}"));
        }
    }

    // Stop the server gracefully: it writes every record before it exits.
    let pid = server.0.id().to_string();
    let killed = Command::new("kill").args(["-INT", &pid]).status();
    if !killed.is_ok_and(|s| s.success()) {
        problems.push("kill -INT failed".into());
    }
    match wait_until(&mut server.0, Instant::now() + Duration::from_secs(10)) {
        Some(s) if s.success() => {}
        Some(s) => problems.push(format!("the server exited with {s}")),
        None => problems.push("the server did not stop within 10 s of SIGINT".into()),
    }
    drop(server_stdout);

    let replay = Command::new(ANQI)
        .arg("replay")
        .arg(&records)
        .output()
        .map_err(|e| format!("cannot run anqi replay: {e}"))?;
    let replayed = String::from_utf8_lossy(&replay.stdout);
    if !replay.status.success() || !replayed.ends_with(&format!("{GAMES} verified, 0 failed\n")) {
        problems.push(format!("anqi replay:\n{replayed}"));
    }
    let text = read(&records);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.len() != GAMES {
        problems.push(format!("{} records, not {GAMES}", lines.len()));
    }
    for (n, line) in lines.iter().enumerate() {
        match serde_json::from_str::<serde_json::Value>(line) {
            Ok(record) => match record["faults"].as_array() {
                Some(faults) if faults.is_empty() => {}
                _ => problems.push(format!("record {} has faults: {}", n + 1, record["faults"])),
            },
            Err(e) => problems.push(format!("record {} is not JSON: {e}", n + 1)),
        }
    }

    if problems.is_empty() {
        Ok(())
    } else {
        let log = read(&dir.0.join("server.log"));
        Err(format!("{}\nserver log:\n{log}", problems.join("\n")))
    }
}

#[test]
fn the_python_bot_plays_every_shipped_variant_without_errors() {
    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..WORKERS {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some((name, _)) = SHIPPED.get(index) else {
                    break;
                };
                let began = Instant::now();
                let result = play_variant(name, index);
                eprintln!(
                    "{name}: {} in {:.1} s",
                    if result.is_ok() { "ok" } else { "FAILED" },
                    began.elapsed().as_secs_f64()
                );
                if let Err(why) = result {
                    failures
                        .lock()
                        .expect("no worker panics while holding the lock")
                        .push(format!("--- {name}:\n{why}"));
                }
            });
        }
    });
    let failures = failures.into_inner().expect("the workers are done");
    assert!(
        failures.is_empty(),
        "{} of {} variants failed:\n{}",
        failures.len(),
        SHIPPED.len(),
        failures.join("\n")
    );
    eprintln!(
        "{} variants in {:.1} s",
        SHIPPED.len(),
        started.elapsed().as_secs_f64()
    );
}
