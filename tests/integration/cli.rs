//! The `anqi` binary as a user runs it: `serve` prints its address, plays games with the
//! reference clients (the Python bot included), stops gracefully on SIGTERM; `replay` and
//! `variants` work; mistakes get clear messages.

use crate::common;

use common::{RawClient, TempDir};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const ANQI: &str = env!("CARGO_BIN_EXE_anqi");

/// `anqi serve ARGS...` with stdout piped; returns the child and the address it printed.
fn serve(args: &[&str]) -> (Child, String) {
    let mut command = Command::new(ANQI);
    command.arg("serve").args(args).stderr(Stdio::piped());
    common::spawn_server(command)
}

fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
}

fn wait_exit(child: &mut Child) -> std::process::ExitStatus {
    for _ in 0..200 {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    panic!("anqi serve did not stop within 10 s");
}

/// A supervisor that stops the server the moment it says `listening on` (a test harness,
/// `anqi.Server.stop()` in Python) gets the graceful stop: the signal handlers are installed
/// before the line is printed. They used to be installed just after, and a SIGTERM in that
/// window killed the process (status: signal 15) instead.
#[test]
fn serve_stops_gracefully_on_a_signal_right_after_listening() {
    let dir = TempDir::new("signal-at-once");
    for i in 0..20 {
        let records = dir.0.join(format!("g{i}.jsonl"));
        let (mut server, _addr) = serve(&[
            "--listen",
            "127.0.0.1:0",
            "--records",
            records.to_str().unwrap(),
        ]);
        signal(&server, if i % 2 == 0 { "-TERM" } else { "-INT" });
        let status = wait_exit(&mut server);
        assert!(status.success(), "run {i}: {status:?}");
    }
}

fn replay(path: &Path) -> String {
    let out = Command::new(ANQI).arg("replay").arg(path).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "replay failed:\n{text}");
    text
}

#[test]
fn python_bots_play_through_the_binary_and_the_records_verify() {
    let dir = TempDir::new("cli-python");
    let records = dir.0.join("games.jsonl");
    let (mut server, addr) = serve(&[
        "--listen",
        "127.0.0.1:0",
        "--variant",
        "traditional",
        "--records",
        records.to_str().unwrap(),
    ]);
    let bot = |seed: &str| {
        Command::new("python3")
            .arg(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/clients/python/anqi_random_bot.py"
            ))
            .args([
                "--connect",
                &addr,
                "--games",
                "3",
                "--quiet",
                "--seed",
                seed,
            ])
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 runs the Python bot")
    };
    let (a, b) = (bot("1"), bot("2"));
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    assert!(a.status.success() && b.status.success());
    let a_out = String::from_utf8_lossy(&a.stdout);
    assert_eq!(
        a_out
            .lines()
            .filter(|l| l.starts_with("game over: (win "))
            .count(),
        3,
        "{a_out}"
    );

    signal(&server, "-INT");
    assert!(wait_exit(&mut server).success());
    let mut log = String::new();
    std::io::Read::read_to_string(server.stderr.as_mut().unwrap(), &mut log).unwrap();
    assert_eq!(
        log.matches("game over").count(),
        3,
        "one log line per finished game:\n{log}"
    );
    assert!(replay(&records).ends_with("3 verified, 0 failed\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_aborts_running_games_and_records_them() {
    let dir = TempDir::new("cli-term");
    let records = dir.0.join("games.jsonl");
    let (mut server, addr) = serve(&[
        "--listen",
        "127.0.0.1:0",
        "--variant",
        "traditional-2x4",
        "--records",
        records.to_str().unwrap(),
    ]);
    let mut a = RawClient::join(&addr, "a", "1").await;
    let mut b = RawClient::join(&addr, "b", "2").await;
    a.until("(turn 0 1)").await;
    a.send("((board XXXXXXXX)(rev 5))\n").await;
    b.until("(turn 0 2)").await;
    // A third client waits in the lobby for an opponent.
    let mut c = RawClient::join(&addr, "c", "3").await;
    tokio::time::sleep(Duration::from_millis(100)).await;

    signal(&server, "-TERM");
    for client in [&mut a, &mut b, &mut c] {
        let l = client.until("(error").await;
        assert!(l.starts_with("((error shutdown"), "{l}");
        client.expect_closed().await;
    }
    assert!(wait_exit(&mut server).success());
    let text = std::fs::read_to_string(&records).unwrap();
    let record: anqi_core::record::GameRecord = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(record.result.reason.name(), "aborted");
    assert_eq!(record.plies.len(), 1);
    assert!(replay(&records).ends_with("1 verified, 0 failed\n"));
}

#[test]
fn replay_reports_a_record_that_does_not_verify() {
    let dir = TempDir::new("cli-replay");
    // A 2x4 game whose record claims a capture the rules never allowed.
    let good = include_str!("../data/one-game.jsonl");
    let path = dir.0.join("games.jsonl");
    std::fs::write(&path, good).unwrap();
    assert!(replay(&path).ends_with("1 verified, 0 failed\n"));
    let mut record: serde_json::Value = serde_json::from_str(good).unwrap();
    record["plies"][0]["action"] = "(rev 99)".into();
    let bad = serde_json::to_string(&record).unwrap();
    std::fs::write(&path, format!("{bad}\nnot json\n")).unwrap();
    let out = Command::new(ANQI)
        .arg("replay")
        .arg(&path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains(":1: FAILED: ply 1"), "{text}");
    assert!(text.contains(":2: FAILED:"), "{text}");
    assert!(text.ends_with("0 verified, 2 failed\n"), "{text}");
}

#[test]
fn variants_lists_the_shipped_games() {
    let out = Command::new(ANQI).arg("variants").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(
        text.lines().any(|l| l.starts_with("traditional ")),
        "{text}"
    );
    assert!(
        text.lines().any(|l| l.starts_with("traditional-2x4 ")),
        "{text}"
    );
}

#[test]
fn mistakes_get_clear_messages() {
    let out = Command::new(ANQI)
        .args(["serve", "--variant", "no-such"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        err.contains("no shipped variant is named \"no-such\"") && err.contains("traditional-2x4"),
        "{err}"
    );

    let dir = TempDir::new("cli-config");
    let cfg = dir.0.join("bad.toml");
    std::fs::write(&cfg, "[clock]\ngame_minutes = 15\n").unwrap();
    let out = Command::new(ANQI)
        .args(["serve", "--config"])
        .arg(&cfg)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        err.contains("bad.toml") && err.contains("game_minutes"),
        "{err}"
    );

    let out = Command::new(ANQI)
        .args(["serve", "--listen", "256.0.0.1:1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot listen on 256.0.0.1:1"));
}

#[test]
fn python_client_unit_tests_pass() {
    // The standard-library bot's tests by name: `discover` would also import the `anqi`
    // package, whose native module exists only once clients/python/test.sh has built it.
    // test_legal_counts checks its rules against the shared tables (tests/integration/legal_counts.rs).
    let out = Command::new("python3")
        .args([
            "-m",
            "unittest",
            "test_anqi_random_bot",
            "test_legal_counts",
        ])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/clients/python"))
        .output()
        .expect("python3 runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("\nOK"), "{err}");
}

#[test]
fn the_python_bot_without_its_package_says_what_is_missing() {
    // The script is only the command line: a copy of it alone (as an old `anqi match` wrote
    // one) must say that stdlib_client/ belongs beside it, not fail with a traceback.
    let dir = TempDir::new("cli-python-alone");
    let script = dir.0.join("anqi_random_bot.py");
    std::fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/clients/python/anqi_random_bot.py"
        ),
        &script,
    )
    .unwrap();
    let out = Command::new("python3")
        .arg(&script)
        .args(["--connect", "127.0.0.1:1"])
        .current_dir(&dir.0)
        .output()
        .expect("python3 runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("stdlib_client")
            && err.contains("same directory")
            && !err.contains("Traceback"),
        "{err}"
    );
}

