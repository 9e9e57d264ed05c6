//! `anqi bridge --protocol cdc-platform`: real `anqi bridge` processes, each starting the test
//! engine `tests/engines/platform_engine.py` (which connects back to the bridge over TCP), on
//! a real server; every game's record verifies with `anqi replay`.

use crate::common;

use anqi_client::{play_game, RandomBot};
use anqi_core::record::GameRecord;
use anqi_core::rules::Variant;
use common::TestServer;
use std::process::ExitStatus;
use std::time::{Duration, Instant};
use tokio::process::{Child, Command};

const ANQI: &str = env!("CARGO_BIN_EXE_anqi");
const ENGINE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/engines/platform_engine.py"
);
/// A short clock, so that the time the engines are told is checked against it.
const CLOCK: &str = "[clock]\ngame_ms = 60000\n";
const STRICT: &str = "[clock]\ngame_ms = 60000\n[referee]\nillegal_action = \"lose\"\n";

fn bridge_command(addr: &str, name: &str, engine: &[&str]) -> Command {
    common::bridge_command(
        "cdc-platform",
        "platform_engine.py",
        addr,
        name,
        &[],
        engine,
    )
}

fn bridge(addr: &str, name: &str, engine: &[&str]) -> Child {
    bridge_command(addr, name, engine).spawn().unwrap()
}

