//! Games' events gzipped once: a finished game's events are one text the hub keeps and hands
//! out again (`Hub::events_json`, the same `Arc` each time), so their gzip is made once, off
//! the pages' thread, and kept beside it. Gzipped as it goes instead (`serve::compression`),
//! a 762-ply game's 362 KB took 10 ms of the pages' one thread for each request, against
//! 0.6 ms plain: a poller asking with `Accept-Encoding: gzip`, within the request rate, would
//! have cost the pages seventeen times what it costs plain.
//!
//! The cache holds at most [`MAX_BYTES`] (each text it keeps alive and its gzip counted), the
//! games asked for last; a text shorter than [`MIN_TEXT`] is gzipped as it goes, as every other
//! answer. A running game's text is new at each request: it takes its game's place and is
//! gzipped anew the next time.

use bytes::Bytes;
use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::sync::{Arc, Mutex};

/// The most bytes the cache holds, texts and their gzips together.
pub const MAX_BYTES: usize = 32 << 20;

/// A text shorter than this is gzipped as it goes (`serve::compression`): a cache would save
/// little.
pub const MIN_TEXT: usize = 16 << 10;

/// The gzips of the games' texts asked for last.
#[derive(Default)]
pub struct Gzipped {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    entries: HashMap<u64, Entry>,
    /// Games by when they were last asked for, oldest first (a game may be in it more than
    /// once: only its last place counts, the others are skipped when let go).
    order: VecDeque<(u64, u64)>,
    bytes: usize,
    /// The count that stamps each use.
    uses: u64,
}

struct Entry {
    text: Arc<str>,
    gz: Bytes,
    used: u64,
}

impl Entry {
    fn bytes(&self) -> usize {
        self.text.len() + self.gz.len()
    }
}

impl Gzipped {
    /// The gzip of `text`, game `game`'s events, when kept.
    pub fn get(&self, game: u64, text: &Arc<str>) -> Option<Bytes> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let state = &mut *state;
        let entry = state.entries.get_mut(&game)?;
        if !Arc::ptr_eq(&entry.text, text) {
            return None;
        }
        state.uses += 1;
        entry.used = state.uses;
        state.order.push_back((game, state.uses));
        let gz = entry.gz.clone();
        state.trim_order();
        Some(gz)
    }

    /// Keeps `gz`, the gzip of `text`, game `game`'s events (in place of any other of the
    /// game's), letting the games asked for longest ago go to stay within [`MAX_BYTES`].
    pub fn put(&self, game: u64, text: Arc<str>, gz: Bytes) {
        let entry = Entry { text, gz, used: 0 };
        if entry.bytes() > MAX_BYTES / 4 {
            return;
        }
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.uses += 1;
        let used = state.uses;
        state.bytes += entry.bytes();
        if let Some(old) = state.entries.insert(game, Entry { used, ..entry }) {
            state.bytes -= old.bytes();
        }
        state.order.push_back((game, used));
        while state.bytes > MAX_BYTES {
            let Some((oldest, stamp)) = state.order.pop_front() else {
                break;
            };
            if state.entries.get(&oldest).is_some_and(|e| e.used == stamp) {
                if let Some(gone) = state.entries.remove(&oldest) {
                    state.bytes -= gone.bytes();
                }
            }
        }
        state.trim_order();
    }

    /// The bytes held, texts and gzips.
    #[cfg(test)]
    fn bytes(&self) -> usize {
        self.state.lock().unwrap().bytes
    }
}

impl State {
    /// Drops the stale places at the front of `order`, and rebuilds it when stale places are
    /// most of it (a game asked for again and again adds one each time).
    fn trim_order(&mut self) {
        let live = |entries: &HashMap<u64, Entry>, (game, stamp): &(u64, u64)| {
            entries.get(game).is_some_and(|e| e.used == *stamp)
        };
        while let Some(front) = self.order.front() {
            if live(&self.entries, front) {
                break;
            }
            self.order.pop_front();
        }
        if self.order.len() > 2 * self.entries.len() + 64 {
            let entries = &self.entries;
            self.order.retain(|place| live(entries, place));
        }
    }
}

