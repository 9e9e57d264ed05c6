//! The actions a player can take on the board, and how they are counted.

use super::piece::Piece;
use super::topology::Cell;
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
