//! The uci-banqi protocol: PLACEHOLDER, written next.

use super::session::Session;
use super::{BridgeError, BridgeOptions, Translator};

/// The protocol's name for anqi cell `cell` on the 4x8 board.
pub fn square_name(cell: usize) -> String {
    format!("?{cell}")
}

/// A running uci-banqi engine.
pub struct UciEngine;

impl Translator for UciEngine {
    async fn start(_options: &BridgeOptions) -> Result<Self, BridgeError> {
        Err(BridgeError::EngineStart(
            "the uci-banqi bridge is not written yet".into(),
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
