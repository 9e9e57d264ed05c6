//! Seating: clients are seated in the order their connections were accepted, N per game.
//!
//! A connection that is still in its handshake holds its place: the lobby does not seat later
//! connections ahead of it until it has sent `init` or gone (bounded by the handshake timeout).
//! A seated client that left before its game started is dropped, and the next one takes its seat.

use super::connection::{Inbound, Player};
use std::collections::{BTreeMap, BTreeSet};
use tokio::sync::mpsc;

/// What the lobby hears about connections.
#[derive(Debug)]
pub enum LobbyEvent {
    /// A connection was accepted and starts its handshake.
    Accepted(u64),
    /// Its handshake completed.
    Ready(Player),
    /// It left (or failed) before completing the handshake.
    Gone(u64),
    /// A tournament orders a game (token seating).
    Order(super::orders::GameOrder),
    /// An order's connect timeout is over.
    Expire(u64),
    /// Standing tokens of engines that connect by themselves.
    Expect(Vec<String>),
}

/// The seat-order state. Pure logic; the server drives it from one task.
#[derive(Debug, Default)]
pub struct Lobby {
    /// Connections still in their handshake.
    pending: BTreeSet<u64>,
    /// Connections ready to play, by acceptance order.
    ready: BTreeMap<u64, Player>,
}

impl Lobby {
    /// Applies an event and returns every game that can start now, players in seat order.
    pub fn on_event(&mut self, event: LobbyEvent, seats: usize) -> Vec<Vec<Player>> {
        match event {
            LobbyEvent::Accepted(c) => {
                self.pending.insert(c);
            }
            LobbyEvent::Gone(c) => {
                self.pending.remove(&c);
            }
            LobbyEvent::Ready(p) => {
                self.pending.remove(&p.conn);
                self.ready.insert(p.conn, p);
            }
            LobbyEvent::Order(_) | LobbyEvent::Expire(_) | LobbyEvent::Expect(_) => {
                unreachable!("orders are handled by the token desk")
            }
        }
        let mut games = Vec::new();
        loop {
            self.drop_departed();
            if self.ready.len() < seats {
                break;
            }
            let last = *self
                .ready
                .keys()
                .nth(seats - 1)
                .expect("enough ready players");
            // An earlier connection still shaking hands keeps its seat in this game.
            if self.pending.first().is_some_and(|&p| p < last) {
                break;
            }
            let keys: Vec<u64> = self.ready.keys().take(seats).copied().collect();
            games.push(keys.iter().filter_map(|k| self.ready.remove(k)).collect());
        }
        games
    }

    /// Answers whatever waiting players sent (nothing is valid before the game starts) and
    /// drops those whose connection closed.
    pub fn tend(&mut self) {
        self.drop_departed();
    }

    fn drop_departed(&mut self) {
        self.ready.retain(|_, p| loop {
            match p.inbox.try_recv() {
                Ok(Inbound::Closed) | Err(mpsc::error::TryRecvError::Disconnected) => break false,
                Err(mpsc::error::TryRecvError::Empty) => break true,
                Ok(Inbound::Bad(e)) => p.outbox.error(e.code, e.text),
                Ok(Inbound::Message(_)) => p.outbox.error(
                    crate::wire::ErrorCode::Unexpected,
                    "the game has not started yet: wait for your (turn ...)",
                ),
            }
        });
    }

    /// Players waiting for opponents (to tell them the server is going away).
    pub fn drain(&mut self) -> Vec<Player> {
        std::mem::take(&mut self.ready).into_values().collect()
    }
}
