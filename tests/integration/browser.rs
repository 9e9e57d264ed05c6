//! The web pages in a real browser (headless Chromium through ChromeDriver: see
//! `tests/common/webdriver.rs`), against the real server and what it recorded: the lobby
//! lists a running game, a page opened mid-game catches up and follows it live, and the
//! board drawn after every ply of whole games of `traditional`, `cross`, `2v2` and
//! `strategic` is the one the record replays to, stepping back by key and forward by click;
//! a tournament's standings page moves as its games finish, and stays up with the final
//! standings after its last game, every game linked; on a phone's screen the pages fit
//! and a live game never scrolls the window. Screenshots go to `target/browser/`.

use crate::common::webdriver::Browser;
use crate::common::TestServer;
use crate::web::{gated_players, until_running, Gate};
use anqi_core::rules::Termination;
use anqi_core::view::{events_of_record, Event};
use serde_json::json;

/// The board as drawn: for each cell (in cell order) the letter on its face-up piece (read
/// back from its Chinese character, the page's default, by the test's own table), `X` for a
/// face-down piece, `.` for none; then `@` and the ply shown.
const DRAWN: &str = "
    const letter = Object.fromEntries([...'帥仕相俥傌炮兵將士象車馬砲卒'].map((c, i) => [c, 'KGBRNCPkgbrncp'[i]]));
    const cells = [...document.querySelectorAll('svg.board g[data-cell]')]
        .sort((a, b) => a.dataset.cell - b.dataset.cell);
    const board = cells.map((g) => {
        const c = g.querySelector('circle');
        if (!c) return '.';
        if (['down', 'dealt', 'open'].some((k) => c.classList.contains(k))) return 'X';
        const t = g.querySelector('text:not(.num)').textContent;
        return letter[t] || t;
    }).join('');
    return board + '@' + document.querySelector('svg.board').dataset.ply;";

/// The face-down pieces drawn with the deal shown: cell -> letter (read back as in [`DRAWN`]).
const DEALT: &str = "
    const letter = Object.fromEntries([...'帥仕相俥傌炮兵將士象車馬砲卒'].map((c, i) => [c, 'KGBRNCPkgbrncp'[i]]));
    return [...document.querySelectorAll('svg.board g[data-cell]')]
        .filter((g) => g.querySelector('circle.dealt'))
        .map((g) => {
            const t = g.querySelector('text.dealt').textContent;
            return [Number(g.dataset.cell), letter[t] || t];
        });";

const LEFT: &str = "\u{E012}";

/// Asserts the page broke none of its own rules since the last look: no Content Security
/// Policy violation in the console (an inline style refused: the players' marks were never
/// coloured, 126 times a game).
pub(crate) async fn assert_no_csp_violations(browser: &Browser, what: &str) {
    let console = browser.console().await;
    let refused: Vec<&String> = console
        .iter()
        .filter(|m| m.contains("Content Security Policy"))
        .collect();
    assert!(
        refused.is_empty(),
        "{what}: {} refused: {refused:?}",
        refused.len()
    );
}

/// Opens the lobby and waits until it lists game 1 as running.
pub(crate) async fn open_lobby_listing_game_one(browser: &Browser, web: &str) {
    browser.open(&format!("http://{web}/")).await;
    browser
        .wait_for(
            "return document.querySelector('tr.running[data-game=\"1\"]')",
            20,
        )
        .await;
}

/// Follows the lobby's link to game 1 and waits until its page has caught up with the game.
pub(crate) async fn open_game_one_from_the_lobby(browser: &Browser) {
    browser.click("tr[data-game=\"1\"] a").await;
    browser
        .wait_for("return document.body.dataset.caughtUp", 20)
        .await;
}

