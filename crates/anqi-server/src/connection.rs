//! One client connection: a reader task that turns bytes into typed messages, a writer task that
//! sends whole messages, and the [`Player`] a connection becomes once its handshake (see
//! `handshake`) is done.
//!
//! The reader task owns the socket's read half and hands messages on through a channel. Senders
//! write to the socket directly while it takes their bytes at once, and queue for the writer
//! task otherwise, so a slow or silent client never blocks a game or another connection.

use anqi_core::wire::{
    ClientMessage, ErrorCode, Extensions, FrameError, FrameLimits, FrameReader, MessageError,
    ServerClause, ServerMessage,
};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tracing::Instrument;

/// What the reader task hands on.
#[derive(Debug)]
pub enum Inbound {
    /// A well-formed message, and when its last byte was read: a clock charges the mover up to
    /// that moment, not up to when the referee got to it, so a busy server costs nobody time.
    Message(ClientMessage, ReadAt),
    /// Bytes that are not a message, the error reply it deserves, and when it was read.
    Bad(Box<MessageError>, ReadAt),
    /// The client closed the connection (or it broke).
    Closed,
}

/// When a message was read from its socket, in 8 bytes rather than an `Instant`'s 16: every
/// connection's inbox allocates room for 32 messages at once, so the size of [`Inbound`] is
/// memory per connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ReadAt(u64);

/// What [`ReadAt`] counts from: the first time any message was read.
static READ_EPOCH: std::sync::OnceLock<tokio::time::Instant> = std::sync::OnceLock::new();

impl ReadAt {
    /// Now.
    pub fn now() -> ReadAt {
        ReadAt::from_instant(tokio::time::Instant::now())
    }

    /// The moment `at` (not before the epoch: earlier moments count as the epoch).
    pub fn from_instant(at: tokio::time::Instant) -> ReadAt {
        let epoch = *READ_EPOCH.get_or_init(|| at);
        ReadAt(at.saturating_duration_since(epoch).as_nanos() as u64)
    }

    /// The moment as an `Instant`.
    pub fn instant(self) -> tokio::time::Instant {
        let epoch = *READ_EPOCH.get_or_init(tokio::time::Instant::now);
        epoch + std::time::Duration::from_nanos(self.0)
    }
}

/// The sending side of a connection. Cloning is cheap; messages are shared `Arc<str>` lines.
///
/// A message is written straight to the socket by whoever sends it when nothing is queued
/// before it and the socket takes it whole (the common case: a prompt is a few dozen bytes), so
/// a ply costs no wake-up of another task. Whatever the socket does not take at once is queued
/// for the connection's writer task, which waits until the client reads.
///
/// The queue is bounded in bytes, not in messages: a client that does not read pins at most
/// `write_queue_bytes` of memory, however long the messages it is sent.
#[derive(Clone, Debug)]
pub struct Outbox {
    sink: Sink,
}

#[derive(Clone, Debug)]
enum Sink {
    /// A real connection.
    Socket(Arc<Sender>),
    /// Lines handed to a channel: local players (`door`), unit tests' players, and the closed
    /// stand-in of an absent seat (its receiver is dropped).
    Channel(mpsc::UnboundedSender<Arc<str>>),
}

/// The client cannot take more messages: it is gone, or not reading.
#[derive(Debug)]
pub struct Gone;

impl Outbox {
    /// Sends one line without waiting: written now, or queued behind what is queued.
    ///
    /// # Errors
    /// [`Gone`] when the connection is closed or its write queue is full.
    pub fn send_line(&self, line: Arc<str>) -> Result<(), Gone> {
        match &self.sink {
            Sink::Socket(sender) => sender.side.send(line),
            Sink::Channel(tx) => tx.send(line).map_err(|_| Gone),
        }
    }

    /// Sends one message.
    ///
    /// # Errors
    /// As [`Outbox::send_line`].
    pub fn send(&self, msg: &ServerMessage) -> Result<(), Gone> {
        self.send_line(msg.to_line().into())
    }

