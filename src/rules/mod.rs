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
pub use board::{Board, Illegal, Square};
pub use capture::{CaptureException, CaptureRules};
pub use deal::{random_server_seed, SeedInputs};
pub use game::{Game, Outcome, PlayError, Played, Termination};
pub use piece::{Colour, Kind, Piece};
pub use topology::{Cell, Topology, TopologyError};
pub use variant::{DrawRules, Variant, VariantError, SHIPPED};
