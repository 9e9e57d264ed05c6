//! 1,000 random-bot games on the traditional 4x8 board, all over TCP against one server, all
//! ending with a result that `anqi replay` verifies.

use crate::common;

use anqi_client::{play_game, RandomBot};
use common::TestServer;
use std::collections::BTreeMap;
use std::sync::Arc;
use tokio::sync::Semaphore;

const GAMES: usize = 1000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_random_games_all_verify() {
    // 128 clients at once, all from 127.0.0.1: no per-address cap.
    let mut server = TestServer::start(
        "traditional",
        "[clock]\ngame_ms = 0\n[server]\nmax_connections_per_address = 0\n",
    )
    .await;
    let addr = server.addr();
    // At most 64 games at once (128 clients); each client plays one game on its own connection.
    let slots = Arc::new(Semaphore::new(128));
    let mut tasks = Vec::new();
    for i in 0..2 * GAMES {
        let permit = slots.clone().acquire_owned().await.unwrap();
        let addr = addr.clone();
        tasks.push(tokio::spawn(async move {
            let seed = i as u64;
            let r = play_game(
                &addr,
                &format!("rand_{i}"),
                &seed.to_string(),
                &mut RandomBot::new(seed),
                None,
            )
            .await;
            drop(permit);
            r
        }));
    }
    for t in tasks {
        let r = t.await.unwrap().expect("every game reaches (win ...)");
        assert!(
            r.errors.is_empty(),
            "a random bot never errs: {:?}",
            r.errors
        );
    }
    let mut reasons = BTreeMap::new();
    let mut winners = BTreeMap::new();
    for _ in 0..GAMES {
        let r = server.next_record().await;
        *reasons.entry(r.result.reason.name()).or_insert(0) += 1;
        *winners.entry(r.result.winner).or_insert(0) += 1;
    }
    println!("terminations: {reasons:?}; winners: {winners:?}");
    // Random play on 4x8 wins for either seat and also draws; a referee that always gave the same
    // result would be broken.
    assert!(winners.get(&1).copied().unwrap_or(0) > 100, "{winners:?}");
    assert!(winners.get(&2).copied().unwrap_or(0) > 100, "{winners:?}");
    assert!(reasons
        .keys()
        .all(|r| ["capture-all", "no-moves", "no-progress", "repetition"].contains(r)));

    server.stop_and_replay(GAMES).await;
}
