//! What can go wrong with tables: a variant they cannot hold ([`RulesError`]), a material's
//! name that does not read ([`MaterialNameError`]); and, once they are open, a material whose
//! stored values cannot be used, or a game of other rules than the tables'
//! ([`TablesError`]). A file that does not open as tables of the rules asked for is
//! [`super::FileError`] (`file`, beside the format it checks) or [`super::OpenError`]
//! (`probe`): as with Syzygy tables, a file that is not what it says is kept apart from a
//! position the tables cannot answer for.
//!
//! A tables file is untrusted input. Its header is checked when it is opened (a bad header
//! refuses the file); each material's values are checked when they are first read (their
//! SHA-256, then their inflated length and counts), and a material that fails is never used:
//! every probe of it answers [`TablesError::Material`], which a caller such as the referee
//! reports once ([`TablesError::first`]) and then plays on without the tables for that
//! material. No error text carries the file's bytes: each is a few words and figures.

use super::Material;

/// Why a variant has no endgame tables ([`super::TableRules::new`]): each says the variant's
/// name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    #[error("variant {variant}: endgame tables need two sides playing to capture")]
    NotTwoSidesCapturing { variant: String },
    #[error("variant {variant}: endgame tables do not hold a bag")]
    Bag { variant: String },
    #[error("variant {variant}: endgame tables do not hold chain captures")]
    ChainCaptures { variant: String },
    #[error("variant {variant}: endgame tables hold boards of at most 128 cells")]
    TooManyCells { variant: String },
    #[error("variant {variant}: endgame tables need the sides to take turns one after the other")]
    NotTakingTurns { variant: String },
}

/// Why a material's name does not read ([`Material::parse`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MaterialNameError {
    /// A character that is no piece letter; `name` is the name read, cut to a few words.
    #[error("{character:?} in {name:?} is not a piece letter (one of KGBRNCPkgbrncp)")]
    NotAPiece { character: char, name: String },
}

/// Why one material's stored values are not used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MaterialFault {
    /// Its bytes could not be read back (the file shrank or went away since it was opened, or
    /// an I/O error such as no file descriptor left): tried again at the next probe.
    #[error("cannot read its {bytes} bytes back ({kind})")]
    Read {
        bytes: u64,
        kind: std::io::ErrorKind,
    },
    /// Its bytes are not the ones the header's checksum was made of.
    #[error(
        "its bytes do not match the SHA-256 the header records for them (the file is damaged \
         or was changed): rebuild it with `anqi tables build`"
    )]
    Checksum,
    /// Its bytes are no DEFLATE stream (the status the inflater stopped with).
    #[error("its values do not inflate ({0})")]
    Inflate(&'static str),
    /// They inflate to more than its layout's entries: inflating stopped there.
    #[error(
        "its values inflate past the {expected} bytes its layout holds (inflating stopped there)"
    )]
    TooLong { expected: u64 },
    /// They inflate to fewer bytes than its layout's entries.
    #[error("its values inflate to {got} bytes, where its layout holds {expected}")]
    TooShort { got: u64, expected: u64 },
    /// Its values' counts are not the header's (wins, draws, losses, the longest).
    #[error(
        "its values' counts (wins, draws, losses, longest) are not the ones the header records"
    )]
    Counts,
    /// A position the values call no position.
    #[error("its values call a position no position")]
    NoneAtPosition,
}

impl MaterialFault {
    /// Whether this is a failure to read the bytes ([`MaterialFault::Read`]: an I/O error, a
    /// file gone or shorter than when it was opened), which may pass and is tried again,
    /// rather than a fault of the bytes themselves, which is kept.
    pub fn is_read(&self) -> bool {
        matches!(self, MaterialFault::Read { .. })
    }
}

/// Tables that cannot answer a probe.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TablesError {
    /// One material's values are not used (see [`MaterialFault`]); every other material is.
    #[error("{file}: material {material}: {fault}")]
    Material {
        /// The tables file, as given.
        file: String,
        material: Material,
        fault: MaterialFault,
        /// Whether this is the first time these tables report this material.
        first: bool,
    },
    /// A game of a variant whose board, steps or captures are not the ones the tables were
    /// built for.
    #[error(
        "{file}: tables of variant {tables}'s rules, asked about a game of variant {game} \
         (other board, steps or captures): not used for it"
    )]
    OtherRules {
        file: String,
        tables: String,
        game: String,
        /// Whether this is the first time these tables report a game of other rules.
        first: bool,
    },
}

impl TablesError {
    /// Whether these tables report this fault for the first time: a caller that logs faults
    /// logs the first report (one line per bad material) and may pass over the others.
    pub fn first(&self) -> bool {
        match self {
            TablesError::Material { first, .. } | TablesError::OtherRules { first, .. } => *first,
        }
    }
}

/// At most `max` characters of an untrusted text (a name or message from a file), marked
/// `...` when cut, so that no error carries more than a few words of a file.
pub fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((at, _)) => format!("{}...", &text[..at]),
    }
}
