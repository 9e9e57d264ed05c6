//! The paper's two transcripts, Table IV (traditional 2x4) and Table V (strategic 2x4),
//! reproduced message by message over real TCP (`tests/data/table-*.transcript`).

use crate::common;

use anqi_core::wire::{ServerClause, ServerMessage};
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
) -> anqi_core::record::GameRecord {
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
    for c in &mut clients {
        c.expect_closed().await;
    }
    let mut server = server;
    let record = server.next_record().await;
    anqi_core::replay::verify(&record).expect("the record verifies");
    record
}

#[tokio::test]
async fn table_iv_message_by_message() {
    let record = run_transcript(
        "traditional-2x4",
        "table-iv-9",
        include_str!("../data/table-iv.transcript"),
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
        include_str!("../data/table-v.transcript"),
    )
    .await;
    assert_eq!(record.result.win, "(win 1 0)");
    assert_eq!(record.result.reason.name(), "resign");
    assert_eq!(record.final_board, "p.kXXPPP");
    let draws: String = record.plies.iter().filter_map(|p| p.drawn).collect();
    assert_eq!(draws, "KPpkPP");
    // The verifier checks every claim: a drawn piece the bag did not give, or plies past the
    // record's ply cap, are caught.
    let mut forged = record.clone();
    forged.plies[0].drawn = Some('k');
    assert!(anqi_core::replay::verify(&forged)
        .unwrap_err()
        .to_string()
        .contains("drawn"));
    let mut forged = record.clone();
    forged.max_plies = Some(5);
    assert!(anqi_core::replay::verify(&forged)
        .unwrap_err()
        .to_string()
        .contains("ply cap"));
    // Bag draws keep the turn: 6 draws + 6 puts + 1 move = 13 plies in 3 rounds and a half.
    assert_eq!((record.result.plies, record.result.turns), (13, 3));
}

/// Plies played before the next player resigns, in the golden transcripts.
const GOLDEN_PLIES: u32 = 10;

/// Writes the opening of a game of `variant` as a transcript: the players join in order with
/// seeds 1, 2, ...; each move is drawn from the legal actions of a shadow copy of the game
/// (rebuilt from the same seeds); after [`GOLDEN_PLIES`] plies the player to move resigns.
async fn golden(variant_name: &str) -> String {
    use anqi_core::rules::{Game, SeedInputs, Variant};
    use std::sync::Arc;
    let variant = Variant::shipped(variant_name).unwrap();
    let server = TestServer::start(variant_name, "[seed]\nserver = \"golden\"\n").await;
    let n = variant.players;
    let mut out = format!(
        "# {variant_name}: {}\n#\n# A real exchange with anqi serve --variant {variant_name}, written by tests/integration/transcripts.rs\n# (ANQI_BLESS=1 rewrites it) and checked line by line by the same test. The players join in\n# order with seeds 1, 2, ...; the server's seed is \"golden\". Each player picks one of its legal\n# actions; after {GOLDEN_PLIES} plies the player to move resigns.\n",
        variant.summary
    );
    let mut clients = Vec::new();
    for i in 1..=n {
        let mut c = RawClient::connect(&server.addr()).await;
        out.push_str(&format!("S>{i} {}\n", c.line().await));
        let init = format!("((init player{i} {i}))");
        c.send(&format!("{init}\n")).await;
        out.push_str(&format!("{i}>S {init}\n"));
        clients.push(c);
    }
    let seeds = SeedInputs {
        clients: (1..=n).map(|i| i.to_string()).collect(),
        server: "golden".into(),
    };
    let mut shadow = Game::new(
        Arc::new(variant),
        seeds.deal_for(&Variant::shipped(variant_name).unwrap()),
    );
    out.push_str(&read_all(&mut clients).await); // setup
    out.push_str(&read_all(&mut clients).await); // first prompt
    let mut lcg = 0x2545_f491_4f6c_dd1du64;
    while shadow.outcome().is_none() {
        let mover = shadow.to_move();
        let msg = if shadow.ply() >= GOLDEN_PLIES {
            "((resign))".to_string()
        } else {
            let legal = shadow.legal_actions();
            lcg = lcg
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let action = legal[((lcg >> 33) % legal.len() as u64) as usize];
            shadow.play(mover, action).unwrap();
            format!("((board {}){action})", board_before(&out, mover))
        };
        if msg == "((resign))" {
            shadow.resign(mover);
        }
        clients[mover - 1].send(&format!("{msg}\n")).await;
        out.push_str(&format!("{mover}>S {msg}\n"));
        out.push_str(&read_all(&mut clients).await);
    }
    out
}

/// One line from every client, in seat order.
async fn read_all(clients: &mut [RawClient]) -> String {
    let mut lines = String::new();
    for (i, c) in clients.iter_mut().enumerate() {
        lines.push_str(&format!("S>{} {}\n", i + 1, c.line().await));
    }
    lines
}

/// The board of the last prompt a player received.
fn board_before(transcript: &str, player: usize) -> String {
    let prefix = format!("S>{player} ((board ");
    let line = transcript
        .lines()
        .rev()
        .find(|l| l.starts_with(&prefix))
        .expect("a prompt");
    line[prefix.len()..].split(')').next().unwrap().to_string()
}

/// Every shipped variant has a real transcript in `protocol/transcripts/`, and the server still
/// produces it message by message. `ANQI_BLESS=1 cargo test --test integration transcripts::` rewrites them.
#[tokio::test]
async fn golden_transcripts_of_every_variant() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("protocol/transcripts");
    let bless = std::env::var_os("ANQI_BLESS").is_some();
    for (name, _) in anqi_core::rules::SHIPPED {
        let path = dir.join(format!("{name}.transcript"));
        if bless {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, golden(name).await).unwrap();
        }
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e} (run with ANQI_BLESS=1 to write it)",
                path.display()
            )
        });
        let record = run_transcript(name, "golden", &text).await;
        assert!(record.plies.len() as u32 <= GOLDEN_PLIES, "{name}");
    }
}
