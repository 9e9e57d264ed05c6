//! The ladder's database: its accounts (secrets only as SHA-256 digests), the index of its
//! games (stable identities: the server's name and the game's number in its records), the
//! ratings, and each rated game's ratings of its players after it.
//!
//! One interface, two databases, chosen by where [`Store::open`] is pointed: a path is SQLite,
//! compiled into the binary (`sqlite`: one server's ladder, no database server to run); a
//! `postgres://` or `postgresql://` URL is PostgreSQL (`pg`: several servers sharing one
//! ladder). Both behave the same to the ladder: a game and the ratings it changes are written
//! in one transaction ([`Store::add_game`]), so the ratings are always those of the games the
//! index holds; a transaction that returned is durable; the schema is versioned (`schema`,
//! one list of migrations per database), and an older database is upgraded when opened.

mod pages;
mod pg;
mod schema;
pub mod scratch;
mod sqlite;

pub use pages::{PlayedGame, Wdl};

use crate::rating::Rating;
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::Path;

/// What the database refused.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("the ladder database: {0}")]
    Sql(#[from] rusqlite::Error),
    /// Not a `source`: its own text says only "db error", so the server's words are shown here
    /// instead, once.
    #[error("the ladder database (PostgreSQL): {}", postgres_text(.0))]
    Postgres(::postgres::Error),
    #[error("an account named {0} already exists (names are never reused, even once retired)")]
    NameTaken(String),
    #[error("no account is named {0}")]
    NoAccount(String),
    #[error(
        "the ladder database is of schema version {found}, newer than this program knows ({known}): use a newer anqi"
    )]
    TooNew { found: i64, known: i64 },
}

impl From<::postgres::Error> for StoreError {
    fn from(e: ::postgres::Error) -> StoreError {
        StoreError::Postgres(e)
    }
}

/// What PostgreSQL said (`ERROR: duplicate key value violates ...`), or what failed on the way.
fn postgres_text(e: &::postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("{}: {}", db.severity(), db.message()),
        None => match std::error::Error::source(e) {
            Some(cause) => format!("{e}: {cause}"),
            None => e.to_string(),
        },
    }
}

/// An account, as the database has it.
#[derive(Clone, Debug, PartialEq)]
pub struct AccountRow {
    pub id: i64,
    pub name: String,
    pub secret_sha256: [u8; 32],
    pub created_unix_ms: i64,
    pub retired_unix_ms: Option<i64>,
}

/// One game of the index.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRow {
    /// The server's name (`[ladder] server`) and the game's number in its records: together,
    /// the game's identity.
    pub server: String,
    pub game_no: u64,
    pub variant: String,
    /// The records file it is in, as the server was configured.
    pub records: String,
    pub started_unix_ms: u64,
    /// Seat 1's account and seat 2's.
    pub first: i64,
    pub second: i64,
    /// Seat 1's score (1, ½, 0); `None` for a game that counts for nothing (aborted).
    pub score: Option<f64>,
    pub termination: String,
    pub plies: u32,
}

/// The ladder's database, open: SQLite or PostgreSQL.
pub struct Store {
    backend: Backend,
}

enum Backend {
    Sqlite(sqlite::Sqlite),
    // Boxed: the client is several times SQLite's connection's size.
    Postgres(Box<pg::Postgres>),
}

/// Calls the same method of whichever database is open.
macro_rules! each {
    ($store:expr, $db:ident => $call:expr) => {
        match $store {
            Backend::Sqlite($db) => $call,
            Backend::Postgres($db) => pg::unblocked(|| $call),
        }
    };
}

/// Whether a database location is a PostgreSQL URL (anything else is a SQLite file's path).
pub fn is_postgres(location: &str) -> bool {
    location.starts_with("postgres://") || location.starts_with("postgresql://")
}

/// A database location fit for logs and messages: a URL's password is hidden.
pub fn describe(location: &str) -> String {
    let Some((scheme, rest)) = location.split_once("://").filter(|_| is_postgres(location)) else {
        return location.to_string();
    };
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let Some(at) = rest[..authority_end].rfind('@') else {
        return location.to_string();
    };
    match rest[..at].split_once(':') {
        Some((user, _password)) => format!("{scheme}://{user}:***{}", &rest[at..]),
        None => location.to_string(),
    }
}

