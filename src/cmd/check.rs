//! `anqi check ENGINE`: the compliance check of `anqi_tournament::check`, its items printed
//! as they end.

use anqi_tournament::check::{CheckRequest, Item, Verdict};
use anqi_tournament::time_control::Tc;
use anyhow::{Context, Result};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Check that an engine plays by the protocol, in every variant its protocol can play.
///
/// For engine authors: the engine plays short games (both seatings, --max-plies plies, a
/// time per move) against a reference bot on a private server, one match per variant, and
/// each item passes or fails by what the referee ruled: an error reply to the engine
/// (illegal action, stale board, syntax...), a loss by time, crash, disconnection or a
/// connection that never came fails it, with the last lines exchanged (engine> is what the
/// engine sent, server> what it received, stderr: its own output). An engine of another
/// protocol is checked through its bridge: first the bridge's own handshake check (anqi
/// bridge --check), with and without the protocol's optional commands, then the variants the
/// protocol can play (the others are listed as skipped). The rejoin item cuts the engine's
/// connection after its third action and expects it back with its seat's secret; an engine
/// that does not ask for the rejoin extension gets "not offered", which is no fault.
///
/// ENGINE is written as `anqi match` takes it: a command line with {addr} where it takes the
/// server's address, PROTOCOL:COMMAND for an engine of another protocol (tcg, uci-banqi,
/// cdc-platform), or a reference bot's name. Template engines to start from are in
/// clients/templates/ (protocol/CHECK.md says what each item checks).
///
/// Exit status: 0 when no item failed, 1 when one did, 2 when the check could not run.
///
/// Examples:
///
///   anqi check "python3 clients/templates/anqi_template.py {addr}"
///
///   anqi check "uci-banqi:python3 clients/templates/uci_banqi_template.py"
///
///   anqi check "tcg:./my-engine" --variant traditional --variant ntu
///
///   anqi check "./my-bot --connect {addr}" --seed 42 --max-plies 60
#[derive(clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// The engine: a command line with {addr}, PROTOCOL:COMMAND, or a reference bot's name.
    #[arg(value_name = "ENGINE")]
    engine: String,
    /// Check only this variant (a shipped name or a description file); repeat for more.
    /// Default: every shipped variant the engine's protocol can play.
    #[arg(long, value_name = "NAME|FILE")]
    variant: Vec<String>,
    /// The reference bot the engine plays against (random, greedy, search, python-random).
    #[arg(long, value_name = "BOT", default_value = "random")]
    opponent: String,
    /// Plies per game before the referee draws it.
    #[arg(long, value_name = "N", default_value_t = 24)]
    max_plies: u32,
    /// The time control of every game (anqi match's --tc).
    #[arg(long, value_name = "TC", default_value = "st=2")]
    tc: Tc,
    /// The master seed of the deals, to replay a failure (printed when one fails).
    #[arg(long, value_name = "SEED")]
    seed: Option<String>,
    /// Items played at the same time.
    #[arg(long, value_name = "N", default_value_t = 4)]
    concurrency: usize,
    /// Keep the matches' records and engine logs in DIR (one folder per item).
    #[arg(long, value_name = "DIR")]
    keep: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let scratch = args
        .keep
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join(format!("anqi-check-{}", std::process::id())));
    let _cleanup = (args.keep.is_none()).then(|| RemoveOnDrop(scratch.clone()));
    let exe = std::env::current_exe().context("cannot find the anqi binary's own path")?;
    let seed = args.seed.clone().unwrap_or_else(random_seed);
    let request = CheckRequest {
        engine: args.engine.clone(),
        variants: args.variant,
        opponent: args.opponent,
        max_plies: args.max_plies,
        tc: args.tc,
        seed: Some(seed.clone()),
        concurrency: args.concurrency,
        scratch,
        anqi_bot: exe.with_file_name("anqi-bot"),
    };
    super::init_logging_at(tracing::Level::ERROR);
    let rt = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let start = Instant::now();
    println!(
        "anqi check {:?} against {} (seed {seed})",
        args.engine, request.opponent
    );
    let items = rt
        .block_on(anqi_tournament::check::run(&request, print_item))
        .map_err(anyhow::Error::msg)?;
    let count = |f: fn(&Verdict) -> bool| items.iter().filter(|i| f(&i.verdict)).count();
    let failed = count(|v| matches!(v, Verdict::Fail { .. }));
    println!(
        "{} items in {:.1} s: {} passed, {failed} failed, {} not offered, {} skipped",
        items.len(),
        start.elapsed().as_secs_f64(),
        count(|v| matches!(v, Verdict::Pass(_))),
        count(|v| matches!(v, Verdict::NotOffered(_))),
        count(|v| matches!(v, Verdict::Skipped(_))),
    );
    if failed > 0 {
        println!("replay the games with the same deals: add --seed {seed}");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// One item's lines: its verdict, and for a failure the exchange, indented.
fn print_item(item: &Item) {
    let took = item.took.as_secs_f64();
    match &item.verdict {
        Verdict::Pass(what) => println!("pass         {}: {what} ({took:.1} s)", item.name),
        Verdict::Fail { why, exchange } => {
            println!("FAIL         {}: {why} ({took:.1} s)", item.name);
            if !exchange.is_empty() {
                println!("    the last lines exchanged:");
            }
            for line in exchange {
                println!("      {line}");
            }
        }
        Verdict::NotOffered(why) => println!("not offered  {}: {why}", item.name),
        Verdict::Skipped(why) => println!("skipped      {}: {why}", item.name),
    }
}

/// A master seed for the deals when none is given: the clock's nanoseconds, which is enough
/// to vary the deals between runs (the seed is printed to replay them).
fn random_seed() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("check-{nanos:x}")
}

/// Removes a directory when dropped (best effort).
struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
