//! The ladder's pages in a real browser against what the ladder counted (issue 37): the
//! leaderboard (`#/ladder`) lists the accounts in the order and with the ratings of
//! `/api/ladder`, a player's page (`#/players/NAME`) plots a point of rating history per rated
//! game, lists every game and its opponents, and a game's link opens that game's page.

use crate::browser::assert_no_csp_violations;
use crate::common::webdriver::Browser;
use crate::common::TempDir;
use crate::ladder::{add, bot, serve, stop, until_rated};
use crate::web::get_json;
use serde_json::json;
use std::collections::BTreeMap;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_leaderboard_and_a_players_page_show_what_the_ladder_counted() {
    let Some(browser) = Browser::start().await else {
        return;
    };
    let dir = TempDir::new("ladder-pages");
    let db = dir.0.join("ladder.db");
    let (strong, weak) = (add(&db, "search-bot"), add(&db, "random-bot"));
    add(&db, "newcomer");
    let (server, addr, web) = serve(&dir.0, "traditional-2x4", &[]);
    let mut bots = vec![
        bot(&addr, &strong, &["search", "--depth", "2"], 6),
        bot(&addr, &weak, &["random"], 6),
    ];
    let board = until_rated(&web, 6, 60).await;
    for b in &mut bots {
        assert!(b.wait().unwrap().success());
    }

    // The leaderboard: the accounts in the API's order, with its ratings, the unrated last.
    browser.open(&format!("http://{web}/#/ladder")).await;
    browser
        .wait_for("return document.body.dataset.ladderGames === '6'", 20)
        .await;
    let rows = browser
        .eval(
            "return [...document.querySelectorAll('#ladder-table tbody tr')].map((r) => [r.dataset.player, r.cells[2].textContent]);",
            json!([]),
        )
        .await;
    let want: Vec<serde_json::Value> = board["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let shown = if p["rank"].is_null() {
                "unrated".to_string()
            } else {
                format!("{:.0}", p["rating"].as_f64().unwrap())
            };
            json!([p["name"], shown])
        })
        .collect();
    assert_eq!(rows, json!(want));
    assert_eq!(rows[2], json!(["newcomer", "unrated"]));
    // The nav's link is shown once the page has asked whether there is a ladder (its own
    // request, which may answer after the leaderboard's).
    browser
        .wait_for("return !document.getElementById('ladder-link').hidden;", 20)
        .await;

    // A player's page, reached by its link: a point per rated game, every game, its opponent.
    // The link is the one found before the next poll: a poll that brings the same rows keeps
    // them, so a click (or the keyboard's focus) is not lost to it.
    let link = browser
        .find("#ladder-table a[href='#/players/random-bot']")
        .await;
    let polls = browser
        .eval("return Number(document.body.dataset.polls)", json!([]))
        .await;
    browser
        .wait_for(
            &format!("return Number(document.body.dataset.polls) > {polls}"),
            20,
        )
        .await;
    browser.click_element(&link).await;
    browser
        .wait_for("return document.body.dataset.playerGames === '6'", 20)
        .await;
    let api = get_json(&web, "/api/players/random-bot").await;
    let page = browser
        .eval(
            "return { points: Number(document.querySelector('svg.rating-history').dataset.points),
                      games: [...document.querySelectorAll('#player-games li')].map((l) => Number(l.dataset.game)),
                      opponents: [...document.querySelectorAll('#player-opponents tbody th')].map((t) => t.textContent) };",
            json!([]),
        )
        .await;
    let games: Vec<u64> = api["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["game"].as_u64().unwrap())
        .collect();
    assert_eq!(page["points"], json!(6));
    assert_eq!(page["games"], json!(games));
    assert_eq!(page["opponents"], json!(["search-bot"]));

    // A game's link opens that game, played to its end.
    browser.click("#player-games li:first-child a").await;
    browser
        .wait_for("return document.body.dataset.finished === '1'", 20)
        .await;
    let hash = browser.eval("return location.hash;", json!([])).await;
    assert_eq!(hash, json!(format!("#/game/{}", games[0])));
    assert_no_csp_violations(&browser, "the ladder's pages").await;
    browser.quit().await;
    stop(server);
}

