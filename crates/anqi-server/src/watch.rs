//! Watching games: the hub where referees publish each game's public events
//! (`anqi_core::view`) and observers (the web pages of `anqi-web`) read them.
//!
//! A referee never waits for an observer. Each game's events are serialized once, kept in the
//! game's feed, and sent to its live observers through a bounded broadcast channel: an
//! observer whose connection does not take them fast enough falls `observer_queue` events
//! behind, and is dropped with a logged reason. Observers are capped per game here; their
//! connections are capped in all and per address by the web server.
//!
//! A broadcast delay (`delay_plies`, `delay_ms`) holds events back from observers; a finished
//! game is released whole. A finished game keeps only its record (the most recent
//! `keep_finished` of them), and its events are rebuilt from it when first asked for, as
//! `anqi view` does for a records file, then kept in a cache bounded in bytes
//! (`events_cache_bytes`, `cache`): a page polling a finished game does not replay it each
//! time. Rebuilding is the only slow call here; the web server makes it on threads of its own.
//!
//! A game can be withheld ([`Hub::withhold`]): a tournament that plays one deal in several
//! games keeps each of them off the pages until every game of the deal has ended, since a
//! finished game's end shows the deal that another game is still playing. A withheld game's
//! record, events, end, exchange and exports are refused ([`WatchRefusal::Withheld`]) until
//! [`Hub::disclose`]; the list shows that it exists and little else.

mod cache;
mod ladder;

pub use cache::GameEvents;
pub use ladder::{
    LadderPages, LadderPeople, Registered, Registrant, RegistrationRefusal, SeatAccount,
};

use crate::config::HttpConfig;
use crate::exchange::Exchange;
use anqi_core::record::GameRecord;
use anqi_core::rules::Deal;
use anqi_core::view::{self, EndView, Event};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};
use tokio::sync::broadcast;

/// The watching side of a server: every running game's feed and the last finished games.
#[derive(Clone)]
pub struct Hub {
    inner: Arc<HubInner>,
}

struct HubInner {
    delay_plies: u32,
    delay: Duration,
    keep_finished: usize,
    max_observers_per_game: usize,
    observer_queue: usize,
    /// Whether the server's seed is fixed (it is then left out of the records shown).
    hide_server_seed: bool,
    games: Mutex<Games>,
    /// An event's progress and standings (tournaments), as JSON.
    event: Mutex<Option<Arc<str>>>,
    /// A ladder's pages, when the server runs one.
    ladder: Mutex<Option<Arc<dyn LadderPages>>>,
    /// Who waits for a game on a server seating by arrival.
    waiting: Mutex<Vec<Waiting>>,
    /// The finished games' events, rebuilt once.
    cache: cache::EventsCache,
    /// `[http] exchange_bytes` and `exchange_line_bytes`: one game's exchange.
    exchange_bytes: usize,
    exchange_line_bytes: usize,
    /// `[http] keep_exchanges_bytes`: the finished games' exchanges in all.
    keep_exchanges_bytes: usize,
    /// What an operator reads (`GET /metrics`): counted as the games run.
    metrics: crate::metrics::Metrics,
    /// Only counting ([`Hub::counting_only`]): no game's events, record or exchange kept.
    counting_only: bool,
}

/// A player waiting for a game (`GET /api/seats`): a seat a person can take.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Waiting {
    pub name: String,
    /// Since when, in ms since the Unix epoch.
    pub since_unix_ms: u64,
}

#[derive(Default)]
struct Games {
    running: BTreeMap<u64, Arc<Feed>>,
    finished: BTreeMap<u64, Arc<Finished>>,
    /// Finished games in the order they finished, to let the oldest go.
    finished_order: VecDeque<u64>,
    /// The exchanges of the latest finished games, oldest first, within
    /// `keep_exchanges_bytes`.
    exchanges: VecDeque<(u64, Arc<Exchange>)>,
    /// Their bytes.
    exchanges_bytes: usize,
    /// Their games, for the list's `exchange`.
    exchange_kept: HashSet<u64>,
    /// Games kept off the pages ([`Hub::withhold`]), with whether their live feed is too.
    /// An entry stays until [`Hub::disclose`] (a few bytes a game, for games not yet played
    /// too).
    withheld: HashMap<u64, Withheld>,
}

/// How much of a game is kept off the pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Withheld {
    /// Its end and everything after (record, end view, exchange, exports); the live feed is
    /// shown while it runs, without its end.
    End,
    /// Also its live feed and events while it runs.
    Live,
}

/// A finished game: its record, and what the list shows of it.
struct Finished {
    record: GameRecord,
    summary: GameSummary,
}

