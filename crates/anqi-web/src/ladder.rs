//! A ladder's routes (`anqi serve --ladder`): `GET /api/ladder` (the leaderboard) and
//! `GET /api/players/{name}` (one account), as the ladder writes them (`anqi-ladder`'s
//! `pages`), read off the pages' runtime since they come from its database.

use super::api::{error, json, off_the_runtime};
use super::Shared;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;

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
