//! Framing: finds where one message ends in a byte stream, before any S-expression parser sees
//! the bytes.
//!
//! A message is one balanced top-level list. The scanner is a state machine that looks at each
//! byte once, so the frames and errors it produces are a function of the byte stream alone,
//! however the stream is split into packets. It knows strings with `\` escapes and `;` comments,
//! and accepts any whitespace (or none) between messages. Outside a message:
//!
//! - `;` starts a comment that runs to the end of the line;
//! - `)` is a stray parenthesis, reported at once;
//! - any other byte that is neither whitespace nor `(` starts a run of garbage, which ends at
//!   whitespace or `(` and is then reported once (with its first [`GARBAGE_SHOWN`] bytes).
//!
//! Two limits are enforced here so that no parser ever sees an oversized or deeply nested
//! input: a frame longer than `max_bytes`, or nested deeper than `max_depth`, is reported once
//! and then discarded up to its closing parenthesis, without being buffered.

/// Limits checked while scanning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameLimits {
    pub max_bytes: usize,
    pub max_depth: usize,
}

/// At most this many bytes of a garbage run (and never more than `max_bytes`) are kept to be
/// shown in its error.
pub const GARBAGE_SHOWN: usize = 40;

/// What the scanner could not accept. The stream stays usable after every one of them.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    #[error("expected a message starting with '(', found {0:?}")]
    Garbage(String),
    #[error("')' without a matching '('")]
    StrayClose,
    #[error("message longer than {0} bytes")]
    TooLarge(usize),
    #[error("message nested deeper than {0} levels")]
    TooDeep(usize),
}

/// Where the scanner is in the stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Between messages.
    Between,
    /// In a run of bytes that cannot start a message.
    Garbage,
    /// Inside a message, keeping its bytes.
    Frame,
    /// Inside a message that broke a limit, discarding its bytes up to its end.
    Skip,
}

/// Incremental frame scanner. Feed bytes with [`FrameScanner::push`], take frames with
/// [`FrameScanner::next_frame`].
#[derive(Debug)]
pub struct FrameScanner {
    limits: FrameLimits,
    /// Received bytes not yet looked at: `input[pos..]`.
    input: Vec<u8>,
    pos: usize,
    state: State,
    /// The message being read (state `Frame`), or the start of a garbage run.
    kept: Vec<u8>,
    depth: usize,
    in_string: bool,
    escape: bool,
    in_comment: bool,
}

impl FrameScanner {
    pub fn new(limits: FrameLimits) -> FrameScanner {
        FrameScanner {
            limits,
            input: Vec::new(),
            pos: 0,
            state: State::Between,
            kept: Vec::new(),
            depth: 0,
            in_string: false,
            escape: false,
            in_comment: false,
        }
    }

    /// Appends received bytes.
    pub fn push(&mut self, bytes: &[u8]) {
        if self.pos == self.input.len() {
            self.input.clear();
            self.pos = 0;
        }
        self.input.extend_from_slice(bytes);
    }

    /// Bytes held: those not yet scanned and those of a message not yet complete (bounded by
    /// `max_bytes` plus one push).
    pub fn buffered(&self) -> usize {
        self.input.len() - self.pos + self.kept.len()
    }

    /// Whether the scanner is inside a message (so end of input now would cut one short).
    pub fn mid_frame(&self) -> bool {
        matches!(self.state, State::Frame | State::Skip)
    }

