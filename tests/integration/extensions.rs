//! The opt-in protocol extensions over real TCP: what a client that asks gets, and that a
//! client that asks for nothing sees exactly the paper's messages in the same game.

use crate::common;

use anqi_core::rules::Variant;
use anqi_core::wire::{ErrorCode, LastPly, ServerClause, ServerMessage};
use common::{RawClient, TestServer};

fn parse(line: &str) -> Vec<ServerClause> {
    ServerMessage::parse(line.as_bytes())
        .unwrap_or_else(|e| panic!("{line}: {e}"))
        .0
}

/// The clause names of a message, in order.
fn heads(line: &str) -> Vec<String> {
    parse(line)
        .iter()
        .map(|c| {
            let s = c.to_string();
            s[1..].split([' ', ')']).next().unwrap().to_string()
        })
        .collect()
}

async fn handshake(addr: &str, text: &str) -> RawClient {
    let mut c = RawClient::connect(addr).await;
    assert_eq!(c.line().await, "((version 1.0))");
    c.send(text).await;
    c
}

#[tokio::test]
async fn a_client_that_asks_gets_every_extension_and_the_other_sees_the_paper() {
    let server =
        TestServer::start_with_lobby("traditional-2x4", "[clock]\ngame_ms = 60000\n").await;
    let addr = server.addr();
    let mut a = handshake(
        &addr,
        "((version 1.0)(init asker 1)(ext last clock progress variant))\n",
    )
    .await;
    // Seated in the order they wait in the lobby, once their handshakes are complete.
    server.until_waiting("asker").await;
    let mut b = RawClient::join(&addr, "plain", "2").await;
    let setup_a = a.line().await;
    let setup_b = b.line().await;

    // Setup: the paper's clauses, then (ext ...), (timecontrol ...), (variant "...").
    let tail: Vec<String> = heads(&setup_a).into_iter().rev().take(3).collect();
    assert_eq!(tail, ["variant", "timecontrol", "ext"], "{setup_a}");
    let clauses = parse(&setup_a);
    assert!(clauses.contains(&ServerClause::Ext(
        ["last", "clock", "progress", "variant"]
            .map(String::from)
            .to_vec()
    )));
    assert!(clauses.contains(&ServerClause::TimeControl([60_000, 0, 0, 0])));
    let text = clauses
        .iter()
        .find_map(|c| match c {
            ServerClause::Variant(t) => Some(t.clone()),
            _ => None,
        })
        .unwrap();
    let sent = Variant::parse(&text).expect("the description parses");
    let real = Variant::shipped("traditional-2x4").unwrap();
    assert_eq!(
        (sent.capture, sent.draw, sent.topology),
        (real.capture, real.draw, real.topology)
    );
    for ext in [
        "(ext",
        "(timecontrol",
        "(variant",
        "(clock",
        "(progress",
        "(last",
    ] {
        assert!(!setup_b.contains(ext), "{setup_b}");
    }

    // First prompt: nothing played yet, so no (last ...).
    let p = a.line().await;
    assert_eq!(heads(&p), ["board", "clock", "progress", "turn"], "{p}");
    assert!(parse(&p).contains(&ServerClause::Clock(vec![60_000, 60_000])));
    assert_eq!(b.line().await, "((board XXXXXXXX)(info 0 1))");

    a.send("((board XXXXXXXX)(rev 0))\n").await;
    let info = a.line().await;
    assert_eq!(
        heads(&info),
        ["board", "last", "clock", "progress", "info"],
        "{info}"
    );
    let board = match &parse(&info)[0] {
        ServerClause::Board(b) => b.clone(),
        c => panic!("{c}"),
    };
    let revealed = board.chars().next().unwrap();
    assert!(parse(&info).contains(&ServerClause::Last(1, LastPly::Rev(0, revealed))));
    assert!(parse(&info).contains(&ServerClause::Progress(0)));
    match parse(&info)
        .iter()
        .find(|c| matches!(c, ServerClause::Clock(_)))
    {
        Some(ServerClause::Clock(ms)) => {
            assert!(
                ms[0] <= 60_000 && ms[0] > 50_000 && ms[1] == 60_000,
                "{ms:?}"
            )
        }
        c => panic!("{c:?}"),
    }
    let prompt_b = b.line().await;
    assert_eq!(prompt_b, format!("((board {board})(turn 0 2))"));

    // The end: the asker gets the final board and ply before the result; the other, the paper's.
    b.send("((resign))\n").await;
    let end_a = a.line().await;
    assert_eq!(heads(&end_a), ["board", "last", "win"], "{end_a}");
    assert_eq!(b.line().await, "((win 1 0))");
    server.stop().await;
}

