//! The finished games' events, rebuilt from their records once and kept for the pages within a
//! bound in bytes, the least recently asked for let go first.
//!
//! Rebuilding a game replays it (about 1 ms for a 300-ply game, 10 ms for a long 2v2 game on
//! 8x16): a page polling a finished game, or many pages opening it, must not replay it each
//! time. Pages asking for the same game while it is being rebuilt wait for that one rebuild.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// A finished game's public events, as served: the body of `GET /api/games/{id}`
/// (`{"game":N,"events":[...]}`) and where each event lies in it.
#[derive(Debug)]
pub struct GameEvents {
    body: Arc<str>,
    /// Each event's start and end in `body`.
    spans: Vec<(usize, usize)>,
}

impl GameEvents {
    /// The body of game `game` made of its events (each a JSON object).
    pub fn new(game: u64, events: &[Arc<str>]) -> GameEvents {
        let head = format!("{{\"game\":{game},\"events\":[");
        let size = head.len() + events.iter().map(|e| e.len() + 1).sum::<usize>() + 2;
        let mut body = String::with_capacity(size);
        body.push_str(&head);
        let mut spans = Vec::with_capacity(events.len());
        for (i, e) in events.iter().enumerate() {
            if i > 0 {
                body.push(',');
            }
            spans.push((body.len(), body.len() + e.len()));
            body.push_str(e);
        }
        body.push_str("]}");
        GameEvents {
            body: body.into(),
            spans,
        }
    }

    /// `{"game":N,"events":[...]}`.
    pub fn body(&self) -> Arc<str> {
        self.body.clone()
    }

    /// The events, each a JSON text, in order.
    pub fn events(&self) -> impl Iterator<Item = &str> {
        self.spans.iter().map(|&(a, b)| &self.body[a..b])
    }

    /// The memory it holds.
    pub fn bytes(&self) -> usize {
        self.body.len() + self.spans.len() * std::mem::size_of::<(usize, usize)>() + 64
    }
}

/// The cache: games by number, each rebuilt at most once while kept.
pub struct EventsCache {
    max_bytes: usize,
    state: Mutex<State>,
    rebuilds: AtomicU64,
}

#[derive(Default)]
struct State {
    entries: HashMap<u64, Entry>,
    /// The bytes of the entries built.
    bytes: usize,
    /// Counts uses: an entry's `used` is the count at its latest use.
    clock: u64,
}

struct Entry {
    cell: Arc<OnceLock<Arc<GameEvents>>>,
    used: u64,
    /// 0 while it is being built.
    bytes: usize,
}

