//! The web pages audited for accessibility with axe-core (Deque's rules for WCAG 2.x, run in
//! the real page in headless Chromium: see `tests/common/webdriver.rs`): the lobby with a
//! finished and a running game and the form to play, a finished game's page, a live game's
//! page, a person's seat, and a tournament's standings. A violation whose impact is serious or
//! critical fails the test, every one listed (rule, impact, what it asks, the first elements);
//! the others are printed.
//!
//! axe-core comes from npm, into the project's own `target/axe/` (`test.sh` installs it when
//! missing: `npm install --prefix target/axe axe-core@4.10.3`); `ANQI_AXE=PATH` names another
//! `axe.min.js`. Without it (or without Chromium) the test says it was skipped, unless
//! `ANQI_BROWSER_TESTS=require` (CI sets it).
//!
//! `screenshots_for_the_readme` saves the lobby and a finished game's page, on a desktop's
//! screen and a phone's, into the folder `ANQI_SCREENSHOTS` names (nothing without it).

use crate::common::webdriver::Browser;
use crate::common::TestServer;
use crate::web::{gated_players, until_running, until_state, Gate};
use serde_json::{json, Value};
use std::path::PathBuf;

/// Where `test.sh` installs axe-core.
const AXE: &str = "target/axe/node_modules/axe-core/axe.min.js";

/// axe-core's script, or `None` (the test skipped) where it is not installed.
fn axe_source() -> Option<String> {
    let path = std::env::var_os("ANQI_AXE").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(AXE),
        PathBuf::from,
    );
    match std::fs::read_to_string(&path) {
        Ok(source) => Some(source),
        Err(e) => {
            let required = std::env::var("ANQI_BROWSER_TESTS").is_ok_and(|v| v == "require");
            assert!(
                !required,
                "ANQI_BROWSER_TESTS=require, but axe-core is missing: {}: {e} (./test.sh installs it: npm install --prefix target/axe axe-core@4.10.3)",
                path.display()
            );
            eprintln!(
                "accessibility audit SKIPPED: {} is missing ({e}); ./test.sh installs it with npm (npm install --prefix target/axe axe-core@4.10.3)",
                path.display()
            );
            None
        }
    }
}

/// Runs axe-core on the page shown: every violation as `[id, impact, help, [targets], why]`,
/// the targets the first three elements' selectors, `why` what axe-core says of the first
/// (a contrast's colours and ratio, say).
const RUN_AXE: &str = "
    const done = arguments[arguments.length - 1];
    axe.run(document, { resultTypes: ['violations'] }).then(
        (r) => done(r.violations.map((v) => [v.id, v.impact, v.help,
            v.nodes.slice(0, 3).map((n) => n.target.join(' ')),
            (v.nodes[0] && v.nodes[0].failureSummary || '').replace(/\\s+/g, ' ').slice(0, 240)])),
        (e) => done({ error: String(e) }));";

/// The violations of one page.
struct Audit {
    page: String,
    violations: Vec<Value>,
}

impl Audit {
    /// Those whose impact is serious or critical, one line each.
    fn serious(&self) -> Vec<String> {
        self.violations
            .iter()
            .filter(|v| v[1] == "serious" || v[1] == "critical")
            .map(|v| self.line(v))
            .collect()
    }

    fn line(&self, v: &Value) -> String {
        format!(
            "{}: {} ({}): {}; {} ({})",
            self.page,
            v[0].as_str().unwrap_or("?"),
            v[1].as_str().unwrap_or("?"),
            v[2].as_str().unwrap_or("?"),
            v[3],
            v[4].as_str().unwrap_or_default()
        )
    }
}

/// Audits the page shown (axe-core put into it first, by WebDriver, which the page's Content
/// Security Policy does not govern), as `page`.
async fn audit(browser: &Browser, axe: &str, page: &str) -> Audit {
    browser.eval(axe, json!([])).await;
    let found = browser.eval_async(RUN_AXE, json!([]), 60).await;
    let violations = found
        .as_array()
        .unwrap_or_else(|| panic!("{page}: axe-core ran: {found}"))
        .clone();
    let audit = Audit {
        page: page.to_string(),
        violations,
    };
    for v in &audit.violations {
        eprintln!("axe: {}", audit.line(v));
    }
    audit
}

/// A server of `traditional` games with the pages on and people seated: game 1 played to its
/// end, game 2 held running at its bots' fourth move. The server, the pages' address, and
/// game 2's gate and bots ([`finish`]).
async fn a_finished_and_a_running_game() -> (TestServer, String, Held) {
    let (mut server, web) = TestServer::start_watched(
        "traditional",
        "[http]\nhumans = true\n[referee]\nmax_plies = 160\n",
    )
    .await;
    let free = Gate::default();
    free.open();
    for b in gated_players(&server.addr(), 2, &free, usize::MAX) {
        b.await.unwrap();
    }
    server.next_record().await;
    until_state(&web, 1, "finished").await;
    let gate = Gate::default();
    let bots = gated_players(&server.addr(), 2, &gate, 4);
    gate.until_held().await;
    until_running(&web, 2).await;
    (server, web, (gate, bots))
}

/// A held game's gate and bots.
type Held = (Gate, Vec<tokio::task::JoinHandle<()>>);

/// Lets the held game play to its end.
async fn finish((gate, bots): Held) {
    gate.open();
    for b in bots {
        b.await.unwrap();
    }
}

