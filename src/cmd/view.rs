//! `anqi view`: the web pages over records files, without a server.

use anqi_core::record::{GameRecord, RecordLines};
use anqi_server::config::{Config, SeedSource};
use anqi_server::Hub;
use anqi_web::Web;
use anyhow::{Context, Result};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use tokio_util::sync::CancellationToken;

/// Watch recorded games in a web browser: step through every game of some records files.
///
/// Serves the pages `anqi serve --http` serves (protocol/WEB.md), over the games of the
/// files: the lobby lists them, and each game steps forward and back by ply, in the public
/// view or with the whole deal shown. Each game keeps its record's number (`#/game/12` is the
/// server's game 12); a number already taken by an earlier game of the files (two files
/// numbering alike) is given a fresh one past the highest, and stderr says how many, once per
/// file. Opens nothing but the files and the address; prints
/// `web on http://HOST:PORT/` on stdout once the pages are up, and stops on Ctrl-C. A line
/// that is not a record is reported on stderr and skipped.
///
/// A fixed server seed (`[seed] server = "..."`) would tell the deals of the games still to
/// come, so the pages leave the records' `seeds.server` out, as `anqi serve --http` does,
/// when the seed was fixed: when --config's `[seed] server` is fixed, with
/// --hide-server-seed, or when two games of the files have the same server seed (a seed
/// drawn at random is new for every game).
///
/// Example: anqi view games.jsonl --http 127.0.0.1:8080
#[derive(clap::Args)]
pub struct Args {
    /// JSON-lines record files (`anqi serve`, `anqi tournament`).
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Where to serve the pages; port 0 picks a free port.
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:8080")]
    http: String,
    /// Configuration file, for its [http] caps (its listen address is not used), and its
    /// [seed] server: when fixed, the records' server seed is left out of the pages.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Leave the records' server seed out of the pages (the server's seed was fixed).
    #[arg(long)]
    hide_server_seed: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let mut cfg = match &args.config {
        Some(path) => Config::load(path)?,
        None => Config::default(),
    };
    super::init_logging_at(tracing::Level::INFO);
    let mut games = Vec::new();
    for (at, file) in args.files.iter().enumerate() {
        let lines =
            RecordLines::open(file).with_context(|| format!("cannot read {}", file.display()))?;
        for item in lines {
            match item {
                Ok((_, Ok(record))) => games.push((at, record)),
                Ok((line, Err(e))) => {
                    eprintln!("{}:{line}: skipped, not a record: {e}", file.display());
                }
                Err(e) => {
                    eprintln!("{}: cannot read further: {e}", file.display());
                    break;
                }
            }
        }
    }
    // Every game of the files is shown, under its own number unless an earlier game took it.
    for (file, count, across) in renumber(&mut games) {
        let by = if across {
            "an earlier file"
        } else {
            "earlier games of the files (or they were past 2^53 - 1)"
        };
        let games = if count == 1 { "game" } else { "games" };
        eprintln!(
            "{}: {count} {games} renumbered, their numbers were taken by {by}",
            args.files[file].display()
        );
    }
    let games: Vec<GameRecord> = games.into_iter().map(|(_, r)| r).collect();
    cfg.http.keep_finished = games.len().max(1);
    let hide = args.hide_server_seed
        || cfg.seed.server != SeedSource::Random
        || server_seed_repeats(&games);
    if hide {
        tracing::info!("the records' server seed is left out of the pages (it was fixed)");
    }
    let hub = Hub::new(&cfg.http, hide);
    let count = games.len();
    for record in games {
        hub.add_record(record);
    }
    let rt = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    rt.block_on(async move {
        let shutdown = CancellationToken::new();
        let web = Web::bind(&args.http, &cfg, hub, shutdown.clone()).await?;
        let signals = super::stop_signals()?;
        let on_signal = shutdown.clone();
        tokio::spawn(async move {
            signals.await;
            on_signal.cancel();
        });
        println!("web on http://{}/", web.local_addr()?);
        std::io::stdout().flush()?;
        tracing::info!(games = count, "serving recorded games");
        web.run(shutdown).await?;
        Ok(ExitCode::SUCCESS)
    })
}

/// Gives every game whose number an earlier game (in the order read) took, or past
/// `MAX_GAME_NO`, a fresh number past the highest of all; the others keep theirs. Returns,
/// per file with any, its index, how many were renumbered, and whether every one of them
/// collided with an earlier file's game.
fn renumber(games: &mut [(usize, GameRecord)]) -> Vec<(usize, usize, bool)> {
    use anqi_server::past::MAX_GAME_NO;
    let mut next = games
        .iter()
        .map(|(_, r)| r.game)
        .filter(|&g| g <= MAX_GAME_NO)
        .max()
        .unwrap_or(0);
    // Each number taken, and by which file.
    let mut taken = std::collections::HashMap::new();
    let mut per_file: std::collections::BTreeMap<usize, (usize, bool)> = Default::default();
    for (file, record) in games.iter_mut() {
        let earlier = match taken.get(&record.game) {
            _ if record.game > MAX_GAME_NO => Some(*file),
            Some(&by) => Some(by),
            None => None,
        };
        if let Some(by) = earlier {
            next += 1;
            record.game = next;
            let entry = per_file.entry(*file).or_insert((0, true));
            entry.0 += 1;
            entry.1 &= by != *file;
        }
        taken.insert(record.game, *file);
    }
    per_file
        .into_iter()
        .map(|(file, (count, across))| (file, count, across))
        .collect()
}

/// Whether two games have the same non-empty server seed: the server's seed was fixed (one
/// drawn at random is new for every game).
fn server_seed_repeats(games: &[GameRecord]) -> bool {
    let mut seen = std::collections::HashSet::new();
    games
        .iter()
        .map(|g| g.seeds.server.as_str())
        .filter(|s| !s.is_empty())
        .any(|s| !seen.insert(s))
}
