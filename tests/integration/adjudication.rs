//! Adjudication by endgame tables (`adjudicate = "tables"`) over TCP: the server ends a game
//! its tables decide, records the verdict, and `anqi replay --tables` re-checks it; a tables
//! file that does not fit stops the server (and a tournament) with the reason; a tournament
//! adjudicates its games the same way.

use crate::common;

use anqi_core::record::GameRecord;
use anqi_core::rules::{Termination, Variant};
use anqi_server::config::Config;
use anqi_server::Server;
use common::{TempDir, TestServer};
use std::path::{Path, PathBuf};
use std::process::Command;

const ANQI: &str = env!("CARGO_BIN_EXE_anqi");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// traditional-2x4's rules (capture rules, 180-ply no-progress, repetition) with a king and a
/// pawn a side, written to `dir`: every game is an endgame once its four pieces are revealed.
fn kpkp(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(format!("{ROOT}/protocol/variants/traditional-2x4.sexp"))
        .unwrap()
        .replace("(name traditional-2x4)", "(name kpkp)")
        .replace("(pieces KPPPkppp)", "(pieces KPkp)");
    let path = dir.join("kpkp.sexp");
    std::fs::write(&path, text).unwrap();
    path
}

/// `anqi tables build VARIANT --pieces K --out DIR/kpkp-K.tables`.
fn build_tables(variant: &Path, pieces: usize, dir: &Path) -> PathBuf {
    let out = dir.join(format!("kpkp-{pieces}.tables"));
    let run = Command::new(ANQI)
        .args(["tables", "build"])
        .arg(variant)
        .args(["--pieces", &pieces.to_string(), "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "anqi tables build failed:\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    out
}

/// `anqi replay ARGS...`: its exit status and stdout.
fn replay(args: &[&std::ffi::OsStr]) -> (Option<i32>, String) {
    let out = Command::new(ANQI)
        .arg("replay")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// A server config that adjudicates by `tables`, with a fixed seed and no clock.
fn adjudicating(tables: &Path) -> String {
    format!(
        "[referee]\nadjudicate = \"tables\"\ntables = \"{}\"\n[seed]\nserver = \"adjudication\"\n[clock]\ngame_ms = 0\n",
        tables.display()
    )
}

fn write_records(path: &Path, records: &[GameRecord]) {
    let text: String = records
        .iter()
        .map(|r| serde_json::to_string(r).unwrap() + "\n")
        .collect();
    std::fs::write(path, text).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tables_end_a_game_over_tcp_and_replay_re_checks_the_verdict() {
    let dir = TempDir::new("adjudication");
    let variant = kpkp(&dir.0);
    let tables = build_tables(&variant, 3, &dir.0);
    let config = adjudicating(&tables);
    let mut server = TestServer::start(variant.to_str().unwrap(), &config).await;
    // Random bots play game after game until the tables end one (once a capture leaves three
    // pieces, every one face-up).
    let mut adjudicated = None;
    let mut games = 0;
    for round in 0..20u64 {
        let bots = common::random_bots(&server.addr(), 2, 100 + 2 * round);
        let mut results = Vec::new();
        for b in bots {
            let r = b.await.unwrap().expect("the bot plays to the end");
            assert!(r.errors.is_empty(), "{:?}", r.errors);
            results.push(r);
        }
        let record = server.next_record().await;
        games += 1;
        assert!(!record.result.reason.is_fault(), "{:?}", record.result);
        if record.result.reason == Termination::Adjudicated {
            // The players were told the tables' result.
            let (w, t) = (record.result.winner, record.result.winner_team);
            assert!(results.iter().all(|r| r.win == (w, t)), "{results:?}");
            adjudicated = Some(record);
            break;
        }
        assert!(record.result.adjudication.is_none(), "{:?}", record.result);
    }
    let record = adjudicated.expect("the tables ended a game in 20");
    let ruling = record
        .result
        .adjudication
        .clone()
        .expect("the verdict is recorded");
    assert_eq!(ruling.by, "tables");
    assert_eq!(ruling.tables, "kpkp-3.tables");
    let v = &ruling.verdict;
    assert!(
        v == "draw" || v.starts_with("win in ") || v.starts_with("loss in "),
        "{v}"
    );
    assert_eq!(record.result.winner_side.is_none(), v == "draw");
    assert!(!record.final_board.contains('X'), "every piece face-up");
    let pieces = record.final_board.chars().filter(|c| *c != '.').count();
    assert!(pieces <= 3, "{}", record.final_board);
    // The record as the file has it: the ruling beside the reason.
    let (records_path, _server_dir) = server.stop().await;
    let line = std::fs::read_to_string(&records_path)
        .unwrap()
        .lines()
        .nth(games - 1)
        .unwrap()
        .to_string();
    assert!(
        line.contains(&format!(
            r#""reason":"adjudicated","adjudication":{{"by":"tables","verdict":"{v}","tables":"kpkp-3.tables"}}"#
        )),
        "{line}"
    );

    // anqi replay --tables re-checks it, and every other record.
    let (status, out) = replay(&[
        "--tables".as_ref(),
        tables.as_os_str(),
        records_path.as_os_str(),
    ]);
    assert_eq!(status, Some(0), "{out}");
    assert!(
        out.ends_with(&format!("{games} verified, 0 failed\n")),
        "{out}"
    );
    let shown = if v == "draw" {
        "(tables: draw)".to_string()
    } else {
        format!("(tables: {v} for the player to move)")
    };
    assert!(
        out.contains(&format!(
            ": game {games} verified: {} by adjudicated {shown} after {} plies",
            record.result.win, record.result.plies
        )),
        "{out}"
    );
    // Without tables: accepted, but said not to be re-checked.
    let (status, out) = replay(&[records_path.as_os_str()]);
    assert_eq!(status, Some(0), "{out}");
    assert!(
        out.contains(&format!(
            ": game {games} verified but for its adjudication, not re-checked (give --tables FILE): {}",
            record.result.win
        )),
        "{out}"
    );
    assert!(
        out.ends_with(&format!(
            "{} verified, 1 verified but for their adjudication (not re-checked: no --tables for them), 0 failed\n",
            games - 1
        )),
        "{out}"
    );

    // A record whose winner was changed fails, with the tables and without.
    let mut forged = record.clone();
    let wrong = match forged.result.winner_side {
        Some(side) => {
            let other = 1 - side;
            forged.result.winner = other + 1;
            forged.result.win = format!("(win {} 0)", other + 1);
            Some(other)
        }
        None => {
            forged.result.winner = 1;
            forged.result.win = "(win 1 0)".into();
            Some(0)
        }
    };
    forged.result.winner_side = wrong;
    let forged_path = dir.0.join("forged.jsonl");
    write_records(&forged_path, &[forged]);
    for args in [
        vec![
            "--tables".as_ref(),
            tables.as_os_str(),
            forged_path.as_os_str(),
        ],
        vec![forged_path.as_os_str()],
    ] {
        let (status, out) = replay(&args);
        assert_eq!(status, Some(1), "{out}");
        assert!(
            out.contains(&format!(
                "FAILED: adjudicated ({v}) with winner side {wrong:?}"
            )),
            "{out}"
        );
    }
    // Tables of other rules cannot re-check it: said so, and the record fails.
    let other = dir.0.join("other.sexp");
    std::fs::write(
        &other,
        std::fs::read_to_string(&variant)
            .unwrap()
            .replace("(name kpkp)", "(name other)")
            .replace("(allow (P K))", ""),
    )
    .unwrap();
    let other_tables = dir.0.join("other.tables");
    let run = Command::new(ANQI)
        .args(["tables", "build"])
        .arg(&other)
        .args(["--pieces", "2", "--out"])
        .arg(&other_tables)
        .output()
        .unwrap();
    assert!(run.status.success());
    let one = dir.0.join("one.jsonl");
    write_records(&one, std::slice::from_ref(&record));
    let (status, out) = replay(&[
        "--tables".as_ref(),
        other_tables.as_os_str(),
        one.as_os_str(),
    ]);
    assert_eq!(status, Some(1), "{out}");
    assert!(
        out.contains("FAILED: cannot re-check its adjudication:") && out.contains("other rules"),
        "{out}"
    );
    // Given both, the one built for its rules is used.
    let (status, out) = replay(&[
        "--tables".as_ref(),
        other_tables.as_os_str(),
        "--tables".as_ref(),
        tables.as_os_str(),
        one.as_os_str(),
    ]);
    assert_eq!(status, Some(0), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tables_that_cannot_be_read_back_mid_game_leave_the_games_to_the_rules() {
    let dir = TempDir::new("adjudication-cut");
    let variant = kpkp(&dir.0);
    let tables = build_tables(&variant, 3, &dir.0);
    let config = adjudicating(&tables);
    let mut server = TestServer::start(variant.to_str().unwrap(), &config).await;
    // The server has read the header; now every material's values are gone.
    let bytes = std::fs::read(&tables).unwrap();
    let header_end = bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .nth(1)
        .unwrap()
        .0;
    std::fs::write(&tables, &bytes[..=header_end]).unwrap();
    // The same games as above, the first of which the tables ended: now played out.
    for round in 0..3u64 {
        for b in common::random_bots(&server.addr(), 2, 100 + 2 * round) {
            let r = b.await.unwrap().expect("the bot plays to the end");
            assert!(r.errors.is_empty(), "{:?}", r.errors);
        }
        let record = server.next_record().await;
        assert!(
            !record.result.reason.is_fault() && record.result.reason != Termination::Adjudicated,
            "{:?}",
            record.result
        );
        assert!(record.result.adjudication.is_none());
        anqi_core::replay::verify(&record).unwrap();
    }
    server.stop_and_replay(3).await;
}

#[tokio::test]
async fn tables_that_do_not_fit_stop_the_server_with_the_reason() {
    let dir = TempDir::new("adjudication-bad");
    let variant = kpkp(&dir.0);
    let tables = build_tables(&variant, 2, &dir.0);
    let start = |variant: &str, toml: String| {
        let variant = Variant::load(variant).unwrap();
        async move {
            let mut config = Config::parse(&toml)?;
            config.server.listen = "127.0.0.1:0".into();
            config.records.path = String::new();
            Server::bind(config, variant)
                .await
                .map(|_| ())
                .map_err(|e| anqi_server::config::ConfigError(e.to_string()))
        }
    };
    let with = |file: &Path| {
        format!(
            "[referee]\nadjudicate = \"tables\"\ntables = \"{}\"\n",
            file.display()
        )
    };
    // No file, or none there.
    let e = start("traditional", "[referee]\nadjudicate = \"tables\"\n".into())
        .await
        .unwrap_err();
    assert!(
        e.0.contains("adjudicate = \"tables\" needs tables = \"FILE\""),
        "{e}"
    );
    let missing = dir.0.join("missing.tables");
    let e = start("traditional", with(&missing)).await.unwrap_err();
    assert!(
        e.0.contains("referee: tables: cannot open") && e.0.contains("missing.tables"),
        "{e}"
    );
    // Not a tables file.
    let e = start("traditional", with(&variant)).await.unwrap_err();
    assert!(e.0.contains("is not a tables file"), "{e}");
    // Tables of another board: named, with what to do.
    let e = start("traditional", with(&tables)).await.unwrap_err();
    assert!(
        e.0.contains("holds tables of variant kpkp with other rules than variant traditional")
            && e.0.contains("anqi tables build"),
        "{e}"
    );
    // A variant tables cannot hold.
    let e = start("single", with(&tables)).await.unwrap_err();
    assert!(e.0.contains("endgame tables need two sides"), "{e}");
    // The same board and captures with other pieces share tables.
    start("traditional-2x4", with(&tables)).await.unwrap();
    // Off by default, and a file set with adjudication off is checked all the same.
    start("traditional", String::new()).await.unwrap();
    let e = start(
        "traditional",
        format!("[referee]\ntables = \"{}\"\n", tables.display()),
    )
    .await
    .unwrap_err();
    assert!(e.0.contains("other rules"), "{e}");

    // `anqi serve` stops before it listens, with the reason and status 2.
    let out = Command::new(ANQI)
        .args(["serve", "--listen", "127.0.0.1:0", "--records", ""])
        .arg("--config")
        .arg({
            let path = dir.0.join("serve.toml");
            std::fs::write(&path, with(&tables)).unwrap();
            path
        })
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("holds tables of variant kpkp with other rules than variant traditional"),
        "{stderr}"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("listening"));
}

#[test]
fn a_tournament_adjudicates_by_its_tables() {
    let dir = TempDir::new("adjudication-tournament");
    let variant = kpkp(&dir.0);
    let tables = build_tables(&variant, 4, &dir.0);
    let write = |head: &str| {
        let path = dir.0.join("t.toml");
        std::fs::write(
            &path,
            format!(
                "[tournament]\nvariant = \"{}\"\nseed = \"adj\"\ndeals = 3\noutput = \"{}\"\nengine_logs = \"off\"\n{head}\n{}{}",
                variant.display(),
                dir.0.join("out.jsonl").display(),
                common::bot_engine("alpha"),
                common::bot_engine("beta"),
            ),
        )
        .unwrap();
        path
    };
    let run = |file: &Path| {
        Command::new(ANQI)
            .arg("tournament")
            .arg(file)
            .arg("--quiet")
            .output()
            .unwrap()
    };
    // A tables file of other rules stops the event before any engine is started.
    let wrong = build_tables(
        &{
            let p = dir.0.join("big.sexp");
            std::fs::write(
                &p,
                std::fs::read_to_string(&variant)
                    .unwrap()
                    .replace("(rectangle 2 4)", "(rectangle 2 5)")
                    .replace("(name kpkp)", "(name big)"),
            )
            .unwrap();
            p
        },
        2,
        &dir.0,
    );
    let out = run(&write(&format!(
        "adjudicate = \"tables\"\ntables = \"{}\"",
        wrong.display()
    )));
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("tables:") && stderr.contains("other rules than variant kpkp"),
        "{stderr}"
    );
    assert!(!dir.0.join("out.jsonl").exists() || lines(&dir.0.join("out.jsonl")) == 0);
    let out = run(&write("adjudicate = \"tables\""));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("adjudicate = \"tables\" needs tables"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // With 4-piece tables, every game still going once its pieces are revealed is theirs.
    let out = run(&write(&format!(
        "adjudicate = \"tables\"\ntables = \"{}\"",
        tables.display()
    )));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let records: Vec<GameRecord> = anqi_core::record::read_records(&dir.0.join("out.jsonl"))
        .unwrap()
        .into_iter()
        .map(|(_, r)| r.unwrap())
        .collect();
    assert_eq!(records.len(), 6);
    let adjudicated: Vec<&GameRecord> = records
        .iter()
        .filter(|r| r.result.reason == Termination::Adjudicated)
        .collect();
    assert!(
        !adjudicated.is_empty(),
        "{:?}",
        records.iter().map(|r| r.result.reason).collect::<Vec<_>>()
    );
    for r in &records {
        assert!(!r.result.reason.is_fault(), "{:?}", r.result);
        assert_eq!(
            r.result.adjudication.is_some(),
            r.result.reason == Termination::Adjudicated
        );
        anqi_core::replay::verify(r).unwrap();
    }
    let (status, out) = replay(&[
        "--quiet".as_ref(),
        "--tables".as_ref(),
        tables.as_os_str(),
        dir.0.join("out.jsonl").as_os_str(),
    ]);
    assert_eq!((status, out.as_str()), (Some(0), "6 verified, 0 failed\n"));
    // The report counts them as decided games, under their own termination.
    let report = Command::new(ANQI)
        .arg("report")
        .arg(dir.0.join("out.jsonl"))
        .output()
        .unwrap();
    assert!(report.status.success());
    assert!(
        String::from_utf8_lossy(&report.stdout).contains("adjudicated"),
        "{}",
        String::from_utf8_lossy(&report.stdout)
    );
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).unwrap().lines().count()
}
