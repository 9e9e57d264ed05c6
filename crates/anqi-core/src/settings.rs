//! The settings a server's `config.toml` and a tournament's file share, as those files write
//! them: a time control in milliseconds ([`ClockConfig`]) and resolved against a variant's
//! defaults ([`TimeControl`]), whether the endgame tables end games ([`Adjudicate`]), and whose
//! legal-action counts the records keep ([`LegalCounts`]).
//!
//! They are the core's, not the server's, so that a tournament's configuration can be read and
//! checked by a program that runs no server (`anqi-tournament` without its `run` feature);
//! `anqi_server::config` re-exports them where the server's configuration uses them.

use crate::rules::ClockDefaults;
use serde::Deserialize;
use std::time::Duration;

/// `[clock]`: time control, in milliseconds (0 = off; absent = the variant's default).
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ClockConfig {
    pub game_ms: Option<u64>,
    pub move_ms: Option<u64>,
    pub increment_ms: Option<u64>,
    /// Moves per period: `game_ms` is added again after every `period_moves` moves of a
    /// player (0 or absent: the game is one period).
    pub period_moves: Option<u32>,
}

/// One player's time control, resolved: what their clock runs on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeControl {
    /// Game time: for the whole game, or, with `period_moves`, for each period; `None`: no game
    /// clock.
    pub game: Option<Duration>,
    /// Moves per period (0: the game is one period). After each of the player's
    /// `period_moves`-th, 2×`period_moves`-th... moves, `game` is added again to what they have
    /// left (unused time carries over), as in `40/60` (60 s for every 40 moves).
    pub period_moves: u32,
    /// Added to the player's game time after each of their moves (Fischer increment).
    pub increment: Duration,
    /// Longest time for one move; `None`: no limit of its own.
    pub per_move: Option<Duration>,
}

impl TimeControl {
    /// Each setting from the configuration when it sets it, else from the variant's
    /// `(clock ...)`, else off (0). A variant has no periods.
    pub fn resolve(config: &ClockConfig, variant: &ClockDefaults) -> TimeControl {
        let pick = |c: Option<u64>, v: Option<u64>| c.or(v).unwrap_or(0);
        let ms = |v: u64| (v > 0).then(|| Duration::from_millis(v));
        TimeControl {
            game: ms(pick(config.game_ms, variant.game_ms)),
            period_moves: config.period_moves.unwrap_or(0),
            increment: Duration::from_millis(pick(config.increment_ms, variant.increment_ms)),
            per_move: ms(pick(config.move_ms, variant.move_ms)),
        }
    }

    /// Whether no clock limits a move at all (no game clock, no move limit).
    pub fn is_unlimited(&self) -> bool {
        self.game.is_none() && self.per_move.is_none()
    }
}

/// What may end a game besides the rules and the players' faults: `adjudicate = "off" |
/// "tables"` (`[referee]`, and a tournament's `[tournament]`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Adjudicate {
    /// Only the rules, the players' faults and `max_plies` end games.
    #[default]
    Off,
    /// Also the endgame tables (`tables`): after every ply, a game in a position they hold
    /// ends with their verdict (termination `adjudicated`): a draw they prove, or a win they
    /// prove within the plies the no-progress rule leaves.
    Tables,
}

impl Adjudicate {
    /// The values accepted, as written in the files.
    pub const ALLOWED: &'static str = "\"off\" or \"tables\"";

    /// Why `adjudicate = "tables"` alone is refused.
    pub const NEEDS_TABLES: &'static str = "referee: adjudicate = \"tables\" needs tables = \"FILE\", an endgame tables file built for the variant (anqi tables build)";
}

impl<'de> Deserialize<'de> for Adjudicate {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Adjudicate, D::Error> {
        let text = String::deserialize(d)?;
        match text.as_str() {
            "off" => Ok(Adjudicate::Off),
            "tables" => Ok(Adjudicate::Tables),
            _ => Err(serde::de::Error::custom(format!(
                "adjudicate = {text:?}: the values allowed are {}",
                Adjudicate::ALLOWED
            ))),
        }
    }
}

/// Whose legal-action counts a record keeps at every ply: `legal_counts = "mover" | "all"`
/// (`[records]`, and a tournament's `[tournament]`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LegalCounts {
    /// The mover's only, in `legal` (the records of format 1 as they always were).
    #[default]
    Mover,
    /// Also every player's, in `legal_all` (one object per player, player 1 first): what each
    /// could do at that position were it their turn, for mobility curves of the player not
    /// moving.
    All,
}

impl LegalCounts {
    /// The values accepted, as written in the files.
    pub const ALLOWED: &'static str = "\"mover\" or \"all\"";
}

impl<'de> Deserialize<'de> for LegalCounts {
    // By hand, so that a wrong value is named with the key and the values allowed (serde's
    // own message names neither the key nor, through TOML, always the value).
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<LegalCounts, D::Error> {
        let text = String::deserialize(d)?;
        match text.as_str() {
            "mover" => Ok(LegalCounts::Mover),
            "all" => Ok(LegalCounts::All),
            _ => Err(serde::de::Error::custom(format!(
                "legal_counts = {text:?}: the values allowed are {}",
                LegalCounts::ALLOWED
            ))),
        }
    }
}
