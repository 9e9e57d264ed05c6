//! [`PublicState`]: everything the legality of the mover's actions depends on, all of it
//! public, so that a client rebuilding it from the messages it receives and the server agree.

use crate::rules::action::{Action, ActionCounts, ActionKind};
use crate::rules::board::Board;
use crate::rules::cell_set::Cell;
use crate::rules::piece::{Control, Piece};
use crate::rules::square::Square;
use crate::rules::variant::Variant;

/// Everything the legality of the mover's actions depends on, all of it public: what a client
/// can rebuild from the messages it receives (see the reference client), and what the server
/// uses too, so both always agree.
#[derive(Clone, Copy, Debug)]
pub struct PublicState<'a> {
    pub variant: &'a Variant,
    pub board: &'a Board,
    /// What the mover may move.
    pub control: Control,
    /// The piece the mover drew and must put.
    pub hand: Option<Piece>,
    /// Chain capture in progress: the cell of the piece that must capture again.
    pub chain: Option<Cell>,
    /// Whether a `(bag)` draw is possible.
    pub bag_has_pieces: bool,
}

impl PublicState<'_> {
    /// Calls `f` with every legal action: only puts while holding a drawn piece; only captures
    /// by the chaining piece during a chain; otherwise reveals, moves and a bag draw.
    pub fn for_each_legal(&self, mut f: impl FnMut(Action, ActionKind)) {
        let v = self.variant;
        if let Some(piece) = self.hand {
            for (cell, sq) in self.board.squares().iter().enumerate() {
                if *sq == Square::Empty {
                    f(Action::Put { piece, cell }, ActionKind::Put);
                }
            }
            return;
        }
        if let Some(cell) = self.chain {
            self.board
                .for_each_move_from(&v.topology, &v.capture, cell, true, f);
            return;
        }
        self.board
            .for_each_action(&v.topology, &v.capture, self.control, &mut f);
        if self.bag_has_pieces {
            f(Action::Bag, ActionKind::Bag);
        }
    }

    /// How many legal actions of each kind [`PublicState::for_each_legal`] gives, counted
    /// without listing them in the common case (no piece in hand, no chain).
    pub fn counts(&self) -> ActionCounts {
        let mut counts = ActionCounts::default();
        if self.hand.is_some() || self.chain.is_some() {
            self.for_each_legal(|_, kind| counts.add(kind));
            return counts;
        }
        let v = self.variant;
        counts = self
            .board
            .count_actions(&v.topology, &v.capture, self.control);
        counts.bags = u32::from(self.bag_has_pieces);
        counts
    }

    /// Whether there is any legal action (`counts().total() > 0`), found out cheaply: a
    /// face-down cell or a bag draw settles it at once, else the first movable piece with a
    /// move does.
    pub fn has_any(&self) -> bool {
        if self.hand.is_some() || self.chain.is_some() {
            return self.counts().total() > 0;
        }
        let v = self.variant;
        self.bag_has_pieces || self.board.has_action(&v.topology, &v.capture, self.control)
    }

    /// The `k`-th (from 0) of the actions [`PublicState::for_each_legal`] gives, without
    /// listing the others in the common case (no piece in hand, no chain).
    pub fn nth_legal(&self, k: usize) -> Option<Action> {
        self.nth_legal_kind(k).map(|(a, _)| a)
    }

    /// [`PublicState::nth_legal`], with the action's kind.
    pub(super) fn nth_legal_kind(&self, k: usize) -> Option<(Action, ActionKind)> {
        if self.hand.is_some() || self.chain.is_some() {
            let (mut i, mut found) = (0, None);
            self.for_each_legal(|a, kind| {
                if i == k {
                    found = Some((a, kind));
                }
                i += 1;
            });
            return found;
        }
        let v = self.variant;
        let board = self.board;
        match board.nth_action(&v.topology, &v.capture, self.control, k) {
            Some(found) => Some(found),
            None => {
                let moves = board.count_actions(&v.topology, &v.capture, self.control);
                (self.bag_has_pieces && k == moves.total() as usize)
                    .then_some((Action::Bag, ActionKind::Bag))
            }
        }
    }

    /// The legal actions, collected.
    pub fn legal_actions(&self) -> Vec<Action> {
        let mut out = Vec::new();
        self.for_each_legal(|a, _| out.push(a));
        out
    }

    /// Whether the piece at `cell` could capture now (what starts or continues a chain).
    pub fn can_capture_from(&self, cell: Cell) -> bool {
        let v = self.variant;
        let mut any = false;
        self.board
            .for_each_move_from(&v.topology, &v.capture, cell, true, |_, _| any = true);
        any
    }
}
