//! `anqi tournament`, `anqi report` and `anqi match` on one-side variants (single-player,
//! cooperative): the schedule gives every engine (or team) the same deals, each engine scores
//! its successes, standings show success rates with Wilson intervals and no Elo, the SPRT is
//! refused, resume and shards work as for competitive events, and external engines with
//! standing tokens find a tournament listening on port 0 by its `listening on` line.

use crate::common;

use anqi_core::record::GameRecord;
use common::{anqi_bot, replay, TempDir};
use serde_json::Value;
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const ANQI: &str = env!("CARGO_BIN_EXE_anqi");

/// A reference bot engine, `anqi-bot --strategy STRATEGY` (its token from ANQI_TOKEN).
fn bot(name: &str, strategy: &str) -> String {
    format!(
        "[[tournament.engine]]\nname = \"{name}\"\ncommand = \"{}\"\nargs = [\"--connect\", \"{{addr}}\", \"--strategy\", \"{strategy}\", \"--depth\", \"1\", \"--seed\", \"{{seed}}\", \"--name\", \"{{name}}\"]\n",
        anqi_bot().display()
    )
}

/// Writes a tournament file in `dir` for `variant` and returns its path.
fn config(dir: &Path, variant: &str, head: &str, engines: &[String]) -> PathBuf {
    let path = dir.join("t.toml");
    let text = format!(
        "[tournament]\nvariant = \"{variant}\"\nseed = \"one-side\"\noutput = \"{}\"\nlogs = \"{}\"\n{head}\n{}",
        dir.join("out.jsonl").display(),
        dir.join("logs").display(),
        engines.concat()
    );
    std::fs::write(&path, text).unwrap();
    path
}

