//! anqi-web: the web pages where anyone watches the games of an anqi server (`anqi serve
//! --http`), of a records file (`anqi view`), or of a tournament, live; and the JSON API and
//! WebSocket feed under them. The HTTP API is documented, as transcripts, in
//! `protocol/WEB.md`.
//!
//! It serves from the process that plays the games, on a runtime of its own whose threads yield
//! to the games' (`runtime`), and reads the games only through `anqi_server::watch::Hub`: a
//! game never waits for a page. What it shows is `anqi_core::view`'s public view, which holds
//! no face-down piece, seed or token before a game's end.
//!
//! # Crate map
//!
//! Builds on: `anqi-core`, `anqi-server`, `anqi-client`.
//! Compiles tokio: yes (axum, on the pages' own tokio runtime).
//!
//! (`tests/integration/layout.rs` checks both lines against `cargo metadata` and `cargo tree`.)
//!
//! # The crates it needs
//!
//! - `anqi-core`: the public view and its events (`view`), the variants and the actions a
//!   seat may send (`rules`), the hex of a seat's token (`hex`).
//! - `anqi-server`: the hub it reads the games from (`watch`), the local door where people
//!   take seats (`door`), `config.toml`'s `[http]` table, and the caps it counts connections
//!   and seats with (`limits`).
//! - `anqi-client`, without its TCP half (`default-features = false`: no connection, no
//!   `anqi-bot` program): a person's seat follows its game with the client library's
//!   `Tracker`, and the bots a person plays against are its reference bots
//!   (`anqi_client::bots`), both on the server's local door.
//!
//! # Layout
//!
//! - `runtime`: the pages' own thread and runtime, at a lower priority than the games'.
//! - `serve`: the accept loop and each connection (hyper's HTTP/1 with a deadline for a
//!   request's header and a bounded buffer; the connection waiting longest for a request let
//!   go when the pages are full), and the answers' gzip (`compression`).
//! - `requests`: how many requests a second a connection and a client network may make (429).
//! - `hosts`: the names the pages answer to (DNS rebinding) and the origins of the pages that
//!   may open a WebSocket or take a seat; why not (`HostRefusal`, `ForeignOrigin`).
//! - `listener`: the listening socket, the connections' idle limit and bounded send buffer,
//!   and the answer past the connection caps (in all and per client network, as the game
//!   server counts them).
//! - `api`: the JSON routes (the game list, one game's events) and a finished game's move
//!   list as text.
//! - `ladder`: a ladder's routes (the leaderboard, a player, an account made on request), as
//!   the ladder writes them (`anqi_server::watch::LadderPages`).
//! - `ladder_seats`: a person's seat on a ladder: by an account's secret, or as a guest.
//! - `gzipped`: a finished game's events gzipped once, off the pages' thread, and kept.
//! - `ops`: what an operator reads: `GET /metrics` (Prometheus's text format: the server's
//!   counters, `anqi_server::metrics`, the pages' requests by route and status, and gauges
//!   read at the scrape), `GET /healthz` and `GET /readyz`; served alone, for any `Host`, on
//!   an address of their own by `Web::bind_ops` (`anqi serve --metrics`).
//! - `live`: a game's events over a WebSocket as they happen, after the ones so far; the
//!   observer that falls behind is dropped.
//! - `assets`: the page (plain HTML, CSS and JavaScript modules under `assets/`, embedded in
//!   the binary: no build step, no CDN, works offline), each file with an `ETag` so that a
//!   reload is answered `304 Not Modified`. The modules, one concept each:
//!   `app.js` (the entry point: the page's address to its view); the views `lobby.js` (the
//!   games), `sit-down.js` (the lobby's form to play), `game.js` (one game), `seat.js` (a
//!   person's seat), `seat-panel.js` (the seat's controls on its game's page), `exchange.js`
//!   (a finished game's exchange), `standings.js` (a tournament's) and `ladder.js` (a
//!   ladder's leaderboard and a player's page); and what they share,
//!   `api.js` (every route of the API the page uses), `board.js` (drawing a board, a
//!   board's picture for the lobby, and the mobility curves), `notation.js` (cells, plies
//!   and results in words), `eval.js` (the evaluation graph from the engines' scored
//!   comments), `sound.js` (the sounds, and their toggle), `dom.js` (building elements),
//!   `format.js` (times) and `page.js` (the page's fixed parts: the main area, the 漢字 and
//!   dark toggles).
//!
//! - [`seats`]: a seat for a person (`[http] humans = true`): the relay that speaks the
//!   protocol for them through the server's local door, and the bots started against them;
//!   why a seat or a click is refused ([`seats::SeatRefusal`], [`seats::NameRefusal`],
//!   [`seats::ActRefusal`]).
//! - `play`: the seats' routes (sit down, the seat's own WebSocket).
//!
//! `lib.rs` puts them together in [`Web`]; `api` and `live` read the hub, `play` the seats,
//! `listener` knows nothing of games.

