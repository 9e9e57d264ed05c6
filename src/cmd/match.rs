//! `anqi match`: two engines, no file: the event is built from the command line
//! (`tournament::quick_match`) and run as a tournament is. Its cutechess dialect
//! (`cmd::cutechess`) is read apart and played by the same [`play`].

use super::tournament::{run_event, EventFlags};
use anqi_tournament::config::{EngineConfig, Overrides, TournamentConfig};
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
/// PROTOCOL:COMMAND (tcg, uci-banqi, also written uci, or cdc-platform; no {addr}: anqi runs
/// a bridge, see protocol/BRIDGES.md).
///
/// The games are played in pairs on one deal, seats swapped, so --games must be even (a
/// multiple of the seats). Progress goes to stderr, the standings to stdout. Records are
/// kept only with --output (then the same command resumes; the deals' secret master seed is
/// kept beside them, in FILE.seed), engine output only with --logs.
///
/// A cutechess-cli or fastchess command line works too, its program's name replaced by
/// `anqi match` (the engines are -engine cmd=... proto=uci|tcg|cdc, or a reference bot,
/// cmd=random): `anqi match -help` says what each of its options becomes, and those anqi
/// has no equivalent for are refused naming the nearest anqi option.
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
///
///   anqi match search greedy --tc 60+1 --engine-tc search=st=0.5 --max-plies 400
///
///   anqi book new --deals 500 --output deals.book
///   anqi match search "mine=./my-bot --connect {addr}" --games 1000 --book deals.book
///
///   anqi match -engine cmd=./my-engine proto=uci name=mine -engine cmd=search \
///       -each tc=10+0.1 -rounds 50 -games 2 -concurrency 4 -pgnout mine.jsonl
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
    /// An engine's own time control, over --tc (time odds, as cutechess's per-engine tc=):
    /// NAME is the engine's name in the standings. Repeat for each engine. Example:
    /// --engine-tc mine=st=0.5
    #[arg(long, value_name = "NAME=TC")]
    engine_tc: Vec<String>,
    /// Draw a game still going after N plies (a ply: one player's move; 0, the default: only
    /// the variant's rules end games). The record names it `ply-cap`.
    #[arg(long, value_name = "N", default_value_t = 0)]
    max_plies: u32,
    /// Adjudicate a draw by the engines' scores, in cutechess's words: once N full moves are
    /// played, the last 2M moves all scored within +-CP centipawns, with no reveal or capture
    /// among them but the first (scores from the engines' comments: the UCI-Banqi bridge
    /// passes on `info ... score cp N`). Termination `adjudicated`. Example: --draw
    /// "movenumber=40 movecount=8 score=10"
    #[arg(long, value_name = "movenumber=N movecount=M score=CP")]
    draw: Option<String>,
    /// Adjudicate a loss by the engines' scores: an engine whose last M scores are all at -CP
    /// or worse loses (twosided=true: only if its opponent's are all at +CP or better).
    /// Example: --resign "movecount=3 score=600 twosided=true"
    #[arg(long, value_name = "movecount=M score=CP [twosided=B]")]
    resign: Option<String>,
    /// Deal the games from a deal book (`anqi book new`, `anqi book from`) instead of the
    /// match's master seed: another match with the same book plays the same deals (both
    /// seatings of each). The book is as secret as a seed file. See TOURNAMENTS.md, "Deal
    /// books".
    #[arg(long, value_name = "FILE")]
    book: Option<PathBuf>,
    /// The order the book's entries are played in: sequential (the default: the first
    /// entries) or random (shuffled by the match's master seed).
    #[arg(long, value_name = "ORDER", requires = "book")]
    book_order: Option<anqi_tournament::book::BookOrder>,
    #[command(flatten)]
    event: EventFlags,
    /// Print no progress.
    #[arg(long)]
    quiet: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let request = MatchRequest {
        engines: [args.engine_a, args.engine_b],
        games: args.games,
        variant: args.variant,
        seed: args.event.seed,
        tc: args.event.tc,
        concurrency: args.event.concurrency.unwrap_or(1),
        // Set by `play`.
        output: PathBuf::new(),
        logs: args.logs,
        standings_every: args.event.standings_every.unwrap_or(0),
        max_plies: args.max_plies,
        score_draw: args.draw.unwrap_or_default(),
        score_resign: args.resign.unwrap_or_default(),
        book: args.book.map(|file| anqi_tournament::config::BookConfig {
            file: file.display().to_string(),
            order: args.book_order.unwrap_or_default(),
            skip: 0,
        }),
    };
    let (assumes, engine_tc, sprt) = (args.assumes, args.engine_tc, args.sprt);
    play(request, args.output, args.quiet, |event| {
        for a in &assumes {
            let (engine, preset) = named(
                event,
                "--assumes",
                a,
                "NAME=PRESET, such as misty=misty-banqi",
            )?;
            if !engine.protocol.is_bridged() {
                anyhow::bail!("--assumes {a:?}: {} speaks anqi's own protocol, which tells it the rules; assumes is for engines of another protocol (PROTOCOL:COMMAND)", engine.name);
            }
            engine.assumes = Some(preset.to_string());
        }
        for t in &engine_tc {
            let (engine, tc) = named(event, "--engine-tc", t, "NAME=TC, such as mine=st=0.5")?;
            engine.tc = Some(
                tc.parse()
                    .map_err(|e| anyhow::anyhow!("--engine-tc {t:?}: {e}"))?,
            );
        }
        if let Some(s) = &sprt {
            event.sprt = Some(super::report::parse_sprt(s)?);
        }
        Ok(())
    })
}

