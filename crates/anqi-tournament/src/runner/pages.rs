//! The event's web pages (`--http`): every game live (on a Ray cluster, every game as it
//! ends), the standings as games finish, and no game shown whole while its deal is still to be
//! played in another.

use super::progress::event_json;
use super::Plan;
use crate::config::TournamentConfig;
use crate::stats;
use crate::TournamentError;
use anqi_server::config::Config;
use anqi_server::{Hub, Server};
use tokio_util::sync::CancellationToken;

/// Serves the event's pages at `listen` until `stop`, watching `server`'s games; returns the
/// hub the runner tells how the event goes.
///
/// # Errors
/// The pages cannot be served at `listen`.
pub(super) async fn serve(
    listen: &str,
    server: Option<&mut Server>,
    config: &TournamentConfig,
    one_side: bool,
    plan: &Plan,
    stop: &CancellationToken,
) -> Result<Hub, TournamentError> {
    let defaults = Config::default();
    let hub = Hub::new(&defaults.http, false);
    // Without a server of its own (the games are played on a cluster), the runner adds each
    // game to the pages from its record.
    if let Some(server) = server {
        server.watch(hub.clone());
    }
    // The standings are there from the start (a resumed run's: its games so far).
    let standings = stats::standings(&plan.records, &config.engine_names(), config.sprt.as_ref());
    hub.set_event(event_json(
        plan.records.len(),
        plan.games.len(),
        0.0,
        None,
        &standings,
        &plan.seed.seed.commitment(),
        None,
    ));
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
    Ok(hub)
}
