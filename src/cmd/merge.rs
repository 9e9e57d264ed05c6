//! `anqi merge`: tournament outputs into one file, in schedule order.

use anyhow::Result;
use std::path::PathBuf;
use std::process::ExitCode;

/// Merge tournament outputs (shards, or a resumed run's pieces) into one file, one line per
/// game in schedule order; identical duplicates are kept once, conflicting ones refused.
#[derive(clap::Args)]
pub struct Args {
    /// Output file.
    #[arg(long, short, value_name = "FILE")]
    output: PathBuf,
    #[arg(required = true, value_name = "FILE")]
    inputs: Vec<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let records = anqi_tournament::merge_records(&args.inputs)?;
    anqi_tournament::write_records(&args.output, &records)?;
    println!(
        "{} games written to {}",
        records.len(),
        args.output.display()
    );
    Ok(ExitCode::SUCCESS)
}
