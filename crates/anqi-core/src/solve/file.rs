//! The solution file, and its check by an independent pass.
//!
//! A solution file is one line of JSON (the header: format, variant description, semantics,
//! denominator, number of states, the start's value), then every state as 26 bytes sorted by
//! key, little-endian: the [`Key`] (16 bytes), its value times the denominator (8 bytes) and
//! its plies ([`Entry::plies`], 2 bytes).
//!
//! A solution file is untrusted input. [`read`] and [`open`] check the header before anything
//! whose size it gives is allocated ([`Header::check`]: the format and version, the semantics,
//! the variant, the denominator, the start's value; [`open`] also the file's length against
//! the number of states), and each state as it is read: keys strictly rising (so a lookup by
//! bisection, as `anqi.Solution` does, finds every state), values within the denominator. No
//! error quotes more than a few words of the file.
//!
//! [`verify`] re-derives each stored value from its children's stored values (a maximum, a
//! minimum, or a reveal's average), and checks each value other than a draw against the plies:
//! the side it favours goes out at once (0) or its nearest move worth it is one ply nearer, and
//! the other side's farthest move worth it is one ply nearer. Values that hold each other up
//! around a cycle are consistent move by move, but no plies can go down around a cycle; both
//! checks together leave one table of values possible: the right one.

use super::children::valued_actions;
use super::error::QUOTED;
pub use super::SEMANTICS;
use super::{solver_variant, Entry, Key, Scale, Score, SolutionError, Solver, StateFault};
use crate::rules::{Game, Variant};
use crate::tables::clip;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::{BufRead, Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::Arc;

/// The file's first line.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Header {
    pub format: String,
    pub version: u32,
    /// The variant's public description (`Variant::public_description`): enough to rebuild it.
    pub variant: String,
    pub semantics: String,
    pub denominator: u64,
    pub states: u64,
    /// The start's value, times the denominator.
    pub value: Score,
}

/// Writes a solution: the header, then the states sorted by key.
pub fn write(
    out: &mut impl Write,
    variant: &Variant,
    scale: Scale,
    value: Score,
    values: &HashMap<Key, Entry>,
) -> std::io::Result<()> {
    let header = Header {
        format: "anqi-solution".into(),
        version: 1,
        variant: variant.public_description(),
        semantics: SEMANTICS.into(),
        denominator: scale.denominator,
        states: values.len() as u64,
        value,
    };
    serde_json::to_writer(&mut *out, &header)?;
    out.write_all(b"\n")?;
    let mut keys: Vec<&Key> = values.keys().collect();
    keys.sort_unstable();
    for k in keys {
        let e = values[k];
        out.write_all(&k.0.to_le_bytes())?;
        out.write_all(&e.value.to_le_bytes())?;
        out.write_all(&e.plies.to_le_bytes())?;
    }
    out.flush()
}

/// The bytes of one state in a solution file.
pub const RECORD_BYTES: usize = 26;

/// The most bytes a solution file's header line may take: the variant's description (at most
/// [`crate::rules::MAX_DESCRIPTION_BYTES`]) escaped as JSON, and a few fields.
pub const MAX_HEADER_BYTES: u64 = 8 * (crate::rules::MAX_DESCRIPTION_BYTES as u64) + 4096;

/// How many states [`read`] makes room for before it has read them: past that, the table
/// grows as states are read (a header's count is not trusted with memory).
const ROOM_AHEAD: u64 = 1 << 20;

impl Header {
    /// Checks everything the header says that can be checked without the states: the format
    /// and version, the semantics, the variant (one the solver holds), the denominator (the
    /// variant's) and the start's value (within it). Returns the variant as solved, and the
    /// scale.
    ///
    /// # Errors
    /// The first thing wrong ([`SolutionError`]), quoting no more than a few words of the
    /// header.
    pub fn check(&self) -> Result<(Arc<Variant>, Scale), SolutionError> {
        if self.format != "anqi-solution" || self.version != 1 {
            return Err(SolutionError::Format {
                format: clip(&self.format, QUOTED),
                version: self.version,
            });
        }
        if self.semantics != SEMANTICS {
            return Err(SolutionError::Semantics {
                semantics: clip(&self.semantics, QUOTED),
            });
        }
        let variant = Variant::parse(&self.variant).map_err(|e| SolutionError::Variant {
            why: clip(&e.to_string(), 2 * QUOTED),
        })?;
        let variant = solver_variant(&variant).map_err(SolutionError::Unsolvable)?;
        let scale = Scale::for_pieces(variant.pieces.len()).expect("a solvable variant");
        if scale.denominator != self.denominator {
            return Err(SolutionError::Denominator {
                header: self.denominator,
                variant: scale.denominator,
            });
        }
        if self.value > scale.denominator {
            return Err(SolutionError::StartValue {
                value: self.value,
                denominator: scale.denominator,
            });
        }
        if self.states == 0 {
            return Err(SolutionError::NoStates);
        }
        Ok((variant, scale))
    }
}

