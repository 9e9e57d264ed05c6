//! Shared helpers for the integration tests: a real server on 127.0.0.1:0 in this process, and a
//! raw line-oriented TCP client for speaking the protocol by hand.
//!
//! Layout: this file (the in-process server, the raw client, the reference bots, the test
//! engines' command lines and tournament entries, an event run from its tournament file, and
//! records files read back); [`cli`] (runs of the `anqi` program as a user runs it);
//! [`webdriver`] (a real browser for the pages' tests).
#![allow(dead_code)]

pub mod cli;
pub mod webdriver;

use anqi_core::record::GameRecord;
use anqi_core::rules::Variant;
use anqi_server::config::Config;
use anqi_server::Server;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// A server running in this process.
pub struct TestServer {
    pub addr: SocketAddr,
    pub records_path: PathBuf,
    pub records: mpsc::UnboundedReceiver<GameRecord>,
    pub shutdown: CancellationToken,
    pub task: tokio::task::JoinHandle<std::io::Result<()>>,
    /// Records received but not yet asked for.
    stash: Vec<GameRecord>,
    /// What the server shows its pages, when it has a hub: who waits in the lobby.
    hub: Option<anqi_server::Hub>,
    _dir: TempDir,
}

/// How much of what the server shows its pages a [`TestServer`] sets up.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Watched {
    No,
    /// A hub (who waits, the games under way) and no pages.
    Hub,
    /// A hub and the pages on 127.0.0.1:0.
    Pages,
}

