//! `anqi ladder`: the ladder's accounts and its database, while a server runs on it or not
//! (`anqi serve --ladder DB` runs the ladder itself; protocol/LADDER.md).

use anqi_ladder::accounts::{check_name, digest, new_secret};
use anqi_ladder::{Ledger, Store};
use anqi_server::config::Config;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Manage a ladder's accounts and database (protocol/LADDER.md).
///
/// A ladder is a server started with `anqi serve --ladder ladder.db`: bots connect with
/// their account's secret as the SEED of (init NAME SECRET), are paired close in rating and
/// with variety, and each game updates the ratings. These commands work on the database
/// while the server runs (it sees a new or retired account within a second). The database is
/// a SQLite file, or a PostgreSQL database given by its URL (postgres://USER@HOST/DB), which
/// several servers can share.
///
/// Example:
///   anqi ladder add greedy-bot --database ladder.db     # prints the account's secret
///   anqi ladder list --database ladder.db
///   anqi ladder rebuild --records games.jsonl --accounts-from ladder.db --into rebuilt.db
#[derive(clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    #[command(subcommand)]
    command: LadderCommand,
}

#[derive(clap::Subcommand)]
enum LadderCommand {
    /// Make an account and print its secret (on stdout, alone on its line). Give it to the
    /// bot, which sends it as the SEED of (init NAME SECRET): whoever knows it plays as the
    /// account, so keep it like a password. The database keeps only its SHA-256; a lost
    /// secret cannot be shown again (retire the account and make another).
    Add {
        /// The account's name: 1 to 32 of a-z A-Z 0-9 . _ - (never reused, even once
        /// retired).
        name: String,
        #[command(flatten)]
        db: Database,
    },
    /// Retire an account: it can no longer connect (its waiting connections are let go);
    /// its games and rating stay on the pages.
    Retire {
        name: String,
        #[command(flatten)]
        db: Database,
    },
    /// List the accounts with their ratings, highest first.
    List {
        #[command(flatten)]
        db: Database,
        /// The variant whose ratings to show (default: [server] variant of the config).
        #[arg(long, value_name = "NAME")]
        variant: Option<String>,
        /// Configuration file: its [server] variant and [ladder] server.
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
    },
    /// Build a database anew from records files: every ladder game of this server and
    /// variant counted again, in the files' order. The accounts (names, secrets, numbers)
    /// come from --accounts-from (the live database, or a backup of it); without it, an
    /// account is made for each name the records hold, with a new secret printed as
    /// `NAME SECRET` (the old ones are not in the records).
    Rebuild {
        /// Records files, in the order they were written.
        #[arg(long = "records", value_name = "FILE", required = true)]
        records: Vec<PathBuf>,
        /// The new database (must not exist yet): a SQLite file, or a PostgreSQL URL whose
        /// database holds no account yet.
        #[arg(long, value_name = "FILE|URL")]
        into: PathBuf,
        /// A database to take the accounts from (a SQLite file or a PostgreSQL URL).
        #[arg(long, value_name = "FILE|URL")]
        accounts_from: Option<PathBuf>,
        /// Configuration file: its [server] variant and [ladder] server.
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        /// The variant, overriding the config's.
        #[arg(long, value_name = "NAME")]
        variant: Option<String>,
    },
}

#[derive(clap::Args)]
struct Database {
    /// The ladder's database: a SQLite file (made when missing), or a PostgreSQL database's URL,
    /// postgres://USER[:PASSWORD]@HOST[:PORT]/DB (the database must exist; its tables are
    /// made), which several servers can share (protocol/LADDER.md, Several servers).
    #[arg(long, value_name = "FILE|URL", default_value = "ladder.db")]
    database: PathBuf,
}

