//! `anqi report` as engine testers read it: statistics for every pair of engines (W/D/L, score,
//! draw ratio, Elo with its interval, nElo, LOS, pentanomial counts with error bars), the SPRT
//! of a named pair, and standings per team in team games; in text and in JSON. The records are
//! made by hand, so every number is known in advance; one short real match checks the runner's
//! SPRT line.

use crate::common;

use anqi_core::record::{GameRecord, TournamentTag};
use anqi_core::rules::{Termination, Variant};
use common::TempDir;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

const ANQI: &str = env!("CARGO_BIN_EXE_anqi");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// A tournament record of `variant` with `engines` seat by seat, won by side `winner` (0-based;
/// `None` for a draw).
fn game(
    variant: &str,
    index: u64,
    deal: u64,
    engines: &[&str],
    winner: Option<usize>,
) -> GameRecord {
    let mut r: GameRecord =
        serde_json::from_str(include_str!("../data/one-game.jsonl").trim_end()).unwrap();
    let v = Variant::shipped(variant).unwrap();
    r.variant = v.name.clone();
    r.variant_source = v.source.clone();
    let template = r.players[0].clone();
    r.players = engines
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let mut p = template.clone();
            p.id = i + 1;
            p.name = e.to_string();
            p
        })
        .collect();
    r.game = index + 1;
    r.result.winner_side = winner;
    r.result.winner = 0;
    r.result.winner_team = 0;
    r.result.loser = None;
    r.result.reason = if winner.is_some() {
        Termination::CaptureAll
    } else {
        Termination::NoProgress
    };
    r.tournament = Some(TournamentTag {
        index,
        deal,
        engines: engines.iter().map(|e| e.to_string()).collect(),
        seats: Vec::new(),
        commitment: None,
        node: None,
        book: None,
    });
    r
}

/// A two-player deal played twice with the seats swapped; `results` are `a`'s in each game
/// (1, 0.5, 0), `a` seated first in the first game.
fn deal(records: &mut Vec<GameRecord>, a: &str, b: &str, results: [f64; 2]) {
    let d = records.len() as u64 / 2;
    let side = |r: f64, a_side: usize| match r {
        1.0 => Some(a_side),
        0.0 => Some(1 - a_side),
        _ => None,
    };
    let i = records.len() as u64;
    records.push(game("traditional-2x4", i, d, &[a, b], side(results[0], 0)));
    records.push(game(
        "traditional-2x4",
        i + 1,
        d,
        &[b, a],
        side(results[1], 1),
    ));
}

fn write(dir: &Path, name: &str, records: &[GameRecord]) -> std::path::PathBuf {
    let path = dir.join(name);
    let lines: String = records
        .iter()
        .map(|r| serde_json::to_string(r).unwrap() + "\n")
        .collect();
    std::fs::write(&path, lines).unwrap();
    path
}

fn run(args: &[&str]) -> std::process::Output {
    Command::new(ANQI).args(args).output().unwrap()
}

