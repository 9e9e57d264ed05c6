//! One game of the event: ordered from the server, its engines started (each under its keeper)
//! and watched, its record awaited, its engines stopped, and the record completed with what
//! only the runner knows: a crash told from a disconnect, why a bridge gave its game up, why
//! a player never came, and the tournament's tag.

use crate::bridge::SLOW_ACK_EXIT;
use crate::config::{EngineLogs, TournamentConfig};
use crate::deals::Dealer;
use crate::engine::{Engine, Log, Placeholders, TOKEN_ENV};
use crate::schedule::ScheduledGame;
use crate::stats::{SLOW_ACK_FAULT, SLOW_ACK_TEXT};
use crate::TournamentError;
use anqi_core::record::{BookTag, FaultRecord, GameRecord, SeatTag, TournamentTag};
use anqi_core::rules::{SeedInputs, Termination, Variant};
use anqi_server::config::ClockConfig;
use anqi_server::{GameOrder, GameSpec, OrderDesk};
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::time::Duration;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// This machine's own server, where the runner seats the engines it starts, and what the
/// engines' logs may still take in this run (`engine_log_bytes`'s event cap).
#[derive(Clone)]
pub(super) struct Here {
    pub(super) desk: OrderDesk,
    pub(super) addr: std::net::SocketAddr,
    pub(super) log_budget: crate::engine::EventLogBudget,
}

impl Here {
    /// The server at `addr`, taking orders at `desk`, for a run of `config`'s event.
    pub(super) fn new(
        desk: OrderDesk,
        addr: std::net::SocketAddr,
        config: &TournamentConfig,
    ) -> Here {
        Here {
            desk,
            addr,
            log_budget: crate::engine::EventLogBudget::new(config.engine_log_bytes.event),
        }
    }
}

/// An engine's clock: its settings, and how the records name them.
pub(super) struct EngineClock {
    pub(super) clock: ClockConfig,
    /// As the tournament file writes a time control (`60+1`, `40/60`, `st=2`, `inf`).
    pub(super) label: String,
}

impl EngineClock {
    /// Each engine's clock (index = engine): its own `tc`, else the event's, else the
    /// variant's `(clock ...)`.
    pub(super) fn of_each(config: &TournamentConfig, variant: &Variant) -> Vec<EngineClock> {
        (0..config.engines.len())
            .map(|e| {
                let clock = config.clock_of(e, &variant.clock);
                let label = match config.engines[e].tc.as_ref().or(config.tc.as_ref()) {
                    Some(tc) => tc.text.clone(),
                    None => crate::time_control::label(&anqi_server::TimeControl::resolve(
                        &clock,
                        &variant.clock,
                    )),
                };
                EngineClock { clock, label }
            })
            .collect()
    }
}

/// What a game needs of the event's master seed and deal book, and nothing more: its deal's
/// seed, its engines' seeds and the commitment its record carries. A machine that plays games
/// for the event (`--ray`) is given these, never the master seed or the book, so it learns
/// nothing of the deals of games it does not play.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct GameSecrets {
    /// The server's seed contribution to the game's deal ([`crate::seeds::MasterSeed::deal_seed`], or the
    /// book's entry).
    pub(crate) deal_seed: String,
    /// The book's entry the deal is, when the event plays a book.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) book: Option<BookTag>,
    /// The seed of the engine in each seat, seat 1 first ([`crate::seeds::MasterSeed::engine_seed`]).
    pub(crate) engine_seeds: Vec<u64>,
    /// The event's commitment to its master seed.
    pub(crate) commitment: String,
}

impl GameSecrets {
    /// What `game` needs of the event's `dealer`.
    pub(crate) fn of(dealer: &Dealer, game: &ScheduledGame) -> GameSecrets {
        let master = &dealer.master;
        // The plan checked that the book holds every deal of the schedule.
        let (deal_seed, book) = dealer
            .deal(game.deal)
            .expect("the book holds every deal of the schedule");
        GameSecrets {
            deal_seed,
            book,
            engine_seeds: (1..=game.seats.len())
                .map(|seat| master.engine_seed(game.index, seat))
                .collect(),
            commitment: master.commitment(),
        }
    }
}

/// A played game: its record, with what the runner knows of its seats besides.
pub(super) struct Played {
    pub(super) record: GameRecord,
    /// Engine (index into the config's engines) in each seat.
    pub(super) seats: Vec<usize>,
    /// Per seat: why its player never connected (`no-connect`), `None` when it did.
    pub(super) absent: Vec<Option<String>>,
    /// Per seat: where its engine's output went ([`Log::describe`]).
    pub(super) logs: Vec<String>,
}