    /// Sends an `((error CODE "text"))` message, ignoring a gone client.
    pub fn error(&self, code: ErrorCode, text: impl Into<String>) {
        let _ = self.send(&ServerMessage(vec![ServerClause::Error(code, text.into())]));
    }

    /// An outbox whose lines go to a channel: a local player's (`door`).
    pub(crate) fn channel(tx: mpsc::UnboundedSender<Arc<str>>) -> Outbox {
        Outbox {
            sink: Sink::Channel(tx),
        }
    }

    /// An outbox whose connection is closed.
    fn closed() -> Outbox {
        let (tx, _) = mpsc::unbounded_channel();
        Outbox {
            sink: Sink::Channel(tx),
        }
    }
}

/// What every [`Outbox`] clone of one connection shares. When the last clone is dropped, the
/// writer task is told: it writes what is still queued and then closes the connection's
/// sending direction (the game or handshake is over).
#[derive(Debug)]
struct Sender {
    side: Arc<WriteSide>,
}

impl Drop for Sender {
    fn drop(&mut self) {
        self.side.state().senders_gone = true;
        self.side.wake_writer.notify_one();
    }
}

/// The writing half of a connection, shared by its senders and its writer task. Dropping the
/// last reference drops the socket's write half, which shuts its sending direction down.
#[derive(Debug)]
struct WriteSide {
    socket: OwnedWriteHalf,
    queue: std::sync::Mutex<WriteQueue>,
    /// Woken when the queue gets its first line, and when the last sender is gone.
    wake_writer: tokio::sync::Notify,
    limit: usize,
}

#[derive(Debug, Default)]
struct WriteQueue {
    /// Lines not yet written, oldest first; the first may be partly written already.
    lines: std::collections::VecDeque<Arc<str>>,
    /// Bytes of the first line already written.
    written: usize,
    /// Bytes in `lines` not yet written.
    bytes: usize,
    /// A write failed or timed out: the connection is dead, sending is refused.
    broken: bool,
    senders_gone: bool,
}

impl WriteSide {
    fn state(&self) -> std::sync::MutexGuard<'_, WriteQueue> {
        // Nothing panics while holding the lock; a poisoned lock still holds a usable queue.
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn send(&self, line: Arc<str>) -> Result<(), Gone> {
        let mut q = self.state();
        if q.broken {
            return Err(Gone);
        }
        let mut written = 0;
        if q.lines.is_empty() {
            // Nothing is queued before it, so writing now keeps the order.
            match self.socket.try_write(line.as_bytes()) {
                Ok(n) if n == line.len() => return Ok(()),
                Ok(n) => written = n,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(e) => {
                    tracing::debug!(error = %e, "write failed; closing");
                    q.broken = true;
                    return Err(Gone);
                }
            }
        }
        let rest = line.len() - written;
        if q.bytes + rest > self.limit {
            // Too much unread: the client is not reading. A partly written line cannot be
            // taken back, so the connection is broken from here on.
            if written > 0 {
                q.broken = true;
            }
            return Err(Gone);
        }
        if q.lines.is_empty() {
            q.written = written;
            self.wake_writer.notify_one();
        }
        q.bytes += rest;
        q.lines.push_back(line);
        Ok(())
    }

    /// The writer task: writes what the senders queued, when the client reads. Ends when the
    /// connection breaks, or when every sender is gone and the queue is empty.
    async fn run_writer(self: Arc<Self>) {
        loop {
            let next = {
                let q = self.state();
                match q.lines.front() {
                    Some(line) => Some((line.clone(), q.written)),
                    None if q.senders_gone || q.broken => return,
                    None => None,
                }
            };
            let Some((line, from)) = next else {
                self.wake_writer.notified().await;
                continue;
            };
            match tokio::time::timeout(WRITE_TIMEOUT, self.write_from(&line, from)).await {
                Ok(Ok(())) => {
                    let mut q = self.state();
                    q.bytes -= line.len() - from;
                    q.written = 0;
                    q.lines.pop_front();
                }
                Ok(Err(e)) => {
                    tracing::debug!(error = %e, "write failed; closing");
                    return self.break_off();
                }
                Err(_) => {
                    // A client that stops reading fills its socket buffer; do not wait for it
                    // forever.
                    tracing::debug!("client not reading for {WRITE_TIMEOUT:?}; closing");
                    return self.break_off();
                }
            }
        }
    }

