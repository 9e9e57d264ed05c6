//! The JSON routes: `GET /api/games` (the list, a page at a time) and `GET /api/games/{id}` (one game's events).
//!
//! A finished game's events may have to be rebuilt from its record (milliseconds): that, and
//! the move list, run on the pages' blocking threads (`off_the_runtime`), and the rebuilt
//! text is served from the hub's cache without a copy.

use crate::{gzipped, Shared};
use anqi_server::watch::{GameSummary, WatchRefusal};
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

/// The list's filters, each optional: `?player=NAME&variant=NAME&state=running|finished&game=N`
/// (`game`: that game's line alone, as a game's page asks whether its exchange is kept); and
/// its page: `?limit=N&offset=M` (the `N` games from the `M`th, 0 first, of those the filters
/// keep; without `limit`, every one, as before pages).
#[derive(Deserialize)]
pub struct Filter {
    player: Option<String>,
    variant: Option<String>,
    state: Option<String>,
    game: Option<u64>,
    limit: Option<usize>,
    offset: Option<usize>,
}

/// The most games one answer lists: a larger `limit` is taken as this (the hub keeps
/// `keep_finished`, 1,000 by default, finished games, and a list of 1,000 is about 240 KB).
pub const MAX_LIMIT: usize = 1000;

impl Filter {
    fn keeps(&self, g: &GameSummary) -> bool {
        self.player
            .as_ref()
            .is_none_or(|p| g.players.iter().any(|n| n == p))
            && self.variant.as_ref().is_none_or(|v| &g.variant == v)
            && self.state.as_ref().is_none_or(|s| g.state == s)
            && self.game.is_none_or(|n| g.game == n)
    }
}

/// One page of the list: the games of the page, how many the filters kept, and the game to
/// feature ([`featured`]) among those.
struct Page {
    games: Vec<GameSummary>,
    total: usize,
    featured: Option<u64>,
}

/// The page `filter` asks for of `listed` (in the hub's order).
fn page(listed: Vec<GameSummary>, filter: &Filter) -> Page {
    let offset = filter.offset.unwrap_or(0);
    let limit = filter.limit.map_or(usize::MAX, |l| l.min(MAX_LIMIT));
    let kept: Vec<GameSummary> = listed.into_iter().filter(|g| filter.keeps(g)).collect();
    let total = kept.len();
    let featured = featured(&kept);
    let games = kept.into_iter().skip(offset).take(limit).collect();
    Page {
        games,
        total,
        featured,
    }
}

/// The game a lobby shows first: the running game with the most observers (ties: the latest
/// started, then the highest number); when none runs, the finished game that ended last; a
/// withheld game never. The hub keeps no game's end time: a finished game ends at its start
/// plus its players' time used, as near as the list tells (ties: the highest number).
fn featured(games: &[GameSummary]) -> Option<u64> {
    let shown = || games.iter().filter(|g| g.withheld.is_none());
    let running = shown()
        .filter(|g| g.state == "running")
        .max_by_key(|g| (g.observers, g.started_unix_ms, g.game));
    let ended = |g: &GameSummary| g.started_unix_ms.saturating_add(g.used_ms.iter().sum());
    running
        .or_else(|| {
            shown()
                .filter(|g| g.state == "finished")
                .max_by_key(|g| (ended(g), g.game))
        })
        .map(|g| g.game)
}

/// `GET /api/games`: `{"games": [...], "total": N, "featured": GAME or null}`, running games
/// first, then finished ones, newest first; `total` counts the games the filters keep (all of
/// them, whatever the page), `featured` is one of them ([`featured`]).
pub async fn games(
    State(shared): State<Shared>,
    filter: Result<Query<Filter>, QueryRejection>,
) -> Response {
    let Query(filter) = match filter {
        Ok(filter) => filter,
        Err(why) => return error(StatusCode::BAD_REQUEST, &why.body_text()),
    };
    let page = page(shared.hub.list(), &filter);
    json(
        StatusCode::OK,
        serde_json::json!({
            "games": page.games,
            "total": page.total,
            "featured": page.featured,
        })
        .to_string(),
    )
}

