//! The ladder (issue 37, parts 1 and 2), as an operator and bot authors use it: accounts made
//! with `anqi ladder add`, a real `anqi serve --ladder` over TCP, reference bots of known
//! strengths connecting with their secrets, the pages' `/api/ladder` and `/api/players/NAME`,
//! a restart in the middle, `anqi ladder rebuild` compared with the live database, and the
//! kill -9 probe: a server killed at random moments loses no recorded game and counts none
//! twice, and its ratings equal a rebuild's from the records. And several servers sharing one
//! ladder in PostgreSQL (skipped without `ANQI_POSTGRES_URL`; .ci/postgres.sh starts one).

use crate::common::cli::anqi;
use crate::common::{anqi_bot, Killed, RawClient, TempDir};
use crate::web::get_json;
use anqi_core::record::GameRecord;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// `anqi ladder add NAME`: the secret it prints.
pub(crate) fn add(db: &Path, name: &str) -> String {
    let out = anqi(["ladder", "add", name, "--database"])
        .arg(db)
        .succeeds();
    let secret = out.stdout.trim().to_string();
    assert!(secret.starts_with("anqi-"), "{}", out.stdout);
    secret
}

/// `anqi serve --ladder DB` on 127.0.0.1:0 with its pages: the server (killed when dropped, so
/// a test that fails before it stops the server leaves no process behind), the games' address
/// and the pages'.
pub(crate) fn serve(dir: &Path, variant: &str, extra: &[&str]) -> (Killed, String, String) {
    serve_on(dir.join("ladder.db").as_os_str(), dir, variant, extra)
}

/// `anqi serve --ladder DATABASE` (a SQLite file or a PostgreSQL URL), its records in `dir`.
fn serve_on(
    database: &std::ffi::OsStr,
    dir: &Path,
    variant: &str,
    extra: &[&str],
) -> (Killed, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_anqi"));
    command
        .args(["serve", "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0"])
        .args(["--variant", variant, "--ladder"])
        .arg(database)
        .arg("--records")
        .arg(dir.join("games.jsonl"))
        .args(extra)
        .stderr(Stdio::null());
    let mut child = Killed(command.stdout(Stdio::piped()).spawn().unwrap());
    // One reader for both lines: a reader dropped after the first may hold the second.
    let mut out = std::io::BufReader::new(child.0.stdout.take().unwrap());
    let mut line = |prefix: &str| {
        let mut line = String::new();
        std::io::BufRead::read_line(&mut out, &mut line).unwrap();
        line.trim()
            .strip_prefix(prefix)
            .unwrap_or_else(|| panic!("a line `{prefix}...`, got {line:?}"))
            .trim_end_matches('/')
            .to_string()
    };
    let addr = line("listening on ");
    let web = line("web on http://");
    (child, addr, web)
}

/// A reference bot playing `games` games on the ladder as the account of `secret`.
pub(crate) fn bot(addr: &str, secret: &str, strategy: &[&str], games: u32) -> Child {
    Command::new(anqi_bot())
        .args([
            "--connect",
            addr,
            "--games",
            &games.to_string(),
            "--strategy",
        ])
        .args(strategy)
        .env("ANQI_TOKEN", secret)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Stops a server gracefully (SIGTERM) and waits for it.
pub(crate) fn stop(mut server: Killed) {
    let _ = Command::new("kill")
        .args(["-TERM", &server.0.id().to_string()])
        .status();
    let _ = server.0.wait();
}

/// The ladder games of a records file, whole lines only.
fn ladder_records(path: &Path) -> Vec<GameRecord> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<GameRecord>(l).ok())
        .filter(|r| r.ladder.is_some())
        .collect()
}

