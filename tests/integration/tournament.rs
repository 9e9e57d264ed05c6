//! `anqi tournament` as organizers run it: reproducible records, shards that merge into the
//! whole, resume after `kill -9`, misbehaving engines ruled with the right termination while
//! the event goes on, and SPRT early stopping.

use crate::common;

use anqi_core::record::GameRecord;
use common::cli::{anqi, Ran};
use common::TempDir;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

use common::bot_engine as bot;

/// An engine entry running tests/engines/misbehave.py in `mode` (token from ANQI_TOKEN).
fn misbehaving(mode: &str) -> String {
    format!(
        "[[tournament.engine]]\nname = \"{mode}\"\ncommand = \"python3\"\nargs = [\"{ROOT}/tests/engines/misbehave.py\", \"{mode}\", \"--connect\", \"{{addr}}\"]\n"
    )
}

/// Writes a tournament file in `dir` and returns its path.
fn config(dir: &Path, head: &str, engines: &[String]) -> PathBuf {
    let path = dir.join("t.toml");
    let text = format!(
        "[tournament]\nvariant = \"traditional-2x4\"\nseed = \"test\"\noutput = \"{}\"\nlogs = \"{}\"\n{head}\n{}",
        dir.join("out.jsonl").display(),
        dir.join("logs").display(),
        engines.concat()
    );
    std::fs::write(&path, text).unwrap();
    path
}

/// `anqi tournament FILE --quiet EXTRA...`, asserted to succeed.
fn tournament(file: &Path, extra: &[&str]) -> Ran {
    anqi(["tournament"])
        .arg(file)
        .arg("--quiet")
        .args(extra)
        .succeeds()
}

/// Records in schedule order with their timing zeroed (timing is the only thing that may
/// differ between two runs of one configuration).
fn normalized(path: &Path) -> Vec<GameRecord> {
    let mut records: Vec<GameRecord> = anqi_core::record::read_records(path)
        .unwrap()
        .into_iter()
        .map(|(_, r)| r.unwrap())
        .collect();
    for r in &mut records {
        r.started_unix_ms = 0;
        for p in &mut r.plies {
            p.think_ms = 0;
        }
        for p in &mut r.players {
            p.time_used_ms = 0;
        }
    }
    records.sort_by_key(|r| r.tournament.as_ref().unwrap().index);
    records
}

/// `anqi tournament FILE --quiet` in the background.
fn spawn_quiet(file: &Path, stdout: Stdio, stderr: Stdio) -> std::process::Child {
    anqi(["tournament"])
        .arg(file)
        .arg("--quiet")
        .spawn(stdout, stderr)
}

fn report(path: &Path) -> String {
    anqi(["report"]).arg(path).succeeds().stdout
}

/// `anqi replay --quiet PATH`'s summary line.
fn replay_summary(path: &Path) -> String {
    anqi(["replay", "--quiet"]).arg(path).succeeds().stdout
}

fn two_bots(dir: &Path, head: &str) -> PathBuf {
    config(dir, head, &[bot("alpha"), bot("beta")])
}

#[test]
fn same_config_same_records_and_shards_merge_into_the_whole() {
    let head = "deals = 3\nconcurrency = 2";
    let (a, b, c) = (
        TempDir::new("t-a"),
        TempDir::new("t-b"),
        TempDir::new("t-c"),
    );
    tournament(&two_bots(&a.0, head), &[]);
    tournament(&two_bots(&b.0, head), &[]);
    let whole = normalized(&a.0.join("out.jsonl"));
    assert_eq!(whole.len(), 6);
    assert_eq!(
        whole,
        normalized(&b.0.join("out.jsonl")),
        "the same config gives the same records"
    );
    // Each deal is played twice with the seats swapped.
    for pair in whole.chunks(2) {
        let (x, y) = (
            pair[0].tournament.as_ref().unwrap(),
            pair[1].tournament.as_ref().unwrap(),
        );
        assert_eq!(x.deal, y.deal);
        assert_eq!(x.engines, vec![y.engines[1].clone(), y.engines[0].clone()]);
        assert_eq!(pair[0].seeds, pair[1].seeds);
    }

    let file = two_bots(&c.0, head);
    let (s0, s1) = (c.0.join("s0.jsonl"), c.0.join("s1.jsonl"));
    tournament(&file, &["--shard", "0/2", "--output", s0.to_str().unwrap()]);
    tournament(&file, &["--shard", "1/2", "--output", s1.to_str().unwrap()]);
    let merged = c.0.join("merged.jsonl");
    anqi(["merge", "-o"]).args([&merged, &s1, &s0]).succeeds();
    assert_eq!(
        normalized(&merged),
        whole,
        "shards 0/2 and 1/2 merged equal 1/1"
    );
    assert_eq!(report(&merged), report(&a.0.join("out.jsonl")));
    assert!(replay_summary(&merged).ends_with("6 verified, 0 failed\n"));
}

