//! A watching relay between the engine under check and the event's server: the engine is told
//! the relay's address instead of the server's, every byte goes through unchanged, and the
//! relay keeps the last lines each way, so that a failed item shows the exchange that failed
//! (what the referee's record cannot: the engine's own words). It also sees whether the
//! engine asked for the `rejoin` extension, and can cut its first connection to make it
//! rejoin.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// The most lines kept of the exchange (both ways together).
const KEPT_LINES: usize = 12;

/// The longest line kept whole; longer ones are cut (setup messages run to kilobytes).
const LINE_CHARS: usize = 200;

/// What the relay saw.
#[derive(Debug, Default)]
pub(crate) struct Seen {
    /// The last lines of each connection, in the order they were opened: `engine> ...`
    /// (engine to server) or `server> ...`.
    pub lines: Vec<VecDeque<String>>,
    /// The extensions the engine asked for in its first handshake (`(ext NAME ...)`).
    pub extensions: Vec<String>,
    /// The server's refusal of an extension the engine asked for, as sent.
    pub refused_extension: Option<String>,
    /// Whether the engine asked for `rejoin` in a handshake.
    pub asked_rejoin: bool,
    /// Connections the engine opened.
    pub connections: u32,
    /// Whether the relay cut a connection (the rejoin item).
    pub cut: bool,
}

/// A relay listening on 127.0.0.1; it stops when dropped.
pub(crate) struct Proxy {
    pub addr: SocketAddr,
    pub seen: Arc<Mutex<Seen>>,
    stop: CancellationToken,
    task: JoinHandle<()>,
}

impl Proxy {
    /// Relays every connection made to it to `upstream`, the server's address once it
    /// listens (a connection made before is closed). With `cut_after` set, the first
    /// connection of an engine that asked for `rejoin` is closed after its `cut_after`th
    /// action, once.
    ///
    /// # Errors
    /// When no port can be bound on 127.0.0.1.
    pub async fn start(
        upstream: Arc<std::sync::OnceLock<SocketAddr>>,
        cut_after: Option<u32>,
    ) -> std::io::Result<Proxy> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let seen = Arc::new(Mutex::new(Seen::default()));
        let stop = CancellationToken::new();
        let (seen2, stop2) = (seen.clone(), stop.clone());
        let task = tokio::spawn(async move {
            loop {
                let accepted = tokio::select! {
                    _ = stop2.cancelled() => return,
                    a = listener.accept() => a,
                };
                let Ok((engine, _)) = accepted else { continue };
                // Engines start once the server listens; a connection before has nowhere to go.
                let Some(&upstream) = upstream.get() else {
                    continue;
                };
                let connection = {
                    let mut s = seen2.lock().expect("not poisoned");
                    s.connections += 1;
                    s.lines.push(VecDeque::new());
                    s.lines.len() - 1
                };
                let cut = if connection == 0 { cut_after } else { None };
                let seen = seen2.clone();
                tokio::spawn(relay(
                    engine,
                    upstream,
                    (seen, connection),
                    cut,
                    stop2.clone(),
                ));
            }
        });
        Ok(Proxy {
            addr,
            seen,
            stop,
            task,
        })
    }

    /// The last lines of the exchange on `connection` (0: the first one opened), oldest
    /// first; every connection's, one after the other, when `None`.
    pub fn exchange(&self, connection: Option<usize>) -> Vec<String> {
        let seen = self.seen.lock().expect("not poisoned");
        match connection {
            Some(i) => seen.lines.get(i).into_iter().flatten().cloned().collect(),
            None => seen.lines.iter().flatten().cloned().collect(),
        }
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop.cancel();
        self.task.abort();
    }
}

