//! Crowds that complete their handshake and never move (issue 32, section 6), and names that
//! would forge lines in line-based exports (section 4), over real TCP: seated players that
//! never act are aborted at the first-move deadline (or lose on time, once a ply has been
//! played), make room on a full server, and are capped per network, so a fresh address still
//! gets a game while a crowd idles; newcomers waiting for room never hold up the others; names
//! with control characters are refused at the handshake.

use crate::common;

use anqi_core::record::GameRecord;
use anqi_core::rules::Termination;
use common::{RawClient, TestServer};
use std::time::{Duration, Instant};

const START: &str = "XXXXXXXX";

/// A crowd member: connects from `source`, sends its `init`, and then never moves.
async fn idler(addr: &str, source: &str, name: &str) -> RawClient {
    let mut c = RawClient::connect_from(addr, source).await;
    assert_eq!(c.line().await, "((version 1.0))", "{name}");
    c.send(&format!("((init {name} 1))\n")).await;
    c
}

/// A newcomer: connects from `source`, is let in at once, and sends its `init`.
async fn fresh(addr: &str, source: &str, name: &str) -> RawClient {
    let mut c = RawClient::connect_from(addr, source).await;
    let first = c.line().await;
    assert_eq!(first, "((version 1.0))", "{name} was let in at once");
    c.send(&format!("((init {name} 2))\n")).await;
    c
}

/// Two crowd members from `sources` seated together (player 1 first), each read up to its
/// first prompt.
async fn idle_pair(addr: &str, sources: [&str; 2], names: [&str; 2]) -> [RawClient; 2] {
    let mut a = idler(addr, sources[0], names[0]).await;
    let mut b = idler(addr, sources[1], names[1]).await;
    assert!(a.line().await.starts_with("((id 1)"), "{}", names[0]);
    assert!(b.line().await.starts_with("((id 2)"), "{}", names[1]);
    assert_eq!(a.line().await, format!("((board {START})(turn 0 1))"));
    assert_eq!(b.line().await, format!("((board {START})(info 0 1))"));
    [a, b]
}