#[test]
fn a_run_killed_halfway_and_resumed_equals_an_uninterrupted_one() {
    let head = "deals = 6\nconcurrency = 1";
    let (whole, cut) = (TempDir::new("t-whole"), TempDir::new("t-cut"));
    tournament(&two_bots(&whole.0, head), &[]);
    let file = two_bots(&cut.0, head);
    let out = cut.0.join("out.jsonl");
    let mut child = spawn_quiet(&file, Stdio::null(), Stdio::null());
    // Wait for a few games, then kill -9 in the middle of the event.
    for _ in 0..600 {
        let lines = std::fs::read_to_string(&out)
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if lines >= 4 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Command::new("kill")
        .args(["-9", &child.id().to_string()])
        .status()
        .unwrap();
    child.wait().unwrap();
    let kept = std::fs::read_to_string(&out).unwrap();
    assert!(kept.lines().count() < 12, "killed before the end");
    // A crash in the middle of a write leaves half a line: the resumed run must cut it off.
    std::fs::write(&out, format!("{kept}{{\"format\":1,\"game\":")).unwrap();
    tournament(&file, &[]);
    assert_eq!(normalized(&out), normalized(&whole.0.join("out.jsonl")));
    assert_eq!(report(&out), report(&whole.0.join("out.jsonl")));
}

#[test]
fn misbehaving_engines_lose_with_the_right_reason_while_the_event_goes_on() {
    let dir = TempDir::new("t-bad");
    let head = "format = \"gauntlet\"\nconcurrency = 4\nconnect_timeout_ms = 5000\nengine_logs = \"game\"\n[tournament.clock]\nmove_ms = 1000";
    let engines = [
        bot("steady"),
        misbehaving("crash"),
        misbehaving("hang"),
        misbehaving("illegal"),
        misbehaving("slow"),
    ];
    tournament(&config(&dir.0, head, &engines), &[]);
    let records = normalized(&dir.0.join("out.jsonl"));
    assert_eq!(records.len(), 8, "every game of the gauntlet was played");
    for r in &records {
        let tag = r.tournament.as_ref().unwrap();
        let bad_seat = tag.engines.iter().position(|e| e != "steady").unwrap() + 1;
        let bad = &tag.engines[bad_seat - 1];
        let want = match bad.as_str() {
            "crash" => "crash",
            "hang" | "slow" => "time",
            "illegal" => "illegal",
            other => panic!("unexpected engine {other}"),
        };
        // The misbehaving engine may never get to move if the steady one wins first; on 2x4
        // with one ply each that cannot happen before its first turn.
        assert_eq!(r.result.reason.name(), want, "{bad}: {:?}", r.result);
        assert_eq!(r.result.loser, Some(bad_seat), "{bad}");
    }
    assert!(replay_summary(&dir.0.join("out.jsonl")).ends_with("8 verified, 0 failed\n"));
    // The hanging engine ignored SIGTERM; it must have been killed all the same.
    let left = Command::new("pgrep")
        .args(["-f", "misbehave.py hang"])
        .output()
        .unwrap();
    assert!(
        left.stdout.is_empty(),
        "engines left behind: {}",
        String::from_utf8_lossy(&left.stdout)
    );
    // Each engine's output went to its own log file.
    let logs = std::fs::read_dir(dir.0.join("logs")).unwrap().count();
    assert_eq!(logs, 16);
}

/// An engine that prints without end keeps `engine_log_bytes` of its output in its log, which
/// then says what was dropped (issue 18: 317 MB of engine logs in 4 games).
#[test]
fn an_engine_printing_megabytes_keeps_a_bounded_log() {
    let dir = TempDir::new("t-loud");
    let loud = format!(
        "[[tournament.engine]]\nname = \"loud\"\ncommand = \"sh\"\nargs = [\"-c\", \"head -c 3000000 /dev/zero | tr '\\\\0' x | fold -w 99 >&2; exec python3 {ROOT}/clients/python/anqi_random_bot.py --connect {{addr}} --seed {{seed}} --name {{name}} --quiet\"]\n"
    );
    // The limit holds per game: a shared log (engine_logs = "engine") has both games' output.
    for (logs, file, games) in [
        ("game", "game-00000-seat1-loud.log", 1),
        ("engine", "loud.log", 2),
    ] {
        let dir = TempDir::new(&format!("t-loud-{logs}"));
        let head = format!("engine_logs = \"{logs}\"\nengine_log_bytes = 100000");
        tournament(&config(&dir.0, &head, &[loud.clone(), bot("quiet")]), &[]);
        let log = std::fs::read_to_string(dir.0.join("logs").join(file)).unwrap();
        assert!(log.len() < games * 102_000, "{logs}: {} bytes", log.len());
        assert!(
            log.contains("anqi: the engine's output passed engine_log_bytes (100000 bytes); the rest is dropped"),
            "{logs}"
        );
        assert!(
            log.contains("bytes of the engine's output were dropped"),
            "{logs}"
        );
        assert!(replay_summary(&dir.0.join("out.jsonl")).ends_with("2 verified, 0 failed\n"));
    }
    drop(dir);
}

#[test]
fn sprt_stops_a_match_once_the_stronger_engine_is_clear() {
    let dir = TempDir::new("t-sprt");
    let head = "deals = 100\nconcurrency = 2\n[tournament.sprt]\nelo0 = 0\nelo1 = 100";
    let file = config(&dir.0, head, &[bot("player"), misbehaving("resign")]);
    let out = anqi(["tournament"]).arg(&file).arg("--json").succeeds();
    // Progress: one JSON object per game on stderr.
    let first = out
        .stderr
        .lines()
        .find(|l| l.starts_with('{'))
        .expect("JSON progress lines");
    let first: serde_json::Value = serde_json::from_str(first).unwrap();
    assert_eq!(first["total"], 200);
    let standings: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(standings["sprt"]["verdict"], "H1", "{standings:#}");
    let games = standings["games"].as_u64().unwrap();
    assert!(games < 40, "stopped early: {games} of 200 games");
}

#[test]
fn an_external_engine_connects_by_itself_with_its_token() {
    use std::io::BufRead;
    let dir = TempDir::new("t-ext");
    let head = "format = \"gauntlet\"\ndeals = 2";
    let external =
        "[[tournament.engine]]\nname = \"outside\"\ntoken = \"outside-token\"\n".to_string();
    let file = config(&dir.0, head, &[bot("inside"), external]);
    let mut child = spawn_quiet(&file, Stdio::piped(), Stdio::piped());
    // The address is printed even in quiet mode, because an external engine needs it. The
    // reader of stderr goes away after that line: the event must go on (the commitment line
    // that follows it is written whether or not anyone reads it).
    let mut first = String::new();
    std::io::BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let addr = first
        .trim()
        .strip_prefix("listening on ")
        .expect("the address on stderr")
        .to_string();
    // The external engine: one connection per game, always the same token.
    let bot = Command::new("python3")
        .arg(format!("{ROOT}/clients/python/anqi_random_bot.py"))
        .args([
            "--connect",
            &addr,
            "--token",
            "outside-token",
            "--games",
            "4",
            "--quiet",
            "--seed",
            "9",
        ])
        .output()
        .unwrap();
    assert!(
        bot.status.success(),
        "{}",
        String::from_utf8_lossy(&bot.stderr)
    );
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let records = normalized(&dir.0.join("out.jsonl"));
    assert_eq!(records.len(), 4);
    for r in &records {
        assert!(!r.result.reason.is_fault(), "{:?}", r.result);
        assert!(r
            .tournament
            .as_ref()
            .unwrap()
            .engines
            .contains(&"outside".to_string()));
    }
}

#[test]
fn stopping_the_tournament_kills_the_engines_children_too() {
    let dir = TempDir::new("t-term");
    // Engines that start a child of their own and never connect.
    let wrapper = |name: &str| {
        format!("[[tournament.engine]]\nname = \"{name}\"\ncommand = \"sh\"\nargs = [\"-c\", \"sleep 98765 & wait\"]\n")
    };
    let file = config(
        &dir.0,
        "connect_timeout_ms = 60000",
        &[wrapper("w1"), wrapper("w2")],
    );
    let mut child = spawn_quiet(&file, Stdio::null(), Stdio::null());
    let running = || {
        let out = Command::new("pgrep")
            .args(["-f", "sleep 98765"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).lines().count()
    };
    for _ in 0..200 {
        if running() >= 2 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(running() >= 2, "the engines started their children");
    Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    // Killed processes take a moment to go: wait for that (up to 10 s), not a fixed 200 ms.
    let until = std::time::Instant::now() + Duration::from_secs(10);
    while running() > 0 && std::time::Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(running(), 0, "no engine process is left behind");
}

/// `anqi tournament FILE ARGS...` (not quiet), whatever its exit status.
fn tournament_output(file: &Path, extra: &[&str]) -> Ran {
    anqi(["tournament"]).arg(file).args(extra).output()
}

/// An engine entry whose program is `sh -c SCRIPT`, with `{game}` and `{addr}` as $0 and $1.
fn shell_engine(name: &str, script: &str) -> String {
    format!(
        "[[tournament.engine]]\nname = \"{name}\"\ncommand = \"sh\"\nargs = [\"-c\", '{script}', \"{{game}}\", \"{{addr}}\"]\n"
    )
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |t| t.lines().count())
}

#[test]
fn a_program_that_cannot_be_started_stops_the_event_before_any_game() {
    let dir = TempDir::new("t-missing");
    let missing =
        "[[tournament.engine]]\nname = \"ghost\"\ncommand = \"no-such-engine-program-7f3a\"\n";
    let file = config(&dir.0, "", &[bot("alpha"), missing.to_string()]);
    let out = tournament_output(&file, &["--quiet"]);
    let stderr = &out.stderr;
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("\"ghost\"") && stderr.contains("no-such-engine-program-7f3a"),
        "{stderr}"
    );
    assert!(stderr.contains("PATH"), "{stderr}");
    assert_eq!(lines(&dir.0.join("out.jsonl")), 0, "no game was played");
    assert!(
        !dir.0.join("logs").exists(),
        "stopped before anything was started"
    );

    // A file that is there but cannot be run, found relative to the engine's dir.
    std::fs::write(dir.0.join("engine.sh"), "#!/bin/sh\n").unwrap();
    let not_executable = format!(
        "[[tournament.engine]]\nname = \"plain\"\ncommand = \"./engine.sh\"\ndir = \"{}\"\n",
        dir.0.display()
    );
    let file = config(&dir.0, "", &[bot("alpha"), not_executable]);
    let out = tournament_output(&file, &["--quiet"]);
    let stderr = &out.stderr;
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("\"plain\"") && stderr.contains("not executable"),
        "{stderr}"
    );
    assert_eq!(lines(&dir.0.join("out.jsonl")), 0);
}

