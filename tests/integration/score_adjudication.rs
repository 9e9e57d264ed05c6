//! Adjudication by the engines' scores (issue 38, part 4), as cutechess's and fastchess's
//! `-draw` and `-resign`: the test UCI engine says a fixed score with every move (its `info`
//! line, passed on by the bridge as the ply's comment), the referee ends the game by the rule,
//! the record names the rule met, `anqi replay` re-checks it from the record alone (and
//! refuses a record whose rule would have ended the game earlier), and the report counts the
//! adjudicated games apart. Through `anqi match`'s own options and the cutechess dialect.

use crate::common;

use anqi_core::record::GameRecord;
use anqi_core::rules::Termination;
use common::cli::anqi;
use common::records_in;
use common::TempDir;
use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The test UCI engine saying `score cp SCORE` with every move.
fn scoring(score: i32) -> String {
    format!("python3 {ROOT}/tests/engines/uci_engine.py --noise --score {score} --seed {{seed}}")
}

/// The seat (1-based) of engine `name` in a record.
fn seat_of(record: &GameRecord, name: &str) -> usize {
    let tag = record.tournament.as_ref().unwrap();
    tag.engines.iter().position(|e| e == name).unwrap() + 1
}

/// `anqi match --resign RULE`: two games of the test UCI engine scoring itself lost (`weak`)
/// against the same engine scoring itself won (`strong`), both assuming misty-banqi, the
/// records written to `output`; asserts that it succeeds.
fn weak_against_strong(rule: &str, output: &Path) {
    anqi(["match"])
        .arg(format!("weak=uci:{}", scoring(-800)))
        .arg(format!("strong=uci:{}", scoring(800)))
        .args([
            "--assumes",
            "weak=misty-banqi",
            "--assumes",
            "strong=misty-banqi",
        ])
        .args(["--games", "2", "--tc", "60+1", "--quiet"])
        .args(["--resign", rule])
        .arg("--output")
        .arg(output)
        .succeeds();
}

#[test]
fn an_engine_that_scores_itself_lost_loses_and_replay_checks_the_rule() {
    let dir = TempDir::new("t-score-resign");
    let output = dir.0.join("games.jsonl");
    weak_against_strong("movecount=3 score=600", &output);
    let records = records_in(&output);
    assert_eq!(records.len(), 2);
    for r in &records {
        let weak = seat_of(r, "weak");
        assert_eq!(r.result.reason, Termination::Adjudicated, "{:?}", r.result);
        let ruling = r.result.adjudication.as_ref().unwrap();
        assert_eq!(ruling.by, "scores");
        assert_eq!(ruling.verdict, format!("player {weak} lost"));
        assert_eq!(ruling.rule, "resign movecount=3 score=600 twosided=false");
        // The weak engine's third ply: ply 5 as player 1, ply 6 as player 2.
        assert_eq!(r.plies.len(), 4 + weak, "{:?}", r.result);
        assert_eq!(r.result.winner, 3 - weak);
    }
    let replay = anqi(["replay", "--quiet"]).arg(&output).succeeds().stdout;
    assert!(replay.ends_with("2 verified, 0 failed\n"), "{replay}");
    let report = anqi(["report"]).arg(&output).succeeds().stdout;
    assert!(report.contains("adjudicated 2"), "{report}");

    // The record names the rules in force; one whose rules would have ended the game
    // earlier, or that names none, does not verify.
    let text = std::fs::read_to_string(&output).unwrap();
    assert!(text.contains(r#""score_resign":"movecount=3 score=600 twosided=false""#));
    for (from, to, says) in [
        (
            r#""score_resign":"movecount=3"#,
            r#""score_resign":"movecount=2"#,
            "the score rules were met at ply",
        ),
        (
            r#""score_resign":"movecount=3 score=600 twosided=false","#,
            "",
            "the record names no score rules",
        ),
    ] {
        let tampered = dir.0.join("tampered.jsonl");
        std::fs::write(&tampered, text.replace(from, to)).unwrap();
        let out = anqi(["replay", "--quiet"]).arg(&tampered).output();
        assert!(!out.status.success());
        assert!(out.stdout.contains(says), "{}{}", out.stdout, out.stderr);
    }
}

#[test]
fn a_two_sided_loss_waits_for_the_winners_run_too() {
    let dir = TempDir::new("t-score-twosided");
    let output = dir.0.join("games.jsonl");
    weak_against_strong("movecount=3 score=600 twosided=true", &output);
    for r in records_in(&output) {
        let weak = seat_of(&r, "weak");
        let ruling = r.result.adjudication.as_ref().unwrap();
        assert_eq!(ruling.verdict, format!("player {weak} lost"));
        // On the weak engine's own ply, once the strong one has 3 moves too: as player 1,
        // its 4th (ply 7); as player 2, its 3rd (ply 6).
        assert_eq!(
            r.plies.len(),
            if weak == 1 { 7 } else { 6 },
            "{:?}",
            r.result
        );
    }
    let replay = anqi(["replay", "--quiet"]).arg(&output).succeeds().stdout;
    assert!(replay.ends_with("2 verified, 0 failed\n"), "{replay}");
}

#[test]
fn two_engines_that_agree_nothing_is_decided_draw_through_the_cutechess_dialect() {
    let dir = TempDir::new("t-score-draw");
    let output = dir.0.join("games.jsonl");
    let engine = |name: &str| {
        vec![
            "-engine".to_string(),
            format!("cmd=python3 {ROOT}/tests/engines/uci_engine.py"),
            "arg=--noise".into(),
            "arg=--score".into(),
            "arg=3".into(),
            "proto=uci".into(),
            format!("name={name}"),
            "assumes=misty-banqi".into(),
        ]
    };
    anqi(["match"])
        .args(engine("a"))
        .args(engine("b"))
        .args(["-each", "tc=60+1", "-games", "2", "-quiet"])
        .args(["-draw", "movenumber=1", "movecount=1", "score=10"])
        .arg("-pgnout")
        .arg(&output)
        .succeeds();
    let records = records_in(&output);
    assert_eq!(records.len(), 2);
    for r in &records {
        assert_eq!(r.result.reason, Termination::Adjudicated, "{:?}", r.result);
        assert_eq!(r.result.winner, 0, "a draw");
        let ruling = r.result.adjudication.as_ref().unwrap();
        assert_eq!(
            (ruling.verdict.as_str(), ruling.rule.as_str()),
            ("draw", "draw movenumber=1 movecount=1 score=10")
        );
        // The run: the last two plies, the first of them the only one that may make progress
        // (a reveal starts the run afresh); replay checks that no earlier pair ended it.
        assert!(!r.plies.last().unwrap().made_progress(), "{:?}", r.plies);
    }
    let replay = anqi(["replay", "--quiet"]).arg(&output).succeeds().stdout;
    assert!(replay.ends_with("2 verified, 0 failed\n"), "{replay}");
}

#[test]
fn a_rule_that_does_not_read_or_fit_the_variant_is_refused_before_any_game() {
    let out = anqi([
        "match",
        "random",
        "greedy",
        "--draw",
        "movenumber=40 movecount=8",
    ])
    .output();
    assert!(!out.status.success());
    assert!(out.stderr.contains("score= is missing"), "{}", out.stderr);
    let out = anqi(["match", "random", "greedy", "--variant", "single"])
        .args(["--games", "2", "--resign", "movecount=3 score=600"])
        .output();
    assert!(!out.status.success());
    assert!(
        out.stderr.contains("adjudicate two-player games"),
        "{}",
        out.stderr
    );
}