/// Waits for a bridge: its status and its stderr (the engine's stderr included).
async fn done(child: Child) -> (ExitStatus, String) {
    let out = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
        .await
        .expect("the bridge exits within 60 s")
        .unwrap();
    (
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn player_id(record: &GameRecord, name: &str) -> usize {
    record
        .players
        .iter()
        .find(|p| p.name == name)
        .unwrap_or_else(|| panic!("{name} in {:?}", record.players))
        .id
}

/// Every `platform_engine: time T` line: the times the engine was told.
fn times(stderr: &str) -> Vec<u64> {
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix("platform_engine: time "))
        .map(|t| t.parse().unwrap_or_else(|e| panic!("{t:?}: {e}")))
        .collect()
}

/// The board the engine built from `/start`, and its pid.
fn start_line(stderr: &str) -> (String, u32) {
    let line = stderr
        .lines()
        .find_map(|l| l.strip_prefix("platform_engine: start "))
        .unwrap_or_else(|| panic!("no start line in {stderr}"));
    let board = line.split(' ').next().unwrap().to_string();
    let pid = line.rsplit(' ').next().unwrap().parse().unwrap();
    (board, pid)
}

fn assert_ok(status: ExitStatus, stderr: &str) {
    assert!(status.success(), "bridge failed ({status}):\n{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_bridged_engines_play_both_seats_and_the_record_verifies() {
    let mut server = TestServer::start("traditional", CLOCK).await;
    let addr = server.addr();
    // One engine is given HOST PORT, the other names them with placeholders (it refuses any
    // extra argument, so they must not be appended as well).
    let a = bridge(&addr, "plain", &["--seed", "3"]);
    let b = bridge(
        &addr,
        "placeholders",
        &["--seed", "4", "--noise", "{host}", "{port}"],
    );
    let record = server.next_record().await;
    let (sa, ea) = done(a).await;
    let (sb, eb) = done(b).await;
    assert_ok(sa, &ea);
    assert_ok(sb, &eb);
    assert!(record.faults.is_empty(), "{:?}", record.faults);
    assert!(record.plies.len() > 10, "{:?}", record.result);
    // Every ply was echoed to both engines, each echo with the engine's own time: the game
    // clock less the bridge's margin at most.
    for e in [&ea, &eb] {
        let t = times(e);
        assert_eq!(t[0], 59_000, "the /start time");
        assert!(t.len() > record.plies.len(), "{} times", t.len());
        assert!(t.iter().all(|&t| t > 50_000 && t <= 59_000), "{t:?}");
        assert_eq!(start_line(e).0, "X".repeat(32));
    }
    // The noisy engine's stdout is logged, and it played on.
    assert!(eb.contains("engine: debug: "), "{eb}");
    server.stop_and_replay(1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn face_up_pieces_at_the_start_reach_the_engine_on_the_right_squares() {
    // reveal-4: four pieces face-up at random before the first ply. The engines build their
    // board from /start with their own map; a wrong square or code makes their plays refused,
    // or makes them quit on a ply that does not fit their board.
    let mut server = TestServer::start("reveal-4", CLOCK).await;
    let addr = server.addr();
    let a = bridge(&addr, "a", &["--seed", "5"]);
    let b = bridge(&addr, "b", &["--seed", "6"]);
    let record = server.next_record().await;
    let (sa, ea) = done(a).await;
    let (sb, eb) = done(b).await;
    assert_ok(sa, &ea);
    assert_ok(sb, &eb);
    assert!(record.faults.is_empty(), "{:?}", record.faults);
    let start = |e: &str| start_line(e).0;
    assert_eq!(start(&ea), start(&eb));
    assert_eq!(start(&ea).chars().filter(|&c| c != 'X').count(), 4);
    server.stop_and_replay(1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_noisy_engine_plays_a_random_bot_normally() {
    let mut server = TestServer::start("traditional", CLOCK).await;
    let addr = server.addr();
    let engine = bridge(&addr, "noisy", &["--seed", "8", "--noise"]);
    let variant = Variant::shipped("traditional").unwrap();
    let bot = play_game(&addr, "random", "9", &mut RandomBot::new(9), Some(&variant))
        .await
        .unwrap();
    assert!(bot.errors.is_empty(), "{:?}", bot.errors);
    let (status, stderr) = done(engine).await;
    assert_ok(status, &stderr);
    let record = server.next_record().await;
    assert!(record.faults.is_empty(), "{:?}", record.faults);
    assert!(stderr.contains("engine: debug: "), "{stderr}");
    server.stop_and_replay(1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_engine_that_never_exits_is_stopped_when_the_game_ends() {
    let mut server = TestServer::start("traditional", CLOCK).await;
    let addr = server.addr();
    // It ignores the end of its connection and SIGTERM; its opponent resigns (a frame that is
    // no move) at its 3rd turn, so the game is short.
    let stubborn = bridge(&addr, "stubborn", &["--never-exit"]);
    let quitter = bridge(&addr, "quitter", &["--garbage", "3"]);
    let record = server.next_record().await;
    let ended = Instant::now();
    let (status, stderr) = done(stubborn).await;
    assert!(
        ended.elapsed() < Duration::from_secs(5),
        "the bridge took {:?} after the game",
        ended.elapsed()
    );
    assert_ok(status, &stderr);
    let pid = start_line(&stderr).1;
    assert!(
        !std::path::Path::new(&format!("/proc/{pid}")).exists(),
        "the engine (pid {pid}) is still there"
    );
    let (qs, qe) = done(quitter).await;
    assert_ok(qs, &qe);
    assert_eq!(record.result.reason.name(), "resign");
    assert_eq!(record.result.loser, Some(player_id(&record, "quitter")));
    assert!(qe.contains("no move"), "{qe}");
    server.stop_and_replay(1).await;
}

/// A game between a misbehaving engine (`mode`) and a normal one: the record and the bad
/// engine's stderr.
async fn misbehave(config: &str, mode: &[&str]) -> (GameRecord, String) {
    let mut server = TestServer::start("traditional", config).await;
    let addr = server.addr();
    let bad = bridge(&addr, "bad", mode);
    let good = bridge(&addr, "good", &["--seed", "2"]);
    let record = server.next_record().await;
    let (bs, be) = done(bad).await;
    let (gs, ge) = done(good).await;
    assert_ok(bs, &be);
    assert_ok(gs, &ge);
    assert_eq!(record.result.loser, Some(player_id(&record, "bad")));
    server.stop_and_replay(1).await;
    (record, be)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_illegal_answer_is_refused_and_the_engine_resigns_having_no_retry() {
    let (record, stderr) = misbehave(CLOCK, &["--illegal", "2"]).await;
    let bad = player_id(&record, "bad");
    assert!(
        record
            .faults
            .iter()
            .any(|f| f.code == "illegal" && f.player == bad),
        "{:?}",
        record.faults
    );
    assert_eq!(record.result.reason.name(), "resign");
    assert!(stderr.contains("cannot ask the engine again"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn under_a_strict_referee_an_illegal_answer_loses() {
    let (record, _) = misbehave(STRICT, &["--illegal", "3"]).await;
    let bad = player_id(&record, "bad");
    assert!(record
        .faults
        .iter()
        .any(|f| f.code == "illegal" && f.player == bad));
    assert_eq!(record.result.reason.name(), "illegal");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn squares_off_the_board_are_forwarded_for_the_referee_to_refuse() {
    let (record, _) = misbehave(STRICT, &["--off-board", "2"]).await;
    let fault = &record.faults[0];
    assert_eq!(fault.code, "illegal");
    assert!(fault.text.contains("out of range"), "{fault:?}");
    assert_eq!(record.result.reason.name(), "illegal");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_over_long_frame_is_cut_and_the_engine_resigns() {
    let (record, stderr) = misbehave(CLOCK, &["--huge", "2"]).await;
    assert!(record.faults.is_empty(), "{:?}", record.faults);
    assert_eq!(record.result.reason.name(), "resign");
    assert!(stderr.contains("over the 1024-byte limit"), "{stderr}");
}

/// `anqi bridge --check` with `engine` after `--`: its status, stdout and stderr, and how long
/// it took. The engine has 3 s for its handshake (10 by default: an engine that never connects
/// would keep the test waiting that long).
async fn check(engine: &[&str]) -> (Option<i32>, String, String, Duration) {
    let started = Instant::now();
    let out = Command::new(ANQI)
        .args(["bridge", "--protocol", "cdc-platform", "--check"])
        .args(["--handshake-timeout", "3", "--"])
        .args(engine)
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(Duration::from_secs(30), out)
        .await
        .expect("--check answers within 30 s")
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        started.elapsed(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_answers_0_for_an_engine_that_connects_and_3_otherwise() {
    let (good, missing, quick, silent) = tokio::join!(
        check(&["python3", ENGINE]),
        check(&["/nonexistent/cdc-engine"]),
        check(&["python3", ENGINE, "--exit-at-once"]),
        check(&["python3", ENGINE, "--no-connect"]),
    );
    assert_eq!(good.0, Some(0), "{good:?}");
    assert!(
        good.1.contains("cdc-platform: the engine answered"),
        "{good:?}"
    );
    assert_eq!(missing.0, Some(3), "{missing:?}");
    assert!(missing.2.contains("cannot start"), "{missing:?}");
    assert_eq!(quick.0, Some(3), "{quick:?}");
    assert!(quick.2.contains("exited before connecting"), "{quick:?}");
    assert!(quick.3 < Duration::from_secs(5), "{quick:?}");
    assert_eq!(silent.0, Some(3), "{silent:?}");
    assert!(silent.2.contains("did not connect"), "{silent:?}");
    assert!(silent.2.contains("within 3 s"), "{silent:?}");
}