/// One line of the game list (`GET /api/games`).
#[derive(Clone, Debug, Serialize)]
pub struct GameSummary {
    pub game: u64,
    pub variant: String,
    pub players: Vec<String>,
    pub started_unix_ms: u64,
    /// `"running"` or `"finished"`.
    pub state: &'static str,
    /// Plies shown so far (behind the game by the broadcast delay while it runs).
    pub ply: u32,
    /// The player to move, while the game runs.
    pub to_move: Option<usize>,
    pub used_ms: Vec<u64>,
    /// Time left per player, when the game is timed and running.
    pub clocks_ms: Option<Vec<Option<u64>>>,
    /// `(win P T)`, empty for an aborted game; `None` while running.
    pub win: Option<String>,
    /// The termination (`"capture-all"`, `"resign"`, ...), once finished.
    pub reason: Option<String>,
    /// The player whose fault ended the game (resigned, ran out of time...), once finished.
    pub loser: Option<usize>,
    /// Each player's colour (`"red"`, `"black"`; `null` for one never known), once finished:
    /// with `win` and `reason`, what a page says the result with ("Red wins: every black
    /// piece captured").
    pub colours: Option<Vec<Option<String>>>,
    /// Pages watching it live.
    pub observers: usize,
    /// Whether its exchange can be had (`GET /api/games/{id}/exchange` answers): a finished
    /// game played with the pages on in this run, its exchange still kept. Never for a
    /// running or withheld game, nor a game shown from its record (`anqi view`, or played
    /// before the server started).
    pub exchange: bool,
    /// The wire board of the position shown (a letter per cell, `X` face-down, `.` empty):
    /// the last ply released while it runs, the final board once finished; `None` for a
    /// withheld game.
    pub board: Option<String>,
    /// Why the game's deal, events and result are not shown ([`Hub::withhold`]); absent for
    /// a game shown as any other.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub withheld: Option<String>,
}

impl GameSummary {
    /// What the list shows of a withheld game: that it exists, runs or has finished, its
    /// players and its ply count; nothing of its deal, clocks or result.
    fn withheld(&self) -> GameSummary {
        GameSummary {
            game: self.game,
            variant: self.variant.clone(),
            players: self.players.clone(),
            started_unix_ms: self.started_unix_ms,
            state: self.state,
            ply: self.ply,
            to_move: None,
            used_ms: Vec::new(),
            clocks_ms: None,
            win: None,
            reason: None,
            loser: None,
            colours: None,
            observers: self.observers,
            exchange: false,
            board: None,
            withheld: Some(WatchRefusal::Withheld(self.game).to_string()),
        }
    }
}

/// One running game's events.
struct Feed {
    game: u64,
    state: Mutex<FeedState>,
}

struct FeedState {
    /// Events observers may see, each a JSON text with its `seq`.
    released: Vec<Arc<str>>,
    /// Events held back by the broadcast delay, oldest first.
    held: VecDeque<Held>,
    /// The last ply played (released or not).
    ply: u32,
    summary: GameSummary,
    observers: usize,
    /// The live observers' queue, made when the first one comes (its slots are allocated
    /// at once: thousands of unwatched games would hold them for nothing).
    live: Option<broadcast::Sender<Arc<str>>>,
}

struct Held {
    /// The game's setup, never held back.
    setup: bool,
    ply: u32,
    at: Instant,
    json: Arc<str>,
    progress: Option<Progress>,
}

/// What a ply changes in the game's line of the list.
struct Progress {
    ply: u32,
    to_move: Option<usize>,
    used_ms: Vec<u64>,
    clocks_ms: Option<Vec<Option<u64>>>,
    board: String,
}

/// Why an observer cannot watch a game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WatchRefusal {
    #[error("no game {0} here (finished games are kept for a while: see the records file)")]
    Unknown(u64),
    #[error("game {0} is still running: this comes at its end")]
    Running(u64),
    #[error(
        "game {0}'s exchange is no longer kept (the latest finished games' are, within [http] keep_exchanges_bytes)"
    )]
    Forgotten(u64),
    #[error("game {0} has {1} observers already, the most allowed; try again later")]
    Full(u64, usize),
    /// The game is withheld ([`Hub::withhold`]): its deal is still being played elsewhere.
    #[error(
        "game {0}'s deal is still in play in another game of this event; it is shown when every game of its deal has ended"
    )]
    Withheld(u64),
}

/// A game to watch: what happened so far, then what happens next.
pub struct Watcher {
    /// The events so far, in order (the whole game when it is over).
    pub backlog: Vec<Arc<str>>,
    /// The events to come, `None` when the game is over. A receiver that lags has fallen
    /// `observer_queue` events behind: drop it.
    pub live: Option<broadcast::Receiver<Arc<str>>>,
    _seat: Option<ObserverSeat>,
}

/// An observer's place at a game, given back when dropped.
struct ObserverSeat(Weak<Feed>);

impl Drop for ObserverSeat {
    fn drop(&mut self) {
        if let Some(feed) = self.0.upgrade() {
            let mut state = feed.lock();
            state.observers -= 1;
            state.summary.observers = state.observers;
        }
    }
}

impl Feed {
    fn lock(&self) -> std::sync::MutexGuard<'_, FeedState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The referee's end of a game's feed.
pub struct GameFeed {
    feed: Arc<Feed>,
    hub: Hub,
    /// The deal, shown at the end.
    deal: Deal,
    next_seq: usize,
    /// Each player's thinking time so far, summed from the plies' `think_ms` as a rebuild from
    /// the record sums it.
    used_ms: Vec<u64>,
}

impl Hub {
    /// A hub with `[http]`'s settings; `hide_server_seed` when `[seed] server` is fixed.
    pub fn new(cfg: &HttpConfig, hide_server_seed: bool) -> Hub {
        Hub {
            inner: Arc::new(HubInner {
                delay_plies: cfg.delay_plies,
                delay: Duration::from_millis(cfg.delay_ms),
                keep_finished: cfg.keep_finished,
                max_observers_per_game: cfg.max_observers_per_game,
                observer_queue: cfg.observer_queue,
                hide_server_seed,
                games: Mutex::default(),
                event: Mutex::default(),
                ladder: Mutex::default(),
                waiting: Mutex::default(),
                cache: cache::EventsCache::new(cfg.events_cache_bytes),
                exchange_bytes: cfg.exchange_bytes,
                exchange_line_bytes: cfg.exchange_line_bytes,
                keep_exchanges_bytes: cfg.keep_exchanges_bytes,
                metrics: crate::metrics::Metrics::default(),
                counting_only: false,
            }),
        }
    }

