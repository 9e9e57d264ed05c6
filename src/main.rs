//! anqi: the reference server for Chinese Dark Chess (暗棋, Banqi) and its variants, as one
//! program: `anqi serve`, `replay`, `variants`, `tournament`, `match`, `report`, `merge`,
//! `bridge`, `bench` and friends.
//!
//! # Layout
//!
//! The game and its bytes are `anqi-core` (`crates/anqi-core`), the server `anqi-server`
//! (`crates/anqi-server`); each opens with a map of its own. The program adds:
//!
//! - this file: the command line, a thin layer over the modules below.
//! - `tournament`: headless events on an in-process server: configuration (with
//!   `[tournament.each]` and the command line's overrides), time controls as strings
//!   (`time_control`), schedule, seat tokens, engine processes and their logs, the runner
//!   (resume, shards, SPRT, loud failures), standings and reports (success rates for one-side
//!   variants), and `anqi match` (`quick_match`).
//! - `bridge`: engines of other protocols (`tcg`, `uci-banqi`, `cdc-platform`) on anqi, one
//!   game per bridge: the anqi side (`session`, a client asking for every extension), line
//!   engines (`engine`), one translator per protocol with its coordinate map, what a protocol
//!   can play (`assess`) and the rule presets engines believe (`presets`).
//! - `variant_check`: the report of `anqi variant check`.
//! - `bench`: `anqi bench`, every performance figure beside its floor measured in the same
//!   run (the server, an echo server and the clients as separate processes of this binary).
//!
//! # Where to read next
//! `protocol/PROTOCOL.md` for the protocol as clients see it, `protocol/VARIANTS.md` for the
//! variant description format, `protocol/RECORDS.md` for the game records, `protocol/GAMES.md`
//! for a transcript of each kind of game, `TOURNAMENTS.md` for tournaments, and
//! `protocol/BRIDGES.md` for engines of other protocols.

// The command line's doc comments are its `--help` text, which names config sections as
// `[server]`: to rustdoc those read as links.
#![allow(rustdoc::broken_intra_doc_links)]

mod bench;
mod bridge;
mod tournament;
mod variant_check;

use crate::tournament::config::Overrides;
use crate::tournament::quick_match::MatchRequest;
use crate::tournament::time_control::Tc;
use anqi_core::record::RecordLines;
use anqi_core::rules::{Variant, SHIPPED};
use anqi_server::config::Config;
use anqi_server::Server;
use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use tokio_util::sync::CancellationToken;

