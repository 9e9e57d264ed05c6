//! One client connection: a reader task that turns bytes into typed messages, a writer task that
//! sends whole messages, and the handshake that turns a connection into a seated [`Player`].
//!
//! The reader and writer are the only owners of the socket halves; everyone else talks to them
//! through channels, so a slow or silent client never blocks a game or another connection.

use crate::wire::{
    ClientClause, ClientMessage, ErrorCode, Extension, Extensions, FrameError, FrameLimits,
    FrameScanner, MessageError, ServerClause, ServerMessage,
};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tracing::Instrument;

/// What the reader task hands on.
#[derive(Debug)]
pub enum Inbound {
    /// A well-formed message.
    Message(ClientMessage),
    /// Bytes that are not a message; the error reply it deserves.
    Bad(MessageError),
    /// The client closed the connection (or it broke).
    Closed,
}

/// The sending side of a connection. Cloning is cheap; messages are shared `Arc<str>` lines.
///
/// The queue is bounded in bytes, not in messages: a client that does not read pins at most
/// `write_queue_bytes` of memory, however long the messages it is sent.
#[derive(Clone, Debug)]
pub struct Outbox {
    tx: mpsc::UnboundedSender<Arc<str>>,
    /// Bytes queued and not yet written, shared with the writer task.
    queued: Arc<AtomicUsize>,
    limit: usize,
}

/// The client cannot take more messages: it is gone, or not reading.
#[derive(Debug)]
pub struct Gone;

impl Outbox {
    /// Queues one line without waiting.
    ///
    /// # Errors
    /// [`Gone`] when the connection is closed or its write queue is full.
    pub fn send_line(&self, line: Arc<str>) -> Result<(), Gone> {
        let len = line.len();
        let before = self.queued.fetch_add(len, Ordering::AcqRel);
        if before + len > self.limit {
            self.queued.fetch_sub(len, Ordering::AcqRel);
            return Err(Gone);
        }
        self.tx.send(line).map_err(|_| Gone)
    }

    /// Queues one message.
    ///
    /// # Errors
    /// As [`Outbox::send_line`].
    pub fn send(&self, msg: &ServerMessage) -> Result<(), Gone> {
        self.send_line(msg.to_line().into())
    }

    /// Queues an `((error CODE "text"))` message, ignoring a gone client.
    pub fn error(&self, code: ErrorCode, text: impl Into<String>) {
        let _ = self.send(&ServerMessage(vec![ServerClause::Error(code, text.into())]));
    }

    /// An outbox whose connection is closed.
    fn closed() -> Outbox {
        let (tx, _) = mpsc::unbounded_channel();
        Outbox {
            tx,
            queued: Arc::new(AtomicUsize::new(0)),
            limit: 0,
        }
    }
}

/// A client that has completed the handshake and waits for (or sits in) a game.
pub struct Player {
    /// Order of acceptance (0, 1, ...): seats are given in this order.
    pub conn: u64,
    /// The client's address, for logs (refused tokens, ...).
    pub peer: std::net::SocketAddr,
    pub name: String,
    pub seed: String,
    /// The protocol extensions it asked for (and was granted) in its handshake.
    pub ext: Extensions,
    pub inbox: mpsc::Receiver<Inbound>,
    pub outbox: Outbox,
}

