//! The event's secret: the master seed every deal and engine seed comes from, the commitment
//! that binds the event to it, and the seed file that keeps it between runs.
//!
//! # What is secret, and when (TOURNAMENTS.md, "Deals: secret, then proven")
//! - **Deals.** Deal `n` is dealt from the server seed `HMAC-SHA256(master, "anqi-tournament-v2
//!   deal n")`, written as 64 hex digits. A finished game shows its own deal's seed (its record
//!   carries it, so that `anqi replay` re-derives the deal); without the master seed, no number
//!   of such seeds tells anything about another deal. A plain hash of the master seed and the
//!   deal number would not do: the master seed would then be the only secret, and it would be
//!   recovered from any published seed by guessing it (a default, a word) offline.
//! - **Engine seeds** (`{seed}` in an engine's command) come from the same key, so what one
//!   engine is told says nothing about the deals either.
//! - **The master seed.** 256 random bits by default, written to the event's seed file (mode
//!   0600, next to the records: `OUTPUT.seed`) when the event starts, and read again by a
//!   resumed run and by every shard, so that they all deal the same games. A fixed seed (`seed`
//!   in the file, `--seed`) remains for reproducible experiments: anyone who knows it, or
//!   guesses it, computes every deal.
//! - **Commit, then reveal.** The commitment, `SHA-256("anqi-tournament-v2 commitment" ||
//!   master)`, is printed when the event starts and written into every game's record. Once the
//!   event is over the organizer publishes the master seed (the seed file), and anyone can check
//!   with `anqi report --seed-file` or `anqi replay --seed-file` that every deal came from the
//!   committed seed: the organizer could not have chosen deals. Shards share one seed file, so
//!   one commitment.

use crate::secret_file;
use anqi_core::hex::hex;
use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The domain of every value derived here: another purpose, or another version of the
/// derivation, never yields the same bytes.
const DOMAIN: &str = "anqi-tournament-v2";

/// The longest master seed accepted, in bytes (a fixed one is typed by a person; a random one
/// is 64 hex digits).
pub const MAX_SEED_BYTES: usize = 1024;

/// The largest seed file read: a few hundred bytes are enough.
const MAX_SEED_FILE_BYTES: u64 = 4096;

/// An event's master seed.
#[derive(Clone, PartialEq, Eq)]
pub struct MasterSeed {
    text: String,
}

// The seed is a secret: never printed by accident (in a `{:?}` of a config or an error).
impl std::fmt::Debug for MasterSeed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MasterSeed(commitment {})", self.commitment())
    }
}

/// Why a master seed or a seed file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SeedError {
    #[error("the master seed is empty")]
    Empty,
    #[error("the master seed is {0} bytes long; at most {MAX_SEED_BYTES} are accepted")]
    TooLong(usize),
    #[error("cannot read the seed file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write the seed file {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not an anqi seed file ({why})")]
    NotASeedFile { path: PathBuf, why: String },
    #[error("cannot draw a random master seed: {0}")]
    Random(String),
}

impl MasterSeed {
    /// A seed given by the organizer (`seed` in the tournament file, `--seed`).
    ///
    /// # Errors
    /// An empty seed, or one longer than [`MAX_SEED_BYTES`].
    pub fn fixed(text: &str) -> Result<MasterSeed, SeedError> {
        if text.is_empty() {
            return Err(SeedError::Empty);
        }
        if text.len() > MAX_SEED_BYTES {
            return Err(SeedError::TooLong(text.len()));
        }
        Ok(MasterSeed { text: text.into() })
    }

    /// 256 bits from the operating system's generator, as 64 hex digits.
    ///
    /// # Errors
    /// When the operating system has no randomness to give.
    pub fn fresh() -> Result<MasterSeed, SeedError> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(|e| SeedError::Random(e.to_string()))?;
        Ok(MasterSeed { text: hex(&bytes) })
    }

    /// The seed as the organizer reveals it.
    pub fn reveal(&self) -> &str {
        &self.text
    }

    /// `HMAC-SHA256(master, DOMAIN + purpose)`.
    fn keyed(&self, purpose: &str) -> [u8; 32] {
        let mut mac = Hmac::<Sha256>::new_from_slice(self.text.as_bytes())
            .expect("HMAC takes a key of any length");
        mac.update(DOMAIN.as_bytes());
        mac.update(b"\n");
        mac.update(purpose.as_bytes());
        mac.finalize().into_bytes().into()
    }

    /// `HMAC-SHA256(master, DOMAIN + purpose)` for another part of the crate (a deal book's
    /// order): `purpose` must not begin as this file's purposes do (`deal`, `engine`).
    pub(crate) fn keyed_for(&self, purpose: &str) -> [u8; 32] {
        debug_assert!(!purpose.starts_with("deal\n") && !purpose.starts_with("engine\n"));
        self.keyed(purpose)
    }

    /// The server's seed contribution to deal `deal` (client seeds are left out of tournament
    /// deals): 64 hex digits.
    pub fn deal_seed(&self, deal: u64) -> String {
        hex(&self.keyed(&format!("deal\n{deal}")))
    }

    /// The seed for the engine in seat `seat` (1-based) of game `index`'s own randomness: 63
    /// bits, so that engines that read it as a signed number read it right.
    pub fn engine_seed(&self, index: u64, seat: usize) -> u64 {
        let bytes = self.keyed(&format!("engine\n{index}\n{seat}"));
        u64::from_be_bytes(bytes[..8].try_into().expect("8 bytes")) >> 1
    }

    /// The commitment to this seed: 64 hex digits, printed when the event starts and kept in
    /// every record.
    pub fn commitment(&self) -> String {
        let mut h = Sha256::new();
        h.update(DOMAIN.as_bytes());
        h.update(b" commitment\n");
        h.update(self.text.as_bytes());
        hex(&h.finalize())
    }
}

