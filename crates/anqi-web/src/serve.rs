//! Serving the pages: the accept loop and each connection, with hyper's HTTP/1 directly
//! (`axum::serve` gives hyper no timer, so no deadline for a request's header), on the pages'
//! own runtime (`runtime`).
//!
//! What a connection may hold, and for how long:
//! - its request's header must come whole within `[http] header_timeout_ms` of the connection
//!   opening or of its last answer (hyper's header-read timeout): a request trickled a byte at
//!   a time, which the idle limit alone (`listener`) never ends, is closed;
//! - a header, with the connection's read buffer, holds at most `[http] max_header_bytes`
//!   (past it, 431);
//! - when the pages hold `max_connections` connections, a newcomer is not turned away while a
//!   connection waits for a request's header or for a refusal's answer: the one that has
//!   waited longest is let go to make room (a crowd of unfinished or refused requests cannot
//!   keep visitors out; a browser's idle keep-alive connection, let go, is opened again);
//! - every request counts against its connection's and its network's rate (`requests`): past
//!   either, 429, answered a second later (the connection stays open: reopened, it would
//!   start with a fresh bucket of its own);
//! - a request for a name this server does not answer to is refused (`hosts`: 421);
//! - every answer says not to guess its type (`nosniff`), not to be framed by another page
//!   (`frame-ancestors 'none'`), and not to tell where a link was followed from
//!   (`Referrer-Policy: no-referrer`);
//! - an answer of the routes (JSON, text, the page's files) is sent gzipped when the request's
//!   `Accept-Encoding` allows and its body is over 32 bytes ([`compression`]); a WebSocket's
//!   upgrade, a `304` and the refusals made here (429, 421) never are. Compression changes
//!   only what an answer's body costs on the wire: no cap counts response bytes (the request
//!   caps count requests and header bytes; a connection's send buffer holds the gzipped
//!   bytes, so a page that stops reading holds no more than before).

use crate::hosts::Hosts;
use crate::listener::{self, Capped, Peer};
use crate::requests::{Bucket, RequestLimits, TooMany};
use anqi_server::limits::{Admission, Handshaking, Refusal, Slot};
use axum::extract::ConnectInfo;
use axum::http::{header, HeaderValue, Request, StatusCode};
use axum::response::Response;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower::ServiceExt;
use tower_http::compression::predicate::{Predicate, SizeAbove};
use tower_http::compression::{CompressionLayer, CompressionLevel};

/// How long a newcomer waits for the place of the connection let go for it.
const MAKE_ROOM_WAIT: Duration = Duration::from_secs(1);

/// How long the connections get to finish their answers once the server stops.
const STOP_GRACE: Duration = Duration::from_secs(2);

/// The answers' compression: gzip (every browser takes it; the only encoding built, so no
/// other is ever chosen) at its default level (6: a game's events about a ninth of their
/// size, a quarter smaller than at level 1 for three to five times the processor, on the
/// pages' own lower-priority thread: BENCHMARKS.md, Page weight), for a body over 32 bytes,
/// never for a WebSocket's upgrade (`101`, which has no body and must say nothing of
/// encodings).
pub fn compression() -> CompressionLayer<impl Predicate> {
    let not_an_upgrade =
        |status: StatusCode, _: _, _: &_, _: &_| status != StatusCode::SWITCHING_PROTOCOLS;
    CompressionLayer::new()
        .gzip(true)
        .quality(CompressionLevel::Default)
        .compress_when(SizeAbove::new(32).and(not_an_upgrade))
}

/// What every connection shares.
pub struct Context {
    pub router: Router,
    pub admission: Arc<Admission>,
    pub limits: RequestLimits,
    pub hosts: Hosts,
    /// hyper's settings: the header deadline and the buffer bound.
    pub http: hyper::server::conn::http1::Builder,
    /// `[http] idle_timeout_ms`.
    pub idle: Duration,
    pub shutdown: CancellationToken,
    next_id: AtomicU64,
}

impl Context {
    /// The settings of `[http]` for the connections of `router`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        router: Router,
        admission: Admission,
        limits: RequestLimits,
        hosts: Hosts,
        header_timeout: Duration,
        max_header_bytes: usize,
        idle: Duration,
        shutdown: CancellationToken,
    ) -> Context {
        let mut http = hyper::server::conn::http1::Builder::new();
        http.timer(TokioTimer::new())
            .header_read_timeout(header_timeout)
            .max_buf_size(max_header_bytes.max(anqi_server::config::MIN_HEADER_BYTES));
        Context {
            router,
            admission: Arc::new(admission),
            limits,
            hosts,
            http,
            idle,
            shutdown,
            next_id: AtomicU64::new(1),
        }
    }
}

/// Accepts and serves connections on `listener` until `ctx.shutdown` fires, then gives the
/// open ones a moment to finish their answers.
///
/// # Errors
/// None for now: a connection's failure is its own.
pub async fn serve(listener: TcpListener, ctx: Arc<Context>) -> std::io::Result<()> {
    let tasks = TaskTracker::new();
    loop {
        let (stream, peer) = tokio::select! {
            () = ctx.shutdown.cancelled() => break,
            accepted = listener::accept(&listener) => accepted,
        };
        match ctx.admission.admit(peer.ip()) {
            Ok(slot) => {
                tasks.spawn(connection(stream, peer, slot, ctx.clone()));
            }
            Err(Refusal::Full(_)) => {
                // Full: the connection that has waited longest for a request makes room, if
                // any does (it is told nothing: it sent nothing whole to answer).
                let ctx = ctx.clone();
                tasks.spawn(async move {
                    match ctx
                        .admission
                        .admit_making_room(peer.ip(), MAKE_ROOM_WAIT)
                        .await
                    {
                        Ok(slot) => connection(stream, peer, slot, ctx).await,
                        Err(refusal) => listener::refuse(stream, refusal).await,
                    }
                });
            }
            Err(refusal) => {
                tracing::debug!(%peer, ?refusal, "web: connection refused");
                tasks.spawn(listener::refuse(stream, refusal));
            }
        }
    }
    drop(listener);
    tasks.close();
    let _ = tokio::time::timeout(STOP_GRACE, tasks.wait()).await;
    Ok(())
}

