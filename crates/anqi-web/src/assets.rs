//! The page's files, embedded in the binary from `assets/`: plain HTML, CSS and JavaScript
//! modules, no build step and nothing fetched from elsewhere, so the page works offline and
//! what is served is what is in the repository.

use axum::extract::Path;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

/// Every file under `/assets/`: name, content type, bytes.
const ASSETS: &[(&str, &str, &str)] = &[
    (
        "app.js",
        "text/javascript",
        include_str!("../assets/app.js"),
    ),
    (
        "board.js",
        "text/javascript",
        include_str!("../assets/board.js"),
    ),
    ("style.css", "text/css", include_str!("../assets/style.css")),
];

const INDEX: &str = include_str!("../assets/index.html");

/// `GET /`: the page (the lobby, and any game by its `#/game/ID` fragment).
pub async fn index() -> Response {
    page("text/html; charset=utf-8", INDEX)
}

/// `GET /assets/{name}`.
pub async fn asset(Path(name): Path<String>) -> Response {
    match ASSETS.iter().find(|(n, _, _)| *n == name) {
        Some((_, kind, body)) => page(kind, body),
        None => crate::api::error(StatusCode::NOT_FOUND, "no such asset"),
    }
}

fn page(kind: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "no-cache"),
            // The page loads nothing but its own files (no inline script or style: its
            // colours are classes of style.css), talks only to its own server, and is framed
            // by no other page.
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
            ),
        ],
        body,
    )
        .into_response()
}
