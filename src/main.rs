//! The `anqi` command line: run the server, verify game records, list variants.

use anqi::config::Config;
use anqi::record::read_records;
use anqi::rules::{Variant, SHIPPED};
use anqi::server::Server;
use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use tokio_util::sync::CancellationToken;

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

#[derive(Subcommand)]
enum Command {
    /// Run the server: seat clients in connection order, two per game, and referee the games.
    ///
    /// Prints `listening on HOST:PORT` on stdout once clients can connect. Every finished game
    /// is appended to the records file as one JSON line. Ctrl-C (SIGINT) or SIGTERM stops the
    /// server gracefully: running games are aborted and recorded.
    ///
    /// Example: anqi serve --listen 127.0.0.1:0 --variant traditional-2x4
    Serve {
        /// Configuration file (see config.toml for every key); keys left out keep the defaults.
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        /// Address to listen on, overriding [server] listen; port 0 picks a free port.
        #[arg(long, value_name = "HOST:PORT")]
        listen: Option<String>,
        /// Variant to play: a shipped name (see `anqi variants`) or a description file.
        #[arg(long, value_name = "NAME|FILE")]
        variant: Option<String>,
        /// Records file, overriding [records] path ("" keeps no records).
        #[arg(long, value_name = "FILE")]
        records: Option<String>,
    },
    /// Verify game records: re-derive every deal from its seeds and re-play every action.
    ///
    /// Exits with status 1 if any record does not verify, naming the line and the problem.
    Replay {
        /// JSON-lines record files written by `anqi serve`.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        /// Print only failures and the summary.
        #[arg(long, short)]
        quiet: bool,
    },
    /// List the shipped variants, one line each.
    Variants,
    /// Tools for variant descriptions.
    Variant {
        #[command(subcommand)]
        command: VariantCommand,
    },
}

#[derive(Subcommand)]
enum VariantCommand {
    /// Validate a description (a file, or a shipped name) and print what it describes: board
    /// size, move and jump counts, pieces, players, sides and every rule.
    ///
    /// Exits with status 1, naming the line and the problem, when the description is invalid.
    Check {
        #[arg(value_name = "FILE|NAME")]
        file: String,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Serve {
            config,
            listen,
            variant,
            records,
        } => serve(config, listen, variant, records),
        Command::Replay { files, quiet } => replay(&files, quiet),
        Command::Variant {
            command: VariantCommand::Check { file },
        } => match Variant::load(&file) {
            Ok(v) => {
                print!("{}", anqi::variant_check::report(&v));
                Ok(ExitCode::SUCCESS)
            }
            Err(e) => {
                println!("invalid: {e}");
                Ok(ExitCode::FAILURE)
            }
        },
        Command::Variants => {
            for (name, _) in SHIPPED {
                let v = Variant::shipped(name).expect("shipped variants are valid");
                println!("{name:<20} {}", v.summary);
            }
            Ok(ExitCode::SUCCESS)
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("anqi: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
}

fn serve(
    config: Option<PathBuf>,
    listen: Option<String>,
    variant: Option<String>,
    records: Option<String>,
) -> Result<ExitCode> {
    let mut cfg = match &config {
        Some(path) => Config::load(path)?,
        None => Config::default(),
    };
    if let Some(l) = listen {
        cfg.server.listen = l;
    }
    if let Some(v) = variant {
        cfg.server.variant = v;
    }
    if let Some(r) = records {
        cfg.records.path = r;
    }
    let variant = Variant::load(&cfg.server.variant)?;
    init_logging();
    let rt = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    rt.block_on(async move {
        let server = Server::bind(cfg.clone(), variant).await?;
        let addr = server.local_addr()?;
        println!("listening on {addr}");
        std::io::stdout().flush()?;
        tracing::info!(%addr, variant = %cfg.server.variant, records = %cfg.records.path, "serving");
        let shutdown = CancellationToken::new();
        tokio::spawn(stop_on_signal(shutdown.clone()));
        server.run(shutdown).await?;
        tracing::info!("stopped");
        Ok(ExitCode::SUCCESS)
    })
}

/// Cancels `token` on SIGINT or SIGTERM.
async fn stop_on_signal(token: CancellationToken) {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = ctrl_c => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = ctrl_c.await;
            }
        }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
    tracing::info!("signal received: stopping");
    token.cancel();
}

fn replay(files: &[PathBuf], quiet: bool) -> Result<ExitCode> {
    let (mut ok, mut bad) = (0usize, 0usize);
    for file in files {
        let records = match read_records(file) {
            Ok(r) => r,
            Err(e) => {
                bad += 1;
                println!("{}: FAILED: cannot read: {e}", file.display());
                continue;
            }
        };
        for (line, record) in records {
            let verdict = record.and_then(|r| anqi::replay::verify(&r).map(|()| r));
            match verdict {
                Ok(r) => {
                    ok += 1;
                    if !quiet {
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
    Ok(if bad == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