#[tokio::test]
async fn an_unknown_extension_is_named_and_the_handshake_goes_on() {
    let server = TestServer::start("traditional-2x4", "").await;
    let addr = server.addr();
    let mut a = handshake(&addr, "((ext last telepathy))\n").await;
    let e = a.line().await;
    assert!(
        e.starts_with(
            "((error unknown \"no extension is named telepathy; known: last clock progress variant"
        ),
        "{e}"
    );
    a.send("((init a 1))\n").await;
    let mut b = RawClient::join(&addr, "b", "2").await;
    let setup = a.line().await;
    assert!(setup.ends_with("(ext last))"), "{setup}");
    b.line().await;
    // Asked after the handshake: unexpected, and the game goes on.
    a.until("(turn 0 1)").await;
    a.send("((ext clock))\n").await;
    let e = a.line().await;
    assert!(
        parse(&e)
            .iter()
            .any(|c| matches!(c, ServerClause::Error(ErrorCode::Unexpected, t) if t.contains("handshake"))),
        "{e}"
    );
    assert!(a.line().await.ends_with("(turn 0 1))"), "re-prompted");
    server.stop().await;
}

/// A handshake message of thousands of mistakes gets a few lines back, not one per mistake
/// (issue 18: 2,500 unknown names in 13.9 KB brought back 209 KB).
#[tokio::test]
async fn a_flood_of_mistakes_gets_one_answer_per_kind() {
    let server = TestServer::start("traditional-2x4", "[server]\nmax_frame_bytes = 65536\n").await;
    let addr = server.addr();
    let names: Vec<String> = (0..2500).map(|i| format!("x{i}")).collect();
    let clauses = "(rev 0)".repeat(2000);
    let flood = format!("((ext last {}){clauses})\n", names.join(" "));
    assert!(flood.len() > 25_000);
    let mut a = handshake(&addr, &flood).await;
    let unknown = a.line().await;
    assert!(
        unknown.starts_with(
            "((error unknown \"no extension is named x0, x1, x2, x3, x4 (and 2495 more); known: "
        ),
        "{unknown}"
    );
    let unexpected = a.line().await;
    assert_eq!(
        unexpected,
        "((error unexpected \"(rev 0) (and 1999 more) before (init NAME SEED); the game has not started\"))"
    );
    assert!(unknown.len() + unexpected.len() < 500);
    // The handshake goes on, with the one known extension.
    a.send("((init a 1))\n").await;
    let _b = RawClient::join(&addr, "b", "2").await;
    let setup = a.line().await;
    assert!(setup.ends_with("(ext last))"), "{setup}");
    server.stop().await;
}

/// A NAME has at most 64 characters: a longer one is refused and the handshake goes on.
#[tokio::test]
async fn an_over_long_name_is_refused_and_the_handshake_goes_on() {
    let server = TestServer::start("traditional-2x4", "").await;
    let addr = server.addr();
    let long = "n".repeat(65);
    let mut a = handshake(&addr, &format!("((init {long} 1))\n")).await;
    let e = a.line().await;
    assert!(
        e.starts_with("((error syntax \"a NAME has at most 64 characters, not 65: nnn"),
        "{e}"
    );
    a.send(&format!("((init {} 1))\n", "n".repeat(64))).await;
    let _b = RawClient::join(&addr, "b", "2").await;
    assert!(a.line().await.starts_with("((id 1)"));
    server.stop().await;
}