/// A player from `source` that comes until it is seated, while the server may still refuse it
/// (its address's places and seats not given back yet): the client, and the first line it got
/// once seated (its setup, when its game started at once; `None` while it waits).
async fn seated_again(addr: &str, source: &str, name: &str) -> (RawClient, Option<String>) {
    loop {
        let mut c = RawClient::connect_from(addr, source).await;
        if c.line().await == "((version 1.0))" {
            c.send(&format!("((init {name} 1))\n")).await;
            match tokio::time::timeout(Duration::from_millis(300), c.try_line()).await {
                Err(_) => return (c, None),
                Ok(Some(line)) if line.starts_with("((id ") => return (c, Some(line)),
                Ok(line) => assert!(line.unwrap().starts_with("((error busy"), "{name}"),
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Whether `c` is sent nothing for a while.
async fn silent(c: &mut RawClient) -> bool {
    tokio::time::timeout(Duration::from_millis(200), c.try_line())
        .await
        .is_err()
}

/// The aborted record of a crowd game: no plies, no result.
fn aborted_unstarted(r: &GameRecord) {
    assert_eq!(r.result.reason, Termination::Aborted, "{:?}", r.result);
    assert_eq!(r.result.win, "");
    assert!(r.plies.is_empty(), "{:?}", r.plies);
}

/// The server is full of seated players that never move (no connection is left in its
/// handshake to make room): a fresh address still gets in and gets a game at once, long
/// before the first-move deadline, because the seated player that waited longest on its first
/// action makes room (its game is aborted). Before, the fresh client was told `busy`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_server_of_idle_seated_players_still_seats_a_fresh_address() {
    let mut server = TestServer::start(
        "traditional-2x4",
        // Every place taken by 4 idle games; the first-move deadline far away (the default).
        "[server]\nmax_connections = 8\nmax_connections_per_address = 0\nhandshake_timeout_ms = 300\n",
    )
    .await;
    let addr = server.addr();
    let mut crowd = Vec::new();
    for g in 0..4 {
        let sources = [1, 2].map(|k| format!("127.0.5.{}", 2 * g + k));
        let names = [0, 1].map(|k| format!("idle{}", 2 * g + k));
        crowd.extend(idle_pair(&addr, [&sources[0], &sources[1]], [&names[0], &names[1]]).await);
    }
    // Every crowd game's mover has waited out the grace (handshake_timeout_ms).
    tokio::time::sleep(Duration::from_millis(400)).await;
    let started = Instant::now();
    let mut a = fresh(&addr, "127.0.6.1", "fresh_a").await;
    let mut b = fresh(&addr, "127.0.6.2", "fresh_b").await;
    assert!(a.line().await.starts_with("((id 1)"));
    assert!(b.line().await.starts_with("((id 2)"));
    assert_eq!(a.line().await, format!("((board {START})(turn 0 1))"));
    let waited = started.elapsed();
    assert!(waited < Duration::from_secs(5), "{waited:?}");
    // The fresh game is played.
    a.send("((rev 0))\n").await;
    assert!(a.line().await.contains("(info 0 2)"));
    b.until("(turn 0 2)").await;
    b.send("((resign))\n").await;
    assert_eq!(a.line().await, "((win 1 0))");
    let fresh_record = server
        .record_where(|r| r.players[0].name == "fresh_a")
        .await;
    assert_eq!(fresh_record.result.reason, Termination::Resign);
    // The oldest crowd game made room (two places: enough for both newcomers): its players
    // were told why, and let go.
    let e = crowd[0].line().await;
    assert!(
        e.starts_with("((error busy \"the server is full, and of the players seated in games not started you waited longest on your first action: this game is aborted"),
        "{e}"
    );
    crowd[0].expect_closed().await;
    let e = crowd[1].line().await;
    assert!(
        e.starts_with(
            "((error timeout \"player 1 made no first action, and made room for a new connection"
        ),
        "{e}"
    );
    crowd[1].expect_closed().await;
    let r = server.record_where(|r| r.players[0].name == "idle0").await;
    aborted_unstarted(&r);
    assert_eq!(
        r.faults.iter().map(|f| f.code.as_str()).collect::<Vec<_>>(),
        ["busy", "timeout"]
    );
    // The other crowd games still wait for their first action.
    for c in &mut crowd[2..] {
        assert!(silent(c).await);
    }
    server.stop().await;
}

/// Seats per network: a crowd from a few addresses sends `init` on many connections; past
/// `max_seats_per_address` players seated (waiting or playing) from its address, each is told
/// `busy` and closed, so the crowd holds few seats, and a fresh address is seated at once. A
/// seat comes back when its game is over.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seats_per_network_keep_a_crowd_from_taking_every_seat() {
    let mut server = TestServer::start(
        "traditional-2x4",
        "[server]\nmax_connections = 12\nmax_connections_per_address = 4\nmax_seats_per_address = 2\n",
    )
    .await;
    let addr = server.addr();
    let mut seated = Vec::new();
    for (a, source) in ["127.0.7.1", "127.0.7.2", "127.0.7.3"].iter().enumerate() {
        // Two seated, in a game together; two more are refused, told why, and closed.
        let names = [0, 1].map(|i| format!("crowd{a}_{i}"));
        seated.extend(idle_pair(&addr, [source, source], [&names[0], &names[1]]).await);
        for i in 2..4 {
            let mut c = idler(&addr, source, &format!("crowd{a}_{i}")).await;
            assert_eq!(
                c.line().await,
                "((error busy \"2 players from your address are waiting for a game or playing one, the most allowed; try again when one of their games is over\"))"
            );
            c.expect_closed().await;
        }
    }
    // Six crowd players seated, in three games; a fresh address gets a game at once.
    let mut a = fresh(&addr, "127.0.8.1", "fresh_a").await;
    let mut b = fresh(&addr, "127.0.8.2", "fresh_b").await;
    assert!(a.line().await.starts_with("((id 1)"));
    assert!(b.line().await.starts_with("((id 2)"));
    // A crowd member whose game is over frees its address's seat: crowd0_0 resigns its game
    // (against crowd0_1), and its address may seat two players again.
    let mut first = seated.remove(0);
    first.send("((resign))\n").await;
    assert_eq!(first.line().await, "((win 2 0))");
    let r = server
        .record_where(|r| r.players[0].name == "crowd0_0")
        .await;
    assert_eq!(r.result.reason, Termination::Resign);
    drop(first);
    drop(seated.remove(0));
    // The game's places and seats are given back a moment after its result is sent.
    let (mut back0, none) = seated_again(&addr, "127.0.7.1", "back0").await;
    assert_eq!(none, None, "waits for an opponent");
    let (_back1, setup) = seated_again(&addr, "127.0.7.1", "back1").await;
    assert!(setup.unwrap().starts_with("((id 2)"));
    assert!(back0.line().await.starts_with("((id 1)"));
    server.stop().await;
}

/// The first-move deadline over TCP: a player seated and prompted that never acts ends its
/// game after `first_move_ms`. Player 1 on its first turn (no ply played): the game is aborted,
/// both players are told why and let go, and the record says `aborted`. Player 2 on its own
/// first turn after player 1 moved: it has seen the game start, and loses on time (before, that
/// game was aborted with no result). Once a player has acted, the deadline is over for it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seated_player_that_never_acts_aborts_an_unstarted_game_or_loses_one_under_way() {
    let mut server = TestServer::start("traditional-2x4", "[referee]\nfirst_move_ms = 600\n").await;
    let addr = server.addr();
    // Player 1 never moves.
    let mut a = RawClient::join(&addr, "idle_1", "1").await;
    let mut b = RawClient::join(&addr, "waits_2", "2").await;
    a.until("(turn 0 1)").await;
    let prompted = Instant::now();
    assert_eq!(
        a.line().await,
        "((error timeout \"you made no first action within 600 ms of your first (turn ...): this game is aborted, with no result\"))"
    );
    // Measured from when the client read its prompt: half the deadline of margin for a slow
    // delivery.
    assert!(prompted.elapsed() >= Duration::from_millis(300));
    a.expect_closed().await;
    assert_eq!(
        b.until("(error").await,
        "((error timeout \"player 1 made no first action within 600 ms: this game is aborted, with no result; connect again for a new game\"))"
    );
    b.expect_closed().await;
    let r = server.record_where(|r| r.players[0].name == "idle_1").await;
    aborted_unstarted(&r);
    assert_eq!(r.faults.len(), 2);
    // Player 2 never moves, after player 1 revealed a piece: it loses on time at its own
    // deadline, counted from its own first prompt.
    let mut a = RawClient::join(&addr, "moves_1", "1").await;
    let mut b = RawClient::join(&addr, "idle_2", "2").await;
    a.until("(turn 0 1)").await;
    a.send("((rev 0))\n").await;
    b.until("(turn 0 2)").await;
    let prompted = Instant::now();
    assert_eq!(
        b.line().await,
        "((error timeout \"you made no first action within 600 ms of your first (turn ...), in a game under way: you lose on time\"))"
    );
    assert!(prompted.elapsed() >= Duration::from_millis(300));
    assert_eq!(b.line().await, "((win 1 0))");
    b.expect_closed().await;
    assert_eq!(a.until("(win").await, "((win 1 0))");
    let r = server
        .record_where(|r| r.players[0].name == "moves_1")
        .await;
    assert_eq!(
        (r.result.reason, r.result.loser),
        (Termination::Time, Some(2))
    );
    assert_eq!(r.result.win, "(win 1 0)");
    assert_eq!(r.plies.len(), 1);
    assert_eq!(
        r.faults
            .iter()
            .map(|f| (f.player, f.code.as_str()))
            .collect::<Vec<_>>(),
        [(2, "timeout")]
    );
    // Both act once; then a long think is no first action any more: the game goes on.
    let mut a = RawClient::join(&addr, "slow_1", "1").await;
    let mut b = RawClient::join(&addr, "slow_2", "2").await;
    a.until("(turn 0 1)").await;
    a.send("((rev 0))\n").await;
    b.until("(turn 0 2)").await;
    b.send("((rev 1))\n").await;
    a.until("(turn 1 1)").await;
    tokio::time::sleep(Duration::from_millis(900)).await;
    a.send("((resign))\n").await;
    assert_eq!(a.line().await, "((win 2 0))");
    let r = server.record_where(|r| r.players[0].name == "slow_1").await;
    assert_eq!(r.result.reason, Termination::Resign);
    server.stop_and_replay(3).await;
}

/// On a full server, a seated player idle on its first action in a game where no ply has been
/// played makes room before one idle in a game under way, even one that has waited longer
/// (aborting the first loses nobody a result); the idle player of a game under way still makes
/// room when no other can, and then loses on time. Before, the one that waited longest made
/// room, and its game under way was aborted with no result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unstarted_games_make_room_first_and_an_idler_of_a_game_under_way_loses_on_time() {
    let mut server = TestServer::start(
        "traditional-2x4",
        "[server]\nmax_connections = 4\nmax_connections_per_address = 0\nhandshake_timeout_ms = 300\n",
    )
    .await;
    let addr = server.addr();
    // Game A is under way: player 1 revealed a piece, player 2 never acts.
    let [mut a1, mut a2] = idle_pair(
        &addr,
        ["127.0.9.1", "127.0.9.2"],
        ["under_way1", "under_way2"],
    )
    .await;
    a1.send("((rev 0))\n").await;
    a1.until("(info 0 2)").await;
    a2.until("(turn 0 2)").await;
    // Game B, seated later, has not started: player 1 never acts.
    let [mut b1, mut b2] = idle_pair(
        &addr,
        ["127.0.9.3", "127.0.9.4"],
        ["unstarted1", "unstarted2"],
    )
    .await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    // Two newcomers: game B makes room.
    let mut n1 = fresh(&addr, "127.0.10.1", "fresh1").await;
    let mut n2 = fresh(&addr, "127.0.10.2", "fresh2").await;
    assert!(n1.line().await.starts_with("((id 1)"));
    assert!(n2.line().await.starts_with("((id 2)"));
    let e = b1.line().await;
    assert!(
        e.starts_with(
            "((error busy \"the server is full, and of the players seated in games not started"
        ),
        "{e}"
    );
    b1.expect_closed().await;
    assert!(b2
        .until("(error")
        .await
        .starts_with("((error timeout \"player 1 made no first action, and made room"));
    let r = server
        .record_where(|r| r.players[0].name == "unstarted1")
        .await;
    aborted_unstarted(&r);
    assert!(silent(&mut a2).await, "game A goes on");
    // The newcomers start their game (its player 2, just prompted, is within its grace); two
    // more newcomers: only game A's idle player can make room, and it loses on time.
    n1.until("(turn 0 1)").await;
    n1.send("((rev 0))\n").await;
    n2.until("(turn 0 2)").await;
    let mut n3 = fresh(&addr, "127.0.10.3", "fresh3").await;
    let mut n4 = fresh(&addr, "127.0.10.4", "fresh4").await;
    assert!(n3.line().await.starts_with("((id 1)"));
    assert!(n4.line().await.starts_with("((id 2)"));
    assert_eq!(
        a2.line().await,
        "((error busy \"the server is full, and you were idle on your first action in a game under way: you lose on time, to make room for a new connection\"))"
    );
    assert_eq!(a2.line().await, "((win 1 0))");
    a2.expect_closed().await;
    assert_eq!(a1.until("(win").await, "((win 1 0))");
    let r = server
        .record_where(|r| r.players[0].name == "under_way1")
        .await;
    assert_eq!(
        (r.result.reason, r.result.loser),
        (Termination::Time, Some(2))
    );
    assert_eq!(
        r.faults
            .iter()
            .map(|f| (f.player, f.code.as_str()))
            .collect::<Vec<_>>(),
        [(2, "busy")]
    );
    // The newcomers' game goes on.
    n2.send("((resign))\n").await;
    assert_eq!(n1.until("(win").await, "((win 1 0))");
    server.stop().await;
}

