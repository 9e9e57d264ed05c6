//! The uci-banqi bridge end to end: a real server on 127.0.0.1:0, real `anqi bridge`
//! processes driving tests/engines/uci_engine.py (which rebuilds its board from every
//! `position` with its own map and exits with status 2 when anything does not add up), against
//! each other or against the Rust client's random bot. Every record verifies with
//! `anqi replay`.

use crate::common;

use anqi_client::{play_game, RandomBot};
use anqi_core::record::GameRecord;
use anqi_core::rules::Variant;
use common::TestServer;
use std::process::Output;
use std::time::{Duration, Instant};
use tokio::process::Child;

const ANQI: &str = env!("CARGO_BIN_EXE_anqi");
const ENGINE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/engines/uci_engine.py");
/// Longest a bridged game may take (they take a second or two).
const GAME_TIMEOUT: Duration = Duration::from_secs(40);

/// `anqi bridge --protocol uci-banqi --connect ADDR --name NAME BRIDGE_ARGS -- uci_engine.py
/// ENGINE_ARGS`, with its output captured.
fn bridge(addr: &str, name: &str, bridge_args: &[&str], engine_args: &[&str]) -> Child {
    common::bridge_command(
        "uci-banqi",
        "uci_engine.py",
        addr,
        name,
        bridge_args,
        engine_args,
    )
    .spawn()
    .expect("start anqi bridge")
}

/// Waits for a bridge; its exit status and stderr.
async fn finished(child: Child) -> (Output, String) {
    let out = tokio::time::timeout(GAME_TIMEOUT, child.wait_with_output())
        .await
        .expect("the bridge exits after its game")
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    (out, err)
}

/// The random bot of the Rust client plays one game on `addr`.
fn bot(addr: &str, variant: &str, seed: u64) -> tokio::task::JoinHandle<()> {
    let addr = addr.to_string();
    let variant = Variant::shipped(variant).unwrap();
    tokio::spawn(async move {
        play_game(
            &addr,
            "bot",
            &seed.to_string(),
            &mut RandomBot::new(seed),
            Some(&variant),
        )
        .await
        .expect("the bot plays to the end");
    })
}

/// One game of the test engine (through the bridge) against the random bot, on its own
/// server; the bridge's output, the record and the bridge's player id.
async fn against_bot(
    variant: &str,
    config: &str,
    bridge_args: &[&str],
    engine_args: &[&str],
) -> (Output, String, GameRecord, usize) {
    let mut server = TestServer::start(variant, config).await;
    let addr = server.addr();
    let child = bridge(&addr, "uci", bridge_args, engine_args);
    let bot = bot(&addr, variant, 7);
    let (out, err) = finished(child).await;
    bot.await.unwrap();
    let record = server.next_record().await;
    let me = record
        .players
        .iter()
        .find(|p| p.name == "uci")
        .expect("the bridge played")
        .id;
    verify(server).await;
    (out, err, record, me)
}

/// Stops the server and checks its records with `anqi replay`.
async fn verify(server: TestServer) {
    let (path, _dir) = server.stop().await;
    let summary = common::replay(&path);
    assert!(summary.ends_with(" verified, 0 failed"), "{summary}");
}

fn assert_clean(out: &Output, err: &str, record: &GameRecord) {
    assert!(
        out.status.success(),
        "bridge failed: {:?}\n{err}",
        out.status
    );
    assert!(err.contains("anqi bridge: game over after"), "{err}");
    assert!(record.faults.is_empty(), "{:?}\n{err}", record.faults);
    assert!(
        !err.contains("uci_engine.py:"),
        "the test engine was confused:\n{err}"
    );
}

