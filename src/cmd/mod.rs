//! The commands of `anqi`, one module each: its options (a `clap::Args` whose doc comment is
//! its `--help`) and its `run`, which returns the exit status. What several share is here:
//! logging and the stop signals.

pub mod bench;
pub mod book;
pub mod bridge;
pub mod check;
pub mod cutechess;
pub mod keep;
pub mod ladder;
pub mod r#match;
pub mod merge;
pub mod replay;
pub mod report;
pub mod serve;
pub mod solve;
pub mod tables;
pub mod token;
pub mod tournament;
pub mod variant;
pub mod variants;
pub mod view;

use anyhow::{Context, Result};
use tracing_subscriber::filter::Targets;

/// Logs to stderr at `default` unless `RUST_LOG` says otherwise (`debug`, `warn`,
/// `anqi_server=debug,info`: a level, or targets with their levels); in colour only on a
/// terminal. A `RUST_LOG` that does not read as that is ignored.
fn init_logging_at(default: tracing::Level) {
    init_logging(default, LogFormat::Text);
}

/// How log lines are written (`anqi serve --log-format`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// For people: a line of text per event, in colour on a terminal.
    #[default]
    Text,
    /// For log shippers: one JSON object per line (`timestamp`, `level`, `fields` with the
    /// message, `target`, and the spans: the game's number and variant...).
    Json,
}

/// [`init_logging_at`], in `format`.
fn init_logging(default: tracing::Level, format: LogFormat) {
    use tracing_subscriber::prelude::*;
    let filter = std::env::var("RUST_LOG")
        .ok()
        .and_then(|text| text.parse::<Targets>().ok())
        .unwrap_or_else(|| Targets::new().with_default(default));
    let registry = tracing_subscriber::registry().with(filter);
    match format {
        LogFormat::Text => registry
            .with(
                tracing_subscriber::fmt::layer()
                    .with_writer(std::io::stderr)
                    .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr())),
            )
            .init(),
        LogFormat::Json => registry
            .with(
                tracing_subscriber::fmt::layer()
                    .json()
                    .with_writer(std::io::stderr),
            )
            .init(),
    }
}

/// Listens for SIGINT and SIGTERM: the handlers are installed when this returns, and the
/// future completes on the first of them. Installed before the server says `listening on`, so
/// that a supervisor that signals at once (a test harness, `anqi.Server.stop()`) still gets a
/// graceful stop instead of the default action, which kills the process mid-write.
fn stop_signals() -> Result<impl std::future::Future<Output = ()>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut term = signal(SignalKind::terminate()).context("cannot listen for SIGTERM")?;
        let mut int = signal(SignalKind::interrupt()).context("cannot listen for SIGINT")?;
        Ok(async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
            tracing::info!("signal received: stopping");
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
            tracing::info!("signal received: stopping");
        })
    }
}
