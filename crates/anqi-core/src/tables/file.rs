//! The tables file: writing it, and reading it back as untrusted input.
//!
//! # Format (`anqi-tables 2`)
//! A first line `anqi-tables 2`; a second line, a JSON header ([`Header`]): the variant, the
//! digest of the rules the values depend on ([`TableRules::digest`]), the most pieces, and
//! for every material its entries, counts, where its values are and their SHA-256; then each
//! material's values, one after the other in the header's order, each compressed with DEFLATE
//! (`miniz_oxide`): a byte per entry when every entry is below 256, else two (little-endian).
//! An entry is 0 for an index that is no position, 1 for a draw, `2 + d` for a position
//! decided in `d` plies (won by the side to move when `d` is odd, lost when even).
//!
//! Format 1 had no checksums: such a file is refused, with the command that rebuilds it.
//!
//! # What is checked, and when
//! When a file is opened ([`open`]), its header alone, against the rules and the file's
//! length: the format, the rules' digest, the symmetries, and for each material its name, its
//! entries (its layout's, from the rules), its width, its place (the materials' bytes follow
//! one another from the header's end to the file's, with nothing between or after), and its
//! stored length against its layout's size both ways: no fewer bytes than could inflate to it
//! (DEFLATE's ratio), no more than DEFLATE writes for it at its worst ([`max_stored_bytes`]).
//! A header that fails refuses the file: a server does not start with it. No size from the
//! file is allocated before it is checked.
//!
//! When a material's values are first read ([`read_values`]), before any of them is used:
//! its bytes' SHA-256 (so a changed bit anywhere in them is caught), then inflation, stopped
//! past the size its layout holds, then the counts the header records. The bytes stream
//! through the SHA-256 and the inflater a chunk at a time (`read`): reading holds the values
//! and a few dozen kilobytes, never the stored bytes whole. A material that fails is never
//! used ([`super::TablesError`]).

use super::error::{clip, MaterialFault, MaterialNameError};
use super::read::StoredBytes;
use super::{Layout, Material, Table, TableRules, TableStats, Verdict, MAX_PIECES};
use crate::rules::Action;
use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// The first line of a tables file.
pub const MAGIC: &str = "anqi-tables 2";

/// What every tables file's first line starts with, whatever its format.
const MAGIC_PREFIX: &str = "anqi-tables ";

/// The most bytes a tables file's first two lines (the format and the header) may take: a
/// header of every material of 6 pieces of traditional takes a few megabytes.
pub const MAX_HEADER_BYTES: u64 = 64 << 20;

/// The most memory one material's values may take once read (2 bytes an entry): 1 GiB. The
/// largest material of 6 pieces on a 4x8 board takes 0.3 GiB; a header naming a material
/// larger than this is refused when the file is opened.
pub const MAX_MATERIAL_BYTES: u64 = 1 << 30;

/// DEFLATE's largest ratio of inflated to stored bytes (a 258-byte copy in two bits): a
/// material whose layout holds more than this many times its stored bytes cannot be right,
/// and is refused when the file is opened.
pub const MAX_INFLATE_RATIO: u64 = 1032;

/// The most stored bytes a material whose layout holds `expected` bytes (entries times width)
/// may take: `expected + expected / 8 + 1024`, above what DEFLATE takes at its worst and so
/// above whatever `anqi tables build` writes. At its worst (bytes that do not compress)
/// DEFLATE's stored blocks add 5 bytes to each 65,535 (0.008 %), and its fixed Huffman codes
/// take at most 9 bits a byte (12.5 %); miniz_oxide writes the shorter, and a few bytes for the
/// blocks' ends. A header claiming more is refused when the file is opened, so that a stream
/// made long (a valid stream can be padded with empty blocks for ever), or a sparse file of
/// zeros, cannot make reading a material take more than this.
pub fn max_stored_bytes(expected: u64) -> u64 {
    expected.saturating_add(expected / 8).saturating_add(1024)
}

/// How many characters of a text from a file (a name, a parser's message) an error quotes.
const QUOTED: usize = 60;

