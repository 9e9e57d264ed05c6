//! The event's master seed: where it comes from (fixed, kept in its seed file, or drawn now),
//! its commitment said before the first game, and its reveal once the event is over; and the
//! deal book the event plays instead, when it has one.

use super::progress::say;
use super::Progress;
use crate::book::{BookPlan, DealBook};
use crate::config::TournamentConfig;
use crate::deals::Dealer;
use crate::schedule::ScheduledGame;
use crate::seeds::{self, MasterSeed};
use crate::TournamentError;
use anqi_core::record::read_records;
use anqi_core::rules::Variant;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where an event's master seed came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SeedOrigin {
    /// The tournament file's `seed`, or `--seed`: public, for reproducible experiments.
    Fixed,
    /// Read from the event's seed file.
    Kept(PathBuf),
    /// Drawn at random and written to the event's seed file just now.
    Created(PathBuf),
}

/// An event's master seed, and where it is kept.
#[derive(Clone, Debug)]
pub struct EventSeed {
    pub seed: MasterSeed,
    pub origin: SeedOrigin,
    /// Whether its seed file says the event is over and its seed revealed.
    pub revealed: bool,
}

impl EventSeed {
    /// The seed file, when the seed is kept in one.
    pub fn file(&self) -> Option<&Path> {
        match &self.origin {
            SeedOrigin::Fixed => None,
            SeedOrigin::Kept(p) | SeedOrigin::Created(p) => Some(p),
        }
    }
}

/// The event's master seed: the fixed one, or the one in its seed file (`seed_file`, else
/// `OUTPUT.seed`), drawn and written there when the event starts. Shards never draw one: they
/// must all deal from the same seed, so the file must be there already (`anqi tournament FILE
/// --prepare` writes it).
///
/// # Errors
/// A shard without its seed file; a seed file missing while the records file already holds
/// games dealt from it; an unreadable or changed seed file.
pub fn event_seed(
    config: &TournamentConfig,
    output: &Path,
    shard: Option<(u64, u64)>,
) -> Result<EventSeed, TournamentError> {
    if let Some(text) = &config.seed {
        return Ok(EventSeed {
            seed: MasterSeed::fixed(text)
                .map_err(|e| TournamentError::Config(format!("seed: {e}")))?,
            origin: SeedOrigin::Fixed,
            revealed: false,
        });
    }
    let path = config
        .seed_file
        .as_ref()
        .map_or_else(|| seeds::default_seed_file(output), PathBuf::from);
    if path.exists() {
        let file = seeds::read_seed_file_whole(&path)
            .map_err(|e| TournamentError::Config(e.to_string()))?;
        return Ok(EventSeed {
            seed: file.seed,
            origin: SeedOrigin::Kept(path),
            revealed: file.revealed,
        });
    }
    if let Some((i, n)) = shard {
        return Err(TournamentError::Config(format!(
            "shard {i}/{n}: the shards of one event deal from one master seed, kept in a seed file, and {} does not exist. Write it once with `anqi tournament FILE --prepare --seed-file {}` (it prints the event's commitment), copy it to every machine, and give every shard --seed-file {}; or fix the seed (seed = \"...\", --seed) for a reproducible event whose deals anyone can compute",
            path.display(),
            path.display(),
            path.display(),
        )));
    }
    // Games already dealt from a seed that is not here: a new one would deal them otherwise,
    // and the event would be two.
    let has_games = read_records(output)
        .map(|lines| lines.into_iter().any(|(_, r)| r.is_ok()))
        .unwrap_or(false);
    if has_games {
        return Err(TournamentError::Config(format!(
            "{} holds games of this event, but its seed file {} is missing: put it back (or name it with --seed-file) to resume; a new seed would deal the remaining games of another event",
            output.display(),
            path.display()
        )));
    }
    let seed = MasterSeed::fresh().map_err(|e| TournamentError::Config(e.to_string()))?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(TournamentError::io(format!(
            "cannot create the directory of {}",
            path.display()
        )))?;
    }
    seeds::write_seed_file(&path, &seed).map_err(|e| TournamentError::Config(e.to_string()))?;
    Ok(EventSeed {
        seed,
        origin: SeedOrigin::Created(path),
        revealed: false,
    })
}