impl std::fmt::Debug for Player {
    /// Everything but the SEED, which is a secret token in tournaments.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Player")
            .field("conn", &self.conn)
            .field("peer", &self.peer)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// How the name of a stand-in for an absent player starts (`(absent seat 2)`). No client can
/// have such a name: names are atoms, which hold no parenthesis.
const ABSENT_PREFIX: &str = "(absent seat ";

/// Whether a recorded player name is that of a stand-in for a seat nobody took.
pub fn is_absent_name(name: &str) -> bool {
    name.starts_with(ABSENT_PREFIX)
}

impl Player {
    /// A stand-in for a seat nobody took: its channels are closed.
    pub fn absent(seat: usize) -> Player {
        let (_, inbox) = mpsc::channel(1);
        Player {
            conn: u64::MAX,
            peer: std::net::SocketAddr::from(([0, 0, 0, 0], 0)),
            name: format!("{ABSENT_PREFIX}{seat})"),
            seed: String::new(),
            ext: Extensions::NONE,
            inbox,
            outbox: Outbox::closed(),
        }
    }
}

#[cfg(test)]
impl Player {
    /// A player for unit tests, with the other ends of its channels: what the server sends it,
    /// and a way to send it messages (keep it, or the player counts as gone).
    pub fn for_test(
        conn: u64,
        seed: &str,
    ) -> (
        Player,
        mpsc::UnboundedReceiver<Arc<str>>,
        mpsc::Sender<Inbound>,
    ) {
        let (in_tx, inbox) = mpsc::channel(8);
        let (tx, out_rx) = mpsc::unbounded_channel();
        let player = Player {
            conn,
            peer: std::net::SocketAddr::from(([127, 0, 0, 1], 40_000 + (conn % 20_000) as u16)),
            name: format!("p{conn}"),
            seed: seed.to_string(),
            ext: Extensions::NONE,
            inbox,
            outbox: Outbox {
                tx,
                queued: Arc::new(AtomicUsize::new(0)),
                limit: 1 << 20,
            },
        };
        (player, out_rx, in_tx)
    }
}

/// Limits of one connection.
#[derive(Clone, Copy, Debug)]
pub struct ConnectionLimits {
    pub frame: FrameLimits,
    pub write_queue_bytes: usize,
    pub handshake_timeout: Duration,
}

/// Starts the reader and writer tasks of an accepted stream. The slot (the connection's place
/// under the server's caps) is held until both end.
pub fn spawn_io<S: Send + Sync + 'static>(
    stream: TcpStream,
    conn: u64,
    limits: ConnectionLimits,
    slot: S,
    span: tracing::Span,
) -> (mpsc::Receiver<Inbound>, Outbox) {
    let _ = stream.set_nodelay(true);
    let (read, write) = stream.into_split();
    let (out_tx, out_rx) = mpsc::unbounded_channel();
    let (in_tx, in_rx) = mpsc::channel(32);
    let slot = Arc::new(slot);
    let queued = Arc::new(AtomicUsize::new(0));
    tokio::spawn(write_loop(write, out_rx, queued.clone(), slot.clone()).instrument(span.clone()));
    tokio::spawn(read_loop(read, in_tx, limits.frame, slot, conn).instrument(span));
    let outbox = Outbox {
        tx: out_tx,
        queued,
        limit: limits.write_queue_bytes,
    };
    (in_rx, outbox)
}

async fn write_loop<S>(
    mut write: OwnedWriteHalf,
    mut rx: mpsc::UnboundedReceiver<Arc<str>>,
    queued: Arc<AtomicUsize>,
    _slot: Arc<S>,
) {
    while let Some(line) = rx.recv().await {
        queued.fetch_sub(line.len(), Ordering::AcqRel);
        // A client that stops reading fills its socket buffer; do not wait for it forever.
        match tokio::time::timeout(WRITE_TIMEOUT, write.write_all(line.as_bytes())).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                tracing::debug!(error = %e, "write failed; closing");
                return;
            }
            Err(_) => {
                tracing::debug!("client not reading for {WRITE_TIMEOUT:?}; closing");
                return;
            }
        }
    }
    // Every sender is gone: the game or handshake is over. Say goodbye politely.
    let _ = tokio::time::timeout(WRITE_TIMEOUT, write.shutdown()).await;
}

async fn read_loop<S>(
    mut read: OwnedReadHalf,
    tx: mpsc::Sender<Inbound>,
    limits: FrameLimits,
    _slot: Arc<S>,
    conn: u64,
) {
    let mut scanner = FrameScanner::new(limits);
    let mut chunk = vec![0u8; 4096];
    loop {
        let n = tokio::select! {
            r = read.read(&mut chunk) => r,
            // Nobody listens any more (game over): stop reading.
            _ = tx.closed() => return,
        };
        let n = match n {
            Ok(0) | Err(_) => {
                if scanner.mid_frame() {
                    tracing::debug!(conn, "connection closed in the middle of a message");
                }
                let _ = tx.send(Inbound::Closed).await;
                return;
            }
            Ok(n) => n,
        };
        scanner.push(&chunk[..n]);
        while let Some(frame) = scanner.next_frame() {
            let inbound = match frame {
                Ok(bytes) => match ClientMessage::parse(&bytes) {
                    Ok(m) => Inbound::Message(m),
                    Err(e) => Inbound::Bad(e),
                },
                Err(e) => Inbound::Bad(frame_error(e)),
            };
            if tx.send(inbound).await.is_err() {
                return;
            }
        }
    }
}

