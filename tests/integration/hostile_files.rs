//! Hostile files through the binary, as a user (or an attacker) would give them: variant
//! descriptions to `anqi variant check` and `anqi serve --variant`, record files to
//! `anqi replay`. Every one gets a clear answer and the documented exit status; none crashes,
//! hangs or takes the machine's memory. The inputs are generated here, not committed.

use crate::common;

use anqi_core::rules::MAX_DESCRIPTION_BYTES;
use common::TempDir;
use std::fmt::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const ANQI: &str = env!("CARGO_BIN_EXE_anqi");

/// What a run of `anqi` gave.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

/// Runs `anqi ARGS...`, killing it after 30 s: a hang guard only, far above what any of these
/// inputs takes (the times are printed, not asserted).
fn anqi(args: &[&str]) -> Run {
    let started = Instant::now();
    let mut child = Command::new(ANQI)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Drain the pipes while waiting, so a long output cannot block the child.
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = Vec::new();
        std::io::Read::read_to_end(&mut out, &mut s).unwrap();
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = Vec::new();
        std::io::Read::read_to_end(&mut err, &mut s).unwrap();
        s
    });
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("anqi {args:?} did not finish within 30 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let run = Run {
        code: status.code(),
        stdout: String::from_utf8_lossy(&out.join().unwrap()).into_owned(),
        stderr: String::from_utf8_lossy(&err.join().unwrap()).into_owned(),
        elapsed: started.elapsed(),
    };
    eprintln!(
        "anqi {:?}: status {:?} in {:?}",
        short(args),
        run.code,
        run.elapsed
    );
    run
}

/// The arguments, with paths cut to their file names.
fn short(args: &[&str]) -> Vec<String> {
    args.iter()
        .map(|a| {
            Path::new(a)
                .file_name()
                .map_or(a.to_string(), |f| f.to_string_lossy().into_owned())
        })
        .collect()
}

/// `anqi variant check FILE` on `text`: it must refuse it with status 2 and `expected` in the
/// message.
fn check_refuses(dir: &TempDir, name: &str, text: &str, expected: &str) {
    let path = dir.0.join(name);
    std::fs::write(&path, text).unwrap();
    let run = anqi(&["variant", "check", path.to_str().unwrap()]);
    assert_eq!(run.code, Some(2), "{name}: {}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .starts_with(&format!("invalid: {}: ", path.display()))
            && run.stdout.contains(expected),
        "{name}: {expected:?} not in {:?}",
        run.stdout
    );
    assert!(run.stdout.len() < 1000, "{name}: a short message");
}

/// An explicit board: `(variant (name x) (board (cells N) (moves ...) (jumps ...)) (pieces Kk))`.
fn explicit(cells: usize, moves: &[(usize, usize)], jumps: &[(usize, usize, usize)]) -> String {
    let mut s = format!("(variant (name x)\n  (board (cells {cells})\n    (moves");
    for (a, b) in moves {
        let _ = write!(s, " ({a} {b})");
    }
    s.push_str(")\n    (jumps");
    for (o, a, b) in jumps {
        let _ = write!(s, " ({o} {a} {b})");
    }
    s.push_str("))\n  (pieces Kk) (colours fixed) (start open))\n");
    s
}

/// Pads a description with a comment to `bytes` bytes.
fn padded(mut text: String, bytes: usize) -> String {
    assert!(text.len() + 2 <= bytes, "{} bytes already", text.len());
    text.push(';');
    text.push_str(&"x".repeat(bytes - text.len() - 1));
    text.push('\n');
    assert_eq!(text.len(), bytes);
    text
}

#[test]
fn variant_check_refuses_what_used_to_crash_it() {
    let dir = TempDir::new("hostile-check");
    check_refuses(
        &dir,
        "quotes.sexp",
        &format!("(variant (name {}x))", "'".repeat(100_000)),
        "line 1: not a valid S-expression: quote, quasiquote and unquote",
    );
    check_refuses(
        &dir,
        "cells.sexp",
        "(variant (name x)\n  (board (cells 4000000000) (moves (0 1)))\n  (pieces Kk))",
        "line 2: (board ...): 4000000000 cells are more than 4096, the limit",
    );
    check_refuses(
        &dir,
        "rectangle.sexp",
        "(variant (name x) (board (rectangle 100000 100000)) (pieces Kk))",
        "(board ...): a 100000x100000 rectangle has more than 4096 cells, the limit",
    );
    check_refuses(
        &dir,
        "wrapping.sexp",
        "(variant (name x) (board (rectangle 4294967296 4294967296)) (pieces Kk))",
        "rectangle has more than 4096 cells, the limit",
    );
    check_refuses(
        &dir,
        "coords.sexp",
        "(variant (name x) (board (cells 2) (moves (0 1) (1 0)) (coords (0 0) (1000000000 0))) (pieces Kk))",
        "(board ...): the position (1000000000 0) is outside 0..4095, the limit",
    );
    let order = "1 2 ".repeat(100_000);
    check_refuses(
        &dir,
        "order.sexp",
        &format!("(variant (name x) (board (rectangle 2 4)) (pieces Kk) (order {order}))"),
        "a list has more than 20000 items, the limit",
    );
}

