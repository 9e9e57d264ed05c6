//! Nothing is announced that is not on disk (protocol/RECORDS.md, What is promised), whatever
//! the disk does. Storage faults are made for real where a test can make them: a records file
//! that ends mid-line, `/dev/full` (every write fails with ENOSPC), a file-size limit
//! (`ulimit -f`: EFBIG, and SIGXFSZ unless ignored), the file or its directory removed while
//! the server runs. Each of these lost a game's record, or the server, before issue 18.

use crate::common;

use common::{RawClient, TempDir, TestServer};
use std::path::Path;
use std::time::Duration;

/// One game of `traditional-2x4` between two raw clients, player 2 resigning at once: every
/// line each player got, up to the server closing the connection.
async fn resigned_game(addr: &str) -> [Vec<String>; 2] {
    let mut a = RawClient::join(addr, "first", "1").await;
    let mut b = RawClient::join(addr, "second", "2").await;
    b.until("(info").await;
    b.send("((resign))\n").await;
    let mut lines = [Vec::new(), Vec::new()];
    for (client, lines) in [&mut a, &mut b].into_iter().zip(&mut lines) {
        while let Some(line) = client.try_line().await {
            lines.push(line);
        }
    }
    lines
}

/// Waits until the server has opened (and so created) its records file.
async fn opened(path: &Path) {
    for _ in 0..200 {
        if path.exists() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the server did not create {}", path.display());
}

/// `anqi replay --quiet FILE`'s summary line, whatever its status.
fn replay_summary(path: &Path) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_anqi"))
        .args(["replay", "--quiet"])
        .arg(path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    stdout.lines().last().unwrap_or_default().to_string()
}

/// Whether each player got the result right after an `unrecorded` error.
fn told_unrecorded(lines: &[Vec<String>; 2]) -> [bool; 2] {
    lines.clone().map(|lines| {
        let win = lines
            .iter()
            .position(|l| l.starts_with("((win "))
            .unwrap_or_else(|| panic!("no result: {lines:?}"));
        win > 0 && lines[win - 1].starts_with("((error unrecorded \"")
    })
}

#[tokio::test]
async fn a_torn_last_line_is_ended_before_the_next_record() {
    let dir = TempDir::new("torn");
    let path = dir.0.join("games.jsonl");
    let good = include_str!("../data/one-game.jsonl").trim_end();
    // A record, then half of one: what a crash or a full disk leaves.
    std::fs::write(&path, format!("{good}\n{}", &good[..good.len() / 2])).unwrap();
    let mut server =
        TestServer::start_with_records("traditional-2x4", "", Some(path.clone())).await;
    let lines = resigned_game(&server.addr()).await;
    assert_eq!(told_unrecorded(&lines), [false, false]);
    server.next_record().await;
    server.stop().await;
    // The torn line stays a line of its own (a failed record); the new game is whole.
    assert_eq!(replay_summary(&path), "2 verified, 1 failed");
}

#[tokio::test]
async fn a_full_disk_holds_new_games_and_says_the_result_is_not_on_disk() {
    let mut server = TestServer::start_with_records(
        "traditional-2x4",
        "[records]\nwrite_wait_ms = 300\n",
        Some("/dev/full".into()),
    )
    .await;
    let addr = server.addr();
    let lines = resigned_game(&addr).await;
    assert_eq!(told_unrecorded(&lines), [true, true], "{lines:?}");
    assert!(lines[0].iter().any(|l| l == "((win 1 0))"));
    // No new game while records cannot be written: a player ready to play is told why.
    let mut late = RawClient::join(&addr, "late", "3").await;
    let refusal = late.until("(error").await;
    assert!(
        refusal.starts_with("((error busy \"the server cannot write game records ("),
        "{refusal}"
    );
    late.expect_closed().await;
    // The record was never written, so nobody observed it as written.
    assert!(server.records.try_recv().is_err());
    server.stop().await;
}

#[tokio::test]
async fn a_records_file_removed_while_serving_is_written_again_by_its_name() {
    let dir = TempDir::new("removed");
    let path = dir.0.join("games.jsonl");
    let mut server =
        TestServer::start_with_records("traditional-2x4", "", Some(path.clone())).await;
    opened(&path).await;
    std::fs::remove_file(&path).unwrap();
    let lines = resigned_game(&server.addr()).await;
    assert_eq!(told_unrecorded(&lines), [false, false]);
    server.next_record().await;
    server.stop().await;
    assert_eq!(replay_summary(&path), "1 verified, 0 failed");
}

#[tokio::test]
async fn a_result_waits_for_a_removed_directory_to_come_back() {
    let dir = TempDir::new("gone");
    let records = dir.0.join("records");
    std::fs::create_dir(&records).unwrap();
    let path = records.join("games.jsonl");
    let mut server = TestServer::start_with_records(
        "traditional-2x4",
        "[records]\nwrite_wait_ms = 20000\n",
        Some(path.clone()),
    )
    .await;
    opened(&path).await;
    std::fs::remove_dir_all(&records).unwrap();
    let back = records.clone();
    let restore = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(700)).await;
        std::fs::create_dir(&back).unwrap();
    });
    let started = std::time::Instant::now();
    let lines = resigned_game(&server.addr()).await;
    restore.await.unwrap();
    // The result waited for the disk, then went out as usual: its record is there.
    assert!(started.elapsed() >= Duration::from_millis(600));
    assert_eq!(told_unrecorded(&lines), [false, false], "{lines:?}");
    server.next_record().await;
    server.stop().await;
    assert_eq!(replay_summary(&path), "1 verified, 0 failed");
}

