//! One material's values read back from its stored bytes, as they stream in.
//!
//! The stored bytes are never held whole: they are read [`CHUNK`] bytes at a time, and each
//! chunk goes through the SHA-256 and the inflater, whose output goes through a window of
//! [`WINDOW`] bytes into the values. What this holds at once is the values (at most the
//! [`super::file::MAX_MATERIAL_BYTES`] checked when the file was opened) and a few dozen
//! kilobytes, however long the stored bytes are (a header may claim up to
//! [`super::file::max_stored_bytes`] of them, and a file can hold that many zeros in a few
//! blocks of a sparse file).
//!
//! Inflation stops as soon as its output passes the size the material's layout holds (a
//! decompression bomb inflates no further), and nothing is inflated past a fault; the SHA-256
//! still takes every stored byte, and is checked first: a changed bit anywhere is reported as
//! a checksum fault, whatever it did to the inflater.

use super::error::MaterialFault;
use miniz_oxide::inflate::core::{decompress, inflate_flags, DecompressorOxide};
use miniz_oxide::inflate::TINFLStatus;
use sha2::{Digest, Sha256};
use std::io::{ErrorKind, Read};

/// How many stored bytes are read, hashed and inflated at a time.
pub const CHUNK: usize = 64 << 10;

/// The inflater's output window: a power of two, at least DEFLATE's 32 KiB of history (what
/// a back-reference may reach), as miniz_oxide's wrapping output buffer needs.
const WINDOW: usize = 64 << 10;

/// What a material's stored bytes are to be, as its header entry says (checked at open).
#[derive(Clone, Copy, Debug)]
pub struct StoredBytes<'a> {
    /// How many there are.
    pub bytes: u64,
    /// Their SHA-256, in lowercase hexadecimal.
    pub sha256: &'a str,
    /// Bytes per value once inflated: 1 or 2.
    pub width: u8,
    /// Values once inflated: the layout's entries.
    pub entries: u64,
}

/// Reads one material's `entry.bytes` stored bytes from `source`, checks their SHA-256 against
/// `entry.sha256`, and inflates them to `entry.entries` values of `entry.width` bytes.
///
/// # Errors
/// `source` fails or ends before `entry.bytes` ([`MaterialFault::Read`]), the bytes are not the
/// ones hashed ([`MaterialFault::Checksum`]), or they do not inflate to exactly the layout's
/// size ([`MaterialFault::Inflate`], [`MaterialFault::TooLong`], [`MaterialFault::TooShort`]).
/// The counts are the caller's to check.
pub fn read_stored(
    mut source: impl Read,
    entry: StoredBytes<'_>,
) -> Result<Vec<u16>, MaterialFault> {
    let read_fault = |kind| MaterialFault::Read {
        bytes: entry.bytes,
        kind,
    };
    let mut hasher = Sha256::new();
    let mut inflater = Inflater::new(entry.width, entry.entries)?;
    let mut chunk = vec![0u8; CHUNK];
    let mut left = entry.bytes;
    while left > 0 {
        let want = usize::try_from(left).map_or(CHUNK, |l| l.min(CHUNK));
        let n = match source.read(&mut chunk[..want]) {
            Ok(0) => return Err(read_fault(ErrorKind::UnexpectedEof)),
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(read_fault(e.kind())),
        };
        left -= n as u64;
        hasher.update(&chunk[..n]);
        inflater.feed(&chunk[..n], left > 0);
    }
    let digest = crate::hex::hex(&hasher.finalize());
    if digest != entry.sha256 {
        return Err(MaterialFault::Checksum);
    }
    inflater.finish()
}

/// Where the inflater is.
enum State {
    /// Inflating: the stream has not ended.
    Running,
    /// The stream ended where the input did.
    Done,
    /// Stopped at a fault: nothing more is inflated.
    Failed(MaterialFault),
}

