//! Seating by arrival: as many clients per game as the variant has players, in the order they
//! complete their handshake, each game's seats in the order the connections were accepted.
//!
//! A connection takes part only once its `(init NAME SEED)` is complete: one that is slow or
//! silent in its handshake holds no place and delays nobody. Clients that complete their
//! handshake wait here; as soon as there are enough of them, a game starts, and its seats go
//! to them in the order the server accepted their connections (so two clients that connect one
//! after the other and send `init` at once are players 1 and 2, whichever `init` came first). A
//! waiting client that leaves is dropped, and the next one to arrive takes its place.

use super::departed;
use crate::connection::Player;
use std::collections::BTreeMap;

/// The clients waiting for a game. Pure logic, driven by the seating task.
#[derive(Debug)]
pub struct Arrival {
    seats: usize,
    /// Clients ready to play, by acceptance order, and when each became ready (ms since the
    /// Unix epoch).
    ready: BTreeMap<u64, (Player, u64)>,
}

impl Arrival {
    /// Seating for games of `seats` players.
    pub fn new(seats: usize) -> Arrival {
        Arrival {
            seats,
            ready: BTreeMap::new(),
        }
    }

    /// A client completed its handshake; returns the players of the game it completes, in
    /// seat order.
    pub fn arrive(&mut self, player: Player) -> Option<Vec<Player>> {
        self.ready
            .insert(player.conn, (player, crate::referee::unix_ms()));
        self.tend();
        if self.ready.len() < self.seats {
            return None;
        }
        let conns: Vec<u64> = self.ready.keys().take(self.seats).copied().collect();
        Some(
            conns
                .iter()
                .filter_map(|c| self.ready.remove(c).map(|(p, _)| p))
                .collect(),
        )
    }

    /// Answers whatever waiting players sent (nothing is valid before the game starts) and
    /// drops those whose connection closed.
    pub fn tend(&mut self) {
        self.ready.retain(|_, (p, _)| !departed(p));
    }

    /// Who waits for a game, longest first: names, and since when (ms since the Unix epoch).
    pub fn waiting(&self) -> Vec<(String, u64)> {
        self.ready
            .values()
            .map(|(p, since)| (p.name.clone(), *since))
            .collect()
    }

    /// Players waiting for opponents (to tell them the server is going away).
    pub fn drain(&mut self) -> Vec<Player> {
        std::mem::take(&mut self.ready)
            .into_values()
            .map(|(p, _)| p)
            .collect()
    }
}
