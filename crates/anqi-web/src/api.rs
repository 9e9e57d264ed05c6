//! The JSON routes: `GET /api/games` (the list) and `GET /api/games/{id}` (one game's events).

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
    match shared.hub.events(id) {
        Ok(events) => {
            let size = events.iter().map(|e| e.len() + 1).sum::<usize>() + 32;
            let mut body = String::with_capacity(size);
            body.push_str(&format!("{{\"game\":{id},\"events\":["));
            for (i, e) in events.iter().enumerate() {
                if i > 0 {
                    body.push(',');
                }
                body.push_str(e);
            }
            body.push_str("]}");
            json(StatusCode::OK, body)
        }
        Err(refusal) => refused(&refusal),
    }
}

/// `GET /api/games/{id}/moves.txt`: a finished game as a readable move list, with the seeds
/// that re-derive its deal (`anqi_core::view::move_list`). A running game has none yet (409).
pub async fn moves(State(shared): State<Shared>, Path(id): Path<String>) -> Response {
    let id = match parse_id(&id) {
        Ok(id) => id,
        Err(response) => return *response,
    };
    match shared.hub.record(id) {
        Some(record) => (
            StatusCode::OK,
            [
                (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
                (header::CACHE_CONTROL, "no-store"),
            ],
            anqi_core::view::move_list(&record),
        )
            .into_response(),
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
