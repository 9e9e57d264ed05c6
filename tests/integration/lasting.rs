//! Lasting game numbers (issue 36, "Links that do not last"): a server started again on its
//! records file numbers its games after the file's, and its pages show the earlier games under
//! their own numbers; `anqi view` keeps the records' numbers too. Real servers on
//! 127.0.0.1:0, reference bots over TCP, the pages over real HTTP.

use crate::common::{random_bots, TempDir, TestServer};
use crate::web::{get, get_json};

/// A record of the shipped one-game file, numbered `game`, its first player named `name`.
fn record_line(game: u64, name: &str) -> String {
    let mut r: serde_json::Value =
        serde_json::from_str(include_str!("../data/one-game.jsonl").trim_end()).unwrap();
    r["game"] = game.into();
    r["players"][0]["name"] = name.into();
    r.to_string()
}

/// Plays one game of two reference bots on `server` and returns its record.
async fn play_one(server: &mut TestServer, first_seed: u64) -> anqi_core::record::GameRecord {
    for bot in random_bots(&server.addr(), 2, first_seed) {
        bot.await.unwrap().unwrap();
    }
    server.next_record().await
}

/// The game list's line for game `game`.
async fn listed(web: &str, game: u64) -> serde_json::Value {
    let list = get_json(web, "/api/games").await;
    list["games"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["game"] == game)
        .unwrap_or_else(|| panic!("game {game} listed: {list}"))
        .clone()
}

/// Waits (up to 10 s) until the list says game `game`'s exchange can be had; its line then.
async fn until_exchange(web: &str, game: u64) -> serde_json::Value {
    for _ in 0..500 {
        let list = get_json(web, "/api/games").await;
        let line = list["games"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["game"] == game);
        if let Some(line) = line.filter(|l| l["exchange"] == true) {
            return line.clone();
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("game {game}'s exchange never listed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_server_started_again_numbers_after_its_records_and_shows_the_earlier_games() {
    let dir = TempDir::new("lasting");
    let records = dir.0.join("games.jsonl");
    let (mut first, web) =
        TestServer::start_watched_with_records("traditional-2x4", "", records.clone()).await;
    let one = play_one(&mut first, 1).await;
    let two = play_one(&mut first, 3).await;
    assert_eq!((one.game, two.game), (1, 2));
    // Played with the pages on: its exchange is there, and the list says so (once the hub
    // has the game's end: a record is written before its feed ends).
    let line = until_exchange(&web, 2).await;
    assert_eq!(line["board"], two.final_board.as_str(), "{line}");
    let _ = first.stop().await;

    let (mut again, web) =
        TestServer::start_watched_with_records("traditional-2x4", "", records.clone()).await;
    // The earlier games, under their own numbers, with their players; no exchange to offer.
    for earlier in [&one, &two] {
        let line = listed(&web, earlier.game).await;
        assert_eq!(line["state"], "finished");
        let names: Vec<&str> = earlier.players.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(line["players"], serde_json::json!(names), "{line}");
        assert_eq!(line["exchange"], false, "{line}");
        assert_eq!(line["board"], earlier.final_board.as_str());
        let events = get_json(&web, &format!("/api/games/{}", earlier.game)).await;
        let end = events["events"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(end["type"], "end");
        assert_eq!(end["record"]["started_unix_ms"], earlier.started_unix_ms);
        let (status, body) = get(&web, &format!("/api/games/{}/exchange", earlier.game)).await;
        assert_eq!(status, 404, "{body}");
    }
    // The next game comes after them.
    let three = play_one(&mut again, 5).await;
    assert_eq!(three.game, 3);
    until_exchange(&web, 3).await;
    let (path, _dir) = again.stop().await;
    let numbers: Vec<u64> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["game"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(numbers, [1, 2, 3]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_records_file_with_bad_lines_still_starts_the_server() {
    let dir = TempDir::new("lasting-bad");
    let records = dir.0.join("games.jsonl");
    let mut text = String::new();
    text.push_str(&record_line(7, "seven"));
    text.push_str("\nnot a record at all\n");
    // Past the longest line read (64 MiB): skipped without being kept.
    text.push_str(&"x".repeat(anqi_core::record::MAX_RECORD_LINE_BYTES + 10));
    text.push('\n');
    // A number no page counts exactly is not believed.
    text.push_str(&record_line(u64::MAX, "forged"));
    text.push_str("\n{\"format\": 1, \"game\": 1000\n");
    text.push_str(&record_line(3, "three"));
    std::fs::write(&records, text).unwrap();
    let (mut server, web) =
        TestServer::start_watched_with_records("traditional-2x4", "", records.clone()).await;
    let next = play_one(&mut server, 1).await;
    assert_eq!(next.game, 8, "after the highest good record's number");
    assert_eq!(listed(&web, 7).await["players"][0], "seven");
    assert_eq!(listed(&web, 3).await["players"][0], "three");
    let list = get_json(&web, "/api/games").await;
    let shown: Vec<u64> = list["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["game"].as_u64().unwrap())
        .collect();
    assert_eq!(shown, [8, 7, 3]);
    let _ = server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_records_file_starts_at_one() {
    let dir = TempDir::new("lasting-none");
    let records = dir.0.join("new.jsonl");
    let (mut server, _web) =
        TestServer::start_watched_with_records("traditional-2x4", "", records).await;
    assert_eq!(play_one(&mut server, 1).await.game, 1);
    let _ = server.stop().await;
}

#[test]
fn anqi_view_keeps_the_records_numbers_and_renumbers_only_those_taken() {
    let dir = TempDir::new("lasting-view");
    let a = dir.0.join("a.jsonl");
    let b = dir.0.join("b.jsonl");
    let lines = |games: &[(u64, &str)]| -> String {
        games
            .iter()
            .map(|(g, n)| record_line(*g, n) + "\n")
            .collect()
    };
    std::fs::write(&a, lines(&[(4, "a4"), (12, "a12")])).unwrap();
    std::fs::write(&b, lines(&[(12, "b12"), (5, "b5"), (4, "b4")])).unwrap();
    let (mut child, web) = crate::common::spawn_view([&a, &b], std::process::Stdio::piped());
    let rt = tokio::runtime::Runtime::new().unwrap();
    let list = rt.block_on(get_json(&web, "/api/games"));
    child.kill().unwrap();
    child.wait().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    let shown: Vec<(u64, String)> = list["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            let name = g["players"][0].as_str().unwrap().to_string();
            (g["game"].as_u64().unwrap(), name)
        })
        .collect();
    // The first file's numbers stand; the second's 12 and 4 were taken: 13 and 14.
    let expected = [(14, "b4"), (13, "b12"), (12, "a12"), (5, "b5"), (4, "a4")];
    let expected: Vec<(u64, String)> = expected.iter().map(|(g, n)| (*g, n.to_string())).collect();
    assert_eq!(shown, expected);
    let said: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("renumbered"))
        .collect();
    assert_eq!(
        said,
        [format!(
            "{}: 2 games renumbered, their numbers were taken by an earlier file",
            b.display()
        )],
        "{stderr}"
    );
}
