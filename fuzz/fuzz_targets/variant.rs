//! Variant descriptions: `Variant::parse` on any text.
//!
//! Invariants:
//! - parsing never panics;
//! - an accepted variant deals every one of its pieces exactly once (on a cell or in the bag),
//!   starts a game, and lists legal actions: as many as the counts say, and some while the game
//!   is not over;
//! - the first plies of that game (legal actions, picked from the input) are all accepted.
#![no_main]

use anqi_core::rules::{ActionCounts, Game, SeedInputs, Variant};
use libfuzzer_sys::fuzz_target;
use std::sync::Arc;

/// Plies played on an accepted variant: enough to reach reveals, captures and bag draws.
const PLIES: usize = 64;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(variant) = Variant::parse(text) else {
        return;
    };
    let seeds = SeedInputs {
        clients: (1..=variant.players).map(|p| p.to_string()).collect(),
        server: "fuzz".into(),
    };
    let deal = seeds.deal_for(&variant);
    assert_eq!(deal.cells.len(), variant.topology.size());
    assert_eq!(deal.face_up.len(), variant.topology.size());
    let mut dealt: Vec<char> = deal
        .cells
        .iter()
        .flatten()
        .chain(&deal.bag)
        .map(|p| p.letter())
        .collect();
    let mut pieces: Vec<char> = variant.pieces.iter().map(|p| p.letter()).collect();
    dealt.sort_unstable();
    pieces.sort_unstable();
    assert_eq!(dealt, pieces, "the deal holds every piece once");

    let mut game = Game::new(Arc::new(variant), deal);
    // Choices come from the input's bytes, so that different inputs play different games.
    let mut choices = data.iter().cycle();
    for _ in 0..PLIES {
        let mut counts = ActionCounts::default();
        let mut legal = Vec::new();
        game.for_each_legal(|a, kind| {
            counts.add(kind);
            legal.push(a);
        });
        assert_eq!(counts, game.counts(), "counts of {legal:?}");
        if game.outcome().is_some() {
            break;
        }
        assert!(
            !legal.is_empty(),
            "a game that is not over has legal actions"
        );
        let pick = usize::from(*choices.next().unwrap_or(&0)) % legal.len();
        let player = game.to_move();
        if let Err(e) = game.play(player, legal[pick]) {
            panic!("listed action {} refused: {e}", legal[pick]);
        }
    }
});
