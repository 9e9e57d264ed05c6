//! What can go wrong in solving: a variant the solver does not hold ([`Unsolvable`], with
//! [`DoesNotFit`] from `key` for a board or pieces its keys cannot hold); a table of values
//! that lacks a state an action leads to ([`LookupError`]); and a solution file that does not
//! read, or whose values do not check ([`SolutionError`], with [`StateFault`] for one state's
//! value). No text quotes more than a few words of a file.

use super::key::{DoesNotFit, Key};
use super::{Score, SEMANTICS};
use crate::rules::{Illegal, PlayError};
use crate::tables::clip;

/// How many characters of a text from a solution file (a name, a parser's message) an error
/// quotes.
pub(super) const QUOTED: usize = 60;

/// Why a variant cannot be solved ([`super::solver_variant`], [`super::Solver::start`]): each
/// says the variant's name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unsolvable {
    #[error("{variant}: {players} players: the solver plays two-player games")]
    Players { variant: String, players: usize },
    #[error("{variant}: a one-side game: the solver plays capture games")]
    OneSide { variant: String },
    #[error("{variant}: a bag game: the solver's states have no bag or hand")]
    Bag { variant: String },
    #[error("{variant}: chain captures: the solver's states have no chain")]
    ChainCaptures { variant: String },
    /// Its board or pieces do not fit in a state's key.
    #[error("{variant}: {fit}")]
    DoesNotFit { variant: String, fit: DoesNotFit },
    #[error(
        "{variant}: {pieces} pieces: exact values need 2 * n! to fit in 64 bits (n at most 19)"
    )]
    TooManyPieces { variant: String, pieces: usize },
    /// A start that does not put a piece face-down on every cell.
    #[error("{variant}: the solver starts from every cell face-down; this start is not that")]
    Start { variant: String },
}

/// Why the actions of a state cannot be valued from a table ([`super::children`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LookupError {
    /// The table lacks `state`, where an action from `from` leads.
    #[error("state {:032x} (after a move from {:032x}) is missing", .state.0, .from.0)]
    Missing { state: Key, from: Key },
    /// A reveal from `state` whose average over what it may turn up is no whole number of
    /// the scale's units (which a right table on the right scale never gives).
    #[error("state {:032x}: a reveal's average is no multiple of 1/{denominator}", .state.0)]
    InexactAverage { state: Key, denominator: u64 },
    /// A listed action the rules refused (which they never do).
    #[error(transparent)]
    Refused(#[from] PlayError),
}

/// Why a solution file does not read ([`super::file::read`], [`super::file::open`],
/// [`super::file::Header::check`]) or does not check ([`super::file::verify`]).
#[derive(Debug, thiserror::Error)]
pub enum SolutionError {
    /// The header's format and version (the format cut short) are not this anqi's.
    #[error("format {format:?} version {version}: this anqi reads anqi-solution version 1")]
    Format { format: String, version: u32 },
    /// The header's semantics (cut short) are not [`SEMANTICS`].
    #[error("semantics {semantics:?}: this anqi's solutions are of the semantics {expected:?}", expected = SEMANTICS)]
    Semantics { semantics: String },
    /// The header's variant description does not parse: `why`, the parser's message cut short.
    #[error("the header's variant does not read: {why}")]
    Variant { why: String },
    /// The header's variant is not one the solver holds (the text cut short).
    #[error("{}", clip(&.0.to_string(), 2 * QUOTED))]
    Unsolvable(Unsolvable),
    #[error("denominator {header} where the variant's is {variant}")]
    Denominator { header: u64, variant: u64 },
    #[error("the start's value {value} is more than the denominator {denominator}")]
    StartValue { value: Score, denominator: u64 },
    #[error("no states: a solution holds at least the start")]
    NoStates,
    #[error("cannot read the header: {0}")]
    ReadHeader(std::io::Error),
    /// No newline within the header's most bytes (`bytes` read).
    #[error("not a solution file: no header line ended within its first {bytes} bytes")]
    NoHeaderLine { bytes: usize },
    /// A header line that is no JSON of the format's: `why`, the parser's message cut short.
    #[error("not a solution file's header: {why}")]
    NotAHeader { why: String },
    /// State number `index` (from 0) of the header's `states` could not be read.
    #[error("state {index} of {states}: {source}")]
    ReadState {
        index: u64,
        states: u64,
        source: std::io::Error,
    },
    #[error(
        "state {index} (key {:032x}) is not after the one before it: the states are not \
         sorted by key, each once",
        .key.0
    )]
    NotSorted { index: u64, key: Key },
    #[error(
        "state {index} (key {:032x}): value {value} is more than the denominator {denominator}",
        .key.0
    )]
    ValueTooLarge {
        index: u64,
        key: Key,
        value: Score,
        denominator: u64,
    },
    /// Bytes after the header's number of states.
    #[error("more than the {states} states the header says")]
    TooManyStates { states: u64 },
    #[error("cannot open it: {0}")]
    Open(std::io::Error),
    #[error("cannot read it: {0}")]
    Read(std::io::Error),
    /// A file whose `stored` bytes of states are not the `expected` bytes of the header's
    /// `states` (`None`: more than a file holds).
    #[error(
        "{stored} bytes of states, where the {states} states the header says take {}",
        expected.map_or("more than a file holds".into(), |b| b.to_string())
    )]
    Length {
        stored: u64,
        states: u64,
        expected: Option<u64>,
    },
    /// A table of `found` states, where the header says `header`.
    #[error("{found} states, where the header says {header}")]
    StateCount { found: u64, header: u64 },
    /// The variant's start is not one the solver starts from.
    #[error(transparent)]
    NoStart(Unsolvable),
    #[error("the header's value {header} is not the start's stored value {stored}")]
    HeaderValue { header: Score, stored: Score },
    #[error("the start (key {:032x}) is missing", .key.0)]
    StartMissing { key: Key },
    #[error("state {:032x} is no position: {why}", .key.0)]
    NoPosition { key: Key, why: Illegal },
    #[error(
        "state {:032x} is not the key of its position (bits no position of the variant sets)",
        .key.0
    )]
    NotItsKey { key: Key },
    #[error("state {:032x} is an ended game", .key.0)]
    EndedGame { key: Key },
    /// A state whose actions cannot be valued from the file's table.
    #[error(transparent)]
    Lookup(#[from] LookupError),
    /// A state whose stored value or plies its children contradict.
    #[error("state {:032x}: {fault}", .key.0)]
    Wrong { key: Key, fault: StateFault },
}

/// How a state's stored value or plies contradict its children's (see
/// [`super::file::verify`]); values are over the denominator `d`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StateFault {
    #[error("stored {stored}/{d}, its children give {derived}/{d}")]
    Value {
        stored: Score,
        derived: Score,
        d: u64,
    },
    #[error("a draw with {plies} plies")]
    DrawWithPlies { plies: u16 },
    /// The favoured side moves, and its plies are not one more than its nearest move worth
    /// the value (or 0 with a way out worth it).
    #[error(
        "{value}/{d} in {plies} plies, not reached that way (an exit worth it: {exit}, the \
         nearest move worth it: {nearest:?} plies)"
    )]
    NotTheShortestWay {
        value: Score,
        d: u64,
        plies: u16,
        exit: bool,
        nearest: Option<u16>,
    },
    /// The other side moves, and its plies are not its longest way worth the value.
    #[error("{value}/{d} in {plies} plies, where the longest way worth it takes {farthest:?}")]
    NotTheLongestWay {
        value: Score,
        d: u64,
        plies: u16,
        farthest: Option<u16>,
    },
}
