//! A real browser for the tests: Debian's headless Chromium driven through its ChromeDriver,
//! over the W3C WebDriver protocol (plain HTTP and JSON, spoken here directly).
//!
//! `.ci/run` installs the packages `chromium` and `chromium-driver`. Where they are missing,
//! [`Browser::start`] returns `None` and the browser tests say they were skipped, unless
//! `ANQI_BROWSER_TESTS=require` (CI sets it), which makes a missing browser a failure.
#![allow(dead_code)]

use serde_json::{json, Value};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// One browser session and its driver process (ended when dropped).
pub struct Browser {
    driver: Child,
    port: u16,
    session: String,
    _profile: super::TempDir,
}

impl Browser {
    /// Starts ChromeDriver and a headless Chromium session, or `None` where they are not
    /// installed (panics instead with `ANQI_BROWSER_TESTS=require`).
    pub async fn start() -> Option<Browser> {
        if !Path::new(CHROMIUM).exists() || !Path::new(CHROMEDRIVER).exists() {
            let required = std::env::var("ANQI_BROWSER_TESTS").is_ok_and(|v| v == "require");
            assert!(
                !required,
                "ANQI_BROWSER_TESTS=require, but {CHROMIUM} or {CHROMEDRIVER} is missing (apt-get install chromium chromium-driver)"
            );
            eprintln!(
                "browser test SKIPPED: {CHROMIUM} and {CHROMEDRIVER} are needed (apt-get install chromium chromium-driver; .ci/run installs them)"
            );
            return None;
        }
        // A free port for the driver (it cannot be told to pick one).
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        // In a process group of its own, with the browser it starts: a test that fails
        // before it quits the session still ends them all (see `Drop`).
        let driver = Command::new(CHROMEDRIVER)
            .process_group(0)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let profile = super::TempDir::new("chromium-profile");
        let mut browser = Browser {
            driver,
            port,
            session: String::new(),
            _profile: profile,
        };
        // The driver takes a moment to listen.
        for _ in 0..100 {
            if TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        // Headless, and none of the background connections this machine's closed network
        // refuses (each start would try them).
        let args = [
            "--headless=new".to_string(),
            "--no-sandbox".into(),
            "--disable-gpu".into(),
            "--disable-dev-shm-usage".into(),
            "--no-first-run".into(),
            "--disable-background-networking".into(),
            "--disable-component-update".into(),
            "--disable-sync".into(),
            "--disable-quic".into(),
            "--window-size=1400,1000".into(),
            format!("--user-data-dir={}", browser._profile.0.display()),
        ];
        let answer = browser
            .call(
                "POST",
                "/session",
                json!({"capabilities": {"alwaysMatch": {
                    "browserName": "chrome",
                    "goog:chromeOptions": {"binary": CHROMIUM, "args": args},
                    // The console, for [`Browser::console`].
                    "goog:loggingPrefs": {"browser": "ALL"}
                }}}),
            )
            .await;
        browser.session = answer["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {answer}"))
            .to_string();
        Some(browser)
    }