/// The header line, at most [`MAX_HEADER_BYTES`], and its length (newline included).
fn read_header(input: &mut impl BufRead) -> Result<(Header, u64), SolutionError> {
    let mut line = Vec::new();
    Read::take(&mut *input, MAX_HEADER_BYTES)
        .read_until(b'\n', &mut line)
        .map_err(SolutionError::ReadHeader)?;
    if line.last() != Some(&b'\n') {
        return Err(SolutionError::NoHeaderLine { bytes: line.len() });
    }
    let header: Header = serde_json::from_slice(&line).map_err(|e| SolutionError::NotAHeader {
        why: clip(&e.to_string(), QUOTED),
    })?;
    Ok((header, line.len() as u64))
}

/// Reads a solution file: its header, checked ([`Header::check`]), and its table, every key
/// greater than the one before and every value within the denominator.
///
/// # Errors
/// The first thing wrong ([`SolutionError`]).
pub fn read(input: &mut impl BufRead) -> Result<(Header, HashMap<Key, Entry>), SolutionError> {
    let (header, _) = read_header(input)?;
    let (_, scale) = header.check()?;
    let mut values = HashMap::with_capacity(header.states.min(ROOM_AHEAD) as usize);
    let mut record = [0u8; RECORD_BYTES];
    let mut last: Option<Key> = None;
    for i in 0..header.states {
        input
            .read_exact(&mut record)
            .map_err(|source| SolutionError::ReadState {
                index: i,
                states: header.states,
                source,
            })?;
        let key = Key(u128::from_le_bytes(
            record[..16].try_into().expect("16 bytes"),
        ));
        let value = Score::from_le_bytes(record[16..24].try_into().expect("8 bytes"));
        let plies = u16::from_le_bytes(record[24..].try_into().expect("2 bytes"));
        if last.is_some_and(|l| key <= l) {
            return Err(SolutionError::NotSorted { index: i, key });
        }
        if value > scale.denominator {
            return Err(SolutionError::ValueTooLarge {
                index: i,
                key,
                value,
                denominator: scale.denominator,
            });
        }
        last = Some(key);
        values.insert(key, Entry { value, plies });
    }
    if input.fill_buf().map(|b| !b.is_empty()).unwrap_or(false) {
        return Err(SolutionError::TooManyStates {
            states: header.states,
        });
    }
    Ok((header, values))
}

/// Opens and reads the solution file at `path` ([`read`]), its length checked against the
/// header's number of states before any state is read.
///
/// # Errors
/// The file cannot be read, or the first thing wrong with it ([`SolutionError`]; the text
/// does not repeat the path).
pub fn open(path: &Path) -> Result<(Header, HashMap<Key, Entry>), SolutionError> {
    let file = std::fs::File::open(path).map_err(SolutionError::Open)?;
    let len = file.metadata().map_err(SolutionError::Read)?.len();
    let mut input = std::io::BufReader::new(file);
    let (header, header_len) = read_header(&mut input)?;
    header.check()?;
    let body = header
        .states
        .checked_mul(RECORD_BYTES as u64)
        .and_then(|b| b.checked_add(header_len));
    if body != Some(len) {
        return Err(SolutionError::Length {
            stored: len.saturating_sub(header_len),
            states: header.states,
            expected: body.map(|b| b - header_len),
        });
    }
    input
        .seek(SeekFrom::Start(0))
        .map_err(SolutionError::Read)?;
    read(&mut input)
}

/// What one state's actions lead to, from the table.
struct Derived {
    /// The value the state should have.
    value: Score,
    /// Whether an action worth `value` leaves the component (a reveal, a capture, an end).
    exit_at_value: bool,
    /// The quiet moves' targets, as stored.
    quiet: Vec<Entry>,
    /// Whether the maximizer moves.
    max: bool,
}

