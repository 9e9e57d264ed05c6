//! Engine comments per ply (the `comment` extension) over real TCP: kept in the ply's record,
//! cut to the server's bound, refused from a client that did not ask, and not granted by a
//! server that keeps none.

use crate::common;

use anqi_core::wire::{ErrorCode, ServerClause, ServerMessage};
use common::{RawClient, TestServer};

fn error_of(line: &str) -> (ErrorCode, String) {
    match ServerMessage::parse(line.as_bytes())
        .unwrap_or_else(|e| panic!("{line}: {e}"))
        .0
        .into_iter()
        .next()
    {
        Some(ServerClause::Error(code, text)) => (code, text),
        other => panic!("not an error: {other:?} in {line}"),
    }
}

/// Two players: `a` asks for the comment extension, `b` for nothing.
async fn pair(server: &TestServer) -> (RawClient, RawClient, String) {
    let addr = server.addr();
    let mut a = RawClient::connect(&addr).await;
    a.line().await;
    a.send("((version 1.0)(init commenter 1)(ext comment))\n")
        .await;
    server.until_waiting("commenter").await;
    let mut b = RawClient::join(&addr, "plain", "2").await;
    let setup = a.line().await;
    b.line().await;
    (a, b, setup)
}

#[tokio::test]
async fn comments_are_kept_in_the_record_and_cut_to_the_bound() {
    let mut server =
        TestServer::start_with_lobby("traditional-2x4", "[records]\ncomment_bytes = 40\n").await;
    let (mut a, mut b, setup) = pair(&server).await;
    assert!(setup.ends_with("(ext comment))"), "{setup}");

    // Player 1 comments its reveal, with a quote and a non-ASCII character in it.
    a.until("(turn 0 1)").await;
    a.send("((board XXXXXXXX)(rev 0)(comment \"depth 3 score cp 12 pv 1-5 \\\"帥\\\"\"))\n")
        .await;
    // Player 2 did not ask: its comment is refused whole, and it is prompted again.
    let prompt = b.until("(turn 0 2)").await;
    let board = prompt.split(['(', ' ', ')']).nth(3).unwrap().to_string();
    b.send(&format!("((board {board})(rev 1)(comment \"hi\"))\n"))
        .await;
    let (code, text) = error_of(&b.line().await);
    assert_eq!(code, ErrorCode::Unexpected);
    assert!(text.contains("(ext comment)"), "{text}");
    assert!(b.line().await.ends_with("(turn 0 2))"), "prompted again");
    b.send(&format!("((board {board})(rev 1))\n")).await;

    // Over the bound: cut at a character boundary, with "..." at the end.
    let prompt = a.until("(turn 1 1)").await;
    let board = prompt.split(['(', ' ', ')']).nth(3).unwrap().to_string();
    let long = format!("pv {}", "象".repeat(30));
    a.send(&format!("((board {board})(rev 2)(comment \"{long}\"))\n"))
        .await;
    // Two comments in one message: refused.
    b.until("(turn 1 2)").await;
    b.send("((rev 3)(comment \"x\")(comment \"y\"))\n").await;
    let (code, text) = error_of(&b.line().await);
    assert_eq!(code, ErrorCode::Syntax);
    assert!(text.contains("more than one (comment"), "{text}");
    b.send("((resign))\n").await;

    let r = server.next_record().await;
    assert_eq!(r.plies.len(), 3, "{:?}", r.plies);
    assert_eq!(
        r.plies[0].comment.as_deref(),
        Some("depth 3 score cp 12 pv 1-5 \"帥\"")
    );
    assert_eq!(r.plies[1].comment, None);
    let cut = r.plies[2].comment.as_deref().unwrap();
    assert!(
        cut.len() <= 40 && cut.ends_with("...") && cut.starts_with("pv 象"),
        "{cut}"
    );
    let faults: Vec<&str> = r.faults.iter().map(|f| f.code.as_str()).collect();
    assert_eq!(faults, ["unexpected", "syntax"]);
    // The record replays, and `anqi replay --plies` shows each ply with its comment.
    let (path, _dir) = server.stop().await;
    assert_eq!(common::replay(&path), "1 verified, 0 failed");
    let text = common::move_lists(&path);
    let lines: Vec<&str> = text.lines().filter(|l| l.contains(". P")).collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0].starts_with("    1. P1 (rev 0) reveals "), "{text}");
    assert!(
        lines[0].ends_with(" ms)  { depth 3 score cp 12 pv 1-5 \"帥\" }"),
        "{text}"
    );
    assert!(lines[1].ends_with(" ms)"), "{text}");
    assert!(lines[2].ends_with("... }"), "{text}");
}

#[tokio::test]
async fn a_server_that_keeps_no_comments_does_not_grant_the_extension() {
    let mut server =
        TestServer::start_with_lobby("traditional-2x4", "[records]\ncomment_bytes = 0\n").await;
    let (mut a, mut b, setup) = pair(&server).await;
    assert!(!setup.contains("(ext"), "{setup}");
    a.until("(turn 0 1)").await;
    a.send("((rev 0)(comment \"hi\"))\n").await;
    let (code, text) = error_of(&a.line().await);
    assert_eq!(code, ErrorCode::Unexpected);
    assert!(text.contains("comment_bytes = 0"), "{text}");
    a.send("((resign))\n").await;
    b.until("(win").await;
    let r = server.next_record().await;
    assert!(r.plies.is_empty());
    server.stop().await;
}