/// `GET /api/games/{id}`: `{"game": ID, "events": [...]}`, the events shown so far (the whole
/// game once it is over: setup, plies and faults, end).
///
/// Asked with gzip, a long text is sent gzipped from [`crate::gzipped`] (made there once, off
/// the pages' thread); a short one is gzipped as it goes, as every answer.
pub async fn game(
    State(shared): State<Shared>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    let id = match parse_id(&id) {
        Ok(id) => id,
        Err(response) => return *response,
    };
    let hub = shared.hub.clone();
    let body = match off_the_runtime(move || hub.events_json(id)).await {
        Ok(Ok(body)) => body,
        Ok(Err(refusal)) => return refused(&refusal),
        Err(response) => return *response,
    };
    if body.len() < gzipped::MIN_TEXT || !gzipped::accepted(&headers) {
        return json_shared(StatusCode::OK, body);
    }
    let gz = match shared.gzipped.get(id, &body) {
        Some(gz) => gz,
        None => {
            let (cache, text) = (shared.gzipped.clone(), body.clone());
            match off_the_runtime(move || {
                let gz = gzipped::gzip(text.as_bytes());
                cache.put(id, text, gz.clone());
                gz
            })
            .await
            {
                Ok(gz) => gz,
                Err(_) => return json_shared(StatusCode::OK, body),
            }
        }
    };
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "no-store"),
            // Already gzipped: `serve::compression` leaves it as it is.
            (header::CONTENT_ENCODING, "gzip"),
            (header::VARY, "accept-encoding"),
        ],
        gz,
    )
        .into_response()
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

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(game: u64, state: &'static str, observers: usize, started: u64) -> GameSummary {
        GameSummary {
            game,
            variant: "traditional".into(),
            players: vec![format!("p{game}"), "q".into()],
            started_unix_ms: started,
            state,
            ply: 10,
            to_move: None,
            used_ms: vec![0, 0],
            clocks_ms: None,
            win: None,
            reason: None,
            loser: None,
            colours: None,
            observers,
            withheld: None,
            exchange: false,
            board: None,
        }
    }

    fn filter(query: &str) -> Filter {
        let uri: axum::http::Uri = format!("/api/games?{query}").parse().unwrap();
        Query::try_from_uri(&uri).unwrap().0
    }

    fn numbers(page: &Page) -> Vec<u64> {
        page.games.iter().map(|g| g.game).collect()
    }

    #[test]
    fn a_page_is_a_slice_of_what_the_filters_keep_and_total_counts_them_all() {
        let listed: Vec<_> = (1..=7)
            .rev()
            .map(|n| summary(n, if n > 5 { "running" } else { "finished" }, 0, n))
            .collect();
        let all = page(listed.clone(), &filter(""));
        assert_eq!(numbers(&all), [7, 6, 5, 4, 3, 2, 1]);
        assert_eq!(all.total, 7);
        let p = page(listed.clone(), &filter("limit=2&offset=1"));
        assert_eq!((numbers(&p), p.total), (vec![6, 5], 7));
        let p = page(listed.clone(), &filter("state=finished&limit=2&offset=4"));
        assert_eq!((numbers(&p), p.total), (vec![1], 5));
        let p = page(listed.clone(), &filter("offset=99"));
        assert_eq!((numbers(&p), p.total), (vec![], 7));
        let p = page(listed.clone(), &filter("limit=0&player=p3"));
        assert_eq!((numbers(&p), p.total, p.featured), (vec![], 1, Some(3)));
        let many: Vec<_> = (0..MAX_LIMIT as u64 + 5)
            .map(|n| summary(n, "finished", 0, n))
            .collect();
        let p = page(many, &filter("limit=5000"));
        assert_eq!((p.games.len(), p.total), (MAX_LIMIT, MAX_LIMIT + 5));
    }

    #[test]
    fn the_featured_game_is_the_most_watched_running_one_else_the_last_to_end_never_withheld() {
        let mut games = vec![
            summary(9, "running", 2, 900),
            summary(8, "running", 5, 800),
            summary(7, "running", 5, 700),
            summary(6, "finished", 40, 600),
        ];
        assert_eq!(
            featured(&games),
            Some(8),
            "most observers, then latest start"
        );
        games[1].withheld = Some("withheld".into());
        assert_eq!(featured(&games), Some(7), "a withheld game never");
        games[2].observers = 2;
        assert_eq!(featured(&games), Some(9), "a tie: the latest started");
        let mut finished = vec![
            summary(3, "finished", 0, 300),
            summary(2, "finished", 0, 200),
            summary(1, "finished", 0, 100),
        ];
        assert_eq!(featured(&finished), Some(3));
        // Game 2 started before game 3 but ran longer: it ended last.
        finished[1].used_ms = vec![60, 60];
        assert_eq!(featured(&finished), Some(2));
        finished[1].withheld = Some("withheld".into());
        assert_eq!(featured(&finished), Some(3));
        finished[0].withheld = Some("withheld".into());
        finished[2].withheld = Some("withheld".into());
        assert_eq!(featured(&finished), None);
        assert_eq!(featured(&[]), None);
    }
}
