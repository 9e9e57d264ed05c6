//! A seat for a person (protocol/WEB.md, Play), over real HTTP and WebSocket against the real
//! server: a seat acts only on its own turn and only legally, and only through its own token;
//! a person takes the seat of a program waiting over TCP and plays it to the end; a seat with
//! no page is given up and ruled on as any player that leaves; every request that cannot be
//! served says why; and no token shows anywhere but to its seat.

use crate::common::TestServer;
use crate::web::{get, get_json, get_ws_upgrade, upgrade_request};
use anqi_core::rules::Termination;
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;

pub(crate) type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>;

/// `POST path` with a JSON body and extra header lines: the status and the body.
pub async fn post(web: &str, path: &str, body: &str, headers: &str) -> (u16, String) {
    let mut s = TcpStream::connect(web).await.unwrap();
    s.write_all(
        format!(
            "POST {path} HTTP/1.1\r\nhost: {web}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n{headers}\r\n{body}",
            body.len()
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut raw))
        .await
        .expect("an answer in time")
        .unwrap();
    let text = String::from_utf8_lossy(&raw).to_string();
    let status = text[9..12].parse().unwrap();
    let body = text
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_string();
    (status, body)
}

/// Who the lobby lists as waiting, once someone is (the list follows the seating task).
async fn waiting_names(web: &str) -> Vec<String> {
    for _ in 0..250 {
        let listed = get_json(web, "/api/seats").await;
        let names: Vec<String> = listed["waiting"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w["name"].as_str().unwrap().to_string())
            .collect();
        if !names.is_empty() {
            return names;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Vec::new()
}

/// Sits a person down: the seat's token.
async fn sit(web: &str, request: Value) -> String {
    let (status, body) = post(web, "/api/seats", &request.to_string(), "").await;
    assert_eq!(status, 201, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    v["token"].as_str().unwrap().to_string()
}

/// Opens a seat's socket: its token is the first message, never in the address.
pub(crate) async fn open_seat(web: &str, token: &str) -> Socket {
    let (mut socket, _) = tokio::time::timeout(
        Duration::from_secs(10),
        tokio_tungstenite::connect_async(format!("ws://{web}/api/seats/live")),
    )
    .await
    .expect("the seat opens in time")
    .expect("the seat opens");
    socket
        .send(Message::Text(json!({ "seat": token }).to_string().into()))
        .await
        .unwrap();
    socket
}

/// A client's WebSocket text frame (masked, under 126 bytes), written by hand.
fn masked_text_frame(text: &str) -> Vec<u8> {
    assert!(text.len() < 126);
    let mask = [0x12u8, 0x34, 0x56, 0x78];
    let mut frame = vec![0x81, 0x80 | text.len() as u8];
    frame.extend_from_slice(&mask);
    frame.extend(text.bytes().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    frame
}

/// The next message of a seat's socket.
async fn next(socket: &mut Socket) -> Value {
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(20), socket.next())
            .await
            .expect("the seat says something in time")
            .expect("the seat's socket is open")
            .unwrap();
        if let Message::Text(t) = msg {
            return serde_json::from_str(&t).unwrap();
        }
    }
}

/// Reads a socket until the server closes it (within 10 s): the close code, if the frame had
/// one; `None` when it was not closed in time.
async fn closed(socket: &mut Socket) -> Option<Option<u16>> {
    tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match socket.next().await {
                Some(Ok(Message::Close(frame))) => return frame.map(|f| f.code.into()),
                None | Some(Err(_)) => return None,
                Some(Ok(_)) => {}
            }
        }
    })
    .await
    .ok()
}

/// The seat's state once `done` holds for it.
pub(crate) async fn until(socket: &mut Socket, done: impl Fn(&Value) -> bool) -> Value {
    loop {
        let v = next(socket).await;
        if v["type"] == "seat" && done(&v) {
            return v;
        }
    }
}

