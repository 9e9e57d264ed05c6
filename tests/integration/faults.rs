//! Every kind of bad input gets the documented answer, and none of it disturbs another game on
//! the same server. See "Errors and rulings" in protocol/PROTOCOL.md.

use crate::common;

use anqi_client::{join, play_seated, Bot, Connection, RandomBot, View};
use anqi_core::record::GameRecord;
use anqi_core::rules::Termination;
use common::{RawClient, TestServer};

const START: &str = "XXXXXXXX";

/// A random bot that thinks for a few milliseconds per ply, so its game overlaps the others.
struct SlowBot(RandomBot);

impl Bot for SlowBot {
    fn choose(&mut self, view: &View<'_>) -> anqi_core::rules::Action {
        std::thread::sleep(std::time::Duration::from_millis(3));
        self.0.choose(view)
    }
}

/// Connects two raw clients that will share one game, and reads up to the first prompt.
async fn pair(addr: &str) -> (RawClient, RawClient) {
    let mut a = RawClient::join(addr, "first", "1").await;
    let mut b = RawClient::join(addr, "second", "2").await;
    assert!(a.line().await.starts_with("((id 1)(players 2)"));
    assert!(b.line().await.starts_with("((id 2)(players 2)"));
    assert_eq!(a.line().await, format!("((board {START})(turn 0 1))"));
    assert_eq!(b.line().await, format!("((board {START})(info 0 1))"));
    (a, b)
}

/// Player 2 resigns; both get ((win 1 0)) and the connections close.
async fn finish_by_resign(mut a: RawClient, mut b: RawClient) {
    b.send("((resign))\n").await;
    assert_eq!(a.until("(win").await, "((win 1 0))");
    assert_eq!(b.until("(win").await, "((win 1 0))");
    a.expect_closed().await;
    b.expect_closed().await;
}

/// Sends `bad` as player 1, expects the given error, then the same prompt again.
async fn error_then_reprompt(a: &mut RawClient, bad: &str, code: &str) -> String {
    a.send(bad).await;
    let err = a.line().await;
    assert!(
        err.starts_with(&format!("((error {code} \"")),
        "after {bad:?}: {err}"
    );
    assert_eq!(
        a.line().await,
        format!("((board {START})(turn 0 1))"),
        "re-prompt after {bad:?}"
    );
    err
}

/// The next record of a game between the raw clients of [`pair`].
async fn paired_record(server: &mut TestServer) -> GameRecord {
    server.record_where(|r| r.players[0].name == "first").await
}

