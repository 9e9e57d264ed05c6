//! `anqi variants`: the shipped variants, one line each.

use anqi_core::rules::{Variant, SHIPPED};
use anyhow::Result;
use std::process::ExitCode;

/// List the shipped variants, one line each.
#[derive(clap::Args)]
pub struct Args {}

pub fn run(_: Args) -> Result<ExitCode> {
    for (name, _) in SHIPPED {
        let v = Variant::shipped(name).expect("shipped variants are valid");
        println!("{name:<20} {}", v.summary);
    }
    Ok(ExitCode::SUCCESS)
}
