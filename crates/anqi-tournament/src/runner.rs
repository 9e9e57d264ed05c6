//! Running an event: an in-process server seating engines by token, `concurrency` games at a
//! time, each record appended the moment its game ends, progress on stderr, resume from the
//! records already written, shards, and SPRT early stopping.
//!
//! Failures that mean the event is set up wrong stop it loudly instead of losing every game:
//! an engine whose program cannot be started (checked before the first game), and one that
//! does not connect before it has connected once in this run.

use super::config::{EngineLogs, TournamentConfig};
use super::engine::{Engine, Log, Placeholders};
use super::schedule::{self, ScheduledGame};
use super::seeds::{self, MasterSeed};
use super::stats::{self, Standings};
use super::TournamentError;
use anqi_core::record::{read_records, GameRecord, SeatTag, TournamentTag};
use anqi_core::rules::{SeedInputs, Termination, Variant};
use anqi_server::config::{ClockConfig, Config, Ruling};
use anqi_server::{GameOrder, GameSpec, Server};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
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
    /// Where to serve the event's web pages (its games live and its standings), if anywhere.
    pub http: Option<String>,
}

/// Where an event's master seed came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SeedOrigin {
    /// The tournament file's `seed`, or `--seed`: public, for reproducible experiments.
    Fixed,
    /// Read from the event's seed file.
    Kept(PathBuf),
    /// Drawn at random and written to the event's seed file just now.
    Created(PathBuf),
}

/// An event's master seed, and where it is kept.
#[derive(Clone, Debug)]
pub struct EventSeed {
    pub seed: MasterSeed,
    pub origin: SeedOrigin,
    /// Whether its seed file says the event is over and its seed revealed.
    pub revealed: bool,
}

impl EventSeed {
    /// The seed file, when the seed is kept in one.
    pub fn file(&self) -> Option<&Path> {
        match &self.origin {
            SeedOrigin::Fixed => None,
            SeedOrigin::Kept(p) | SeedOrigin::Created(p) => Some(p),
        }
    }
}

/// The records file of a run: `--output`, else the configured `output`.
pub fn output_of(config: &TournamentConfig, options: &RunOptions) -> PathBuf {
    options
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from(&config.output))
}

