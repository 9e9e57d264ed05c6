//! A real Prometheus scrapes `anqi serve --metrics` (issue 37, 'Operators can see inside'):
//! Debian's `prometheus`, configured to scrape the server every second, has the game played
//! before it, with its labels, and takes every series of the scrape (a line it could not parse
//! fails the whole scrape, which its targets' `lastError` then says).
//!
//! Skipped, and said so, where no `prometheus` is installed (`apt-get install prometheus`);
//! with `ANQI_PROMETHEUS_TESTS=require` (CI: `.ci/run` installs it) a skip fails instead.

use crate::common::{self, Killed, TempDir};
use crate::web::get;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Whether `prometheus` can be run here; if not, says so (or fails, when it is required).
fn prometheus_installed(test: &str) -> bool {
    let found = Command::new("prometheus")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        assert!(
            std::env::var("ANQI_PROMETHEUS_TESTS").as_deref() != Ok("require"),
            "{test}: ANQI_PROMETHEUS_TESTS=require, and no prometheus can be run (apt-get install prometheus)"
        );
        eprintln!("{test}: SKIPPED: no prometheus (apt-get install prometheus)");
    }
    found
}

/// A port free on 127.0.0.1 a moment ago.
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// Prometheus's answer to `/api/v1/...` at `api`, once it answers (`None` before).
async fn api(api: &str, path: &str) -> Option<serde_json::Value> {
    let connected = tokio::net::TcpStream::connect(api).await;
    if connected.is_err() {
        return None;
    }
    drop(connected);
    let (status, body) = get(api, path).await;
    (status == 200).then(|| serde_json::from_str(&body).ok())?
}

/// The result of the instant query `query` (a JSON array of `{metric, value}`), empty until
/// it has samples.
async fn query(at: &str, query: &str) -> Vec<serde_json::Value> {
    api(at, &format!("/api/v1/query?query={query}"))
        .await
        .and_then(|v| v["data"]["result"].as_array().cloned())
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prometheus_scrapes_a_game_played() {
    if !prometheus_installed("prometheus_scrapes_a_game_played") {
        return;
    }
    let (_server, addr, metrics) = common::spawn_serve_metrics(&["--variant", "traditional-2x4"]);
    for b in common::random_bots(&addr, 2, 5) {
        b.await.unwrap().unwrap();
    }
    let dir = TempDir::new("prometheus");
    let config = dir.0.join("prometheus.yml");
    std::fs::write(
        &config,
        format!(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: anqi\n    static_configs:\n      - targets: ['{metrics}']\n"
        ),
    )
    .unwrap();
    let web = format!("127.0.0.1:{}", free_port());
    let log = std::fs::File::create(dir.0.join("prometheus.log")).unwrap();
    let _prometheus = Killed(
        Command::new("prometheus")
            .arg(format!("--config.file={}", config.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.0.join("data").display()
            ))
            .arg(format!("--web.listen-address={web}"))
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("start prometheus"),
    );
    let started = Instant::now();
    let finished = loop {
        let result = query(&web, "anqi_games_finished_total").await;
        if !result.is_empty() {
            break result;
        }
        if started.elapsed() > Duration::from_secs(30) {
            let targets = api(&web, "/api/v1/targets").await;
            let log = std::fs::read_to_string(dir.0.join("prometheus.log")).unwrap_or_default();
            panic!("no anqi_games_finished_total in 30 s; targets: {targets:?}; log:\n{log}");
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    assert_eq!(finished.len(), 1, "{finished:?}");
    let series = &finished[0];
    assert_eq!(series["metric"]["job"], "anqi", "{series}");
    assert_eq!(series["metric"]["variant"], "traditional-2x4", "{series}");
    assert!(series["metric"]["termination"].is_string(), "{series}");
    assert_eq!(series["value"][1], "1", "{series}");
    // The same scrape took every series: the target is up, every refusal reason is there.
    let up = query(&web, "up").await;
    assert_eq!(
        up.first().map(|u| &u["value"][1]),
        Some(&"1".into()),
        "{up:?}"
    );
    let reasons = query(&web, "anqi_refusals_total").await;
    assert_eq!(
        reasons.len(),
        anqi_server::metrics::Refused::ALL.len(),
        "{reasons:?}"
    );
    let started_games = query(&web, "anqi_games_started_total").await;
    assert_eq!(started_games[0]["value"][1], "1", "{started_games:?}");
}
