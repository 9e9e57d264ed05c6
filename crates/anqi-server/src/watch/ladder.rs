//! What a ladder (`anqi-ladder`) offers the pages (`anqi-web`): its leaderboard and players'
//! pages to read, and accounts made on request, for bots registering themselves (`[ladder]
//! registration`) and people playing as guests from the web seats (`[ladder] guests`). The
//! trait is here, below both, so that neither crate needs the other.

use std::net::IpAddr;

/// What a ladder shows and does for the pages (protocol/WEB.md, The ladder). Its database is
/// behind every call, so each is made off the pages' runtime (it may block for a moment).
pub trait LadderPages: Send + Sync {
    /// `GET /api/ladder`: the leaderboard; `Err`: why the database cannot say.
    fn ladder(&self) -> Result<String, String>;
    /// `GET /api/players/{name}?offset=N`: one account's page, its games from the `offset`th
    /// latest; `None` when no account has the name; `Err`: why the database cannot say.
    fn player(&self, name: &str, offset: usize) -> Result<Option<String>, String>;
    /// Who may come from the pages: bots registering, people as guests.
    fn people(&self) -> LadderPeople;
    /// Makes an account for `who`, asking from `peer`, under the ladder's caps. The seating
    /// knows the account before this returns: a seat taken with its secret right after is
    /// seated.
    ///
    /// # Errors
    /// Why no account was made.
    fn register(&self, who: Registrant, peer: IpAddr) -> Result<Registered, RegistrationRefusal>;
    /// The account whose secret this is, if any; `Err`: why the database cannot say.
    fn account_of(&self, secret: &str) -> Result<Option<SeatAccount>, String>;
}

/// `[ladder] registration` and `guests`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LadderPeople {
    /// `POST /api/ladder/accounts` makes an account for whoever asks.
    pub registration: bool,
    /// A person in the web seats without an account plays as a guest, with an account made
    /// for them.
    pub guests: bool,
}

/// Who asks for an account.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Registrant {
    /// A bot's author, registering the bot under this name.
    Named(String),
    /// A person sitting down in the web seats without an account: named `guest-` and 8 hex
    /// digits.
    Guest,
}

/// An account made: its name, and its secret (shown this once; the database keeps a digest).
#[derive(Clone, PartialEq, Eq)]
pub struct Registered {
    pub name: String,
    pub secret: String,
}

impl std::fmt::Debug for Registered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registered")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// An account as a web seat needs it: whom a secret seats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatAccount {
    pub name: String,
    pub retired: bool,
}

/// Why no account was made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RegistrationRefusal {
    #[error("this ladder makes no accounts on request ([ladder] registration = false): its operator makes them, with anqi ladder add NAME")]
    Closed,
    #[error("this ladder seats no guests ([ladder] guests = false): sit down with your account's secret")]
    NoGuests,
    /// The name is not an account name (why).
    #[error("{0}")]
    Name(String),
    #[error("names beginning with \"guest-\" are kept for the ladder's guests: choose another")]
    GuestName,
    #[error("an account named {0} already exists: choose another name")]
    Taken(String),
    /// `[ladder] registrations_per_hour_per_address` accounts were asked for from the
    /// network within the hour.
    #[error("your network has asked for {0} accounts within the hour, the most allowed ([ladder] registrations_per_hour_per_address): try again later")]
    NetworkFull(usize),
    /// `[ladder] registrations_per_hour` accounts were asked for within the hour.
    #[error("{0} accounts have been asked for within the hour, the most this ladder makes ([ladder] registrations_per_hour): try again later")]
    ServerFull(usize),
    /// The database refused (why).
    #[error("the ladder's database cannot make an account now: {0}")]
    Database(String),
}

impl RegistrationRefusal {
    /// The HTTP status that answers it.
    pub fn status(&self) -> u16 {
        // Every variant named: a new one is a decision, not a default.
        match self {
            RegistrationRefusal::Closed | RegistrationRefusal::NoGuests => 403,
            RegistrationRefusal::Name(_) | RegistrationRefusal::GuestName => 400,
            RegistrationRefusal::Taken(_) => 409,
            RegistrationRefusal::NetworkFull(_) | RegistrationRefusal::ServerFull(_) => 429,
            RegistrationRefusal::Database(_) => 503,
        }
    }
}