/// The event's master seed: the fixed one, or the one in its seed file (`seed_file`, else
/// `OUTPUT.seed`), drawn and written there when the event starts. Shards never draw one: they
/// must all deal from the same seed, so the file must be there already (`anqi tournament FILE
/// --prepare` writes it).
///
/// # Errors
/// A shard without its seed file; a seed file missing while the records file already holds
/// games dealt from it; an unreadable or changed seed file.
pub fn event_seed(
    config: &TournamentConfig,
    output: &Path,
    shard: Option<(u64, u64)>,
) -> Result<EventSeed, TournamentError> {
    if let Some(text) = &config.seed {
        return Ok(EventSeed {
            seed: MasterSeed::fixed(text)
                .map_err(|e| TournamentError::Config(format!("seed: {e}")))?,
            origin: SeedOrigin::Fixed,
            revealed: false,
        });
    }
    let path = config
        .seed_file
        .as_ref()
        .map_or_else(|| seeds::default_seed_file(output), PathBuf::from);
    if path.exists() {
        let file = seeds::read_seed_file_whole(&path)
            .map_err(|e| TournamentError::Config(e.to_string()))?;
        return Ok(EventSeed {
            seed: file.seed,
            origin: SeedOrigin::Kept(path),
            revealed: file.revealed,
        });
    }
    if let Some((i, n)) = shard {
        return Err(TournamentError::Config(format!(
            "shard {i}/{n}: the shards of one event deal from one master seed, kept in a seed file, and {} does not exist. Write it once with `anqi tournament FILE --prepare --seed-file {}` (it prints the event's commitment), copy it to every machine, and give every shard --seed-file {}; or fix the seed (seed = \"...\", --seed) for a reproducible event whose deals anyone can compute",
            path.display(),
            path.display(),
            path.display(),
        )));
    }
    // Games already dealt from a seed that is not here: a new one would deal them otherwise,
    // and the event would be two.
    let has_games = read_records(output)
        .map(|lines| lines.into_iter().any(|(_, r)| r.is_ok()))
        .unwrap_or(false);
    if has_games {
        return Err(TournamentError::Config(format!(
            "{} holds games of this event, but its seed file {} is missing: put it back (or name it with --seed-file) to resume; a new seed would deal the remaining games of another event",
            output.display(),
            path.display()
        )));
    }
    let seed = MasterSeed::fresh().map_err(|e| TournamentError::Config(e.to_string()))?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(TournamentError::io(format!(
            "cannot create the directory of {}",
            path.display()
        )))?;
    }
    seeds::write_seed_file(&path, &seed).map_err(|e| TournamentError::Config(e.to_string()))?;
    Ok(EventSeed {
        seed,
        origin: SeedOrigin::Created(path),
        revealed: false,
    })
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
    if super::one_side(&variant) && config.sprt.is_some() {
        return Err(TournamentError::Config(format!(
            "[tournament.sprt]: {} is a one-side game ({}: the side plays for a goal, not against another engine), so its engines get success rates, not Elo; the SPRT tests the Elo difference of two engines playing each other. Leave out [tournament.sprt]",
            variant.name, variant.game_type
        )));
    }
    // Endgame tables of other rules, or no file, would stop the event when its server is
    // started: said before any engine is.
    if let Some(path) = &config.tables {
        anqi_server::config::open_tables(Path::new(path), Arc::new(variant.clone()))
            .map_err(|e| TournamentError::Config(format!("tables: {e}")))?;
    }
    // The schedule, the master seed and the games already played, before any engine is
    // started: a shard without its seed file, or another event's records, stop the event here.
    let schedule = schedule::build(&config, &variant).map_err(TournamentError::Config)?;
    let deal_groups = DealGroups::of(&schedule);
    let mut games = schedule.clone();
    if let Some((i, n)) = options.shard {
        games.retain(|g| g.index % n == i);
    }
    let output = output_of(&config, &options);
    let seed = event_seed(&config, &output, options.shard)?;
    // The games already played, checked against this schedule and seed.
    let mut records = resume_point(&output, &config, &seed.seed, &games)?;
    let done = recorded(&records);
    let todo: Vec<ScheduledGame> = games
        .iter()
        .filter(|g| !done.contains(&g.index))
        .cloned()
        .collect();
    // An event the SPRT has stopped plays nothing more: its run only reports.
    if seed.revealed && !todo.is_empty() && !sprt_decided(&records, &config) {
        return Err(TournamentError::Config(format!(
            "the master seed in {} was revealed when this event ended: games dealt from it now ({} more) would be known in advance. Start a new event (another output, and no seed file) to play more games",
            seed.file().map_or_else(String::new, |p| p.display().to_string()),
            todo.len()
        )));
    }
    // Before any game: a program that cannot be started would lose every game, and an
    // engine whose protocol cannot express the variant would play it wrong.
    for engine in &config.engines {
        super::engine::check_program(engine).map_err(TournamentError::Engine)?;
        let assumed = engine
            .assumes
            .as_deref()
            .map(crate::bridge::presets::assumed)
            .transpose()
            .map_err(|e| {
                TournamentError::Config(format!("engine {:?}: assumes: {e}", engine.name))
            })?;
        let assessment = crate::bridge::assess(engine.protocol, &variant, assumed.as_ref())
            .map_err(|e| TournamentError::Config(format!("engine {:?}: {e}", engine.name)))?;
        for w in assessment.warnings {
            eprintln!("anqi: warning: engine {:?}: {w}", engine.name);
        }
    }
    // The event's rules, as the bridge's check reads them from its engine's directory.
    let rules = std::fs::canonicalize(&config.variant)
        .map_or_else(|_| config.variant.clone(), |p| p.display().to_string());
    for engine in &config.engines {
        super::engine::check_handshake(engine, &rules)
            .await
            .map_err(TournamentError::Engine)?;
    }
    if config.engine_logs != EngineLogs::Off {
        std::fs::create_dir_all(&config.logs).map_err(TournamentError::io(format!(
            "cannot create log directory {}",
            config.logs
        )))?;
    }
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
    server_config.records.legal_counts = config.legal_counts;
    server_config.seed.clients = false;
    // Every engine connects from this machine: no per-address cap.
    server_config.server.max_connections_per_address = 0;
    server_config.referee.illegal_action = Ruling::Lose;
    server_config.referee.out_of_turn = Ruling::Lose;
    server_config.referee.max_errors = 3;
    server_config.referee.rejoin_grace_ms = config.rejoin_grace_ms;
    server_config.referee.adjudicate = config.adjudicate;
    server_config.referee.tables = config.tables.clone().unwrap_or_default();
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
    // The event's pages: every game live, and the standings as games finish.
    let hub = match &options.http {
        Some(listen) => {
            let defaults = Config::default();
            let hub = anqi_server::Hub::new(&defaults.http, false);
            server.watch(hub.clone());
            // The standings are there from the start (a resumed run's: its games so far).
            let standings =
                stats::standings(&records, &config.engine_names(), config.sprt.as_ref());
            hub.set_event(event_json(
                records.len(),
                games.len(),
                0.0,
                None,
                &standings,
                &seed.seed.commitment(),
                None,
            ));
            // No game is shown whole while its deal is still to be played in another game.
            let one_side = super::one_side(&variant);
            for game in &todo {
                if !deal_groups.all_recorded(game.deal, &done, Some(game.index)) {
                    hub.withhold(game.index + 1, one_side);
                }
            }
            let web = anqi_web::Web::bind(listen, &defaults, hub.clone(), stop_server.clone())
                .await
                .map_err(TournamentError::io("cannot serve the event's web pages"))?;
            let web_addr = web
                .local_addr()
                .map_err(TournamentError::io("the web pages have no address"))?;
            eprintln!("web on http://{web_addr}/");
            tokio::spawn(web.run(stop_server.clone()));
            Some(hub)
        }
        None => None,
    };
    let server_task = tokio::spawn(server.run(stop_server.clone()));
    // After `listening on` (engines run by hand, and anqi.play, read that line first).
    announce_seed(&seed, &output, options.progress, done.len(), games.len());

    let clocks: Vec<EngineClock> = (0..config.engines.len())
        .map(|e| {
            let clock = config.clock_of(e, &variant.clock);
            let label = match config.engines[e].tc.as_ref().or(config.tc.as_ref()) {
                Some(tc) => tc.text.clone(),
                None => super::time_control::label(&anqi_server::TimeControl::resolve(
                    &clock,
                    &variant.clock,
                )),
            };
            EngineClock { clock, label }
        })
        .collect();
    let event = Event {
        one_side: super::one_side(&variant),
        config: Arc::new(config),
        master: Arc::new(seed.seed.clone()),
        desk,
        addr,
        clocks: Arc::new(clocks),
        total: games.len(),
        options,
        output,
        hub,
        deal_groups,
    };
    let names = event.config.engine_names();
    let mut played = event.play_all(todo, &mut records, &mut out).await;
    if played.is_err() {
        // Stopped loudly: nothing of this event may go on running.
        super::engine::kill_all();
    } else {
        // The event is over when every game of its schedule is recorded (a shard's run ends
        // only its part), or when the SPRT has decided (nothing more is played): its seed is
        // revealed, on the pages too while they are still up.
        let recorded = recorded(&records);
        let all_played = schedule.iter().all(|g| recorded.contains(&g.index));
        let decided = sprt_decided(&records, &event.config);
        if event.options.shard.is_none() && (all_played || decided) {
            played = reveal_seed(&seed, &event.output, event.options.progress);
            if let Some(hub) = &event.hub {
                // The seed is public: nothing of a deal is held back any more (the games of a
                // deal the SPRT left unplayed, too).
                for g in &schedule {
                    hub.disclose(g.index + 1);
                }
                hub.set_event(event_json(
                    records.len(),
                    event.total,
                    0.0,
                    None,
                    &stats::standings(&records, &names, event.config.sprt.as_ref()),
                    &seed.seed.commitment(),
                    Some(seed.seed.reveal()),
                ));
            }
        }
    }
    stop_server.cancel();
    // The bridges' report files are read and removed game by game; their directory goes too.
    let _ = std::fs::remove_dir(
        std::env::temp_dir().join(format!("anqi-reports-{}", std::process::id())),
    );
    let stopped = server_task
        .await
        .map_err(|e| TournamentError::Server(format!("the server task failed: {e}")))
        .and_then(|r| r.map_err(TournamentError::io("the tournament's server")));
    played?;
    stopped?;
    Ok(stats::standings(
        &records,
        &names,
        event.config.sprt.as_ref(),
    ))
}

