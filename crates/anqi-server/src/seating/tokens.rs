//! Seating by token, for tournaments: the organizer orders a game with one token per seat, and
//! each connecting client is seated by the token it sends as the SEED of `(init NAME SEED)`.
//!
//! An order whose seats are not all taken within its connect timeout starts anyway: the missing
//! players lose at once (termination `no-connect`). So does one whose missing seats the
//! organizer withdrew ([`OrderDesk::withdraw`]: the engine's program exited before it connected),
//! without waiting for the timeout. An engine that connects by itself with a
//! standing token (registered with [`OrderDesk::expect`]) may come before its next game is
//! ordered: it waits, parked, until then.
//!
//! Tokens are secrets (a token is all it takes to play a seat), so they are handled like
//! passwords: looked up without timing leaks (see [`TokenDigest`]), kept out of records and
//! logs, and a per-game token seats one connection only: a second connection presenting it is
//! refused and logged with its address, even after its game ended (within [`SPENT_MEMORY`]).

use super::{departed, SeatingEvent};
use crate::connection::Player;
use crate::referee::GameSpec;
use crate::secret::TokenDigest;
use crate::throttle::{left_out, LogThrottle};
use anqi_core::record::GameRecord;
use anqi_core::wire::ErrorCode;
use std::collections::{HashMap, HashSet, VecDeque};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// A game the organizer wants played.
pub struct GameOrder {
    /// The game's number in records (the tournament's game index).
    pub game_no: u64,
    /// One token per seat, in seat order: secrets, left out of `Debug`.
    pub tokens: Vec<String>,
    /// How long the players have to connect.
    pub connect_timeout: Duration,
    pub spec: GameSpec,
}

impl std::fmt::Debug for GameOrder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GameOrder")
            .field("game_no", &self.game_no)
            .field("tokens", &format_args!("({} secret)", self.tokens.len()))
            .field("connect_timeout", &self.connect_timeout)
            .field("spec", &self.spec)
            .finish()
    }
}

/// How many used per-game tokens the server remembers, to tell a reused token ("this token's
/// seat is already taken", logged as a warning) from an unknown one. Beyond it the oldest are
/// forgotten, so the memory stays bounded (32-byte digests in a set and a queue: a few MiB at
/// most) however long the event runs and however many tokens are tried. Forgetting is
/// safe: per-game tokens are never ordered twice, so a forgotten token still seats nobody; it is
/// only refused as unknown, with a less specific message.
pub const SPENT_MEMORY: usize = 65_536;

/// A game ready to start: its players in seat order (absent ones are stand-ins) and its spec.
#[derive(Debug)]
pub struct Table {
    pub game_no: u64,
    pub players: Vec<Player>,
    pub spec: GameSpec,
    /// Each seat's per-game token, which takes the seat back after a lost connection
    /// (`crate::rejoin`); none for standing tokens and seating by arrival.
    pub(crate) seat_tokens: Vec<Option<TokenDigest>>,
    /// Each seat's ladder account (`ladder`); empty for other games.
    pub(crate) accounts: Vec<i64>,
}

struct Pending {
    game_no: u64,
    seats: Vec<Option<Player>>,
    /// Seats the organizer gave up on: their player will not come.
    withdrawn: Vec<bool>,
    tokens: Vec<TokenDigest>,
    spec: GameSpec,
}

impl Pending {
    /// Whether every seat is taken or withdrawn: nobody else is coming.
    fn complete(&self) -> bool {
        self.seats
            .iter()
            .zip(&self.withdrawn)
            .all(|(s, &w)| s.is_some() || w)
    }
}

/// Orders waiting for their players.
#[derive(Default)]
pub struct Orders {
    pending: HashMap<u64, Pending>,
    /// Token -> the seats waiting for it, oldest order first (an external engine uses one token
    /// for all its games, so several orders may wait for the same token).
    by_token: HashMap<TokenDigest, VecDeque<(u64, usize)>>,
    /// Standing tokens of engines that connect by themselves.
    standing: HashSet<TokenDigest>,
    /// Players with a standing token who came before their game was ordered.
    parked: HashMap<TokenDigest, VecDeque<Player>>,
    /// Per-game tokens that have seated their connection, the last [`SPENT_MEMORY`] of them.
    spent: HashSet<TokenDigest>,
    /// The same, oldest first, to forget in order.
    spent_order: VecDeque<TokenDigest>,
    /// Refused tokens are logged a few per address and window: someone trying tokens by the
    /// thousand must not fill the log.
    refusals: LogThrottle<std::net::IpAddr>,
}

impl Orders {
    /// Refuses a player presenting a token that seats nobody: logged with its address (someone
    /// may be trying tokens), a few lines per address and window, and told why.
    fn refuse(&mut self, player: &Player, log: &'static str, reply: &'static str) {
        if let Some(n) = self
            .refusals
            .allow(&player.peer.ip(), std::time::Instant::now())
        {
            tracing::warn!(peer = %player.peer, name = ?player.name, "{log}{}", left_out(n));
        }
        player.outbox.error(ErrorCode::Unexpected, reply);
    }