    /// One WebDriver command: its `value`.
    async fn call(&self, method: &str, path: &str, body: Value) -> Value {
        let body = if body.is_null() {
            String::new()
        } else {
            body.to_string()
        };
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).await.unwrap();
        let request = format!(
            "{method} {path} HTTP/1.1\r\nhost: 127.0.0.1:{}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            self.port,
            body.len()
        );
        s.write_all(request.as_bytes()).await.unwrap();
        // The answer's length is in its head (the driver may keep the connection open).
        let read = async {
            let mut raw = Vec::new();
            let mut buf = [0u8; 65536];
            loop {
                let n = s.read(&mut buf).await.unwrap();
                assert!(n > 0, "the driver closed the connection mid-answer");
                raw.extend_from_slice(&buf[..n]);
                let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") else {
                    continue;
                };
                let head = String::from_utf8_lossy(&raw[..end]).to_ascii_lowercase();
                let length: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .map(|v| v.trim().parse().unwrap())
                    .unwrap_or_else(|| panic!("no content-length: {head}"));
                if raw.len() >= end + 4 + length {
                    return String::from_utf8_lossy(&raw[end + 4..end + 4 + length]).into_owned();
                }
            }
        };
        let body = tokio::time::timeout(Duration::from_secs(60), read)
            .await
            .unwrap_or_else(|_| panic!("the driver answers {method} {path} in time"));
        let body = body.as_str();
        let value: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"));
        if let Some(err) = value["value"].get("error") {
            panic!(
                "WebDriver {method} {path}: {err}: {}",
                value["value"]["message"]
            );
        }
        value["value"].clone()
    }

    fn at(&self, rest: &str) -> String {
        format!("/session/{}{rest}", self.session)
    }

    /// Sets the window to `width` x `height` CSS pixels (a phone: 390 x 844).
    pub async fn set_window_size(&self, width: u32, height: u32) {
        self.call(
            "POST",
            &self.at("/window/rect"),
            json!({ "width": width, "height": height }),
        )
        .await;
    }

    /// Opens `url`.
    pub async fn open(&self, url: &str) {
        self.call("POST", &self.at("/url"), json!({ "url": url }))
            .await;
    }

    /// Runs `script` (a function body; `arguments` are `args`) in the page: its return value.
    pub async fn eval(&self, script: &str, args: Value) -> Value {
        self.call(
            "POST",
            &self.at("/execute/sync"),
            json!({"script": script, "args": args}),
        )
        .await
    }

    /// Runs `script` (a function body whose last argument is the callback it calls with its
    /// result; the others are `args`) in the page, waiting up to `secs` seconds for the
    /// callback: its value. For a promise (`axe.run(...).then(done)`).
    pub async fn eval_async(&self, script: &str, args: Value, secs: u64) -> Value {
        self.call(
            "POST",
            &self.at("/timeouts"),
            json!({ "script": secs * 1000 }),
        )
        .await;
        self.call(
            "POST",
            &self.at("/execute/async"),
            json!({"script": script, "args": args}),
        )
        .await
    }

    /// Waits until `script` returns something truthy (up to `secs` seconds): its value.
    pub async fn wait_for(&self, script: &str, secs: u64) -> Value {
        let deadline = std::time::Instant::now() + Duration::from_secs(secs);
        loop {
            let v = self.eval(script, json!([])).await;
            if !(v.is_null() || v == false || v == "" || v == 0) {
                return v;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the page never had: {script}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The element `css` selects.
    pub async fn find(&self, css: &str) -> String {
        let v = self
            .call(
                "POST",
                &self.at("/element"),
                json!({"using": "css selector", "value": css}),
            )
            .await;
        v.as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("no element {css}: {v}"))
            .to_string()
    }

    /// Clicks the element `css` selects, as a person would.
    pub async fn click(&self, css: &str) {
        let id = self.find(css).await;
        self.click_element(&id).await;
    }

    /// Clicks the element `id` ([`Browser::find`]).
    pub async fn click_element(&self, id: &str) {
        self.call("POST", &self.at(&format!("/element/{id}/click")), json!({}))
            .await;
    }

    /// Types `keys` into the element `css` selects (WebDriver key codes: `\u{E012}` is the
    /// left arrow, `\u{E014}` the right one).
    pub async fn keys(&self, css: &str, keys: &str) {
        let id = self.find(css).await;
        self.keys_to_element(&id, keys).await;
    }

    /// Types `keys` into the element `id` ([`Browser::find`]).
    pub async fn keys_to_element(&self, id: &str, keys: &str) {
        self.call(
            "POST",
            &self.at(&format!("/element/{id}/value")),
            json!({ "text": keys }),
        )
        .await;
    }

    /// Empties the text field `css` selects.
    pub async fn clear(&self, css: &str) {
        let id = self.find(css).await;
        self.call("POST", &self.at(&format!("/element/{id}/clear")), json!({}))
            .await;
    }

    /// The browser console's messages since the last call (errors, warnings, logs), as
    /// Chromium writes them: a page's refused scripts and styles (its Content Security Policy)
    /// are there. Through ChromeDriver's log command.
    pub async fn console(&self) -> Vec<String> {
        let v = self
            .call("POST", &self.at("/se/log"), json!({"type": "browser"}))
            .await;
        v.as_array()
            .into_iter()
            .flatten()
            .map(|entry| format!("{}: {}", entry["level"], entry["message"]))
            .collect()
    }

    /// Saves a screenshot of the page as a PNG file under `target/browser/`; returns its path.
    pub async fn screenshot(&self, name: &str) -> PathBuf {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/browser");
        let path = dir.join(format!("{name}.png"));
        self.screenshot_to(&path).await;
        path
    }

    /// Saves a screenshot of the page (the window's size: [`Browser::set_window_size`]) as a
    /// PNG file at `path`, making its folder if need be (WebDriver's screenshot, base64 PNG).
    pub async fn screenshot_to(&self, path: &Path) {
        use base64::Engine;
        let v = self.call("GET", &self.at("/screenshot"), Value::Null).await;
        let png = base64::engine::general_purpose::STANDARD
            .decode(v.as_str().expect("a screenshot"))
            .unwrap();
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::write(path, png).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}

impl Browser {
    /// Ends the session (the driver closes the browser).
    pub async fn quit(self) {
        self.call("DELETE", &self.at(""), Value::Null).await;
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // The driver and every browser process it started (killing the driver alone leaves
        // Chromium running when a test fails before `quit`).
        if let Ok(pgid) = i32::try_from(self.driver.id()) {
            // SAFETY: kill(2) with a negative pid signals a process group; no memory is
            // involved.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
        let _ = self.driver.wait();
    }
}