/// Waits (up to `secs`) until the leaderboard counts `games` rated games; returns it.
pub(crate) async fn until_rated(web: &str, games: u64, secs: u64) -> serde_json::Value {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let board = get_json(web, "/api/ladder").await;
        if board["games"].as_u64() >= Some(games) {
            return board;
        }
        assert!(
            Instant::now() < deadline,
            "never {games} rated games: {board}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The names on the leaderboard, best first.
fn order(board: &serde_json::Value) -> Vec<String> {
    board["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect()
}

/// `anqi ladder list` of a database, as text.
fn list(db: &Path, variant: &str) -> String {
    anqi(["ladder", "list", "--variant", variant, "--database"])
        .arg(db)
        .succeeds()
        .stdout
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ladder_rates_its_bots_shows_them_and_carries_on_after_a_restart() {
    let dir = TempDir::new("ladder");
    let db = dir.0.join("ladder.db");
    let strong = add(&db, "search-bot");
    let weak = add(&db, "random-bot");
    let retired = add(&db, "old-bot");
    let refused = anqi(["ladder", "add", "search-bot", "--database"])
        .arg(&db)
        .fails_with(2);
    assert!(
        refused.stderr.contains("already exists"),
        "{}",
        refused.stderr
    );
    anqi(["ladder", "retire", "old-bot", "--database"])
        .arg(&db)
        .succeeds();
    let variant = "traditional-2x4";
    let (server, addr, web) = serve(&dir.0, variant, &[]);

    // Wrong and retired secrets are refused with the reason.
    let mut stranger = RawClient::join(&addr, "x", "anqi-0123").await;
    let said = stranger.until("error").await;
    assert!(said.contains("no ladder account has this secret"), "{said}");
    let mut old = RawClient::join(&addr, "x", &retired).await;
    let said = old.until("error").await;
    assert!(said.contains("old-bot is retired"), "{said}");

    let mut bots = vec![
        bot(&addr, &strong, &["search", "--depth", "2"], 10),
        bot(&addr, &weak, &["random"], 10),
    ];
    let board = until_rated(&web, 10, 60).await;
    for b in &mut bots {
        assert!(b.wait().unwrap().success());
    }
    assert_eq!(order(&board)[..2], ["search-bot", "random-bot"], "{board}");
    // An operator sees the ladder's games and its database's latency.
    let (status, metrics) = crate::web::get(&web, "/metrics").await;
    assert_eq!(status, 200);
    for line in [
        "anqi_ladder_games_total{counted=\"rated\"} 10",
        "anqi_ladder_transaction_seconds_count 10",
    ] {
        assert!(metrics.lines().any(|l| l == line), "{line} in\n{metrics}");
    }
    let players = board["players"].as_array().unwrap();
    assert!(players[0]["rating"].as_f64() > players[1]["rating"].as_f64());
    assert_eq!(players[0]["games"], 10);
    let old_row = players.iter().find(|p| p["name"] == "old-bot").unwrap();
    assert_eq!(
        (old_row["retired"].as_bool(), old_row["rank"].is_null()),
        (Some(true), true)
    );

    // A player's page: every game linked, seats alternating, the rating after each.
    let page = get_json(&web, "/api/players/random-bot").await;
    assert_eq!(page["total"], 10);
    assert_eq!(page["history"].as_array().unwrap().len(), 10);
    let seats: Vec<u64> = page["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["seat"].as_u64().unwrap())
        .collect();
    assert_eq!(seats.iter().filter(|&&s| s == 1).count(), 5, "{seats:?}");
    assert_eq!(page["opponents"][0]["name"], "search-bot");

    // Restarted, the ladder carries on: numbers continue, ratings from where they were.
    stop(server);
    let before = list(&db, variant);
    let (server, addr, web) = serve(&dir.0, variant, &[]);
    assert_eq!(list(&db, variant), before);
    let mut bots = vec![
        bot(&addr, &strong, &["search", "--depth", "2"], 2),
        bot(&addr, &weak, &["random"], 2),
    ];
    until_rated(&web, 12, 60).await;
    for b in &mut bots {
        assert!(b.wait().unwrap().success());
    }
    stop(server);
    let records = ladder_records(&dir.0.join("games.jsonl"));
    let mut numbers: Vec<u64> = records.iter().map(|r| r.game).collect();
    assert_eq!(numbers.len(), 12);
    numbers.dedup();
    assert_eq!(
        numbers,
        (1..=12).collect::<Vec<u64>>(),
        "numbers continue after a restart"
    );
    for r in &records {
        assert_eq!(r.ladder.as_ref().unwrap().server, "anqi");
        assert!(
            r.players.iter().all(|p| p.seed.is_empty()),
            "no secret in a record"
        );
        let names: Vec<&str> = r.players.iter().map(|p| p.name.as_str()).collect();
        assert!(names.contains(&"search-bot") && names.contains(&"random-bot"));
    }

    // Rebuilt from the records with the live accounts: the same ladder.
    let rebuilt = rebuild(&dir.0, &db, variant);
    assert_eq!(list(&rebuilt, variant), list(&db, variant));
    assert_same_databases(&db, &rebuilt, variant);
}

/// `anqi ladder rebuild` of `dir`'s records with `db`'s accounts, into `dir/rebuilt.db`.
fn rebuild(dir: &Path, db: &Path, variant: &str) -> PathBuf {
    let rebuilt = dir.join("rebuilt.db");
    anqi(["ladder", "rebuild", "--variant", variant, "--records"])
        .arg(dir.join("games.jsonl"))
        .arg("--accounts-from")
        .arg(db)
        .arg("--into")
        .arg(&rebuilt)
        .succeeds();
    rebuilt
}

/// The two databases hold the same games, ratings and rating history, to the last bit.
fn assert_same_databases(live: &Path, rebuilt: &Path, variant: &str) {
    let (a, b) = (
        anqi_ladder::Store::open(live).unwrap(),
        anqi_ladder::Store::open(rebuilt).unwrap(),
    );
    assert_eq!(a.games(variant).unwrap(), b.games(variant).unwrap());
    assert_eq!(a.ratings(variant).unwrap(), b.ratings(variant).unwrap());
    for account in a.accounts().unwrap() {
        assert_eq!(
            a.history(account.id, variant).unwrap(),
            b.history(account.id, variant).unwrap(),
            "{}",
            account.name
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_account_holds_at_most_its_connections() {
    let dir = TempDir::new("ladder-cap");
    let db = dir.0.join("ladder.db");
    let secret = add(&db, "lonely");
    let config = dir.0.join("config.toml");
    std::fs::write(&config, "[ladder]\nconnections_per_account = 1\n").unwrap();
    let (server, addr, web) = serve(
        &dir.0,
        "traditional-2x4",
        &["--config", config.to_str().unwrap()],
    );
    // The first waits (nobody to play); a second connection of the account is refused.
    let mut first = RawClient::join(&addr, "lonely", &secret).await;
    // Once the first is waiting (its handshake done, the pages told), the second comes.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (_, metrics) = crate::web::get(&web, "/metrics").await;
        if metrics.lines().any(|l| l == "anqi_players_waiting 1") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the first never waited:\n{metrics}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mut second = RawClient::join(&addr, "lonely", &secret).await;
    let said = second.until("error").await;
    assert!(
        said.contains("busy") && said.contains("already holds 1 connections"),
        "{said}"
    );
    first.send("((resign))\n").await;
    let said = first.until("error").await;
    assert!(said.contains("the game has not started yet"), "{said}");
    stop(server);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_loses_no_recorded_game_and_counts_none_twice() {
    let dir = TempDir::new("ladder-kill");
    let db = dir.0.join("ladder.db");
    let secrets: Vec<String> = ["a", "b", "c", "d"].iter().map(|n| add(&db, n)).collect();
    let variant = "traditional-2x4";
    let mut rng_state = std::process::id() as u64 | 1;
    let mut next = || {
        rng_state ^= rng_state << 13;
        rng_state ^= rng_state >> 7;
        rng_state ^= rng_state << 17;
        rng_state
    };
    for round in 0..4 {
        let (mut server, addr, _web) = serve(&dir.0, variant, &[]);
        let mut bots: Vec<Child> = secrets
            .iter()
            .map(|s| bot(&addr, s, &["random"], 1000))
            .collect();
        // Once this run has recorded a game, killed at a random moment after: in the middle
        // of games, records and transactions.
        let before = ladder_records(&dir.0.join("games.jsonl")).len();
        let deadline = Instant::now() + Duration::from_secs(30);
        while ladder_records(&dir.0.join("games.jsonl")).len() == before {
            assert!(
                Instant::now() < deadline,
                "no game recorded in round {round}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        tokio::time::sleep(Duration::from_millis(next() % 800)).await;
        server.0.kill().unwrap();
        server.0.wait().unwrap();
        for b in &mut bots {
            let _ = b.kill();
            let _ = b.wait();
        }
    }
    // Started once more, it counts what the kills left uncounted (before it listens); then
    // stopped gracefully.
    let (server, _addr, _web) = serve(&dir.0, variant, &[]);
    let records = ladder_records(&dir.0.join("games.jsonl"));
    stop(server);
    let store = anqi_ladder::Store::open(&db).unwrap();
    let counted: Vec<u64> = store
        .games(variant)
        .unwrap()
        .iter()
        .map(|g| g.game_no)
        .collect();
    let recorded: Vec<u64> = records.iter().map(|r| r.game).collect();
    assert_eq!(
        counted, recorded,
        "every recorded game counted once, in the file's order"
    );
    let rebuilt = rebuild(&dir.0, &db, variant);
    assert_same_databases(&db, &rebuilt, variant);
}

/// One player of the unattended ladder: a command that plays one game as its account, run
/// again and again against the server's current address until told to stop.
struct Seat {
    name: &'static str,
    /// The program and its arguments, `{addr}` standing for the server's address.
    command: Vec<String>,
}

fn seats() -> Vec<Seat> {
    let bot = anqi_bot().display().to_string();
    let anqi = env!("CARGO_BIN_EXE_anqi").to_string();
    let engines = format!("{}/tests/engines", env!("CARGO_MANIFEST_DIR"));
    let rust = |strategy: &[&str]| {
        let mut c = vec![bot.clone(), "--connect".into(), "{addr}".into()];
        c.extend(["--strategy".to_string()]);
        c.extend(strategy.iter().map(|s| s.to_string()));
        c
    };
    let bridged = |protocol: &str, script: &str| {
        vec![
            anqi.clone(),
            "bridge".into(),
            "--protocol".into(),
            protocol.into(),
            "--connect".into(),
            "{addr}".into(),
            "--".into(),
            "python3".into(),
            format!("{engines}/{script}"),
        ]
    };
    vec![
        Seat {
            name: "search",
            command: rust(&["search", "--depth", "2"]),
        },
        Seat {
            name: "greedy",
            command: rust(&["greedy"]),
        },
        Seat {
            name: "random",
            command: rust(&["random"]),
        },
        Seat {
            name: "python-random",
            command: vec![
                "python3".into(),
                format!(
                    "{}/clients/python/anqi_random_bot.py",
                    env!("CARGO_MANIFEST_DIR")
                ),
                "--quiet".into(),
                "--connect".into(),
                "{addr}".into(),
            ],
        },
        Seat {
            name: "tcg-engine",
            command: bridged("tcg", "tcg_engine.py"),
        },
        Seat {
            name: "uci-engine",
            command: bridged("uci-banqi", "uci_engine.py"),
        },
    ]
}

/// Runs `seat`'s command over and over as the account of `secret` until `stop`.
fn keep_playing(
    seat: Seat,
    secret: String,
    addr: std::sync::Arc<std::sync::Mutex<String>>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<u32> {
    std::thread::spawn(move || {
        let mut runs = 0;
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            let now = addr.lock().unwrap().clone();
            let args: Vec<String> = seat.command[1..]
                .iter()
                .map(|a| a.replace("{addr}", &now))
                .collect();
            let _ = Command::new(&seat.command[0])
                .args(&args)
                .env("ANQI_TOKEN", &secret)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            runs += 1;
            std::thread::sleep(Duration::from_millis(50));
        }
        runs
    })
}

/// The ladder unattended (issue 37's "done means"): six players (the reference bots at three
/// strengths, the Python bot, and two test engines bridged from the tcg and UCI-Banqi
/// protocols), each on its account, for ANQI_LADDER_SOAK_S seconds (20 by default; the issue's
/// run is 600), with the server restarted in the middle. Every player is rated, search above
/// random, and after five minutes or more, the reference bots in the order of their known
/// strengths (search, greedy, random); the pages show it; nothing recorded goes uncounted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn six_players_run_unattended_through_a_restart() {
    let secs: u64 = std::env::var("ANQI_LADDER_SOAK_S")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    let dir = TempDir::new("ladder-soak");
    let db = dir.0.join("ladder.db");
    let variant = "traditional";
    let (server, addr, web) = serve(&dir.0, variant, &[]);
    let current = std::sync::Arc::new(std::sync::Mutex::new(addr));
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let players: Vec<_> = seats()
        .into_iter()
        .map(|seat| {
            let secret = add(&db, seat.name);
            keep_playing(seat, secret, current.clone(), done.clone())
        })
        .collect();
    tokio::time::sleep(Duration::from_secs(secs / 2)).await;
    let half = get_json(&web, "/api/ladder").await["games"]
        .as_u64()
        .unwrap();
    stop(server);
    let (server, addr, web) = serve(&dir.0, variant, &[]);
    *current.lock().unwrap() = addr;
    tokio::time::sleep(Duration::from_secs(secs - secs / 2)).await;
    let board = get_json(&web, "/api/ladder").await;
    // Told to stop, then the server stopped: a player still waiting for a partner is let go.
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    stop(server);
    for p in players {
        assert!(p.join().unwrap() > 0);
    }
    let games = board["games"].as_u64().unwrap();
    assert!(
        games > half && half > 0,
        "the ladder carried on: {half} then {games}"
    );
    let players = board["players"].as_array().unwrap();
    assert!(
        players.iter().all(|p| p["games"].as_u64() > Some(0)),
        "{board}"
    );
    let rank = |name: &str| order(&board).iter().position(|n| n == name).unwrap();
    assert!(rank("search") < rank("random"), "{board}");
    if secs >= 300 {
        assert!(
            rank("search") < rank("greedy") && rank("greedy") < rank("random"),
            "{board}"
        );
    }
    eprintln!(
        "ladder after {secs} s, {games} rated games:\n{}",
        list(&db, variant)
    );
    let store = anqi_ladder::Store::open(&db).unwrap();
    let records = ladder_records(&dir.0.join("games.jsonl"));
    assert_eq!(store.games(variant).unwrap().len(), records.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn numbers_continue_after_the_index_when_the_records_file_is_rotated() {
    let dir = TempDir::new("ladder-rotate");
    let db = dir.0.join("ladder.db");
    let (a, b) = (add(&db, "a"), add(&db, "b"));
    let variant = "traditional-2x4";
    // A fixed server seed would deal every ladder game alike: refused.
    let fixed = dir.0.join("fixed.toml");
    std::fs::write(&fixed, "[seed]\nserver = \"42\"\n").unwrap();
    let refused = anqi(["serve", "--listen", "127.0.0.1:0", "--ladder"])
        .arg(&db)
        .arg("--config")
        .arg(&fixed)
        .fails_with(2);
    assert!(
        refused
            .stderr
            .contains("a ladder needs [seed] server = \"random\""),
        "{}",
        refused.stderr
    );
    for round in 0..2 {
        let (server, addr, web) = serve(&dir.0, variant, &[]);
        let mut bots = vec![
            bot(&addr, &a, &["random"], 2),
            bot(&addr, &b, &["random"], 2),
        ];
        until_rated(&web, 2 * (round + 1), 60).await;
        for p in &mut bots {
            assert!(p.wait().unwrap().success());
        }
        stop(server);
        // Rotated: the records go elsewhere, and the server starts with an empty file.
        let records = dir.0.join("games.jsonl");
        let numbers: Vec<u64> = ladder_records(&records).iter().map(|r| r.game).collect();
        assert_eq!(numbers, [2 * round + 1, 2 * round + 2], "round {round}");
        std::fs::rename(&records, dir.0.join(format!("games-{round}.jsonl"))).unwrap();
    }
}

/// Several servers, one ladder (protocol/LADDER.md, Several servers): two `anqi serve --ladder
/// postgres://...` processes on one PostgreSQL database, each with its own [ladder] server
/// name and two bots of its own. Each counts its own games, numbered from 1 in its own records,
/// and both leaderboards end up with every game of both: the ladder is shared.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_share_one_ladder_in_postgres() {
    let test = "two_servers_share_one_ladder_in_postgres";
    let Some(db) = anqi_ladder::store::scratch::ScratchDatabase::new(test) else {
        return;
    };
    let url = Path::new(db.url());
    let secrets: Vec<String> = ["a", "b", "c", "d"].iter().map(|n| add(url, n)).collect();
    let variant = "traditional-2x4";
    let games = 3;
    let mut servers = Vec::new();
    for (name, players) in [("east", &secrets[..2]), ("west", &secrets[2..])] {
        let dir = TempDir::new(&format!("ladder-{name}"));
        let config = dir.0.join("config.toml");
        std::fs::write(&config, format!("[ladder]\nserver = \"{name}\"\n")).unwrap();
        let (server, addr, web) = serve_on(
            url.as_os_str(),
            &dir.0,
            variant,
            &["--config", config.to_str().unwrap()],
        );
        let bots: Vec<Child> = players
            .iter()
            .map(|s| bot(&addr, s, &["random"], games))
            .collect();
        servers.push((name, dir, server, web, bots));
    }
    for (_, _, _, _, bots) in &mut servers {
        for b in bots {
            assert!(b.wait().unwrap().success());
        }
    }
    // Every rated game either server recorded, each in its own file under its own name.
    let mut rated = 0;
    for (name, dir, _, _, _) in &servers {
        // A bot may leave as its last game ends, a moment before the record is written.
        let deadline = Instant::now() + Duration::from_secs(10);
        let records = loop {
            let records = ladder_records(&dir.0.join("games.jsonl"));
            if records.len() >= games as usize || Instant::now() > deadline {
                break records;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        assert_eq!(records.len(), games as usize, "{name}");
        let numbers: Vec<u64> = records.iter().map(|r| r.game).collect();
        assert_eq!(numbers, (1..=games as u64).collect::<Vec<_>>(), "{name}");
        assert!(records
            .iter()
            .all(|r| r.ladder.as_ref().unwrap().server == *name));
        rated += records
            .iter()
            .filter(|r| r.result.reason != anqi_core::rules::Termination::Aborted)
            .count() as u64;
    }
    // Both leaderboards count both servers' games (each reads the other's within a second),
    // and list all four players with their games.
    for (name, _, _, web, _) in &servers {
        let board = until_rated(web, rated, 20).await;
        assert_eq!(board["games"].as_u64(), Some(rated), "{name}: {board}");
        assert_eq!(board["server"], *name);
        let players = board["players"].as_array().unwrap();
        assert_eq!(players.len(), 4, "{board}");
        let played: u64 = players.iter().map(|p| p["games"].as_u64().unwrap()).sum();
        assert_eq!(played, 2 * rated, "{board}");
    }
    for (_, _, server, _, _) in servers.drain(..) {
        stop(server);
    }
    // One index: every game of both, each once, under its server's name.
    let store = anqi_ladder::Store::open(url).unwrap();
    let mut ids: Vec<(String, u64)> = store
        .games(variant)
        .unwrap()
        .into_iter()
        .map(|g| (g.server, g.game_no))
        .collect();
    ids.sort();
    let expected: Vec<(String, u64)> = ["east", "west"]
        .iter()
        .flat_map(|s| (1..=games as u64).map(move |n| (s.to_string(), n)))
        .collect();
    assert_eq!(ids, expected);
    drop(store);
}
