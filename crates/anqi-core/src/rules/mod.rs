//! The rules core: pure game logic with no I/O, shared by the server, the replay verifier and
//! the reference clients.

mod action;
mod board;
mod capture;
mod catalog;
mod cell_set;
mod deal;
mod description;
mod game;
mod movegen;
mod piece;
pub mod playout;
mod positions;
mod square;
mod topology;
mod variant;

pub use action::{Action, ActionCounts, ActionKind};
pub use board::{Board, BoardError};
pub use capture::{CaptureException, CaptureRules};
pub use catalog::{VariantError, SHIPPED};
pub use cell_set::Cell;
pub use deal::{Deal, DealError, DealPart, SeedInputs};
pub use description::{
    DescriptionError, MAX_DESCRIPTION_BYTES, MAX_LIST_ITEMS, MAX_ORDER, MAX_PLAYERS,
};
pub use game::{Game, Outcome, PlayError, Played, Position, PublicState, Termination};
pub use movegen::Illegal;
pub use piece::Control;
pub use piece::{Colour, Kind, Piece, PieceError};
pub use square::Square;
pub use topology::{
    Topology, TopologyError, MAX_CELLS, MAX_GRID_SIDE, MAX_JUMPS, MAX_JUMP_TARGETS, MAX_MOVES,
};
pub use variant::{
    default_order, ClockDefaults, ColourRule, DrawRules, Objective, Repetition, Start, Variant,
};
