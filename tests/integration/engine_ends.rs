//! How an engine's game ends early is named for what happened (issue 38, "Frictions"): an
//! engine slow to acknowledge a command is "slow to acknowledge" (its time set per engine,
//! `ANQI_ACK_TIMEOUT` in its entry's `env`), not a crash; an engine killed by a signal is said
//! to be, in every protocol (anqi's own too), and a cdc-platform engine's end is not
//! "Connection reset by peer".
//! One real event, over TCP, with the test engines of tests/engines/ given their faults by a
//! wrapper written here.

use crate::common;

use anqi_core::rules::Termination;
use common::{engine_entry, greedy_engine, records_in, run_event, TempDir};
use std::process::Command;

const ANQI: &str = env!("CARGO_BIN_EXE_anqi");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Runs a test engine of tests/engines/ (its path first) with a fault of its own (second):
/// `kill` turns its crash (tcg and uci's `--crash N`, misbehave.py's `crash`: a `sys.exit(3)`)
/// into a death by SIGKILL;
/// `kill-turn` kills a cdc-platform engine by SIGKILL at its third turn; `slow-S` makes a tcg
/// engine wait S seconds before it acknowledges its second `flip` or `move`. The engine's own
/// arguments follow.
const WRAPPER: &str = r#"
import os, runpy, signal, sys, time
script, fault = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.dirname(script))
engine = runpy.run_path(script)
exit_now = sys.exit
if fault == "kill":
    sys.exit = lambda code=0: os.kill(os.getpid(), signal.SIGKILL)
elif fault == "kill-turn":
    turn = engine["Engine"].my_turn
    def my_turn(self):
        if self.turns == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        return turn(self)
    engine["Engine"].my_turn = my_turn
elif fault.startswith("slow-"):
    delay, told = float(fault[5:]), [0]
    handle = engine["Engine"].handle
    def slow(self, ident, name, args):
        if name in ("flip", "move"):
            told[0] += 1
            if told[0] == 2:
                time.sleep(delay)
        return handle(self, ident, name, args)
    engine["Engine"].handle = slow
sys.argv = [script] + sys.argv[3:]
exit_now(engine["main"]())
"#;

/// A `[[tournament.engine]]` entry: a test engine under the wrapper, with `fault`, and an
/// acknowledgement time when `ack` says one.
fn engine(
    name: &str,
    protocol: &str,
    wrapper: &str,
    script: &str,
    fault: &str,
    rest: &[&str],
    ack: Option<&str>,
) -> String {
    let script = format!("{ROOT}/tests/engines/{script}");
    let mut args = vec![wrapper, script.as_str(), fault];
    args.extend(rest);
    let env = ack.map_or(String::new(), |s| {
        format!("env = {{ ANQI_ACK_TIMEOUT = \"{s}\" }}\n")
    });
    engine_entry(name, protocol, "python3", &args) + &env
}