/// Says where the event's master seed comes from and prints its commitment, which every
/// record of the event carries too (quiet: the commitment alone).
fn announce_seed(seed: &EventSeed, output: &Path, mode: Progress, finished: usize, total: usize) {
    let commitment = seed.seed.commitment();
    let source = match &seed.origin {
        SeedOrigin::Fixed => {
            "a fixed master seed (the tournament file's seed, or --seed): anyone who knows it computes every deal".to_string()
        }
        SeedOrigin::Kept(p) => format!("the master seed kept in {}", p.display()),
        SeedOrigin::Created(p) => format!(
            "a new random master seed, kept secret in {} until the event ends",
            p.display()
        ),
    };
    match mode {
        // Even quiet: it is to be published before the games, and only the records (secret
        // until the end) would hold it otherwise.
        Progress::Quiet => say(&format!("commitment {commitment}")),
        Progress::Text => say(&format!(
            "deals of {} from {source}; commitment {commitment}",
            output.display()
        )),
        Progress::Json => say(&serde_json::json!({
            "finished": finished,
            "total": total,
            "commitment": commitment,
            "seed_file": seed.file().map(|p| p.display().to_string()),
            "fixed_seed": seed.origin == SeedOrigin::Fixed,
        })
        .to_string()),
    }
}