#[test]
fn variant_check_refuses_a_file_over_the_size_cap_unread() {
    let dir = TempDir::new("hostile-cap");
    let text = padded(
        "(variant (name x) (board (rectangle 2 4)) (pieces Kk))\n".into(),
        MAX_DESCRIPTION_BYTES + 1,
    );
    check_refuses(
        &dir,
        "big.sexp",
        &text,
        &format!(
            "the description is {} bytes, more than {MAX_DESCRIPTION_BYTES} bytes, the limit",
            MAX_DESCRIPTION_BYTES + 1
        ),
    );
    // One byte less is read, and valid.
    let path = dir.0.join("just-under.sexp");
    std::fs::write(
        &path,
        padded(
            "(variant (name x) (board (rectangle 2 4)) (pieces Kk))\n".into(),
            MAX_DESCRIPTION_BYTES,
        ),
    )
    .unwrap();
    let run = anqi(&["variant", "check", path.to_str().unwrap()]);
    assert_eq!(run.code, Some(0), "{}", run.stdout);
}

#[test]
fn slow_descriptions_under_the_cap_finish() {
    // Explicit boards built to cost the most: a breadth-first search from every origin over
    // every cell and move, the longest rays, and the 64x64 board in wire form. Each one just
    // under the size cap. Accepted or refused, each must finish (in well under a second in a
    // release build; the times are printed).
    let dir = TempDir::new("hostile-slow");
    let cells = 4096;
    // Cell 4095 is alone: every jump aims at it, and every search runs over the whole ring.
    let mut ring = Vec::new();
    for a in 0..cells - 1 {
        for d in [1, 2] {
            let b = (a + d) % (cells - 1);
            ring.extend([(a, b), (b, a)]);
        }
    }
    ring.sort_unstable();
    ring.dedup();
    let jumps: Vec<_> = (0..16_384).map(|i| (i % (cells - 1), 4095, 4095)).collect();
    // A line: every cell fires along it to the far end (millions of jump targets).
    let line: Vec<_> = (0..cells - 1)
        .flat_map(|a| [(a, a + 1), (a + 1, a)])
        .collect();
    let far: Vec<_> = (0..cells - 3).map(|o| (o, o + 2, cells - 1)).collect();
    // The 64x64 rectangle, with its four lines from every cell.
    let (mut grid, mut rays) = (Vec::new(), Vec::new());
    for r in 0..64usize {
        for c in 0..64usize {
            let a = r * 64 + c;
            for (dr, dc) in [(-1i64, 0i64), (0, -1), (0, 1), (1, 0)] {
                let (rr, cc) = (r as i64 + dr, c as i64 + dc);
                if (0..64).contains(&rr) && (0..64).contains(&cc) {
                    grid.push((a, (rr * 64 + cc) as usize));
                }
                let end = |k: i64| (r as i64 + k * dr, c as i64 + k * dc);
                let inside = |(y, x): (i64, i64)| (0..64).contains(&y) && (0..64).contains(&x);
                if inside(end(2)) {
                    let mut k = 2;
                    while inside(end(k + 1)) {
                        k += 1;
                    }
                    let cell = |(y, x): (i64, i64)| (y * 64 + x) as usize;
                    let (near, last) = (cell(end(2)), cell(end(k)));
                    rays.push((a, near.min(last), near.max(last)));
                }
            }
        }
    }
    // The audit's slow description: 20,000 cells in a line, a jump from every cell to the far
    // end (it used to take seconds and gigabytes, and be accepted).
    let long: Vec<_> = (0..19_999).flat_map(|a| [(a, a + 1), (a + 1, a)]).collect();
    let n = 20_000;
    let (mut bytes, mut far_jumps) = (explicit(n, &long, &[]).len(), Vec::new());
    while bytes < MAX_DESCRIPTION_BYTES - 40 {
        let origin = far_jumps.len() % (n - 2);
        let jump = (origin, origin + 2, n - 1);
        bytes += format!(" ({} {} {})", jump.0, jump.1, jump.2).len();
        far_jumps.push(jump);
    }
    let audit = explicit(n, &long, &far_jumps);
    let cases = [
        (
            "audit.sexp",
            audit,
            Some("a list has more than 20000 items, the limit"),
        ),
        (
            "ring.sexp",
            explicit(cells, &ring, &jumps),
            Some("jump (0 4095 4095) is not the unique shortest path"),
        ),
        (
            "line.sexp",
            explicit(cells, &line, &far),
            Some("more than 1048576 jump targets, the limit"),
        ),
        ("wire-64x64.sexp", explicit(cells, &grid, &rays), None),
    ];
    for (name, text, refusal) in cases {
        let path = dir.0.join(name);
        std::fs::write(&path, padded(text, MAX_DESCRIPTION_BYTES - 1)).unwrap();
        let run = anqi(&["variant", "check", path.to_str().unwrap()]);
        match refusal {
            Some(expected) => {
                assert_eq!(run.code, Some(2), "{name}: {}", run.stdout);
                assert!(run.stdout.contains(expected), "{name}: {}", run.stdout);
            }
            None => {
                assert_eq!(run.code, Some(0), "{name}: {}", run.stdout);
                assert!(
                    run.stdout
                        .contains("4096 cells, 16128 moves, 499968 jump targets"),
                    "{name}: {}",
                    run.stdout
                );
            }
        }
    }
}

