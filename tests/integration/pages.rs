//! The pages as a Banqi player expects them (issue 36), in a real browser against the real
//! server and what it recorded: the players' marks and curves in their colours by the page's
//! CSS, the pieces each side took, the moves and the result in words, sounds that can be
//! muted and a dark theme, both remembered; a person playing by the keyboard on a time control
//! they chose, resigning and playing again; a page that loses the server (a relay cut between
//! them) saying so and coming back by itself; the server stopped and started again, with a
//! link from before the restart opening the same game; `anqi view`'s pages (numbers kept,
//! pages of games, pictures of boards, the featured game, the evaluation graph, no exchange
//! offered that cannot load).

use crate::browser::{
    assert_no_csp_violations, open_game_one_from_the_lobby, open_lobby_listing_game_one,
};
use crate::common::webdriver::Browser;
use crate::common::TestServer;
use crate::web::{gated_players, until_running, Gate};
use anqi_core::record::GameRecord;
use anqi_core::view::{events_of_record, Event};
use serde_json::json;

/// The page's own red and black (style.css's --red and --black, light theme), as computed.
const RED: &str = "rgb(179, 38, 30)";
const BLACK: &str = "rgb(29, 29, 29)";

/// Each cell's name as a player reads it, worked out here from the setup's coordinates: a
/// file letter from the left, a rank from the bottom.
fn cell_names(record: &GameRecord) -> Vec<String> {
    let events = events_of_record(record, false).unwrap();
    let Some(Event::Setup(setup)) = events.first() else {
        panic!("no setup")
    };
    let coords = setup.topology.coords.clone().expect("a grid board");
    let rows = coords.iter().map(|c| c[0]).max().unwrap() + 1;
    coords
        .iter()
        .map(|&[r, c]| format!("{}{}", (b'a' + c as u8) as char, rows - r))
        .collect()
}

fn hanzi(letter: char) -> char {
    let i = "KGBRNCPkgbrncp".find(letter).unwrap();
    "帥仕相俥傌炮兵將士象車馬砲卒".chars().nth(i).unwrap()
}

