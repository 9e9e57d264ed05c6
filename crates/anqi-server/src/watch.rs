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
//! `keep_finished` of them), and its events are rebuilt from it when asked for, as
//! `anqi view` does for a records file.

use crate::config::HttpConfig;
use crate::exchange::Exchange;
use anqi_core::record::GameRecord;
use anqi_core::rules::Deal;
use anqi_core::view::{self, EndView, Event};
use serde::Serialize;
use std::collections::{BTreeMap, VecDeque};
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
    /// Who waits for a game on a server seating by arrival.
    waiting: Mutex<Vec<Waiting>>,
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
    /// The exchanges of the last [`KEEP_EXCHANGES`] finished games, oldest first.
    exchanges: VecDeque<(u64, Arc<Exchange>)>,
}

/// Finished games whose exchange between referee and players is kept (each up to
/// `exchange::MAX_BYTES`, a few tens of KB for most games).
const KEEP_EXCHANGES: usize = 100;

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
    /// Pages watching it live.
    pub observers: usize,
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
}

/// Why an observer cannot watch a game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WatchRefusal {
    #[error("no game {0} here (finished games are kept for a while: see the records file)")]
    Unknown(u64),
    #[error("game {0} is still running: this comes at its end")]
    Running(u64),
    #[error(
        "game {0}'s exchange is no longer kept (the last {KEEP_EXCHANGES} finished games' are)"
    )]
    Forgotten(u64),
    #[error("game {0} has {1} observers already, the most allowed; try again later")]
    Full(u64, usize),
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
                waiting: Mutex::default(),
            }),
        }
    }

    fn games(&self) -> std::sync::MutexGuard<'_, Games> {
        self.inner.games.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Opens the feed of a game that starts with `setup`.
    pub fn open(&self, setup: view::Setup, deal: Deal) -> GameFeed {
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
            observers: 0,
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
        feed.push(&Event::Setup(Box::new(setup)));
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
        games.finished.insert(game, finished);
        games.finished_order.push_back(game);
        while games.finished_order.len() > self.inner.keep_finished {
            if let Some(old) = games.finished_order.pop_front() {
                games.finished.remove(&old);
            }
        }
    }

    /// Every game shown: the running ones, then the finished ones, newest first.
    pub fn list(&self) -> Vec<GameSummary> {
        let games = self.games();
        let running = games
            .running
            .values()
            .rev()
            .map(|f| f.lock().summary.clone());
        let finished = games.finished.values().rev().map(|f| f.summary.clone());
        running.chain(finished).collect()
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

    /// The record of game `game`, once it is finished (and still kept).
    pub fn record(&self, game: u64) -> Option<GameRecord> {
        let games = self.games();
        let finished = games.finished.get(&game)?;
        let mut record = finished.record.clone();
        if self.inner.hide_server_seed {
            record.seeds.server.clear();
        }
        Some(record)
    }

    /// What the referee and each player of game `game` said to each other, once it is
    /// finished (for the last [`KEEP_EXCHANGES`] finished games watched live).
    ///
    /// # Errors
    /// When the game is unknown, still running, or its exchange no longer kept.
    pub fn exchange(&self, game: u64) -> Result<Arc<Exchange>, WatchRefusal> {
        let games = self.games();
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
    /// # Errors
    /// When the game is not here, or its record does not replay.
    pub fn events(&self, game: u64) -> Result<Vec<Arc<str>>, WatchRefusal> {
        Ok(self.watch_inner(game, false)?.backlog)
    }

    /// Starts watching game `game` live: the events so far and a receiver for the next ones.
    ///
    /// # Errors
    /// When the game is not here, or has as many observers as allowed.
    pub fn watch(&self, game: u64) -> Result<Watcher, WatchRefusal> {
        self.watch_inner(game, true)
    }

    fn watch_inner(&self, game: u64, live: bool) -> Result<Watcher, WatchRefusal> {
        let (running, finished) = {
            let games = self.games();
            (
                games.running.get(&game).cloned(),
                games.finished.get(&game).cloned(),
            )
        };
        if let Some(feed) = running {
            let mut state = feed.lock();
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
        let finished = finished.ok_or(WatchRefusal::Unknown(game))?;
        let events = view::events_of_record(&finished.record, self.inner.hide_server_seed)
            .unwrap_or_else(|e| {
                // A record the server wrote itself replays; a file given to `anqi view` may
                // hold anything, and its game is shown as far as it goes.
                tracing::warn!(game, error = %e, "a record does not replay");
                Vec::new()
            });
        Ok(Watcher {
            backlog: events
                .iter()
                .enumerate()
                .map(|(seq, e)| with_seq(seq, e))
                .collect(),
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
            }
            state.released.push(held.json.clone());
            // No receiver is fine: nobody is watching.
            if let Some(live) = &state.live {
                let _ = live.send(held.json);
            }
        }
    }
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
        observers,
    }
}

impl GameFeed {
    /// Publishes a ply just played, with the position `game` is in after it, each player's
    /// time left (`None`: untimed) and the time it was played (ms since the Unix epoch).
    pub fn ply(
        &mut self,
        ply: &anqi_core::record::PlyRecord,
        game: &anqi_core::rules::Game,
        clocks_ms: Vec<Option<u64>>,
        at_unix_ms: u64,
    ) {
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
        let json = with_seq(self.next_seq, event);
        self.next_seq += 1;
        let progress = match event {
            Event::Ply(p) => Some(Progress {
                ply: p.ply,
                to_move: p.position.to_move,
                used_ms: p.position.used_ms.clone(),
                clocks_ms: p.position.clocks_ms.clone(),
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
    pub fn finish(mut self, record: &GameRecord, exchange: Exchange) {
        let end = Event::End(Box::new(EndView::of(
            record,
            &self.deal,
            self.hub.inner.hide_server_seed,
        )));
        self.push(&end);
        let feed = self.feed.clone();
        let mut state = feed.lock();
        self.hub.release(&mut state, true);
        // The end is out: live observers' feeds close once they have read it.
        state.live = None;
        let summary = finished_summary(record, state.observers);
        state.summary = summary.clone();
        state.summary.state = "finished";
        drop(state);
        {
            let mut games = self.hub.games();
            games.exchanges.push_back((record.game, Arc::new(exchange)));
            while games.exchanges.len() > KEEP_EXCHANGES {
                games.exchanges.pop_front();
            }
        }
        self.hub.keep(Arc::new(Finished {
            record: record.clone(),
            summary,
        }));
        tracing::debug!(game = feed.game, "feed finished");
    }
}
