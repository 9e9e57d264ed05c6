//! A seat for a person (`[http] humans = true`, `anqi serve` only): a visitor takes the seat of
//! a player waiting for a game, or plays against anqi-bots the server starts in its own
//! process, by clicking the board.
//!
//! To the referee the person is a seat like any other. The server's local door
//! (`anqi_server::door`) seats a [`LocalSeat`] where a client has a socket; a relay task here
//! speaks the protocol for the person: it feeds the referee's lines to the client library's
//! [`Tracker`] (what any client knows of its game), publishes what the person's page needs
//! (whose turn, the legal actions, errors, the result) and sends the referee only an action
//! the tracker lists as legal, on the person's own turn. A page cannot act for another seat:
//! each seat is reached by its own secret token, which appears nowhere else.
//!
//! The seat outlives its page: a page closed and opened again (the token is in its address)
//! takes it back. With no page open for `[http] human_away_ms`, the relay lets the seat go,
//! and the referee rules as for any player whose connection closes.
//!
//! The bots are the reference bots of `anqi-bot` (`anqi_client::bots`), each driven by its own
//! tracker on the same door; their choices run on tokio's blocking threads, so a search never
//! holds up the runtime that serves the games. The relays and the bots run on the games'
//! runtime, as the players over TCP do, not on the pages' (whose threads yield to the games':
//! a bot there would think at a lower priority than its opponent's clock runs).

use crate::ladder_seats::{self, LadderRefusal};
use anqi_client::bots::{GreedyBot, SearchBot};
use anqi_client::tracker::{parse_server_line, Event, Tracker};
use anqi_client::{Bot, RandomBot};
use anqi_core::rules::Action;
use anqi_core::settings::ClockConfig;
use anqi_core::time_control::Tc;
use anqi_server::config::{Config, SeedSource};
use anqi_server::door::{Door, DoorClosed, Guest, LocalSeat};
use anqi_server::limits::{Admission, Refusal, Slot};
use anqi_server::watch::LadderPages;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot, watch};

/// The bots a person can play against, by the name the page and the API use.
pub const BOTS: [&str; 3] = ["random", "greedy", "search"];

/// How long an ended seat's page can still be reopened (to see how it ended); the seat holds
/// its place under the caps until then.
const KEEP_ENDED: Duration = Duration::from_secs(60);

/// How often a relay looks whether its page is still there.
const AWAY_CHECK: Duration = Duration::from_millis(250);

/// Error replies a seat's page is shown (the latest).
const SHOWN_ERRORS: usize = 5;

/// A seat request checked: the person's seed, the bots' strategy, the clock chosen.
type Checked = (String, Option<String>, Option<ClockConfig>);

/// The people's seats of one server.
pub struct Seats {
    door: Door,
    /// The games' runtime, where the relays and the bots run.
    games: tokio::runtime::Handle,
    variant: String,
    players: usize,
    admission: Admission,
    away: Duration,
    /// `[http] time_controls`: what a person may choose against bots, as written, and read.
    time_controls: Vec<Tc>,
    held: Mutex<HashMap<String, Arc<Human>>>,
    /// The server's ladder, when it runs one: people then play its rated games.
    ladder: Option<Arc<dyn LadderPages>>,
}

/// One person's seat, as the pages reach it.
pub struct Human {
    /// The seat's state for its pages; pages subscribe to it (their number is how the relay
    /// knows whether anyone is there).
    state: watch::Sender<SeatState>,
    acts: mpsc::Sender<(PageAction, oneshot::Sender<Result<(), ActRefusal>>)>,
    /// `[http] human_away_ms`: a page that answers nothing (not even a ping) for half of it
    /// is let go, so that a dead browser does not hold the seat.
    pub away: Duration,
}

/// A seat's state as its pages get it.
#[derive(Clone, Default)]
pub struct SeatState {
    /// The `{"type": "seat", ...}` message.
    pub json: Arc<str>,
    /// The seat is done with (its game over, or the seat given up): nothing more will change.
    pub ended: bool,
}

