//! Turn order and rounds, the sides and the colours they own, what a player may move, and the
//! start of each turn (what the rules look at before the mover acts).

use super::Game;
use crate::rules::cell_set::Cell;
use crate::rules::piece::{Colour, Control};
use crate::rules::variant::Objective;
use std::sync::OnceLock;

impl Game {
    /// The player to move (1-based).
    pub fn to_move(&self) -> usize {
        self.variant.order[self.turn_pos]
    }

    /// The paper's TURN counter: rounds of the turn order completed so far.
    pub fn round(&self) -> u32 {
        self.round
    }

    /// The place in the variant's turn order (`Variant::order`, from 0) of the player to move:
    /// what tells apart two turns of a player the order names more than once.
    pub fn turn_place(&self) -> usize {
        self.turn_pos
    }

    /// The side (0-based) of a player (1-based).
    pub fn side_of(&self, player: usize) -> usize {
        self.variant.side_of(player)
    }

    /// The colour a side plays, once decided.
    pub fn colour_of_side(&self, side: usize) -> Option<Colour> {
        self.side_colour.get(side).copied().flatten()
    }

    /// What a player may move.
    #[inline]
    pub fn control_of(&self, player: usize) -> Control {
        if player == self.to_move() {
            // Kept for the turn (a learner's observation asks every ply, and finding a
            // player's side is a search of the variant's sides).
            return self.control;
        }
        self.control_of_side(self.side_of(player))
    }

    /// What the players of `side` may move.
    fn control_of_side(&self, side: usize) -> Control {
        match self.variant.objective {
            Objective::Clear { .. } => Control::Both,
            Objective::Capture => self.colour_of_side(side).into(),
        }
    }

    /// The first piece a side reveals or draws decides the colours (competitive games only).
    pub(super) fn decide_colours(&mut self, colour: Colour) {
        if self.variant.objective == Objective::Capture
            && self.side_colour.iter().all(Option::is_none)
        {
            let side = self.side_of(self.to_move());
            self.side_colour[side] = Some(colour);
            self.side_colour[1 - side] = Some(colour.other());
        }
    }

    /// Passes the turn to the next place of the turn order, counting a round when it wraps.
    #[inline(always)]
    pub(super) fn pass_turn(&mut self) {
        // Without a branch: two players take turns in a pattern the processor may not
        // predict (after a capture-chain or a bag draw keeps the turn).
        let next = self.turn_pos + 1;
        let wraps = next == self.variant.order.len();
        self.turn_pos = if wraps { 0 } else { next };
        self.round += u32::from(wraps);
    }

    /// Starts the turn of the player at `turn_pos`: clears the last turn's counts, sets what the
    /// mover may move, looks at the mover's legal actions (counting them when `next` says so),
    /// then rules on the end of the game ([`Game::rule_on_end`]). `step` is the quiet step (a
    /// step onto an empty cell) that led to the position, if one did: how the positions since
    /// the last irreversible action are kept.
    pub(super) fn start_turn(&mut self, next: NextTurn, step: Option<(Cell, Cell)>) {
        // Until the position is kept (below, unless a ruling ends the game first).
        self.unkept_step = step;
        self.counts = OnceLock::new();
        self.repeats = 0;
        self.control = self.control_of_side(self.turn_sides[self.turn_pos]);
        // With no face-down cell to reveal and no bag to draw from, whether the mover is stuck
        // takes looking at its moves. A random playout, which picks its next action from a
        // count of them (`Game::choose_legal`), counts them all and keeps the count for the
        // turn; a driver that lists them (`VecGame`) has no use for a count, and only asks
        // whether there is a move, stopping at the first.
        let v = &self.variant;
        self.counted_now = next == NextTurn::Count
            && self.hand.is_none()
            && self.chain.is_none()
            && self.bag.is_empty()
            && !self.board.has_face_down()
            && self
                .board
                .count_pieces(&v.topology, &v.capture, self.control, &mut self.counted);
        let stuck = if self.counted_now {
            self.counted.total == 0
        } else {
            !self.public_state().has_any()
        };
        self.rule_on_end(stuck, step);
    }
}

/// What [`Game::start_turn`] does with the mover's legal actions, besides ruling on the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NextTurn {
    /// Counts them on a board with no face-down cell (where whether the mover is stuck takes
    /// looking at its moves anyway), for a random playout to pick from.
    Count,
    /// Only asks whether there is one, stopping at the first: for a driver that lists them.
    Check,
}
