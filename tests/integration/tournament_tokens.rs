//! Tournament seats cannot be stolen: tokens are fresh secrets unrelated to the master seed,
//! started engines get theirs in the environment (not on a command line every local user can
//! read), and a token seats one connection per game (a reuse is refused and logged with its
//! address), all through `anqi tournament` and real TCP.

use crate::common;

use anqi_core::record::GameRecord;
use common::TempDir;
use sha2::{Digest, Sha256};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const ANQI: &str = env!("CARGO_BIN_EXE_anqi");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Longest wait for anything a test awaits (an engine starting, a FIFO opened).
const PATIENCE: Duration = Duration::from_secs(30);

/// The Python reference bot's arguments (its token comes from ANQI_TOKEN), as a TOML list tail.
fn python_bot_args() -> String {
    format!(
        "\"python3\", \"{ROOT}/clients/python/anqi_random_bot.py\", \"--connect\", \"{{addr}}\", \"--seed\", \"{{seed}}\", \"--name\", \"{{name}}\", \"--quiet\""
    )
}

/// An engine entry: `sh tests/engines/wrap.sh WRAP_ARGS... ENGINE...`.
fn wrapped(name: &str, wrap_args: &str, engine: &str) -> String {
    format!(
        "[[tournament.engine]]\nname = \"{name}\"\ncommand = \"sh\"\nargs = [\"{ROOT}/tests/engines/wrap.sh\", {wrap_args}{engine}]\n"
    )
}

/// The Python reference bot, unwrapped.
fn python_bot(name: &str) -> String {
    format!(
        "[[tournament.engine]]\nname = \"{name}\"\ncommand = \"python3\"\nargs = [{}]\n",
        python_bot_args().split_once(", ").unwrap().1
    )
}

/// Writes a two-game tournament file (one deal, seats swapped) in `dir`.
fn config(dir: &Path, head: &str, engines: &[String]) -> PathBuf {
    let path = dir.join("t.toml");
    let text = format!(
        "[tournament]\nvariant = \"traditional-2x4\"\nseed = \"test\"\ndeals = 1\nconcurrency = 1\nconnect_timeout_ms = 20000\nengine_logs = \"game\"\noutput = \"{}\"\nlogs = \"{}\"\n{head}\n{}",
        dir.join("out.jsonl").display(),
        dir.join("logs").display(),
        engines.concat()
    );
    std::fs::write(&path, text).unwrap();
    path
}

/// The token the runner used to give seat `seat` of game `index`, derived from the master seed
/// (copied from the old `schedule::token`): what a stranger who knows the seed can compute.
fn derived_token(master: &str, index: u64, seat: usize) -> String {
    let digest =
        Sha256::digest(format!("anqi-tournament-v1\n{master}\ntoken/{index}/{seat}").as_bytes());
    format!(
        "t{:016x}",
        u64::from_be_bytes(digest[..8].try_into().unwrap())
    )
}

/// A FIFO at `path`.
fn fifo(path: &Path) -> PathBuf {
    let ok = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(ok.success(), "mkfifo {}", path.display());
    path.to_path_buf()
}

/// Opens a FIFO for writing: returns once an engine has opened it for reading (the engine's cue
/// that it waits). Dropping the file lets the engine go on.
fn open_gate(path: &Path) -> std::fs::File {
    let path = path.to_path_buf();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(std::fs::OpenOptions::new().write(true).open(path).unwrap());
    });
    rx.recv_timeout(PATIENCE)
        .expect("the engine came to its gate")
}

/// Reads what an engine writes to a FIFO (blocks until it has written and closed it).
fn read_fifo(path: &Path) -> String {
    let path = path.to_path_buf();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        std::fs::File::open(path)
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        let _ = tx.send(text);
    });
    rx.recv_timeout(PATIENCE)
        .expect("the engine wrote to the FIFO")
}

/// `anqi tournament FILE` with progress and warnings (RUST_LOG=warn) on stderr, killed if the
/// test fails before it ends.
struct Tournament {
    child: Option<Child>,
    addr: String,
    stderr: Option<std::thread::JoinHandle<String>>,
}

