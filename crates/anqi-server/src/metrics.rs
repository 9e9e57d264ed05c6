//! What an operator reads of a running server (`GET /metrics` on its pages, in Prometheus's
//! text format, and `GET /readyz`): counters kept as the games run, at the cost of an atomic
//! add each, and rendered when scraped.
//!
//! Counted through the watch hub ([`crate::Hub::metrics`]): the games started, finished (by
//! variant and termination) and their plies, and the records file's writes, failures and
//! write latency. The pages add their own (requests by route and status) and the gauges they
//! read at the scrape (games running, observers, players waiting).

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Upper bounds of the records file's write-latency buckets, in seconds.
const WRITE_BUCKETS: [f64; 9] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 0.5, 2.5];

/// The server's counters; a clone shares them.
#[derive(Clone, Default)]
pub struct Metrics {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    games_started: AtomicU64,
    plies: AtomicU64,
    /// Finished games by (variant, termination).
    finished: Mutex<BTreeMap<(String, String), u64>>,
    record_writes: AtomicU64,
    record_failures: AtomicU64,
    /// Batches written, per bucket of [`WRITE_BUCKETS`] (not cumulative), then past the last.
    write_buckets: [AtomicU64; WRITE_BUCKETS.len() + 1],
    write_micros: AtomicU64,
    /// Why records cannot be written now (the record writer's own), once the server runs.
    records_failing: Mutex<Option<Arc<Mutex<Option<String>>>>>,
}

impl Metrics {
    /// A game started.
    pub fn game_started(&self) {
        self.inner.games_started.fetch_add(1, Ordering::Relaxed);
    }

    /// A ply was played.
    pub fn ply(&self) {
        self.inner.plies.fetch_add(1, Ordering::Relaxed);
    }

    /// A game of `variant` ended by `termination`.
    pub fn game_finished(&self, variant: &str, termination: &str) {
        let mut finished = self
            .inner
            .finished
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        *finished
            .entry((variant.to_string(), termination.to_string()))
            .or_default() += 1;
    }

    /// `records` records were written in one batch, which took `took`.
    pub fn records_written(&self, records: usize, took: Duration) {
        self.inner
            .record_writes
            .fetch_add(records as u64, Ordering::Relaxed);
        let secs = took.as_secs_f64();
        let bucket = WRITE_BUCKETS
            .iter()
            .position(|&b| secs <= b)
            .unwrap_or(WRITE_BUCKETS.len());
        self.inner.write_buckets[bucket].fetch_add(1, Ordering::Relaxed);
        self.inner
            .write_micros
            .fetch_add(took.as_micros() as u64, Ordering::Relaxed);
    }

    /// A batch of records could not be written.
    pub fn record_write_failed(&self) {
        self.inner.record_failures.fetch_add(1, Ordering::Relaxed);
    }

    /// Where the record writer says why it cannot write (`RecordSink`'s own state).
    pub(crate) fn watch_records(&self, failing: Arc<Mutex<Option<String>>>) {
        *self
            .inner
            .records_failing
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = Some(failing);
    }

    /// Why the server is not ready to play a game: the records file cannot be written (no
    /// game starts until it can), or the server has not started; `None` when ready.
    pub fn not_ready(&self) -> Option<String> {
        let watched = self
            .inner
            .records_failing
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        match watched {
            None => Some("the server has not started".into()),
            Some(failing) => failing
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .as_ref()
                .map(|why| format!("the records file cannot be written: {why}")),
        }
    }

