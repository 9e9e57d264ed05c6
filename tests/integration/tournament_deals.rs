//! Tournament deals are secret until the event ends, then proven: a random master seed kept in
//! the event's seed file, deals derived from it by HMAC, a commitment in every record, the
//! seed revealed at the end and every deal checked against the commitment by `anqi report` and
//! `anqi replay`; resume and shards deal from the same seed (TOURNAMENTS.md, "Deals").

use crate::common::{self, bot_engine as bot, TempDir};
use anqi_core::record::GameRecord;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

const ANQI: &str = env!("CARGO_BIN_EXE_anqi");

/// A tournament file of two random bots on traditional-2x4 with no `seed`: the deals come from
/// a random master seed.
fn event(dir: &Path, head: &str) -> PathBuf {
    let path = dir.join("t.toml");
    let text = format!(
        "[tournament]\nvariant = \"traditional-2x4\"\noutput = \"{}\"\nlogs = \"{}\"\n{head}\n{}{}",
        dir.join("out.jsonl").display(),
        dir.join("logs").display(),
        bot("alpha"),
        bot("beta"),
    );
    std::fs::write(&path, text).unwrap();
    path
}

fn anqi(args: &[&str]) -> Output {
    Command::new(ANQI).args(args).output().unwrap()
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `anqi ARGS`, asserting success; returns (stdout, stderr).
fn ok(args: &[&str]) -> (String, String) {
    let out = anqi(args);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "anqi {args:?} failed:\n{stderr}");
    (stdout, stderr)
}

/// Runs `anqi ARGS`, asserting failure; returns its stderr.
fn fails(args: &[&str]) -> String {
    let out = anqi(args);
    let (_, stderr) = text(&out);
    assert!(!out.status.success(), "anqi {args:?} succeeded:\n{stderr}");
    stderr
}

/// The records of a file, in schedule order (games played at once end in any order).
fn records(path: &Path) -> Vec<GameRecord> {
    let mut records: Vec<GameRecord> = anqi_core::record::read_records(path)
        .unwrap()
        .into_iter()
        .map(|(_, r)| r.unwrap())
        .collect();
    records.sort_by_key(|r| r.tournament.as_ref().map(|t| t.index));
    records
}