/// A whole live game of `traditional` watched from the lobby: every part a player reads.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_game_reads_as_a_banqi_player_expects() {
    let Some(browser) = Browser::start().await else {
        return;
    };
    let (mut server, web) =
        TestServer::start_watched("traditional", "[referee]\nmax_plies = 120\n").await;
    let gate = Gate::default();
    let bots = gated_players(&server.addr(), 2, &gate, 6);
    until_running(&web, 1).await;
    open_lobby_listing_game_one(&browser, &web).await;
    open_game_one_from_the_lobby(&browser).await;
    gate.open();
    browser
        .wait_for("return document.body.dataset.finished", 60)
        .await;
    for b in bots {
        b.await.unwrap();
    }
    let record = server.next_record().await;
    let names = cell_names(&record);

    // The players' marks and mobility curves in each player's colour, by the page's CSS.
    let colours = browser
        .eval(
            "return [...document.querySelectorAll('.player')].map((p) => [
                getComputedStyle(p.querySelector('.mark')).color,
                getComputedStyle(document.querySelector(`svg.curve polyline[data-player=\"${p.dataset.player}\"]`)).stroke]);",
            json!([]),
        )
        .await;
    for (i, p) in record.players.iter().enumerate() {
        let want = match p.colour.as_deref() {
            Some("red") => RED,
            Some("black") => BLACK,
            other => panic!("player {} has colour {other:?}", p.id),
        };
        assert_eq!(colours[i], json!([want, want]), "player {}", p.id);
    }

    // The pieces each side lost, in the trays.
    let taken = |red: bool| -> Vec<String> {
        let mut v: Vec<String> = record
            .plies
            .iter()
            .filter_map(|p| p.captured)
            .filter(|c| c.is_ascii_uppercase() == red)
            .map(|c| hanzi(c).to_string())
            .collect();
        v.sort();
        v
    };
    let trays = browser
        .eval(
            "return ['red', 'black'].map((s) => [...document.querySelectorAll(`.tray-row[data-side=\"${s}\"] .taken`)].map((e) => e.textContent).sort());",
            json!([]),
        )
        .await;
    assert_eq!(trays, json!([taken(true), taken(false)]), "the trays");

    // The moves in words, with the board's coordinates and the pieces in 漢字.
    let words: Vec<String> = serde_json::from_value(
        browser
            .eval(
                "return [...document.querySelectorAll('#moves > div:not(.fault)')].map((d) => d.textContent);",
                json!([]),
            )
            .await,
    )
    .unwrap();
    assert_eq!(words.len(), record.plies.len());
    for (ply, text) in record.plies.iter().zip(&words) {
        let cells: Vec<&str> = ply
            .action
            .trim_matches(|c| c == '(' || c == ')')
            .split(' ')
            .skip(1)
            .map(|n| names[n.parse::<usize>().unwrap()].as_str())
            .collect();
        let what = if ply.action.starts_with("(rev") {
            format!("{} flips {}", cells[0], hanzi(ply.revealed.unwrap()))
        } else if let Some(c) = ply.captured {
            format!("{}×{} {}", cells[0], cells[1], hanzi(c))
        } else {
            format!("{}–{}", cells[0], cells[1])
        };
        let p = &record.players[ply.player - 1];
        let comment = ply
            .comment
            .as_ref()
            .map(|c| format!(" {{ {c} }}"))
            .unwrap_or_default();
        assert_eq!(
            text,
            &format!(
                "{}. {} ({}) {what}{comment}",
                ply.ply,
                capital(p.colour.as_deref().unwrap()),
                p.name
            ),
            "ply {}",
            ply.ply
        );
    }

    // The result in words, never the wire's `(win P T)`.
    let result = browser
        .eval(
            "return document.getElementById('result').textContent",
            json!([]),
        )
        .await;
    let result = result.as_str().unwrap();
    let head = match record.result.winner {
        0 => "Draw: ".to_string(),
        w => {
            let p = &record.players[w - 1];
            format!(
                "{} ({}) wins: ",
                capital(p.colour.as_deref().unwrap()),
                p.name
            )
        }
    };
    assert!(
        result.starts_with(&head) && result.ends_with(&format!(", move {}.", record.plies.len())),
        "{result:?} for {:?}",
        record.result
    );
    assert!(!result.contains("(win"), "{result}");

    // The plies watched live were heard (a flip at least); muted, no more are, and the
    // browser remembers both the sound and the dark theme.
    let heard = || async {
        let v = browser
            .eval(
                "return JSON.parse(document.body.dataset.sounds || '{}')",
                json!([]),
            )
            .await;
        v
    };
    let live = heard().await;
    assert!(live["flip"].as_u64() > Some(0), "{live}");
    assert_eq!(live["end"], 1, "{live}");
    browser.click("#back").await;
    browser.click("#forward").await;
    assert_eq!(heard().await, live, "stepping through plays nothing");
    browser.click("#sound").await;
    browser.click("#dark").await;
    let dark = browser
        .eval(
            "return [document.documentElement.dataset.theme, getComputedStyle(document.body).backgroundColor]",
            json!([]),
        )
        .await;
    assert_eq!(dark[0], "dark");
    assert_ne!(dark[1], "rgb(246, 243, 234)", "the dark theme's background");
    browser.screenshot("dark-finished").await;
    browser.open(&format!("http://{web}/#/game/1")).await;
    browser
        .wait_for("return document.body.dataset.caughtUp", 20)
        .await;
    let remembered = browser
        .eval(
            "return [document.getElementById('sound').checked, document.getElementById('dark').checked, document.documentElement.dataset.theme]",
            json!([]),
        )
        .await;
    assert_eq!(remembered, json!([false, true, "dark"]));
    assert_no_csp_violations(&browser, "a game in words").await;
    server.stop().await;
    browser.quit().await;
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

/// Sits a person down on the lobby's form against `against`, as player 1, on the time control
/// `time` (empty: the server's clock); waits for the seat's game to start.
async fn sit_down(browser: &Browser, web: &str, against: &str, time: &str) {
    browser.open(&format!("http://{web}/")).await;
    browser
        .wait_for(
            "const p = document.getElementById('play'); return p && !p.hidden;",
            20,
        )
        .await;
    browser.clear("#play-name").await;
    browser.keys("#play-name", "keys").await;
    browser
        .click(&format!("#play-against option[value=\"{against}\"]"))
        .await;
    browser.click("#play-seat option[value=\"1\"]").await;
    browser
        .click(&format!("#play-time option[value=\"{time}\"]"))
        .await;
    browser.click("#play-start").await;
    browser
        .wait_for(
            "const s = document.getElementById('seat'); return s && s.dataset.state === 'playing' && s.dataset.synced === '1';",
            20,
        )
        .await;
}