/// What became of a started engine by the time its game ended.
struct SeatEnd {
    /// It exited before the game did: its status (`None`: unknown).
    early: Option<Option<ExitStatus>>,
    /// How it ended: exited by itself with this status, or `None` when it had to be killed.
    status: Option<ExitStatus>,
}

/// The seats of a game whose engines have been started.
#[derive(Default)]
struct Seats {
    /// Per seat: the task watching its engine; `None` for an external engine, or one that
    /// could not be started.
    ends: Vec<Option<JoinHandle<SeatEnd>>>,
    /// Per seat: why its engine could not be started.
    start_failures: Vec<Option<String>>,
    /// Per seat: where its engine's output goes.
    logs: Vec<Log>,
    /// Per seat: where its bridge says why it gave the game up, if it did.
    reports: Vec<Option<PathBuf>>,
}

/// Plays one scheduled game: orders it, starts the engines, waits for the record, stops the
/// engines, and tells a crash from a disconnect and from a player who never came.
pub(super) async fn play(
    config: &TournamentConfig,
    secrets: &GameSecrets,
    here: &Here,
    game: ScheduledGame,
    clocks: &[EngineClock],
) -> Result<Played, TournamentError> {
    let desk = &here.desk;
    let tokens = seat_tokens(config, &game)?;
    let spec = GameSpec {
        seeds: Some(SeedInputs {
            clients: Vec::new(),
            server: secrets.deal_seed.clone(),
        }),
        clocks: game
            .seats
            .iter()
            .map(|&e| clocks[e].clock.clone())
            .collect(),
        max_plies: Some(config.max_plies),
        ..Default::default()
    };
    let record_rx = desk.order(GameOrder {
        game_no: game.index + 1,
        tokens: tokens.clone(),
        connect_timeout: Duration::from_millis(config.connect_timeout_ms),
        spec,
    })?;
    // Cancelled when the game is over, or when this task is dropped (the event stops).
    let over = CancellationToken::new();
    let _over_on_drop = over.clone().drop_guard();
    let seats = start_engines(config, secrets, here, &game, &tokens, &over);
    let mut record = record_rx
        .await
        .map_err(|_| TournamentError::Server("the server dropped a game".into()))?;
    // Engines exit by themselves after (win ...); stragglers are killed after a grace period.
    over.cancel();
    let seat_ends = stopped(seats.ends, &seats.logs).await;
    let bridged: Vec<bool> = game
        .seats
        .iter()
        .map(|&e| config.engines[e].protocol.is_bridged())
        .collect();
    mark_crash(&mut record, &seat_ends, &bridged);
    note_give_ups(&mut record, &seats.reports);
    let absent = absent_reasons(config, &record, &seats.start_failures, &seat_ends);
    record.tournament = Some(tournament_tag(config, secrets, &game, clocks));
    Ok(Played {
        record,
        seats: game.seats,
        absent,
        logs: seats.logs.iter().map(Log::describe).collect(),
    })
}

/// A fresh secret per seat and game: a fixed master seed is public (in the tournament file),
/// and a revealed one after the event, so nothing derived from it may seat anyone. External
/// engines bring their own.
fn seat_tokens(
    config: &TournamentConfig,
    game: &ScheduledGame,
) -> Result<Vec<String>, TournamentError> {
    game.seats
        .iter()
        .map(|&e| match &config.engines[e].token {
            Some(standing) => Ok(standing.clone()),
            None => crate::token::fresh(),
        })
        .collect::<Result<_, _>>()
        .map_err(|e| TournamentError::Server(e.to_string()))
}

