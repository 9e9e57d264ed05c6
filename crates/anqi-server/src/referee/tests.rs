//! The referee's unit tests.

use super::rulings::cut_comment;
use super::*;
use crate::connection::Inbound;
use crate::connection::ReadAt;
use crate::record_sink::Durability;
use crate::rejoin::Proof;
use anqi_core::wire::ClientMessage;

/// One player's ends: what the referee sends it, and its inbox.
type Ends = (
    tokio::sync::mpsc::UnboundedReceiver<Arc<str>>,
    tokio::sync::mpsc::Sender<Inbound>,
);

/// A referee for a two-player game of `variant` under `config`, player 1 asking for
/// `ext`: both players' ends, the records, and the server-wide rejoin map.
async fn table_with(
    variant: &str,
    config: &str,
    ext: Extensions,
) -> (
    [Ends; 2],
    tokio::sync::mpsc::UnboundedReceiver<GameRecord>,
    crate::rejoin::Rejoins,
) {
    let variant = Arc::new(Variant::load(variant).unwrap());
    let (observer, records) = tokio::sync::mpsc::unbounded_channel();
    let (sink, _) = RecordSink::start(None, Durability { fsync: false }, Some(observer), None)
        .await
        .unwrap();
    let rejoins = crate::rejoin::Rejoins::default();
    let ctx = GameContext {
        setup_common: GameContext::setup_common(&variant),
        public_variant: "".into(),
        variant,
        config: Arc::new(Config::parse(config).unwrap()),
        records: sink,
        shutdown: CancellationToken::new(),
        watch: None,
        rejoins: rejoins.clone(),
        tables: None,
    };
    let (mut p1, out1, in1) = Player::for_test(1, "a");
    p1.ext = ext;
    let (p2, out2, in2) = Player::for_test(2, "b");
    tokio::spawn(run_game(
        ctx,
        1,
        vec![p1, p2],
        GameSpec::default(),
        Vec::new(),
    ));
    ([(out1, in1), (out2, in2)], records, rejoins)
}

/// A referee for a two-player game of `variant` under `config`, with both players' ends.
async fn table(
    variant: &str,
    config: &str,
) -> ([Ends; 2], tokio::sync::mpsc::UnboundedReceiver<GameRecord>) {
    let (ends, records, _) = table_with(variant, config, Extensions::NONE).await;
    (ends, records)
}