impl Tournament {
    fn start(file: &Path, extra: &[&str]) -> Tournament {
        let mut child = Command::new(ANQI)
            .arg("tournament")
            .arg(file)
            .args(extra)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut first = String::new();
        stderr.read_line(&mut first).unwrap();
        let addr = first
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("first line is `listening on HOST:PORT`, got {first:?}"))
            .to_string();
        let stderr = std::thread::spawn(move || {
            let mut rest = String::new();
            let _ = stderr.read_to_string(&mut rest);
            rest
        });
        Tournament {
            child: Some(child),
            addr,
            stderr: Some(stderr),
        }
    }

    /// Waits for the end; asserts success; returns stderr after the address line.
    fn finish(mut self) -> String {
        let status = self.child.take().unwrap().wait().unwrap();
        let stderr = self.stderr.take().unwrap().join().unwrap();
        assert!(status.success(), "anqi tournament failed:\n{stderr}");
        stderr
    }
}

impl Drop for Tournament {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A hand-driven connection.
struct Client {
    reader: BufReader<TcpStream>,
    /// Its own address: what the server's log must name.
    local: SocketAddr,
}

impl Client {
    /// Connects and sends `(init NAME TOKEN)`.
    fn join(addr: &str, name: &str, token: &str) -> Client {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream.set_read_timeout(Some(PATIENCE)).unwrap();
        let mut c = Client {
            reader: BufReader::new(stream.try_clone().unwrap()),
            local: stream.local_addr().unwrap(),
        };
        assert_eq!(c.line().as_deref(), Some("((version 1.0))"));
        stream
            .write_all(format!("((init {name} {token}))\n").as_bytes())
            .unwrap();
        c
    }

    /// The next line, or `None` once the server closed the connection.
    fn line(&mut self) -> Option<String> {
        let mut s = String::new();
        let n = self.reader.read_line(&mut s).expect("a line in time");
        (n > 0).then(|| s.trim_end().to_string())
    }

