//! The event's in-process server: strict rulings, deals fixed by the organizer, records kept
//! by the runner, seats taken by token.

use super::Progress;
use crate::config::TournamentConfig;
use crate::engine::TOKEN_ENV;
use crate::TournamentError;
use anqi_core::rules::Variant;
use anqi_server::config::{Config, Ruling};
use anqi_server::{OrderDesk, Server};
use std::net::SocketAddr;

/// This machine's server ([`start`]), unless a Ray cluster plays the games (`on_ray`).
///
/// # Errors
/// As [`start`].
pub(super) async fn start_here(
    on_ray: bool,
    config: &TournamentConfig,
    variant: &Variant,
    options: &super::RunOptions,
) -> Result<Option<(Server, OrderDesk, SocketAddr)>, TournamentError> {
    if on_ray {
        return Ok(None);
    }
    let listening = options.listening.as_deref();
    start(config, variant, options.progress, listening)
        .await
        .map(Some)
}

/// Binds the event's server, with every standing token expected; says where it listens (even
/// in quiet mode when an engine connects by itself; and to `listening`, `RunOptions::listening`)
/// and warns of every engine that takes its
/// token on its command line.
///
/// # Errors
/// The server cannot bind its address.
pub(super) async fn start(
    config: &TournamentConfig,
    variant: &Variant,
    progress: Progress,
    listening: Option<&std::sync::OnceLock<SocketAddr>>,
) -> Result<(Server, OrderDesk, SocketAddr), TournamentError> {
    let mut server = Server::bind(server_config(config), variant.clone())
        .await
        .map_err(TournamentError::io("cannot start the tournament's server"))?;
    let desk = server.order_desk();
    desk.expect(
        config
            .engines
            .iter()
            .filter_map(|e| e.token.clone())
            .collect(),
    )?;
    let addr = server.local_addr().map_err(TournamentError::io(
        "the tournament's server has no address",
    ))?;
    if let Some(cell) = listening {
        let _ = cell.set(addr);
    }
    if !progress.is_quiet() || config.engines.iter().any(|e| e.command.is_none()) {
        // External engines connect here; say where, even in quiet mode.
        eprintln!("listening on {addr}");
    }
    // Not progress but a hole in the event's security: said even in quiet mode.
    for engine in config.engines.iter().filter(|e| e.token_on_command_line()) {
        eprintln!(
            "anqi: warning: engine {:?} takes its token on the command line ({{token}}), where every local user can read it (ps, /proc/PID/cmdline) and take its seat; engines also get it in the environment variable {}, which only their owner can read",
            engine.name,
            TOKEN_ENV
        );
    }
    Ok((server, desk, addr))
}

/// The server's configuration for the event: strict rulings, organizer-fixed deals, records
/// kept by the runner.
fn server_config(config: &TournamentConfig) -> Config {
    let mut server_config = Config::default();
    server_config.server.listen = config.listen.clone();
    server_config.records.path = String::new();
    server_config.records.legal_counts = config.legal_counts;
    server_config.seed.clients = false;
    // Every engine connects from this machine: no per-address cap.
    server_config.server.max_connections_per_address = 0;
    server_config.referee.illegal_action = Ruling::Lose;
    server_config.referee.out_of_turn = Ruling::Lose;
    server_config.referee.max_errors = 3;
    server_config.referee.rejoin_grace_ms = config.rejoin_grace_ms;
    server_config.referee.adjudicate = config.adjudicate;
    server_config.referee.tables = config.tables.clone().unwrap_or_default();
    server_config.referee.score_draw = config.score_draw.clone();
    server_config.referee.score_resign = config.score_resign.clone();
    server_config
}
