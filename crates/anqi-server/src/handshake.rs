//! The handshake that turns a connection into a [`Player`]: the server says its version, and
//! the client says who it is (`(init NAME SEED)`), which extensions it wants (`(ext NAME
//! ...)`), or which seat it comes back for (`(rejoin "SECRET")`), within the handshake timeout.
//!
//! A message that is not one, a refused NAME, an unknown extension or a clause out of place is
//! answered, and the handshake goes on. It ends without a player when the client speaks
//! another version, leaves or times out, or when the server shuts down or needs its place; the
//! client is told why, when it is there to tell.

use crate::connection::{Inbound, Outbox, Player};
use crate::metrics::Refused;
use anqi_core::wire::{
    check_name, ClientClause, ClientMessage, ErrorCode, Extension, Extensions, NameError,
    ServerClause, ServerMessage,
};
use std::time::Duration;
use tokio::sync::mpsc;

/// The protocol version this server speaks.
pub const VERSION: &str = "1.0";

/// How many unknown extension names one error reply names.
const SHOWN_MISTAKES: usize = 5;

/// ` (and N more)` when `shown` of `count` mistakes were named.
fn more(count: usize, shown: usize) -> String {
    if count > shown {
        format!(" (and {} more)", count - shown)
    } else {
        String::new()
    }
}

/// What a client whose NAME is refused for `e` is told.
fn name_refusal(e: NameError, name: &str) -> String {
    match e {
        // A name too long holds nothing unfit to quote (that is checked first).
        NameError::TooLong(_) => format!("{e}: {}", anqi_core::sexp::excerpt(name)),
        // Not quoted: the character refused would be sent back.
        NameError::Unfit { .. } => e.to_string(),
    }
}

/// Runs the handshake: send `((version 1.0))`, then wait for `(init NAME SEED)`. A client
/// `(version 1.0)` and `(ext NAME ...)` before it, in the same message or not, are accepted; an
/// unknown extension name is answered with an `unknown` error and left out, and the handshake
/// goes on. Ends without a player when the client leaves, times out, speaks another version or
/// has to make room (`evicted`: the server is full and this is the oldest connection still in
/// its handshake); it has been told why.
pub async fn handshake(
    conn: u64,
    peer: std::net::SocketAddr,
    inbox: mpsc::Receiver<Inbound>,
    outbox: Outbox,
    timeout: Duration,
    shutdown: &tokio_util::sync::CancellationToken,
    evicted: &tokio_util::sync::CancellationToken,
) -> Result<Player, NoPlayer> {
    if outbox
        .send(&ServerMessage(vec![ServerClause::Version(VERSION.into())]))
        .is_err()
    {
        return Err(NoPlayer::Left);
    }
    let mut handshake = Handshake {
        conn,
        peer,
        inbox,
        outbox,
        deadline: tokio::time::Instant::now() + timeout,
        timeout,
        ext: Extensions::NONE,
        name_logged: false,
    };
    loop {
        let msg = handshake.next_message(shutdown, evicted).await?;
        match handshake.read_message(msg) {
            Progress::Waiting => {}
            Progress::Refused => return Err(NoPlayer::Refused(Refused::Version)),
            Progress::Introduced { name, seed, rejoin } => {
                return Ok(handshake.into_player(name, seed, rejoin));
            }
        }
    }
}

/// Why a handshake ended without a player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoPlayer {
    /// The client left (closed its connection).
    Left,
    /// The server turned it away, and told it why.
    Refused(Refused),
}

/// One connection's handshake under way: the connection, and what its messages have said so
/// far (the extensions granted; whether a refused NAME was logged).
struct Handshake {
    conn: u64,
    peer: std::net::SocketAddr,
    inbox: mpsc::Receiver<Inbound>,
    outbox: Outbox,
    /// When the `(init NAME SEED)` is due, whatever came before it.
    deadline: tokio::time::Instant,
    /// The time the handshake is given in all, for the `timeout` error's text.
    timeout: Duration,
    ext: Extensions,
    /// Whether a refused NAME was logged: the first is, the others are only answered.
    name_logged: bool,
}

/// Where one message leaves a handshake.
enum Progress {
    /// No `(init NAME SEED)` yet: the handshake waits for another message.
    Waiting,
    /// The client said who it is (or, with `(rejoin "SECRET")` alone, which seat it comes
    /// back for: then NAME and SEED are empty).
    Introduced {
        name: String,
        seed: String,
        rejoin: Option<String>,
    },
    /// The client speaks another version; it has been told.
    Refused,
}

impl Handshake {
    /// The next well-formed message, bytes that are not one answered on the way; or why there
    /// is none: the client left, the deadline passed, the server shuts down or this connection
    /// makes room (the client has been told why when it is there to tell). Every branch of the
    /// `select!` is safe to drop: a message not received stays in the inbox.
    async fn next_message(
        &mut self,
        shutdown: &tokio_util::sync::CancellationToken,
        evicted: &tokio_util::sync::CancellationToken,
    ) -> Result<ClientMessage, NoPlayer> {
        loop {
            let received = tokio::select! {
                r = tokio::time::timeout_at(self.deadline, self.inbox.recv()) => r,
                _ = shutdown.cancelled() => {
                    self.outbox.error(ErrorCode::Shutdown, "the server is shutting down");
                    return Err(NoPlayer::Refused(Refused::Shutdown));
                }
                _ = evicted.cancelled() => {
                    self.outbox.error(
                        ErrorCode::Busy,
                        "the server is full, and the connection that has waited longest without sending its (init NAME SEED) makes room for a new one; send it at once",
                    );
                    return Err(NoPlayer::Refused(Refused::MadeRoom));
                }
            };
            let inbound = match received {
                Ok(Some(i)) => i,
                Ok(None) => return Err(NoPlayer::Left),
                Err(_) => {
                    self.outbox.error(
                        ErrorCode::Timeout,
                        format!("no (init NAME SEED) within {} ms", self.timeout.as_millis()),
                    );
                    return Err(NoPlayer::Refused(Refused::HandshakeTimeout));
                }
            };
            match inbound {
                Inbound::Closed => return Err(NoPlayer::Left),
                Inbound::Bad(e, _) => self.outbox.error(e.code, e.text),
                Inbound::Message(m, _) => return Ok(m),
            }
        }
    }

