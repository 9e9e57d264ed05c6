//! Seating for a ladder (`anqi serve --ladder`): bots connect with their account's secret as
//! the SEED of `(init NAME SECRET)`, wait, and are paired by [`matchmaking`](super::matchmaking)
//! every round; the ladder (`anqi-ladder`) tells the seating its accounts, their ratings and
//! the latest games, through a [`LadderDesk`].
//!
//! Secrets are handled as tournament tokens are (`tokens`): looked up by digest (the ladder's
//! database keeps only digests), kept out of records and logs. A connection is seated under its
//! account's name, whatever NAME it sent: the records name the account, and the ratings are
//! rebuilt from them by name. An account may hold up to `connections` connections at once
//! (waiting or playing) and play up to `games` games at once; more are refused with the
//! reason, as are unknown secrets and retired accounts (logged a few lines per address and
//! window).

use super::matchmaking::{self, MatchRules, Recent, Waiting};
use super::{departed, SeatingEvent, Table};
use crate::connection::Player;
use crate::referee::GameSpec;
use crate::secret::TokenDigest;
use crate::throttle::{left_out, LogThrottle};
use anqi_core::record::LadderTag;
use anqi_core::wire::ErrorCode;
use std::collections::{HashMap, VecDeque};
use tokio::sync::mpsc;

/// An account as the seating knows it.
#[derive(Clone)]
pub struct LadderAccount {
    /// The database's number for the account.
    pub id: i64,
    pub name: String,
    /// SHA-256 of its secret.
    pub secret_sha256: [u8; 32],
    /// Its rating now (Elo scale), for matchmaking.
    pub rating: f64,
    /// Retired: it can no longer connect (told so).
    pub retired: bool,
}

impl std::fmt::Debug for LadderAccount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LadderAccount")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("rating", &self.rating)
            .finish_non_exhaustive()
    }
}

/// The ladder's rules for seating, from `[ladder]`.
#[derive(Clone, Debug)]
pub struct LadderRules {
    /// The server's name in the ladder's database, written in every game's record.
    pub server: String,
    /// Connections an account may hold at once, waiting or playing.
    pub connections: usize,
    /// Games an account may play at once.
    pub games: usize,
    pub matching: MatchRules,
}

/// What the ladder tells the seating.
#[derive(Debug)]
pub enum LadderNews {
    /// Every account, retired ones too (a retired one's waiting connections are told and let
    /// go, and its secret refused with the reason).
    Accounts(Vec<LadderAccount>),
    /// New ratings, by account.
    Ratings(Vec<(i64, f64)>),
    /// The latest games, (seat 1, seat 2), oldest first: matchmaking's memory after a restart.
    Recent(Vec<(i64, i64)>),
    /// A game between these accounts ended (the seating's own news).
    Ended(Vec<i64>),
}

/// The ladder's handle on the seating.
#[derive(Clone, Debug)]
pub struct LadderDesk {
    pub(crate) tx: mpsc::UnboundedSender<SeatingEvent>,
}

impl LadderDesk {
    /// Tells the seating some news.
    ///
    /// # Errors
    /// When the server has stopped.
    pub fn tell(&self, news: LadderNews) -> Result<(), super::ServerStopped> {
        self.tx
            .send(SeatingEvent::Ladder(news))
            .map_err(|_| super::ServerStopped)
    }
}

struct Account {
    name: String,
    rating: f64,
    /// Connections waiting for a game, each with when it came (ms since the Unix epoch).
    waiting: VecDeque<(Player, u64)>,
    playing: usize,
}

/// The accounts, their waiting connections, and matchmaking's memory.
pub struct Ladder {
    rules: LadderRules,
    accounts: HashMap<i64, Account>,
    by_secret: HashMap<TokenDigest, i64>,
    /// Retired accounts' names, by number.
    retired: HashMap<i64, String>,
    recent: Recent,
    refusals: LogThrottle<std::net::IpAddr>,
}

impl Ladder {
    pub fn new(rules: LadderRules) -> Ladder {
        Ladder {
            recent: Recent::new(RECENT_KEPT),
            rules,
            accounts: HashMap::new(),
            by_secret: HashMap::new(),
            retired: HashMap::new(),
            refusals: LogThrottle::default(),
        }
    }

    /// Refuses a connection: told why, and logged with its address a few lines per window.
    fn refuse(&mut self, player: &Player, code: ErrorCode, log: &str, reply: String) {
        if let Some(n) = self
            .refusals
            .allow(&player.peer.ip(), std::time::Instant::now())
        {
            tracing::warn!(peer = %player.peer, name = ?player.name, "{log}{}", left_out(n));
        }
        player.outbox.error(code, reply);
    }

