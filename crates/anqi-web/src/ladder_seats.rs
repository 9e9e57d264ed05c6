//! A person's seat on a ladder (`anqi serve --ladder` with `[http] humans = true`): people play
//! the ladder's rated games as its bots do, by an account's secret, waiting with the bots and
//! paired by matchmaking. A person with no account plays as a guest when `[ladder] guests`
//! says so: the ladder makes an account for them, and their page keeps its secret, so that the
//! same person comes back as the same guest. There are no games against the server's own bots
//! here (they hold no account), and no choice of seat or clock: matchmaking and `[clock]`
//! decide, as for every account.

use anqi_server::door::Guest;
use anqi_server::watch::{LadderPages, Registrant, RegistrationRefusal};
use std::net::SocketAddr;

/// What a ladder's seat request asks for, as `against`.
pub const AGAINST: &str = "ladder";

/// Who sits: the account's name and secret, and the secret again when the account was made
/// now (a guest's: the page keeps it).
pub struct LadderSeat {
    pub guest: Guest,
    pub made: Option<String>,
}

/// Why a ladder seats nobody for a request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LadderRefusal {
    /// `against` is not `"ladder"` (its first 40 characters).
    #[error("against = {0:?}: this server is a ladder, where people play its rated games: against = \"ladder\", with your account's secret")]
    Against(String),
    #[error("on a ladder, matchmaking chooses the seats and [clock] is every game's clock: leave seat and time out")]
    Chooses,
    #[error("no account of this ladder has this secret (a secret is anqi- and 32 hex digits, as anqi ladder add printed it)")]
    UnknownSecret,
    #[error("account {0} is retired from the ladder: it can no longer play")]
    Retired(String),
    /// No account could be made for a guest.
    #[error(transparent)]
    Account(RegistrationRefusal),
    /// The ladder's database cannot say whose the secret is (why).
    #[error("the ladder's database cannot be read: {0}")]
    Unreadable(String),
}

impl LadderRefusal {
    /// The HTTP status that answers it: the request's fault 400 (no guests here 403, a cap on
    /// accounts 429), the database's 503.
    pub fn status(&self) -> u16 {
        match self {
            LadderRefusal::Against(_)
            | LadderRefusal::Chooses
            | LadderRefusal::UnknownSecret
            | LadderRefusal::Retired(_) => 400,
            LadderRefusal::Account(refusal) => refusal.status(),
            LadderRefusal::Unreadable(_) => 503,
        }
    }
}

/// What a ladder's seat request must say besides the secret: `against = "ladder"`, and
/// neither a seat nor a clock.
///
/// # Errors
/// What it says that a ladder cannot give.
pub fn check(against: &str, seat: usize, time: &str, secret: &str) -> Result<(), LadderRefusal> {
    if against != AGAINST {
        return Err(LadderRefusal::Against(against.chars().take(40).collect()));
    }
    if seat != 0 || !time.is_empty() {
        return Err(LadderRefusal::Chooses);
    }
    if !secret.is_empty() && !is_secret_shaped(secret) {
        return Err(LadderRefusal::UnknownSecret);
    }
    Ok(())
}

/// A secret as `anqi ladder add` makes them: `anqi-` and 32 hex digits. Anything else is no
/// account's, and is not looked up.
fn is_secret_shaped(secret: &str) -> bool {
    secret
        .strip_prefix("anqi-")
        .is_some_and(|hex| hex.len() == 32 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The account that sits: the one whose secret this is, or a guest's made now (`secret`
/// empty). Blocks on the ladder's database: called off the pages' runtime.
///
/// # Errors
/// An unknown or retired account's secret, no secret where guests are not seated, a cap on
/// accounts reached, or the database refusing.
pub fn account(
    ladder: &dyn LadderPages,
    secret: &str,
    peer: SocketAddr,
) -> Result<LadderSeat, LadderRefusal> {
    if secret.is_empty() {
        let made = ladder
            .register(Registrant::Guest, peer.ip())
            .map_err(LadderRefusal::Account)?;
        return Ok(LadderSeat {
            guest: Guest {
                name: made.name,
                seed: made.secret.clone(),
                peer,
            },
            made: Some(made.secret),
        });
    }
    match ladder.account_of(secret) {
        Ok(Some(account)) if account.retired => Err(LadderRefusal::Retired(account.name)),
        Ok(Some(account)) => Ok(LadderSeat {
            guest: Guest {
                name: account.name,
                seed: secret.to_string(),
                peer,
            },
            made: None,
        }),
        Ok(None) => Err(LadderRefusal::UnknownSecret),
        Err(why) => Err(LadderRefusal::Unreadable(why)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_secrets_of_the_ladders_shape_are_looked_up() {
        assert!(is_secret_shaped("anqi-0123456789abcdef0123456789ABCDEF"));
        assert!(!is_secret_shaped("anqi-0123"));
        assert!(!is_secret_shaped("0123456789abcdef0123456789abcdef"));
        assert!(!is_secret_shaped("anqi-0123456789abcdef0123456789abcdeg"));
    }

    #[test]
    fn a_ladder_seat_asks_for_the_ladder_and_nothing_it_chooses() {
        assert_eq!(check("ladder", 0, "", ""), Ok(()));
        assert_eq!(
            check("random", 0, "", ""),
            Err(LadderRefusal::Against("random".into()))
        );
        assert_eq!(check("ladder", 1, "", ""), Err(LadderRefusal::Chooses));
        assert_eq!(
            check("ladder", 0, "3:00+2", ""),
            Err(LadderRefusal::Chooses)
        );
        assert_eq!(
            check("ladder", 0, "", "hunter2"),
            Err(LadderRefusal::UnknownSecret)
        );
    }
}
