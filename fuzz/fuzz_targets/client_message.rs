//! Client messages: `ClientMessage::parse` on whatever the frame scanner lets through, under
//! the server's default limits. The invariants are in `shared/message.rs`.
#![no_main]

#[path = "shared/message.rs"]
mod message;

use anqi_core::wire::{ClientMessage, FrameLimits};
use libfuzzer_sys::fuzz_target;

/// The server's default limits (`config.toml`: max_frame_bytes, max_nesting).
const LIMITS: FrameLimits = FrameLimits {
    max_bytes: 16384,
    max_depth: 8,
};

fuzz_target!(|data: &[u8]| message::round_trip(LIMITS, data, ClientMessage::parse));