#[test]
fn an_engine_that_exits_at_once_stops_the_event_in_its_first_game() {
    let dir = TempDir::new("t-quits");
    let quitter = shell_engine("quitter", "echo cannot read my weights >&2; exit 7");
    // A long connect timeout: the event must not wait for it to learn the engine is gone.
    let file = config(
        &dir.0,
        "connect_timeout_ms = 60000",
        &[bot("alpha"), quitter],
    );
    let started = std::time::Instant::now();
    let out = tournament_output(&file, &["--quiet"]);
    let stderr = &out.stderr;
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "did not wait for the timeout"
    );
    assert!(
        stderr.contains("\"quitter\"") && stderr.contains("exit status: 7"),
        "{stderr}"
    );
    let log = dir.0.join("logs").join("quitter.log");
    assert!(stderr.contains(&log.display().to_string()), "{stderr}");
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(
        logged.contains("game 0 seat 2: cannot read my weights"),
        "{logged}"
    );
    assert_eq!(
        lines(&dir.0.join("out.jsonl")),
        0,
        "the lost game is not recorded"
    );
}

#[test]
fn an_engine_that_stops_connecting_later_loses_by_no_connect() {
    let dir = TempDir::new("t-noconnect");
    // Plays game 0 only; in later games it exits without connecting.
    let fickle = shell_engine(
        "fickle",
        &format!(
            "if [ \"$0\" = 0 ]; then exec python3 {ROOT}/clients/python/anqi_random_bot.py --connect \"$1\" --quiet; fi; exit 0"
        ),
    );
    let file = config(
        &dir.0,
        "deals = 2\nconnect_timeout_ms = 60000",
        &[bot("steady"), fickle],
    );
    let started = std::time::Instant::now();
    tournament(&file, &[]);
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "did not wait for the timeout"
    );
    let records = normalized(&dir.0.join("out.jsonl"));
    assert_eq!(records.len(), 4, "the event went on");
    assert_ne!(records[0].result.reason.name(), "no-connect");
    for r in &records[1..] {
        let tag = r.tournament.as_ref().unwrap();
        let seat = tag.engines.iter().position(|e| e == "fickle").unwrap() + 1;
        assert_eq!(r.result.reason.name(), "no-connect", "{:?}", r.result);
        assert_eq!(r.result.loser, Some(seat));
        assert!(r.plies.is_empty());
    }
    let report = report(&dir.0.join("out.jsonl"));
    assert!(report.contains("no-connect 3"), "{report}");
    assert!(replay_summary(&dir.0.join("out.jsonl")).ends_with("4 verified, 0 failed\n"));
}