    /// Registers standing tokens.
    pub fn expect(&mut self, tokens: Vec<String>) {
        self.standing
            .extend(tokens.iter().map(|t| TokenDigest::of(t)));
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
        let tokens: Vec<TokenDigest> = order.tokens.iter().map(|t| TokenDigest::of(t)).collect();
        for (seat, token) in tokens.iter().enumerate() {
            self.by_token
                .entry(*token)
                .or_default()
                .push_back((id, seat));
        }
        self.pending.insert(
            id,
            Pending {
                game_no: order.game_no,
                seats: tokens.iter().map(|_| None).collect(),
                withdrawn: vec![false; tokens.len()],
                tokens: tokens.clone(),
                spec: order.spec,
            },
        );
        let mut table = None;
        for token in &tokens {
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
    ///
    /// A per-game token seats one connection: the next one presenting it is refused, and the
    /// attempt logged with its address, since only a leaked token or a confused engine can
    /// explain it. A standing token takes the next seat waiting for it, or parks the player.
    pub fn seat(&mut self, mut player: Player) -> Option<Table> {
        let token = TokenDigest::of(&player.seed);
        let waiting = self.by_token.get_mut(&token);
        let Some((id, seat)) = waiting.and_then(VecDeque::pop_front) else {
            if self.standing.contains(&token) {
                self.parked.entry(token).or_default().push_back(player);
                return None;
            }
            if self.spent.contains(&token) {
                self.refuse(
                    &player,
                    "refused a connection presenting a tournament token whose seat is already taken",
                    "this token's seat is already taken: a tournament token seats one connection per game",
                );
            } else {
                self.refuse(
                    &player,
                    "refused a connection presenting a token no game waits for",
                    "no game is waiting for this token: send the token you were given as the SEED of (init NAME SEED)",
                );
            }
            return None;
        };
        let Some(pending) = self.pending.get_mut(&id) else {
            player
                .outbox
                .error(ErrorCode::Unexpected, "the game for this token is gone");
            return None;
        };
        if !self.standing.contains(&token) {
            self.spent.insert(token);
            self.spent_order.push_back(token);
            if self.spent_order.len() > SPENT_MEMORY {
                if let Some(old) = self.spent_order.pop_front() {
                    self.spent.remove(&old);
                }
            }
        }
        // The record keeps what the player sent as SEED; here that is its secret token, and
        // records are published and merged: keep it out.
        player.seed.clear();
        pending.seats[seat] = Some(player);
        if pending.complete() {
            return self.start(id);
        }
        None
    }

    /// The player of `seat` (0-based) in order `id` will not come (its program has exited):
    /// once every other seat is taken or withdrawn too, the game starts without waiting for the
    /// connect timeout, the missing players losing as `no-connect`. A seat already taken, or an
    /// order already started, is left alone: the game itself rules on a player who leaves.
    pub fn withdraw(&mut self, id: u64, seat: usize) -> Option<Table> {
        let pending = self.pending.get_mut(&id)?;
        if pending.seats.get(seat).is_none_or(Option::is_some) {
            return None;
        }
        pending.withdrawn[seat] = true;
        // A late connection with this token is now refused, not seated in a lost game.
        if let Some(q) = self.by_token.get_mut(&pending.tokens[seat]) {
            q.retain(|&entry| entry != (id, seat));
            if q.is_empty() {
                self.by_token.remove(&pending.tokens[seat]);
            }
        }
        if pending.complete() {
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
        // A seat's per-game token takes it back after a lost connection (`rejoin`); a
        // standing token names no one game.
        let seat_tokens = p
            .tokens
            .iter()
            .map(|t| (!self.standing.contains(t)).then_some(*t))
            .collect();
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
        // The organizer's engines are no crowd: their clocks alone rule their first actions
        // (an engine stuck on its first move loses on time), unless the order says otherwise.
        p.spec.first_move_ms.get_or_insert(0);
        Some(Table {
            game_no: p.game_no,
            players,
            spec: p.spec,
            seat_tokens,
            accounts: Vec::new(),
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

    /// Gives up on seat `seat` (1-based) of game `game_no`: its engine's program exited before
    /// it connected. The game starts once nobody else is awaited (see `Orders::withdraw`).
    ///
    /// # Errors
    /// When the server has stopped.
    pub fn withdraw(&self, game_no: u64, seat: usize) -> Result<(), ServerStopped> {
        self.tx
            .send(SeatingEvent::Withdraw {
                game_no,
                seat: seat - 1,
            })
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

#[cfg(test)]
mod tests {
    use super::*;

    fn order(game_no: u64, tokens: &[&str]) -> GameOrder {
        GameOrder {
            game_no,
            tokens: tokens.iter().map(|t| t.to_string()).collect(),
            connect_timeout: Duration::from_secs(10),
            spec: GameSpec::default(),
        }
    }

    /// The one message the server sent, if any.
    fn said(out: &mut mpsc::UnboundedReceiver<std::sync::Arc<str>>) -> Option<String> {
        out.try_recv().ok().map(|l| l.to_string())
    }

    #[test]
    fn digests_compare_equal_only_for_the_same_token() {
        assert_eq!(TokenDigest::of("tok"), TokenDigest::of("tok"));
        assert_ne!(TokenDigest::of("tok"), TokenDigest::of("tol"));
        assert_ne!(TokenDigest::of(""), TokenDigest::of("tok"));
    }

    #[test]
    fn a_per_game_token_seats_one_connection_while_the_game_waits_and_after() {
        let mut orders = Orders::default();
        let (_, table) = orders.place(order(1, &["a", "b"]));
        assert!(table.is_none());
        let (p1, mut out1, _in1) = Player::for_test(1, "a");
        assert!(orders.seat(p1).is_none());
        assert_eq!(said(&mut out1), None, "seated, waiting quietly");
        // The game still waits for seat 2: a second "a" is refused, seat 1 keeps its player.
        let (thief, mut out, _in) = Player::for_test(2, "a");
        assert!(orders.seat(thief).is_none());
        let refusal = said(&mut out).unwrap();
        assert!(refusal.contains("already taken"), "{refusal}");
        let (p2, _out2, _in2) = Player::for_test(3, "b");
        let table = orders.seat(p2).expect("both seats taken: the game starts");
        assert_eq!(table.players[0].conn, 1);
        assert!(
            table.players.iter().all(|p| p.seed.is_empty()),
            "tokens stay out of records"
        );
        // After the start, both tokens are still spent.
        for token in ["a", "b"] {
            let (late, mut out, _in) = Player::for_test(4, token);
            assert!(orders.seat(late).is_none());
            assert!(said(&mut out).unwrap().contains("already taken"));
        }
        // A token never ordered is unknown, not taken.
        let (stranger, mut out, _in) = Player::for_test(5, "c");
        assert!(orders.seat(stranger).is_none());
        assert!(said(&mut out).unwrap().contains("no game is waiting"));
    }

    #[test]
    fn a_standing_token_takes_every_seat_waiting_for_it_and_parks_otherwise() {
        let mut orders = Orders::default();
        orders.expect(vec!["standing".into()]);
        let (early, mut out, _in) = Player::for_test(1, "standing");
        assert!(orders.seat(early).is_none());
        assert_eq!(said(&mut out), None, "parked until its game is ordered");
        let (_, table) = orders.place(order(1, &["standing", "x"]));
        assert!(table.is_none());
        let (p, _out, _in2) = Player::for_test(2, "x");
        assert!(orders.seat(p).is_some(), "the parked player took its seat");
        // The same standing token seats the next game's connection too.
        orders.place(order(2, &["y", "standing"]));
        let (again, mut out, _in3) = Player::for_test(3, "standing");
        assert!(orders.seat(again).is_none());
        assert_eq!(said(&mut out), None);
        let (p, _out, _in4) = Player::for_test(4, "y");
        let table = orders.seat(p).expect("full");
        assert_eq!(table.players[1].conn, 3);
    }

    #[test]
    fn a_withdrawn_seat_starts_the_game_at_once_and_its_token_seats_nobody() {
        let mut orders = Orders::default();
        orders.place(order(1, &["a", "b"]));
        let (p1, _out1, _in1) = Player::for_test(1, "a");
        assert!(orders.seat(p1).is_none());
        // Seat 1 is taken: withdrawing it changes nothing.
        assert!(orders.withdraw(1, 0).is_none());
        let table = orders
            .withdraw(1, 1)
            .expect("nobody else is coming: the game starts");
        assert_eq!(table.spec.absent, vec![2]);
        assert_eq!(table.players[0].conn, 1);
        // Too late: the token of the withdrawn seat seats nobody.
        let (late, mut out, _in) = Player::for_test(2, "b");
        assert!(orders.seat(late).is_none());
        assert!(said(&mut out).is_some());
        // An order not started yet with every seat withdrawn starts with nobody.
        orders.place(order(2, &["c", "d"]));
        assert!(orders.withdraw(2, 0).is_none());
        assert!(orders.withdraw(2, 1).is_some());
        assert!(orders.withdraw(2, 1).is_none(), "already started");
    }

    #[test]
    fn spent_tokens_are_forgotten_oldest_first_beyond_the_bound() {
        let mut orders = Orders::default();
        for i in 0..=SPENT_MEMORY as u64 {
            let token = format!("t{i}");
            orders.place(order(i, &[&token]));
            let (p, _out, _in) = Player::for_test(i, &token);
            // A one-seat order starts at once.
            assert!(orders.seat(p).is_some());
        }
        assert_eq!(orders.spent.len(), SPENT_MEMORY);
        assert!(!orders.spent.contains(&TokenDigest::of("t0")));
        assert!(orders.spent.contains(&TokenDigest::of("t1")));
    }
}
