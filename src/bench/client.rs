//! The bench client, `anqi bench-client`: a process of its own, so that the server's figures
//! are the server's. It replays [`Script`]s (no move generation on its hot path) and reads the
//! server's lines by their clause names alone (no parsing beyond that).
//!
//! Modes:
//! - `latency` (S1): one game at a time; each ply is timed from sending the action to having
//!   the next message of every player (the next prompt and the other players' `info`), and is
//!   followed at once by its ping-pong with the echo server (the same bytes, on a connection of
//!   the same player), so both figures come from one process under the same conditions: ply
//!   by ply in turn, both servers wait alike between uses (alternating whole games instead
//!   let one of them stay busy, and the other's figure swung between two regimes).
//! - `load` (S2, S4): many games at once, each seated in turn (so that the server's
//!   seat-by-arrival order pairs each game's connections as planned) and then played by a task
//!   of its own; against the echo server, the same plies as ping-pongs on the same number of
//!   connections. With `--think-ms`, each player sleeps a random time before each action and
//!   compares the time it measured with what the server charged (the `clock` extension).
//! - `idle` (S3): opens connections and holds them, doing nothing after the greeting.
//! - `seated` (S3): seats games and holds them, nobody moving.
//! - `pages` (S6): a load on the web pages (`pages`): pollers, slow requests or a crowd of
//!   live feeds.
//!
//! With `--watch WEB` (S5), `latency` also opens `--connections` live feeds (protocol/WEB.md)
//! on each game once it is seated and before its first action, from a thread and runtime of
//! their own, and measures each ply's delay from its position's `at_unix_ms` to its arrival.
//!
//! `idle` and `seated` print `ready N` once everything is open, and hold it until their stdin
//! closes; the other modes print one JSON line of results. Progress goes to stderr.

use super::script::{self, Script};
use anqi_core::rules::playout::SplitMix64;
use anqi_core::rules::Variant;
use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::sync::Semaphore;

/// What the client does (see the module's documentation).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// One game at a time, each ply timed, then its ping-pongs (S1).
    Latency,
    /// Many games at once (S2, S4).
    Load,
    /// Connections held open after the greeting (S3).
    Idle,
    /// Games seated and held, nobody moving (S3).
    Seated,
    /// A load on the web pages at --web (S6).
    Pages,
}

/// A client of `anqi bench`, started by it.
#[derive(clap::Args, Debug, Clone)]
#[command(hide = true)]
pub struct ClientArgs {
    /// What to do.
    #[arg(long, value_enum)]
    pub mode: Mode,
    /// The server (or, with --echo, the echo server).
    #[arg(long, value_name = "HOST:PORT")]
    pub addr: String,
    /// `latency`: the echo server for the ping-pongs.
    #[arg(long, value_name = "HOST:PORT")]
    pub echo_addr: Option<String>,
    /// `load` and `idle`: ADDR is an echo server (ping-pongs instead of games).
    #[arg(long)]
    pub echo: bool,
    /// The server's variant.
    #[arg(long, default_value = "traditional")]
    pub variant: String,
    /// The run's seed (see `anqi::bench::script`).
    #[arg(long, default_value = "bench")]
    pub seed: String,
    /// Games to play (or seat).
    #[arg(long, default_value_t = 1)]
    pub games: u64,
    /// Games at once (`load`).
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Connections to open (`idle`), or live feeds per game (`observe`).
    #[arg(long, default_value_t = 0)]
    pub connections: usize,
    /// `latency`: also watch each game on the web pages at this address (S5), with
    /// `--connections` live feeds; the server numbers this run's first game `--first-game`.
    #[arg(long, value_name = "HOST:PORT")]
    pub watch: Option<String>,
    /// `latency --watch`: the server's number of this run's first game.
    #[arg(long, default_value_t = 1)]
    pub first_game: u64,
    /// `load`: think a random 0 to MS milliseconds before each action, and measure the clock.
    #[arg(long, value_name = "MS")]
    pub think_ms: Option<u64>,
    /// The figure's name, for progress lines.
    #[arg(long, default_value = "bench")]
    pub label: String,
    /// `load`: time each ply (S6), for the p50 and p99 of the report.
    #[arg(long)]
    pub ply_times: bool,
    /// `pages`: the web pages' address.
    #[arg(long, value_name = "HOST:PORT")]
    pub web: Option<String>,
    /// `pages`: which load.
    #[arg(long, value_enum)]
    pub pages: Option<super::pages::Load>,
    /// `pages`: loopback addresses to spread the connections over (127.0.0.2 and up).
    #[arg(long, default_value_t = 1)]
    pub addresses: usize,
    /// `pages --pages polling`: the finished game polled.
    #[arg(long, default_value_t = 1)]
    pub poll_game: u64,
}

