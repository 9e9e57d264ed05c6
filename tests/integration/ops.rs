//! What an operator reads of a running server, over real HTTP (issue 37, 'Operators can see
//! inside', first step): `GET /metrics` in Prometheus's text format counts a game played over
//! TCP as its record has it (started, finished by variant and termination, plies, the record
//! written and its latency) and the pages' requests by route and status; `GET /healthz`
//! answers; `GET /readyz` is ready while records can be written and says why not on a full
//! disk.

use crate::common::TestServer;
use crate::web::get;
use std::time::Duration;

/// The scrape's lines.
async fn scrape(web: &str) -> Vec<String> {
    let (status, body) = get(web, "/metrics").await;
    assert_eq!(status, 200, "{body}");
    body.lines().map(str::to_string).collect()
}

/// Scrapes until `line` is there (up to 10 s): every line then.
async fn until_line(web: &str, line: &str) -> Vec<String> {
    for _ in 0..200 {
        let lines = scrape(web).await;
        if lines.iter().any(|l| l == line) {
            return lines;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!(
        "/metrics never had {line}:\n{}",
        scrape(web).await.join("\n")
    );
}

/// Waits (up to 10 s) until `/readyz` answers `200 ready`; until then it may only say that
/// the server has not started (the pages answer before the games' server runs).
async fn until_ready(web: &str) {
    for _ in 0..200 {
        let (status, body) = get(web, "/readyz").await;
        if status == 200 {
            assert_eq!(body, "ready\n");
            return;
        }
        assert_eq!(
            (status, body.as_str()),
            (503, "not ready: the server has not started\n")
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("/readyz never ready");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_count_a_game_as_recorded_and_the_pages_requests() {
    let (mut server, web) = TestServer::start_watched("traditional-2x4", "").await;
    let (status, body) = get(&web, "/healthz").await;
    assert_eq!((status, body.as_str()), (200, "ok\n"));
    until_ready(&web).await;
    for b in crate::common::random_bots(&server.addr(), 2, 5) {
        b.await.unwrap().unwrap();
    }
    let record = server.next_record().await;
    let finished = format!(
        "anqi_games_finished_total{{variant=\"traditional-2x4\",termination=\"{}\"}} 1",
        record.result.reason.name()
    );
    let (status, _) = get(&web, "/api/games/1").await;
    assert_eq!(status, 200);
    let (status, _) = get(&web, "/api/games/99").await;
    assert_eq!(status, 404);
    let lines = until_line(&web, &finished).await;
    for want in [
        "anqi_games_started_total 1".to_string(),
        format!("anqi_plies_total {}", record.plies.len()),
        "anqi_record_writes_total 1".into(),
        "anqi_record_write_failures_total 0".into(),
        "anqi_record_write_seconds_count 1".into(),
        "anqi_record_write_seconds_bucket{le=\"+Inf\"} 1".into(),
        "anqi_games_running 0".into(),
        "anqi_http_requests_total{route=\"/api/games/{id}\",status=\"200\"} 1".into(),
        "anqi_http_requests_total{route=\"/api/games/{id}\",status=\"404\"} 1".into(),
        "anqi_http_requests_total{route=\"/healthz\",status=\"200\"} 1".into(),
        "# TYPE anqi_record_write_seconds histogram".into(),
    ] {
        assert!(lines.contains(&want), "{want} in:\n{}", lines.join("\n"));
    }
    // Every sample line is NAME{labels} VALUE with a number, as a scraper reads it.
    for l in lines.iter().filter(|l| !l.starts_with('#')) {
        let value = l.rsplit(' ').next().unwrap();
        assert!(value.parse::<f64>().is_ok(), "{l}");
        assert!(l.starts_with("anqi_"), "{l}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readyz_says_why_when_the_records_file_cannot_be_written() {
    let (server, web) = TestServer::start_watched_with_records(
        "traditional-2x4",
        "[records]\nwrite_wait_ms = 300\n",
        "/dev/full".into(),
    )
    .await;
    // Ready once the games' server runs (not before: it says so), until a write fails.
    until_ready(&web).await;
    let bots = crate::common::random_bots(&server.addr(), 2, 9);
    let mut said = String::new();
    for _ in 0..200 {
        let (status, body) = get(&web, "/readyz").await;
        if status == 503 {
            said = body;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        said.starts_with("not ready: the records file cannot be written: ")
            && said.contains("No space left on device"),
        "{said:?}"
    );
    let lines = until_line(&web, "anqi_record_writes_total 0").await;
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("anqi_record_write_failures_total ") && !l.ends_with(" 0")),
        "{}",
        lines.join("\n")
    );
    for b in bots {
        let _ = b.await;
    }
    server.stop().await;
}
