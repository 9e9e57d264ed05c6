//! `anqi tournament`: an event from its file, with the command line's overrides; and what it
//! shares with `anqi match`: the event flags and running an event on a runtime of its own.

use anqi_tournament::config::{Overrides, TournamentConfig};
use anqi_tournament::runner::{Progress, RunOptions};
use anqi_tournament::stats::Standings;
use anqi_tournament::time_control::Tc;
use anyhow::{Context, Result};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

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
/// Deals come from a random master seed, kept secret in the event's seed file (OUTPUT.seed,
/// or --seed-file) and read again on resume. Its commitment is printed at the start and kept
/// in every record; when the last game ends the seed is revealed, and anyone can check every
/// deal with `anqi report OUTPUT --seed-file FILE` (TOURNAMENTS.md, "Deals"). Shards share
/// one seed file: write it once with --prepare and copy it to every machine.
///
/// Examples:
///
///   anqi tournament tournament.toml --deals 50 --concurrency 4 --tc 10+0.1
///
///   anqi tournament tournament.toml --prepare --seed-file event.seed
///   anqi tournament tournament.toml --shard 0/4 --output shard0.jsonl --seed-file event.seed
#[derive(clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    #[arg(value_name = "FILE", default_value = "tournament.toml")]
    file: PathBuf,
    /// Deals per pairing and cycle, overriding `deals` (each deal is played once per seat
    /// arrangement). A resumed run refuses an output file played with other deals.
    #[arg(long, value_name = "N")]
    deals: Option<u32>,
    #[command(flatten)]
    event: EventFlags,
    /// Play only the games whose index is I modulo N (run the N shards anywhere, each with
    /// the same --seed-file, then `anqi merge` their outputs).
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    shard: Option<(u64, u64)>,
    /// Where the event's secret master seed is kept, overriding `seed_file` (default:
    /// OUTPUT.seed): created when the event starts, read again when it resumes. Not with
    /// --seed.
    #[arg(long, value_name = "FILE", conflicts_with = "seed")]
    seed_file: Option<PathBuf>,
    /// Deal the games from this deal book (`anqi book new`, `anqi book from`) instead of the
    /// master seed, overriding `[tournament.book] file`: events that play one book play the
    /// same deals. See TOURNAMENTS.md, "Deal books".
    #[arg(long, value_name = "FILE")]
    book: Option<PathBuf>,
    /// The order the book's entries are played in, overriding `[tournament.book] order`:
    /// sequential or random (shuffled by the master seed).
    #[arg(long, value_name = "ORDER")]
    book_order: Option<anqi_tournament::book::BookOrder>,
    /// Only write the event's seed file (when it is not there yet) and print the commitment to
    /// its master seed, then exit without playing: for shards, which must all deal from one
    /// seed (copy the file to every machine).
    #[arg(long)]
    prepare: bool,
    /// Records file, overriding the configured `output`.
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Print no progress (warnings, such as refused tokens, still go to stderr).
    #[arg(long, conflicts_with = "json")]
    quiet: bool,
    /// Progress as one JSON object per game, and the standings as JSON.
    #[arg(long)]
    json: bool,
    /// Serve the event's web pages here (protocol/WEB.md): every game live, and the standings
    /// as games finish; port 0 picks a free port, printed on stderr as `web on http://...`.
    /// After the last game the final standings are printed, and the pages stay up with them
    /// until Ctrl-C (see --http-linger).
    #[arg(long, value_name = "HOST:PORT")]
    http: Option<String>,
    /// With --http: how long the pages stay up once the event is over, in seconds, instead of
    /// until Ctrl-C (or SIGTERM); 0 exits at once (scripts, tests). The runner says `event
    /// over; pages stay up at http://HOST:PORT/ until Ctrl-C` (or `for N s`) on stderr.
    #[arg(long, value_name = "SECONDS", requires = "http")]
    http_linger: Option<u64>,
    /// Play the games on this Ray cluster (`auto`: the one `ray start` made here, or
    /// RAY_ADDRESS; or the head's HOST:PORT), overriding `[tournament.ray] address`. This
    /// command keeps the event (records, standings, SPRT, pages, resume); the nodes play the
    /// deals, each one's seatings on one node, a game per processor. Needs the `python` of [tournament.ray] with `ray` installed, and
    /// the engines installed on every node (TOURNAMENTS.md, "Past one machine: Ray").
    #[arg(long, value_name = "ADDRESS", conflicts_with = "shard")]
    ray: Option<String>,
}