mod api;
mod assets;
mod gzipped;
mod hosts;
mod ladder;
mod ladder_seats;
mod listener;
mod live;
mod ops;
mod play;
mod requests;
mod runtime;
pub mod seats;
mod serve;

use anqi_core::rules::Variant;
use anqi_server::config::Config;
use anqi_server::config::HttpConfig;
use anqi_server::limits::Admission;
use anqi_server::{Door, Hub};
use axum::extract::DefaultBodyLimit;
use axum::routing::get;
use axum::Router;
use std::net::SocketAddr;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// What the routes share.
#[derive(Clone)]
struct Shared {
    hub: Hub,
    shutdown: CancellationToken,
    /// People's seats, when this server seats people.
    seats: Option<std::sync::Arc<seats::Seats>>,
    /// The games' events gzipped once.
    gzipped: std::sync::Arc<gzipped::Gzipped>,
    /// Requests answered, by route and status (`GET /metrics`).
    requests: std::sync::Arc<ops::Requests>,
}

/// A bound web server.
pub struct Web {
    listener: std::net::TcpListener,
    http: HttpConfig,
    /// `[server]`'s prefixes, by which client networks are counted.
    v4_bits: u8,
    v6_bits: u8,
    shared: Shared,
    /// Only what an operator reads (`GET /metrics`, `/healthz`, `/readyz`), for any `Host`:
    /// `anqi serve --metrics`.
    ops_only: bool,
}

impl Web {
    /// Binds `addr` for the games of `hub`, with `config`'s `[http]` caps (client networks
    /// counted by `[server]`'s `ipv4_prefix` and `ipv6_prefix`, as the game server counts
    /// them). Stops when `shutdown` fires.
    ///
    /// # Errors
    /// When the address cannot be bound.
    pub async fn bind(
        addr: &str,
        config: &Config,
        hub: Hub,
        shutdown: CancellationToken,
    ) -> std::io::Result<Web> {
        let listener = listener::bind(addr)
            .map_err(|e| std::io::Error::new(e.kind(), format!("cannot listen on {addr}: {e}")))?;
        let shared = Shared {
            hub,
            shutdown,
            seats: None,
            gzipped: std::sync::Arc::default(),
            requests: std::sync::Arc::default(),
        };
        Ok(Web {
            listener,
            http: config.http.clone(),
            v4_bits: config.server.ipv4_prefix,
            v6_bits: config.server.ipv6_prefix,
            shared,
            ops_only: false,
        })
    }

    /// Binds `addr` for what an operator reads of the games of `hub` and nothing else: `GET
    /// /metrics`, `/healthz` and `/readyz` (`anqi serve --metrics`), under `config`'s `[http]`
    /// caps. The requests it answers are counted with those of `pages`, the pages served
    /// beside it, if any, so that either address's `/metrics` has them all. Any `Host` is
    /// answered: a scraper names the server as it finds it (a container's or a service's
    /// name), and what a page of another site could read there is counters, not games.
    ///
    /// # Errors
    /// When the address cannot be bound.
    pub async fn bind_ops(
        addr: &str,
        config: &Config,
        hub: Hub,
        shutdown: CancellationToken,
        pages: Option<&Web>,
    ) -> std::io::Result<Web> {
        let mut web = Web::bind(addr, config, hub, shutdown).await?;
        web.ops_only = true;
        if let Some(pages) = pages {
            web.shared.requests = pages.shared.requests.clone();
        }
        Ok(web)
    }

