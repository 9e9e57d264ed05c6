//! What a hostile client can try, over real TCP (or against the real binary), each while a
//! normal game on the same server plays to its end: nothing crashes the server, stalls another
//! game, pins unbounded memory, forges a log line or loses a finished game's record. One test
//! per item of "Limits and guarantees" in protocol/PROTOCOL.md.

use crate::common;

use anqi_client::{join, play_seated, Bot, Connection, GameResult, RandomBot, View};
use anqi_core::record::{GameRecord, MAX_FAULTS};
use anqi_core::rules::Termination;
use common::{RawClient, TempDir, TestServer};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::time::Duration;
use tokio::task::JoinHandle;

const START: &str = "XXXXXXXX";
const ANQI: &str = env!("CARGO_BIN_EXE_anqi");

/// A random bot that thinks for a few milliseconds per ply, so its game overlaps the attack.
struct SlowBot(RandomBot);

impl Bot for SlowBot {
    fn choose(&mut self, view: &View<'_>) -> anqi_core::rules::Action {
        std::thread::sleep(Duration::from_millis(2));
        self.0.choose(view)
    }
}

/// Seats two bots together (before anyone else connects) and plays their game in the
/// background.
async fn normal_game(addr: &str) -> JoinHandle<(GameResult, GameResult)> {
    let mut c1 = Connection::connect(addr).await.unwrap();
    let mut c2 = Connection::connect(addr).await.unwrap();
    let (s1, s2) = tokio::try_join!(
        join(&mut c1, "steady_1", "1"),
        join(&mut c2, "steady_2", "2")
    )
    .expect("both seated");
    tokio::spawn(async move {
        let (mut bot1, mut bot2) = (SlowBot(RandomBot::new(1)), SlowBot(RandomBot::new(2)));
        let (r1, r2) = tokio::join!(
            play_seated(&mut c1, s1, &mut bot1, None),
            play_seated(&mut c2, s2, &mut bot2, None)
        );
        (r1.unwrap(), r2.unwrap())
    })
}

/// The normal game ended by the rules, both bots agree, and its record verifies.
async fn normal_game_ended_well(
    game: JoinHandle<(GameResult, GameResult)>,
    server: &mut TestServer,
) {
    let (r1, r2) = tokio::time::timeout(Duration::from_secs(60), game)
        .await
        .expect("the normal game ends")
        .unwrap();
    assert_eq!(r1.win, r2.win);
    assert!(r1.errors.is_empty() && r2.errors.is_empty());
    let record = server
        .record_where(|r| r.players[0].name == "steady_1")
        .await;
    assert!(!record.result.reason.is_fault(), "{:?}", record.result);
    anqi_core::replay::verify(&record).unwrap();
}

