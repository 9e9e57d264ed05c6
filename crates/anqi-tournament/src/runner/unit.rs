//! A unit of work of an event on a Ray cluster, as a node plays it (`anqi tournament-unit`,
//! started by the Ray task): the event's configuration and a few games with their own seeds in,
//! one JSON line out per game as it ends. The node never sees the master seed, the records
//! file or the other games: the runner that sent the unit keeps all of that.

use super::event::never_connected;
use super::game::{play, EngineClock, GameSecrets, Played};
use super::{preflight, server, Progress};
use crate::config::{EngineLogs, TournamentConfig};
use crate::schedule::ScheduledGame;
use crate::TournamentError;
use anqi_core::record::GameRecord;
use anqi_core::rules::Variant;
use serde::{Deserialize, Serialize};
use std::path::Path;
use tokio_util::sync::CancellationToken;

/// What the runner sends a node: everything a unit shares with the event's other units, and
/// its own games.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct WorkUnit {
    #[serde(flatten)]
    pub(crate) common: UnitCommon,
    pub(crate) games: Vec<UnitGame>,
    /// The node that plays the unit, as its records name it (set by the task on the node).
    #[serde(default)]
    pub(crate) node: Option<String>,
}

/// What every unit of an event shares.
#[derive(Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct UnitCommon {
    /// The event's configuration, as a file writes it ([`TournamentConfig::to_toml`]).
    pub(crate) config: String,
    /// The variant's description when the event's variant is a file: the node may not have it.
    #[serde(default)]
    pub(crate) variant_text: Option<String>,
    /// The folder the runner runs in: the unit runs there too when the node has it (a shared
    /// file system), so that relative paths in the configuration mean the same.
    #[serde(default)]
    pub(crate) cwd: Option<String>,
}

/// A game of a unit: its place in the schedule and its seeds.
#[derive(Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct UnitGame {
    pub(crate) index: u64,
    pub(crate) deal: u64,
    /// Engine (index into the configuration's engines) in each seat, seat 1 first.
    pub(crate) seats: Vec<usize>,
    pub(crate) secrets: GameSecrets,
}

impl UnitGame {
    pub(crate) fn of(game: &ScheduledGame, secrets: GameSecrets) -> UnitGame {
        UnitGame {
            index: game.index,
            deal: game.deal,
            seats: game.seats.clone(),
            secrets,
        }
    }
}

/// What a node says of its unit, a line each.
#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub(crate) enum UnitLine {
    /// A game ended: its record (naming the node), and what the runner checks of its seats.
    Played {
        record: Box<GameRecord>,
        seats: Vec<usize>,
        absent: Vec<Option<String>>,
        logs: Vec<String>,
    },
    /// An engine cannot play on this node: its program cannot be started here, or it did not
    /// connect before it had connected once in this unit. The unit stops.
    EngineFailure { why: String },
    /// The unit cannot be played at all (a configuration this node cannot read, a server that
    /// cannot start).
    Error { why: String },
}

impl UnitLine {
    pub(crate) fn of(played: Played) -> UnitLine {
        UnitLine::Played {
            record: Box::new(played.record),
            seats: played.seats,
            absent: played.absent,
            logs: played.logs,
        }
    }
}

/// Plays the unit of work `input` (a `WorkUnit` as JSON) on this machine, one game after
/// another, and gives `emit` a JSON line as each ends; an engine that cannot play here, or a
/// unit that cannot be played at all, is said the same way (`{"kind": "engine-failure", ...}`).
pub async fn play_unit(input: &str, mut emit: impl FnMut(&str)) {
    let mut say = |line: &UnitLine| emit(&serde_json::to_string(line).expect("lines serialize"));
    match play_games(input, &mut say).await {
        Ok(()) => {}
        Err(TournamentError::Engine(why)) => say(&UnitLine::EngineFailure { why }),
        Err(e) => say(&UnitLine::Error { why: e.to_string() }),
    }
    // The bridges' report files are read and removed game by game; their directory goes too.
    let _ = std::fs::remove_dir(
        std::env::temp_dir().join(format!("anqi-reports-{}", std::process::id())),
    );
}

async fn play_games(input: &str, say: &mut impl FnMut(&UnitLine)) -> Result<(), TournamentError> {
    let unit: WorkUnit = serde_json::from_str(input)
        .map_err(|e| TournamentError::Config(format!("not a unit of work: {e}")))?;
    if let Some(cwd) = unit.common.cwd.as_deref().filter(|d| Path::new(d).is_dir()) {
        std::env::set_current_dir(cwd)
            .map_err(TournamentError::io(format!("cannot work in {cwd}")))?;
    }
    let config = TournamentConfig::parse(&unit.common.config)
        .map_err(|e| TournamentError::Config(format!("the event's configuration: {e}")))?;
    let variant = match &unit.common.variant_text {
        Some(text) => Variant::parse(text).map_err(|e| TournamentError::Config(e.to_string())),
        None => Variant::load(&config.variant).map_err(|e| TournamentError::Config(e.to_string())),
    }?;
    // Every engine's program, on this node: one missing here stops the unit by name.
    preflight::check_engines(&config, &variant).await?;
    if config.engine_logs != EngineLogs::Off {
        std::fs::create_dir_all(&config.logs).map_err(TournamentError::io(format!(
            "cannot create log directory {}",
            config.logs
        )))?;
    }
    let (server, desk, addr) = server::start(&config, &variant, Progress::Quiet, None).await?;
    let stop = CancellationToken::new();
    let server_task = tokio::spawn(server.run(stop.clone()));
    let clocks = EngineClock::of_each(&config, &variant);
    // A unit is a run of its own: its logs' event cap counts its games.
    let here = super::game::Here::new(desk, addr, &config);
    let mut connected = vec![false; config.engines.len()];
    let mut result = Ok(());
    // One game after another: a unit is one of the node's processors (`cpus_per_unit`), kept
    // busy until the unit ends, as a one-machine runner keeps each of its `concurrency` slots.
    for game in unit.games {
        let scheduled = ScheduledGame {
            index: game.index,
            deal: game.deal,
            seats: game.seats,
        };
        let mut played = match play(&config, &game.secrets, &here, scheduled, &clocks).await {
            Ok(played) => played,
            Err(e) => {
                result = Err(e);
                break;
            }
        };
        if let Some(why) = never_connected(&config, &played, &mut connected) {
            result = Err(TournamentError::Engine(why));
            break;
        }
        if let Some(tag) = &mut played.record.tournament {
            tag.node.clone_from(&unit.node);
        }
        say(&UnitLine::of(played));
    }
    if result.is_err() {
        // The unit stops: nothing of it may go on running.
        crate::engine::kill_all();
    }
    stop.cancel();
    let _ = server_task.await;
    result
}