    /// Lets people play from the pages (`[http] humans = true`): they take seats through
    /// `door`, the local door of the server that plays `variant`. Called on the games'
    /// runtime, where the seats' relays and bots run.
    pub fn seat_people(&mut self, door: Door, variant: &Variant, config: &Config) {
        let ladder = self.shared.hub.ladder();
        self.shared.seats = Some(std::sync::Arc::new(seats::Seats::new(
            door, variant, config, ladder,
        )));
    }

    /// The address the pages are served at (the real port when 0 was asked for).
    ///
    /// # Errors
    /// When the socket cannot tell.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves until the shutdown token fires; live pages are closed then. The pages are
    /// served from a thread and runtime of their own (`[http] threads`, `nice`), whatever
    /// runtime awaits this.
    ///
    /// # Errors
    /// When serving fails for good.
    pub async fn run(self, shutdown: CancellationToken) -> std::io::Result<()> {
        let router = if self.ops_only {
            Router::new()
        } else {
            pages()
        };
        let router = router
            .route("/metrics", get(ops::metrics))
            .route("/healthz", get(ops::healthz))
            .route("/readyz", get(ops::readyz))
            .fallback(api::not_found)
            .layer(axum::middleware::from_fn_with_state(
                self.shared.clone(),
                ops::count_requests,
            ))
            .with_state(self.shared)
            .layer(serve::compression());
        let h = self.http;
        let hosts = if self.ops_only {
            hosts::Hosts::any()
        } else {
            hosts::Hosts::new(&h.hosts)
        };
        let admission = Admission::new(
            h.max_connections,
            h.max_connections_per_address,
            self.v4_bits,
            self.v6_bits,
        );
        let limits = requests::RequestLimits::new(
            h.requests_per_s_per_connection,
            h.requests_per_s_per_address,
            self.v4_bits,
            self.v6_bits,
            h.max_connections,
        );
        let ctx = serve::Context::new(
            router,
            admission,
            limits,
            hosts,
            Duration::from_millis(h.header_timeout_ms),
            h.max_header_bytes,
            Duration::from_millis(h.idle_timeout_ms),
            shutdown,
        );
        let listener = self.listener;
        runtime::run_apart(h.threads, h.nice, move || async move {
            let listener = tokio::net::TcpListener::from_std(listener)?;
            serve::serve(listener, std::sync::Arc::new(ctx)).await
        })
        .await
    }
}

/// The pages' routes: the page, its files, the JSON API and the live feeds, the seats.
fn pages() -> Router<Shared> {
    Router::new()
        .route("/", get(assets::index))
        .route("/assets/{name}", get(assets::asset))
        .route("/api/games", get(api::games))
        .route("/api/games/{id}", get(api::game))
        .route("/api/games/{id}/live", get(live::live))
        .route("/api/games/{id}/moves.txt", get(api::moves))
        .route("/api/games/{id}/exchange", get(api::exchange))
        .route("/api/event", get(api::event))
        .route("/api/ladder", get(ladder::ladder))
        .route(
            "/api/ladder/accounts",
            axum::routing::post(ladder::register)
                .layer(DefaultBodyLimit::max(ladder::MAX_BODY_BYTES)),
        )
        .route("/api/players/{name}", get(ladder::player))
        .route(
            "/api/seats",
            get(play::info)
                .post(play::sit)
                .layer(DefaultBodyLimit::max(play::MAX_BODY_BYTES)),
        )
        .route("/api/seats/live", get(play::live))
}
