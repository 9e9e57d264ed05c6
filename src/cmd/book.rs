//! `anqi book`: deal books, files of deals that several matches and tournaments play
//! (`anqi_tournament::book`; TOURNAMENTS.md, "Deal books").

use anqi_tournament::book::DealBook;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Write and inspect deal books: the same deals for several events.
///
/// A deal book is a list of deals (the seeds games are dealt from). A match or tournament
/// that plays one (anqi match --book FILE, [tournament.book], cutechess's -openings
/// file=FILE) takes its deals from the book instead of its master seed, each deal played
/// twice, seats swapped: two events with one book play the same deals, so engines are
/// compared on the same games (as opening books do for chess engine testing).
///
/// A book is as secret as a seed file: whoever reads it knows where every face-down piece
/// of every deal lies. It is written readable by its owner alone, and `show` prints its size
/// and commitment, never a deal. A book taken from published records is public: use it to
/// compare your own engines, not in an event among others' engines.
///
/// Examples:
///   anqi book new --deals 500 --output deals.book
///   anqi match search "mine=./my-bot --connect {addr}" --games 1000 --book deals.book
///   anqi book from spring.jsonl --output spring.book     # the deals an event played
///   anqi book show deals.book
///   anqi book prove deals.book v1.jsonl --output v1.proof   # publish with the records
#[derive(clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    #[command(subcommand)]
    command: BookCommand,
}

#[derive(clap::Subcommand)]
enum BookCommand {
    /// Write a book of fresh deals: each one 256 random bits from the operating system,
    /// independent of the others (a finished game tells nothing of the book's other deals),
    /// for any variant.
    New {
        /// How many deals (each is played by two games of an event, seats swapped).
        #[arg(long, value_name = "N")]
        deals: usize,
        /// The book file to write (never an existing file).
        #[arg(long, value_name = "FILE")]
        output: PathBuf,
    },
    /// Write a book of the deals tournament records played, in the order of the files and of
    /// the deals in each, every deal once: another event plays them again. The book is for
    /// the records' variant.
    From {
        /// Records files of tournaments or matches (each file one event, its shards merged:
        /// anqi merge).
        #[arg(required = true, value_name = "RECORDS")]
        records: Vec<PathBuf>,
        /// The book file to write (never an existing file).
        #[arg(long, value_name = "FILE")]
        output: PathBuf,
    },
    /// Write a proof of the entries tournament records played from the book: each entry
    /// with its deal and its Merkle path to the book's commitment. Publish it with the
    /// records once the event is over: anyone checks every deal with anqi report RECORDS
    /// --seed-file SEED --book PROOF, while the book's other entries stay secret for later
    /// events.
    Prove {
        /// The book the records were dealt from.
        #[arg(value_name = "BOOK")]
        book: PathBuf,
        /// Records of events that played it.
        #[arg(required = true, value_name = "RECORDS")]
        records: Vec<PathBuf>,
        /// The proof file to write (never an existing file).
        #[arg(long, value_name = "FILE")]
        output: PathBuf,
    },
    /// Say how many deals a book holds, for which variant, and its commitment (which the
    /// records of the games dealt from it carry). Never a deal. For a proof: how many
    /// entries it proves.
    Show {
        #[arg(value_name = "FILE")]
        book: PathBuf,
    },
}

pub fn run(args: Args) -> Result<ExitCode> {
    match args.command {
        BookCommand::New { deals, output } => {
            let book = DealBook::fresh(deals)?;
            book.write(&output)?;
            say(&book, &output);
        }
        BookCommand::From { records, output } => {
            let mut games = Vec::new();
            for file in &records {
                let event = anqi_tournament::load(std::slice::from_ref(file))
                    .with_context(|| format!("cannot read {}", file.display()))?;
                let at = file.display().to_string();
                games.extend(event.into_iter().map(|r| (at.clone(), r)));
            }
            let book = DealBook::from_records(&games)?;
            book.write(&output)?;
            say(&book, &output);
        }
        BookCommand::Prove {
            book,
            records,
            output,
        } => prove(&book, &records, &output)?,
        BookCommand::Show { book } => say(&DealBook::read(&book)?, &book),
    }
    Ok(ExitCode::SUCCESS)
}

/// `anqi book prove`: the entries `records` played from `book`, proven into `output`.
fn prove(book: &Path, records: &[PathBuf], output: &Path) -> Result<()> {
    let book = DealBook::read(book)?;
    let mut entries = std::collections::BTreeSet::new();
    for file in records {
        let games = anqi_tournament::load(std::slice::from_ref(file))
            .with_context(|| format!("cannot read {}", file.display()))?;
        for r in &games {
            let Some((tag, b)) = r
                .tournament
                .as_ref()
                .and_then(|t| Some((t, t.book.as_ref()?)))
                .filter(|(_, b)| b.commitment == book.commitment())
            else {
                continue;
            };
            // Only what the game really played is published: a record that names an entry
            // whose deal it was not dealt would publish a deal still to be played.
            if !r.seeds.clients.is_empty() || book.deal(b.entry) != Some(r.seeds.server.as_str()) {
                anyhow::bail!(
                    "{}: game {} names the book's entry {}, but it was not dealt that entry's deal: the record was changed, and nothing is proven",
                    file.display(),
                    tag.index,
                    b.entry
                );
            }
            entries.insert(b.entry);
        }
    }
    if entries.is_empty() {
        anyhow::bail!(
            "the records hold no game dealt from this book (commitment {}): nothing to prove",
            book.commitment()
        );
    }
    let text = book.prove(&entries)?;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(output)
        .and_then(|mut f| std::io::Write::write_all(&mut f, text.as_bytes()))
        .with_context(|| format!("cannot write the proof {}", output.display()))?;
    let proof = DealBook::read(output)?;
    say(&proof, output);
    Ok(())
}

/// What `anqi book` says of a book: its size, variant and commitment, on stdout.
fn say(book: &DealBook, path: &std::path::Path) {
    let proves = match book.is_whole() {
        true => String::new(),
        false => format!("a proof of {} entries of ", book.proven()),
    };
    println!(
        "{}: {proves}{} deals, for {}; commitment {}",
        path.display(),
        book.len(),
        book.variant()
            .map_or("any variant".to_string(), |v| format!("the variant {v}")),
        book.commitment()
    );
}