/// The current time in ms since the Unix epoch.
pub fn unix_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

impl Store {
    /// Opens the database at `location` and upgrades its schema: a `postgres://` or
    /// `postgresql://` URL (its database must exist; the tables are made), or else the path of
    /// a SQLite file (made when missing).
    ///
    /// # Errors
    /// When it cannot be opened or upgraded, or is newer than this program.
    pub fn open(location: impl AsRef<OsStr>) -> Result<Store, StoreError> {
        let location = location.as_ref();
        let backend = match location.to_str().filter(|l| is_postgres(l)) {
            Some(url) => Backend::Postgres(Box::new(pg::unblocked(|| pg::Postgres::open(url))?)),
            None => Backend::Sqlite(sqlite::Sqlite::open(Path::new(location))?),
        };
        Ok(Store { backend })
    }

    /// Opens a database upgraded only up to migration `target` (tests make old databases).
    #[cfg(test)]
    pub(crate) fn open_at(location: &str, target: usize) -> Result<Store, StoreError> {
        let backend = if is_postgres(location) {
            Backend::Postgres(Box::new(pg::unblocked(|| {
                pg::Postgres::open_at(location, target)
            })?))
        } else {
            Backend::Sqlite(sqlite::Sqlite::open_at(Path::new(location), target)?)
        };
        Ok(Store { backend })
    }

    /// Runs SQL as it is (tests tamper with a database with it).
    #[cfg(test)]
    pub(crate) fn execute_raw(&self, sql: &str) -> Result<(), StoreError> {
        each!(&self.backend, db => db.execute_raw(sql))
    }

    /// Whether this is PostgreSQL.
    pub fn is_shared(&self) -> bool {
        matches!(self.backend, Backend::Postgres(_))
    }

    /// The schema version the database is at.
    ///
    /// # Errors
    /// When it cannot be read.
    pub fn schema_version(&self) -> Result<i64, StoreError> {
        each!(&self.backend, db => db.schema_version())
    }

    /// Adds an account.
    ///
    /// # Errors
    /// When the name is taken (by a retired account too), also by a name that differs from it
    /// only in case (`NameTaken` names the one there): `Selfmade` beside `selfmade` would
    /// pass for it on the pages. Every way of making an account comes here (`anqi ladder
    /// add`, registration), so none makes such a pair; the name is checked and taken in one
    /// write, so neither do two processes adding both at once.
    pub fn add_account(&self, name: &str, secret_sha256: &[u8; 32]) -> Result<i64, StoreError> {
        each!(&self.backend, db => db.add_account(name, secret_sha256))
    }

    /// Copies accounts as they are (numbers, secrets' digests, dates) into an empty database:
    /// a rebuilt database keeps the live one's accounts.
    ///
    /// # Errors
    /// When one is already there.
    pub fn copy_accounts(&self, accounts: &[AccountRow]) -> Result<(), StoreError> {
        each!(&self.backend, db => db.copy_accounts(accounts))
    }

    /// Retires an account: it can no longer connect; its games and ratings stay.
    ///
    /// # Errors
    /// When no account has the name.
    pub fn retire(&self, name: &str) -> Result<(), StoreError> {
        each!(&self.backend, db => db.retire(name))
    }

