//! Seating by token, for tournaments: the organizer orders a game with one token per seat, and
//! each connecting client is seated by the token it sends as the SEED of `(init NAME SEED)`.
//!
//! An order whose seats are not all taken within its connect timeout starts anyway: the missing
//! players lose at once (termination `crash`). An engine that connects by itself with a
//! standing token (registered with [`OrderDesk::expect`]) may come before its next game is
//! ordered: it waits, parked, until then.

use super::{departed, SeatingEvent};
use crate::record::GameRecord;
use crate::server::connection::Player;
use crate::server::referee::GameSpec;
use crate::wire::ErrorCode;
use std::collections::{HashMap, VecDeque};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// A game the organizer wants played.
#[derive(Debug)]
pub struct GameOrder {
    /// The game's number in records (the tournament's game index).
    pub game_no: u64,
    /// One token per seat, in seat order.
    pub tokens: Vec<String>,
    /// How long the players have to connect.
    pub connect_timeout: Duration,
    pub spec: GameSpec,
}

/// A game ready to start: its players in seat order (absent ones are stand-ins) and its spec.
#[derive(Debug)]
pub struct Table {
    pub game_no: u64,
    pub players: Vec<Player>,
    pub spec: GameSpec,
}

struct Pending {
    game_no: u64,
    seats: Vec<Option<Player>>,
    tokens: Vec<String>,
    spec: GameSpec,
}

/// Orders waiting for their players.
#[derive(Default)]
pub struct Orders {
    pending: HashMap<u64, Pending>,
    /// Token -> the seats waiting for it, oldest order first (an external engine uses one token
    /// for all its games, so several orders may wait for the same token).
    by_token: HashMap<String, VecDeque<(u64, usize)>>,
    /// Standing tokens of engines that connect by themselves.
    standing: std::collections::HashSet<String>,
    /// Players with a standing token who came before their game was ordered.
    parked: HashMap<String, VecDeque<Player>>,
}

impl Orders {
    /// Registers standing tokens.
    pub fn expect(&mut self, tokens: Vec<String>) {
        self.standing.extend(tokens);
    }

    /// Registers an order, seating parked players that hold its tokens; returns its id (for
    /// the expiry event) and the table when that fills it.
    pub fn place(&mut self, order: GameOrder) -> (u64, Option<Table>) {
        let id = order.game_no;
        if self.pending.contains_key(&id) {
            // Dropping the order drops its record channel: the organizer hears of the refusal.
            tracing::error!(
                game = id,
                "a game with this number is already ordered; refused"
            );
            return (id, None);
        }
        for (seat, token) in order.tokens.iter().enumerate() {
            self.by_token
                .entry(token.clone())
                .or_default()
                .push_back((id, seat));
        }
        self.pending.insert(
            id,
            Pending {
                game_no: order.game_no,
                seats: order.tokens.iter().map(|_| None).collect(),
                tokens: order.tokens.clone(),
                spec: order.spec,
            },
        );
        let mut table = None;
        for token in &order.tokens {
            while let Some(mut player) = self.parked.get_mut(token).and_then(VecDeque::pop_front) {
                if departed(&mut player) {
                    continue;
                }
                table = table.or(self.seat(player));
                break;
            }
        }
        (id, table)
    }

    /// Seats a player by token; returns the table when it is full.
    pub fn seat(&mut self, player: Player) -> Option<Table> {
        let waiting = self.by_token.get_mut(&player.seed);
        let Some((id, seat)) = waiting.and_then(VecDeque::pop_front) else {
            if self.standing.contains(&player.seed) {
                self.parked
                    .entry(player.seed.clone())
                    .or_default()
                    .push_back(player);
                return None;
            }
            player.outbox.error(
                ErrorCode::Unexpected,
                "no game is waiting for this token: send the token you were given as the SEED of (init NAME SEED)",
            );
            return None;
        };
        let Some(pending) = self.pending.get_mut(&id) else {
            player
                .outbox
                .error(ErrorCode::Unexpected, "the game for this token is gone");
            return None;
        };
        pending.seats[seat] = Some(player);
        if pending.seats.iter().all(Option::is_some) {
            return self.start(id);
        }
        None
    }

    /// The order's connect timeout is over: start it with whoever came.
    pub fn expire(&mut self, id: u64) -> Option<Table> {
        self.start(id)
    }

    fn start(&mut self, id: u64) -> Option<Table> {
        let mut p = self.pending.remove(&id)?;
        for t in &p.tokens {
            if let Some(q) = self.by_token.get_mut(t) {
                q.retain(|&(order, _)| order != id);
                if q.is_empty() {
                    self.by_token.remove(t);
                }
            }
        }
        let mut players = Vec::new();
        for (i, seat) in p.seats.into_iter().enumerate() {
            let present = seat.and_then(|mut player| (!departed(&mut player)).then_some(player));
            match present {
                Some(player) => players.push(player),
                None => {
                    p.spec.absent.push(i + 1);
                    players.push(Player::absent(i + 1));
                }
            }
        }
        Some(Table {
            game_no: p.game_no,
            players,
            spec: p.spec,
        })
    }

    /// Answers what parked players sent and forgets those who left.
    pub fn tend(&mut self) {
        for queue in self.parked.values_mut() {
            queue.retain_mut(|p| !departed(p));
        }
    }

    /// Players waiting in unfinished orders (to tell them the server is going away).
    pub fn drain(&mut self) -> Vec<Player> {
        self.by_token.clear();
        let parked = std::mem::take(&mut self.parked).into_values().flatten();
        self.pending
            .drain()
            .flat_map(|(_, p)| p.seats.into_iter().flatten())
            .chain(parked)
            .collect()
    }
}

/// The organizer's handle: place orders, get each game's record when it ends.
#[derive(Clone, Debug)]
pub struct OrderDesk {
    pub(crate) tx: mpsc::UnboundedSender<SeatingEvent>,
}

impl OrderDesk {
    /// Registers the standing tokens of engines that connect by themselves: such an engine
    /// may connect before its next game is ordered, and then waits for it.
    ///
    /// # Errors
    /// When the server has stopped.
    pub fn expect(&self, tokens: Vec<String>) -> Result<(), ServerStopped> {
        self.tx
            .send(SeatingEvent::Expect(tokens))
            .map_err(|_| ServerStopped)
    }

    /// Orders a game; the receiver yields its record when it ends.
    ///
    /// # Errors
    /// When the server has stopped.
    pub fn order(
        &self,
        mut order: GameOrder,
    ) -> Result<oneshot::Receiver<GameRecord>, ServerStopped> {
        let (tx, rx) = oneshot::channel();
        order.spec.done = Some(tx);
        self.tx
            .send(SeatingEvent::Order(order))
            .map_err(|_| ServerStopped)?;
        Ok(rx)
    }
}

/// The server is no longer running.
#[derive(Debug, thiserror::Error)]
#[error("the server has stopped")]
pub struct ServerStopped;