/// Why a tables file does not open ([`open`], [`read_header`]): it
/// cannot be read, is no tables file of this format, holds tables of other rules, or its
/// header does not hold together. `file` is its path as given; no text quotes more than a few
/// words of the file.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("cannot open {file}: {source}")]
    Open {
        file: String,
        source: std::io::Error,
    },
    #[error("cannot read {file}: {source}")]
    Read {
        file: String,
        source: std::io::Error,
    },
    #[error("{file} is not a tables file (no `{magic}` line)", magic = MAGIC)]
    NotTables { file: String },
    /// A tables file of another format (`version`, cut to a few characters): format 1 had no
    /// checksums.
    #[error(
        "{file} is a tables file of format {version}; this anqi reads format 2 (with a SHA-256 \
         of each material): rebuild it with `anqi tables build`"
    )]
    OtherFormat { file: String, version: String },
    #[error(
        "{file}: no tables header within its first {mib} MiB: not a tables file, or a damaged one",
        mib = MAX_HEADER_BYTES >> 20
    )]
    HeaderTooLong { file: String },
    #[error("{file}: the file ends in its header: not a tables file, or a cut one")]
    HeaderCut { file: String },
    /// A header that is no JSON of the format's: `why`, the parser's message cut short.
    #[error("{file}: a broken header: {why}")]
    BrokenHeader { file: String, why: String },
    /// Tables of variant `tables` (its name cut short), whose rules' digest is not the one of
    /// the rules asked for, those of variant `variant`.
    #[error(
        "{file} holds tables of variant {tables} with other rules than variant {variant} \
         (board, steps or captures differ): build them for it with `anqi tables build`"
    )]
    OtherRules {
        file: String,
        tables: String,
        variant: String,
    },
    #[error("{file}: tables of {pieces} pieces: tables hold 2 to {max}", max = MAX_PIECES)]
    Pieces { file: String, pieces: usize },
    #[error("{file}: built with {built} board symmetries, where the variant's board has {board}")]
    Symmetries {
        file: String,
        built: usize,
        board: usize,
    },
    /// The name of the header's material number `index` (from 1) does not read.
    #[error("{file}: material {index}: {source}")]
    MaterialName {
        file: String,
        index: usize,
        source: MaterialNameError,
    },
    /// The header's entry of `material` does not hold together.
    #[error("{file}: material {material}: {fault}")]
    Entry {
        file: String,
        material: String,
        fault: EntryFault,
    },
    /// The file's values are not as long as the header's materials together.
    #[error("{file}: {values} bytes of values, where the header's materials take {header}")]
    Length {
        file: String,
        values: u64,
        header: u64,
    },
}

/// What is wrong with one material's entry in a tables file's header (see
/// [`FileError::Entry`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EntryFault {
    #[error("listed twice")]
    ListedTwice,
    /// Not a material of the variant's tables of at most `pieces` pieces.
    #[error(
        "not a material of at most {pieces} pieces of the variant with a piece of each colour"
    )]
    NotOfTheTables { pieces: usize },
    #[error("too many positions to index")]
    TooManyPositions,
    #[error("{entries} entries, where its layout has {layout}")]
    Entries { entries: u64, layout: u64 },
    #[error(
        "{entries} entries take more than the {mib} MiB a material may take in memory",
        mib = MAX_MATERIAL_BYTES >> 20
    )]
    TooLarge { entries: u64 },
    #[error("a width of {width} bytes an entry (1 or 2)")]
    Width { width: u8 },
    #[error("its counts of positions, wins, draws and losses do not add up")]
    Counts,
    /// Its values are not where the materials before it end.
    #[error("its values at offset {offset}, where the materials before it end at {expected}")]
    Offset { offset: u64, expected: u64 },
    /// Fewer stored bytes than could inflate to the `expected` bytes its layout holds.
    #[error("{bytes} stored bytes cannot inflate to the {expected} its layout holds")]
    TooFewBytes { bytes: u64, expected: u64 },
    #[error("its sha256 is not 64 lowercase hexadecimal digits")]
    Sha256,
    /// Its bytes pass the end of the file, which has `values` bytes of values.
    #[error(
        "{bytes} bytes at offset {offset} pass the end of the file ({values} bytes of values)"
    )]
    PastTheEnd {
        bytes: u64,
        offset: u64,
        values: u64,
    },
    /// More stored bytes than DEFLATE writes at its worst for the `expected` bytes its layout
    /// holds (`most`).
    #[error(
        "{bytes} stored bytes, where the {expected} bytes its layout holds take at most {most} \
         (DEFLATE at its worst)"
    )]
    TooManyBytes {
        bytes: u64,
        expected: u64,
        most: u64,
    },
}

/// The header of a tables file.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Header {
    pub variant: String,
    /// [`TableRules::digest`] of the variant built for.
    pub rules: String,
    /// The most pieces of a position in the tables.
    pub pieces: usize,
    /// The board symmetries positions were turned by (the identity counted).
    pub symmetries: usize,
    /// Seconds the build took.
    #[serde(default)]
    pub build_seconds: f64,
    pub materials: Vec<MaterialEntry>,
}

