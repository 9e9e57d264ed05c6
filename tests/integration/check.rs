//! `anqi check ENGINE`, the real binary: the template engines of clients/templates pass every
//! item (anqi's protocol in every shipped variant with a rejoin; uci-banqi, tcg and
//! cdc-platform through their bridges),
//! and small broken engines written here fail with the reason and the exchange: an illegal
//! action, an engine that never answers, one that crashes, a UCI engine without `uciok`.

use crate::common;

use common::cli::anqi;
use common::TempDir;
use std::path::{Path, PathBuf};
use std::time::Instant;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn template(name: &str) -> String {
    format!("python3 {ROOT}/clients/templates/{name}")
}

/// Writes a test engine of anqi's protocol: it connects, takes its seat with the token, and
/// answers each `(turn ...)` as `on_turn` (Python statements, with `sock` and `line`) says.
fn broken_engine(dir: &Path, name: &str, on_turn: &str) -> PathBuf {
    engine_asking(dir, name, "", on_turn)
}

/// As [`broken_engine`], asking for the extensions `ext` (`(ext NAME ...)`, or nothing).
fn engine_asking(dir: &Path, name: &str, ext: &str, on_turn: &str) -> PathBuf {
    let path = dir.join(format!("{name}.py"));
    let script = format!(
        r#"import os, socket, sys, time
host, port = sys.argv[1].rsplit(":", 1)
sock = socket.create_connection((host, int(port)))
sock.sendall(("((init {name} %s){ext})\n" % os.environ.get("ANQI_TOKEN", "1")).encode())
for line in sock.makefile("r"):
    if "(turn " in line:
{on_turn}
    if "(win " in line:
        break
"#
    );
    std::fs::write(&path, script).unwrap();
    path
}

/// `anqi check` on the engine, for the traditional variant alone (fast): its output.
fn check_traditional(engine: &str) -> common::cli::Ran {
    anqi(["check", engine, "--variant", "traditional"])
        .args(["--seed", "7", "--tc", "st=1"])
        .output()
}

#[test]
fn the_anqi_template_passes_in_every_variant_with_a_rejoin() {
    common::anqi_bot();
    let start = Instant::now();
    let engine = format!("{} {{addr}}", template("anqi_template.py"));
    let ran = anqi(["check", &engine, "--seed", "1"]).succeeds();
    let took = start.elapsed();
    let out = &ran.stdout;
    for (variant, _) in anqi_core::rules::SHIPPED {
        assert!(
            out.contains(&format!("pass         variant {variant}: ")),
            "{variant}:\n{out}"
        );
    }
    assert!(
        out.contains("pass         extensions: it asked for last variant rejoin"),
        "{out}"
    );
    assert!(out.contains("pass         rejoin: cut after"), "{out}");
    assert!(out.contains(" 0 failed, 0 not offered, 0 skipped"), "{out}");
    eprintln!("anqi check on the anqi template took {took:?}");
}

#[test]
fn the_uci_banqi_template_passes_through_its_bridge() {
    common::anqi_bot();
    let engine = format!("uci-banqi:{}", template("uci_banqi_template.py"));
    let ran = anqi(["check", &engine, "--seed", "2"]).succeeds();
    let out = &ran.stdout;
    assert!(
        out.contains("pass         handshake: the engine calls itself \"uci-banqi-template\""),
        "{out}"
    );
    assert!(
        out.contains(
            "not offered  optional commands: the uci-banqi protocol has no optional commands"
        ),
        "{out}"
    );
    assert!(
        out.contains("pass         variant traditional: 2 games"),
        "{out}"
    );
    // What the protocol cannot play is listed, with why.
    assert!(
        out.contains(
            "skipped      variant strategic: the uci-banqi protocol cannot play strategic: a bag"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "not offered  rejoin: the uci-banqi bridge does not ask for the rejoin extension"
        ),
        "{out}"
    );
    assert!(out.contains(" 0 failed, "), "{out}");
}

#[test]
fn a_reference_bot_passes() {
    common::anqi_bot();
    let ran = check_traditional("greedy");
    assert!(ran.status.success(), "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout.contains("pass         variant traditional"),
        "{}",
        ran.stdout
    );
    // anqi-bot does not ask for rejoin: no fault.
    assert!(
        ran.stdout
            .contains("not offered  rejoin: the engine did not ask"),
        "{}",
        ran.stdout
    );
}

#[test]
fn an_illegal_action_fails_with_the_referees_answer_and_the_exchange() {
    common::anqi_bot();
    let dir = TempDir::new("t-check-illegal");
    // Moves before anything is revealed: never legal at the first ply.
    let bot = broken_engine(&dir.0, "mover", "        sock.sendall(b'((mov 0 1))\\n')");
    let ran = check_traditional(&format!("python3 {} {{addr}}", bot.display()));
    assert_eq!(ran.status.code(), Some(1), "{}{}", ran.stdout, ran.stderr);
    let out = &ran.stdout;
    assert!(
        out.contains("FAIL         variant traditional: game "),
        "{out}"
    );
    assert!(
        out.contains("(error illegal \"cell 0 is face-down"),
        "{out}"
    );
    assert!(out.contains("engine> ((mov 0 1))"), "{out}");
    assert!(out.contains("server> ((error illegal"), "{out}");
    assert!(
        out.contains("replay the games with the same deals: add --seed 7"),
        "{out}"
    );
}

