//! A ladder's routes (`anqi serve --ladder`): `GET /api/ladder` (the leaderboard),
//! `GET /api/players/{name}` (one account) and `POST /api/ladder/accounts` (an account made
//! on request, where `[ladder] registration` allows), as the ladder writes them
//! (`anqi-ladder`'s `pages`), off the pages' runtime since they go to its database.

use super::api::{error, json, off_the_runtime};
use super::listener::Peer;
use super::Shared;
use anqi_server::watch::Registrant;
use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
use axum::extract::{ConnectInfo, Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;

/// The largest `POST /api/ladder/accounts` body (a name is at most 32 characters).
pub const MAX_BODY_BYTES: usize = 1024;

/// What `POST /api/ladder/accounts` takes.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Registration {
    name: String,
}

/// What `GET /api/players/{name}` takes: `offset`, the first of its games to list (the
/// latest is 0).
#[derive(serde::Deserialize)]
pub struct PlayerQuery {
    #[serde(default)]
    offset: usize,
}

fn no_ladder() -> Response {
    error(
        StatusCode::NOT_FOUND,
        "no ladder here: a ladder is served by anqi serve --ladder DATABASE",
    )
}

/// 503: the ladder's database cannot say now.
fn unavailable(why: &str) -> Response {
    error(
        StatusCode::SERVICE_UNAVAILABLE,
        &format!("the ladder's database cannot be read: {why}"),
    )
}

/// `GET /api/ladder`: the leaderboard; 404 on a server that runs no ladder.
pub async fn ladder(State(shared): State<Shared>) -> Response {
    let Some(pages) = shared.hub.ladder() else {
        return no_ladder();
    };
    match off_the_runtime(move || pages.ladder()).await {
        Ok(Ok(body)) => json(StatusCode::OK, body),
        Ok(Err(why)) => unavailable(&why),
        Err(refusal) => *refusal,
    }
}

/// `GET /api/players/{name}?offset=N`: one account's page; 404 when no account has the name.
pub async fn player(
    State(shared): State<Shared>,
    Path(name): Path<String>,
    query: Result<Query<PlayerQuery>, QueryRejection>,
) -> Response {
    let Some(pages) = shared.hub.ladder() else {
        return no_ladder();
    };
    let offset = match query {
        Ok(Query(q)) => q.offset,
        Err(why) => return error(StatusCode::BAD_REQUEST, &why.body_text()),
    };
    match off_the_runtime(move || pages.player(&name, offset)).await {
        Ok(Ok(Some(body))) => json(StatusCode::OK, body),
        Ok(Ok(None)) => error(
            StatusCode::NOT_FOUND,
            "no account of this ladder has this name",
        ),
        Ok(Err(why)) => unavailable(&why),
        Err(refusal) => *refusal,
    }
}

/// `POST /api/ladder/accounts` with `{"name": NAME}`: `201 {"name", "secret"}`, the secret
/// shown this once; refused with the reason: registration off (403), an unfit name (400), a
/// taken one (409), an hourly cap reached (429), the database refusing (503).
pub async fn register(
    State(shared): State<Shared>,
    ConnectInfo(Peer(peer)): ConnectInfo<Peer>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let Some(ladder) = shared.hub.ladder() else {
        return no_ladder();
    };
    if let Err(why) = crate::hosts::same_origin(&headers) {
        return error(StatusCode::FORBIDDEN, &why.to_string());
    }
    let name = match serde_json::from_slice::<Registration>(&body) {
        Ok(r) => r.name,
        Err(e) => {
            return error(
                StatusCode::BAD_REQUEST,
                &format!("{e}: send {{\"name\": \"my-bot\"}}"),
            )
        }
    };
    match off_the_runtime(move || ladder.register(Registrant::Named(name), peer.ip())).await {
        Ok(Ok(made)) => json(
            StatusCode::CREATED,
            serde_json::json!({ "name": made.name, "secret": made.secret }).to_string(),
        ),
        Ok(Err(refusal)) => error(
            StatusCode::from_u16(refusal.status()).unwrap_or(StatusCode::SERVICE_UNAVAILABLE),
            &refusal.to_string(),
        ),
        Err(refusal) => *refusal,
    }
}
