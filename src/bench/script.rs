//! Games computed before they are played: the bench clients replay them over the wire, so
//! their hot path holds no move generation, only bytes to send and prompts to wait for.
//!
//! Game `i` of a run with seed `S` is played by clients whose seeds are `S-i-1`, `S-i-2`...
//! (in seat order) on a server whose own seed is [`SERVER_SEED`] with client seeds mixed in,
//! so its deal is known in advance; each ply's action is drawn at random among the legal ones
//! by a generator seeded from `i`.

use anqi_core::rules::playout::SplitMix64;
use anqi_core::rules::{SeedInputs, Variant};
use anqi_core::wire::{ClientClause, ClientMessage};
use std::sync::Arc;

/// The bench server's `[seed] server`: with it (and client seeds mixed in) every deal is known
/// to the clients.
pub const SERVER_SEED: &str = "anqi-bench";

/// One ply of a script: who plays it and the line they send.
#[derive(Clone, Debug)]
pub struct Ply {
    /// The player (1-based id, as in `(turn T ID)`).
    pub mover: usize,
    /// `((board B)(ACTION))` and a newline.
    pub line: Vec<u8>,
}

/// One game, from the handshake to its last ply.
#[derive(Clone, Debug)]
pub struct Script {
    /// Each player's SEED for `(init NAME SEED)`, in seat order.
    pub seeds: Vec<String>,
    pub plies: Vec<Ply>,
}

impl Script {
    /// Game `index` of the run seeded `seed` (see the module's documentation), played to its
    /// end by the rules.
    pub fn random(variant: &Arc<Variant>, seed: &str, index: u64) -> Script {
        let seeds = seeds(variant, seed, index);
        let inputs = SeedInputs {
            clients: seeds.clone(),
            server: SERVER_SEED.to_string(),
        };
        let mut game = anqi_core::rules::Game::new(variant.clone(), inputs.deal_for(variant));
        let mut rng = SplitMix64::new(index ^ ACTION_SEED_MIX);
        let mut plies = Vec::new();
        while game.outcome().is_none() {
            // As `rules::playout` picks: one count, and the action at a random index.
            let (action, _) = game
                .pick_legal(|n| rng.below(n))
                .expect("a game not over has a legal action");
            let message = ClientMessage(vec![
                ClientClause::Board(game.wire_board()),
                ClientClause::from(action),
            ]);
            let mover = game.to_move();
            plies.push(Ply {
                mover,
                line: format!("{message}\n").into_bytes(),
            });
            game.play(mover, action)
                .expect("a legal action is accepted");
        }
        Script { seeds, plies }
    }
}

/// The players' seeds of game `index` of the run seeded `seed`, in seat order.
pub fn seeds(variant: &Variant, seed: &str, index: u64) -> Vec<String> {
    (1..=variant.players)
        .map(|p| format!("{seed}-{index}-{p}"))
        .collect()
}

/// Mixed into the action generator's seed, so that game 0 does not draw from seed 0.
const ACTION_SEED_MIX: u64 = 0x5eed_0fbe_ec40_0000;

#[cfg(test)]
mod tests {
    use super::*;
    use anqi_core::rules::Game;

    /// The lines, read back as a server reads them, play the game to its end on the deal the
    /// seeds give, each with the board of its position.
    #[test]
    fn a_script_replays_to_the_end_of_its_game() {
        let variant = Arc::new(Variant::load("traditional-2x4").unwrap());
        let script = Script::random(&variant, "t", 3);
        assert_eq!(script.seeds, ["t-3-1", "t-3-2"]);
        let inputs = SeedInputs {
            clients: script.seeds.clone(),
            server: SERVER_SEED.to_string(),
        };
        let mut game = Game::new(variant.clone(), inputs.deal_for(&variant));
        for ply in &script.plies {
            assert_eq!(ply.mover, game.to_move());
            let line = std::str::from_utf8(&ply.line).unwrap();
            let message = ClientMessage::parse(line.trim_end().as_bytes()).unwrap();
            assert_eq!(message.0[0], ClientClause::Board(game.wire_board()));
            let action = message.0[1].action().unwrap();
            game.play(ply.mover, action).unwrap();
        }
        assert!(game.outcome().is_some());
        let again = Script::random(&variant, "t", 3);
        assert_eq!(again.plies.len(), script.plies.len());
    }
}
