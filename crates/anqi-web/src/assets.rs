//! The page's files, embedded in the binary from `assets/`: plain HTML, CSS and JavaScript
//! modules, no build step and nothing fetched from elsewhere, so the page works offline and
//! what is served is what is in the repository.

use axum::extract::Path;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

/// A JavaScript module of the page, by its file name under `assets/`.
macro_rules! module {
    ($name:literal) => {
        (
            $name,
            "text/javascript",
            include_str!(concat!("../assets/", $name)),
        )
    };
}

/// Every file under `/assets/`: name, content type, bytes. A module script is run only when
/// served as JavaScript (browsers check its type), and `index.html` preloads every module
/// besides `app.js`, its script.
const ASSETS: &[(&str, &str, &str)] = &[
    // The entry point: routes the page's address to its view.
    module!("app.js"),
    // The views.
    module!("lobby.js"),
    module!("sit-down.js"),
    module!("game.js"),
    module!("seat.js"),
    module!("seat-panel.js"),
    module!("exchange.js"),
    module!("standings.js"),
    // What the views share.
    module!("api.js"),
    module!("board.js"),
    module!("dom.js"),
    module!("format.js"),
    module!("page.js"),
    module!("notation.js"),
    module!("sound.js"),
    module!("eval.js"),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The modules a module imports: `from "./x.js"` -> `x.js`.
    fn imports(source: &str) -> Vec<&str> {
        source
            .split("from \"./")
            .skip(1)
            .map(|rest| rest.split('"').next().unwrap_or(""))
            .collect()
    }

    #[test]
    fn every_module_imported_is_served_as_javascript() {
        let served = |name: &str| ASSETS.iter().find(|(n, _, _)| *n == name);
        for (name, kind, body) in ASSETS.iter().filter(|(n, _, _)| n.ends_with(".js")) {
            assert_eq!(*kind, "text/javascript", "{name}");
            for imported in imports(body) {
                let found = served(imported);
                assert!(
                    found.is_some_and(|(_, k, _)| *k == "text/javascript"),
                    "{name} imports {imported}, which is not served as JavaScript"
                );
            }
        }
        assert!(imports(served("app.js").unwrap().2).contains(&"game.js"));
    }

    #[test]
    fn every_file_under_assets_is_served_and_every_module_preloaded() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
        for entry in std::fs::read_dir(dir).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            if name == "index.html" {
                continue;
            }
            assert!(
                ASSETS.iter().any(|(n, _, _)| *n == name),
                "assets/{name} is not in ASSETS"
            );
        }
        let imported = ASSETS
            .iter()
            .filter(|(n, _, _)| n.ends_with(".js") && *n != "app.js");
        for (name, _, _) in imported {
            let preload = format!("<link rel=\"modulepreload\" href=\"/assets/{name}\">");
            assert!(INDEX.contains(&preload), "index.html: {preload}");
        }
        // No inline script: the page's policy would refuse it.
        assert_eq!(INDEX.matches("<script").count(), 1);
        assert!(INDEX.contains("<script type=\"module\" src=\"/assets/app.js\"></script>"));
    }
}
