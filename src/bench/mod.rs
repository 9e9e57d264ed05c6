//! `anqi bench`: every figure of the performance targets (issue 10), each beside a floor
//! measured in the same run, one line per figure.
//!
//! - `figure`: a figure, its floor and target, as a text line and as JSON.
//! - `rules_core`: R1, random playouts in this process against pyspiel's.
//! - `script`: games computed in advance, which the clients replay.
//! - `client`: the load generator and replaying client (`anqi bench-client`, a child process).
//! - `echo`: the raw tokio echo server of the floors (`anqi bench-echo`, a child process).
//! - `pages`: S6's load on the web pages (`anqi bench-client --mode pages`), its visitor, and
//!   the page's weight on the wire.
//! - `scrape`: S7, S2's games with the metrics on and scraped, beside none.
//! - `child`: starting, reading and killing those processes, and their memory.
//! - this file: the options and the run, figure by figure, each with fresh processes.

mod child;
pub mod client;
pub mod echo;
mod figure;
mod pages;
mod rules_core;
mod scrape;
mod script;

use anyhow::{Context, Result};
use child::Child;
use client::{LatencyReport, LoadReport};
use figure::{Figure, Target};
use serde::Serialize;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// The figures `--only` picks from.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// The rules core's random playouts.
    R1,
    /// Time per ply of one game.
    S1,
    /// Plies per second of many games at once.
    S2,
    /// Memory per idle connection and per running game.
    S3,
    /// Clock accuracy and time losses under many games at once.
    S4,
    /// Observers: time per ply with many pages watching the game, and their delay.
    S5,
    /// The pages under load (pollers, slow requests, a crowd) beside many games at once.
    S6,
    /// What the metrics cost: S2 with /metrics scraped every second, beside none.
    S7,
}