async fn watch_in_browser(browser: &Browser, variant: &str, hold_at: usize) {
    let players = anqi_core::rules::Variant::load(variant).unwrap().players;
    let (mut server, web) =
        TestServer::start_watched(variant, "[referee]\nmax_plies = 160\n").await;
    let gate = Gate::default();
    let bots = gated_players(&server.addr(), players, &gate, hold_at);
    until_running(&web, 1).await;
    // The lobby lists the running game; its link opens the game.
    open_lobby_listing_game_one(browser, &web).await;
    open_game_one_from_the_lobby(browser).await;
    if hold_at > 1 {
        // Opened mid-game: what the README shows.
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        browser.screenshot(&format!("live-{variant}")).await;
    }
    gate.open();
    browser
        .wait_for("return document.body.dataset.finished", 60)
        .await;
    for b in bots {
        b.await.unwrap();
    }
    let record = server.next_record().await;
    let events = events_of_record(&record, false).unwrap();
    let mut boards = Vec::new();
    let mut deal = String::new();
    for e in &events {
        match e {
            Event::Setup(s) => boards.push(s.position.board.clone()),
            Event::Ply(p) => boards.push(p.position.board.clone()),
            Event::End(end) => deal = end.deal.clone(),
            Event::Fault(_) => {}
        }
    }
    let last = boards.len() - 1;
    let drawn = |v: serde_json::Value| v.as_str().unwrap().to_string();
    // Followed live to the end.
    assert_eq!(
        drawn(browser.eval(DRAWN, json!([])).await),
        format!("{}@{last}", boards[last]),
        "{variant}: the last ply, live"
    );
    browser.screenshot(&format!("finished-{variant}")).await;
    // The move list shows each ply's comment (player 1's bot comments its moves).
    let shown = browser
        .eval(
            "return [...document.querySelectorAll('.moves .comment')].map((e) => e.textContent);",
            json!([]),
        )
        .await;
    let said: Vec<String> = record
        .plies
        .iter()
        .filter_map(|p| p.comment.as_ref().map(|c| format!(" {{ {c} }}")))
        .collect();
    assert!(!said.is_empty(), "{variant}: player 1 commented");
    assert_eq!(
        shown,
        json!(said),
        "{variant}: the comments in the move list"
    );
    // Back to the start, one ply at a time: by the left arrow key for the last ten plies, then
    // by the back button, every ply drawn read in one script (a round trip to the browser per
    // ply was most of this test's time).
    let body = browser.find("body").await;
    let by_key = last.saturating_sub(10);
    for ply in (by_key..last).rev() {
        browser.keys_to_element(&body, LEFT).await;
        assert_eq!(
            drawn(browser.eval(DRAWN, json!([])).await),
            format!("{}@{ply}", boards[ply]),
            "{variant}: ply {ply}, stepping back by key"
        );
    }
    let stepped = browser
        .eval(
            &format!(
                "const drawn = () => {{ {DRAWN} }};
                 const back = document.getElementById('back');
                 const seen = [];
                 for (let i = 0; i < arguments[0]; i++) {{ back.click(); seen.push(drawn()); }}
                 return seen;"
            ),
            json!([by_key]),
        )
        .await;
    let expected: Vec<String> = (0..by_key)
        .rev()
        .map(|ply| format!("{}@{ply}", boards[ply]))
        .collect();
    assert_eq!(
        stepped,
        json!(expected),
        "{variant}: every ply, stepping back by the button"
    );
    // Forward again by clicks on the forward button, then to the end by the last one.
    let forward = browser.find("#forward").await;
    for (ply, board) in boards.iter().enumerate().take(last.min(10) + 1).skip(1) {
        browser.click_element(&forward).await;
        assert_eq!(
            drawn(browser.eval(DRAWN, json!([])).await),
            format!("{board}@{ply}"),
            "{variant}: ply {ply}, stepping forward"
        );
    }
    browser.click("#last").await;
    assert_eq!(
        drawn(browser.eval(DRAWN, json!([])).await),
        format!("{}@{last}", boards[last]),
        "{variant}: the last ply again"
    );
    // The whole deal: at the start, every face-down piece shows the piece dealt there.
    browser.click("#first").await;
    browser.click("#show-deal").await;
    let dealt = browser.eval(DEALT, json!([])).await;
    let dealt = dealt.as_array().unwrap();
    let face_down = boards[0].chars().filter(|&c| c == 'X').count();
    let bag_game = events
        .iter()
        .any(|e| matches!(e, Event::Setup(s) if s.start == "bag"));
    if !bag_game {
        assert_eq!(
            dealt.len(),
            face_down,
            "{variant}: every face-down piece shown"
        );
    }
    for d in dealt {
        let cell = d[0].as_u64().unwrap() as usize;
        assert_eq!(
            d[1].as_str().unwrap(),
            &deal[cell..=cell],
            "{variant}: cell {cell}"
        );
    }
    // Pieces as Chinese characters by default; letters as the option, and back.
    browser.click("#last").await;
    let face_up = "const t = document.querySelector('svg.board text.red:not(.dealt), svg.board text.black:not(.dealt)'); return t ? t.textContent : '';";
    let label = browser.eval(face_up, json!([])).await;
    let label = label.as_str().unwrap();
    assert!(
        !label.is_empty() && "帥仕相俥傌炮兵將士象車馬砲卒".contains(label),
        "{variant}: {label:?}"
    );
    browser.click("#chinese").await;
    let label = browser.eval(face_up, json!([])).await;
    assert!(
        label
            .as_str()
            .unwrap()
            .chars()
            .all(|c| c.is_ascii_alphabetic()),
        "{variant}: {label}"
    );
    browser.click("#chinese").await;
    server.stop().await;
}

