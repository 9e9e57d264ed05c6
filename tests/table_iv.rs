//! The paper's Table IV exchange, reproduced message by message over real TCP
//! (`tests/data/table-iv.transcript`).

mod common;

use anqi::wire::{ServerClause, ServerMessage};
use common::{RawClient, TestServer};

/// Parses a server message, sorting moves and jumps so the paper's listing order does not matter.
fn normalized(line: &str) -> ServerMessage {
    let mut m =
        ServerMessage::parse(line.as_bytes()).unwrap_or_else(|e| panic!("{line}: {}", e.text));
    for c in &mut m.0 {
        match c {
            ServerClause::Moves(v) => v.sort_unstable(),
            ServerClause::Jumps(v) => v.sort_unstable(),
            _ => {}
        }
    }
    m
}

#[tokio::test]
async fn table_iv_message_by_message() {
    let server = TestServer::start("traditional-2x4", "[seed]\nserver = \"table-iv-9\"\n").await;
    let transcript = include_str!("data/table-iv.transcript");
    let mut clients: Vec<RawClient> = Vec::new();
    let mut checked = 0;
    for (n, line) in transcript.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (head, msg) = line.split_once(' ').expect("a direction and a message");
        let at = format!("transcript line {}: {line}", n + 1);
        if let Some(who) = head.strip_prefix("S>") {
            let who: usize = who.parse().unwrap();
            if who > clients.len() {
                clients.push(RawClient::connect(&server.addr()).await);
            }
            let got = clients[who - 1].line().await;
            if msg.contains("(moves") {
                assert_eq!(normalized(&got), normalized(msg), "{at}");
            } else {
                assert_eq!(got, msg, "{at}");
            }
            checked += 1;
        } else {
            let who: usize = head
                .strip_suffix(">S")
                .expect("S>n or n>S")
                .parse()
                .unwrap();
            clients[who - 1].send(&format!("{msg}\n")).await;
        }
    }
    assert_eq!(
        checked,
        transcript.lines().filter(|l| l.starts_with("S>")).count()
    );
    assert!(checked >= 30);
    for c in &mut clients {
        c.expect_closed().await;
    }
    let mut server = server;
    let record = server.next_record().await;
    assert_eq!(record.result.win, "(win 1 0)");
    assert_eq!(record.result.reason.name(), "resign");
    assert_eq!(record.result.loser, Some(2));
    assert_eq!(record.plies.len(), 11);
    assert_eq!(record.seeds.clients, vec!["666", "1"]);
    anqi::replay::verify(&record).expect("the record verifies");
}