/// A person plays a ply by the keyboard alone (Tab to a cell, Enter), resigns, and plays
/// again from the same page: a new seat and a new game.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_person_plays_by_the_keyboard_resigns_and_plays_again() {
    let Some(browser) = Browser::start().await else {
        return;
    };
    let (mut server, web) =
        TestServer::start_watched("traditional", "[http]\nhumans = true\n").await;
    sit_down(&browser, &web, "random", "1:00+0").await;
    // The time control chosen: a minute each (the server's [clock] is the variant's 15).
    let clocks = browser
        .eval(
            "return [...document.querySelectorAll('.player .clock')].map((c) => c.textContent)",
            json!([]),
        )
        .await;
    assert_eq!(clocks[1], "1:00", "{clocks}");
    let first_seat = browser
        .eval("return location.hash", json!([]))
        .await
        .as_str()
        .unwrap()
        .to_string();
    // Player 1's first turn: every face-down piece may be flipped. The first cell a click
    // acts on is a button to the keyboard; Enter plays it.
    let cell = browser
        .eval(
            "const g = document.querySelector('svg.board g[tabindex=\"0\"]'); return g ? [Number(g.dataset.cell), g.getAttribute('role'), g.getAttribute('aria-label')] : null;",
            json!([]),
        )
        .await;
    assert_eq!(cell[1], "button", "{cell}");
    assert!(
        cell[2].as_str().unwrap().contains("face-down piece"),
        "{cell}"
    );
    let played = cell[0].as_u64().unwrap();
    // Before any ply, the first mover may abort (no result); the button goes once a ply is
    // played.
    let abort = "return document.getElementById('seat-abort') !== null";
    assert_eq!(browser.eval(abort, json!([])).await, true);
    // The turn was heard; muted, the next one is not.
    let heard = "return JSON.parse(document.body.dataset.sounds || '{}')";
    assert_eq!(browser.eval(heard, json!([])).await, json!({"turn": 1}));
    browser.click("#sound").await;
    // The resign button as it is now: the page redraws at each event to come (the ply, the
    // bot's answer, the seat's state), and keeps its buttons, so a person's click (or focus)
    // is never lost to a redraw.
    let resign = browser.find("#seat-resign").await;
    let g = browser
        .find(&format!("svg.board g[data-cell=\"{played}\"]"))
        .await;
    browser.keys_to_element(&g, "\u{E007}").await;
    browser
        .wait_for(
            "return Number(document.querySelector('svg.board').dataset.ply) >= 1",
            20,
        )
        .await;
    // The page says the turn's words, and resigning asks first.
    browser
        .eval("window.confirm = () => true; return 1", json!([]))
        .await;
    browser
        .wait_for(
            "const s = document.getElementById('seat'); return s.dataset.synced === '1' || s.dataset.state === 'over';",
            20,
        )
        .await;
    assert_eq!(
        browser.eval(heard, json!([])).await,
        json!({"turn": 1}),
        "muted"
    );
    browser.click_element(&resign).await;
    let words = browser
        .wait_for(
            "const s = document.getElementById('seat'); return s.dataset.state === 'over' && document.getElementById('result').textContent;",
            20,
        )
        .await;
    assert!(
        words.as_str().unwrap().contains("(keys) resigned"),
        "{words}"
    );
    // The focus the resign button had goes on to the first button left, not to the page.
    let focused = browser
        .eval("return document.activeElement.id", json!([]))
        .await;
    assert_eq!(focused, "seat-again");
    let record = server.next_record().await;
    assert_eq!(record.plies[0].action, format!("(rev {played})"));
    assert_eq!(record.result.reason.name(), "resign");
    assert_eq!(record.result.loser, Some(1));
    // Play again: a new seat, against the same bot, in a new game.
    let label = browser
        .eval(
            "return document.getElementById('seat-again').textContent",
            json!([]),
        )
        .await;
    assert_eq!(label, "play again against anqi-bot random");
    browser.click("#seat-again").await;
    browser
        .wait_for(
            &format!("return location.hash !== {first_seat:?} && document.querySelector('h1') && document.querySelector('h1').textContent.startsWith('Game #2')"),
            20,
        )
        .await;
    browser
        .wait_for(
            "const s = document.getElementById('seat'); return s && s.dataset.state === 'playing';",
            20,
        )
        .await;
    // On the same time control.
    let clocks = browser
        .wait_for(
            "const c = [...document.querySelectorAll('.player .clock')].map((c) => c.textContent); return c.length === 2 && c;",
            20,
        )
        .await;
    assert_eq!(clocks[1], "1:00", "{clocks}");
    assert_no_csp_violations(&browser, "a seat played by the keyboard").await;
    browser.quit().await;
    server.stop().await;
}