    /// Asserts the server refuses the connection with `((error unexpected "...WHY..."))` and
    /// closes it (instead of seating it: a seated client would wait for, or get, the setup).
    fn expect_refused(mut self, why: &str) -> SocketAddr {
        let got = self.line();
        assert!(
            got.as_deref()
                .is_some_and(|l| l.starts_with("((error unexpected") && l.contains(why)),
            "expected a refusal ({why}), got {got:?}"
        );
        assert_eq!(self.line(), None, "the refused connection is closed");
        self.local
    }
}

fn records(dir: &Path) -> Vec<GameRecord> {
    let mut records: Vec<GameRecord> = anqi_core::record::read_records(&dir.join("out.jsonl"))
        .unwrap()
        .into_iter()
        .map(|(_, r)| r.unwrap())
        .collect();
    records.sort_by_key(|r| r.tournament.as_ref().unwrap().index);
    records
}

fn log(dir: &Path, game: u64, seat: usize, name: &str) -> String {
    let path = dir.join(format!("logs/game-{game:05}-seat{seat}-{name}.log"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The value after `key: ` on the line of `log` that starts with it.
fn logged<'a>(log: &'a str, key: &str) -> &'a str {
    log.lines()
        .find_map(|l| l.strip_prefix(&format!("{key}: ")))
        .unwrap_or_else(|| panic!("no {key} in the engine's log:\n{log}"))
}

#[test]
fn a_stranger_who_knows_the_master_seed_takes_no_seat() {
    let dir = TempDir::new("tok-stranger");
    let gate = fifo(&dir.0.join("gate"));
    // Seat 1's engine waits at the gate, so the stranger comes first to a game that is ordered
    // (the engine has been started) and waits for its players.
    let gated = wrapped(
        "alpha",
        &format!("\"--gate\", \"{}\", ", gate.display()),
        &python_bot_args(),
    );
    let file = config(&dir.0, "", &[gated, python_bot("beta")]);
    // Only game 0: alpha in seat 1.
    let run = Tournament::start(&file, &["--shard", "0/2"]);
    let held = open_gate(&gate);
    let mut strangers = Vec::new();
    for seat in 1..=2 {
        let stranger = Client::join(&run.addr, "stranger", &derived_token("test", 0, seat));
        strangers.push(stranger.expect_refused("no game is waiting for this token"));
    }
    drop(held);
    let stderr = run.finish();

    let records = records(&dir.0);
    assert_eq!(records.len(), 1);
    let r = &records[0];
    assert!(
        !r.result.reason.is_fault(),
        "played normally: {:?}",
        r.result
    );
    let names: Vec<&str> = r.players.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["alpha", "beta"], "the real engines played");
    // Each attempt was logged with the stranger's address.
    for addr in strangers {
        assert!(
            stderr
                .lines()
                .any(|l| l.contains("no game waits for") && l.contains(&addr.to_string())),
            "a warning names {addr}:\n{stderr}"
        );
    }
}

/// Someone trying tokens by the hundred gets each one refused, and leaves a few lines in the
/// log, not one per try (issue 18: 20,000 tries wrote 3.4 MB of warnings).
#[test]
fn tokens_tried_by_the_hundred_leave_a_few_log_lines() {
    let dir = TempDir::new("tok-flood");
    let gate = fifo(&dir.0.join("gate"));
    let gated = wrapped(
        "alpha",
        &format!("\"--gate\", \"{}\", ", gate.display()),
        &python_bot_args(),
    );
    let file = config(&dir.0, "", &[gated, python_bot("beta")]);
    let run = Tournament::start(&file, &["--shard", "0/2"]);
    let held = open_gate(&gate);
    for i in 0..200 {
        Client::join(&run.addr, "guesser", &format!("guess{i}"))
            .expect_refused("no game is waiting for this token");
    }
    drop(held);
    let stderr = run.finish();
    let warnings = stderr
        .lines()
        .filter(|l| l.contains("no game waits for"))
        .count();
    assert!(
        (1..=5).contains(&warnings),
        "{warnings} warnings:\n{stderr}"
    );
}

#[test]
fn started_engines_get_their_token_in_the_environment_not_on_the_command_line() {
    let dir = TempDir::new("tok-env");
    // alpha in the shipped example's style; beta takes `--token {token}` on its command line.
    let alpha = wrapped("alpha", "", &python_bot_args());
    let beta = wrapped(
        "beta",
        "",
        &python_bot_args().replace("\"--quiet\"", "\"--quiet\", \"--token\", \"{token}\""),
    );
    let file = config(&dir.0, "", &[alpha, beta]);
    let stderr = Tournament::start(&file, &[]).finish();

    let records = records(&dir.0);
    assert_eq!(records.len(), 2);
    let record_text = std::fs::read_to_string(dir.0.join("out.jsonl")).unwrap();
    let mut tokens = Vec::new();
    for r in &records {
        let tag = r.tournament.as_ref().unwrap();
        for (s, name) in tag.engines.iter().enumerate() {
            let log = log(&dir.0, tag.index, s + 1, name);
            let (cmdline, token) = (logged(&log, "cmdline"), logged(&log, "token"));
            assert!(
                token.len() == 33
                    && token.starts_with('t')
                    && token[1..].chars().all(|c| c.is_ascii_hexdigit()),
                "{name} got a 128-bit token in ANQI_TOKEN, got {token:?}"
            );
            assert_ne!(token, derived_token("test", tag.index, s + 1));
            assert!(cmdline.contains("anqi_random_bot.py"), "{cmdline}");
            if name == "alpha" {
                assert!(
                    !cmdline.contains(token),
                    "alpha's command line shows its token: {cmdline}"
                );
            } else {
                assert!(cmdline.contains(token), "beta asked for it: {cmdline}");
            }
            assert!(
                !record_text.contains(token),
                "tokens are secrets: records are published"
            );
            tokens.push(token.to_string());
        }
        // Both were seated with the token they found: alpha's from the environment alone.
        assert!(
            !r.result.reason.is_fault(),
            "played normally: {:?}",
            r.result
        );
    }
    tokens.sort();
    tokens.dedup();
    assert_eq!(tokens.len(), 4, "a fresh token per seat and game");
    // Only the engine with {token} on its command line is warned about.
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.contains("warning")).collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(
        warnings[0].contains("\"beta\"") && warnings[0].contains("command line"),
        "{stderr}"
    );
}