/// A full server of idle seated players: several newcomers connecting at once are all let in
/// and seated, each idle game letting two of them in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_newcomers_at_once_are_all_seated_on_a_full_server_of_idlers() {
    let server = TestServer::start(
        "traditional-2x4",
        "[server]\nmax_connections = 8\nmax_connections_per_address = 0\nhandshake_timeout_ms = 300\n",
    )
    .await;
    let addr = server.addr();
    let mut crowd = Vec::new();
    for g in 0..4 {
        let sources = [1, 2].map(|k| format!("127.0.11.{}", 2 * g + k));
        let names = [0, 1].map(|k| format!("crowd{}", 2 * g + k));
        crowd.extend(idle_pair(&addr, [&sources[0], &sources[1]], [&names[0], &names[1]]).await);
    }
    tokio::time::sleep(Duration::from_millis(400)).await;
    let newcomers: Vec<_> = (1..=4)
        .map(|k| {
            let addr = addr.clone();
            tokio::spawn(async move {
                let mut c = fresh(&addr, &format!("127.0.12.{k}"), &format!("new{k}")).await;
                let setup = c.line().await;
                (c, setup)
            })
        })
        .collect();
    let mut ids = Vec::new();
    let mut seated = Vec::new();
    for newcomer in newcomers {
        let (c, setup) = newcomer.await.unwrap();
        assert!(setup.starts_with("((id "), "{setup}");
        ids.push(setup[5..6].to_string());
        seated.push(c);
    }
    ids.sort();
    assert_eq!(ids, ["1", "1", "2", "2"]);
    // Two crowd games made room; the others wait on.
    let mut aborted = 0;
    for pair in crowd.chunks_mut(2) {
        if !silent(&mut pair[0]).await {
            aborted += 1;
        }
    }
    assert_eq!(aborted, 2);
    server.stop().await;
}