/// What a person's page asks for.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PageAction {
    /// An action as the wire writes it (`(rev 3)`, `(mov 4 5)`, `(bag)`, `(put K 7)`).
    #[serde(default)]
    pub act: Option<String>,
    /// The TURN of the prompt the action answers (to catch a click on an old position).
    #[serde(default)]
    pub turn: Option<u32>,
    /// Resign the game.
    #[serde(default)]
    pub resign: bool,
    /// Abort the game, with no result: only on the person's first turn, before any ply.
    #[serde(default)]
    pub abort: bool,
}

/// `POST /api/seats`: who sits down, and against whom. Its `Debug` leaves out the seed and the
/// secret.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    /// The person's name (on a ladder: the account's, whatever this says).
    #[serde(default)]
    pub name: String,
    /// The person's seed contribution to the deal (the page makes one up when left empty).
    #[serde(default)]
    pub seed: String,
    /// `"random"`, `"greedy"`, `"search"`: a game at once against the server's bots in every
    /// other seat; `"waiting"`: join the players waiting for a game.
    pub against: String,
    /// The seat wanted against bots, 1-based; 0 or absent: any.
    #[serde(default)]
    pub seat: usize,
    /// The time control against bots, one of `[http] time_controls` as written there
    /// (`"3:00+2"`); empty or absent: the server's `[clock]`.
    #[serde(default)]
    pub time: String,
    /// On a ladder (`against = "ladder"`): the account's secret; empty: play as a guest,
    /// where the ladder seats guests.
    #[serde(default)]
    pub secret: String,
}

impl std::fmt::Debug for Request {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Request")
            .field("name", &self.name)
            .field("against", &self.against)
            .field("seat", &self.seat)
            .field("time", &self.time)
            .finish_non_exhaustive()
    }
}

/// A seat given: its token, and on a ladder whose account sits (with its secret when the
/// account was made now, a guest's).
pub struct Seated {
    pub token: String,
    pub ladder: Option<(String, Option<String>)>,
}

/// Why a seat is not given: the request's fault (`Name` to `Seat`, answered `400 Bad
/// Request`: see [`SeatRefusal::is_bad_request`]), or the server's state (the others, `503
/// Service Unavailable`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SeatRefusal {
    #[error(transparent)]
    Name(#[from] NameRefusal),
    #[error("seed: up to 64 ASCII letters, digits, '-' or '_' (or empty: one is made up)")]
    Seed,
    /// `against` names no bot, nor `"waiting"` (its first 40 characters).
    #[error("against = {0:?}: one of \"random\", \"greedy\", \"search\" (the server's bots) or \"waiting\" (the players waiting for a game)")]
    Against(String),
    #[error("seat = {seat}: this variant has seats 1 to {players} (0: any)")]
    Seat { seat: usize, players: usize },
    /// `time` is none of `[http] time_controls` (its first 40 characters), or was asked for a
    /// game with the players waiting, whose clock is the server's.
    #[error("time = {given:?}: one of {offered} against the server's bots, or empty for the server's clock (a game with the players waiting is always on the server's clock)")]
    Time { given: String, offered: String },
    /// The operating system gave no secret for the seat's token.
    #[error("the server cannot draw a secret for the seat just now")]
    NoToken,
    /// The operating system gave no seeds for the bots.
    #[error("the server cannot draw the bots' seeds just now")]
    NoBotSeeds,
    /// `[http] max_humans_per_address` seats are held from the person's network.
    #[error("your network holds {0} seats already, the most allowed; finish a game first")]
    NetworkFull(usize),
    /// `[http] max_humans` seats are held in all.
    #[error("{0} people are playing, the most this server seats at once; try again later")]
    ServerFull(usize),
    /// The server is shutting down: its door seats no one.
    #[error("the server is shutting down")]
    Closed,
    /// A ladder's seat refused (`ladder_seats`).
    #[error(transparent)]
    Ladder(#[from] LadderRefusal),
}

impl SeatRefusal {
    /// Whether the request was at fault (rather than the server's state): said again, it is
    /// refused again.
    pub fn is_bad_request(&self) -> bool {
        // Every variant named: a new one is a decision, not a default.
        match self {
            SeatRefusal::Name(_)
            | SeatRefusal::Seed
            | SeatRefusal::Against(_)
            | SeatRefusal::Seat { .. }
            | SeatRefusal::Time { .. } => true,
            SeatRefusal::Ladder(refusal) => (400..500).contains(&refusal.status()),
            SeatRefusal::NoToken
            | SeatRefusal::NoBotSeeds
            | SeatRefusal::NetworkFull(_)
            | SeatRefusal::ServerFull(_)
            | SeatRefusal::Closed => false,
        }
    }

    /// The HTTP status that answers it: a request at fault 400 (on a ladder, as
    /// `LadderRefusal::status` says), the server's state 503.
    pub fn status(&self) -> u16 {
        match self {
            SeatRefusal::Ladder(refusal) => refusal.status(),
            r if r.is_bad_request() => 400,
            _ => 503,
        }
    }
}

/// Why a person's name is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameRefusal {
    /// The name of one of the server's bots (`random_bot`...), in any case.
    #[error("name {0:?} is the name of the server's bots: choose another")]
    Bots(String),
    /// Not a plain word (its first 40 characters).
    #[error("name {0:?}: 1 to 32 letters, digits, '-', '_' or '.', beginning with a letter")]
    NotAWord(String),
}

