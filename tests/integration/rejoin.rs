//! A seat kept for a player whose connection is lost (`[referee] rejoin_grace_ms`), over real
//! TCP: taken back with the `rejoin` extension's secret; lost as `disconnect` (never `time`)
//! when the player is not back in time. A tournament's engine taking its seat back with its
//! per-game token is in `tournament.rs`.

use crate::common;

use anqi_core::record::DropRecord;
use anqi_core::rules::Termination;
use anqi_core::wire::{ServerClause, ServerMessage};
use common::{RawClient, TestServer};
use std::time::Duration;

/// The secret of a setup message's `(rejoin "SECRET")`.
pub fn secret_of(setup: &str) -> String {
    ServerMessage::parse(setup.as_bytes())
        .unwrap_or_else(|e| panic!("{setup}: {e}"))
        .0
        .into_iter()
        .find_map(|c| match c {
            ServerClause::Rejoin(s) => Some(s),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no (rejoin ...) in {setup}"))
}

/// The board of a prompt.
fn board_of(prompt: &str) -> String {
    prompt.split(['(', ' ', ')']).nth(3).unwrap().to_string()
}

/// Player 1 asks for `rejoin` (and `last`), player 2 for nothing; both set up.
async fn pair(server: &TestServer) -> (RawClient, RawClient, String) {
    let addr = server.addr();
    let mut a = RawClient::connect(&addr).await;
    a.line().await;
    a.send("((version 1.0)(init keeper 1)(ext last rejoin))\n")
        .await;
    server.until_waiting("keeper").await;
    let mut b = RawClient::join(&addr, "plain", "2").await;
    let setup = a.line().await;
    b.line().await;
    (a, b, setup)
}

/// A connection that comes back with `secret`, after the server's version line, asking for
/// the extensions again (the secret is sent again only to a connection that asks).
async fn come_back(addr: &str, secret: &str) -> RawClient {
    let mut c = RawClient::connect(addr).await;
    assert_eq!(c.line().await, "((version 1.0))");
    c.send(&format!(
        "((version 1.0)(rejoin \"{secret}\")(ext last rejoin))\n"
    ))
    .await;
    c
}

#[tokio::test]
async fn a_player_takes_its_seat_back_with_its_secret_and_the_game_goes_on() {
    let mut server =
        TestServer::start_with_lobby("traditional-2x4", "[referee]\nrejoin_grace_ms = 10000\n")
            .await;
    let addr = server.addr();
    let (mut a, mut b, setup) = pair(&server).await;
    assert!(setup.contains("(ext last rejoin)"), "{setup}");
    let secret = secret_of(&setup);
    assert_eq!(secret.len(), 32, "128 bits in hex: {secret}");

    a.until("(turn 0 1)").await;
    a.send("((board XXXXXXXX)(rev 0))\n").await;
    // Player 1 vanishes while player 2 thinks; the game goes on without a word about it.
    drop(a);
    let prompt = b.until("(turn 0 2)").await;
    b.send(&format!("((board {})(rev 1))\n", board_of(&prompt)))
        .await;
    tokio::time::sleep(Duration::from_millis(200)).await;

    // A stranger's secret takes nothing.
    let mut stranger = come_back(&addr, "0123456789abcdef0123456789abcdef").await;
    let refusal = stranger.line().await;
    assert!(
        refusal.starts_with("((error unexpected \"no seat waits for this rejoin secret"),
        "{refusal}"
    );
    stranger.expect_closed().await;

    // Back with its secret: the setup again (same seat, same secret), then its turn.
    let mut a = come_back(&addr, &secret).await;
    let again = a.line().await;
    assert!(again.starts_with("((id 1)(players 2)"), "{again}");
    assert_eq!(secret_of(&again), secret);
    let prompt = a.line().await;
    assert!(prompt.contains("(last 2 rev 1 "), "{prompt}");
    assert!(prompt.ends_with("(turn 1 1))"), "{prompt}");
    a.send(&format!("((board {})(rev 2))\n", board_of(&prompt)))
        .await;
    b.until("(turn 1 2)").await;
    b.send("((resign))\n").await;
    assert!(a.until("(win").await.ends_with("(win 1 0))"));

    let r = server.next_record().await;
    assert_eq!(
        (r.result.reason, r.result.loser),
        (Termination::Resign, Some(2))
    );
    assert_eq!(r.plies.len(), 3);
    assert_eq!(r.players[0].name, "keeper", "the seat keeps its name");
    assert_eq!(r.drops.len(), 1, "{:?}", r.drops);
    let d = &r.drops[0];
    assert_eq!((d.player, d.ply, d.back), (1, 2, true), "{d:?}");
    assert!(d.away_ms >= 200, "{d:?}");
    // Nothing of the secret in the record.
    assert!(!serde_json::to_string(&r).unwrap().contains(&secret));
    // The record replays, and its move list says when the connection was lost.
    let (path, _dir) = server.stop().await;
    assert_eq!(common::replay(&path), "1 verified, 0 failed");
    let text = common::move_lists(&path);
    assert!(
        text.contains("      ~ player 1 lost its connection at ply 2: back for "),
        "{text}"
    );
}

#[tokio::test]
async fn a_player_not_back_in_time_loses_by_disconnect() {
    let mut server =
        TestServer::start_with_lobby("traditional-2x4", "[referee]\nrejoin_grace_ms = 300\n").await;
    let (mut a, mut b, _) = pair(&server).await;
    a.until("(turn 0 1)").await;
    a.send("((board XXXXXXXX)(rev 0))\n").await;
    drop(a);
    // Not the absent player's turn: the game goes on until its grace runs out.
    b.until("(turn 0 2)").await;
    assert_eq!(b.line().await, "((win 2 0))");
    let r = server.next_record().await;
    assert_eq!(
        (r.result.reason, r.result.loser),
        (Termination::Disconnect, Some(1))
    );
    assert_eq!(r.drops.len(), 1);
    let d = &r.drops[0];
    assert_eq!((d.player, d.ply, d.back), (1, 2, false), "{d:?}");
    assert!(d.away_ms >= 250, "{d:?}");
    server.stop().await;
}

/// The clock runs on while the player is away; the flag falling then is a `disconnect`, not a
/// `time` loss: the player was not there to play.
#[tokio::test]
async fn a_player_away_when_its_clock_runs_out_loses_by_disconnect_not_time() {
    let mut server = TestServer::start_with_lobby(
        "traditional-2x4",
        "[referee]\nrejoin_grace_ms = 60000\n[clock]\ngame_ms = 0\nmove_ms = 400\n",
    )
    .await;
    let (mut a, mut b, _) = pair(&server).await;
    a.until("(turn 0 1)").await;
    drop(a);
    assert_eq!(b.until("(win").await, "((win 2 0))");
    let r = server.next_record().await;
    assert_eq!(
        (r.result.reason, r.result.loser),
        (Termination::Disconnect, Some(1))
    );
    assert!(r.faults.is_empty(), "{:?}", r.faults);
    assert_eq!(r.drops.len(), 1);
    assert!(!r.drops[0].back);
    server.stop().await;
}

/// A player that did not ask for the extension is not kept: it loses at once, as in the paper.
/// A server with no grace does not grant the extension.
#[tokio::test]
async fn only_players_that_asked_are_kept_and_only_by_a_server_with_a_grace() {
    let mut server =
        TestServer::start_with_lobby("traditional-2x4", "[referee]\nrejoin_grace_ms = 60000\n")
            .await;
    let (mut a, b, _) = pair(&server).await;
    a.until("(turn 0 1)").await;
    a.send("((board XXXXXXXX)(rev 0))\n").await;
    drop(b);
    assert!(a.until("(win").await.ends_with("(win 1 0))"));
    let r = server.next_record().await;
    assert_eq!(
        (r.result.reason, r.result.loser),
        (Termination::Disconnect, Some(2))
    );
    assert!(r.drops.is_empty());
    server.stop().await;

    let server = TestServer::start_with_lobby("traditional-2x4", "").await;
    let (_a, _b, setup) = pair(&server).await;
    assert!(setup.ends_with("(ext last))"), "{setup}");
    server.stop().await;
}

/// The old connection still looks open (a half-open socket): a new one with the secret takes
/// the seat, and the old one is told and let go.
#[tokio::test]
async fn a_new_connection_with_the_secret_takes_the_seat_from_a_half_open_one() {
    let mut server =
        TestServer::start_with_lobby("traditional-2x4", "[referee]\nrejoin_grace_ms = 10000\n")
            .await;
    let addr = server.addr();
    let (mut old, mut b, setup) = pair(&server).await;
    old.until("(turn 0 1)").await;
    let mut a = come_back(&addr, &secret_of(&setup)).await;
    let told = old.line().await;
    assert!(
        told.starts_with("((error unexpected \"another connection took this seat back"),
        "{told}"
    );
    old.expect_closed().await;
    a.line().await; // the setup
    assert!(a.line().await.ends_with("(turn 0 1))"));
    a.send("((resign))\n").await;
    b.until("(win").await;
    let r = server.next_record().await;
    assert_eq!(r.result.loser, Some(1));
    assert_eq!(
        r.drops,
        [DropRecord {
            player: 1,
            ply: 1,
            away_ms: 0,
            back: true
        }]
    );
    server.stop().await;
}

/// The mover that comes back is prompted for its new connection: the extensions it asks for
/// now (none here, where the old one asked for `clock`), and an error's re-prompt repeats
/// that prompt. Asking for `clock`, it is told its clock with the time away taken off.
#[tokio::test]
async fn a_returning_mover_is_prompted_for_its_new_connection_with_its_clock_run_down() {
    let server = TestServer::start_with_lobby(
        "traditional-2x4",
        "[referee]\nrejoin_grace_ms = 10000\n[clock]\ngame_ms = 10000\n",
    )
    .await;
    let addr = server.addr();
    let mut a = RawClient::connect(&addr).await;
    a.line().await;
    a.send("((version 1.0)(init keeper 1)(ext clock rejoin))\n")
        .await;
    server.until_waiting("keeper").await;
    let _b = RawClient::join(&addr, "plain", "2").await;
    let secret = secret_of(&a.line().await);
    let first = a.until("(turn 0 1)").await;
    assert!(first.contains("(clock 10000 10000)"), "{first}");
    drop(a);
    tokio::time::sleep(Duration::from_millis(600)).await;

    // Back asking for nothing but rejoin: no clause of the old connection's `clock`.
    let mut a = RawClient::connect(&addr).await;
    a.line().await;
    a.send(&format!("((rejoin \"{secret}\")(ext rejoin))\n"))
        .await;
    a.line().await;
    let prompt = a.line().await;
    assert_eq!(prompt, "((board XXXXXXXX)(turn 0 1))");
    a.send("((mov 0 1))\n").await;
    assert!(a.line().await.starts_with("((error illegal"));
    assert_eq!(a.line().await, prompt, "the re-prompt repeats it");
    drop(a);
    tokio::time::sleep(Duration::from_millis(100)).await;

    // Back asking for `clock`: the time away is off the mover's clock.
    let mut a = RawClient::connect(&addr).await;
    a.line().await;
    a.send(&format!("((rejoin \"{secret}\")(ext clock rejoin))\n"))
        .await;
    a.line().await;
    let prompt = a.line().await;
    let clock: Vec<u64> = prompt
        .split("(clock ")
        .nth(1)
        .and_then(|r| r.split(')').next())
        .unwrap_or_else(|| panic!("{prompt}"))
        .split(' ')
        .map(|n| n.parse().unwrap())
        .collect();
    assert!(clock[0] <= 9_300 && clock[0] > 5_000, "{prompt}");
    assert_eq!(clock[1], 10_000, "{prompt}");
    server.stop().await;
}

/// A seat is taken back at most 20 times a game: a player that drops and comes back without
/// end cannot hold the game up, a grace at a time, nor grow its record without bound.
#[tokio::test]
async fn a_seat_is_taken_back_at_most_twenty_times() {
    let mut server =
        TestServer::start_with_lobby("traditional-2x4", "[referee]\nrejoin_grace_ms = 10000\n")
            .await;
    let addr = server.addr();
    let (a, mut b, setup) = pair(&server).await;
    let secret = secret_of(&setup);
    drop(a);
    let mut held = None;
    for n in 1..=20 {
        let mut back = come_back(&addr, &secret).await;
        assert!(back.line().await.starts_with("((id 1)"), "return {n}");
        back.line().await;
        // The one before is let go: lost, or taken from while it looked open.
        held = Some(back);
    }
    let mut late = come_back(&addr, &secret).await;
    let refusal = late.line().await;
    assert!(
        refusal.contains("this seat has been taken back 20 times in this game"),
        "{refusal}"
    );
    b.send("((resign))\n").await;
    let r = server.next_record().await;
    assert_eq!(r.drops.len(), 20, "{:?}", r.drops);
    assert!(r.drops.iter().all(|d| d.back));
    drop(held);
    server.stop().await;
}