/// A directory removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        static COUNTER: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("anqi-test-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl TestServer {
    /// Starts a server for `variant` with the built-in config overlaid by `toml` and listening on
    /// 127.0.0.1:0, with records in a temporary file.
    pub async fn start(variant: &str, toml: &str) -> TestServer {
        TestServer::start_with_records(variant, toml, None).await
    }

    /// As [`TestServer::start`], with the records written to `records` (a path the test made,
    /// such as a FIFO) instead of a temporary file.
    pub async fn start_with_records(
        variant: &str,
        toml: &str,
        records: Option<PathBuf>,
    ) -> TestServer {
        TestServer::start_inner(variant, toml, records, Watched::No)
            .await
            .0
    }

    /// As [`TestServer::start`], with the lobby in view (a hub, as the pages have, but no
    /// pages): [`TestServer::until_waiting`] tells when a client waits there for a game.
    pub async fn start_with_lobby(variant: &str, toml: &str) -> TestServer {
        TestServer::start_inner(variant, toml, None, Watched::Hub)
            .await
            .0
    }

    /// As [`TestServer::start`], with the web pages served too (`[http]` of `toml`, on
    /// 127.0.0.1:0): the server and the pages' address (`HOST:PORT`).
    pub async fn start_watched(variant: &str, toml: &str) -> (TestServer, String) {
        let (server, web) = TestServer::start_inner(variant, toml, None, Watched::Pages).await;
        (server, web.expect("the pages' address"))
    }

    /// As [`TestServer::start_watched`], with the records written to `records` (a server
    /// started again on the same file continues its numbers and shows its games).
    pub async fn start_watched_with_records(
        variant: &str,
        toml: &str,
        records: PathBuf,
    ) -> (TestServer, String) {
        let (server, web) =
            TestServer::start_inner(variant, toml, Some(records), Watched::Pages).await;
        (server, web.expect("the pages' address"))
    }

    async fn start_inner(
        variant: &str,
        toml: &str,
        records: Option<PathBuf>,
        watched: Watched,
    ) -> (TestServer, Option<String>) {
        let dir = TempDir::new(variant);
        let records_path = records.unwrap_or_else(|| dir.0.join("games.jsonl"));
        let mut config = Config::parse(toml).expect("test config");
        config.server.listen = "127.0.0.1:0".into();
        config.records.path = records_path.to_string_lossy().into_owned();
        let web_config = config.clone();
        let variant = Variant::load(variant).expect("variant");
        let mut server = Server::bind(config, variant.clone()).await.expect("bind");
        let (tx, records) = mpsc::unbounded_channel();
        server.observe_records(tx);
        let addr = server.local_addr().unwrap();
        let shutdown = CancellationToken::new();
        let hub = (watched != Watched::No).then(|| {
            let hub = anqi_server::Hub::new(&web_config.http, false);
            server.watch(hub.clone());
            hub
        });
        // The games from before (a records file given again) are on the pages before they
        // answer, as `anqi serve` does.
        server.read_past().await;
        let web = if let (Watched::Pages, Some(hub)) = (watched, hub.clone()) {
            let mut web = anqi_web::Web::bind("127.0.0.1:0", &web_config, hub, shutdown.clone())
                .await
                .expect("bind the pages");
            if web_config.http.humans {
                web.seat_people(server.door(), &variant, &web_config);
            }
            let web_addr = web.local_addr().unwrap().to_string();
            tokio::spawn(web.run(shutdown.clone()));
            Some(web_addr)
        } else {
            None
        };
        let task = tokio::spawn(server.run(shutdown.clone()));
        let server = TestServer {
            addr,
            records_path,
            records,
            shutdown,
            task,
            stash: Vec::new(),
            hub,
            _dir: dir,
        };
        (server, web)
    }

    /// Waits (up to 10 s) until a client named `name` waits in the lobby for a game: its
    /// handshake is done, so a client that joins after this is seated after it. Only for a
    /// server started with [`TestServer::start_with_lobby`] or [`TestServer::start_watched`].
    pub async fn until_waiting(&self, name: &str) {
        let hub = self.hub.as_ref().expect("a server with its lobby in view");
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while !hub.waiting().iter().any(|w| w.name == name) {
            assert!(
                tokio::time::Instant::now() < deadline,
                "{name} never waited in the lobby"
            );
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }

    pub fn addr(&self) -> String {
        self.addr.to_string()
    }

    /// The next finished game's record (waits up to 30 s).
    pub async fn next_record(&mut self) -> GameRecord {
        self.record_where(|_| true).await
    }

    /// The next finished game's record that satisfies `pred`, keeping the others for later.
    pub async fn record_where(&mut self, pred: impl Fn(&GameRecord) -> bool) -> GameRecord {
        if let Some(i) = self.stash.iter().position(&pred) {
            return self.stash.remove(i);
        }
        loop {
            let r = tokio::time::timeout(Duration::from_secs(30), self.records.recv())
                .await
                .expect("a game finished in time")
                .expect("server still running");
            if pred(&r) {
                return r;
            }
            self.stash.push(r);
        }
    }

    /// Stops the server, then checks every record it wrote with `anqi replay`: `games` of them,
    /// all verified.
    #[allow(dead_code)]
    pub async fn stop_and_replay(self, games: usize) {
        let (path, _dir) = self.stop().await;
        assert_eq!(replay(&path), format!("{games} verified, 0 failed"));
    }

    /// Stops the server and waits for it to finish.
    pub async fn stop(self) -> (PathBuf, TempDir) {
        self.shutdown.cancel();
        tokio::time::timeout(Duration::from_secs(10), self.task)
            .await
            .expect("server stops within 10 s")
            .unwrap()
            .unwrap();
        (self.records_path, self._dir)
    }
}

/// A hand-driven client: sends raw text, reads lines.
pub struct RawClient {
    pub reader: BufReader<OwnedReadHalf>,
    pub writer: OwnedWriteHalf,
}

impl RawClient {
    pub async fn connect(addr: &str) -> RawClient {
        let s = TcpStream::connect(addr).await.expect("connect");
        RawClient::from_stream(s)
    }

    /// Connects from a given loopback source address (127.0.0.2, ...), as a distinct client
    /// machine would.
    pub async fn connect_from(addr: &str, source: &str) -> RawClient {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket
            .bind(format!("{source}:0").parse().unwrap())
            .expect("bind a loopback source address");
        let s = socket
            .connect(addr.parse().unwrap())
            .await
            .expect("connect");
        RawClient::from_stream(s)
    }