/// Why what a seat's page asked for did not go to the referee (the page is told, as a
/// `{"type": "refused"}` message).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ActRefusal {
    /// The page asked again before the last answer.
    #[error("one thing at a time: wait for the answer to the last click")]
    Busy,
    /// The seat's relay has stopped.
    #[error("this seat's game is over")]
    SeatDone,
    #[error("the game has not started yet")]
    NotStarted,
    #[error("the game is over")]
    Over,
    /// Neither an action nor a resignation.
    #[error("say what to do: {{\"act\": \"(rev 3)\", \"turn\": N}}, {{\"resign\": true}} or {{\"abort\": true}}")]
    Nothing,
    #[error("it is not your turn")]
    NotYourTurn,
    /// A click on an older position than the prompt's.
    #[error("that was for turn {sent}, and this is turn {now}")]
    OldTurn { sent: u32, now: u32 },
    /// Not a legal action of the prompt (its first 40 characters).
    #[error("{0:?} is not one of your legal actions now")]
    Illegal(String),
    /// The referee has let the seat go.
    #[error("the referee is not listening to this seat any more")]
    RefereeGone,
    /// An abort once a ply has been played, or not on the person's own first turn.
    #[error("a game can be aborted only on your first turn, before any ply has been played: resign instead")]
    TooLateToAbort,
}

impl Seats {
    /// The seats of a server seating by arrival through `door`, with `config`'s `[http]`
    /// caps. Called on the games' runtime, where the relays and bots will run.
    ///
    /// # Panics
    /// Outside a tokio runtime.
    pub fn new(
        door: Door,
        variant: &anqi_core::rules::Variant,
        config: &Config,
        ladder: Option<Arc<dyn LadderPages>>,
    ) -> Seats {
        Seats {
            door,
            games: tokio::runtime::Handle::current(),
            variant: variant.name.clone(),
            players: variant.players,
            admission: Admission::new(
                config.http.max_humans,
                config.http.max_humans_per_address,
                config.server.ipv4_prefix,
                config.server.ipv6_prefix,
            ),
            away: Duration::from_millis(config.http.human_away_ms),
            // Checked with the configuration; one that does not read is left out.
            time_controls: config
                .http
                .time_controls
                .iter()
                .filter_map(|t| t.parse().ok())
                .collect(),
            held: Mutex::default(),
            ladder,
        }
    }

