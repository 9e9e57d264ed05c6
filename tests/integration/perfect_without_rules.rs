//! The perfect player (`anqi-bot --strategy perfect`) on a server that does not send its rules:
//! the `variant` extension is never granted (a server of the paper's protocol alone, or one
//! that leaves extensions out). The bot compares what the setup message does tell (game type,
//! players, board, pieces) with its solution's variant, and refuses a game of another before
//! any move. Before, without the server's description the check was skipped and the bot
//! played the other variant's game by its solution's rules.
//!
//! anqi's own server always grants `variant` to a client that asks: between the bot and the
//! real server stands a proxy that drops the bot's `(ext ...)` request, so that the server
//! grants nothing, as such a server would.

use crate::common;

use crate::solutions_untrusted::{solve, tiny};
use common::{TempDir, TestServer};
use std::path::Path;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// A proxy to `server` for one connection: every line the client sends goes on to the server
/// but those that ask for extensions (`(ext ...)`), and every byte the server sends comes
/// back. Returns the proxy's address.
async fn without_extensions(server: String) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    tokio::spawn(async move {
        let (client, _) = listener.accept().await.unwrap();
        let upstream = TcpStream::connect(&server).await.unwrap();
        let (client_read, mut client_write) = client.into_split();
        let (upstream_read, mut upstream_write) = upstream.into_split();
        let down = tokio::spawn(async move {
            let mut upstream_read = upstream_read;
            let _ = tokio::io::copy(&mut upstream_read, &mut client_write).await;
            let _ = client_write.shutdown().await;
        });
        let mut lines = BufReader::new(client_read);
        let mut line = String::new();
        loop {
            line.clear();
            match lines.read_line(&mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) if line.contains("(ext ") => continue,
                Ok(_) => {
                    if upstream_write.write_all(line.as_bytes()).await.is_err() {
                        break;
                    }
                }
            }
        }
        let _ = upstream_write.shutdown().await;
        let _ = down.await;
    });
    addr
}

/// `anqi-bot --strategy perfect --solution SOLUTION` against `addr`: its exit status and
/// stderr (a failure after 60 s rather than a hang).
async fn perfect_bot(addr: &str, solution: &Path) -> (Option<i32>, String) {
    let run = tokio::process::Command::new(common::anqi_bot())
        .args(["--connect", addr, "--strategy", "perfect", "--solution"])
        .arg(solution)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(std::time::Duration::from_secs(60), run)
        .await
        .expect("the bot neither refused nor ended within 60 s")
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The player id the perfect player had in `record`.
fn perfect_seat(record: &anqi_core::record::GameRecord) -> usize {
    1 + record
        .players
        .iter()
        .position(|p| p.name == "perfect_bot")
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_servers_rules_a_game_of_other_pieces_is_refused_before_a_move() {
    let dir = TempDir::new("perfect-without-rules");
    let solution = solve(&tiny(&dir.0, "tiny", "KPkp"));
    // The same board and rules with other pieces: what the setup's (pieces ...) tells.
    let other = tiny(&dir.0, "other", "GPgp");
    let mut server = TestServer::start(other.to_str().unwrap(), "").await;
    let proxy = without_extensions(server.addr()).await;
    let opponent = common::random_bots(&server.addr(), 1, 5).pop().unwrap();
    let (code, stderr) = perfect_bot(&proxy, &solution).await;
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "the server's setup is not of the variant tiny of the solution (--solution): its pieces are GPgp, the solution's KPkp: not played"
        ),
        "{stderr}"
    );
    let _ = opponent.await.unwrap();
    let record = server.next_record().await;
    let me = perfect_seat(&record);
    assert!(
        record.plies.iter().all(|p| p.player != me),
        "the perfect player played no ply: {:?}",
        record.plies
    );
    assert_eq!(record.result.loser, Some(me), "{:?}", record.result);
    server.stop_and_replay(1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_servers_rules_a_game_of_the_solutions_setup_is_played() {
    let dir = TempDir::new("perfect-without-rules-same");
    let variant = tiny(&dir.0, "tiny", "KPkp");
    let solution = solve(&variant);
    let mut server = TestServer::start(variant.to_str().unwrap(), "").await;
    let proxy = without_extensions(server.addr()).await;
    let opponent = common::random_bots(&server.addr(), 1, 5).pop().unwrap();
    let (code, stderr) = perfect_bot(&proxy, &solution).await;
    assert_eq!(code, Some(0), "{stderr}");
    // The proxy did keep the rules from it: the bot says what it assumed.
    assert!(
        stderr.contains("the server did not send its rules (the variant extension)"),
        "{stderr}"
    );
    let _ = opponent.await.unwrap();
    let record = server.next_record().await;
    let me = perfect_seat(&record);
    assert!(
        record.plies.iter().any(|p| p.player == me),
        "the perfect player played: {:?}",
        record.plies
    );
    assert!(record.faults.is_empty(), "{:?}", record.faults);
    server.stop_and_replay(1).await;
}
