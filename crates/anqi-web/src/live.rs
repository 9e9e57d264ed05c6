//! `GET /api/games/{id}/live`: a game's events over a WebSocket, as they happen.
//!
//! The feed begins with every event shown so far (a page opened mid-game catches up), then
//! `{"type":"caught_up"}`, then each event as it is released, and closes after the `end`
//! event. An observer whose connection does not take the events as fast as the game makes
//! them falls `[http] observer_queue` events behind and is dropped: the connection is closed
//! with the reason, and the server logs it. A game never waits for an observer.

use crate::api;
use crate::Shared;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, State};
use axum::response::Response;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};

/// The most a page may send (it has nothing to say but its close).
const MAX_INBOUND_BYTES: usize = 1024;

/// A live feed's read buffer (it reads nothing but a close and pings), and the write buffer
/// it fills before writing to the socket (the library's are 128 KiB each: 1,000 feeds held
/// 150 MB). A larger message is written whole all the same.
pub const READ_BUFFER_BYTES: usize = 4 * 1024;
pub const WRITE_BUFFER_BYTES: usize = 16 * 1024;

/// The shortest time between two writes of live events to one page.
const BATCH: Duration = Duration::from_millis(20);

/// How long one event (or batch) may take to go out before the observer is dropped.
const SEND_TIMEOUT: Duration = Duration::from_secs(10);

/// The WebSocket close code for "going away" (the server stops) and for a policy violation
/// (the observer fell behind).
const GOING_AWAY: u16 = 1001;
const FELL_BEHIND: u16 = 1008;

pub async fn live(
    State(shared): State<Shared>,
    Path(id): Path<String>,
    headers: axum::http::HeaderMap,
    ws: WebSocketUpgrade,
) -> Response {
    let id = match api::parse_id(&id) {
        Ok(id) => id,
        Err(response) => return *response,
    };
    // Only the server's own pages (a browser says whose page opens a WebSocket).
    if let Err(why) = crate::hosts::same_origin(&headers) {
        return api::error(axum::http::StatusCode::FORBIDDEN, &why.to_string());
    }
    // Refusals are plain HTTP answers, before the upgrade. A finished game's events may be
    // rebuilt: off the pages' runtime.
    let hub = shared.hub.clone();
    let watcher = match api::off_the_runtime(move || hub.watch(id)).await {
        Ok(Ok(w)) => w,
        Ok(Err(refusal)) => return api::refused(&refusal),
        Err(response) => return *response,
    };
    ws.max_message_size(MAX_INBOUND_BYTES)
        .max_frame_size(MAX_INBOUND_BYTES)
        .read_buffer_size(READ_BUFFER_BYTES)
        .write_buffer_size(WRITE_BUFFER_BYTES)
        .on_upgrade(move |socket| relay(socket, id, watcher, shared))
}

/// Why a feed stopped.
enum Stop {
    /// The game is over and its end was sent, or the page left.
    Done,
    /// The observer fell behind.
    Behind(String),
    Shutdown,
}

async fn relay(
    mut socket: WebSocket,
    id: u64,
    watcher: anqi_server::watch::Watcher,
    shared: Shared,
) {
    let stop = feed(&mut socket, watcher, &shared).await;
    let close = match stop {
        Stop::Done => None,
        Stop::Behind(why) => {
            tracing::warn!(game = id, reason = %why, "web: observer dropped");
            Some((FELL_BEHIND, why))
        }
        Stop::Shutdown => Some((GOING_AWAY, "the server is shutting down".to_string())),
    };
    let frame = close.map(|(code, reason)| CloseFrame {
        code,
        reason: Utf8Bytes::from(reason),
    });
    let _ = tokio::time::timeout(Duration::from_secs(1), socket.send(Message::Close(frame))).await;
}

async fn feed(
    socket: &mut WebSocket,
    watcher: anqi_server::watch::Watcher,
    shared: &Shared,
) -> Stop {
    let anqi_server::watch::Watcher { backlog, live, .. } = watcher;
    for event in &backlog {
        if let Err(stop) = send(socket, event).await {
            return stop;
        }
    }
    if send(socket, &Arc::from("{\"type\":\"caught_up\"}"))
        .await
        .is_err()
    {
        return Stop::Done;
    }
    let Some(mut live) = live else {
        return Stop::Done;
    };
    // Events go out in batches, at most one write per BATCH: a game between bots makes
    // thousands of plies a second, and a hundred pages each woken and written to for every
    // one of them would take the processor from the game. A person sees nothing of 20 ms,
    // and an event after a quiet moment goes out at once.
    let mut last_write = tokio::time::Instant::now() - BATCH;
    loop {
        let first = tokio::select! {
            _ = shared.shutdown.cancelled() => return Stop::Shutdown,
            event = live.recv() => event,
            incoming = socket.recv() => match incoming {
                // Pings are answered by the library; anything else is ignored.
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => return Stop::Done,
                Some(Ok(_)) => continue,
            },
        };
        tokio::select! {
            _ = shared.shutdown.cancelled() => return Stop::Shutdown,
            _ = tokio::time::sleep_until(last_write + BATCH) => {}
        }
        let mut batch = Vec::new();
        let mut next = first;
        let closed = loop {
            match next {
                Ok(event) => batch.push(event),
                Err(RecvError::Lagged(n)) => {
                    return Stop::Behind(format!(
                        "fell {n} events behind the game; reconnect to catch up"
                    ))
                }
                Err(RecvError::Closed) => break true,
            }
            next = match live.try_recv() {
                Ok(event) => Ok(event),
                Err(TryRecvError::Lagged(n)) => Err(RecvError::Lagged(n)),
                Err(TryRecvError::Closed) => Err(RecvError::Closed),
                Err(TryRecvError::Empty) => break false,
            };
        };
        let ended = batch.last().is_some_and(|e| is_end(e));
        if let Err(stop) = send_all(socket, &batch).await {
            return stop;
        }
        last_write = tokio::time::Instant::now();
        if ended || closed {
            return Stop::Done;
        }
    }
}

/// Sends events in one write (the last one flushes them all).
async fn send_all(socket: &mut WebSocket, events: &[Arc<str>]) -> Result<(), Stop> {
    use futures_util::SinkExt;
    let write = async {
        for event in events {
            socket
                .feed(Message::Text(Utf8Bytes::from(event.as_ref())))
                .await?;
        }
        socket.flush().await
    };
    match tokio::time::timeout(SEND_TIMEOUT, write).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(_)) => Err(Stop::Done),
        Err(_) => Err(Stop::Behind(format!(
            "took no event for {} s",
            SEND_TIMEOUT.as_secs()
        ))),
    }
}

async fn send(socket: &mut WebSocket, event: &Arc<str>) -> Result<(), Stop> {
    let message = Message::Text(Utf8Bytes::from(event.as_ref()));
    match tokio::time::timeout(SEND_TIMEOUT, socket.send(message)).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(_)) => Err(Stop::Done),
        Err(_) => Err(Stop::Behind(format!(
            "took no event for {} s",
            SEND_TIMEOUT.as_secs()
        ))),
    }
}

/// Whether an event is the game's end (events begin `{"seq":N,"type":"..."`).
fn is_end(event: &str) -> bool {
    event
        .split_once(",\"type\":\"")
        .is_some_and(|(_, rest)| rest.starts_with("end\""))
}