    fn held(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Human>>> {
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What `GET /api/seats` says besides who waits: the variant, and the bots.
    pub fn info(&self) -> serde_json::Value {
        if let Some(ladder) = &self.ladder {
            return serde_json::json!({
                "humans": true,
                "variant": self.variant,
                "players": self.players,
                "bots": [],
                "time_controls": [],
                "ladder": { "guests": ladder.people().guests },
            });
        }
        serde_json::json!({
            "humans": true,
            "variant": self.variant,
            "players": self.players,
            "bots": BOTS,
            "time_controls": self.time_controls.iter().map(|t| t.text.as_str()).collect::<Vec<_>>(),
        })
    }

    /// Seats a person; returns the seat's token (and on a ladder, whose account sits). On a
    /// ladder, this blocks on its database: called off the pages' runtime.
    ///
    /// In order: the request is checked, the seat's token drawn, its place under the caps
    /// taken, (on a ladder, the account found or a guest's made), the person (and the bots)
    /// let in by the door, and the relay started.
    ///
    /// # Errors
    /// A request that does not say what it must, a cap reached, or a server shutting down.
    pub fn sit(self: &Arc<Self>, req: Request, peer: SocketAddr) -> Result<Seated, SeatRefusal> {
        if let Some(ladder) = &self.ladder {
            return self.sit_in_ladder(ladder.as_ref(), req, peer);
        }
        let (seed, bot, clock) = self.check_request(&req)?;
        let token = new_token().ok_or(SeatRefusal::NoToken)?;
        let slot = self.admit(peer)?;
        // The bots' seeds: fresh from the operating system for every game, so that the person
        // chooses nothing of them and, shown in the record after the game, they tell nothing
        // of the server's seed (a mix of the server's seed and the person's, as they once
        // were, reversed offline to a fixed server seed and so to the next deal).
        let bot_seeds = match &bot {
            Some(_) => fresh_seeds(self.players).ok_or(SeatRefusal::NoBotSeeds)?,
            None => Vec::new(),
        };
        let person = Guest {
            name: req.name.clone(),
            seed,
            peer,
        };
        let seat = match &bot {
            None => self.door.arrive(person),
            Some(strategy) => self.sit_with_bots(person, strategy, req.seat, &bot_seeds, clock),
        }
        .map_err(|_| SeatRefusal::Closed)?;
        self.relay_for(req.name, req.against, seat, peer, token.clone(), slot);
        Ok(Seated {
            token,
            ladder: None,
        })
    }

    /// Seats a person in a ladder's queue, by an account's secret or as a guest.
    fn sit_in_ladder(
        self: &Arc<Self>,
        ladder: &dyn LadderPages,
        req: Request,
        peer: SocketAddr,
    ) -> Result<Seated, SeatRefusal> {
        ladder_seats::check(&req.against, req.seat, &req.time, &req.secret)?;
        let token = new_token().ok_or(SeatRefusal::NoToken)?;
        // The caps before the account: a person turned away makes no guest.
        let slot = self.admit(peer)?;
        let sitting = ladder_seats::account(ladder, &req.secret, peer)?;
        let name = sitting.guest.name.clone();
        let seat = self
            .door
            .arrive(sitting.guest)
            .map_err(|_| SeatRefusal::Closed)?;
        self.relay_for(name.clone(), req.against, seat, peer, token.clone(), slot);
        Ok(Seated {
            token,
            ladder: Some((name, sitting.made)),
        })
    }

    /// Starts the relay of a person's seat, reached by `token`.
    fn relay_for(
        self: &Arc<Self>,
        name: String,
        against: String,
        seat: LocalSeat,
        peer: SocketAddr,
        token: String,
        slot: Slot,
    ) {
        let (state, _) = watch::channel(SeatState::default());
        let (acts_tx, acts) = mpsc::channel(4);
        let human = Arc::new(Human {
            state,
            acts: acts_tx,
            away: self.away,
        });
        self.held().insert(token.clone(), human.clone());
        tracing::info!(name = ?name, %peer, against = %against, "web: a person sat down");
        let relay = Relay {
            name,
            variant: self.variant.clone(),
            against,
            tracker: Tracker::new(None),
            game: None,
            errors: VecDeque::new(),
            phase: Phase::Waiting,
            why: None,
            aborted: false,
            human,
        };
        self.start_relay(relay, seat, acts, token, slot);
    }

    /// Checks what a seat request says, in this order: the name, the seed, whom against, the
    /// seat, the time control. Returns the person's seed (made up when left empty), the bots'
    /// strategy (`None`: the person joins the players waiting for a game) and the clock chosen
    /// (`None`: `[clock]`).
    fn check_request(&self, req: &Request) -> Result<Checked, SeatRefusal> {
        check_name(&req.name)?;
        let seed = if req.seed.is_empty() {
            SeedSource::Random.contribution()
        } else {
            check_seed(&req.seed)?;
            req.seed.clone()
        };
        let bot = match req.against.as_str() {
            "waiting" => None,
            b if BOTS.contains(&b) => Some(b.to_string()),
            other => {
                return Err(SeatRefusal::Against(other.chars().take(40).collect()));
            }
        };
        if req.seat > self.players {
            return Err(SeatRefusal::Seat {
                seat: req.seat,
                players: self.players,
            });
        }
        let clock = if req.time.is_empty() {
            None
        } else {
            let chosen = self.time_controls.iter().find(|t| t.text == req.time);
            match (chosen, &bot) {
                (Some(tc), Some(_)) => Some(tc.clock.clone()),
                _ => {
                    return Err(SeatRefusal::Time {
                        given: req.time.chars().take(40).collect(),
                        offered: self
                            .time_controls
                            .iter()
                            .map(|t| format!("{:?}", t.text))
                            .collect::<Vec<_>>()
                            .join(", "),
                    })
                }
            }
        };
        Ok((seed, bot, clock))
    }

    /// Takes the seat's place under `[http] max_humans` and `max_humans_per_address`, held
    /// until the seat is let go.
    fn admit(&self, peer: SocketAddr) -> Result<Slot, SeatRefusal> {
        self.admission.admit(peer.ip()).map_err(|r| match r {
            Refusal::PerAddress(n) => SeatRefusal::NetworkFull(n),
            _ => SeatRefusal::ServerFull(self.admission.cap()),
        })
    }

    /// Seats `person` at a table of its own against the `strategy` bots, one in every other
    /// seat, each with its seed of `bot_seeds` (one per seat, the person's left unused), and
    /// starts the bots. `wanted` is the person's seat, 1-based (0: one drawn at random).
    /// Returns the person's seat.
    fn sit_with_bots(
        &self,
        person: Guest,
        strategy: &str,
        wanted: usize,
        bot_seeds: &[u64],
        clock: Option<ClockConfig>,
    ) -> Result<LocalSeat, DoorClosed> {
        let me = if wanted == 0 {
            random_below(self.players)
        } else {
            wanted - 1
        };
        let mut guests = Vec::with_capacity(self.players);
        let mut bots = Vec::new();
        for (s, &bot_seed) in bot_seeds.iter().enumerate() {
            if s == me {
                guests.push(person.clone());
            } else {
                guests.push(Guest {
                    name: format!("{strategy}_bot"),
                    seed: format!("{bot_seed:016x}"),
                    peer: person.peer,
                });
                bots.push((s, bot_seed));
            }
        }
        self.door.table(guests, clock).map(|mut seats| {
            // Drained back to front, so that the indices still to come stay valid.
            for (s, bot_seed) in bots.into_iter().rev() {
                self.games
                    .spawn(run_bot(seats.remove(s), new_bot(strategy, bot_seed)));
            }
            seats.remove(0)
        })
    }

    /// Runs the seat's relay on the games' runtime; once it ends, the seat stays open to its
    /// pages for [`KEEP_ENDED`], and then its token and its place under the caps (`slot`) are
    /// let go.
    fn start_relay(
        self: &Arc<Self>,
        relay: Relay,
        seat: LocalSeat,
        acts: mpsc::Receiver<(PageAction, oneshot::Sender<Result<(), ActRefusal>>)>,
        token: String,
        slot: Slot,
    ) {
        let seats = self.clone();
        self.games.spawn(async move {
            relay.run(seat, acts, seats.away).await;
            // The page may still come to see how it ended, for a while; the seat keeps its
            // place under the caps until then, so that seats cannot be piled up faster than
            // they are let go.
            tokio::time::sleep(KEEP_ENDED).await;
            seats.held().remove(&token);
            drop(slot);
        });
    }

    /// The seat a token opens.
    pub fn human(&self, token: &str) -> Option<Arc<Human>> {
        self.held().get(token).cloned()
    }
}

impl Human {
    /// A page's view of the seat: its state now and at every change.
    pub fn subscribe(&self) -> watch::Receiver<SeatState> {
        self.state.subscribe()
    }

    /// Hands the relay what the page asked for; the answer says whether it went to the
    /// referee, or why not.
    ///
    /// # Errors
    /// Why it did not go to the referee.
    pub async fn ask(&self, action: PageAction) -> Result<(), ActRefusal> {
        let (tx, rx) = oneshot::channel();
        self.acts.try_send((action, tx)).map_err(|e| match e {
            mpsc::error::TrySendError::Full(_) => ActRefusal::Busy,
            mpsc::error::TrySendError::Closed(_) => ActRefusal::SeatDone,
        })?;
        rx.await.unwrap_or(Err(ActRefusal::SeatDone))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum Phase {
    /// In the queue of players waiting for a game.
    Waiting,
    Playing,
    /// The game ended by its rules (or was aborted).
    Over,
    /// The seat was let go before its game ended (no page, or the server stopped).
    Gone,
}

/// Speaks the protocol for one person.
struct Relay {
    name: String,
    variant: String,
    against: String,
    tracker: Tracker,
    game: Option<u64>,
    errors: VecDeque<(String, String)>,
    phase: Phase,
    why: Option<String>,
    /// The person aborted the game ([`PageAction::abort`]): its end is the game's, not the
    /// seat's.
    aborted: bool,
    human: Arc<Human>,
}

impl Relay {
    async fn run(
        mut self,
        mut seat: LocalSeat,
        mut acts: mpsc::Receiver<(PageAction, oneshot::Sender<Result<(), ActRefusal>>)>,
        away: Duration,
    ) {
        self.publish();
        let mut check = tokio::time::interval(AWAY_CHECK);
        let mut alone_since: Option<Instant> = None;
        loop {
            tokio::select! {
                line = seat.recv() => match line {
                    Some(line) => {
                        if self.game.is_none() {
                            self.game = seat.game();
                        }
                        self.on_line(&line);
                    }
                    None => {
                        // An abort the person asked for ends the game, not the seat.
                        if self.aborted {
                            self.phase = Phase::Over;
                        }
                        if self.phase != Phase::Over {
                            self.phase = Phase::Gone;
                            if self.why.is_none() {
                                self.why = Some(match self.errors.back() {
                                    Some((code, text)) => format!("{code}: {text}"),
                                    None => "the server let the seat go".into(),
                                });
                            }
                        }
                        break;
                    }
                },
                Some((action, reply)) = acts.recv() => {
                    let _ = reply.send(self.on_page(action, &seat));
                }
                _ = check.tick() => {
                    // No page open on the seat for `away`: let it go.
                    if self.human.state.receiver_count() > 0 {
                        alone_since = None;
                        continue;
                    }
                    let since = *alone_since.get_or_insert_with(Instant::now);
                    if since.elapsed() >= away {
                        self.phase = Phase::Gone;
                        self.why = Some(format!(
                            "no page was open on this seat for {} s, so it was given up",
                            away.as_secs_f64()
                        ));
                        tracing::info!(name = ?self.name, game = ?self.game, "web: a person's seat given up: no page open on it");
                        break;
                    }
                    continue;
                }
            }
            self.publish();
        }
        // The seat's connection closes here (the referee rules on it if the game still runs).
        drop(seat);
        self.publish_as(true);
    }

    /// A line from the referee.
    fn on_line(&mut self, line: &str) {
        let msg = match parse_server_line(line) {
            Ok(Some(msg)) => msg,
            Ok(None) => return,
            Err(e) => {
                tracing::warn!(error = %e, "web: a person's seat got a line it cannot read");
                return;
            }
        };
        let before = self.tracker.errors().len();
        match self.tracker.feed(&msg) {
            Ok(Event::Over(_)) => self.phase = Phase::Over,
            Ok(_) => {
                if self.tracker.setup().is_some() && self.phase == Phase::Waiting {
                    self.phase = Phase::Playing;
                }
            }
            Err(e) => tracing::warn!(error = %e, "web: a person's seat cannot follow its game"),
        }
        for (code, text) in &self.tracker.errors()[before..] {
            self.errors
                .push_back((code.name().to_string(), text.clone()));
            if self.errors.len() > SHOWN_ERRORS {
                self.errors.pop_front();
            }
        }
    }

    /// What a page asked for: sent to the referee only when it is a legal action of the
    /// person's own prompt (or a resignation during the game).
    fn on_page(&mut self, action: PageAction, seat: &LocalSeat) -> Result<(), ActRefusal> {
        match self.phase {
            Phase::Playing => {}
            Phase::Waiting => return Err(ActRefusal::NotStarted),
            Phase::Over | Phase::Gone => return Err(ActRefusal::Over),
        }
        if action.abort {
            // Only before any ply (the `last` extension tells each ply: none yet), which the
            // referee checks too: a draw from the bag keeps the turn, and in 1v2 player 1
            // moves again at turn 0 after two plies.
            let first = self
                .tracker
                .observation()
                .is_some_and(|o| o.turn == 0 && o.to_move == 1 && o.history.plies().is_empty());
            if !(first && self.tracker.awaiting()) {
                return Err(ActRefusal::TooLateToAbort);
            }
            seat.abort();
            self.aborted = true;
            return Ok(());
        }
        let msg = if action.resign {
            self.tracker.resign()
        } else {
            let text = action.act.ok_or(ActRefusal::Nothing)?;
            let view = self.tracker.view().ok_or(ActRefusal::NotYourTurn)?;
            if let Some(sent) = action.turn.filter(|&t| t != view.turn) {
                return Err(ActRefusal::OldTurn {
                    sent,
                    now: view.turn,
                });
            }
            let chosen: Action = *view
                .legal
                .iter()
                .find(|a| a.to_string() == text)
                .ok_or_else(|| ActRefusal::Illegal(text.chars().take(40).collect()))?;
            self.tracker.reply(chosen)
        };
        seat.send(msg).map_err(|_| ActRefusal::RefereeGone)
    }

    /// Tells the pages the seat's state.
    fn publish(&self) {
        self.publish_as(false);
    }

    /// Tells the pages the seat's state, and whether it is its last.
    fn publish_as(&self, ended: bool) {
        let observation = self.tracker.observation();
        let awaiting = self.phase == Phase::Playing && self.tracker.awaiting();
        let actions: Vec<String> = match (awaiting, self.tracker.view()) {
            (true, Some(view)) => view.legal.iter().map(ToString::to_string).collect(),
            _ => Vec::new(),
        };
        let state = serde_json::json!({
            "type": "seat",
            "state": self.phase,
            "name": self.name,
            "variant": self.variant,
            "against": self.against,
            "game": self.game,
            "player": self.tracker.setup().map(|s| s.id),
            "board": observation.map(|o| o.wire_board.as_str()),
            "turn": observation.map(|o| o.turn),
            "to_move": observation.filter(|_| self.phase == Phase::Playing).map(|o| o.to_move),
            "my_turn": awaiting,
            "actions": actions,
            "errors": self.errors.iter().map(|(c, t)| serde_json::json!({"code": c, "text": t})).collect::<Vec<_>>(),
            "result": self.tracker.result().map(|r| format!("(win {} {})", r.win.0, r.win.1)),
            "why": self.why,
        });
        let state = state.to_string();
        // Pages hear of changes only.
        self.human.state.send_if_modified(|now| {
            let changed = *now.json != *state || now.ended != ended;
            if changed {
                *now = SeatState {
                    json: state.into(),
                    ended,
                };
            }
            changed
        });
    }
}

/// Plays one seat with a reference bot until the referee lets it go.
async fn run_bot(mut seat: LocalSeat, bot: Box<dyn Bot + Send>) {
    let mut tracker = Some(Tracker::new(None));
    let mut bot = Some(bot);
    while let Some(line) = seat.recv().await {
        let (Some(mut t), Some(mut b)) = (tracker.take(), bot.take()) else {
            break;
        };
        let msg = match parse_server_line(&line) {
            Ok(Some(msg)) => msg,
            _ => {
                (tracker, bot) = (Some(t), Some(b));
                continue;
            }
        };
        match t.feed(&msg) {
            Ok(Event::Prompt) => {
                // The choice may be a search: on a blocking thread, not the runtime's.
                let chosen = tokio::task::spawn_blocking(move || {
                    let action = t.view().map(|v| b.choose(&v));
                    (t, b, action)
                })
                .await;
                let Ok((mut t, b, Some(action))) = chosen else {
                    break;
                };
                let reply = t.reply(action);
                if seat.send(reply).is_err() {
                    break;
                }
                (tracker, bot) = (Some(t), Some(b));
            }
            Ok(_) => (tracker, bot) = (Some(t), Some(b)),
            Err(e) => {
                tracing::warn!(error = %e, "web: a bot cannot follow its game; it leaves");
                break;
            }
        }
    }
}

fn new_bot(strategy: &str, seed: u64) -> Box<dyn Bot + Send> {
    match strategy {
        "greedy" => Box::new(GreedyBot::new(seed)),
        "search" => Box::new(SearchBot::new(seed)),
        _ => Box::new(RandomBot::new(seed)),
    }
}

/// A person's name: what the records and the other players' pages show.
///
/// # Errors
/// A bot's name, or not a plain word.
pub fn check_name(name: &str) -> Result<(), NameRefusal> {
    if BOTS
        .iter()
        .any(|b| name.eq_ignore_ascii_case(&format!("{b}_bot")))
    {
        return Err(NameRefusal::Bots(name.to_string()));
    }
    let ok = !name.is_empty()
        && name.chars().count() <= 32
        && name.starts_with(|c: char| c.is_alphabetic())
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(NameRefusal::NotAWord(name.chars().take(40).collect()))
    }
}

fn check_seed(seed: &str) -> Result<(), SeatRefusal> {
    if seed.len() <= 64
        && seed
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        Ok(())
    } else {
        Err(SeatRefusal::Seed)
    }
}

/// A seat's token: 128 bits from the operating system, in hex; none when the system cannot
/// give them (a token made up from the clock could be guessed).
fn new_token() -> Option<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).ok()?;
    Some(anqi_core::hex::hex(&bytes))
}