/// One variant's whole game watched in a fresh browser: [`watch_in_browser`], then no Content
/// Security Policy violation. Each variant is a test of its own, so the four run side by side
/// (they wait on the browser more than on the processor).
async fn the_page_draws_every_ply_of(variant: &str, hold_at: usize) {
    let Some(browser) = Browser::start().await else {
        return;
    };
    watch_in_browser(&browser, variant, hold_at).await;
    assert_no_csp_violations(&browser, variant).await;
    browser.quit().await;
}

/// Traditional is opened mid-game (held before each bot's 20th move).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_page_draws_every_ply_of_traditional_opened_mid_game() {
    the_page_draws_every_ply_of("traditional", 20).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_page_draws_every_ply_of_cross() {
    the_page_draws_every_ply_of("cross", 1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_page_draws_every_ply_of_2v2() {
    the_page_draws_every_ply_of("2v2", 1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_page_draws_every_ply_of_strategic() {
    the_page_draws_every_ply_of("strategic", 1).await;
}

/// On a phone's screen (390 px wide): the lobby's table scrolls inside its box, not the page;
/// every button is a finger's size; and a game followed live never scrolls the window (every
/// ply scrolled it to the move list, below the board, and pulled the board off the screen),
/// while the move list keeps the last ply in view.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn on_a_phone_the_pages_fit_and_a_live_game_keeps_the_board_in_view() {
    let Some(browser) = Browser::start().await else {
        return;
    };
    let (mut server, web) =
        TestServer::start_watched("traditional", "[referee]\nmax_plies = 160\n").await;
    let gate = Gate::default();
    let bots = gated_players(&server.addr(), 2, &gate, 4);
    until_running(&web, 1).await;
    browser.set_window_size(390, 844).await;
    open_lobby_listing_game_one(&browser, &web).await;
    let width = browser.eval("return window.innerWidth", json!([])).await;
    assert!(width.as_u64().unwrap() <= 420, "a phone's width: {width}");
    let page = browser
        .eval(
            "return [document.documentElement.scrollWidth, window.innerWidth]",
            json!([]),
        )
        .await;
    assert!(
        page[0].as_u64() <= page[1].as_u64(),
        "the lobby is wider than the screen: {page}"
    );
    browser.screenshot("phone-lobby").await;
    open_game_one_from_the_lobby(&browser).await;
    let small = browser
        .eval(
            "return [...document.querySelectorAll('button')].filter((b) => b.offsetParent)
                .map((b) => b.getBoundingClientRect())
                .filter((r) => r.width < 44 || r.height < 44)
                .map((r) => `${r.width}x${r.height}`)",
            json!([]),
        )
        .await;
    assert_eq!(small, json!([]), "buttons smaller than 44x44 px");
    browser.eval("window.scrollTo(0, 0)", json!([])).await;
    gate.open();
    browser
        .wait_for("return document.body.dataset.finished", 60)
        .await;
    for b in bots {
        b.await.unwrap();
    }
    let record = server.next_record().await;
    assert!(
        record.plies.len() > 20,
        "a game long enough to fill the list"
    );
    let seen = browser
        .eval(
            "const list = document.querySelector('.moves'), cur = list.querySelector('.current');
             return [window.scrollY, list.scrollTop, cur.offsetTop - list.scrollTop,
                     list.clientHeight - cur.offsetHeight]",
            json!([]),
        )
        .await;
    assert_eq!(
        seen[0],
        json!(0),
        "the window scrolled while following: {seen}"
    );
    assert!(
        seen[1].as_f64().unwrap() > 0.0,
        "the list followed the plies: {seen}"
    );
    let (at, room) = (seen[2].as_f64().unwrap(), seen[3].as_f64().unwrap());
    assert!(
        (0.0..=room + 1.0).contains(&at),
        "the last ply is in the list's view: {seen}"
    );
    browser.screenshot("phone-finished").await;
    assert_no_csp_violations(&browser, "on a phone").await;
    browser.quit().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournaments_standings_page_moves_as_its_games_finish() {
    let Some(browser) = Browser::start().await else {
        return;
    };
    let dir = crate::common::TempDir::new("browser-event");
    let bot = crate::common::bot_engine;
    let file = dir.0.join("t.toml");
    std::fs::write(
        &file,
        format!(
            "[tournament]\nvariant = \"traditional-2x4\"\nseed = \"web\"\ndeals = 30\nconcurrency = 1\noutput = \"{}\"\nlogs = \"{}\"\n{}{}",
            dir.0.join("out.jsonl").display(),
            dir.0.join("logs").display(),
            bot("alpha"),
            bot("beta")
        ),
    )
    .unwrap();
    let mut event = tokio::process::Command::new(env!("CARGO_BIN_EXE_anqi"))
        .arg("tournament")
        .arg(&file)
        .args(["--http", "127.0.0.1:0", "--http-linger", "60"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stderr = tokio::io::BufReader::new(event.stderr.take().unwrap());
    let web = loop {
        let mut line = String::new();
        let n = tokio::io::AsyncBufReadExt::read_line(&mut stderr, &mut line)
            .await
            .unwrap();
        assert!(n > 0, "no web line");
        if let Some(addr) = line.trim().strip_prefix("web on http://") {
            break addr.trim_end_matches('/').to_string();
        }
    };
    tokio::spawn(async move { tokio::io::copy(&mut stderr, &mut tokio::io::sink()).await });
    browser.open(&format!("http://{web}/")).await;
    // The link appears on a tournament's pages once a game has finished; it opens the page.
    browser
        .wait_for(
            "const a = document.getElementById('standings-link'); return a && !a.hidden;",
            30,
        )
        .await;
    browser.click("#standings-link").await;
    let first = browser
        .wait_for(
            "return Number(document.body.dataset.finishedGames || 0)",
            30,
        )
        .await
        .as_u64()
        .unwrap();
    let later = browser
        .wait_for(
            &format!("const n = Number(document.body.dataset.finishedGames || 0); return n > {first} ? n : 0;"),
            60,
        )
        .await
        .as_u64()
        .unwrap();
    assert!(later > first);
    let shown = browser
        .eval(
            "return [document.getElementById('event-progress').value, document.getElementById('event-progress').max, document.getElementById('event-standings').textContent, document.getElementById('event-summary').textContent];",
            json!([]),
        )
        .await;
    assert!(shown[0].as_f64().unwrap() >= later as f64, "{shown}");
    assert_eq!(shown[1], 60, "{shown}");
    let table = shown[2].as_str().unwrap();
    assert!(table.contains("alpha") && table.contains("beta"), "{table}");
    assert!(
        shown[3].as_str().unwrap().contains("of 60 games"),
        "{shown}"
    );
    // An engine with fewer than 5 games has no Elo yet, as `anqi report` says.
    let rows = browser
        .eval(
            "return [...document.querySelectorAll('#event-table tbody tr')].map((r) => [Number(r.children[2].textContent), r.children[5].textContent]);",
            json!([]),
        )
        .await;
    for row in rows.as_array().unwrap() {
        let (games, elo) = (row[0].as_u64().unwrap(), row[1].as_str().unwrap());
        assert_eq!(games < 5, elo == "sample too small", "{rows}");
    }
    browser.screenshot("standings").await;
    // After the event's last game, its pages stay up with the final standings: a table of
    // the engines, and every game linked.
    let last = browser
        .wait_for(
            "return document.body.dataset.eventOver && document.querySelectorAll('#event-games li').length === 60 && [document.getElementById('event-heading').textContent, document.getElementById('event-summary').textContent, [...document.querySelectorAll('#event-table tbody tr')].map((r) => r.dataset.engine).sort(), [...document.querySelectorAll('#event-games li a')].map((a) => a.getAttribute('href'))];",
            120,
        )
        .await;
    assert_eq!(last[0], "Final standings", "{last}");
    assert!(
        last[1].as_str().unwrap().starts_with("60 of 60 games"),
        "{last}"
    );
    assert_eq!(last[2], json!(["alpha", "beta"]));
    let elo = browser
        .eval(
            "return [...document.querySelectorAll('#event-table tbody tr')].map((r) => r.children[5].textContent);",
            json!([]),
        )
        .await;
    assert!(
        elo.as_array()
            .unwrap()
            .iter()
            .all(|e| e != "sample too small"),
        "{elo}"
    );
    let links: Vec<String> = (1..=60).map(|n| format!("#/game/{n}")).collect();
    assert_eq!(last[3], json!(links));
    // A game's link from the final standings opens it.
    browser.click("#event-games li a[href=\"#/game/60\"]").await;
    browser
        .wait_for(
            "return document.body.dataset.finished && document.getElementById('result').textContent",
            20,
        )
        .await;
    browser.screenshot("final-standings-game").await;
    browser.quit().await;
    let _ = event.kill().await;
}

/// What the seat's page offers now, once it is the person's turn on the position shown:
/// `[ply shown, board shown, the legal actions]`; or the seat's end: `["over", words]`.
const SEAT_TURN: &str = "
    const seat = document.getElementById('seat');
    const svg = document.querySelector('svg.board');
    if (!seat || !svg) return null;
    if (seat.dataset.state === 'over' || seat.dataset.state === 'gone')
        return [seat.dataset.state, document.getElementById('seat-words').textContent];
    if (seat.dataset.synced !== '1' || Number(svg.dataset.ply) <= arguments[0]) return null;
    return [Number(svg.dataset.ply), svg.dataset.board, JSON.parse(seat.dataset.actions)];";

/// The person's choice: a capture if there is one, else a reveal, else a move picked by the
/// ply (deterministic, so that the game is reproduced by the same seeds).
fn choose(board: &[u8], actions: &[String], ply: u64) -> String {
    let cells = |a: &str| -> Vec<usize> {
        a.trim_matches(|c| c == '(' || c == ')')
            .split(' ')
            .skip(1)
            .filter_map(|w| w.parse().ok())
            .collect()
    };
    let capture = actions.iter().find(|a| {
        a.starts_with("(mov") && {
            let c = cells(a);
            board[c[1]] != b'.'
        }
    });
    if let Some(a) = capture {
        return a.clone();
    }
    if let Some(a) = actions.iter().find(|a| a.starts_with("(rev")) {
        return a.clone();
    }
    actions[(ply as usize * 7 + 3) % actions.len()].clone()
}

/// A person sits down from the lobby's form (name, bot, seat, seed) and plays a whole game by
/// clicking the board (and the bag's button); the record holds exactly their clicks. Returns
/// the record and the seat's last words.
async fn play_by_clicks(
    browser: &Browser,
    variant: &str,
    against: &str,
    seat: usize,
    seed: &str,
) -> (anqi_core::record::GameRecord, String) {
    // A fixed server seed, as a tournament's or a demo's: the bots' seeds are drawn afresh for
    // every game all the same (the person chooses nothing of them), so each run plays another
    // game.
    let (mut server, web) = TestServer::start_watched(
        variant,
        "[http]\nhumans = true\n[seed]\nserver = \"person\"\n",
    )
    .await;
    browser.open(&format!("http://{web}/")).await;
    browser
        .wait_for(
            "const p = document.getElementById('play'); return p && !p.hidden;",
            20,
        )
        .await;
    browser.clear("#play-name").await;
    browser.keys("#play-name", "tester").await;
    browser
        .click(&format!("#play-against option[value=\"{against}\"]"))
        .await;
    browser
        .click(&format!("#play-seat option[value=\"{seat}\"]"))
        .await;
    browser.keys("#play-seed", seed).await;
    browser.click("#play-start").await;
    browser
        .wait_for(
            "const s = document.getElementById('seat'); return s && s.dataset.state === 'playing';",
            20,
        )
        .await;
    let mut clicked = Vec::new();
    let mut shown_ply = -1i64;
    let mut tried_an_idle_click = false;
    let mut shot = false;
    let words = loop {
        let turn = browser.eval(SEAT_TURN, json!([shown_ply])).await;
        let Some(turn) = turn.as_array().cloned() else {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            continue;
        };
        if turn[0] == "over" || turn[0] == "gone" {
            break turn[1].as_str().unwrap().to_string();
        }
        shown_ply = turn[0].as_i64().unwrap();
        let board = turn[1].as_str().unwrap().as_bytes().to_vec();
        let actions: Vec<String> = turn[2]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_string())
            .collect();
        let action = choose(&board, &actions, shown_ply as u64);
        // A click on an empty cell that no action names does nothing (once).
        if !tried_an_idle_click {
            let named: Vec<usize> = actions.iter().flat_map(|a| cells_of(a)).collect();
            if let Some(empty) = (0..board.len()).find(|&c| board[c] == b'.' && !named.contains(&c))
            {
                browser
                    .click(&format!("svg.board g[data-cell=\"{empty}\"]"))
                    .await;
                tried_an_idle_click = true;
            }
        }
        if action == "(bag)" {
            browser.click("#seat-bag").await;
        }
        for (i, cell) in cells_of(&action).into_iter().enumerate() {
            browser
                .click(&format!("svg.board g[data-cell=\"{cell}\"]"))
                .await;
            if i == 0 && action.starts_with("(mov") {
                // The piece chosen: where it may go is marked, and nothing was sent yet.
                let targets = browser
                    .eval("return [...document.querySelectorAll('svg.board rect.target')].map((r) => Number(r.parentNode.dataset.cell));", json!([]))
                    .await;
                assert!(
                    targets
                        .as_array()
                        .unwrap()
                        .contains(&json!(cells_of(&action)[1])),
                    "{action}: {targets}"
                );
                if !shot && clicked.len() >= 10 {
                    shot = true;
                    browser
                        .screenshot(&format!("play-{variant}-choosing"))
                        .await;
                }
            }
        }
        clicked.push(action);
    };
    browser.screenshot(&format!("play-{variant}")).await;
    let record = server.next_record().await;
    assert_eq!(record.players[seat - 1].name, "tester");
    let bot = format!("{against}_bot");
    assert!(
        record
            .players
            .iter()
            .enumerate()
            .all(|(i, p)| i == seat - 1 || p.name == bot),
        "{:?}",
        record.players
    );
    // Every ply of the person is one of their clicks, in order.
    let mine: Vec<String> = record
        .plies
        .iter()
        .filter(|p| p.player == seat)
        .map(|p| p.action.clone())
        .collect();
    assert_eq!(
        mine, clicked,
        "{variant}: the person's plies are their clicks"
    );
    assert!(tried_an_idle_click, "{variant}");
    // The referee ruled nothing against the person, and the game ended by its rules.
    assert!(
        record.faults.iter().all(|f| f.player != seat),
        "{variant}: {:?}",
        record.faults
    );
    assert!(
        !matches!(
            record.result.reason,
            Termination::Aborted | Termination::Disconnect | Termination::Time
        ),
        "{variant}: {:?}",
        record.result
    );
    server.stop().await;
    (record, words)
}

/// The cells an action names: `(mov 4 5)` -> [4, 5], `(put K 7)` -> [7], `(bag)` -> [].
fn cells_of(action: &str) -> Vec<usize> {
    action
        .trim_matches(|c| c == '(' || c == ')')
        .split(' ')
        .skip(1)
        .filter_map(|w| w.parse().ok())
        .collect()
}

// A person's whole games, by clicks alone: three tests, each in a browser of its own, so that
// they run side by side.

/// Against anqi-bot random on traditional, as player 1: the page says who won.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_person_plays_a_whole_game_against_an_anqi_bot_by_clicks_alone() {
    let Some(browser) = Browser::start().await else {
        return;
    };
    let (record, words) = play_by_clicks(&browser, "traditional", "random", 1, "clicks1").await;
    assert_no_csp_violations(&browser, "a seat").await;
    let expected = match record.result.winner {
        0 => "Draw",
        1 => "You won",
        _ => "You lost",
    };
    assert!(
        words.starts_with(expected),
        "{words} for {:?}",
        record.result
    );
    browser.quit().await;
}

/// The strategic game's bag and puts, as player 2 against greedy.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_person_draws_from_the_bag_and_puts_by_clicks_alone() {
    let Some(browser) = Browser::start().await else {
        return;
    };
    let (record, words) = play_by_clicks(&browser, "strategic", "greedy", 2, "clicks2").await;
    assert!(record
        .plies
        .iter()
        .any(|p| p.player == 2 && p.action.starts_with("(put")));
    assert!(!words.is_empty());
    browser.quit().await;
}

/// A team of two (with a bot for a teammate) against two bots: the page says whose team won.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_person_plays_in_a_team_with_a_bot_by_clicks_alone() {
    let Some(browser) = Browser::start().await else {
        return;
    };
    let (record, words) = play_by_clicks(&browser, "2v2", "random", 3, "clicks3").await;
    let team = anqi_core::record::wire_team(&anqi_core::rules::Variant::load("2v2").unwrap(), 3);
    let expected = match (record.result.winner, record.result.winner_team) {
        (0, 0) => "Draw",
        (_, t) if t == team => "You won",
        _ => "You lost",
    };
    assert!(
        words.starts_with(expected),
        "{words} for {:?}",
        record.result
    );
    browser.quit().await;
}

/// A program waits over TCP; a person takes its seat from the lobby's "take the seat" button,
/// found before the lobby's next poll (the row is kept as its seconds count up, so the click
/// is not lost to the poll), and resigns: the record has both, the program first.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_person_takes_a_waiting_programs_seat_from_the_lobby() {
    let Some(browser) = Browser::start().await else {
        return;
    };
    let (mut server, web) =
        TestServer::start_watched("traditional-2x4", "[http]\nhumans = true\n").await;
    let addr = server.addr();
    let program = tokio::spawn(async move {
        let mut bot = anqi_client::RandomBot::new(5);
        anqi_client::play_game(&addr, "waiter", "w1", &mut bot, None).await
    });
    browser.open(&format!("http://{web}/")).await;
    let row = "const b = document.querySelector('#play .take-seat'); const row = b && b.parentElement.textContent;";
    let waiting = format!("{row} return row;");
    let before = browser.wait_for(&waiting, 20).await;
    assert!(
        before
            .as_str()
            .unwrap()
            .starts_with("waiter waits for a game"),
        "{before}"
    );
    let take = browser.find("#play .take-seat").await;
    browser.clear("#play-name").await;
    browser.keys("#play-name", "visitor").await;
    browser
        .wait_for(&format!("{row} return row && row !== {before};"), 20)
        .await;
    browser.click_element(&take).await;
    browser
        .wait_for(
            "const s = document.getElementById('seat'); return s && s.dataset.state === 'playing';",
            20,
        )
        .await;
    browser
        .eval(
            "window.confirm = () => true; document.getElementById('seat-resign').click(); return 1",
            json!([]),
        )
        .await;
    let record = server.next_record().await;
    let names: Vec<&str> = record.players.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["waiter", "visitor"]);
    assert_eq!(record.result.reason.name(), "resign");
    assert_eq!(record.result.loser, Some(2));
    program.await.unwrap().unwrap();
    browser.quit().await;
    server.stop().await;
}