/// Opens the lobby and waits until it lists game 1 finished and game 2 running.
async fn open_lobby(browser: &Browser, web: &str) {
    browser.open(&format!("http://{web}/")).await;
    browser
        .wait_for(
            "return document.querySelector('tr.running[data-game=\"2\"]') && document.querySelector('tr[data-game=\"1\"]')",
            20,
        )
        .await;
}

/// Opens game `game`'s page and waits until it has caught up (and, `finished`, shows its end).
async fn open_game(browser: &Browser, web: &str, game: u64, finished: bool) {
    browser.open(&format!("http://{web}/#/game/{game}")).await;
    let until = if finished {
        "return document.body.dataset.finished"
    } else {
        "return document.body.dataset.caughtUp"
    };
    browser.wait_for(until, 20).await;
}

/// Sits down from the lobby's form against anqi-bot random, and waits for the seat's page.
async fn sit_down(browser: &Browser, web: &str) {
    browser.open(&format!("http://{web}/")).await;
    browser
        .wait_for(
            "const p = document.getElementById('play'); return p && !p.hidden;",
            20,
        )
        .await;
    browser.clear("#play-name").await;
    browser.keys("#play-name", "auditor").await;
    browser
        .click("#play-against option[value=\"random\"]")
        .await;
    browser.click("#play-start").await;
    browser
        .wait_for(
            "const s = document.getElementById('seat'); return s && s.dataset.state;",
            20,
        )
        .await;
}

/// A tournament of two random bots on `traditional-2x4` with its pages on: the process and
/// the pages' address.
async fn a_tournament(dir: &crate::common::TempDir) -> (tokio::process::Child, String) {
    let bot = crate::common::bot_engine;
    let file = dir.0.join("t.toml");
    std::fs::write(
        &file,
        format!(
            "[tournament]\nvariant = \"traditional-2x4\"\nseed = \"audit\"\ndeals = 30\nconcurrency = 1\noutput = \"{}\"\nlogs = \"{}\"\n{}{}",
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
        .args(["--http", "127.0.0.1:0"])
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
    (event, web)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn no_page_has_a_serious_or_critical_accessibility_violation() {
    let Some(axe) = axe_source() else {
        return;
    };
    let Some(browser) = Browser::start().await else {
        return;
    };
    let mut audits = Vec::new();
    let (_server, web, held) = a_finished_and_a_running_game().await;
    open_lobby(&browser, &web).await;
    audits.push(audit(&browser, &axe, "the lobby").await);
    open_game(&browser, &web, 1, true).await;
    audits.push(audit(&browser, &axe, "a finished game").await);
    open_game(&browser, &web, 2, false).await;
    audits.push(audit(&browser, &axe, "a live game").await);
    sit_down(&browser, &web).await;
    audits.push(audit(&browser, &axe, "a person's seat").await);
    // The dark theme (the header's toggle, remembered by the browser) on the pages read most.
    browser
        .eval(
            "localStorage.setItem('anqi.dark', '1'); return 1",
            json!([]),
        )
        .await;
    open_lobby(&browser, &web).await;
    audits.push(audit(&browser, &axe, "the lobby, dark").await);
    open_game(&browser, &web, 1, true).await;
    audits.push(audit(&browser, &axe, "a finished game, dark").await);
    browser
        .eval("localStorage.removeItem('anqi.dark'); return 1", json!([]))
        .await;
    finish(held).await;
    let dir = crate::common::TempDir::new("audit-event");
    let (mut event, web) = a_tournament(&dir).await;
    browser.open(&format!("http://{web}/#/standings")).await;
    browser
        .wait_for(
            "return Number(document.body.dataset.finishedGames || 0)",
            60,
        )
        .await;
    audits.push(audit(&browser, &axe, "a tournament's standings").await);
    let _ = event.kill().await;
    browser.quit().await;
    let serious: Vec<String> = audits.iter().flat_map(Audit::serious).collect();
    assert!(
        serious.is_empty(),
        "{} serious or critical accessibility violations (axe-core):\n{}",
        serious.len(),
        serious.join("\n")
    );
}

/// The README's pictures: with `ANQI_SCREENSHOTS=DIR`, the lobby and a finished game's page
/// on a desktop's screen (1280 x 900) and a phone's (390 x 844), as `DIR/lobby-desktop.png`,
/// `DIR/game-desktop.png`, `DIR/lobby-phone.png` and `DIR/game-phone.png`. Without it, it
/// returns at once, saying so.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn screenshots_for_the_readme() {
    let Some(dir) = std::env::var_os("ANQI_SCREENSHOTS").map(PathBuf::from) else {
        eprintln!("screenshots_for_the_readme: ANQI_SCREENSHOTS=DIR is not set: no screenshots");
        return;
    };
    let Some(browser) = Browser::start().await else {
        return;
    };
    let (_server, web, held) = a_finished_and_a_running_game().await;
    for (screen, width, height) in [("desktop", 1280, 900), ("phone", 390, 844)] {
        browser.set_window_size(width, height).await;
        open_lobby(&browser, &web).await;
        browser
            .screenshot_to(&dir.join(format!("lobby-{screen}.png")))
            .await;
        open_game(&browser, &web, 1, true).await;
        browser
            .screenshot_to(&dir.join(format!("game-{screen}.png")))
            .await;
    }
    browser.quit().await;
    finish(held).await;
    eprintln!("screenshots_for_the_readme: saved in {}", dir.display());
}