pub fn run(args: Args) -> Result<ExitCode> {
    match args.command {
        LadderCommand::Add { name, db } => {
            check_name(&name)?;
            let store = open(&db.database)?;
            let secret = new_secret().context("no randomness to make a secret with")?;
            store.add_account(&name, &digest(&secret))?;
            println!("{secret}");
            eprintln!(
                "account {name} made in {}: its bot sends the secret above as the SEED of (init {name} SECRET)",
                shown(&db.database)
            );
        }
        LadderCommand::Retire { name, db } => {
            open(&db.database)?.retire(&name)?;
            eprintln!("account {name} retired: it can no longer connect; its games stay");
        }
        LadderCommand::List {
            db,
            variant,
            config,
        } => list(&db.database, variant, config.as_deref())?,
        LadderCommand::Rebuild {
            records,
            into,
            accounts_from,
            config,
            variant,
        } => rebuild(
            &records,
            &into,
            accounts_from.as_deref(),
            config.as_deref(),
            variant,
        )?,
    }
    Ok(ExitCode::SUCCESS)
}

/// The ladder `anqi serve --ladder` runs: its database opened and read, before the server
/// listens (a database that cannot be used stops the server at once, with the reason).
pub fn open_for_serving(
    cfg: &Config,
    variant: &anqi_core::rules::Variant,
) -> Result<std::sync::Arc<std::sync::Mutex<Ledger>>> {
    if variant.players != 2 || variant.sides.len() != 2 {
        bail!(
            "a ladder rates two-player games: {} has {} players on {} sides",
            variant.name,
            variant.players,
            variant.sides.len()
        );
    }
    if cfg.seed.server != anqi_server::config::SeedSource::Random {
        bail!("a ladder needs [seed] server = \"random\": its players' SEEDs are their secrets, so a fixed server seed would deal every game alike");
    }
    if cfg.records.path.is_empty() {
        bail!("a ladder needs a records file ([records] path, --records): its database is kept from the records, and rebuilt from them");
    }
    let store = open(Path::new(&cfg.ladder.database))?;
    let ledger = Ledger::open(store, &cfg.ladder.server, &variant.name, &cfg.records.path)?;
    Ok(std::sync::Arc::new(std::sync::Mutex::new(ledger)))
}

/// Switches `server` to ladder seating and starts the ladder beside it: what the records file
/// holds that the database does not is counted first. The task ends after the server, once
/// the last record is counted. Also returns what the ladder shows and does for the pages.
pub fn start(
    server: &mut anqi_server::Server,
    cfg: &Config,
    ledger: std::sync::Arc<std::sync::Mutex<Ledger>>,
) -> Result<(
    tokio::task::JoinHandle<()>,
    std::sync::Arc<dyn anqi_server::watch::LadderPages>,
)> {
    let l = &cfg.ladder;
    let desk = server.ladder_desk(anqi_server::LadderRules {
        server: l.server.clone(),
        connections: l.connections_per_account,
        games: l.games_per_account,
        matching: anqi_server::MatchRules { variety: l.variety },
    });
    let (tx, records) = tokio::sync::mpsc::unbounded_channel();
    server.observe_records(tx);
    // After the index's highest too: a records file rotated or emptied must not make the
    // server number a game as one the index holds.
    let last = ledger.lock().map_or(Ok(0), |l| l.last_game_no())?;
    server.number_after(last);
    let caught_up = anqi_ladder::service::prepare(&ledger, &desk, Path::new(&cfg.records.path))?;
    let accounts = ledger.lock().map_or(0, |l| {
        l.seating_accounts()
            .map_or(0, |a| a.iter().filter(|a| !a.retired).count())
    });
    tracing::info!(database = %anqi_ladder::store::describe(&l.database), accounts, server = %l.server, "the ladder is open");
    if caught_up > 0 {
        tracing::info!(games = caught_up, "ladder caught up from the records file");
    }
    let metrics = server.metrics();
    let registrar = anqi_ladder::registration::Registrar::new(
        anqi_ladder::registration::RegistrationRules {
            people: anqi_server::watch::LadderPeople {
                registration: l.registration,
                guests: l.guests,
            },
            per_hour: l.registrations_per_hour,
            per_hour_per_address: l.registrations_per_hour_per_address,
            ipv4_prefix: cfg.server.ipv4_prefix,
            ipv6_prefix: cfg.server.ipv6_prefix,
        },
        ledger.clone(),
        desk.clone(),
        metrics.clone(),
    );
    let pages = std::sync::Arc::new(anqi_ladder::pages::Pages::new(registrar));
    let task = tokio::spawn(anqi_ladder::service::run(ledger, desk, records, metrics));
    Ok((task, pages))
}

