//! What an operator reads of a running server (`GET /metrics` on its pages or its metrics
//! address, in Prometheus's text format, and `GET /readyz`): counters kept as the games run, at the cost of an atomic
//! add each, and rendered when scraped.
//!
//! Counted through the watch hub ([`crate::Hub::metrics`]): the games started, finished (by
//! variant and termination) and their plies, and the records file's writes, failures and
//! write latency. The server counts its connections by state (a [`Held`] each while in that
//! state), the connections and players it turns away by reason ([`Refused`]) and the seats
//! come back for ([`Rejoin`]). The pages add their own (requests by route and status) and the
//! gauges they read at the scrape (games running, observers, players waiting).

mod histogram;
mod ladder;

pub use ladder::LadderMetrics;

use histogram::Histogram;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

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
    /// How long each batch of records took to write.
    writes: Histogram,
    ladder: LadderMetrics,
    /// Why records cannot be written now (the record writer's own), once the server runs.
    records_failing: Mutex<Option<Arc<Mutex<Option<String>>>>>,
    /// Game connections open (each holding its place under the caps), and those of them in
    /// their handshake.
    connections_open: AtomicU64,
    connections_handshake: AtomicU64,
    /// By [`Refused`], in the order of [`Refused::ALL`].
    refusals: [AtomicU64; Refused::ALL.len()],
    /// By [`Rejoin`], in the order of [`Rejoin::ALL`].
    rejoins: [AtomicU64; Rejoin::ALL.len()],
}

/// Why the server turned a connection or a player away (`anqi_refusals_total{reason}`): a
/// fixed set of label values, never the client's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// The server held all the connections it may, and none made room in time.
    Full,
    /// Its client network held `max_connections_per_address` connections.
    PerAddress,
    /// Its client network had `max_seats_per_address` players waiting or playing.
    SeatsPerAddress,
    /// The process had no file descriptor left (answered with the spare one).
    Descriptors,
    /// No `(init NAME SEED)` within `handshake_timeout_ms`.
    HandshakeTimeout,
    /// Another protocol version.
    Version,
    /// Let go in its handshake to make room for a newcomer on a full server.
    MadeRoom,
    /// The server was shutting down.
    Shutdown,
    /// An account asked of a ladder past its hourly caps (`[ladder] registrations_per_hour`,
    /// `registrations_per_hour_per_address`).
    Registrations,
}

impl Refused {
    /// Every reason, in the order rendered.
    pub const ALL: [Refused; 9] = [
        Refused::Full,
        Refused::PerAddress,
        Refused::SeatsPerAddress,
        Refused::Descriptors,
        Refused::HandshakeTimeout,
        Refused::Version,
        Refused::MadeRoom,
        Refused::Shutdown,
        Refused::Registrations,
    ];

    /// Its label value.
    pub fn label(self) -> &'static str {
        match self {
            Refused::Full => "full",
            Refused::PerAddress => "per_address",
            Refused::SeatsPerAddress => "seats_per_address",
            Refused::Descriptors => "descriptors",
            Refused::HandshakeTimeout => "handshake_timeout",
            Refused::Version => "version",
            Refused::MadeRoom => "made_room",
            Refused::Shutdown => "shutdown",
            Refused::Registrations => "registrations",
        }
    }
}

impl From<crate::limits::Refusal> for Refused {
    fn from(refusal: crate::limits::Refusal) -> Refused {
        use crate::limits::Refusal;
        match refusal {
            Refusal::Full(_) => Refused::Full,
            Refusal::PerAddress(_) => Refused::PerAddress,
            Refusal::SeatsPerAddress(_) => Refused::SeatsPerAddress,
            Refusal::Descriptors => Refused::Descriptors,
        }
    }
}

/// What came of a seat kept for a player whose connection was lost (`anqi_rejoins_total{outcome}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rejoin {
    /// Its player came back in time and took it.
    TakenBack,
    /// Its grace (or the mover's clock) ran out first: the seat lost.
    Expired,
    /// A connection came back with a secret no seat waits for.
    NoSeat,
}

impl Rejoin {
    /// Every outcome, in the order rendered.
    pub const ALL: [Rejoin; 3] = [Rejoin::TakenBack, Rejoin::Expired, Rejoin::NoSeat];

    /// Its label value.
    pub fn label(self) -> &'static str {
        match self {
            Rejoin::TakenBack => "taken_back",
            Rejoin::Expired => "expired",
            Rejoin::NoSeat => "no_seat",
        }
    }
}

/// A connection counted in one state of `anqi_connections` while this is held.
#[must_use]
pub struct Held {
    inner: Arc<Inner>,
    handshake: bool,
}

impl Held {
    fn gauge(&self) -> &AtomicU64 {
        if self.handshake {
            &self.inner.connections_handshake
        } else {
            &self.inner.connections_open
        }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.gauge().fetch_sub(1, Ordering::Relaxed);
    }
}