/// What a seed file holds (JSON): the master seed and, as a check that the file is whole, its
/// commitment.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SeedFileText {
    /// Always `"anqi-tournament-seed"`.
    kind: String,
    master_seed: String,
    commitment: String,
    /// Set when the event ended and its seed was revealed: it deals no more games.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    revealed: bool,
}

/// A seed file's contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeedFile {
    pub seed: MasterSeed,
    /// Whether the event's end revealed it (see [`mark_revealed`]).
    pub revealed: bool,
}

const SEED_FILE_KIND: &str = "anqi-tournament-seed";

/// The seed file of an event whose records go to `output`, when none is named: `OUTPUT.seed`.
pub fn default_seed_file(output: &Path) -> PathBuf {
    let mut name = output.as_os_str().to_owned();
    name.push(".seed");
    PathBuf::from(name)
}

/// Reads a seed file's master seed (see [`read_seed_file_whole`]).
///
/// # Errors
/// As [`read_seed_file_whole`].
pub fn read_seed_file(path: &Path) -> Result<MasterSeed, SeedError> {
    read_seed_file_whole(path).map(|f| f.seed)
}

/// Reads a seed file, checking that its seed matches the commitment written beside it.
///
/// # Errors
/// An unreadable file, one too large, or one that is not a whole seed file.
pub fn read_seed_file_whole(path: &Path) -> Result<SeedFile, SeedError> {
    let not = |why: String| SeedError::NotASeedFile {
        path: path.into(),
        why,
    };
    let text = secret_file::read(path, MAX_SEED_FILE_BYTES).map_err(|e| match e {
        secret_file::ReadError::Io(source) => SeedError::Read {
            path: path.into(),
            source,
        },
        secret_file::ReadError::TooLarge => not(format!("more than {MAX_SEED_FILE_BYTES} bytes")),
    })?;
    let file: SeedFileText = serde_json::from_str(&text).map_err(|e| not(e.to_string()))?;
    if file.kind != SEED_FILE_KIND {
        return Err(not(format!("its kind is {:?}", file.kind)));
    }
    let seed = MasterSeed::fixed(&file.master_seed).map_err(|e| not(e.to_string()))?;
    if seed.commitment() != file.commitment {
        return Err(not(
            "its master seed does not match the commitment written beside it: the file was changed"
                .into(),
        ));
    }
    Ok(SeedFile {
        seed,
        revealed: file.revealed,
    })
}

fn seed_file_text(seed: &MasterSeed, revealed: bool) -> String {
    let mut text = serde_json::to_string_pretty(&SeedFileText {
        kind: SEED_FILE_KIND.into(),
        master_seed: seed.text.clone(),
        commitment: seed.commitment(),
        revealed,
    })
    .expect("a seed file serializes");
    text.push('\n');
    text
}

/// Marks the seed file at `path` (holding `seed`) revealed: the event is over, its seed is
/// public, and no run deals from it again. Replaced whole (a new file renamed over it), so a
/// crash leaves the old file or the new one.
///
/// # Errors
/// When the file cannot be written.
pub fn mark_revealed(path: &Path, seed: &MasterSeed) -> Result<(), SeedError> {
    let mut temp = path.as_os_str().to_owned();
    temp.push(format!(".{}.tmp", std::process::id()));
    let temp = PathBuf::from(temp);
    let _ = std::fs::remove_file(&temp);
    secret_file::create(&temp, &seed_file_text(seed, true)).map_err(|source| SeedError::Write {
        path: temp.clone(),
        source,
    })?;
    std::fs::rename(&temp, path).map_err(|source| SeedError::Write {
        path: path.into(),
        source,
    })
}

/// Writes a new seed file holding `seed`, readable by its owner alone. An existing file is
/// never replaced: it may hold the seed of an event that has already started.
///
/// # Errors
/// The file exists, or cannot be written.
pub fn write_seed_file(path: &Path, seed: &MasterSeed) -> Result<(), SeedError> {
    secret_file::create(path, &seed_file_text(seed, false)).map_err(|source| SeedError::Write {
        path: path.into(),
        source,
    })
}