/// Two raw clients seated together, read up to the first prompt.
async fn pair(addr: &str, first: &str, second: &str) -> (RawClient, RawClient) {
    let mut a = RawClient::join(addr, first, "1").await;
    let mut b = RawClient::join(addr, second, "2").await;
    assert!(a.line().await.starts_with("((id 1)(players 2)"));
    assert!(b.line().await.starts_with("((id 2)(players 2)"));
    assert_eq!(a.line().await, format!("((board {START})(turn 0 1))"));
    assert_eq!(b.line().await, format!("((board {START})(info 0 1))"));
    (a, b)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quote_run_is_refused_in_the_handshake_and_in_a_game() {
    let mut server = TestServer::start("traditional-2x4", "").await;
    let addr = server.addr();
    let normal = normal_game(&addr).await;
    let quotes = "'".repeat(10_000);

    // In the handshake: refused, and the handshake goes on.
    let mut c = RawClient::connect(&addr).await;
    assert_eq!(c.line().await, "((version 1.0))");
    c.send(&format!("((init a {quotes}1))\n")).await;
    let e = c.line().await;
    assert!(
        e.starts_with("((error syntax") && e.contains("quote"),
        "{e}"
    );
    assert!(
        e.len() < 300,
        "the reply quotes no more than an excerpt: {e}"
    );
    // The same behind a character literal, which a scanner that knows only strings would take
    // for the start of one.
    c.send(&format!("((init #\\\" {quotes}x \"))\n")).await;
    let e = c.line().await;
    assert!(e.starts_with("((error syntax"), "{e}");
    drop(c);

    // In a game, as the mover's action: refused, the same prompt again, the game goes on.
    let (mut a, mut b) = pair(&addr, "quoter", "other").await;
    a.send(&format!("((board {START})(rev {quotes}0))\n")).await;
    assert!(a.line().await.starts_with("((error syntax"));
    assert_eq!(a.line().await, format!("((board {START})(turn 0 1))"));
    a.send(&format!("((board {START})(rev 0))\n")).await;
    assert!(a.line().await.ends_with("(info 0 2))"));
    b.send("((resign))\n").await;
    assert_eq!(a.until("(win").await, "((win 1 0))");
    let r = server.record_where(|r| r.players[0].name == "quoter").await;
    assert_eq!(r.result.reason, Termination::Resign);
    normal_game_ended_well(normal, &mut server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replies_depend_on_the_bytes_alone_not_on_packets() {
    // The same deal for both games: a fixed server seed and the same client seeds.
    let mut server = TestServer::start("traditional-2x4", "[seed]\nserver = \"split\"\n").await;
    let addr = server.addr();
    let normal = normal_game(&addr).await;
    let bytes = format!("ab;((board {START})(rev 0))\n");
    let mut heard = Vec::new();
    for split in [None, Some(2)] {
        let (mut a, mut b) = pair(&addr, "splitter", "other").await;
        match split {
            None => a.send(&bytes).await,
            Some(at) => {
                // Two packets: the second is sent once the server has read the first.
                a.send(&bytes[..at]).await;
                tokio::time::sleep(Duration::from_millis(100)).await;
                a.send(&bytes[at..]).await;
            }
        }
        // A garbage error, the prompt again, then the reveal is played.
        let lines = vec![a.line().await, a.line().await, a.line().await];
        b.send("((resign))\n").await;
        a.until("(win").await;
        server
            .record_where(|r| r.players[0].name == "splitter")
            .await;
        heard.push(lines);
    }
    assert!(heard[0][0].contains(r#"found \"ab;\""#), "{:?}", heard[0]);
    assert!(heard[0][2].ends_with("(info 0 2))"), "{:?}", heard[0]);
    assert_eq!(
        heard[0], heard[1],
        "the same bytes, split otherwise, got other replies"
    );
    normal_game_ended_well(normal, &mut server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_and_slow_handshakes_delay_nobody() {
    let mut server = TestServer::start(
        "traditional-2x4",
        "[server]\nhandshake_timeout_ms = 20000\n",
    )
    .await;
    let addr = server.addr();
    // Connections that say nothing, or send their init a byte at a time, come first...
    let mut idle = Vec::new();
    for _ in 0..5 {
        let mut c = RawClient::connect(&addr).await;
        assert_eq!(c.line().await, "((version 1.0))");
        idle.push(c);
    }
    let mut slow = RawClient::connect(&addr).await;
    assert_eq!(slow.line().await, "((version 1.0))");
    slow.send("((init sl").await;
    // ...and a normal game still starts at once, well before their handshake timeout.
    let normal = tokio::time::timeout(Duration::from_secs(5), normal_game(&addr))
        .await
        .expect("seated without waiting for the idle connections");
    // So does a game of two raw clients, seated in their connection order.
    let (a, mut b) = tokio::time::timeout(Duration::from_secs(5), pair(&addr, "first", "second"))
        .await
        .expect("seated without waiting for the idle connections");
    drop(a);
    assert_eq!(b.until("(win").await, "((win 2 0))");
    normal_game_ended_well(normal, &mut server).await;
    // The slow one completes its init and waits for an opponent like anyone else.
    slow.send("ow 1))").await;
    let mut late = RawClient::join(&addr, "late", "2").await;
    assert!(slow.line().await.starts_with("((id 1)"));
    assert!(late.line().await.starts_with("((id 2)"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_cannot_take_every_connection() {
    let mut server = TestServer::start(
        "traditional-2x4",
        "[server]\nmax_connections_per_address = 2\n",
    )
    .await;
    let addr = server.addr();
    let normal = normal_game(&addr).await;
    let mut held = Vec::new();
    for _ in 0..2 {
        let mut c = RawClient::connect_from(&addr, "127.0.0.2").await;
        assert_eq!(c.line().await, "((version 1.0))");
        held.push(c);
    }
    let mut third = RawClient::connect_from(&addr, "127.0.0.2").await;
    let e = third.line().await;
    assert!(
        e.starts_with("((error busy \"2 connections are open from your address"),
        "{e}"
    );
    third.expect_closed().await;
    // Another address is served, and a closed connection frees its place.
    let mut other = RawClient::connect_from(&addr, "127.0.0.3").await;
    assert_eq!(other.line().await, "((version 1.0))");
    drop(held.pop());
    let mut again = loop {
        let mut c = RawClient::connect_from(&addr, "127.0.0.2").await;
        let l = c.line().await;
        if l == "((version 1.0))" {
            break c;
        }
        // The server may not have seen the close yet.
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    again.send("((init x 1))\n").await;
    normal_game_ended_well(normal, &mut server).await;
}

#[test]
fn a_low_descriptor_limit_answers_busy_instead_of_hanging() {
    let dir = TempDir::new("fd-limit");
    let config = dir.0.join("config.toml");
    std::fs::write(
        &config,
        // Idle connections are not timed out during the test: a client left in the backlog
        // would otherwise get in once an earlier one is closed, and only look slow.
        "[server]\nmax_connections_per_address = 0\nhandshake_timeout_ms = 60000\n[records]\npath = \"\"\n",
    )
    .unwrap();
    // A common `ulimit -n` far below the configured 4096 connections.
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(format!(
            "ulimit -n 200 && exec {ANQI} serve --listen 127.0.0.1:0 --config {}",
            config.display()
        ))
        .stderr(Stdio::null());
    let (mut child, addr) = common::spawn_server(command);
    let mut open = Vec::new();
    for i in 0..250 {
        let mut s = std::net::TcpStream::connect(&addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut first = String::new();
        BufReader::new(&mut s)
            .read_line(&mut first)
            .unwrap_or_else(|e| panic!("connection {i} got no answer: {e}"));
        // Past the cap the oldest idle connection makes room: every newcomer is served.
        assert!(
            first.starts_with("((version 1.0))"),
            "connection {i}: {first}"
        );
        open.push(s);
    }
    // The cap is what the descriptors allow (far below 250): the oldest were told busy. Every
    // eviction was decided before the last newcomer was served, so the busy lines are on
    // their way: one shared second for all of them, not a wait per connection that stays
    // open (those are most of the 250, and 200 ms each made this test take 25 s).
    let deadline = std::time::Instant::now() + Duration::from_secs(1);
    let mut evicted = 0;
    for s in &mut open {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        s.set_read_timeout(Some(left.max(Duration::from_millis(1))))
            .unwrap();
        let mut next = String::new();
        if BufReader::new(s).read_line(&mut next).is_ok() && next.starts_with("((error busy") {
            evicted += 1;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        (50..250).contains(&evicted),
        "{evicted} of 250 idle connections made room"
    );
}

/// A crowd of idle connections (no `init`) filling the server cannot keep players out: the
/// oldest of them make room (issue 18: 157 addresses filled the cap, and a fresh client got
/// `busy`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crowd_of_idle_connections_does_not_keep_players_out() {
    let mut server = TestServer::start(
        "traditional-2x4",
        "[server]\nmax_connections = 20\nmax_connections_per_address = 0\nhandshake_timeout_ms = 60000\n",
    )
    .await;
    let addr = server.addr();
    let mut crowd = Vec::new();
    for i in 0..20 {
        let mut c = RawClient::connect_from(&addr, &format!("127.0.1.{}", i + 1)).await;
        assert_eq!(c.line().await, "((version 1.0))");
        crowd.push(c);
    }
    // Full: two players come, join and play a whole game.
    let normal = normal_game(&addr).await;
    normal_game_ended_well(normal, &mut server).await;
    // The two oldest of the crowd made room, told why; the others still wait.
    for (i, c) in crowd.iter_mut().enumerate().take(2) {
        let e = c.line().await;
        assert!(
            e.starts_with(
                "((error busy \"the server is full, and the connection that has waited longest"
            ),
            "crowd {i}: {e}"
        );
        c.expect_closed().await;
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_record_is_written_before_anyone_hears_the_result() {
    use std::os::unix::fs::OpenOptionsExt;
    // The records file is a FIFO whose buffer the test fills: the server's write blocks until
    // the test reads, so the test sees exactly what the server does while its record is not
    // yet written.
    let dir = TempDir::new("fifo");
    let fifo = dir.0.join("records");
    let path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo only creates a file at the given path.
    assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o600) }, 0);
    // Read-write, non-blocking: opening does not wait for a writer, and filling stops when full.
    let mut end = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo)
        .unwrap();
    let mut server = TestServer::start_with_records(
        "traditional-2x4",
        "[records]\nfsync = false\n",
        Some(fifo.clone()),
    )
    .await;
    let addr = server.addr();
    let normal = normal_game(&addr).await;
    normal_game_ended_well(normal, &mut server).await;
    let junk = vec![b'#'; 4096];
    let mut filled = 0usize;
    while let Ok(n) = end.write(&junk) {
        filled += n;
    }
    assert!(filled > 0);

    let (mut a, mut b) = pair(&addr, "first", "second").await;
    b.send("((resign))\n").await;
    // The record cannot be written: no (win ...) yet.
    let early = tokio::time::timeout(Duration::from_millis(500), a.line()).await;
    assert!(
        early.is_err(),
        "(win ...) came before the record was written: {early:?}"
    );
    // Drain the pipe: the record comes out, then the result.
    let mut seen = Vec::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let mut buf = vec![0u8; 65536];
    while !String::from_utf8_lossy(&seen).contains("\"name\":\"first\"") {
        assert!(
            std::time::Instant::now() < deadline,
            "the record never came"
        );
        match end.read(&mut buf) {
            Ok(n) => seen.extend_from_slice(&buf[..n]),
            Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
        }
    }
    assert_eq!(a.line().await, "((win 1 0))");
    assert_eq!(b.line().await, "((win 1 0))");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn error_replies_and_fault_records_stay_bounded() {
    let mut server = TestServer::start(
        "traditional-2x4",
        "[referee]\nmax_errors = 0\n[server]\nwrite_queue_bytes = 65536\n",
    )
    .await;
    let addr = server.addr();
    let normal = normal_game(&addr).await;
    let long = "z".repeat(10_000);

    // A client that reads its replies: every error is answered with an excerpt, the record
    // keeps the first MAX_FAULTS and counts the rest.
    let (mut a, mut b) = pair(&addr, "noisy", "other").await;
    for _ in 0..300 {
        a.send(&format!("(({long} 1))\n")).await;
        let e = a.line().await;
        assert!(
            e.starts_with("((error unknown") && e.len() < 300,
            "{}",
            &e[..e.len().min(300)]
        );
        assert_eq!(a.line().await, format!("((board {START})(turn 0 1))"));
    }
    b.send("((resign))\n").await;
    a.until("(win").await;
    let r = server.record_where(|r| r.players[0].name == "noisy").await;
    assert_eq!(r.faults.len(), MAX_FAULTS);
    assert_eq!(r.faults_dropped, 300 - MAX_FAULTS as u64);
    let line = serde_json::to_string(&r).unwrap();
    assert!(line.len() < 64 * 1024, "a {}-byte record", line.len());

    // A client that never reads: each short bad message earns a longer reply, which fills the
    // kernel's socket buffers, then its write queue, and then it counts as gone.
    let (a, mut b) = pair(&addr, "deaf", "other").await;
    let RawClient { reader, mut writer } = a;
    let flood = tokio::spawn(async move {
        use tokio::io::AsyncWriteExt;
        let burst = "((x))".repeat(10_000);
        for _ in 0..100 {
            if writer.write_all(burst.as_bytes()).await.is_err() {
                break;
            }
        }
        writer
    });
    assert_eq!(b.until("(win").await, "((win 2 0))");
    let r: GameRecord = server.record_where(|r| r.players[0].name == "deaf").await;
    assert_eq!(
        (r.result.reason, r.result.loser),
        (Termination::Disconnect, Some(1))
    );
    assert!(r.faults.len() <= MAX_FAULTS);
    drop(reader);
    flood.abort();
    normal_game_ended_well(normal, &mut server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seeds_and_names_reach_the_record_as_sent() {
    let mut server = TestServer::start("traditional-2x4", "").await;
    let addr = server.addr();
    let mut c1 = Connection::connect(&addr).await.unwrap();
    let mut c2 = Connection::connect(&addr).await.unwrap();
    let (s1, s2) = tokio::try_join!(
        join(&mut c1, "agent 007", "007"),
        join(&mut c2, "", "-1.50")
    )
    .unwrap();
    let (mut bot1, mut bot2) = (RandomBot::new(1), RandomBot::new(2));
    let (r1, r2) = tokio::join!(
        play_seated(&mut c1, s1, &mut bot1, None),
        play_seated(&mut c2, s2, &mut bot2, None)
    );
    assert_eq!(r1.unwrap().win, r2.unwrap().win);
    let r = server.next_record().await;
    let sent: Vec<(&str, &str)> = r
        .players
        .iter()
        .map(|p| (p.name.as_str(), p.seed.as_str()))
        .collect();
    assert_eq!(sent, [("agent 007", "007"), ("", "-1.50")]);
}

/// Client text in the server's log cannot forge a log line: a NAME holding a newline is refused
/// at the handshake (the name check), and the refused name, which the log does keep, is
/// written escaped on its one line (the log check: it fails if client text is ever logged raw).
#[test]
fn a_newline_in_a_name_cannot_forge_a_log_line() {
    let mut command = Command::new(ANQI);
    command
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--records",
            "",
            "--variant",
            "traditional-2x4",
        ])
        .env("RUST_LOG", "debug")
        .stderr(Stdio::piped());
    let (mut child, addr) = common::spawn_server(command);
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let mut a = RawClient::connect(&addr).await;
        a.line().await;
        a.send("((init \"evil\\nFORGED game over\" 1))\n").await;
        // Refused at the handshake (a NAME holds no line break); a good name plays.
        let e = a.line().await;
        assert!(
            e.starts_with("((error syntax \"a NAME may not hold U+000A (a line break)"),
            "{e}"
        );
        a.send("((init evil 1))\n").await;
        let mut b = RawClient::join(&addr, "other", "2").await;
        a.until("(turn").await;
        b.send("((resign))\n").await;
        a.until("(win").await;
    });
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let mut log = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut log)
        .unwrap();
    let _ = child.wait();
    assert!(log.contains("\"evil\""), "the player is logged:\n{log}");
    // The refused name reaches the log as client text, escaped on one line.
    assert!(
        log.lines()
            .any(|l| l.contains("refused a NAME") && l.contains(r#""evil\nFORGED game over""#)),
        "the refused name is logged, escaped:\n{log}"
    );
    assert!(
        !log.lines().any(|l| l.starts_with("FORGED")),
        "a client forged a log line:\n{log}"
    );
}