/// The engine a per-engine flag's `NAME=VALUE` names, and the value; `form` says how to write
/// it.
fn named<'a>(
    event: &'a mut TournamentConfig,
    flag: &str,
    given: &'a str,
    form: &str,
) -> Result<(&'a mut EngineConfig, &'a str)> {
    let (name, value) = given
        .split_once('=')
        .filter(|(n, v)| !n.is_empty() && !v.is_empty())
        .ok_or_else(|| anyhow::anyhow!("{flag} {given:?}: give {form}"))?;
    let names = event.engine_names();
    let engine = event
        .engines
        .iter_mut()
        .find(|e| e.name == name)
        .ok_or_else(|| {
            anyhow::anyhow!(
                "{flag} {given:?}: no engine is named {name:?} (the engines are {names:?})"
            )
        })?;
    Ok((engine, value))
}

/// Plays a match, as both of `anqi match`'s command lines (its own and cutechess's) ask:
/// builds the event of `request`, lets `adjust` set what was given per engine, checks the
/// event as a tournament file is checked, runs it and prints the standings. Without `output`
/// the records go to a scratch file, removed at the end.
pub(super) fn play(
    mut request: MatchRequest,
    output: Option<PathBuf>,
    quiet: bool,
    adjust: impl FnOnce(&mut TournamentConfig) -> Result<()>,
) -> Result<ExitCode> {
    // The match's own files (the Python bot, the rules, records nobody asked to keep) go to a
    // scratch directory, removed at the end.
    let scratch = std::env::temp_dir().join(format!("anqi-match-{}", std::process::id()));
    let _cleanup = RemoveOnDrop(scratch.clone());
    request.output = output.unwrap_or_else(|| scratch.join("records.jsonl"));
    let bots = Bots::beside_this_binary(scratch).map_err(anyhow::Error::msg)?;
    let mut event = config(&request, &bots).map_err(anyhow::Error::msg)?;
    adjust(&mut event)?;
    // What a tournament file is checked for (engine names, above all): no override here.
    event
        .apply(&Overrides::default())
        .map_err(anyhow::Error::msg)?;
    super::init_logging_at(tracing::Level::WARN);
    let options = RunOptions {
        shard: None,
        progress: if quiet {
            Progress::Quiet
        } else {
            Progress::Text
        },
        output: None,
        http: None,
        listening: None,
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
