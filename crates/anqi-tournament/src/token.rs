//! Seat tokens: the secrets that seat an engine in its tournament game.
//!
//! A token is all a connection needs to take a seat, so it must be unguessable: it comes from
//! the operating system's random source, never from the master seed (which is public in the
//! tournament file and defaults to "anqi"). Deals stay reproducible because they derive from the
//! master seed alone; tokens take no part in them.

/// Bits of randomness in a token: far beyond what guessing over a network can reach.
const TOKEN_BYTES: usize = 16;

/// The operating system's random source failed, so no secret token can be made.
#[derive(Debug, thiserror::Error)]
#[error("cannot make a secret token: the operating system's random source failed: {0}")]
pub struct NoRandomness(getrandom::Error);

/// A fresh token: `t` and 32 hex digits (128 bits from the OS random source).
///
/// The leading letter keeps it a symbol when sent as the SEED of `(init NAME SEED)`: a token of
/// digits alone would be read as a number and could come back written differently.
///
/// # Errors
/// [`NoRandomness`] when the OS random source fails. There is deliberately no fallback (such as
/// the clock): a predictable token is a seat anyone can take.
pub fn fresh() -> Result<String, NoRandomness> {
    let mut bytes = [0u8; TOKEN_BYTES];
    getrandom::fill(&mut bytes).map_err(NoRandomness)?;
    Ok(format!("t{}", anqi_core::hex::hex(&bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_fresh_symbols_of_128_bits() {
        let (a, b) = (fresh().unwrap(), fresh().unwrap());
        assert_ne!(a, b);
        assert_eq!(a.len(), 33);
        assert!(a.starts_with('t'));
        assert!(a[1..].chars().all(|c| c.is_ascii_hexdigit()));
    }
}
