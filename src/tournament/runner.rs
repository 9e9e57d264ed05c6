//! Running an event: an in-process server seating engines by token, `concurrency` games at a
//! time, each record appended the moment its game ends, progress on stderr, resume from the
//! records already written, shards, and SPRT early stopping.

use super::config::TournamentConfig;
use super::engine::{Engine, Placeholders};
use super::schedule::{self, ScheduledGame};
use super::stats::{self, Standings};
use super::TournamentError;
use crate::config::{Config, Ruling};
use crate::record::{read_records, GameRecord, TournamentTag};
use crate::rules::{SeedInputs, Termination, Variant};
use crate::server::{GameOrder, GameSpec, Server};
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

/// How progress is shown on stderr.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// A line per finished game.
    Text,
    /// A JSON object per finished game.
    Json,
    Quiet,
}

/// Options of one run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// `(i, n)`: play only the games whose index is i modulo n.
    pub shard: Option<(u64, u64)>,
    pub progress: Progress,
    /// Overrides the configured output file.
    pub output: Option<PathBuf>,
}

/// Plays every scheduled game not yet in the output file, and returns the standings of all
/// the games in it.
///
/// # Errors
/// Bad configuration, an output file from another event, or I/O failures.
pub async fn run(
    config: TournamentConfig,
    options: RunOptions,
) -> Result<Standings, TournamentError> {
    let variant =
        Variant::load(&config.variant).map_err(|e| TournamentError::Config(e.to_string()))?;
    if variant.sides.len() != 2 {
        return Err(TournamentError::Config(format!(
            "{} is not a competitive game (one side plays for a goal): tournaments rank engines that play against each other",
            variant.name
        )));
    }
    let mut games = schedule::build(&config, variant.players).map_err(TournamentError::Config)?;
    if let Some((i, n)) = options.shard {
        games.retain(|g| g.index % n == i);
    }
    let output = options
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from(&config.output));
    let done = resume_point(&output, &config, &games)?;
    let todo: Vec<ScheduledGame> = games
        .iter()
        .filter(|g| !done.contains(&g.index))
        .cloned()
        .collect();
    std::fs::create_dir_all(&config.logs).map_err(TournamentError::io(format!(
        "cannot create log directory {}",
        config.logs
    )))?;
    let mut out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&output)
        .map_err(TournamentError::io(format!(
            "cannot open {}",
            output.display()
        )))?;

    // The in-process server: strict rulings, organizer-fixed deals, records kept by us.
    let mut server_config = Config::default();
    server_config.server.listen = config.listen.clone();
    server_config.records.path = String::new();
    server_config.seed.clients = false;
    // Every engine connects from this machine: no per-address cap.
    server_config.server.max_connections_per_address = 0;
    server_config.referee.illegal_action = Ruling::Lose;
    server_config.referee.out_of_turn = Ruling::Lose;
    server_config.referee.max_errors = 3;
    let mut server = Server::bind(server_config, variant.clone())
        .await
        .map_err(TournamentError::io("cannot start the tournament's server"))?;
    let desk = server.order_desk();
    desk.expect(
        config
            .engines
            .iter()
            .filter_map(|e| e.token.clone())
            .collect(),
    )?;
    let addr = server.local_addr().map_err(TournamentError::io(
        "the tournament's server has no address",
    ))?;
    if options.progress != Progress::Quiet || config.engines.iter().any(|e| e.command.is_none()) {
        // External engines connect here; say where, even in quiet mode.
        eprintln!("listening on {addr}");
    }
    // Not progress but a hole in the event's security: said even in quiet mode.
    for engine in config.engines.iter().filter(|e| e.token_on_command_line()) {
        eprintln!(
            "anqi: warning: engine {:?} takes its token on the command line ({{token}}), where every local user can read it (ps, /proc/PID/cmdline) and take its seat; engines also get it in the environment variable {}, which only their owner can read",
            engine.name,
            super::engine::TOKEN_ENV
        );
    }
    let stop_server = CancellationToken::new();
    let server_task = tokio::spawn(server.run(stop_server.clone()));

    let mut clock = config.clock.clone();
    let clock_set = |c: Option<u64>, v: Option<u64>| c.or(v).unwrap_or(0) > 0;
    if !clock_set(clock.game_ms, variant.clock.game_ms)
        && !clock_set(clock.move_ms, variant.clock.move_ms)
    {
        // A hanging engine must not hang the event: without any clock, a minute per move.
        clock.move_ms = Some(60_000);
    }
    let config = Arc::new(config);
    let total = games.len();
    let mut finished = done.len();
    let mut records: Vec<GameRecord> = read_records(&output)
        .map_err(TournamentError::io(format!(
            "cannot read {}",
            output.display()
        )))?
        .into_iter()
        .filter_map(|(_, r)| r.ok())
        .collect();
    let names: Vec<String> = config.engines.iter().map(|e| e.name.clone()).collect();
    let started = Instant::now();
    let mut played_now = 0usize;
    let mut pending = todo.into_iter();
    let mut running = JoinSet::new();
    let mut stopped_early = stats::standings(&records, &names, config.sprt.as_ref())
        .sprt
        .is_some_and(|s| s.verdict != "continue");
    loop {
        while !stopped_early && running.len() < config.concurrency as usize {
            let Some(game) = pending.next() else { break };
            let (config, desk, clock) = (config.clone(), desk.clone(), clock.clone());
            running.spawn(async move { play(&config, &desk, addr, game, clock).await });
        }
        let Some(joined) = running.join_next().await else {
            break;
        };
        let record =
            joined.map_err(|e| TournamentError::Server(format!("a game task failed: {e}")))??;
        let mut line = serde_json::to_string(&record).expect("records serialize");
        line.push('\n');
        // Written, flushed and synced before the next game is reported: a resumed run never
        // plays again a game this one reported as finished.
        out.write_all(line.as_bytes())
            .and_then(|()| out.flush())
            .and_then(|()| out.sync_data())
            .map_err(TournamentError::io(format!(
                "cannot write {}",
                output.display()
            )))?;
        finished += 1;
        played_now += 1;
        records.push(record);
        let standings = stats::standings(&records, &names, config.sprt.as_ref());
        report_progress(
            options.progress,
            records.last().expect("just pushed"),
            finished,
            total,
            played_now,
            started,
            &standings,
        );
        if let Some(s) = &standings.sprt {
            if s.verdict != "continue" && !stopped_early {
                stopped_early = true;
                if options.progress != Progress::Quiet {
                    eprintln!(
                        "SPRT {} vs {}: {} accepted (LLR {:.2}); finishing the games in progress",
                        s.first, s.second, s.verdict, s.llr
                    );
                }
            }
        }
    }
    stop_server.cancel();
    server_task
        .await
        .map_err(|e| TournamentError::Server(format!("the server task failed: {e}")))?
        .map_err(TournamentError::io("the tournament's server"))?;
    Ok(stats::standings(&records, &names, config.sprt.as_ref()))
}