/// anqi: the reference server for Chinese Dark Chess (Banqi) and its variants.
///
/// Bots connect over TCP and speak the S-expression protocol of Jouandeau's paper
/// (protocol/PROTOCOL.md). Logs go to stderr; set RUST_LOG (e.g. RUST_LOG=debug) for more.
#[derive(Parser)]
#[command(name = "anqi", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the server: seat clients as they complete their handshake (each game's seats in the
    /// order the connections were accepted), as many per game as the variant has
    /// players, and referee the games.
    ///
    /// Prints `listening on HOST:PORT` on stdout once clients can connect. Every finished game
    /// is appended to the records file as one JSON line. Ctrl-C (SIGINT) or SIGTERM stops the
    /// server gracefully: running games are aborted and recorded.
    ///
    /// Example: anqi serve --listen 127.0.0.1:0 --variant traditional-2x4
    Serve {
        /// Configuration file (see config.toml for every key); keys left out keep the defaults.
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        /// Address to listen on, overriding [server] listen; port 0 picks a free port.
        #[arg(long, value_name = "HOST:PORT")]
        listen: Option<String>,
        /// Variant to play: a shipped name (see `anqi variants`) or a description file. An
        /// invalid description, or one over a limit (protocol/VARIANTS.md, Limits), stops the
        /// server before it listens, with the problem on stderr and status 2.
        #[arg(long, value_name = "NAME|FILE")]
        variant: Option<String>,
        /// Records file, overriding [records] path ("" keeps no records).
        #[arg(long, value_name = "FILE")]
        records: Option<String>,
    },
    /// Verify game records: re-derive every deal from its seeds and re-play every action.
    ///
    /// Reads each file one line at a time and reports every record: verified, or FAILED with
    /// its line and the problem (a line that is not a record, not UTF-8 or over 64 MiB counts
    /// as a failed record), then goes on with the next. Exits with status 0 when every record
    /// verified, 1 when some record failed, 2 when some file could not be read (the other files
    /// are still verified).
    Replay {
        /// JSON-lines record files written by `anqi serve`.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        /// Print only failures and the summary.
        #[arg(long, short)]
        quiet: bool,
    },
    /// List the shipped variants, one line each.
    Variants,
    /// Measure the performance figures (R1 S1 S2 S3 S4), each beside a floor taken in the
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
    #[command(verbatim_doc_comment)]
    Bench(crate::bench::BenchArgs),
    /// A client of `anqi bench`, started by it.
    #[command(hide = true)]
    BenchClient(crate::bench::client::ClientArgs),
    /// The echo server of `anqi bench`'s floors, started by it.
    #[command(hide = true)]
    BenchEcho(crate::bench::echo::EchoArgs),
    /// Run a tournament headless: start the engines for every game, referee them in-process,
    /// append each game to the output file as it ends, and print the standings.
    ///
    /// FILE holds a [tournament] section (see tournament.toml for every key). Killed at any
    /// moment and started again with the same command, it plays only the games not yet
    /// recorded. Progress goes to stderr, the final standings to stdout.
    ///
    /// Options given here override the file's keys. An engine whose program cannot be started,
    /// or that does not connect before it has connected once, stops the event (status 2).
    ///
    /// Examples:
    ///
    ///   anqi tournament tournament.toml --deals 50 --concurrency 4 --tc 10+0.1
    ///
    ///   anqi tournament tournament.toml --shard 0/4 --output shard0.jsonl
    #[command(verbatim_doc_comment)]
    Tournament {
        #[arg(value_name = "FILE", default_value = "tournament.toml")]
        file: PathBuf,
        /// Deals per pairing and cycle, overriding `deals` (each deal is played once per seat
        /// arrangement). A resumed run refuses an output file played with other deals.
        #[arg(long, value_name = "N")]
        deals: Option<u32>,
        #[command(flatten)]
        event: EventFlags,
        /// Play only the games whose index is I modulo N (run the N shards anywhere, then
        /// `anqi merge` their outputs).
        #[arg(long, value_name = "I/N", value_parser = parse_shard)]
        shard: Option<(u64, u64)>,
        /// Records file, overriding the configured `output`.
        #[arg(long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Print no progress (warnings, such as refused tokens, still go to stderr).
        #[arg(long, conflicts_with = "json")]
        quiet: bool,
        /// Progress as one JSON object per game, and the standings as JSON.
        #[arg(long)]
        json: bool,
    },
    /// A quick match between two engines, without a tournament file.
    ///
    /// An engine is a reference bot, random, greedy or search (anqi-bot, beside the anqi
    /// binary) or python-random (the Python bot, built into anqi; needs python3), or a command
    /// line, split as a shell would, with {addr} where the engine takes the server's address
    /// (HOST:PORT; also {host}, {port}, {seed}, {name}); the engine finds its token in the
    /// environment variable ANQI_TOKEN and sends it as the SEED of (init NAME SEED). Write
    /// NAME=COMMAND to name a command's engine. An engine of another protocol is
    /// PROTOCOL:COMMAND (tcg, uci-banqi or cdc-platform; no {addr}: anqi runs a bridge, see
    /// protocol/BRIDGES.md).
    ///
    /// The games are played in pairs on one deal, seats swapped, so --games must be even (a
    /// multiple of the seats). Progress goes to stderr, the standings to stdout. Records are
    /// kept only with --output (then the same command resumes), engine output only with --logs.
    ///
    /// Examples:
    ///
    ///   anqi match random greedy --games 20
    ///
    ///   anqi match search "./my-bot --connect {addr}" --games 100 --tc 10+0.1 --concurrency 4
    ///
    ///   anqi match greedy "mine=python3 bot.py --server {addr}" --tc 40/60 --output mine.jsonl
    ///
    ///   anqi match search "misty=uci-banqi:/opt/banqi-engine" --games 20 --tc 60+1
    #[command(verbatim_doc_comment)]
    Match {
        /// The first engine (it plays seat 1 in the first game of each deal).
        #[arg(value_name = "ENGINE_A")]
        engine_a: String,
        /// The second engine.
        #[arg(value_name = "ENGINE_B")]
        engine_b: String,
        /// Games in all (pairs on one deal, seats swapped).
        #[arg(long, value_name = "N", default_value_t = 2)]
        games: u32,
        /// Variant: a shipped name (`anqi variants`) or a description file.
        #[arg(long, value_name = "NAME|FILE", default_value = "traditional")]
        variant: String,
        /// Keep the records in FILE (JSON lines); run again, the same command resumes.
        #[arg(long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Keep each engine's output in DIR/NAME.log.
        #[arg(long, value_name = "DIR")]
        logs: Option<PathBuf>,
        #[command(flatten)]
        event: EventFlags,
        /// Print no progress.
        #[arg(long)]
        quiet: bool,
    },
    /// Standings of tournament records: points, W/D/L, Elo with 95% interval, team standings
    /// (team games), crosstable, statistics per pair of engines (W/D/L, score, draw ratio, Elo
    /// with 95% interval, normalized Elo, LOS), pentanomial counts over paired deals with their
    /// error bars, terminations per engine; and, with --sprt, the SPRT of a pair. One-side
    /// variants (single-player, cooperative) get success rates with 95% intervals instead, per
    /// engine and per team.
    ///
    /// Example: anqi report all.jsonl --sprt 0,5 --pair new,old
    Report {
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Also run the SPRT of a pair of engines: H0 says the first is ELO0 stronger than the
        /// second, H1 that it is ELO1 stronger (logistic Elo); ALPHA and BETA are the error
        /// rates (0.05 each when left out). ELO0 may be negative: --sprt -1.75,0.25.
        #[arg(
            long,
            value_name = "ELO0,ELO1[,ALPHA,BETA]",
            allow_hyphen_values = true
        )]
        sprt: Option<String>,
        /// The pair the SPRT tests, from FIRST's point of view. Needed when the records hold
        /// more than two engines; with two, the first is the one seated first in the first game.
        #[arg(long, value_name = "FIRST,SECOND", requires = "sprt")]
        pair: Option<String>,
    },
    /// Merge tournament outputs (shards, or a resumed run's pieces) into one file, one line per
    /// game in schedule order; identical duplicates are kept once, conflicting ones refused.
    Merge {
        /// Output file.
        #[arg(long, short, value_name = "FILE")]
        output: PathBuf,
        #[arg(required = true, value_name = "FILE")]
        inputs: Vec<PathBuf>,
    },
    /// Print a fresh secret token for an engine that connects to tournaments by itself.
    ///
    /// Put it in the tournament file as the engine's standing token (`token = "..."` in its
    /// [[tournament.engine]]) and give it to the engine, which sends it as the SEED of
    /// (init NAME SEED) for each of its games. Whoever knows it can play that engine's games:
    /// keep it secret, like a password. It is 128 bits from the operating system's random
    /// source.
    Token,
    /// Tools for variant descriptions.
    Variant {
        #[command(subcommand)]
        command: VariantCommand,
    },
    /// Play one game on an anqi server with an engine that speaks another protocol: start the
    /// engine, greet it, join the server, and translate every message both ways.
    ///
    /// PROTOCOL is `tcg` (the NTU course protocol, stdin/stdout), `uci-banqi` (MistyBanqi's,
    /// stdin/stdout) or `cdc-platform` (the Olympiad platform's client: the engine is started
    /// with HOST PORT and connects to the bridge). The engine's answers are forwarded as they
    /// are, and the referee rules on them. See protocol/BRIDGES.md for each protocol's map.
    ///
    /// Exits with status 0 when the game was played to its end, 3 when the engine could not be
    /// started or failed its handshake (nothing was sent to the server), 1 otherwise.
    ///
    /// Examples:
    ///   anqi bridge --protocol uci-banqi --connect 127.0.0.1:7700 -- ./misty --uci
    ///   anqi bridge --protocol tcg --check -- ./hw3
    ///   anqi bridge --print-map tcg
    #[command(verbatim_doc_comment)]
    Bridge {
        /// The engine's protocol.
        #[arg(long, value_name = "PROTOCOL", required_unless_present = "print_map")]
        protocol: Option<crate::bridge::Protocol>,
        /// The anqi server to join, HOST:PORT.
        #[arg(
            long,
            value_name = "HOST:PORT",
            required_unless_present_any = ["print_map", "check"]
        )]
        connect: Option<String>,
        /// The SEED sent in (init NAME SEED): a tournament seat's token.
        #[arg(long, env = "ANQI_TOKEN", default_value = "0", hide_env_values = true)]
        token: String,
        /// The name to play under (default: the name the engine gives, else "engine").
        #[arg(long)]
        name: Option<String>,
        /// The rules the engine believes (an engine preset such as misty-banqi or ntu-engines, a
        /// shipped variant, or a description file): warns where they differ from the game's,
        /// and translates the counters the protocol carries.
        #[arg(long, value_name = "VARIANT")]
        assumes: Option<String>,
        /// Start the engine, run its protocol's handshake, stop it; connect to nothing.
        #[arg(long)]
        check: bool,
        /// Log every line exchanged with the engine on stderr.
        #[arg(long, short)]
        verbose: bool,
        /// Print PROTOCOL's coordinate map (square names of anqi's 4x8 cells) and exit.
        #[arg(long, value_name = "PROTOCOL", exclusive = true)]
        print_map: Option<crate::bridge::Protocol>,
        /// The engine's program and its arguments, after `--`.
        #[arg(
            last = true,
            value_name = "ENGINE",
            required_unless_present = "print_map"
        )]
        engine: Vec<String>,
    },
}

