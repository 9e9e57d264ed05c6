//! The frame scanner: how a byte stream is cut into packets must not matter.
//!
//! Input: two bytes of settings, then the stream. The settings pick the limits (small ones, so
//! that the size and depth limits are hit often) and the seed of the split points.
//!
//! Invariants:
//! - the stream pushed in one piece, byte by byte, and in random chunks gives exactly the same
//!   sequence of frames and errors, and leaves the scanner in the same `mid_frame` state;
//! - every frame is at most `max_bytes` long and is one balanced list: it starts with `(` and
//!   ends with `)`;
//! - once `next_frame` has returned `None`, the scanner holds at most `max_bytes` bytes (a
//!   frame being read), plus the few bytes of a garbage run its error message may show: never
//!   an amount that grows with the stream.
#![no_main]

use anqi_core::wire::{FrameError, FrameLimits, FrameScanner};
use libfuzzer_sys::fuzz_target;

/// The most bytes of a garbage run a `FrameError::Garbage` shows.
const GARBAGE_SHOWN: usize = 40;

/// A frame, written with `escape_ascii` (readable in an assertion message, and one-to-one), or
/// an error.
type Event = Result<String, FrameError>;

/// Feeds `chunks` one after the other, taking every frame after each push.
fn scan<'a>(limits: FrameLimits, chunks: impl Iterator<Item = &'a [u8]>) -> (Vec<Event>, bool) {
    let mut scanner = FrameScanner::new(limits);
    let mut events = Vec::new();
    for chunk in chunks {
        scanner.push(chunk);
        while let Some(event) = scanner.next_frame() {
            if let Ok(frame) = &event {
                assert!(
                    frame.len() <= limits.max_bytes,
                    "a {}-byte frame passed a {}-byte limit",
                    frame.len(),
                    limits.max_bytes
                );
                assert_eq!(frame.first(), Some(&b'('), "a frame starts with '('");
                assert_eq!(frame.last(), Some(&b')'), "a frame ends with ')'");
            }
            events.push(event.map(|f| f.escape_ascii().to_string()));
        }
        assert!(
            scanner.buffered() <= limits.max_bytes + GARBAGE_SHOWN,
            "{} bytes buffered with a {}-byte limit",
            scanner.buffered(),
            limits.max_bytes
        );
    }
    (events, scanner.mid_frame())
}

/// Split points from a small xorshift generator: cheap, and reproducible from the input.
fn random_chunks(stream: &[u8], seed: u8) -> Vec<&[u8]> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ u64::from(seed) ^ ((stream.len() as u64) << 8);
    let mut chunks = Vec::new();
    let mut rest = stream;
    while !rest.is_empty() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        // Mostly short chunks (where the boundaries are), sometimes long ones; never empty.
        let len = match state % 4 {
            0 => 1 + (state >> 8) as usize % 64,
            _ => 1 + (state >> 8) as usize % 8,
        }
        .min(rest.len());
        let (chunk, tail) = rest.split_at(len);
        chunks.push(chunk);
        rest = tail;
    }
    chunks
}

fuzz_target!(|data: &[u8]| {
    let [settings, seed, stream @ ..] = data else {
        return;
    };
    let limits = FrameLimits {
        // 1..=253 bytes and 1..=4 levels: both limits are within the fuzzer's reach, and the
        // larger sizes let real client messages through.
        max_bytes: 1 + 4 * usize::from(settings & 0x3f),
        max_depth: 1 + usize::from(settings >> 6),
    };
    let whole = scan(limits, std::iter::once(stream));
    let bytes = scan(limits, stream.chunks(1));
    assert_eq!(whole, bytes, "whole stream vs byte by byte");
    let chunks = random_chunks(stream, *seed);
    let split = scan(limits, chunks.iter().copied());
    assert_eq!(whole, split, "whole stream vs chunks of {:?}", {
        chunks.iter().map(|c| c.len()).collect::<Vec<_>>()
    });
});