    /// Writes `line` from byte `from` on, recording progress so a sender never writes while a
    /// line is partly out.
    async fn write_from(&self, line: &str, mut from: usize) -> std::io::Result<()> {
        while from < line.len() {
            self.socket.writable().await?;
            match self.socket.try_write(&line.as_bytes()[from..]) {
                Ok(n) => {
                    from += n;
                    self.state().written = from;
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    fn break_off(&self) {
        let mut q = self.state();
        q.broken = true;
        q.lines.clear();
        q.bytes = 0;
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
    /// Told the game's number when the player is seated: a local player's (`door`), which
    /// has no other way to learn which game it plays.
    pub seated: Option<tokio::sync::oneshot::Sender<u64>>,
    /// The secret of a `(rejoin "SECRET")` handshake: this connection comes back for a seat
    /// in a game under way, not for a new game.
    pub rejoin: Option<String>,
    /// Its place among the seated under the server's crowd limits (seats per network, and
    /// making room on a full server before its first action), held until its game is over;
    /// `None` where those limits do not apply (a tournament's engines, local players).
    pub ticket: Option<crate::limits::SeatTicket>,
    /// A local player's way to abort its game before any ply is played (a person's "abort"
    /// on the web pages): cancelled on its own first turn of a game with no ply yet, the
    /// referee aborts the game, with no result. `None` for connections.
    pub abort: Option<tokio_util::sync::CancellationToken>,
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
    /// Lets the player's connection go (its seat is kept for a return): what it sends is no
    /// longer read, and it is closed once what was queued for it is written.
    pub(crate) fn let_go(&mut self) {
        let (_, inbox) = mpsc::channel(1);
        self.inbox = inbox;
        self.outbox = Outbox::closed();
    }

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
            seated: None,
            rejoin: None,
            ticket: None,
            abort: None,
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
                sink: Sink::Channel(tx),
            },
            seated: None,
            rejoin: None,
            ticket: None,
            abort: None,
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
    let (in_tx, in_rx) = mpsc::channel(32);
    let slot = Arc::new(slot);
    let side = Arc::new(WriteSide {
        socket: write,
        queue: std::sync::Mutex::new(WriteQueue::default()),
        wake_writer: tokio::sync::Notify::new(),
        limit: limits.write_queue_bytes,
    });
    let writer_slot = slot.clone();
    let writer = side.clone();
    tokio::spawn(
        async move {
            writer.run_writer().await;
            drop(writer_slot);
        }
        .instrument(span.clone()),
    );
    tokio::spawn(read_loop(read, in_tx, limits.frame, slot, conn).instrument(span));
    let outbox = Outbox {
        sink: Sink::Socket(Arc::new(Sender { side })),
    };
    (in_rx, outbox)
}

async fn read_loop<S>(
    read: OwnedReadHalf,
    tx: mpsc::Sender<Inbound>,
    limits: FrameLimits,
    _slot: Arc<S>,
    conn: u64,
) {
    let mut reader = FrameReader::new(read, limits);
    // The time the bytes of the frames in hand were read: the clock stops then, however long
    // the referee's queue makes them wait.
    let (mut read_at, mut reads) = (ReadAt::now(), reader.reads());
    loop {
        let got = tokio::select! {
            r = reader.read_frame() => r,
            // Nobody listens any more (game over): stop reading.
            _ = tx.closed() => return,
        };
        let frame = match got {
            Ok(Some(frame)) => frame,
            // End of stream, or a broken connection.
            Ok(None) | Err(_) => {
                if reader.mid_frame() {
                    tracing::debug!(conn, "connection closed in the middle of a message");
                }
                let _ = tx.send(Inbound::Closed).await;
                return;
            }
        };
        if reader.reads() != reads {
            (read_at, reads) = (ReadAt::now(), reader.reads());
        }
        let inbound = match frame {
            Ok(bytes) => match ClientMessage::parse(&bytes) {
                Ok(m) => Inbound::Message(m, read_at),
                Err(e) => Inbound::Bad(Box::new(e), read_at),
            },
            Err(e) => Inbound::Bad(Box::new(frame_error(e)), read_at),
        };
        if tx.send(inbound).await.is_err() {
            return;
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

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;
    use tokio::net::TcpListener;

    const LIMITS: ConnectionLimits = ConnectionLimits {
        frame: FrameLimits {
            max_bytes: 4096,
            max_depth: 8,
        },
        write_queue_bytes: 1 << 20,
        handshake_timeout: Duration::from_secs(5),
    };

    /// A server-side outbox and the client's end of the same loopback connection.
    async fn connected(limits: ConnectionLimits) -> (Outbox, mpsc::Receiver<Inbound>, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (server, _) = listener.accept().await.unwrap();
        let (inbox, outbox) = spawn_io(server, 0, limits, (), tracing::Span::none());
        (outbox, inbox, client)
    }

    /// Every connection's inbox allocates 32 slots at once: their size is memory per
    /// connection (issue 10, S3).
    #[test]
    fn an_inbound_message_stays_small() {
        assert!(
            std::mem::size_of::<Inbound>() <= 32,
            "{}",
            std::mem::size_of::<Inbound>()
        );
    }

    #[test]
    fn read_moments_keep_their_order_and_their_time() {
        // Moments from now on (another test may have started the epoch a moment ago).
        let ra = ReadAt::now();
        let rb = ReadAt::from_instant(ra.instant() + Duration::from_millis(3));
        assert!(ra < rb);
        assert_eq!(rb.instant() - ra.instant(), Duration::from_millis(3));
    }

    #[tokio::test]
    async fn lines_arrive_whole_and_in_order_when_the_client_reads_late() {
        let (outbox, _inbox, mut client) = connected(LIMITS).await;
        // Far more than the kernel's socket buffers take: most of it waits in the queue, and
        // some lines go out in pieces.
        let lines: Vec<String> = (0..400)
            .map(|i| format!("(({} {i}))\n", "x".repeat(i * 7 % 3000)))
            .collect();
        for line in &lines {
            outbox.send_line(line.as_str().into()).unwrap();
        }
        drop(outbox);
        let mut got = String::new();
        client.read_to_string(&mut got).await.unwrap();
        assert_eq!(
            got,
            lines.concat(),
            "every byte, in order, then end of stream"
        );
    }

    #[tokio::test]
    async fn a_client_that_does_not_read_is_gone_past_the_queue_limit() {
        let limits = ConnectionLimits {
            write_queue_bytes: 65_536,
            ..LIMITS
        };
        let (outbox, _inbox, _client) = connected(limits).await;
        let line: Arc<str> = format!("({})\n", "y".repeat(8_000)).into();
        let mut sent = 0usize;
        while outbox.send_line(line.clone()).is_ok() {
            sent += line.len();
            assert!(sent < 64 << 20, "the queue never filled");
        }
        // The kernel's buffers and the queue took some; the limit stopped the rest.
        assert!(sent >= 65_536, "only {sent} bytes before the refusal");
    }

    #[tokio::test]
    async fn messages_read_in_any_pieces_come_out_whole() {
        use tokio::io::AsyncWriteExt;
        let (_outbox, mut inbox, mut client) = connected(LIMITS).await;
        for piece in ["((ini", "t a 1))\n((re", "v 3))\n"] {
            client.write_all(piece.as_bytes()).await.unwrap();
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        drop(client);
        let mut got = Vec::new();
        while let Some(i) = inbox.recv().await {
            got.push(format!("{i:?}"));
        }
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(got[0].contains("Init"), "{got:?}");
        assert!(got[1].contains("Rev"), "{got:?}");
        assert_eq!(got[2], "Closed");
    }
}