    fn from_stream(s: TcpStream) -> RawClient {
        let _ = s.set_nodelay(true);
        let (r, w) = s.into_split();
        RawClient {
            reader: BufReader::new(r),
            writer: w,
        }
    }

    /// Connects, checks the server's version message, sends init.
    pub async fn join(addr: &str, name: &str, seed: &str) -> RawClient {
        let mut c = RawClient::connect(addr).await;
        assert_eq!(c.line().await, "((version 1.0))");
        c.send(&format!("((init {name} {seed}))\n")).await;
        c
    }

    pub async fn send(&mut self, text: &str) {
        self.writer.write_all(text.as_bytes()).await.expect("send");
    }

    /// The next line from the server, without its newline (waits up to 10 s).
    pub async fn line(&mut self) -> String {
        self.try_line().await.expect("server closed the connection")
    }

    /// The next line, or `None` at end of stream.
    pub async fn try_line(&mut self) -> Option<String> {
        let mut s = String::new();
        let n = tokio::time::timeout(Duration::from_secs(10), self.reader.read_line(&mut s))
            .await
            .expect("a line within 10 s")
            .ok()?;
        if n == 0 {
            return None;
        }
        assert!(
            s.ends_with('\n'),
            "every server message ends with a newline: {s:?}"
        );
        Some(s.trim_end().to_string())
    }

    /// Reads lines until one starts with `prefix`, returning it (skips setup and info lines).
    pub async fn until(&mut self, prefix: &str) -> String {
        loop {
            let l = self.line().await;
            if l.starts_with(prefix) || l.contains(prefix) {
                return l;
            }
        }
    }

    /// Asserts the server closes the connection with nothing more to say.
    pub async fn expect_closed(&mut self) {
        if let Some(l) = self.try_line().await {
            panic!("expected the connection to close, got {l}");
        }
    }
}

/// Starts `anqi view ARGS... --http 127.0.0.1:0` with stdout piped and stderr as `stderr`
/// says, and returns the child and the pages' address from its first line, `web on
/// http://HOST:PORT/`.
#[allow(dead_code)]
pub fn spawn_view<I, S>(args: I, stderr: std::process::Stdio) -> (std::process::Child, String)
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    use std::io::BufRead;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_anqi"))
        .args(["view", "--http", "127.0.0.1:0"])
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    let web = line
        .trim()
        .strip_prefix("web on http://")
        .and_then(|a| a.strip_suffix('/'))
        .unwrap_or_else(|| panic!("first line is `web on http://HOST:PORT/`, got {line:?}"))
        .to_string();
    (child, web)
}

/// Starts `command` (an `anqi serve`, possibly behind a shell) with stdout piped, and returns
/// the child and the address from its first line, `listening on HOST:PORT`.
pub fn spawn_server(mut command: std::process::Command) -> (std::process::Child, String) {
    use std::io::BufRead;
    let mut child = command
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("first line is `listening on HOST:PORT`, got {line:?}"))
        .to_string();
    (child, addr)
}

/// `anqi serve` started with `--listen 127.0.0.1:0 --metrics 127.0.0.1:0` and `args`, no
/// records and its stderr left out: the server (stopped when dropped), the games' address
/// and the metrics' (`HOST:PORT`), from its lines `listening on HOST:PORT` and `metrics on
/// http://HOST:PORT/metrics`.
#[allow(dead_code)]
pub fn spawn_serve_metrics(args: &[&str]) -> (Killed, String, String) {
    use std::io::BufRead;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_anqi"))
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--metrics",
            "127.0.0.1:0",
        ])
        .args(["--records", ""])
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let (mut addr, mut metrics) = (None, None);
    while metrics.is_none() {
        let mut line = String::new();
        if out.read_line(&mut line).unwrap() == 0 {
            let _ = child.kill();
            panic!("anqi serve stopped before it said where its metrics are");
        }
        let line = line.trim();
        if let Some(a) = line.strip_prefix("listening on ") {
            addr = Some(a.to_string());
        } else if let Some(m) = line.strip_prefix("metrics on http://") {
            metrics = m.strip_suffix("/metrics").map(str::to_string);
        }
    }
    let addr = addr.expect("`listening on` comes first");
    (Killed(child), addr, metrics.expect("an address"))
}

