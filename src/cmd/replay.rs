//! `anqi replay`: every record of some files verified, one line at a time.

use anqi_core::record::RecordLines;
use anyhow::Result;
use std::path::PathBuf;
use std::process::ExitCode;

/// Verify game records: re-derive every deal from its seeds and re-play every action.
///
/// Reads each file one line at a time and reports every record: verified, or FAILED with
/// its line and the problem (a line that is not a record, not UTF-8 or over 64 MiB counts
/// as a failed record), then goes on with the next. Exits with status 0 when every record
/// verified, 1 when some record failed, 2 when some file could not be read (the other files
/// are still verified).
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
}

pub fn run(args: Args) -> Result<ExitCode> {
    let (mut ok, mut bad, mut unreadable) = (0usize, 0usize, 0usize);
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
            let verdict = record
                .map_err(|e| e.to_string())
                .and_then(|r| anqi_core::replay::verify(&r).map(|()| r));
            match verdict {
                Ok(r) => {
                    ok += 1;
                    if !args.quiet {
                        println!(
                            "{}:{line}: game {} verified: {} by {} after {} plies",
                            file.display(),
                            r.game,
                            if r.result.win.is_empty() {
                                "aborted"
                            } else {
                                &r.result.win
                            },
                            r.result.reason.name(),
                            r.result.plies
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
    println!("{ok} verified, {bad} failed");
    Ok(if unreadable > 0 {
        ExitCode::from(2)
    } else if bad > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