/// A two-player game of `traditional-2x4` under `config` where player 1 asked for
/// `rejoin`: both players' ends, the records, the server-wide rejoin map, and player 1's
/// secret (read from its setup message).
async fn kept_table(
    config: &str,
) -> (
    [Ends; 2],
    tokio::sync::mpsc::UnboundedReceiver<GameRecord>,
    crate::rejoin::Rejoins,
    String,
) {
    let ext = [Extension::Rejoin].into_iter().collect();
    let ([(mut out1, in1), p2], records, rejoins) =
        table_with("traditional-2x4", config, ext).await;
    let setup = out1.recv().await.unwrap();
    let secret = setup
        .split("(rejoin \"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("a secret")
        .to_string();
    ([(out1, in1), p2], records, rejoins, secret)
}

/// Player 1 comes back with `secret` on a new (test) connection.
fn come_back(rejoins: &crate::rejoin::Rejoins, secret: &str) {
    let (mut back, _out, _in) = Player::for_test(3, "");
    back.rejoin = Some(secret.to_string());
    assert!(
        rejoins.hand_back(Proof::Secret, back).is_none(),
        "handed to the referee"
    );
}

/// Player 1, to move, loses its connection; the only thread is blocked for 300 ms (the
/// referee cannot run), then player 1 comes back: the game's record.
async fn back_after_a_blocked_wait(config: &str) -> GameRecord {
    let ([(mut out1, in1), _p2], mut records, rejoins, secret) = kept_table(config).await;
    while !out1.recv().await.unwrap().contains("(turn") {}
    drop(in1);
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    std::thread::sleep(std::time::Duration::from_millis(300));
    come_back(&rejoins, &secret);
    records.recv().await.unwrap()
}

/// The mover's connection is lost, its clock runs out, and it comes back before the
/// referee gets to run: the flag fell while it was away, so it loses as `disconnect`, and
/// is not taken back (the return was once taken, and the loss recorded as `time`). So with
/// the grace: a return after it ran out is not taken.
#[tokio::test]
async fn a_return_after_the_flag_fell_or_the_grace_ran_out_is_too_late() {
    for config in [
        "[referee]\nrejoin_grace_ms = 60000\n[clock]\ngame_ms = 0\nmove_ms = 200\n",
        "[referee]\nrejoin_grace_ms = 200\n",
    ] {
        let r = back_after_a_blocked_wait(config).await;
        assert_eq!(
            (r.result.reason, r.result.loser),
            (Termination::Disconnect, Some(1)),
            "{config}"
        );
        assert!(r.faults.is_empty(), "{config}: {:?}", r.faults);
        assert_eq!(r.drops.len(), 1, "{config}");
        assert!(!r.drops[0].back, "{config}: {:?}", r.drops);
    }
}

/// A kept seat's connection that cannot be written to (here: its reader is gone; on a
/// socket, a client that stopped reading) is let go, not left open and unread: the client
/// sees it closed, and knows to come back.
#[tokio::test]
async fn a_kept_seat_whose_connection_is_lost_lets_that_connection_go() {
    let ([(out1, in1), (mut out2, _in2)], _records, _rejoins, _secret) =
        kept_table("[referee]\nrejoin_grace_ms = 60000\n").await;
    drop(out1);
    // Player 1 plays; writing the next prompt to it fails: the seat waits for its
    // player, and the connection's inbox is closed.
    in1.send(message("((rev 0))", Instant::now()))
        .await
        .unwrap();
    while !out2.recv().await.unwrap().contains("(turn") {}
    tokio::time::timeout(std::time::Duration::from_secs(5), in1.closed())
        .await
        .expect("the old connection is let go");
}

fn message(text: &str, at: Instant) -> Inbound {
    Inbound::Message(
        ClientMessage::parse(text.as_bytes()).unwrap(),
        ReadAt::from_instant(at),
    )
}

/// The server is busy (here: the only thread is blocked) when the mover's action arrives
/// just in time, and gets to it after the deadline: the action was read in time, so it
/// counts, and the player is charged up to when it was read.
#[tokio::test]
async fn an_action_read_in_time_counts_when_ruled_on_late() {
    let ([(mut out1, in1), (_out2, in2)], mut records) =
        table("traditional-2x4", "[clock]\ngame_ms = 0\nmove_ms = 200\n").await;
    while !out1.recv().await.unwrap().contains("(turn") {}
    in1.send(message("((rev 0))", Instant::now()))
        .await
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(400));
    in2.send(message("((resign))", Instant::now()))
        .await
        .unwrap();
    let r = records.recv().await.unwrap();
    assert_eq!(r.result.reason, Termination::Resign, "{:?}", r.result);
    assert_eq!(r.plies.len(), 1);
    assert!(
        r.plies[0].think_ms < 200,
        "charged {} ms",
        r.plies[0].think_ms
    );
}

#[test]
fn comments_are_cut_at_a_character_boundary_within_the_bound() {
    assert_eq!(cut_comment("depth 3".into(), 7), "depth 3");
    assert_eq!(cut_comment("depth 3".into(), 6), "dep...");
    // "帥" is 3 bytes: never cut in the middle.
    assert_eq!(cut_comment("帥帥帥".into(), 8), "帥...");
    assert_eq!(cut_comment("帥帥帥".into(), 5), "...");
    // Too small a bound for the mark.
    assert_eq!(cut_comment("abcdef".into(), 2), "ab");
    assert_eq!(cut_comment("帥".into(), 2), "");
}

/// An action read after the deadline loses on time, even when the referee could not look
/// before it arrived.
#[tokio::test]
async fn an_action_read_late_loses_on_time() {
    let ([(mut out1, in1), (_out2, _in2)], mut records) =
        table("traditional-2x4", "[clock]\ngame_ms = 0\nmove_ms = 200\n").await;
    while !out1.recv().await.unwrap().contains("(turn") {}
    std::thread::sleep(std::time::Duration::from_millis(300));
    in1.send(message("((rev 0))", Instant::now()))
        .await
        .unwrap();
    let r = records.recv().await.unwrap();
    assert_eq!(
        (r.result.reason, r.result.loser),
        (Termination::Time, Some(1))
    );
    assert!(r.plies.is_empty());
}