/// What `latency` prints: per-ply times in microseconds.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LatencyReport {
    /// Plies timed (as many ping-pongs were).
    pub plies: u64,
    /// Median time per ply with the server.
    pub server_p50_us: f64,
    /// 99th percentile of the same.
    pub server_p99_us: f64,
    /// Median time per ping-pong with the echo server.
    pub echo_p50_us: f64,
    /// 99th percentile of the same.
    pub echo_p99_us: f64,
    /// With `--watch`: what the live feeds saw.
    pub watched: Option<WatchReport>,
}

/// What `load` prints.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LoadReport {
    /// Games played to their end (or ping-pong scripts played through).
    pub games: u64,
    /// Plies (or ping-pongs) in them.
    pub plies: u64,
    /// Wall time from the first connection to the last game's end.
    pub seconds: f64,
    /// Games lost on time (`((error timeout ...))` received).
    pub time_losses: u64,
    /// With `--think-ms`: how many plies had both the measured and the charged time.
    pub clock_samples: u64,
    /// The p99 of |charged - measured| over them, in milliseconds.
    pub clock_error_p99_ms: Option<f64>,
    /// The largest of the same.
    pub clock_error_max_ms: Option<f64>,
    /// The mean of charged - measured (signed): above 0, the server charges delays that are
    /// not the client's thinking (its own queues, or the client's late reading).
    pub clock_excess_mean_ms: Option<f64>,
    /// With `--ply-times`: the median and 99th percentile time per ply, in microseconds.
    #[serde(default)]
    pub ply_p50_us: Option<f64>,
    #[serde(default)]
    pub ply_p99_us: Option<f64>,
}

/// What the live feeds of `latency --watch` saw.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WatchReport {
    /// Games watched, and the live feeds opened on them.
    pub games: u64,
    pub feeds: u64,
    /// Feeds that closed before their game's end (dropped as stalled).
    pub dropped: u64,
    /// Plies received live (after the feed caught up), over all feeds.
    pub plies: u64,
    /// Delay from a ply to its arrival, in ms: median, 99th percentile, largest.
    pub delay_p50_ms: f64,
    pub delay_p99_ms: f64,
    pub delay_max_ms: f64,
}

/// Runs the client.
///
/// # Errors
/// When a connection fails or the server says something a replayed game does not expect.
pub fn run(args: &ClientArgs) -> Result<()> {
    // The clients and the echo server hold thousands of connections.
    anqi_server::sys::raise_descriptor_limit();
    let variant = Arc::new(Variant::load(&args.variant)?);
    match args.mode {
        Mode::Latency => {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            let report = rt.block_on(latency(args, &variant))?;
            println!("{}", serde_json::to_string(&report)?);
        }
        Mode::Load => {
            let rt = tokio::runtime::Runtime::new()?;
            let report = rt.block_on(load(args, &variant))?;
            println!("{}", serde_json::to_string(&report)?);
        }
        Mode::Pages => {
            let web = args
                .web
                .as_deref()
                .ok_or_else(|| anyhow!("--mode pages needs --web"))?;
            let load = args
                .pages
                .ok_or_else(|| anyhow!("--mode pages needs --pages"))?;
            return super::pages::run(web, load, args.connections, args.addresses, args.poll_game);
        }
        Mode::Idle | Mode::Seated => {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            rt.block_on(hold(args, &variant))?;
        }
    }
    std::io::stdout().flush()?;
    Ok(())
}