impl EventsCache {
    pub fn new(max_bytes: usize) -> EventsCache {
        EventsCache {
            max_bytes,
            state: Mutex::default(),
            rebuilds: AtomicU64::new(0),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Game `game`'s events: kept ones, or `build`'s (run once however many ask at once, with
    /// no lock held), then kept within the bound.
    pub fn get_or_build(&self, game: u64, build: impl FnOnce() -> GameEvents) -> Arc<GameEvents> {
        let cell = {
            let mut state = self.state();
            state.clock += 1;
            let now = state.clock;
            let entry = state.entries.entry(game).or_insert_with(|| Entry {
                cell: Arc::default(),
                used: now,
                bytes: 0,
            });
            entry.used = now;
            entry.cell.clone()
        };
        let mut built = false;
        let events = cell
            .get_or_init(|| {
                built = true;
                self.rebuilds.fetch_add(1, Ordering::Relaxed);
                Arc::new(build())
            })
            .clone();
        if built {
            self.account(game, &cell, events.bytes());
        }
        events
    }

    /// Counts a newly built entry and lets the least recently used go past the bound (the new
    /// one too, if it alone is over: it was served once).
    fn account(&self, game: u64, cell: &Arc<OnceLock<Arc<GameEvents>>>, bytes: usize) {
        let mut state = self.state();
        match state.entries.get_mut(&game) {
            // Forgotten meanwhile: nothing to count.
            Some(e) if Arc::ptr_eq(&e.cell, cell) => e.bytes = bytes,
            _ => return,
        }
        state.bytes += bytes;
        while state.bytes > self.max_bytes {
            let oldest = state
                .entries
                .iter()
                .filter(|(_, e)| e.bytes > 0)
                .min_by_key(|(_, e)| e.used)
                .map(|(g, _)| *g);
            let Some(oldest) = oldest else { break };
            if let Some(e) = state.entries.remove(&oldest) {
                state.bytes -= e.bytes;
            }
        }
    }

    /// Lets game `game`'s events go (its record is no longer kept).
    pub fn forget(&self, game: u64) {
        let mut state = self.state();
        if let Some(e) = state.entries.remove(&game) {
            state.bytes -= e.bytes;
        }
    }

    /// How many games were rebuilt since the start.
    pub fn rebuilds(&self) -> u64 {
        self.rebuilds.load(Ordering::Relaxed)
    }

    /// The bytes held now.
    pub fn bytes(&self) -> usize {
        self.state().bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(n: usize, size: usize) -> Vec<Arc<str>> {
        (0..n)
            .map(|i| format!("{{\"seq\":{i},\"x\":\"{}\"}}", "y".repeat(size)).into())
            .collect()
    }

    #[test]
    fn a_body_is_its_events_and_each_event_is_found_in_it() {
        let e = events(3, 2);
        let g = GameEvents::new(5, &e);
        let v: serde_json::Value = serde_json::from_str(&g.body()).unwrap();
        assert_eq!(v["game"], 5);
        assert_eq!(v["events"].as_array().unwrap().len(), 3);
        let back: Vec<&str> = g.events().collect();
        assert_eq!(back, e.iter().map(|s| s.as_ref()).collect::<Vec<_>>());
        assert_eq!(
            &*GameEvents::new(1, &[]).body(),
            "{\"game\":1,\"events\":[]}"
        );
    }

    #[test]
    fn a_game_is_built_once_and_the_least_recently_used_let_go_past_the_bound() {
        let one = GameEvents::new(1, &events(10, 100)).bytes();
        let cache = EventsCache::new(3 * one);
        for game in [1, 2, 3, 1, 2, 3] {
            cache.get_or_build(game, || GameEvents::new(game, &events(10, 100)));
        }
        assert_eq!(cache.rebuilds(), 3, "each game built once");
        assert_eq!(cache.bytes(), 3 * one);
        // A fourth lets the least recently used go: 2, once 1 is asked for again.
        cache.get_or_build(1, || unreachable!("kept"));
        cache.get_or_build(4, || GameEvents::new(4, &events(10, 100)));
        assert_eq!(cache.rebuilds(), 4);
        cache.get_or_build(1, || unreachable!("1 was used after 2"));
        cache.get_or_build(3, || unreachable!("3 was used after 2"));
        cache.get_or_build(2, || GameEvents::new(2, &events(10, 100)));
        assert_eq!(cache.rebuilds(), 5, "2 was let go");
        assert!(cache.bytes() <= 3 * one);
        // One game over the whole bound is served, not kept.
        let big = cache.get_or_build(9, || GameEvents::new(9, &events(100, 100)));
        assert!(big.bytes() > 3 * one);
        assert!(cache.bytes() <= 3 * one);
        cache.forget(4);
        cache.forget(4);
        assert!(cache.bytes() <= 2 * one);
    }

    #[test]
    fn pages_asking_at_once_wait_for_one_rebuild() {
        let cache = Arc::new(EventsCache::new(1 << 20));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let cache = cache.clone();
                std::thread::spawn(move || {
                    cache.get_or_build(7, || {
                        std::thread::sleep(std::time::Duration::from_millis(50));
                        GameEvents::new(7, &events(5, 10))
                    })
                })
            })
            .collect();
        for t in threads {
            assert_eq!(t.join().unwrap().events().count(), 5);
        }
        assert_eq!(cache.rebuilds(), 1);
    }
}