impl std::fmt::Debug for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Held")
            .field("handshake", &self.handshake)
            .finish()
    }
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
        self.inner.writes.observe(took);
    }

    /// A game connection is open (admitted under the caps) while the result is held.
    pub fn connection_open(&self) -> Held {
        self.hold(false)
    }

    /// An open connection is in its handshake while the result is held.
    pub fn in_handshake(&self) -> Held {
        self.hold(true)
    }

    fn hold(&self, handshake: bool) -> Held {
        let held = Held {
            inner: self.inner.clone(),
            handshake,
        };
        held.gauge().fetch_add(1, Ordering::Relaxed);
        held
    }

    /// A connection or a player was turned away.
    pub fn refused(&self, why: Refused) {
        self.inner.refusals[why as usize].fetch_add(1, Ordering::Relaxed);
    }

    /// A kept seat came to `outcome`.
    pub fn rejoin(&self, outcome: Rejoin) {
        self.inner.rejoins[outcome as usize].fetch_add(1, Ordering::Relaxed);
    }

    /// The ladder's counters (`anqi-ladder` counts its games there).
    pub fn ladder(&self) -> &LadderMetrics {
        &self.inner.ladder
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
    /// game starts until it can), the server has not started, or the ladder's database refuses
    /// games; `None` when ready.
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
                .map(|why| format!("the records file cannot be written: {why}"))
                .or_else(|| self.inner.ladder.not_ready()),
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
        i.writes.render(
            out,
            "anqi_record_write_seconds",
            "Time to write (and flush, and fsync when configured) a batch of records.",
        );
        i.ladder.render(out);
        self.render_connections(out);
    }

    /// The connections by state, the refusals by reason and the rejoins by outcome: every
    /// label value always, 0 until counted, so that a rate over it has a start.
    fn render_connections(&self, out: &mut String) {
        let i = &self.inner;
        // The handshakes first: one ending between the two reads then counts as seated.
        let handshake = i.connections_handshake.load(Ordering::Relaxed);
        let seated = i
            .connections_open
            .load(Ordering::Relaxed)
            .saturating_sub(handshake);
        let _ = writeln!(
            out,
            "# HELP anqi_connections Game connections open, by state: handshake (no (init NAME SEED) yet) or seated (waiting for a game or playing one).\n# TYPE anqi_connections gauge\nanqi_connections{{state=\"handshake\"}} {handshake}\nanqi_connections{{state=\"seated\"}} {seated}"
        );
        let _ = writeln!(
            out,
            "# HELP anqi_refusals_total Connections and players turned away, by reason.\n# TYPE anqi_refusals_total counter"
        );
        for why in Refused::ALL {
            let n = i.refusals[why as usize].load(Ordering::Relaxed);
            let _ = writeln!(out, "anqi_refusals_total{{reason=\"{}\"}} {n}", why.label());
        }
        let _ = writeln!(
            out,
            "# HELP anqi_rejoins_total Seats kept for a lost connection, by what came of them.\n# TYPE anqi_rejoins_total counter"
        );
        for outcome in Rejoin::ALL {
            let n = i.rejoins[outcome as usize].load(Ordering::Relaxed);
            let _ = writeln!(
                out,
                "anqi_rejoins_total{{outcome=\"{}\"}} {n}",
                outcome.label()
            );
        }
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
    fn connections_refusals_and_rejoins_are_counted_with_every_label() {
        let m = Metrics::default();
        let render = || {
            let mut out = String::new();
            m.render(&mut out);
            out
        };
        let has = |out: &str, line: &str| out.lines().any(|l| l == line);
        let open = m.connection_open();
        let handshake = m.in_handshake();
        let out = render();
        assert!(
            has(&out, "anqi_connections{state=\"handshake\"} 1"),
            "{out}"
        );
        assert!(has(&out, "anqi_connections{state=\"seated\"} 0"), "{out}");
        drop(handshake);
        assert!(has(&render(), "anqi_connections{state=\"seated\"} 1"));
        drop(open);
        let out = render();
        assert!(has(&out, "anqi_connections{state=\"seated\"} 0"), "{out}");
        assert!(
            has(&out, "anqi_connections{state=\"handshake\"} 0"),
            "{out}"
        );
        m.refused(Refused::Version);
        m.refused(crate::limits::Refusal::PerAddress(3).into());
        m.refused(Refused::PerAddress);
        m.rejoin(Rejoin::Expired);
        let out = render();
        for line in [
            "anqi_refusals_total{reason=\"per_address\"} 2",
            "anqi_refusals_total{reason=\"version\"} 1",
            "anqi_refusals_total{reason=\"full\"} 0",
            "anqi_refusals_total{reason=\"shutdown\"} 0",
            "anqi_rejoins_total{outcome=\"expired\"} 1",
            "anqi_rejoins_total{outcome=\"taken_back\"} 0",
            "anqi_rejoins_total{outcome=\"no_seat\"} 0",
        ] {
            assert!(has(&out, line), "{line} in:\n{out}");
        }
        assert_eq!(
            out.matches("anqi_refusals_total{").count(),
            Refused::ALL.len()
        );
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