/// Play one unit of work of an event on a Ray cluster: a node's part of `anqi tournament --ray`,
/// started by the Ray task (not by hand). Reads the unit (JSON) on stdin and writes a JSON
/// line per game as it ends on stdout.
#[derive(clap::Args)]
#[command(hide = true)]
pub struct UnitArgs {}

/// Settings of an event, for `anqi tournament` (overriding the file) and `anqi match`.
#[derive(clap::Args)]
pub struct EventFlags {
    /// Games played at once (tournament: overrides `concurrency`).
    #[arg(long, value_name = "N")]
    pub concurrency: Option<u32>,
    /// A fixed master seed, for a reproducible event: deals and engine seeds derive from it
    /// (tournament: overrides `seed` and `seed_file`; a resumed run refuses an output file
    /// dealt from another seed). Anyone who knows or guesses it computes every deal: left out,
    /// the deals come from a random seed kept secret until the event ends.
    #[arg(long, value_name = "TEXT")]
    pub seed: Option<String>,
    /// Time control of every engine: 60+0.5 (60 s per game, 0.5 s added per move), 40/60+0.6
    /// (60 s for every 40 moves, plus 0.6 s per move), 1:30+1 (minutes:seconds), st=2 (2 s per
    /// move), inf (no clock). Tournament: replaces `tc`, [tournament.clock] and the engines'
    /// own `tc`.
    #[arg(long, value_name = "TC")]
    pub tc: Option<Tc>,
    /// Print the standings on stderr every N finished games (tournament: overrides
    /// `standings_every`).
    #[arg(long, value_name = "N")]
    pub standings_every: Option<u32>,
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

pub fn run(args: Args) -> Result<ExitCode> {
    let overrides = Overrides {
        concurrency: args.event.concurrency,
        deals: args.deals,
        seed: args.event.seed,
        seed_file: args.seed_file.map(|p| p.display().to_string()),
        tc: args.event.tc,
        standings_every: args.event.standings_every,
        ray: args.ray,
        book: args.book.map(|p| p.display().to_string()),
        book_order: args.book_order,
    };
    let file = args.file;
    let mut config = TournamentConfig::load(&file)?;
    config
        .apply(&overrides)
        .map_err(|e| anyhow::anyhow!("{}: with the command line's options: {e}", file.display()))?;
    let progress = if args.quiet {
        Progress::Quiet
    } else if args.json {
        Progress::Json
    } else {
        Progress::Text
    };
    // Even quiet: warnings are not progress but trouble to look into (a token presented twice
    // means it leaked, or an engine is confused).
    super::init_logging_at(tracing::Level::WARN);
    let options = RunOptions {
        shard: args.shard,
        progress,
        output: args.output,
        http: args.http,
        listening: None,
    };
    if args.prepare {
        return prepare(&config, &options);
    }
    let linger = args.http_linger.map(std::time::Duration::from_secs);
    let json = args.json;
    run_event_then(config, options, linger, |standings| {
        use std::io::Write;
        if json {
            println!("{}", serde_json::to_string_pretty(standings)?);
        } else {
            print!("{}", anqi_tournament::report::text(standings));
        }
        // Before the pages linger: a script reads the standings now.
        std::io::stdout().flush()?;
        Ok(())
    })?;
    Ok(ExitCode::SUCCESS)
}

/// `--prepare`: the event's seed file, written when missing, and the commitment to its seed
/// (and to its deal book, when it plays one).
fn prepare(config: &TournamentConfig, options: &RunOptions) -> Result<ExitCode> {
    use anqi_tournament::runner::{event_seed, output_of, SeedOrigin};
    let output = output_of(config, options);
    let seed = event_seed(config, &output, None)?;
    match &seed.origin {
        SeedOrigin::Fixed => eprintln!(
            "the master seed is fixed (seed, --seed): there is no seed file to write; every shard deals from it"
        ),
        SeedOrigin::Created(p) => eprintln!(
            "wrote a new random master seed to {}: copy it to every machine that runs a shard (--seed-file), and keep it secret until the event ends",
            p.display()
        ),
        SeedOrigin::Kept(p) => eprintln!("{} already holds the event's master seed", p.display()),
    }
    println!("commitment {}", seed.seed.commitment());
    // A deal book's commitment is published beside the seed's, before the games.
    if let Some(book) = &config.book {
        let read = anqi_tournament::book::DealBook::read(std::path::Path::new(&book.file))?;
        println!(
            "book commitment {}, {}",
            read.commitment(),
            book.order.describe(book.skip)
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `anqi tournament-unit`: the unit on stdin, its games' lines on stdout.
pub fn run_unit(_args: UnitArgs) -> Result<ExitCode> {
    use std::io::{Read, Write};
    super::init_logging_at(tracing::Level::WARN);
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .context("cannot read the unit of work on stdin")?;
    let rt = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    rt.block_on(async move {
        // Stopped (the Ray task cancelled, or its worker gone): the unit's engines go too.
        let signals = super::stop_signals()?;
        tokio::spawn(async {
            signals.await;
            anqi_tournament::engine::kill_all();
            std::process::exit(130);
        });
        let mut stdout = std::io::stdout();
        anqi_tournament::runner::play_unit(&input, |line| {
            // The task that reads this has gone when this fails: nothing is left to tell.
            let _ = writeln!(stdout, "{line}").and_then(|()| stdout.flush());
        })
        .await;
        Ok::<_, anyhow::Error>(())
    })?;
    Ok(ExitCode::SUCCESS)
}

/// Runs an event on a runtime of its own, taking every running engine down on SIGINT or
/// SIGTERM.
pub fn run_event(config: TournamentConfig, options: RunOptions) -> Result<Standings> {
    let mut kept = None;
    run_event_then(config, options, Some(Duration::ZERO), |s| {
        kept = Some(s.clone());
        Ok(())
    })?;
    Ok(kept.expect("reported"))
}

/// Set once the event is over and only its pages are up: a signal then stops them, and the
/// program ends as it would have without them.
static EVENT_OVER: AtomicBool = AtomicBool::new(false);

/// As [`run_event`], handing the standings to `report` once the event is over; then its pages
/// (`--http`), when it has them, stay up for `linger` (`None`: until SIGINT or SIGTERM).
fn run_event_then(
    config: TournamentConfig,
    options: RunOptions,
    linger: Option<Duration>,
    report: impl FnOnce(&Standings) -> Result<()>,
) -> Result<()> {
    let rt = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    rt.block_on(async move {
        // Stopped by a signal: take every running engine down with us. Finished games are
        // already in the output file; the same command resumes the rest.
        let signals = super::stop_signals()?;
        tokio::spawn(async {
            signals.await;
            if EVENT_OVER.load(Ordering::SeqCst) {
                eprintln!("anqi: the event's pages stopped");
                std::process::exit(0);
            }
            anqi_tournament::engine::kill_all();
            eprintln!("anqi: stopped by a signal; run the same command again to resume");
            std::process::exit(130);
        });
        let (standings, pages) =
            anqi_tournament::runner::run_keeping_pages(config, options).await?;
        EVENT_OVER.store(true, Ordering::SeqCst);
        report(&standings)?;
        let Some(pages) = pages else {
            return Ok(());
        };
        match linger {
            Some(d) if d.is_zero() => {}
            Some(d) => {
                say(&format!(
                    "event over; pages stay up at http://{}/ for {} s",
                    pages.addr,
                    d.as_secs()
                ));
                tokio::time::sleep(d).await;
            }
            None => {
                say(&format!(
                    "event over; pages stay up at http://{}/ until Ctrl-C",
                    pages.addr
                ));
                std::future::pending::<()>().await;
            }
        }
        drop(pages);
        Ok::<_, anyhow::Error>(())
    })
}

/// A line on stderr, whoever reads it (a reader gone must not stop the program).
fn say(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{line}");
}