/// Sends what a page sends; the refusal, if one comes before the next state.
async fn ask(socket: &mut Socket, what: Value) -> Option<String> {
    socket
        .send(Message::Text(what.to_string().into()))
        .await
        .unwrap();
    let v = next(socket).await;
    (v["type"] == "refused").then(|| v["text"].as_str().unwrap().to_string())
}

/// Sends what a page sends, and reads on (past the seat's states, which may still be coming
/// from before) to its refusal.
async fn refusal(socket: &mut Socket, what: Value) -> String {
    socket
        .send(Message::Text(what.to_string().into()))
        .await
        .unwrap();
    loop {
        let v = next(socket).await;
        if v["type"] == "refused" {
            return v["text"].as_str().unwrap().to_string();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_humans_no_person_is_seated_and_the_page_is_told_why() {
    let (server, web) = TestServer::start_watched("traditional-2x4", "").await;
    let info = get_json(&web, "/api/seats").await;
    assert_eq!(info["humans"], false, "{info}");
    assert_eq!(info["waiting"], json!([]), "{info}");
    let (status, body) = post(
        &web,
        "/api/seats",
        r#"{"name": "alice", "against": "random"}"#,
        "",
    )
    .await;
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("humans = true"), "{body}");
    let (status, body) = get_ws_upgrade(&web, "/api/seats/live").await;
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("humans = true"), "{body}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_acts_only_on_its_own_turn_only_legally_and_only_through_its_token() {
    let (mut server, web) =
        TestServer::start_watched("traditional-2x4", "[http]\nhumans = true\n").await;
    // Two people wait for whoever comes: they play each other, alice first.
    let alice = sit(
        &web,
        json!({"name": "alice", "against": "waiting", "seed": "a1"}),
    )
    .await;
    let mut a = open_seat(&web, &alice).await;
    until(&mut a, |s| s["state"] == "waiting").await;
    // The lobby lists her once the seating task has taken her in.
    assert_eq!(waiting_names(&web).await, ["alice"]);
    let bob = sit(&web, json!({"name": "bob", "against": "waiting"})).await;
    assert_ne!(alice, bob);
    let mut b = open_seat(&web, &bob).await;
    let a_turn = until(&mut a, |s| s["my_turn"] == true).await;
    assert_eq!(a_turn["player"], 1, "{a_turn}");
    let b_state = until(&mut b, |s| s["state"] == "playing" && s["turn"].is_number()).await;
    assert_eq!(b_state["player"], 2, "{b_state}");
    assert_eq!(b_state["my_turn"], false);
    assert_eq!(b_state["actions"], json!([]));
    let legal: Vec<String> = a_turn["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect();
    // Bob cannot play alice's turn, not even with one of her legal actions.
    let refused = ask(&mut b, json!({"act": legal[0], "turn": a_turn["turn"]})).await;
    assert!(
        refused
            .as_deref()
            .is_some_and(|r| r.contains("not your turn")),
        "{refused:?}"
    );
    // Alice cannot play what is not legal, nor answer an old turn.
    let refused = ask(&mut a, json!({"act": "(mov 0 1)", "turn": a_turn["turn"]})).await;
    assert!(
        refused
            .as_deref()
            .is_some_and(|r| r.contains("not one of your legal actions")),
        "{refused:?}"
    );
    let refused = ask(&mut a, json!({"act": legal[0], "turn": 99})).await;
    assert!(
        refused.as_deref().is_some_and(|r| r.contains("turn 99")),
        "{refused:?}"
    );
    let refused = ask(&mut a, json!({"shout": 1})).await;
    assert!(refused.is_some());
    // Only the first mover may abort, and only before any ply: not bob, even now.
    let refused = refusal(&mut b, json!({"abort": true})).await;
    assert!(refused.contains("only on your first turn"), "{refused}");
    // Her legal action goes through: bob's turn now.
    assert_eq!(
        ask(&mut a, json!({"act": legal[0], "turn": a_turn["turn"]})).await,
        None
    );
    let b_turn = until(&mut b, |s| s["my_turn"] == true).await;
    // A ply has been played: too late to abort, for either.
    for socket in [&mut a, &mut b] {
        let refused = refusal(socket, json!({"abort": true})).await;
        assert!(refused.contains("resign instead"), "{refused}");
    }
    // The public list and feed never show a token.
    let list = get(&web, "/api/games").await.1;
    let events = get(&web, "/api/games/1").await.1;
    for text in [&list, &events] {
        assert!(!text.contains(&alice) && !text.contains(&bob), "{text}");
    }
    // Bob resigns on his turn; alice wins, and the seats say so.
    assert_eq!(ask(&mut b, json!({"resign": true})).await, None);
    let over = until(&mut a, |s| s["state"] == "over").await;
    assert_eq!(over["result"], "(win 1 0)", "{over}");
    // The seat is done with: its pages are told so and closed (they held connections).
    for socket in [&mut a, &mut b] {
        let end = closed(socket)
            .await
            .expect("the seat's page is closed once the game is over");
        assert_eq!(end, Some(1000u16));
    }
    let record = server.next_record().await;
    assert_eq!(record.players[0].name, "alice");
    assert_eq!(record.players[1].name, "bob");
    assert_eq!(
        record.plies.len(),
        1,
        "only alice's one legal action was played"
    );
    assert_eq!(record.plies[0].action, legal[0]);
    assert_eq!(record.result.reason, Termination::Resign);
    assert_eq!(record.result.winner, 1);
    assert!(
        record.faults.is_empty(),
        "refused clicks reach no referee: {:?}",
        record.faults
    );
    let text = serde_json::to_string(&record).unwrap();
    assert!(!text.contains(&alice) && !text.contains(&bob));
    assert_eq!(
        record.seeds.clients[0], "a1",
        "the person's seed goes into the deal"
    );
    drop(b_turn);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_takes_the_seat_of_a_program_waiting_over_tcp_and_plays_to_the_end() {
    let (mut server, web) =
        TestServer::start_watched("traditional-2x4", "[http]\nhumans = true\n").await;
    let addr = server.addr();
    let program = tokio::spawn(async move {
        anqi_client::play_game(
            &addr,
            "waiter",
            "w1",
            &mut anqi_client::RandomBot::new(5),
            None,
        )
        .await
        .unwrap()
    });
    // The program waits; the lobby lists it.
    assert_eq!(waiting_names(&web).await, ["waiter"]);
    let token = sit(&web, json!({"name": "visitor", "against": "waiting"})).await;
    let mut seat = open_seat(&web, &token).await;
    // The person plays the first legal action offered, every turn, to the end.
    // (A page hears the seat's latest state: states in between may be skipped.)
    let mut sent = Vec::new();
    let to_act = |s: &Value| s["my_turn"] == true || s["state"] == "over" || s["state"] == "gone";
    let mut s = until(&mut seat, to_act).await;
    let end = loop {
        if s["state"] != "playing" {
            break s;
        }
        let action = s["actions"][0].as_str().unwrap().to_string();
        seat.send(Message::Text(
            json!({"act": action, "turn": s["turn"]}).to_string().into(),
        ))
        .await
        .unwrap();
        sent.push(action);
        let reply = next(&mut seat).await;
        assert_eq!(reply["type"], "seat", "not refused: {reply}");
        s = if to_act(&reply) {
            reply
        } else {
            until(&mut seat, to_act).await
        };
    };
    assert_eq!(end["state"], "over", "{end}");
    let result = program.await.unwrap();
    let record = server.next_record().await;
    assert_eq!(record.players[0].name, "waiter", "the program came first");
    assert_eq!(record.players[1].name, "visitor");
    let mine: Vec<String> = record
        .plies
        .iter()
        .filter(|p| p.player == 2)
        .map(|p| p.action.clone())
        .collect();
    assert_eq!(mine, sent);
    assert_eq!(
        end["result"],
        format!("(win {} {})", result.win.0, result.win.1),
        "the person's seat and the program were told the same result"
    );
    // Once seated, nobody waits any more.
    assert_eq!(get_json(&web, "/api/seats").await["waiting"], json!([]));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_with_no_page_open_is_given_up_and_ruled_on_as_a_player_who_leaves() {
    let (mut server, web) = TestServer::start_watched(
        "traditional-2x4",
        "[http]\nhumans = true\nhuman_away_ms = 300\n",
    )
    .await;
    let token = sit(
        &web,
        json!({"name": "absent", "against": "random", "seat": 1}),
    )
    .await;
    let started = std::time::Instant::now();
    let record = server.next_record().await;
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(record.players[0].name, "absent");
    assert_eq!(record.players[1].name, "random_bot");
    assert_eq!(
        record.result.reason,
        Termination::Disconnect,
        "{:?}",
        record.result
    );
    assert_eq!(record.result.winner, 2);
    // Its page, opened late, is told how it ended.
    let mut seat = open_seat(&web, &token).await;
    let s = next(&mut seat).await;
    assert_eq!(s["state"], "gone", "{s}");
    assert!(
        s["why"].as_str().unwrap().contains("no page was open"),
        "{s}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_that_answers_nothing_does_not_hold_its_seat() {
    let (mut server, web) = TestServer::start_watched(
        "traditional-2x4",
        "[http]\nhumans = true\nhuman_away_ms = 300\n",
    )
    .await;
    let token = sit(
        &web,
        json!({"name": "ghost", "against": "random", "seat": 1}),
    )
    .await;
    // A page that opens the seat and then never reads nor answers (a browser gone without
    // closing its connection): pinged, silent, let go; then the seat is given up.
    let mut ghost = TcpStream::connect(&web).await.unwrap();
    ghost
        .write_all(upgrade_request(&web, "/api/seats/live").as_bytes())
        .await
        .unwrap();
    ghost
        .write_all(&masked_text_frame(&json!({ "seat": token }).to_string()))
        .await
        .unwrap();
    let started = std::time::Instant::now();
    let record = server.next_record().await;
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(record.players[0].name, "ghost");
    assert_eq!(
        record.result.reason,
        Termination::Disconnect,
        "{:?}",
        record.result
    );
    drop(ghost);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_request_that_cannot_be_served_says_why() {
    let (server, web) = TestServer::start_watched(
        "traditional-2x4",
        "[http]\nhumans = true\nmax_humans = 2\nmax_humans_per_address = 1\n",
    )
    .await;
    let refused = |status: u16, body: &str, words: &str| {
        assert!(body.contains(words), "{status} {body}: says {words:?}");
    };
    for (request, words) in [
        (r#"{"name": "", "against": "random"}"#, "1 to 32 letters"),
        (r#"{"name": "a b", "against": "random"}"#, "1 to 32 letters"),
        (r#"{"name": "alice", "against": "stockfish"}"#, "one of"),
        (
            r#"{"name": "alice", "against": "random", "seat": 3}"#,
            "seats 1 to 2",
        ),
        (
            r#"{"name": "alice", "against": "random", "seed": "a b"}"#,
            "seed",
        ),
        (r#"{"name": "alice"}"#, "against"),
        (
            r#"{"name": "random_bot", "against": "random"}"#,
            "the server's bots",
        ),
        (r#"not json"#, "name"),
        (
            r#"{"name": "alice", "against": "random", "time": "2:00+1"}"#,
            r#"one of \"1:00+0\", \"3:00+2\", \"5:00+3\", \"15:00+10\""#,
        ),
        (
            r#"{"name": "alice", "against": "waiting", "time": "3:00+2"}"#,
            "always on the server's clock",
        ),
    ] {
        let (status, body) = post(&web, "/api/seats", request, "").await;
        assert_eq!(status, 400, "{request}: {body}");
        refused(status, &body, words);
    }
    let big = format!(r#"{{"name": "{}", "against": "random"}}"#, "a".repeat(5000));
    let (status, _) = post(&web, "/api/seats", &big, "").await;
    assert_eq!(status, 413);
    // Another site's page may not seat anyone.
    let (status, body) = post(
        &web,
        "/api/seats",
        r#"{"name": "alice", "against": "random"}"#,
        "origin: http://evil.example\r\n",
    )
    .await;
    assert_eq!(status, 403, "{body}");
    refused(status, &body, "evil.example");
    // The same site's may.
    let (status, body) = post(
        &web,
        "/api/seats",
        r#"{"name": "alice", "against": "random", "seat": 1}"#,
        &format!("origin: http://{web}\r\n"),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    // One seat per network here: the next is refused, with the reason.
    let (status, body) = post(
        &web,
        "/api/seats",
        r#"{"name": "carol", "against": "random"}"#,
        "",
    )
    .await;
    assert_eq!(status, 503, "{body}");
    refused(status, &body, "your network holds 1 seats");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_message_over_the_bound_closes_that_page_only() {
    let (server, web) =
        TestServer::start_watched("traditional-2x4", "[http]\nhumans = true\n").await;
    let token = sit(
        &web,
        json!({"name": "alice", "against": "random", "seat": 2}),
    )
    .await;
    let mut page = open_seat(&web, &token).await;
    until(&mut page, |s| s["state"] == "playing").await;
    // 2 KiB where a click is a few dozen bytes (the bound is 1 KiB): the page is closed...
    let big = json!({"act": "x".repeat(2048)}).to_string();
    let _ = page.send(Message::Text(big.into())).await;
    assert!(
        closed(&mut page).await.is_some(),
        "the page over the bound is closed"
    );
    // ...and the seat is not: a page opened again takes it back, still playing.
    let mut again = open_seat(&web, &token).await;
    let s = next(&mut again).await;
    assert_eq!(s["state"], "playing", "{s}");
    // The same bound holds on a game's live feed.
    let (mut live, _) = tokio_tungstenite::connect_async(format!("ws://{web}/api/games/1/live"))
        .await
        .unwrap();
    let _ = live.send(Message::Text("y".repeat(4096).into())).await;
    assert!(
        closed(&mut live).await.is_some(),
        "the live feed over the bound is closed"
    );
    drop(again);
    server.stop().await;
}

/// A person aborts a game against the server's bots on their first turn: it ends at once with
/// no result, recorded as aborted with no ply, and every player is told why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_aborts_before_the_first_ply_and_the_game_has_no_result() {
    let (mut server, web) =
        TestServer::start_watched("traditional-2x4", "[http]\nhumans = true\n").await;
    let token = sit(
        &web,
        json!({"name": "alice", "against": "greedy", "seat": 1}),
    )
    .await;
    let mut seat = open_seat(&web, &token).await;
    until(&mut seat, |s| s["my_turn"] == true).await;
    // Sent as a page sends it; the next messages are the seat's state, to its end (`ask`
    // would read the first of them: the end itself, on a quick server).
    seat.send(Message::Text(json!({"abort": true}).to_string().into()))
        .await
        .unwrap();
    let over = until(&mut seat, |s| s["state"] == "over").await;
    assert_eq!(over["result"], Value::Null, "{over}");
    let record = server.next_record().await;
    assert_eq!(record.result.reason, Termination::Aborted);
    assert!(record.plies.is_empty());
    assert!(record.result.win.is_empty(), "{:?}", record.result);
    let told: Vec<&str> = record.faults.iter().map(|f| f.text.as_str()).collect();
    assert!(
        told.iter().any(|t| t.contains("you aborted this game"))
            && told
                .iter()
                .any(|t| t.contains("player 1 aborted this game before its first ply")),
        "{told:?}"
    );
    server.stop().await;
}