/// A person plays a rated game from the lobby as a guest (`[ladder] guests`), against a bot
/// waiting on the ladder, in a real browser: the form asks for a secret, none makes a guest,
/// the game is rated under the guest's name, and "play again" comes back as the same guest
/// (the browser keeps its secret).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_person_plays_a_rated_game_as_a_guest_from_the_lobby() {
    let Some(browser) = Browser::start().await else {
        return;
    };
    let dir = TempDir::new("ladder-guest-page");
    let db = dir.0.join("ladder.db");
    let waiting = add(&db, "waiting-bot");
    let config = dir.0.join("config.toml");
    std::fs::write(&config, "[http]\nhumans = true\n[ladder]\nguests = true\n").unwrap();
    let (server, addr, web) = serve(
        &dir.0,
        "traditional-2x4",
        &["--config", config.to_str().unwrap()],
    );
    let mut opponent = bot(&addr, &waiting, &["random"], 1);
    browser.open(&format!("http://{web}/#/")).await;
    browser
        .wait_for(
            "const s = document.getElementById('ladder-secret'); return s && s.value === '';",
            20,
        )
        .await;
    browser.click("#play-start").await;
    browser
        .wait_for(
            "const s = document.getElementById('seat'); return s && s.dataset.state === 'playing';",
            30,
        )
        .await;
    browser
        .eval("window.confirm = () => true; return 1", json!([]))
        .await;
    browser.click("#seat-resign").await;
    browser
        .wait_for(
            "return document.getElementById('seat').dataset.state === 'over';",
            20,
        )
        .await;
    assert!(opponent.wait().unwrap().success());
    let kept = browser
        .eval(
            "return localStorage.getItem('anqi.ladder-secret');",
            json!([]),
        )
        .await;
    assert!(
        kept.as_str().is_some_and(|s| s.starts_with("anqi-")),
        "{kept}"
    );

    // Rated under the guest's name, on the leaderboard as on the API.
    let board = until_rated(&web, 1, 30).await;
    let guest = board["players"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|p| p["name"].as_str().filter(|n| n.starts_with("guest-")))
        .unwrap_or_else(|| panic!("no guest on {board}"))
        .to_string();
    let page = get_json(&web, &format!("/api/players/{guest}")).await;
    assert_eq!(page["losses"], 1, "{page}");
    assert_eq!(page["games"][0]["opponent"], "waiting-bot", "{page}");
    browser.open(&format!("http://{web}/#/ladder")).await;
    browser
        .wait_for("return document.body.dataset.ladderGames === '1'", 20)
        .await;
    let listed = browser
        .eval(
            "return [...document.querySelectorAll('#ladder-table tbody tr')].map((r) => r.dataset.player);",
            json!([]),
        )
        .await;
    assert!(
        listed.as_array().unwrap().contains(&json!(guest)),
        "{listed}"
    );

    // "Play again" from the game's page: the same guest waits again.
    browser.eval("history.back(); return 1", json!([])).await;
    browser
        .wait_for("return !!document.getElementById('seat-again');", 20)
        .await;
    browser.click("#seat-again").await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let seats = get_json(&web, "/api/seats").await;
        if seats["waiting"][0]["name"] == json!(guest) {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{seats}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_no_csp_violations(&browser, "a guest's ladder game").await;
    browser.quit().await;
    stop(server);
}

/// A player with more games than a page holds (100): "older games" shows the rest, and
/// "newer games" (which takes the place the other had) goes back to the first page. The
/// games are put in the ladder's index directly (the pages read it): playing 101 would take a
/// minute.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_players_page_pages_through_more_than_a_hundred_games() {
    let Some(browser) = Browser::start().await else {
        return;
    };
    let dir = TempDir::new("ladder-paging");
    let db = dir.0.join("ladder.db");
    {
        let mut store = anqi_ladder::Store::open(&db).unwrap();
        let one = store.add_account("one", &[1; 32]).unwrap();
        let two = store.add_account("two", &[2; 32]).unwrap();
        let (ratings, counts) = (BTreeMap::new(), BTreeMap::new());
        for game_no in 1..=101 {
            let row = anqi_ladder::store::GameRow {
                server: "elsewhere".into(),
                game_no,
                variant: "traditional-2x4".into(),
                records: "games.jsonl".into(),
                started_unix_ms: 1_000 + game_no,
                first: one,
                second: two,
                score: None,
                termination: "aborted".into(),
                plies: 0,
            };
            store.add_game(&row, &ratings, &counts).unwrap();
        }
    }
    let (server, _, web) = serve(&dir.0, "traditional-2x4", &[]);
    browser.open(&format!("http://{web}/#/players/one")).await;
    let listed = |n: usize| {
        format!("return document.body.dataset.playerGames === '101' && document.querySelectorAll('#player-games li').length === {n};")
    };
    let buttons =
        "return [...document.querySelectorAll('#player-more button')].map((b) => b.textContent);";
    browser.wait_for(&listed(100), 20).await;
    assert_eq!(
        browser.eval(buttons, json!([])).await,
        json!(["older games"])
    );
    browser.click("#player-more button").await;
    browser.wait_for(&listed(1), 20).await;
    assert_eq!(
        browser.eval(buttons, json!([])).await,
        json!(["newer games"])
    );
    browser.click("#player-more button").await;
    browser.wait_for(&listed(100), 20).await;
    assert_eq!(
        browser.eval(buttons, json!([])).await,
        json!(["older games"])
    );
    browser.quit().await;
    stop(server);
}
