//! The rules core: pure game logic with no I/O, shared by the server, the replay verifier and
//! the reference clients.

mod action;
mod board;
mod capture;
/// Sets of cells as machine words.
mod cell_set;
mod deal;
/// The description notation: S-expression text to a validated [`Variant`].
mod description;
mod game;
mod piece;
/// Random playouts: the core's benchmark and results fingerprint.
pub mod playout;
mod topology;
/// The variant model and the shipped variants.
mod variant;

pub use action::{Action, ActionCounts, ActionKind};
pub use board::{Board, Control, Illegal, Square};
pub use capture::{CaptureException, CaptureRules};
pub use deal::{Deal, SeedInputs};
pub use description::{
    DescriptionError, MAX_DESCRIPTION_BYTES, MAX_LIST_ITEMS, MAX_ORDER, MAX_PLAYERS,
};
pub use game::{Game, Outcome, PlayError, Played, PublicState, Termination};
pub use piece::{Colour, Kind, Piece};
pub use topology::{
    Cell, Topology, TopologyError, MAX_CELLS, MAX_GRID_SIDE, MAX_JUMPS, MAX_JUMP_TARGETS, MAX_MOVES,
};
pub use variant::{
    default_order, ClockDefaults, ColourRule, DrawRules, Objective, Repetition, Start, Variant,
    VariantError, SHIPPED,
};
