//! Team games over TCP: the setup message names teams and teammates, `turn` and `info` go to
//! the right players in the variant's turn order, and a team victory is `(win 0 T)`.

use crate::common;

use common::{RawClient, TestServer};

/// Joins `n` clients in order and reads their setup messages.
async fn seat(server: &TestServer, n: usize) -> (Vec<RawClient>, Vec<String>) {
    let mut clients = Vec::new();
    for i in 1..=n {
        clients.push(RawClient::join(&server.addr(), &format!("p{i}"), &i.to_string()).await);
    }
    let mut setups = Vec::new();
    for c in &mut clients {
        setups.push(c.line().await);
    }
    (clients, setups)
}

/// Reads one prompt round: the mover gets `turn`, everybody else `info`, all with `board`.
async fn expect_prompt(clients: &mut [RawClient], board: &str, round: u32, mover: usize) {
    for (i, c) in clients.iter_mut().enumerate() {
        let kind = if i + 1 == mover { "turn" } else { "info" };
        assert_eq!(
            c.line().await,
            format!("((board {board})({kind} {round} {mover}))"),
            "client {}",
            i + 1
        );
    }
}

/// `mover` reveals `cell`; checks that everyone sees the new board with `next` to move in
/// `round` (`turn` for `next`, `info` for the others); returns the new board.
async fn reveal(
    clients: &mut [RawClient],
    board: &str,
    mover: usize,
    cell: usize,
    next: usize,
    round: u32,
) -> String {
    clients[mover - 1]
        .send(&format!("((board {board})(rev {cell}))\n"))
        .await;
    let line = clients[mover - 1].line().await;
    let board = line["((board ".len().."((board ".len() + board.len()].to_string();
    assert!(line.ends_with(&format!("(info {round} {next}))")), "{line}");
    for (i, other) in clients.iter_mut().enumerate() {
        if i + 1 != mover {
            let kind = if i + 1 == next { "turn" } else { "info" };
            assert_eq!(
                other.line().await,
                format!("((board {board})({kind} {round} {next}))")
            );
        }
    }
    board
}

#[tokio::test]
async fn two_against_two() {
    let mut server = TestServer::start("2v2", "[seed]\nserver = \"teams\"\n").await;
    let (mut c, setups) = seat(&server, 4).await;
    // Team clauses follow (players N); teams are (1 3) and (2 4).
    for (i, (team, mate)) in [(1, 3), (2, 4), (1, 1), (2, 2)].into_iter().enumerate() {
        let want = format!(
            "((id {})(players 4)(team {team})(teammate {mate})(game traditional)(size 32)",
            i + 1
        );
        assert!(setups[i].starts_with(&want), "{}", setups[i]);
        assert!(setups[i].ends_with("(revs (0)(1)(2)(3)(4)(5)(6)(7)(8)(9)(10)(11)(12)(13)(14)(15)(16)(17)(18)(19)(20)(21)(22)(23)(24)(25)(26)(27)(28)(29)(30)(31)))"));
    }
    let start = "X".repeat(32);
    expect_prompt(&mut c, &start, 0, 1).await;
    // The order is 1 2 3 4, and the round counter moves on after player 4.
    let mut board = start.clone();
    for (mover, cell, next, round) in [(1, 0, 2, 0), (2, 1, 3, 0), (3, 2, 4, 0), (4, 3, 1, 1)] {
        board = reveal(&mut c, &board, mover, cell, next, round).await;
    }
    // Player 2 resigns for team 2: team 1 wins, announced as a team.
    c[1].send("((resign))\n").await;
    for client in &mut c {
        assert_eq!(client.line().await, "((win 0 1))");
    }
    let r = server.next_record().await;
    assert_eq!(
        (r.result.winner, r.result.winner_team, r.result.winner_side),
        (0, 1, Some(0))
    );
    // Teammates share a colour.
    assert_eq!(r.players[0].colour, r.players[2].colour);
    assert_eq!(r.players[1].colour, r.players[3].colour);
    assert_ne!(r.players[0].colour, r.players[1].colour);
    anqi_core::replay::verify(&r).unwrap();
}

#[tokio::test]
async fn one_against_two() {
    let mut server = TestServer::start("1v2", "[seed]\nserver = \"teams\"\n").await;
    let (mut c, setups) = seat(&server, 3).await;
    assert!(
        setups[0].starts_with("((id 1)(players 3)(team 1)(game"),
        "{}",
        setups[0]
    );
    assert!(
        setups[1].starts_with("((id 2)(players 3)(team 2)(teammate 3)(game"),
        "{}",
        setups[1]
    );
    assert!(
        setups[2].starts_with("((id 3)(players 3)(team 2)(teammate 2)(game"),
        "{}",
        setups[2]
    );
    let start = "X".repeat(32);
    expect_prompt(&mut c, &start, 0, 1).await;
    // Order 1 2 1 3: the lone player moves every other ply.
    let mut board = start.clone();
    for (mover, cell, next, round) in [(1, 5, 2, 0), (2, 6, 1, 0), (1, 7, 3, 0), (3, 8, 1, 1)] {
        board = reveal(&mut c, &board, mover, cell, next, round).await;
    }
    // Player 3 resigns: the lone player 1 wins as a player, (win 1 0).
    c[2].send("((resign))\n").await;
    for client in &mut c {
        assert_eq!(client.line().await, "((win 1 0))");
    }
    let r = server.next_record().await;
    assert_eq!((r.result.winner, r.result.winner_team), (1, 0));
    anqi_core::replay::verify(&r).unwrap();
}