/// At the end of an event whose every game is recorded: the master seed is revealed (printed,
/// shown on the event's pages, and its seed file marked revealed so that nothing is dealt from
/// it again), so that anyone can check every deal against the commitment.
fn reveal_seed(seed: &EventSeed, output: &Path, mode: Progress) -> Result<(), TournamentError> {
    if let Some(path) = seed.file() {
        if !seed.revealed {
            seeds::mark_revealed(path, &seed.seed)
                .map_err(|e| TournamentError::Config(e.to_string()))?;
        }
    }
    let check = match seed.file() {
        Some(path) => format!("--seed-file {}", path.display()),
        None => "--seed SEED".into(),
    };
    match mode {
        Progress::Quiet => {}
        Progress::Text => say(&format!(
            "event complete: master seed {} (commitment {}); anyone can check every deal with: anqi report {} {check}",
            seed.seed.reveal(),
            seed.seed.commitment(),
            output.display()
        )),
        Progress::Json => say(
            &serde_json::json!({
                "complete": true,
                "master_seed": seed.seed.reveal(),
                "commitment": seed.seed.commitment(),
            })
            .to_string(),
        ),
    }
    Ok(())
}

/// A line on stderr, whoever reads it: a reader that has gone (a script that took the
/// `listening on` line and closed the pipe) must not stop the event, as `eprintln!` would.
fn say(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// The file where the bridge of seat `seat` (1-based) of `game` says why it gave the game up
/// (see `bridge::translator::report`): in a directory of this process's, under the system's temporary one.
fn report_path(game: &ScheduledGame, seat: usize) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("anqi-reports-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    dir.join(format!("game-{}-seat-{seat}", game.index))
}

/// An engine's clock: its settings, and how the records name them.
struct EngineClock {
    clock: ClockConfig,
    /// As the tournament file writes a time control (`60+1`, `40/60`, `st=2`, `inf`).
    label: String,
}

/// What every game of one run shares.
struct Event {
    config: Arc<TournamentConfig>,
    /// The master seed the games are dealt from.
    master: Arc<MasterSeed>,
    desk: anqi_server::OrderDesk,
    addr: std::net::SocketAddr,
    /// Each engine's clock settings (index = engine).
    clocks: Arc<Vec<EngineClock>>,
    /// Games in the schedule (of this shard).
    total: usize,
    /// Whether the variant is a one-side game (its engines play together).
    one_side: bool,
    options: RunOptions,
    output: PathBuf,
    /// The event's web pages' hub, when they are served.
    hub: Option<anqi_server::Hub>,
    /// The games of each deal (of the whole schedule, every shard's).
    deal_groups: DealGroups,
}

/// The games of the schedule that share each deal: a finished game's record shows its whole
/// deal, so the event's pages hold it back (`Hub::withhold`) until every game of its deal has
/// ended, in this run or an earlier one. A shard's pages never show a deal whose other games
/// are another shard's.
struct DealGroups {
    /// Deal number -> the schedule indexes of its games.
    by_deal: BTreeMap<u64, Vec<u64>>,
}

impl DealGroups {
    fn of(schedule: &[ScheduledGame]) -> DealGroups {
        let mut by_deal: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
        for g in schedule {
            by_deal.entry(g.deal).or_default().push(g.index);
        }
        DealGroups { by_deal }
    }

    /// Whether every game of deal `deal` is in `recorded`, taking `also` as recorded too.
    fn all_recorded(&self, deal: u64, recorded: &BTreeSet<u64>, also: Option<u64>) -> bool {
        self.by_deal.get(&deal).is_none_or(|games| {
            games
                .iter()
                .all(|i| recorded.contains(i) || Some(*i) == also)
        })
    }

    /// The games of deal `deal`.
    fn games(&self, deal: u64) -> &[u64] {
        self.by_deal.get(&deal).map_or(&[], Vec::as_slice)
    }
}

impl Event {
    /// Gives the event's pages its progress and standings (`--http`).
    fn publish(&self, finished: usize, played_now: usize, started: Instant, standings: &Standings) {
        let Some(hub) = &self.hub else { return };
        let elapsed = started.elapsed().as_secs_f64();
        let left = self.total.saturating_sub(finished);
        let eta = (played_now > 0).then(|| elapsed / played_now as f64 * left as f64);
        hub.set_event(event_json(
            finished,
            self.total,
            elapsed,
            eta,
            standings,
            &self.master.commitment(),
            None,
        ));
    }

    /// Plays `todo`, `concurrency` games at a time, appending each record to `out` (and to
    /// `records`) as it comes, until the schedule is done or the SPRT decides.
    ///
    /// # Errors
    /// I/O failures, and an engine that fails before it ever connected in this run.
    async fn play_all(
        &self,
        todo: Vec<ScheduledGame>,
        records: &mut Vec<GameRecord>,
        out: &mut std::fs::File,
    ) -> Result<(), TournamentError> {
        let config = &self.config;
        let names = config.engine_names();
        let started = Instant::now();
        let mut finished = records.len();
        let mut played_now = 0usize;
        let mut pending = todo.into_iter();
        let mut running = JoinSet::new();
        // Whether each engine has taken a seat in this run: until it has, not connecting
        // means the event is set up wrong, and stops it.
        let mut connected = vec![false; config.engines.len()];
        // The games recorded so far (earlier runs' too).
        let mut recorded = recorded(records);
        let mut stopped_early = sprt_decided(records, config);
        loop {
            while !stopped_early && running.len() < config.concurrency as usize {
                let Some(game) = pending.next() else { break };
                let (config, master, desk, clocks, addr) = (
                    config.clone(),
                    self.master.clone(),
                    self.desk.clone(),
                    self.clocks.clone(),
                    self.addr,
                );
                running
                    .spawn(async move { play(&config, &master, &desk, addr, game, &clocks).await });
            }
            let Some(joined) = running.join_next().await else {
                break;
            };
            let played = joined
                .map_err(|e| TournamentError::Server(format!("a game task failed: {e}")))??;
            for (seat, &engine) in played.seats.iter().enumerate() {
                match &played.absent[seat] {
                    None => connected[engine] = true,
                    Some(why) if !connected[engine] && config.engines[engine].command.is_some() => {
                        return Err(TournamentError::Engine(format!(
                            "engine {:?} ({}) {why} in game {} (seat {}), and it has not connected in any game yet: the event is stopped. Its output is in {}",
                            config.engines[engine].name,
                            config.engines[engine].command.as_deref().unwrap_or_default(),
                            played.record.tournament.as_ref().map_or(0, |t| t.index),
                            seat + 1,
                            played.logs[seat].describe(),
                        )));
                    }
                    Some(_) => {}
                }
            }
            let record = played.record;
            let mut line = serde_json::to_string(&record).expect("records serialize");
            line.push('\n');
            // Written, flushed and synced before the next game is reported: a resumed run never
            // plays again a game this one reported as finished.
            out.write_all(line.as_bytes())
                .and_then(|()| out.flush())
                .and_then(|()| out.sync_data())
                .map_err(TournamentError::io(format!(
                    "cannot write {}",
                    self.output.display()
                )))?;
            finished += 1;
            played_now += 1;
            let tag = record.tournament.clone().expect("tagged");
            records.push(record);
            recorded.insert(tag.index);
            // Its deal's last game ended: every game of the deal may be shown whole now.
            if let Some(hub) = &self.hub {
                if self.deal_groups.all_recorded(tag.deal, &recorded, None) {
                    for &index in self.deal_groups.games(tag.deal) {
                        hub.disclose(index + 1);
                    }
                }
            }
            let standings = stats::standings(records, &names, config.sprt.as_ref());
            let progress = self.options.progress;
            report_progress(
                progress,
                if self.one_side { " + " } else { " vs " },
                records.last().expect("just pushed"),
                finished,
                self.total,
                played_now,
                started,
                &standings,
            );
            self.publish(finished, played_now, started, &standings);
            let every = config.standings_every as usize;
            if every > 0 && finished % every == 0 && progress != Progress::Quiet {
                report_standings(progress, finished, self.total, &standings);
            }
            if let Some(s) = &standings.sprt {
                if s.verdict.is_decided() && !stopped_early {
                    stopped_early = true;
                    if progress != Progress::Quiet {
                        eprintln!(
                            "SPRT {} vs {}: {} accepted (LLR {:.2}); finishing the games in progress",
                            s.first, s.second, s.verdict, s.llr
                        );
                    }
                }
            }
        }
        Ok(())
    }
}

/// The schedule indexes of `records`' games.
fn recorded(records: &[GameRecord]) -> BTreeSet<u64> {
    records
        .iter()
        .filter_map(|r| r.tournament.as_ref().map(|t| t.index))
        .collect()
}

/// Whether the SPRT (when the event has one) has decided over `records`: nothing more is played.
fn sprt_decided(records: &[GameRecord], config: &TournamentConfig) -> bool {
    stats::standings(records, &config.engine_names(), config.sprt.as_ref())
        .sprt
        .is_some_and(|s| s.verdict.is_decided())
}

/// What the event's pages show of it (`GET /api/event`, protocol/WEB.md).
fn event_json(
    finished: usize,
    total: usize,
    elapsed_s: f64,
    eta_s: Option<f64>,
    standings: &Standings,
    commitment: &str,
    revealed: Option<&str>,
) -> String {
    serde_json::json!({
        "finished": finished,
        "total": total,
        "elapsed_s": elapsed_s,
        "eta_s": eta_s,
        "commitment": commitment,
        "master_seed": revealed,
        "standings": standings,
        "text": super::report::text(standings),
    })
    .to_string()
}

/// The standings so far, on stderr (`standings_every`).
fn report_standings(mode: Progress, finished: usize, total: usize, standings: &Standings) {
    match mode {
        Progress::Quiet => {}
        Progress::Text => eprint!(
            "--- after {finished} of {total} games\n{}---\n",
            super::report::text(standings)
        ),
        Progress::Json => eprintln!(
            "{}",
            serde_json::json!({ "finished": finished, "total": total, "standings": standings })
        ),
    }
}

/// Reads the games already in the output file, after cutting off a last line left half-written
/// by a crash; checks they belong to this schedule.
fn resume_point(
    output: &Path,
    config: &TournamentConfig,
    seed: &MasterSeed,
    games: &[ScheduledGame],
) -> Result<Vec<GameRecord>, TournamentError> {
    let Ok(bytes) = std::fs::read(output) else {
        return Ok(Vec::new());
    };
    if let Some(last_newline) = bytes.iter().rposition(|&b| b == b'\n') {
        if last_newline + 1 != bytes.len() {
            truncate(output, last_newline as u64 + 1)?;
        }
    } else if !bytes.is_empty() {
        truncate(output, 0)?;
    }
    let mut done = Vec::new();
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
        let Some(tag) = &r.tournament else {
            return Err(TournamentError::Records(format!(
                "{}:{line}: a game from outside a tournament",
                output.display()
            )));
        };
        let Some(g) = games.iter().find(|g| g.index == tag.index) else {
            let beyond = games.iter().all(|g| g.index < tag.index);
            return Err(TournamentError::Records(format!(
                "{}:{line}: game {} is not in this schedule of {} games ({} deals per pairing{}): {}",
                output.display(),
                tag.index,
                games.len(),
                config.deals,
                if config.cycles > 1 { format!(", {} cycles", config.cycles) } else { String::new() },
                if beyond {
                    "the file holds more games than this configuration schedules; were `deals` (or --deals, or `cycles`) lowered? Resume with the same numbers, or more"
                } else {
                    "another event's file, or another shard's?"
                }
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
        // Committed to this event's seed, and dealt from it as its deal number says.
        if let Err(e) = seeds::check_deal(&r, seed) {
            let hint = if tag.commitment.is_none() {
                ": finish that event with the anqi that started it, or start a new one (another output)"
            } else {
                ": this run deals from another master seed (seed, --seed, seed_file, --seed-file)"
            };
            return Err(TournamentError::Records(format!(
                "{}:{line}: {e}{hint}",
                output.display()
            )));
        }
        done.push(r);
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

/// A played game: its record, with what the runner knows of its seats besides.
struct Played {
    record: GameRecord,
    /// Engine (index into the config's engines) in each seat.
    seats: Vec<usize>,
    /// Per seat: why its player never connected (`no-connect`), `None` when it did.
    absent: Vec<Option<String>>,
    /// Per seat: where its engine's output went.
    logs: Vec<Log>,
}

/// What became of a started engine by the time its game ended.
struct SeatEnd {
    /// It exited before the game did: its status (`None`: unknown).
    early: Option<Option<ExitStatus>>,
    /// How it ended: exited by itself with this status, or `None` when it had to be killed.
    status: Option<ExitStatus>,
}

/// Plays one scheduled game: orders it, starts the engines, waits for the record, stops the
/// engines, and tells a crash from a disconnect and from a player who never came.
async fn play(
    config: &TournamentConfig,
    master: &MasterSeed,
    desk: &anqi_server::OrderDesk,
    addr: std::net::SocketAddr,
    game: ScheduledGame,
    clocks: &[EngineClock],
) -> Result<Played, TournamentError> {
    // A fresh secret per seat and game: a fixed master seed is public (in the tournament
    // file), and a revealed one after the event, so nothing derived from it may seat anyone.
    // External engines bring their own.
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
            server: master.deal_seed(game.deal),
        }),
        clocks: game
            .seats
            .iter()
            .map(|&e| clocks[e].clock.clone())
            .collect(),
        max_plies: Some(config.max_plies),
        ..Default::default()
    };
    let game_no = game.index + 1;
    let record_rx = desk.order(GameOrder {
        game_no,
        tokens: tokens.clone(),
        connect_timeout: Duration::from_millis(config.connect_timeout_ms),
        spec,
    })?;
    let host = addr.ip().to_string();
    // Cancelled when the game is over, or when this task is dropped (the event stops).
    let over = CancellationToken::new();
    let _over_on_drop = over.clone().drop_guard();
    let mut ends = Vec::new();
    let mut start_failures: Vec<Option<String>> = Vec::new();
    let mut logs = Vec::new();
    // Where each seat's bridge says why it gave the game up, if it did.
    let mut reports: Vec<Option<PathBuf>> = Vec::new();
    for (s, &e) in game.seats.iter().enumerate() {
        let engine = &config.engines[e];
        start_failures.push(None);
        if engine.command.is_none() {
            // An external engine: its output is its operator's.
            logs.push(Log::Off);
            ends.push(None);
            reports.push(None);
            continue;
        }
        let log = log_for(config, &game, s + 1, &engine.name);
        logs.push(log.clone());
        let values = Placeholders {
            host: &host,
            port: addr.port(),
            token: &tokens[s],
            seed: master.engine_seed(game.index, s + 1),
            name: &engine.name,
            game: game.index,
            seat: s + 1,
        };
        let report = engine
            .protocol
            .is_bridged()
            .then(|| report_path(&game, s + 1));
        if let Some(path) = &report {
            let _ = std::fs::remove_file(path);
        }
        reports.push(report.clone());
        match Engine::start(
            engine,
            &values,
            &log,
            config.engine_log_bytes,
            report.as_deref(),
        ) {
            Ok(p) => ends.push(Some(tokio::spawn(watch(
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
                start_failures[s] = Some(format!("could not be started ({e})"));
                ends.push(None);
            }
        }
    }
    let mut record = record_rx
        .await
        .map_err(|_| TournamentError::Server("the server dropped a game".into()))?;
    // Engines exit by themselves after (win ...); stragglers are killed after a grace period.
    over.cancel();
    let mut seat_ends = Vec::new();
    for end in ends {
        seat_ends.push(match end {
            Some(handle) => handle.await.ok(),
            None => None,
        });
    }
    for (s, end) in seat_ends.iter().enumerate() {
        if let Some(status) = end.as_ref().and_then(|e| e.status) {
            logs[s].note(&format!("the engine ended: {status}"));
        }
    }
    // Exited by itself with a failure: a crash (killed by us is not).
    let crashed: Vec<bool> = seat_ends
        .iter()
        .map(|e| {
            e.as_ref()
                .and_then(|e| e.status)
                .is_some_and(|st| !st.success())
        })
        .collect();
    // A disconnect by a program that died abnormally is a crash.
    if record.result.reason == Termination::Disconnect {
        if let Some(loser) = record.result.loser {
            if crashed.get(loser - 1).copied().unwrap_or(false) {
                record.result.reason = Termination::Crash;
            }
        }
    }
    // Why a bridge gave its engine's game up (it resigned for an answer that is no move, or
    // left when the engine died): in the record, where the loss is.
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
            record.faults.push(anqi_core::record::FaultRecord {
                ply: record.plies.len() as u32 + 1,
                player: s + 1,
                code: "engine".into(),
                text: reason.trim().to_string(),
            });
        }
    }
    let absent = (0..game.seats.len())
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
                    Some(Some(status)) => format!("exited ({status}) before it connected"),
                    Some(None) => "exited before it connected".into(),
                    None => format!(
                        "did not connect and send (init NAME TOKEN) within connect_timeout_ms = {} (check that it connects to {{addr}} and sends the token it finds in {}; raise connect_timeout_ms if it is slow to start)",
                        config.connect_timeout_ms,
                        super::engine::TOKEN_ENV
                    ),
                }
            })
        })
        .collect();
    record.tournament = Some(TournamentTag {
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
        commitment: Some(master.commitment()),
    });
    Ok(Played {
        record,
        seats: game.seats,
        absent,
        logs,
    })
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
    desk: anqi_server::OrderDesk,
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

