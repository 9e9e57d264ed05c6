//! Accounts' names and secrets: a name is what the records, the pages and the links call the
//! account; a secret is what its bot sends as the SEED of `(init NAME SECRET)`, made here from
//! the operating system's randomness and kept by the database only as its SHA-256.
//!
//! A plain SHA-256 is enough here, unlike for passwords: a secret is 128 random bits, so no
//! dictionary or brute force can find it from its digest.

use sha2::{Digest, Sha256};

/// The longest account name, in characters.
pub const MAX_NAME: usize = 32;

/// Why a name cannot be an account's.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum NameError {
    #[error("an account name cannot be empty")]
    Empty,
    #[error("an account name has at most {MAX_NAME} characters (this one has {0})")]
    TooLong(usize),
    #[error(
        "an account name is made of letters a-z, A-Z, digits and . _ - (it is a protocol NAME and a part of the pages' addresses); {0:?} is not one of them"
    )]
    Unfit(char),
}

/// Checks a name for an account: 1 to [`MAX_NAME`] characters of `[A-Za-z0-9._-]`, which are
/// fit for `(init NAME ...)`, a record, a URL path and a page alike.
///
/// # Errors
/// What is wrong with it.
pub fn check_name(name: &str) -> Result<(), NameError> {
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
    {
        return Err(NameError::Unfit(c));
    }
    let n = name.chars().count();
    if n > MAX_NAME {
        return Err(NameError::TooLong(n));
    }
    Ok(())
}

/// A new secret: `anqi-` and 32 hex digits of the operating system's randomness (starting
/// with letters, so that no reader takes it for a number and drops a leading zero).
///
/// # Errors
/// When the system has no randomness to give.
pub fn new_secret() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)?;
    Ok(format!("anqi-{}", anqi_core::hex::hex(&bytes)))
}

/// What the database keeps of a secret.
pub fn digest(secret: &str) -> [u8; 32] {
    Sha256::digest(secret.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(check_name("greedy-2.1_b"), Ok(()));
        assert_eq!(check_name(""), Err(NameError::Empty));
        assert_eq!(check_name("a b"), Err(NameError::Unfit(' ')));
        assert_eq!(check_name("a/b"), Err(NameError::Unfit('/')));
        assert_eq!(check_name("é"), Err(NameError::Unfit('é')));
        assert_eq!(check_name(&"x".repeat(33)), Err(NameError::TooLong(33)));
    }

    #[test]
    fn secrets_are_new_each_time_and_kept_as_digests() {
        let (a, b) = (new_secret().unwrap(), new_secret().unwrap());
        assert_ne!(a, b);
        assert!(a.starts_with("anqi-") && a.len() == 37);
        assert_eq!(digest(&a), digest(&a));
        assert_ne!(digest(&a), digest(&b));
    }
}
