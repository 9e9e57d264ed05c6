//! Watching games over HTTP and WebSocket (protocol/WEB.md): the real server and the real web
//! pages' server in this process, bots over TCP, observers over real HTTP and WebSocket.
//!
//! Games are held at a gate (a bot that waits before a given move of its own) so that an
//! observer is surely watching a running game, at its start or in its middle.

use crate::common::TestServer;
use anqi_client::{Bot, RandomBot, View};
use anqi_core::record::GameRecord;
use anqi_core::rules::{Action, Variant};
use anqi_core::view::{events_of_record, Event};
use futures_util::{SinkExt, StreamExt};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;

/// A gate that bots wait at until the test opens it (or drops it: a failing test must not
/// leave a bot blocking a runtime thread forever). It counts the bots that reached it, so a
/// test waits for the game to be held instead of sleeping and hoping it is.
#[derive(Clone)]
pub struct Gate(Arc<GateState>);

struct GateState {
    open: Mutex<bool>,
    opened: Condvar,
    /// How many bots have reached the gate.
    reached: tokio::sync::watch::Sender<usize>,
}

impl Default for Gate {
    fn default() -> Gate {
        Gate(Arc::new(GateState {
            open: Mutex::new(false),
            opened: Condvar::new(),
            reached: tokio::sync::watch::Sender::new(0),
        }))
    }
}

impl Drop for Gate {
    fn drop(&mut self) {
        self.open();
    }
}

impl Gate {
    pub fn open(&self) {
        *self.0.open.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.0.opened.notify_all();
    }

    fn wait(&self) {
        self.0.reached.send_modify(|n| *n += 1);
        let mut open = self.0.open.lock().unwrap();
        while !*open {
            open = self.0.opened.wait(open).unwrap();
        }
    }

    /// Waits until a bot waits at the gate: from then on the game is held (the other
    /// players wait for their turn), every ply before it played and told.
    pub async fn until_held(&self) {
        let mut reached = self.0.reached.subscribe();
        tokio::time::timeout(Duration::from_secs(30), reached.wait_for(|&n| n > 0))
            .await
            .expect("a bot reaches the gate within 30 s")
            .unwrap();
    }
}

/// A random bot that waits at `gate` before its move number `wait_before` (1 = its first);
/// with `says`, it comments each move (the `comment` extension).
struct GatedBot {
    inner: RandomBot,
    gate: Gate,
    wait_before: usize,
    moves: usize,
    says: bool,
}

impl Bot for GatedBot {
    fn comments(&self) -> bool {
        self.says
    }

    fn comment(&self) -> Option<String> {
        Some(format!("move {} of this bot", self.moves))
    }

    fn choose(&mut self, view: &View<'_>) -> Action {
        self.moves += 1;
        if self.moves == self.wait_before {
            // Blocking a runtime thread outright could leave nobody to poll the runtime's
            // I/O and timers: let the runtime move its other work elsewhere first.
            tokio::task::block_in_place(|| self.gate.wait());
        }
        self.inner.choose(view)
    }
}

/// Starts the variant's players, each a gated random bot (seed `SEED-secret-i`), one game.
/// Player 1's bot comments its moves.
pub fn gated_players(
    addr: &str,
    players: usize,
    gate: &Gate,
    wait_before: usize,
) -> Vec<tokio::task::JoinHandle<()>> {
    (0..players)
        .map(|i| {
            let addr = addr.to_string();
            let gate = gate.clone();
            tokio::spawn(async move {
                let mut bot = GatedBot {
                    inner: RandomBot::new(i as u64 + 11),
                    gate,
                    wait_before,
                    moves: 0,
                    says: i == 0,
                };
                let seed = format!("SEED-secret-{i}");
                anqi_client::play_game(&addr, &format!("bot{i}"), &seed, &mut bot, None)
                    .await
                    .expect("a bot plays its game");
            })
        })
        .collect()
}

/// `GET path` over a fresh HTTP/1.1 connection: the status and the body.
pub async fn get(web: &str, path: &str) -> (u16, String) {
    let mut s = tokio::time::timeout(Duration::from_secs(10), TcpStream::connect(web))
        .await
        .expect("connected in time")
        .unwrap();
    s.write_all(
        format!("GET {path} HTTP/1.1\r\nhost: {web}\r\nconnection: close\r\n\r\n").as_bytes(),
    )
    .await
    .unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut raw))
        .await
        .expect("an answer in time")
        .unwrap();
    let text = String::from_utf8(raw).unwrap();
    let status = text[9..12].parse().unwrap();
    let (_, body) = text.split_once("\r\n\r\n").unwrap();
    (status, body.to_string())
}

pub async fn get_json(web: &str, path: &str) -> serde_json::Value {
    let (status, body) = get(web, path).await;
    assert_eq!(status, 200, "{path}: {body}");
    serde_json::from_str(&body).unwrap()
}

/// Waits until game `game` is listed as running.
pub async fn until_running(web: &str, game: u64) {
    until_state(web, game, "running").await;
}