/// Where the event's deals come from: its master seed, or its deal book (`[tournament.book]`),
/// read and checked against the variant and the schedule before any engine starts.
///
/// # Errors
/// An unreadable or changed book, one written for another variant, or one too short for the
/// schedule's deals.
pub(super) fn event_dealer(
    config: &TournamentConfig,
    variant: &Variant,
    master: &MasterSeed,
    schedule: &[ScheduledGame],
) -> Result<Dealer, TournamentError> {
    let Some(book) = &config.book else {
        return Ok(Dealer::of(master.clone()));
    };
    let fail = |e: String| TournamentError::Config(format!("[tournament.book]: {e}"));
    let read = DealBook::read(Path::new(&book.file)).map_err(|e| fail(e.to_string()))?;
    if !read.is_whole() {
        return Err(fail(format!(
            "{} is a proof of {} of a book's entries, not the book: an event plays the book itself",
            book.file,
            read.proven()
        )));
    }
    if let Some(v) = read.variant().filter(|&v| v != variant.name) {
        return Err(fail(format!(
            "{} holds deals of {v}, and this event plays {}: the same seed deals another game in another variant. Play it with variant = \"{v}\", or write a book for {} (anqi book new, or anqi book from its records)",
            book.file, variant.name, variant.name
        )));
    }
    let deals = schedule.iter().map(|g| g.deal + 1).max().unwrap_or(0);
    let plan = BookPlan::new(Arc::new(read), book.order, book.skip, master, deals)
        .map_err(|e| fail(format!("{}: {e}", book.file)))?;
    Ok(Dealer {
        master: master.clone(),
        book: Some(plan),
    })
}

/// Says where the event's master seed (and its book) come from and prints the commitments,
/// which every record of the event carries too (quiet: the commitments alone).
pub(super) fn announce_seed(
    seed: &EventSeed,
    book: Option<&BookPlan>,
    output: &Path,
    mode: Progress,
    finished: usize,
    total: usize,
) {
    let commitment = seed.seed.commitment();
    let source = match &seed.origin {
        SeedOrigin::Fixed => {
            "a fixed master seed (the tournament file's seed, or --seed): anyone who knows it computes every deal".to_string()
        }
        SeedOrigin::Kept(p) => format!("the master seed kept in {}", p.display()),
        SeedOrigin::Created(p) => format!(
            "a new random master seed, kept secret in {} until the event ends",
            p.display()
        ),
    };
    match mode {
        // Even quiet: it is to be published before the games, and only the records (secret
        // until the end) would hold it otherwise.
        Progress::Quiet => {
            say(&format!("commitment {commitment}"));
            if let Some(plan) = book {
                say(&format!(
                    "book commitment {}, {}",
                    plan.book().commitment(),
                    plan.describe()
                ));
            }
        }
        Progress::Silent => {}
        Progress::Text => {
            match book {
                None => say(&format!(
                    "deals of {} from {source}; commitment {commitment}",
                    output.display()
                )),
                Some(plan) => say(&format!(
                    "deals of {} from a deal book of {} deals, played in {} (book commitment {}); engine seeds from {source}; commitment {commitment}",
                    output.display(),
                    plan.book().len(),
                    plan.describe(),
                    plan.book().commitment(),
                )),
            }
            // A book taken from records is as public as they are.
            if let Some(v) = book.and_then(|plan| plan.book().variant()) {
                say(&format!(
                    "note: the deal book holds the deals of earlier {v} games (anqi book from): whoever has read their records knows these deals; fine for comparing your own engines, not for an event among others'"
                ));
            }
            if finished > 0 {
                say(&format!(
                    "resuming: {finished} of {total} games already played"
                ));
            }
        }
        Progress::Json => say(&serde_json::json!({
            "finished": finished,
            "total": total,
            "commitment": commitment,
            "seed_file": seed.file().map(|p| p.display().to_string()),
            "fixed_seed": seed.origin == SeedOrigin::Fixed,
            "book": book.map(|plan| serde_json::json!({
                "commitment": plan.book().commitment(),
                "deals": plan.book().len(),
                "order": plan.order().as_str(),
                "skip": plan.skip(),
            })),
        })
        .to_string()),
    }
}

/// At the end of an event whose every game is recorded: the master seed is revealed (printed,
/// shown on the event's pages, and its seed file marked revealed so that nothing is dealt from
/// it again), so that anyone can check every deal against the commitment.
pub(super) fn reveal_seed(
    seed: &EventSeed,
    output: &Path,
    mode: Progress,
) -> Result<(), TournamentError> {
    if let Some(path) = seed.file() {
        if !seed.revealed {
            seeds::mark_revealed(path, &seed.seed)
                .map_err(|e| TournamentError::Config(e.to_string()))?;
        }
    }
    let check = match seed.file() {
        Some(path) => format!("--seed-file {}", path.display()),
        None => "--seed SEED".into(),
    };
    match mode {
        Progress::Quiet | Progress::Silent => {}
        Progress::Text => say(&format!(
            "event complete: master seed {} (commitment {}); anyone can check every deal with: anqi report {} {check}",
            seed.seed.reveal(),
            seed.seed.commitment(),
            output.display()
        )),
        Progress::Json => say(
            &serde_json::json!({
                "complete": true,
                "master_seed": seed.seed.reveal(),
                "commitment": seed.seed.commitment(),
            })
            .to_string(),
        ),
    }
    Ok(())
}
