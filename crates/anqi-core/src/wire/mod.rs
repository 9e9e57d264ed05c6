//! The wire layer: framing of the byte stream and the typed messages of the protocol.

mod extension;
mod frame;
mod message;
#[cfg(feature = "tokio")]
mod reader;

pub use extension::{Extension, Extensions, LastPly};
pub use frame::{FrameError, FrameLimits, FrameScanner};
pub use message::{
    ClientClause, ClientMessage, ErrorCode, MessageError, ServerClause, ServerMessage,
};
#[cfg(feature = "tokio")]
pub use reader::FrameReader;
