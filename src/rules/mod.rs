//! The rules core: pure game logic with no I/O, shared by the server, the replay verifier and
//! the reference clients.

mod action;
mod board;
mod capture;
mod deal;
mod game;
mod piece;
mod topology;
mod variant;

pub use action::{Action, ActionCounts, ActionKind};
pub use board::{Board, Control, Illegal, Square};
pub use capture::{CaptureException, CaptureRules};
pub use deal::{random_server_seed, Deal, SeedInputs};
pub use game::{Game, Outcome, PlayError, Played, PublicState, Termination};
pub use piece::{Colour, Kind, Piece};
pub use topology::{Cell, Topology, TopologyError};
pub use variant::{
    default_order, ClockDefaults, ColourRule, DrawRules, Objective, Repetition, Start, Variant,
    VariantError, SHIPPED,
};
