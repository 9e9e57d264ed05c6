//! Seating: which clients play together, decided by one task that owns every waiting player.
//!
//! The policy is chosen when the server is built:
//! - [`Arrival`] (`arrival`): clients are seated as they complete their handshake, N per game
//!   (what `anqi serve` does);
//! - [`Orders`] (`tokens`): the organizer orders games with one token per seat, and each client
//!   is seated by the token it sends as SEED (what `anqi tournament` does);
//! - [`Ladder`] (`ladder`, with the pure pairing in `matchmaking`): each client is seated under
//!   the ladder account whose secret it sends as SEED, and waiting accounts are paired every
//!   round (what `anqi serve --ladder` does).
//!
//! Both keep waiting players until their game starts, answer what they send in the meantime and
//! forget those who leave, through the one routine [`departed`].

mod arrival;
mod ladder;
mod matchmaking;
mod tokens;

pub use arrival::Arrival;
pub use ladder::{Ladder, LadderAccount, LadderDesk, LadderNews, LadderRules};
pub use matchmaking::MatchRules;
pub use tokens::{GameOrder, OrderDesk, Orders, ServerStopped, Table};

use super::connection::{Inbound, Player};
use super::referee::{self, GameContext};
use crate::tasks::Tasks;
use crate::throttle::{left_out, LogThrottle};
use anqi_core::settings::ClockConfig;
use anqi_core::wire::ErrorCode;
use std::time::Duration;
use tokio::sync::mpsc;

/// What the seating task hears.
pub enum SeatingEvent {
    /// A client completed its handshake (or a local player came in by the door).
    Ready(Player),
    /// Local players to seat together at once, in this order (`door`), with the clock every
    /// seat plays on (`None`: `[clock]`): seating by arrival only.
    Table(Vec<Player>, Option<ClockConfig>),
    /// A tournament orders a game (token seating).
    Order(GameOrder),
    /// An order's connect timeout is over.
    Expire(u64),
    /// Standing tokens of engines that connect by themselves.
    Expect(Vec<String>),
    /// The player of a seat (0-based) of an ordered game will not come.
    Withdraw { game_no: u64, seat: usize },
    /// What a ladder tells its seating (ladder seating).
    Ladder(LadderNews),
}

/// How clients are seated.
pub enum Policy {
    Arrival(Arrival),
    /// Boxed: the token tables are much larger than the arrival queue.
    Tokens(Box<Orders>),
    Ladder(Box<Ladder>),
}

/// Whether a waiting player's connection has closed. Anything the player sent meanwhile is
/// answered: nothing is valid before the game starts.
pub fn departed(player: &mut Player) -> bool {
    loop {
        match player.inbox.try_recv() {
            Ok(Inbound::Closed) | Err(mpsc::error::TryRecvError::Disconnected) => return true,
            Err(mpsc::error::TryRecvError::Empty) => return false,
            Ok(Inbound::Bad(e, _)) => player.outbox.error(e.code, e.text),
            Ok(Inbound::Message(..)) => player.outbox.error(
                ErrorCode::Unexpected,
                "the game has not started yet: wait for your (turn ...)",
            ),
        }
    }
}

/// How often waiting players are answered and departures noticed, even when nothing else
/// happens.
const TEND_EVERY: Duration = Duration::from_millis(500);

/// Seats players and starts games until every sender is gone or the server shuts down; then
/// tells the players still waiting. Seating by arrival numbers its games after `last_game`
/// (the highest number in the records file: `past`).
pub async fn run(
    policy: Policy,
    last_game: u64,
    mut rx: mpsc::UnboundedReceiver<SeatingEvent>,
    tx: mpsc::UnboundedSender<SeatingEvent>,
    ctx: GameContext,
    tracker: Tasks,
) {
    let shutdown = ctx.shutdown.clone();
    let mut seating = Seating {
        policy,
        game_no: last_game,
        refusals: LogThrottle::default(),
        shown: Vec::new(),
        tx,
        ctx,
        tracker,
    };
    let mut tick = tokio::time::interval(TEND_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        // Each branch's future is safe to drop when another one wins: an event not received
        // stays in the channel, a tick not taken stays due.
        let event = tokio::select! {
            e = rx.recv() => match e {
                Some(e) => e,
                None => break,
            },
            _ = shutdown.cancelled() => break,
            _ = tick.tick() => {
                seating.tend();
                continue;
            }
        };
        seating.on_event(event);
    }
    seating.drain();
}

