//! S7: what seeing inside costs the games. S2's games on a server with its metrics on
//! (`anqi serve --metrics`: the games counted through the hub, and `/metrics` scraped every
//! second, as Prometheus would), beside the same games on a server without them; the two in
//! turns, plain, scraped, scraped, plain, so that a machine slowing or speeding up over the
//! run weighs on both alike. Two figures: the games' plies/s, and the server's processor time
//! per ply (user and system, from /proc), which a shared machine's load blurs much less.

use super::client::LoadReport;
use super::figure::{Figure, Target};
use super::Run;
use anyhow::{bail, Context, Result};
use serde::Serialize;
use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How often the scraper asks for `/metrics`: Prometheus's usual interval is 15 to 60 s, so a
/// second is many times the load a server meets.
const EVERY: Duration = Duration::from_secs(1);

/// What the scrapes of one run were, and the server's processor time.
#[derive(Debug, Default, Serialize)]
struct Scrapes {
    count: u64,
    /// The last scrape's size.
    bytes: usize,
    /// The server's processor time over the games, in seconds.
    server_cpu_seconds: f64,
}

/// One `GET /metrics` at `addr`, on a connection of its own: the body's size.
fn scrape(addr: &str) -> Result<usize> {
    let mut s = std::net::TcpStream::connect(addr)?;
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    write!(
        s,
        "GET /metrics HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\n\r\n"
    )?;
    let mut answer = Vec::new();
    s.read_to_end(&mut answer)?;
    if !answer.starts_with(b"HTTP/1.1 200") {
        bail!(
            "/metrics answered {}",
            String::from_utf8_lossy(&answer[..answer.len().min(80)])
        );
    }
    Ok(answer.len())
}

/// Scrapes `addr` at once and then every [`EVERY`] until `stop`; what it scraped.
fn scraper(addr: String, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<Result<Scrapes>> {
    std::thread::spawn(move || {
        let mut done = Scrapes::default();
        while !stop.load(Ordering::Relaxed) {
            done.bytes = scrape(&addr)?;
            done.count += 1;
            // Woken often, to stop soon after the games end.
            for _ in 0..20 {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                std::thread::sleep(EVERY / 20);
            }
        }
        Ok(done)
    })
}

impl Run {
    /// S2's games on a fresh server: with its metrics on and scraped, or without them.
    fn s7_once(&self, label: &str, scraped: bool) -> Result<(LoadReport, Scrapes)> {
        let extra = [
            "--games".to_string(),
            self.sizes.s2_games.to_string(),
            "--concurrency".to_string(),
            self.sizes.s2_concurrency.to_string(),
        ];
        if !scraped {
            let (server, addr) = self.server("S7", "game_ms = 0\n")?;
            let before = server.cpu_seconds()?;
            let played = Run::report(self.client(label, "load", &addr, &extra)?)?;
            let server_cpu_seconds = server.cpu_seconds()? - before;
            let scrapes = Scrapes {
                server_cpu_seconds,
                ..Scrapes::default()
            };
            return Ok((played, scrapes));
        }
        let (mut server, addr) =
            self.server_with("S7", "game_ms = 0\n", &["--metrics", "127.0.0.1:0"])?;
        let metrics = loop {
            let line = server.line()?;
            if let Some(m) = line.trim().strip_prefix("metrics on http://") {
                break m.trim_end_matches("/metrics").to_string();
            }
        };
        let stop = Arc::new(AtomicBool::new(false));
        let before = server.cpu_seconds()?;
        let scraping = scraper(metrics, stop.clone());
        let played = self
            .client(label, "load", &addr, &extra)
            .and_then(Run::report::<LoadReport>);
        stop.store(true, Ordering::Relaxed);
        let server_cpu_seconds = server.cpu_seconds()? - before;
        let mut scrapes = scraping
            .join()
            .map_err(|_| anyhow::anyhow!("the scraper panicked"))?
            .context("scraping /metrics")?;
        scrapes.server_cpu_seconds = server_cpu_seconds;
        Ok((played?, scrapes))
    }

    pub(super) fn s7(&mut self) -> Result<()> {
        eprintln!(
            "S7: S2's {} games, {} at once, four times on fresh servers: without metrics, with them scraped every second twice, without again...",
            self.sizes.s2_games, self.sizes.s2_concurrency
        );
        let rate = |r: &LoadReport| r.plies as f64 / r.seconds;
        let (plain, cpu_plain) = self.s7_once("S7 plain", false)?;
        let (scraped, scrapes) = self.s7_once("S7 scraped", true)?;
        let (scraped_again, scrapes_again) = self.s7_once("S7 scraped again", true)?;
        let (plain_again, cpu_plain_again) = self.s7_once("S7 plain again", false)?;
        let with = (rate(&scraped) + rate(&scraped_again)) / 2.0;
        let without = (rate(&plain) + rate(&plain_again)) / 2.0;
        self.figures.push(
            Figure::new("S7", with.round(), "plies/s scraped")
                .floor(Some(without.round()), "plies/s without metrics")
                .target(Target::RatioAtLeast { ratio: 0.99 }),
        );
        // Microseconds of the server's processor time per ply, over both runs of a kind.
        let per_ply = |a: (&LoadReport, &Scrapes), b: (&LoadReport, &Scrapes)| {
            let plies = (a.0.plies + b.0.plies).max(1) as f64;
            (a.1.server_cpu_seconds + b.1.server_cpu_seconds) * 1e6 / plies
        };
        let cpu_with = per_ply((&scraped, &scrapes), (&scraped_again, &scrapes_again));
        let cpu_without = per_ply((&plain, &cpu_plain), (&plain_again, &cpu_plain_again));
        self.figures.push(
            // A run too short for the kernel's tick has no floor to compare with.
            Figure::new("S7 cpu", cpu_with, "us/ply scraped")
                .floor(
                    Some(cpu_without).filter(|&c| c > 0.0),
                    "us/ply without metrics",
                )
                .target(Target::RatioAtMost { ratio: 1.01 }),
        );
        self.detail("S7 plain", &plain)?;
        self.detail("S7 scraped", &scraped)?;
        self.detail("S7 scraped again", &scraped_again)?;
        self.detail("S7 plain again", &plain_again)?;
        self.detail("S7 scrapes", [scrapes, scrapes_again])?;
        self.detail("S7 plain cpu", [cpu_plain, cpu_plain_again])
    }
}
