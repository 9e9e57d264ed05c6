//! The web pages in a real browser (headless Chromium through ChromeDriver: see
//! `tests/common/webdriver.rs`), against the real server and what it recorded: the lobby
//! lists a running game, a page opened mid-game catches up and follows it live, and the
//! board drawn after every ply of whole games of `traditional`, `cross`, `2v2` and
//! `strategic` is the one the record replays to, stepping back by key and forward by click.
//! Screenshots go to `target/browser/`.

use crate::common::webdriver::Browser;
use crate::common::TestServer;
use crate::web::{gated_players, until_running, Gate};
use anqi_core::view::{events_of_record, Event};
use serde_json::json;

/// The board as drawn: for each cell (in cell order) the letter on its face-up piece, `X` for
/// a face-down piece, `.` for none; then `@` and the ply shown.
const DRAWN: &str = "
    const cells = [...document.querySelectorAll('svg.board g[data-cell]')]
        .sort((a, b) => a.dataset.cell - b.dataset.cell);
    const board = cells.map((g) => {
        const c = g.querySelector('circle');
        if (!c) return '.';
        if (['down', 'dealt', 'open'].some((k) => c.classList.contains(k))) return 'X';
        return g.querySelector('text:not(.num)').textContent;
    }).join('');
    return board + '@' + document.querySelector('svg.board').dataset.ply;";

/// The face-down pieces drawn with the deal shown: cell -> letter.
const DEALT: &str = "
    return [...document.querySelectorAll('svg.board g[data-cell]')]
        .filter((g) => g.querySelector('circle.dealt'))
        .map((g) => [Number(g.dataset.cell), g.querySelector('text.dealt').textContent]);";

const LEFT: &str = "\u{E012}";

async fn watch_in_browser(browser: &Browser, variant: &str, hold_at: usize) {
    let players = anqi_core::rules::Variant::load(variant).unwrap().players;
    let (mut server, web) =
        TestServer::start_watched(variant, "[referee]\nmax_plies = 160\n").await;
    let gate = Gate::default();
    let bots = gated_players(&server.addr(), players, &gate, hold_at);
    until_running(&web, 1).await;
    // The lobby lists the running game; its link opens the game.
    browser.open(&format!("http://{web}/")).await;
    browser
        .wait_for(
            "return document.querySelector('tr.running[data-game=\"1\"]')",
            20,
        )
        .await;
    browser.click("tr[data-game=\"1\"] a").await;
    browser
        .wait_for("return document.body.dataset.caughtUp", 20)
        .await;
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
    // Back to the start, one ply at a time, by the left arrow key.
    let body = browser.find("body").await;
    for ply in (0..last).rev() {
        browser.keys_to_element(&body, LEFT).await;
        assert_eq!(
            drawn(browser.eval(DRAWN, json!([])).await),
            format!("{}@{ply}", boards[ply]),
            "{variant}: ply {ply}, stepping back"
        );
    }
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
    // Pieces as Chinese characters, and back to letters.
    browser.click("#last").await;
    browser.click("#chinese").await;
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
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_page_draws_every_ply_of_whole_games_as_the_record_replays_them() {
    let Some(browser) = Browser::start().await else {
        return;
    };
    // Traditional is opened mid-game (held before each bot's 20th move).
    watch_in_browser(&browser, "traditional", 20).await;
    for variant in ["cross", "2v2", "strategic"] {
        watch_in_browser(&browser, variant, 1).await;
    }
    browser.quit().await;
}
