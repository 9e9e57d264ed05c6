//! The whole of issue 8 in one event: a tournament file mixing the reference bots (Rust and
//! Python, anqi's own protocol) with an engine of each bridged protocol (tcg, uci-banqi,
//! cdc-platform: the test engines of tests/engines/, each keeping its own board from its own
//! protocol) runs with one command, every game ends by the rules, and every record verifies.

use crate::common;

use anqi_core::rules::Termination;
use common::{engine_entry, greedy_engine, records_in, run_event, TempDir};
use std::collections::BTreeSet;
use std::process::Command;

const ANQI: &str = env!("CARGO_BIN_EXE_anqi");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

#[test]
fn reference_bots_and_an_engine_of_each_protocol_play_one_event() {
    let dir = TempDir::new("t-bridged");
    let output = dir.0.join("out.jsonl");
    let py = |script: &str| format!("{ROOT}/tests/engines/{script}");
    let engines = [
        greedy_engine("greedy"),
        engine_entry(
            "python",
            "anqi",
            "python3",
            &[
                &format!("{ROOT}/clients/python/anqi_random_bot.py"),
                "--connect",
                "{addr}",
                "--seed",
                "{seed}",
                "--quiet",
            ],
        ),
        engine_entry(
            "tcg",
            "tcg",
            "python3",
            &[&py("tcg_engine.py"), "--seed", "{seed}"],
        ),
        engine_entry(
            "uci",
            "uci-banqi",
            "python3",
            &[&py("uci_engine.py"), "--seed", "{seed}"],
        ),
        engine_entry(
            "platform",
            "cdc-platform",
            "python3",
            &[
                &py("platform_engine.py"),
                "--seed",
                "{seed}",
                "{host}",
                "{port}",
            ],
        ),
    ];
    let settings = format!(
        "variant = \"traditional\"\nseed = \"bridged\"\nconcurrency = 2\ntc = \"60+0\"\noutput = \"{}\"\nlogs = \"{}\"\nengine_logs = \"game\"\n",
        output.display(),
        dir.0.join("logs").display(),
    );
    let run = run_event(&dir.0, &settings, &engines);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "the event failed:\n{stderr}");

    // Every pairing played both seats of its deal, and every game ended by the rules.
    let records = records_in(&output);
    assert_eq!(records.len(), 20, "10 pairings, 2 games each");
    let mut pairs = BTreeSet::new();
    for r in &records {
        let tag = r.tournament.as_ref().unwrap();
        assert!(
            !r.result.reason.is_fault() && r.faults.is_empty(),
            "game {} ({:?}): {:?}, faults {:?}",
            tag.index,
            tag.engines,
            r.result,
            r.faults
        );
        assert_ne!(r.result.reason, Termination::Aborted);
        let mut pair = tag.engines.clone();
        pair.sort();
        pairs.insert(pair);
    }
    assert_eq!(pairs.len(), 10, "{pairs:?}");

    // Every record verifies: deals re-derived, every ply re-played through the rules.
    assert_eq!(common::replay(&output), "20 verified, 0 failed");

    if let Ok(to) = std::env::var("ANQI_KEEP_EVENT") {
        // For a look at a real mixed event: ANQI_KEEP_EVENT=DIR keeps its records and logs.
        std::fs::create_dir_all(&to).unwrap();
        std::fs::copy(&output, format!("{to}/out.jsonl")).unwrap();
    }
    // The standings name every engine.
    let report = Command::new(ANQI)
        .arg("report")
        .arg(&output)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&report.stdout);
    for name in ["greedy", "python", "tcg", "uci", "platform"] {
        assert!(text.contains(name), "{name} missing from:\n{text}");
    }
}

/// Issue 20, item 2: an engine that dies mid-game is a `crash` whatever its protocol, an answer
/// that is no move a `resign`, and in both the record's faults say why (code `engine`).
#[test]
fn the_same_failure_is_named_alike_in_every_protocol_and_the_record_says_why() {
    let dir = TempDir::new("t-faults");
    let output = dir.0.join("out.jsonl");
    let py = |script: &str| format!("{ROOT}/tests/engines/{script}");
    let engines = [
        greedy_engine("greedy"),
        engine_entry(
            "tcg-dies",
            "tcg",
            "python3",
            &[&py("tcg_engine.py"), "--crash", "3"],
        ),
        engine_entry(
            "uci-dies",
            "uci-banqi",
            "python3",
            &[&py("uci_engine.py"), "--crash", "3"],
        ),
        engine_entry(
            "tcg-babbles",
            "tcg",
            "python3",
            &[&py("tcg_engine.py"), "--say", "3", "a8 `8"],
        ),
        engine_entry(
            "uci-babbles",
            "uci-banqi",
            "python3",
            &[&py("uci_engine.py"), "--say", "3", "bestmove e9"],
        ),
    ];
    let settings = format!(
        "variant = \"traditional\"\nseed = \"faults\"\nformat = \"gauntlet\"\ngauntlet = \"greedy\"\nconcurrency = 2\ntc = \"60+0\"\noutput = \"{}\"\n",
        output.display(),
    );
    let run = run_event(&dir.0, &settings, &engines);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "the event failed:\n{stderr}");
    let records = records_in(&output);
    assert_eq!(records.len(), 8, "4 pairings, 2 games each");
    for r in &records {
        let tag = r.tournament.as_ref().unwrap();
        let loser = r
            .result
            .loser
            .expect("each game lost by the failing engine");
        let name = &tag.engines[loser - 1];
        let (reason, words): (Termination, &[&str]) = match name.as_str() {
            "tcg-dies" | "uci-dies" => (Termination::Crash, &["left the game", "exit"]),
            "tcg-babbles" => (Termination::Resign, &["resigned", "not a move", "a8 `8"]),
            "uci-babbles" => (
                Termination::Resign,
                &["resigned", "not a move", "bestmove e9"],
            ),
            other => panic!("{other} lost game {}: {:?}", tag.index, r.result),
        };
        assert_eq!(r.result.reason, reason, "{name}: {:?}", r.result);
        let fault = r
            .faults
            .iter()
            .find(|f| f.code == "engine" && f.player == loser)
            .unwrap_or_else(|| panic!("{name}: no engine fault in {:?}", r.faults));
        for w in words {
            assert!(fault.text.contains(w), "{name}: {:?}", fault.text);
        }
    }
    // The runner's note takes nothing from the record's proof: each game replays.
    assert_eq!(common::replay(&output), "8 verified, 0 failed");
}
