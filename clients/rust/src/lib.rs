//! A client library for the anqi server, for bot authors.
//!
//! [`Connection`] speaks the wire protocol (framing, typed messages); [`play_game`] runs one
//! whole game for any [`Bot`]: it answers the handshake, builds the board topology from the
//! setup message, tracks colours from the boards it receives, and asks the bot for an action
//! whenever the server sends `(turn ...)`. The tracking is a [`Tracker`], which does no I/O:
//! other transports (a blocking socket, the Python package, the `anqi bridge` of the `anqi`
//! program) drive the same state machine.
//!
//! # Layout
//!
//! - `tracker`: what a client knows of its game, fed the server's messages one at a time
//!   (no I/O): the setup, the board, colours, the bag and hand, chain captures, errors.
//! - `setup`: the setup message, and the rules to assume when no variant is known.
//! - `bot`: the [`Bot`] trait, the [`View`] a bot is given, [`RandomBot`], and the
//!   [`GameResult`].
//! - [`bots`]: the reference bots, greedy and search.
//! - `connection` (feature `net`, on by default): the TCP client on tokio, [`Connection`],
//!   [`join`], [`play_game`] and friends.
//! - `error`: [`ClientError`].
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
mod setup;
pub mod tracker;

pub use bot::{Bot, GameResult, RandomBot, View};
#[cfg(feature = "net")]
pub use connection::{join, play_game, play_on, play_seated, Connection, Seated};
pub use error::{ClientError, Result};
pub use setup::Setup;
pub use tracker::{Event, Observation, Tracker};
