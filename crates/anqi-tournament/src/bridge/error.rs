//! Why a bridged game could not be played to its end.

/// Why a bridged game could not be played to its end.
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    /// The engine could not be started, or failed its protocol's handshake: nothing was sent
    /// to the server (exit status 3).
    #[error("the engine did not start: {0}")]
    EngineStart(String),
    /// The engine died or broke its protocol during the game.
    #[error("engine: {0}")]
    Engine(String),
    /// The engine is alive but did not acknowledge a command within its acknowledgement time
    /// ([`BridgeOptions::ack`](super::BridgeOptions::ack)): kept apart from a death, so that
    /// a tournament records it as slow, not as a crash (exit status 4).
    #[error("slow to acknowledge: {0}")]
    SlowAck(String),
    /// The server could not be reached, or broke off.
    #[error("server: {0}")]
    Server(String),
    /// The event's variant cannot be played through this protocol.
    #[error("{0}")]
    Unplayable(String),
}

impl BridgeError {
    /// The exit status of `anqi bridge` for this error: 3 when the engine never started (a
    /// tournament stops the event), 4 when it was slow to acknowledge (a tournament does not
    /// call that a crash), 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        match self {
            BridgeError::EngineStart(_) => 3,
            BridgeError::SlowAck(_) => SLOW_ACK_EXIT,
            _ => 1,
        }
    }
}

/// The exit status of an `anqi bridge` whose engine was slow to acknowledge a command.
pub const SLOW_ACK_EXIT: u8 = 4;

impl BridgeError {
    /// Whether the engine itself failed in the game (it died, broke its protocol, or was slow
    /// to acknowledge): the bridge then leaves the game, as the engine's connection would.
    pub fn is_engine_failure(&self) -> bool {
        matches!(self, BridgeError::Engine(_) | BridgeError::SlowAck(_))
    }
}