#[test]
fn each_engine_runs_on_its_own_time_control_and_each_shares_keys() {
    let dir = TempDir::new("t-tc");
    // Both engines wait 0.4 s on their first turn, then resign; [tournament.each] gives them
    // their program and a patient control, which "hasty" replaces with 0.1 s per move.
    let head = format!(
        "deals = 2\n[tournament.each]\ncommand = \"python3\"\nargs = [\"{ROOT}/tests/engines/misbehave.py\", \"slow\", \"--delay\", \"0.4\", \"--connect\", \"{{addr}}\"]\ntc = \"st=5\"\n"
    );
    let engines = [
        "[[tournament.engine]]\nname = \"hasty\"\ntc = \"st=0.1\"\n".to_string(),
        "[[tournament.engine]]\nname = \"patient\"\n".to_string(),
    ];
    tournament(&config(&dir.0, &head, &engines), &[]);
    let records = normalized(&dir.0.join("out.jsonl"));
    assert_eq!(records.len(), 4);
    for r in &records {
        let first = &r.tournament.as_ref().unwrap().engines[0];
        let want = if first == "hasty" { "time" } else { "resign" };
        assert_eq!(
            r.result.reason.name(),
            want,
            "{first} moved first: {:?}",
            r.result
        );
        assert_eq!(r.result.loser, Some(1));
    }
    // The hasty engine's flag fell at its own limit: 0.1 s, not the 0.4 s it took.
    let raw: Vec<GameRecord> = anqi_core::record::read_records(&dir.0.join("out.jsonl"))
        .unwrap()
        .into_iter()
        .map(|(_, r)| r.unwrap())
        .collect();
    for r in raw
        .iter()
        .filter(|r| r.tournament.as_ref().unwrap().engines[0] == "hasty")
    {
        let used = r.players[0].time_used_ms;
        assert!((100..400).contains(&used), "{:?}", r.players[0]);
    }
}