/// Waits until game `game` is listed as `state`.
pub async fn until_state(web: &str, game: u64, state: &str) {
    for _ in 0..500 {
        let list = get_json(web, "/api/games").await;
        if list["games"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["game"] == game && g["state"] == state)
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("game {game} never {state}");
}

type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>;

async fn open_live(web: &str, game: u64) -> Socket {
    let url = format!("ws://{web}/api/games/{game}/live");
    let (socket, _) = tokio::time::timeout(
        Duration::from_secs(10),
        tokio_tungstenite::connect_async(url),
    )
    .await
    .expect("the live feed opens in time")
    .expect("the live feed opens");
    socket
}

/// Reads a live feed: every text message until the feed closes, and whether it was caught up
/// before the end.
async fn read_feed(socket: &mut Socket) -> Vec<String> {
    let mut texts = Vec::new();
    loop {
        let next = tokio::time::timeout(Duration::from_secs(30), socket.next())
            .await
            .expect("the feed goes on");
        match next {
            Some(Ok(Message::Text(t))) => texts.push(t.to_string()),
            Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return texts,
            Some(Ok(_)) => {}
        }
    }
}

/// Asserts two lists of events are equal, naming the first that differs.
fn assert_same(watched: &[Event], rebuilt: &[Event], what: &str) {
    for (i, (w, r)) in watched.iter().zip(rebuilt).enumerate() {
        assert_eq!(w, r, "{what}: event {i} differs");
    }
    assert_eq!(watched.len(), rebuilt.len(), "{what}: as many events");
}

/// The events of a feed, without the live-only fields (time left, wall-clock times), and the
/// `seq` numbers checked to run 0, 1, 2, ...
fn events(texts: &[String]) -> Vec<Event> {
    let mut out = Vec::new();
    for t in texts {
        let v: serde_json::Value = serde_json::from_str(t).unwrap();
        if v["type"] == "caught_up" {
            continue;
        }
        assert_eq!(v["seq"], out.len(), "events in order, none missing: {t}");
        let mut e: Event = serde_json::from_value(v).unwrap();
        match &mut e {
            Event::Setup(s) => {
                s.position.clocks_ms = None;
                s.position.at_unix_ms = None;
            }
            Event::Ply(p) => {
                p.position.clocks_ms = None;
                p.position.at_unix_ms = None;
            }
            _ => {}
        }
        out.push(e);
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_observer_joins_a_game_in_its_middle_and_ends_with_the_records_state() {
    let (mut server, web) = TestServer::start_watched("traditional", "").await;
    let gate = Gate::default();
    // Each bot waits before its 10th move: the game stops at ply 18 or 19.
    let players = gated_players(&server.addr(), 2, &gate, 10);
    until_running(&web, 1).await;
    gate.until_held().await;
    let mut socket = open_live(&web, 1).await;
    gate.open();
    let texts = read_feed(&mut socket).await;
    for p in players {
        p.await.unwrap();
    }
    let record = server.next_record().await;
    let caught_up = texts
        .iter()
        .position(|t| t.contains("\"caught_up\""))
        .unwrap();
    let plies_before = texts[..caught_up]
        .iter()
        .filter(|t| t.contains("\"type\":\"ply\""))
        .count();
    assert!(
        (17..=19).contains(&plies_before),
        "joined in the middle: {plies_before} plies before"
    );
    assert!(
        record.plies.len() > plies_before,
        "and watched the rest live"
    );
    let watched = events(&texts);
    let Some(Event::Ply(last)) = watched.iter().rev().find(|e| matches!(e, Event::Ply(_))) else {
        panic!("no ply")
    };
    assert_eq!(last.position.board, record.final_board);
    // Everything watched equals what the record rebuilds, ply by ply.
    assert_same(
        &watched,
        &events_of_record(&record, false).unwrap(),
        "the feed",
    );
    // The game as served afterwards is the same.
    let after = get_json(&web, "/api/games/1").await;
    let texts: Vec<String> = after["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.to_string())
        .collect();
    assert_same(&events(&texts), &watched, "served afterwards");
    // And as a move list with its seeds.
    let (status, moves) = get(&web, "/api/games/1/moves.txt").await;
    assert_eq!(status, 200, "{moves}");
    assert_eq!(moves, anqi_core::view::move_list(&record));
    assert!(moves.contains("SEED-secret-0"), "{moves}");
    // And the exchange between the referee and each player: the setup first, every action
    // each sent, the result last; never the handshake (its SEED may be a token).
    let x = get_json(&web, "/api/games/1/exchange").await;
    let lines = x["lines"].as_array().unwrap();
    for player in [1, 2] {
        let mine: Vec<&serde_json::Value> =
            lines.iter().filter(|l| l["player"] == player).collect();
        let first = mine.first().unwrap()["text"].as_str().unwrap();
        assert!(first.starts_with(&format!("((id {player})")), "{first}");
        let last = mine.last().unwrap()["text"].as_str().unwrap();
        assert!(last.contains("(win "), "{last}");
    }
    for ply in &record.plies {
        assert!(
            lines.iter().any(|l| l["by"] == "player"
                && l["player"] == ply.player
                && l["ply"] == ply.ply
                && l["text"].as_str().unwrap().contains(&ply.action)),
            "ply {} ({}) is in the exchange",
            ply.ply,
            ply.action
        );
    }
    assert!(
        !x.to_string().contains("SEED-secret"),
        "no seed in the exchange"
    );
    server.stop_and_replay(1).await;
}

/// Watches one whole game of `variant` live from its first ply; returns the feed and the record.
async fn watch_whole_game(variant: &str) -> (Vec<String>, GameRecord) {
    eprintln!("watching a game of {variant}");
    let players = Variant::load(variant).unwrap().players;
    let (mut server, web) =
        TestServer::start_watched(variant, "[referee]\nmax_plies = 400\n").await;
    let gate = Gate::default();
    let bots = gated_players(&server.addr(), players, &gate, 1);
    until_running(&web, 1).await;
    let mut socket = open_live(&web, 1).await;
    gate.open();
    let texts = read_feed(&mut socket).await;
    for b in bots {
        b.await.unwrap();
    }
    let record = server.next_record().await;
    server.stop().await;
    (texts, record)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn no_message_of_a_watched_game_shows_a_hidden_piece_a_seed_or_a_token_before_its_end() {
    let names: Vec<&str> = anqi_core::rules::SHIPPED.iter().map(|(n, _)| *n).collect();
    assert_eq!(names.len(), 21);
    for name in names {
        let (texts, record) = watch_whole_game(name).await;
        let end = texts
            .iter()
            .position(|t| t.contains("\"type\":\"end\""))
            .unwrap_or_else(|| panic!("{name}: the feed has an end"));
        // Nothing secret before the end: no seed (the clients' or the server's), no deal, no
        // record, no variant source (a fixed start's deal is in it).
        let secrets: Vec<&str> = record
            .players
            .iter()
            .map(|p| p.seed.as_str())
            .chain([record.seeds.server.as_str()])
            .collect();
        assert!(secrets.iter().all(|s| s.len() >= 8), "{name}: {secrets:?}");
        for t in &texts[..end] {
            for s in &secrets {
                assert!(!t.contains(s), "{name}: {s} shown before the end: {t}");
            }
            for key in ["\"deal\":", "\"seeds\":", "\"record\":", "variant_source"] {
                assert!(!t.contains(key), "{name}: {key} before the end: {t}");
            }
        }
        // Every position shown is the public position the rules give (face-down cells X): the
        // feed equals the record's public replay.
        let watched = events(&texts);
        assert_same(
            &watched,
            &events_of_record(&record, false).unwrap(),
            &format!("{name}: the feed is the public replay"),
        );
        let plies = watched
            .iter()
            .filter(|e| matches!(e, Event::Ply(_)))
            .count();
        assert_eq!(plies, record.plies.len(), "{name}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_stalled_observer_is_dropped_while_the_game_goes_on() {
    let (mut server, web) = TestServer::start_watched(
        "2v2-8x16",
        "[http]\nobserver_queue = 64\n[referee]\nmax_plies = 3000\n",
    )
    .await;
    let gate = Gate::default();
    let bots = gated_players(&server.addr(), 4, &gate, 1);
    until_running(&web, 1).await;
    // An observer that asks for the feed and never reads: a small receive buffer, so the
    // server's bounded send buffer fills within a few hundred events.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut stalled = socket.connect(web.parse().unwrap()).await.unwrap();
    stalled
        .write_all(upgrade_request(&web, "/api/games/1/live").as_bytes())
        .await
        .unwrap();
    gate.open();
    // The game ends while the stalled observer has read nothing: had the referee waited for
    // it, no record would come (`next_record` waits 30 s).
    for b in bots {
        b.await.unwrap();
    }
    let record = server.next_record().await;
    assert!(
        record.plies.len() > 300,
        "a long game: {}",
        record.plies.len()
    );
    // The stalled observer was let go: its stream ends without the game's end.
    let mut got = Vec::new();
    tokio::time::timeout(Duration::from_secs(20), stalled.read_to_end(&mut got))
        .await
        .expect("the stalled observer's connection is closed")
        .ok();
    let got = String::from_utf8_lossy(&got);
    assert!(
        got.starts_with("HTTP/1.1 101"),
        "{}",
        &got[..80.min(got.len())]
    );
    assert!(
        !got.contains("\"type\":\"end\""),
        "the stalled observer got the whole game"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn observers_and_connections_are_capped_and_every_refusal_says_why() {
    // Idle connections hold places here: neither the idle limit nor the header deadline (an
    // idle connection has sent no header) may let them go while the test runs, however slow
    // a loaded machine makes it (the default 10 s deadline did once, on CI).
    let (mut server, web) = TestServer::start_watched(
        "traditional-2x4",
        "[http]\nmax_observers_per_game = 1\nmax_connections_per_address = 3\nidle_timeout_ms = 600000\n\
         header_timeout_ms = 600000\n",
    )
    .await;
    let gate = Gate::default();
    let bots = gated_players(&server.addr(), 2, &gate, 1);
    until_running(&web, 1).await;
    let mut first = open_live(&web, 1).await;
    // A running game has no move list yet.
    let (status, body) = get(&web, "/api/games/1/moves.txt").await;
    assert_eq!(status, 409, "{body}");
    let (status, body) = get(&web, "/api/games/1/exchange").await;
    assert_eq!(status, 409, "{body}");
    // A second observer of the same game: 503, with the reason.
    let (status, body) = get_ws_upgrade(&web, "/api/games/1/live").await;
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("observers already"), "{body}");
    // Unknown games and bad numbers.
    assert_eq!(get(&web, "/api/games/99").await.0, 404);
    assert_eq!(get(&web, "/api/games/x1").await.0, 400);
    assert_eq!(get_ws_upgrade(&web, "/api/games/99/live").await.0, 404);
    // Connections per address: three are open (the observer and two idle ones), the fourth
    // is answered 503 and closed.
    let mut idle = [
        TcpStream::connect(&web).await.unwrap(),
        TcpStream::connect(&web).await.unwrap(),
    ];
    // Once the server has taken the two idle connections (moments, but a busy machine may
    // take longer), a fourth is refused. The connections of the requests above are counted
    // until the server has seen them close: an idle one that came before was refused (503,
    // then closed), and another takes its place.
    let mut answer = (0, String::new());
    for _ in 0..100 {
        answer = get(&web, "/api/games").await;
        if answer.0 == 503 {
            break;
        }
        for conn in &mut idle {
            let mut byte = [0u8; 1];
            if !matches!(conn.try_read(&mut byte), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock)
            {
                *conn = TcpStream::connect(&web).await.unwrap();
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (status, body) = answer;
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("from your address"), "{body}");
    drop(idle);
    // A page may not send big messages: the feed closes.
    first
        .send(Message::Text("x".repeat(10_000).into()))
        .await
        .unwrap();
    let texts = read_feed(&mut first).await;
    assert!(!texts.iter().any(|t| t.contains("\"type\":\"end\"")));
    gate.open();
    for b in bots {
        b.await.unwrap();
    }
    server.next_record().await;
    server.stop().await;
}

/// A WebSocket upgrade request for `path`, as a browser sends it.
pub fn upgrade_request(web: &str, path: &str) -> String {
    format!(
        "GET {path} HTTP/1.1\r\nhost: {web}\r\nupgrade: websocket\r\nconnection: upgrade\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\n\r\n"
    )
}

/// A WebSocket upgrade request by hand: the status and the body of a refusal.
pub async fn get_ws_upgrade(web: &str, path: &str) -> (u16, String) {
    let mut s = TcpStream::connect(web).await.unwrap();
    s.write_all(upgrade_request(web, path).as_bytes())
        .await
        .unwrap();
    let mut raw = vec![0u8; 4096];
    let n = tokio::time::timeout(Duration::from_secs(5), s.read(&mut raw))
        .await
        .unwrap()
        .unwrap();
    let text = String::from_utf8_lossy(&raw[..n]).to_string();
    let status = text[9..12].parse().unwrap();
    let body = text
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_string();
    (status, body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_broadcast_delay_holds_plies_back_until_the_end() {
    let (mut server, web) =
        TestServer::start_watched("traditional", "[http]\ndelay_plies = 10000\n").await;
    let gate = Gate::default();
    let bots = gated_players(&server.addr(), 2, &gate, 15);
    until_running(&web, 1).await;
    // The game is held at ply 28 or so; observers see its setup only.
    gate.until_held().await;
    let game = get_json(&web, "/api/games/1").await;
    assert_eq!(game["events"].as_array().unwrap().len(), 1, "{game}");
    let list = get_json(&web, "/api/games").await;
    assert_eq!(list["games"][0]["ply"], 0);
    gate.open();
    for b in bots {
        b.await.unwrap();
    }
    let record = server.next_record().await;
    // Finished, the game is shown whole (the players hear the result first).
    until_state(&web, 1, "finished").await;
    let game = get_json(&web, "/api/games/1").await;
    let shown = game["events"].as_array().unwrap();
    assert_eq!(
        shown.iter().filter(|e| e["type"] == "ply").count(),
        record.plies.len()
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_delay_in_time_releases_plies_as_their_time_comes() {
    let (mut server, web) =
        TestServer::start_watched("traditional", "[http]\ndelay_ms = 1500\n").await;
    let gate = Gate::default();
    let bots = gated_players(&server.addr(), 2, &gate, 15);
    until_running(&web, 1).await;
    // The game is held at ply 28 or so; its plies are not shown yet...
    gate.until_held().await;
    let shown = |g: serde_json::Value| g["events"].as_array().unwrap().len();
    assert_eq!(shown(get_json(&web, "/api/games/1").await), 1);
    // ... and are once 1.5 s have passed, while the game is still held.
    let mut all = 0;
    for _ in 0..100 {
        all = shown(get_json(&web, "/api/games/1").await);
        if all >= 28 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(all >= 28, "{all} events shown");
    gate.open();
    for b in bots {
        b.await.unwrap();
    }
    server.next_record().await;
    server.stop().await;
}

#[test]
fn anqi_view_serves_the_games_of_a_records_file() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    // Two games recorded by a server.
    let (records, _dir) = rt.block_on(async {
        let mut server = TestServer::start("traditional-2x4", "").await;
        for _ in 0..2 {
            for b in crate::common::random_bots(&server.addr(), 2, 5) {
                b.await.unwrap().unwrap();
            }
            server.next_record().await;
        }
        server.stop().await
    });
    let (mut child, web) = crate::common::spawn_view([&records], std::process::Stdio::null());
    let file: Vec<GameRecord> = std::fs::read_to_string(&records)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    rt.block_on(async {
        let list = get_json(&web, "/api/games").await;
        assert_eq!(list["games"].as_array().unwrap().len(), 2);
        let game = get_json(&web, "/api/games/1").await;
        let events = game["events"].as_array().unwrap();
        let end = events.last().unwrap();
        assert_eq!(end["type"], "end");
        assert_eq!(end["final_board"], file[0].final_board);
        let (status, page) = get(&web, "/").await;
        assert_eq!(status, 200);
        assert!(page.contains("/assets/app.js"));
        assert_eq!(get(&web, "/assets/board.js").await.0, 200);
    });
    child.kill().unwrap();
    child.wait().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_idle_http_connection_is_closed_and_a_quiet_live_feed_is_not() {
    let (mut server, web) = TestServer::start_watched(
        "traditional-2x4",
        "[http]\nidle_timeout_ms = 300\nmax_connections_per_address = 2\n",
    )
    .await;
    let gate = Gate::default();
    let bots = gated_players(&server.addr(), 2, &gate, 2);
    until_running(&web, 1).await;
    // A live feed, then a quiet game (held at the gate) for several idle limits.
    let mut live = open_live(&web, 1).await;
    // A keep-alive connection that asks once and then says nothing.
    let mut idle = TcpStream::connect(&web).await.unwrap();
    idle.write_all(format!("GET /api/games HTTP/1.1\r\nhost: {web}\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let started = std::time::Instant::now();
    let mut got = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), idle.read_to_end(&mut got))
        .await
        .expect("the idle connection is closed")
        .unwrap();
    assert!(String::from_utf8_lossy(&got).starts_with("HTTP/1.1 200"));
    assert!(started.elapsed() >= Duration::from_millis(250));
    // Its place under the per-address cap (2) is free again: two more connections get in.
    assert_eq!(get(&web, "/api/games").await.0, 200);
    // Pipelined requests whose answers are not read: the server waits to write, not to read,
    // and the idle limit holds there too.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut pipelined = socket.connect(web.parse().unwrap()).await.unwrap();
    // (The page's largest file: thirty answers are over twice what the two buffers hold.)
    let one = format!("GET /assets/game.js HTTP/1.1\r\nhost: {web}\r\n\r\n");
    pipelined
        .write_all(one.repeat(30).as_bytes())
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let mut got = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), pipelined.read_to_end(&mut got))
        .await
        .expect("the stalled connection is closed")
        .ok();
    let answers = String::from_utf8_lossy(&got)
        .matches("HTTP/1.1 200")
        .count();
    assert!(
        answers < 30,
        "{answers} answers: all were written to a reader that waited"
    );
    tokio::time::sleep(Duration::from_millis(1200)).await;
    // The quiet feed was not closed: it follows the game to its end.
    gate.open();
    let texts = read_feed(&mut live).await;
    assert!(
        texts.iter().any(|t| t.contains("\"type\":\"end\"")),
        "the live feed saw the end"
    );
    for b in bots {
        b.await.unwrap();
    }
    server.next_record().await;
    server.stop().await;
}

/// A server with the pages on, whose hub the test holds (a tournament withholds games through
/// it): the game server's address, the pages' address, the hub, the records, and the token
/// that stops both.
async fn start_with_hub(
    variant: &str,
    toml: &str,
) -> (
    String,
    String,
    anqi_server::Hub,
    tokio::sync::mpsc::UnboundedReceiver<GameRecord>,
    tokio_util::sync::CancellationToken,
    crate::common::TempDir,
) {
    let dir = crate::common::TempDir::new("withheld");
    let mut config = anqi_server::config::Config::parse(toml).unwrap();
    config.server.listen = "127.0.0.1:0".into();
    config.records.path = dir.0.join("games.jsonl").to_string_lossy().into_owned();
    let mut server = anqi_server::Server::bind(config.clone(), Variant::load(variant).unwrap())
        .await
        .unwrap();
    let (tx, records) = tokio::sync::mpsc::unbounded_channel();
    server.observe_records(tx);
    // As `anqi serve` does: a fixed server seed is left out of what the pages show.
    let fixed = config.seed.server != anqi_server::config::SeedSource::Random;
    let hub = anqi_server::Hub::new(&config.http, fixed);
    server.watch(hub.clone());
    let shutdown = tokio_util::sync::CancellationToken::new();
    let mut web = anqi_web::Web::bind("127.0.0.1:0", &config, hub.clone(), shutdown.clone())
        .await
        .unwrap();
    if config.http.humans {
        web.seat_people(server.door(), &Variant::load(variant).unwrap(), &config);
    }
    let web_addr = web.local_addr().unwrap().to_string();
    let addr = server.local_addr().unwrap().to_string();
    tokio::spawn(web.run(shutdown.clone()));
    tokio::spawn(server.run(shutdown.clone()));
    (addr, web_addr, hub, records, shutdown, dir)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_withheld_game_is_refused_with_its_reason_until_disclosed() {
    let (addr, web, hub, mut records, shutdown, _dir) = start_with_hub("traditional-2x4", "").await;
    // Withheld, live feed too, before the game starts (as a tournament does).
    hub.withhold(1, true);
    let gate = Gate::default();
    let bots = gated_players(&addr, 2, &gate, 2);
    until_running(&web, 1).await;
    let reason = "game 1's deal is still in play in another game of this event; it is shown when every game of its deal has ended";
    let list = get_json(&web, "/api/games").await;
    assert_eq!(list["games"][0]["withheld"], reason, "{list}");
    assert_eq!(list["games"][0]["state"], "running");
    for path in [
        "/api/games/1",
        "/api/games/1/moves.txt",
        "/api/games/1/exchange",
    ] {
        let (status, body) = get(&web, path).await;
        assert_eq!(status, 409, "{path}: {body}");
        assert!(body.contains(reason), "{path}: {body}");
    }
    let (status, body) = get_ws_upgrade(&web, "/api/games/1/live").await;
    assert_eq!((status, body.contains(reason)), (409, true), "{body}");
    gate.open();
    for b in bots {
        b.await.unwrap();
    }
    let record = tokio::time::timeout(Duration::from_secs(30), records.recv())
        .await
        .unwrap()
        .unwrap();
    until_state(&web, 1, "finished").await;
    // Finished: still nothing of its deal, its end or its result.
    let list = get_json(&web, "/api/games").await;
    let listed = &list["games"][0];
    assert_eq!(listed["withheld"], reason, "{list}");
    assert_eq!(listed["win"], serde_json::Value::Null, "{list}");
    assert!(!list.to_string().contains(&record.final_board), "{list}");
    for path in [
        "/api/games/1",
        "/api/games/1/moves.txt",
        "/api/games/1/exchange",
    ] {
        let (status, body) = get(&web, path).await;
        assert_eq!(
            (status, body.contains(reason)),
            (409, true),
            "{path}: {body}"
        );
        assert!(!body.contains("SEED-secret"), "{path}: {body}");
    }
    assert_eq!(get_ws_upgrade(&web, "/api/games/1/live").await.0, 409);
    // Disclosed: shown whole, as any finished game.
    hub.disclose(1);
    let game = get_json(&web, "/api/games/1").await;
    let end = game["events"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(end["type"], "end");
    assert_eq!(end["final_board"], record.final_board);
    let (status, moves) = get(&web, "/api/games/1/moves.txt").await;
    assert_eq!(status, 200);
    assert!(moves.contains("SEED-secret-0"), "{moves}");
    assert_eq!(get(&web, "/api/games/1/exchange").await.0, 200);
    let list = get_json(&web, "/api/games").await;
    assert_eq!(list["games"][0]["win"], record.result.win.as_str());
    assert!(list["games"][0].get("withheld").is_none(), "{list}");
    shutdown.cancel();
}

/// One keep-alive HTTP/1.1 connection, request after request.
struct KeepAlive {
    stream: TcpStream,
    web: String,
}

impl KeepAlive {
    async fn open(web: &str) -> KeepAlive {
        KeepAlive {
            stream: TcpStream::connect(web).await.unwrap(),
            web: web.to_string(),
        }
    }

    async fn open_from(web: &str, source: &str) -> KeepAlive {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind(format!("{source}:0").parse().unwrap()).unwrap();
        KeepAlive {
            stream: socket.connect(web.parse().unwrap()).await.unwrap(),
            web: web.to_string(),
        }
    }

    /// `GET path`: the status, the header and the body.
    async fn get(&mut self, path: &str) -> (u16, String, String) {
        self.send(path, 1).await;
        self.answer().await
    }

    /// Sends `GET path` `times` times at once (pipelined), reading nothing.
    async fn send(&mut self, path: &str, times: usize) {
        let request = format!("GET {path} HTTP/1.1\r\nhost: {}\r\n\r\n", self.web);
        self.stream
            .write_all(request.repeat(times).as_bytes())
            .await
            .unwrap();
    }

    /// Whether the server closes the connection within `wait` (answers it sends meanwhile
    /// are read and passed over).
    async fn closed_within(&mut self, wait: Duration) -> bool {
        let mut buf = [0u8; 4096];
        let until = tokio::time::Instant::now() + wait;
        loop {
            match tokio::time::timeout_at(until, self.stream.read(&mut buf)).await {
                Ok(Ok(0) | Err(_)) => return true,
                Ok(Ok(_)) => {}
                Err(_) => return false,
            }
        }
    }

    /// The next answer: the status, the header and the body.
    async fn answer(&mut self) -> (u16, String, String) {
        let mut raw = Vec::new();
        let mut byte = [0u8; 1];
        while !raw.ends_with(b"\r\n\r\n") {
            let n = tokio::time::timeout(Duration::from_secs(10), self.stream.read(&mut byte))
                .await
                .expect("an answer in time")
                .unwrap();
            assert_eq!(
                n,
                1,
                "the connection closed: {}",
                String::from_utf8_lossy(&raw)
            );
            raw.push(byte[0]);
        }
        let head = String::from_utf8(raw).unwrap();
        let length: usize = head
            .lines()
            .find_map(|l| {
                l.to_ascii_lowercase()
                    .strip_prefix("content-length: ")
                    .map(|n| n.trim().parse().unwrap())
            })
            .expect("a content-length");
        let mut body = vec![0u8; length];
        self.stream.read_exact(&mut body).await.unwrap();
        (
            head[9..12].parse().unwrap(),
            head,
            String::from_utf8(body).unwrap(),
        )
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_finished_game_is_rebuilt_once_however_often_it_is_asked_for() {
    let (addr, web, hub, mut records, shutdown, _dir) = start_with_hub("traditional", "").await;
    for b in crate::common::random_bots(&addr, 2, 3) {
        b.await.unwrap().unwrap();
    }
    let record = tokio::time::timeout(Duration::from_secs(30), records.recv())
        .await
        .unwrap()
        .unwrap();
    until_state(&web, 1, "finished").await;
    assert_eq!(hub.rebuilds(), 0, "nothing asked for yet");
    let mut poller = KeepAlive::open(&web).await;
    let (status, _, first) = poller.get("/api/games/1").await;
    assert_eq!(status, 200);
    for _ in 0..10 {
        let (status, _, again) = poller.get("/api/games/1").await;
        assert_eq!((status, again == first), (200, true));
    }
    let mut live = open_live(&web, 1).await;
    let texts = read_feed(&mut live).await;
    assert_same(
        &events(&texts),
        &events_of_record(&record, false).unwrap(),
        "the feed",
    );
    assert_eq!(
        hub.rebuilds(),
        1,
        "one replay for eleven requests and a feed"
    );
    shutdown.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn requests_past_a_connections_or_a_networks_rate_are_answered_429() {
    // The lowest rates, so that a request past one comes well within its refill (a second
    // or half a second, where 8 a second gave a loaded machine 125 ms to open eight
    // connections), and the pages' thread at the games' priority.
    let (_addr, web, _hub, _records, shutdown, _dir) = start_with_hub(
        "traditional-2x4",
        "[http]\nrequests_per_s_per_connection = 1\nrequests_per_s_per_address = 2\nnice = 0\n",
    )
    .await;
    // A network's connections share its 2 a second: one request on each of three fresh
    // connections (each of which may make one), opened first and asked at once: two
    // answered, the third 429.
    let mut three = Vec::new();
    for _ in 0..3 {
        three.push(KeepAlive::open_from(&web, "127.0.0.3").await);
    }
    for c in &mut three {
        c.send("/api/games", 1).await;
    }
    let mut statuses = Vec::new();
    let mut refusal = String::new();
    for c in &mut three {
        let (status, _, body) = c.answer().await;
        statuses.push(status);
        if status == 429 {
            refusal = body;
        }
    }
    statuses.sort_unstable();
    assert_eq!(statuses, [200, 200, 429], "{refusal}");
    assert!(
        refusal.contains("from your network: at most 2 a second"),
        "{refusal}"
    );
    // Another network is not held back. One connection, two requests pipelined: one
    // answered, then a refusal, answered a second later, with the reason.
    let mut conn = KeepAlive::open(&web).await;
    let asked = std::time::Instant::now();
    conn.send("/api/games", 2).await;
    assert_eq!(conn.answer().await.0, 200);
    let (status, head, body) = conn.answer().await;
    assert_eq!(status, 429, "{body}");
    assert!(
        body.contains("on this connection: at most 1 a second"),
        "{body}"
    );
    assert!(
        head.to_ascii_lowercase().contains("retry-after: 1"),
        "{head}"
    );
    assert!(
        asked.elapsed() >= Duration::from_millis(900),
        "the refusal waits"
    );
    // A second later, it is served again.
    assert_eq!(conn.get("/api/games").await.0, 200);
    shutdown.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_crowd_of_refused_requests_holds_no_place_a_visitor_needs() {
    let (_addr, web, _hub, _records, shutdown, _dir) = start_with_hub(
        "traditional-2x4",
        "[http]\nmax_connections = 4\nmax_connections_per_address = 0\n\
         requests_per_s_per_connection = 1\nrequests_per_s_per_address = 1000\n\
         idle_timeout_ms = 60000\nnice = 0\n",
    )
    .await;
    // Four connections, all the pages hold, each with 30 requests pipelined: the first is
    // answered, each next one refused a second later, so that every connection always has
    // a request in flight.
    let mut crowd = Vec::new();
    for _ in 0..4 {
        let mut c = KeepAlive::open(&web).await;
        c.send("/api/games", 30).await;
        assert_eq!(c.answer().await.0, 200);
        crowd.push(c);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    // A visitor meanwhile: a connection waiting for its refusal's answer makes room.
    let (status, body) = get(&web, "/api/games").await;
    assert_eq!(status, 200, "{body}");
    let mut let_go = 0;
    for c in &mut crowd {
        let_go += usize::from(c.closed_within(Duration::from_millis(1500)).await);
    }
    assert_eq!(let_go, 1, "one of the crowd made room");
    shutdown.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_request_trickled_past_the_header_deadline_is_dropped_while_a_visitor_is_served() {
    let (_addr, web, _hub, _records, shutdown, _dir) = start_with_hub(
        "traditional-2x4",
        "[http]\nheader_timeout_ms = 600\nmax_connections = 4\nidle_timeout_ms = 60000\n",
    )
    .await;
    // Four connections, all the pages hold, each sending its header a byte every 100 ms: the
    // idle limit (60 s) never ends them.
    let mut slow = Vec::new();
    for _ in 0..4 {
        let mut s = TcpStream::connect(&web).await.unwrap();
        s.write_all(b"GET /api/games HTTP/1.1\r\n").await.unwrap();
        slow.push(s);
    }
    let trickle = tokio::spawn(async move {
        let started = std::time::Instant::now();
        let mut closed_at = vec![None; slow.len()];
        for _ in 0..40 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            for (i, s) in slow.iter_mut().enumerate() {
                if closed_at[i].is_none() && s.write_all(b"x").await.is_err() {
                    closed_at[i] = Some(started.elapsed());
                }
            }
        }
        // A closed connection is seen on a write once the peer's reset has come back, or on
        // a read as its end.
        for (i, s) in slow.iter_mut().enumerate() {
            let mut buf = [0u8; 64];
            let ended = matches!(
                tokio::time::timeout(Duration::from_millis(200), s.read(&mut buf)).await,
                Ok(Ok(0) | Err(_))
            );
            if ended && closed_at[i].is_none() {
                closed_at[i] = Some(started.elapsed());
            }
        }
        closed_at
    });
    // A fresh visitor meanwhile: the pages are full of unfinished requests, and the one that
    // has waited longest makes room.
    tokio::time::sleep(Duration::from_millis(250)).await;
    let (status, body) = get(&web, "/api/games").await;
    assert_eq!(status, 200, "{body}");
    let closed_at = trickle.await.unwrap();
    for (i, at) in closed_at.iter().enumerate() {
        let at = at.unwrap_or_else(|| panic!("slow request {i} was never dropped"));
        assert!(
            at < Duration::from_secs(3),
            "slow request {i} dropped at {at:?}"
        );
    }
    // A header over max_header_bytes is refused (431), not buffered.
    let mut s = TcpStream::connect(&web).await.unwrap();
    let big = format!(
        "GET / HTTP/1.1\r\nhost: {web}\r\nx-big: {}\r\n\r\n",
        "y".repeat(40_000)
    );
    let _ = s.write_all(big.as_bytes()).await;
    let mut got = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut got)).await;
    let got = String::from_utf8_lossy(&got);
    assert!(got.starts_with("HTTP/1.1 431"), "{got}");
    shutdown.cancel();
}

/// `GET path` with the `Host` and `Origin` given (a WebSocket upgrade with `upgrade`): the
/// status and the whole answer's head and body.
async fn get_as(
    web: &str,
    path: &str,
    host: &str,
    origin: Option<&str>,
    upgrade: bool,
) -> (u16, String) {
    let mut s = TcpStream::connect(web).await.unwrap();
    let origin = origin.map_or(String::new(), |o| format!("origin: {o}\r\n"));
    let upgrade = if upgrade {
        "upgrade: websocket\r\nconnection: upgrade\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\n"
    } else {
        "connection: close\r\n"
    };
    s.write_all(format!("GET {path} HTTP/1.1\r\nhost: {host}\r\n{origin}{upgrade}\r\n").as_bytes())
        .await
        .unwrap();
    let mut raw = vec![0u8; 65536];
    let mut got = Vec::new();
    // The head and what came with it (a WebSocket stays open: read what there is).
    while !String::from_utf8_lossy(&got).contains("\r\n\r\n") {
        let n = tokio::time::timeout(Duration::from_secs(10), s.read(&mut raw))
            .await
            .expect("an answer in time")
            .unwrap();
        assert!(n > 0, "closed: {}", String::from_utf8_lossy(&got));
        got.extend_from_slice(&raw[..n]);
    }
    if !upgrade.starts_with("upgrade") {
        let _ = tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut got)).await;
    }
    let text = String::from_utf8_lossy(&got).to_string();
    (text[9..12].parse().unwrap(), text)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn only_this_servers_names_and_pages_are_answered_and_every_answer_guards_itself() {
    let (addr, web, _hub, _records, shutdown, _dir) = start_with_hub(
        "traditional-2x4",
        "[http]\nhosts = [\"games.example.org\"]\n",
    )
    .await;
    let port = web.rsplit_once(':').unwrap().1;
    // A name that is not this server's (a rebound one): 421, with the reason.
    for host in [
        format!("evil.example:{port}"),
        "127.0.0.1.nip.io".to_string(),
    ] {
        let (status, answer) = get_as(&web, "/api/games", &host, None, false).await;
        assert_eq!(status, 421, "{host}: {answer}");
        assert!(answer.contains("[http] hosts"), "{answer}");
        let (status, _) = get_as(&web, "/", &host, None, false).await;
        assert_eq!(status, 421, "the page too");
    }
    // The bound address, localhost and the configured name.
    for host in [
        web.clone(),
        format!("localhost:{port}"),
        "games.example.org".into(),
    ] {
        assert_eq!(
            get_as(&web, "/api/games", &host, None, false).await.0,
            200,
            "{host}"
        );
    }
    // Every answer: nosniff, framed by nobody, no referrer; the page's own policy too.
    for path in ["/", "/api/games", "/api/games/99", "/assets/app.js"] {
        let (_, answer) = get_as(&web, path, &web, None, false).await;
        let head = answer
            .split("\r\n\r\n")
            .next()
            .unwrap()
            .to_ascii_lowercase();
        assert!(
            head.contains("x-content-type-options: nosniff"),
            "{path}: {head}"
        );
        assert!(
            head.contains("referrer-policy: no-referrer"),
            "{path}: {head}"
        );
        assert!(head.contains("frame-ancestors 'none'"), "{path}: {head}");
    }
    // A live feed opened by another site's page: 403; by this server's own: 101.
    let gate = Gate::default();
    let bots = gated_players(&addr, 2, &gate, 1);
    until_running(&web, 1).await;
    let (status, answer) = get_as(
        &web,
        "/api/games/1/live",
        &web,
        Some("http://evil.example"),
        true,
    )
    .await;
    assert_eq!(status, 403, "{answer}");
    assert!(answer.contains("may not use"), "{answer}");
    let own = format!("http://{web}");
    let (status, answer) = get_as(&web, "/api/games/1/live", &web, Some(&own), true).await;
    assert_eq!(status, 101, "{answer}");
    gate.open();
    for b in bots {
        b.await.unwrap();
    }
    shutdown.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_seats_token_is_never_in_an_address() {
    let (server, web) =
        TestServer::start_watched("traditional-2x4", "[http]\nhumans = true\n").await;
    let (status, body) = {
        let mut s = TcpStream::connect(&web).await.unwrap();
        let body = r#"{"name": "alice", "against": "random", "seat": 1}"#;
        s.write_all(
            format!(
                "POST /api/seats HTTP/1.1\r\nhost: {web}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            )
            .as_bytes(),
        )
        .await
        .unwrap();
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).await.unwrap();
        let text = String::from_utf8(raw).unwrap();
        (
            text[9..12].parse::<u16>().unwrap(),
            text.split_once("\r\n\r\n").unwrap().1.to_string(),
        )
    };
    assert_eq!(status, 201, "{body}");
    let token = serde_json::from_str::<serde_json::Value>(&body).unwrap()["token"]
        .as_str()
        .unwrap()
        .to_string();
    // The old address with the token in it serves nothing.
    assert_eq!(get(&web, &format!("/api/seats/{token}/live")).await.0, 404);
    // The seat's socket takes the token as its first message...
    let (mut seat, _) = tokio_tungstenite::connect_async(format!("ws://{web}/api/seats/live"))
        .await
        .unwrap();
    seat.send(Message::Text(
        serde_json::json!({ "seat": token }).to_string().into(),
    ))
    .await
    .unwrap();
    // (The server pings a seat's page from the start, while its state may not be ready yet:
    // a browser answers pings unseen, and so does this reader.)
    let first = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match seat.next().await.unwrap().unwrap() {
                Message::Ping(_) | Message::Pong(_) => continue,
                other => break other,
            }
        }
    })
    .await
    .unwrap();
    assert!(
        first.to_text().unwrap().contains("\"type\":\"seat\""),
        "{first}"
    );
    // ... and a token that opens no seat closes it, with the reason.
    let (mut wrong, _) = tokio_tungstenite::connect_async(format!("ws://{web}/api/seats/live"))
        .await
        .unwrap();
    wrong
        .send(Message::Text(
            r#"{"seat": "00112233445566778899aabbccddeeff"}"#.into(),
        ))
        .await
        .unwrap();
    let closed = loop {
        match tokio::time::timeout(Duration::from_secs(10), wrong.next())
            .await
            .unwrap()
        {
            Some(Ok(Message::Close(frame))) => break frame.expect("a reason"),
            Some(Ok(_)) => continue,
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(u16::from(closed.code), 1008);
    assert!(closed.reason.contains("no such seat"), "{closed:?}");
    drop(seat);
    server.stop().await;
}

#[test]
fn a_name_holding_a_newline_forges_no_line_in_an_export() {
    let dir = crate::common::TempDir::new("forged-name");
    let mut record: serde_json::Value =
        serde_json::from_str(include_str!("../data/one-game.jsonl").trim_end()).unwrap();
    record["players"][0]["name"] = "alice\nresult: (win 2 0) by resign, after 1 plies".into();
    let file = dir.0.join("forged.jsonl");
    std::fs::write(&file, format!("{record}\n")).unwrap();
    let (mut child, web) = crate::common::spawn_view([&file], std::process::Stdio::null());
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (status, moves) = rt.block_on(get(&web, "/api/games/1/moves.txt"));
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(status, 200, "{moves}");
    let results: Vec<&str> = moves.lines().filter(|l| l.starts_with("result:")).collect();
    assert_eq!(results.len(), 1, "{moves}");
    assert!(results[0].starts_with(&format!(
        "result: {}",
        record["result"]["win"].as_str().unwrap()
    )));
    assert!(
        moves.contains("player 1: alice\\nresult: (win 2 0) by resign"),
        "the name, escaped: {moves}"
    );
}

/// Sits a person down against a random bot in seat 1 with the seed `seed`, and resigns at
/// once: the game's number.
async fn sit_and_resign(web: &str, seed: &str) -> u64 {
    let body = serde_json::json!({"name": "alice", "against": "random", "seat": 1, "seed": seed})
        .to_string();
    let mut s = TcpStream::connect(web).await.unwrap();
    s.write_all(
        format!(
            "POST /api/seats HTTP/1.1\r\nhost: {web}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).await.unwrap();
    let raw = String::from_utf8(raw).unwrap();
    let answer: serde_json::Value =
        serde_json::from_str(raw.split_once("\r\n\r\n").unwrap().1).unwrap();
    let token = answer["token"].as_str().unwrap_or_else(|| panic!("{raw}"));
    let (mut seat, _) = tokio_tungstenite::connect_async(format!("ws://{web}/api/seats/live"))
        .await
        .unwrap();
    seat.send(Message::Text(
        serde_json::json!({ "seat": token }).to_string().into(),
    ))
    .await
    .unwrap();
    let mut resigned = false;
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(20), seat.next())
            .await
            .expect("the seat speaks in time");
        let text = match msg {
            Some(Ok(Message::Text(text))) => text,
            // Pings (answered by the library).
            Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
            other => panic!("the seat closed before its game ended: {other:?}"),
        };
        let state: serde_json::Value = serde_json::from_str(&text).unwrap();
        if state["state"] == "over" {
            return state["game"].as_u64().unwrap();
        }
        if state["state"] == "playing" && !resigned {
            resigned = true;
            seat.send(Message::Text(r#"{"resign": true}"#.into()))
                .await
                .unwrap();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_bots_seeds_are_fresh_for_every_game_and_tell_nothing_of_a_fixed_server_seed() {
    let secret = "fixed-server-seed-9";
    let (_addr, web, _hub, mut records, shutdown, _dir) = start_with_hub(
        "traditional-2x4",
        &format!("[http]\nhumans = true\n[seed]\nserver = \"{secret}\"\n"),
    )
    .await;
    // Two games with the same person's seed, the same seat, the same fixed server seed.
    let mut bot_seeds = Vec::new();
    for _ in 0..2 {
        let game = sit_and_resign(&web, "same-seed").await;
        let record = tokio::time::timeout(Duration::from_secs(30), records.recv())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(record.seeds.server, secret, "the records file keeps it");
        assert_eq!(record.players[0].seed, "same-seed");
        bot_seeds.push(record.players[1].seed.clone());
        // What the pages show after the game: neither the server's seed, nor anything the
        // same in both games but what the person chose.
        until_state(&web, game, "finished").await;
        for path in [
            format!("/api/games/{game}"),
            format!("/api/games/{game}/moves.txt"),
            format!("/api/games/{game}/exchange"),
        ] {
            let (status, body) = get(&web, &path).await;
            assert_eq!(status, 200, "{path}: {body}");
            assert!(
                !body.contains(secret),
                "{path} shows the server seed: {body}"
            );
        }
        let shown = get_json(&web, &format!("/api/games/{game}")).await;
        let end = shown["events"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(end["record"]["seeds"]["server"], "", "{end}");
        assert_eq!(
            end["record"]["players"][1]["seed"],
            bot_seeds.last().unwrap().as_str()
        );
    }
    assert_ne!(
        bot_seeds[0], bot_seeds[1],
        "the person's seed chose the bots' seeds (with a fixed server seed: a function of it)"
    );
    shutdown.cancel();
}

#[test]
fn anqi_view_leaves_out_a_fixed_server_seed() {
    let dir = crate::common::TempDir::new("view-fixed-seed");
    let one = include_str!("../data/one-game.jsonl").trim_end();
    let record: GameRecord = serde_json::from_str(one).unwrap();
    let seed = record.seeds.server.clone();
    assert!(!seed.is_empty());
    // Served as its own file, a game's seeds are shown (they re-derive its deal)...
    let single = dir.0.join("single.jsonl");
    std::fs::write(&single, format!("{one}\n")).unwrap();
    // ... but two games with one server seed tell that it was fixed, as --hide-server-seed
    // or a --config with a fixed [seed] server say.
    let twice = dir.0.join("twice.jsonl");
    std::fs::write(&twice, format!("{one}\n{one}\n")).unwrap();
    let config = dir.0.join("fixed.toml");
    std::fs::write(&config, "[seed]\nserver = \"anything\"\n").unwrap();
    let single_s = single.to_string_lossy().into_owned();
    let twice_s = twice.to_string_lossy().into_owned();
    let config_s = config.to_string_lossy().into_owned();
    let cases: [(&[&str], bool); 4] = [
        (&[single_s.as_str()], true),
        (&[twice_s.as_str()], false),
        (&[single_s.as_str(), "--hide-server-seed"], false),
        (&[single_s.as_str(), "--config", config_s.as_str()], false),
    ];
    let rt = tokio::runtime::Runtime::new().unwrap();
    for (args, shown) in cases {
        let (mut child, web) = crate::common::spawn_view(args, std::process::Stdio::null());
        let (events, moves) = rt.block_on(async {
            (
                get(&web, "/api/games/1").await.1,
                get(&web, "/api/games/1/moves.txt").await.1,
            )
        });
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(events.contains(&seed), shown, "{args:?}: {events}");
        assert_eq!(moves.contains(&seed), shown, "{args:?}: {moves}");
    }
}

/// Plays one whole game of random bots on the server at `addr` (no gate holds them).
async fn play_one(addr: &str) {
    let gate = Gate::default();
    for b in gated_players(addr, 2, &gate, usize::MAX) {
        b.await.unwrap();
    }
}

/// The list's game numbers.
fn listed(list: &serde_json::Value) -> Vec<u64> {
    list["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["game"].as_u64().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_game_list_comes_a_page_at_a_time_with_its_total_and_a_featured_game() {
    let (addr, web, hub, _records, shutdown, _dir) = start_with_hub("traditional-2x4", "").await;
    let empty = get_json(&web, "/api/games").await;
    assert_eq!(
        empty,
        serde_json::json!({"games": [], "total": 0, "featured": null})
    );
    for game in 1..=3 {
        play_one(&addr).await;
        until_state(&web, game, "finished").await;
    }
    // Without a page: every game, as before pages; the last to finish featured.
    let all = get_json(&web, "/api/games").await;
    assert_eq!(listed(&all), [3, 2, 1]);
    assert_eq!(
        (all["total"].clone(), all["featured"].clone()),
        (3.into(), 3.into())
    );
    let p = get_json(&web, "/api/games?limit=2").await;
    assert_eq!((listed(&p), p["total"].clone()), (vec![3, 2], 3.into()));
    let p = get_json(&web, "/api/games?limit=2&offset=2").await;
    assert_eq!((listed(&p), p["total"].clone()), (vec![1], 3.into()));
    let p = get_json(&web, "/api/games?offset=5").await;
    assert_eq!((listed(&p), p["total"].clone()), (vec![], 3.into()));
    let p = get_json(&web, "/api/games?limit=0&state=running").await;
    assert_eq!(
        p,
        serde_json::json!({"games": [], "total": 0, "featured": null})
    );
    // A limit past the cap is the cap; one that is not a number is refused, saying why.
    assert_eq!(
        listed(&get_json(&web, "/api/games?limit=99999").await),
        [3, 2, 1]
    );
    for bad in ["limit=-1", "limit=ten", "offset=x"] {
        let (status, body) = get(&web, &format!("/api/games?{bad}")).await;
        assert_eq!(status, 400, "{bad}: {body}");
        let why: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert!(why["error"].as_str().unwrap().contains("query"), "{body}");
    }
    // A withheld game is listed (and counted) but never featured.
    hub.withhold(3, false);
    let p = get_json(&web, "/api/games").await;
    assert_eq!(
        (p["total"].clone(), p["featured"].clone()),
        (3.into(), 2.into())
    );
    // A running game, watched, comes first and is featured over any finished one.
    let gate = Gate::default();
    let bots = gated_players(&addr, 2, &gate, 2);
    gate.until_held().await;
    until_running(&web, 4).await;
    let _watching = open_live(&web, 4).await;
    for _ in 0..100 {
        let p = get_json(&web, "/api/games?limit=1").await;
        if p["games"][0]["observers"] == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let p = get_json(&web, "/api/games?limit=1").await;
    assert_eq!(listed(&p), [4]);
    assert_eq!(
        (p["total"].clone(), p["featured"].clone()),
        (4.into(), 4.into())
    );
    // The filters decide what is counted and featured: the finished games alone.
    let p = get_json(&web, "/api/games?state=finished&limit=1&offset=1").await;
    assert_eq!(listed(&p), [2]);
    assert_eq!(
        (p["total"].clone(), p["featured"].clone()),
        (3.into(), 2.into())
    );
    // Withheld live too: the running game is no longer featured.
    hub.withhold(4, true);
    let p = get_json(&web, "/api/games").await;
    assert_eq!(
        (p["total"].clone(), p["featured"].clone()),
        (4.into(), 2.into())
    );
    gate.open();
    for b in bots {
        b.await.unwrap();
    }
    shutdown.cancel();
}

/// One answer read whole: its status, its head's fields (names in lower case) and its body as
/// sent (chunks joined, not decompressed).
struct Answer {
    status: u16,
    fields: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Answer {
    fn field(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body, gunzipped when it says it is gzipped.
    fn text(&self) -> String {
        let raw = if self.field("content-encoding") == Some("gzip") {
            gunzip(&self.body)
        } else {
            self.body.clone()
        };
        String::from_utf8(raw).unwrap()
    }
}

/// A gzip member's data (RFC 1952: a 10-byte header with no optional fields, as the server
/// writes it, DEFLATE data, then its CRC and length, checked).
fn gunzip(gz: &[u8]) -> Vec<u8> {
    assert_eq!(&gz[..3], [0x1f, 0x8b, 8], "a gzip member");
    assert_eq!(gz[3], 0, "no optional fields");
    let data = miniz_oxide::inflate::decompress_to_vec(&gz[10..gz.len() - 8]).unwrap();
    let size = u32::from_le_bytes(gz[gz.len() - 4..].try_into().unwrap());
    assert_eq!(size as usize, data.len(), "the member's length");
    data
}

/// `GET path` with the extra header `lines` (each `name: value\r\n`), read whole.
async fn fetch(web: &str, path: &str, lines: &str) -> Answer {
    let mut s = TcpStream::connect(web).await.unwrap();
    s.write_all(
        format!("GET {path} HTTP/1.1\r\nhost: {web}\r\n{lines}connection: close\r\n\r\n")
            .as_bytes(),
    )
    .await
    .unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut raw))
        .await
        .expect("an answer in time")
        .unwrap();
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8(raw[..end].to_vec()).unwrap();
    let fields: Vec<(String, String)> = head
        .lines()
        .skip(1)
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let mut body = raw[end + 4..].to_vec();
    if fields
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v == "chunked")
    {
        let (mut joined, mut rest) = (Vec::new(), &body[..]);
        loop {
            let line = rest.windows(2).position(|w| w == b"\r\n").unwrap();
            let size =
                usize::from_str_radix(std::str::from_utf8(&rest[..line]).unwrap(), 16).unwrap();
            if size == 0 {
                break;
            }
            joined.extend_from_slice(&rest[line + 2..line + 2 + size]);
            rest = &rest[line + 2 + size + 2..];
        }
        body = joined;
    }
    Answer {
        status: head[9..12].parse().unwrap(),
        fields,
        body,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn answers_are_gzipped_when_asked_and_the_pages_files_are_revalidated() {
    let (addr, web, hub, _records, shutdown, _dir) = start_with_hub("traditional-2x4", "").await;
    play_one(&addr).await;
    until_state(&web, 1, "finished").await;
    hub.set_event(format!("{{\"standings\": \"{}\"}}", "W D L ".repeat(100)));
    let gzip = "accept-encoding: gzip, deflate, br\r\n";
    for path in [
        "/",
        "/assets/app.js",
        "/assets/style.css",
        "/api/games",
        "/api/games/1",
        "/api/games/1/moves.txt",
        "/api/games/1/exchange",
        "/api/event",
    ] {
        let plain = fetch(&web, path, "").await;
        assert_eq!(plain.status, 200, "{path}");
        assert_eq!(plain.field("content-encoding"), None, "{path}: not asked");
        let zipped = fetch(&web, path, gzip).await;
        assert_eq!(zipped.status, 200, "{path}");
        assert_eq!(zipped.field("content-encoding"), Some("gzip"), "{path}");
        assert_eq!(zipped.field("vary"), Some("accept-encoding"), "{path}");
        assert_eq!(zipped.field("content-type"), plain.field("content-type"));
        assert_eq!(zipped.field("x-content-type-options"), Some("nosniff"));
        assert_eq!(
            zipped.text(),
            plain.text(),
            "{path}: the same once unzipped"
        );
        assert!(
            zipped.body.len() < plain.body.len(),
            "{path}: {} bytes gzipped, {} not",
            zipped.body.len(),
            plain.body.len()
        );
        // Refused by the request: gzip;q=0 (and so nothing but identity).
        let refused = fetch(&web, path, "accept-encoding: gzip;q=0\r\n").await;
        assert_eq!(refused.field("content-encoding"), None, "{path}");
    }
    // A WebSocket's upgrade is never compressed, and says nothing of encodings.
    let (status, answer) = get_as(&web, "/api/games/1/live", &web, None, true).await;
    assert_eq!(status, 101, "{answer}");
    let mut s = TcpStream::connect(&web).await.unwrap();
    let upgrade =
        upgrade_request(&web, "/api/games/1/live").replace("\r\n\r\n", &format!("\r\n{gzip}\r\n"));
    s.write_all(upgrade.as_bytes()).await.unwrap();
    let mut raw = vec![0u8; 4096];
    let n = tokio::time::timeout(Duration::from_secs(5), s.read(&mut raw))
        .await
        .unwrap()
        .unwrap();
    let head = String::from_utf8_lossy(&raw[..n]).to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 101"), "{head}");
    assert!(!head.contains("content-encoding"), "{head}");
    assert!(!head.contains("vary"), "{head}");
    // The page's files: a tag, revalidated each time (no-cache), answered 304 when unchanged.
    for path in ["/", "/assets/app.js", "/assets/style.css"] {
        let first = fetch(&web, path, gzip).await;
        let tag = first.field("etag").expect("an etag").to_string();
        assert!(tag.starts_with("W/\""), "{tag}");
        assert_eq!(first.field("cache-control"), Some("no-cache"));
        for asked in [tag.clone(), format!("\"x\", {tag}"), "*".into()] {
            let again = fetch(&web, path, &format!("{gzip}if-none-match: {asked}\r\n")).await;
            assert_eq!(again.status, 304, "{path}: {asked}");
            assert!(again.body.is_empty(), "{path}: no body");
            assert_eq!(again.field("etag"), Some(tag.as_str()));
            assert_eq!(again.field("cache-control"), Some("no-cache"));
            assert_eq!(again.field("content-encoding"), None);
        }
        let changed = fetch(&web, path, "if-none-match: W/\"0000000000000000\"\r\n").await;
        assert_eq!(changed.status, 200, "{path}: another tag");
        assert_eq!(
            changed.field("etag"),
            Some(tag.as_str()),
            "the same file, the same tag"
        );
    }
    let app = fetch(&web, "/assets/app.js", "")
        .await
        .field("etag")
        .map(String::from);
    let css = fetch(&web, "/assets/style.css", "")
        .await
        .field("etag")
        .map(String::from);
    assert_ne!(app, css, "a tag per file");
    shutdown.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_long_games_events_are_sent_gzipped_the_same_each_time() {
    let (mut server, web) =
        TestServer::start_watched("traditional", "[referee]\nmax_plies = 160\n").await;
    play_one(&server.addr()).await;
    server.next_record().await;
    until_state(&web, 1, "finished").await;
    let gzip = "accept-encoding: gzip\r\n";
    let plain = fetch(&web, "/api/games/1", "").await;
    assert!(
        plain.body.len() > 16 << 10,
        "long: {} bytes",
        plain.body.len()
    );
    // Made once and kept (`anqi_web`'s gzipped): the same bytes for every request.
    let first = fetch(&web, "/api/games/1", gzip).await;
    let again = fetch(&web, "/api/games/1", gzip).await;
    for zipped in [&first, &again] {
        assert_eq!(zipped.status, 200);
        assert_eq!(zipped.field("content-encoding"), Some("gzip"));
        assert_eq!(zipped.field("vary"), Some("accept-encoding"));
        assert_eq!(zipped.field("content-type"), Some("application/json"));
        assert_eq!(zipped.text(), plain.text());
        assert!(
            zipped.body.len() * 5 < plain.body.len(),
            "{}",
            zipped.body.len()
        );
    }
    assert_eq!(first.body, again.body);
    let refused = fetch(&web, "/api/games/1", "accept-encoding: gzip;q=0, br\r\n").await;
    assert_eq!(refused.field("content-encoding"), None);
    assert_eq!(refused.body, plain.body);
    server.stop().await;
}
