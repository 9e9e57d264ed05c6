//! What the `client_message` and `server_message` targets share: the parse-print round trip.

use anqi_core::wire::{ErrorCode, FrameLimits, FrameScanner, MessageError};
use std::fmt::{Debug, Display};

/// No limit: the printed form of a parsed message is checked to be exactly one frame.
const UNLIMITED: FrameLimits = FrameLimits {
    max_bytes: usize::MAX,
    max_depth: usize::MAX,
};

/// The frames the scanner lets through under `limits`.
fn frames(limits: FrameLimits, bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut scanner = FrameScanner::new(limits);
    scanner.push(bytes);
    std::iter::from_fn(|| scanner.next_frame())
        .filter_map(Result::ok)
        .collect()
}

/// Parses every frame of `data` with `parse`. Invariants:
/// - parsing never panics, and a refusal is a `syntax`, `unknown` or `too-deep` error (the
///   codes the parser promises; `too-deep` for brackets, which the frame scanner does not
///   count);
/// - whatever parses prints (`to_string`) as one frame that parses to the same message and
///   prints the same again (the canonical form is a fixed point).
pub fn round_trip<M: PartialEq + Debug + Display>(
    limits: FrameLimits,
    data: &[u8],
    parse: fn(&[u8]) -> Result<M, MessageError>,
) {
    for frame in frames(limits, data) {
        let message = match parse(&frame) {
            Ok(m) => m,
            Err(e) => {
                assert!(
                    matches!(
                        e.code,
                        ErrorCode::Syntax | ErrorCode::Unknown | ErrorCode::TooDeep
                    ),
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
        let again = parse(printed.as_bytes()).unwrap_or_else(|e| {
            panic!("{message:?} prints as {printed:?}, which does not parse: {e}")
        });
        assert_eq!(again, message, "{message:?} prints as {printed:?}");
        assert_eq!(again.to_string(), printed);
    }
}