#[test]
fn command_line_overrides_apply_and_resume_refuses_another_schedule() {
    let dir = TempDir::new("t-override");
    let file = two_bots(&dir.0, "deals = 1\nconcurrency = 1");
    let out = tournament_output(
        &file,
        &[
            "--deals",
            "2",
            "--concurrency",
            "2",
            "--seed",
            "other",
            "--standings-every",
            "2",
            "--tc",
            "10+0.1",
        ],
    );
    let stderr = &out.stderr;
    assert!(out.status.success(), "{stderr}");
    let path = dir.0.join("out.jsonl");
    let records = normalized(&path);
    assert_eq!(records.len(), 4, "--deals 2");
    // Every deal from the master seed "other", by HMAC-SHA256 (tournament::seeds).
    for r in &records {
        let deal = r.tournament.as_ref().unwrap().deal;
        assert_eq!(r.seeds.server, common::tournament_deal_seed("other", deal));
    }
    assert_eq!(
        stderr.matches("Standings: ").count(),
        2,
        "after games 2 and 4: {stderr}"
    );

    // Another master seed, or fewer deals, is another schedule: refused.
    for extra in [
        &["--deals", "2", "--seed", "changed"][..],
        &["--seed", "other"],
    ] {
        let out = tournament_output(&file, extra);
        let stderr = &out.stderr;
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {stderr}");
        assert!(stderr.contains("out.jsonl:"), "{stderr}");
        if extra.len() == 2 {
            // Fewer deals: the refusal says so.
            assert!(
                stderr.contains("schedule of 2 games (1 deals per pairing)")
                    && stderr.contains("were `deals` (or --deals"),
                "{stderr}"
            );
        }
    }
    // More deals extend the same schedule: the run resumes.
    tournament(&file, &["--deals", "3", "--seed", "other"]);
    assert_eq!(normalized(&path).len(), 6);
    assert_eq!(normalized(&path)[..4], records[..]);
}

#[test]
fn anqi_match_plays_a_quick_match_and_prints_the_standings() {
    // A command-line engine against the Python bot carried in the binary.
    let stdout = anqi([
        "match",
        "python-random",
        &format!("mine=python3 {ROOT}/clients/python/anqi_random_bot.py --connect {{addr}} --seed {{seed}} --quiet"),
        "--games",
        "4",
        "--variant",
        "traditional-2x4",
        "--tc",
        "60+1",
        "--quiet",
    ])
    .succeeds()
    .stdout;
    assert!(
        stdout.contains("Standings: 4 games of traditional-2x4"),
        "{stdout}"
    );
    assert!(
        stdout.contains("python-random") && stdout.contains("mine"),
        "{stdout}"
    );

    let stderr = anqi(["match", "random", "greedy", "--games", "3"])
        .fails_with(2)
        .stderr;
    assert!(
        stderr.contains("--games 3") && stderr.contains("multiple of 2"),
        "{stderr}"
    );
}

#[test]
fn anqi_match_runs_the_reference_bots_beside_the_binary() {
    // `anqi match` finds the reference bots beside itself.
    common::anqi_bot();
    let dir = TempDir::new("t-match");
    let output = dir.0.join("match.jsonl");
    let stdout = anqi(["match", "random", "greedy", "--games", "4", "--output"])
        .arg(&output)
        .arg("--logs")
        .arg(dir.0.join("logs"))
        .succeeds()
        .stdout;
    assert!(
        stdout.contains("Standings: 4 games of traditional"),
        "{stdout}"
    );
    assert!(
        stdout.contains("greedy") && stdout.contains("random"),
        "{stdout}"
    );
    assert_eq!(lines(&output), 4);
    assert!(dir.0.join("logs/greedy.log").is_file());
    assert!(replay_summary(&output).ends_with("4 verified, 0 failed\n"));
}

