//! Server messages: `ServerMessage::parse` (what a client does) on any framed bytes, under the
//! reference client's limits. The invariants are in `shared/message.rs`.
#![no_main]

#[path = "shared/message.rs"]
mod message;

use anqi_core::wire::{FrameLimits, ServerMessage};
use libfuzzer_sys::fuzz_target;

/// The limits of the reference client (`crates/anqi-client`).
const LIMITS: FrameLimits = FrameLimits {
    max_bytes: 1 << 24,
    max_depth: 16,
};

fuzz_target!(|data: &[u8]| message::round_trip(LIMITS, data, ServerMessage::parse));