/// One connection's state, shared by its requests.
struct Conn {
    id: u64,
    peer: SocketAddr,
    /// While it waits for a request's header or a refusal's answer: its place among the
    /// connections that may be let go to make room.
    waiting: Mutex<Option<Handshaking>>,
    /// The token that lets it go, renewed each time it waits again.
    let_go: watch::Sender<CancellationToken>,
    requests: Mutex<Bucket>,
}

impl Conn {
    /// From now on the connection waits for a request, or for a refusal's answer (a newcomer
    /// may take its place).
    fn waits(&self, ctx: &Context) {
        let (token, place) = ctx.admission.handshaking(self.id);
        *self.waiting.lock().unwrap_or_else(|e| e.into_inner()) = Some(place);
        self.let_go.send_replace(token);
    }

    /// A request came: the connection is busy, not to be let go (unless it is refused).
    fn busy(&self) {
        self.waiting
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
    }
}

async fn connection(
    stream: tokio::net::TcpStream,
    peer: SocketAddr,
    slot: Slot,
    ctx: Arc<Context>,
) {
    let (let_go, mut let_go_now) = watch::channel(CancellationToken::new());
    let conn = Arc::new(Conn {
        id: ctx.next_id.fetch_add(1, Ordering::Relaxed),
        peer,
        waiting: Mutex::new(None),
        let_go,
        requests: Mutex::new(ctx.limits.connection()),
    });
    conn.waits(&ctx);
    let io = TokioIo::new(Capped::new(stream, slot, ctx.idle));
    let service = {
        let (conn, ctx) = (conn.clone(), ctx.clone());
        hyper::service::service_fn(move |req| request(req, conn.clone(), ctx.clone()))
    };
    let serving = ctx.http.serve_connection(io, service).with_upgrades();
    tokio::pin!(serving);
    let mut stopping = false;
    loop {
        let token = let_go_now.borrow_and_update().clone();
        tokio::select! {
            done = serving.as_mut() => {
                if let Err(e) = done {
                    tracing::debug!(%peer, error = %e, "web: connection ended");
                }
                break;
            }
            () = token.cancelled() => {
                tracing::debug!(%peer, "web: a connection waiting for a request let go to make room");
                break;
            }
            _ = let_go_now.changed() => {}
            () = ctx.shutdown.cancelled(), if !stopping => {
                stopping = true;
                serving.as_mut().graceful_shutdown();
            }
        }
    }
    conn.busy();
}

/// One request: counted against the limits, then routed.
async fn request(
    mut req: Request<Incoming>,
    conn: Arc<Conn>,
    ctx: Arc<Context>,
) -> Result<Response, Infallible> {
    conn.busy();
    let counted = {
        let mut bucket = conn.requests.lock().unwrap_or_else(|e| e.into_inner());
        ctx.limits.admit(&mut bucket, conn.peer.ip())
    };
    let mut response = match counted {
        Ok(()) => match ctx.hosts.check(req.headers()) {
            Ok(()) => {
                req.extensions_mut().insert(ConnectInfo(Peer(conn.peer)));
                let routed = ctx.router.clone().oneshot(req.map(axum::body::Body::new));
                match routed.await {
                    Ok(response) => response,
                    Err(never) => match never {},
                }
            }
            Err(why) => crate::api::error(StatusCode::MISDIRECTED_REQUEST, &why.to_string()),
        },
        Err(too_many) => {
            // While its refusal waits, the connection holds nothing the server owes it: it
            // counts as waiting, and a newcomer to full pages may take its place. Busy
            // instead, a crowd keeping one refused request in flight on each connection
            // would never wait and would hold every place.
            conn.waits(&ctx);
            tokio::time::sleep(too_many.wait).await;
            too_many_requests(&too_many)
        }
    };
    guard(response.headers_mut());
    // A WebSocket is no longer HTTP: it waits for no request.
    if response.status() != StatusCode::SWITCHING_PROTOCOLS {
        conn.waits(&ctx);
    }
    Ok(response)
}

/// The headers every answer carries: its type is what it says (no sniffing a JSON body into a
/// page), no other page may frame it (clickjacking a seat), and a link followed from it tells
/// nothing of where it was. An answer that is not a page gets a policy that allows nothing.
fn guard(headers: &mut axum::http::HeaderMap) {
    let set = |headers: &mut axum::http::HeaderMap, name, value: &'static str| {
        headers
            .entry(name)
            .or_insert_with(|| HeaderValue::from_static(value));
    };
    set(headers, header::X_CONTENT_TYPE_OPTIONS, "nosniff");
    set(headers, header::REFERRER_POLICY, "no-referrer");
    set(headers, header::X_FRAME_OPTIONS, "DENY");
    set(
        headers,
        header::CONTENT_SECURITY_POLICY,
        "default-src 'none'; frame-ancestors 'none'",
    );
}

/// `429 Too Many Requests` with the reason.
fn too_many_requests(too_many: &TooMany) -> Response {
    let mut response = crate::api::error(StatusCode::TOO_MANY_REQUESTS, &too_many.to_string());
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}