/// A newcomer waiting for a place that does not come holds up nobody: the next newcomer is
/// answered at once (here `busy`: nobody else can make room), while the first still waits.
/// Before, the accept loop waited with the first, and the next was answered only after it.
///
/// The place that does not come: an idle game counts the places it gives back when its
/// player 1 is first prompted; its player 2's connection is lost after that (its seat kept for
/// its return, its place given back at once), so when the game makes room, one place comes
/// and the other never does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_newcomer_waiting_for_room_does_not_hold_up_the_next() {
    let server = TestServer::start(
        "traditional-2x4",
        "[server]\nmax_connections = 2\nmax_connections_per_address = 0\nhandshake_timeout_ms = 300\n[referee]\nrejoin_grace_ms = 60000\n",
    )
    .await;
    let addr = server.addr();
    let mut idle = idler(&addr, "127.0.13.1", "idle").await;
    let mut away = RawClient::connect_from(&addr, "127.0.13.2").await;
    assert_eq!(away.line().await, "((version 1.0))");
    away.send("((ext rejoin)(init away 2))\n").await;
    idle.until("(turn 0 1)").await;
    away.until("(info 0 1)").await;
    drop(away);
    // Its place given back, a player waits for an opponent; the server is full.
    let (mut waiting, none) = seated_again(&addr, "127.0.13.3", "waiting").await;
    assert_eq!(none, None);
    tokio::time::sleep(Duration::from_millis(400)).await;
    // A newcomer: the idle game makes room, its one place comes, and the newcomer is seated
    // with the waiting player.
    let mut seated = fresh(&addr, "127.0.14.1", "seated").await;
    assert!(seated.line().await.starts_with("((id 2)"));
    assert!(waiting.line().await.starts_with("((id 1)"));
    let e = idle.line().await;
    assert!(e.starts_with("((error busy"), "{e}");
    // Both act: nobody is left to make room.
    waiting.until("(turn 0 1)").await;
    waiting.send("((rev 0))\n").await;
    seated.until("(turn 0 2)").await;
    seated.send("((rev 1))\n").await;
    waiting.until("(turn 1 1)").await;
    // The next newcomer waits for the place that never comes; the one after it is answered
    // at once.
    let mut waits = RawClient::connect_from(&addr, "127.0.14.2").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let mut next = RawClient::connect_from(&addr, "127.0.14.3").await;
    let busy = "((error busy \"the server has 2 connections open; try again later\"))";
    assert_eq!(next.line().await, busy);
    assert!(silent(&mut waits).await, "the one before still waits");
    assert_eq!(waits.line().await, busy);
    server.stop().await;
}

