//! The time to a game's first board in a real browser, for BENCHMARKS.md (issue 36: "time to
//! first board"): a measurement, not a test of speed. Only with `ANQI_PAGE_TIMING=1`;
//! otherwise it returns at once, saying so.
//!
//! Games of about 75, 236, 406 and 762 plies (random bots on `traditional` under a ply cap)
//! are served by `anqi view`; each game's page is opened fresh (from `about:blank`) nine
//! times in headless Chromium, and the time from the navigation's start to the moment the page
//! has read the whole game and drawn its board (the page's `anqi-first-board` performance
//! mark, set once the feed has caught up) is printed, median and range.

use crate::common::webdriver::Browser;
use crate::common::TestServer;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn time_to_first_board() {
    if std::env::var_os("ANQI_PAGE_TIMING").is_none() {
        eprintln!("time_to_first_board: ANQI_PAGE_TIMING=1 is not set: nothing measured");
        return;
    }
    let Some(browser) = Browser::start().await else {
        return;
    };
    let dir = crate::common::TempDir::new("page-timing");
    let file = dir.0.join("games.jsonl");
    let mut lines = String::new();
    let mut plies = Vec::new();
    for (n, cap) in [75u32, 236, 406, 762].into_iter().enumerate() {
        // The longest of a few games under the cap (random games of traditional run long, but
        // may end before the cap: the printed figure says the plies).
        let mut server =
            TestServer::start("traditional", &format!("[referee]\nmax_plies = {cap}\n")).await;
        let mut best: Option<anqi_core::record::GameRecord> = None;
        for seed in 0..4 {
            for b in crate::common::random_bots(&server.addr(), 2, 100 + 10 * seed) {
                b.await.unwrap().unwrap();
            }
            let r = server.next_record().await;
            if best.as_ref().is_none_or(|b| r.plies.len() > b.plies.len()) {
                best = Some(r);
            }
        }
        server.stop().await;
        let mut r = best.unwrap();
        r.game = n as u64 + 1;
        plies.push(r.plies.len());
        lines.push_str(&serde_json::to_string(&r).unwrap());
        lines.push('\n');
    }
    std::fs::write(&file, lines).unwrap();
    let (mut child, web) = crate::common::spawn_view([&file], std::process::Stdio::null());
    for (i, n) in plies.iter().enumerate() {
        let game = i + 1;
        let mut times = Vec::new();
        for _ in 0..9 {
            browser.open("about:blank").await;
            browser.open(&format!("http://{web}/#/game/{game}")).await;
            let ms = browser
                .wait_for(
                    "const m = performance.getEntriesByName('anqi-first-board'); return m.length && m[0].startTime;",
                    20,
                )
                .await;
            times.push(ms.as_f64().unwrap());
        }
        times.sort_by(f64::total_cmp);
        eprintln!(
            "time to first board: game of {n} plies: median {:.0} ms (range {:.0}-{:.0} ms over 9 loads)",
            times[4], times[0], times[8]
        );
    }
    browser.quit().await;
    let _ = child.kill();
    let _ = child.wait();
}