fn frame_error(e: FrameError) -> MessageError {
    let code = match e {
        FrameError::TooLarge(_) => ErrorCode::TooLarge,
        FrameError::TooDeep(_) => ErrorCode::TooDeep,
        FrameError::Garbage(_) | FrameError::StrayClose => ErrorCode::Syntax,
    };
    MessageError {
        code,
        text: e.to_string(),
    }
}

/// Longest a single write to a client may take before the connection is dropped.
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);

/// The protocol version this server speaks.
pub const VERSION: &str = "1.0";

/// Runs the handshake: send `((version 1.0))`, then wait for `(init NAME SEED)`. A client
/// `(version 1.0)` and `(ext NAME ...)` before it, in the same message or not, are accepted; an
/// unknown extension name is answered with an `unknown` error and left out, and the handshake
/// goes on. Returns `None` when the client leaves, times out or speaks another version; it has
/// been told why.
pub async fn handshake(
    conn: u64,
    peer: std::net::SocketAddr,
    mut inbox: mpsc::Receiver<Inbound>,
    outbox: Outbox,
    timeout: Duration,
    shutdown: &tokio_util::sync::CancellationToken,
) -> Option<Player> {
    if outbox
        .send(&ServerMessage(vec![ServerClause::Version(VERSION.into())]))
        .is_err()
    {
        return None;
    }
    let deadline = tokio::time::Instant::now() + timeout;
    let mut ext = Extensions::NONE;
    loop {
        let received = tokio::select! {
            r = tokio::time::timeout_at(deadline, inbox.recv()) => r,
            _ = shutdown.cancelled() => {
                outbox.error(ErrorCode::Shutdown, "the server is shutting down");
                return None;
            }
        };
        let inbound = match received {
            Ok(Some(i)) => i,
            Ok(None) => return None,
            Err(_) => {
                outbox.error(
                    ErrorCode::Timeout,
                    format!("no (init NAME SEED) within {} ms", timeout.as_millis()),
                );
                return None;
            }
        };
        let msg = match inbound {
            Inbound::Closed => return None,
            Inbound::Bad(e) => {
                outbox.error(e.code, e.text);
                continue;
            }
            Inbound::Message(m) => m,
        };
        let mut init = None;
        for clause in msg.0 {
            match clause {
                ClientClause::Version(v) if v == VERSION => {}
                ClientClause::Version(v) => {
                    outbox.error(
                        ErrorCode::Version,
                        format!(
                            "this server speaks version {VERSION}, not {}",
                            crate::sexp::excerpt(&v)
                        ),
                    );
                    return None;
                }
                ClientClause::Init { name, seed } => init = Some((name, seed)),
                ClientClause::Ext(names) => {
                    for name in names {
                        match Extension::from_name(&name) {
                            Some(e) => ext.insert(e),
                            None => outbox.error(
                                ErrorCode::Unknown,
                                format!(
                                    "no extension is named {}; known: {}",
                                    crate::sexp::excerpt(&name),
                                    Extension::known_names()
                                ),
                            ),
                        }
                    }
                }
                other => outbox.error(
                    ErrorCode::Unexpected,
                    format!(
                        "{} before (init NAME SEED); the game has not started",
                        crate::sexp::excerpt(&other.to_string())
                    ),
                ),
            }
        }
        if let Some((name, seed)) = init {
            tracing::Span::current().record("name", name.as_str());
            return Some(Player {
                conn,
                peer,
                name,
                seed,
                ext,
                inbox,
                outbox,
            });
        }
    }
}