/// The master seed named on a command line that checks records: `--seed TEXT`, or `--seed-file
/// FILE`.
///
/// # Errors
/// As [`MasterSeed::fixed`] and [`read_seed_file`].
pub fn given(text: Option<&str>, file: Option<&Path>) -> Result<Option<MasterSeed>, SeedError> {
    match (text, file) {
        (Some(t), _) => MasterSeed::fixed(t).map(Some),
        (None, Some(f)) => read_seed_file(f).map(Some),
        (None, None) => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_values_are_stable_and_apart() {
        let a = MasterSeed::fixed("anqi").unwrap();
        let b = MasterSeed::fixed("anqj").unwrap();
        // Pinned (records and resumed events depend on them), as Python's hmac and hashlib
        // compute them: hmac.new(b"anqi", b"anqi-tournament-v2\ndeal\n0", "sha256").
        assert_eq!(
            a.deal_seed(0),
            "51834ccf973c5b49c2c85611652d338b278b2d742e6f925f250a8d513763dbda"
        );
        assert_eq!(a.engine_seed(3, 1), 956_943_775_498_162_374);
        assert_eq!(
            a.commitment(),
            "d60c53eca7ce6480831f43d73aef674effb7c301311bcd1cad85971888f46190"
        );
        assert_ne!(a.deal_seed(0), a.deal_seed(1));
        assert_ne!(a.deal_seed(0), b.deal_seed(0));
        assert_eq!(a.engine_seed(3, 1), a.engine_seed(3, 1));
        assert_ne!(a.engine_seed(3, 1), a.engine_seed(3, 2));
        assert!(a.engine_seed(3, 1) < 1 << 63);
        assert_ne!(a.commitment(), b.commitment());
        // The deal seed is not the commitment nor any plain hash of the seed and the deal.
        assert_ne!(a.deal_seed(0), a.commitment());
    }

    #[test]
    fn the_deal_seed_is_hmac_sha256_keyed_by_the_master_seed() {
        // RFC 4231, test case 2: key "Jefe", data "what do ya want for nothing?". Our message
        // is DOMAIN, a newline, then the purpose: build the same MAC by hand to pin the
        // construction, then check the RFC's vector through the same library call.
        let mut mac = Hmac::<Sha256>::new_from_slice(b"Jefe").unwrap();
        mac.update(b"what do ya want for nothing?");
        assert_eq!(
            hex(&mac.finalize().into_bytes()),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        let seed = MasterSeed::fixed("Jefe").unwrap();
        let mut mac = Hmac::<Sha256>::new_from_slice(b"Jefe").unwrap();
        mac.update(b"anqi-tournament-v2\ndeal\n7");
        assert_eq!(seed.deal_seed(7), hex(&mac.finalize().into_bytes()));
    }

    #[test]
    fn fresh_seeds_are_256_random_bits() {
        let a = MasterSeed::fresh().unwrap();
        let b = MasterSeed::fresh().unwrap();
        assert_eq!(a.reveal().len(), 64);
        assert!(a.reveal().bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
        // Never printed by a Debug of something that holds it.
        assert!(!format!("{a:?}").contains(a.reveal()));
    }

    #[test]
    fn fixed_seeds_are_bounded() {
        assert!(matches!(MasterSeed::fixed(""), Err(SeedError::Empty)));
        let long = "x".repeat(MAX_SEED_BYTES + 1);
        assert!(matches!(
            MasterSeed::fixed(&long),
            Err(SeedError::TooLong(_))
        ));
    }

    #[test]
    fn a_seed_file_round_trips_is_private_and_never_replaced() {
        let dir = std::env::temp_dir().join(format!("anqi-seeds-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("event.seed");
        let _ = std::fs::remove_file(&path);
        let seed = MasterSeed::fresh().unwrap();
        write_seed_file(&path, &seed).unwrap();
        assert_eq!(read_seed_file(&path).unwrap(), seed);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o077, 0, "mode {mode:o}");
        }
        let other = MasterSeed::fresh().unwrap();
        assert!(matches!(
            write_seed_file(&path, &other),
            Err(SeedError::Write { .. })
        ));
        assert_eq!(read_seed_file(&path).unwrap(), seed);
        // A changed seed no longer matches its commitment.
        let text = std::fs::read_to_string(&path).unwrap();
        let changed = text.replace(seed.reveal(), other.reveal());
        std::fs::write(&path, changed).unwrap();
        let e = read_seed_file(&path).unwrap_err().to_string();
        assert!(e.contains("does not match the commitment"), "{e}");
        // Anything else is not a seed file, and a huge file is not read whole.
        std::fs::write(&path, "{}").unwrap();
        assert!(matches!(
            read_seed_file(&path),
            Err(SeedError::NotASeedFile { .. })
        ));
        std::fs::write(&path, vec![b' '; 10_000]).unwrap();
        let e = read_seed_file(&path).unwrap_err().to_string();
        assert!(e.contains("more than 4096 bytes"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_default_seed_file_sits_beside_the_records() {
        assert_eq!(
            default_seed_file(Path::new("out/games.jsonl")),
            PathBuf::from("out/games.jsonl.seed")
        );
    }
}