fn open(path: &Path) -> Result<Store> {
    Store::open(path).with_context(|| format!("cannot open the ladder database {}", shown(path)))
}

/// A database's location for messages: a PostgreSQL URL's password hidden.
fn shown(location: &Path) -> String {
    anqi_ladder::store::describe(&location.to_string_lossy())
}

/// The config's variant (or `variant`), and its ladder's server name.
fn ladder_of(config: Option<&Path>, variant: Option<String>) -> Result<(String, String, String)> {
    let cfg = match config {
        Some(path) => Config::load(path)?,
        None => Config::default(),
    };
    let variant = variant.unwrap_or(cfg.server.variant);
    // The variant's name as records hold it (a description file names its variant).
    let name = anqi_core::rules::Variant::load(&variant)?.name;
    Ok((name, cfg.ladder.server, cfg.records.path))
}

fn list(database: &Path, variant: Option<String>, config: Option<&Path>) -> Result<()> {
    let (variant, server, records) = ladder_of(config, variant)?;
    let ledger = Ledger::open(open(database)?, &server, &variant, &records)?;
    let board = anqi_ladder::pages::leaderboard(&ledger)?;
    println!("{variant}: {} rated games", board["games"]);
    println!(
        "{:>4}  {:<32} {:>7} {:>6} {:>6}  W/D/L",
        "rank", "name", "rating", "±95%", "games"
    );
    for p in board["players"].as_array().into_iter().flatten() {
        let rank = p["rank"]
            .as_u64()
            .map_or("-".to_string(), |r| r.to_string());
        let retired = if p["retired"] == true {
            "  (retired)"
        } else {
            ""
        };
        println!(
            "{rank:>4}  {:<32} {:>7.1} {:>6.1} {:>6}  {}/{}/{}{retired}",
            p["name"].as_str().unwrap_or(""),
            p["rating"].as_f64().unwrap_or(0.0),
            p["interval"].as_f64().unwrap_or(0.0),
            p["games"].as_u64().unwrap_or(0),
            p["wins"],
            p["draws"],
            p["losses"],
        );
    }
    Ok(())
}

fn rebuild(
    records: &[PathBuf],
    into: &Path,
    accounts_from: Option<&Path>,
    config: Option<&Path>,
    variant: Option<String>,
) -> Result<()> {
    if into.exists() {
        bail!("{} exists: rebuild makes a new database", into.display());
    }
    if let Some(file) = records.iter().find(|f| !f.is_file()) {
        bail!("{} is not a records file", file.display());
    }
    let (variant, server, records_path) = ladder_of(config, variant)?;
    let store = open(into)?;
    // A PostgreSQL database is made beforehand: it must be new to the ladder.
    if !store.accounts()?.is_empty() {
        bail!(
            "{} holds accounts already: rebuild makes a new database",
            shown(into)
        );
    }
    match accounts_from {
        Some(from) => {
            let from = Store::open(from).with_context(|| format!("cannot open {}", shown(from)))?;
            store.copy_accounts(&from.accounts()?)?;
        }
        None => {
            for name in anqi_ladder::ledger::names_in(records, &server, &variant) {
                if check_name(&name).is_err() {
                    continue;
                }
                let secret = new_secret().context("no randomness to make a secret with")?;
                store.add_account(&name, &digest(&secret))?;
                println!("{name} {secret}");
            }
        }
    }
    let mut ledger = Ledger::open(store, &server, &variant, &records_path)?;
    let mut counted = 0;
    for file in records {
        counted += ledger.catch_up(file)?;
    }
    eprintln!(
        "{} rebuilt: {counted} ladder games of server {server}, variant {variant}",
        shown(into)
    );
    Ok(())
}
