//! The event's web pages (`--http`): every game live (on a Ray cluster, every game as it
//! ends), the standings as games finish, and no game shown whole while its deal is still to be
//! played in another.

use super::progress::{event_json, EventPage};
use super::Plan;
use crate::config::TournamentConfig;
use crate::stats;
use crate::TournamentError;
use anqi_server::config::Config;
use anqi_server::{Hub, Server};
use tokio_util::sync::CancellationToken;

/// The event's web pages (`--http`), which may outlive the event (the final standings stay up,
/// `anqi tournament --http-linger`): they stop when this is dropped.
pub struct Pages {
    /// Where they are served.
    pub addr: std::net::SocketAddr,
    stop: CancellationToken,
}

impl Drop for Pages {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// Serves the event's pages at `listen`, watching `server`'s games, until the [`Pages`]
/// handed back are dropped; returns the hub the runner tells how the event goes too.
///
/// # Errors
/// The pages cannot be served at `listen`.
pub(super) async fn serve(
    listen: &str,
    server: Option<&mut Server>,
    config: &TournamentConfig,
    one_side: bool,
    plan: &Plan,
) -> Result<(Hub, Pages), TournamentError> {
    // The pages' own token: they may outlive the event's server.
    let stop = CancellationToken::new();
    let defaults = Config::default();
    let hub = Hub::new(&defaults.http, false);
    // Without a server of its own (the games are played on a cluster), the runner adds each
    // game to the pages from its record.
    if let Some(server) = server {
        server.watch(hub.clone());
    }
    // The standings are there from the start (a resumed run's: its games so far).
    let standings = stats::standings(&plan.records, &config.engine_names(), config.sprt.as_ref());
    hub.set_event(event_json(&EventPage {
        finished: plan.records.len(),
        total: plan.games.len(),
        elapsed_s: 0.0,
        eta_s: None,
        standings: &standings,
        commitment: &plan.seed.seed.commitment(),
        revealed: None,
        done: false,
    }));
    // No game is shown whole while its deal is still to be played in another game.
    for game in &plan.todo {
        if !plan
            .deal_groups
            .all_recorded(game.deal, &plan.done, Some(game.index))
        {
            hub.withhold(game.index + 1, one_side);
        }
    }
    let web = anqi_web::Web::bind(listen, &defaults, hub.clone(), stop.clone())
        .await
        .map_err(TournamentError::io("cannot serve the event's web pages"))?;
    let web_addr = web
        .local_addr()
        .map_err(TournamentError::io("the web pages have no address"))?;
    eprintln!("web on http://{web_addr}/");
    tokio::spawn(web.run(stop.clone()));
    let pages = Pages {
        addr: web_addr,
        stop,
    };
    Ok((hub, pages))
}
