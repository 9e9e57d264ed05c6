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
    let link_shown = browser
        .eval(
            "return !document.getElementById('ladder-link').hidden;",
            json!([]),
        )
        .await;
    assert_eq!(link_shown, json!(true));

    // A player's page, reached by its link: a point per rated game, every game, its opponent.
    browser
        .click("#ladder-table a[href='#/players/random-bot']")
        .await;
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
