//! `anqi bridge --protocol tcg`: engines of the NTU course protocol play on a real server
//! through real bridge processes, against each other and against the reference bots. The
//! engine is `tests/engines/tcg_engine.py`, which keeps its own board from the protocol's
//! messages and says `tcg_engine: inconsistent ...` on stderr when they make no sense.

use crate::common;

use anqi_client::bots::GreedyBot;
use anqi_client::{play_game, RandomBot};
use anqi_core::record::GameRecord;
use common::{TempDir, TestServer};
use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};
use tokio::process::Child;

const ANQI: &str = env!("CARGO_BIN_EXE_anqi");

fn engine_script() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/engines/tcg_engine.py")
        .to_string_lossy()
        .into_owned()
}

/// Starts `anqi bridge --protocol tcg` for the test engine with `engine_args`, as `name`.
fn bridge(addr: &str, name: &str, engine_args: &[&str]) -> Child {
    common::bridge_command("tcg", "tcg_engine.py", addr, name, &[], engine_args)
        .spawn()
        .expect("start anqi bridge")
}

/// Waits for a bridge to exit (at most `limit`).
async fn finished(child: Child, limit: Duration) -> Output {
    tokio::time::timeout(limit, child.wait_with_output())
        .await
        .expect("the bridge exits in time")
        .expect("bridge output")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The bridge played its game to the end, and the engine never saw anything inconsistent.
fn assert_clean(out: &Output) {
    let err = stderr(out);
    assert!(
        out.status.success(),
        "bridge failed: {:?}\n{err}",
        out.status
    );
    assert!(!err.contains("inconsistent"), "{err}");
    assert!(err.contains("anqi bridge: game over after"), "{err}");
}

/// The engine's board at the end (`tcg_engine: board ...`) is the server's: the map is the
/// protocol's, not merely one that keeps the rules (a mirror image would).
fn assert_same_board(out: &Output, record: &GameRecord) {
    let err = stderr(out);
    assert!(
        err.contains(&format!("tcg_engine: board {} ", record.final_board)),
        "the server's final board is {}\n{err}",
        record.final_board
    );
}

fn player_named(record: &GameRecord, name: &str) -> usize {
    record
        .players
        .iter()
        .find(|p| p.name == name)
        .unwrap_or_else(|| panic!("no player {name} in {:?}", record.players))
        .id
}

const CLOCK: &str = "[clock]\ngame_ms = 60000\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_bridged_engines_play_each_other_and_every_record_verifies() {
    let mut server = TestServer::start("traditional", CLOCK).await;
    let addr = server.addr();
    for game in 0..2 {
        let (a, b) = (format!("{}", 10 + game), format!("{}", 20 + game));
        let first = bridge(&addr, "first", &["--seed", &a]);
        let second = bridge(&addr, "second", &["--seed", &b]);
        let (first, second) = tokio::join!(
            finished(first, Duration::from_secs(60)),
            finished(second, Duration::from_secs(60))
        );
        assert_clean(&first);
        assert_clean(&second);
        let record = server.next_record().await;
        assert_same_board(&first, &record);
        assert_same_board(&second, &record);
        assert!(record.faults.is_empty(), "{:?}", record.faults);
        assert!(record.plies.len() > 10, "{:?}", record.result);
    }
    server.stop_and_replay(2).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bridged_engine_plays_the_reference_bots_in_both_seats() {
    let mut server = TestServer::start("ntu", CLOCK).await;
    let addr = server.addr();
    for game in 0..2u64 {
        // The first to connect is player 1: the bridge in game 0, the bot in game 1.
        let bot = |addr: String| {
            tokio::spawn(async move {
                play_game(
                    &addr,
                    "greedy",
                    &game.to_string(),
                    &mut GreedyBot::new(game),
                    None,
                )
                .await
                .expect("the bot's game ends")
            })
        };
        let (engine, bot) = if game == 0 {
            let engine = bridge(&addr, "tcg", &["--seed", &game.to_string()]);
            tokio::time::sleep(Duration::from_secs(2)).await;
            (engine, bot(addr.clone()))
        } else {
            let bot = bot(addr.clone());
            tokio::time::sleep(Duration::from_millis(300)).await;
            (bridge(&addr, "tcg", &["--seed", &game.to_string()]), bot)
        };
        let out = finished(engine, Duration::from_secs(30)).await;
        assert_clean(&out);
        let result = bot.await.unwrap();
        assert!(result.errors.is_empty(), "{:?}", result.errors);
        let record = server.next_record().await;
        assert_same_board(&out, &record);
        assert!(record.faults.is_empty(), "{:?}", record.faults);
        assert_eq!(player_named(&record, "tcg"), game as usize + 1);
    }
    server.stop_and_replay(2).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn debug_lines_on_the_engines_stdout_are_skipped() {
    let mut server = TestServer::start("traditional", CLOCK).await;
    let addr = server.addr();
    let engine = bridge(&addr, "noisy", &["--noise", "--seed", "5"]);
    let result = play_game(&addr, "random", "5", &mut RandomBot::new(5), None)
        .await
        .unwrap();
    assert!(result.errors.is_empty(), "{:?}", result.errors);
    let out = finished(engine, Duration::from_secs(30)).await;
    assert_clean(&out);
    // The noise was seen, and logged as the engine's.
    let err = stderr(&out);
    assert!(err.contains("engine: My result:"), "{err}");
    assert!(err.contains("engine: =999 a1 a1"), "{err}");
    let record = server.next_record().await;
    assert!(record.faults.is_empty(), "{:?}", record.faults);
    server.stop_and_replay(1).await;
}

/// An engine printing debug output by the megabyte leaves a bounded trace on the bridge's
/// stderr: the first lines (cut), then a count (issue 18: 184 MB of stderr in one game).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_debug_lines_is_shown_in_part_and_counted() {
    let server = TestServer::start("traditional", CLOCK).await;
    let addr = server.addr();
    let engine = bridge(&addr, "flood", &["--flood", "500", "--seed", "6"]);
    // Read the bridge's output as it comes: a full pipe would stop the bridge.
    let output = tokio::spawn(finished(engine, Duration::from_secs(120)));
    let result = play_game(&addr, "random", "6", &mut RandomBot::new(6), None)
        .await
        .unwrap();
    assert!(result.errors.is_empty(), "{:?}", result.errors);
    let out = output.await.unwrap();
    assert_clean(&out);
    let err = stderr(&out);
    let shown = err
        .lines()
        .filter(|l| l.starts_with("engine: flood"))
        .count();
    assert_eq!(shown, 100, "the first lines only");
    assert!(err
        .lines()
        .filter(|l| l.starts_with("engine: flood"))
        .all(|l| l.len() < 1100 && l.ends_with(" [...]")));
    assert!(
        err.contains("further ones are counted, not shown"),
        "{err:.2000}"
    );
    assert!(
        err.contains("more lines the engine printed were not shown"),
        "{err:.2000}"
    );
    assert!(err.len() < 200_000, "{} bytes of stderr", err.len());
    server.stop_and_replay(1).await;
}

/// Whether a process whose command line holds `marker` is still running.
fn running_with(marker: &str) -> bool {
    std::fs::read_dir("/proc").unwrap().flatten().any(|entry| {
        std::fs::read(entry.path().join("cmdline"))
            .map(|c| {
                let c = String::from_utf8_lossy(&c).replace('\0', " ");
                c.contains("tcg_engine.py") && c.contains(marker)
            })
            .unwrap_or(false)
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_engine_that_never_exits_is_killed_and_the_bridge_exits() {
    let mut server = TestServer::start("traditional", CLOCK).await;
    let addr = server.addr();
    // A seed no other test uses marks this engine's process.
    let seed = format!("{}", 900_000 + std::process::id() % 1000);
    let engine = bridge(&addr, "stubborn", &["--never-exit", "--seed", &seed]);
    play_game(&addr, "random", "6", &mut RandomBot::new(6), None)
        .await
        .unwrap();
    let over = Instant::now();
    let out = finished(engine, Duration::from_secs(10)).await;
    assert_clean(&out);
    assert!(
        over.elapsed() < Duration::from_secs(6),
        "the bridge took {:?} after the game",
        over.elapsed()
    );
    assert!(
        !running_with(&format!("--seed {seed}")),
        "the engine outlived its bridge"
    );
    server.next_record().await;
    server.stop_and_replay(1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_engine_still_thinking_when_its_clock_runs_out_is_stopped() {
    let mut server = TestServer::start("traditional", "[clock]\ngame_ms = 1500\n").await;
    let addr = server.addr();
    let seed = format!("{}", 800_000 + std::process::id() % 1000);
    let engine = bridge(&addr, "stall", &["--stall", "3", "--seed", &seed]);
    play_game(&addr, "random", "7", &mut RandomBot::new(7), None)
        .await
        .unwrap();
    let over = Instant::now();
    let out = finished(engine, Duration::from_secs(10)).await;
    assert_clean(&out);
    assert!(
        over.elapsed() < Duration::from_secs(5),
        "{:?}",
        over.elapsed()
    );
    assert!(!running_with(&format!("--seed {seed}")));
    let record = server.next_record().await;
    assert_eq!(record.result.reason.name(), "time");
    assert_eq!(record.result.loser, Some(player_named(&record, "stall")));
    server.stop_and_replay(1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_illegal_answer_is_forwarded_and_the_referee_rules() {
    // The default ruling: an error, a re-prompt, and the game goes on.
    let mut server = TestServer::start("traditional", CLOCK).await;
    let addr = server.addr();
    let engine = bridge(&addr, "cheat", &["--illegal", "3", "--seed", "8"]);
    play_game(&addr, "random", "8", &mut RandomBot::new(8), None)
        .await
        .unwrap();
    let out = finished(engine, Duration::from_secs(30)).await;
    assert_clean(&out);
    assert!(stderr(&out).contains("refused the engine's answer: illegal"));
    let record = server.next_record().await;
    let cheat = player_named(&record, "cheat");
    assert!(
        record
            .faults
            .iter()
            .any(|f| f.code == "illegal" && f.player == cheat),
        "{:?}",
        record.faults
    );
    server.stop_and_replay(1).await;

    // A strict event: the illegal answer loses.
    let strict = format!("{CLOCK}[referee]\nillegal_action = \"lose\"\n");
    let mut server = TestServer::start("traditional", &strict).await;
    let addr = server.addr();
    let engine = bridge(&addr, "cheat", &["--illegal", "2", "--seed", "9"]);
    play_game(&addr, "random", "9", &mut RandomBot::new(9), None)
        .await
        .unwrap();
    assert_clean(&finished(engine, Duration::from_secs(30)).await);
    let record = server.next_record().await;
    assert_eq!(record.result.reason.name(), "illegal");
    assert_eq!(record.result.loser, Some(player_named(&record, "cheat")));
    server.stop_and_replay(1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_engine_that_dies_mid_game_leaves_it_as_in_every_protocol() {
    let mut server = TestServer::start("traditional", CLOCK).await;
    let addr = server.addr();
    let engine = bridge(&addr, "fragile", &["--crash", "4", "--seed", "10"]);
    play_game(&addr, "random", "10", &mut RandomBot::new(10), None)
        .await
        .unwrap();
    let out = finished(engine, Duration::from_secs(30)).await;
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("left the game"), "{err}");
    let record = server.next_record().await;
    // Its connection closed, as the engine's own would have: a disconnect here, a crash in a
    // tournament (tests/integration/bridge_tournament.rs).
    assert_eq!(record.result.reason.name(), "disconnect");
    assert_eq!(record.result.loser, Some(player_named(&record, "fragile")));
    server.stop_and_replay(1).await;
}

#[test]
fn check_answers_0_for_a_good_engine_and_3_for_one_that_cannot_start() {
    let check = |engine: &[&str]| {
        std::process::Command::new(ANQI)
            .args(["bridge", "--protocol", "tcg", "--check", "--"])
            .args(engine)
            .output()
            .unwrap()
    };
    let script = engine_script();
    let good = check(&["python3", &script]);
    assert_eq!(good.status.code(), Some(0), "{}", stderr_of(&good));
    let said = String::from_utf8_lossy(&good.stdout);
    assert!(said.contains("\"TcgTest\""), "{said}");

    let dir = TempDir::new("tcg-check");
    let missing = dir.0.join("no-such-engine");
    let out = check(&[missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr_of(&out));
    // A program that exits at once, before answering anything.
    let out = check(&["true"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains("did not start"));
}

#[test]
fn check_rehearses_a_games_start_and_optional_commands_can_be_left_out() {
    let script = engine_script();
    let check = |extra: &[&str], engine_args: &[&str]| {
        std::process::Command::new(ANQI)
            .args([
                "bridge",
                "--protocol",
                "tcg",
                "--check",
                "--variant",
                "traditional",
            ])
            .args(extra)
            .args(["--", "python3", &script])
            .args(engine_args)
            .output()
            .unwrap()
    };
    // An engine that says it knows num_repetition and dies on it (as ProtoAI does): the
    // handshake alone passed it; the rehearsal of a game's start does not.
    let out = check(&[], &["--crash-on", "num_repetition"]);
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("start of a game") && err.contains("--no-optional-commands"),
        "{err}"
    );
    // Told to leave the optional commands out, it passes, and so does its first genmove.
    let out = check(
        &["--no-optional-commands"],
        &["--crash-on", "num_repetition"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("start of a game of traditional"));
    // One that dies on a command every game needs fails whatever is left out.
    let out = check(&["--no-optional-commands"], &["--crash-on", "ready"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr_of(&out));
    let out = check(&[], &["--crash", "1"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr_of(&out));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_without_the_optional_commands_is_played_whole() {
    let server = TestServer::start("traditional", "").await;
    let script = engine_script();
    let bridged = |name: &str| {
        std::process::Command::new(ANQI)
            .args([
                "bridge",
                "--protocol",
                "tcg",
                "--no-optional-commands",
                "--name",
                name,
            ])
            .args(["--connect", &server.addr(), "--", "python3", &script])
            .args(["--crash-on", "num_repetition", "--seed", "4"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (bridged("proto1"), bridged("proto2"));
    for child in [a, b] {
        let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
            .await
            .unwrap();
        assert!(out.status.success(), "{}", stderr_of(&out));
    }
    server.stop_and_replay(1).await;
}

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn the_map_is_printed() {
    let out = std::process::Command::new(ANQI)
        .args(["bridge", "--print-map", "tcg"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(text.contains(" 0=a8 ") && text.contains("7=a1") && text.contains("31=d1"));
}
