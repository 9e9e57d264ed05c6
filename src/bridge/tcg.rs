//! The tcg protocol: PLACEHOLDER, written next.

use super::session::Session;
use super::{BridgeError, BridgeOptions, Translator};

/// The protocol's name for anqi cell `cell` on the 4x8 board.
pub fn square_name(cell: usize) -> String {
    format!("?{cell}")
}

/// A running tcg engine.
pub struct TcgEngine;

impl Translator for TcgEngine {
    async fn start(_options: &BridgeOptions) -> Result<Self, BridgeError> {
        Err(BridgeError::EngineStart(
            "the tcg bridge is not written yet".into(),
        ))
    }

    fn engine_name(&self) -> Option<String> {
        None
    }

    async fn play(
        &mut self,
        _session: &mut Session,
        _options: &BridgeOptions,
    ) -> Result<(), BridgeError> {
        Ok(())
    }

    async fn quit(self) {}
}