#[test]
fn an_engine_that_never_answers_fails_on_time() {
    common::anqi_bot();
    let dir = TempDir::new("t-check-silent");
    let bot = broken_engine(&dir.0, "silent", "        time.sleep(60)");
    let start = Instant::now();
    let ran = check_traditional(&format!("python3 {} {{addr}}", bot.display()));
    assert_eq!(ran.status.code(), Some(1), "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout.contains("the engine lost by time at ply"),
        "{}",
        ran.stdout
    );
    assert!(ran.stdout.contains("server> ((board "), "{}", ran.stdout);
    assert!(start.elapsed().as_secs() < 30, "{:?}", start.elapsed());
}

#[test]
fn an_engine_that_crashes_fails_naming_the_crash_and_its_stderr() {
    common::anqi_bot();
    let dir = TempDir::new("t-check-crash");
    let bot = broken_engine(
        &dir.0,
        "crasher",
        "        print('giving up on', line.strip(), file=sys.stderr)\n        sys.exit(3)",
    );
    let ran = check_traditional(&format!("python3 {} {{addr}}", bot.display()));
    assert_eq!(ran.status.code(), Some(1), "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout.contains("the engine lost by crash at ply"),
        "{}",
        ran.stdout
    );
    assert!(ran.stdout.contains("stderr: "), "{}", ran.stdout);
    assert!(ran.stdout.contains("giving up on"), "{}", ran.stdout);
}

#[test]
fn a_uci_engine_without_uciok_fails_its_handshake() {
    let dir = TempDir::new("t-check-uciok");
    let path = dir.0.join("mute.py");
    std::fs::write(&path, "import sys\nfor line in sys.stdin:\n    pass\n").unwrap();
    let engine = format!("uci-banqi:python3 {}", path.display());
    let ran = anqi(["check", &engine, "--variant", "traditional"]).output();
    assert_eq!(ran.status.code(), Some(1), "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout.contains("FAIL         handshake: "),
        "{}",
        ran.stdout
    );
    assert!(ran.stdout.contains("uciok"), "{}", ran.stdout);
}

#[test]
fn an_engine_that_cannot_be_read_is_refused_as_anqi_match_refuses_it() {
    let ran = anqi(["check", "./my-bot --port 5000"]).fails_with(2);
    assert!(ran.stderr.contains("put {addr}"), "{}", ran.stderr);
}

#[test]
fn the_other_bridges_are_checked_with_their_optional_commands() {
    common::anqi_bot();
    // cdc-platform: the engine connects back to its bridge.
    let platform = format!("cdc-platform:python3 {ROOT}/tests/engines/platform_engine.py");
    let ran = check_traditional(&platform);
    assert!(ran.status.success(), "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout.contains("pass         variant traditional"),
        "{}",
        ran.stdout
    );
    // tcg: an engine that says it knows num_repetition and dies on it fails the optional
    // commands item (the bridge's --check, with them), and the hint says how to leave them out.
    let tcg = format!("tcg:python3 {ROOT}/tests/engines/tcg_engine.py --crash-on num_repetition");
    let ran = check_traditional(&tcg);
    assert_eq!(ran.status.code(), Some(1), "{}{}", ran.stdout, ran.stderr);
    let out = &ran.stdout;
    assert!(
        out.contains("pass         handshake: the engine calls itself \"TcgTest\""),
        "{out}"
    );
    assert!(out.contains("FAIL         optional commands: "), "{out}");
    assert!(out.contains("--no-optional-commands"), "{out}");
}

#[test]
fn the_tcg_template_passes_with_its_optional_commands() {
    common::anqi_bot();
    let engine = format!("tcg:{}", template("tcg_template.py"));
    let ran = anqi(["check", &engine, "--seed", "3"]).succeeds();
    let out = &ran.stdout;
    assert!(
        out.contains("pass         handshake: the engine calls itself \"tcg-template\""),
        "{out}"
    );
    assert!(out.contains("pass         optional commands: "), "{out}");
    assert!(out.contains("pass         variant ntu: 2 games"), "{out}");
    assert!(out.contains("skipped      variant open: the tcg protocol cannot play open: a start with face-up pieces"), "{out}");
    assert!(out.contains(" 0 failed, "), "{out}");
}

#[test]
fn the_cdc_platform_template_passes_through_its_bridge() {
    common::anqi_bot();
    let engine = format!("cdc-platform:{}", template("cdc_platform_template.py"));
    let ran = anqi(["check", &engine, "--seed", "4"]).succeeds();
    let out = &ran.stdout;
    assert!(out.contains("pass         handshake: "), "{out}");
    assert!(
        out.contains("pass         variant traditional: 2 games"),
        "{out}"
    );
    assert!(
        out.contains("pass         variant hong-kong: 2 games"),
        "{out}"
    );
    assert!(out.contains(" 0 failed, "), "{out}");
    // Its short matches print nothing of their own (no commitment line per item).
    assert!(!ran.stderr.contains("commitment"), "{}", ran.stderr);
}

#[test]
fn an_unknown_extension_fails_the_extensions_item() {
    common::anqi_bot();
    let dir = TempDir::new("t-check-ext");
    // A legal first action: reveal cell 0 (then a never-legal move, which the variant item
    // reports; the extensions item is about the handshake).
    let bot = engine_asking(
        &dir.0,
        "asker",
        "(ext last telepathy)",
        "        sock.sendall(b'((rev 0))\\n')",
    );
    let ran = check_traditional(&format!("python3 {} {{addr}}", bot.display()));
    assert_eq!(ran.status.code(), Some(1), "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout.contains("FAIL         extensions: the engine asked for an extension the server does not know: ((error unknown \"no extension is named telepathy"),
        "{}",
        ran.stdout
    );
}