/// Re-derives a state's value from the table. `Err` names a child missing from it, or a key
/// that is no position of a game going on.
fn derive(
    variant: &Arc<Variant>,
    scale: Scale,
    values: &HashMap<Key, Entry>,
    key: Key,
) -> Result<Derived, SolutionError> {
    let position = key.position(variant.topology.size());
    let game = Game::from_position(variant.clone(), &position)
        .map_err(|why| SolutionError::NoPosition { key, why })?;
    if Key::of(&game) != key {
        return Err(SolutionError::NotItsKey { key });
    }
    if game.outcome().is_some() {
        return Err(SolutionError::EndedGame { key });
    }
    let max = variant.side_of(game.to_move()) == 0;
    let actions = valued_actions(scale, values, &game)?;
    let all = actions.iter().map(|a| a.value);
    let value = if max { all.max() } else { all.min() }.expect("a game not ended has a move");
    Ok(Derived {
        value,
        exit_at_value: actions
            .iter()
            .any(|a| a.quiet.is_none() && a.value == value),
        quiet: actions.iter().filter_map(|a| a.quiet).collect(),
        max,
    })
}

/// What [`verify`] found.
#[derive(Debug, Default)]
pub struct Verified {
    pub states: u64,
    pub start: Score,
}

/// Checks a solution file's table (see the module documentation), calling `progress` with the
/// states checked so far every so often.
///
/// # Errors
/// The first thing wrong ([`SolutionError`]; [`SolutionError::Wrong`] for a stored value or
/// plies its children contradict).
pub fn verify(
    header: &Header,
    values: &HashMap<Key, Entry>,
    mut progress: impl FnMut(u64),
) -> Result<Verified, SolutionError> {
    let (variant, scale) = header.check()?;
    if header.states != values.len() as u64 {
        return Err(SolutionError::StateCount {
            found: values.len() as u64,
            header: header.states,
        });
    }
    // The start's stored value is the header's.
    let start = Solver::new(&variant)
        .and_then(|s| s.start())
        .map_err(SolutionError::NoStart)?;
    let start = Key::of(&start);
    match values.get(&start) {
        Some(e) if e.value == header.value => {}
        Some(e) => {
            return Err(SolutionError::HeaderValue {
                header: header.value,
                stored: e.value,
            })
        }
        None => return Err(SolutionError::StartMissing { key: start }),
    }
    // Every state, in key order (so that a failure names the same state every run).
    let mut keys: Vec<Key> = values.keys().copied().collect();
    keys.sort_unstable();
    let d = scale.denominator;
    for (n, key) in keys.iter().enumerate() {
        let stored = values[key];
        let derived = derive(&variant, scale, values, *key)?;
        let wrong = |fault: StateFault| Err(SolutionError::Wrong { key: *key, fault });
        if derived.value != stored.value {
            return wrong(StateFault::Value {
                stored: stored.value,
                derived: derived.value,
                d,
            });
        }
        let same = || derived.quiet.iter().filter(|e| e.value == stored.value);
        if stored.value == scale.draw() {
            if stored.plies != 0 {
                return wrong(StateFault::DrawWithPlies {
                    plies: stored.plies,
                });
            }
        } else if derived.max == (stored.value > scale.draw()) {
            // The favoured side moves: out at once, or one ply nearer, the shortest way.
            let nearest = same().map(|e| e.plies).min();
            let ok = if derived.exit_at_value {
                stored.plies == 0
            } else {
                nearest.is_some_and(|p| stored.plies == p + 1)
            };
            if !ok {
                return wrong(StateFault::NotTheShortestWay {
                    value: stored.value,
                    d,
                    plies: stored.plies,
                    exit: derived.exit_at_value,
                    nearest,
                });
            }
        } else {
            // The other side moves: the longest way among its moves worth the value (out at
            // once counting 0).
            let farthest = same()
                .map(|e| e.plies + 1)
                .chain(derived.exit_at_value.then_some(0))
                .max();
            if farthest != Some(stored.plies) {
                return wrong(StateFault::NotTheLongestWay {
                    value: stored.value,
                    d,
                    plies: stored.plies,
                    farthest,
                });
            }
        }
        if n % 65_536 == 65_535 {
            progress(n as u64 + 1);
        }
    }
    Ok(Verified {
        states: keys.len() as u64,
        start: header.value,
    })
}
