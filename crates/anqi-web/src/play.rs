//! The routes of a person's seat (`seats`): `GET /api/seats` (can people play here, against
//! what, and who waits), `POST /api/seats` (sit down), and `GET /api/seats/live` (the seat over
//! a WebSocket: its state at every change; the page's clicks back). The seat's token is the
//! WebSocket's first message, never part of an address: proxies and servers log addresses.

use crate::api;
use crate::listener::Peer;
use crate::seats::{PageAction, Request};
use crate::Shared;
use axum::body::Bytes;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use std::time::Duration;

/// The most a page may send in one message (a click is a few dozen bytes).
pub const MAX_INBOUND_BYTES: usize = 1024;

/// The largest `POST /api/seats` body.
pub const MAX_BODY_BYTES: usize = 4096;

/// How long a seat's WebSocket may take to send its token.
const TOKEN_WAIT: Duration = Duration::from_secs(10);

/// The close code for a token that opens no seat (a policy violation).
const NO_SUCH_SEAT: u16 = 1008;

/// Why a server has no seats for people.
const NO_SEATS: &str = "this server seats no people: they play on `anqi serve --http` with `[http] humans = true` (protocol/WEB.md, Play), never in a tournament";

/// `GET /api/seats`: `{"humans": bool, "waiting": [...]}`, and when people can play, the
/// variant, its number of players and the bots.
pub async fn info(State(shared): State<Shared>) -> Response {
    let mut body = match &shared.seats {
        Some(seats) => seats.info(),
        None => serde_json::json!({ "humans": false }),
    };
    body["waiting"] = serde_json::json!(shared.hub.waiting());
    api::json(StatusCode::OK, body.to_string())
}

/// `POST /api/seats` with `{"name", "seed", "against", "seat"}`: `201 {"token"}`; on a ladder
/// `{"against": "ladder", "secret"}`: `201 {"token", "ladder": {"name", "secret"}}` (`secret`:
/// a guest's, made now, or null).
pub async fn sit(
    State(shared): State<Shared>,
    ConnectInfo(Peer(peer)): ConnectInfo<Peer>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let Some(seats) = &shared.seats else {
        return api::error(StatusCode::FORBIDDEN, NO_SEATS);
    };
    if let Err(why) = crate::hosts::same_origin(&headers) {
        return api::error(StatusCode::FORBIDDEN, &why.to_string());
    }
    let req: Request = match serde_json::from_slice(&body) {
        Ok(r) => r,
        Err(e) => {
            return api::error(
                StatusCode::BAD_REQUEST,
                &format!("{e}: send {{\"name\": \"alice\", \"against\": \"random\" | \"greedy\" | \"search\" | \"waiting\", \"seat\": 0, \"seed\": \"\"}}, or on a ladder {{\"against\": \"ladder\", \"secret\": \"anqi-...\"}}"),
            )
        }
    };
    // On a ladder, seating reads (or writes) its database: off the pages' runtime.
    let seats = seats.clone();
    let sat = match api::off_the_runtime(move || seats.sit(req, peer)).await {
        Ok(sat) => sat,
        Err(refusal) => return *refusal,
    };
    match sat {
        Ok(seated) => {
            let mut body = serde_json::json!({ "token": seated.token });
            if let Some((name, made)) = seated.ladder {
                body["ladder"] = serde_json::json!({ "name": name, "secret": made });
            }
            api::json(StatusCode::CREATED, body.to_string())
        }
        Err(refusal) => api::error(
            StatusCode::from_u16(refusal.status()).unwrap_or(StatusCode::SERVICE_UNAVAILABLE),
            &refusal.to_string(),
        ),
    }
}

/// `GET /api/seats/live`: the page first sends `{"seat": TOKEN}`; then it gets the seat's
/// state now and at every change, sends `{"act": "(rev 3)", "turn": N}` or `{"resign": true}`,
/// and gets `{"type": "refused", "text"}` when that was not sent to the referee. A token that
/// opens no seat closes the socket (code 1008) with the reason.
pub async fn live(
    State(shared): State<Shared>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Response {
    if shared.seats.is_none() {
        return api::error(StatusCode::FORBIDDEN, NO_SEATS);
    }
    if let Err(why) = crate::hosts::same_origin(&headers) {
        return api::error(StatusCode::FORBIDDEN, &why.to_string());
    }
    ws.max_message_size(MAX_INBOUND_BYTES)
        .max_frame_size(MAX_INBOUND_BYTES)
        .read_buffer_size(crate::live::READ_BUFFER_BYTES)
        .write_buffer_size(crate::live::WRITE_BUFFER_BYTES)
        .on_upgrade(move |socket| open_seat(socket, shared))
}

/// The first message of a seat's page: which seat.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Opening {
    seat: String,
}

