//! Secrets that seat players (tournament tokens, the seats' `rejoin` secrets): looked up by
//! digest, never compared as text (see [`TokenDigest`]), and the rejoin secrets made here, from
//! the operating system's randomness only.

use sha2::{Digest, Sha256};

/// The SHA-256 digest of a token or secret: what the seating and rejoin maps are keyed by,
/// instead of the text.
///
/// Comparing secret strings with `==` stops at the first differing byte, so a stranger timing
/// the server's answers could in principle learn a token byte by byte; a `HashMap<String, _>`
/// compares keys that way. Keyed by digest, no lookup ever compares token bytes: the hash
/// table's probing and comparisons see only digests, whose bytes a stranger cannot steer
/// (choosing a token for a digest prefix is a preimage attack on SHA-256), and equality of
/// digests is itself constant-time, so no comparison of secret-derived bytes exits early.
#[derive(Clone, Copy, Eq)]
pub(crate) struct TokenDigest([u8; 32]);

impl std::hash::Hash for TokenDigest {
    /// Hashes the digest's bytes, as the derived impl would (equal digests, equal hashes).
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl TokenDigest {
    pub(crate) fn of(token: &str) -> TokenDigest {
        TokenDigest(Sha256::digest(token.as_bytes()).into())
    }

    /// A digest kept elsewhere (a ladder's database keeps its accounts' secrets as digests).
    pub(crate) fn from_bytes(digest: [u8; 32]) -> TokenDigest {
        TokenDigest(digest)
    }
}

impl PartialEq for TokenDigest {
    /// Constant time: xor-folds every byte, with no early exit.
    fn eq(&self, other: &TokenDigest) -> bool {
        let diff = self
            .0
            .iter()
            .zip(other.0.iter())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b));
        // The fold has no branch on the data. black_box hides from the compiler that only
        // `diff == 0` matters, which is what could tempt it into an early-exit comparison.
        std::hint::black_box(diff) == 0
    }
}

impl std::fmt::Debug for TokenDigest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenDigest(..)")
    }
}

/// A new seat secret: 16 bytes from the operating system, in hex. `None` when the system has
/// no randomness to give (the seat is then not kept: a guessable secret would let anyone take
/// it).
pub(crate) fn new_secret() -> Option<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).ok()?;
    Some(anqi_core::hex::hex(&bytes))
}
