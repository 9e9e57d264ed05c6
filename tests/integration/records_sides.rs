//! Records for analysis, from real games over TCP: every player's side and team (the team the
//! wire gave them), and with `[records] legal_counts = "all"` every player's legal-action counts
//! at every ply, which `anqi replay` re-derives (a tampered count fails). Records written before
//! these keys existed still load and replay.

use crate::common;

use anqi_core::record::GameRecord;
use anqi_core::rules::Variant;
use common::{replay, RawClient, TempDir, TestServer};
use std::path::Path;
use std::process::Command;

const ANQI: &str = env!("CARGO_BIN_EXE_anqi");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Plays one game of `variant` with random bots on a server configured by `toml`; returns the
/// record, the records file's only line as written, and the server (stopped by the caller).
async fn one_game(variant: &str, toml: &str) -> (GameRecord, TestServer) {
    let mut server = TestServer::start(variant, &format!("[clock]\ngame_ms = 0\n{toml}")).await;
    let seats = Variant::load(variant).unwrap().players;
    let tasks = common::random_bots(&server.addr(), seats, 40);
    for t in tasks {
        t.await.unwrap().unwrap();
    }
    let record = server.next_record().await;
    (record, server)
}

fn sides_and_teams(r: &GameRecord) -> Vec<(Option<usize>, Option<usize>)> {
    r.players.iter().map(|p| (p.side, p.team)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_carry_each_players_side_and_team() {
    // (variant, [(side, team)] by player): the team is the T of (team T), 0 without teams.
    let cases: [(&str, &[(usize, usize)]); 5] = [
        ("traditional", &[(0, 0), (1, 0)]),
        ("2v2", &[(0, 1), (1, 2), (0, 1), (1, 2)]),
        ("1v2", &[(0, 1), (1, 2), (1, 2)]),
        ("single", &[(0, 0)]),
        ("cooperative", &[(0, 1), (0, 1)]),
    ];
    for (variant, expected) in cases {
        let (r, server) = one_game(variant, "").await;
        let expected: Vec<_> = expected.iter().map(|&(s, t)| (Some(s), Some(t))).collect();
        assert_eq!(sides_and_teams(&r), expected, "{variant}");
        // As written in the file, and verified by `anqi replay`.
        let (path, _dir) = server.stop().await;
        let line = std::fs::read_to_string(&path).unwrap();
        assert!(line.contains("\"side\":0,\"team\":"), "{variant}: {line}");
        assert!(!line.contains("legal_all"), "mover only by default");
        assert_eq!(replay(&path), "1 verified, 0 failed", "{variant}");
    }
}

/// The `(team T)` each player of `variant` is sent (0 when none), from raw clients; then the
/// first player resigns, and the record's teams and winner are compared with what the wire said.
async fn wire_teams_match_the_record(variant: &str) {
    let mut server = TestServer::start(variant, "").await;
    let seats = Variant::load(variant).unwrap().players;
    let mut clients = Vec::new();
    for i in 1..=seats {
        clients.push(RawClient::join(&server.addr(), &format!("p{i}"), &i.to_string()).await);
    }
    let mut wire_teams = Vec::new();
    for c in &mut clients {
        let setup = c.line().await;
        let team = setup.split_once("(team ").map_or(0, |(_, rest)| {
            rest[..rest.find(')').unwrap()].parse().unwrap()
        });
        wire_teams.push(team);
    }
    clients[0].until("(turn ").await;
    clients[0].send("((resign))\n").await;
    let win = clients[1].until("(win ").await;
    let r = server.next_record().await;
    let teams: Vec<usize> = r.players.iter().map(|p| p.team.unwrap()).collect();
    assert_eq!(teams, wire_teams, "{variant}");
    // A team's win names its team: the players on the winning side have that team number.
    let winner = r.result.winner_side.unwrap();
    for p in r.players.iter().filter(|p| p.side == Some(winner)) {
        if r.result.winner_team != 0 {
            assert_eq!(p.team, Some(r.result.winner_team), "{variant}: {win}");
        }
    }
    assert!(win.contains(&r.result.win), "{win} vs {}", r.result.win);
    server.stop_and_replay(1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_recorded_team_is_the_one_the_wire_gave() {
    wire_teams_match_the_record("traditional-2x4").await;
    wire_teams_match_the_record("2v2").await;
    wire_teams_match_the_record("1v2").await;
}

/// `anqi replay FILE`: (exit code, stdout).
fn replay_file(path: &Path) -> (i32, String) {
    let out = Command::new(ANQI).arg("replay").arg(path).output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legal_all_holds_every_players_counts_and_replay_checks_them() {
    for variant in ["traditional", "2v2", "strategic", "cooperative"] {
        let (r, server) = one_game(variant, "[records]\nlegal_counts = \"all\"\n").await;
        let players = r.players.len();
        assert!(!r.plies.is_empty(), "{variant}");
        let mut differs = 0;
        for ply in &r.plies {
            let all = ply.legal_all.as_ref().expect("legal_all on every ply");
            assert_eq!(all.len(), players, "{variant} ply {}", ply.ply);
            assert_eq!(
                all[ply.player - 1],
                ply.legal,
                "the mover's entry is `legal`"
            );
            differs += all.iter().filter(|c| **c != ply.legal).count();
        }
        if variant != "cooperative" {
            // Opponents own other colours: their counts are not the mover's.
            assert!(differs > 0, "{variant}: every entry equals the mover's");
        }
        let (path, dir) = server.stop().await;
        assert_eq!(replay(&path), "1 verified, 0 failed", "{variant}");
        // A count of a player not to move, changed by one: replay re-derives it and fails.
        let mut tampered = r.clone();
        let ply = tampered
            .plies
            .iter_mut()
            .find(|p| p.player == 1)
            .expect("player 1 moves");
        let other = if players > 1 { 1 } else { 0 };
        ply.legal_all.as_mut().unwrap()[other].reveals += 1;
        let at = ply.ply;
        let bad = dir.0.join("tampered.jsonl");
        std::fs::write(&bad, serde_json::to_string(&tampered).unwrap() + "\n").unwrap();
        let (code, out) = replay_file(&bad);
        assert_eq!(code, 1, "{out}");
        assert!(
            out.contains(&format!(
                "FAILED: ply {at}: player {}'s legal actions recorded as",
                other + 1
            )),
            "{variant}: {out}"
        );
        // One entry short.
        let mut short = r.clone();
        short.plies[0].legal_all.as_mut().unwrap().pop();
        std::fs::write(&bad, serde_json::to_string(&short).unwrap() + "\n").unwrap();
        let (code, out) = replay_file(&bad);
        assert_eq!(code, 1);
        assert!(out.contains("FAILED: ply 1: legal_all has"), "{out}");
    }
}

#[test]
fn a_bad_legal_counts_value_is_named_with_the_values_allowed() {
    let dir = TempDir::new("legal-counts-config");
    let config = dir.0.join("bad.toml");
    std::fs::write(&config, "[records]\nlegal_counts = \"everybody\"\n").unwrap();
    let out = Command::new(ANQI)
        .args(["serve", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("legal_counts = \"everybody\"") && err.contains("\"mover\" or \"all\""),
        "{err}"
    );
}

#[test]
fn records_without_sides_teams_or_legal_all_still_load_and_replay() {
    // tests/data/one-game.jsonl was written before these keys existed.
    let path = Path::new(ROOT).join("tests/data/one-game.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        !text.contains("\"side\"") && !text.contains("\"team\"") && !text.contains("legal_all")
    );
    let records = anqi_core::record::read_records(&path).unwrap();
    let r = records[0].1.as_ref().unwrap();
    assert!(r
        .players
        .iter()
        .all(|p| p.side.is_none() && p.team.is_none()));
    assert!(r.plies.iter().all(|p| p.legal_all.is_none()));
    assert_eq!(replay(&path), "1 verified, 0 failed");
    // Written again (as `anqi merge` does), it stays in the old form.
    let again = serde_json::to_string(r).unwrap();
    assert!(!again.contains("\"side\"") && !again.contains("legal_all"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_side_or_team_fails_replay() {
    let (r, server) = one_game("2v2", "").await;
    let (_path, dir) = server.stop().await;
    let bad = dir.0.join("bad.jsonl");
    let mut wrong_side = r.clone();
    wrong_side.players[1].side = Some(0);
    let mut wrong_team = r.clone();
    wrong_team.players[2].team = Some(2);
    let lines = [&wrong_side, &wrong_team]
        .map(|r| serde_json::to_string(r).unwrap())
        .join("\n");
    std::fs::write(&bad, lines + "\n").unwrap();
    let (code, out) = replay_file(&bad);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(
            ":1: FAILED: player 2 is recorded on side 0, but the variant puts them on side 1"
        ),
        "{out}"
    );
    assert!(
        out.contains(":2: FAILED: player 3 is recorded in team 2, but the wire gives them team 1"),
        "{out}"
    );
}
