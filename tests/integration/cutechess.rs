//! `anqi match` as a cutechess or fastchess user types it: the real `anqi` binary, the reference
//! bots and a test UCI engine through the bridge; the games played, each engine's own time
//! control and the ply cap in the records, and every refusal naming what anqi has instead.

use crate::common;

use anqi_core::record::GameRecord;
use common::cli::anqi;
use common::records_in;
use common::TempDir;
use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn verified(path: &Path, games: usize) {
    let summary = anqi(["replay", "--quiet"]).arg(path).succeeds().stdout;
    assert!(
        summary.ends_with(&format!("{games} verified, 0 failed\n")),
        "{summary}"
    );
}

/// Each engine's time control as its seat was recorded, by engine name, in every record.
fn seat_tcs(records: &[GameRecord]) -> Vec<(String, String)> {
    let mut seen: Vec<(String, String)> = records
        .iter()
        .flat_map(|r| {
            let tag = r.tournament.as_ref().unwrap();
            tag.engines
                .iter()
                .zip(&tag.seats)
                .map(|(e, s)| (e.clone(), s.tc.clone()))
                .collect::<Vec<_>>()
        })
        .collect();
    seen.sort();
    seen.dedup();
    seen
}

#[test]
fn a_cutechess_command_line_plays_the_match() {
    common::anqi_bot();
    let dir = TempDir::new("t-cutechess");
    let output = dir.0.join("m.jsonl");
    let ran = anqi(["match", "-engine", "cmd=random", "name=rnd", "st=0.5"])
        .args(["-engine", "cmd=greedy", "-each", "tc=10+0.1"])
        .args(["-rounds", "2", "-games", "2", "-repeat", "-recover"])
        .args([
            "-concurrency",
            "2",
            "-variant",
            "traditional-2x4",
            "-srand",
            "7",
        ])
        .args(["-maxmoves", "15", "-ratinginterval", "2", "-pgnout"])
        .arg(&output)
        .succeeds();
    assert!(
        ran.stdout.contains("Standings: 4 games of traditional-2x4"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout.contains("rnd") && ran.stdout.contains("greedy"),
        "{}",
        ran.stdout
    );
    // What anqi took as it already does, or does its own way, it says.
    for note in ["anqi: -repeat:", "anqi: -recover:", "as JSON lines"] {
        assert!(ran.stderr.contains(note), "{note}: {}", ran.stderr);
    }
    let records = records_in(&output);
    assert_eq!(records.len(), 4, "-rounds 2 x -games 2");
    // Each engine's clock followed its own control: -engine's st= over -each's tc=.
    assert_eq!(
        seat_tcs(&records),
        [
            ("greedy".to_string(), "10+0.1".to_string()),
            ("rnd".to_string(), "st=0.5".to_string())
        ]
    );
    // -maxmoves 15: a draw after 30 plies at the latest.
    for r in &records {
        assert_eq!(r.max_plies, Some(30));
        assert!(r.plies.len() <= 30, "{} plies", r.plies.len());
        if r.plies.len() == 30 {
            assert_eq!(r.result.reason.name(), "ply-cap");
        }
    }
    // -srand: the same deals again.
    let again = dir.0.join("again.jsonl");
    let quiet = anqi([
        "match",
        "-engine",
        "cmd=random",
        "-engine",
        "cmd=greedy",
        "-games",
        "2",
    ])
    .args([
        "-variant",
        "traditional-2x4",
        "-srand",
        "7",
        "-quiet",
        "-pgnout",
    ])
    .arg(&again)
    .succeeds();
    // -quiet: no notes either.
    assert!(!quiet.stderr.contains("as JSON lines"), "{}", quiet.stderr);
    let commitment = |r: &GameRecord| r.tournament.as_ref().unwrap().commitment.clone();
    assert!(commitment(&records[0]).is_some());
    assert_eq!(commitment(&records_in(&again)[0]), commitment(&records[0]));
    verified(&output, 4);
}

/// `proto=uci` is the uci-banqi bridge, and so is `uci:` in anqi's own form; `anqi match`'s
/// own per-engine time control and ply cap.
#[test]
fn uci_engines_play_from_either_command_line() {
    common::anqi_bot();
    let dir = TempDir::new("t-cutechess-uci");
    let engine = format!("python3 {ROOT}/tests/engines/uci_engine.py");
    let output = dir.0.join("dialect.jsonl");
    anqi([
        "match",
        "-engine",
        &format!("cmd={engine}"),
        "arg=--seed",
        "arg={seed}",
    ])
    .args(["proto=uci", "name=misty", "assumes=misty-banqi", "tc=60+1"])
    .args(["-engine", "cmd=greedy", "tc=30+1", "-games", "2", "-quiet"])
    .arg("-pgnout")
    .arg(&output)
    .succeeds();
    let own = dir.0.join("own.jsonl");
    anqi([
        "match",
        "greedy",
        &format!("misty=uci:{engine} --seed {{seed}}"),
    ])
    .args(["--assumes", "misty=misty-banqi", "--tc", "60+1"])
    .args(["--engine-tc", "greedy=st=1", "--max-plies", "12", "--quiet"])
    .arg("--output")
    .arg(&own)
    .succeeds();
    for (path, greedy_tc) in [(&output, "30+1"), (&own, "st=1")] {
        let records = records_in(path);
        assert_eq!(records.len(), 2);
        for r in &records {
            let tag = r.tournament.as_ref().unwrap();
            for (name, seat) in tag.engines.iter().zip(&tag.seats) {
                let expected = match name.as_str() {
                    "misty" => ("uci-banqi", Some("misty-banqi"), "60+1"),
                    _ => ("anqi", None, greedy_tc),
                };
                let got = (
                    seat.protocol.as_str(),
                    seat.assumes.as_deref(),
                    seat.tc.as_str(),
                );
                assert_eq!(got, expected, "{}: {name}", path.display());
            }
        }
        verified(path, 2);
    }
    for r in records_in(&own) {
        assert_eq!(r.max_plies, Some(12));
        assert!(r.plies.len() <= 12, "--max-plies 12: {}", r.plies.len());
    }
}

#[test]
fn what_anqi_cannot_do_is_refused_naming_what_it_has() {
    let two = ["match", "-engine", "cmd=random", "-engine", "cmd=greedy"];
    for (extra, says) in [
        (
            &["-draw", "movenumber=40", "movecount=8"][..],
            "score= is missing",
        ),
        (
            &["-openings", "file=book.epd", "format=epd"],
            "format=epd: anqi plays its own deal books (format=anqi)",
        ),
        (
            &["-rounds", "3"],
            "the total must be even: for instance -rounds 2 -games 2",
        ),
        (&["-tb", "/syzygy"], "adjudicate = \"tables\""),
        (
            &["-bogus"],
            "-bogus: not an option anqi knows; `anqi match -help`",
        ),
        (&["-engine", "cmd=search"], "-engine was given 3 times"),
    ] {
        let ran = anqi(two).args(extra).fails_with(2);
        assert!(ran.stderr.contains(says), "{extra:?}: {}", ran.stderr);
        assert!(
            !ran.stderr.contains("unexpected argument"),
            "{}",
            ran.stderr
        );
        assert!(ran.stdout.is_empty(), "nothing played: {}", ran.stdout);
    }
    let ran = anqi(["match", "-engine", "cmd=./engine", "proto=xboard"])
        .args(["-engine", "cmd=random"])
        .fails_with(2);
    assert!(ran.stderr.contains("no xboard bridge"), "{}", ran.stderr);
    // anqi's own per-engine flags name what is wrong.
    for (flag, says) in [
        ("nobody=60+1", "no engine is named \"nobody\""),
        ("greedy=fast", "bad time control \"fast\""),
        ("greedy", "give NAME=TC"),
    ] {
        let ran = anqi(["match", "random", "greedy", "--engine-tc", flag]).fails_with(2);
        assert!(ran.stderr.contains(says), "{flag}: {}", ran.stderr);
    }
    // The two forms mixed: the dialect says how each is written.
    let ran = anqi(["match", "random", "greedy", "-games", "4"]).fails_with(2);
    assert!(
        ran.stderr.contains("-engine cmd=COMMAND") && ran.stderr.contains("--games N"),
        "{}",
        ran.stderr
    );
    // Help in both: the dialect's table, and a word of it in anqi match's own.
    let help = anqi(["match", "-help"]).succeeds().stdout;
    for line in ["-rounds N -games M", "-pgnout FILE", "-sprt elo0=A elo1=B"] {
        assert!(help.contains(line), "{line}: {help}");
    }
    let help = anqi(["match", "--help"]).succeeds().stdout;
    assert!(
        help.contains("anqi match -help")
            && help.contains("--engine-tc")
            && help.contains("--max-plies"),
        "{help}"
    );
}