#[test]
fn the_shipped_example_passes_no_token_on_the_command_line() {
    let example = std::fs::read_to_string(Path::new(ROOT).join("tournament.toml")).unwrap();
    let config: toml::Value = toml::from_str(&example).unwrap();
    let engines = config["tournament"]["engine"].as_array().unwrap();
    assert!(!engines.is_empty());
    for e in engines {
        let text = e.to_string();
        assert!(!text.contains("{token}"), "{text}");
    }
}

#[test]
fn a_reused_token_is_refused_and_logged_while_the_games_go_on() {
    let dir = TempDir::new("tok-reuse");
    let (tell, gate) = (fifo(&dir.0.join("tell")), fifo(&dir.0.join("gate")));
    // Once seated, "holder" tells the test its token and waits at the gate; after it, it plays
    // a reveal and resigns. It plays seat 1 of game 0 and seat 2 of game 1.
    let holder = format!(
        "[[tournament.engine]]\nname = \"holder\"\ncommand = \"python3\"\nargs = [\"{ROOT}/tests/engines/misbehave.py\", \"pause\", \"--connect\", \"{{addr}}\", \"--tell\", \"{}\", \"--gate\", \"{}\"]\n",
        tell.display(),
        gate.display()
    );
    // With a grace for lost connections too: a token takes back only the seat of an engine
    // whose connection was lost, never one still connected.
    let head = "rejoin_grace_ms = 60000\n[tournament.clock]\ngame_ms = 120000\nmove_ms = 30000";
    let file = config(&dir.0, head, &[holder, python_bot("beta")]);
    let run = Tournament::start(&file, &[]);
    let already = "this token's seat is already taken";
    let mut thieves = Vec::new();

    // Game 0 runs, with holder seated by its token.
    let first = read_fifo(&tell).trim().to_string();
    thieves.push(Client::join(&run.addr, "thief", &first).expect_refused(already));
    drop(open_gate(&gate));

    // Game 1 runs: game 0 is over, yet its token still seats nobody; nor does game 1's, twice.
    let second = read_fifo(&tell).trim().to_string();
    assert_ne!(first, second, "a fresh token per game");
    thieves.push(Client::join(&run.addr, "thief", &first).expect_refused(already));
    thieves.push(Client::join(&run.addr, "thief", &second).expect_refused(already));
    drop(open_gate(&gate));
    let stderr = run.finish();

    let records = records(&dir.0);
    assert_eq!(records.len(), 2);
    for r in &records {
        let tag = r.tournament.as_ref().unwrap();
        let seat = tag.engines.iter().position(|e| e == "holder").unwrap() + 1;
        // The holder's connection outlived the refusals: it revealed, then resigned.
        assert_eq!(r.result.reason.name(), "resign", "{:?}", r.result);
        assert_eq!(r.result.loser, Some(seat));
        assert!(r.plies.len() >= 2, "the game went on: {:?}", r.plies);
        assert!(r.players.iter().all(|p| p.name != "thief"));
    }
    for addr in thieves {
        assert!(
            stderr.lines().any(|l| l.contains("WARN")
                && l.contains("already taken")
                && l.contains(&addr.to_string())),
            "a warning names {addr}:\n{stderr}"
        );
    }
}

#[test]
fn anqi_token_prints_a_fresh_secret() {
    let token = || {
        let out = Command::new(ANQI).arg("token").output().unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let (a, b) = (token(), token());
    assert_ne!(a, b);
    let a = a.strip_suffix('\n').unwrap();
    assert!(a.len() == 33 && a.starts_with('t') && a[1..].chars().all(|c| c.is_ascii_hexdigit()));
}
