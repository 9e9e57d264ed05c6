//! Every shipped variant plays to a verified result over TCP with the reference Rust bots, and a
//! variant from a file outside the repository needs no code change.

use crate::common;

use anqi_core::rules::{Termination, Variant, SHIPPED};
use common::{TempDir, TestServer};

/// Plays `games` games of `variant` and checks every record. The bots are told nothing: they
/// play by the description the server sends (the `variant` extension), and make no mistake.
async fn play_and_verify(variant: &str, games: usize) -> Vec<anqi_core::record::GameRecord> {
    let mut server = TestServer::start(variant, "[clock]\ngame_ms = 0\n").await;
    let rules = Variant::load(variant).unwrap();
    let seats = rules.players;
    let tasks = common::random_bots(&server.addr(), games * seats, 1000);
    for t in tasks {
        let r = t
            .await
            .unwrap()
            .unwrap_or_else(|e| panic!("{variant}: {e:#}"));
        assert!(
            r.errors.is_empty(),
            "{variant}: the bot made mistakes: {:?}",
            r.errors
        );
    }
    let mut records = Vec::new();
    for _ in 0..games {
        let r = server.next_record().await;
        anqi_core::replay::verify(&r).unwrap_or_else(|e| panic!("{variant} game {}: {e}", r.game));
        assert!(r.faults.is_empty(), "{variant}: {:?}", r.faults);
        assert!(!r.result.reason.is_fault(), "{variant}: {:?}", r.result);
        assert_eq!(r.variant, rules.name);
        records.push(r);
    }
    server.stop().await;
    records
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_shipped_variant_plays_to_a_verified_result() {
    let only = std::env::var("ANQI_VARIANT").ok();
    for (name, _) in SHIPPED
        .iter()
        .filter(|(n, _)| only.as_deref().is_none_or(|o| o == *n))
    {
        let games = if name.contains("8x16") { 2 } else { 4 };
        let records = play_and_verify(name, games).await;
        let v = Variant::shipped(name).unwrap();
        for r in &records {
            assert_eq!(r.players.len(), v.players, "{name}");
            // Team games announce teams with (win 0 T); others name the winning player.
            let w = &r.result;
            if let Some(side) = w.winner_side {
                if v.sides[side].len() > 1 {
                    assert_eq!((w.winner, w.winner_team), (0, side + 1), "{name}");
                } else {
                    assert_eq!((w.winner, w.winner_team), (v.sides[side][0], 0), "{name}");
                }
            } else {
                assert_eq!(w.win, "(win 0 0)", "{name}");
            }
        }
        println!(
            "{name}: {:?}",
            records
                .iter()
                .map(|r| (
                    r.result.win.as_str(),
                    r.result.reason.name(),
                    r.result.plies
                ))
                .collect::<Vec<_>>()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn single_player_games_end_cleared_or_failed() {
    let records = play_and_verify("single", 6).await;
    for r in &records {
        match r.result.reason {
            Termination::Cleared => assert_eq!(r.result.win, "(win 1 0)"),
            Termination::PlyCap | Termination::NoMoves | Termination::NoProgress => {
                assert_eq!(r.result.win, "(win 0 0)")
            }
            other => panic!("unexpected end {other:?}"),
        }
        // Every ply is the one player's, and the turn counter counts them.
        assert!(r.plies.iter().all(|p| p.player == 1));
        assert_eq!(r.result.turns, r.result.plies);
    }
}

#[tokio::test]
async fn a_new_variant_from_a_file_needs_no_code_change() {
    let dir = TempDir::new("variant-file");
    let path = dir.0.join("l-shape.sexp");
    std::fs::write(
        &path,
        r#"(variant
             (name l-shape)
             (board (shape "XX.." "XX.." "XXXX"))
             (pieces CNPkgp)
             (start (reveal 2))
             (no-progress 30)
             (repetition 3))"#,
    )
    .unwrap();
    let records = play_and_verify(path.to_str().unwrap(), 3).await;
    assert!(records.iter().all(|r| r.variant == "l-shape"));
}
