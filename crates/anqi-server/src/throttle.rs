//! Log lines an outsider can cause, kept in bounds: a few per window for each source (a client
//! address, ...), then one line saying how many were left out. A client trying tokens by the
//! thousand, or a crowd making `accept` fail, leaves a handful of lines a second in the log,
//! not megabytes.

use std::collections::HashMap;
use std::hash::Hash;
use std::time::{Duration, Instant};

/// Most sources a throttle tracks at once: past this, the oldest windows are forgotten (a
/// forgotten source starts a new window, so at worst its lines come a little faster).
const MAX_SOURCES: usize = 4096;

/// Lines allowed per source and window.
#[derive(Debug)]
pub struct LogThrottle<K> {
    burst: u32,
    window: Duration,
    sources: HashMap<K, Window>,
}

#[derive(Debug)]
struct Window {
    started: Instant,
    logged: u32,
    /// Lines left out since the last one logged.
    left_out: u64,
}

impl<K: Hash + Eq + Clone> Default for LogThrottle<K> {
    /// Five lines per source every ten seconds.
    fn default() -> LogThrottle<K> {
        LogThrottle::new(5, Duration::from_secs(10))
    }
}

impl<K: Hash + Eq + Clone> LogThrottle<K> {
    /// At most `burst` lines per source in each `window`.
    pub fn new(burst: u32, window: Duration) -> LogThrottle<K> {
        LogThrottle {
            burst,
            window,
            sources: HashMap::new(),
        }
    }

    /// Whether a line from `source` is logged now: `Some(n)` with the number of its lines left
    /// out since the last one logged (to say so in this one), `None` to leave this one out.
    pub fn allow(&mut self, source: &K, now: Instant) -> Option<u64> {
        if !self.sources.contains_key(source) && self.sources.len() >= MAX_SOURCES {
            let window = self.window;
            self.sources
                .retain(|_, w| now.saturating_duration_since(w.started) < window);
            if self.sources.len() >= MAX_SOURCES {
                self.sources.clear();
            }
        }
        let w = self.sources.entry(source.clone()).or_insert(Window {
            started: now,
            logged: 0,
            left_out: 0,
        });
        if now.saturating_duration_since(w.started) >= self.window {
            w.started = now;
            w.logged = 0;
        }
        if w.logged < self.burst {
            w.logged += 1;
            Some(std::mem::take(&mut w.left_out))
        } else {
            w.left_out += 1;
            None
        }
    }
}

/// ` (N similar lines left out)` when lines were, for the line that says so.
pub fn left_out(n: u64) -> String {
    if n == 0 {
        String::new()
    } else {
        format!(" ({n} similar lines left out)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_per_window_then_a_count_of_what_was_left_out() {
        let mut t = LogThrottle::new(3, Duration::from_secs(1));
        let start = Instant::now();
        let got: Vec<_> = (0..10).map(|_| t.allow(&"a", start)).collect();
        assert_eq!(got[..3], [Some(0), Some(0), Some(0)]);
        assert!(got[3..].iter().all(Option::is_none));
        // Another source has its own window.
        assert_eq!(t.allow(&"b", start), Some(0));
        // The next window's first line says how many were left out.
        let later = start + Duration::from_secs(1);
        assert_eq!(t.allow(&"a", later), Some(7));
        assert_eq!(t.allow(&"a", later), Some(0));
        assert_eq!(left_out(7), " (7 similar lines left out)");
        assert_eq!(left_out(0), "");
    }

    #[test]
    fn the_sources_tracked_stay_bounded() {
        let mut t = LogThrottle::new(1, Duration::from_secs(60));
        let now = Instant::now();
        for i in 0..(3 * MAX_SOURCES) {
            t.allow(&i, now);
        }
        assert!(t.sources.len() <= MAX_SOURCES);
    }
}