/// A command that prints ends quietly when its reader stops reading (`| head`), like any Unix
/// tool, instead of a panic about a broken pipe. The output is longer than a pipe holds, so the
/// write after `head` has gone does fail.
#[test]
fn printing_into_a_closed_pipe_ends_quietly() {
    let dir = TempDir::new("epipe");
    let records = dir.0.join("many.jsonl");
    let game = include_str!("../data/one-game.jsonl").trim_end();
    std::fs::write(&records, format!("{game}\n").repeat(3000)).unwrap();
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "\"{}\" replay \"{}\" | head -1",
            env!("CARGO_BIN_EXE_anqi"),
            records.display()
        ))
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("verified"));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

/// traditional-2x4's rules on a 2x2 board with KPkp, written to `dir/tiny.sexp` and solved by
/// `anqi solve` into `dir/tiny.solution`: the two paths and what it printed.
fn solve_tiny(dir: &TempDir) -> (std::path::PathBuf, std::path::PathBuf, String) {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("protocol/variants/traditional-2x4.sexp"),
    )
    .unwrap()
    .replace("(name traditional-2x4)", "(name tiny)")
    .replace("(rectangle 2 4)", "(rectangle 2 2)")
    .replace("(pieces KPPPkppp)", "(pieces KPkp)");
    let variant = dir.0.join("tiny.sexp");
    std::fs::write(&variant, text).unwrap();
    let solution = dir.0.join("tiny.solution");
    let out = Command::new(ANQI)
        .args(["solve", variant.to_str().unwrap(), "--out"])
        .arg(&solution)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (variant, solution, stdout)
}

