//! `anqi tables build` builds the materials of each level on threads (`--threads`, by default
//! the machine's cores): whatever the threads, the file is the one a single thread writes, byte
//! for byte but the build's time in the header; and the build says on stderr how far it is and
//! about how long it has left.

use crate::common::TempDir;
use std::path::Path;
use std::process::Command;

const ANQI: &str = env!("CARGO_BIN_EXE_anqi");

/// Builds the traditional tables of 3 pieces on `threads` threads into `dir`: the file's
/// first line, its header (JSON) and its body, and the build's stderr.
fn build(dir: &Path, threads: usize) -> (Vec<u8>, serde_json::Value, Vec<u8>, String) {
    let out = dir.join(format!("t{threads}.tables"));
    let run = Command::new(ANQI)
        .args(["tables", "build", "traditional", "--pieces", "3"])
        .args(["--threads", &threads.to_string(), "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    assert!(run.status.success(), "{stderr}");
    let bytes = std::fs::read(&out).unwrap();
    let mut parts = bytes.splitn(3, |&b| b == b'\n');
    let magic = parts.next().unwrap().to_vec();
    let header = serde_json::from_slice(parts.next().unwrap()).unwrap();
    let body = parts.next().unwrap().to_vec();
    (magic, header, body, stderr)
}

#[test]
fn threads_change_nothing_in_the_tables_and_the_build_says_what_is_left() {
    let dir = TempDir::new("tables-threads");
    let (magic, mut one, body, stderr) = build(&dir.0, 1);
    // More threads than this machine may have: the work is shared all the same.
    for threads in [2, 5] {
        let (m, mut h, b, _) = build(&dir.0, threads);
        assert_eq!(m, magic);
        // The build's own time is the one thing allowed to differ.
        one["build_seconds"] = 0.into();
        h["build_seconds"] = 0.into();
        assert_eq!(h, one, "{threads} threads: the header differs");
        assert!(b == body, "{threads} threads: the tables' bytes differ");
    }
    let materials = one["materials"].as_array().unwrap();
    assert!(materials.len() > 30, "{one}");
    // The 2-piece level ends with the 3-piece one still to build: a share and a time left.
    let lines: Vec<&str> = stderr.split('\r').map(str::trim).collect();
    let level2 = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("tables: 2 pieces:"))
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(
        level2.contains("% of all positions in") && level2.contains(" left"),
        "{level2}"
    );
    let last = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("tables: 3 pieces:"))
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(last.contains("100% of all positions"), "{last}");
}