/// The seating task's state, all of it: the policy (which holds the waiting players), and what
/// the task needs to start games and to tell the pages who waits.
struct Seating {
    policy: Policy,
    /// The number of the last game seated by arrival, from the records file's highest at
    /// start (token seating numbers its own).
    game_no: u64,
    /// Players refused while records cannot be written: a few log lines per window, whatever
    /// the crowd.
    refusals: LogThrottle<()>,
    /// Who waits, as last shown to the pages.
    shown: Vec<(String, u64)>,
    /// The task's own events: the expiry of an order's connect timeout comes back through it.
    tx: mpsc::UnboundedSender<SeatingEvent>,
    ctx: GameContext,
    tracker: Tasks,
}

impl Seating {
    /// Every [`TEND_EVERY`]: answers the waiting players, forgets those who left, and tells
    /// the pages.
    fn tend(&mut self) {
        match &mut self.policy {
            Policy::Arrival(a) => a.tend(),
            Policy::Tokens(o) => o.tend(),
            Policy::Ladder(l) => {
                if self.ctx.records.failing().is_none() {
                    for table in l.tend(&mut self.game_no) {
                        self.start(table);
                    }
                }
            }
        }
        self.publish_waiting();
    }

    /// One event: the games it completes are started, and the pages told who waits now.
    fn on_event(&mut self, event: SeatingEvent) {
        let Some(event) = self.refuse_if_unrecorded(event) else {
            return;
        };
        let tables = self.tables_for(event);
        for table in tables {
            self.start(table);
        }
        self.publish_waiting();
    }

    /// No game starts while records cannot be written: it would end with a result that is
    /// not on disk. A player ready to play is told why and let go (`None`); any other event,
    /// or any event while records can be written, is handed back.
    fn refuse_if_unrecorded(&mut self, event: SeatingEvent) -> Option<SeatingEvent> {
        match (event, self.ctx.records.failing()) {
            (SeatingEvent::Ready(player), Some(why)) => {
                refuse_unrecorded(&mut self.refusals, &player, &why);
                None
            }
            (SeatingEvent::Table(players, _), Some(why)) => {
                for player in &players {
                    refuse_unrecorded(&mut self.refusals, player, &why);
                }
                None
            }
            (event, _) => Some(event),
        }
    }

    /// What the policy makes of an event: the games it completes, ready to start.
    fn tables_for(&mut self, event: SeatingEvent) -> Vec<Table> {
        match (&mut self.policy, event) {
            (Policy::Arrival(arrival), SeatingEvent::Ready(player)) => arrival
                .arrive(player)
                .map(|players| arrival_table(&mut self.game_no, players, None))
                .into_iter()
                .collect(),
            (Policy::Arrival(_), SeatingEvent::Table(players, clock)) => {
                vec![arrival_table(&mut self.game_no, players, clock)]
            }
            (Policy::Tokens(_), SeatingEvent::Table(players, _)) => {
                for p in players {
                    p.outbox.error(
                        ErrorCode::Busy,
                        "this server seats only the players its organizer ordered",
                    );
                }
                Vec::new()
            }
            (Policy::Ladder(_), SeatingEvent::Table(players, _)) => {
                for p in players {
                    p.outbox.error(
                        ErrorCode::Busy,
                        "this server seats only its ladder's accounts",
                    );
                }
                Vec::new()
            }
            (Policy::Ladder(ladder), SeatingEvent::Ready(player)) => {
                ladder.arrive(player);
                Vec::new()
            }
            (Policy::Ladder(ladder), SeatingEvent::Ladder(news)) => {
                ladder.hear(news);
                Vec::new()
            }
            (Policy::Ladder(_), _) => {
                tracing::error!("a tournament event reached a ladder's server; ignored");
                Vec::new()
            }
            (Policy::Tokens(_), SeatingEvent::Ladder(_)) => {
                tracing::error!("a ladder's news reached a tournament's server; ignored");
                Vec::new()
            }
            (Policy::Arrival(_), _) => {
                // Not logged in full: tournament events carry secret tokens.
                tracing::error!("a tournament event reached a server seating by arrival; ignored");
                Vec::new()
            }
            (Policy::Tokens(orders), SeatingEvent::Ready(player)) => {
                orders.seat(player).into_iter().collect()
            }
            (Policy::Tokens(orders), SeatingEvent::Order(order)) => {
                let (timeout, tx) = (order.connect_timeout, self.tx.clone());
                let (id, table) = orders.place(order);
                expire_after(&self.tracker, &self.ctx, tx, id, timeout);
                table.into_iter().collect()
            }
            (Policy::Tokens(orders), SeatingEvent::Expire(id)) => {
                orders.expire(id).into_iter().collect()
            }
            (Policy::Tokens(orders), SeatingEvent::Withdraw { game_no, seat }) => {
                orders.withdraw(game_no, seat).into_iter().collect()
            }
            (Policy::Tokens(orders), SeatingEvent::Expect(tokens)) => {
                orders.expect(tokens);
                Vec::new()
            }
        }
    }