    /// The counters in Prometheus's text format (version 0.0.4), appended to `out`.
    pub fn render(&self, out: &mut String) {
        let i = &self.inner;
        counter(
            out,
            "anqi_games_started_total",
            "Games started.",
            i.games_started.load(Ordering::Relaxed),
        );
        let _ = writeln!(
            out,
            "# HELP anqi_games_finished_total Games finished, by variant and termination.\n# TYPE anqi_games_finished_total counter"
        );
        for ((variant, termination), n) in
            i.finished.lock().unwrap_or_else(|e| e.into_inner()).iter()
        {
            let _ = writeln!(
                out,
                "anqi_games_finished_total{{variant=\"{}\",termination=\"{}\"}} {n}",
                label(variant),
                label(termination)
            );
        }
        counter(
            out,
            "anqi_plies_total",
            "Plies played.",
            i.plies.load(Ordering::Relaxed),
        );
        counter(
            out,
            "anqi_record_writes_total",
            "Game records written to the records file.",
            i.record_writes.load(Ordering::Relaxed),
        );
        counter(
            out,
            "anqi_record_write_failures_total",
            "Writes of the records file that failed (each tried again).",
            i.record_failures.load(Ordering::Relaxed),
        );
        let _ = writeln!(
            out,
            "# HELP anqi_record_write_seconds Time to write (and flush, and fsync when configured) a batch of records.\n# TYPE anqi_record_write_seconds histogram"
        );
        let mut cumulative = 0;
        for (b, bound) in WRITE_BUCKETS.iter().enumerate() {
            cumulative += i.write_buckets[b].load(Ordering::Relaxed);
            let _ = writeln!(
                out,
                "anqi_record_write_seconds_bucket{{le=\"{bound}\"}} {cumulative}"
            );
        }
        cumulative += i.write_buckets[WRITE_BUCKETS.len()].load(Ordering::Relaxed);
        let _ = writeln!(
            out,
            "anqi_record_write_seconds_bucket{{le=\"+Inf\"}} {cumulative}"
        );
        let _ = writeln!(
            out,
            "anqi_record_write_seconds_sum {}\nanqi_record_write_seconds_count {cumulative}",
            i.write_micros.load(Ordering::Relaxed) as f64 / 1e6
        );
    }
}

/// One counter with its help and type lines.
fn counter(out: &mut String, name: &str, help: &str, value: u64) {
    let _ = writeln!(
        out,
        "# HELP {name} {help}\n# TYPE {name} counter\n{name} {value}"
    );
}

/// A gauge with its help and type lines.
pub fn gauge(out: &mut String, name: &str, help: &str, value: u64) {
    let _ = writeln!(
        out,
        "# HELP {name} {help}\n# TYPE {name} gauge\n{name} {value}"
    );
}

/// A label's value as the text format writes it: backslash, quote and newline escaped.
pub fn label(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_format_has_every_series_and_cumulative_buckets() {
        let m = Metrics::default();
        m.game_started();
        m.ply();
        m.ply();
        m.game_finished("traditional", "capture-all");
        m.game_finished("tra\"d", "time");
        m.records_written(1, Duration::from_micros(300));
        m.records_written(2, Duration::from_secs(10));
        m.record_write_failed();
        let mut out = String::new();
        m.render(&mut out);
        for line in [
            "anqi_games_started_total 1",
            "anqi_plies_total 2",
            "anqi_games_finished_total{variant=\"traditional\",termination=\"capture-all\"} 1",
            "anqi_games_finished_total{variant=\"tra\\\"d\",termination=\"time\"} 1",
            "anqi_record_writes_total 3",
            "anqi_record_write_failures_total 1",
            "anqi_record_write_seconds_bucket{le=\"0.0005\"} 1",
            "anqi_record_write_seconds_bucket{le=\"2.5\"} 1",
            "anqi_record_write_seconds_bucket{le=\"+Inf\"} 2",
            "anqi_record_write_seconds_count 2",
        ] {
            assert!(out.lines().any(|l| l == line), "{line} in:\n{out}");
        }
    }

    #[test]
    fn ready_only_once_started_and_while_records_can_be_written() {
        let m = Metrics::default();
        assert!(m.not_ready().unwrap().contains("not started"));
        let failing = Arc::new(Mutex::new(None));
        m.watch_records(failing.clone());
        assert_eq!(m.not_ready(), None);
        *failing.lock().unwrap() = Some("No space left on device".into());
        assert!(m.not_ready().unwrap().contains("No space left"));
    }
}
