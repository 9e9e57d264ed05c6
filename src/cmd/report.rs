//! `anqi report`: the standings and statistics of tournament records, and an SPRT on demand.

use anqi_tournament::config::SprtConfig;
use anqi_tournament::deals::DealsError;
use anqi_tournament::seeds;
use anyhow::Result;
use std::path::PathBuf;
use std::process::ExitCode;

/// Standings of tournament records: points, W/D/L, Elo with 95% interval, team standings
/// (team games), crosstable, statistics per pair of engines (W/D/L, score, draw ratio, Elo
/// with 95% interval, normalized Elo, LOS), pentanomial counts over paired deals with their
/// error bars, terminations per engine; and, with --sprt, the SPRT of a pair. One-side
/// variants (single-player, cooperative) get success rates with 95% intervals instead, per
/// engine and per team.
///
/// The games of one event carry its commitment to its master seed; with the revealed seed
/// (--seed-file, --seed) every deal is checked against it, and a deal that was not dealt from
/// the committed seed fails the report (status 1). An event that played a deal book
/// (TOURNAMENTS.md, "Deal books") is checked against the book too: give it with --book.
///
/// Examples: anqi report all.jsonl --sprt 0,5 --pair new,old
///           anqi report all.jsonl --seed-file all.jsonl.seed    (every deal checked)
///           anqi report all.jsonl --seed-file all.jsonl.seed --book deals.book
///           anqi report --pool spring.jsonl summer.jsonl      (two events, one table)
#[derive(clap::Args)]
pub struct Args {
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
    /// Pool several events into one table (a season): each FILE is one event, whose games
    /// are kept apart from the other files' (their game numbers and deals may be the same);
    /// engines are matched by name (but one that played under different `assumes` in
    /// different events is kept apart, one entry per belief, `NAME (assumes PRESET)`, with
    /// a note on stderr), and pairs of games on one deal are paired within their own event. Without it the files are shards of one event, merged by game number. Merge
    /// an event's shards first (anqi merge) to pool it with others.
    #[arg(long)]
    pool: bool,
    /// The event's seed file, once the event is over and its seed revealed: every deal is
    /// checked against the commitment the records carry.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["seed", "pool"])]
    seed_file: Option<PathBuf>,
    /// The event's revealed master seed, as text (or a fixed seed): as --seed-file.
    #[arg(long, value_name = "TEXT", conflicts_with = "pool")]
    seed: Option<String>,
    /// The deal book the event played (`[tournament.book]`, `--book`): with its revealed
    /// seed, every deal is checked against the book's entry its deal number gives.
    #[arg(long, value_name = "FILE", conflicts_with = "pool")]
    book: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let sprt = args.sprt.as_deref().map(parse_sprt).transpose()?;
    let pair = args.pair.as_deref().map(parse_pair).transpose()?;
    let records = if args.pool {
        let (records, notes) = anqi_tournament::pool(&args.files)?;
        for note in notes {
            eprintln!("anqi report: note: {note}");
        }
        records
    } else {
        anqi_tournament::load(&args.files)?
    };
    let mut standings = anqi_tournament::stats::standings(&records, &[], None);
    if !args.pool {
        let seed = seeds::given(args.seed.as_deref(), args.seed_file.as_deref())?;
        if args.book.is_some() && seed.is_none() {
            anyhow::bail!("--book checks deals with the event's revealed master seed: give --seed-file FILE (or --seed SEED) too");
        }
        let book = args
            .book
            .as_deref()
            .map(anqi_tournament::book::DealBook::read)
            .transpose()?;
        let check = anqi_tournament::deals::check_deals(&records, seed.as_ref(), book.as_ref())
            .map_err(|e| match e {
                DealsError::BookNotGiven { .. } => anyhow::anyhow!("cannot check the deals: {e}"),
                e => anyhow::anyhow!("the deals do not match the event's commitment: {e}"),
            })?;
        // The text always says how the deals stand; the JSON when they were checked (so that
        // it stays the standings `anqi tournament --json` prints).
        if seed.is_some() || !args.json {
            standings.deals = Some(check);
        }
    }
    if let Some(cfg) = &sprt {
        standings
            .run_sprt(cfg, pair.as_ref().map(|(a, b)| (a.as_str(), b.as_str())))
            .map_err(|e| anyhow::anyhow!("--sprt: {e}"))?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&standings)?);
    } else {
        print!("{}", anqi_tournament::report::text(&standings));
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
pub(super) fn parse_sprt(s: &str) -> Result<SprtConfig> {
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
    Ok(SprtConfig {
        elo0,
        elo1,
        alpha,
        beta,
    })
}
