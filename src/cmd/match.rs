//! `anqi match`: two engines, no file: the event is built from the command line
//! (`tournament::quick_match`) and run as a tournament is.

use super::tournament::{run_event, EventFlags};
use anqi_tournament::quick_match::{config, Bots, MatchRequest};
use anqi_tournament::runner::{Progress, RunOptions};
use anyhow::Result;
use std::path::PathBuf;
use std::process::ExitCode;

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
/// kept only with --output (then the same command resumes; the deals' secret master seed is
/// kept beside them, in FILE.seed), engine output only with --logs.
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
///
///   anqi match search "misty=uci-banqi:/opt/banqi-engine" --assumes misty=misty-banqi \
///       --sprt 0,10 --games 2000
#[derive(clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
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
    /// The rules an engine of another protocol believes, as its tournament entry's `assumes`
    /// (protocol/BRIDGES.md): NAME is the engine's name in the standings. Repeat for each
    /// engine. Example: --assumes misty=misty-banqi
    #[arg(long, value_name = "NAME=PRESET")]
    assumes: Vec<String>,
    /// Run an SPRT of the first engine against the second, and stop the match once it
    /// decides: H0 says the first is ELO0 stronger, H1 that it is ELO1 stronger (logistic
    /// Elo); ALPHA and BETA are the error rates (0.05 each when left out).
    #[arg(
        long,
        value_name = "ELO0,ELO1[,ALPHA,BETA]",
        allow_hyphen_values = true
    )]
    sprt: Option<String>,
    #[command(flatten)]
    event: EventFlags,
    /// Print no progress.
    #[arg(long)]
    quiet: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let keep_records = args.output.is_some();
    let mut request = MatchRequest {
        engines: [args.engine_a, args.engine_b],
        games: args.games,
        variant: args.variant,
        seed: args.event.seed,
        tc: args.event.tc,
        concurrency: args.event.concurrency.unwrap_or(1),
        // Replaced by a scratch file when not given.
        output: args.output.unwrap_or_default(),
        logs: args.logs,
        standings_every: args.event.standings_every.unwrap_or(0),
    };
    // The match's own files (the Python bot, the rules, records nobody asked to keep) go to a
    // scratch directory, removed at the end.
    let scratch = std::env::temp_dir().join(format!("anqi-match-{}", std::process::id()));
    let _cleanup = RemoveOnDrop(scratch.clone());
    if !keep_records {
        request.output = scratch.join("records.jsonl");
    }
    let bots = Bots::beside_this_binary(scratch).map_err(anyhow::Error::msg)?;
    let mut event = config(&request, &bots).map_err(anyhow::Error::msg)?;
    for a in &args.assumes {
        let (name, preset) = a
            .split_once('=')
            .filter(|(n, p)| !n.is_empty() && !p.is_empty())
            .ok_or_else(|| {
                anyhow::anyhow!("--assumes {a:?}: give NAME=PRESET, such as misty=misty-banqi")
            })?;
        let names = event.engine_names();
        let engine = event
            .engines
            .iter_mut()
            .find(|e| e.name == name)
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "--assumes {a:?}: no engine is named {name:?} (the engines are {names:?})"
                )
            })?;
        if !engine.protocol.is_bridged() {
            anyhow::bail!("--assumes {a:?}: {name} speaks anqi's own protocol, which tells it the rules; assumes is for engines of another protocol (PROTOCOL:COMMAND)");
        }
        engine.assumes = Some(preset.to_string());
    }
    if let Some(s) = &args.sprt {
        event.sprt = Some(super::report::parse_sprt(s)?);
    }
    super::init_logging_at(tracing::Level::WARN);
    let options = RunOptions {
        shard: None,
        progress: if args.quiet {
            Progress::Quiet
        } else {
            Progress::Text
        },
        output: None,
        http: None,
    };
    let standings = run_event(event, options)?;
    print!("{}", anqi_tournament::report::text(&standings));
    Ok(ExitCode::SUCCESS)
}

/// Removes a directory when dropped (best effort).
struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