    /// The next complete frame, an error about the input, or `None` when more bytes are needed.
    pub fn next_frame(&mut self) -> Option<Result<Vec<u8>, FrameError>> {
        while let Some(&b) = self.input.get(self.pos) {
            match self.state {
                State::Between => {
                    self.pos += 1;
                    if self.in_comment {
                        self.in_comment = b != b'\n';
                        continue;
                    }
                    match b {
                        b'(' => {
                            self.state = State::Frame;
                            self.kept.clear();
                            self.kept.push(b);
                            self.depth = 1;
                        }
                        b')' => return Some(Err(FrameError::StrayClose)),
                        b';' => self.in_comment = true,
                        _ if b.is_ascii_whitespace() => {}
                        _ => {
                            self.state = State::Garbage;
                            self.kept.clear();
                            self.kept.push(b);
                        }
                    }
                }
                State::Garbage => {
                    if b == b'(' || b.is_ascii_whitespace() {
                        // The run ends here; the `(` is left to start the next message.
                        self.state = State::Between;
                        let shown = String::from_utf8_lossy(&self.kept).into_owned();
                        self.kept.clear();
                        return Some(Err(FrameError::Garbage(shown)));
                    }
                    self.pos += 1;
                    // Within the frame limit too, so that nothing held exceeds `max_bytes`.
                    if self.kept.len() < GARBAGE_SHOWN.min(self.limits.max_bytes) {
                        self.kept.push(b);
                    }
                }
                State::Frame | State::Skip => {
                    self.pos += 1;
                    let keep = self.state == State::Frame;
                    if keep {
                        self.kept.push(b);
                    }
                    if let Some(done) = self.inside(b) {
                        return Some(done);
                    }
                    if keep && self.kept.len() > self.limits.max_bytes {
                        self.skip_rest();
                        return Some(Err(FrameError::TooLarge(self.limits.max_bytes)));
                    }
                }
            }
        }
        // Everything received has been looked at.
        self.input.clear();
        self.pos = 0;
        None
    }

    /// Tracks strings, comments and nesting inside a message; returns the frame when `b`
    /// closed it, or an error when it broke the nesting limit.
    fn inside(&mut self, b: u8) -> Option<Result<Vec<u8>, FrameError>> {
        if self.in_comment {
            self.in_comment = b != b'\n';
            return None;
        }
        if self.in_string {
            if self.escape {
                self.escape = false;
            } else if b == b'\\' {
                self.escape = true;
            } else if b == b'"' {
                self.in_string = false;
            }
            return None;
        }
        match b {
            b'"' => self.in_string = true,
            b';' => self.in_comment = true,
            b'(' => {
                self.depth += 1;
                if self.depth > self.limits.max_depth && self.state == State::Frame {
                    self.skip_rest();
                    return Some(Err(FrameError::TooDeep(self.limits.max_depth)));
                }
            }
            b')' => {
                self.depth -= 1;
                if self.depth == 0 {
                    let was = std::mem::replace(&mut self.state, State::Between);
                    if was == State::Skip {
                        return None;
                    }
                    if self.kept.len() > self.limits.max_bytes {
                        // The closing byte itself went over the limit.
                        self.kept.clear();
                        return Some(Err(FrameError::TooLarge(self.limits.max_bytes)));
                    }
                    return Some(Ok(std::mem::take(&mut self.kept)));
                }
            }
            _ => {}
        }
        None
    }

