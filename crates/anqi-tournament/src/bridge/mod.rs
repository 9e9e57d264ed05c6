//! Bridges: third-party engines that speak another protocol play on anqi unchanged.
//!
//! A bridge is one game long. It connects to an anqi server as an ordinary client (asking for
//! the protocol extensions that make translation exact: the last ply with the revealed piece,
//! both clocks, the no-progress count), starts the engine, and translates both ways. It never
//! fixes an engine's move: whatever the engine answers is forwarded, and the referee rules.
//!
//! - `protocol`: the protocols, by name.
//! - `assess`: whether an event's variant can be played through a protocol ([`assess`]), and
//!   what an engine that believes other rules may misjudge.
//! - `presets`: the rule sets engine families believe (`assumes`).
//!
//! With the `run` feature (tokio):
//!
//! - `error`: `BridgeError`, why a bridged game could not be played to its end.
//! - `translator`: what every translator shares: the options, the `Translator` trait, the
//!   handshake's time and the report of why a game was given up.
//! - `game`: one bridged game from start to end (`run`), and its rehearsal (`check`).
//! - `map`: each protocol's coordinate map (`print_map`).
//! - `session`: the anqi side: `anqi-client`'s connection and tracker (which keeps the public
//!   state: board, colours, face-down pieces, every ply, clocks), turned into events.
//! - `engine`: an engine process that speaks in lines on stdin and stdout.
//! - `tcg`, `uci`, `platform`: one translator per protocol, each with its coordinate map.
//!
//! `anqi bridge` runs one from the command line; a tournament runs `anqi bridge` for each
//! engine whose `protocol` is not `anqi`.

mod assess;
pub mod presets;
mod protocol;

#[cfg(feature = "run")]
mod engine;
#[cfg(feature = "run")]
mod error;
#[cfg(feature = "run")]
mod game;
#[cfg(feature = "run")]
mod map;
#[cfg(feature = "run")]
mod platform;
#[cfg(feature = "run")]
mod session;
#[cfg(feature = "run")]
mod tcg;
#[cfg(feature = "run")]
mod translator;
#[cfg(feature = "run")]
mod uci;

pub use assess::{assess, Assessment, CannotPlay, Unrepresentable};
pub use protocol::{Protocol, UnknownProtocol};

#[cfg(feature = "run")]
pub use error::{BridgeError, SLOW_ACK_EXIT};
#[cfg(feature = "run")]
pub use game::{check, run, BridgeSummary};
#[cfg(feature = "run")]
pub use map::print_map;
#[cfg(feature = "run")]
pub(crate) use translator::REPORT_ENV;
#[cfg(feature = "run")]
pub use translator::{BridgeOptions, ACK_TIMEOUT, HANDSHAKE_TIMEOUT};

/// The environment variable `anqi bridge --ack-timeout` reads its seconds from when the flag is
/// not given: how a tournament file sets it for one engine (its entry's `env`) or for all
/// (`[tournament.each]`'s `env`), since the bridge is started with the engine's environment
/// (its value is checked with the file).
pub const ACK_TIMEOUT_ENV: &str = "ANQI_ACK_TIMEOUT";

/// The seconds an engine has to acknowledge a command in a game unless told otherwise (the
/// bridge's `ACK_TIMEOUT`).
pub const DEFAULT_ACK_SECONDS: u64 = 10;

/// The most seconds `--ack-timeout` and `--handshake-timeout` take.
pub const MAX_TIMEOUT_SECONDS: u64 = 3600;