/// `anqi ARGS...`: (exit code, stdout, stderr).
fn run<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> (i32, String, String) {
    let out = Command::new(ANQI).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `anqi ARGS...`, asserted to succeed: its stdout.
fn anqi<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> String {
    let (code, out, err) = run(args);
    assert_eq!(code, 0, "anqi failed:\n{err}");
    out
}

/// `anqi tournament FILE --json EXTRA...`: the final standings (the progress on stderr is
/// dropped).
fn tournament(file: &Path, extra: &[&str]) -> Value {
    let mut args = vec![
        "tournament".to_string(),
        file.display().to_string(),
        "--json".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    serde_json::from_str(&anqi(&args)).unwrap()
}

fn records(path: &Path) -> Vec<GameRecord> {
    let mut records: Vec<GameRecord> = anqi_core::record::read_records(path)
        .unwrap()
        .into_iter()
        .map(|(_, r)| r.unwrap())
        .collect();
    records.sort_by_key(|r| r.tournament.as_ref().unwrap().index);
    records
}

/// The records with their timing zeroed (the only thing two runs may differ in).
fn normalized(path: &Path) -> Vec<GameRecord> {
    let mut records = records(path);
    for r in &mut records {
        r.started_unix_ms = 0;
        r.plies.iter_mut().for_each(|p| p.think_ms = 0);
        r.players.iter_mut().for_each(|p| p.time_used_ms = 0);
    }
    records
}

fn engines(r: &GameRecord) -> &[String] {
    &r.tournament.as_ref().unwrap().engines
}

/// Checks one engine's (or team's) row against the records it played in.
fn check_row(row: &Value, games: &[&GameRecord]) {
    let successes = games
        .iter()
        .filter(|r| r.result.winner_side == Some(0))
        .count();
    assert_eq!(row["games"], games.len(), "{row}");
    assert_eq!(row["successes"], successes, "{row}");
    let rate = row["success_rate"].as_f64().unwrap();
    assert!((rate - successes as f64 / games.len() as f64).abs() < 1e-12);
    let (low, high) = (
        row["success_low"].as_f64().unwrap(),
        row["success_high"].as_f64().unwrap(),
    );
    assert!(
        0.0 <= low && low <= rate && rate <= high && high <= 1.0,
        "{row}"
    );
    assert!(
        high - low > 0.1,
        "a handful of games leaves a wide interval"
    );
    let terminations: u64 = row["terminations"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(terminations as usize, games.len());
}

#[test]
fn single_player_events_score_each_engine_on_the_same_deals() {
    let dir = TempDir::new("one-side-single");
    // A ply cap the random bot rarely clears within and the greedy one usually does.
    let file = config(
        &dir.0,
        "single",
        "deals = 3\nconcurrency = 2\nmax_plies = 120\nlegal_counts = \"all\"",
        &[bot("random", "random"), bot("greedy", "greedy")],
    );
    let standings = tournament(&file, &[]);
    let out = dir.0.join("out.jsonl");
    assert_eq!(replay(&out), "6 verified, 0 failed");
    let all = records(&out);
    assert_eq!(all.len(), 6);
    for r in &all {
        assert_eq!(r.players.len(), 1);
        assert_eq!((r.players[0].side, r.players[0].team), (Some(0), Some(0)));
        assert!(r
            .plies
            .iter()
            .all(|p| p.legal_all.as_ref().unwrap() == &[p.legal]));
    }
    // Every engine plays every deal once, alone.
    let deals = |name: &str| -> BTreeSet<u64> {
        all.iter()
            .filter(|r| engines(r) == [name])
            .map(|r| r.tournament.as_ref().unwrap().deal)
            .collect()
    };
    assert_eq!(deals("random"), BTreeSet::from([0, 1, 2]));
    assert_eq!(deals("greedy"), deals("random"));

    // No Elo, pairs or crosstable: success rates, per variant.
    assert_eq!(standings["engines"], Value::Array(vec![]));
    assert_eq!(standings["pairs"], Value::Array(vec![]));
    let section = &standings["one_side"][0];
    assert_eq!(section["variant"], "single");
    assert_eq!(section["game_type"], "single");
    assert_eq!(section["games"], 6);
    assert_eq!(section["teams"], Value::Array(vec![]));
    let rows = section["engines"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    for row in rows {
        let name = row["name"].as_str().unwrap();
        let games: Vec<&GameRecord> = all.iter().filter(|r| engines(r) == [name]).collect();
        check_row(row, &games);
    }
    let rate = |i: usize| rows[i]["success_rate"].as_f64().unwrap();
    assert!(rate(0) >= rate(1), "best first");
    let successes: u64 = rows.iter().map(|r| r["successes"].as_u64().unwrap()).sum();
    assert_eq!(section["successes"], successes);

    // `anqi report` says the same, as text and as JSON.
    let report: Value = serde_json::from_str(&anqi(&[
        "report".as_ref(),
        "--json".as_ref(),
        out.as_os_str(),
    ]))
    .unwrap();
    assert_eq!(report, standings);
    let text = anqi(&["report".as_ref(), out.as_os_str()]);
    assert!(
        text.starts_with("Success rates: 6 games of single (single: "),
        "{text}"
    );
    assert!(
        !text.contains("Elo") && !text.contains("Crosstable"),
        "{text}"
    );
    for row in rows {
        let line = text
            .lines()
            .find(|l| l.split_whitespace().nth(1) == row["name"].as_str())
            .unwrap_or_else(|| panic!("a row for {row} in\n{text}"));
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(words[2], row["games"].to_string(), "{line}");
        assert_eq!(words[3], row["successes"].to_string(), "{line}");
        assert_eq!(
            words[4],
            format!("{:.1}%", 100.0 * row["success_rate"].as_f64().unwrap()),
            "{line}"
        );
    }
    assert!(text.contains("Terminations per engine:"), "{text}");

    // The SPRT has no Elo to test here.
    let (code, _, err) = run(&[
        "report".as_ref(),
        out.as_os_str(),
        "--sprt".as_ref(),
        "0,5".as_ref(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("one-side games only (single"), "{err}");
}

#[test]
fn cooperative_events_rotate_the_seats_of_every_team_on_the_same_deals() {
    let dir = TempDir::new("one-side-coop");
    let file = config(
        &dir.0,
        "cooperative",
        "deals = 1\nconcurrency = 2\nmax_plies = 200",
        &[
            bot("random", "random"),
            bot("greedy", "greedy"),
            bot("search", "search"),
        ],
    );
    let standings = tournament(&file, &[]);
    let out = dir.0.join("out.jsonl");
    assert_eq!(replay(&out), "6 verified, 0 failed");
    let all = records(&out);
    // Three teams of two, each in both seat orders, all on deal 0.
    let seatings: BTreeSet<Vec<String>> = all.iter().map(|r| engines(r).to_vec()).collect();
    assert_eq!(seatings.len(), 6, "{seatings:?}");
    for s in &seatings {
        assert!(seatings.contains(&vec![s[1].clone(), s[0].clone()]));
    }
    assert!(all.iter().all(|r| r.tournament.as_ref().unwrap().deal == 0));
    for r in &all {
        let st: Vec<_> = r.players.iter().map(|p| (p.side, p.team)).collect();
        assert_eq!(st, [(Some(0), Some(1)), (Some(0), Some(1))]);
        assert!(r.plies.iter().all(|p| p.legal_all.is_none()), "mover only");
    }
    let section = &standings["one_side"][0];
    assert_eq!(section["game_type"], "cooperative");
    assert_eq!(section["games"], 6);
    for row in section["engines"].as_array().unwrap() {
        let name = row["name"].as_str().unwrap();
        let games: Vec<&GameRecord> = all
            .iter()
            .filter(|r| engines(r).iter().any(|e| e == name))
            .collect();
        assert_eq!(games.len(), 4);
        check_row(row, &games);
    }
    let teams = section["teams"].as_array().unwrap();
    assert_eq!(teams.len(), 3);
    for team in teams {
        let members: BTreeSet<&str> = team["engines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e.as_str().unwrap())
            .collect();
        let games: Vec<&GameRecord> = all
            .iter()
            .filter(|r| {
                engines(r)
                    .iter()
                    .map(String::as_str)
                    .collect::<BTreeSet<_>>()
                    == members
            })
            .collect();
        assert_eq!(games.len(), 2);
        check_row(team, &games);
    }
    let text = anqi(&["report".as_ref(), out.as_os_str()]);
    assert!(
        text.contains("Teams (the engines that played a game together):"),
        "{text}"
    );
}

#[test]
fn the_sprt_is_refused_for_one_side_events() {
    let dir = TempDir::new("one-side-sprt");
    let file = config(
        &dir.0,
        "single",
        "[tournament.sprt]\nelo0 = 0\nelo1 = 5",
        &[bot("random", "random"), bot("greedy", "greedy")],
    );
    let (code, _, err) = run(&["tournament".as_ref(), file.as_os_str(), "--quiet".as_ref()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("[tournament.sprt]: single is a one-side game")
            && err.contains("success rates"),
        "{err}"
    );
    assert!(!dir.0.join("out.jsonl").exists(), "no game was played");
}

#[test]
fn one_side_events_resume_and_their_shards_merge_into_the_whole() {
    let engines = [bot("random", "random"), bot("greedy", "greedy")];
    let head = "deals = 2\nmax_plies = 100";
    let (whole, resumed, shards) = (
        TempDir::new("one-side-whole"),
        TempDir::new("one-side-resumed"),
        TempDir::new("one-side-shards"),
    );
    let standings = tournament(&config(&whole.0, "single", head, &engines), &[]);
    let expected = normalized(&whole.0.join("out.jsonl"));
    assert_eq!(expected.len(), 4);

    // One deal, then both: only the missing games are played.
    let file = config(&resumed.0, "single", head, &engines);
    tournament(&file, &["--deals", "1"]);
    assert_eq!(records(&resumed.0.join("out.jsonl")).len(), 2);
    assert_eq!(tournament(&file, &[]), standings);
    assert_eq!(normalized(&resumed.0.join("out.jsonl")), expected);

    let file = config(&shards.0, "single", head, &engines);
    let mut parts = Vec::new();
    for i in 0..2 {
        let part = shards.0.join(format!("shard{i}.jsonl"));
        tournament(
            &file,
            &[
                "--shard",
                &format!("{i}/2"),
                "--output",
                part.to_str().unwrap(),
            ],
        );
        parts.push(part);
    }
    let merged = shards.0.join("all.jsonl");
    anqi(&[
        "merge".as_ref(),
        "-o".as_ref(),
        merged.as_os_str(),
        parts[0].as_os_str(),
        parts[1].as_os_str(),
    ]);
    assert_eq!(normalized(&merged), expected);
    let report: Value = serde_json::from_str(&anqi(&[
        "report".as_ref(),
        "--json".as_ref(),
        merged.as_os_str(),
    ]))
    .unwrap();
    assert_eq!(report, standings);
}

/// External engines (a standing token, no command) find a tournament on port 0 by the
/// `listening on HOST:PORT` line on its stderr, as `anqi.play` does, and play a cooperative
/// event: each engine connects once per game.
#[test]
fn external_engines_with_standing_tokens_play_one_side_events_on_port_0() {
    let dir = TempDir::new("one-side-external");
    let file = config(
        &dir.0,
        "cooperative",
        "deals = 2\nconcurrency = 2\nlisten = \"127.0.0.1:0\"\nmax_plies = 100",
        &[
            "[[tournament.engine]]\nname = \"left\"\ntoken = \"left-standing-token\"\n".into(),
            "[[tournament.engine]]\nname = \"right\"\ntoken = \"right-standing-token\"\n".into(),
        ],
    );
    let mut child = Command::new(ANQI)
        .arg("tournament")
        .arg(&file)
        .arg("--json")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut addr = None;
    for _ in 0..20 {
        let mut line = String::new();
        if stderr.read_line(&mut line).unwrap() == 0 {
            break;
        }
        if let Some(a) = line.trim().strip_prefix("listening on ") {
            addr = Some(a.to_string());
            break;
        }
    }
    let addr = addr.expect("`listening on HOST:PORT` on stderr, even with --quiet");
    assert!(!addr.ends_with(":0"), "the real port: {addr}");
    // Four games (two deals, two seatings), each needing both engines.
    let players: Vec<_> = [("left", "greedy"), ("right", "random")]
        .into_iter()
        .map(|(name, strategy)| {
            Command::new(anqi_bot())
                .args(["--connect", &addr, "--strategy", strategy, "--games", "4"])
                .args(["--name", name, "--seed", "3"])
                .env("ANQI_TOKEN", format!("{name}-standing-token"))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).unwrap();
    assert!(child.wait().unwrap().success(), "{rest}");
    for mut p in players {
        assert!(p.wait().unwrap().success());
    }
    let standings: Value = serde_json::from_str(&out).unwrap();
    let path = dir.0.join("out.jsonl");
    assert_eq!(replay(&path), "4 verified, 0 failed");
    let all = records(&path);
    assert!(all.iter().all(|r| !r.result.reason.is_fault()), "{rest}");
    let section = &standings["one_side"][0];
    assert_eq!(section["games"], 4);
    assert_eq!(section["teams"][0]["name"], "left + right");
    check_row(&section["teams"][0], &all.iter().collect::<Vec<_>>());
}

#[test]
fn anqi_match_plays_one_side_variants() {
    let dir = TempDir::new("one-side-match");
    anqi_bot();
    let out = dir.0.join("m.jsonl");
    let text = anqi(&[
        "match".as_ref(),
        "random".as_ref(),
        "greedy".as_ref(),
        "--variant".as_ref(),
        "single".as_ref(),
        "--games".as_ref(),
        "4".as_ref(),
        "--quiet".as_ref(),
        "--output".as_ref(),
        out.as_os_str(),
    ]);
    assert!(
        text.starts_with("Success rates: 4 games of single"),
        "{text}"
    );
    assert_eq!(replay(&out), "4 verified, 0 failed");
    let all = records(&out);
    let by = |name: &str| all.iter().filter(|r| engines(r) == [name]).count();
    assert_eq!((by("random"), by("greedy")), (2, 2));
    let (code, _, err) = run(&[
        "match",
        "random",
        "greedy",
        "--variant",
        "single",
        "--games",
        "3",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("once by each engine") && err.contains("such as 2"),
        "{err}"
    );
}

/// A records file holding competitive and one-side games (distinct schedule indexes) is
/// reported in sections, and tournament records written before sides and teams existed still
/// report and replay.
#[test]
fn mixed_and_old_records_report_in_sections() {
    let (a, b) = (
        TempDir::new("one-side-mixed-a"),
        TempDir::new("one-side-mixed-b"),
    );
    let engines = [bot("random", "random"), bot("greedy", "greedy")];
    tournament(&config(&a.0, "traditional-2x4", "deals = 1", &engines), &[]);
    tournament(&config(&b.0, "single", "deals = 1", &engines), &[]);
    let mut lines = Vec::new();
    for mut r in records(&a.0.join("out.jsonl")) {
        // As written before sides and teams were.
        for p in &mut r.players {
            (p.side, p.team) = (None, None);
        }
        lines.push(serde_json::to_string(&r).unwrap());
    }
    for mut r in records(&b.0.join("out.jsonl")) {
        r.tournament.as_mut().unwrap().index += 100;
        lines.push(serde_json::to_string(&r).unwrap());
    }
    assert!(!lines[0].contains("\"side\""));
    let mixed = a.0.join("mixed.jsonl");
    std::fs::write(&mixed, lines.join("\n") + "\n").unwrap();
    assert_eq!(replay(&mixed), "4 verified, 0 failed");
    let text = anqi(&["report".as_ref(), mixed.as_os_str()]);
    assert!(
        text.starts_with("Standings: 2 games of traditional-2x4\n"),
        "{text}"
    );
    assert!(
        text.contains("\nSuccess rates: 2 games of single (single: "),
        "{text}"
    );
    let json: Value = serde_json::from_str(&anqi(&[
        "report".as_ref(),
        "--json".as_ref(),
        mixed.as_os_str(),
    ]))
    .unwrap();
    assert_eq!(json["games"], 4);
    assert_eq!(json["variant"], "traditional-2x4");
    assert_eq!(json["engines"].as_array().unwrap().len(), 2);
    assert_eq!(json["engines"][0]["games"], 2);
    assert_eq!(json["one_side"][0]["games"], 2);
    // The SPRT tests the competitive games.
    let (code, out, err) = run(&[
        "report".as_ref(),
        mixed.as_os_str(),
        "--sprt".as_ref(),
        "0,5".as_ref(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("SPRT random vs greedy"), "{out}");
}
