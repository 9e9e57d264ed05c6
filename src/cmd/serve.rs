//! `anqi serve`: the server, with the configuration file and the command line's overrides.

use anqi_core::rules::Variant;
use anqi_server::config::Config;
use anqi_server::Server;
use anyhow::{Context, Result};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use tokio_util::sync::CancellationToken;

/// Run the server: seat clients as they complete their handshake (each game's seats in the
/// order the connections were accepted), as many per game as the variant has
/// players, and referee the games.
///
/// Prints `listening on HOST:PORT` on stdout once clients can connect. Every finished game
/// is appended to the records file as one JSON line. Ctrl-C (SIGINT) or SIGTERM stops the
/// server gracefully: running games are aborted and recorded.
///
/// Example: anqi serve --listen 127.0.0.1:0 --variant traditional-2x4
#[derive(clap::Args)]
pub struct Args {
    /// Configuration file (see config.toml for every key); keys left out keep the defaults.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Address to listen on, overriding [server] listen; port 0 picks a free port.
    #[arg(long, value_name = "HOST:PORT")]
    listen: Option<String>,
    /// Variant to play: a shipped name (see `anqi variants`) or a description file. An
    /// invalid description, or one over a limit (protocol/VARIANTS.md, Limits), stops the
    /// server before it listens, with the problem on stderr and status 2.
    #[arg(long, value_name = "NAME|FILE")]
    variant: Option<String>,
    /// Records file, overriding [records] path ("" keeps no records).
    #[arg(long, value_name = "FILE")]
    records: Option<String>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let mut cfg = match &args.config {
        Some(path) => Config::load(path)?,
        None => Config::default(),
    };
    if let Some(l) = args.listen {
        cfg.server.listen = l;
    }
    if let Some(v) = args.variant {
        cfg.server.variant = v;
    }
    if let Some(r) = args.records {
        cfg.records.path = r;
    }
    let variant = Variant::load(&cfg.server.variant)?;
    super::init_logging_at(tracing::Level::INFO);
    let rt = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    rt.block_on(async move {
        let server = Server::bind(cfg.clone(), variant).await?;
        let addr = server.local_addr()?;
        let shutdown = CancellationToken::new();
        let signals = super::stop_signals()?;
        let on_signal = shutdown.clone();
        tokio::spawn(async move {
            signals.await;
            on_signal.cancel();
        });
        println!("listening on {addr}");
        std::io::stdout().flush()?;
        tracing::info!(%addr, variant = %cfg.server.variant, records = %cfg.records.path, "serving");
        server.run(shutdown).await?;
        tracing::info!("stopped");
        Ok(ExitCode::SUCCESS)
    })
}
