//! `anqi replay`: every record of some files verified, one line at a time.

use anqi_core::record::{GameRecord, RecordLines};
use anqi_core::replay::{verify_with, Checked};
use anqi_core::rules::{Termination, Variant};
use anqi_core::tables::{TableRules, Tables};
use anqi_tournament::book::DealBook;
use anqi_tournament::deals::{self, Dealer, DealsError};
use anqi_tournament::seeds::{self, MasterSeed};
use anyhow::Result;
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// Verify game records: re-derive every deal from its seeds and re-play every action.
///
/// Reads each file one line at a time and reports every record: verified, or FAILED with
/// its line and the problem (a line that is not a record, not UTF-8 or over 64 MiB counts
/// as a failed record), then goes on with the next. Exits with status 0 when every record
/// verified, 1 when some record failed, 2 when some file could not be read (the other files
/// are still verified).
///
/// A game the referee's endgame tables ended (termination `adjudicated`) is re-checked with
/// --tables: the final position is probed again, and the tables' verdict and winner must be the
/// record's. Without --tables, such a record is reported as verified but for its adjudication
/// (everything else checked, and its winner the one its recorded verdict gives), and counted
/// apart in the summary.
///
/// Tournament games carry their event's commitment to its master seed. Given the revealed seed
/// (--seed-file, --seed), each one's deal is also checked against it: a game committed to
/// another seed, or not dealt from this one, FAILS. A game dealt from a deal book is checked
/// against the book too (--book): its deal must be the book's entry its deal number gives.
#[derive(clap::Args)]
pub struct Args {
    /// JSON-lines record files written by `anqi serve`.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Print only failures and the summary.
    #[arg(long, short)]
    quiet: bool,
    /// Also print each verified record's move list, as the web pages' "moves" link gives it:
    /// the players, the seeds, every ply a line (the mover, the action, what it revealed,
    /// captured or drew, the thinking time, and the mover's comment in braces: the `comment`
    /// extension, an engine's depth, score and principal variation), the error replies, the
    /// lost connections, and the result.
    #[arg(long, conflicts_with = "quiet")]
    plies: bool,
    /// Endgame tables (`anqi tables build`) to re-check the adjudicated records by: the first
    /// built for a record's variant's rules is used. Repeat it for records of several variants.
    #[arg(long, value_name = "FILE")]
    tables: Vec<PathBuf>,
    /// A tournament's seed file, once its event is over and the seed revealed: every
    /// tournament game's deal is checked against it and the commitment the record carries.
    #[arg(long, value_name = "FILE", conflicts_with = "seed")]
    seed_file: Option<PathBuf>,
    /// A tournament's revealed (or fixed) master seed, as text: as --seed-file.
    #[arg(long, value_name = "TEXT")]
    seed: Option<String>,
    /// The deal book a tournament played (`[tournament.book]`): with its revealed seed, each
    /// game's deal is checked against the book's entry its deal number gives.
    #[arg(long, value_name = "FILE")]
    book: Option<PathBuf>,
}

/// What tournament games' deals are checked by (`--seed-file`, `--seed`, `--book`): the
/// revealed master seed, the book, and a dealer per way of dealing met (the master seed alone,
/// or the book in an order). The first game met that is dealt a way fixes it: in sequential
/// order, its first entry, which every later game must keep to. A game of another event fixes
/// nothing: it fails on its commitment first.
struct Dealers {
    master: MasterSeed,
    commitment: String,
    book: Option<DealBook>,
    made: HashMap<DealingKey, Dealer>,
}

/// How a game was dealt, as far as its dealer goes: the book's commitment and order.
type DealingKey = Option<(String, String)>;

impl Dealers {
    /// The seed and book given, if any.
    fn given(args: &Args) -> Result<Option<Dealers>> {
        let master = seeds::given(args.seed.as_deref(), args.seed_file.as_deref())?;
        let book = args.book.as_deref().map(DealBook::read).transpose()?;
        let Some(master) = master else {
            if book.is_some() {
                anyhow::bail!("--book checks deals with the event's revealed master seed: give --seed-file FILE (or --seed SEED) too");
            }
            return Ok(None);
        };
        Ok(Some(Dealers {
            commitment: master.commitment(),
            master,
            book,
            made: HashMap::new(),
        }))
    }

