//! The cdc-platform protocol: PLACEHOLDER, written next.

use super::session::Session;
use super::{BridgeError, BridgeOptions, Translator};

/// The protocol's name for anqi cell `cell` on the 4x8 board.
pub fn square_name(cell: usize) -> String {
    format!("?{cell}")
}

/// A running cdc-platform engine.
pub struct PlatformEngine;

impl Translator for PlatformEngine {
    async fn start(_options: &BridgeOptions) -> Result<Self, BridgeError> {
        Err(BridgeError::EngineStart(
            "the cdc-platform bridge is not written yet".into(),
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