/// Reads the games already in the output file, after cutting off a last line left half-written
/// by a crash; checks they belong to this schedule.
fn resume_point(
    output: &Path,
    config: &TournamentConfig,
    games: &[ScheduledGame],
) -> Result<BTreeSet<u64>, TournamentError> {
    let Ok(bytes) = std::fs::read(output) else {
        return Ok(BTreeSet::new());
    };
    if let Some(last_newline) = bytes.iter().rposition(|&b| b == b'\n') {
        if last_newline + 1 != bytes.len() {
            truncate(output, last_newline as u64 + 1)?;
        }
    } else if !bytes.is_empty() {
        truncate(output, 0)?;
    }
    let mut done = BTreeSet::new();
    let records = read_records(output).map_err(TournamentError::io(format!(
        "cannot read {}",
        output.display()
    )))?;
    for (line, r) in records {
        let r = r.map_err(|e| {
            TournamentError::Records(format!(
                "{}:{line}: not a game record: {e}",
                output.display()
            ))
        })?;
        let Some(tag) = r.tournament else {
            return Err(TournamentError::Records(format!(
                "{}:{line}: a game from outside a tournament",
                output.display()
            )));
        };
        let Some(g) = games.iter().find(|g| g.index == tag.index) else {
            return Err(TournamentError::Records(format!(
                "{}:{line}: game {} is not in this schedule (another event's file, or another shard's?)",
                output.display(),
                tag.index
            )));
        };
        let expected: Vec<&str> = g
            .seats
            .iter()
            .map(|&e| config.engines[e].name.as_str())
            .collect();
        if tag.engines != expected || tag.deal != g.deal {
            return Err(TournamentError::Records(format!(
                "{}:{line}: game {} was played by {:?} on deal {}, but this configuration schedules {:?} on deal {}",
                output.display(),
                tag.index,
                tag.engines,
                tag.deal,
                expected,
                g.deal
            )));
        }
        done.insert(tag.index);
    }
    Ok(done)
}

fn truncate(path: &Path, len: u64) -> Result<(), TournamentError> {
    let cut = |e| TournamentError::io(format!("cannot repair {}", path.display()))(e);
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(cut)?;
    f.set_len(len).map_err(cut)?;
    Ok(())
}