/// A free port on loopback (bound, then let go: the server binds it next).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `anqi serve` with its pages on `web`, its records in `dir`: the child and the games'
/// address.
fn serve(config: &std::path::Path) -> (std::process::Child, String) {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_anqi"));
    command
        .args(["serve", "--config"])
        .arg(config)
        .stderr(std::process::Stdio::null());
    crate::common::spawn_server(command)
}

/// Stops `anqi serve` as an operator does (SIGINT), and waits for it.
fn interrupt(mut child: std::process::Child) {
    let pid = child.id() as i32;
    // SAFETY: kill(2) on the child's own pid; no memory is involved.
    unsafe {
        libc::kill(pid, libc::SIGINT);
    }
    let status = child.wait().unwrap();
    assert!(status.success(), "anqi serve stopped with {status}");
}

/// A TCP relay to the pages that can be cut: the network between a browser and the server
/// going away and coming back, while the server and its games go on.
struct Relay {
    addr: String,
    up: std::sync::Arc<std::sync::atomic::AtomicBool>,
    conns: std::sync::Arc<std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>>,
}

impl Relay {
    async fn start(to: String) -> Relay {
        use std::sync::atomic::Ordering;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let up = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let conns = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let (u, c) = (up.clone(), conns.clone());
        tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                if !u.load(Ordering::SeqCst) {
                    continue; // dropped: the server cannot be reached
                }
                let to = to.clone();
                c.lock().unwrap().push(tokio::spawn(async move {
                    if let Ok(mut out) = tokio::net::TcpStream::connect(&to).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut out).await;
                    }
                }));
            }
        });
        Relay { addr, up, conns }
    }

    /// Cuts every connection and refuses new ones.
    fn cut(&self) {
        self.up.store(false, std::sync::atomic::Ordering::SeqCst);
        for c in self.conns.lock().unwrap().drain(..) {
            c.abort();
        }
    }

    fn mend(&self) {
        self.up.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

/// The connection to the server is lost while a game's page follows the game live: the page
/// says so and stops its clocks; once the server can be reached again, the page comes back by
/// itself and follows the game on, live, to its end.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_game_page_that_loses_the_server_says_so_and_comes_back_by_itself() {
    let Some(browser) = Browser::start().await else {
        return;
    };
    let (mut server, web) =
        TestServer::start_watched("traditional", "[referee]\nmax_plies = 120\n").await;
    let gate = Gate::default();
    let bots = gated_players(&server.addr(), 2, &gate, 6);
    until_running(&web, 1).await;
    let relay = Relay::start(web.clone()).await;
    browser
        .open(&format!("http://{}/#/game/1", relay.addr))
        .await;
    browser
        .wait_for(
            "return document.body.dataset.caughtUp && document.querySelector('.clock.running')",
            20,
        )
        .await;
    relay.cut();
    let lost = browser
        .wait_for(
            "return document.body.dataset.lost && [document.getElementById('status').textContent, document.getElementById('ply-label').textContent, document.querySelectorAll('.clock.running').length]",
            20,
        )
        .await;
    assert!(lost[0].as_str().unwrap().contains("trying again"), "{lost}");
    assert!(
        lost[1].as_str().unwrap().contains("connection lost"),
        "{lost}"
    );
    assert_eq!(lost[2], 0, "the clocks stop: {lost}");
    browser.screenshot("connection-lost").await;
    // The game goes on meanwhile; the page comes back to it and follows it to its end.
    gate.open();
    relay.mend();
    browser
        .wait_for(
            "return !document.body.dataset.lost && document.body.dataset.caughtUp",
            20,
        )
        .await;
    browser
        .wait_for("return document.body.dataset.finished", 60)
        .await;
    for b in bots {
        b.await.unwrap();
    }
    let record = server.next_record().await;
    let shown = browser
        .eval(
            "return [Number(document.querySelector('svg.board').dataset.ply), document.querySelector('svg.board').dataset.board]",
            json!([]),
        )
        .await;
    assert_eq!(
        shown,
        json!([record.plies.len(), record.final_board]),
        "the page followed the game to its end"
    );
    assert_no_csp_violations(&browser, "a page that lost the server").await;
    server.stop().await;
    browser.quit().await;
}

