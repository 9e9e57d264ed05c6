//! What every translator shares: the options a bridge runs with, the [`Translator`] trait each
//! protocol implements, the engine's handshake time, and the report of why an engine's game
//! ended early.

use super::error::BridgeError;
use super::session::Session;
use super::Protocol;
use anqi_core::rules::Variant;
use std::time::Duration;

/// How a bridge is run.
#[derive(Clone, Debug)]
pub struct BridgeOptions {
    pub protocol: Protocol,
    /// The anqi server, `HOST:PORT`.
    pub connect: String,
    /// The SEED to send in `(init NAME SEED)`: a tournament's seat token.
    pub token: String,
    /// The name to play under; default: the name the engine gives, else `engine`.
    pub name: Option<String>,
    /// The rules the engine believes, when they differ from the event's.
    pub assumes: Option<Variant>,
    /// The engine's program and arguments.
    pub command: Vec<String>,
    /// Log every line exchanged with the engine on stderr.
    pub verbose: bool,
    /// Send the protocol's optional commands (tcg: `num_repetition`, `num_moves_to_draw`)
    /// to an engine that says it knows them.
    pub optional_commands: bool,
    /// How long the engine has for its protocol's handshake (and each answer of it), and a
    /// cdc-platform engine to connect: [`HANDSHAKE_TIMEOUT`] unless told otherwise
    /// (`anqi bridge --handshake-timeout`).
    pub handshake: Duration,
    /// How long the engine has, during a game, to acknowledge a command that needs no thought
    /// (tcg: every command but `genmove`; uci-banqi: `readyok`; cdc-platform: `/start` and
    /// `/turn`): [`ACK_TIMEOUT`] unless told otherwise (`anqi bridge --ack-timeout`, or
    /// [`ACK_TIMEOUT_ENV`](super::ACK_TIMEOUT_ENV) in a tournament engine's `env`). Missing it ends the game as
    /// "slow to acknowledge", not as a crash.
    pub ack: Duration,
}

/// How long an engine has to acknowledge a command during a game, unless its bridge is told
/// otherwise ([`BridgeOptions::ack`]). An engine that clears a large table when told `ready`
/// under a loaded machine may need more (issue 38: one took over 10 s).
pub const ACK_TIMEOUT: Duration = Duration::from_secs(super::DEFAULT_ACK_SECONDS);

/// The environment variable naming the file where a bridge writes why it gave its engine's
/// game up (a tournament's runner sets it, and puts the reason in the record's faults).
pub const REPORT_ENV: &str = "ANQI_BRIDGE_REPORT";

/// The most of a reason kept in the report file.
const MAX_REPORT_BYTES: usize = 1024;

/// Says why the engine's game ends early, on stderr (the engine's log) and in the report file
/// when the runner asked for one (see [`REPORT_ENV`]); the last reason wins.
pub(crate) fn report(reason: &str) {
    eprintln!("anqi bridge: {reason}");
    if let Some(path) = std::env::var_os(REPORT_ENV) {
        let mut end = reason.len().min(MAX_REPORT_BYTES);
        while !reason.is_char_boundary(end) {
            end -= 1;
        }
        let _ = std::fs::write(path, &reason[..end]);
    }
}

/// How long an engine has for its protocol's handshake, unless its bridge is told otherwise
/// ([`BridgeOptions::handshake`]).
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// One protocol's translator: its engine, started and greeted, then one game.
pub(crate) trait Translator: Sized {
    /// Starts the engine and runs the protocol's handshake.
    async fn start(options: &BridgeOptions) -> Result<Self, BridgeError>;
    /// The name the engine gave in its handshake, if the protocol has one.
    fn engine_name(&self) -> Option<String>;
    /// After the handshake, the commands of a game's start under `variant`'s rules and a first
    /// move, without a server (`anqi bridge --check`): nothing more by default.
    async fn rehearse(&mut self, variant: &Variant) -> Result<(), BridgeError> {
        let _ = variant;
        Ok(())
    }
    /// Plays the session's game to its end.
    async fn play(
        &mut self,
        session: &mut Session,
        options: &BridgeOptions,
    ) -> Result<(), BridgeError>;
    /// Tells the engine the game is over and stops it.
    async fn quit(self);
    /// Whether the engine says something of its moves that the record should keep (the
    /// `comment` extension is asked for).
    const COMMENTS: bool = false;
}
