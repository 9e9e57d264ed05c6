//! `anqi token`: a fresh standing token for an engine that connects by itself.

use anyhow::Result;
use std::process::ExitCode;

/// Print a fresh secret token for an engine that connects to tournaments by itself.
///
/// Put it in the tournament file as the engine's standing token (`token = "..."` in its
/// [[tournament.engine]]) and give it to the engine, which sends it as the SEED of
/// (init NAME SEED) for each of its games. Whoever knows it can play that engine's games:
/// keep it secret, like a password. It is 128 bits from the operating system's random
/// source.
#[derive(clap::Args)]
pub struct Args {}

pub fn run(_: Args) -> Result<ExitCode> {
    println!("{}", anqi_tournament::token::fresh()?);
    Ok(ExitCode::SUCCESS)
}