/// Plays one scheduled game: orders it, starts the engines, waits for the record, stops the
/// engines, and tells a crash from a disconnect.
async fn play(
    config: &TournamentConfig,
    desk: &crate::server::OrderDesk,
    addr: std::net::SocketAddr,
    game: ScheduledGame,
    clock: crate::config::ClockConfig,
) -> Result<GameRecord, TournamentError> {
    let master = &config.seed;
    // A fresh secret per seat and game: the master seed is public (it is in the tournament
    // file), so nothing derived from it may seat anyone. External engines bring their own.
    let tokens: Vec<String> = game
        .seats
        .iter()
        .map(|&e| match &config.engines[e].token {
            Some(standing) => Ok(standing.clone()),
            None => super::token::fresh(),
        })
        .collect::<Result<_, _>>()
        .map_err(|e| TournamentError::Server(e.to_string()))?;
    let spec = GameSpec {
        seeds: Some(SeedInputs {
            clients: Vec::new(),
            server: schedule::deal_seed(master, game.deal),
        }),
        clock: Some(clock),
        max_plies: Some(config.max_plies),
        ..Default::default()
    };
    let record_rx = desk.order(GameOrder {
        game_no: game.index + 1,
        tokens: tokens.clone(),
        connect_timeout: Duration::from_millis(config.connect_timeout_ms),
        spec,
    })?;
    let host = addr.ip().to_string();
    let mut engines: Vec<Option<Engine>> = Vec::new();
    for (s, &e) in game.seats.iter().enumerate() {
        let engine = &config.engines[e];
        if engine.command.is_none() {
            engines.push(None);
            continue;
        }
        let values = Placeholders {
            host: &host,
            port: addr.port(),
            token: &tokens[s],
            seed: schedule::engine_seed(master, game.index, s + 1),
            name: &engine.name,
            game: game.index,
            seat: s + 1,
        };
        let log = Path::new(&config.logs).join(format!(
            "game-{:05}-seat{}-{}.log",
            game.index,
            s + 1,
            engine.name
        ));
        match Engine::start(engine, &values, &log) {
            Ok(p) => engines.push(Some(p)),
            Err(e) => {
                // It will not connect: the connect timeout rules it a crash.
                let _ = std::fs::write(&log, format!("anqi: {e}\n"));
                engines.push(None);
            }
        }
    }
    let mut record = record_rx
        .await
        .map_err(|_| TournamentError::Server("the server dropped a game".into()))?;
    // Engines exit by themselves after (win ...); stragglers are killed after a grace period.
    let stops: Vec<_> = engines
        .into_iter()
        .map(|engine| {
            tokio::spawn(async move {
                match engine {
                    Some(e) => e.stop(Duration::from_secs(2)).await,
                    None => None,
                }
            })
        })
        .collect();
    let mut statuses = Vec::new();
    for stop in stops {
        statuses.push(stop.await.ok().flatten());
    }
    // Exited by itself with a failure: a crash (killed by us is not).
    let crashed: Vec<bool> = statuses
        .iter()
        .map(|s| s.is_some_and(|st| !st.success()))
        .collect();
    // A disconnect by a program that died abnormally is a crash.
    if record.result.reason == Termination::Disconnect {
        if let Some(loser) = record.result.loser {
            if crashed.get(loser - 1).copied().unwrap_or(false) {
                record.result.reason = Termination::Crash;
            }
        }
    }
    record.tournament = Some(TournamentTag {
        index: game.index,
        deal: game.deal,
        engines: game
            .seats
            .iter()
            .map(|&e| config.engines[e].name.clone())
            .collect(),
    });
    Ok(record)
}

fn report_progress(
    mode: Progress,
    record: &GameRecord,
    finished: usize,
    total: usize,
    played_now: usize,
    started: Instant,
    standings: &Standings,
) {
    let tag = record.tournament.as_ref().expect("tagged");
    let elapsed = started.elapsed().as_secs_f64().max(1e-9);
    let rate = played_now as f64 / elapsed;
    let eta = (total - finished) as f64 / rate.max(1e-9);
    let leader = standings.engines.first();
    match mode {
        Progress::Quiet => {}
        Progress::Text => eprintln!(
            "[{finished}/{total}] game {}: {}: {} {} after {} plies | {:.1} games/s, ETA {:.0}s | leader {} {}/{}",
            tag.index,
            tag.engines.join(" vs "),
            record.result.win,
            record.result.reason.name(),
            record.result.plies,
            rate,
            eta,
            leader.map_or("-", |l| l.name.as_str()),
            leader.map_or(0.0, |l| l.points),
            leader.map_or(0, |l| l.games),
        ),
        Progress::Json => eprintln!(
            "{}",
            serde_json::json!({
                "finished": finished, "total": total, "game": tag.index, "engines": tag.engines,
                "win": record.result.win, "reason": record.result.reason.name(),
                "plies": record.result.plies, "games_per_second": rate, "eta_seconds": eta,
                "leader": leader.map(|l| &l.name),
            })
        ),
    }
}
