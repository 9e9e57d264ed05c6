//! The deployment files (`deploy/`): the systemd unit passes `systemd-analyze verify`, with
//! its `ExecStart` pointing at the binary under test, where `systemd-analyze` is installed
//! (skipped, and said so, elsewhere); and the flags its `ExecStart` gives are ones `anqi
//! serve` takes.

use std::path::Path;

const UNIT: &str = include_str!("../../deploy/anqi.service");

/// The unit's `ExecStart` line, split into its words.
fn exec_start() -> Vec<String> {
    UNIT.lines()
        .find_map(|l| l.strip_prefix("ExecStart="))
        .expect("an ExecStart line")
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

#[test]
fn the_systemd_unit_verifies() {
    let analyze = Path::new("/usr/bin/systemd-analyze");
    if !analyze.exists() {
        eprintln!(
            "the_systemd_unit_verifies: SKIPPED, no {}",
            analyze.display()
        );
        return;
    }
    let dir = crate::common::TempDir::new("deploy-unit");
    let exec = exec_start();
    let unit = UNIT.replace(&exec[0], env!("CARGO_BIN_EXE_anqi"));
    let path = dir.0.join("anqi.service");
    std::fs::write(&path, unit).unwrap();
    let out = std::process::Command::new(analyze)
        .arg("verify")
        .arg(&path)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && said.trim().is_empty(), "{said}");
}

#[test]
fn the_units_command_line_is_one_anqi_serve_takes() {
    let exec = exec_start();
    assert_eq!(exec[1], "serve", "{exec:?}");
    let dir = crate::common::TempDir::new("deploy-flags");
    let config = dir.0.join("config.toml");
    std::fs::write(
        &config,
        "[server]\nlisten = \"127.0.0.1:0\"\n[records]\npath = \"\"\n",
    )
    .unwrap();
    // The unit's flags, with its config file swapped for one here, and --help: parsed, not run.
    let mut args: Vec<String> = exec[1..]
        .iter()
        .map(|a| {
            if a == "/etc/anqi/config.toml" {
                config.display().to_string()
            } else {
                a.clone()
            }
        })
        .collect();
    args.push("--help".into());
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_anqi"))
        .args(&args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