/// One connection, read a line at a time.
struct Conn {
    io: BufReader<TcpStream>,
    line: Vec<u8>,
}

impl Conn {
    async fn connect(addr: &str) -> Result<Conn> {
        let stream = TcpStream::connect(addr)
            .await
            .with_context(|| format!("cannot connect to {addr}"))?;
        stream.set_nodelay(true)?;
        // Small: the seated mode holds thousands; a longer line still reads whole.
        Ok(Conn {
            io: BufReader::with_capacity(2048, stream),
            line: Vec::new(),
        })
    }

    async fn send(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.io.get_mut().write_all(bytes).await
    }

    /// The next line, newline included.
    async fn next_line(&mut self) -> Result<&[u8]> {
        self.line.clear();
        if self.io.read_until(b'\n', &mut self.line).await? == 0 {
            bail!("the server closed the connection");
        }
        Ok(&self.line)
    }
}

/// What a server line is, to a player replaying a game.
#[derive(Debug, PartialEq)]
enum Event {
    /// `turn` or `info`, with the player's own time left (the `clock` extension) if sent.
    Prompt(Option<u64>),
    Win,
    /// `((error timeout ...))`: the player's flag fell; the `win` follows.
    TimeLoss,
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Reads `line` for player `id`. By scanning bytes rather than with `ServerMessage::parse`:
/// the load generator shares the machine's processors with the server it measures, so it
/// looks only for the clauses it needs.
fn event(line: &[u8], id: usize) -> Result<Event> {
    let text = || String::from_utf8_lossy(line).trim_end().to_string();
    if line.starts_with(b"((error timeout") {
        return Ok(Event::TimeLoss);
    }
    if line.starts_with(b"((error") {
        bail!("the server answered a replayed game with {}", text());
    }
    if contains(line, b"(win ") {
        return Ok(Event::Win);
    }
    if !contains(line, b"(turn ") && !contains(line, b"(info ") {
        bail!("expected a prompt, got {}", text());
    }
    Ok(Event::Prompt(own_clock(line, id)))
}

/// Player `id`'s entry of the `(clock MS_1 ... MS_N)` clause, if the line has one.
fn own_clock(line: &[u8], id: usize) -> Option<u64> {
    let start = line.windows(7).position(|w| w == b"(clock ")? + 7;
    let end = start + line[start..].iter().position(|&b| b == b')')?;
    std::str::from_utf8(&line[start..end])
        .ok()?
        .split(' ')
        .nth(id - 1)?
        .parse()
        .ok()
}

/// A seated player: its connection, its id, and what its last prompt said.
struct Player {
    conn: Conn,
    id: usize,
    clock: Option<u64>,
    prompt_at: Instant,
}

impl Player {
    async fn event(&mut self) -> Result<Event> {
        let id = self.id;
        let line = self.conn.next_line().await?;
        event(line, id)
    }
}

/// Opens one connection per seed, in seat order (the server seats by order of acceptance),
/// shakes hands (asking for the `clock` extension with `clock`), and reads each player's setup
/// and first prompt.
async fn seat(addr: &str, seeds: &[String], clock: bool) -> Result<Vec<Player>> {
    let mut conns = Vec::with_capacity(seeds.len());
    for _ in seeds {
        conns.push(Conn::connect(addr).await?);
    }
    let ext = if clock { "(ext clock)" } else { "" };
    for (conn, seed) in conns.iter_mut().zip(seeds) {
        conn.send(format!("((init bench {seed}){ext})\n").as_bytes())
            .await?;
    }
    let mut players = Vec::with_capacity(seeds.len());
    for (k, mut conn) in conns.into_iter().enumerate() {
        let id = k + 1;
        loop {
            let line = conn.next_line().await?;
            if line.starts_with(b"((version") {
                continue;
            }
            if !line.starts_with(format!("((id {id})").as_bytes()) {
                bail!(
                    "seat {id} expected its setup, got {}",
                    String::from_utf8_lossy(line).trim_end()
                );
            }
            break;
        }
        let Event::Prompt(clock) = event(conn.next_line().await?, id)? else {
            bail!("the game ended before its first ply");
        };
        players.push(Player {
            conn,
            id,
            clock,
            prompt_at: Instant::now(),
        });
    }
    Ok(players)
}

/// What the games of one task came to.
#[derive(Default)]
struct Tally {
    games: u64,
    plies: u64,
    time_losses: u64,
    latencies_ns: Vec<u64>,
    /// Charged minus measured think time, per ply, in milliseconds.
    clock_excess_ms: Vec<f64>,
}

/// How a game is played besides its script.
struct Pace {
    /// Think a random time up to this before each action (and compare with the clock).
    think_ms: Option<u64>,
    /// Keep each ply's time.
    latencies: bool,
}

/// Plays `script` on seated `players`.
/// With `floor` (echo connections, one per player, and their tally), each ply is followed by
/// its ping-pong.
async fn play(
    players: &mut [Player],
    script: &Script,
    pace: &Pace,
    rng: &mut SplitMix64,
    tally: &mut Tally,
    mut floor: Option<(&mut [Conn], &mut Tally)>,
) -> Result<()> {
    let n = players.len();
    for (k, ply) in script.plies.iter().enumerate() {
        let m = ply.mover - 1;
        if let Some(max) = pace.think_ms {
            let us = rng.below(u32::try_from(max * 1000 + 1).unwrap_or(u32::MAX));
            tokio::time::sleep(Duration::from_micros(u64::from(us))).await;
        }
        let sent = Instant::now();
        let thought = sent - players[m].prompt_at;
        let before = players[m].clock;
        // A flag fallen meanwhile may have closed the connection: the reads below tell.
        let _ = players[m].conn.send(&ply.line).await;
        // The next mover's prompt first: its think time starts when it is read.
        let next = script.plies.get(k + 1).map_or(m, |p| p.mover - 1);
        let mut ended = 0;
        let mut lost = false;
        for j in std::iter::once(next).chain((0..n).filter(|&j| j != next)) {
            loop {
                match players[j].event().await? {
                    Event::TimeLoss => lost = true,
                    Event::Win => {
                        ended += 1;
                        break;
                    }
                    Event::Prompt(clock) => {
                        players[j].clock = clock;
                        players[j].prompt_at = Instant::now();
                        break;
                    }
                }
            }
        }
        if pace.latencies {
            tally.latencies_ns.push(sent.elapsed().as_nanos() as u64);
        }
        if let Some((conns, echoed)) = floor.as_mut() {
            ping(&mut conns[m], &ply.line, pace, echoed).await?;
        }
        if lost {
            tally.time_losses += 1;
        } else {
            tally.plies += 1;
        }
        if pace.think_ms.is_some() && ended == 0 {
            if let (Some(b), Some(a)) = (before, players[m].clock) {
                let charged = b.saturating_sub(a) as f64;
                tally
                    .clock_excess_ms
                    .push(charged - thought.as_secs_f64() * 1000.0);
            }
        }
        match ended {
            0 => {}
            e if e == n => {
                if k + 1 != script.plies.len() && !lost {
                    bail!(
                        "the game ended after {} plies, its script after {}",
                        k + 1,
                        script.plies.len()
                    );
                }
                tally.games += 1;
                return Ok(());
            }
            _ => bail!("some players got the result and others a prompt"),
        }
    }
    bail!("the script ended but the server did not end the game")
}

/// Plays `script`'s plies as ping-pongs with the echo server on `conns` (one per player).
async fn ping_pong(
    conns: &mut [Conn],
    script: &Script,
    pace: &Pace,
    tally: &mut Tally,
) -> Result<()> {
    for ply in &script.plies {
        ping(&mut conns[ply.mover - 1], &ply.line, pace, tally).await?;
    }
    tally.games += 1;
    Ok(())
}

/// Sends `line` to the echo server and reads it back.
async fn ping(conn: &mut Conn, line: &[u8], pace: &Pace, tally: &mut Tally) -> Result<()> {
    let sent = Instant::now();
    conn.send(line).await?;
    let got = conn.next_line().await?.len();
    if got != line.len() {
        bail!("the echo server sent {got} bytes for {}", line.len());
    }
    if pace.latencies {
        tally.latencies_ns.push(sent.elapsed().as_nanos() as u64);
    }
    tally.plies += 1;
    Ok(())
}

async fn connect_all(addr: &str, n: usize) -> Result<Vec<Conn>> {
    let mut conns = Vec::with_capacity(n);
    for _ in 0..n {
        conns.push(Conn::connect(addr).await?);
    }
    Ok(conns)
}

/// The `q` quantile (0 to 1) of `values`, sorted in place; 0 when empty.
fn quantile(values: &mut [f64], q: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    let rank = (q * values.len() as f64).ceil() as usize;
    values[rank.clamp(1, values.len()) - 1]
}

/// The live feeds of `latency --watch`: a thread with its own runtime, so that reading a
/// hundred feeds does not delay the timed client's own reads.
struct Watchers {
    orders: std::sync::mpsc::Sender<u64>,
    attached: std::sync::mpsc::Receiver<Result<()>>,
    thread: std::thread::JoinHandle<Result<WatchReport>>,
}

impl Watchers {
    fn start(web: String, feeds: usize, games: u64) -> Watchers {
        let (orders, order_rx) = std::sync::mpsc::channel::<u64>();
        let (attached_tx, attached) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            rt.block_on(async move {
                let mut tasks = tokio::task::JoinSet::new();
                while let Ok(game) = order_rx.recv() {
                    let url = format!("ws://{web}/api/games/{game}/live");
                    let mut result = Ok(());
                    for _ in 0..feeds.max(1) {
                        match tokio_tungstenite::connect_async(url.as_str()).await {
                            Ok((socket, _)) => {
                                tasks.spawn(watch_feed(socket));
                            }
                            Err(e) => {
                                result = Err(anyhow!("cannot watch {url}: {e}"));
                                break;
                            }
                        }
                    }
                    let _ = attached_tx.send(result);
                }
                let mut delays = Vec::new();
                let (mut opened, mut dropped) = (0u64, 0u64);
                while let Some(done) = tasks.join_next().await {
                    let (d, ended) = done??;
                    opened += 1;
                    dropped += u64::from(!ended);
                    delays.extend(d);
                }
                Ok(WatchReport {
                    games,
                    feeds: opened,
                    dropped,
                    plies: delays.len() as u64,
                    delay_p50_ms: quantile(&mut delays, 0.5),
                    delay_p99_ms: quantile(&mut delays, 0.99),
                    delay_max_ms: quantile(&mut delays, 1.0),
                })
            })
        });
        Watchers {
            orders,
            attached,
            thread,
        }
    }

    /// Opens the feeds on game `game` (seated, waiting for its first action).
    fn watch(&self, game: u64) -> Result<()> {
        self.orders.send(game)?;
        self.attached.recv()?
    }

    /// Waits for every feed to end with its game: what they saw.
    fn finish(self) -> Result<WatchReport> {
        drop(self.orders);
        self.thread
            .join()
            .map_err(|_| anyhow!("the watching thread panicked"))?
    }
}

