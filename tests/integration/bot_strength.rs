//! The reference bots are of clearly different strength: over TCP against a real server on the
//! traditional 4x8 game, greedy beats random and search beats greedy, every game verifies and no
//! bot ever receives an error.
//!
//! The server's seed contribution is fixed, so the deals (and hence, the bots being
//! deterministic, the games) are the same on every run. The thresholds sit well below the
//! measured scores and well above what equal bots would score (50%): over eight runs with random
//! deals, greedy scored 98.8-100% against random (40 games) and search at depth 2 scored 75-95%
//! against greedy (20 games); with equal bots on both sides these tests fail.

use crate::common;

use anqi_client::bots::{GreedyBot, SearchBot};
use anqi_client::{join, play_seated, Bot, Connection, GameResult, RandomBot};
use anqi_core::record::GameRecord;
use anqi_core::rules::Variant;
use common::TestServer;
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::Semaphore;

/// No clock; a fixed server seed, so every run deals (and, the bots being deterministic, plays)
/// the same games.
const CONFIG: &str = "[clock]\ngame_ms = 0\n[seed]\nserver = \"bot-strength\"\n";

/// Games played at once (each is two clients).
const PARALLEL: usize = 8;

type MakeBot = fn(u64) -> Box<dyn Bot + Send>;

/// Results of bot A against bot B.
#[derive(Debug, Default)]
struct Score {
    wins: u32,
    draws: u32,
    losses: u32,
    /// How the games ended.
    ends: std::collections::BTreeMap<&'static str, u32>,
}

impl Score {
    /// A's share of the points, a draw counting half.
    fn share(&self) -> f64 {
        let games = f64::from(self.wins + self.draws + self.losses);
        (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / games
    }
}

/// Plays `games` games of A against B on `server`, A in seat 1 in even games and seat 2 in odd
/// ones, and checks every game's record against what the clients saw.
async fn duel(server: &mut TestServer, tag: &str, games: usize, a: MakeBot, b: MakeBot) -> Score {
    let addr = server.addr();
    // The bots are told the rules (draw rules included), as `anqi-bot --variant` would be.
    let rules = Arc::new(Variant::shipped("traditional").unwrap());
    let slots = Arc::new(Semaphore::new(PARALLEL));
    let mut tasks = Vec::new();
    for g in 0..games {
        let permit = slots.clone().acquire_owned().await.unwrap();
        let seed_a = 1000 * g as u64 + 1;
        let seed_b = 1000 * g as u64 + 2;
        let mut players = [
            (format!("{tag}_a{g}"), seed_a, a(seed_a)),
            (format!("{tag}_b{g}"), seed_b, b(seed_b)),
        ];
        if g % 2 == 1 {
            players.swap(0, 1);
        }
        // A game's seats go by the order in which the server accepted the connections of the
        // clients waiting together: connect the first seat's client, then the second's, and
        // have both seated before the next game's clients connect.
        let mut conns = Vec::new();
        for _ in 0..2 {
            conns.push(Connection::connect(&addr).await.expect("connect"));
        }
        let (mut c1, mut c2) = (conns.remove(0), conns.remove(0));
        let (seed1, seed2) = (players[0].1.to_string(), players[1].1.to_string());
        let (s1, s2) = tokio::try_join!(
            join(&mut c1, &players[0].0, &seed1),
            join(&mut c2, &players[1].0, &seed2),
        )
        .expect("both seated");
        let game: Vec<_> = players
            .into_iter()
            .zip([(c1, s1), (c2, s2)])
            .map(|((name, _seed, mut bot), (mut conn, seated))| {
                let rules = rules.clone();
                tokio::spawn(async move {
                    let r = play_seated(&mut conn, seated, &mut *bot, Some(&rules)).await;
                    (name, r)
                })
            })
            .collect();
        tasks.push(tokio::spawn(async move {
            let mut out = Vec::new();
            for t in game {
                out.push(t.await.unwrap());
            }
            drop(permit);
            out
        }));
    }
    let mut results: HashMap<String, GameResult> = HashMap::new();
    for t in tasks {
        for (name, r) in t.await.unwrap() {
            let r = r.unwrap_or_else(|e| panic!("{name}: {e:#}"));
            assert!(
                r.errors.is_empty(),
                "{name} received errors: {:?}",
                r.errors
            );
            results.insert(name, r);
        }
    }
    let mut score = Score::default();
    for _ in 0..games {
        let rec: GameRecord = server.next_record().await;
        anqi_core::replay::verify(&rec).unwrap_or_else(|e| panic!("game {}: {e}", rec.game));
        assert!(rec.faults.is_empty(), "{:?}", rec.faults);
        assert!(!rec.result.reason.is_fault(), "{:?}", rec.result);
        let names: Vec<&str> = rec.players.iter().map(|p| p.name.as_str()).collect();
        let g: usize = names[0][tag.len() + 2..].parse().unwrap();
        let a_seat = if g % 2 == 0 { 1 } else { 2 };
        assert_eq!(names[a_seat - 1], format!("{tag}_a{g}"), "seats alternate");
        for (seat, name) in names.iter().enumerate() {
            let r = &results[*name];
            assert_eq!(r.me, seat + 1, "{name}");
            assert_eq!(r.win.0, rec.result.winner, "{name} and the record agree");
        }
        *score.ends.entry(rec.result.reason.name()).or_default() += 1;
        match rec.result.winner {
            0 => score.draws += 1,
            w if w == a_seat => score.wins += 1,
            _ => score.losses += 1,
        }
    }
    score
}

fn random(seed: u64) -> Box<dyn Bot + Send> {
    Box::new(RandomBot::new(seed))
}

fn greedy(seed: u64) -> Box<dyn Bot + Send> {
    Box::new(GreedyBot::new(seed))
}

fn search_depth_2(seed: u64) -> Box<dyn Bot + Send> {
    Box::new(SearchBot::with_depth(seed, 2))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn greedy_beats_random() {
    let mut server = TestServer::start("traditional", CONFIG).await;
    let score = duel(&mut server, "gr", 40, greedy, random).await;
    println!(
        "greedy vs random, 40 games: {score:?} = {:.1}%",
        100.0 * score.share()
    );
    assert!(
        score.share() >= 0.85,
        "greedy should crush random: {score:?}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_beats_greedy() {
    let mut server = TestServer::start("traditional", CONFIG).await;
    let score = duel(&mut server, "sg", 20, search_depth_2, greedy).await;
    println!(
        "search (depth 2) vs greedy, 20 games: {score:?} = {:.1}%",
        100.0 * score.share()
    );
    assert!(
        score.share() >= 0.65 && score.wins > 2 * score.losses,
        "search should beat greedy clearly: {score:?}"
    );
    server.stop().await;
}