/// One engine connection, relayed both ways until either side closes (or the cut).
async fn relay(
    engine: TcpStream,
    upstream: SocketAddr,
    seen: (Arc<Mutex<Seen>>, usize),
    cut_after: Option<u32>,
    stop: CancellationToken,
) {
    let Ok(server) = TcpStream::connect(upstream).await else {
        return;
    };
    let (er, ew) = engine.into_split();
    let (sr, sw) = server.into_split();
    // The engine's side decides the cut: it counts the engine's actions.
    let cut = CancellationToken::new();
    let up = pump(er, sw, "engine> ", seen.clone(), cut_after, cut.clone());
    let down = pump(sr, ew, "server> ", seen, None, cut.clone());
    tokio::select! {
        _ = async { tokio::join!(up, down) } => {}
        _ = cut.cancelled() => {}
        _ = stop.cancelled() => {}
    }
}

/// Copies `from` to `to`, keeping each line in `seen`; with `cut_after`, cancels `cut` after
/// that many actions of an engine that asked for `rejoin`.
async fn pump(
    mut from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    tag: &'static str,
    (seen, connection): (Arc<Mutex<Seen>>, usize),
    cut_after: Option<u32>,
    cut: CancellationToken,
) {
    let mut buf = vec![0u8; 16 * 1024];
    let mut line = Vec::new();
    let mut actions = 0;
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if to.write_all(&buf[..n]).await.is_err() {
            break;
        }
        for &b in &buf[..n] {
            if b != b'\n' {
                line.push(b);
                continue;
            }
            let text = String::from_utf8_lossy(&line).trim_end().to_string();
            line.clear();
            let mut s = seen.lock().expect("not poisoned");
            if tag.starts_with("engine") && text.contains("(ext") && text.contains("rejoin") {
                s.asked_rejoin = true;
            }
            if tag.starts_with("server") && text.contains("no extension is named") {
                s.refused_extension.get_or_insert(text.clone());
            }
            if tag.starts_with("engine") && s.extensions.is_empty() {
                s.extensions = asked_extensions(&text);
            }
            if is_action(&text) {
                actions += 1;
            }
            keep(&mut s.lines[connection], format!("{tag}{}", shorten(&text)));
            if cut_after.is_some_and(|n| actions >= n) && s.asked_rejoin && !s.cut {
                s.cut = true;
                let note = "(the check closed this connection: rejoin now)".to_string();
                keep(&mut s.lines[connection], note);
                cut.cancel();
                return;
            }
        }
    }
    let _ = to.shutdown().await;
}

/// The names of a message's `(ext NAME ...)` clause, if it has one.
fn asked_extensions(text: &str) -> Vec<String> {
    let Some(start) = text.find("(ext ") else {
        return Vec::new();
    };
    let rest = &text[start + "(ext ".len()..];
    let end = rest.find(')').unwrap_or(rest.len());
    rest[..end].split_whitespace().map(str::to_string).collect()
}

/// Whether an engine's message is an action (not a handshake).
fn is_action(text: &str) -> bool {
    ["(rev ", "(mov ", "(put ", "(bag)"]
        .iter()
        .any(|a| text.contains(a))
}

fn keep(lines: &mut VecDeque<String>, line: String) {
    if lines.len() == KEPT_LINES {
        lines.pop_front();
    }
    lines.push_back(line);
}

/// `text`, cut to [`LINE_CHARS`] characters with `...`.
fn shorten(text: &str) -> String {
    match text.char_indices().nth(LINE_CHARS) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extensions_asked_for_are_read_from_the_handshake() {
        let hello = "((version 1.0)(init me 42)(ext last variant rejoin))";
        assert_eq!(asked_extensions(hello), ["last", "variant", "rejoin"]);
        assert!(asked_extensions("((init me 42))").is_empty());
    }

    #[test]
    fn actions_are_told_from_handshakes_and_long_lines_are_cut() {
        assert!(is_action("((board XXXX)(rev 3))"));
        assert!(is_action("((bag))"));
        assert!(!is_action("((init me 42)(ext rejoin))"));
        let long = "x".repeat(LINE_CHARS + 10);
        assert_eq!(shorten(&long).chars().count(), LINE_CHARS + 3);
        assert_eq!(shorten("short"), "short");
    }
}
