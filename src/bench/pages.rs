//! The web pages' load of S6 (`anqi bench-client --mode pages`): what a crowd, a poller or an
//! attacker does to the pages of a server playing games, from many loopback addresses
//! (127.0.0.2 up: the server counts each apart, as distinct machines).
//!
//! - `polling`: keep-alive connections each asking for a finished game's events again as soon
//!   as the last answer is read.
//! - `slowloris`: connections each sending a request's header a line a second and never
//!   ending it; one closed by the server is opened again 50 ms later.
//! - `crowd`: live feeds (WebSockets) on the running games, each watching one for up to 2 s
//!   (or to its end) and then another, as people click around a tournament's games.
//!
//! Besides, [`weigh`] measures what the page weighs on the wire (S6's `page weight` detail):
//! its files, the game list and a game's events, plain and gzipped, and a reload's 304s.
//!
//! The process runs at the lowest priority (nice 19): on one machine it stands for clients
//! elsewhere, and must not take the processors from the server it measures. It prints `ready
//! N` once its connections are open, keeps its load on until its stdin closes, then prints one
//! JSON line of what it saw.

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// Which load.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Load {
    Polling,
    Slowloris,
    Crowd,
}

/// What the load saw.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct PagesReport {
    /// Connections open when it said `ready`.
    pub ready: u64,
    /// Answers by status: 200, 429, 503, others; and connections the server closed.
    pub ok: u64,
    pub too_many: u64,
    pub busy: u64,
    pub other: u64,
    pub closed: u64,
    /// Live feeds opened, and events they read.
    pub feeds: u64,
    pub events: u64,
}

#[derive(Default)]
struct Counts {
    ready: AtomicU64,
    ok: AtomicU64,
    too_many: AtomicU64,
    busy: AtomicU64,
    other: AtomicU64,
    closed: AtomicU64,
    feeds: AtomicU64,
    events: AtomicU64,
}

impl Counts {
    fn status(&self, status: u16) {
        match status {
            200 | 101 => &self.ok,
            429 => &self.too_many,
            503 => &self.busy,
            _ => &self.other,
        }
        .fetch_add(1, Ordering::Relaxed);
    }

    fn report(&self) -> PagesReport {
        let n = |a: &AtomicU64| a.load(Ordering::Relaxed);
        PagesReport {
            ready: n(&self.ready),
            ok: n(&self.ok),
            too_many: n(&self.too_many),
            busy: n(&self.busy),
            other: n(&self.other),
            closed: n(&self.closed),
            feeds: n(&self.feeds),
            events: n(&self.events),
        }
    }
}

/// The `i`th of `addresses` loopback source addresses: 127.0.0.2 and up.
pub fn source(i: usize, addresses: usize) -> std::net::IpAddr {
    let k = (i % addresses.max(1)) as u32 + 2;
    std::net::Ipv4Addr::from(0x7f00_0000 + k).into()
}

/// A connection to `web` from `from`.
pub async fn connect_from(web: SocketAddr, from: std::net::IpAddr) -> std::io::Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    socket.bind(SocketAddr::new(from, 0))?;
    let stream = socket.connect(web).await?;
    stream.set_nodelay(true)?;
    Ok(stream)
}