/// Starts the engine of every seat that has a command, each watched by a task of its own
/// until the game is `over`. One that cannot be started is withdrawn from the game, which
/// need not wait for it.
fn start_engines(
    config: &TournamentConfig,
    secrets: &GameSecrets,
    here: &Here,
    game: &ScheduledGame,
    tokens: &[String],
    over: &CancellationToken,
) -> Seats {
    let (desk, addr) = (&here.desk, here.addr);
    let game_no = game.index + 1;
    let host = addr.ip().to_string();
    let mut seats = Seats::default();
    for (s, &e) in game.seats.iter().enumerate() {
        let engine = &config.engines[e];
        seats.start_failures.push(None);
        if engine.command.is_none() {
            // An external engine: its output is its operator's.
            seats.logs.push(Log::Off);
            seats.ends.push(None);
            seats.reports.push(None);
            continue;
        }
        let log = log_for(config, game, s + 1, &engine.name);
        seats.logs.push(log.clone());
        let values = Placeholders {
            host: &host,
            port: addr.port(),
            token: &tokens[s],
            seed: secrets.engine_seeds[s],
            name: &engine.name,
            game: game.index,
            seat: s + 1,
        };
        let report = engine
            .protocol
            .is_bridged()
            .then(|| report_path(game, s + 1));
        if let Some(path) = &report {
            let _ = std::fs::remove_file(path);
        }
        seats.reports.push(report.clone());
        let log_limits = (&log, config.engine_log_bytes.game, &here.log_budget);
        match Engine::start(engine, &values, log_limits, report.as_deref()) {
            Ok(p) => seats.ends.push(Some(tokio::spawn(watch(
                p,
                desk.clone(),
                game_no,
                s + 1,
                over.clone(),
            )))),
            Err(e) => {
                log.note(&e.to_string());
                // It will not connect: the game need not wait for it.
                let _ = desk.withdraw(game_no, s + 1);
                seats.start_failures[s] = Some(format!("could not be started ({e})"));
                seats.ends.push(None);
            }
        }
    }
    seats
}

/// What became of each seat's engine once its watcher has stopped it; how each one that
/// exited by itself ended goes into its log.
async fn stopped(ends: Vec<Option<JoinHandle<SeatEnd>>>, logs: &[Log]) -> Vec<Option<SeatEnd>> {
    let mut seat_ends = Vec::new();
    for end in ends {
        seat_ends.push(match end {
            Some(handle) => handle.await.ok(),
            None => None,
        });
    }
    for (s, end) in seat_ends.iter().enumerate() {
        if let Some(status) = end.as_ref().and_then(|e| e.status) {
            // The keeper's (or bridge's) status: 128 + N is the engine killed by signal N.
            logs[s].note(&format!(
                "the engine ended: it {}",
                crate::process::exit::describe_kept(&status)
            ));
        }
    }
    seat_ends
}

/// A disconnect by a program that died abnormally (exited by itself with a failure; killed
/// by us is not) is a crash; but a bridge that left because its engine was slow to
/// acknowledge a command (status [`SLOW_ACK_EXIT`]) is not: the engine lives, and the
/// record's fault says "slow to acknowledge" ([`note_give_ups`]). An engine of anqi's own
/// protocol that crashed gets a fault saying how it died (its bridge says it for another).
fn mark_crash(record: &mut GameRecord, seat_ends: &[Option<SeatEnd>], bridged: &[bool]) {
    let status = |s: usize| {
        seat_ends
            .get(s)
            .and_then(|e| e.as_ref())
            .and_then(|e| e.status)
    };
    let slow = |s: usize, st: ExitStatus| bridged[s] && st.code() == Some(i32::from(SLOW_ACK_EXIT));
    let crashed = |s: usize| status(s).is_some_and(|st| !st.success() && !slow(s, st));
    if record.result.reason != Termination::Disconnect {
        return;
    }
    let Some(loser) = record.result.loser else {
        return;
    };
    if !crashed(loser - 1) {
        return;
    }
    record.result.reason = Termination::Crash;
    if let (false, Some(st)) = (bridged[loser - 1], status(loser - 1)) {
        // The keeper's status: the engine's, or 128 + the signal that killed it (a keeper
        // itself killed by a signal says so directly).
        let how = crate::process::exit::describe_kept(&st);
        record.faults.push(FaultRecord {
            ply: record.plies.len() as u32 + 1,
            player: loser,
            code: "engine".into(),
            text: format!("the engine died: it {how}"),
        });
    }
}

/// Why a bridge gave its engine's game up (it resigned for an answer that is no move, or left
/// when the engine died): in the record's faults, where the loss is. The report files are
/// read and removed.
fn note_give_ups(record: &mut GameRecord, reports: &[Option<PathBuf>]) {
    for (s, path) in reports.iter().enumerate() {
        let Some(path) = path else { continue };
        let reason = std::fs::read_to_string(path).ok();
        let _ = std::fs::remove_file(path);
        let Some(reason) = reason.filter(|r| !r.trim().is_empty()) else {
            continue;
        };
        let gave_up = matches!(
            record.result.reason,
            Termination::Resign | Termination::Crash | Termination::Disconnect
        );
        if gave_up && record.result.loser == Some(s + 1) {
            let text = reason.trim().to_string();
            // Reports count these apart from deaths (`stats`): the engine lives, it was slow.
            // Only the bridge's own words count (an engine's answer quoted in a reason may say
            // anything).
            let code = if text.starts_with(&format!("left the game: {SLOW_ACK_TEXT}:")) {
                SLOW_ACK_FAULT
            } else {
                "engine"
            };
            record.faults.push(FaultRecord {
                ply: record.plies.len() as u32 + 1,
                player: s + 1,
                code: code.into(),
                text,
            });
        }
    }
}

