//! What a bot is: given what it sees of the game, it chooses an action. And the simplest bot.

use crate::history::History;
use crate::setup::Setup;
use anqi_core::rules::{Action, Board, Control, Piece, Variant};
use anqi_core::wire::ErrorCode;
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

/// Everything a bot sees when it must act.
#[derive(Clone, Debug)]
pub struct View<'a> {
    /// The setup message of this player's seat (its id, teammates, the board's topology).
    pub setup: &'a Setup,
    /// The rules this client plays by.
    pub variant: &'a Variant,
    /// The board now (in a bag game a cell that never held a piece is empty).
    pub board: &'a Board,
    /// What this player may move.
    pub control: Control,
    /// The piece drawn from the bag, which must be put now.
    pub hand: Option<Piece>,
    /// The paper's TURN counter.
    pub turn: u32,
    /// Every legal action.
    pub legal: &'a [Action],
    /// What this player has seen of the game so far: the pieces still face-down (or in the
    /// bag) per colour and kind, how often each position occurred (for the repetition rule),
    /// the plies without progress, and what the protocol extensions told (every ply, the
    /// clocks). See [`History`] for what is exact and what is inferred.
    pub history: &'a History,
}

/// A bot: given what it sees, choose an action.
pub trait Bot {
    /// The action to play: one of `view.legal` (the server refuses anything else).
    fn choose(&mut self, view: &View<'_>) -> Action;

    /// Whether the bot says something of its actions ([`Bot::comment`]): the client then asks
    /// the server for the `comment` extension. No by default.
    fn comments(&self) -> bool {
        false
    }

    /// What the bot says of the action it chose last (its search's depth and score, say),
    /// sent beside the action as `(comment "TEXT")` when the server granted the `comment`
    /// extension; the game's record keeps it in the ply's `comment`.
    fn comment(&self) -> Option<String> {
        None
    }
}

/// Picks uniformly among the legal actions, from its own seeded generator.
pub struct RandomBot {
    rng: ChaCha8Rng,
}

impl RandomBot {
    /// A random bot whose generator is seeded with `seed`.
    pub fn new(seed: u64) -> RandomBot {
        RandomBot {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl Bot for RandomBot {
    fn choose(&mut self, view: &View<'_>) -> Action {
        // Rejection sampling: no modulo bias.
        let n = view.legal.len() as u64;
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let x = self.rng.next_u64();
            if x < zone {
                return view.legal[(x % n) as usize];
            }
        }
    }
}

/// How a game ended for this client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameResult {
    /// This client's player id.
    pub me: usize,
    /// The `(win PLAYER TEAM)` values.
    pub win: (usize, usize),
    /// Error replies received during the game.
    pub errors: Vec<(ErrorCode, String)>,
}
