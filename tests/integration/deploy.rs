//! The deployment files (`deploy/`): the systemd unit passes `systemd-analyze verify`, with
//! its `ExecStart` pointing at the binary under test, where `systemd-analyze` is installed
//! (skipped, and said so, elsewhere); and the flags its `ExecStart` gives are ones `anqi
//! serve` takes. The container image's recipe, read without a Docker daemon: its final stage
//! is the empty image, runs as a numeric user other than root with the records' directory as
//! its volume, and its entrypoint's flags and configuration (`deploy/container.toml`:
//! numeric addresses, published) are ones `anqi serve` takes.

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

const DOCKERFILE: &str = include_str!("../../deploy/Dockerfile");
const CONTAINER_CONFIG: &str = include_str!("../../deploy/container.toml");

/// The instructions of the Dockerfile's last stage (what runs), each as (INSTRUCTION, rest),
/// continuation lines joined.
fn final_stage() -> Vec<(String, String)> {
    let joined = DOCKERFILE.replace("\\\n", " ");
    let lines: Vec<&str> = joined
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let last_from = lines.iter().rposition(|l| l.starts_with("FROM ")).unwrap();
    lines[last_from..]
        .iter()
        .map(|l| {
            let (op, rest) = l.split_once(' ').unwrap_or((l, ""));
            (op.to_string(), rest.trim().to_string())
        })
        .collect()
}

/// The last value given to `op` in the final stage.
fn instruction(op: &str) -> String {
    final_stage()
        .into_iter()
        .rev()
        .find(|(o, _)| o == op)
        .map(|(_, rest)| rest)
        .unwrap_or_else(|| panic!("no {op} in the Dockerfile's final stage"))
}

/// The container's configuration (deploy/container.toml over the defaults).
fn container_config() -> anqi_server::config::Config {
    anqi_server::config::Config::parse(CONTAINER_CONFIG).expect("deploy/container.toml parses")
}

#[test]
fn the_image_runs_as_a_numeric_user_other_than_root() {
    let user = instruction("USER");
    let ids: Vec<u32> = user
        .split(':')
        .map(|id| id.parse().unwrap_or_else(|_| panic!("numeric: {user}")))
        .collect();
    assert!(
        ids.len() == 2 && ids.iter().all(|&id| id != 0),
        "USER {user}"
    );
    // The records' directory is the volume, owned by that user, and where records go.
    let volume = instruction("VOLUME");
    assert!(volume.contains("\"/var/lib/anqi\""), "VOLUME {volume}");
    assert!(
        final_stage().iter().any(|(op, rest)| op == "COPY"
            && rest.contains(&format!("--chown={user} "))
            && rest.ends_with(" /var/lib/anqi")),
        "the records' directory copied with --chown={user}"
    );
    assert!(container_config()
        .records
        .path
        .starts_with("/var/lib/anqi/"));
    // Built statically: the final stage has no C library.
    assert!(DOCKERFILE.contains("-C target-feature=+crt-static"));
    assert_eq!(final_stage()[0].1, "scratch");
}

#[test]
fn the_images_entrypoint_and_configuration_are_ones_anqi_serve_takes() {
    let entrypoint: Vec<String> =
        serde_json::from_str(&instruction("ENTRYPOINT")).expect("ENTRYPOINT in exec form");
    assert_eq!(entrypoint[1], "serve", "{entrypoint:?}");
    let config_at = entrypoint
        .iter()
        .position(|a| a == "--config")
        .map(|i| entrypoint[i + 1].clone())
        .expect("--config");
    assert!(
        final_stage()
            .iter()
            .any(|(op, rest)| op == "COPY" && rest == &format!("deploy/container.toml {config_at}")),
        "container.toml copied to {config_at}"
    );
    // Its addresses are numbers (no resolver in the image) on every interface, and published.
    let config = container_config();
    let expose = instruction("EXPOSE");
    for listen in [&config.server.listen, &config.metrics.listen] {
        let addr: std::net::SocketAddr = listen.parse().expect("an address, not a name");
        assert!(addr.ip().is_unspecified(), "{listen}");
        assert!(
            expose
                .split_whitespace()
                .any(|p| p == addr.port().to_string()),
            "EXPOSE {expose} lacks {listen}"
        );
    }
    // The entrypoint's flags, with the container's configuration here and --help: parsed.
    let dir = crate::common::TempDir::new("deploy-image");
    let config_here = dir.0.join("config.toml");
    std::fs::write(&config_here, CONTAINER_CONFIG).unwrap();
    let mut args: Vec<String> = entrypoint[1..]
        .iter()
        .map(|a| {
            if *a == config_at {
                config_here.display().to_string()
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