#[test]
fn a_file_size_limit_fails_a_write_instead_of_killing_the_server() {
    let dir = TempDir::new("fsize");
    let path = dir.0.join("games.jsonl");
    // Already past the limit (`ulimit -f 1`: one block), so every record write fails with
    // EFBIG, and raises SIGXFSZ, which kills a process that does not ignore it.
    let good = include_str!("../data/one-game.jsonl").trim_end();
    std::fs::write(&path, format!("{good}\n{good}\n")).unwrap();
    let config = dir.0.join("config.toml");
    std::fs::write(&config, "[records]\nwrite_wait_ms = 300\n").unwrap();
    let mut command = std::process::Command::new("sh");
    command
        .arg("-c")
        .arg("ulimit -f 1 && exec \"$0\" serve --listen 127.0.0.1:0 --variant traditional-2x4 --config \"$1\" --records \"$2\"")
        .arg(env!("CARGO_BIN_EXE_anqi"))
        .arg(&config)
        .arg(&path)
        .stderr(std::process::Stdio::piped());
    let (child, addr) = common::spawn_server(command);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let lines = runtime.block_on(resigned_game(&addr));
    assert_eq!(told_unrecorded(&lines), [true, true], "{lines:?}");
    // Still serving: a new player is answered (busy while records cannot be written).
    let refusal = runtime.block_on(async {
        let mut late = RawClient::join(&addr, "late", "3").await;
        late.until("(error").await
    });
    assert!(refusal.starts_with("((error busy "), "{refusal}");
    // Stopped, it hands over the record it could not write, on stderr.
    terminate(&child);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{:?}", out.status);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("anqi: 1 game records could not be written"),
        "{stderr}"
    );
    let record = stderr
        .lines()
        .find(|l| l.starts_with("{\"format\""))
        .expect("the unsaved record on stderr");
    let saved = dir.0.join("saved.jsonl");
    std::fs::write(&saved, format!("{record}\n")).unwrap();
    assert_eq!(replay_summary(&saved), "1 verified, 0 failed");
    // The file itself is as it was: the failed writes were cut off again.
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        format!("{good}\n{good}\n")
    );
}

/// Sends SIGTERM to `child` (the server stops gracefully on it), by `kill`.
fn terminate(child: &std::process::Child) {
    let status = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}
