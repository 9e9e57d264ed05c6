//! What a ladder (`anqi-ladder`) counts: the games it counted, rated or not, and how long the
//! database took for each game's transaction; and whether the database takes them now (a
//! server whose database refuses is not ready: `GET /readyz`).

use super::histogram::Histogram;
use std::fmt::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// The ladder's counters (inside [`super::Metrics`]; rendered only once a ladder runs).
#[derive(Default)]
pub struct LadderMetrics {
    running: AtomicBool,
    rated: AtomicU64,
    unrated: AtomicU64,
    transactions: Histogram,
    /// Why the database refused the last transaction, until one succeeds.
    failing: Mutex<Option<String>>,
}

impl LadderMetrics {
    /// A ladder runs on this server: its series are rendered.
    pub fn start(&self) {
        self.running.store(true, Ordering::Relaxed);
    }

    /// A game's transaction went through in `took`: the game counted, rated or not.
    pub fn counted(&self, rated: bool, took: Duration) {
        let n = if rated { &self.rated } else { &self.unrated };
        n.fetch_add(1, Ordering::Relaxed);
        self.transactions.observe(took);
        *self.failing.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }

    /// The database refused a game's transaction (the game is counted at the next start).
    pub fn refused(&self, why: String) {
        *self.failing.lock().unwrap_or_else(|e| e.into_inner()) = Some(why);
    }

    /// Why the ladder's database takes no game now.
    pub fn not_ready(&self) -> Option<String> {
        self.failing
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .map(|why| format!("the ladder's database refuses games: {why}"))
    }

    pub(super) fn render(&self, out: &mut String) {
        if !self.running.load(Ordering::Relaxed) {
            return;
        }
        let _ = writeln!(
            out,
            "# HELP anqi_ladder_games_total Games the ladder counted in its database: rated, or indexed and counting for nothing (aborted).\n# TYPE anqi_ladder_games_total counter\nanqi_ladder_games_total{{counted=\"rated\"}} {}\nanqi_ladder_games_total{{counted=\"unrated\"}} {}",
            self.rated.load(Ordering::Relaxed),
            self.unrated.load(Ordering::Relaxed)
        );
        self.transactions.render(
            out,
            "anqi_ladder_transaction_seconds",
            "Time the ladder's database took for a game and its ratings (one transaction, on disk when it returns).",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_transaction_makes_the_server_unready_until_one_goes_through() {
        let m = super::super::Metrics::default();
        let mut out = String::new();
        m.render(&mut out);
        assert!(!out.contains("anqi_ladder"), "no ladder, no ladder series");
        m.ladder().start();
        m.ladder().refused("disk I/O error".into());
        assert_eq!(
            m.ladder().not_ready().as_deref(),
            Some("the ladder's database refuses games: disk I/O error")
        );
        m.ladder().counted(true, Duration::from_millis(3));
        m.ladder().counted(false, Duration::from_millis(30));
        assert_eq!(m.ladder().not_ready(), None);
        let mut out = String::new();
        m.render(&mut out);
        for line in [
            "anqi_ladder_games_total{counted=\"rated\"} 1",
            "anqi_ladder_games_total{counted=\"unrated\"} 1",
            "anqi_ladder_transaction_seconds_bucket{le=\"0.005\"} 1",
            "anqi_ladder_transaction_seconds_bucket{le=\"+Inf\"} 2",
            "anqi_ladder_transaction_seconds_count 2",
        ] {
            assert!(out.lines().any(|l| l == line), "{line} in\n{out}");
        }
    }
}