type Feed = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>;

/// Reads one live feed to its end: each live ply's delay in ms, and whether the end came.
async fn watch_feed(mut socket: Feed) -> Result<(Vec<f64>, bool)> {
    use futures_util::StreamExt;
    let (mut caught_up, mut ended) = (false, false);
    let mut delays = Vec::new();
    while let Some(Ok(message)) = socket.next().await {
        let tokio_tungstenite::tungstenite::Message::Text(text) = message else {
            continue;
        };
        let now_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64() * 1e3);
        // By the fields' names alone, as the other modes read the server's lines: a hundred
        // feeds must be read as fast as the game goes.
        let text = text.as_str();
        if text.starts_with("{\"type\":\"caught_up\"") {
            caught_up = true;
        } else if text.contains(",\"type\":\"end\"") {
            ended = true;
        } else if caught_up && text.contains(",\"type\":\"ply\"") {
            if let Some(at) = number_after(text, "\"at_unix_ms\":") {
                delays.push(now_ms - at);
            }
        }
    }
    Ok((delays, ended))
}

/// The number right after `key` in `text`.
fn number_after(text: &str, key: &str) -> Option<f64> {
    let rest = &text[text.find(key)? + key.len()..];
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

async fn latency(args: &ClientArgs, variant: &Arc<Variant>) -> Result<LatencyReport> {
    let echo_addr = args
        .echo_addr
        .as_deref()
        .ok_or_else(|| anyhow!("--mode latency needs --echo-addr"))?;
    let pace = Pace {
        think_ms: None,
        latencies: true,
    };
    let (mut server, mut echo) = (Tally::default(), Tally::default());
    let watchers = args
        .watch
        .clone()
        .map(|web| Watchers::start(web, args.connections, args.games));
    for g in 0..args.games {
        let script = Script::random(variant, &args.seed, g);
        let mut players = seat(&args.addr, &script.seeds, false).await?;
        if let Some(w) = &watchers {
            w.watch(args.first_game + g)?;
        }
        let mut conns = connect_all(echo_addr, script.seeds.len()).await?;
        let mut rng = SplitMix64::new(g);
        let floor = Some((conns.as_mut_slice(), &mut echo));
        play(&mut players, &script, &pace, &mut rng, &mut server, floor).await?;
        eprintln!("{}: {}/{} games...", args.label, g + 1, args.games);
    }
    let us = |t: &Tally| -> Vec<f64> { t.latencies_ns.iter().map(|&n| n as f64 / 1e3).collect() };
    let (mut s, mut e) = (us(&server), us(&echo));
    Ok(LatencyReport {
        plies: server.plies,
        server_p50_us: quantile(&mut s, 0.5),
        server_p99_us: quantile(&mut s, 0.99),
        echo_p50_us: quantile(&mut e, 0.5),
        echo_p99_us: quantile(&mut e, 0.99),
        watched: watchers.map(Watchers::finish).transpose()?,
    })
}

async fn load(args: &ClientArgs, variant: &Arc<Variant>) -> Result<LoadReport> {
    // Computed before the clock starts: the load generator's hot path is sending and reading.
    let scripts: Vec<Arc<Script>> = (0..args.games)
        .map(|g| Arc::new(Script::random(variant, &args.seed, g)))
        .collect();
    let slots = Arc::new(Semaphore::new(args.concurrency.max(1)));
    let done = Arc::new(AtomicU64::new(0));
    let progress = {
        let (done, label, games) = (done.clone(), args.label.clone(), args.games);
        tokio::spawn(async move {
            let mut last = 0;
            loop {
                tokio::time::sleep(Duration::from_secs(1)).await;
                let now = done.load(Ordering::Relaxed);
                if now != last {
                    eprintln!("{label}: {now}/{games} games...");
                    last = now;
                }
            }
        })
    };
    let start = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for (g, script) in scripts.into_iter().enumerate() {
        let permit = slots.clone().acquire_owned().await?;
        let pace = Pace {
            think_ms: args.think_ms,
            latencies: args.ply_times,
        };
        let done = done.clone();
        if args.echo {
            let mut conns = connect_all(&args.addr, script.seeds.len()).await?;
            tasks.spawn(async move {
                let mut tally = Tally::default();
                let r = ping_pong(&mut conns, &script, &pace, &mut tally).await;
                drop(permit);
                done.fetch_add(1, Ordering::Relaxed);
                r.map(|()| tally)
            });
        } else {
            let mut players = seat(&args.addr, &script.seeds, pace.think_ms.is_some()).await?;
            tasks.spawn(async move {
                let mut tally = Tally::default();
                let mut rng = SplitMix64::new(g as u64);
                let r = play(&mut players, &script, &pace, &mut rng, &mut tally, None).await;
                drop(permit);
                done.fetch_add(1, Ordering::Relaxed);
                r.map(|()| tally)
            });
        }
    }
    let mut all = Tally::default();
    while let Some(joined) = tasks.join_next().await {
        let t = joined??;
        all.games += t.games;
        all.plies += t.plies;
        all.time_losses += t.time_losses;
        all.clock_excess_ms.extend(t.clock_excess_ms);
        all.latencies_ns.extend(t.latencies_ns);
    }
    let seconds = start.elapsed().as_secs_f64();
    progress.abort();
    eprintln!("{}: {}/{} games", args.label, all.games, args.games);
    let samples = all.clock_excess_ms.len() as u64;
    let (p99, max, mean) = if samples == 0 {
        (None, None, None)
    } else {
        let mean = all.clock_excess_ms.iter().sum::<f64>() / samples as f64;
        let mut errors: Vec<f64> = all.clock_excess_ms.iter().map(|e| e.abs()).collect();
        let p99 = quantile(&mut errors, 0.99);
        (Some(p99), errors.last().copied(), Some(mean))
    };
    let mut ply_us: Vec<f64> = all.latencies_ns.iter().map(|&n| n as f64 / 1e3).collect();
    let timed = !ply_us.is_empty();
    Ok(LoadReport {
        games: all.games,
        plies: all.plies,
        seconds,
        time_losses: all.time_losses,
        clock_samples: samples,
        clock_error_p99_ms: p99,
        clock_error_max_ms: max,
        clock_excess_mean_ms: mean,
        ply_p50_us: timed.then(|| quantile(&mut ply_us, 0.5)),
        ply_p99_us: timed.then(|| quantile(&mut ply_us, 0.99)),
    })
}

/// `idle` and `seated`: open, say `ready N`, hold until stdin closes.
async fn hold(args: &ClientArgs, variant: &Arc<Variant>) -> Result<()> {
    let mut idle = Vec::new();
    let mut seated = Vec::new();
    let (total, what) = match args.mode {
        Mode::Idle => (args.connections as u64, "connections"),
        _ => (args.games, "games"),
    };
    let step = (total / 10).max(1);
    for i in 0..total {
        if args.mode == Mode::Idle {
            let mut conn = Conn::connect(&args.addr).await?;
            if args.echo {
                // The echo server says nothing first: one ping shows it has the connection.
                conn.send(b"((ping))\n").await?;
            }
            conn.next_line().await?;
            idle.push(conn);
        } else {
            let seeds = script::seeds(variant, &args.seed, i);
            seated.push(seat(&args.addr, &seeds, false).await?);
        }
        if (i + 1) % step == 0 {
            eprintln!("{}: {}/{total} {what}...", args.label, i + 1);
        }
    }
    println!("ready {total}");
    std::io::stdout().flush()?;
    // Until the parent closes our stdin (or dies): read on a thread of its own, since the
    // runtime's stdin is not built in.
    tokio::task::spawn_blocking(|| {
        let mut rest = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut rest)
    })
    .await??;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_read_by_their_clauses() {
        assert_eq!(
            event(
                b"((board XX)(clock 59998 60000)(progress 0)(info 0 2))\n",
                1
            )
            .unwrap(),
            Event::Prompt(Some(59998))
        );
        assert_eq!(
            event(b"((board XX)(clock 59998 60000)(turn 0 2))\n", 2).unwrap(),
            Event::Prompt(Some(60000))
        );
        assert_eq!(
            event(b"((board XX)(turn 0 2))\n", 2).unwrap(),
            Event::Prompt(None)
        );
        assert_eq!(event(b"((win 1 0))\n", 2).unwrap(), Event::Win);
        assert_eq!(
            event(b"((error timeout \"your clock ran out\"))\n", 2).unwrap(),
            Event::TimeLoss
        );
        assert!(event(b"((error illegal \"no\"))\n", 2).is_err());
        assert!(event(b"((version 1.0))\n", 2).is_err());
    }

    #[test]
    fn quantiles_are_ranks() {
        let mut v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(quantile(&mut v, 0.5), 50.0);
        assert_eq!(quantile(&mut v, 0.99), 99.0);
        assert_eq!(quantile(&mut v, 1.0), 100.0);
        assert_eq!(quantile(&mut [], 0.5), 0.0);
    }
}
