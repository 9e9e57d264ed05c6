//! A latency histogram in Prometheus's text format: a count per bucket at an atomic add each,
//! rendered cumulative when scraped.

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Upper bounds of the buckets, in seconds: from half a millisecond (a write to the page
/// cache) to seconds (a disk that stalls).
const BUCKETS: [f64; 9] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 0.5, 2.5];

/// Durations observed, by bucket.
#[derive(Default)]
pub struct Histogram {
    /// Per bucket of [`BUCKETS`] (not cumulative), then past the last.
    buckets: [AtomicU64; BUCKETS.len() + 1],
    micros: AtomicU64,
}

impl Histogram {
    /// One duration.
    pub fn observe(&self, took: Duration) {
        let secs = took.as_secs_f64();
        let bucket = BUCKETS
            .iter()
            .position(|&b| secs <= b)
            .unwrap_or(BUCKETS.len());
        self.buckets[bucket].fetch_add(1, Ordering::Relaxed);
        self.micros
            .fetch_add(took.as_micros() as u64, Ordering::Relaxed);
    }

    /// As `name` (in seconds) with its `help`, appended to `out`.
    pub fn render(&self, out: &mut String, name: &str, help: &str) {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} histogram");
        let mut cumulative = 0;
        for (b, bound) in BUCKETS.iter().enumerate() {
            cumulative += self.buckets[b].load(Ordering::Relaxed);
            let _ = writeln!(out, "{name}_bucket{{le=\"{bound}\"}} {cumulative}");
        }
        cumulative += self.buckets[BUCKETS.len()].load(Ordering::Relaxed);
        let _ = writeln!(out, "{name}_bucket{{le=\"+Inf\"}} {cumulative}");
        let _ = writeln!(
            out,
            "{name}_sum {}\n{name}_count {cumulative}",
            self.micros.load(Ordering::Relaxed) as f64 / 1e6
        );
    }
}