/// A DEFLATE stream inflated as its bytes come, into values of `width` bytes each.
struct Inflater {
    decompressor: Box<DecompressorOxide>,
    window: Vec<u8>,
    /// Where the next output goes in `window`.
    at: usize,
    width: u8,
    /// The bytes the layout holds: `entries * width`.
    expected: u64,
    /// The bytes inflated so far.
    inflated: u64,
    values: Vec<u16>,
    /// The first byte of a two-byte value whose second byte has not come yet.
    low: Option<u8>,
    state: State,
}

impl Inflater {
    /// An inflater of `entries` values of `width` bytes (1 or 2, as checked at open).
    fn new(width: u8, entries: u64) -> Result<Inflater, MaterialFault> {
        let expected = entries.saturating_mul(u64::from(width));
        // Checked at open (at most 1 GiB); refused here too rather than trusted.
        usize::try_from(expected).map_err(|_| MaterialFault::TooLong { expected })?;
        Ok(Inflater {
            decompressor: Box::default(),
            window: vec![0; WINDOW],
            at: 0,
            width,
            expected,
            inflated: 0,
            values: Vec::new(),
            low: None,
            state: State::Running,
        })
    }

    /// Inflates `input`, the next stored bytes; `more` when others follow it.
    fn feed(&mut self, mut input: &[u8], more: bool) {
        loop {
            match self.state {
                State::Running => {}
                State::Done => {
                    if !input.is_empty() {
                        self.state = State::Failed(MaterialFault::Inflate(
                            "bytes follow the end of the stream",
                        ));
                    }
                    return;
                }
                State::Failed(_) => return,
            }
            let flags = if more {
                inflate_flags::TINFL_FLAG_HAS_MORE_INPUT
            } else {
                0
            };
            let (status, used, made) = decompress(
                &mut self.decompressor,
                input,
                &mut self.window,
                self.at,
                flags,
            );
            input = &input[used.min(input.len())..];
            let start = self.at;
            self.at = (self.at + made) & (WINDOW - 1);
            if let Err(fault) = self.take(start, made) {
                self.state = State::Failed(fault);
                return;
            }
            match status {
                TINFLStatus::Done => self.state = State::Done,
                // The window is full: it is taken, and inflating goes on.
                TINFLStatus::HasMoreOutput => {}
                TINFLStatus::NeedsMoreInput => return,
                TINFLStatus::FailedCannotMakeProgress => {
                    self.state = State::Failed(MaterialFault::Inflate("the stream is cut short"));
                }
                TINFLStatus::Adler32Mismatch => {
                    self.state = State::Failed(MaterialFault::Inflate("a checksum mismatch"));
                }
                _ => self.state = State::Failed(MaterialFault::Inflate("not a DEFLATE stream")),
            }
        }
    }

    /// Takes `made` inflated bytes from `window[start..]` into the values, unless they pass
    /// the layout's size.
    fn take(&mut self, start: usize, made: usize) -> Result<(), MaterialFault> {
        let expected = self.expected;
        self.inflated += made as u64;
        if self.inflated > expected {
            return Err(MaterialFault::TooLong { expected });
        }
        let bytes = &self.window[start..start + made];
        // Grown by doubling, never past the layout's entries (a bomb stops at them).
        let entries = (expected / u64::from(self.width)) as usize;
        let needed = (self.inflated / u64::from(self.width)) as usize;
        if needed > self.values.capacity() {
            let want = needed.max(2 * self.values.capacity()).min(entries);
            self.values.reserve_exact(want - self.values.len());
        }
        if self.width == 1 {
            self.values.extend(bytes.iter().map(|&b| u16::from(b)));
            return Ok(());
        }
        for &b in bytes {
            match self.low.take() {
                None => self.low = Some(b),
                Some(low) => self.values.push(u16::from_le_bytes([low, b])),
            }
        }
        Ok(())
    }

    /// The values, once every stored byte was fed.
    fn finish(self) -> Result<Vec<u16>, MaterialFault> {
        match self.state {
            State::Failed(fault) => Err(fault),
            State::Running => Err(MaterialFault::Inflate("the stream is cut short")),
            State::Done if self.inflated < self.expected => Err(MaterialFault::TooShort {
                got: self.inflated,
                expected: self.expected,
            }),
            State::Done => Ok(self.values),
        }
    }
}