/// Measure the performance figures (R1 S1 S2 S3 S4 S5 S6 S7), each beside a floor taken in the
/// same run, and print one line per figure:
/// `NAME: VALUE UNIT; floor: VALUE UNIT; ratio: R; target: ... (met|not met)`.
///
/// R1: random playouts of the rules core on `openspiel`, one thread, in plies/s; floor:
/// OpenSpiel's banqi from Python for the same time, the two in turns (when `python3` can
/// import pyspiel: `pip install open_spiel`).
/// S1 p50/p99: time per ply of one game, from sending the action to having every player's
/// next message, for a client in a process of its own replaying games computed in
/// advance; floor: ping-pongs of the same bytes with a raw tokio echo server (TCP_NODELAY,
/// like the server), from the same client process, ply by ply in turn.
/// S1 cpu: the server's processor time per ply over S1 (user and system, from /proc),
/// beside the echo server's per ping-pong: steadier than wall time on a shared or
/// virtual machine, where waking an idle processor can take longer than the ply.
/// S2: plies/s of many games at once from a load generator process; floor: the same plies
/// as ping-pongs on as many connections with the echo server.
/// S3 idle / S3 game: the server's resident memory (VmRSS) per idle connection (greeted,
/// no handshake) and per running game (both players seated, nobody moving, no clock);
/// floor: the echo server's per idle connection (two for a game).
/// S4 p99 / S4 time losses: under many games at once, clients think a random 0 to
/// --s4-think-ms ms and compare the time they measured with the time the server charged
/// (the `clock` extension, in whole milliseconds); the p99 of the difference, and the
/// games lost on time (a per-ply limit far above the think time makes every one
/// spurious). The JSON's details also give the mean of charged minus measured.
/// S5 ply / S5 delay: with the web pages on (`--http`), S1's games replayed one at a time
/// while --s5-observers live feeds watch each (protocol/WEB.md): the median time per ply
/// beside the same games with nobody watching (played before and after, on the same server);
/// and the p99 delay from a ply (its position's `at_unix_ms`) to its arrival at an
/// observer, in ms (the time is in whole ms: up to 1 ms too high).
/// S6 LOAD pace / p99 / visitor / memory: with the web pages on and their default limits,
/// --s6-games games, --s6-concurrency at once, played beside each load on the pages in turn
/// (`polling`: 64 keep-alive connections from 2 addresses asking for a finished game's events
/// again and again; `slowloris`: 1,100 connections from 37 addresses each sending a request's
/// header a line a second, opened again when closed; `crowd`: 1,000 live feeds from 40
/// addresses, each watching a running game for 2 to 3 s, then another), the load generator at
/// the lowest priority: the games' plies/s and p99 time per ply beside the same games with
/// nothing on the pages (before and after); the share of a fresh visitor's requests (a new
/// connection every 100 ms) answered 200 within 2 s; and the server's memory per connection
/// of the load (unfinished requests, open feeds).
/// S7 / S7 cpu: S2's games on a server with its metrics on (`--metrics`) and /metrics scraped
/// every second, beside the same games on a server without them: plain, scraped, scraped,
/// plain, each on a fresh server; the plies/s (the two of each averaged), and the server's
/// processor time per ply (steadier on a shared machine).
///
/// The server, the echo server and the clients are this binary, run as child processes
/// on 127.0.0.1 and killed at the end; the server keeps no records, has no connection
/// caps, and deals from seeds the clients know. The connections fit under the hard descriptor
/// limit (S3's sizes are lowered to fit, with a note). Progress goes to stderr. Speed is
/// not asserted: the status is 0 when the run completed. Measure a release build.
/// BENCHMARKS.md holds the figures, the profiles behind them and how to compare builds.
///
/// Examples:
///
///   cargo run --release -- bench
///
///   anqi bench --quick --json
///
///   anqi bench --only S1,S3 --s3-connections 5000
///
///   anqi bench --only S1,S2 --server /tmp/anqi-old   # another build as the server
//
// The doc comment above is `anqi bench --help`. Sizes left out take the full run's defaults,
// or the quick run's with `--quick`.
#[derive(clap::Args, Debug, Clone)]
#[command(verbatim_doc_comment)]
pub struct BenchArgs {
    /// Finish in under a minute: fewer games and connections, the same code paths.
    #[arg(long)]
    pub quick: bool,
    /// Print one JSON object (figures and run parameters) instead of lines.
    #[arg(long)]
    pub json: bool,
    /// Run only these figures.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        ignore_case = true,
        value_name = "R1,S1,..."
    )]
    pub only: Vec<Part>,
    /// The server's variant for S1-S4 (R1 always plays `openspiel`).
    #[arg(long, default_value = "traditional", value_name = "NAME|FILE")]
    pub variant: String,
    /// Seed of the replayed games (their deals and actions).
    #[arg(long, default_value = "bench")]
    pub seed: String,
    /// R1: seconds of playouts (and as many of pyspiel's) [full 3, quick 1].
    #[arg(long, value_name = "S")]
    pub r1_seconds: Option<f64>,
    /// S1: games played one at a time [full 30, quick 4].
    #[arg(long, value_name = "N")]
    pub s1_games: Option<u64>,
    /// S2: games in all [full 2000, quick 200].
    #[arg(long, value_name = "N")]
    pub s2_games: Option<u64>,
    /// S2: games at once [full 1000, quick 100].
    #[arg(long, value_name = "N")]
    pub s2_concurrency: Option<usize>,
    /// S3: idle connections [full 10000, quick 1000], fitted under the descriptor limit.
    #[arg(long, value_name = "N")]
    pub s3_connections: Option<usize>,
    /// S3: running games, two connections each [full 9000, quick 500], fitted under the
    /// descriptor limit.
    #[arg(long, value_name = "N")]
    pub s3_games: Option<u64>,
    /// S4: games in all [full 1000, quick 100]; the target speaks of 100000.
    #[arg(long, value_name = "N")]
    pub s4_games: Option<u64>,
    /// S4: games at once [full 1000, quick 100].
    #[arg(long, value_name = "N")]
    pub s4_concurrency: Option<usize>,
    /// S4: clients think a random 0 to MS milliseconds before each action [full 100, quick
    /// 20]. The games must ask for fewer plies per second than the machine serves (1,000 games
    /// thinking 50 ms on average ask for 20,000): past that, the figure measures how late an
    /// overloaded client reads its prompts, not the clock.
    #[arg(long, value_name = "MS")]
    pub s4_think_ms: Option<u64>,
    /// S4: the server's limit per ply (`move_ms`), far above any think time, so that every
    /// loss on time is spurious; each player also has an hour of game time.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    pub s4_move_ms: u64,
    /// S5: games watched (and as many unwatched, before and after) [full 20, quick 4].
    #[arg(long, value_name = "N")]
    pub s5_games: Option<u64>,
    /// S5: live feeds watching each game.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub s5_observers: usize,
    /// S6: games played beside each load [full 800, quick 50].
    #[arg(long, value_name = "N")]
    pub s6_games: Option<u64>,
    /// S6: games at once.
    #[arg(long, value_name = "N", default_value_t = 50)]
    pub s6_concurrency: usize,
    /// S1-S4: run this program as the server instead of this binary (another build of anqi,
    /// to compare two builds against the same clients and floors: run once with each). It is
    /// killed at the end of each figure; a wrapper script must `exec` the server, or the
    /// server outlives it.
    #[arg(long, value_name = "PROGRAM")]
    pub server: Option<std::path::PathBuf>,
}