    /// A client completed its handshake: it waits under its account, or is refused.
    pub fn arrive(&mut self, mut player: Player) {
        let digest = TokenDigest::of(&player.seed);
        // The record keeps what the player sent as SEED: here a secret.
        player.seed.clear();
        let Some(account) = self.by_secret.get(&digest).copied() else {
            return self.refuse(
                &player,
                ErrorCode::Unexpected,
                "refused a connection presenting a secret of no ladder account",
                "no ladder account has this secret: send your account's secret as the SEED of (init NAME SECRET) (an operator makes accounts with `anqi ladder add NAME`)".into(),
            );
        };
        if let Some(name) = self.retired.get(&account) {
            let reply = format!("account {name} is retired from the ladder: it can no longer play");
            return self.refuse(
                &player,
                ErrorCode::Busy,
                "refused a connection of a retired account",
                reply,
            );
        }
        let limit = self.rules.connections;
        let Some(a) = self.accounts.get_mut(&account) else {
            return;
        };
        a.waiting.retain_mut(|(p, _)| !departed(p));
        if a.waiting.len() + a.playing >= limit {
            let reply = format!(
                "account {} already holds {} connections, the ladder's limit ([ladder] connections_per_account): close one first",
                a.name, limit
            );
            return self.refuse(
                &player,
                ErrorCode::Busy,
                "refused a connection over its account's limit",
                reply,
            );
        }
        player.name = a.name.clone();
        a.waiting.push_back((player, crate::referee::unix_ms()));
    }

    /// Forgets connections that left, answers what waiting ones sent, and pairs those that
    /// may play: the games of this round, ready to start (numbered after `game_no`).
    pub fn tend(&mut self, game_no: &mut u64) -> Vec<Table> {
        let mut waiting = Vec::new();
        for (&id, a) in &mut self.accounts {
            a.waiting.retain_mut(|(p, _)| !departed(p));
            if let Some((_, since)) = a.waiting.front() {
                if a.playing < self.rules.games {
                    waiting.push(Waiting {
                        account: id,
                        rating: a.rating,
                        since: *since,
                    });
                }
            }
        }
        let mut tables = Vec::new();
        for (first, second) in matchmaking::pairs(&waiting, &self.recent, self.rules.matching) {
            let players: Vec<Player> = [first, second]
                .iter()
                .filter_map(|id| {
                    let a = self.accounts.get_mut(id)?;
                    a.playing += 1;
                    a.waiting.pop_front().map(|(p, _)| p)
                })
                .collect();
            self.recent.push(first, second);
            *game_no = game_no.saturating_add(1);
            tables.push(Table {
                game_no: *game_no,
                players,
                spec: GameSpec {
                    ladder: Some(LadderTag {
                        server: self.rules.server.clone(),
                    }),
                    ..Default::default()
                },
                seat_tokens: Vec::new(),
                accounts: vec![first, second],
            });
        }
        tables
    }

    /// What the ladder says.
    pub fn hear(&mut self, news: LadderNews) {
        match news {
            LadderNews::Accounts(list) => self.set_accounts(list),
            LadderNews::Ratings(ratings) => {
                for (id, rating) in ratings {
                    if let Some(a) = self.accounts.get_mut(&id) {
                        a.rating = rating;
                    }
                }
            }
            LadderNews::Recent(games) => {
                for (first, second) in games {
                    self.recent.push(first, second);
                }
            }
            LadderNews::Ended(ids) => {
                for id in ids {
                    if let Some(a) = self.accounts.get_mut(&id) {
                        a.playing = a.playing.saturating_sub(1);
                    }
                }
            }
        }
    }

    /// The accounts now: new ones added, retired ones let go.
    fn set_accounts(&mut self, mut list: Vec<LadderAccount>) {
        self.by_secret = list
            .iter()
            .map(|a| (TokenDigest::from_bytes(a.secret_sha256), a.id))
            .collect();
        self.retired = list
            .iter()
            .filter(|a| a.retired)
            .map(|a| (a.id, a.name.clone()))
            .collect();
        list.retain(|a| !a.retired);
        let keep: std::collections::HashSet<i64> = list.iter().map(|a| a.id).collect();
        self.accounts.retain(|id, a| {
            let stays = keep.contains(id);
            if !stays {
                for (p, _) in a.waiting.drain(..) {
                    p.outbox.error(
                        ErrorCode::Busy,
                        format!("account {} was retired from the ladder", a.name),
                    );
                }
            }
            stays
        });
        for new in list {
            let a = self.accounts.entry(new.id).or_insert_with(|| Account {
                name: new.name.clone(),
                rating: new.rating,
                waiting: VecDeque::new(),
                playing: 0,
            });
            a.rating = new.rating;
        }
    }

    /// Who waits, longest first: names, and since when (ms since the Unix epoch).
    pub fn waiting(&self) -> Vec<(String, u64)> {
        let mut all: Vec<(String, u64)> = self
            .accounts
            .values()
            .flat_map(|a| a.waiting.iter().map(|(p, since)| (p.name.clone(), *since)))
            .collect();
        all.sort_by_key(|(_, since)| *since);
        all
    }

    /// Connections waiting (to tell them the server is going away).
    pub fn drain(&mut self) -> Vec<Player> {
        self.accounts
            .values_mut()
            .flat_map(|a| a.waiting.drain(..).map(|(p, _)| p))
            .collect()
    }
}

/// How many of the ladder's latest games matchmaking remembers.
const RECENT_KEPT: usize = 4096;
