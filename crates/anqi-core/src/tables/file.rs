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

use super::error::{clip, MaterialFault};
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
pub fn read_header(path: &Path) -> Result<Header, String> {
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
) -> Result<Vec<u8>, String> {
    let mut line = Vec::new();
    (&mut *reader)
        .take(*budget)
        .read_until(b'\n', &mut line)
        .map_err(|e| format!("cannot read {shown}: {e}"))?;
    if line.last() != Some(&b'\n') {
        return Err(if line.len() as u64 >= *budget {
            format!(
                "{shown}: no tables header within its first {} MiB: not a tables file, or a damaged one",
                MAX_HEADER_BYTES >> 20
            )
        } else {
            format!("{shown}: the file ends in its header: not a tables file, or a cut one")
        });
    }
    *budget -= line.len() as u64;
    line.pop();
    Ok(line)
}

fn read_header_and_body(path: &Path) -> Result<HeaderRead, String> {
    let shown = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| format!("cannot open {shown}: {e}"))?;
    let len = file
        .metadata()
        .map_err(|e| format!("cannot read {shown}: {e}"))?
        .len();
    let mut reader = BufReader::new(file);
    let mut budget = MAX_HEADER_BYTES;
    let magic = bounded_line(&mut reader, &mut budget, &shown)
        .map_err(|_| format!("{shown} is not a tables file (no `{MAGIC}` line)"))?;
    if magic != MAGIC.as_bytes() {
        let text = String::from_utf8_lossy(&magic);
        return Err(match text.strip_prefix(MAGIC_PREFIX) {
            Some(version) => format!(
                "{shown} is a tables file of format {}; this anqi reads format 2 (with a SHA-256 \
                 of each material): rebuild it with `anqi tables build`",
                clip(version, 10)
            ),
            None => format!("{shown} is not a tables file (no `{MAGIC}` line)"),
        });
    }
    let line = bounded_line(&mut reader, &mut budget, &shown)?;
    let header: Header = serde_json::from_slice(&line)
        .map_err(|e| format!("{shown}: a broken header: {}", clip(&e.to_string(), QUOTED)))?;
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
/// its header does not hold together (see the module documentation): the text says which
/// and where, quoting no more than a few words of the file.
pub fn open(path: &Path, rules: &TableRules) -> Result<Opened, String> {
    let shown = path.display();
    let HeaderRead { header, body, len } = read_header_and_body(path)?;
    if header.rules != rules.digest() {
        return Err(format!(
            "{shown} holds tables of variant {} with other rules than variant {} \
             (board, steps or captures differ): build them for it with `anqi tables build`",
            clip(&header.variant, QUOTED),
            rules.variant.name
        ));
    }
    if !(2..=MAX_PIECES).contains(&header.pieces) {
        return Err(format!(
            "{shown}: tables of {} pieces: tables hold 2 to {MAX_PIECES}",
            header.pieces
        ));
    }
    if header.symmetries != rules.symmetries.len() {
        return Err(format!(
            "{shown}: built with {} board symmetries, where the variant's board has {}",
            header.symmetries,
            rules.symmetries.len()
        ));
    }
    let mut seen = HashSet::new();
    let mut materials = Vec::with_capacity(header.materials.len());
    let mut offset = 0u64;
    for (i, entry) in header.materials.iter().enumerate() {
        let m = Material::parse(&entry.name)
            .map_err(|e| format!("{shown}: material {}: {e}", i + 1))?;
        let name = clip(&m.to_string(), 2 * MAX_PIECES);
        let wrong = |why: String| format!("{shown}: material {name}: {why}");
        if !seen.insert(m) {
            return Err(wrong("listed twice".into()));
        }
        if !rules.holds(m) || m.pieces() > header.pieces {
            return Err(wrong(format!(
                "not a material of at most {} pieces of the variant with a piece of each colour",
                header.pieces
            )));
        }
        let layout = rules
            .layout(m)
            .ok_or_else(|| wrong("too many positions to index".into()))?;
        if layout.len() != entry.entries {
            return Err(wrong(format!(
                "{} entries, where its layout has {}",
                entry.entries,
                layout.len()
            )));
        }
        if entry.entries.saturating_mul(2) > MAX_MATERIAL_BYTES {
            return Err(wrong(format!(
                "{} entries take more than the {} MiB a material may take in memory",
                entry.entries,
                MAX_MATERIAL_BYTES >> 20
            )));
        }
        if !matches!(entry.width, 1 | 2) {
            return Err(wrong(format!(
                "a width of {} bytes an entry (1 or 2)",
                entry.width
            )));
        }
        let s = &entry.stats;
        let counted = s
            .wins
            .checked_add(s.draws)
            .and_then(|n| n.checked_add(s.losses));
        if counted != Some(s.positions) || s.positions > entry.entries {
            return Err(wrong(
                "its counts of positions, wins, draws and losses do not add up".into(),
            ));
        }
        if entry.offset != offset {
            return Err(wrong(format!(
                "its values at offset {}, where the materials before it end at {offset}",
                entry.offset
            )));
        }
        let expected = entry.entries * u64::from(entry.width);
        if entry.bytes == 0 || expected > entry.bytes.saturating_mul(MAX_INFLATE_RATIO) {
            return Err(wrong(format!(
                "{} stored bytes cannot inflate to the {expected} its layout holds",
                entry.bytes
            )));
        }
        let is_hex = |t: &str| {
            t.len() == 64
                && t.bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        };
        if !is_hex(&entry.sha256) {
            return Err(wrong(
                "its sha256 is not 64 lowercase hexadecimal digits".into(),
            ));
        }
        let at = body
            .checked_add(offset)
            .filter(|&at| at.checked_add(entry.bytes).is_some_and(|end| end <= len))
            .ok_or_else(|| {
                wrong(format!(
                    "{} bytes at offset {offset} pass the end of the file ({} bytes of values)",
                    entry.bytes,
                    len.saturating_sub(body)
                ))
            })?;
        // After the place: a length no file holds is said to pass the file's end.
        if entry.bytes > max_stored_bytes(expected) {
            return Err(wrong(format!(
                "{} stored bytes, where the {expected} bytes its layout holds take at most {} \
                 (DEFLATE at its worst)",
                entry.bytes,
                max_stored_bytes(expected)
            )));
        }
        offset += entry.bytes;
        materials.push(Checked {
            material: m,
            layout,
            entry: entry.clone(),
            at,
        });
    }
    if body.checked_add(offset) != Some(len) {
        return Err(format!(
            "{shown}: {} bytes of values, where the header's materials take {offset}",
            len.saturating_sub(body)
        ));
    }
    Ok(Opened { header, materials })
}

/// Reads one material's values from the file at `path` (opened and checked by [`open`]):
/// its stored bytes streamed through their SHA-256 and the inflater, a chunk at a time
/// ([`super::read::read_stored`]: never held whole), the SHA-256 checked before any value is
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
