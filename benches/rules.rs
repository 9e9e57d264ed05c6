//! Rules-core benchmark: uniformly random playouts on one thread, no I/O, the way
//! `anqi.playouts` plays them (deal from the seed, list the legal actions, pick one, play it).
//!
//! Run with `cargo bench --bench rules` (options after `--`: `--variant NAME` (default
//! `openspiel`; `all` for every shipped variant), `--games N` (default 20,000), `--seed S`,
//! `--list`: list every ply's legal actions and pick from the list, as a driver from Python
//! does, instead of `Game::nth_legal`).
//! It prints plies per second, and a fingerprint of everything the games did (every legal
//! list, count, chosen action and outcome), so a change to the core can be checked to give the
//! same results as before: run it before and after with the same options and compare the
//! fingerprints. With few games it is also a small driver for a profiler
//! (`valgrind --tool=callgrind target/release/deps/rules-* --games 200`).

use anqi::rules::{Action, ActionCounts, Game, SeedInputs, Variant, SHIPPED};
use std::sync::Arc;
use std::time::Instant;

/// SplitMix64, as `anqi.playouts` uses: fast and reproducible.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// FNV-1a over 64-bit words: order-sensitive and cheap next to a ply.
struct Fingerprint(u64);

impl Fingerprint {
    fn add(&mut self, x: u64) {
        self.0 = (self.0 ^ x).wrapping_mul(0x0000_0100_0000_01b3);
    }

    fn action(&mut self, a: Action) {
        self.add(match a {
            Action::Reveal(c) => c as u64,
            Action::Move { from, to } => (1 << 60) | ((from as u64) << 20) | to as u64,
            Action::Bag => 2 << 60,
            Action::Put { piece, cell } => {
                (3 << 60) | ((piece.letter() as u64) << 20) | cell as u64
            }
        });
    }

    fn counts(&mut self, c: ActionCounts) {
        for n in [c.moves, c.jumps, c.reveals, c.bags, c.puts] {
            self.add(u64::from(n));
        }
    }
}

struct Run {
    games: u64,
    plies: u64,
    seconds: f64,
    fingerprint: u64,
}

/// Plays `games` random games. With `check`, every legal list and count goes into the
/// fingerprint (slower: for comparing results, not for timing). With `list`, every ply lists
/// the legal actions and picks from the list (what a driver from Python does with
/// `legal_action_ids`), else it picks with `nth_legal` (what `anqi.playouts` does).
fn run(variant: &Arc<Variant>, seed: &str, games: u64, check: bool, list: bool) -> Run {
    let mut fp = Fingerprint(0xcbf2_9ce4_8422_2325);
    let mut plies = 0;
    let mut legal = Vec::new();
    let start = Instant::now();
    for i in 0..games {
        let inputs = SeedInputs {
            clients: Vec::new(),
            server: format!("{seed}/{i}"),
        };
        let key = inputs.key();
        let mut rng = SplitMix64(u64::from_le_bytes(key[..8].try_into().unwrap()));
        let mut game = Game::new(variant.clone(), inputs.deal_for(variant));
        while game.outcome().is_none() && game.ply() < 5_000 {
            if check {
                game.for_each_legal(|a, _| fp.action(a));
                fp.counts(game.counts());
                for p in 1..=variant.order.iter().copied().max().unwrap_or(1) {
                    fp.counts(game.counts_of(p));
                }
            }
            // As `anqi.playouts` does: an index among the counted actions, and that action.
            let a = if list {
                legal.clear();
                game.for_each_legal(|a, _| legal.push(a));
                legal[rng.below(legal.len())]
            } else {
                let total = game.public_state().counts().total() as usize;
                game.nth_legal(rng.below(total)).unwrap()
            };
            fp.action(a);
            game.play(game.to_move(), a).unwrap();
        }
        plies += u64::from(game.ply());
        let o = game.outcome();
        fp.add(u64::from(game.ply()));
        fp.add(o.map_or(99, |o| o.reason as u64));
        fp.add(o.and_then(|o| o.winner).map_or(99, |w| w as u64));
    }
    Run {
        games,
        plies,
        seconds: start.elapsed().as_secs_f64(),
        fingerprint: fp.0,
    }
}

fn main() {
    let mut variant = "openspiel".to_string();
    let mut games: u64 = 20_000;
    let mut seed = "bench".to_string();
    let mut list = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--variant" => variant = args.next().expect("--variant NAME"),
            "--games" => games = args.next().and_then(|n| n.parse().ok()).expect("--games N"),
            "--seed" => seed = args.next().expect("--seed S"),
            "--list" => list = true,
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
        let timed = run(&v, &seed, games, false, list);
        let checked = run(&v, &seed, games.min(2_000), true, list);
        println!(
            "{name}: {:.0} plies/s ({} games, {} plies, {:.2} s); fingerprint {:016x}/{:016x}",
            timed.plies as f64 / timed.seconds,
            timed.games,
            timed.plies,
            timed.seconds,
            timed.fingerprint,
            checked.fingerprint,
        );
    }
}