/// `text` gzipped at the default level, as `serve::compression` would send it.
pub fn gzip(text: &[u8]) -> Bytes {
    let mut encoder = flate2::write::GzEncoder::new(
        Vec::with_capacity(text.len() / 8),
        flate2::Compression::default(),
    );
    encoder
        .write_all(text)
        .and_then(|()| encoder.finish())
        .map(Bytes::from)
        .expect("gzip into memory cannot fail")
}

/// Whether the request's `Accept-Encoding` takes gzip: `gzip` (or `x-gzip`) with a weight
/// above 0, or `*` above 0 when gzip is not named.
pub fn accepted(headers: &axum::http::HeaderMap) -> bool {
    let mut named = None;
    let mut any = false;
    let codings = headers
        .get_all(axum::http::header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','));
    for coding in codings {
        let mut parts = coding.split(';');
        let name = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
        let weight = parts
            .filter_map(|p| p.trim().strip_prefix("q="))
            .filter_map(|q| q.trim().parse::<f32>().ok())
            .next()
            .unwrap_or(1.0);
        match name.as_str() {
            "gzip" | "x-gzip" => named = Some(weight > 0.0),
            "*" => any = weight > 0.0,
            _ => {}
        }
    }
    named.unwrap_or(any)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::{header, HeaderMap, HeaderValue};

    #[test]
    fn the_same_text_is_served_its_gzip_and_another_is_not() {
        let cache = Gzipped::default();
        let text: Arc<str> = Arc::from("x".repeat(100));
        let same_words: Arc<str> = Arc::from("x".repeat(100));
        assert_eq!(cache.get(1, &text), None);
        cache.put(1, text.clone(), Bytes::from_static(b"gz"));
        assert_eq!(cache.get(1, &text), Some(Bytes::from_static(b"gz")));
        assert_eq!(cache.get(1, &same_words), None, "another text of the game");
        assert_eq!(cache.get(2, &text), None, "another game");
        cache.put(1, same_words.clone(), Bytes::from_static(b"zz"));
        assert_eq!(cache.get(1, &text), None);
        assert_eq!(cache.bytes(), 102);
    }

    #[test]
    fn the_games_asked_for_longest_ago_go_first_within_the_bound() {
        let cache = Gzipped::default();
        let size = MAX_BYTES / 5;
        let texts: Vec<Arc<str>> = (0..6).map(|i| Arc::from("y".repeat(size - i))).collect();
        for (game, text) in texts.iter().enumerate().take(4) {
            cache.put(game as u64, text.clone(), Bytes::new());
        }
        // Game 0 asked for again: game 1 is the oldest now.
        for _ in 0..1000 {
            assert!(cache.get(0, &texts[0]).is_some());
        }
        cache.put(4, texts[4].clone(), Bytes::new());
        cache.put(5, texts[5].clone(), Bytes::new());
        assert!(cache.bytes() <= MAX_BYTES);
        assert!(cache.get(0, &texts[0]).is_some(), "asked for last");
        assert!(cache.get(1, &texts[1]).is_none(), "asked for longest ago");
        assert!(cache.get(5, &texts[5]).is_some());
        assert!(
            cache.state.lock().unwrap().order.len() < 100,
            "stale places dropped"
        );
        // Too big for the cache: not kept.
        cache.put(9, Arc::from("z".repeat(MAX_BYTES / 2)), Bytes::new());
        assert!(!cache.state.lock().unwrap().entries.contains_key(&9));
    }

    #[test]
    fn gzip_is_taken_when_the_request_allows_it() {
        let with = |v: &'static str| {
            let mut h = HeaderMap::new();
            h.insert(header::ACCEPT_ENCODING, HeaderValue::from_static(v));
            accepted(&h)
        };
        assert!(with("gzip, deflate, br"));
        assert!(with("br;q=1.0, GZIP;q=0.5"));
        assert!(with("x-gzip"));
        assert!(with("*"));
        assert!(!with("gzip;q=0"));
        assert!(!with("*, gzip;q=0"));
        assert!(!with("br, deflate"));
        assert!(!with("identity"));
        assert!(!accepted(&HeaderMap::new()));
    }

    #[test]
    fn a_gzip_unzips_to_its_text() {
        let text = "{\"game\":1,\"events\":[]}".repeat(50);
        let gz = gzip(text.as_bytes());
        let mut out = String::new();
        std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&gz[..]), &mut out)
            .unwrap();
        assert_eq!(out, text);
        assert!(gz.len() < text.len() / 5);
    }
}