/// `anqi solve` on a small description (traditional-2x4's rules on 2x2, KPkp) prints the
/// value as a fraction, writes the solution, and `--verify` checks it; a changed byte is
/// caught.
#[test]
fn solve_writes_a_solution_that_verify_checks() {
    let dir = TempDir::new("solve");
    let (_, solution, stdout) = solve_tiny(&dir);
    assert!(stdout.contains("value: "), "{stdout}");
    assert!(stdout.contains("(rev 0): "), "{stdout}");
    let verify = |path: &Path| {
        let out = Command::new(ANQI)
            .args(["solve", "--verify", path.to_str().unwrap()])
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).to_string(),
        )
    };
    let (ok, text) = verify(&solution);
    assert!(ok && text.contains("verified"), "{text}");
    // The last state's value, one unit more: not what its children give.
    let mut bytes = std::fs::read(&solution).unwrap();
    let last = bytes.len() - 8;
    bytes[last] ^= 1;
    let bad = dir.0.join("bad.solution");
    std::fs::write(&bad, bytes).unwrap();
    let (ok, text) = verify(&bad);
    assert!(!ok && text.contains("NOT verified"), "{text}");
    // A variant the solver cannot hold says why.
    let out = Command::new(ANQI)
        .args(["solve", "strategic"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("bag"));
}

/// `anqi tables`: a 4-piece material of traditional and the ones its captures lead to, built,
/// described and probed: a king next to the other king, to move, wins in 1 ply by taking it;
/// the file refuses a variant of other rules, and a board with a face-down piece is not in it.
#[test]
fn tables_build_info_and_probe() {
    let dir = TempDir::new("tables");
    let file = dir.0.join("kgkp.tables");
    let run = |args: &[&str]| {
        let out = Command::new(ANQI).args(args).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).to_string(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let path = file.to_str().unwrap();
    let (code, stdout, stderr) = run(&[
        "tables",
        "build",
        "--pieces",
        "4",
        "--material",
        "KGkp",
        "--out",
        path,
    ]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    // KGkp, its swap KPkg, and the 2- and 3-piece materials captures lead to.
    assert!(stdout.contains("x8.00 fewer"), "{stdout}");
    let (code, stdout, _) = run(&["tables", "info", path, "--materials"]);
    assert_eq!(code, Some(0));
    assert!(
        stdout.contains("KGkp ") && stdout.contains("Kk "),
        "{stdout}"
    );
    let probe = |board: &str, to_move: &str, more: &[&str]| {
        let mut args = vec![
            "tables",
            "probe",
            path,
            "--board",
            board,
            "--to-move",
            to_move,
        ];
        args.extend_from_slice(more);
        run(&args)
    };
    let board = format!("Kk{}", ".".repeat(30));
    let (code, stdout, stderr) = probe(&board, "red", &[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("red to move: win in 1 plies"), "{stdout}");
    assert!(stdout.contains("best: (mov 0 1)"), "{stdout}");
    let (_, stdout, _) = probe(&board, "black", &[]);
    assert!(stdout.contains("black to move: win in 1 plies"), "{stdout}");
    let (code, stdout, _) = probe(&format!("KkX{}", ".".repeat(29)), "red", &[]);
    assert_eq!(code, Some(1));
    assert!(stdout.contains("not in the tables"), "{stdout}");
    let (code, _, stderr) = probe(&board, "red", &["--variant", "cannon-step"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("other rules"), "{stderr}");
}

/// The perfect player over TCP: on the 2x2 KPkp board player 1's value is 0 (the second
/// player wins whatever the first does), so `anqi-bot --strategy perfect` wins every game it
/// plays second, against a random bot that plays first, through `anqi match`.
#[test]
fn the_perfect_player_wins_every_game_its_solution_says_it_wins() {
    let dir = TempDir::new("perfect");
    let (variant, solution, stdout) = solve_tiny(&dir);
    assert!(stdout.contains("value: 0/1"), "{stdout}");
    let bot = common::anqi_bot();
    let perfect = format!(
        "perfect={} --connect {{addr}} --strategy perfect --solution {} --comment --name perfect",
        bot.display(),
        solution.display()
    );
    let records = dir.0.join("games.jsonl");
    let out = Command::new(ANQI)
        .args(["match", &perfect, "random", "--games", "20", "--variant"])
        .arg(&variant)
        .arg("--output")
        .arg(&records)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut second = 0;
    for line in std::fs::read_to_string(&records).unwrap().lines() {
        let record: serde_json::Value = serde_json::from_str(line).unwrap();
        let names: Vec<&str> = record["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        if names[1] == "perfect" {
            second += 1;
            assert_eq!(record["result"]["winner"], 2, "{line}");
            // It says the exact value of each position it plays from.
            let comment = record["plies"][1]["comment"].as_str().unwrap_or_default();
            assert!(comment.starts_with("value "), "{line}");
        }
    }
    assert_eq!(second, 10);
}

/// `anqi serve --log-format json`: every line on stderr is one JSON object with the event's
/// time, level, message and target, for a log shipper.
#[test]
fn serve_logs_json_lines_with_log_format_json() {
    let (mut child, _addr) = serve(&[
        "--listen",
        "127.0.0.1:0",
        "--records",
        "",
        "--log-format",
        "json",
    ]);
    signal(&child, "-TERM");
    assert!(wait_exit(&mut child).success());
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(lines.len() >= 2, "{stderr}");
    for line in lines {
        let v: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert!(
            v["timestamp"].is_string()
                && v["level"].is_string()
                && v["fields"]["message"].is_string()
                && v["target"].is_string(),
            "{line}"
        );
    }
    assert!(stderr.contains("\"message\":\"serving\""), "{stderr}");
}