/// A seed file's fields.
fn seed_file(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Every record carries `commitment` and was dealt from `master` as its deal number says.
fn assert_dealt_from(records: &[GameRecord], master: &str, commitment: &str) {
    for r in records {
        let tag = r.tournament.as_ref().unwrap();
        assert_eq!(
            tag.commitment.as_deref(),
            Some(commitment),
            "game {}",
            tag.index
        );
        assert!(r.seeds.clients.is_empty());
        assert_eq!(
            r.seeds.server,
            common::tournament_deal_seed(master, tag.deal),
            "game {}",
            tag.index
        );
    }
}

#[test]
fn a_random_master_seed_is_kept_secret_committed_then_revealed_and_checked() {
    let dir = TempDir::new("deals-random");
    let file = event(&dir.0, "deals = 2\nconcurrency = 2");
    let out = dir.0.join("out.jsonl");
    let seed_path = dir.0.join("out.jsonl.seed");
    let (_, stderr) = ok(&["tournament", s(&file)]);

    // The seed file: private, whole, and marked revealed now that the event is over.
    let kept = seed_file(&seed_path);
    let master = kept["master_seed"].as_str().unwrap().to_string();
    let commitment = kept["commitment"].as_str().unwrap().to_string();
    assert_eq!(master.len(), 64, "256 random bits");
    assert_eq!(kept["revealed"], true);
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&seed_path).unwrap().permissions().mode();
        assert_eq!(
            mode & 0o077,
            0,
            "the seed file is its owner's alone: {mode:o}"
        );
    }
    // Committed at the start, revealed at the end.
    let start = stderr
        .find(&format!("commitment {commitment}"))
        .unwrap_or_else(|| panic!("the commitment is printed at the start:\n{stderr}"));
    let end = stderr
        .find(&format!("event complete: master seed {master}"))
        .unwrap_or_else(|| panic!("the seed is revealed at the end:\n{stderr}"));
    assert!(start < end);
    let games = records(&out);
    assert_eq!(games.len(), 4);
    assert_dealt_from(&games, &master, &commitment);

    // Another event draws another seed.
    let other = TempDir::new("deals-random-2");
    ok(&["tournament", s(&event(&other.0, "deals = 1")), "--quiet"]);
    let other_master = seed_file(&other.0.join("out.jsonl.seed"))["master_seed"].clone();
    assert_ne!(other_master.as_str().unwrap(), master);

    // Anyone with the records and the revealed seed checks every deal.
    let (report, _) = ok(&["report", s(&out), "--seed-file", s(&seed_path)]);
    assert!(
        report.contains(&format!(
            "Deals: all 4 games, deals 0 to 1 in order with none missing, dealt from the master seed committed to {commitment}"
        )),
        "{report}"
    );
    let (report, _) = ok(&["report", s(&out), "--seed", &master]);
    assert!(report.contains("Deals: all 4 games"), "{report}");
    let (report, _) = ok(&["report", s(&out)]);
    assert!(
        report.contains(&format!("Deals: committed to {commitment}; not checked")),
        "{report}"
    );
    let (replay, _) = ok(&["replay", "--quiet", s(&out), "--seed-file", s(&seed_path)]);
    assert!(
        replay.contains("4 tournament deals checked against the revealed master seed")
            && replay.ends_with("4 verified, 0 failed\n"),
        "{replay}"
    );
    // Another seed is not the committed one.
    let e = fails(&["report", s(&out), "--seed", "anqi"]);
    assert!(e.contains("not this event's master seed"), "{e}");
    let (replay, _) = text(&anqi(&["replay", "--quiet", s(&out), "--seed", "anqi"]));
    assert!(
        replay.contains("FAILED") && replay.contains("not this event's master seed"),
        "{replay}"
    );

    // A record whose deal was swapped for another deal of the same seed is caught.
    let mut changed = games.clone();
    changed[0].seeds.server = common::tournament_deal_seed(&master, 9);
    let forged = dir.0.join("forged.jsonl");
    let lines: String = changed
        .iter()
        .map(|r| serde_json::to_string(r).unwrap() + "\n")
        .collect();
    std::fs::write(&forged, lines).unwrap();
    let e = fails(&["report", s(&forged), "--seed-file", s(&seed_path)]);
    assert!(
        e.contains("was not dealt from the master seed as deal 0"),
        "{e}"
    );
    // Nor can games be left out, or other deals of the seed played in their place: the
    // revealed seed proves the deals came in order, none missing.
    let write = |records: &[GameRecord]| {
        let lines: String = records
            .iter()
            .map(|r| serde_json::to_string(r).unwrap() + "\n")
            .collect();
        std::fs::write(&forged, lines).unwrap();
    };
    write(&[games[0].clone(), games[2].clone(), games[3].clone()]);
    let e = fails(&["report", s(&forged), "--seed-file", s(&seed_path)]);
    assert!(e.contains("game 1 is missing"), "{e}");
    let mut skipped = games.clone();
    for r in &mut skipped[2..] {
        let tag = r.tournament.as_mut().unwrap();
        tag.deal = 5;
        r.seeds.server = common::tournament_deal_seed(&master, 5);
    }
    write(&skipped);
    let e = fails(&["report", s(&forged), "--seed-file", s(&seed_path)]);
    assert!(e.contains("game 2 plays deal 5"), "{e}");
    write(&[games[0].clone(), games[1].clone(), games[2].clone()]);
    let (report, _) = ok(&["report", s(&forged), "--seed-file", s(&seed_path)]);
    assert!(
        report.contains("all 3 games, deals 0 to 1"),
        "an event stopped in its last deal: {report}"
    );

    // The revealed seed deals nothing more: an extended event would be known in advance.
    let e = fails(&["tournament", s(&file), "--deals", "3", "--quiet"]);
    assert!(e.contains("was revealed when this event ended"), "{e}");
    // The same command with nothing left to play still reports.
    ok(&["tournament", s(&file), "--quiet"]);
}