    /// A hub that only counts, for `GET /metrics` without the pages (`anqi serve --metrics`):
    /// the games running and the lobby are listed, the games, plies and ends counted, but no
    /// game's events are made, nor its record or exchange kept, which would cost every ply
    /// and every game for nobody to read.
    pub fn counting_only(cfg: &HttpConfig) -> Hub {
        let mut hub = Hub::new(cfg, true);
        let inner = Arc::get_mut(&mut hub.inner).expect("a hub not shared yet");
        inner.counting_only = true;
        inner.keep_finished = 0;
        inner.exchange_bytes = 0;
        inner.keep_exchanges_bytes = 0;
        hub
    }

    fn games(&self) -> std::sync::MutexGuard<'_, Games> {
        self.inner.games.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The counters of the games this hub watches (`GET /metrics`).
    pub fn metrics(&self) -> &crate::metrics::Metrics {
        &self.inner.metrics
    }

    /// Opens the feed of a game that starts with `setup`.
    pub fn open(&self, setup: view::Setup, deal: Deal) -> GameFeed {
        self.inner.metrics.game_started();
        let summary = GameSummary {
            game: setup.game,
            variant: setup.variant.clone(),
            players: setup.players.iter().map(|p| p.name.clone()).collect(),
            started_unix_ms: setup.started_unix_ms,
            state: "running",
            ply: 0,
            to_move: setup.position.to_move,
            used_ms: setup.position.used_ms.clone(),
            clocks_ms: setup.position.clocks_ms.clone(),
            win: None,
            reason: None,
            loser: None,
            colours: None,
            observers: 0,
            exchange: false,
            board: Some(setup.position.board.clone()),
            withheld: None,
        };
        let game = setup.game;
        let feed = Arc::new(Feed {
            game,
            state: Mutex::new(FeedState {
                released: Vec::new(),
                held: VecDeque::new(),
                ply: 0,
                summary,
                observers: 0,
                live: None,
            }),
        });
        self.games().running.insert(game, feed.clone());
        let mut feed = GameFeed {
            feed,
            hub: self.clone(),
            deal,
            next_seq: 0,
            used_ms: setup.position.used_ms.clone(),
        };
        if !self.inner.counting_only {
            feed.push(&Event::Setup(Box::new(setup)));
        }
        feed
    }

    /// Adds a finished game from its record (`anqi view`): shown as the server shows the
    /// games it finished.
    pub fn add_record(&self, record: GameRecord) {
        let summary = finished_summary(&record, 0);
        self.keep(Arc::new(Finished { record, summary }));
    }

    fn keep(&self, finished: Arc<Finished>) {
        let game = finished.record.game;
        let mut games = self.games();
        games.running.remove(&game);
        // A number given twice (records files of older servers, which numbered from 1 at
        // every start): the later game is shown, and counted once.
        if games.finished.insert(game, finished).is_some() {
            games.finished_order.retain(|g| *g != game);
            self.inner.cache.forget(game);
        }
        games.finished_order.push_back(game);
        while games.finished_order.len() > self.inner.keep_finished {
            if let Some(old) = games.finished_order.pop_front() {
                games.finished.remove(&old);
                self.inner.cache.forget(old);
            }
        }
    }

    /// Every game shown: the running ones, then the finished ones, newest first.
    ///
    /// A withheld game ([`Hub::withhold`]) is listed with its players and ply count only,
    /// finished or running (and running as any other when only its end is withheld).
    pub fn list(&self) -> Vec<GameSummary> {
        let games = self.games();
        let exchange = |mut summary: GameSummary| {
            summary.exchange = games.exchange_kept.contains(&summary.game);
            summary
        };
        let running = games.running.values().rev().map(|f| {
            let summary = f.lock().summary.clone();
            match games.withheld.get(&f.game) {
                Some(Withheld::End) if summary.state == "running" => summary,
                Some(_) => summary.withheld(),
                None => exchange(summary),
            }
        });
        let finished = games.finished.iter().rev().map(|(game, f)| {
            if games.withheld.contains_key(game) {
                f.summary.withheld()
            } else {
                exchange(f.summary.clone())
            }
        });
        running.chain(finished).collect()
    }

    /// How many finished games are kept (`[http] keep_finished`).
    pub fn keep_finished(&self) -> usize {
        self.inner.keep_finished
    }

    /// Keeps game `game` (the server's game number; may be called before the game starts) off
    /// every page and API until [`Hub::disclose`]: once finished, its record, events, end view
    /// (deal, seeds), exchange and exports are refused with a clear reason, and the list shows it
    /// as finished without anything of its deal. With `live`, its live feed and events are
    /// refused while it runs too (the list shows only that it runs, its players, and its ply count).
    ///
    /// A later call replaces an earlier one. Pages already watching the game live when `live`
    /// comes are told why ([`WatchRefusal::Withheld`]'s text, as a `withheld` message) and
    /// their feed closes; without `live`, pages watching it get its plies but not its end.
    pub fn withhold(&self, game: u64, live: bool) {
        let how = if live { Withheld::Live } else { Withheld::End };
        let feed = {
            let mut games = self.games();
            games.withheld.insert(game, how);
            games.running.get(&game).cloned()
        };
        if let (Some(feed), true) = (feed, live) {
            let mut state = feed.lock();
            if let Some(live) = state.live.take() {
                let _ = live.send(withheld_notice(game));
            }
        }
    }

