//! The actions a player can take on the board, and how they are counted.

use super::cell_set::Cell;
use super::piece::{Colour, Kind, Piece};
use std::fmt;

/// One action. Its wire form is `(rev POS)`, `(mov POS_I POS_F)` (a cannon jump is a `mov`
/// too), `(bag)` or `(put P POS)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Turn the face-down piece at a cell face up.
    Reveal(Cell),
    /// Move the revealed piece at `from` to `to`: a step, a step capture, or a cannon jump.
    Move { from: Cell, to: Cell },
    /// Draw a piece from the bag (strategic games); the same player then puts it.
    Bag,
    /// Put the drawn piece on an empty cell.
    Put { piece: Piece, cell: Cell },
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Action::Reveal(c) => write!(f, "(rev {c})"),
            Action::Move { from, to } => write!(f, "(mov {from} {to})"),
            Action::Bag => write!(f, "(bag)"),
            Action::Put { piece, cell } => write!(f, "(put {piece} {cell})"),
        }
    }
}

/// What kind of action a legal action is, for the mobility counts of records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ActionKind {
    Reveal,
    /// A one-cell move, capturing or not.
    Step,
    /// A cannon jump capture.
    Jump,
    Bag,
    Put,
}

/// An action and its kind in one word: how the move generator hands the action it chose to
/// a random playout. A word comes back from a call in a register; an `Option<(Action,
/// ActionKind)>` (32 bytes) is written to memory field by field and copied out whole, and
/// that copy waits for the writes to reach the cache (no store forwarding), on the chain
/// from one ply to the next.
///
/// Bits 0-7 say which action, 8-15 its kind, 16-39 its first cell (or a put's piece, as
/// colour * 7 + kind) and 40-63 its second.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Packed(u64);

// Every cell number fits a packed action's 24 bits.
const _: () = assert!(super::topology::MAX_CELLS < 1 << 24);

impl Packed {
    #[inline(always)]
    pub(crate) fn new(action: Action, kind: ActionKind) -> Packed {
        let (tag, a, b) = match action {
            Action::Reveal(cell) => (0, cell as u64, 0),
            Action::Move { from, to } => (1, from as u64, to as u64),
            Action::Bag => (2, 0, 0),
            Action::Put { piece, cell } => (
                3,
                (piece.colour.index() * 7 + piece.kind.index()) as u64,
                cell as u64,
            ),
        };
        Packed(tag | (kind as u64) << 8 | a << 16 | b << 40)
    }

    #[inline(always)]
    pub(crate) fn unpack(self) -> (Action, ActionKind) {
        let a = (self.0 >> 16 & 0xff_ffff) as usize;
        let b = (self.0 >> 40) as usize;
        let action = match self.0 & 0xff {
            0 => Action::Reveal(a),
            1 => Action::Move { from: a, to: b },
            2 => Action::Bag,
            _ => Action::Put {
                piece: Piece::new(Colour::ALL[a / 7 % 2], Kind::ALL[a % 7]),
                cell: b,
            },
        };
        let kind = match self.0 >> 8 & 0xff {
            0 => ActionKind::Reveal,
            1 => ActionKind::Step,
            2 => ActionKind::Jump,
            3 => ActionKind::Bag,
            _ => ActionKind::Put,
        };
        (action, kind)
    }
}

/// How many legal actions of each kind a player has (the curves of the paper's Section III).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ActionCounts {
    pub moves: u32,
    pub jumps: u32,
    pub reveals: u32,
    /// 1 when a bag draw is possible (strategic games).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub bags: u32,
    /// Cells the drawn piece may be put on (strategic games).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub puts: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl ActionCounts {
    /// All legal actions together.
    pub fn total(&self) -> u32 {
        self.moves + self.jumps + self.reveals + self.bags + self.puts
    }

    /// Adds one action of `kind`.
    pub fn add(&mut self, kind: ActionKind) {
        match kind {
            ActionKind::Reveal => self.reveals += 1,
            ActionKind::Step => self.moves += 1,
            ActionKind::Jump => self.jumps += 1,
            ActionKind::Bag => self.bags += 1,
            ActionKind::Put => self.puts += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packed_action_unpacks_to_itself() {
        let piece = Piece::new(Colour::Black, Kind::Cannon);
        for (action, kind) in [
            (Action::Reveal(0), ActionKind::Reveal),
            (Action::Reveal(127), ActionKind::Reveal),
            (
                Action::Move {
                    from: 3,
                    to: 65_535,
                },
                ActionKind::Step,
            ),
            (
                Action::Move {
                    from: 70_000,
                    to: 9,
                },
                ActionKind::Jump,
            ),
            (Action::Bag, ActionKind::Bag),
            (Action::Put { piece, cell: 31 }, ActionKind::Put),
        ] {
            assert_eq!(Packed::new(action, kind).unpack(), (action, kind));
        }
    }
}