/// One material of a tables file.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct MaterialEntry {
    pub name: String,
    /// Entries of its layout (positions, and indices that are none).
    pub entries: u64,
    #[serde(flatten)]
    pub stats: TableStats,
    /// Bytes per entry once inflated: 1 or 2.
    pub width: u8,
    /// Where its compressed values start, counted from the end of the header line.
    pub offset: u64,
    /// Its compressed values' length.
    pub bytes: u64,
    /// The SHA-256 of its compressed values, in lowercase hexadecimal.
    pub sha256: String,
}

/// The best of actions with their verdicts for the side to move: the soonest win, else a
/// draw, else the latest loss; the first among equals.
pub fn best(verdicts: Vec<(Action, Verdict)>) -> Option<(Action, Verdict)> {
    let mut best: Option<(Action, Verdict)> = None;
    for (action, verdict) in verdicts {
        if best.is_none_or(|(_, b)| verdict.rank() > b.rank()) {
            best = Some((action, verdict));
        }
    }
    best
}

/// The SHA-256 of `bytes`, in lowercase hexadecimal.
fn sha256_hex(bytes: &[u8]) -> String {
    crate::hex::hex(&Sha256::digest(bytes))
}

/// One material's values, as stored.
pub(super) fn pack(values: &[u16]) -> (u8, Vec<u8>) {
    let width = if values.iter().all(|&v| v < 256) {
        1
    } else {
        2
    };
    let raw: Vec<u8> = if width == 1 {
        values.iter().map(|&v| v as u8).collect()
    } else {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    };
    (width, miniz_oxide::deflate::compress_to_vec(&raw, 6))
}

/// One material's table, compressed for the file: its entry (offset 0) and its bytes.
#[derive(Clone, Debug)]
pub struct Packed {
    pub entry: MaterialEntry,
    pub bytes: Vec<u8>,
}

/// Compresses a table for the file.
pub fn pack_table(t: &Table) -> Packed {
    let (width, bytes) = pack(t.values());
    Packed {
        entry: MaterialEntry {
            name: t.layout().material().to_string(),
            entries: t.layout().len(),
            stats: t.stats(),
            width,
            offset: 0,
            bytes: bytes.len() as u64,
            sha256: sha256_hex(&bytes),
        },
        bytes,
    }
}

/// The header of the tables of `materials` (offsets set as their values follow one another
/// in this order).
pub fn header(
    rules: &TableRules,
    pieces: usize,
    build_seconds: f64,
    mut materials: Vec<MaterialEntry>,
) -> Header {
    let mut offset = 0;
    for m in &mut materials {
        m.offset = offset;
        offset += m.bytes;
    }
    Header {
        variant: rules.variant.name.clone(),
        rules: rules.digest(),
        pieces,
        symmetries: rules.symmetries.len(),
        build_seconds,
        materials,
    }
}

/// Writes the first line and the header; each material's bytes are to follow, in the
/// header's order.
///
/// # Errors
/// Writing fails.
pub fn write_header(out: &mut impl Write, header: &Header) -> std::io::Result<()> {
    writeln!(out, "{MAGIC}")?;
    serde_json::to_writer(&mut *out, header)?;
    writeln!(out)
}

/// Writes the tables of `tables` (every material of at most `pieces` pieces), all in memory,
/// to `out`.
///
/// # Errors
/// Writing fails.
pub fn write(
    out: &mut impl Write,
    rules: &TableRules,
    pieces: usize,
    build_seconds: f64,
    tables: &[Table],
) -> std::io::Result<Header> {
    let packed: Vec<Packed> = tables.iter().map(pack_table).collect();
    let entries = packed.iter().map(|p| p.entry.clone()).collect();
    let header = header(rules, pieces, build_seconds, entries);
    write_header(out, &header)?;
    for p in &packed {
        out.write_all(&p.bytes)?;
    }
    out.flush()?;
    Ok(header)
}

/// Reads the header of a tables file (its format checked, nothing else).
///
/// # Errors
/// The file cannot be read, is no tables file of this format, or its header does not read.
pub fn read_header(path: &Path) -> Result<Header, FileError> {
    read_header_and_body(path).map(|read| read.header)
}

/// A tables file's header as read, and where its materials' values are.
struct HeaderRead {
    header: Header,
    /// Where the materials' values start (the header's end).
    body: u64,
    /// The file's length.
    len: u64,
}