/// With `rejoin_grace_ms`, an engine that loses its connection and connects again with its
/// per-game token plays on (protocol/PROTOCOL.md, Rejoining); without it, the same engine
/// loses the game as `disconnect`.
#[test]
fn an_engine_takes_its_seat_back_with_its_token_within_the_grace() {
    let dropper = format!(
        "[[tournament.engine]]\nname = \"dropper\"\ncommand = \"python3\"\nargs = [\"{ROOT}/tests/engines/misbehave.py\", \"drop\", \"--delay\", \"0.3\", \"--connect\", \"{{addr}}\"]\n"
    );
    for grace in [10_000, 0] {
        let dir = TempDir::new(&format!("t-rejoin-{grace}"));
        let head = format!("tc = \"inf\"\nrejoin_grace_ms = {grace}");
        let file = config(&dir.0, &head, &[dropper.clone(), bot("other")]);
        tournament(&file, &[]);
        let records = normalized(&dir.0.join("out.jsonl"));
        assert_eq!(records.len(), 2, "one deal, seats swapped");
        for r in &records {
            let tag = r.tournament.as_ref().unwrap();
            let seat = tag.engines.iter().position(|e| e == "dropper").unwrap() + 1;
            if grace > 0 {
                // It came back, revealed a piece, and resigned: nothing was lost to the drop.
                assert_eq!(r.result.reason.name(), "resign", "{:?}", r.result);
                assert_eq!(r.result.loser, Some(seat));
                assert!(r.plies.iter().any(|p| p.player == seat), "{:?}", r.plies);
                assert_eq!(r.drops.len(), 1, "{:?}", r.drops);
                assert_eq!((r.drops[0].player, r.drops[0].back), (seat, true));
                assert!(r.drops[0].away_ms >= 250, "{:?}", r.drops);
            } else {
                assert_eq!(
                    (r.result.reason.name(), r.result.loser),
                    ("disconnect", Some(seat)),
                    "{:?}",
                    r.result
                );
                assert!(r.drops.is_empty());
            }
        }
        assert!(replay_summary(&dir.0.join("out.jsonl")).ends_with("2 verified, 0 failed\n"));
    }
}

/// The reference search bot says what its search found with each move; the records keep it,
/// and nothing of the others'.
#[test]
fn anqi_match_keeps_the_search_bots_comments() {
    common::anqi_bot();
    let dir = TempDir::new("t-match-comments");
    let output = dir.0.join("m.jsonl");
    anqi(["match", "search", "random", "--games", "2"])
        .args(["--variant", "traditional-2x4", "--output"])
        .arg(&output)
        .succeeds();
    let records = normalized(&output);
    assert_eq!(records.len(), 2);
    let mut searched = 0;
    for r in &records {
        let engines = &r.tournament.as_ref().unwrap().engines;
        for p in &r.plies {
            match (engines[p.player - 1].as_str(), p.comment.as_deref()) {
                ("search", Some(c)) if c.starts_with("depth ") => searched += 1,
                ("search", Some("the only legal action" | "greedy: no search here")) => {}
                ("random", None) => {}
                other => panic!("ply {}: {other:?}", p.ply),
            }
        }
    }
    assert!(searched > 0);
    assert!(replay_summary(&output).ends_with("2 verified, 0 failed\n"));
}

#[test]
fn anqi_match_takes_assumes_and_an_sprt_and_records_how_each_seat_played() {
    common::anqi_bot();
    let dir = TempDir::new("t-match-flags");
    let output = dir.0.join("m.jsonl");
    let engine =
        format!("misty=uci-banqi:python3 {ROOT}/tests/engines/uci_engine.py --seed {{seed}}");
    let stderr = anqi([
        "match",
        "greedy",
        &engine,
        "--games",
        "40",
        "--variant",
        "traditional",
    ])
    .args([
        "--assumes",
        "misty=misty-banqi",
        "--sprt",
        "0,400",
        "--tc",
        "60+1",
    ])
    .arg("--output")
    .arg(&output)
    .succeeds()
    .stderr;
    // The SPRT decided before the 40 games (greedy takes what it can; the test engine plays
    // a capture when it has one, else any legal action).
    let records = normalized(&output);
    assert!(records.len() < 40, "{} games: {stderr}", records.len());
    for r in &records {
        let tag = r.tournament.as_ref().unwrap();
        for (name, seat) in tag.engines.iter().zip(&tag.seats) {
            assert_eq!(seat.tc, "60+1");
            match name.as_str() {
                "greedy" => {
                    assert_eq!(
                        (seat.protocol.as_str(), seat.assumes.as_deref()),
                        ("anqi", None)
                    )
                }
                _ => assert_eq!(
                    (seat.protocol.as_str(), seat.assumes.as_deref()),
                    ("uci-banqi", Some("misty-banqi"))
                ),
            }
        }
    }
    // The leader is the better score, with its games.
    assert!(
        stderr
            .lines()
            .any(|l| l.contains("| leader ") && l.contains("% (")),
        "{stderr}"
    );
    // What cannot be meant is refused, with the names there are.
    for (flag, words) in [
        ("nobody=misty-banqi", "no engine is named"),
        ("greedy=misty-banqi", "anqi's own protocol"),
        ("misty", "NAME=PRESET"),
    ] {
        let out = anqi([
            "match",
            "greedy",
            &engine,
            "--games",
            "2",
            "--assumes",
            flag,
        ])
        .output();
        let err = &out.stderr;
        assert!(
            !out.status.success() && err.contains(words),
            "{flag}: {err}"
        );
    }
}