/// Reads the seat's token from the page, then serves the seat to it.
async fn open_seat(mut socket: WebSocket, shared: Shared) {
    let first = tokio::time::timeout(TOKEN_WAIT, socket.recv()).await;
    let token = match first {
        Ok(Some(Ok(Message::Text(text)))) => serde_json::from_str::<Opening>(&text).ok(),
        _ => None,
    };
    let Some(token) = token else {
        close(
            &mut socket,
            NO_SUCH_SEAT,
            "send {\"seat\": TOKEN} first (the token POST /api/seats gave)",
        )
        .await;
        return;
    };
    let human = shared.seats.as_ref().and_then(|s| s.human(&token.seat));
    match human {
        Some(human) => page(socket, human, shared).await,
        None => {
            close(
                &mut socket,
                NO_SUCH_SEAT,
                "no such seat here (a seat's page can be opened again until a while after its game)",
            )
            .await;
        }
    }
}

/// One page on a seat: the seat's state now and at every change (a page slow to read gets the
/// latest), its clicks to the relay, and pings: a page that answers nothing for half of
/// `human_away_ms` (a browser gone without closing, a network lost) is let go, so that the
/// seat counts it gone. Once the seat is done with, the page gets its last state and the
/// socket is closed.
async fn page(mut socket: WebSocket, human: std::sync::Arc<crate::seats::Human>, shared: Shared) {
    let mut state = human.subscribe();
    let mut ping = tokio::time::interval((human.away / 4).max(Duration::from_millis(25)));
    ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let silent_for = (human.away / 2).max(Duration::from_millis(50));
    let mut heard = tokio::time::Instant::now();
    let mut first = true;
    loop {
        if !first {
            tokio::select! {
                changed = state.changed() => if changed.is_err() { break },
                msg = socket.recv() => {
                    heard = tokio::time::Instant::now();
                    match msg {
                        Some(Ok(Message::Text(text))) => {
                            let answer = match serde_json::from_str::<PageAction>(&text) {
                                Ok(action) => human.ask(action).await.map_err(|e| e.to_string()),
                                Err(e) => Err(e.to_string()),
                            };
                            if let Err(why) = answer {
                                let refused = serde_json::json!({"type": "refused", "text": why});
                                if send(&mut socket, refused.to_string()).await.is_err() {
                                    return;
                                }
                            }
                            continue;
                        }
                        Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return,
                        Some(Ok(_)) => continue,
                    }
                },
                _ = ping.tick() => {
                    if heard.elapsed() > silent_for {
                        close(&mut socket, 1001, "this page answered nothing for too long").await;
                        return;
                    }
                    let sent = tokio::time::timeout(
                        Duration::from_secs(1),
                        socket.send(Message::Ping(Default::default())),
                    )
                    .await;
                    if !matches!(sent, Ok(Ok(()))) {
                        return;
                    }
                    continue;
                }
                _ = shared.shutdown.cancelled() => {
                    close(&mut socket, 1001, "the server is shutting down").await;
                    return;
                }
            }
        }
        first = false;
        let now = state.borrow_and_update().clone();
        if now.json.is_empty() {
            continue;
        }
        if send(&mut socket, now.json.to_string()).await.is_err() {
            return;
        }
        if now.ended {
            close(&mut socket, 1000, "the seat is done with").await;
            return;
        }
    }
}

async fn close(socket: &mut WebSocket, code: u16, reason: &'static str) {
    let frame = CloseFrame {
        code,
        reason: Utf8Bytes::from_static(reason),
    };
    let _ = tokio::time::timeout(
        Duration::from_secs(1),
        socket.send(Message::Close(Some(frame))),
    )
    .await;
}

async fn send(socket: &mut WebSocket, text: String) -> Result<(), ()> {
    match tokio::time::timeout(
        Duration::from_secs(10),
        socket.send(Message::Text(text.into())),
    )
    .await
    {
        Ok(Ok(())) => Ok(()),
        _ => Err(()),
    }
}
