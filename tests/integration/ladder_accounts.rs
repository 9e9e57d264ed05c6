//! Accounts made on request (issue 37, part 1): bots registering themselves over the pages'
//! API (`[ladder] registration`), people playing rated games from the web seats with an
//! account's secret or as guests (`[ladder] guests`), and the caps and refusals around them,
//! against a real `anqi serve --ladder` over HTTP, WebSocket and TCP.

use crate::common::TempDir;
use crate::ladder::{bot, serve, stop, until_rated};
use crate::seats::{open_seat, post, until};
use crate::web::{get, get_json};
use futures_util::SinkExt;
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

/// `POST path` with a JSON body: the status and the body read as JSON.
async fn ask(web: &str, path: &str, body: Value) -> (u16, Value) {
    let (status, text) = post(web, path, &body.to_string(), "").await;
    let v = serde_json::from_str(&text).unwrap_or_else(|_| panic!("JSON: {text}"));
    (status, v)
}

/// A ladder server with `[ladder]` and `[http]` lines of its own.
fn ladder_with(dir: &TempDir, config: &str) -> (crate::common::Killed, String, String) {
    let path = dir.0.join("config.toml");
    std::fs::write(&path, config).unwrap();
    serve(
        &dir.0,
        "traditional-2x4",
        &["--config", path.to_str().unwrap()],
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_register_people_play_as_guests_and_the_caps_hold() {
    let dir = TempDir::new("ladder-register");
    let (server, addr, web) = ladder_with(
        &dir,
        "[http]\nhumans = true\n[ladder]\nregistration = true\nguests = true\nregistrations_per_hour_per_address = 5\n",
    );
    // A bot's author registers, and the secret works at once over TCP.
    let (status, made) = ask(&web, "/api/ladder/accounts", json!({"name": "selfmade"})).await;
    assert_eq!(status, 201, "{made}");
    assert_eq!(made["name"], "selfmade");
    let selfmade = made["secret"].as_str().unwrap().to_string();
    assert!(
        selfmade.starts_with("anqi-") && selfmade.len() == 37,
        "{made}"
    );
    let (status, other) = ask(&web, "/api/ladder/accounts", json!({"name": "other"})).await;
    assert_eq!(status, 201, "{other}");
    let mut bots = [
        bot(&addr, &selfmade, &["random"], 1),
        bot(&addr, other["secret"].as_str().unwrap(), &["greedy"], 1),
    ];
    until_rated(&web, 1, 60).await;
    for b in &mut bots {
        assert!(b.wait().unwrap().success());
    }

    // Refusals, each with its reason: a guest's name (not counted), a taken name (counted).
    let (status, said) = ask(&web, "/api/ladder/accounts", json!({"name": "guest-me"})).await;
    assert_eq!(status, 400, "{said}");
    assert!(said["error"]
        .as_str()
        .unwrap()
        .contains("kept for the ladder's guests"));
    let (status, said) = ask(&web, "/api/ladder/accounts", json!({"name": "a b"})).await;
    assert_eq!(status, 400, "{said}");
    let (status, said) = ask(&web, "/api/ladder/accounts", json!({"name": "selfmade"})).await;
    assert_eq!(status, 409, "{said}");
    assert!(said["error"].as_str().unwrap().contains("already exists"));
    // Names differ in more than case: SelfMade would pass for selfmade on the pages.
    let (status, said) = ask(&web, "/api/ladder/accounts", json!({"name": "SelfMade"})).await;
    assert_eq!(status, 409, "{said}");
    assert!(said["error"]
        .as_str()
        .unwrap()
        .contains("an account named selfmade"));

    // A person with no account sits down as a guest (the 5th account asked for), is paired
    // with a bot waiting, resigns, and the game is rated under the guest's name.
    let info = get_json(&web, "/api/seats").await;
    assert_eq!(info["ladder"], json!({"guests": true}), "{info}");
    let opponent = bot(&addr, &selfmade, &["random"], 1);
    let (status, seated) = ask(&web, "/api/seats", json!({"against": "ladder"})).await;
    assert_eq!(status, 201, "{seated}");
    let guest = seated["ladder"]["name"].as_str().unwrap().to_string();
    let guest_secret = seated["ladder"]["secret"].as_str().unwrap().to_string();
    assert!(guest.starts_with("guest-") && guest.len() == 14, "{seated}");
    let mut socket = open_seat(&web, seated["token"].as_str().unwrap()).await;
    until(&mut socket, |s| s["state"] == "playing").await;
    socket
        .send(Message::Text(json!({"resign": true}).to_string().into()))
        .await
        .unwrap();
    let over = until(&mut socket, |s| s["state"] == "over").await;
    assert_eq!(over["name"], guest.as_str(), "{over}");
    let mut opponent = opponent;
    assert!(opponent.wait().unwrap().success());
    until_rated(&web, 2, 30).await;
    let page = get_json(&web, &format!("/api/players/{guest}")).await;
    assert_eq!(page["losses"], 1, "{page}");
    assert_eq!(page["games"][0]["opponent"], "selfmade", "{page}");
    assert_eq!(page["games"][0]["termination"], "resign", "{page}");

    // The same person comes back with the guest's secret: the same guest, no account made.
    let (status, again) = ask(
        &web,
        "/api/seats",
        json!({"against": "ladder", "secret": guest_secret}),
    )
    .await;
    assert_eq!(status, 201, "{again}");
    assert_eq!(again["ladder"], json!({"name": guest, "secret": null}));
    drop(socket);

    // The 6th account asked for from this network within the hour is refused, and counted.
    let (status, said) = ask(&web, "/api/ladder/accounts", json!({"name": "sixth"})).await;
    assert_eq!(status, 429, "{said}");
    assert!(said["error"]
        .as_str()
        .unwrap()
        .contains("registrations_per_hour_per_address"));
    let (status, said) = ask(&web, "/api/seats", json!({"against": "ladder"})).await;
    assert_eq!(status, 429, "{said}");
    let (_, metrics) = get(&web, "/metrics").await;
    assert!(
        metrics.contains("anqi_refusals_total{reason=\"registrations\"} 2"),
        "{metrics}"
    );
    let board = get_json(&web, "/api/ladder").await;
    let names: Vec<&str> = board["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 3, "{board}");
    assert!(names.contains(&guest.as_str()), "{board}");
    stop(server);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ladder_that_makes_no_accounts_says_so_and_seats_only_accounts() {
    let dir = TempDir::new("ladder-closed");
    let secret = crate::ladder::add(&dir.0.join("ladder.db"), "member");
    let (server, _addr, web) = ladder_with(&dir, "[http]\nhumans = true\n");
    let (status, said) = ask(&web, "/api/ladder/accounts", json!({"name": "newbot"})).await;
    assert_eq!(status, 403, "{said}");
    assert!(said["error"].as_str().unwrap().contains("anqi ladder add"));
    let info = get_json(&web, "/api/seats").await;
    assert_eq!(info["ladder"], json!({"guests": false}), "{info}");
    for (request, status, words) in [
        (json!({"against": "ladder"}), 403, "seats no guests"),
        (
            json!({"against": "random", "name": "alice"}),
            400,
            "this server is a ladder",
        ),
        (
            json!({"against": "ladder", "seat": 1}),
            400,
            "matchmaking chooses the seats",
        ),
        (
            json!({"against": "ladder", "secret": "anqi-00000000000000000000000000000000"}),
            400,
            "no account of this ladder has this secret",
        ),
        (
            json!({"against": "ladder", "secret": "hunter2"}),
            400,
            "no account of this ladder has this secret",
        ),
    ] {
        let (got, said) = ask(&web, "/api/seats", request.clone()).await;
        assert_eq!(got, status, "{request}: {said}");
        assert!(
            said["error"].as_str().unwrap().contains(words),
            "{request}: {said}"
        );
    }
    // An account's secret seats its person under the account's name.
    let (status, seated) = ask(
        &web,
        "/api/seats",
        json!({"against": "ladder", "secret": secret}),
    )
    .await;
    assert_eq!(status, 201, "{seated}");
    assert_eq!(seated["ladder"], json!({"name": "member", "secret": null}));
    // Retired: refused with the reason.
    crate::common::cli::anqi(["ladder", "retire", "member", "--database"])
        .arg(dir.0.join("ladder.db"))
        .succeeds();
    let (status, said) = ask(
        &web,
        "/api/seats",
        json!({"against": "ladder", "secret": secret}),
    )
    .await;
    assert_eq!(status, 400, "{said}");
    assert!(
        said["error"].as_str().unwrap().contains("retired"),
        "{said}"
    );
    stop(server);
}