#[test]
fn slow_acknowledgements_and_deaths_by_signal_are_named_for_what_they_are() {
    let dir = TempDir::new("t-ends");
    let wrapper = dir.0.join("wrap.py");
    std::fs::write(&wrapper, WRAPPER).unwrap();
    let w = wrapper.display().to_string();
    let output = dir.0.join("out.jsonl");
    let engines = [
        greedy_engine("greedy"),
        engine(
            "tcg-slow",
            "tcg",
            &w,
            "tcg_engine.py",
            "slow-3",
            &[],
            Some("1"),
        ),
        engine(
            "tcg-patient",
            "tcg",
            &w,
            "tcg_engine.py",
            "slow-2",
            &[],
            Some("5"),
        ),
        engine(
            "tcg-killed",
            "tcg",
            &w,
            "tcg_engine.py",
            "kill",
            &["--crash", "3"],
            None,
        ),
        engine(
            "uci-killed",
            "uci-banqi",
            &w,
            "uci_engine.py",
            "kill",
            &["--crash", "3"],
            None,
        ),
        engine(
            "platform-killed",
            "cdc-platform",
            &w,
            "platform_engine.py",
            "kill-turn",
            &["{host}", "{port}"],
            None,
        ),
        // anqi's own protocol: killed by SIGKILL on its first turn, under `anqi keep`.
        engine(
            "anqi-killed",
            "anqi",
            &w,
            "misbehave.py",
            "kill",
            &["crash", "--connect", "{addr}"],
            None,
        ),
    ];
    let settings = format!(
        "variant = \"traditional\"\nseed = \"ends\"\nformat = \"gauntlet\"\ngauntlet = \"greedy\"\nconcurrency = 2\ntc = \"60+0\"\noutput = \"{}\"\nlogs = \"{}\"\n",
        output.display(),
        dir.0.join("logs").display(),
    );
    let run = run_event(&dir.0, &settings, &engines);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "the event failed:\n{stderr}");
    let records = records_in(&output);
    assert_eq!(records.len(), 12, "6 pairings, 2 games each");
    for r in &records {
        let tag = r.tournament.as_ref().unwrap();
        let opponent = tag.engines.iter().find(|e| *e != "greedy").unwrap();
        if opponent == "tcg-patient" {
            // 2 s to acknowledge, within its 5: the game goes on to its end by the rules.
            assert!(
                !r.result.reason.is_fault() && r.faults.is_empty(),
                "{opponent}: {:?} {:?}",
                r.result,
                r.faults
            );
            continue;
        }
        let loser = r.result.loser.expect("lost by the failing engine");
        assert_eq!(&tag.engines[loser - 1], opponent, "{:?}", r.result);
        let fault = r
            .faults
            .iter()
            .find(|f| f.player == loser)
            .unwrap_or_else(|| panic!("{opponent}: no fault in {:?}", r.faults));
        let (reason, code, words): (Termination, &str, &[&str]) = match opponent.as_str() {
            "tcg-slow" => (
                Termination::Disconnect,
                "slow-ack",
                &["slow to acknowledge", "within 1000 ms"],
            ),
            "tcg-killed" | "uci-killed" => (
                Termination::Crash,
                "engine",
                &[
                    "left the game",
                    "closed its output (it was killed by signal 9 (SIGKILL))",
                ],
            ),
            "platform-killed" => (
                Termination::Crash,
                "engine",
                &[
                    "left the game",
                    "the engine closed its connection",
                    "; it was killed by signal 9 (SIGKILL)",
                ],
            ),
            "anqi-killed" => (
                Termination::Crash,
                "engine",
                &["the engine died: it was killed by signal 9 (SIGKILL)"],
            ),
            other => panic!("{other}"),
        };
        assert_eq!(
            r.result.reason, reason,
            "{opponent}: {:?} {fault:?}",
            r.result
        );
        assert_eq!(fault.code, code, "{opponent}: {fault:?}");
        for w in words {
            assert!(fault.text.contains(w), "{opponent}: {:?}", fault.text);
        }
        assert!(!fault.text.contains("reset by peer"), "{:?}", fault.text);
    }
    // The report counts the slow engine's games apart from disconnects and crashes.
    let report = Command::new(ANQI)
        .arg("report")
        .arg(&output)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&report.stdout);
    let line = text
        .lines()
        .skip_while(|l| !l.starts_with("Terminations per engine"))
        .find(|l| l.trim_start().starts_with("tcg-slow "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("slow-to-acknowledge 2"), "{line}");
    assert_eq!(common::replay(&output), "12 verified, 0 failed");
}

#[test]
fn an_acknowledgement_time_that_is_no_number_of_seconds_stops_the_file() {
    let dir = TempDir::new("t-ack-bad");
    for (protocol, value, says) in [
        ("tcg", "0", "give whole seconds, 1 to 3600"),
        ("tcg", "ten", "give whole seconds, 1 to 3600"),
        ("anqi", "20", "its protocol is anqi"),
    ] {
        let engines = [
            engine_entry("a", protocol, "python3", &["{addr}"])
                + &format!("env = {{ ANQI_ACK_TIMEOUT = \"{value}\" }}\n"),
            engine_entry("b", "anqi", "python3", &["{addr}"]),
        ];
        let run = run_event(&dir.0, "", &engines);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(!run.status.success(), "{protocol} {value}: {stderr}");
        assert!(
            stderr.contains("ANQI_ACK_TIMEOUT") && stderr.contains(says),
            "{protocol} {value}: {stderr}"
        );
    }
}