/// A child process, killed (and waited for) when dropped, however the test ends.
pub struct Killed(pub std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The reference Rust bot, `anqi-bot`, beside the anqi binary under test. `cargo test` builds
/// the anqi binary only: the first caller in a test process builds the bot into the same target
/// directory and profile, with the features of the whole workspace (`--workspace`), so that it
/// reuses every crate the tests were built with (with `-p anqi-client`, tokio and every crate
/// with a derive would compile again). Built even when a bot is there already (cargo does
/// nothing when it is up to date): one left by an earlier build would test old code.
///
/// Not when `ANQI_TESTS_BUILT` is set: `./test.sh` sets it once it has built every program of
/// the workspace (`cargo build --workspace --bins`), and runs other tests meanwhile; a cargo
/// command here would wait for theirs and link the bot anew while another test starts it.
#[allow(dead_code)]
pub fn anqi_bot() -> PathBuf {
    static BUILT: std::sync::Mutex<bool> = std::sync::Mutex::new(false);
    let anqi = std::path::Path::new(env!("CARGO_BIN_EXE_anqi"));
    let bot = anqi.with_file_name("anqi-bot");
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if !*built && std::env::var_os("ANQI_TESTS_BUILT").is_none() {
        let profile_dir = anqi.parent().unwrap();
        let target = profile_dir.parent().unwrap();
        let mut build = std::process::Command::new(env!("CARGO"));
        build
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["build", "--workspace", "--bin", "anqi-bot"])
            .env("CARGO_TARGET_DIR", target);
        if profile_dir.ends_with("release") {
            build.arg("--release");
        }
        assert!(build.status().unwrap().success(), "cannot build anqi-bot");
        // Only once it is built: a failed build fails every test that asks, not just the first.
        *built = true;
    }
    bot
}

/// A tournament file's engine entry running the Rust reference bot, `anqi-bot --strategy
/// random` (built by [`anqi_bot`]; it reads its token from ANQI_TOKEN): for the tests that need
/// any engine that plays. It starts in a millisecond; the Python bot's interpreter takes a tenth
/// of a second of processor time for every game, most of a tournament test's.
#[allow(dead_code)]
pub fn bot_engine(name: &str) -> String {
    let bot = anqi_bot();
    format!(
        "[[tournament.engine]]\nname = \"{name}\"\ncommand = \"{}\"\nargs = [\"--connect\", \"{{addr}}\", \"--seed\", \"{{seed}}\", \"--name\", \"{{name}}\", \"--strategy\", \"random\"]\n",
        bot.display()
    )
}

/// A tournament file's `[[tournament.engine]]` entry: engine `name` speaking `protocol`, run as
/// `command` with `args` (each written as a TOML string; placeholders such as `{addr}` left for
/// the event to fill).
#[allow(dead_code)]
pub fn engine_entry(name: &str, protocol: &str, command: &str, args: &[&str]) -> String {
    let args: Vec<String> = args.iter().map(|a| format!("{a:?}")).collect();
    format!(
        "[[tournament.engine]]\nname = \"{name}\"\nprotocol = \"{protocol}\"\ncommand = \"{command}\"\nargs = [{}]\n",
        args.join(", ")
    )
}

/// A tournament file's engine entry running the Rust reference bot greedily, `anqi-bot
/// --strategy greedy` (built by [`anqi_bot`]): the opponent the event tests set their test
/// engines against.
#[allow(dead_code)]
pub fn greedy_engine(name: &str) -> String {
    let bot = anqi_bot().display().to_string();
    engine_entry(
        name,
        "anqi",
        &bot,
        &[
            "--connect",
            "{addr}",
            "--strategy",
            "greedy",
            "--seed",
            "{seed}",
            "--name",
            "{name}",
        ],
    )
}

