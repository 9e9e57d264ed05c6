//! Accounts made on request, from the pages: bots registering themselves (`[ladder]
//! registration`, `POST /api/ladder/accounts`) and people sitting down in the web seats as
//! guests (`[ladder] guests`). Off unless the operator says so; then capped per hour, in all
//! and per client network, as connections are: a flood of requests makes a few accounts and a
//! few log lines, then refusals.
//!
//! Every request that gets as far as the database counts against the caps, a taken name too:
//! otherwise a client could try names by the thousand. A new account is told to the seating
//! before its secret is given out, so that a seat taken with it at once is seated.

use crate::accounts::{check_name, digest, new_secret};
use crate::ledger::Ledger;
use crate::store::StoreError;
use anqi_server::limits::network_of;
use anqi_server::metrics::{Metrics, Refused};
use anqi_server::throttle::{left_out, LogThrottle};
use anqi_server::watch::{LadderPeople, Registered, Registrant, RegistrationRefusal};
use anqi_server::{LadderDesk, LadderNews};
use std::collections::VecDeque;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The window the caps count over.
const HOUR: Duration = Duration::from_secs(3600);

/// Names tried for a guest before giving up (8 random hex digits rarely meet).
const GUEST_TRIES: usize = 4;

/// Names kept for guests: a registration may not take one.
pub const GUEST_PREFIX: &str = "guest-";

/// `[ladder]`'s rules for accounts made on request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegistrationRules {
    pub people: LadderPeople,
    /// Accounts asked for within an hour, in all and per network; 0: no cap.
    pub per_hour: usize,
    pub per_hour_per_address: usize,
    /// `[server] ipv4_prefix`, `ipv6_prefix`: how addresses are counted by network.
    pub ipv4_prefix: u8,
    pub ipv6_prefix: u8,
}

/// Makes accounts on request, under the caps.
pub struct Registrar {
    rules: RegistrationRules,
    ledger: Arc<Mutex<Ledger>>,
    desk: LadderDesk,
    metrics: Metrics,
    asked: Mutex<Asked>,
    logs: Mutex<LogThrottle<IpAddr>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Registrar {
    pub fn new(
        rules: RegistrationRules,
        ledger: Arc<Mutex<Ledger>>,
        desk: LadderDesk,
        metrics: Metrics,
    ) -> Registrar {
        Registrar {
            rules,
            ledger,
            desk,
            metrics,
            asked: Mutex::default(),
            logs: Mutex::default(),
        }
    }

    pub fn people(&self) -> LadderPeople {
        self.rules.people
    }

    /// Makes an account for `who`, asking from `peer`.
    ///
    /// # Errors
    /// Registration (or guests) off, an unfit or taken name, a cap reached, or the database
    /// refusing.
    pub fn register(
        &self,
        who: &Registrant,
        peer: IpAddr,
    ) -> Result<Registered, RegistrationRefusal> {
        let made = self.check(who).and_then(|()| {
            self.count(peer)?;
            self.make(who)
        });
        match &made {
            Ok(account) => {
                tracing::info!(name = %account.name, guest = matches!(who, Registrant::Guest), %peer, "ladder account made on request");
            }
            Err(why) => self.log_refusal(peer, why),
        }
        made
    }

    /// What the rules say of the request itself.
    fn check(&self, who: &Registrant) -> Result<(), RegistrationRefusal> {
        match who {
            Registrant::Named(_) if !self.rules.people.registration => {
                Err(RegistrationRefusal::Closed)
            }
            Registrant::Guest if !self.rules.people.guests => Err(RegistrationRefusal::NoGuests),
            Registrant::Named(name) => {
                check_name(name).map_err(|e| RegistrationRefusal::Name(e.to_string()))?;
                if name.to_ascii_lowercase().starts_with(GUEST_PREFIX) {
                    return Err(RegistrationRefusal::GuestName);
                }
                Ok(())
            }
            Registrant::Guest => Ok(()),
        }
    }

    /// Counts the request against the caps, or refuses it.
    fn count(&self, peer: IpAddr) -> Result<(), RegistrationRefusal> {
        let network = network_of(peer, self.rules.ipv4_prefix, self.rules.ipv6_prefix);
        let counted = lock(&self.asked).count(
            Instant::now(),
            network,
            self.rules.per_hour,
            self.rules.per_hour_per_address,
        );
        if counted.is_err() {
            self.metrics.refused(Refused::Registrations);
        }
        counted
    }

    /// Makes the account and tells the seating.
    fn make(&self, who: &Registrant) -> Result<Registered, RegistrationRefusal> {
        let database = |e: &dyn std::fmt::Display| RegistrationRefusal::Database(e.to_string());
        let mut ledger = lock(&self.ledger);
        let mut tries = 0;
        let registered = loop {
            let name = match who {
                Registrant::Named(name) => name.clone(),
                Registrant::Guest => guest_name().map_err(|e| database(&e))?,
            };
            // A name taken, also in another case, is refused by the store (`add_account`).
            let secret = new_secret().map_err(|e| database(&e))?;
            match ledger.add_account(&name, &digest(&secret)) {
                Ok(_) => break Registered { name, secret },
                Err(StoreError::NameTaken(name)) => {
                    tries += 1;
                    if matches!(who, Registrant::Named(_)) || tries >= GUEST_TRIES {
                        return Err(RegistrationRefusal::Taken(name));
                    }
                }
                Err(e) => return Err(database(&e)),
            }
        };
        self.announce(&mut ledger);
        Ok(registered)
    }

    /// Tells the seating the accounts, under the ledger's lock: before a secret is given out
    /// (the seating hears it before any seat taken with it: one channel, in order), and
    /// before a web seat is taken with a secret the database knows. If the database cannot
    /// say now, the ladder's next look at it (within a second) tells them.
    pub fn announce(&self, ledger: &mut Ledger) {
        match ledger.seating_accounts() {
            Ok(accounts) => {
                let _ = self.desk.tell(LadderNews::Accounts(accounts));
            }
            Err(e) => {
                tracing::warn!(error = %e, "the ladder's accounts cannot be read now; the seating hears of them at the next look");
                ledger.announce_later();
            }
        }
    }

    /// The ledger, locked (for [`Registrar::announce`], and for the pages, which read the
    /// ladder through the registrar).
    pub fn ledger(&self) -> std::sync::MutexGuard<'_, Ledger> {
        lock(&self.ledger)
    }