/// One line of at most what is left of `budget` bytes (its newline cut off).
fn bounded_line(
    reader: &mut impl BufRead,
    budget: &mut u64,
    shown: &str,
) -> Result<Vec<u8>, FileError> {
    let file = || shown.to_string();
    let mut line = Vec::new();
    (&mut *reader)
        .take(*budget)
        .read_until(b'\n', &mut line)
        .map_err(|source| FileError::Read {
            file: file(),
            source,
        })?;
    if line.last() != Some(&b'\n') {
        return Err(if line.len() as u64 >= *budget {
            FileError::HeaderTooLong { file: file() }
        } else {
            FileError::HeaderCut { file: file() }
        });
    }
    *budget -= line.len() as u64;
    line.pop();
    Ok(line)
}

fn read_header_and_body(path: &Path) -> Result<HeaderRead, FileError> {
    let shown = path.display().to_string();
    let file = || shown.clone();
    let file_error = |source| FileError::Read {
        file: file(),
        source,
    };
    let opened = std::fs::File::open(path).map_err(|source| FileError::Open {
        file: file(),
        source,
    })?;
    let len = opened.metadata().map_err(file_error)?.len();
    let mut reader = BufReader::new(opened);
    let mut budget = MAX_HEADER_BYTES;
    let magic = bounded_line(&mut reader, &mut budget, &shown)
        .map_err(|_| FileError::NotTables { file: file() })?;
    if magic != MAGIC.as_bytes() {
        let text = String::from_utf8_lossy(&magic);
        return Err(match text.strip_prefix(MAGIC_PREFIX) {
            Some(version) => FileError::OtherFormat {
                file: file(),
                version: clip(version, 10),
            },
            None => FileError::NotTables { file: file() },
        });
    }
    let line = bounded_line(&mut reader, &mut budget, &shown)?;
    let header: Header = serde_json::from_slice(&line).map_err(|e| FileError::BrokenHeader {
        file: file(),
        why: clip(&e.to_string(), QUOTED),
    })?;
    let body = MAX_HEADER_BYTES - budget;
    Ok(HeaderRead { header, body, len })
}

/// One material of an opened file, its header entry checked.
#[derive(Debug)]
pub struct Checked {
    pub material: Material,
    pub layout: Layout,
    pub entry: MaterialEntry,
    /// Where its bytes start in the file.
    pub at: u64,
}

/// A tables file opened for `rules`: its header, checked as the module documentation says.
#[derive(Debug)]
pub struct Opened {
    pub header: Header,
    pub materials: Vec<Checked>,
}

/// Opens a tables file for `rules`, reading and checking its header only.
///
/// # Errors
/// The file cannot be read, is no tables file of this format, was built for other rules, or
/// its header does not hold together (see the module documentation): [`FileError`] says which
/// and where, quoting no more than a few words of the file.
pub fn open(path: &Path, rules: &TableRules) -> Result<Opened, FileError> {
    let shown = path.display().to_string();
    let file = || shown.clone();
    let HeaderRead { header, body, len } = read_header_and_body(path)?;
    if header.rules != rules.digest() {
        return Err(FileError::OtherRules {
            file: file(),
            tables: clip(&header.variant, QUOTED),
            variant: rules.variant.name.clone(),
        });
    }
    if !(2..=MAX_PIECES).contains(&header.pieces) {
        return Err(FileError::Pieces {
            file: file(),
            pieces: header.pieces,
        });
    }
    if header.symmetries != rules.symmetries.len() {
        return Err(FileError::Symmetries {
            file: file(),
            built: header.symmetries,
            board: rules.symmetries.len(),
        });
    }
    let mut seen = HashSet::new();
    let mut materials = Vec::with_capacity(header.materials.len());
    let mut offset = 0u64;
    for (i, entry) in header.materials.iter().enumerate() {
        let m = Material::parse(&entry.name).map_err(|source| FileError::MaterialName {
            file: file(),
            index: i + 1,
            source,
        })?;
        if !seen.insert(m) {
            return Err(entry_error(&shown, m, EntryFault::ListedTwice));
        }
        let place = Place { body, offset, len };
        let (layout, at) = check_entry(rules, header.pieces, entry, m, place)
            .map_err(|fault| entry_error(&shown, m, fault))?;
        offset += entry.bytes;
        materials.push(Checked {
            material: m,
            layout,
            entry: entry.clone(),
            at,
        });
    }
    if body.checked_add(offset) != Some(len) {
        return Err(FileError::Length {
            file: file(),
            values: len.saturating_sub(body),
            header: offset,
        });
    }
    Ok(Opened { header, materials })
}

/// Where a material's values should be: the header's end in the file (`body`), where the
/// materials before it end (`offset`, from `body`), and the file's length.
#[derive(Clone, Copy)]
struct Place {
    body: u64,
    offset: u64,
    len: u64,
}

