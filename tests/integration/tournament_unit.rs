//! The two halves of `anqi tournament --ray` that need no cluster: a node's unit of work
//! (`anqi tournament-unit`, as the Ray task runs it: a unit on stdin, a line per game on
//! stdout) plays exactly the games the runner itself plays from the same seeds, and names its
//! node; and the runner refuses, before any game, what cannot run on a cluster. The cluster
//! itself is tested in clients/python/tests/test_ray_tournament.py, on a local Ray.

use crate::common;

use anqi_core::record::GameRecord;
use anqi_tournament::seeds::MasterSeed;
use common::cli::{anqi, ANQI};
use common::TempDir;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// A two-engine event of the reference bots (random against greedy: deterministic from their
/// seeds) in `dir`, with a fixed master seed.
fn event(dir: &Path, engines: &[String], ray: &str) -> String {
    format!(
        "[tournament]\nvariant = \"traditional-2x4\"\nseed = \"unit test\"\ndeals = 2\noutput = \"{}\"\nlogs = \"{}\"\n{ray}\n{}",
        dir.join("out.jsonl").display(),
        dir.join("logs").display(),
        engines.concat()
    )
}

fn bots() -> Vec<String> {
    let greedy = common::bot_engine("greedy").replace("\"random\"", "\"greedy\"");
    vec![common::bot_engine("random"), greedy]
}

/// A unit of games 2 and 3 (deal 1, both seatings), with the seeds the runner would give them.
fn unit(config: &str) -> serde_json::Value {
    let master = MasterSeed::fixed("unit test").unwrap();
    let game = |index: u64, seats: [usize; 2]| {
        serde_json::json!({
            "index": index,
            "deal": 1,
            "seats": seats,
            "secrets": {
                "deal_seed": master.deal_seed(1),
                "engine_seeds": [master.engine_seed(index, 1), master.engine_seed(index, 2)],
                "commitment": master.commitment(),
            },
        })
    };
    let parsed = anqi_tournament::config::TournamentConfig::parse(config).unwrap();
    serde_json::json!({
        "config": parsed.to_toml(),
        "games": [game(2, [0, 1]), game(3, [1, 0])],
        "node": "10.1.2.3 node 0badc0de",
    })
}

/// `anqi tournament-unit` with `input` on stdin: its lines, parsed.
fn play_unit(input: &str) -> Vec<serde_json::Value> {
    let mut child = Command::new(ANQI)
        .arg("tournament-unit")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "tournament-unit failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// A record with what may differ between two runs of one game zeroed: its timing, and the
/// node that played it.
fn normalized(mut r: GameRecord) -> GameRecord {
    r.started_unix_ms = 0;
    for p in &mut r.plies {
        p.think_ms = 0;
    }
    for p in &mut r.players {
        p.time_used_ms = 0;
    }
    if let Some(tag) = &mut r.tournament {
        tag.node = None;
    }
    r
}

#[test]
fn a_unit_plays_the_games_the_runner_plays_and_names_its_node() {
    let dir = TempDir::new("unit-same");
    let config = event(&dir.0, &bots(), "");
    let lines = play_unit(&unit(&config).to_string());
    assert_eq!(lines.len(), 2, "a line per game: {lines:?}");
    let mut from_unit: Vec<GameRecord> = lines
        .into_iter()
        .map(|l| {
            assert_eq!(l["kind"], "played", "{l}");
            serde_json::from_value(l["record"].clone()).unwrap()
        })
        .collect();
    for r in &from_unit {
        let tag = r.tournament.as_ref().unwrap();
        assert_eq!(tag.node.as_deref(), Some("10.1.2.3 node 0badc0de"));
    }
    from_unit.sort_by_key(|r| r.tournament.as_ref().unwrap().index);
    // The runner itself, from the master seed: its games 2 and 3 are the unit's.
    std::fs::write(dir.0.join("t.toml"), &config).unwrap();
    anqi(["tournament", "--quiet"])
        .arg(dir.0.join("t.toml"))
        .succeeds();
    let here: Vec<GameRecord> = anqi_core::record::read_records(&dir.0.join("out.jsonl"))
        .unwrap()
        .into_iter()
        .map(|(_, r)| normalized(r.unwrap()))
        .filter(|r| r.tournament.as_ref().unwrap().deal == 1)
        .collect();
    let mut here = here;
    here.sort_by_key(|r| r.tournament.as_ref().unwrap().index);
    let from_unit: Vec<GameRecord> = from_unit.into_iter().map(normalized).collect();
    assert_eq!(from_unit, here, "the same games, ply by ply");
}

#[test]
fn an_engine_missing_on_the_node_is_named_and_stops_the_unit() {
    let dir = TempDir::new("unit-missing");
    let missing = bots()[0].replace(
        &common::anqi_bot().display().to_string(),
        "/nonexistent/engine",
    );
    let config = event(&dir.0, &[missing, bots()[1].clone()], "");
    let lines = play_unit(&unit(&config).to_string());
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["kind"], "engine-failure");
    let why = lines[0]["why"].as_str().unwrap();
    assert!(
        why.contains("random") && why.contains("/nonexistent/engine"),
        "{why}"
    );
    // Anything else than a unit is said, not played.
    let lines = play_unit("{\"config\": 3}");
    assert_eq!(lines[0]["kind"], "error");
    assert!(
        lines[0]["why"]
            .as_str()
            .unwrap()
            .starts_with("not a unit of work"),
        "{}",
        lines[0]
    );
}

#[test]
fn the_runner_refuses_what_cannot_run_on_a_cluster_before_any_game() {
    let dir = TempDir::new("unit-refuse");
    let file = dir.0.join("t.toml");
    // An engine with no command: nothing on a node could start it.
    let token = anqi(["token"]).succeeds().stdout.trim().to_string();
    let external = format!("[[tournament.engine]]\nname = \"outside\"\ntoken = \"{token}\"\n");
    std::fs::write(&file, event(&dir.0, &[bots()[0].clone(), external], "")).unwrap();
    let refused = anqi(["tournament", "--ray", "auto"])
        .arg(&file)
        .fails_with(2)
        .stderr;
    assert!(
        refused.contains("engine \"outside\" has no command"),
        "{refused}"
    );
    // Shards: the cluster shares the games out itself.
    let refused = anqi(["tournament", "--ray", "auto", "--shard", "0/2"])
        .arg(&file)
        .fails_with(2)
        .stderr;
    assert!(refused.contains("cannot be used with"), "{refused}");
    // A Python that is not there, named with the key that chose it.
    let ray = "[tournament.ray]\npython = \"/nonexistent/python3\"";
    std::fs::write(&file, event(&dir.0, &bots(), ray)).unwrap();
    let refused = anqi(["tournament", "--ray", "auto"])
        .arg(&file)
        .fails_with(2)
        .stderr;
    assert!(
        refused.contains("cannot start \"/nonexistent/python3\" ([tournament.ray] python)"),
        "{refused}"
    );
    assert!(
        !dir.0.join("out.jsonl").exists()
            || std::fs::read_to_string(dir.0.join("out.jsonl"))
                .unwrap()
                .is_empty(),
        "no game was played"
    );
    // Keys that make no sense, named.
    let ray = "[tournament.ray]\ncpus_per_unit = 0";
    std::fs::write(&file, event(&dir.0, &bots(), ray)).unwrap();
    let refused = anqi(["tournament"]).arg(&file).fails_with(2).stderr;
    assert!(
        refused.contains("cpus_per_unit must be a number above 0"),
        "{refused}"
    );
}
