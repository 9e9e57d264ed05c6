//! Rules-core benchmark: uniformly random playouts on one thread, no I/O, the way
//! `anqi.playouts` plays them ([`anqi_core::rules::playout`]: deal from the seed, count the legal
//! actions, pick one, play it).
//!
//! Run with `cargo bench --bench rules` (options after `--`: `--variant NAME` (default
//! `openspiel`; `all` for every shipped variant), `--games N` (default 20,000), `--seed S`,
//! `--list`: list every ply's legal actions and pick from the list, as a driver from Python
//! does, instead of `Game::nth_legal`; `--no-check`: skip the checked games, so a profile shows
//! the timed loop alone).
//! It prints plies per second, and two fingerprints: of everything the timed games did, and of
//! the first 2,000 games with every legal list and every player's counts at every ply, so a
//! change to the core can be checked to give the same results as before: run it before and
//! after with the same options and compare the fingerprints. With few games it is also a small
//! driver for a profiler (`valgrind --tool=callgrind target/release/deps/rules-* --games 300
//! --no-check`).

use anqi_core::rules::playout::{self, Pick, Playouts};
use anqi_core::rules::{Variant, SHIPPED};
use std::sync::Arc;

fn main() {
    let mut variant = "openspiel".to_string();
    let mut games: u64 = 20_000;
    let mut seed = "bench".to_string();
    let mut pick = Pick::Nth;
    let mut check = true;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--variant" => variant = args.next().expect("--variant NAME"),
            "--games" => games = args.next().and_then(|n| n.parse().ok()).expect("--games N"),
            "--seed" => seed = args.next().expect("--seed S"),
            "--list" => pick = Pick::List,
            "--no-check" => check = false,
            // `cargo bench` passes `--bench`.
            _ => {}
        }
    }
    let names: Vec<&str> = if variant == "all" {
        SHIPPED.iter().map(|(n, _)| *n).collect()
    } else {
        vec![variant.as_str()]
    };
    for name in names {
        let v = Arc::new(Variant::load(name).expect("a variant name or file"));
        // Capped so a variant whose random games may not end cannot hang the benchmark.
        let batch = Playouts {
            pick,
            max_plies: Some(5_000),
            ..Playouts::new(seed.clone(), games)
        };
        let start = std::time::Instant::now();
        let timed = playout::run(&v, &batch);
        let elapsed = start.elapsed().as_secs_f64();
        let checked = check.then(|| {
            let checked = Playouts {
                games: games.min(2_000),
                check: true,
                ..batch
            };
            format!("/{:016x}", playout::run(&v, &checked).fingerprint.0)
        });
        println!(
            "{name}: {:.0} plies/s ({} games, {} plies, {:.2} s); fingerprint {:016x}{}",
            timed.plies as f64 / elapsed.max(1e-9),
            timed.games,
            timed.plies,
            elapsed,
            timed.fingerprint.0,
            checked.unwrap_or_default(),
        );
    }
}
