//! What an operator reads of a running server, on its pages' address or on one of its own
//! (`anqi serve --metrics`, [`crate::Web::bind_ops`]): `GET /metrics` (the
//! server's counters in Prometheus's text format, with the pages' own: requests by route and
//! status, and the gauges read at the scrape), `GET /healthz` (the pages answer) and `GET
//! /readyz` (the server plays games: started, and its records file writable).

use crate::Shared;
use anqi_server::metrics::{gauge, label};
use axum::extract::{MatchedPath, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;

/// Requests answered, by (route, status): the route as the router matched it
/// (`/api/games/{id}`, so that games do not make series of their own), `other` for none.
#[derive(Default)]
pub struct Requests(Mutex<BTreeMap<(String, u16), u64>>);

impl Requests {
    fn count(&self, route: String, status: u16) {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        *map.entry((route, status)).or_default() += 1;
    }
}

/// Counts each request by its route and the status of its answer.
pub async fn count_requests(
    State(shared): State<Shared>,
    request: Request,
    next: Next,
) -> Response {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "other".to_string(), |p| p.as_str().to_string());
    let response = next.run(request).await;
    shared.requests.count(route, response.status().as_u16());
    response
}

/// `GET /metrics`.
pub async fn metrics(State(shared): State<Shared>) -> Response {
    let mut out = String::new();
    shared.hub.metrics().render(&mut out);
    let list = shared.hub.list();
    let running = list.iter().filter(|g| g.state == "running").count();
    gauge(
        &mut out,
        "anqi_games_running",
        "Games being played now.",
        running as u64,
    );
    gauge(
        &mut out,
        "anqi_observers",
        "Pages watching a game live.",
        list.iter().map(|g| g.observers as u64).sum(),
    );
    gauge(
        &mut out,
        "anqi_players_waiting",
        "Players waiting for a game.",
        shared.hub.waiting().len() as u64,
    );
    let _ = writeln!(
        out,
        "# HELP anqi_http_requests_total Requests to the pages, by route and status.\n# TYPE anqi_http_requests_total counter"
    );
    for ((route, status), n) in shared
        .requests
        .0
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
    {
        let _ = writeln!(
            out,
            "anqi_http_requests_total{{route=\"{}\",status=\"{status}\"}} {n}",
            label(route)
        );
    }
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        out,
    )
        .into_response()
}

/// `GET /healthz`: the pages answer.
pub async fn healthz() -> Response {
    (StatusCode::OK, "ok\n").into_response()
}

/// `GET /readyz`: 200 `ready` while the server plays games (started, its records file
/// writable, not shutting down); 503 with the reason otherwise.
pub async fn readyz(State(shared): State<Shared>) -> Response {
    let why = if shared.shutdown.is_cancelled() {
        Some("the server is shutting down".to_string())
    } else {
        shared.hub.metrics().not_ready()
    };
    match why {
        None => (StatusCode::OK, "ready\n").into_response(),
        Some(why) => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("not ready: {why}\n"),
        )
            .into_response(),
    }
}