/// A number below `n` from the operating system.
fn random_below(n: usize) -> usize {
    let mut bytes = [0u8; 8];
    let _ = getrandom::fill(&mut bytes);
    (u64::from_le_bytes(bytes) % n.max(1) as u64) as usize
}

/// `n` seeds of 64 bits from the operating system; none when it cannot give them (seeds made
/// up from the clock could be guessed, and with them the deal).
fn fresh_seeds(n: usize) -> Option<Vec<u64>> {
    let mut bytes = vec![0u8; 8 * n];
    getrandom::fill(&mut bytes).ok()?;
    Some(
        bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_plain_words() {
        assert!(check_name("alice").is_ok());
        assert!(check_name("Zhang_3.x-y").is_ok());
        assert!(check_name("張三").is_ok());
        for bad in ["", "3x", "a b", "(absent", "a)", &"x".repeat(33), "a\nb"] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn refusals_say_why_as_they_did_in_words() {
        assert_eq!(
            check_name("Random_Bot"),
            Err(NameRefusal::Bots("Random_Bot".into()))
        );
        assert_eq!(
            SeatRefusal::from(check_name("a b").unwrap_err()).to_string(),
            "name \"a b\": 1 to 32 letters, digits, '-', '_' or '.', beginning with a letter"
        );
        assert_eq!(
            SeatRefusal::Against("robot".into()).to_string(),
            "against = \"robot\": one of \"random\", \"greedy\", \"search\" (the server's bots) or \"waiting\" (the players waiting for a game)"
        );
        assert_eq!(
            SeatRefusal::Seat {
                seat: 5,
                players: 4
            }
            .to_string(),
            "seat = 5: this variant has seats 1 to 4 (0: any)"
        );
        assert!(SeatRefusal::Seed.is_bad_request());
        assert!(!SeatRefusal::NetworkFull(2).is_bad_request());
        assert!(!SeatRefusal::Closed.is_bad_request());
        assert_eq!(
            ActRefusal::Nothing.to_string(),
            r#"say what to do: {"act": "(rev 3)", "turn": N}, {"resign": true} or {"abort": true}"#
        );
        assert_eq!(
            ActRefusal::OldTurn { sent: 3, now: 5 }.to_string(),
            "that was for turn 3, and this is turn 5"
        );
        assert_eq!(
            ActRefusal::Illegal("(rev 99)".into()).to_string(),
            "\"(rev 99)\" is not one of your legal actions now"
        );
    }

    #[test]
    fn seeds_are_plain() {
        assert!(check_seed("").is_ok());
        assert!(check_seed("abc-12_Z").is_ok());
        assert!(check_seed("a b").is_err());
        assert!(check_seed(&"x".repeat(65)).is_err());
    }

    #[test]
    fn bot_seeds_are_fresh_for_every_game() {
        let a = fresh_seeds(3).unwrap();
        let b = fresh_seeds(3).unwrap();
        assert_eq!(a.len(), 3);
        assert_ne!(a, b);
        assert_ne!(a[0], a[1]);
    }
}
