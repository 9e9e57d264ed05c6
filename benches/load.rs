//! Load benchmark: many concurrent random-bot games against one in-process server, over real
//! loopback TCP, on whatever cores the machine has.
//!
//! Run with `cargo bench --bench load` (options after `--`: `--games N`, `--concurrency C`,
//! `--variant NAME`). It plays the games twice, first one at a time and then `C` at once,
//! and prints plies per second for both runs, their ratio, and the peak resident memory per
//! concurrent game. The clients run in the same process and share its cores, so the absolute
//! numbers understate the server alone; the ratio shows how well concurrency scales.

use anqi_client::{play_game, RandomBot};
use anqi_core::rules::Variant;
use anqi_server::config::Config;
use anqi_server::Server;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, Semaphore};
use tokio_util::sync::CancellationToken;

struct Run {
    games: usize,
    plies: u64,
    elapsed: Duration,
}

async fn run(variant: &str, games: usize, concurrency: usize) -> Run {
    let mut config = Config::parse(
        "[clock]\ngame_ms = 0\n[records]\npath = \"\"\n[server]\nmax_connections_per_address = 0\n",
    )
    .unwrap();
    config.server.listen = "127.0.0.1:0".into();
    let mut server = Server::bind(config, Variant::load(variant).unwrap())
        .await
        .unwrap();
    let (tx, mut rx) = mpsc::unbounded_channel();
    server.observe_records(tx);
    let addr = server.local_addr().unwrap().to_string();
    let stop = CancellationToken::new();
    let handle = tokio::spawn(server.run(stop.clone()));
    let start = Instant::now();
    let slots = Arc::new(Semaphore::new(2 * concurrency));
    let mut tasks = Vec::with_capacity(2 * games);
    for i in 0..2 * games {
        let permit = slots.clone().acquire_owned().await.unwrap();
        let addr = addr.clone();
        tasks.push(tokio::spawn(async move {
            let r = play_game(
                &addr,
                "bench",
                &i.to_string(),
                &mut RandomBot::new(i as u64),
                None,
            )
            .await;
            drop(permit);
            r.expect("game completes");
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let elapsed = start.elapsed();
    let mut plies = 0u64;
    for _ in 0..games {
        plies += u64::from(rx.recv().await.unwrap().result.plies);
    }
    stop.cancel();
    handle.await.unwrap().unwrap();
    Run {
        games,
        plies,
        elapsed,
    }
}

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    let mut games = 2000usize;
    let mut concurrency = 2000usize;
    let mut variant = "traditional".to_string();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--games" => games = args.next().and_then(|v| v.parse().ok()).expect("--games N"),
            "--concurrency" => {
                concurrency = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--concurrency C")
            }
            "--variant" => variant = args.next().expect("--variant NAME"),
            "--bench" => {}
            other => {
                panic!("unknown option {other}; options: --games N --concurrency C --variant NAME")
            }
        }
    }
    let rt = tokio::runtime::Runtime::new().unwrap();
    let serial_games = (games / 10).max(10);
    let serial = rt.block_on(run(&variant, serial_games, 1));
    let rss_before = peak_rss_kib();
    let wide = rt.block_on(run(&variant, games, concurrency));
    let rss_after = peak_rss_kib();
    let rate = |r: &Run| r.plies as f64 / r.elapsed.as_secs_f64();
    println!(
        "variant {variant}, {} cores",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    println!(
        "one game at a time: {} games, {} plies in {:.2?}: {:.0} plies/s",
        serial.games,
        serial.plies,
        serial.elapsed,
        rate(&serial)
    );
    println!(
        "{concurrency} games at once: {} games, {} plies in {:.2?}: {:.0} plies/s",
        wide.games,
        wide.plies,
        wide.elapsed,
        rate(&wide)
    );
    println!(
        "throughput ratio (concurrent / one at a time): {:.2}",
        rate(&wide) / rate(&serial)
    );
    if let (Some(a), Some(b)) = (rss_before, rss_after) {
        println!(
            "peak memory: {a} KiB after the serial run, {b} KiB after the concurrent run: {:.1} KiB per concurrent game (server and clients together)",
            (b.saturating_sub(a)) as f64 / concurrency.min(games) as f64
        );
    }
}