    /// Shows game `game` again as any other game.
    pub fn disclose(&self, game: u64) {
        self.games().withheld.remove(&game);
    }

    /// How much of game `game` is withheld, if any.
    fn withheld(&self, game: u64) -> Option<Withheld> {
        self.games().withheld.get(&game).copied()
    }

    /// Sets who waits for a game, longest first (the seating task, whenever it changes).
    pub fn set_waiting(&self, waiting: Vec<Waiting>) {
        *self.inner.waiting.lock().unwrap_or_else(|e| e.into_inner()) = waiting;
    }

    /// Who waits for a game, longest first.
    pub fn waiting(&self) -> Vec<Waiting> {
        self.inner
            .waiting
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Sets the event's progress and standings (a JSON object: `anqi tournament --http`).
    pub fn set_event(&self, json: String) {
        *self.inner.event.lock().unwrap_or_else(|e| e.into_inner()) = Some(json.into());
    }

    /// The event's progress and standings, when the games are a tournament's.
    pub fn event(&self) -> Option<Arc<str>> {
        self.inner
            .event
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Shows a ladder's leaderboard and players' pages (`anqi serve --ladder`).
    pub fn set_ladder(&self, pages: Arc<dyn LadderPages>) {
        *self.inner.ladder.lock().unwrap_or_else(|e| e.into_inner()) = Some(pages);
    }

    /// The ladder's pages, when the server runs one.
    pub fn ladder(&self) -> Option<Arc<dyn LadderPages>> {
        self.inner
            .ladder
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The record of game `game`, once it is finished (and still kept), unless it is
    /// withheld ([`Hub::events`] then says why).
    pub fn record(&self, game: u64) -> Option<GameRecord> {
        let games = self.games();
        if games.withheld.contains_key(&game) {
            return None;
        }
        let finished = games.finished.get(&game)?;
        let mut record = finished.record.clone();
        if self.inner.hide_server_seed {
            record.seeds.server.clear();
        }
        Some(record)
    }

    /// What the referee and each player of game `game` said to each other, once it is
    /// finished (for the latest finished games played with the pages on, within
    /// `keep_exchanges_bytes`).
    ///
    /// # Errors
    /// When the game is unknown, still running, withheld, or its exchange no longer kept.
    pub fn exchange(&self, game: u64) -> Result<Arc<Exchange>, WatchRefusal> {
        let games = self.games();
        if games.withheld.contains_key(&game) {
            return Err(WatchRefusal::Withheld(game));
        }
        if let Some((_, x)) = games.exchanges.iter().find(|(g, _)| *g == game) {
            return Ok(x.clone());
        }
        if games.running.contains_key(&game) {
            Err(WatchRefusal::Running(game))
        } else if games.finished.contains_key(&game) {
            Err(WatchRefusal::Forgotten(game))
        } else {
            Err(WatchRefusal::Unknown(game))
        }
    }

    /// The events of game `game` so far (all of them once it is over), each a JSON text.
    ///
    /// For a finished game not asked for lately, this replays its record (milliseconds): call
    /// it off the runtime that plays the games.
    ///
    /// # Errors
    /// When the game is not here, or withheld (finished, or running with its live feed
    /// withheld).
    pub fn events(&self, game: u64) -> Result<Vec<Arc<str>>, WatchRefusal> {
        Ok(self.watch_inner(game, false)?.backlog)
    }

    /// Game `game`'s events so far as one JSON text, `{"game":N,"events":[...]}` (the body of
    /// `GET /api/games/{id}`); a finished game's is built once and kept (replaying it when not
    /// kept: call it off the games' runtime).
    ///
    /// # Errors
    /// As [`Hub::events`].
    pub fn events_json(&self, game: u64) -> Result<Arc<str>, WatchRefusal> {
        match self.finished_events(game)? {
            Some(events) => Ok(events.body()),
            None => {
                let backlog = self.watch_inner(game, false)?.backlog;
                Ok(GameEvents::new(game, &backlog).body())
            }
        }
    }

    /// How many finished games' events were rebuilt from their records since the start (each
    /// is rebuilt once while the cache keeps it).
    pub fn rebuilds(&self) -> u64 {
        self.inner.cache.rebuilds()
    }

    /// The bytes the cache of finished games' events holds now.
    pub fn cached_bytes(&self) -> usize {
        self.inner.cache.bytes()
    }

    /// A finished game's events, from the cache or rebuilt; `None` when the game is not among
    /// the finished ones kept (it may be running).
    fn finished_events(&self, game: u64) -> Result<Option<Arc<GameEvents>>, WatchRefusal> {
        let (finished, withheld) = {
            let games = self.games();
            (
                games.finished.get(&game).cloned(),
                games.withheld.contains_key(&game),
            )
        };
        let Some(finished) = finished else {
            return Ok(None);
        };
        if withheld {
            return Err(WatchRefusal::Withheld(game));
        }
        let hide = self.inner.hide_server_seed;
        Ok(Some(self.inner.cache.get_or_build(game, || {
            let events = view::events_of_record(&finished.record, hide).unwrap_or_else(|e| {
                // A record the server wrote itself replays; a file given to `anqi view` may
                // hold anything, and its game is shown as far as it goes.
                tracing::warn!(game, error = %e, "a record does not replay");
                Vec::new()
            });
            let texts: Vec<Arc<str>> = events
                .iter()
                .enumerate()
                .map(|(seq, e)| with_seq(seq, e))
                .collect();
            GameEvents::new(game, &texts)
        })))
    }

    /// Starts watching game `game` live: the events so far and a receiver for the next ones.
    ///
    /// # Errors
    /// When the game is not here, is withheld, or has as many observers as allowed.
    pub fn watch(&self, game: u64) -> Result<Watcher, WatchRefusal> {
        self.watch_inner(game, true)
    }

    fn watch_inner(&self, game: u64, live: bool) -> Result<Watcher, WatchRefusal> {
        let (running, withheld) = {
            let games = self.games();
            (
                games.running.get(&game).cloned(),
                games.withheld.get(&game).copied(),
            )
        };
        if let Some(feed) = running {
            let mut state = feed.lock();
            // A withheld game's end is never shown, nor, when its live feed is withheld too,
            // anything of it.
            if withheld == Some(Withheld::Live)
                || withheld.is_some() && state.summary.state != "running"
            {
                return Err(WatchRefusal::Withheld(game));
            }
            let backlog = state.released.clone();
            // A game that has just finished (its end released, its record on the way to the
            // finished games) is shown whole, like any finished game.
            if !live || state.summary.state != "running" {
                return Ok(Watcher {
                    backlog,
                    live: None,
                    _seat: None,
                });
            }
            if state.observers >= self.inner.max_observers_per_game {
                return Err(WatchRefusal::Full(game, state.observers));
            }
            state.observers += 1;
            state.summary.observers = state.observers;
            return Ok(Watcher {
                backlog,
                live: Some(
                    state
                        .live
                        .get_or_insert_with(|| broadcast::channel(self.inner.observer_queue).0)
                        .subscribe(),
                ),
                _seat: Some(ObserverSeat(Arc::downgrade(&feed))),
            });
        }
        let events = self
            .finished_events(game)?
            .ok_or(WatchRefusal::Unknown(game))?;
        Ok(Watcher {
            backlog: events.events().map(Arc::from).collect(),
            live: None,
            _seat: None,
        })
    }

    /// Releases the events whose broadcast delay is over (a timer calls it when `delay_ms` is
    /// set; plies release each other).
    pub fn release_due(&self) {
        let feeds: Vec<Arc<Feed>> = self.games().running.values().cloned().collect();
        for feed in feeds {
            self.release(&mut feed.lock(), false);
        }
    }

    /// Whether a timer must call [`Hub::release_due`].
    pub fn delay(&self) -> Option<Duration> {
        (!self.inner.delay.is_zero()).then_some(self.inner.delay)
    }

    fn release(&self, state: &mut FeedState, all: bool) {
        let now = Instant::now();
        while let Some(front) = state.held.front() {
            let plies_ok = front.ply + self.inner.delay_plies <= state.ply;
            let time_ok = front.at + self.inner.delay <= now;
            // The setup tells nothing a delay would hide: it goes out at once.
            if !(all || front.setup || plies_ok && time_ok) {
                break;
            }
            let held = state.held.pop_front().expect("a front");
            if let Some(p) = held.progress {
                let s = &mut state.summary;
                s.ply = p.ply;
                s.to_move = p.to_move;
                s.used_ms = p.used_ms;
                s.clocks_ms = p.clocks_ms;
                s.board = Some(p.board);
            }
            state.released.push(held.json.clone());
            // No receiver is fine: nobody is watching.
            if let Some(live) = &state.live {
                let _ = live.send(held.json);
            }
        }
    }
}

/// What live pages of a game get instead of its end, or instead of what follows, when it is
/// withheld: `{"type":"withheld","game":N,"text":"..."}`.
fn withheld_notice(game: u64) -> Arc<str> {
    serde_json::json!({
        "type": "withheld",
        "game": game,
        "text": WatchRefusal::Withheld(game).to_string(),
    })
    .to_string()
    .into()
}

/// An event's JSON text with its place in the game's list of events, `"seq"`, first.
fn with_seq(seq: usize, event: &Event) -> Arc<str> {
    let json = serde_json::to_string(event).expect("events serialize");
    format!("{{\"seq\":{seq},{}", &json[1..]).into()
}

fn finished_summary(record: &GameRecord, observers: usize) -> GameSummary {
    GameSummary {
        game: record.game,
        variant: record.variant.clone(),
        players: record.players.iter().map(|p| p.name.clone()).collect(),
        started_unix_ms: record.started_unix_ms,
        state: "finished",
        ply: record.result.plies,
        to_move: None,
        used_ms: record.players.iter().map(|p| p.time_used_ms).collect(),
        clocks_ms: None,
        win: Some(record.result.win.clone()),
        reason: Some(record.result.reason.name().to_string()),
        loser: record.result.loser,
        colours: Some(record.players.iter().map(|p| p.colour.clone()).collect()),
        observers,
        exchange: false,
        board: Some(record.final_board.clone()),
        withheld: None,
    }
}

impl GameFeed {
    /// An empty exchange for this game, within `[http]`'s bounds (`exchange_bytes`,
    /// `exchange_line_bytes`), handed back with the record at [`GameFeed::finish`].
    pub fn exchange(&self) -> Exchange {
        Exchange::new(
            self.hub.inner.exchange_bytes,
            self.hub.inner.exchange_line_bytes,
        )
    }

    /// Publishes a ply just played, with the position `game` is in after it, each player's
    /// time left (`None`: untimed) and the time it was played (ms since the Unix epoch).
    pub fn ply(
        &mut self,
        ply: &anqi_core::record::PlyRecord,
        game: &anqi_core::rules::Game,
        clocks_ms: Vec<Option<u64>>,
        at_unix_ms: u64,
    ) {
        self.hub.inner.metrics.ply();
        if self.hub.inner.counting_only {
            return;
        }
        if let Some(u) = self.used_ms.get_mut(ply.player.wrapping_sub(1)) {
            *u += ply.think_ms;
        }
        let mut view = view::PlyView::of(ply, game, self.used_ms.clone());
        view.position.clocks_ms = Some(clocks_ms);
        view.position.at_unix_ms = Some(at_unix_ms);
        self.push(&Event::Ply(Box::new(view)));
    }

    /// Publishes one event of the game (its ply, the last played, decides the delay).
    pub fn push(&mut self, event: &Event) {
        if self.hub.inner.counting_only {
            return;
        }
        let json = with_seq(self.next_seq, event);
        self.next_seq += 1;
        let progress = match event {
            Event::Ply(p) => Some(Progress {
                ply: p.ply,
                to_move: p.position.to_move,
                used_ms: p.position.used_ms.clone(),
                clocks_ms: p.position.clocks_ms.clone(),
                board: p.position.board.clone(),
            }),
            _ => None,
        };
        let feed = &self.feed;
        let mut state = feed.lock();
        if let Some(p) = &progress {
            state.ply = p.ply;
        }
        let ply = state.ply;
        state.held.push_back(Held {
            setup: matches!(event, Event::Setup(_)),
            ply,
            at: Instant::now(),
            json,
            progress,
        });
        self.hub.release(&mut state, false);
    }

    /// Ends the feed with the game's record: everything held is released, the end goes out,
    /// and the game is kept as its record.
    ///
    /// A withheld game's end is not published: its plies go out, then its live pages are told
    /// why the end is not shown, and the game is kept as its record like any other.
    pub fn finish(mut self, record: &GameRecord, exchange: Exchange) {
        self.hub
            .inner
            .metrics
            .game_finished(&record.variant, record.result.reason.name());
        if self.hub.inner.counting_only {
            self.hub.games().running.remove(&self.feed.game);
            return;
        }
        let withheld = self.hub.withheld(self.feed.game).is_some();
        if !withheld {
            let end = Event::End(Box::new(EndView::of(
                record,
                &self.deal,
                self.hub.inner.hide_server_seed,
            )));
            self.push(&end);
        }
        let feed = self.feed.clone();
        let mut state = feed.lock();
        self.hub.release(&mut state, true);
        // The end is out: live observers' feeds close once they have read it.
        if let (true, Some(live)) = (withheld, state.live.as_ref()) {
            let _ = live.send(withheld_notice(feed.game));
        }
        state.live = None;
        let summary = finished_summary(record, state.observers);
        state.summary = summary.clone();
        state.summary.state = "finished";
        drop(state);
        {
            let mut games = self.hub.games();
            games.exchanges_bytes += exchange.bytes();
            games.exchanges.push_back((record.game, Arc::new(exchange)));
            games.exchange_kept.insert(record.game);
            while games.exchanges_bytes > self.hub.inner.keep_exchanges_bytes {
                let Some((game, old)) = games.exchanges.pop_front() else {
                    break;
                };
                games.exchanges_bytes -= old.bytes();
                games.exchange_kept.remove(&game);
            }
        }
        self.hub.keep(Arc::new(Finished {
            record: record.clone(),
            summary,
        }));
        tracing::debug!(game = feed.game, "feed finished");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use anqi_core::record::{GameHeader, PlayerRecord, PlyRecord};
    use anqi_core::rules::{Game, SeedInputs, Termination, Variant};

    fn hub() -> Hub {
        Hub::new(&crate::config::Config::default().http, false)
    }

    /// A game of `traditional-2x4` published through a hub's feed, ply by ply, as the referee
    /// publishes one.
    struct Played {
        feed: GameFeed,
        game: Game,
        seeds: SeedInputs,
        plies: Vec<PlyRecord>,
        no: u64,
    }

    impl Played {
        fn open(hub: &Hub, no: u64) -> Played {
            let variant = Arc::new(Variant::shipped("traditional-2x4").unwrap());
            let seeds = SeedInputs {
                clients: vec!["a".into(), format!("b{no}")],
                server: "s".into(),
            };
            let deal = seeds.deal_for(&variant);
            let game = Game::new(variant, deal.clone());
            let names = ["p1".to_string(), "p2".to_string()];
            let setup = view::Setup::of(no, 1, 0, &game, &names);
            Played {
                feed: hub.open(setup, deal),
                game,
                seeds,
                plies: Vec::new(),
                no,
            }
        }

        /// Plays up to `n` plies (fewer when the game ends).
        fn play(&mut self, n: usize) {
            for _ in 0..n {
                if self.game.outcome().is_some() {
                    return;
                }
                let legal = self.game.legal_actions();
                let action = legal[self.plies.len() * 7 % legal.len()];
                let (player, turn) = (self.game.to_move(), self.game.round());
                let counts = self.game.counts();
                let played = self.game.play(player, action).unwrap();
                let ply = PlyRecord {
                    think_ms: 1,
                    ..PlyRecord::of_play(&self.game, turn, player, action, counts, &played)
                };
                self.feed.ply(&ply, &self.game, vec![None, None], 2);
                self.plies.push(ply);
            }
        }

        /// Ends the game (a draw by the ply cap if it has not ended) and finishes its feed.
        fn finish(self) -> GameRecord {
            let mut exchange = self.feed.exchange();
            exchange.sent(1, 1, "((id 1))");
            self.finish_with(exchange)
        }

        /// As [`Played::finish`], with the game's exchange.
        fn finish_with(mut self, exchange: Exchange) -> GameRecord {
            if self.game.outcome().is_none() {
                self.game.adjudicate_draw(Termination::PlyCap);
            }
            let header = GameHeader {
                game: self.no,
                started_unix_ms: 1,
                seeds: self.seeds.clone(),
                max_plies: 0,
                score_draw: String::new(),
                score_resign: String::new(),
            };
            let players = (1..=2)
                .map(|id| PlayerRecord {
                    id,
                    name: format!("p{id}"),
                    seed: String::new(),
                    side: None,
                    team: None,
                    colour: None,
                    time_used_ms: 0,
                })
                .collect();
            let record =
                GameRecord::of_game(header, &self.game, players, self.plies, Default::default());
            self.feed.finish(&record, exchange);
            record
        }
    }

    #[test]
    fn a_counting_hub_counts_the_games_and_keeps_nothing_of_them() {
        let hub = Hub::counting_only(&crate::config::Config::default().http);
        let mut played = Played::open(&hub, 1);
        played.play(3);
        assert_eq!(hub.list().len(), 1, "running games are listed");
        assert!(hub.events(1).unwrap_or_default().is_empty());
        let record = played.finish();
        assert!(hub.list().is_empty(), "nor is a finished game kept");
        assert!(hub.record(1).is_none());
        let mut out = String::new();
        hub.metrics().render(&mut out);
        for line in [
            "anqi_games_started_total 1".to_string(),
            format!("anqi_plies_total {}", record.plies.len()),
            format!(
                "anqi_games_finished_total{{variant=\"traditional-2x4\",termination=\"{}\"}} 1",
                record.result.reason.name()
            ),
        ] {
            assert!(out.lines().any(|l| l == line), "{line} in:\n{out}");
        }
    }

    fn listed(hub: &Hub, game: u64) -> GameSummary {
        hub.list()
            .into_iter()
            .find(|g| g.game == game)
            .expect("the game is listed")
    }

    /// Everything a receiver holds now.
    fn drain(rx: &mut broadcast::Receiver<Arc<str>>) -> Vec<Arc<str>> {
        let mut got = Vec::new();
        while let Ok(e) = rx.try_recv() {
            got.push(e);
        }
        got
    }

    #[test]
    fn a_withheld_game_shows_its_plies_but_not_its_end_until_disclosed() {
        let hub = hub();
        hub.withhold(1, false);
        let mut played = Played::open(&hub, 1);
        played.play(6);
        // While it runs, it is shown as any other game...
        assert!(hub.events(1).unwrap().len() > 1);
        let mut watcher = hub.watch(1).unwrap();
        let listed_now = listed(&hub, 1);
        assert_eq!(listed_now.withheld, None);
        assert!(listed_now.to_move.is_some());
        played.play(4);
        let record = played.finish();
        // ... but its live pages get its plies and then why the end is not shown.
        let got = drain(watcher.live.as_mut().unwrap());
        assert!(got.iter().any(|e| e.contains("\"type\":\"ply\"")));
        assert!(
            !got.iter().any(|e| e.contains("\"type\":\"end\"")),
            "{got:?}"
        );
        assert!(
            got.last().unwrap().contains("\"type\":\"withheld\""),
            "{got:?}"
        );
        assert!(matches!(
            watcher.live.as_mut().unwrap().try_recv(),
            Err(broadcast::error::TryRecvError::Closed)
        ));
        // Finished, nothing of it is given but that it finished, its players and plies.
        let refused = WatchRefusal::Withheld(1);
        assert_eq!(hub.events(1).unwrap_err(), refused);
        assert_eq!(hub.watch(1).err(), Some(refused.clone()));
        assert_eq!(hub.exchange(1).unwrap_err(), refused);
        assert!(hub.record(1).is_none());
        let summary = listed(&hub, 1);
        assert_eq!(summary.state, "finished");
        assert_eq!(summary.ply, record.result.plies);
        assert_eq!((summary.win, summary.reason), (None, None));
        assert!(summary.used_ms.is_empty());
        assert_eq!((summary.board, summary.exchange), (None, false));
        assert_eq!(
            summary.withheld.as_deref(),
            Some(refused.to_string().as_str())
        );
        assert!(refused.to_string().contains(
            "game 1's deal is still in play in another game of this event; it is shown when every game of its deal has ended"
        ));
        // Disclosed, it is shown whole.
        hub.disclose(1);
        let events = hub.events(1).unwrap();
        assert!(events.last().unwrap().contains("\"type\":\"end\""));
        assert!(events.last().unwrap().contains("\"deal\":"));
        assert_eq!(hub.record(1).unwrap().final_board, record.final_board);
        assert_eq!(hub.exchange(1).unwrap().lines.len(), 1);
        let summary = listed(&hub, 1);
        assert_eq!(summary.win, Some(record.result.win.clone()));
        assert_eq!(summary.withheld, None);
    }

    #[test]
    fn a_game_withheld_live_shows_only_that_it_runs_its_players_and_its_plies() {
        let hub = hub();
        hub.withhold(2, true);
        let mut played = Played::open(&hub, 2);
        played.play(5);
        assert_eq!(hub.events(2).unwrap_err(), WatchRefusal::Withheld(2));
        assert_eq!(hub.watch(2).err(), Some(WatchRefusal::Withheld(2)));
        assert_eq!(hub.exchange(2).unwrap_err(), WatchRefusal::Withheld(2));
        let summary = listed(&hub, 2);
        assert_eq!(summary.state, "running");
        assert_eq!(summary.players, ["p1", "p2"]);
        assert_eq!(summary.ply, 5);
        assert_eq!((summary.to_move, &summary.clocks_ms), (None, &None));
        let json = serde_json::to_string(&summary).unwrap();
        assert!(json.contains("\"withheld\":\"game 2's deal"), "{json}");
        played.play(100);
        played.finish();
        assert_eq!(hub.events(2).unwrap_err(), WatchRefusal::Withheld(2));
        assert_eq!(listed(&hub, 2).state, "finished");
        // Another game is untouched, and shown without a `withheld` field.
        let other = Played::open(&hub, 3);
        let json = serde_json::to_string(&listed(&hub, 3)).unwrap();
        assert!(!json.contains("withheld"), "{json}");
        assert!(hub.watch(3).is_ok());
        other.finish();
        hub.disclose(2);
        assert!(hub.events(2).unwrap().last().unwrap().contains("\"end\""));
    }

    #[test]
    fn a_finished_games_events_are_rebuilt_once_and_served_from_memory() {
        let hub = hub();
        let mut played = Played::open(&hub, 1);
        played.play(30);
        let record = played.finish();
        assert_eq!(hub.rebuilds(), 0);
        let first = hub.events_json(1).unwrap();
        let again = hub.events_json(1).unwrap();
        let watched = hub.watch(1).unwrap().backlog;
        let listed = hub.events(1).unwrap();
        assert_eq!(hub.rebuilds(), 1, "one replay for four requests");
        assert!(Arc::ptr_eq(&first, &again), "the same text, not a copy");
        assert!(hub.cached_bytes() >= first.len());
        // What is served is the record's replay.
        let body: serde_json::Value = serde_json::from_str(&first).unwrap();
        let rebuilt = view::events_of_record(&record, false).unwrap();
        assert_eq!(body["events"].as_array().unwrap().len(), rebuilt.len());
        assert_eq!(watched, listed);
        for (i, (text, event)) in watched.iter().zip(&rebuilt).enumerate() {
            assert_eq!(**text, *with_seq(i, event));
        }
    }

    #[test]
    fn the_finished_games_exchanges_are_kept_within_their_bound() {
        let mut cfg = crate::config::Config::default().http;
        cfg.keep_exchanges_bytes = 3000;
        let hub = Hub::new(&cfg, false);
        for game in 1..=5 {
            let played = Played::open(&hub, game);
            let mut exchange = played.feed.exchange();
            exchange.sent(1, 1, &"x".repeat(900));
            played.finish_with(exchange);
        }
        // Each holds about 1,000 bytes: the latest two fit in 3,000.
        for game in 1..=3 {
            assert_eq!(
                hub.exchange(game).unwrap_err(),
                WatchRefusal::Forgotten(game)
            );
            assert!(!listed(&hub, game).exchange, "the list says it is gone");
        }
        for game in 4..=5 {
            assert_eq!(hub.exchange(game).unwrap().lines.len(), 1);
            assert!(listed(&hub, game).exchange);
        }
        // A game shown from its record has none; a running game none yet.
        let mut record = hub.record(5).unwrap();
        record.game = 9;
        hub.add_record(record.clone());
        assert!(!listed(&hub, 9).exchange);
        assert_eq!(listed(&hub, 9).board.as_deref(), Some(&*record.final_board));
        let running = Played::open(&hub, 10);
        assert!(!listed(&hub, 10).exchange);
        running.finish();
        assert!(listed(&hub, 10).exchange);
    }

    #[test]
    fn the_list_shows_the_board_shown_and_a_number_given_twice_once() {
        let hub = hub();
        let mut played = Played::open(&hub, 1);
        assert_eq!(listed(&hub, 1).board.as_deref(), Some("XXXXXXXX"));
        played.play(3);
        let board = played.game.wire_board();
        assert_eq!(listed(&hub, 1).board, Some(board));
        let record = played.finish();
        assert_eq!(listed(&hub, 1).board, Some(record.final_board.clone()));
        let json = serde_json::to_string(&listed(&hub, 1)).unwrap();
        assert!(json.contains("\"exchange\":true"), "{json}");
        // An older records file may number two games alike: the later one is shown.
        let mut again = record.clone();
        again.players[0].name = "later".into();
        hub.add_record(again);
        let list = hub.list();
        assert_eq!(list.len(), 1);
        assert_eq!(list[0].players[0], "later");
    }

    #[test]
    fn pages_watching_a_game_when_its_live_feed_is_withheld_are_told_and_closed() {
        let hub = hub();
        let mut played = Played::open(&hub, 4);
        let mut watcher = hub.watch(4).unwrap();
        played.play(3);
        hub.withhold(4, true);
        played.play(3);
        let got = drain(watcher.live.as_mut().unwrap());
        assert_eq!(
            got.iter()
                .filter(|e| e.contains("\"type\":\"ply\""))
                .count(),
            3,
            "{got:?}"
        );
        assert!(got.last().unwrap().contains("\"type\":\"withheld\""));
        assert!(matches!(
            watcher.live.as_mut().unwrap().try_recv(),
            Err(broadcast::error::TryRecvError::Closed)
        ));
        assert_eq!(hub.watch(4).err(), Some(WatchRefusal::Withheld(4)));
        // Disclosed while it runs, it is watched again from its start.
        hub.disclose(4);
        let again = hub.watch(4).unwrap();
        assert_eq!(again.backlog.len(), 7);
        played.finish();
    }
}
