//! The paper's two transcripts, Table IV (traditional 2x4) and Table V (strategic 2x4),
//! reproduced message by message over real TCP (`tests/data/table-*.transcript`).

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

/// Plays a transcript against a server for `variant` whose seed is `server_seed`; returns the
/// game's record (checked by `anqi replay`'s verifier).
async fn run_transcript(
    variant: &str,
    server_seed: &str,
    transcript: &str,
) -> anqi::record::GameRecord {
    let server = TestServer::start(variant, &format!("[seed]\nserver = \"{server_seed}\"\n")).await;
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
    anqi::replay::verify(&record).expect("the record verifies");
    record
}

#[tokio::test]
async fn table_iv_message_by_message() {
    let record = run_transcript(
        "traditional-2x4",
        "table-iv-9",
        include_str!("data/table-iv.transcript"),
    )
    .await;
    assert_eq!(record.result.win, "(win 1 0)");
    assert_eq!(record.result.reason.name(), "resign");
    assert_eq!(record.result.loser, Some(2));
    assert_eq!(record.plies.len(), 11);
    assert_eq!(record.seeds.clients, vec!["666", "1"]);
}

#[tokio::test]
async fn table_v_message_by_message() {
    let record = run_transcript(
        "strategic-2x4",
        "table-v-593",
        include_str!("data/table-v.transcript"),
    )
    .await;
    assert_eq!(record.result.win, "(win 1 0)");
    assert_eq!(record.result.reason.name(), "resign");
    assert_eq!(record.final_board, "p.kXXPPP");
    let draws: String = record.plies.iter().filter_map(|p| p.drawn).collect();
    assert_eq!(draws, "KPpkPP");
    // Bag draws keep the turn: 6 draws + 6 puts + 1 move = 13 plies in 3 rounds and a half.
    assert_eq!((record.result.plies, record.result.turns), (13, 3));
}
