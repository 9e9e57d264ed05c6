//! Running an event: an in-process server seating engines by token, `concurrency` games at a
//! time, each record appended the moment its game ends, progress on stderr, resume from the
//! records already written, shards, and SPRT early stopping.
//!
//! Failures that mean the event is set up wrong stop it loudly instead of losing every game:
//! an engine whose program cannot be started (checked before the first game), and one that
//! does not connect before it has connected once in this run.

mod event;
mod game;
mod pages;
mod preflight;
mod progress;
mod ray;
mod resume;
mod seed;
mod server;
mod unit;

pub use pages::Pages;
pub use seed::{event_seed, EventSeed, SeedOrigin};
pub use unit::play_unit;

use crate::config::{EngineLogs, TournamentConfig};
use crate::deals::Dealer;
use crate::schedule::{self, ScheduledGame};
use crate::stats::{self, Standings};
use crate::TournamentError;
use anqi_core::record::GameRecord;
use anqi_core::rules::Variant;
use event::{DealGroups, Event};
use game::{EngineClock, Here};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// How progress is shown on stderr.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// A line per finished game.
    Text,
    /// A JSON object per finished game.
    Json,
    /// Nothing per game; the event's commitment alone, to be published before the games.
    Quiet,
    /// Nothing at all: an event run as a step of another command's work (`anqi check`'s
    /// short matches), whose own output says what happened.
    Silent,
}

impl Progress {
    /// Whether nothing is printed per game (quiet or silent).
    pub fn is_quiet(self) -> bool {
        matches!(self, Progress::Quiet | Progress::Silent)
    }
}

/// Options of one run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// `(i, n)`: play only the games whose index is i modulo n.
    pub shard: Option<(u64, u64)>,
    pub progress: Progress,
    /// Overrides the configured output file.
    pub output: Option<PathBuf>,
    /// Where to serve the event's web pages (its games live and its standings), if anywhere.
    pub http: Option<String>,
    /// Set to the address the event's server listens on once it is bound, before any engine
    /// starts: for a caller that relays the engines' connections (`anqi check`) to a server
    /// listening on port 0.
    pub listening: Option<Arc<std::sync::OnceLock<std::net::SocketAddr>>>,
}

/// The records file of a run: `--output`, else the configured `output`.
pub fn output_of(config: &TournamentConfig, options: &RunOptions) -> PathBuf {
    options
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from(&config.output))
}

/// Plays every scheduled game not yet in the output file, and returns the standings of all
/// the games in it. The event's pages (`options.http`) stop with it.
///
/// # Errors
/// Bad configuration, an output file from another event, or I/O failures.
pub async fn run(
    config: TournamentConfig,
    options: RunOptions,
) -> Result<Standings, TournamentError> {
    Ok(run_keeping_pages(config, options).await?.0)
}

/// As [`run`], with the event's pages (`options.http`) still up once the event is over,
/// showing its final standings (`"done": true`), until the [`Pages`] handed back are dropped
/// (`anqi tournament --http-linger`). Its engines and game server have stopped by then. A run
/// that fails stops its pages.
///
/// # Errors
/// As [`run`].
pub async fn run_keeping_pages(
    config: TournamentConfig,
    options: RunOptions,
) -> Result<(Standings, Option<Pages>), TournamentError> {
    let variant =
        Variant::load(&config.variant).map_err(|e| TournamentError::Config(e.to_string()))?;
    preflight::check_event(&config, &variant)?;
    let on_ray = config.ray_address().is_some();
    if on_ray {
        ray::check(&config, options.shard)?;
    }
    // The schedule, the master seed and the games already played, before any engine is
    // started: a shard without its seed file, or another event's records, stop the event here.
    let mut plan = Plan::make(&config, &variant, &options)?;
    if !on_ray {
        // Before any game: a program that cannot be started would lose every game, and an
        // engine whose protocol cannot express the variant would play it wrong. On a cluster
        // each node checks its own before its first game.
        preflight::check_engines(&config, &variant).await?;
    }
    let mut out = open_output(&config, &plan.output)?;
    let stop_server = CancellationToken::new();
    // This machine's server seats the engines, unless a cluster plays the games.
    let mut local = server::start_here(on_ray, &config, &variant, &options).await?;
    // The event's pages: every game live, and the standings as games finish.
    let one_side = crate::one_side(&variant);
    let (hub, pages) = match &options.http {
        Some(listen) => {
            let server = local.as_mut().map(|(server, _, _)| server);
            let (hub, pages) = pages::serve(listen, server, &config, one_side, &plan).await?;
            (Some(hub), Some(pages))
        }
        None => (None, None),
    };
    let (server_task, here) = match local {
        Some((server, desk, addr)) => (
            Some(tokio::spawn(server.run(stop_server.clone()))),
            Some(Here::new(desk, addr, &config)),
        ),
        None => (None, None),
    };
    // After `listening on` (engines run by hand, and anqi.play, read that line first).
    seed::announce_seed(
        &plan.seed,
        plan.dealer.book.as_ref(),
        &plan.output,
        options.progress,
        plan.done.len(),
        plan.games.len(),
    );
    let event = Event {
        one_side,
        clocks: Arc::new(EngineClock::of_each(&config, &variant)),
        config: Arc::new(config),
        dealer: Arc::new(plan.dealer.clone()),
        total: plan.games.len(),
        options,
        output: plan.output.clone(),
        hub,
        deal_groups: plan.deal_groups,
        remote: on_ray,
    };
    let todo = std::mem::take(&mut plan.todo);
    let started = std::time::Instant::now();
    let mut played = match &here {
        Some(here) => {
            event
                .play_all(here, todo, &mut plan.records, &mut out)
                .await
        }
        None => ray::play_all(&event, todo, &mut plan.records, &mut out).await,
    };
    if played.is_err() {
        // Stopped loudly: nothing of this event may go on running.
        crate::engine::kill_all();
    } else {
        played = event.end(&plan.schedule, &plan.records, &plan.seed, started);
    }
    stop_server.cancel();
    // The bridges' report files are read and removed game by game; their directory goes too.
    let _ = std::fs::remove_dir(
        std::env::temp_dir().join(format!("anqi-reports-{}", std::process::id())),
    );
    let stopped = match server_task {
        Some(task) => task
            .await
            .map_err(|e| TournamentError::Server(format!("the server task failed: {e}")))
            .and_then(|r| r.map_err(TournamentError::io("the tournament's server"))),
        None => Ok(()),
    };
    played?;
    stopped?;
    let names = event.config.engine_names();
    let standings = stats::standings(&plan.records, &names, event.config.sprt.as_ref());
    Ok((standings, pages))
}