/// A lobby row's link keeps the keyboard's focus as its game's plies count up (the row is
/// brought up to date in place, its link kept), and still opens the game.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_lobby_link_keeps_the_keyboards_focus_as_its_game_goes_on() {
    let Some(browser) = Browser::start().await else {
        return;
    };
    let (server, web) = TestServer::start_watched("traditional", "").await;
    let addr = server.addr();
    // Killed when dropped (before the server stops, or where the test fails).
    let bots = ["1", "2"].map(|seed| {
        crate::common::Killed(
            std::process::Command::new(crate::common::anqi_bot())
                .args(["--connect", &addr, "--strategy", "random", "--seed", seed])
                .args(["--think-ms", "100"])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap(),
        )
    });
    until_running(&web, 1).await;
    open_lobby_listing_game_one(&browser, &web).await;
    let row = "document.querySelector('tr[data-game=\"1\"]')";
    let link = browser.find("tr[data-game=\"1\"] a").await;
    let plies = browser
        .eval(
            &format!("{row}.querySelector('a').focus(); return {row}.children[4].textContent;"),
            json!([]),
        )
        .await;
    browser
        .wait_for(
            &format!("return {row}.children[4].textContent !== {plies};"),
            20,
        )
        .await;
    let focused = format!("return document.activeElement === {row}.querySelector('a');");
    assert_eq!(browser.eval(&focused, json!([])).await, true);
    browser.click_element(&link).await;
    browser
        .wait_for("return document.body.dataset.caughtUp", 20)
        .await;
    drop(bots);
    browser.quit().await;
    server.stop().await;
}
