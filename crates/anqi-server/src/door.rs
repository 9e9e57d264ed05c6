//! The local door: seats for players inside the server's process, with no socket between them
//! and their referee. A person playing from a web page (`anqi-web`'s seats) and the bot the
//! server starts to play against them come in here.
//!
//! A local player is a `Player` like any other once seated: the same seating, the same
//! referee, the same clock and the same record. Only its two ends differ: the referee's lines
//! go to a channel that the local player reads ([`LocalSeat::recv`]), and what it sends goes
//! into the inbox a connection's reader task would fill ([`LocalSeat::send`]), stamped with the
//! moment it was sent (the clock charges up to then, as for a socket's read). There is no
//! handshake: the door is told the name and seed an `(init NAME SEED)` would carry, and grants
//! the extensions that describe the game (a local player's driver reads them all).
//!
//! Dropping a [`LocalSeat`] is the local player closing its connection: the referee rules on
//! it as on any client that leaves.

use crate::connection::{Inbound, Outbox, Player, ReadAt};
use crate::seating::SeatingEvent;
use anqi_core::settings::ClockConfig;
use anqi_core::wire::{ClientMessage, Extensions};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};

/// Where local players join the server's games. Cloning is cheap.
#[derive(Clone)]
pub struct Door {
    pub(crate) seating: mpsc::UnboundedSender<SeatingEvent>,
    /// The server's connection numbers, shared with its accept loop: seats by arrival go in
    /// this order.
    pub(crate) conn_no: Arc<AtomicU64>,
}

/// Who comes in: what a client's `(init NAME SEED)` would say, and where from (for logs).
#[derive(Clone)]
pub struct Guest {
    pub name: String,
    pub seed: String,
    pub peer: SocketAddr,
}

// The seed may be a secret (a ladder account's): never printed by accident.
impl std::fmt::Debug for Guest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guest")
            .field("name", &self.name)
            .field("peer", &self.peer)
            .finish_non_exhaustive()
    }
}

/// The server is not seating anyone any more (it is shutting down).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the server is shutting down")]
pub struct DoorClosed;

/// A local player's ends of its connection.
pub struct LocalSeat {
    lines: mpsc::UnboundedReceiver<Arc<str>>,
    inbox: mpsc::Sender<Inbound>,
    seated: oneshot::Receiver<u64>,
    game: Option<u64>,
    /// Cancelled to abort the game before any ply ([`LocalSeat::abort`]).
    abort: tokio_util::sync::CancellationToken,
}

/// The referee is not reading this seat's messages any more (its game is over), or the local
/// player sent more than a connection's inbox holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotTaken;

/// Messages a local player may have sent and the referee not yet read, as a connection's inbox.
const INBOX: usize = 32;

impl Door {
    /// Joins the arrival queue, as a client completing its handshake does: seated with the
    /// next players ready, or with those waiting already.
    ///
    /// # Errors
    /// [`DoorClosed`] when the server no longer seats anyone.
    pub fn arrive(&self, guest: Guest) -> Result<LocalSeat, DoorClosed> {
        let (player, seat) = self.player(guest);
        self.seating
            .send(SeatingEvent::Ready(player))
            .map_err(|_| DoorClosed)?;
        Ok(seat)
    }

    /// Starts a game of these players at once, in this seat order (player 1 first), whoever
    /// else is waiting: a person's game against the bots the server starts for them. The
    /// number of guests must be the variant's number of players. With `clock`, every seat
    /// plays on it instead of `[clock]` (the time control the person chose).
    ///
    /// # Errors
    /// [`DoorClosed`] when the server no longer seats anyone.
    pub fn table(
        &self,
        guests: Vec<Guest>,
        clock: Option<ClockConfig>,
    ) -> Result<Vec<LocalSeat>, DoorClosed> {
        let (players, seats): (Vec<Player>, Vec<LocalSeat>) =
            guests.into_iter().map(|g| self.player(g)).unzip();
        self.seating
            .send(SeatingEvent::Table(players, clock))
            .map_err(|_| DoorClosed)?;
        Ok(seats)
    }

    fn player(&self, guest: Guest) -> (Player, LocalSeat) {
        let (in_tx, inbox) = mpsc::channel(INBOX);
        let (out_tx, lines) = mpsc::unbounded_channel();
        let (seated_tx, seated) = oneshot::channel();
        let abort = tokio_util::sync::CancellationToken::new();
        let player = Player {
            conn: self.conn_no.fetch_add(1, Ordering::Relaxed),
            peer: guest.peer,
            name: guest.name,
            seed: guest.seed,
            ext: Extensions::TRACKING,
            inbox,
            outbox: Outbox::channel(out_tx),
            seated: Some(seated_tx),
            rejoin: None,
            ticket: None,
            abort: Some(abort.clone()),
        };
        (
            player,
            LocalSeat {
                lines,
                inbox: in_tx,
                seated,
                game: None,
                abort,
            },
        )
    }
}

impl LocalSeat {
    /// The next line the referee sent (one message, as on the wire, without its newline);
    /// `None` once the referee has let the seat go (the game is over, or the server stopped
    /// before seating it).
    pub async fn recv(&mut self) -> Option<Arc<str>> {
        self.lines.recv().await
    }

    /// The number of the game this seat plays, once seated (known before the referee's
    /// first line arrives).
    pub fn game(&mut self) -> Option<u64> {
        if self.game.is_none() {
            self.game = self.seated.try_recv().ok();
        }
        self.game
    }

    /// Asks the referee to abort the game, with no result: it does so on this seat's own
    /// turn while no ply has been played (the player who moves first, before moving), and
    /// never once a ply has been played (resign then).
    pub fn abort(&self) {
        self.abort.cancel();
    }

    /// Sends a message to the referee, as if read from a socket now.
    ///
    /// # Errors
    /// [`NotTaken`] when nobody reads this seat's messages any more, or too many are unread.
    pub fn send(&self, msg: ClientMessage) -> Result<(), NotTaken> {
        self.inbox
            .try_send(Inbound::Message(msg, ReadAt::now()))
            .map_err(|_| NotTaken)
    }
}
