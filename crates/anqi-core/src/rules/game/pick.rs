//! Picking a legal action by its index among all of them, from one count of the board: how a
//! random playout ([`crate::rules::playout`], and the program's scripted games through
//! [`Game::pick_legal`]) chooses its action without listing the others.

use super::{Game, PublicState};
use crate::rules::action::{Action, ActionKind, Packed};
use crate::rules::movegen::Counted;

impl Game {
    /// The legal action of the player to move of index `choose(n)` among the `n` of
    /// [`Game::for_each_legal`], with its kind, `None` when there is none: the pick random
    /// playouts make ([`crate::rules::playout`]), for callers that play the same games.
    pub fn pick_legal(&mut self, choose: impl FnOnce(u32) -> u32) -> Option<(Action, ActionKind)> {
        self.choose_legal(choose).map(Packed::unpack)
    }

    /// The legal action of the player to move of index `choose(n)` among the `n` of
    /// [`Game::for_each_legal`], with its kind: [`PublicState::choose_listed`], from the
    /// board's count when there is one (no piece in hand, no chain, a board with sets). The
    /// count goes into the game's own buffer, rather than a new one every ply.
    pub(crate) fn choose_legal(&mut self, choose: impl FnOnce(u32) -> u32) -> Option<Packed> {
        if self.counted_now {
            return self.public_state().choose_counted(&self.counted, choose);
        }
        let v = &self.variant;
        if self.hand.is_none()
            && self.chain.is_none()
            && self
                .board
                .count_pieces(&v.topology, &v.capture, self.control, &mut self.counted)
        {
            // Not `counted_now`: that count is the whole of `counts()`, and this one may
            // leave out a bag draw.
            return self.public_state().choose_counted(&self.counted, choose);
        }
        self.public_state().choose_listed(choose)
    }
}

impl PublicState<'_> {
    /// The legal action of index `choose(n)` among the `n` of [`PublicState::for_each_legal`]
    /// (`choose` returns an index below `n`), with its kind (as a [`Packed`] word): what
    /// [`PublicState::counts`] then [`PublicState::nth_legal`] give. `None` when there is no
    /// legal action (`choose` is not called) or `choose` returns an index out of range. The
    /// general case of [`Game::choose_legal`], which picks from the board's count when it
    /// can ([`PublicState::choose_counted`]).
    fn choose_listed(&self, choose: impl FnOnce(u32) -> u32) -> Option<Packed> {
        let n = self.counts().total();
        let (action, kind) = (n > 0).then(|| self.nth_legal_kind(choose(n) as usize))??;
        Some(Packed::new(action, kind))
    }

    /// [`PublicState::choose_listed`] from the board's count for this state (no piece in hand,
    /// no chain), in one count instead of two.
    fn choose_counted(&self, counted: &Counted, choose: impl FnOnce(u32) -> u32) -> Option<Packed> {
        let v = self.variant;
        let on_board = counted.total;
        let n = on_board + u32::from(self.bag_has_pieces);
        if n == 0 {
            return None;
        }
        let k = choose(n);
        if k < on_board {
            self.board.action_at(&v.topology, &v.capture, counted, k)
        } else {
            (self.bag_has_pieces && k == on_board)
                .then_some(Packed::new(Action::Bag, ActionKind::Bag))
        }
    }
}