/// A NAME holding a control character, a line or paragraph separator, or a bidirectional
/// text control is refused at the handshake with an error that names the character and where
/// it is (without sending it back); the handshake goes on, and a good name is seated.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_with_control_characters_are_refused_at_the_handshake() {
    let mut server = TestServer::start("traditional-2x4", "").await;
    let addr = server.addr();
    let mut a = RawClient::connect(&addr).await;
    assert_eq!(a.line().await, "((version 1.0))");
    for (init, refusal) in [
        (
            "(init \"bot\\nresult: 1-0\" 1)",
            "U+000A (a line break), found at character 4",
        ),
        (
            "(init \"bot\\x0d;\" 1)",
            "U+000D (a line break), found at character 4",
        ),
        (
            "(init \"a\u{2028}b\" 1)",
            "U+2028 (a line break), found at character 2",
        ),
        (
            "(init \"\\x1b;[31mred\" 1)",
            "U+001B (a control character), found at character 1",
        ),
        (
            "(init \"tab\\tbed\" 1)",
            "U+0009 (a control character), found at character 4",
        ),
        (
            "(init \"evil\u{202E}gnp.exe\" 1)",
            "U+202E (a bidirectional text control), found at character 5",
        ),
        (
            "(init al\u{200B}ice 1)",
            "U+200B (an invisible formatting character), found at character 3",
        ),
    ] {
        a.send(&format!("({init})\n")).await;
        assert_eq!(
            a.line().await,
            format!("((error syntax \"a NAME may not hold {refusal}: names are written into line-based records and exports; send one of printable characters\"))"),
            "{init}"
        );
    }
    a.send("((init \"good name\" 1))\n").await;
    let mut b = RawClient::join(&addr, "b", "2").await;
    assert!(a.line().await.starts_with("((id 1)"));
    assert!(b.line().await.starts_with("((id 2)"));
    a.until("(turn 0 1)").await;
    a.send("((resign))\n").await;
    assert_eq!(a.line().await, "((win 2 0))");
    let r = server.next_record().await;
    assert_eq!(r.players[0].name, "good name");
    server.stop().await;
}
