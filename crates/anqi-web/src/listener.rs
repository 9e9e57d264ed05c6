//! The HTTP listener: connections within `[http]`'s caps, each with a bounded send buffer.
//!
//! Past a cap, a connection gets `503 Service Unavailable` with the reason and is closed, as
//! the game server answers `busy` (`serve` first lets the connection that has waited longest
//! for a request's header go, when the cap in all is reached). The send buffer is fixed (the
//! kernel's automatic sizing would let one page that does not read hold megabytes), so a page
//! that stops reading soon blocks its own feed, falls behind and is dropped (`live`).
//!
//! A plain HTTP connection with nothing read or written for `[http] idle_timeout_ms` is closed
//! (hyper keeps a keep-alive connection open for as long as the client does, and each one
//! holds a place under the caps), whether it waits to read or to write (pipelined requests
//! whose answers the client does not read). A WebSocket is not: a live feed may be quiet for
//! as long as a player thinks, and its end is `live`'s business (and `play`'s pings). Only a
//! connection's first answer is looked at: browsers open a WebSocket on a connection of its
//! own.

use anqi_server::limits::{Refusal, Slot};
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

/// Bytes the kernel holds for one HTTP connection's unsent data.
const SEND_BUFFER_BYTES: usize = 64 * 1024;

/// Binds `addr` (the socket is handed to the pages' runtime by [`accept`]'s caller).
///
/// # Errors
/// When the address cannot be bound.
pub fn bind(addr: &str) -> io::Result<std::net::TcpListener> {
    let listener = std::net::TcpListener::bind(addr)?;
    listener.set_nonblocking(true)?;
    Ok(listener)
}

/// The next connection, its send buffer fixed.
pub async fn accept(listener: &TcpListener) -> (TcpStream, SocketAddr) {
    loop {
        match listener.accept().await {
            Ok((stream, peer)) => {
                let sock = socket2::SockRef::from(&stream);
                let _ = sock.set_send_buffer_size(SEND_BUFFER_BYTES);
                let _ = stream.set_nodelay(true);
                return (stream, peer);
            }
            Err(e) => {
                // Out of descriptors, or a connection reset before it was taken: wait a
                // moment rather than spin.
                tracing::debug!(error = %e, "web: accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

/// A connection and its place under the caps, given back when it closes.
pub struct Capped {
    stream: TcpStream,
    _slot: Slot,
    /// Closes a plain HTTP connection once nothing has moved on it for `idle`.
    idle: Duration,
    deadline: Pin<Box<tokio::time::Sleep>>,
    /// Whether the connection became a WebSocket (its first answer was `101`): no idle limit.
    upgraded: bool,
    /// Whether anything was written yet (the first answer's status line says `upgraded`).
    answered: bool,
}

impl Capped {
    /// A connection admitted under the caps, closed once nothing moves on it for `idle`
    /// while it is plain HTTP.
    pub fn new(stream: TcpStream, slot: Slot, idle: Duration) -> Capped {
        Capped {
            stream,
            _slot: slot,
            idle,
            deadline: Box::pin(tokio::time::sleep(idle)),
            upgraded: false,
            answered: false,
        }
    }

    /// Something moved: the idle limit counts from now.
    fn active(&mut self) {
        if !self.upgraded {
            let at = tokio::time::Instant::now() + self.idle;
            self.deadline.as_mut().reset(at);
        }
    }
}

/// Answers a connection over a cap with `503` and its reason, and closes it.
pub async fn refuse(mut stream: TcpStream, refusal: Refusal) {
    use tokio::io::AsyncWriteExt;
    let body = format!("{refusal}\n");
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\nretry-after: 5\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = tokio::time::timeout(
        Duration::from_secs(1),
        stream.write_all(response.as_bytes()),
    )
    .await;
    let _ = stream.shutdown().await;
}

impl AsyncRead for Capped {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        match Pin::new(&mut self.stream).poll_read(cx, buf) {
            Poll::Ready(Ok(())) if buf.filled().len() > before => {
                self.active();
                Poll::Ready(Ok(()))
            }
            Poll::Pending if !self.upgraded && self.deadline.as_mut().poll(cx).is_ready() => {
                // Idle for too long: the end of the input, and hyper closes the connection.
                Poll::Ready(Ok(()))
            }
            other => other,
        }
    }
}

impl Capped {
    /// The first bytes written say whether the connection became a WebSocket (`101`).
    fn note_first_answer(&mut self, bytes: &[u8]) {
        if !self.answered && !bytes.is_empty() {
            self.answered = true;
            self.upgraded = bytes.starts_with(b"HTTP/1.1 101");
        }
    }

    /// A write that waits (the client reads nothing) past the idle limit fails: hyper may be
    /// writing pipelined answers and not reading, so the read side alone would never notice.
    fn write_waited_too_long(&mut self, cx: &mut Context<'_>) -> bool {
        !self.upgraded && self.deadline.as_mut().poll(cx).is_ready()
    }
}

fn idle_error() -> io::Error {
    io::Error::new(
        io::ErrorKind::TimedOut,
        "nothing moved on the connection for idle_timeout_ms",
    )
}

impl AsyncWrite for Capped {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.note_first_answer(buf);
        let written = Pin::new(&mut self.stream).poll_write(cx, buf);
        if matches!(written, Poll::Ready(Ok(n)) if n > 0) {
            self.active();
        }
        if written.is_pending() && self.write_waited_too_long(cx) {
            return Poll::Ready(Err(idle_error()));
        }
        written
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let flushed = Pin::new(&mut self.stream).poll_flush(cx);
        if flushed.is_pending() && self.write_waited_too_long(cx) {
            return Poll::Ready(Err(idle_error()));
        }
        flushed
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if let Some(first) = bufs.iter().find(|b| !b.is_empty()) {
            self.note_first_answer(first);
        }
        let written = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        if matches!(written, Poll::Ready(Ok(n)) if n > 0) {
            self.active();
        }
        if written.is_pending() && self.write_waited_too_long(cx) {
            return Poll::Ready(Err(idle_error()));
        }
        written
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

/// The address a request came from (the routes that count per client network read it, as
/// `ConnectInfo<Peer>`).
#[derive(Clone, Copy, Debug)]
pub struct Peer(pub SocketAddr);