#[test]
fn serve_refuses_a_hostile_variant_file_with_status_2() {
    let dir = TempDir::new("hostile-serve");
    for (name, text, expected) in [
        (
            "quotes.sexp",
            format!("(variant (name {}x))", "'".repeat(100_000)),
            "not a valid S-expression: quote, quasiquote and unquote",
        ),
        (
            "cells.sexp",
            "(variant (name x) (board (cells 4000000000) (moves (0 1))) (pieces Kk))".to_string(),
            "4000000000 cells are more than 4096, the limit",
        ),
    ] {
        let path = dir.0.join(name);
        std::fs::write(&path, text).unwrap();
        let run = anqi(&[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--records",
            "",
            "--variant",
            path.to_str().unwrap(),
        ]);
        assert_eq!(run.code, Some(2), "{name}: {}", run.stderr);
        assert!(
            run.stderr
                .starts_with(&format!("anqi: {}: line 1: ", path.display()))
                && run.stderr.contains(expected),
            "{name}: {}",
            run.stderr
        );
        assert!(
            run.stdout.is_empty(),
            "{name}: never listened: {}",
            run.stdout
        );
    }
}

#[test]
fn replay_reports_every_bad_record_and_goes_on() {
    let dir = TempDir::new("hostile-replay");
    let good = include_str!("../data/one-game.jsonl").trim_end();
    let edited = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut record: serde_json::Value = serde_json::from_str(good).unwrap();
        edit(&mut record);
        serde_json::to_string(&record).unwrap()
    };
    let bad_player = edited(&|r| r["plies"][2]["player"] = 99.into());
    let bad_loser = edited(&|r| {
        r["plies"].as_array_mut().unwrap().truncate(4);
        r["result"]["reason"] = "resign".into();
        r["result"]["loser"] = 99.into();
    });
    let hostile_source = edited(&|r| {
        r["variant_source"] = format!("(variant (name {}x))", "'".repeat(100_000)).into()
    });
    let huge_board = edited(&|r| {
        r["variant_source"] =
            "(variant (name traditional-2x4) (board (rectangle 100000 100000)) (pieces Kk))".into()
    });
    let mut file = Vec::new();
    for line in [
        good.as_bytes(),                    // 1
        bad_player.as_bytes(),              // 2
        good.as_bytes(),                    // 3
        bad_loser.as_bytes(),               // 4
        &good.as_bytes()[..good.len() / 2], // 5: truncated
        b"\xff\xfe{\"format\": 1}",         // 6: not UTF-8
        hostile_source.as_bytes(),          // 7
        huge_board.as_bytes(),              // 8
        b"",                                // 9: blank, skipped
        good.as_bytes(),                    // 10
    ] {
        file.extend_from_slice(line);
        file.push(b'\n');
    }
    let path = dir.0.join("games.jsonl");
    std::fs::write(&path, &file).unwrap();
    let run = anqi(&["replay", path.to_str().unwrap()]);
    let at = |line: usize, what: &str| format!("{}:{line}: {what}", path.display());
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 10, "{}", run.stdout);
    for (i, (line, what)) in [
        (1, "game 1 verified"),
        (2, "FAILED: ply 3: by player 99"),
        (3, "game 1 verified"),
        (4, "FAILED: the loser, player 99, is not in the game"),
        (5, "FAILED: EOF while parsing"),
        (6, "FAILED: not UTF-8 text"),
        (7, "FAILED: variant description does not parse: line 1: not a valid S-expression: quote"),
        (8, "FAILED: variant description does not parse: line 1: (board ...): a 100000x100000 rectangle has more than 4096 cells"),
        (10, "game 1 verified"),
    ]
    .into_iter()
    .enumerate()
    {
        assert!(lines[i].starts_with(&at(line, what)), "{}", lines[i]);
    }
    assert_eq!(lines[9], "3 verified, 6 failed");
    assert_eq!(run.code, Some(1), "{}", run.stdout);

    // A file that cannot be read: reported, the next file still verified, status 2.
    let missing = dir.0.join("missing.jsonl");
    let run = anqi(&[
        "replay",
        "--quiet",
        missing.to_str().unwrap(),
        path.to_str().unwrap(),
    ]);
    assert!(
        run.stdout
            .starts_with(&format!("{}: FAILED: cannot read: ", missing.display())),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.ends_with("3 verified, 7 failed\n"),
        "{}",
        run.stdout
    );
    assert_eq!(run.code, Some(2), "{}", run.stdout);
}