    /// Discards the rest of the current message.
    fn skip_rest(&mut self) {
        self.state = State::Skip;
        self.kept = Vec::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: FrameLimits = FrameLimits {
        max_bytes: 64,
        max_depth: 4,
    };

    fn scan_all(chunks: &[&[u8]]) -> Vec<Result<String, FrameError>> {
        let mut s = FrameScanner::new(LIMITS);
        let mut out = Vec::new();
        for c in chunks {
            s.push(c);
            while let Some(r) = s.next_frame() {
                out.push(r.map(|f| String::from_utf8(f).unwrap()));
            }
        }
        out
    }

    #[test]
    fn coalesced_and_split_messages() {
        let whole = b"((init a 1))\n((board XX)(rev 0))((resign))";
        let want = vec![
            Ok("((init a 1))".to_string()),
            Ok("((board XX)(rev 0))".to_string()),
            Ok("((resign))".to_string()),
        ];
        assert_eq!(scan_all(&[whole]), want);
        // Every split point, and byte by byte.
        for cut in 0..whole.len() {
            assert_eq!(
                scan_all(&[&whole[..cut], &whole[cut..]]),
                want,
                "cut at {cut}"
            );
        }
        let bytes: Vec<&[u8]> = whole.chunks(1).collect();
        assert_eq!(scan_all(&bytes), want);
    }

    #[test]
    fn strings_escapes_and_comments_do_not_count_parens() {
        let got = scan_all(&[b"((init \"a ) b\\\" (\" 1)) ; comment (\n((resign))"]);
        assert_eq!(
            got,
            vec![
                Ok("((init \"a ) b\\\" (\" 1))".to_string()),
                Ok("((resign))".to_string())
            ]
        );
    }

    #[test]
    fn any_whitespace_between_messages() {
        let got = scan_all(&[b" \t\r\n((bag))\r\n\t((resign))  "]);
        assert_eq!(got.len(), 2);
        assert!(got.iter().all(|r| r.is_ok()));
    }

    #[test]
    fn garbage_is_reported_once_per_run_and_the_stream_recovers() {
        let got = scan_all(&[b"hello world((resign))"]);
        assert_eq!(
            got,
            vec![
                Err(FrameError::Garbage("hello".into())),
                Err(FrameError::Garbage("world".into())),
                Ok("((resign))".into())
            ]
        );
        let got = scan_all(&[b")((bag))"]);
        assert_eq!(got, vec![Err(FrameError::StrayClose), Ok("((bag))".into())]);
    }

    #[test]
    fn oversized_frames_are_cut_and_skipped_without_buffering() {
        let mut s = FrameScanner::new(LIMITS);
        s.push(b"((board ");
        assert!(s.next_frame().is_none());
        let filler = vec![b'X'; 1000];
        s.push(&filler);
        assert_eq!(s.next_frame(), Some(Err(FrameError::TooLarge(64))));
        for _ in 0..100 {
            s.push(&filler);
            assert_eq!(s.next_frame(), None);
            assert!(s.buffered() < 100, "skipped bytes are not kept");
        }
        s.push(b"))((resign))");
        assert_eq!(s.next_frame(), Some(Ok(b"((resign))".to_vec())));
    }

    #[test]
    fn comments_inside_a_message_count_towards_its_size() {
        let mut s = FrameScanner::new(LIMITS);
        s.push(b"((rev 0);");
        assert_eq!(s.next_frame(), None);
        let filler = vec![b'a'; 1000];
        s.push(&filler);
        assert_eq!(s.next_frame(), Some(Err(FrameError::TooLarge(64))));
        for _ in 0..100 {
            s.push(&filler);
            assert_eq!(s.next_frame(), None);
            assert!(s.buffered() < 100, "comment bytes are not kept");
        }
        // The comment ends at a newline; the frame it was in ends at its ')'.
        s.push(b"\n)((bag))");
        assert_eq!(s.next_frame(), Some(Ok(b"((bag))".to_vec())));
        // Between messages, a comment is dropped as it comes.
        s.push(b"; chatter");
        s.push(&filler);
        assert_eq!(s.next_frame(), None);
        assert!(s.buffered() < 100);
    }

    #[test]
    fn the_size_limit_is_exact() {
        // 64 bytes exactly pass; 65 do not, whichever byte goes over.
        // "((board " + n letters + "))" is n + 10 bytes.
        let exact = format!("((board {}))", "X".repeat(54));
        assert_eq!(exact.len(), 64);
        assert_eq!(scan_all(&[exact.as_bytes()]), vec![Ok(exact.clone())]);
        let over = format!("((board {}))", "X".repeat(56));
        assert_eq!(
            scan_all(&[over.as_bytes(), b"((bag))"]),
            vec![Err(FrameError::TooLarge(64)), Ok("((bag))".into())]
        );
        // 65 bytes whose 65th is the final ')'.
        let over_at_close = format!("((board {}))", "X".repeat(55));
        assert_eq!(over_at_close.len(), 65);
        assert_eq!(
            scan_all(&[over_at_close.as_bytes(), b"((bag))"]),
            vec![Err(FrameError::TooLarge(64)), Ok("((bag))".into())]
        );
    }

    #[test]
    fn deep_nesting_is_refused_before_parsing() {
        let deep = format!("{}{}", "(".repeat(50_000), ")".repeat(50_000));
        let got = scan_all(&[deep.as_bytes(), b"((bag))"]);
        assert_eq!(got, vec![Err(FrameError::TooDeep(4)), Ok("((bag))".into())]);
    }

    /// Every frame and error, as bytes, with the buffer bound checked after each chunk.
    fn scan_bytes(chunks: &[&[u8]]) -> Vec<Result<Vec<u8>, FrameError>> {
        scan_with(LIMITS, chunks)
    }

    fn scan_with(limits: FrameLimits, chunks: &[&[u8]]) -> Vec<Result<Vec<u8>, FrameError>> {
        let mut s = FrameScanner::new(limits);
        let mut out = Vec::new();
        for c in chunks {
            s.push(c);
            while let Some(r) = s.next_frame() {
                out.push(r);
            }
            assert!(
                s.buffered() <= limits.max_bytes,
                "{} bytes held between pushes",
                s.buffered()
            );
        }
        out
    }

    #[test]
    fn garbage_does_not_depend_on_packet_boundaries() {
        // Once, a run of garbage ended where a packet ended: "ab" then ";((resign))" gave two
        // garbage errors, or a comment that swallowed the message, depending on the split.
        let whole: &[u8] = b"ab;((resign))\nhello((bag))";
        let want = scan_bytes(&[whole]);
        assert_eq!(
            want,
            vec![
                Err(FrameError::Garbage("ab;".into())),
                Ok(b"((resign))".to_vec()),
                Err(FrameError::Garbage("hello".into())),
                Ok(b"((bag))".to_vec()),
            ]
        );
        for cut in 0..=whole.len() {
            assert_eq!(
                scan_bytes(&[&whole[..cut], &whole[cut..]]),
                want,
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn long_garbage_is_reported_once_with_its_start() {
        let run = vec![b'z'; 10_000];
        let got = scan_bytes(&[&run, b" ((bag))"]);
        assert_eq!(
            got,
            vec![
                Err(FrameError::Garbage("z".repeat(GARBAGE_SHOWN))),
                Ok(b"((bag))".to_vec())
            ]
        );
    }

    fn interesting_byte() -> impl proptest::strategy::Strategy<Value = u8> {
        use proptest::prelude::*;
        prop_oneof![
            3 => prop::sample::select(b"()\"\\; \n\tab'".to_vec()),
            1 => any::<u8>(),
        ]
    }

    proptest::proptest! {
        /// The frames and errors are a function of the byte stream alone: any split into
        /// packets gives the same sequence as the whole stream at once, and byte by byte.
        #[test]
        fn frames_depend_on_the_bytes_alone(
            bytes in proptest::collection::vec(interesting_byte(), 0..300),
            cuts in proptest::collection::vec(proptest::prelude::any::<proptest::sample::Index>(), 0..12),
        ) {
            let mut points: Vec<usize> = cuts.iter().map(|i| i.index(bytes.len() + 1)).collect();
            points.push(0);
            points.push(bytes.len());
            points.sort_unstable();
            let chunks: Vec<&[u8]> = points.windows(2).map(|w| &bytes[w[0]..w[1]]).collect();
            let single: Vec<&[u8]> = bytes.chunks(1).collect();
            // The usual limits, and limits smaller than a garbage excerpt.
            let tiny = FrameLimits { max_bytes: 13, max_depth: 3 };
            for limits in [LIMITS, tiny] {
                let whole = scan_with(limits, &[&bytes]);
                proptest::prop_assert_eq!(&scan_with(limits, &chunks), &whole);
                proptest::prop_assert_eq!(&scan_with(limits, &single), &whole);
            }
        }
    }

    #[test]
    fn unbalanced_input_waits_then_is_reported_as_too_large() {
        let got = scan_all(&[b"((board XX)(rev 0)"]);
        assert!(got.is_empty(), "an unfinished message is not an error yet");
        let mut s = FrameScanner::new(LIMITS);
        s.push(b"((board XX)(rev 0)");
        assert!(s.next_frame().is_none());
        assert!(s.mid_frame());
    }
}
