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
    /// The server could not be reached, or broke off.
    #[error("server: {0}")]
    Server(String),
    /// The event's variant cannot be played through this protocol.
    #[error("{0}")]
    Unplayable(String),
}

impl BridgeError {
    /// The exit status of `anqi bridge` for this error: 3 when the engine never started (a
    /// tournament stops the event), 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        match self {
            BridgeError::EngineStart(_) => 3,
            _ => 1,
        }
    }
}