/// The last line `out` was sent so far.
fn last_line(out: &mut tokio::sync::mpsc::UnboundedReceiver<Arc<str>>) -> String {
    let mut last = None;
    while let Ok(line) = out.try_recv() {
        last = Some(line);
    }
    last.unwrap().to_string()
}

/// Each player's first action is due `first_move_ms` after its own first prompt: one in
/// time counts, and once a ply has been played, a player that never acts loses on time
/// (it has seen the game start: walking away from it is no way out of a loss). Before,
/// player 2's game was aborted, with no result.
#[tokio::test]
async fn a_player_that_never_acts_in_a_game_under_way_loses_on_time() {
    let ([(mut out1, in1), (mut out2, _in2)], mut records) =
        table("traditional-2x4", "[referee]\nfirst_move_ms = 400\n").await;
    while !out1.recv().await.unwrap().contains("(turn") {}
    // Player 1 acts within its deadline.
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    in1.send(message("((rev 0))", Instant::now()))
        .await
        .unwrap();
    while !out2.recv().await.unwrap().contains("(turn") {}
    let prompted = Instant::now();
    let r = records.recv().await.unwrap();
    // Measured from when player 2 got its prompt, a little after it was sent: 300 ms
    // still tells its own deadline (400 ms after its prompt) from player 1's (200 ms
    // before it).
    assert!(
        prompted.elapsed() >= std::time::Duration::from_millis(300),
        "at player 2's own deadline, not player 1's"
    );
    assert_eq!(
        (r.result.reason, r.result.loser),
        (Termination::Time, Some(2)),
        "{:?}",
        r.result
    );
    assert_eq!(r.plies.len(), 1, "player 1's action counted");
    let told: Vec<_> = r
        .faults
        .iter()
        .map(|f| (f.player, f.code.as_str(), f.text.as_str()))
        .collect();
    assert_eq!(
        told,
        [(2, "timeout", "you made no first action within 400 ms of your first (turn ...), in a game under way: you lose on time")]
    );
    assert_eq!(last_line(&mut out1), "((win 1 0))\n");
    assert_eq!(last_line(&mut out2), "((win 1 0))\n");
}

/// A player 1 that never makes its first action: nobody has started playing, so the game
/// is aborted with no result, every player told why, and no `(win ...)` sent.
#[tokio::test]
async fn a_player_that_never_acts_before_any_ply_aborts_its_game() {
    let ([(mut out1, _in1), (mut out2, _in2)], mut records) =
        table("traditional-2x4", "[referee]\nfirst_move_ms = 300\n").await;
    while !out1.recv().await.unwrap().contains("(turn") {}
    let r = records.recv().await.unwrap();
    assert_eq!(r.result.reason, Termination::Aborted, "{:?}", r.result);
    assert_eq!((r.result.win.as_str(), r.result.loser), ("", None));
    assert!(r.plies.is_empty());
    let told: Vec<_> = r
        .faults
        .iter()
        .map(|f| (f.player, f.code.as_str(), f.text.as_str()))
        .collect();
    assert_eq!(
        told,
        [
            (1, "timeout", "you made no first action within 300 ms of your first (turn ...): this game is aborted, with no result"),
            (2, "timeout", "player 1 made no first action within 300 ms: this game is aborted, with no result; connect again for a new game"),
        ]
    );
    assert!(last_line(&mut out1).starts_with("((error timeout \"you made"));
    assert!(last_line(&mut out2).starts_with("((error timeout \"player 1 made"));
}

/// The clock and the first-move deadline: whichever comes first rules, and with
/// `first_move_ms = 0` there is no deadline.
#[tokio::test]
async fn the_clock_rules_when_it_comes_before_the_first_move_deadline() {
    for (config, reason) in [
        (
            "first_move_ms = 0\n[clock]\nmove_ms = 200\n",
            Termination::Time,
        ),
        (
            "first_move_ms = 600\n[clock]\nmove_ms = 200\n",
            Termination::Time,
        ),
        (
            "first_move_ms = 200\n[clock]\nmove_ms = 600\n",
            Termination::Aborted,
        ),
    ] {
        let ([(mut out1, _in1), (_out2, _in2)], mut records) =
            table("traditional-2x4", &format!("[referee]\n{config}")).await;
        while !out1.recv().await.unwrap().contains("(turn") {}
        let r = records.recv().await.unwrap();
        assert_eq!(r.result.reason, reason, "{config}");
    }
}