/// The server stops while a game's page follows the game live: the page tells the truth
/// (the game aborted by the stop, or the connection lost), with its clocks stopped either way;
/// the server comes back on the same records: the game's link from before opens the same game
/// (aborted, as its record has it) under the same number, and the next game is numbered
/// after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn when_the_server_stops_and_comes_back_a_link_from_before_opens_the_same_game() {
    let Some(browser) = Browser::start().await else {
        return;
    };
    let dir = crate::common::TempDir::new("pages-restart");
    let port = free_port();
    let config = dir.0.join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[server]\nlisten = \"127.0.0.1:0\"\n[records]\npath = \"{}\"\n[http]\nlisten = \"127.0.0.1:{port}\"\n",
            dir.0.join("games.jsonl").display()
        ),
    )
    .unwrap();
    let web = format!("127.0.0.1:{port}");
    let (child, addr) = serve(&config);
    let gate = Gate::default();
    let _bots = gated_players(&addr, 2, &gate, 4);
    until_running(&web, 1).await;
    browser.open(&format!("http://{web}/#/game/1")).await;
    browser
        .wait_for(
            "return document.body.dataset.caughtUp && document.querySelector('.clock.running')",
            20,
        )
        .await;
    interrupt(child);
    gate.open();
    // Whether the aborted game's end reached the page before the server closed it, or not.
    let told = browser
        .wait_for(
            "return (document.body.dataset.lost || document.body.dataset.finished) && [document.getElementById('status').textContent, document.getElementById('result').textContent, document.querySelectorAll('.clock.running').length]",
            20,
        )
        .await;
    assert_eq!(told[2], 0, "the clocks stop: {told}");
    let status = told[0].as_str().unwrap();
    assert!(
        status.contains("trying again") || told[1] == "Aborted: no result.",
        "{told}"
    );
    // The server comes back on the same records file: the link from before opens game 1.
    let (child, addr) = serve(&config);
    browser.open(&format!("http://{web}/#/game/2")).await;
    browser.open(&format!("http://{web}/#/game/1")).await;
    let back = browser
        .wait_for(
            "return document.body.dataset.finished && !document.body.dataset.lost && [document.querySelector('h1').textContent, document.getElementById('result').textContent, document.getElementById('exchange').hidden]",
            30,
        )
        .await;
    assert!(back[0].as_str().unwrap().starts_with("Game #1"), "{back}");
    assert_eq!(back[1], "Aborted: no result.", "{back}");
    assert_eq!(back[2], true, "no exchange from before the restart");
    // The next game is number 2.
    for b in crate::common::random_bots(&addr, 2, 7) {
        b.await.unwrap().unwrap();
    }
    browser.open(&format!("http://{web}/")).await;
    let listed = browser
        .wait_for(
            "const rows = [...document.querySelectorAll('tr[data-game]')].map((r) => r.dataset.game); return rows.length === 2 && rows;",
            20,
        )
        .await;
    assert_eq!(listed, json!(["2", "1"]));
    interrupt(child);
    assert_no_csp_violations(&browser, "pages across a restart").await;
    browser.quit().await;
}