/// Reads one HTTP answer (head and `content-length` body): its status.
pub async fn read_answer(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Result<u16> {
    buf.clear();
    let mut chunk = [0u8; 16 * 1024];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = stream.read(&mut chunk).await?;
        anyhow::ensure!(n > 0, "closed");
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
    let status = head.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length: "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0);
    let mut have = buf.len() - head_end;
    while have < length {
        let n = stream.read(&mut chunk).await?;
        anyhow::ensure!(n > 0, "closed");
        have += n;
    }
    Ok(status)
}

/// Runs the load on `web` until stdin closes.
///
/// # Errors
/// When the address does not parse or the runtime cannot start.
pub fn run(web: &str, load: Load, connections: usize, addresses: usize, game: u64) -> Result<()> {
    // Below the server it measures: a stand-in for clients elsewhere.
    let _ = anqi_server::sys::set_thread_nice(19);
    let web: SocketAddr = web.parse().context("--web HOST:PORT")?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let counts = Arc::new(Counts::default());
    let stop = Arc::new(AtomicBool::new(false));
    rt.block_on(async {
        let mut tasks = tokio::task::JoinSet::new();
        let games = Arc::new(std::sync::Mutex::new(Vec::<u64>::new()));
        if load == Load::Crowd {
            tasks.spawn(follow_running(web, games.clone(), stop.clone()));
            // The first list before the feeds start.
            for _ in 0..100 {
                if !games.lock().unwrap().is_empty() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
        for i in 0..connections {
            let from = source(i, addresses);
            let (counts, stop, games) = (counts.clone(), stop.clone(), games.clone());
            match load {
                Load::Polling => tasks.spawn(poll(web, from, game, counts, stop)),
                Load::Slowloris => tasks.spawn(trickle(web, from, counts, stop)),
                Load::Crowd => tasks.spawn(watch(web, from, games, counts, stop, i as u64)),
            };
        }
        // Ready once every connection has been opened once.
        for _ in 0..600 {
            if counts.ready.load(Ordering::Relaxed) >= connections as u64 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        println!("ready {}", counts.ready.load(Ordering::Relaxed));
        std::io::Write::flush(&mut std::io::stdout())?;
        tokio::task::spawn_blocking(|| {
            let mut rest = Vec::new();
            std::io::Read::read_to_end(&mut std::io::stdin(), &mut rest)
        })
        .await??;
        stop.store(true, Ordering::Relaxed);
        tasks.abort_all();
        while tasks.join_next().await.is_some() {}
        anyhow::Ok(())
    })?;
    println!("{}", serde_json::to_string(&counts.report())?);
    Ok(())
}

/// Asks for game `game`'s events again and again on one keep-alive connection.
async fn poll(
    web: SocketAddr,
    from: std::net::IpAddr,
    game: u64,
    counts: Arc<Counts>,
    stop: Arc<AtomicBool>,
) {
    let request = format!("GET /api/games/{game} HTTP/1.1\r\nhost: {web}\r\n\r\n");
    let mut buf = Vec::new();
    let mut first = true;
    while !stop.load(Ordering::Relaxed) {
        let Ok(mut stream) = connect_from(web, from).await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        if std::mem::take(&mut first) {
            counts.ready.fetch_add(1, Ordering::Relaxed);
        }
        loop {
            if stream.write_all(request.as_bytes()).await.is_err() {
                break;
            }
            match read_answer(&mut stream, &mut buf).await {
                Ok(status) => counts.status(status),
                Err(_) => break,
            }
        }
        counts.closed.fetch_add(1, Ordering::Relaxed);
    }
}

/// Opens a connection and sends a request's header a line a second, never ending it; opens
/// another when the server closes it.
async fn trickle(
    web: SocketAddr,
    from: std::net::IpAddr,
    counts: Arc<Counts>,
    stop: Arc<AtomicBool>,
) {
    let mut first = true;
    while !stop.load(Ordering::Relaxed) {
        if let Ok(mut stream) = connect_from(web, from).await {
            if std::mem::take(&mut first) {
                counts.ready.fetch_add(1, Ordering::Relaxed);
            }
            let head = format!("GET /api/games HTTP/1.1\r\nhost: {web}\r\n");
            let mut line = 0u64;
            let mut buf = [0u8; 1024];
            let mut ok = stream.write_all(head.as_bytes()).await.is_ok();
            while ok && !stop.load(Ordering::Relaxed) {
                // A line a second, and the server's answer (a refusal, or its close) read.
                match tokio::time::timeout(Duration::from_secs(1), stream.read(&mut buf)).await {
                    Ok(Ok(0) | Err(_)) => break,
                    Ok(Ok(n)) => {
                        let text = String::from_utf8_lossy(&buf[..n]);
                        if let Some(status) = text.get(9..12).and_then(|s| s.parse().ok()) {
                            counts.status(status);
                        }
                        break;
                    }
                    Err(_) => {
                        line += 1;
                        ok = stream
                            .write_all(format!("x-slow-{line}: 1\r\n").as_bytes())
                            .await
                            .is_ok();
                    }
                }
            }
            counts.closed.fetch_add(1, Ordering::Relaxed);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Keeps `games` to the running games' numbers (`GET /api/games?state=running`).
async fn follow_running(
    web: SocketAddr,
    games: Arc<std::sync::Mutex<Vec<u64>>>,
    stop: Arc<AtomicBool>,
) {
    // An address of its own: the list is not the load.
    let from = std::net::Ipv4Addr::new(127, 0, 0, 240).into();
    let request = format!(
        "GET /api/games?state=running HTTP/1.1\r\nhost: {web}\r\nconnection: close\r\n\r\n"
    );
    while !stop.load(Ordering::Relaxed) {
        if let Ok(mut stream) = connect_from(web, from).await {
            let mut raw = Vec::new();
            if stream.write_all(request.as_bytes()).await.is_ok()
                && stream.read_to_end(&mut raw).await.is_ok()
            {
                let text = String::from_utf8_lossy(&raw);
                if let Some((_, body)) = text.split_once("\r\n\r\n") {
                    if let Ok(v) = serde_json::from_str::<serde_json::Value>(body) {
                        let running: Vec<u64> = v["games"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(|g| g["game"].as_u64())
                            .collect();
                        if !running.is_empty() {
                            *games.lock().unwrap() = running;
                        }
                    }
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// Watches a running game's live feed for up to 2 s (or to its end), then another.
async fn watch(
    web: SocketAddr,
    from: std::net::IpAddr,
    games: Arc<std::sync::Mutex<Vec<u64>>>,
    counts: Arc<Counts>,
    stop: Arc<AtomicBool>,
    mut pick: u64,
) {
    use futures_util::StreamExt;
    let mut first = true;
    while !stop.load(Ordering::Relaxed) {
        let game = {
            let games = games.lock().unwrap();
            if games.is_empty() {
                None
            } else {
                pick = pick
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                Some(games[(pick >> 33) as usize % games.len()])
            }
        };
        let Some(game) = game else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        let Ok(stream) = connect_from(web, from).await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let url = format!("ws://{web}/api/games/{game}/live");
        match tokio_tungstenite::client_async(url, stream).await {
            Ok((mut feed, _)) => {
                counts.status(101);
                counts.feeds.fetch_add(1, Ordering::Relaxed);
                if std::mem::take(&mut first) {
                    counts.ready.fetch_add(1, Ordering::Relaxed);
                }
                let watch_for = Duration::from_secs(2) + Duration::from_millis(pick % 1000);
                let until = tokio::time::Instant::now() + watch_for;
                loop {
                    match tokio::time::timeout_at(until, feed.next()).await {
                        Ok(Some(Ok(_))) => {
                            counts.events.fetch_add(1, Ordering::Relaxed);
                        }
                        Ok(_) => break,
                        Err(_) => break,
                    }
                }
                counts.closed.fetch_add(1, Ordering::Relaxed);
            }
            Err(tokio_tungstenite::tungstenite::Error::Http(answer)) => {
                counts.status(answer.status().as_u16());
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(_) => {
                counts.closed.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

/// A fresh visitor: every 100 ms, a new connection from an address of its own (127.0.0.250)
/// asks for the game list, and counts whether it got 200 within 2 s. It runs in the bench's
/// own process, at the usual priority: a person's browser, not the load.
pub struct Visitor {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<Result<Visited>>,
}

/// What the visitor got.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Visited {
    pub tries: u64,
    /// Answered 200 within 2 s.
    pub ok: u64,
    /// The slowest answer (200 or not), in ms.
    pub slowest_ms: f64,
    /// The statuses of the others (0: no answer in time, or the connection failed).
    pub failures: Vec<u16>,
}

impl Visited {
    /// The share of tries answered 200 in time, in percent.
    pub fn percent_ok(&self) -> f64 {
        if self.tries == 0 {
            return 0.0;
        }
        (self.ok as f64 * 1000.0 / self.tries as f64).round() / 10.0
    }
}

/// How long a visitor waits for an answer.
const VISIT_WAIT: Duration = Duration::from_secs(2);

impl Visitor {
    /// Starts visiting `web` until [`Visitor::finish`].
    ///
    /// # Errors
    /// When the address does not parse or the thread cannot start.
    pub fn start(web: &str) -> Result<Visitor> {
        let web: SocketAddr = web.parse().context("the pages' address")?;
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let thread = std::thread::Builder::new()
            .name("S6 visitor".into())
            .spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()?;
                rt.block_on(async move {
                    let from = std::net::Ipv4Addr::new(127, 0, 0, 250).into();
                    let request = format!(
                        "GET /api/games HTTP/1.1\r\nhost: {web}\r\nconnection: close\r\n\r\n"
                    );
                    let mut seen = Visited::default();
                    let mut buf = Vec::new();
                    while !stopped.load(Ordering::Relaxed) {
                        let started = std::time::Instant::now();
                        let visit = async {
                            let mut stream = connect_from(web, from).await?;
                            stream.write_all(request.as_bytes()).await?;
                            read_answer(&mut stream, &mut buf).await
                        };
                        let status = match tokio::time::timeout(VISIT_WAIT, visit).await {
                            Ok(Ok(status)) => status,
                            _ => 0,
                        };
                        let took = started.elapsed();
                        seen.tries += 1;
                        seen.slowest_ms = seen.slowest_ms.max(took.as_secs_f64() * 1e3);
                        if status == 200 {
                            seen.ok += 1;
                        } else {
                            seen.failures.push(status);
                        }
                        tokio::time::sleep(Duration::from_millis(100).saturating_sub(took)).await;
                    }
                    Ok(seen)
                })
            })?;
        Ok(Visitor { stop, thread })
    }

    /// Stops visiting: what it got.
    ///
    /// # Errors
    /// When the visitor's thread failed.
    pub fn finish(self) -> Result<Visited> {
        self.stop.store(true, Ordering::Relaxed);
        self.thread
            .join()
            .map_err(|_| anyhow::anyhow!("the visitor's thread panicked"))?
    }
}

/// What the pages weigh on the wire (S6's page weight), measured on a server whose games
/// have finished: the page (`/` and every file it names), the game list, and the longest
/// finished game's events, each asked for plainly and with `Accept-Encoding: gzip`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Weight {
    /// The page's files: how many, their bytes, gzipped, and what a reload costs when every
    /// file is answered 304 (whole answers, heads included).
    pub files: usize,
    pub page_bytes: usize,
    pub page_gzip_bytes: usize,
    pub reload_bytes: usize,
    /// The game list (every game the server lists): how many games it holds, its bytes, the
    /// median time to its answer plain and gzipped (gzipped as it goes), and a lobby's page of
    /// 50 games (`?limit=50`), gzipped.
    pub list_games: usize,
    pub list_bytes: usize,
    pub list_gzip_bytes: usize,
    pub list_ms: f64,
    pub list_gzip_ms: f64,
    pub list_page_gzip_bytes: usize,
    /// The longest finished game's events (`GET /api/games/{id}`): its plies, its bytes, the
    /// median time to the whole answer, plain and gzipped, over `TIMED` asks each, and the
    /// time to the first gzipped answer (which makes the gzip the others are sent).
    pub game_plies: u64,
    pub game_bytes: usize,
    pub game_gzip_bytes: usize,
    pub game_ms: f64,
    pub game_gzip_ms: f64,
    pub game_gzip_first_ms: f64,
}

/// How many times each of the game's answers is timed.
const TIMED: usize = 9;

/// One answer: its whole length on the wire, its head, and its body (chunks joined).
struct Got {
    wire: usize,
    head: String,
    body: Vec<u8>,
}

impl Got {
    fn field(&self, name: &str) -> Option<&str> {
        self.head
            .lines()
            .filter_map(|l| l.split_once(':'))
            .find(|(n, _)| n.trim().eq_ignore_ascii_case(name))
            .map(|(_, v)| v.trim())
    }
}

/// `GET path` on a fresh connection (`connection: close`), with the header lines `extra`;
/// asked again a second later when refused for the pages' request rate (429: the server's
/// limits are the shipped ones, 100 requests a second from an address).
fn fetch(web: &str, path: &str, extra: &str) -> Result<Got> {
    for _ in 0..5 {
        let got = fetch_once(web, path, extra)?;
        if !got.head.starts_with("HTTP/1.1 429") {
            anyhow::ensure!(
                got.head.starts_with("HTTP/1.1 200") || got.head.starts_with("HTTP/1.1 304"),
                "{path}: {}",
                got.head
            );
            return Ok(got);
        }
        std::thread::sleep(Duration::from_secs(1));
    }
    anyhow::bail!("{path}: refused for the request rate five times")
}

fn fetch_once(web: &str, path: &str, extra: &str) -> Result<Got> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(web)?;
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nhost: {web}\r\n{extra}connection: close\r\n\r\n"
    )?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw)?;
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .context("an answer's head")?;
    let head = String::from_utf8_lossy(&raw[..end]).into_owned();
    let mut got = Got {
        wire: raw.len(),
        head,
        body: raw[end + 4..].to_vec(),
    };
    if got.field("transfer-encoding") == Some("chunked") {
        let (mut body, mut rest) = (Vec::new(), &got.body[..]);
        while let Some(line) = rest.windows(2).position(|w| w == b"\r\n") {
            let size = usize::from_str_radix(std::str::from_utf8(&rest[..line])?.trim(), 16)?;
            if size == 0 || rest.len() < line + 2 + size {
                break;
            }
            body.extend_from_slice(&rest[line + 2..line + 2 + size]);
            rest = &rest[(line + 4 + size).min(rest.len())..];
        }
        got.body = body;
    }
    Ok(got)
}

const GZIP: &str = "accept-encoding: gzip, deflate, br\r\n";

/// `path`'s answers, plain and gzipped (checked to be gzipped).
fn both(web: &str, path: &str) -> Result<(Got, Got)> {
    let plain = fetch(web, path, "")?;
    let zipped = fetch(web, path, GZIP)?;
    anyhow::ensure!(
        zipped.field("content-encoding") == Some("gzip"),
        "{path} is not gzipped: {}",
        zipped.head
    );
    Ok((plain, zipped))
}

/// `path`'s body bytes, plain and gzipped.
fn sizes(web: &str, path: &str) -> Result<(usize, usize)> {
    let (plain, zipped) = both(web, path)?;
    Ok((plain.body.len(), zipped.body.len()))
}

/// The median time to `path`'s whole answer, in ms, with the header lines `extra` (after a
/// second's pause: the request rate's bucket full again, no answer waits for it).
fn timed(web: &str, path: &str, extra: &str) -> Result<f64> {
    std::thread::sleep(Duration::from_secs(1));
    let mut ms = Vec::with_capacity(TIMED);
    for _ in 0..TIMED {
        let started = std::time::Instant::now();
        fetch(web, path, extra)?;
        ms.push(started.elapsed().as_secs_f64() * 1e3);
    }
    ms.sort_by(f64::total_cmp);
    Ok((ms[TIMED / 2] * 100.0).round() / 100.0)
}

/// Weighs the pages of the server at `web` (`HOST:PORT`), once its games have finished.
///
/// # Errors
/// When an answer does not come, is not 200, or is not gzipped when asked to be.
pub fn weigh(web: &str) -> Result<Weight> {
    let mut w = Weight::default();
    let index = String::from_utf8(fetch(web, "/", "")?.body)?;
    let mut paths = vec!["/".to_string()];
    for quote in index.split("=\"/assets/").skip(1) {
        let name = quote.split('"').next().unwrap_or_default();
        paths.push(format!("/assets/{name}"));
    }
    for path in &paths {
        let (plain, zipped) = both(web, path)?;
        w.page_bytes += plain.body.len();
        w.page_gzip_bytes += zipped.body.len();
        let tag = plain.field("etag").context("an etag")?;
        let again = fetch(web, path, &format!("{GZIP}if-none-match: {tag}\r\n"))?;
        anyhow::ensure!(
            again.head.starts_with("HTTP/1.1 304"),
            "{path}: {}",
            again.head
        );
        w.reload_bytes += again.wire;
    }
    w.files = paths.len();
    let list: serde_json::Value = serde_json::from_slice(&fetch(web, "/api/games", "")?.body)?;
    let games = list["games"].as_array().context("the game list")?;
    w.list_games = games.len();
    (w.list_bytes, w.list_gzip_bytes) = sizes(web, "/api/games")?;
    w.list_ms = timed(web, "/api/games", "")?;
    w.list_gzip_ms = timed(web, "/api/games", GZIP)?;
    w.list_page_gzip_bytes = sizes(web, "/api/games?limit=50")?.1;
    let longest = games
        .iter()
        .filter(|g| g["state"] == "finished")
        .max_by_key(|g| g["ply"].as_u64())
        .context("a finished game")?;
    w.game_plies = longest["ply"].as_u64().unwrap_or(0);
    let path = format!("/api/games/{}", longest["game"]);
    // The first gzipped answer makes the gzip (kept for the next ones).
    std::thread::sleep(Duration::from_secs(1));
    let started = std::time::Instant::now();
    fetch(web, &path, GZIP)?;
    w.game_gzip_first_ms = (started.elapsed().as_secs_f64() * 1e5).round() / 100.0;
    (w.game_bytes, w.game_gzip_bytes) = sizes(web, &path)?;
    w.game_ms = timed(web, &path, "")?;
    w.game_gzip_ms = timed(web, &path, GZIP)?;
    Ok(w)
}

impl Weight {
    /// One line for the report's log (the weights are details of S6, not figures: they have
    /// no target, and they change with the page rather than with the server's speed).
    pub fn describe(&self) -> String {
        let kb = |bytes: usize| format!("{:.1} KB", bytes as f64 / 1000.0);
        format!(
            "S6 page weight: the page ({} files) {} plain, {} gzipped, a reload (every file 304) {}; the list of {} games {} plain, {} gzipped, answered in {} ms plain, {} ms gzipped, a page of 50 {} gzipped; a game of {} plies {} plain, {} gzipped, answered in {} ms plain, {} ms gzipped (median of {TIMED}; the first, which gzips it, {} ms)",
            self.files,
            kb(self.page_bytes),
            kb(self.page_gzip_bytes),
            kb(self.reload_bytes),
            self.list_games,
            kb(self.list_bytes),
            kb(self.list_gzip_bytes),
            self.list_ms,
            self.list_gzip_ms,
            kb(self.list_page_gzip_bytes),
            self.game_plies,
            kb(self.game_bytes),
            kb(self.game_gzip_bytes),
            self.game_ms,
            self.game_gzip_ms,
            self.game_gzip_first_ms,
        )
    }
}
