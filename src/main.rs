//! anqi: the reference server for Chinese Dark Chess (暗棋, Banqi) and its variants, as one
//! program: `anqi serve`, `replay`, `variants`, `tournament`, `match`, `report`, `merge`,
//! `bridge`, `bench` and friends.
//!
//! # Crate map
//!
//! Builds on: `anqi-core`, `anqi-server`, `anqi-ladder`, `anqi-web`, `anqi-client`, `anqi-tournament`
//! Compiles tokio: yes (it serves, plays and runs events on it).
//!
//! (`tests/integration/layout.rs` checks both lines against `cargo metadata` and `cargo tree`.)
//!
//! # Layout
//!
//! The game and its bytes are `anqi-core` (`crates/anqi-core`), the server `anqi-server`
//! (`crates/anqi-server`), the web pages `anqi-web` (`crates/anqi-web`), tournaments, bridges
//! and engine keepers `anqi-tournament` (`crates/anqi-tournament`); each opens with a map of
//! its own. The program adds:
//!
//! - this file: the command line's list of commands.
//! - `cmd/`: one module per command (`serve`, `replay`, `view`, `variants`, `variant`, `tournament`,
//!   `match`, `report`, `merge`, `token`, `book`, `bridge`, `bench`, `ladder`): its options, whose doc comments
//!   are its `--help`, and its `run`; and `cutechess`, `anqi match`'s cutechess and fastchess
//!   command line, recognised here before clap reads the line.
//! - `bench`: `anqi bench`, every performance figure beside its floor measured in the same
//!   run (the server, an echo server and the clients as separate processes of this binary).
//!
//! # Where to read next
//! `protocol/PROTOCOL.md` for the protocol as clients see it, `protocol/VARIANTS.md` for the
//! variant description format, `protocol/RECORDS.md` for the game records, `protocol/GAMES.md`
//! for a transcript of each kind of game, `TOURNAMENTS.md` for tournaments, and
//! `protocol/BRIDGES.md` for engines of other protocols.

// The command line's doc comments are its `--help` text, which names config sections as
// `[server]`: to rustdoc those read as links.
#![allow(rustdoc::broken_intra_doc_links)]

mod bench;
mod cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// anqi: the reference server for Chinese Dark Chess (Banqi) and its variants.
///
/// Bots connect over TCP and speak the S-expression protocol of Jouandeau's paper
/// (protocol/PROTOCOL.md). Logs go to stderr; set RUST_LOG (e.g. RUST_LOG=debug) for more.
#[derive(Parser)]
#[command(name = "anqi", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The commands, in the order `anqi --help` lists them; each one's help is on its options'
/// type in `cmd/`.
#[derive(Subcommand)]
enum Command {
    Serve(cmd::serve::Args),
    Replay(cmd::replay::Args),
    View(cmd::view::Args),
    Variants(cmd::variants::Args),
    Bench(bench::BenchArgs),
    BenchClient(bench::client::ClientArgs),
    BenchEcho(bench::echo::EchoArgs),
    Tournament(cmd::tournament::Args),
    TournamentUnit(cmd::tournament::UnitArgs),
    Match(cmd::r#match::Args),
    Check(cmd::check::Args),
    Report(cmd::report::Args),
    Merge(cmd::merge::Args),
    Token(cmd::token::Args),
    Book(cmd::book::Args),
    Variant(cmd::variant::Args),
    Bridge(cmd::bridge::Args),
    Keep(cmd::keep::Args),
    Solve(cmd::solve::Args),
    Tables(cmd::tables::Args),
    Ladder(cmd::ladder::Args),
}

fn main() -> ExitCode {
    // `anqi match -engine cmd=...`: cutechess's and fastchess's command line, whose
    // single-dash long options clap cannot read, so it is recognised first.
    if let Some(words) = cmd::cutechess::dialect(std::env::args_os()) {
        return exit_status(cmd::cutechess::run(words));
    }
    let command = Cli::parse().command;
    // The commands that only print end quietly when their reader goes away (`| head`).
    if matches!(
        command,
        Command::Replay(_)
            | Command::Variants(_)
            | Command::Report(_)
            | Command::Merge(_)
            | Command::Token(_)
            | Command::Variant(_)
    ) {
        anqi_server::sys::default_sigpipe();
    }
    let result = match command {
        Command::Serve(args) => cmd::serve::run(args),
        Command::Replay(args) => cmd::replay::run(args),
        Command::View(args) => cmd::view::run(args),
        Command::Variants(args) => cmd::variants::run(args),
        Command::Bench(args) => cmd::bench::run(args),
        Command::BenchClient(args) => cmd::bench::run_client(args),
        Command::BenchEcho(args) => cmd::bench::run_echo(args),
        Command::Tournament(args) => cmd::tournament::run(args),
        Command::TournamentUnit(args) => cmd::tournament::run_unit(args),
        Command::Match(args) => cmd::r#match::run(args),
        Command::Check(args) => cmd::check::run(args),
        Command::Report(args) => cmd::report::run(args),
        Command::Merge(args) => cmd::merge::run(args),
        Command::Token(args) => cmd::token::run(args),
        Command::Book(args) => cmd::book::run(args),
        Command::Variant(args) => cmd::variant::run(args),
        Command::Bridge(args) => cmd::bridge::run(args),
        Command::Keep(args) => cmd::keep::run(args),
        Command::Solve(args) => cmd::solve::run(args),
        Command::Tables(args) => cmd::tables::run(args),
        Command::Ladder(args) => cmd::ladder::run(args),
    };
    exit_status(result)
}

/// A command's status, its error said on stderr (status 2).
fn exit_status(result: anyhow::Result<ExitCode>) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("anqi: {e:#}");
            ExitCode::from(2)
        }
    }
}