/// The sizes of a run, after the defaults and the descriptor limit.
#[derive(Clone, Debug, Serialize)]
struct Sizes {
    quick: bool,
    variant: String,
    seed: String,
    cores: usize,
    r1_seconds: f64,
    s1_games: u64,
    s2_games: u64,
    s2_concurrency: usize,
    s3_connections: usize,
    s3_games: u64,
    s4_games: u64,
    s4_concurrency: usize,
    s4_think_ms: u64,
    s4_move_ms: u64,
    s5_games: u64,
    s5_observers: usize,
    s6_games: u64,
    s6_concurrency: usize,
}

impl Sizes {
    fn of(args: &BenchArgs) -> Sizes {
        let mut sizes = Sizes {
            quick: args.quick,
            variant: args.variant.clone(),
            seed: args.seed.clone(),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            r1_seconds: args.r1_seconds.unwrap_or(pick(args.quick, 3.0, 1.0)),
            s1_games: args.s1_games.unwrap_or(pick(args.quick, 30, 4)),
            s2_games: args.s2_games.unwrap_or(pick(args.quick, 2000, 200)),
            s2_concurrency: args.s2_concurrency.unwrap_or(pick(args.quick, 1000, 100)),
            s3_connections: args
                .s3_connections
                .unwrap_or(pick(args.quick, 10_000, 1000)),
            s3_games: args.s3_games.unwrap_or(pick(args.quick, 9000, 500)),
            s4_games: args.s4_games.unwrap_or(pick(args.quick, 1000, 100)),
            s4_concurrency: args.s4_concurrency.unwrap_or(pick(args.quick, 1000, 100)),
            s4_think_ms: args.s4_think_ms.unwrap_or(pick(args.quick, 100, 20)),
            s4_move_ms: args.s4_move_ms,
            s5_games: args.s5_games.unwrap_or(pick(args.quick, 20, 4)),
            s5_observers: args.s5_observers,
            s6_games: args.s6_games.unwrap_or(pick(args.quick, 800, 50)),
            s6_concurrency: args.s6_concurrency,
        };
        if let Some(fit) = connections_that_fit() {
            if sizes.s3_connections > fit {
                eprintln!("S3: {fit} idle connections, not {}: the descriptor limit allows no more to the server", sizes.s3_connections);
                sizes.s3_connections = fit;
            }
            let games = (fit / 2) as u64;
            if sizes.s3_games > games {
                eprintln!("S3: {games} running games, not {}: the descriptor limit allows no more to the server", sizes.s3_games);
                sizes.s3_games = games;
            }
        }
        sizes
    }
}

/// The full run's size, or the quick run's.
fn pick<T>(quick: bool, full: T, quick_size: T) -> T {
    if quick {
        quick_size
    } else {
        full
    }
}

/// How many connections a server may hold under the hard descriptor limit: the limit less the
/// server's reserve (`server::limits`: 64 and a sixteenth) and a margin. `None` where unknown.
fn connections_that_fit() -> Option<usize> {
    let (_, hard) = anqi_server::sys::descriptor_limits()?;
    let hard = usize::try_from(hard?).ok()?;
    Some(hard.saturating_sub(64 + hard / 16 + 64))
}

/// One run: the sizes, the figures so far and what the clients reported beside them.
struct Run {
    sizes: Sizes,
    /// The server program (`--server`); `None`: this binary.
    server: Option<std::path::PathBuf>,
    figures: Vec<Figure>,
    details: serde_json::Map<String, serde_json::Value>,
}