    /// One account, by name.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub fn account(&self, name: &str) -> Result<Option<AccountRow>, StoreError> {
        each!(&self.backend, db => db.account(name))
    }

    /// Every account, retired ones too, in order of creation.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub fn accounts(&self) -> Result<Vec<AccountRow>, StoreError> {
        each!(&self.backend, db => db.accounts())
    }

    /// A number that changes whenever another connection (another process: `anqi ladder`,
    /// another server on PostgreSQL) commits: the ladder reads its accounts and games again
    /// when it does. This connection's own commits leave it as it is.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub fn data_version(&self) -> Result<i64, StoreError> {
        each!(&self.backend, db => db.data_version())
    }

    /// The highest game number this server's games have in the index (0 for none): the
    /// server numbers its games after it.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub fn last_game_no(&self, server: &str) -> Result<u64, StoreError> {
        each!(&self.backend, db => db.last_game_no(server))
    }

    /// The index's row of this server's game `game_no`.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub fn game(&self, server: &str, game_no: u64) -> Result<Option<GameRow>, StoreError> {
        each!(&self.backend, db => db.game(server, game_no))
    }

    /// Whether the index has this server's game `game_no`.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub fn has_game(&self, server: &str, game_no: u64) -> Result<bool, StoreError> {
        each!(&self.backend, db => db.has_game(server, game_no))
    }

    /// Adds a game to the index and sets the variant's ratings to `ratings` (its players'
    /// rows after it go to the history), all in one transaction: both are written, or
    /// neither. `games` is each rated player's count of rated games.
    ///
    /// # Errors
    /// When the transaction fails (nothing is written then).
    pub fn add_game(
        &mut self,
        game: &GameRow,
        ratings: &BTreeMap<i64, Rating>,
        games: &BTreeMap<i64, u64>,
    ) -> Result<i64, StoreError> {
        let id = each!(&mut self.backend, db => db.add_game(game, ratings, games, None))?;
        Ok(id.expect("a game written unchecked is written"))
    }

    /// Adds a game as [`Store::add_game`] does, if no other connection has written to the
    /// database since its [`Store::data_version`] was `seen`, checked in the same transaction:
    /// `None`, and nothing written, when one has. The ratings were fitted over the games read
    /// at `seen`; another server's game counted since would be missing from them.
    ///
    /// # Errors
    /// When the transaction fails (nothing is written then).
    pub fn add_game_if_unchanged(
        &mut self,
        game: &GameRow,
        ratings: &BTreeMap<i64, Rating>,
        games: &BTreeMap<i64, u64>,
        seen: i64,
    ) -> Result<Option<i64>, StoreError> {
        each!(&mut self.backend, db => db.add_game(game, ratings, games, Some(seen)))
    }

    /// Every game of a variant, in the order they were added.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub fn games(&self, variant: &str) -> Result<Vec<GameRow>, StoreError> {
        each!(&self.backend, db => db.games(variant))
    }

    /// The latest `n` games of this server, oldest first, as (seat 1, seat 2) accounts:
    /// matchmaking's memory.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub fn recent(&self, server: &str, n: usize) -> Result<Vec<(i64, i64)>, StoreError> {
        each!(&self.backend, db => db.recent(server, n))
    }

    /// The ratings table of a variant: account -> (rating, games).
    ///
    /// # Errors
    /// When the database cannot be read.
    pub fn ratings(&self, variant: &str) -> Result<BTreeMap<i64, (Rating, u64)>, StoreError> {
        each!(&self.backend, db => db.ratings(variant))
    }

    /// An account's rating after each of its rated games of a variant, oldest first: (the
    /// game's server and number, rating, interval).
    ///
    /// # Errors
    /// When the database cannot be read.
    pub fn history(
        &self,
        account: i64,
        variant: &str,
    ) -> Result<Vec<(String, u64, Rating)>, StoreError> {
        each!(&self.backend, db => db.history(account, variant))
    }

    /// Every account's wins, draws and losses in rated games of a variant.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub fn results(&self, variant: &str) -> Result<BTreeMap<i64, Wdl>, StoreError> {
        each!(&self.backend, db => db.results(variant))
    }

    /// An account's results against each opponent in rated games of a variant, by the
    /// opponent's name.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub fn opponents(
        &self,
        account: i64,
        variant: &str,
    ) -> Result<BTreeMap<String, Wdl>, StoreError> {
        each!(&self.backend, db => db.opponents(account, variant))
    }

    /// An account's games of a variant, latest first: `limit` of them from the `offset`th,
    /// and how many it has in all.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub fn games_of(
        &self,
        account: i64,
        variant: &str,
        offset: usize,
        limit: usize,
    ) -> Result<(Vec<PlayedGame>, u64), StoreError> {
        each!(&self.backend, db => db.games_of(account, variant, offset, limit))
    }
}

#[cfg(test)]
mod tests;