fn ok(args: &[&str]) -> String {
    let out = run(args);
    assert!(
        out.status.success(),
        "anqi {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn line_with<'a>(text: &'a str, start: &str) -> Vec<&'a str> {
    text.lines()
        .filter(|l| l.trim_start().starts_with(start))
        .collect()
}

/// new against old: 10 deals, pairs scoring [0, 1, 3, 4, 2] for new (0.5: D+L; 1: W+L; 1.5:
/// W+D; 2: W+W), so W/D/L 11/5/4, score 0.675. By hand, over the pairs: σ² = 0.050625;
/// Elo = −400·log₁₀(1/0.675 − 1) = +127, interval 0.675 ± 1.96·√(σ²/10) → [+25, +257];
/// nElo = 0.175/√(2σ²)·800/ln 10 = +191 ± 152; LOS = Φ(0.175/√(σ²/10)) = 99.3%.
/// Then new and old each play one deal against base.
fn three_engines() -> Vec<GameRecord> {
    three_engines_named("new", "old", "base")
}

fn three_engines_named(new: &str, old: &str, base: &str) -> Vec<GameRecord> {
    let mut r = Vec::new();
    deal(&mut r, new, old, [0.5, 0.0]);
    for _ in 0..3 {
        deal(&mut r, new, old, [1.0, 0.0]);
    }
    for _ in 0..4 {
        deal(&mut r, new, old, [1.0, 0.5]);
    }
    for _ in 0..2 {
        deal(&mut r, new, old, [1.0, 1.0]);
    }
    deal(&mut r, new, base, [1.0, 0.5]);
    deal(&mut r, old, base, [0.5, 0.5]);
    r
}

#[test]
fn the_text_fits_in_100_columns_with_names_of_10_characters() {
    let dir = TempDir::new("rs-width");
    let (a, b, c) = ("newversion", "oldversion", "baseline-x");
    let file = write(&dir.0, "wide.jsonl", &three_engines_named(a, b, c));
    let pair = format!("{a},{b}");
    let text = ok(&[
        "report",
        file.to_str().unwrap(),
        "--sprt",
        "-1.75,0.25",
        "--pair",
        &pair,
    ]);
    for line in text.lines() {
        assert!(
            line.chars().count() <= 100,
            "over 100 columns: {line:?}\n{text}"
        );
    }
}

#[test]
fn pairs_come_with_elo_nelo_los_and_pentanomial_error_bars() {
    let dir = TempDir::new("rs-pairs");
    let file = write(&dir.0, "three.jsonl", &three_engines());
    let file = file.to_str().unwrap();
    let text = ok(&["report", file]);
    for line in text.lines() {
        assert!(line.chars().count() <= 100, "over 100 columns: {line:?}");
    }
    let rows = line_with(&text, "new vs old");
    assert_eq!(rows.len(), 2, "a pair row and a pentanomial row:\n{text}");
    let cells: Vec<&str> = rows[0].split_whitespace().collect();
    assert_eq!(
        cells,
        [
            "new", "vs", "old", "20", "11", "5", "4", "67.5%", "25%", "+127", "[+25,", "+257]",
            "+191", "±152", "99.3%", "pairs"
        ],
        "{text}"
    );
    let cells: Vec<&str> = rows[1].split_whitespace().collect();
    assert_eq!(
        cells,
        ["new", "vs", "old", "10", "0", "1", "3", "4", "2", "+127", "±116", "+191", "±152"],
        "{text}"
    );
    // The other pairs met too, each once per deal.
    assert_eq!(line_with(&text, "new vs base").len(), 2, "{text}");
    assert_eq!(line_with(&text, "old vs base").len(), 2, "{text}");

    let json: Value = serde_json::from_str(&ok(&["report", "--json", file])).unwrap();
    let pairs = json["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 3);
    let p = &pairs[0];
    assert_eq!(
        (p["first"].as_str(), p["second"].as_str()),
        (Some("new"), Some("old"))
    );
    assert_eq!(p["games"], 20);
    assert_eq!(
        (
            p["wins"].as_u64(),
            p["draws"].as_u64(),
            p["losses"].as_u64()
        ),
        (Some(11), Some(5), Some(4))
    );
    assert_eq!(p["model"], "pentanomial");
    assert_eq!(p["observations"], 10);
    assert_eq!(p["pentanomial"], serde_json::json!([0, 1, 3, 4, 2]));
    let near = |v: &Value, want: f64, tol: f64| {
        let got = v.as_f64().unwrap_or(f64::NAN);
        assert!((got - want).abs() <= tol, "{got} vs {want}");
    };
    near(&p["score"], 0.675, 1e-9);
    near(&p["draw_ratio"], 0.25, 1e-9);
    near(&p["elo"], 126.97, 0.01);
    near(&p["elo_low"], 24.74, 0.01);
    near(&p["elo_high"], 256.97, 0.01);
    near(&p["nelo"], 191.08, 0.01);
    near(&p["nelo_error"], 152.27, 0.01);
    near(&p["los"], 0.99304, 0.00001);
    assert_eq!(json["teams"], serde_json::json!([]), "no team games here");
    // The earlier fields are still there.
    assert_eq!(
        json["pentanomial"][0]["counts"],
        serde_json::json!([0, 1, 3, 4, 2])
    );
    assert!(json["engines"].as_array().unwrap().len() == 3);
}

#[test]
fn the_sprt_names_its_pair_and_needs_one_among_three_engines() {
    let dir = TempDir::new("rs-sprt");
    let three = write(&dir.0, "three.jsonl", &three_engines());
    let three = three.to_str().unwrap();

    // Three engines: which pair? The organizer must say.
    let out = run(&["report", three, "--sprt", "0,5"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("3 engines (new, old, base)") && err.contains("--pair FIRST,SECOND"),
        "{err}"
    );
    let out = run(&["report", three, "--sprt", "0,5", "--pair", "new,nobody"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no engine \"nobody\""));
    // --pair alone means nothing.
    assert!(!run(&["report", three, "--pair", "new,old"])
        .status
        .success());

    let text = ok(&["report", three, "--sprt", "0,5", "--pair", "new,old"]);
    assert!(
        text.contains(
            "SPRT new vs old, from new's point of view (pentanomial: 10 pairs of games):"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "  H0: new - old = 0 Elo (logistic)\n  H1: new - old = 5 Elo; alpha 0.05, beta 0.05\n"
        ),
        "{text}"
    );
    let json: Value = serde_json::from_str(&ok(&[
        "report",
        three,
        "--json",
        "--sprt",
        "0,5,0.1,0.2",
        "--pair",
        "old,new",
    ]))
    .unwrap();
    let s = &json["sprt"];
    assert_eq!(
        (s["first"].as_str(), s["second"].as_str()),
        (Some("old"), Some("new"))
    );
    assert_eq!(
        (s["model"].as_str(), s["observations"].as_u64()),
        (Some("pentanomial"), Some(10))
    );
    assert_eq!(
        (s["alpha"].as_f64(), s["beta"].as_f64()),
        (Some(0.1), Some(0.2))
    );
    assert!(s["llr"].as_f64().unwrap() < 0.0, "old is the weaker: {s}");

    // Two engines: no need to name them; the first engine of the first game is the first.
    let two: Vec<GameRecord> = three_engines().into_iter().take(20).collect();
    let two = write(&dir.0, "two.jsonl", &two);
    let text = ok(&["report", two.to_str().unwrap(), "--sprt", "0,5"]);
    assert!(
        text.contains("SPRT new vs old, from new's point of view"),
        "{text}"
    );
    assert!(
        !run(&["report", two.to_str().unwrap(), "--sprt", "5,0"])
            .status
            .success(),
        "elo1 must exceed elo0"
    );
}

/// 2v2 (sides: seats 1 and 3 against 2 and 4), four engines in the four seat rotations: team
/// a + c against team b + d, a + c winning three and drawing one.
#[test]
fn team_games_have_standings_per_team() {
    let dir = TempDir::new("rs-teams");
    let rotations: [[&str; 4]; 4] = [
        ["a", "b", "c", "d"],
        ["b", "c", "d", "a"],
        ["c", "d", "a", "b"],
        ["d", "a", "b", "c"],
    ];
    let results = [Some("ac"), Some("ac"), None, Some("ac")];
    let records: Vec<GameRecord> = rotations
        .iter()
        .zip(results)
        .enumerate()
        .map(|(i, (seats, winner))| {
            // Side 0 holds seats 1 and 3.
            let side_of_a = if seats[0] == "a" || seats[2] == "a" {
                0
            } else {
                1
            };
            game("2v2", i as u64, 0, seats, winner.map(|_| side_of_a))
        })
        .collect();
    let file = write(&dir.0, "teams.jsonl", &records);
    let file = file.to_str().unwrap();
    let text = ok(&["report", file]);
    assert!(
        text.contains("\nTeams (the engines on one side of a team game):\n"),
        "{text}"
    );
    let cells: Vec<&str> = line_with(&text, "1  a + c")[0].split_whitespace().collect();
    assert_eq!(
        cells,
        ["1", "a", "+", "c", "4", "3.5", "3", "1", "0", "87.5%"],
        "{text}"
    );
    let cells: Vec<&str> = line_with(&text, "2  b + d")[0].split_whitespace().collect();
    assert_eq!(
        cells,
        ["2", "b", "+", "d", "4", "0.5", "0", "1", "3", "12.5%"],
        "{text}"
    );
    // Opponents are pairs, teammates are not; there are no paired deals, so single games.
    let cells: Vec<&str> = line_with(&text, "a vs b")[0].split_whitespace().collect();
    assert_eq!(&cells[3..9], ["4", "3", "1", "0", "87.5%", "25%"], "{text}");
    assert!(line_with(&text, "a vs c").is_empty(), "{text}");
    assert!(!text.contains("\nPentanomial"), "{text}");

    let json: Value = serde_json::from_str(&ok(&["report", "--json", file])).unwrap();
    let teams = json["teams"].as_array().unwrap();
    assert_eq!(teams.len(), 2);
    assert_eq!(teams[0]["name"], "a + c");
    assert_eq!(teams[0]["engines"], serde_json::json!(["a", "c"]));
    assert_eq!(
        (teams[0]["games"].as_u64(), teams[0]["points"].as_f64()),
        (Some(4), Some(3.5))
    );
    assert_eq!(
        (
            teams[0]["wins"].as_u64(),
            teams[0]["draws"].as_u64(),
            teams[0]["losses"].as_u64()
        ),
        (Some(3), Some(1), Some(0))
    );
    assert_eq!(teams[1]["name"], "b + d");
    assert_eq!(teams[1]["score"], 0.125);
    let pairs = json["pairs"].as_array().unwrap();
    let names: Vec<String> = pairs
        .iter()
        .map(|p| {
            format!(
                "{}-{}",
                p["first"].as_str().unwrap(),
                p["second"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(names, ["a-b", "a-d", "b-c", "c-d"]);
    assert!(pairs
        .iter()
        .all(|p| p["model"] == "trinomial" && p["pentanomial"].is_null()));

    // The SPRT of two opponents in team games counts single games.
    let json: Value = serde_json::from_str(&ok(&[
        "report", "--json", file, "--sprt", "0,50", "--pair", "b,c",
    ]))
    .unwrap();
    assert_eq!(json["sprt"]["model"], "trinomial");
    assert_eq!(json["sprt"]["observations"], 4);
    let out = run(&["report", file, "--sprt", "0,50", "--pair", "a,c"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("a and c never met"));
}

/// A real match with an SPRT: the runner's line says which pair it stopped on.
#[test]
fn the_runners_sprt_line_names_the_pair() {
    let dir = TempDir::new("rs-run");
    let bot = format!(
        "[[tournament.engine]]\nname = \"player\"\ncommand = \"python3\"\nargs = [\"{ROOT}/clients/python/anqi_random_bot.py\", \"--connect\", \"{{addr}}\", \"--seed\", \"{{seed}}\", \"--name\", \"{{name}}\", \"--quiet\"]\n"
    );
    let resign = format!(
        "[[tournament.engine]]\nname = \"resigner\"\ncommand = \"python3\"\nargs = [\"{ROOT}/tests/engines/misbehave.py\", \"resign\", \"--connect\", \"{{addr}}\"]\n"
    );
    let file = dir.0.join("t.toml");
    std::fs::write(
        &file,
        format!(
            "[tournament]\nvariant = \"traditional-2x4\"\nseed = \"test\"\noutput = \"{}\"\nlogs = \"{}\"\ndeals = 100\nconcurrency = 2\n[tournament.sprt]\nelo0 = 0\nelo1 = 100\n{bot}{resign}",
            dir.0.join("out.jsonl").display(),
            dir.0.join("logs").display(),
        ),
    )
    .unwrap();
    let out = run(&["tournament", file.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let progress = String::from_utf8_lossy(&out.stderr);
    assert!(
        progress.contains("SPRT player vs resigner: H1 accepted (LLR "),
        "{progress}"
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("SPRT player vs resigner, from player's point of view (pentanomial: "),
        "{text}"
    );
    assert!(
        text.contains("H1 accepted: player - resigner is 100 Elo rather than 0"),
        "{text}"
    );
}

#[test]
fn the_crosstable_shows_whole_names_and_the_pairs_say_their_model() {
    let dir = TempDir::new("rs-names");
    let file = write(
        &dir.0,
        "names.jsonl",
        &three_engines_named("anqi-bot-greedy", "anqi-bot-search", "base"),
    );
    let text = ok(&["report", file.to_str().unwrap()]);
    let cross = text
        .split("Crosstable")
        .nth(1)
        .expect("a crosstable")
        .lines()
        .nth(1)
        .unwrap();
    assert!(
        cross.contains("anqi-bot-greedy") && cross.contains("anqi-bot-search"),
        "{text}"
    );
    assert!(text.contains("Elo [95%] from single games"), "{text}");
    // Every pair here played paired deals.
    let row = line_with(&text, "anqi-bot-greedy vs anqi-bot-search")[0];
    assert!(row.trim_end().ends_with("pairs"), "{row}");
}

#[test]
fn two_events_pool_into_one_table_with_pairs_kept_within_each_event() {
    let dir = TempDir::new("rs-pool");
    // Two events numbered alike from 0: new vs old on 10 deals, then the same again.
    let spring = write(&dir.0, "spring.jsonl", &three_engines());
    let mut other = three_engines();
    for r in &mut other {
        // The second event's games differ from the first's (another result on deal 0).
        if r.tournament.as_ref().is_some_and(|t| t.deal == 0) {
            r.result.reason = Termination::Resign;
        }
    }
    let summer = write(&dir.0, "summer.jsonl", &other);
    let (a, b) = (spring.to_str().unwrap(), summer.to_str().unwrap());
    // As shards of one event they conflict, and the refusal says what to do.
    let out = run(&["report", a, b]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("differs") && err.contains("--pool"), "{err}");
    // Pooled: every game counts once, and the pairs of games on one deal stay paired.
    let json: Value = serde_json::from_str(&ok(&["report", "--pool", "--json", a, b])).unwrap();
    let one: Value = serde_json::from_str(&ok(&["report", "--json", a])).unwrap();
    assert_eq!(json["games"], 2 * one["games"].as_u64().unwrap());
    let pair = |j: &Value| {
        j["pairs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["first"] == "new" && p["second"] == "old")
            .cloned()
            .unwrap()
    };
    let (pooled, single) = (pair(&json), pair(&one));
    assert_eq!(pooled["model"], "pentanomial", "{pooled}");
    assert_eq!(
        pooled["observations"],
        2 * single["observations"].as_u64().unwrap()
    );
    assert_eq!(pooled["games"], 2 * single["games"].as_u64().unwrap());
    // The same file twice is the same event twice: pooled, it counts twice too.
    let twice: Value = serde_json::from_str(&ok(&["report", "--pool", "--json", a, a])).unwrap();
    assert_eq!(twice["games"], json["games"]);
}

/// One pair of games (issue 38: reported as `+191 [+191, +191]`, `±0`, LOS 100%) is too small
/// a sample: the text says so in place of Elo, nElo and LOS, and the JSON marks it.
#[test]
fn a_pair_that_met_once_is_a_sample_too_small() {
    let dir = TempDir::new("rs-small");
    let mut records = Vec::new();
    deal(&mut records, "new", "old", [1.0, 0.5]);
    let file = write(&dir.0, "one.jsonl", &records);
    let f = file.to_str().unwrap();
    let text = ok(&["report", f]);
    assert!(!text.contains("+191"), "{text}");
    let row = line_with(&text, "new vs old")[0];
    assert!(row.contains("sample too small"), "{row}");
    assert!(!row.contains("100.0%"), "{row}");
    assert!(text.contains("fewer than 5 pairs"), "{text}");
    for name in ["new", "old"] {
        let row = text
            .lines()
            .find(|l| l.split_whitespace().nth(1) == Some(name))
            .unwrap();
        assert!(row.ends_with("sample too small"), "{row}");
    }
    let json: Value = serde_json::from_str(&ok(&["report", "--json", f])).unwrap();
    assert_eq!(json["pairs"][0]["small_sample"], true, "{json}");
    // Its interval keeps a width all the same (every observation alike: Wilson's).
    let (low, high) = (&json["pairs"][0]["elo_low"], &json["pairs"][0]["elo_high"]);
    assert!(
        low.as_f64().unwrap() < 0.0 && high.as_f64().unwrap() > 300.0,
        "{json}"
    );
    // Ten pairs are reported in full.
    let full = write(&dir.0, "full.jsonl", &three_engines());
    let text = ok(&["report", full.to_str().unwrap()]);
    let row = line_with(&text, "new vs old")[0];
    assert!(row.contains("+127 [+25, +257]"), "{row}");
}

/// Pooled events where one engine believed other rules (`assumes`) keep it apart, one entry
/// per belief, and say so on stderr; an engine whose beliefs never changed keeps its name.
#[test]
fn pooled_events_keep_an_engine_apart_where_its_assumes_differ() {
    use anqi_core::record::SeatTag;
    let dir = TempDir::new("rs-pool-assumes");
    let believing = |assumes: Option<&str>| {
        let mut records = three_engines();
        for r in &mut records {
            let tag = r.tournament.as_mut().unwrap();
            tag.seats = tag
                .engines
                .iter()
                .map(|e| SeatTag {
                    protocol: if e == "old" { "tcg" } else { "anqi" }.into(),
                    assumes: (e == "old").then(|| assumes.map(String::from)).flatten(),
                    tc: "60+0".into(),
                })
                .collect();
        }
        records
    };
    let spring = write(&dir.0, "spring.jsonl", &believing(None));
    let summer = write(&dir.0, "summer.jsonl", &believing(Some("ntu-engines")));
    let autumn = write(&dir.0, "autumn.jsonl", &believing(None));
    let (a, b, c) = (
        spring.to_str().unwrap(),
        summer.to_str().unwrap(),
        autumn.to_str().unwrap(),
    );
    let out = run(&["report", "--pool", "--json", a, b, c]);
    assert!(out.status.success());
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = json["engines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    for name in [
        "new",
        "base",
        "old (assumes nothing)",
        "old (assumes ntu-engines)",
    ] {
        assert!(names.contains(&name), "{name}: {names:?}");
    }
    assert!(!names.contains(&"old"), "{names:?}");
    let games = |name: &str| {
        json["engines"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == name)
            .unwrap()["games"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(
        games("old (assumes nothing)"),
        2 * games("old (assumes ntu-engines)")
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("engine \"old\" played under different assumes")
            && stderr.contains("kept apart"),
        "{stderr}"
    );
    // Beliefs that never changed: one engine, as before.
    let same: Value = serde_json::from_str(&ok(&["report", "--pool", "--json", a, c])).unwrap();
    assert!(same["engines"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["name"] == "old"));
}
