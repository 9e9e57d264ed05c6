//! Solution files are untrusted input (issue 32, section 5): `anqi solve --verify` refuses a
//! file whose states are out of order, whose semantics were changed or whose number of states
//! no file holds (it aborted on that), with the reason and status 1; the perfect player
//! (`anqi-bot --strategy perfect`) refuses to play a game of another variant than its
//! solution's, whether given with --variant or sent by the server.

use crate::common;

use common::{TempDir, TestServer};
use std::path::{Path, PathBuf};
use std::process::Command;

const ANQI: &str = env!("CARGO_BIN_EXE_anqi");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// traditional-2x4's rules on a 2x2 board with `pieces`, written to `dir/NAME.sexp` (also for
/// `perfect_without_rules`).
pub(crate) fn tiny(dir: &Path, name: &str, pieces: &str) -> PathBuf {
    let text = std::fs::read_to_string(format!("{ROOT}/protocol/variants/traditional-2x4.sexp"))
        .unwrap()
        .replace("(name traditional-2x4)", &format!("(name {name})"))
        .replace("(rectangle 2 4)", "(rectangle 2 2)")
        .replace("(pieces KPPPkppp)", &format!("(pieces {pieces})"));
    let path = dir.join(format!("{name}.sexp"));
    std::fs::write(&path, text).unwrap();
    path
}

/// `anqi solve VARIANT --out VARIANT.solution`.
pub(crate) fn solve(variant: &Path) -> PathBuf {
    let out = variant.with_extension("solution");
    let run = Command::new(ANQI)
        .arg("solve")
        .arg(variant)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    out
}

/// `anqi solve --verify FILE`: its exit status and stdout.
fn verify(file: &Path) -> (Option<i32>, String) {
    let out = Command::new(ANQI)
        .args(["solve", "--verify"])
        .arg(file)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// A solution file's header (JSON) and its states, 26 bytes each.
fn parts(file: &Path) -> (serde_json::Value, Vec<Vec<u8>>) {
    let bytes = std::fs::read(file).unwrap();
    let end = bytes.iter().position(|&b| b == b'\n').unwrap();
    let header = serde_json::from_slice(&bytes[..end]).unwrap();
    let states = bytes[end + 1..].chunks(26).map(<[u8]>::to_vec).collect();
    (header, states)
}

fn write(file: &Path, header: &serde_json::Value, states: &[Vec<u8>]) {
    let mut out = serde_json::to_vec(header).unwrap();
    out.push(b'\n');
    for s in states {
        out.extend_from_slice(s);
    }
    std::fs::write(file, out).unwrap();
}

#[test]
fn solve_verify_refuses_swapped_states_a_changed_semantics_and_a_huge_count() {
    let dir = TempDir::new("solutions-untrusted");
    let solution = solve(&tiny(&dir.0, "tiny", "KPkp"));
    let (code, out) = verify(&solution);
    assert_eq!(code, Some(0), "{out}");
    let (header, states) = parts(&solution);
    let changed = dir.0.join("changed.solution");
    let not_verified = |what: &str, expected: &str| {
        let (code, out) = verify(&changed);
        assert_eq!(code, Some(1), "{what}: {out}");
        assert!(
            out.contains(": NOT verified: ") && out.contains(expected),
            "{what}: {out}"
        );
        assert!(out.len() < 600, "{what}: {out}");
    };
    // Two states swapped: every value still follows from its children's, but a lookup by
    // bisection (anqi.Solution) no longer finds them.
    let mut swapped = states.clone();
    swapped.swap(10, 11);
    write(&changed, &header, &swapped);
    not_verified("swapped", "not sorted by key");
    // Another semantics claimed.
    let mut other = header.clone();
    other["semantics"] = "the referee's draw rules".into();
    write(&changed, &other, &states);
    not_verified("semantics", "semantics \"the referee's draw rules\"");
    // A count of states no file holds (it aborted the check, allocating for them).
    for n in [1_000_000_000_000_000u64, u64::MAX] {
        let mut huge = header.clone();
        huge["states"] = n.into();
        write(&changed, &huge, &states);
        not_verified(
            "huge",
            &format!("where the {n} states the header says take"),
        );
    }
}

/// `anqi-bot --strategy perfect ARGS...` against `addr`: its exit status and stderr.
fn perfect_bot(addr: &str, solution: &Path, more: &[&str]) -> (Option<i32>, String) {
    use std::io::Read;
    let mut child = Command::new(common::anqi_bot())
        .args(["--connect", addr, "--strategy", "perfect", "--solution"])
        .arg(solution)
        .args(more)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // A bot that does not refuse would play, or wait, for ever: a failure, not a hang.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let mut stderr = String::new();
    let _ = child.stderr.take().unwrap().read_to_string(&mut stderr);
    let status =
        status.unwrap_or_else(|| panic!("the bot neither refused nor ended within 60 s: {stderr}"));
    (status.code(), stderr)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_perfect_player_refuses_a_game_of_another_variant_than_its_solution() {
    let dir = TempDir::new("solutions-untrusted-bot");
    let solution = solve(&tiny(&dir.0, "tiny", "KPkp"));
    // The same board and rules with other pieces: no state of the solution is one of its.
    let other = tiny(&dir.0, "other", "GPgp");
    let mut server = TestServer::start(other.to_str().unwrap(), "").await;
    let addr = server.addr();
    // Given on the command line: refused before it connects.
    let (code, stderr) = perfect_bot(&addr, &solution, &["--variant", other.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("--variant other is not the variant of the solution (--solution), tiny"),
        "{stderr}"
    );
    // Sent by the server: refused before a move (the game is lost by the disconnection, and
    // recorded).
    let opponent = common::random_bots(&addr, 1, 5).pop().unwrap();
    let bot = {
        let addr = addr.clone();
        let solution = solution.clone();
        tokio::task::spawn_blocking(move || perfect_bot(&addr, &solution, &[]))
    };
    let (code, stderr) = bot.await.unwrap();
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("the server plays variant other, not the variant tiny of the solution"),
        "{stderr}"
    );
    let _ = opponent.await.unwrap();
    let record = server.next_record().await;
    let me = 1 + record
        .players
        .iter()
        .position(|p| p.name == "perfect_bot")
        .unwrap();
    assert!(
        record.plies.iter().all(|p| p.player != me),
        "the perfect player played no ply: {:?}",
        record.plies
    );
    assert_eq!(record.result.loser, Some(me), "{:?}", record.result);
    server.stop_and_replay(1).await;
}
