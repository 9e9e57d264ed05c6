//! Engines die with their games (TOURNAMENTS.md, Engines and their processes): a helper an
//! engine starts in a new session, as a daemon would, is gone when the engine's game ends,
//! when its bridge exits, and when the runner is killed with SIGKILL. Before issue 18 each of
//! these helpers outlived everything (4 of 4).

use crate::common::{self, TempDir};

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const ANQI: &str = env!("CARGO_BIN_EXE_anqi");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Whether the process `pid` is running (a zombie is not: it has ended, nobody reaped it).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z")
    })
}

/// The pids the helpers wrote to the files `dir/helper-*`.
fn helpers(dir: &Path) -> Vec<u32> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with("helper-") && !name.ends_with(".tmp")
        })
        .map(|e| {
            std::fs::read_to_string(e.path())
                .unwrap()
                .trim()
                .parse()
                .unwrap()
        })
        .collect()
}

/// Waits (at most 10 s) until none of `pids` runs; kills what is left and fails if any did.
fn assert_gone(pids: &[u32], when: &str) {
    assert!(!pids.is_empty(), "no helper was started");
    let until = Instant::now() + Duration::from_secs(10);
    while pids.iter().any(|&p| running(p)) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    let left: Vec<u32> = pids.iter().copied().filter(|&p| running(p)).collect();
    for &p in &left {
        let _ = Command::new("kill")
            .args(["-KILL", &p.to_string()])
            .status();
    }
    assert!(left.is_empty(), "{when}: helpers still running: {left:?}");
}

/// `with_helper.py DIR/helper-{game}-{seat} ...`: the start of an engine's args.
fn with_helper(dir: &Path) -> String {
    format!(
        "\"{ROOT}/tests/engines/with_helper.py\", \"{}/helper-{{game}}-{{seat}}\"",
        dir.display()
    )
}

/// A tournament file of two engines on `variant`, one game per seat arrangement.
fn tournament_file(dir: &Path, variant: &str, head: &str, engines: &[String]) -> PathBuf {
    let path = dir.join("t.toml");
    std::fs::write(
        &path,
        format!(
            "[tournament]\nvariant = \"{variant}\"\nseed = \"procs\"\noutput = \"{}\"\nlogs = \"{}\"\n{head}\n{}",
            dir.join("out.jsonl").display(),
            dir.join("logs").display(),
            engines.concat()
        ),
    )
    .unwrap();
    path
}

/// The Python reference bot, behind a helper-starting wrapper.
fn bot_with_helper(dir: &Path, name: &str) -> String {
    format!(
        "[[tournament.engine]]\nname = \"{name}\"\ncommand = \"python3\"\nargs = [{}, \"python3\", \"{ROOT}/clients/python/anqi_random_bot.py\", \"--connect\", \"{{addr}}\", \"--quiet\"]\n",
        with_helper(dir)
    )
}

#[test]
fn helpers_of_engines_end_with_their_games() {
    let dir = TempDir::new("procs-games");
    let tcg = format!(
        "[[tournament.engine]]\nname = \"bridged\"\nprotocol = \"tcg\"\ncommand = \"python3\"\nargs = [{}, \"python3\", \"{ROOT}/tests/engines/tcg_engine.py\"]\n",
        with_helper(&dir.0)
    );
    // tcg plays the 4x8 board only.
    let file = tournament_file(
        &dir.0,
        "traditional",
        "",
        &[bot_with_helper(&dir.0, "own"), tcg],
    );
    let out = Command::new(ANQI)
        .args(["tournament", "--quiet"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Two games, two engines each: four helpers, one per engine start, of anqi's protocol
    // (under `anqi keep`) and of tcg (under its bridge).
    let pids = helpers(&dir.0);
    assert_eq!(pids.len(), 4, "{pids:?}");
    assert_gone(&pids, "after the event");
}

#[test]
fn a_helper_ends_with_its_bridge() {
    let server = common::spawn_server({
        let mut c = Command::new(ANQI);
        c.args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--variant",
            "traditional",
            "--records",
            "",
        ]);
        c
    });
    let (server, addr) = server;
    // Killed however the test ends: a server left running would hold the test's output open.
    let _server = KillOnDrop(server);
    let dir = TempDir::new("procs-bridge");
    let helper = dir.0.join("helper-bridge");
    let mut bridge = Command::new(ANQI)
        .args(["bridge", "--protocol", "tcg", "--connect", &addr, "--"])
        .arg("python3")
        .arg(format!("{ROOT}/tests/engines/with_helper.py"))
        .arg(&helper)
        .arg("python3")
        .arg(format!("{ROOT}/tests/engines/tcg_engine.py"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let opponent = Command::new(common::anqi_bot())
        .args(["--connect", &addr, "--strategy", "random", "--seed", "3"])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(opponent.success());
    assert!(bridge.wait().unwrap().success());
    assert_gone(&helpers(&dir.0), "after the bridge exited");
}

/// A child process killed when dropped.
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn helpers_end_when_the_runner_is_killed() {
    let dir = TempDir::new("procs-kill9");
    // An engine that never answers its first turn: the game runs until the runner dies.
    let hang = format!(
        "[[tournament.engine]]\nname = \"hang\"\ncommand = \"python3\"\nargs = [{}, \"python3\", \"{ROOT}/tests/engines/misbehave.py\", \"hang\", \"--connect\", \"{{addr}}\"]\n",
        with_helper(&dir.0)
    );
    let head = "[tournament.clock]\nmove_ms = 600000";
    let file = tournament_file(
        &dir.0,
        "traditional-2x4",
        head,
        &[hang, bot_with_helper(&dir.0, "bot")],
    );
    let mut runner = KillOnDrop(
        Command::new(ANQI)
            .args(["tournament", "--quiet"])
            .arg(&file)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let until = Instant::now() + Duration::from_secs(30);
    while helpers(&dir.0).len() < 2 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    // Both engines are running (each wrote its helper's pid): kill the runner outright.
    std::thread::sleep(Duration::from_millis(300));
    runner.0.kill().unwrap();
    runner.0.wait().unwrap();
    assert_gone(&helpers(&dir.0), "after the runner was killed");
}
