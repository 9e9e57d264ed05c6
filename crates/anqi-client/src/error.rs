//! What can go wrong talking to the server, and facts an observation cannot be made of, as
//! callers branch on them.

use anqi_core::wire::ErrorCode;

/// What went wrong talking to the server. Callers branch on the kind: a refused connection is
/// worth retrying, a closed one carries the server's last word, a protocol error is a bug.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("cannot connect to {addr}: {source}")]
    Connect {
        addr: String,
        source: std::io::Error,
    },
    #[error("connection: {0}")]
    Io(#[from] std::io::Error),
    /// The server closed the connection; the last error it had sent, if any (`busy`, ...).
    #[error("the server closed the connection {when}{}", last_error(last))]
    Closed {
        when: &'static str,
        last: Option<(ErrorCode, String)>,
    },
    /// A message from the server that this client cannot make sense of.
    #[error("{0}")]
    Protocol(String),
}

/// Why an observation cannot be made of the facts given ([`crate::Observation::public`],
/// [`crate::Observation::of_game`]): they do not fit the variant.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ObservationError {
    /// `what` (the player, or the player to move) is not one of the game's seats.
    #[error("no {what} {player}: the players of {variant} are 1 to {players}")]
    NoSuchPlayer {
        what: &'static str,
        player: usize,
        variant: String,
        players: usize,
    },
    /// The wire board cannot be read for the variant (the text says why).
    #[error("{0}")]
    Board(String),
    /// The chain's cell is past the board.
    #[error("the chain's cell {0} is not on the board")]
    ChainOffBoard(usize),
    /// Not one colour (or none) for each side.
    #[error("{given} colours for the {sides} sides of {variant}")]
    Colours {
        given: usize,
        sides: usize,
        variant: String,
    },
}

/// The result of the client's calls.
pub type Result<T> = std::result::Result<T, ClientError>;

pub(crate) fn protocol<T>(text: impl Into<String>) -> Result<T> {
    Err(ClientError::Protocol(text.into()))
}

/// ` (last error: ...)` when there was one, for messages about a closed connection.
fn last_error(last: &Option<(ErrorCode, String)>) -> String {
    last.as_ref()
        .map(|(code, text)| format!(" (last error: {} {text:?})", code.name()))
        .unwrap_or_default()
}