/// Settings of an event, for `anqi tournament` (overriding the file) and `anqi match`.
#[derive(clap::Args)]
struct EventFlags {
    /// Games played at once (tournament: overrides `concurrency`).
    #[arg(long, value_name = "N")]
    concurrency: Option<u32>,
    /// Master seed: deals and engine seeds derive from it (tournament: overrides `seed`; a
    /// resumed run refuses an output file dealt from another seed).
    #[arg(long, value_name = "TEXT")]
    seed: Option<String>,
    /// Time control of every engine: 60+0.5 (60 s per game, 0.5 s added per move), 40/60+0.6
    /// (60 s for every 40 moves, plus 0.6 s per move), 1:30+1 (minutes:seconds), st=2 (2 s per
    /// move), inf (no clock). Tournament: replaces `tc`, [tournament.clock] and the engines'
    /// own `tc`.
    #[arg(long, value_name = "TC")]
    tc: Option<Tc>,
    /// Print the standings on stderr every N finished games (tournament: overrides
    /// `standings_every`).
    #[arg(long, value_name = "N")]
    standings_every: Option<u32>,
}

#[derive(Subcommand)]
enum VariantCommand {
    /// Validate a description (a file, or a shipped name) and print what it describes: board
    /// size, move and jump counts, pieces, players, sides and every rule.
    ///
    /// When the description is invalid (or over a limit of protocol/VARIANTS.md, Limits), or
    /// the file cannot be read, or no shipped variant has the name, prints `invalid:` with the
    /// file, the line and the problem, and exits with status 2.
    Check {
        #[arg(value_name = "FILE|NAME")]
        file: String,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Serve {
            config,
            listen,
            variant,
            records,
        } => serve(config, listen, variant, records),
        Command::Replay { files, quiet } => replay(&files, quiet),
        Command::Tournament {
            file,
            deals,
            event,
            shard,
            output,
            quiet,
            json,
        } => {
            let overrides = Overrides {
                concurrency: event.concurrency,
                deals,
                seed: event.seed,
                tc: event.tc,
                standings_every: event.standings_every,
            };
            tournament(file, &overrides, shard, output, quiet, json)
        }
        Command::Match {
            engine_a,
            engine_b,
            games,
            variant,
            output,
            logs,
            event,
            quiet,
        } => {
            let request = MatchRequest {
                engines: [engine_a, engine_b],
                games,
                variant,
                seed: event.seed.unwrap_or_else(|| "anqi".into()),
                tc: event.tc,
                concurrency: event.concurrency.unwrap_or(1),
                // Replaced by a scratch file when not given.
                output: output.clone().unwrap_or_default(),
                logs,
                standings_every: event.standings_every.unwrap_or(0),
            };
            quick_match(request, output.is_some(), quiet)
        }
        Command::Report {
            files,
            json,
            sprt,
            pair,
        } => report(&files, json, sprt.as_deref(), pair.as_deref()),
        Command::Merge { output, inputs } => crate::tournament::merge_records(&inputs)
            .and_then(|records| {
                crate::tournament::write_records(&output, &records)?;
                println!("{} games written to {}", records.len(), output.display());
                Ok(ExitCode::SUCCESS)
            })
            .map_err(anyhow::Error::from),
        Command::Variant {
            command: VariantCommand::Check { file },
        } => match Variant::load(&file) {
            Ok(v) => {
                print!("{}", crate::variant_check::report(&v));
                Ok(ExitCode::SUCCESS)
            }
            Err(e) => {
                println!("invalid: {e}");
                Ok(ExitCode::from(2))
            }
        },
        Command::Token => crate::tournament::token::fresh()
            .map(|token| {
                println!("{token}");
                ExitCode::SUCCESS
            })
            .map_err(Into::into),
        Command::Bridge {
            protocol,
            connect,
            token,
            name,
            assumes,
            check,
            verbose,
            print_map,
            engine,
        } => match print_map {
            Some(p) => {
                print!("{}", crate::bridge::print_map(p));
                Ok(ExitCode::SUCCESS)
            }
            None => bridge(
                protocol.expect("clap requires it"),
                connect.unwrap_or_default(),
                token,
                name,
                assumes,
                check,
                verbose,
                engine,
            ),
        },
        Command::Bench(args) => crate::bench::run(&args),
        Command::BenchClient(args) => crate::bench::client::run(&args).map(|()| ExitCode::SUCCESS),
        Command::BenchEcho(args) => crate::bench::echo::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Variants => {
            for (name, _) in SHIPPED {
                let v = Variant::shipped(name).expect("shipped variants are valid");
                println!("{name:<20} {}", v.summary);
            }
            Ok(ExitCode::SUCCESS)
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("anqi: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn init_logging() {
    init_logging_at("info");
}

fn init_logging_at(default: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
}

fn serve(
    config: Option<PathBuf>,
    listen: Option<String>,
    variant: Option<String>,
    records: Option<String>,
) -> Result<ExitCode> {
    let mut cfg = match &config {
        Some(path) => Config::load(path)?,
        None => Config::default(),
    };
    if let Some(l) = listen {
        cfg.server.listen = l;
    }
    if let Some(v) = variant {
        cfg.server.variant = v;
    }
    if let Some(r) = records {
        cfg.records.path = r;
    }
    let variant = Variant::load(&cfg.server.variant)?;
    init_logging();
    let rt = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    rt.block_on(async move {
        let server = Server::bind(cfg.clone(), variant).await?;
        let addr = server.local_addr()?;
        let shutdown = CancellationToken::new();
        let signals = stop_signals()?;
        let on_signal = shutdown.clone();
        tokio::spawn(async move {
            signals.await;
            on_signal.cancel();
        });
        println!("listening on {addr}");
        std::io::stdout().flush()?;
        tracing::info!(%addr, variant = %cfg.server.variant, records = %cfg.records.path, "serving");
        server.run(shutdown).await?;
        tracing::info!("stopped");
        Ok(ExitCode::SUCCESS)
    })
}

fn parse_shard(s: &str) -> Result<(u64, u64), String> {
    let (i, n) = s.split_once('/').ok_or("expected I/N, like 0/4")?;
    let (i, n): (u64, u64) = (
        i.parse().map_err(|_| "I is not a number")?,
        n.parse().map_err(|_| "N is not a number")?,
    );
    if n == 0 || i >= n {
        return Err(format!("shard {i}/{n}: need 0 <= I < N"));
    }
    Ok((i, n))
}

fn tournament(
    file: PathBuf,
    overrides: &Overrides,
    shard: Option<(u64, u64)>,
    output: Option<PathBuf>,
    quiet: bool,
    json: bool,
) -> Result<ExitCode> {
    use crate::tournament::runner::{Progress, RunOptions};
    let mut config = crate::tournament::config::TournamentConfig::load(&file)?;
    config
        .apply(overrides)
        .map_err(|e| anyhow::anyhow!("{}: with the command line's options: {e}", file.display()))?;
    let progress = if quiet {
        Progress::Quiet
    } else if json {
        Progress::Json
    } else {
        Progress::Text
    };
    // Even quiet: warnings are not progress but trouble to look into (a token presented twice
    // means it leaked, or an engine is confused).
    init_logging_at("warn");
    let options = RunOptions {
        shard,
        progress,
        output,
    };
    let standings = run_event(config, options)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&standings)?);
    } else {
        print!("{}", crate::tournament::report::text(&standings));
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs an event on a runtime of its own, taking every running engine down on SIGINT or
/// SIGTERM.
fn run_event(
    config: crate::tournament::config::TournamentConfig,
    options: crate::tournament::runner::RunOptions,
) -> Result<crate::tournament::stats::Standings> {
    let rt = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let standings = rt.block_on(async move {
        // Stopped by a signal: take every running engine down with us. Finished games are
        // already in the output file; the same command resumes the rest.
        let signals = stop_signals()?;
        tokio::spawn(async {
            signals.await;
            crate::tournament::engine::kill_all();
            eprintln!("anqi: stopped by a signal; run the same command again to resume");
            std::process::exit(130);
        });
        Ok::<_, anyhow::Error>(crate::tournament::runner::run(config, options).await?)
    })?;
    Ok(standings)
}

fn quick_match(mut request: MatchRequest, keep_records: bool, quiet: bool) -> Result<ExitCode> {
    use crate::tournament::quick_match::{config, Bots};
    use crate::tournament::runner::{Progress, RunOptions};
    // The match's own files (the Python bot, the rules, records nobody asked to keep) go to a
    // scratch directory, removed at the end.
    let scratch = std::env::temp_dir().join(format!("anqi-match-{}", std::process::id()));
    let _cleanup = RemoveOnDrop(scratch.clone());
    if !keep_records {
        request.output = scratch.join("records.jsonl");
    }
    let bots = Bots::beside_this_binary(scratch).map_err(anyhow::Error::msg)?;
    let event = config(&request, &bots).map_err(anyhow::Error::msg)?;
    init_logging_at("warn");
    let options = RunOptions {
        shard: None,
        progress: if quiet {
            Progress::Quiet
        } else {
            Progress::Text
        },
        output: None,
    };
    let standings = run_event(event, options)?;
    print!("{}", crate::tournament::report::text(&standings));
    Ok(ExitCode::SUCCESS)
}

/// Removes a directory when dropped (best effort).
struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn report(
    files: &[PathBuf],
    json: bool,
    sprt: Option<&str>,
    pair: Option<&str>,
) -> Result<ExitCode> {
    let sprt = sprt.map(parse_sprt).transpose()?;
    let pair = pair.map(parse_pair).transpose()?;
    let records = crate::tournament::load(files)?;
    let mut standings = crate::tournament::stats::standings(&records, &[], None);
    if let Some(cfg) = &sprt {
        standings
            .run_sprt(cfg, pair.as_ref().map(|(a, b)| (a.as_str(), b.as_str())))
            .map_err(|e| anyhow::anyhow!("--sprt: {e}"))?;
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&standings)?);
    } else {
        print!("{}", crate::tournament::report::text(&standings));
    }
    Ok(ExitCode::SUCCESS)
}