#[test]
fn a_resumed_run_deals_from_its_seed_file_and_refuses_to_go_on_without_it() {
    let dir = TempDir::new("deals-resume");
    let file = event(&dir.0, "deals = 4\nconcurrency = 1");
    let out = dir.0.join("out.jsonl");
    let seed_path = dir.0.join("out.jsonl.seed");
    let mut child = Command::new(ANQI)
        .args(["tournament", s(&file), "--quiet"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    for _ in 0..1500 {
        if std::fs::read_to_string(&out).map_or(0, |t| t.lines().count()) >= 2 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let kept = seed_file(&seed_path);
    assert!(
        kept.get("revealed").is_none(),
        "not revealed before the end: {kept}"
    );
    let master = kept["master_seed"].as_str().unwrap().to_string();
    let commitment = kept["commitment"].as_str().unwrap().to_string();
    let before = records(&out).len();
    assert!(
        (2..8).contains(&before),
        "killed in the middle: {before} games"
    );

    // Without its seed file, the event cannot go on: a new seed would deal another event.
    let moved = dir.0.join("elsewhere.seed");
    std::fs::rename(&seed_path, &moved).unwrap();
    let e = fails(&["tournament", s(&file), "--quiet"]);
    assert!(e.contains("seed file") && e.contains("is missing"), "{e}");
    assert!(!seed_path.exists(), "no new seed was drawn");
    // Named where it now is, it resumes, and the games all come from the one seed.
    ok(&["tournament", s(&file), "--quiet", "--seed-file", s(&moved)]);
    let games = records(&out);
    assert_eq!(games.len(), 8);
    assert_dealt_from(&games, &master, &commitment);
    // A fixed seed is another event: refused on resume.
    let e = fails(&["tournament", s(&file), "--quiet", "--seed", "fixed"]);
    assert!(e.contains("another master seed"), "{e}");
}

#[test]
fn shards_deal_from_one_prepared_seed_file_and_merge_into_one_committed_event() {
    let dir = TempDir::new("deals-shards");
    let file = event(&dir.0, "deals = 2\nconcurrency = 1");
    let seed_path = dir.0.join("event.seed");
    let (s0, s1) = (dir.0.join("s0.jsonl"), dir.0.join("s1.jsonl"));

    // A shard cannot draw the event's seed alone.
    let e = fails(&[
        "tournament",
        s(&file),
        "--quiet",
        "--shard",
        "0/2",
        "--output",
        s(&s0),
    ]);
    assert!(
        e.contains("--prepare") && e.contains("does not exist"),
        "{e}"
    );
    assert!(!s0.exists() || records(&s0).is_empty());

    let (stdout, _) = ok(&[
        "tournament",
        s(&file),
        "--prepare",
        "--seed-file",
        s(&seed_path),
    ]);
    let commitment = seed_file(&seed_path)["commitment"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(stdout, format!("commitment {commitment}\n"));
    // Prepared again: the same seed, never replaced.
    let (again, _) = ok(&[
        "tournament",
        s(&file),
        "--prepare",
        "--seed-file",
        s(&seed_path),
    ]);
    assert_eq!(again, stdout);

    for (shard, output) in [("0/2", &s0), ("1/2", &s1)] {
        ok(&[
            "tournament",
            s(&file),
            "--quiet",
            "--shard",
            shard,
            "--output",
            s(output),
            "--seed-file",
            s(&seed_path),
        ]);
    }
    // A shard ends only its part of the event: nothing is revealed.
    assert!(seed_file(&seed_path).get("revealed").is_none());
    let merged = dir.0.join("merged.jsonl");
    ok(&["merge", "-o", s(&merged), s(&s0), s(&s1)]);
    let master = seed_file(&seed_path)["master_seed"]
        .as_str()
        .unwrap()
        .to_string();
    let games = records(&merged);
    assert_eq!(games.len(), 4);
    assert_dealt_from(&games, &master, &commitment);
    let (report, _) = ok(&["report", s(&merged), "--seed-file", s(&seed_path)]);
    assert!(report.contains("Deals: all 4 games"), "{report}");

    // A shard dealt from another seed is another event's: merging refuses it.
    let stray = dir.0.join("stray.jsonl");
    ok(&[
        "tournament",
        s(&file),
        "--quiet",
        "--shard",
        "1/2",
        "--output",
        s(&stray),
        "--seed",
        "x",
    ]);
    let e = fails(&[
        "merge",
        "-o",
        s(&dir.0.join("bad.jsonl")),
        s(&s0),
        s(&stray),
    ]);
    assert!(e.contains("not one event's"), "{e}");
}

#[test]
fn the_pages_hold_a_finished_game_back_while_its_deal_is_still_in_play() {
    let dir = TempDir::new("deals-pages");
    let root = env!("CARGO_MANIFEST_DIR");
    // beta comes 4 s late to every second game of a deal (odd indexes), so that the first
    // game of each deal is over while the second still waits for it.
    let late_beta = format!(
        "[[tournament.engine]]\nname = \"beta\"\ncommand = \"sh\"\nargs = [\"-c\", 'if [ $(($0 % 2)) = 1 ]; then sleep 4; fi; exec python3 {root}/clients/python/anqi_random_bot.py --connect \"$1\" --name beta --quiet', \"{{game}}\", \"{{addr}}\"]\n"
    );
    let file = dir.0.join("t.toml");
    std::fs::write(
        &file,
        format!(
            "[tournament]\nvariant = \"traditional-2x4\"\ndeals = 2\nconcurrency = 1\noutput = \"{}\"\nlogs = \"{}\"\n{}{late_beta}",
            dir.0.join("out.jsonl").display(),
            dir.0.join("logs").display(),
            bot("alpha"),
        ),
    )
    .unwrap();
    let mut child = Command::new(ANQI)
        .args(["tournament", s(&file), "--http", "127.0.0.1:0"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let web = loop {
        let mut line = String::new();
        assert!(std::io::BufRead::read_line(&mut stderr, &mut line).unwrap() > 0);
        if let Some(addr) = line.trim().strip_prefix("web on http://") {
            break addr.trim_end_matches('/').to_string();
        }
    };
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    let rt = tokio::runtime::Runtime::new().unwrap();
    // Game numbers on the pages are schedule indexes + 1: deal 0 is games 1 and 2, deal 1
    // games 3 and 4.
    let finished = |list: &serde_json::Value, game: u64| {
        list["games"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["game"] == game && g["state"] == "finished")
    };
    rt.block_on(async {
        let mut held_seen = [false; 2];
        let mut shown_after = false;
        for _ in 0..600 {
            let (status, body) = crate::web::get(&web, "/api/games").await;
            if status != 200 {
                break; // the event is over and its pages gone
            }
            let list: serde_json::Value = serde_json::from_str(&body).unwrap();
            for (k, (first, second)) in [(1u64, 2u64), (3, 4)].into_iter().enumerate() {
                if finished(&list, first) && !finished(&list, second) {
                    let (status, body) =
                        crate::web::get(&web, &format!("/api/games/{first}")).await;
                    // Its twin may have ended between the two requests: then it is shown.
                    let (_, again) = crate::web::get(&web, "/api/games").await;
                    let twin_done =
                        serde_json::from_str(&again).is_ok_and(|l| finished(&l, second));
                    if !twin_done {
                        assert_eq!(
                            status, 409,
                            "game {first} while game {second} is unplayed: {body}"
                        );
                        assert!(body.contains("still in play"), "{body}");
                        assert!(!body.contains("seeds"), "{body}");
                        held_seen[k] = true;
                    }
                }
            }
            // Deal 0 over: both its games are shown whole, seeds and all.
            if finished(&list, 2) && !finished(&list, 4) {
                let (status, body) = crate::web::get(&web, "/api/games/1").await;
                if status == 200 {
                    assert!(body.contains("\"seeds\""), "{body}");
                    shown_after = true;
                }
            }
            if held_seen == [true, true] && shown_after {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert_eq!(
            held_seen,
            [true, true],
            "each deal's first game was held back"
        );
        assert!(shown_after, "a finished deal's games are shown again");
    });
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn an_event_the_sprt_stopped_reveals_its_seed_and_still_reports_when_run_again() {
    let dir = TempDir::new("deals-sprt");
    let root = env!("CARGO_MANIFEST_DIR");
    let resigner = format!(
        "[[tournament.engine]]\nname = \"resign\"\ncommand = \"python3\"\nargs = [\"{root}/tests/engines/misbehave.py\", \"resign\", \"--connect\", \"{{addr}}\"]\n"
    );
    let file = dir.0.join("t.toml");
    std::fs::write(
        &file,
        format!(
            "[tournament]\nvariant = \"traditional-2x4\"\ndeals = 100\nconcurrency = 2\noutput = \"{}\"\nlogs = \"{}\"\n[tournament.sprt]\nelo0 = 0\nelo1 = 100\n{}{resigner}",
            dir.0.join("out.jsonl").display(),
            dir.0.join("logs").display(),
            bot("player"),
        ),
    )
    .unwrap();
    let (first, stderr) = ok(&["tournament", s(&file), "--quiet"]);
    let seed_path = dir.0.join("out.jsonl.seed");
    assert_eq!(seed_file(&seed_path)["revealed"], true, "{stderr}");
    // Quiet, the commitment is still said before the games.
    let commitment = seed_file(&seed_path)["commitment"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        stderr.contains(&format!("commitment {commitment}")),
        "{stderr}"
    );
    let games = records(&dir.0.join("out.jsonl")).len();
    assert!(games < 200, "stopped early: {games}");
    // Run again: nothing is played (the SPRT has decided), so the revealed seed is no bar.
    let (again, _) = ok(&["tournament", s(&file), "--quiet"]);
    assert_eq!(again, first);
    assert_eq!(records(&dir.0.join("out.jsonl")).len(), games);
    let (report, _) = ok(&[
        "report",
        s(&dir.0.join("out.jsonl")),
        "--seed-file",
        s(&seed_path),
    ]);
    assert!(
        report.contains(&format!("Deals: all {games} games")),
        "{report}"
    );
}
