//! The wire layer: framing of the byte stream and the typed messages of the protocol.

mod extension;
mod frame;
mod message;
mod name;
#[cfg(feature = "tokio")]
mod reader;
mod request;

pub use extension::{Extension, Extensions, LastPly};
pub use frame::{FrameError, FrameLimits, FrameScanner};
pub use message::{
    ClientClause, ClientMessage, ErrorCode, MessageError, ServerClause, ServerMessage,
};
pub use name::{check_name, unfit, NameError, MAX_NAME_CHARS};
#[cfg(feature = "tokio")]
pub use reader::FrameReader;
pub use request::Request;
