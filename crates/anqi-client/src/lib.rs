//! A client library for the anqi server, for bot authors.
//!
//! [`Connection`] speaks the wire protocol (framing, typed messages); [`play_game`] runs one
//! whole game for any [`Bot`]: it answers the handshake, builds the board topology from the
//! setup message, tracks colours from the boards it receives, and asks the bot for an action
//! whenever the server sends `(turn ...)`. The tracking is a [`Tracker`], which does no I/O:
//! other transports (a blocking socket, the Python package, the `anqi bridge` of the `anqi`
//! program) drive the same state machine. It is the one answer, in Rust, to "what does a
//! client know of its game": the bridge's translators and the reference bots read the
//! face-down pool, the colours, the repetitions and the extensions' facts from it.
//!
//! # Crate map
//!
//! Builds on: `anqi-core`.
//! Compiles tokio: only with its `net` feature (on by default: the TCP client and `anqi-bot`).
//!
//! (`tests/integration/layout.rs` checks both lines against `cargo metadata` and `cargo tree`.)
//!
//! # Layout
//!
//! - `tracker`: what a client knows of its game, fed the server's messages one at a time
//!   (no I/O): the setup, the board, colours, the bag and hand, chain captures, errors, and the
//!   handshake's messages ([`tracker::hello`], [`tracker::hello_with`] for more extensions).
//! - `history`: what a client has seen of its game beyond the position ([`History`]): the
//!   face-down pool, how often each position occurred, the plies without progress, and the
//!   extensions' plies, clocks and start board.
//! - `setup`: the setup message, and the rules to assume when no variant is known.
//! - `bot`: the [`Bot`] trait, the [`View`] a bot is given (the position, its legal actions
//!   and the [`History`]), [`RandomBot`], and the [`GameResult`]. A bot that says something
//!   of its moves ([`Bot::comments`], [`Bot::comment`]) has it sent as the `comment`
//!   extension's `(comment "...")`, kept in the game's record.
//! - [`bots`]: the reference bots, greedy and search.
//! - `connection` (feature `net`, on by default): the TCP client on tokio, [`Connection`],
//!   [`join`] ([`join_with`] for more extensions), [`play_game`] and friends.
//! - `error`: [`ClientError`], and [`ObservationError`] (facts that do not fit a variant).
//!
//! Without the `net` feature the crate compiles no tokio: the Python package's native module
//! uses it that way, for the tracker and the reference bots.
//!
//! ```no_run
//! # #[cfg(feature = "net")]
//! # async fn run() -> Result<(), anqi_client::ClientError> {
//! use anqi_client::{play_game, RandomBot};
//! let result = play_game("127.0.0.1:7700", "my_bot", "42", &mut RandomBot::new(42), None).await?;
//! println!("(win {} {}), I was player {}", result.win.0, result.win.1, result.me);
//! # Ok(()) }
//! ```

mod bot;
pub mod bots;
#[cfg(feature = "net")]
mod connection;
mod error;
pub mod history;
mod setup;
#[cfg(test)]
mod testing;
pub mod tracker;

pub use bot::{Bot, GameResult, RandomBot, View};
#[cfg(feature = "net")]
pub use connection::{join, join_with, play_game, play_on, play_seated, Connection, Seated};
pub use error::{ClientError, ObservationError, Result};
pub use history::History;
pub use setup::Setup;
pub use tracker::{Event, Observation, Tracker};