    /// Checks `record`'s deal: `Ok(false)` for a game from outside a tournament.
    fn check(&mut self, record: &GameRecord) -> Result<bool, DealsError> {
        let Some(tag) = &record.tournament else {
            return Ok(false);
        };
        if tag.commitment.as_deref() != Some(self.commitment.as_str()) {
            return deals::check_deal(record, &Dealer::of(self.master.clone()));
        }
        let key = tag
            .book
            .as_ref()
            .map(|b| (b.commitment.clone(), b.order.clone()));
        if !self.made.contains_key(&key) {
            let dealer = deals::dealer_for(
                std::slice::from_ref(record),
                &self.master,
                self.book.as_ref(),
            )?;
            self.made.insert(key.clone(), dealer);
        }
        deals::check_deal(record, &self.made[&key])
    }
}

/// The tables files given, opened for each variant met (a variant's materials are read once).
struct TablesByVariant {
    paths: Vec<PathBuf>,
    /// By variant description: the tables built for its rules, or why there are none.
    opened: HashMap<String, Result<Arc<Tables>, String>>,
}

impl TablesByVariant {
    /// The tables to re-check `record`'s adjudication by: `Ok(None)` when none were given or
    /// its variant does not parse (which the verification reports).
    fn of(&mut self, record: &GameRecord) -> Result<Option<Arc<Tables>>, String> {
        if self.paths.is_empty() {
            return Ok(None);
        }
        let Ok(variant) = Variant::parse(&record.variant_source) else {
            return Ok(None);
        };
        let paths = &self.paths;
        self.opened
            .entry(record.variant_source.clone())
            .or_insert_with(|| {
                let rules = TableRules::new(Arc::new(variant)).map_err(|e| e.to_string())?;
                let mut why = Vec::new();
                for path in paths {
                    match Tables::open(path, rules.clone()) {
                        Ok(t) => return Ok(Arc::new(t)),
                        Err(e) => why.push(e.to_string()),
                    }
                }
                Err(why.join("; "))
            })
            .clone()
            .map(Some)
    }
}

/// How a verified record ended, for its line: `(win 1 0) by resign after 13 plies`.
fn ending(r: &GameRecord) -> String {
    let result = &r.result;
    let ruling = result
        .adjudication
        .as_ref()
        .map_or(String::new(), anqi_core::record::Adjudication::shown);
    format!(
        "{} by {}{ruling} after {} plies",
        if result.win.is_empty() {
            "aborted"
        } else {
            &result.win
        },
        result.reason.name(),
        result.plies
    )
}

pub fn run(args: Args) -> Result<ExitCode> {
    let mut dealers = Dealers::given(&args)?;
    // Tournament games whose deal was checked against the revealed seed.
    let mut deals_checked = 0usize;
    let (mut ok, mut bad, mut unreadable, mut unchecked) = (0usize, 0usize, 0usize, 0usize);
    let mut tables = TablesByVariant {
        paths: args.tables.clone(),
        opened: HashMap::new(),
    };
    for file in &args.files {
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
            let verdict = record.map_err(|e| e.to_string()).and_then(|r| {
                let by_tables = if r.result.reason == Termination::Adjudicated {
                    tables
                        .of(&r)
                        .map_err(|e| format!("cannot re-check its adjudication: {e}"))?
                } else {
                    None
                };
                let checked = verify_with(&r, by_tables.as_deref()).map_err(|e| e.to_string())?;
                if let Some(dealers) = &mut dealers {
                    if dealers.check(&r).map_err(|e| e.to_string())? {
                        deals_checked += 1;
                    }
                }
                Ok((r, checked))
            });
            match verdict {
                Ok((r, checked)) => {
                    let how = match checked {
                        Checked::All => {
                            ok += 1;
                            "verified"
                        }
                        Checked::AdjudicationNotRechecked => {
                            unchecked += 1;
                            "verified but for its adjudication, not re-checked (give --tables FILE)"
                        }
                    };
                    if !args.quiet {
                        println!(
                            "{}:{line}: game {} {how}: {}",
                            file.display(),
                            r.game,
                            ending(&r)
                        );
                        if args.plies {
                            print!("{}", anqi_core::view::move_list(&r));
                        }
                    }
                }
                Err(e) => {
                    bad += 1;
                    println!("{}:{line}: FAILED: {e}", file.display());
                }
            }
        }
    }
    if dealers.is_some() {
        println!("{deals_checked} tournament deals checked against the revealed master seed");
    }
    if unchecked > 0 {
        println!(
            "{ok} verified, {unchecked} verified but for their adjudication (not re-checked: no --tables for them), {bad} failed"
        );
    } else {
        println!("{ok} verified, {bad} failed");
    }
    Ok(if unreadable > 0 {
        ExitCode::from(2)
    } else if bad > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