/// The `position` and `go` lines a verbose bridge sent.
fn sent(err: &str, command: &str) -> Vec<String> {
    err.lines()
        .filter_map(|l| l.strip_prefix("bridge> "))
        .filter(|l| l.starts_with(command))
        .map(str::to_string)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_bridged_engines_play_a_game_that_verifies() {
    let mut server = TestServer::start("traditional", "[clock]\ngame_ms = 60000\n").await;
    let addr = server.addr();
    // One engine believes the NTU rules (a 40-ply no-progress draw), the other the event's.
    let a = bridge(
        &addr,
        "ntu",
        &["--assumes", "ntu", "--verbose"],
        &["--seed", "1"],
    );
    let b = bridge(&addr, "same", &["--verbose"], &["--seed", "2"]);
    let (out_a, err_a) = finished(a).await;
    let (out_b, err_b) = finished(b).await;
    let record = server.next_record().await;
    assert_clean(&out_a, &err_a, &record);
    assert_clean(&out_b, &err_b, &record);
    assert!(
        err_a.contains("warning: the event plays a no-progress draw after 180 plies"),
        "{err_a}"
    );
    for err in [&err_a, &err_b] {
        // The handshake and a new game.
        let first: Vec<&str> = err
            .lines()
            .filter_map(|l| l.strip_prefix("bridge> "))
            .collect();
        assert_eq!(
            first[..4],
            ["uci", "isready", "ucinewgame", "isready"],
            "{err}"
        );
        // Search time from the clock: at most 60 s / 30, never 0.
        let goes = sent(err, "go");
        assert!(!goes.is_empty());
        for go in &goes {
            let ms: u64 = go
                .strip_prefix("go movetime ")
                .unwrap_or_else(|| panic!("{go}"))
                .parse()
                .unwrap();
            assert!((1..=2000).contains(&ms), "{go}");
        }
        // Never a flip in the moves list.
        for position in sent(err, "position") {
            if let Some((_, moves)) = position.split_once(" moves ") {
                for m in moves.split(' ') {
                    assert_ne!(m[..2], m[2..], "{position}");
                }
            }
        }
    }
    // The engine that believes in 40 plies never sees a count past 40, window included; the
    // other gets its repetition window (the game has quiet moves between reveals).
    for position in sent(&err_a, "position") {
        let fields: Vec<&str> = position.split(' ').collect();
        // position fen BOARD TURN POOL CLOCK MOVENUM [moves M...]
        let clock: usize = fields[5].parse().unwrap();
        let moves = fields.len().saturating_sub(8);
        assert!(clock + moves <= 40, "{position}");
    }
    // Both get a repetition window: the one that believes in 40 plies too, though its count
    // would read 0 until the event's passes 140 (cut to that, it saw no history at all).
    for err in [&err_a, &err_b] {
        assert!(
            sent(err, "position").iter().any(|p| p.contains(" moves ")),
            "{err}"
        );
    }
    verify(server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn face_up_starts_and_fixed_colours_reach_the_engine() {
    // reveal-4: four pieces face-up before any reveal (the pool leaves them out; the engine
    // checks that POOL matches the X count). open: no face-down piece, colours fixed (TURN r/b
    // from the first ply, POOL -). ntu: the 40-ply rule, no belief given.
    for variant in ["reveal-4", "open", "ntu"] {
        let (out, err, record, _) = against_bot(variant, "[clock]\ngame_ms = 0\n", &[], &[]).await;
        assert_clean(&out, &err, &record);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_noisy_engine_plays_normally_and_its_noise_is_logged() {
    let (out, err, record, me) =
        against_bot("traditional", "[clock]\ngame_ms = 0\n", &[], &["--noise"]).await;
    assert_clean(&out, &err, &record);
    assert!(err.contains("engine: uci_engine.py starting up"), "{err}");
    assert!(err.contains("engine: thinking for 1000 ms"), "{err}");
    // `info` lines belong to the protocol: not noise. The last one with a score is the ply's
    // comment in the record (the bridge asks for the `comment` extension).
    assert!(!err.contains("engine: info"), "{err}");
    let mine: Vec<_> = record.plies.iter().filter(|p| p.player == me).collect();
    assert!(!mine.is_empty());
    for (n, ply) in mine.iter().enumerate() {
        assert_eq!(
            ply.comment.as_deref(),
            Some(format!("depth 2 nodes 7 score cp {} pv a0a1 b0b1", n + 1).as_str()),
            "ply {}",
            ply.ply
        );
    }
    assert!(record
        .plies
        .iter()
        .all(|p| p.player == me || p.comment.is_none()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_engine_that_never_exits_is_killed_when_the_game_ends() {
    let dir = common::TempDir::new("uci-never-exit");
    let pidfile = dir.0.join("engine.pid");
    let mut server = TestServer::start("traditional", "[clock]\ngame_ms = 0\n").await;
    let addr = server.addr();
    let child = bridge(
        &addr,
        "uci",
        &[],
        &["--never-exit", "--pidfile", pidfile.to_str().unwrap()],
    );
    let bot = bot(&addr, "traditional", 3);
    let record = server.next_record().await;
    let ended = Instant::now();
    let (out, err) = finished(child).await;
    assert!(
        ended.elapsed() < Duration::from_secs(6),
        "the bridge took {:?} after the game",
        ended.elapsed()
    );
    assert_clean(&out, &err, &record);
    bot.await.unwrap();
    let pid = std::fs::read_to_string(&pidfile).unwrap();
    assert!(
        !std::path::Path::new(&format!("/proc/{}", pid.trim())).exists(),
        "engine {} still running",
        pid.trim()
    );
    verify(server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_illegal_answer_is_the_referees_to_rule_on() {
    // By default the referee refuses it and asks again: the game goes on.
    let (out, err, record, me) = against_bot(
        "traditional",
        "[clock]\ngame_ms = 0\n",
        &[],
        &["--illegal", "3"],
    )
    .await;
    assert!(out.status.success(), "{err}");
    let faults: Vec<_> = record.faults.iter().filter(|f| f.player == me).collect();
    assert_eq!(faults.len(), 1, "{:?}", record.faults);
    assert_eq!(faults[0].code, "illegal");
    assert!(
        err.contains("the referee refused the engine's answer: illegal"),
        "{err}"
    );
    // Under a strict referee the engine loses.
    let (out, err, record, me) = against_bot(
        "traditional",
        "[clock]\ngame_ms = 0\n[referee]\nillegal_action = \"lose\"\n",
        &[],
        &["--illegal", "3"],
    )
    .await;
    assert!(out.status.success(), "{err}");
    assert_eq!(
        record.result.reason.name(),
        "illegal",
        "{:?}",
        record.result
    );
    assert_eq!(record.result.loser, Some(me));
    assert_eq!(record.faults[0].code, "illegal");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn off_board_squares_go_to_the_referee_and_non_moves_resign() {
    // A square of the syntax off the board (i0) becomes a cell past the board: refused as
    // illegal, and the game goes on.
    let (out, err, record, me) = against_bot(
        "traditional",
        "[clock]\ngame_ms = 0\n",
        &[],
        &["--say", "2", "bestmove a0i0"],
    )
    .await;
    assert!(out.status.success(), "{err}");
    assert!(
        record
            .faults
            .iter()
            .any(|f| f.player == me && f.code == "illegal"),
        "{:?}",
        record.faults
    );
    assert_ne!(record.result.reason.name(), "resign");
    // Not a move at all, and `(none)`: the bridge resigns for the engine.
    for (said, why) in [
        ("bestmove e9", "not a move"),
        ("bestmove (none)", "bestmove (none)"),
    ] {
        let (out, err, record, me) = against_bot(
            "traditional",
            "[clock]\ngame_ms = 0\n",
            &[],
            &["--say", "2", said],
        )
        .await;
        assert!(out.status.success(), "{err}");
        assert!(err.contains(why) && err.contains("resigned:"), "{err}");
        assert_eq!(record.result.reason.name(), "resign");
        assert_eq!(record.result.loser, Some(me));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_runs_the_handshake_only() {
    let check = |engine: &[&str]| {
        std::process::Command::new(ANQI)
            .args(["bridge", "--protocol", "uci-banqi", "--check", "--"])
            .args(engine)
            .output()
            .unwrap()
    };
    let out = check(&["python3", ENGINE]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("\"UciTest\""),
        "{out:?}"
    );
    let missing = check(&["/nonexistent/uci-engine"]);
    assert_eq!(missing.status.code(), Some(3), "{missing:?}");
    let quits = check(&["true"]);
    assert_eq!(quits.status.code(), Some(3), "{quits:?}");
    assert!(
        String::from_utf8_lossy(&quits.stderr).contains("the engine did not start"),
        "{quits:?}"
    );
}