    /// Starts a table's game: tells the local players which game they play, and spawns its
    /// referee.
    fn start(&self, mut t: Table) {
        for p in &mut t.players {
            if let Some(tell) = p.seated.take() {
                let _ = tell.send(t.game_no);
            }
        }
        let game = referee::run_game(
            self.ctx.clone(),
            t.game_no,
            t.players,
            t.spec,
            t.seat_tokens,
        );
        if t.accounts.is_empty() {
            self.tracker.spawn(game);
            return;
        }
        // A ladder's accounts may play again once this game is over, however it ends (a
        // panic too: the guard says so as it is dropped).
        let ended = EndedGuard {
            tx: self.tx.clone(),
            accounts: t.accounts,
        };
        self.tracker.spawn(async move {
            game.await;
            drop(ended);
        });
    }

    /// Shows the pages who waits for a game (seating by arrival, when watched), when it
    /// changed.
    fn publish_waiting(&mut self) {
        let Some(hub) = &self.ctx.watch else {
            return;
        };
        let now = match &self.policy {
            Policy::Arrival(arrival) => arrival.waiting(),
            Policy::Ladder(ladder) => ladder.waiting(),
            Policy::Tokens(_) => return,
        };
        if now != self.shown {
            hub.set_waiting(
                now.iter()
                    .map(|(name, since)| crate::watch::Waiting {
                        name: name.clone(),
                        since_unix_ms: *since,
                    })
                    .collect(),
            );
            self.shown = now;
        }
    }

    /// The server is shutting down (or nobody can send events any more): tells every player
    /// still waiting.
    fn drain(mut self) {
        let waiting = match &mut self.policy {
            Policy::Arrival(a) => a.drain(),
            Policy::Tokens(o) => o.drain(),
            Policy::Ladder(l) => l.drain(),
        };
        for p in waiting {
            p.outbox
                .error(ErrorCode::Shutdown, "the server is shutting down");
        }
    }
}

/// Tells the ladder's seating that a game's accounts are free again, when dropped.
struct EndedGuard {
    tx: mpsc::UnboundedSender<SeatingEvent>,
    accounts: Vec<i64>,
}

impl Drop for EndedGuard {
    fn drop(&mut self) {
        let accounts = std::mem::take(&mut self.accounts);
        let _ = self
            .tx
            .send(SeatingEvent::Ladder(LadderNews::Ended(accounts)));
    }
}

/// The table of a game seated by arrival, numbered next after `game_no`; with `clock`, every
/// seat plays on it instead of `[clock]`.
fn arrival_table(game_no: &mut u64, players: Vec<Player>, clock: Option<ClockConfig>) -> Table {
    // At most `past::MAX_GAME_NO` from the file: no overflow in any server's lifetime.
    *game_no = game_no.saturating_add(1);
    let clocks = clock.map(|c| vec![c; players.len()]).unwrap_or_default();
    Table {
        game_no: *game_no,
        players,
        spec: crate::referee::GameSpec {
            clocks,
            ..Default::default()
        },
        seat_tokens: Vec::new(),
        accounts: Vec::new(),
    }
}

/// Sends the seating task `Expire(id)` once an order's connect timeout is over. The timer
/// must not hold a shutdown up: it ends with the server.
fn expire_after(
    tracker: &Tasks,
    ctx: &GameContext,
    tx: mpsc::UnboundedSender<SeatingEvent>,
    id: u64,
    timeout: Duration,
) {
    let shutdown = ctx.shutdown.clone();
    tracker.spawn(async move {
        tokio::select! {
            _ = tokio::time::sleep(timeout) => {
                let _ = tx.send(SeatingEvent::Expire(id));
            }
            _ = shutdown.cancelled() => {}
        }
    });
}

/// Tells a player ready to play that no game starts while records cannot be written.
fn refuse_unrecorded(refusals: &mut LogThrottle<()>, player: &Player, why: &str) {
    if let Some(n) = refusals.allow(&(), std::time::Instant::now()) {
        tracing::warn!(name = ?player.name, peer = %player.peer, "refused a player: the records file cannot be written{}", left_out(n));
    }
    player.outbox.error(
        ErrorCode::Busy,
        format!(
            "the server cannot write game records ({why}), so it starts no game until it can; try again later"
        ),
    );
}
