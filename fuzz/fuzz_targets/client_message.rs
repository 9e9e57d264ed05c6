//! Client messages: `ClientMessage::parse` on whatever the frame scanner lets through.
//!
//! Invariants:
//! - parsing never panics, and a refusal is a `syntax` or `unknown` error (the only codes the
//!   parser promises);
//! - whatever parses prints (`to_string`) as one frame that parses to the same message and
//!   prints the same again (the canonical form is a fixed point).
#![no_main]

use anqi::wire::{ClientMessage, ErrorCode, FrameLimits, FrameScanner};
use libfuzzer_sys::fuzz_target;

/// The server's default limits (`config.toml`: max_frame_bytes, max_nesting).
const LIMITS: FrameLimits = FrameLimits {
    max_bytes: 16384,
    max_depth: 8,
};

/// No limit: the printed form of a parsed message is checked to be exactly one frame.
const UNLIMITED: FrameLimits = FrameLimits {
    max_bytes: usize::MAX,
    max_depth: usize::MAX,
};

fn frames(limits: FrameLimits, bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut scanner = FrameScanner::new(limits);
    scanner.push(bytes);
    std::iter::from_fn(|| scanner.next_frame())
        .filter_map(Result::ok)
        .collect()
}

fuzz_target!(|data: &[u8]| {
    for frame in frames(LIMITS, data) {
        let message = match ClientMessage::parse(&frame) {
            Ok(m) => m,
            Err(e) => {
                assert!(
                    matches!(e.code, ErrorCode::Syntax | ErrorCode::Unknown),
                    "{e}"
                );
                continue;
            }
        };
        let printed = message.to_string();
        assert_eq!(
            frames(UNLIMITED, printed.as_bytes()),
            vec![printed.as_bytes().to_vec()],
            "{message:?} prints as one frame"
        );
        let again = ClientMessage::parse(printed.as_bytes()).unwrap_or_else(|e| {
            panic!("{message:?} prints as {printed:?}, which does not parse: {e}")
        });
        assert_eq!(again, message, "{message:?} prints as {printed:?}");
        assert_eq!(again.to_string(), printed);
    }
});