/// Checks the header's `entry` of material `m` of tables of at most `pieces` pieces, placed as
/// `place` says: returns its layout and where its bytes start in the file.
fn check_entry(
    rules: &TableRules,
    pieces: usize,
    entry: &MaterialEntry,
    m: Material,
    place: Place,
) -> Result<(Layout, u64), EntryFault> {
    let Place { body, offset, len } = place;
    if !rules.holds(m) || m.pieces() > pieces {
        return Err(EntryFault::NotOfTheTables { pieces });
    }
    let layout = rules.layout(m).ok_or(EntryFault::TooManyPositions)?;
    if layout.len() != entry.entries {
        return Err(EntryFault::Entries {
            entries: entry.entries,
            layout: layout.len(),
        });
    }
    if entry.entries.saturating_mul(2) > MAX_MATERIAL_BYTES {
        return Err(EntryFault::TooLarge {
            entries: entry.entries,
        });
    }
    if !matches!(entry.width, 1 | 2) {
        return Err(EntryFault::Width { width: entry.width });
    }
    let s = &entry.stats;
    let counted = s
        .wins
        .checked_add(s.draws)
        .and_then(|n| n.checked_add(s.losses));
    if counted != Some(s.positions) || s.positions > entry.entries {
        return Err(EntryFault::Counts);
    }
    if entry.offset != offset {
        return Err(EntryFault::Offset {
            offset: entry.offset,
            expected: offset,
        });
    }
    let expected = entry.entries * u64::from(entry.width);
    if entry.bytes == 0 || expected > entry.bytes.saturating_mul(MAX_INFLATE_RATIO) {
        return Err(EntryFault::TooFewBytes {
            bytes: entry.bytes,
            expected,
        });
    }
    let is_hex = |t: &str| {
        t.len() == 64
            && t.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    };
    if !is_hex(&entry.sha256) {
        return Err(EntryFault::Sha256);
    }
    let at = body
        .checked_add(offset)
        .filter(|&at| at.checked_add(entry.bytes).is_some_and(|end| end <= len))
        .ok_or(EntryFault::PastTheEnd {
            bytes: entry.bytes,
            offset,
            values: len.saturating_sub(body),
        })?;
    // After the place: a length no file holds is said to pass the file's end.
    if entry.bytes > max_stored_bytes(expected) {
        return Err(EntryFault::TooManyBytes {
            bytes: entry.bytes,
            expected,
            most: max_stored_bytes(expected),
        });
    }
    Ok((layout, at))
}

/// The error of a header's entry of material `m` in the file `shown`.
fn entry_error(shown: &str, m: Material, fault: EntryFault) -> FileError {
    FileError::Entry {
        file: shown.to_string(),
        material: clip(&m.to_string(), 2 * MAX_PIECES),
        fault,
    }
}

/// Reads one material's values from the file at `path` (opened and checked by [`open`]):
/// its stored bytes streamed through their SHA-256 and the inflater, a chunk at a time
/// (`read::read_stored`: never held whole), the SHA-256 checked before any value is
/// used, then the values' length and counts.
///
/// # Errors
/// What is wrong with them ([`MaterialFault`]). [`MaterialFault::Read`] is an I/O failure
/// (the file cannot be opened, or is shorter than when it was opened): it may pass (a file put
/// back, descriptors freed), where every other fault is in the bytes themselves.
pub fn read_values(path: &Path, checked: &Checked) -> Result<Vec<u16>, MaterialFault> {
    let entry = &checked.entry;
    let fault = |e: std::io::Error| MaterialFault::Read {
        bytes: entry.bytes,
        kind: e.kind(),
    };
    let mut file = std::fs::File::open(path).map_err(fault)?;
    // The length was checked against the file at open, but the file may have changed since:
    // a file now too short is said at once, without reading what is left of it.
    let len = file.metadata().map_err(fault)?.len();
    if checked.at.saturating_add(entry.bytes) > len {
        return Err(MaterialFault::Read {
            bytes: entry.bytes,
            kind: std::io::ErrorKind::UnexpectedEof,
        });
    }
    file.seek(SeekFrom::Start(checked.at)).map_err(fault)?;
    let stored = StoredBytes {
        bytes: entry.bytes,
        sha256: &entry.sha256,
        width: entry.width,
        entries: entry.entries,
    };
    let values = super::read::read_stored(file, stored)?;
    if super::stats_of(&values) != entry.stats {
        return Err(MaterialFault::Counts);
    }
    Ok(values)
}