/// Runs the figures asked for and prints them. Speed is reported, never asserted: the status
/// is 0 whenever the run completed.
///
/// # Errors
/// When a process cannot be started or fails.
pub fn run(args: &BenchArgs) -> Result<ExitCode> {
    let mut run = Run {
        sizes: Sizes::of(args),
        server: args.server.clone(),
        figures: Vec::new(),
        details: serde_json::Map::new(),
    };
    let started = Instant::now();
    for part in [
        Part::R1,
        Part::S1,
        Part::S2,
        Part::S3,
        Part::S4,
        Part::S5,
        Part::S6,
        Part::S7,
    ] {
        if !args.only.is_empty() && !args.only.contains(&part) {
            continue;
        }
        match part {
            Part::R1 => run.r1()?,
            Part::S1 => run.s1()?,
            Part::S2 => run.s2()?,
            Part::S3 => run.s3()?,
            Part::S4 => run.s4()?,
            Part::S5 => run.s5()?,
            Part::S6 => run.s6()?,
            Part::S7 => run.s7()?,
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    if args.json {
        let report = serde_json::json!({
            "figures": run.figures.iter().map(Figure::json).collect::<Vec<_>>(),
            "parameters": run.sizes,
            "details": run.details,
            "seconds": seconds,
        });
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        for f in &run.figures {
            println!("{}", f.line());
        }
    }
    eprintln!("anqi bench: done in {seconds:.1} s");
    if run.figures.iter().any(|f| f.met() == Some(false)) {
        // A verdict is only as good as the conditions it was measured under.
        eprintln!(
            "anqi bench: a target is not met{}. The targets hold for a full run (without --quick) on a machine doing nothing else (BENCHMARKS.md, How to measure): a loaded or quick run measures noise and smaller sizes, so run again that way before reading a verdict.",
            if args.quick { " in a --quick run" } else { "" }
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Time for a server's memory to settle after its clients are all in.
const SETTLE: Duration = Duration::from_millis(300);

impl Run {
    /// Starts `anqi serve` for `part` with the bench's configuration and `clock` as its
    /// `[clock]` section. The configuration file is removed once the server has read it (it
    /// listens only after), so that nothing is left behind however the run ends.
    fn server(&self, part: &str, clock: &str) -> Result<(Child, String)> {
        self.server_with(part, clock, &[])
    }

    /// As [`Run::server`], with `extra` arguments to `anqi serve`.
    fn server_with(&self, part: &str, clock: &str, extra: &[&str]) -> Result<(Child, String)> {
        self.server_configured(part, &server_config(clock), extra)
    }

    /// As [`Run::server_with`], with the configuration `config`.
    fn server_configured(
        &self,
        part: &str,
        config_text: &str,
        extra: &[&str],
    ) -> Result<(Child, String)> {
        let config =
            std::env::temp_dir().join(format!("anqi-bench-{}-{part}.toml", std::process::id()));
        std::fs::write(&config, config_text)
            .with_context(|| format!("cannot write {}", config.display()))?;
        let mut args = [
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--config",
            &config.to_string_lossy(),
            "--variant",
            &self.sizes.variant,
            "--records",
            "",
        ]
        .map(String::from)
        .to_vec();
        args.extend(extra.iter().map(|a| a.to_string()));
        let started = Child::listening(self.server.as_deref(), "server", &args);
        let _ = std::fs::remove_file(&config);
        started
    }

    fn echo() -> Result<(Child, String)> {
        let args = ["bench-echo", "--listen", "127.0.0.1:0"].map(String::from);
        Child::listening(None, "echo server", &args)
    }

    /// Starts `anqi bench-client` in `mode` against `addr`, with `extra` options.
    fn client(&self, label: &str, mode: &str, addr: &str, extra: &[String]) -> Result<Child> {
        let mut args: Vec<String> = [
            "bench-client",
            "--mode",
            mode,
            "--addr",
            addr,
            "--variant",
            &self.sizes.variant,
            "--seed",
            &self.sizes.seed,
            "--label",
            label,
        ]
        .map(String::from)
        .to_vec();
        args.extend_from_slice(extra);
        Child::start(&format!("{label} client"), &args, false)
    }

    /// Runs a client to its end and reads its one JSON line.
    fn report<T: serde::de::DeserializeOwned>(client: Child) -> Result<T> {
        let out = client.finish()?;
        let line = out.lines().last().unwrap_or_default();
        serde_json::from_str(line).with_context(|| format!("a bench client printed {line:?}"))
    }

    fn detail(&mut self, key: &str, value: impl Serialize) -> Result<()> {
        self.details
            .insert(key.to_string(), serde_json::to_value(value)?);
        Ok(())
    }

    fn r1(&mut self) -> Result<()> {
        let seconds = self.sizes.r1_seconds;
        eprintln!(
            "R1: {seconds} s of playouts on {}, and as many of pyspiel's in turns if it is installed...",
            rules_core::VARIANT
        );
        let (anqi, floor) = rules_core::measure(seconds)?;
        self.figures.push(
            Figure::new("R1", anqi.round(), "plies/s")
                .floor(floor.map(f64::round), "plies/s")
                .target(Target::AtLeastAndRatio {
                    value: 10e6,
                    ratio: 25.0,
                }),
        );
        Ok(())
    }

    fn s1(&mut self) -> Result<()> {
        eprintln!(
            "S1: {} games one at a time, each beside its ping-pongs...",
            self.sizes.s1_games
        );
        let (server, addr) = self.server("S1", "game_ms = 0\n")?;
        let (echo, echo_addr) = Run::echo()?;
        let cpu_before = (server.cpu_seconds()?, echo.cpu_seconds()?);
        let client = self.client(
            "S1",
            "latency",
            &addr,
            &[
                "--echo-addr".into(),
                echo_addr,
                "--games".into(),
                self.sizes.s1_games.to_string(),
            ],
        )?;
        let r: LatencyReport = Run::report(client)?;
        // Wall time per ply swings with how the machine wakes idle processes; the processor
        // time the server spent per ply beside the echo server's per ping-pong does not.
        let per_ply = |now: f64, before: f64| (now - before) * 1e6 / r.plies.max(1) as f64;
        let server_cpu = per_ply(server.cpu_seconds()?, cpu_before.0);
        let echo_cpu = per_ply(echo.cpu_seconds()?, cpu_before.1);
        self.figures.push(
            Figure::new("S1 p50", r.server_p50_us, "us")
                .floor(Some(r.echo_p50_us), "us")
                .target(Target::RatioAtMost { ratio: 1.3 }),
        );
        self.figures.push(
            Figure::new("S1 p99", r.server_p99_us, "us")
                .floor(Some(r.echo_p99_us), "us")
                .target(Target::RatioAtMost { ratio: 2.0 }),
        );
        self.figures.push(
            // A run too short for the kernel's tick has no floor to compare with.
            Figure::new("S1 cpu", server_cpu, "us/ply")
                .floor(Some(echo_cpu).filter(|&e| e > 0.0), "us/ping-pong"),
        );
        self.detail("S1", r)
    }

    fn s2(&mut self) -> Result<()> {
        eprintln!(
            "S2: {} games, {} at once, then as many ping-pongs...",
            self.sizes.s2_games, self.sizes.s2_concurrency
        );
        let extra = [
            "--games".to_string(),
            self.sizes.s2_games.to_string(),
            "--concurrency".to_string(),
            self.sizes.s2_concurrency.to_string(),
        ];
        let served: LoadReport = {
            let (_server, addr) = self.server("S2", "game_ms = 0\n")?;
            Run::report(self.client("S2", "load", &addr, &extra)?)?
        };
        let echoed: LoadReport = {
            let (_echo, addr) = Run::echo()?;
            let mut extra = extra.to_vec();
            extra.push("--echo".into());
            Run::report(self.client("S2 floor", "load", &addr, &extra)?)?
        };
        let rate = |r: &LoadReport| (r.plies as f64 / r.seconds).round();
        self.figures.push(
            Figure::new("S2", rate(&served), "plies/s")
                .floor(Some(rate(&echoed)), "plies/s")
                .target(Target::AtLeast { value: 60e3 }),
        );
        self.detail("S2", &served)?;
        self.detail("S2 floor", &echoed)
    }

    /// Resident memory per connection (or game) that the client `start` starts adds to
    /// `server`, in KiB, once it says it holds `count` of them.
    fn memory_per(
        server: &Child,
        start: impl FnOnce() -> Result<Child>,
        count: u64,
    ) -> Result<f64> {
        std::thread::sleep(SETTLE);
        let before = server.rss_kib()?;
        let mut client = start()?;
        client.line()?; // "ready N"
        std::thread::sleep(SETTLE);
        let after = server.rss_kib()?;
        client.finish()?;
        Ok(after.saturating_sub(before) as f64 / count.max(1) as f64)
    }

    fn s3(&mut self) -> Result<()> {
        let connections = self.sizes.s3_connections;
        let games = self.sizes.s3_games;
        eprintln!("S3: {connections} idle connections to the server and to the echo server, then {games} games...");
        let idle = ["--connections".to_string(), connections.to_string()];
        let server_idle = {
            let (server, addr) = self.server("S3-idle", "game_ms = 0\n")?;
            let start = || self.client("S3 idle", "idle", &addr, &idle);
            Run::memory_per(&server, start, connections as u64)?
        };
        let echo_idle = {
            let (echo, addr) = Run::echo()?;
            let mut extra = idle.to_vec();
            extra.push("--echo".into());
            let start = || self.client("S3 floor", "idle", &addr, &extra);
            Run::memory_per(&echo, start, connections as u64)?
        };
        let server_game = {
            let (server, addr) = self.server("S3-games", "game_ms = 0\n")?;
            let extra = ["--games".to_string(), games.to_string()];
            let start = || self.client("S3 games", "seated", &addr, &extra);
            Run::memory_per(&server, start, games)?
        };
        self.figures.push(
            Figure::new("S3 idle", server_idle, "KiB/connection")
                .floor(Some(echo_idle), "KiB/connection")
                .target(Target::AtMost { value: 12.0 }),
        );
        // A game holds two connections: the floor is two idle echo connections.
        self.figures.push(
            Figure::new("S3 game", server_game, "KiB/game")
                .floor(Some(2.0 * echo_idle), "KiB/game")
                .target(Target::AtMost { value: 16.0 }),
        );
        self.detail(
            "S3",
            serde_json::json!({ "connections": connections, "games": games }),
        )
    }

    fn s4(&mut self) -> Result<()> {
        eprintln!(
            "S4: {} games, {} at once, thinking 0 to {} ms...",
            self.sizes.s4_games, self.sizes.s4_concurrency, self.sizes.s4_think_ms
        );
        let clock = format!("game_ms = 3600000\nmove_ms = {}\n", self.sizes.s4_move_ms);
        let (_server, addr) = self.server("S4", &clock)?;
        let client = self.client(
            "S4",
            "load",
            &addr,
            &[
                "--games".into(),
                self.sizes.s4_games.to_string(),
                "--concurrency".into(),
                self.sizes.s4_concurrency.to_string(),
                "--think-ms".into(),
                self.sizes.s4_think_ms.to_string(),
            ],
        )?;
        let r: LoadReport = Run::report(client)?;
        self.figures.push(
            Figure::new("S4 p99", r.clock_error_p99_ms.unwrap_or(0.0), "ms")
                .target(Target::AtMost { value: 1.0 }),
        );
        self.figures.push(
            Figure::new("S4 time losses", r.time_losses as f64, "games")
                .target(Target::AtMost { value: 0.0 }),
        );
        self.detail("S4", r)
    }
}

impl Run {
    fn s5(&mut self) -> Result<()> {
        let (games, observers) = (self.sizes.s5_games, self.sizes.s5_observers);
        eprintln!(
            "S5: {games} games unwatched, the same {games} with {observers} observers each, then unwatched again..."
        );
        let (mut server, addr) =
            self.server_with("S5", "game_ms = 0\n", &["--http", "127.0.0.1:0"])?;
        let web = loop {
            let line = server.line()?;
            if let Some(web) = line.trim().strip_prefix("web on http://") {
                break web.trim_end_matches('/').to_string();
            }
        };
        let (_echo, echo_addr) = Run::echo()?;
        let latency = |label: &str, watch: &[String]| -> Result<LatencyReport> {
            let mut extra = vec![
                "--echo-addr".to_string(),
                echo_addr.clone(),
                "--games".into(),
                games.to_string(),
            ];
            extra.extend_from_slice(watch);
            Run::report(self.client(label, "latency", &addr, &extra)?)
        };
        // The server numbers games from 1: the watched ones are games+1 ..= 2*games.
        let before = latency("S5 unwatched", &[])?;
        let watched = latency(
            "S5 watched",
            &[
                "--watch".into(),
                web,
                "--connections".into(),
                observers.to_string(),
                "--first-game".into(),
                (games + 1).to_string(),
            ],
        )?;
        let after = latency("S5 unwatched again", &[])?;
        let seen = watched
            .watched
            .clone()
            .context("the watched run reports its feeds")?;
        let unwatched = (before.server_p50_us + after.server_p50_us) / 2.0;
        self.figures.push(
            Figure::new("S5 ply", watched.server_p50_us, "us")
                .floor(Some(unwatched), "us unwatched")
                .target(Target::RatioAtMost { ratio: 1.1 }),
        );
        self.figures
            .push(Figure::new("S5 delay p99", seen.delay_p99_ms, "ms"));
        self.detail("S5 unwatched", &before)?;
        self.detail("S5 watched", &watched)?;
        self.detail("S5 unwatched again", &after)?;
        self.detail("S5 observers", &seen)
    }

    /// Starts a server for S6, with the pages on and their limits as shipped (the figure is
    /// what a default server withstands): the server, its address and the pages' address.
    fn s6_server(&self) -> Result<(Child, String, String)> {
        let config = server_config_http("game_ms = 0\n", "");
        let (mut server, addr) =
            self.server_configured("S6", &config, &["--http", "127.0.0.1:0"])?;
        let web = loop {
            let line = server.line()?;
            if let Some(web) = line.trim().strip_prefix("web on http://") {
                break web.trim_end_matches('/').to_string();
            }
        };
        Ok((server, addr, web))
    }

    /// Plays `games` games, S6's at once, on the server at `addr`, each ply timed.
    fn s6_games(&self, label: &str, addr: &str, games: u64) -> Result<LoadReport> {
        let extra = [
            "--games".to_string(),
            games.to_string(),
            "--concurrency".to_string(),
            self.sizes.s6_concurrency.to_string(),
            "--ply-times".to_string(),
        ];
        Run::report(self.client(label, "load", addr, &extra)?)
    }

    fn s6(&mut self) -> Result<()> {
        let games = self.sizes.s6_games;
        let quick = self.sizes.quick;
        eprintln!(
            "S6: {games} games, {} at once, with nothing on the pages, then beside pollers, slow requests and a crowd of live feeds in turn (a fresh server each), then with nothing again...",
            self.sizes.s6_concurrency
        );
        let (before, weight) = {
            let (_server, addr, web) = self.s6_server()?;
            let played = self.s6_games("S6 unwatched", &addr, games)?;
            (played, pages::weigh(&web)?)
        };
        eprintln!("{}", weight.describe());
        self.detail("S6 page weight", &weight)?;
        let loads = [
            ("polling", pick(quick, 64, 16), 2),
            ("slowloris", pick(quick, 1100, 200), pick(quick, 37, 8)),
            ("crowd", pick(quick, 1000, 100), pick(quick, 40, 4)),
        ];
        let mut beside = Vec::new();
        for (load, connections, addresses) in loads {
            beside.push(self.s6_beside(load, connections, addresses, games)?);
        }
        let after = {
            let (_server, addr, _) = self.s6_server()?;
            self.s6_games("S6 unwatched again", &addr, games)?
        };
        self.s6_figures(&before, &after, &beside)?;
        self.detail("S6 unwatched", &before)?;
        self.detail("S6 unwatched again", &after)
    }

    /// S6 beside one load on the pages (`polling`, `slowloris` or `crowd`: `connections` from
    /// `addresses` addresses), on a fresh server so that its memory figure is the load's
    /// alone: `games` games played while the load runs and a visitor browses the pages.
    fn s6_beside(
        &self,
        load: &'static str,
        connections: u32,
        addresses: u32,
        games: u64,
    ) -> Result<S6Beside> {
        let label = format!("S6 {load}");
        let (server, addr, web) = self.s6_server()?;
        // Pollers ask for a finished game: a few played first. A crowd needs running
        // games to watch before the figure's games start: some seated and held.
        let held = match load {
            "polling" => {
                self.s6_games("S6 warm-up", &addr, 5)?;
                None
            }
            "crowd" => {
                let extra = ["--games".to_string(), "10".to_string()];
                let mut held = self.client("S6 held", "seated", &addr, &extra)?;
                held.line()?;
                Some(held)
            }
            _ => None,
        };
        std::thread::sleep(SETTLE);
        let rss_before = server.rss_kib()?;
        let extra = [
            "--web".to_string(),
            web.clone(),
            "--pages".into(),
            load.into(),
            "--connections".into(),
            connections.to_string(),
            "--addresses".into(),
            addresses.to_string(),
            "--poll-game".into(),
            "1".into(),
        ];
        let mut pages = self.client(&label, "pages", &addr, &extra)?;
        let ready: u64 = pages
            .line()?
            .trim()
            .strip_prefix("ready ")
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        std::thread::sleep(SETTLE);
        let rss = server.rss_kib()?.saturating_sub(rss_before);
        let visitor = pages::Visitor::start(&web)?;
        let played = self.s6_games(&format!("S6 beside {load}"), &addr, games)?;
        let visited = visitor.finish()?;
        let seen: pages::PagesReport = Run::report(pages)?;
        if let Some(held) = held {
            held.finish()?;
        }
        // The pages hold at most max_connections (1,024) of the load's connections.
        let held_connections = ready.clamp(1, 1024);
        Ok((
            load,
            played,
            visited,
            seen,
            rss as f64 / held_connections as f64,
        ))
    }

    /// S6's figures and details for each load: the games' pace and p99 against the unwatched
    /// runs' (`before` and `after`), the visitor's share of pages served, and the memory per
    /// connection of the loads that hold connections open.
    fn s6_figures(
        &mut self,
        before: &LoadReport,
        after: &LoadReport,
        beside: &[S6Beside],
    ) -> Result<()> {
        let pace = |r: &LoadReport| r.plies as f64 / r.seconds.max(1e-9);
        let unwatched_pace = (pace(before) + pace(after)) / 2.0;
        let unwatched_p99 =
            (before.ply_p99_us.unwrap_or(0.0) + after.ply_p99_us.unwrap_or(0.0)) / 2.0;
        for (load, played, visited, seen, kib) in beside {
            self.figures.push(
                Figure::new(&format!("S6 {load} pace"), pace(played).round(), "plies/s")
                    .floor(Some(unwatched_pace.round()), "plies/s unwatched")
                    .target(Target::RatioAtLeast { ratio: 0.9 }),
            );
            self.figures.push(
                Figure::new(
                    &format!("S6 {load} p99"),
                    played.ply_p99_us.unwrap_or(0.0).round(),
                    "us",
                )
                .floor(Some(unwatched_p99.round()), "us unwatched")
                .target(Target::RatioAtMost { ratio: 2.0 }),
            );
            self.figures.push(
                Figure::new(&format!("S6 {load} visitor"), visited.percent_ok(), "% 200")
                    .target(Target::AtLeast { value: 95.0 }),
            );
            if *load != "polling" {
                self.figures.push(Figure::new(
                    &format!("S6 {load} memory"),
                    (kib * 10.0).round() / 10.0,
                    "KiB/connection",
                ));
            }
            self.detail(&format!("S6 beside {load}"), played)?;
            self.detail(&format!("S6 {load} visitor"), visited)?;
            self.detail(&format!("S6 {load} load"), seen)?;
        }
        Ok(())
    }
}

/// What S6 measured beside one load on the pages: its name, the games played beside it, the
/// visitor's requests, what the load's client saw, and the server's memory per connection the
/// load held (KiB).
type S6Beside = (
    &'static str,
    LoadReport,
    pages::Visited,
    pages::PagesReport,
    f64,
);

/// The bench server's configuration: no connection caps in the way, handshakes that wait,
/// deals the clients know in advance ([`script::SERVER_SEED`], client seeds mixed in), no
/// records, and pages that let S5's crowd in ([`CROWD_HTTP`]); `clock` is the `[clock]`
/// section's body.
fn server_config(clock: &str) -> String {
    server_config_http(clock, CROWD_HTTP)
}

/// The `[http]` body of the servers of S1 to S5 (only S5 turns the pages on): no cap on
/// connections, observers or requests. S5's live feeds all come from 127.0.0.1, a hundred a
/// game opened at once (a request each): under the shipped limits (32 connections and 100
/// requests a second per network) the pages would refuse them (429, 503), and S5 measures
/// what observers cost the games, not those limits (S6 does, with the defaults).
const CROWD_HTTP: &str = "max_connections = 1000000\n\
    max_connections_per_address = 0\n\
    max_observers_per_game = 100000\n\
    requests_per_s_per_connection = 1000000\n\
    requests_per_s_per_address = 1000000\n";

/// As [`server_config`], with `http` as the `[http]` section's body (S6: the defaults).
fn server_config_http(clock: &str, http: &str) -> String {
    format!(
        "[server]\nmax_connections = 1000000\nmax_connections_per_address = 0\n\
         handshake_timeout_ms = 3600000\n\
         [seed]\nserver = \"{}\"\nclients = true\n\
         [records]\npath = \"\"\n\
         [http]\n{http}\
         [clock]\n{clock}",
        script::SERVER_SEED
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_configuration_parses() {
        let c = anqi_server::config::Config::parse(&server_config("game_ms = 0\n")).unwrap();
        assert_eq!(
            c.seed.server,
            anqi_server::config::SeedSource::Fixed(script::SERVER_SEED.into())
        );
        assert!(c.seed.clients);
        assert_eq!(c.records.path, "");
        let c = anqi_server::config::Config::parse(&server_config("game_ms = 5\nmove_ms = 7\n"))
            .unwrap();
        assert_eq!(c.clock.move_ms, Some(7));
        // S5's pages hold every feed of its crowd, and answer every request.
        assert_eq!(c.http.max_connections_per_address, 0);
        assert!(c.http.max_connections >= 100_000);
        assert!(c.http.max_observers_per_game >= 100_000);
        assert!(c.http.requests_per_s_per_address >= 100_000);
        assert!(c.http.requests_per_s_per_connection >= 100_000);
        let c =
            anqi_server::config::Config::parse(&server_config_http("game_ms = 0\n", "")).unwrap();
        assert_eq!(c.http, anqi_server::config::Config::default().http);
    }
}