#[allow(clippy::too_many_arguments)]
fn report_progress(
    mode: Progress,
    joiner: &str,
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
    // The leader: by score (points per game: engines may have played different numbers of
    // games so far), or in a one-side event by success rate.
    let best = standings
        .engines
        .iter()
        .filter(|e| e.games > 0)
        .max_by(|a, b| {
            a.score
                .total_cmp(&b.score)
                .then(a.points.total_cmp(&b.points))
        });
    let leader: Option<(&str, String)> = match best {
        Some(l) => Some((
            &l.name,
            format!("{:.0}% ({}/{})", 100.0 * l.score, l.points, l.games),
        )),
        None => standings
            .one_side
            .first()
            .and_then(|g| g.engines.first())
            .map(|l| {
                (
                    l.name.as_str(),
                    format!("{}/{} successes", l.successes, l.games),
                )
            }),
    };
    match mode {
        Progress::Quiet => {}
        Progress::Text => eprintln!(
            "[{finished}/{total}] game {}: {}: {} {} after {} plies | {:.1} games/s, ETA {:.0}s | leader {} {}",
            tag.index,
            tag.engines.join(joiner),
            record.result.win,
            record.result.reason.name(),
            record.result.plies,
            rate,
            eta,
            leader.as_ref().map_or("-", |l| l.0),
            leader.as_ref().map_or("0/0", |l| l.1.as_str()),
        ),
        Progress::Json => eprintln!(
            "{}",
            serde_json::json!({
                "finished": finished, "total": total, "game": tag.index, "engines": tag.engines,
                "win": record.result.win, "reason": record.result.reason.name(),
                "plies": record.result.plies, "games_per_second": rate, "eta_seconds": eta,
                "leader": leader.map(|l| l.0),
            })
        ),
    }
}