/// `FIRST,SECOND`: two engine names.
fn parse_pair(p: &str) -> Result<(String, String)> {
    match p.split(',').map(str::trim).collect::<Vec<_>>().as_slice() {
        [a, b] if !a.is_empty() && !b.is_empty() => Ok((a.to_string(), b.to_string())),
        _ => anyhow::bail!("--pair takes two engine names: FIRST,SECOND (got {p:?})"),
    }
}

/// `ELO0,ELO1[,ALPHA,BETA]`, checked as the tournament file's `[tournament.sprt]` is.
fn parse_sprt(s: &str) -> Result<crate::tournament::config::SprtConfig> {
    let v: Vec<f64> = s
        .split(',')
        .map(|x| x.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| anyhow::anyhow!("--sprt takes numbers: ELO0,ELO1[,ALPHA,BETA]"))?;
    let (elo0, elo1, alpha, beta) = match v.as_slice() {
        [e0, e1] => (*e0, *e1, 0.05, 0.05),
        [e0, e1, a, b] => (*e0, *e1, *a, *b),
        _ => anyhow::bail!("--sprt takes ELO0,ELO1 or ELO0,ELO1,ALPHA,BETA"),
    };
    if elo1.partial_cmp(&elo0) != Some(std::cmp::Ordering::Greater)
        || !(alpha > 0.0 && alpha < 0.5)
        || !(beta > 0.0 && beta < 0.5)
    {
        anyhow::bail!("--sprt needs ELO1 > ELO0 and ALPHA, BETA in (0, 0.5)");
    }
    Ok(crate::tournament::config::SprtConfig {
        elo0,
        elo1,
        alpha,
        beta,
    })
}