    fn log_refusal(&self, peer: IpAddr, why: &RegistrationRefusal) {
        let network = network_of(peer, self.rules.ipv4_prefix, self.rules.ipv6_prefix);
        if let Some(n) = lock(&self.logs).allow(&network, Instant::now()) {
            tracing::warn!(%peer, "ladder account refused: {why}{}", left_out(n));
        }
    }
}

/// A guest's name: `guest-` and 8 hex digits from the system's randomness.
fn guest_name() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 4];
    getrandom::fill(&mut bytes)?;
    Ok(format!("{GUEST_PREFIX}{}", anqi_core::hex::hex(&bytes)))
}

/// The requests counted within the last hour: when, and from which network.
#[derive(Default)]
struct Asked(VecDeque<(Instant, IpAddr)>);

impl Asked {
    /// Counts a request from `network` at `now`, or refuses it: `per_address` within the hour
    /// from the network, or `per_hour` in all (0: no cap).
    fn count(
        &mut self,
        now: Instant,
        network: IpAddr,
        per_hour: usize,
        per_address: usize,
    ) -> Result<(), RegistrationRefusal> {
        while self
            .0
            .front()
            .is_some_and(|(at, _)| now.saturating_duration_since(*at) >= HOUR)
        {
            self.0.pop_front();
        }
        let all = self.0.len();
        let mine = self.0.iter().filter(|(_, n)| *n == network).count();
        if per_address > 0 && mine >= per_address {
            return Err(RegistrationRefusal::NetworkFull(mine));
        }
        if per_hour > 0 && all >= per_hour {
            return Err(RegistrationRefusal::ServerFull(all));
        }
        self.0.push_back((now, network));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_caps_count_per_network_and_in_all_within_the_hour() {
        let (a, b, c): (IpAddr, IpAddr, IpAddr) = (
            "10.0.0.0".parse().unwrap(),
            "10.0.1.0".parse().unwrap(),
            "10.0.2.0".parse().unwrap(),
        );
        let t0 = Instant::now();
        let mut asked = Asked::default();
        assert_eq!(asked.count(t0, a, 3, 2), Ok(()));
        assert_eq!(asked.count(t0, a, 3, 2), Ok(()));
        assert_eq!(
            asked.count(t0, a, 3, 2),
            Err(RegistrationRefusal::NetworkFull(2))
        );
        assert_eq!(asked.count(t0, b, 3, 2), Ok(()));
        assert_eq!(
            asked.count(t0, c, 3, 2),
            Err(RegistrationRefusal::ServerFull(3))
        );
        // An hour later the first ones no longer count.
        let later = t0 + HOUR;
        assert_eq!(asked.count(later, a, 3, 2), Ok(()));
        assert_eq!(asked.count(later, c, 3, 2), Ok(()));
        // 0: no cap.
        let mut open = Asked::default();
        for _ in 0..100 {
            assert_eq!(open.count(t0, a, 0, 0), Ok(()));
        }
    }
}