#[test]
fn a_match_of_two_engines_in_a_team_variant_fields_each_engines_team() {
    common::anqi_bot();
    let dir = TempDir::new("t-teams");
    for variant in ["2v2", "1v2"] {
        let output = dir.0.join(format!("{variant}.jsonl"));
        let stdout = anqi(["match", "greedy", "random", "--variant", variant])
            .args(["--games", "8", "--output"])
            .arg(&output)
            .arg("--quiet")
            .succeeds()
            .stdout;
        let v = anqi_core::rules::Variant::load(variant).unwrap();
        let records = normalized(&output);
        assert_eq!(records.len(), 8, "{variant}");
        for pair in records.chunks(2) {
            let (a, b) = (
                pair[0].tournament.as_ref().unwrap(),
                pair[1].tournament.as_ref().unwrap(),
            );
            // One deal, played twice, the sides swapped; each side held by one engine.
            assert_eq!(a.deal, b.deal, "{variant}");
            for tag in [a, b] {
                for side in &v.sides {
                    let names: BTreeSet<&str> =
                        side.iter().map(|&p| tag.engines[p - 1].as_str()).collect();
                    assert_eq!(names.len(), 1, "{variant}: {:?}", tag.engines);
                }
            }
            assert_eq!(a.engines[0], b.engines[v.sides[1][0] - 1], "{variant}");
        }
        // Each engine played 8 games (once each, not once per seat), and the pairs of games on
        // one deal give pentanomial counts.
        let standings = stdout
            .lines()
            .filter(|l| l.contains("greedy") || l.contains("random"));
        let rows: Vec<&str> = standings
            .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
            .collect();
        assert_eq!(rows.len(), 2, "{stdout}");
        for row in rows {
            assert_eq!(row.split_whitespace().nth(2), Some("8"), "{row}");
        }
        assert!(stdout.contains("Pentanomial"), "{stdout}");
        assert!(
            !stdout.contains("Teams ("),
            "an engine fielding a side alone is no team: {stdout}"
        );
        assert!(replay_summary(&output).ends_with("8 verified, 0 failed\n"));
    }
    // An odd number of games cannot be paired.
    let out = anqi([
        "match",
        "greedy",
        "random",
        "--variant",
        "2v2",
        "--games",
        "3",
    ])
    .output();
    let err = &out.stderr;
    assert!(
        !out.status.success() && err.contains("multiple of 2"),
        "{err}"
    );
}

#[test]
fn the_python_bot_plays_an_explicit_board_from_its_description() {
    // VARIANTS.md's ring: a board given as (cells N) (moves ...) (jumps ...), with a jump
    // clause listed out of wire order.
    common::anqi_bot();
    let dir = TempDir::new("t-ring");
    let ring = dir.0.join("ring.sexp");
    std::fs::write(
        &ring,
        "(variant (name ring)\n  (board (cells 6)\n    (moves (0 1) (0 5) (1 2) (1 0) (2 3) (2 1) (3 4) (3 2) (4 5) (4 3) (5 0) (5 4))\n    (jumps (3 1 1) (0 2 2))\n    (coords (0 0) (0 1) (0 2) (1 2) (1 1) (1 0)))\n  (pieces Cp) (colours fixed) (start open) (no-progress 20))\n",
    )
    .unwrap();
    let output = dir.0.join("ring.jsonl");
    let stdout = anqi([
        "match",
        "python-random",
        "random",
        "--games",
        "2",
        "--variant",
    ])
    .arg(&ring)
    .arg("--output")
    .arg(&output)
    .arg("--logs")
    .arg(dir.0.join("logs"))
    .succeeds()
    .stdout;
    assert!(stdout.contains("Standings: 2 games of ring"), "{stdout}");
    assert!(replay_summary(&output).ends_with("2 verified, 0 failed\n"));
    let log = std::fs::read_to_string(dir.0.join("logs/python-random.log")).unwrap_or_default();
    assert!(!log.contains("expected (rectangle"), "{log}");
}

