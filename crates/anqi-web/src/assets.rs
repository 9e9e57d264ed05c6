//! The page's files, embedded in the binary from `assets/`: plain HTML, CSS and JavaScript
//! modules, no build step and nothing fetched from elsewhere, so the page works offline and
//! what is served is what is in the repository.
//!
//! Each file carries an `ETag` (a hash of its bytes, computed once) and `Cache-Control:
//! no-cache`: a browser keeps the file but asks again each time, and a request whose
//! `If-None-Match` names the file's tag is answered `304 Not Modified` with no body, so a
//! reload costs a few hundred bytes a file. A new binary serves new tags. The tags are weak
//! (`W/"..."`): the same file is sent gzipped or not (`serve::compression`), the same
//! content either way.

use axum::extract::Path;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use std::sync::LazyLock;

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
    module!("ladder.js"),
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

/// The page loads nothing but its own files (no inline script or style: its colours are
/// classes of style.css), talks only to its own server, and is framed by no other page.
const PAGE_POLICY: &str = "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/// The tags of `index.html`, then of `ASSETS` in order, computed once.
static TAGS: LazyLock<Vec<HeaderValue>> = LazyLock::new(|| {
    std::iter::once(INDEX)
        .chain(ASSETS.iter().map(|(_, _, body)| *body))
        .map(|body| {
            HeaderValue::from_str(&tag_of(body.as_bytes())).expect("a tag is a header value")
        })
        .collect()
});

/// A file's entity tag: `W/"` and 16 hex digits of its bytes' 64-bit FNV-1a hash `"`. Not
/// keyed: the files are public, and the tag only tells one version from another.
fn tag_of(bytes: &[u8]) -> String {
    let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    format!("W/\"{hash:016x}\"")
}

/// Whether `If-None-Match` names `tag` (or is `*`): weak comparison, as RFC 9110 asks of it.
fn matches(headers: &HeaderMap, tag: &HeaderValue) -> bool {
    let bare = |t: &str| t.trim().trim_start_matches("W/").to_string();
    let ours = bare(tag.to_str().unwrap_or_default());
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|t| t.trim() == "*" || bare(t) == ours)
}

/// `GET /`: the page (the lobby, and any game by its `#/game/ID` fragment).
pub async fn index(headers: HeaderMap) -> Response {
    page(&headers, "text/html; charset=utf-8", INDEX, &TAGS[0])
}

/// `GET /assets/{name}`.
pub async fn asset(Path(name): Path<String>, headers: HeaderMap) -> Response {
    match ASSETS.iter().position(|(n, _, _)| *n == name) {
        Some(i) => page(&headers, ASSETS[i].1, ASSETS[i].2, &TAGS[i + 1]),
        None => crate::api::error(StatusCode::NOT_FOUND, "no such asset"),
    }
}

/// The file `body`, or `304` with no body when the request names its tag.
fn page(
    headers: &HeaderMap,
    kind: &'static str,
    body: &'static str,
    tag: &HeaderValue,
) -> Response {
    let fields = [
        (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        (header::ETAG, tag.clone()),
        (
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(PAGE_POLICY),
        ),
    ];
    if matches(headers, tag) {
        return (StatusCode::NOT_MODIFIED, fields).into_response();
    }
    (
        fields,
        [(header::CONTENT_TYPE, HeaderValue::from_static(kind))],
        body,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tag_is_its_files_alone_and_if_none_match_is_compared_weakly() {
        assert_eq!(TAGS.len(), ASSETS.len() + 1);
        let mut seen: Vec<_> = TAGS.iter().collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), TAGS.len(), "every file its own tag");
        assert_eq!(tag_of(b""), "W/\"cbf29ce484222325\"");
        assert_eq!(tag_of(b"a"), "W/\"af63dc4c8601ec8c\"");
        let tag = HeaderValue::from_static("W/\"00000000000000ab\"");
        let asked = |v: &'static str| {
            let mut h = HeaderMap::new();
            h.insert(header::IF_NONE_MATCH, HeaderValue::from_static(v));
            matches(&h, &tag)
        };
        assert!(asked("W/\"00000000000000ab\""));
        assert!(asked("\"00000000000000ab\""));
        assert!(asked("\"x\", W/\"00000000000000ab\""));
        assert!(asked("*"));
        assert!(!asked("W/\"00000000000000ac\""));
        assert!(!matches(&HeaderMap::new(), &tag));
    }

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
