//! `anqi bench` and the two processes it starts of this binary, `bench-client` and
//! `bench-echo` (hidden). Their options are the bench's own types (`crate::bench`).

use anyhow::Result;
use std::process::ExitCode;

pub fn run(args: crate::bench::BenchArgs) -> Result<ExitCode> {
    crate::bench::run(&args)
}

pub fn run_client(args: crate::bench::client::ClientArgs) -> Result<ExitCode> {
    crate::bench::client::run(&args).map(|()| ExitCode::SUCCESS)
}

pub fn run_echo(args: crate::bench::echo::EchoArgs) -> Result<ExitCode> {
    crate::bench::echo::run(&args).map(|()| ExitCode::SUCCESS)
}