/// `anqi view` over 60 records: the games keep their numbers, the lobby shows them 50 at a
/// time with a picture of each board and the featured game; a game whose engines scored their
/// plies has an evaluation graph with a point per score; no exchange is offered (a records file
/// has none).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn anqi_views_pages_keep_numbers_and_show_pages_pictures_and_evaluations() {
    let Some(browser) = Browser::start().await else {
        return;
    };
    let mut server = TestServer::start("traditional-2x4", "").await;
    for b in crate::common::random_bots(&server.addr(), 2, 3) {
        b.await.unwrap().unwrap();
    }
    let record = server.next_record().await;
    server.stop().await;
    let dir = crate::common::TempDir::new("pages-view");
    let file = dir.0.join("games.jsonl");
    let mut lines = String::new();
    let mut scored = 0;
    for n in 101..=160u64 {
        let mut r = record.clone();
        r.game = n;
        r.started_unix_ms = record.started_unix_ms + n * 1000;
        if n == 160 {
            for (i, p) in r.plies.iter_mut().enumerate() {
                if i % 2 == 0 {
                    p.comment = Some(format!("depth 3 score cp {}", i as i64 * 7 - 20));
                    scored += 1;
                }
            }
        }
        lines.push_str(&serde_json::to_string(&r).unwrap());
        lines.push('\n');
    }
    std::fs::write(&file, lines).unwrap();
    let (mut child, web) = crate::common::spawn_view([&file], std::process::Stdio::null());
    browser.open(&format!("http://{web}/")).await;
    let first = browser
        .wait_for(
            "const rows = [...document.querySelectorAll('tr[data-game]')]; return rows.length && document.querySelectorAll('tr[data-game] svg.thumb').length === rows.length && [rows.length, rows[0].dataset.game, rows[rows.length - 1].dataset.game, document.getElementById('lobby-status').textContent, document.getElementById('featured').dataset.game];",
            20,
        )
        .await;
    assert_eq!(
        first,
        json!([50, "160", "111", "games 1–50 of 60", "160"]),
        "the first page, every row with its board"
    );
    // Each result in words, as the game's page says it.
    let words = browser
        .eval(
            "return document.querySelector('tr[data-game=\"160\"] td:last-child').textContent",
            json!([]),
        )
        .await;
    let head = match record.result.winner {
        0 => "Draw: ".to_string(),
        w => {
            let p = &record.players[w - 1];
            format!(
                "{} ({}) wins: ",
                capital(p.colour.as_deref().unwrap()),
                p.name
            )
        }
    };
    assert!(
        words.as_str().unwrap().starts_with(&head)
            && words
                .as_str()
                .unwrap()
                .ends_with(&format!(", move {}.", record.plies.len())),
        "{words} for {:?}",
        record.result
    );
    browser.click("#page-next").await;
    let second = browser
        .wait_for(
            "const rows = [...document.querySelectorAll('tr[data-game]')]; return rows.length === 10 && [rows[0].dataset.game, rows[9].dataset.game, document.getElementById('lobby-status').textContent];",
            20,
        )
        .await;
    assert_eq!(second, json!(["110", "101", "games 51–60 of 60"]));
    // The scored game: a point per score; the exchange is not offered.
    browser.click("tr[data-game=\"101\"] a").await;
    browser
        .wait_for("return document.body.dataset.caughtUp", 20)
        .await;
    browser.open(&format!("http://{web}/#/game/160")).await;
    let game = browser
        .wait_for(
            "const e = document.getElementById('eval'); return document.body.dataset.caughtUp && document.querySelector('h1').textContent.startsWith('Game #160') && [e.hidden, document.querySelector('#eval svg').dataset.points, document.getElementById('exchange').hidden];",
            20,
        )
        .await;
    assert_eq!(game, json!([false, scored.to_string(), true]));
    let plain = browser
        .eval("return document.getElementById('eval').hidden", json!([]))
        .await;
    assert_eq!(plain, false);
    browser.screenshot("view-evaluation").await;
    assert_no_csp_violations(&browser, "anqi view").await;
    browser.quit().await;
    let _ = child.kill();
    let _ = child.wait();
}