#[test]
fn the_event_serves_its_games_and_standings_on_the_web_while_it_runs() {
    let dir = TempDir::new("t-web");
    let file = two_bots(&dir.0, "deals = 20\nconcurrency = 1");
    let mut child = anqi(["tournament"])
        .arg(&file)
        .args(["--http", "127.0.0.1:0"])
        .spawn(Stdio::null(), Stdio::piped());
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let web = loop {
        let mut line = String::new();
        assert!(
            std::io::BufRead::read_line(&mut stderr, &mut line).unwrap() > 0,
            "no web line"
        );
        if let Some(addr) = line.trim().strip_prefix("web on http://") {
            break addr.trim_end_matches('/').to_string();
        }
    };
    // Drain the progress lines so the event never blocks on a full pipe.
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let mut seen = Vec::new();
        for _ in 0..600 {
            let (status, body) = crate::web::get(&web, "/api/event").await;
            if status == 200 {
                let event: serde_json::Value = serde_json::from_str(&body).unwrap();
                let finished = event["finished"].as_u64().unwrap();
                assert_eq!(event["total"], 40);
                assert!(event["done"] == false || finished == 40, "{event}");
                assert_eq!(event["standings"]["games"], finished, "{event}");
                let text = event["text"].as_str().unwrap();
                // From the start (0 games), then with the engines as their games finish.
                assert!(
                    finished == 0 || (text.contains("alpha") && text.contains("beta")),
                    "{text}"
                );
                if seen.last() != Some(&finished) {
                    seen.push(finished);
                }
                if seen.len() >= 3 {
                    break;
                }
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(
            seen.len() >= 3,
            "the standings moved as games finished: {seen:?}"
        );
        let list = crate::web::get_json(&web, "/api/games").await;
        let games = list["games"].as_array().unwrap();
        assert!(!games.is_empty());
        assert!(games.iter().all(|g| {
            let players = g["players"].as_array().unwrap();
            players.iter().all(|p| p == "alpha" || p == "beta")
        }));
        let (status, page) = crate::web::get(&web, "/").await;
        assert_eq!(status, 200);
        assert!(page.contains("standings-link"));
        // A tournament seats its engines only, never a person.
        assert_eq!(
            crate::web::get_json(&web, "/api/seats").await["humans"],
            false
        );
        let (status, body) = crate::seats::post(
            &web,
            "/api/seats",
            r#"{"name": "alice", "against": "random"}"#,
            "",
        )
        .await;
        assert_eq!(status, 403, "{body}");
        assert!(body.contains("never in a tournament"), "{body}");
    });
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn the_pages_stay_up_with_the_final_standings_for_the_linger_then_the_run_ends() {
    let dir = TempDir::new("t-linger");
    let file = two_bots(&dir.0, "deals = 2\nconcurrency = 2");
    let started = std::time::Instant::now();
    let mut child = anqi(["tournament"])
        .arg(&file)
        .args(["--http", "127.0.0.1:0", "--http-linger", "3"])
        .spawn(Stdio::piped(), Stdio::piped());
    // stderr's lines, as they come, from a thread of their own.
    let (tx, lines) = std::sync::mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufRead::lines(std::io::BufReader::new(stderr)) {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let next = || {
        lines
            .recv_timeout(Duration::from_secs(60))
            .expect("a line on stderr in time")
    };
    let web = loop {
        if let Some(addr) = next().strip_prefix("web on http://") {
            break addr.trim_end_matches('/').to_string();
        }
    };
    let over = loop {
        let line = next();
        if line.starts_with("event over") {
            break line;
        }
    };
    assert_eq!(
        over,
        format!("event over; pages stay up at http://{web}/ for 3 s")
    );
    // The event is over and the process still runs: its pages give the final standings.
    let rt = tokio::runtime::Runtime::new().unwrap();
    let event = rt.block_on(crate::web::get_json(&web, "/api/event"));
    assert!(child.try_wait().unwrap().is_none(), "still up");
    assert_eq!(event["done"], true, "{event}");
    assert_eq!(event["finished"], 4, "{event}");
    assert_eq!(event["total"], 4, "{event}");
    assert_eq!(event["standings"]["games"], 4, "{event}");
    assert!(event["master_seed"].is_string(), "revealed: {event}");
    let list = rt.block_on(crate::web::get_json(&web, "/api/games"));
    assert_eq!(list["games"].as_array().unwrap().len(), 4, "{list}");
    // Then it ends by itself, the standings on stdout.
    let mut status = None;
    for _ in 0..300 {
        status = child.try_wait().unwrap();
        if status.is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let status = status.expect("the run ended after its linger");
    assert!(status.success(), "{status}");
    assert!(started.elapsed() >= Duration::from_secs(3));
    let mut stdout = String::new();
    std::io::Read::read_to_string(child.stdout.as_mut().unwrap(), &mut stdout).unwrap();
    assert!(stdout.contains("Standings: 4 games"), "{stdout}");
}
