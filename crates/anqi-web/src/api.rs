//! The JSON routes: `GET /api/games` (the list) and `GET /api/games/{id}` (one game's events).
//!
//! A finished game's events may have to be rebuilt from its record (milliseconds): that, and
//! the move list, run on the pages' blocking threads (`off_the_runtime`), and the rebuilt
//! text is served from the hub's cache without a copy.

use crate::Shared;
use anqi_server::watch::WatchRefusal;
use axum::extract::{Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

/// The list's filters, each optional: `?player=NAME&variant=NAME&state=running|finished`.
#[derive(Deserialize)]
pub struct Filter {
    player: Option<String>,
    variant: Option<String>,
    state: Option<String>,
}

/// `GET /api/games`: `{"games": [...]}`, running games first, then finished ones, newest first.
pub async fn games(State(shared): State<Shared>, Query(filter): Query<Filter>) -> Response {
    let games: Vec<_> = shared
        .hub
        .list()
        .into_iter()
        .filter(|g| {
            filter
                .player
                .as_ref()
                .is_none_or(|p| g.players.iter().any(|n| n == p))
                && filter.variant.as_ref().is_none_or(|v| &g.variant == v)
                && filter.state.as_ref().is_none_or(|s| g.state == s)
        })
        .collect();
    json(
        StatusCode::OK,
        serde_json::json!({ "games": games }).to_string(),
    )
}

/// `GET /api/games/{id}`: `{"game": ID, "events": [...]}`, the events shown so far (the whole
/// game once it is over: setup, plies and faults, end).
pub async fn game(State(shared): State<Shared>, Path(id): Path<String>) -> Response {
    let id = match parse_id(&id) {
        Ok(id) => id,
        Err(response) => return *response,
    };
    let hub = shared.hub.clone();
    match off_the_runtime(move || hub.events_json(id)).await {
        Ok(Ok(body)) => json_shared(StatusCode::OK, body),
        Ok(Err(refusal)) => refused(&refusal),
        Err(response) => *response,
    }
}

/// Runs `work` on a blocking thread of the pages' runtime (a rebuild must not hold up the
/// pages' other connections), or answers 503 when it cannot.
pub async fn off_the_runtime<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Box<Response>> {
    tokio::task::spawn_blocking(work).await.map_err(|e| {
        tracing::warn!(error = %e, "web: a page's work failed");
        Box::new(error(
            StatusCode::SERVICE_UNAVAILABLE,
            "the server could not do this just now; try again",
        ))
    })
}

/// A text shared with the hub's cache, as a response body without a copy.
struct SharedText(std::sync::Arc<str>);

impl AsRef<[u8]> for SharedText {
    fn as_ref(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

/// A JSON answer whose body is `body`, not copied.
fn json_shared(status: StatusCode, body: std::sync::Arc<str>) -> Response {
    (
        status,
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        axum::body::Body::from(bytes::Bytes::from_owner(SharedText(body))),
    )
        .into_response()
}

/// `GET /api/games/{id}/moves.txt`: a finished game as a readable move list, with the seeds
/// that re-derive its deal (`anqi_core::view::move_list`). A running game has none yet (409).
pub async fn moves(State(shared): State<Shared>, Path(id): Path<String>) -> Response {
    let id = match parse_id(&id) {
        Ok(id) => id,
        Err(response) => return *response,
    };
    let hub = shared.hub.clone();
    let listed = off_the_runtime(move || hub.record(id).map(|r| anqi_core::view::move_list(&r)));
    let listed = match listed.await {
        Ok(listed) => listed,
        Err(response) => return *response,
    };
    match listed {
        Some(text) => (
            StatusCode::OK,
            [
                (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
                (header::CACHE_CONTROL, "no-store"),
            ],
            text,
        )
            .into_response(),
        // Not finished (or withheld): no rebuild, only why.
        None => match shared.hub.events(id) {
            Ok(_) => error(
                StatusCode::CONFLICT,
                &format!(
                    "game {id} is still running: its move list, with the seeds, comes at its end"
                ),
            ),
            Err(refusal) => refused(&refusal),
        },
    }
}

/// `GET /api/games/{id}/exchange`: every line the referee sent each player and read from them,
/// once the game is over (`{"lines": [{"player", "ply", "by", "text"}], "dropped"}`).
pub async fn exchange(State(shared): State<Shared>, Path(id): Path<String>) -> Response {
    let id = match parse_id(&id) {
        Ok(id) => id,
        Err(response) => return *response,
    };
    match shared.hub.exchange(id) {
        Ok(x) => json(
            StatusCode::OK,
            serde_json::to_string(&*x).expect("an exchange serializes"),
        ),
        Err(refusal) => refused(&refusal),
    }
}

/// `GET /api/event`: a tournament's progress and standings (`anqi tournament --http`), from its
/// start and after every finished game; 404 on a server that is not running an event.
pub async fn event(State(shared): State<Shared>) -> Response {
    match shared.hub.event() {
        Some(json) => self::json(StatusCode::OK, json.to_string()),
        None => error(
            StatusCode::NOT_FOUND,
            "no event here: standings are served by anqi tournament --http",
        ),
    }
}

/// Any other path: 404 with what is served.
pub async fn not_found() -> Response {
    error(
        StatusCode::NOT_FOUND,
        "no such page; the API is /api/games, /api/games/ID, /api/games/ID/live and /api/games/ID/moves.txt (protocol/WEB.md)",
    )
}

/// A game number from a path, or the 400 answer that says why not.
pub fn parse_id(text: &str) -> Result<u64, Box<Response>> {
    text.parse().map_err(|_| {
        Box::new(error(
            StatusCode::BAD_REQUEST,
            &format!(
                "{:?} is not a game number",
                text.chars().take(40).collect::<String>()
            ),
        ))
    })
}

/// The HTTP answer to a refusal to watch. A withheld game is answered 409, as a running
/// game's move list is: what is asked for exists and comes later (when every game of its deal
/// has ended), so asking again then succeeds; 403 would say it never will.
pub fn refused(refusal: &WatchRefusal) -> Response {
    let status = match refusal {
        WatchRefusal::Unknown(_) | WatchRefusal::Forgotten(_) => StatusCode::NOT_FOUND,
        WatchRefusal::Running(_) | WatchRefusal::Withheld(_) => StatusCode::CONFLICT,
        WatchRefusal::Full(..) => StatusCode::SERVICE_UNAVAILABLE,
    };
    error(status, &refusal.to_string())
}

/// `{"error": "..."}` with `status`.
pub fn error(status: StatusCode, text: &str) -> Response {
    json(status, serde_json::json!({ "error": text }).to_string())
}

pub fn json(status: StatusCode, body: String) -> Response {
    (
        status,
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body,
    )
        .into_response()
}
