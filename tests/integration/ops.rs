//! What an operator reads of a running server, over real HTTP (issue 37, 'Operators can see
//! inside'): `GET /metrics` in Prometheus's text format counts a game played over TCP as its
//! record has it (started, finished by variant and termination, plies, the record written and
//! its latency) and the pages' requests by route and status; the game connections by state
//! and the refusals by reason, as raw TCP clients meet them; the seats kept for a lost
//! connection, taken back and lost; `GET /healthz` answers; `GET /readyz` is ready while
//! records can be written and says why not on a full disk; and `anqi serve --metrics` serves
//! those three alone on an address of its own, for any `Host`.

use crate::common::{RawClient, TestServer};
use crate::web::get;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

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

/// Scrapes until every one of `lines` is there at once (up to 10 s).
async fn until_lines(web: &str, lines: &[&str]) {
    for _ in 0..200 {
        let now = scrape(web).await;
        if lines.iter().all(|l| now.iter().any(|n| n == l)) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!(
        "/metrics never had {lines:?} together:\n{}",
        scrape(web).await.join("\n")
    );
}

/// `anqi_connections{state="STATE"} N` for each of handshake and seated.
fn connections(handshake: u32, seated: u32) -> [String; 2] {
    [
        format!("anqi_connections{{state=\"handshake\"}} {handshake}"),
        format!("anqi_connections{{state=\"seated\"}} {seated}"),
    ]
}

/// Waits until the connections are `handshake` and `seated`, with `more` lines besides.
async fn until_connections(web: &str, handshake: u32, seated: u32, more: &[&str]) {
    let want = connections(handshake, seated);
    let mut lines: Vec<&str> = want.iter().map(String::as_str).collect();
    lines.extend_from_slice(more);
    until_lines(web, &lines).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_by_state_and_refusals_by_reason_over_tcp() {
    let config = "[server]\nmax_connections_per_address = 2\nhandshake_timeout_ms = 2000\n";
    let (mut server, web) = TestServer::start_watched("traditional-2x4", config).await;
    let addr = server.addr();
    until_ready(&web).await;
    until_connections(&web, 0, 0, &["anqi_refusals_total{reason=\"full\"} 0"]).await;
    // Greeted, and silent: in its handshake. Then introduced: seated, waiting for a game.
    let mut a = RawClient::connect(&addr).await;
    assert_eq!(a.line().await, "((version 1.0))");
    until_connections(&web, 1, 0, &[]).await;
    a.send("((init keeper 1))\n").await;
    until_connections(&web, 0, 1, &["anqi_players_waiting 1"]).await;
    // A second connection from the address is the most it may hold: a third is refused.
    let mut b = RawClient::connect(&addr).await;
    assert_eq!(b.line().await, "((version 1.0))");
    let mut c = RawClient::connect(&addr).await;
    assert!(c.line().await.starts_with("((error busy "));
    c.expect_closed().await;
    until_connections(
        &web,
        1,
        1,
        &["anqi_refusals_total{reason=\"per_address\"} 1"],
    )
    .await;
    // Another version of the protocol.
    b.send("((version 2.0))\n").await;
    assert!(b.line().await.starts_with("((error version "));
    b.expect_closed().await;
    until_connections(&web, 0, 1, &["anqi_refusals_total{reason=\"version\"} 1"]).await;
    // Silent past the handshake's timeout.
    let mut d = RawClient::connect(&addr).await;
    assert_eq!(d.line().await, "((version 1.0))");
    assert!(d.line().await.starts_with("((error timeout "));
    d.expect_closed().await;
    until_connections(
        &web,
        0,
        1,
        &["anqi_refusals_total{reason=\"handshake_timeout\"} 1"],
    )
    .await;
    // A game: both seated, then both gone once it is over.
    let mut e = RawClient::join(&addr, "other", "2").await;
    until_connections(
        &web,
        0,
        2,
        &["anqi_players_waiting 0", "anqi_games_running 1"],
    )
    .await;
    a.until("(turn 0 1)").await;
    a.send("((resign))\n").await;
    e.until("(win").await;
    server.next_record().await;
    until_connections(
        &web,
        0,
        0,
        &[
            "anqi_games_running 0",
            "anqi_refusals_total{reason=\"full\"} 0",
            "anqi_refusals_total{reason=\"made_room\"} 0",
            "anqi_refusals_total{reason=\"per_address\"} 1",
        ],
    )
    .await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kept_seats_taken_back_lost_and_unknown_are_counted() {
    let config = "[referee]\nrejoin_grace_ms = 1000\n";
    let (mut server, web) = TestServer::start_watched("traditional-2x4", config).await;
    let addr = server.addr();
    let mut a = RawClient::connect(&addr).await;
    a.line().await;
    a.send("((version 1.0)(init keeper 1)(ext rejoin))\n").await;
    server.until_waiting("keeper").await;
    let mut b = RawClient::join(&addr, "plain", "2").await;
    let secret = crate::rejoin::secret_of(&a.line().await);
    b.line().await;
    let back = |secret: String| {
        let addr = addr.clone();
        async move {
            let mut c = RawClient::connect(&addr).await;
            c.line().await;
            c.send(&format!("((version 1.0)(rejoin \"{secret}\"))\n"))
                .await;
            c
        }
    };
    drop(a);
    let mut a = back(secret.clone()).await;
    assert!(a.line().await.starts_with("((id 1)"));
    let mut stranger = back("0123456789abcdef0123456789abcdef".into()).await;
    assert!(stranger.line().await.starts_with("((error unexpected "));
    until_lines(
        &web,
        &[
            "anqi_rejoins_total{outcome=\"taken_back\"} 1",
            "anqi_rejoins_total{outcome=\"no_seat\"} 1",
            "anqi_rejoins_total{outcome=\"expired\"} 0",
        ],
    )
    .await;
    // Gone again, for longer than the grace: the seat is lost.
    drop(a);
    let record = server.next_record().await;
    assert_eq!(
        (record.result.reason.name(), record.result.loser),
        ("disconnect", Some(1))
    );
    until_lines(&web, &["anqi_rejoins_total{outcome=\"expired\"} 1"]).await;
    server.stop().await;
}

/// `GET path` at `addr` with `host` as the request's `Host`: the status.
async fn status_for_host(addr: &str, path: &str, host: &str) -> u16 {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nhost: {host}\r\nconnection: close\r\n\r\n");
    s.write_all(request.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut raw))
        .await
        .expect("an answer in time")
        .unwrap();
    String::from_utf8_lossy(&raw)[9..12].parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_metrics_serves_only_the_operators_routes_on_its_own_address() {
    let (_server, addr, metrics) =
        crate::common::spawn_serve_metrics(&["--variant", "traditional-2x4"]);
    until_ready(&metrics).await;
    let (status, body) = get(&metrics, "/healthz").await;
    assert_eq!((status, body.as_str()), (200, "ok\n"));
    // None of the pages: they are off.
    for path in ["/", "/api/games", "/assets/app.js"] {
        assert_eq!(get(&metrics, path).await.0, 404, "{path}");
    }
    // Scrapers name the server as they find it: any Host is answered.
    assert_eq!(
        status_for_host(&metrics, "/metrics", "anqi:9100").await,
        200
    );
    for b in crate::common::random_bots(&addr, 2, 5) {
        b.await.unwrap().unwrap();
    }
    // The bots have their result once the record is written; the hub counts the game a
    // moment later.
    let mut lines = Vec::new();
    for _ in 0..200 {
        lines = scrape(&metrics).await;
        if lines
            .iter()
            .any(|l| l.starts_with("anqi_games_finished_total{variant=\"traditional-2x4\","))
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let finished: Vec<_> = lines
        .iter()
        .filter(|l| l.starts_with("anqi_games_finished_total{"))
        .collect();
    assert!(
        finished.len() == 1 && finished[0].ends_with(" 1"),
        "{}",
        lines.join("\n")
    );
    for want in [
        "anqi_http_requests_total{route=\"/healthz\",status=\"200\"} 1",
        "anqi_http_requests_total{route=\"other\",status=\"404\"} 3",
        "anqi_games_started_total 1",
    ] {
        assert!(
            lines.iter().any(|l| l == want),
            "{want} in:\n{}",
            lines.join("\n")
        );
    }
}