fn faults_of(record: &GameRecord) -> Vec<&str> {
    record.faults.iter().map(|f| f.code.as_str()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn bad_input_is_answered_while_another_game_plays_on() {
    let mut server = TestServer::start(
        "traditional-2x4",
        "[clock]\ngame_ms = 0\nmove_ms = 1500\n[server]\nmax_frame_bytes = 1024\n",
    )
    .await;
    let addr = server.addr();

    // The undisturbed game: two bots, seated together before anyone else connects (a game's
    // seats go to clients waiting together, in the order their connections were accepted).
    let normal = {
        let mut c1 = Connection::connect(&addr).await.unwrap();
        let mut c2 = Connection::connect(&addr).await.unwrap();
        let (s1, s2) = tokio::try_join!(
            join(&mut c1, "steady_1", "11"),
            join(&mut c2, "steady_2", "12")
        )
        .expect("both seated");
        let g1 = tokio::spawn(async move {
            play_seated(&mut c1, s1, &mut SlowBot(RandomBot::new(11)), None).await
        });
        let g2 = tokio::spawn(async move {
            play_seated(&mut c2, s2, &mut SlowBot(RandomBot::new(12)), None).await
        });
        (g1, g2)
    };

    // Garbage, a stray parenthesis, an unbalanced message completed into nonsense, an unknown
    // clause, an oversized and a too-deep message: each answered, then the same prompt again.
    let (mut a, b) = pair(&addr).await;
    let e = error_then_reprompt(&mut a, "hello\n", "syntax").await;
    assert!(e.contains("hello"), "{e}");
    error_then_reprompt(&mut a, ")\n", "syntax").await;
    a.send("((rev 0)").await; // unbalanced: the server waits for the rest...
    error_then_reprompt(&mut a, "((rev 1)))\n", "syntax").await; // ...which makes no sense
    error_then_reprompt(&mut a, "((dance 3))\n", "unknown").await;
    let big = format!("((board {})(rev 0))\n", "X".repeat(5000));
    error_then_reprompt(&mut a, &big, "too-large").await;
    let deep = format!("{}rev 0{}\n", "(".repeat(100), ")".repeat(100));
    error_then_reprompt(&mut a, &deep, "too-deep").await;
    // Illegal action (moving before owning a colour) and a stale board.
    let e = error_then_reprompt(&mut a, &format!("((board {START})(mov 0 1))\n"), "illegal").await;
    assert!(e.contains("face-down"), "{e}");
    error_then_reprompt(&mut a, "((board KXXXXXXX)(rev 0))\n", "stale-board").await;
    // After all that, a good action is played.
    a.send(&format!("((board {START})(rev 0))\n")).await;
    assert!(a.line().await.ends_with("(info 0 2))"));
    finish_by_resign(a, b).await;
    let r = paired_record(&mut server).await;
    assert_eq!(r.result.reason, Termination::Resign);
    assert_eq!(
        faults_of(&r),
        [
            "syntax",
            "syntax",
            "syntax",
            "unknown",
            "too-large",
            "too-deep",
            "illegal",
            "stale-board"
        ]
    );

    // Out of turn: player 2 acts while player 1 is to move; only player 2 hears about it.
    let (mut a, mut b) = pair(&addr).await;
    b.send(&format!("((board {START})(rev 3))\n")).await;
    let e = b.line().await;
    assert!(
        e.starts_with("((error not-your-turn \"it is player 1's turn"),
        "{e}"
    );
    a.send(&format!("((board {START})(rev 3))\n")).await;
    assert!(a.line().await.ends_with("(info 0 2))"));
    assert!(b.line().await.ends_with("(turn 0 2))"));
    finish_by_resign(a, b).await;
    let r = paired_record(&mut server).await;
    assert_eq!(faults_of(&r), ["not-your-turn"]);
    assert_eq!(r.faults[0].player, 2);

    // Disconnect mid-game: the one who leaves loses.
    let (mut a, b) = pair(&addr).await;
    a.send(&format!("((board {START})(rev 0))\n")).await;
    assert!(a.line().await.ends_with("(info 0 2))"));
    drop(b);
    assert_eq!(a.until("(win").await, "((win 1 0))");
    a.expect_closed().await;
    let r = paired_record(&mut server).await;
    assert_eq!(
        (r.result.reason, r.result.loser),
        (Termination::Disconnect, Some(2))
    );
    assert_eq!(r.plies.len(), 1);

    // A silent client past its clock loses on time.
    let started = std::time::Instant::now();
    let (mut a, mut b) = pair(&addr).await;
    let e = a.line().await;
    assert!(e.starts_with("((error timeout"), "{e}");
    assert!(started.elapsed() >= std::time::Duration::from_millis(1400));
    assert_eq!(a.until("(win").await, "((win 2 0))");
    assert_eq!(b.until("(win").await, "((win 2 0))");
    let r = paired_record(&mut server).await;
    assert_eq!(
        (r.result.reason, r.result.loser),
        (Termination::Time, Some(1))
    );

    // Meanwhile the bots' game ended normally, by the rules.
    let (g1, g2) = normal;
    let (r1, r2) = (g1.await.unwrap().unwrap(), g2.await.unwrap().unwrap());
    assert_eq!(r1.win, r2.win);
    assert!(
        r1.errors.is_empty() && r2.errors.is_empty(),
        "{:?} {:?}",
        r1.errors,
        r2.errors
    );
    let (path, _dir) = server.stop().await;
    let records = anqi_core::record::read_records(&path).unwrap();
    assert_eq!(records.len(), 5);
    let steady: Vec<GameRecord> = records
        .into_iter()
        .map(|(_, r)| r.unwrap())
        .filter(|r| r.players[0].name.starts_with("steady"))
        .collect();
    assert_eq!(steady.len(), 1);
    assert!(
        matches!(
            steady[0].result.reason,
            Termination::CaptureAll
                | Termination::NoMoves
                | Termination::NoProgress
                | Termination::Repetition
        ),
        "{:?}",
        steady[0].result
    );
    anqi_core::replay::verify(&steady[0]).unwrap();
}

#[tokio::test]
async fn strict_rulings_make_faults_losses() {
    let mut server = TestServer::start(
        "traditional-2x4",
        "[referee]\nillegal_action = \"lose\"\nstale_board = \"lose\"\nout_of_turn = \"lose\"\n",
    )
    .await;
    let addr = server.addr();

    // Illegal action loses at once.
    let (mut a, mut b) = pair(&addr).await;
    a.send(&format!("((board {START})(mov 0 1))\n")).await;
    assert!(a.line().await.starts_with("((error illegal"));
    assert_eq!(a.line().await, "((win 2 0))");
    assert_eq!(b.line().await, "((win 2 0))");
    let r = server.next_record().await;
    assert_eq!(
        (r.result.reason, r.result.loser),
        (Termination::Illegal, Some(1))
    );

    // Stale board loses.
    let (mut a, mut b) = pair(&addr).await;
    a.send("((board KXXXXXXX)(rev 0))\n").await;
    assert!(a.line().await.starts_with("((error stale-board"));
    assert_eq!(b.until("(win").await, "((win 2 0))");
    server.next_record().await;

    // Acting out of turn loses.
    let (_a, mut b) = pair(&addr).await;
    b.send(&format!("((board {START})(rev 0))\n")).await;
    assert!(b.line().await.starts_with("((error not-your-turn"));
    assert_eq!(b.line().await, "((win 1 0))");
    let r = server.next_record().await;
    assert_eq!(
        (r.result.reason, r.result.loser),
        (Termination::Illegal, Some(2))
    );
}

#[tokio::test]
async fn a_stale_board_may_be_ignored_and_the_board_is_optional() {
    let mut server =
        TestServer::start("traditional-2x4", "[referee]\nstale_board = \"ignore\"\n").await;
    let (mut a, mut b) = pair(&server.addr()).await;
    a.send("((board KKKKKKKK)(rev 0))\n").await;
    assert!(a.line().await.ends_with("(info 0 2))"));
    assert!(b.line().await.ends_with("(turn 0 2))"));
    b.send("((rev 1))\n").await; // no board at all
    assert!(b.line().await.ends_with("(info 1 1))"));
    finish_by_resign(a, b).await;
    let r = server.next_record().await;
    assert!(r.faults.is_empty());
    assert_eq!(r.plies.len(), 2);
}

#[tokio::test]
async fn too_many_errors_lose() {
    let mut server = TestServer::start("traditional-2x4", "[referee]\nmax_errors = 3\n").await;
    let (mut a, mut b) = pair(&server.addr()).await;
    for _ in 0..3 {
        error_then_reprompt(&mut a, "((dance))\n", "unknown").await;
    }
    a.send("((dance))\n").await;
    assert!(a.line().await.starts_with("((error unknown"));
    assert_eq!(b.until("(win").await, "((win 2 0))");
    let r = server.next_record().await;
    assert_eq!(
        (r.result.reason, r.result.loser),
        (Termination::Illegal, Some(1))
    );
    assert_eq!(r.faults.len(), 4);
}

#[tokio::test]
async fn handshake_variants_and_failures() {
    let server =
        TestServer::start("traditional-2x4", "[server]\nhandshake_timeout_ms = 300\n").await;
    let addr = server.addr();

    // Wrong version: told, and closed.
    let mut c = RawClient::connect(&addr).await;
    assert_eq!(c.line().await, "((version 1.0))");
    c.send("((version 2.0))\n").await;
    assert!(c
        .line()
        .await
        .starts_with("((error version \"this server speaks version 1.0"));
    c.expect_closed().await;

    // Silent: timed out, and closed.
    let mut c = RawClient::connect(&addr).await;
    assert_eq!(c.line().await, "((version 1.0))");
    assert!(c.line().await.starts_with("((error timeout"));
    c.expect_closed().await;

    // An action before init is unexpected; the handshake goes on.
    let mut c = RawClient::connect(&addr).await;
    assert_eq!(c.line().await, "((version 1.0))");
    c.send("((rev 0))\n").await;
    assert!(c.line().await.starts_with("((error unexpected"));
    drop(c);

    // A client that sends its version first (split across packets, no newline) is accepted,
    // and so is version + init in one message; they are seated together in connection order.
    let mut a = RawClient::connect(&addr).await;
    assert_eq!(a.line().await, "((version 1.0))");
    a.send("((vers").await;
    a.send("ion 1.0))").await;
    a.send("((init \"bot one\" abc))").await;
    let mut b = RawClient::connect(&addr).await;
    assert_eq!(b.line().await, "((version 1.0))");
    b.send("((version 1.0)(init two 7))").await;
    assert!(a.line().await.starts_with("((id 1)"));
    assert!(b.line().await.starts_with("((id 2)"));
    let mut server = server;
    finish_by_resign_after_setup(a, b).await;
    let r = server.next_record().await;
    assert_eq!(r.players[0].name, "bot one");
    assert_eq!(r.players[0].seed, "abc");
    assert_eq!(r.players[1].name, "two");
}

async fn finish_by_resign_after_setup(mut a: RawClient, mut b: RawClient) {
    a.line().await;
    b.line().await;
    finish_by_resign(a, b).await;
}

#[tokio::test]
async fn a_waiting_client_is_answered_without_waiting_for_an_opponent() {
    let server = TestServer::start_with_lobby("traditional-2x4", "").await;
    let mut a = RawClient::join(&server.addr(), "early", "1").await;
    // The lobby has it first, so that no other event comes after the message.
    server.until_waiting("early").await;
    a.send("((board XXXXXXXX)(rev 0))\n").await;
    let l = a.line().await;
    assert!(
        l.starts_with("((error unexpected \"the game has not started yet"),
        "{l}"
    );
    // Once an opponent comes, the game starts normally.
    let mut b = RawClient::join(&server.addr(), "late", "2").await;
    assert!(a.line().await.starts_with("((id 1)"));
    assert!(b.line().await.starts_with("((id 2)"));
    assert_eq!(a.line().await, format!("((board {START})(turn 0 1))"));
}
