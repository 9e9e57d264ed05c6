//! Framing: finds where one message ends in a byte stream, before any S-expression parser sees
//! the bytes.
//!
//! A message is one balanced top-level list. The scanner is incremental (each byte is looked at
//! once, however the stream is split into packets), aware of strings with `\` escapes and of `;`
//! comments, and accepts any whitespace (or none) between messages. Two limits are enforced here
//! so that no parser ever sees an oversized or deeply nested input: a frame longer than
//! `max_bytes`, or nested deeper than `max_depth`, is reported once and then discarded up to
//! its closing parenthesis, without being buffered.

/// Limits checked while scanning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameLimits {
    pub max_bytes: usize,
    pub max_depth: usize,
}

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

/// Incremental frame scanner. Feed bytes with [`FrameScanner::push`], take frames with
/// [`FrameScanner::next_frame`].
#[derive(Debug)]
pub struct FrameScanner {
    limits: FrameLimits,
    buf: Vec<u8>,
    /// Next byte of `buf` to look at.
    pos: usize,
    /// Whether `buf[0]` starts a frame being read.
    in_frame: bool,
    depth: usize,
    in_string: bool,
    escape: bool,
    in_comment: bool,
    /// Discarding the rest of a frame that broke a limit.
    skipping: bool,
}

impl FrameScanner {
    pub fn new(limits: FrameLimits) -> FrameScanner {
        FrameScanner {
            limits,
            buf: Vec::new(),
            pos: 0,
            in_frame: false,
            depth: 0,
            in_string: false,
            escape: false,
            in_comment: false,
            skipping: false,
        }
    }

    /// Appends received bytes.
    pub fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// Bytes held for a frame not yet complete (bounded by `max_bytes` plus one push).
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }

    /// Whether the scanner is inside a message (so end of input now would cut one short).
    pub fn mid_frame(&self) -> bool {
        self.in_frame || self.skipping
    }

    /// The next complete frame, an error about the input, or `None` when more bytes are needed.
    pub fn next_frame(&mut self) -> Option<Result<Vec<u8>, FrameError>> {
        while self.pos < self.buf.len() {
            let b = self.buf[self.pos];
            self.pos += 1;
            if self.in_comment {
                if b == b'\n' {
                    self.in_comment = false;
                }
                // A comment inside a message counts towards its size like any other byte.
                if let Some(e) = self.check_length() {
                    return Some(Err(e));
                }
                continue;
            }
            if self.in_string {
                if self.escape {
                    self.escape = false;
                } else if b == b'\\' {
                    self.escape = true;
                } else if b == b'"' {
                    self.in_string = false;
                }
                if let Some(e) = self.check_length() {
                    return Some(Err(e));
                }
                continue;
            }
            if !self.in_frame && !self.skipping {
                match b {
                    b'(' => {
                        self.consume_before(self.pos - 1);
                        self.in_frame = true;
                        self.depth = 1;
                    }
                    b')' => {
                        self.consume_before(self.pos);
                        return Some(Err(FrameError::StrayClose));
                    }
                    b';' => self.in_comment = true,
                    _ if b.is_ascii_whitespace() => {}
                    _ => return Some(Err(self.garbage())),
                }
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b';' => self.in_comment = true,
                b'(' => {
                    self.depth += 1;
                    if self.depth > self.limits.max_depth && !self.skipping {
                        self.start_skipping();
                        return Some(Err(FrameError::TooDeep(self.limits.max_depth)));
                    }
                }
                b')' => {
                    self.depth -= 1;
                    if self.depth == 0 {
                        if self.skipping {
                            self.skipping = false;
                            self.consume_before(self.pos);
                            continue;
                        }
                        self.in_frame = false;
                        if self.pos > self.limits.max_bytes {
                            // The closing byte itself went over the limit.
                            self.consume_before(self.pos);
                            return Some(Err(FrameError::TooLarge(self.limits.max_bytes)));
                        }
                        let frame = self.buf[..self.pos].to_vec();
                        self.consume_before(self.pos);
                        return Some(Ok(frame));
                    }
                }
                _ => {}
            }
            if let Some(e) = self.check_length() {
                return Some(Err(e));
            }
        }
        if !self.in_frame {
            // Between frames or skipping one: nothing here is worth keeping.
            self.consume_before(self.pos);
        }
        None
    }

    /// Drops `buf[..n]`.
    fn consume_before(&mut self, n: usize) {
        self.buf.drain(..n);
        self.pos -= n;
    }

    fn check_length(&mut self) -> Option<FrameError> {
        if self.in_frame && !self.skipping && self.pos > self.limits.max_bytes {
            self.start_skipping();
            return Some(FrameError::TooLarge(self.limits.max_bytes));
        }
        None
    }

    fn start_skipping(&mut self) {
        self.in_frame = false;
        self.skipping = true;
        self.consume_before(self.pos);
    }

    /// Consumes a run of bytes that cannot start a message, up to whitespace or '('.
    fn garbage(&mut self) -> FrameError {
        let start = self.pos - 1;
        while self.pos < self.buf.len()
            && !self.buf[self.pos].is_ascii_whitespace()
            && self.buf[self.pos] != b'('
        {
            self.pos += 1;
        }
        let shown: String =
            String::from_utf8_lossy(&self.buf[start..self.pos.min(start + 40)]).into();
        self.consume_before(self.pos);
        FrameError::Garbage(shown)
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
