//! anqi-ladder: a rated ladder that remembers (`anqi serve --ladder`, `anqi ladder`). Bots
//! hold accounts; a server seats them by their secret and pairs them (`anqi-server`'s ladder
//! seating); each finished game's record is counted here, in a database, with the ratings it
//! changes; and the pages show the leaderboard and each player. protocol/LADDER.md is the
//! user's guide.
//!
//! # Crate map
//!
//! Builds on: `anqi-core`, `anqi-server`.
//! Compiles tokio: yes (the ladder runs beside the server's tasks).
//!
//! (`tests/integration/layout.rs` checks both lines against `cargo metadata` and `cargo tree`.)
//!
//! # Layout
//!
//! - [`accounts`]: account names, and secrets (made from the system's randomness, kept as
//!   SHA-256 digests).
//! - [`rating`]: Bradley–Terry ratings refitted over every rated game, with intervals; why
//!   this rather than Glicko-2.
//! - [`store`]: the database behind one interface (`Store`): the accounts, the games' index,
//!   the ratings and their history, on SQLite, embedded (`store/sqlite`), or PostgreSQL,
//!   shared by several servers (`store/pg`); their versioned schemas (`store/schema`); what
//!   the pages read (`store/pages`); a throwaway PostgreSQL database for tests
//!   (`store/scratch`).
//! - [`ledger`]: one server's ladder of one variant: a record becomes an index row and new
//!   ratings in one transaction, at most once; catching up from the records file at start;
//!   rebuilding a database from records.
//! - [`service`]: the ladder at work beside a running server: accounts to the seating,
//!   records counted as they are written, ratings back to matchmaking.
//! - [`pages`]: the leaderboard and a player's page, as the web pages' JSON.
//! - [`registration`]: accounts made on request (bots registering, people as guests), under
//!   hourly caps in all and per network.

pub mod accounts;
pub mod ledger;
pub mod pages;
pub mod rating;
pub mod registration;
pub mod service;
pub mod store;

pub use ledger::Ledger;
pub use store::{Store, StoreError};