/// Runs one event as a user does, `anqi tournament --quiet FILE`, the tournament file written
/// first to `DIR/t.toml`: `[tournament]`, then `settings` (its own lines, each ending in a
/// newline: `output = ...` and the rest), then `engines` (entries as [`engine_entry`] writes
/// them). Whatever its exit status, what it printed.
#[allow(dead_code)]
pub fn run_event(
    dir: &std::path::Path,
    settings: &str,
    engines: &[String],
) -> std::process::Output {
    let file = dir.join("t.toml");
    std::fs::write(
        &file,
        format!("[tournament]\n{settings}{}", engines.concat()),
    )
    .unwrap();
    std::process::Command::new(cli::ANQI)
        .args(["tournament", "--quiet"])
        .arg(&file)
        .output()
        .unwrap()
}

/// Every record of the records file at `path`, in order (blank lines skipped): asserts that the
/// file reads and that each line is a record.
#[allow(dead_code)]
pub fn records_in(path: &std::path::Path) -> Vec<GameRecord> {
    anqi_core::record::read_records(path)
        .unwrap()
        .into_iter()
        .map(|(_, r)| r.unwrap())
        .collect()
}

/// `anqi replay --quiet FILE`: asserts it succeeds (every record verified), returns its
/// summary line.
#[allow(dead_code)]
pub fn replay(path: &std::path::Path) -> String {
    let out = cli::anqi(["replay", "--quiet"]).arg(path).output();
    assert!(out.status.success(), "anqi replay failed:\n{}", out.stdout);
    out.stdout.trim().to_string()
}

/// `anqi replay --plies FILE`: each record's verdict and move list (comments, lost
/// connections), as printed.
#[allow(dead_code)]
pub fn move_lists(path: &std::path::Path) -> String {
    cli::anqi(["replay", "--plies"]).arg(path).succeeds().stdout
}

/// `anqi bridge --protocol PROTOCOL --connect ADDR --name NAME BRIDGE_ARGS -- python3
/// tests/engines/SCRIPT ENGINE_ARGS`, its output captured, killed if dropped: a bridged test
/// engine, ready to spawn.
#[allow(dead_code)]
pub fn bridge_command(
    protocol: &str,
    script: &str,
    addr: &str,
    name: &str,
    bridge_args: &[&str],
    engine_args: &[&str],
) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_anqi"));
    cmd.args([
        "bridge",
        "--protocol",
        protocol,
        "--connect",
        addr,
        "--name",
        name,
    ])
    .args(bridge_args)
    .arg("--")
    .arg("python3")
    .arg(format!(
        "{}/tests/engines/{script}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .args(engine_args)
    .stdin(std::process::Stdio::null())
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped())
    .kill_on_drop(true);
    cmd
}

/// `clients` reference random bots (anqi-client's `RandomBot`, told nothing of the rules: they
/// take the description the server sends), each joining `addr` on its own connection and playing
/// one game; bot `i` is named `bot{i}` and seeded `first_seed + i`. The tasks return each bot's
/// result.
pub fn random_bots(
    addr: &str,
    clients: usize,
    first_seed: u64,
) -> Vec<tokio::task::JoinHandle<Result<anqi_client::GameResult, anqi_client::ClientError>>> {
    (0..clients)
        .map(|i| {
            let addr = addr.to_string();
            let seed = first_seed + i as u64;
            tokio::spawn(async move {
                let mut bot = anqi_client::RandomBot::new(seed);
                anqi_client::play_game(&addr, &format!("bot{i}"), &seed.to_string(), &mut bot, None)
                    .await
            })
        })
        .collect()
}

/// The server seed of deal `deal` of a tournament dealt from master seed `master`, computed
/// here as TOURNAMENTS.md states it (HMAC-SHA256 keyed by the master seed), independently of
/// the program's own code.
#[allow(dead_code)]
pub fn tournament_deal_seed(master: &str, deal: u64) -> String {
    use hmac::{KeyInit, Mac};
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(master.as_bytes()).unwrap();
    mac.update(format!("anqi-tournament-v2\ndeal\n{deal}").as_bytes());
    mac.finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