/// A person moves a piece by the keyboard alone on `traditional-2x4`: Enter on the piece
/// chooses it, the focus stays on it across the redraw, and Enter on a cell it may go to
/// plays the move (flipping by Enter until a move is legal).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_person_moves_a_piece_by_the_keyboard() {
    let Some(browser) = Browser::start().await else {
        return;
    };
    let (mut server, web) =
        TestServer::start_watched("traditional-2x4", "[http]\nhumans = true\n").await;
    sit_down(&browser, &web, "random", "").await;
    let turn = "const s = document.getElementById('seat'); if (s.dataset.state !== 'playing') return ['over']; return s.dataset.synced === '1' && JSON.parse(s.dataset.actions);";
    let mut moved = None;
    for _ in 0..12 {
        let actions = browser.wait_for(turn, 20).await;
        if actions[0] == "over" {
            break;
        }
        let actions: Vec<String> = serde_json::from_value(actions).unwrap();
        let ply = browser
            .eval(
                "return Number(document.querySelector('svg.board').dataset.ply)",
                json!([]),
            )
            .await;
        if let Some(m) = actions.iter().find(|a| a.starts_with("(mov")) {
            let cells: Vec<usize> = m
                .trim_matches(|c| c == '(' || c == ')')
                .split(' ')
                .skip(1)
                .map(|n| n.parse().unwrap())
                .collect();
            let from = browser
                .find(&format!("svg.board g[data-cell=\"{}\"]", cells[0]))
                .await;
            browser.keys_to_element(&from, "\u{E007}").await;
            // Chosen: the focus is still on the piece, and its cell may go to is a button.
            let chosen = browser
                .eval(
                    "return [document.activeElement.dataset.cell, document.querySelector(`svg.board g[data-cell=\"${arguments[0]}\"]`).getAttribute('role')]",
                    json!([cells[1]]),
                )
                .await;
            assert_eq!(chosen, json!([cells[0].to_string(), "button"]));
            let to = browser
                .find(&format!("svg.board g[data-cell=\"{}\"]", cells[1]))
                .await;
            browser.keys_to_element(&to, "\u{E007}").await;
            moved = Some(m.clone());
            break;
        }
        let rev = actions.iter().find(|a| a.starts_with("(rev")).unwrap();
        let cell: usize = rev
            .trim_matches(|c| c == '(' || c == ')')
            .split(' ')
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        let g = browser
            .find(&format!("svg.board g[data-cell=\"{cell}\"]"))
            .await;
        browser.keys_to_element(&g, "\u{E007}").await;
        browser
            .wait_for(
                &format!("return Number(document.querySelector('svg.board').dataset.ply) > {ply}"),
                20,
            )
            .await;
    }
    let Some(moved) = moved else {
        // The game ended (or no move came in 12 turns) before a move was legal: nothing to
        // check, said so.
        eprintln!("a_person_moves_a_piece_by_the_keyboard: no move was legal in this game");
        server.stop().await;
        browser.quit().await;
        return;
    };
    browser
        .eval("window.confirm = () => true; return 1", json!([]))
        .await;
    browser
        .wait_for(
            "const s = document.getElementById('seat'); return s.dataset.state !== 'playing' || s.dataset.synced === '1';",
            20,
        )
        .await;
    let _ = browser
        .eval(
            "const r = document.getElementById('seat-resign'); if (r) r.click(); return 1",
            json!([]),
        )
        .await;
    let record = server.next_record().await;
    assert!(
        record
            .plies
            .iter()
            .any(|p| p.player == 1 && p.action == moved),
        "{moved} played: {:?}",
        record.plies.iter().map(|p| &p.action).collect::<Vec<_>>()
    );
    server.stop().await;
    browser.quit().await;
}

/// A person aborts from the seat's page before the first ply: the game ends with no result,
/// said once, and its record says aborted.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_person_aborts_from_the_page_before_the_first_ply() {
    let Some(browser) = Browser::start().await else {
        return;
    };
    let (mut server, web) =
        TestServer::start_watched("traditional", "[http]\nhumans = true\n").await;
    sit_down(&browser, &web, "greedy", "").await;
    browser.click("#seat-abort").await;
    let words = browser
        .wait_for(
            "const s = document.getElementById('seat'); return s.dataset.state === 'over' && document.getElementById('result').textContent && [document.getElementById('seat-words').textContent, document.getElementById('result').textContent, document.body.textContent.split('Aborted').length - 1];",
            20,
        )
        .await;
    assert_eq!(
        words,
        json!(["The game is over.", "Aborted: no result.", 1]),
        "said once"
    );
    let record = server.next_record().await;
    assert_eq!(record.result.reason.name(), "aborted");
    assert!(record.plies.is_empty());
    assert_no_csp_violations(&browser, "an abort").await;
    server.stop().await;
    browser.quit().await;
}