/// Per seat: why its player never came, in a game lost by `no-connect` (`None` for a player
/// who came).
fn absent_reasons(
    config: &TournamentConfig,
    record: &GameRecord,
    start_failures: &[Option<String>],
    seat_ends: &[Option<SeatEnd>],
) -> Vec<Option<String>> {
    (0..start_failures.len())
        .map(|s| {
            let never_came = record.result.reason == Termination::NoConnect
                && record
                    .players
                    .get(s)
                    .is_some_and(|p| anqi_server::is_absent_name(&p.name));
            never_came.then(|| {
                if let Some(failure) = &start_failures[s] {
                    return failure.clone();
                }
                match seat_ends[s].as_ref().and_then(|e| e.early) {
                    // Its status as before (`exit status: 7`, which scripts may read), but a
                    // death by a signal named (the keeper's 137 is SIGKILL's).
                    Some(Some(status)) => match status.code() {
                        Some(129..=192) | None => format!(
                            "{} before it connected",
                            crate::process::exit::describe_kept(&status)
                        ),
                        Some(_) => format!("exited ({status}) before it connected"),
                    },
                    Some(None) => "exited before it connected".into(),
                    None => format!(
                        "did not connect and send (init NAME TOKEN) within connect_timeout_ms = {} (check that it connects to {{addr}} and sends the token it finds in {}; raise connect_timeout_ms if it is slow to start)",
                        config.connect_timeout_ms,
                        TOKEN_ENV
                    ),
                }
            })
        })
        .collect()
}

/// The record's tournament tag: the game's place in the schedule, who sat where and on what
/// terms, and the event's commitment.
fn tournament_tag(
    config: &TournamentConfig,
    secrets: &GameSecrets,
    game: &ScheduledGame,
    clocks: &[EngineClock],
) -> TournamentTag {
    TournamentTag {
        index: game.index,
        deal: game.deal,
        engines: game
            .seats
            .iter()
            .map(|&e| config.engines[e].name.clone())
            .collect(),
        seats: game
            .seats
            .iter()
            .map(|&e| SeatTag {
                protocol: config.engines[e].protocol.to_string(),
                assumes: config.engines[e].assumes.clone(),
                tc: clocks[e].label.clone(),
            })
            .collect(),
        commitment: Some(secrets.commitment.clone()),
        node: None,
        book: secrets.book.clone(),
    }
}

/// The file where the bridge of seat `seat` (1-based) of `game` says why it gave the game up
/// (see `bridge::translator::report`): in a directory of this process's, under the system's temporary one.
fn report_path(game: &ScheduledGame, seat: usize) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("anqi-reports-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    dir.join(format!("game-{}-seat-{seat}", game.index))
}

/// Where the output of seat `seat`'s engine goes in `game`, as `engine_logs` says.
fn log_for(config: &TournamentConfig, game: &ScheduledGame, seat: usize, name: &str) -> Log {
    let dir = Path::new(&config.logs);
    match config.engine_logs {
        EngineLogs::Off => Log::Off,
        EngineLogs::Game => {
            Log::File(dir.join(format!("game-{:05}-seat{seat}-{name}.log", game.index)))
        }
        EngineLogs::Engine => {
            let log = Log::Shared {
                path: dir.join(format!("{name}.log")),
                prefix: format!("game {} seat {seat}: ", game.index),
            };
            log.note(&format!(
                "--- game {} starts (deal {}, seat {seat})",
                game.index, game.deal
            ));
            log
        }
    }
}

/// Watches a started engine through its game: if it exits before the game is over, its seat
/// is withdrawn (a player who never came need not be waited for); once the game is over, it
/// is given two seconds to exit, then killed with its process group.
async fn watch(
    mut engine: Engine,
    desk: OrderDesk,
    game_no: u64,
    seat: usize,
    over: CancellationToken,
) -> SeatEnd {
    let early = tokio::select! {
        status = engine.wait() => {
            // Ignored by the server when the seat is taken or the game has started.
            let _ = desk.withdraw(game_no, seat);
            Some(status)
        }
        _ = over.cancelled() => None,
    };
    let grace = if early.is_some() {
        Duration::ZERO
    } else {
        Duration::from_secs(2)
    };
    let status = engine.stop(grace).await;
    SeatEnd { early, status }
}