/// What a run is to play, worked out before any engine is started.
struct Plan {
    /// Every game of the event (every shard's).
    schedule: Vec<ScheduledGame>,
    /// The games of each deal, in the whole schedule.
    deal_groups: DealGroups,
    /// The games of this run's shard (all of them without shards).
    games: Vec<ScheduledGame>,
    /// The records file.
    output: PathBuf,
    seed: EventSeed,
    /// Where the deals come from: the master seed, or the event's book.
    dealer: Dealer,
    /// The games already in the records file, checked against this schedule and seed.
    records: Vec<GameRecord>,
    /// Their schedule indexes.
    done: BTreeSet<u64>,
    /// The games of `games` still to be played.
    todo: Vec<ScheduledGame>,
}

impl Plan {
    /// The schedule, the master seed and the games already played.
    ///
    /// # Errors
    /// A schedule that cannot be made, a shard without its seed file, another event's
    /// records, or a revealed seed with games still to play.
    fn make(
        config: &TournamentConfig,
        variant: &Variant,
        options: &RunOptions,
    ) -> Result<Plan, TournamentError> {
        let schedule =
            schedule::build(config, variant).map_err(|e| TournamentError::Config(e.to_string()))?;
        let deal_groups = DealGroups::of(&schedule);
        let mut games = schedule.clone();
        if let Some((i, n)) = options.shard {
            games.retain(|g| g.index % n == i);
        }
        let output = output_of(config, options);
        let seed = event_seed(config, &output, options.shard)?;
        let dealer = seed::event_dealer(config, variant, &seed.seed, &schedule)?;
        // The games already played, checked against this schedule and dealer.
        let records: Vec<GameRecord> = resume::resume_point(&output, config, &dealer, &games)?
            .into_iter()
            .map(event::for_standings)
            .collect();
        let done = resume::recorded(&records);
        let todo: Vec<ScheduledGame> = games
            .iter()
            .filter(|g| !done.contains(&g.index))
            .cloned()
            .collect();
        // An event the SPRT has stopped plays nothing more: its run only reports.
        if seed.revealed && !todo.is_empty() && !resume::sprt_decided(&records, config) {
            return Err(TournamentError::Config(format!(
                "the master seed in {} was revealed when this event ended: games dealt from it now ({} more) would be known in advance. Start a new event (another output, and no seed file) to play more games",
                seed.file().map_or_else(String::new, |p| p.display().to_string()),
                todo.len()
            )));
        }
        Ok(Plan {
            schedule,
            deal_groups,
            games,
            output,
            seed,
            dealer,
            records,
            done,
            todo,
        })
    }
}

/// Creates the engines' log directory (unless their logs are off) and opens the records file
/// for appending.
fn open_output(config: &TournamentConfig, output: &Path) -> Result<std::fs::File, TournamentError> {
    if config.engine_logs != EngineLogs::Off {
        std::fs::create_dir_all(&config.logs).map_err(TournamentError::io(format!(
            "cannot create log directory {}",
            config.logs
        )))?;
    }
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(output)
        .map_err(TournamentError::io(format!(
            "cannot open {}",
            output.display()
        )))
}