    /// Reads one message's clauses in order: the version (another one ends the handshake at
    /// once), NAME and SEED, a rejoin secret, extensions; anything else is a mistake. The
    /// mistakes are answered after the last clause.
    fn read_message(&mut self, msg: ClientMessage) -> Progress {
        let mut init = None;
        let mut rejoin = None;
        let mut mistakes = Mistakes::default();
        for clause in msg.0 {
            match clause {
                ClientClause::Version(v) if v == VERSION => {}
                ClientClause::Version(v) => {
                    self.outbox.error(
                        ErrorCode::Version,
                        format!(
                            "this server speaks version {VERSION}, not {}",
                            anqi_core::sexp::excerpt(&v)
                        ),
                    );
                    return Progress::Refused;
                }
                ClientClause::Init { name, seed } => {
                    if self.name_accepted(&name) {
                        init = Some((name, seed));
                    }
                }
                ClientClause::Rejoin(secret) => rejoin = Some(secret),
                ClientClause::Ext(names) => {
                    for name in names {
                        match Extension::from_name(&name) {
                            Some(e) => self.ext.insert(e),
                            None => mistakes.unknown_extension(&name),
                        }
                    }
                }
                other => mistakes.unexpected(other),
            }
        }
        mistakes.answer(&self.outbox);
        // A connection coming back for its seat needs no (init ...): the seat has a name.
        if rejoin.is_some() && init.is_none() {
            init = Some((String::new(), String::new()));
        }
        match init {
            Some((name, seed)) => Progress::Introduced { name, seed, rejoin },
            None => Progress::Waiting,
        }
    }

    /// Whether NAME can be a player's name; if not, the client is told why (and the first
    /// refused NAME of the connection is logged).
    fn name_accepted(&mut self, name: &str) -> bool {
        match check_name(name) {
            Ok(()) => true,
            Err(e) => {
                if !std::mem::replace(&mut self.name_logged, true) {
                    // Client text goes to logs escaped (`?`): the name refused may hold a
                    // line break, which must not forge a log line.
                    tracing::debug!(name = ?anqi_core::sexp::excerpt(name), error = %e, "refused a NAME");
                }
                self.outbox.error(ErrorCode::Syntax, name_refusal(e, name));
                false
            }
        }
    }

    /// The player the handshake made, its NAME recorded in the connection's span.
    fn into_player(self, name: String, seed: String, rejoin: Option<String>) -> Player {
        tracing::Span::current().record("name", name.as_str());
        Player {
            conn: self.conn,
            peer: self.peer,
            name,
            seed,
            ext: self.ext,
            inbox: self.inbox,
            outbox: self.outbox,
            seated: None,
            rejoin,
            ticket: None,
            abort: None,
        }
    }
}

/// The mistakes of one handshake message, counted; each kind is answered once per message
/// with the first few named: a message of thousands of bad clauses gets a few lines back, not
/// thousands.
#[derive(Default)]
struct Mistakes {
    /// The first [`SHOWN_MISTAKES`] unknown extension names (excerpts), and how many in all.
    unknown: Vec<String>,
    unknown_count: usize,
    /// The first clause that has no place in a handshake, and how many in all.
    unexpected: Option<ClientClause>,
    unexpected_count: usize,
}

impl Mistakes {
    /// An `(ext NAME ...)` names no extension this server knows.
    fn unknown_extension(&mut self, name: &str) {
        self.unknown_count += 1;
        if self.unknown.len() < SHOWN_MISTAKES {
            self.unknown.push(anqi_core::sexp::excerpt(name));
        }
    }

    /// A clause that has no place before `(init NAME SEED)`.
    fn unexpected(&mut self, clause: ClientClause) {
        self.unexpected_count += 1;
        self.unexpected.get_or_insert(clause);
    }

    /// Tells the client: an `unknown` error for the extensions, then an `unexpected` one for
    /// the other clauses (each only when there were any).
    fn answer(self, outbox: &Outbox) {
        if self.unknown_count > 0 {
            outbox.error(
                ErrorCode::Unknown,
                format!(
                    "no extension is named {}{}; known: {}",
                    self.unknown.join(", "),
                    more(self.unknown_count, self.unknown.len()),
                    Extension::known_names()
                ),
            );
        }
        if let Some(first) = self.unexpected {
            outbox.error(
                ErrorCode::Unexpected,
                format!(
                    "{}{} before (init NAME SEED); the game has not started",
                    anqi_core::sexp::excerpt(&first.to_string()),
                    more(self.unexpected_count, 1)
                ),
            );
        }
    }
}