/// Listens for SIGINT and SIGTERM: the handlers are installed when this returns, and the
/// future completes on the first of them. Installed before the server says `listening on`, so
/// that a supervisor that signals at once (a test harness, `anqi.Server.stop()`) still gets a
/// graceful stop instead of the default action, which kills the process mid-write.
fn stop_signals() -> Result<impl std::future::Future<Output = ()>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut term = signal(SignalKind::terminate()).context("cannot listen for SIGTERM")?;
        let mut int = signal(SignalKind::interrupt()).context("cannot listen for SIGINT")?;
        Ok(async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
            tracing::info!("signal received: stopping");
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
            tracing::info!("signal received: stopping");
        })
    }
}

fn replay(files: &[PathBuf], quiet: bool) -> Result<ExitCode> {
    let (mut ok, mut bad, mut unreadable) = (0usize, 0usize, 0usize);
    for file in files {
        let records = match RecordLines::open(file) {
            Ok(r) => r,
            Err(e) => {
                bad += 1;
                unreadable += 1;
                println!("{}: FAILED: cannot read: {e}", file.display());
                continue;
            }
        };
        // One record at a time: each line is read, verified and reported before the next.
        let mut last = 0;
        for item in records {
            let (line, record) = match item {
                Ok(item) => item,
                Err(e) => {
                    bad += 1;
                    unreadable += 1;
                    println!(
                        "{}: FAILED: cannot read past line {last}: {e}",
                        file.display()
                    );
                    break;
                }
            };
            last = line;
            let verdict = record.and_then(|r| anqi_core::replay::verify(&r).map(|()| r));
            match verdict {
                Ok(r) => {
                    ok += 1;
                    if !quiet {
                        println!(
                            "{}:{line}: game {} verified: {} by {} after {} plies",
                            file.display(),
                            r.game,
                            if r.result.win.is_empty() {
                                "aborted"
                            } else {
                                &r.result.win
                            },
                            r.result.reason.name(),
                            r.result.plies
                        );
                    }
                }
                Err(e) => {
                    bad += 1;
                    println!("{}:{line}: FAILED: {e}", file.display());
                }
            }
        }
    }
    println!("{ok} verified, {bad} failed");
    Ok(if unreadable > 0 {
        ExitCode::from(2)
    } else if bad > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// `anqi bridge`: one bridged game, or the engine's handshake alone with `--check`.
#[allow(clippy::too_many_arguments)]
fn bridge(
    protocol: crate::bridge::Protocol,
    connect: String,
    token: String,
    name: Option<String>,
    assumes: Option<String>,
    check: bool,
    verbose: bool,
    engine: Vec<String>,
) -> Result<ExitCode> {
    let assumes = assumes
        .map(|a| {
            crate::bridge::presets::assumed(&a).map_err(|e| anyhow::anyhow!("--assumes {a}: {e}"))
        })
        .transpose()?;
    let options = crate::bridge::BridgeOptions {
        protocol,
        connect,
        token,
        name,
        assumes,
        command: engine,
        verbose,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let outcome = runtime.block_on(async {
        if check {
            crate::bridge::check(&options).await.map(|name| {
                println!(
                    "{}: the engine answered its handshake{}",
                    options.protocol,
                    name.map(|n| format!(" as {n:?}")).unwrap_or_default()
                );
            })
        } else {
            crate::bridge::run(&options).await.map(|s| {
                eprintln!(
                    "anqi bridge: game over after {} plies: (win {} {}), the engine was player {}",
                    s.plies, s.win.0, s.win.1, s.me
                );
            })
        }
    });
    match outcome {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) => {
            eprintln!("anqi bridge: {e}");
            Ok(ExitCode::from(e.exit_code()))
        }
    }
}
