//! The ledger: one server's ladder of one variant over its database. It turns each finished
//! game's record into a row of the index and new ratings, in one transaction, at most once per
//! game; and it catches up from the records file at start, so that a game whose record was
//! written but whose transaction was not (the process killed in between) is counted then, and
//! none twice.
//!
//! Which games count, and how (protocol/LADDER.md, Ratings): a game tagged with this ladder
//! (`ladder.server` in its record) between two accounts. A win is 1 for the winner, 0 for the
//! loser, whatever ended it (captures, no moves, resignation, time, an illegal action, a lost
//! connection, the endgame tables); a draw (no progress, repetition, the ply cap) is ½ each;
//! an aborted game (the server shut down, or a player never made a first action before any
//! ply) is indexed but counts for nothing.

use crate::rating::{self, Games, Rating};
use crate::store::{GameRow, Store, StoreError};
use anqi_core::record::{GameRecord, RecordLines};
use anqi_core::rules::Termination;
use anqi_server::LadderAccount;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// The players' names in the ladder games of `server` and `variant` in these records files,
/// in the order first met (a database rebuilt without its accounts makes one for each).
pub fn names_in(files: &[std::path::PathBuf], server: &str, variant: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for file in files {
        let Ok(lines) = RecordLines::open(file) else {
            continue;
        };
        for item in lines {
            let Ok((_, Ok(record))) = item else { continue };
            let ours = record
                .ladder
                .as_ref()
                .is_some_and(|t| t.server == server && record.variant == variant);
            if !ours {
                continue;
            }
            for p in record.players {
                if !names.contains(&p.name) {
                    names.push(p.name);
                }
            }
        }
    }
    names
}

/// One ladder over its database.
pub struct Ledger {
    store: Store,
    /// The server's name in the database (`[ladder] server`).
    server: String,
    variant: String,
    /// The records file, as configured (the index says where each game's record is).
    records: String,
    /// Every rated game of the variant, from every server of the database.
    games: Games,
    /// Rated games per account.
    counts: BTreeMap<i64, u64>,
    ratings: BTreeMap<i64, Rating>,
    /// Account numbers by name, retired ones too (their games are still theirs).
    ids: HashMap<String, i64>,
    /// The database's `data_version` when last read.
    seen_version: i64,
    /// Whether the database was read again since [`Ledger::refresh`] last said so (counting a
    /// game reads it again too, and the seating must still hear of it).
    unannounced: bool,
}

/// How many times [`Ledger::count`] fits a game before it writes it unchecked.
const FITS: usize = 5;

/// A game and the ratings with it, fitted and not written yet ([`Ledger::fit`]).
pub(crate) struct Fitted {
    row: GameRow,
    games: Games,
    counts: BTreeMap<i64, u64>,
    ratings: BTreeMap<i64, Rating>,
}

/// A game just counted.
#[derive(Debug, Clone, PartialEq)]
pub struct Counted {
    pub row: GameRow,
    /// How long the database took for its transaction.
    pub took: std::time::Duration,
}

impl Ledger {
    /// The ladder of `server` for `variant` over `store`: its rated games read and fitted.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub fn open(
        store: Store,
        server: &str,
        variant: &str,
        records: &str,
    ) -> Result<Ledger, StoreError> {
        let mut ledger = Ledger {
            store,
            server: server.to_string(),
            variant: variant.to_string(),
            records: records.to_string(),
            games: Games::default(),
            counts: BTreeMap::new(),
            ratings: BTreeMap::new(),
            ids: HashMap::new(),
            seen_version: 0,
            unannounced: false,
        };
        ledger.reload()?;
        ledger.unannounced = false;
        Ok(ledger)
    }

    /// Has the next [`Ledger::refresh`] say that the accounts changed, so that the seating is
    /// told them again (an account was added here, and telling it failed).
    pub fn announce_later(&mut self) {
        self.unannounced = true;
    }

    /// Adds an account from this process (an account made on request): known here at once,
    /// as the database's own writes do not change what [`Ledger::refresh`] looks at.
    ///
    /// # Errors
    /// When the name is taken, or the database refuses.
    pub fn add_account(&mut self, name: &str, secret_sha256: &[u8; 32]) -> Result<i64, StoreError> {
        let id = self.store.add_account(name, secret_sha256)?;
        self.ids.insert(name.to_string(), id);
        Ok(id)
    }

    /// Reads the accounts and the games again (another process changed the database).
    fn reload(&mut self) -> Result<(), StoreError> {
        self.unannounced = true;
        self.seen_version = self.store.data_version()?;
        self.ids = self
            .store
            .accounts()?
            .into_iter()
            .map(|a| (a.name, a.id))
            .collect();
        self.games = Games::default();
        self.counts.clear();
        for g in self.store.games(&self.variant)? {
            if let Some(score) = g.score {
                self.games.add(g.first, g.second, score);
                *self.counts.entry(g.first).or_default() += 1;
                *self.counts.entry(g.second).or_default() += 1;
            }
        }
        self.ratings = rating::fit(&self.games);
        Ok(())
    }

    /// Whether another process changed the database since this was last asked (an account
    /// added or retired, another server's game): if so, it has been read again (here, or when
    /// a game was counted meanwhile).
    ///
    /// # Errors
    /// When the database cannot be read.
    pub fn refresh(&mut self) -> Result<bool, StoreError> {
        self.reload_if_changed()?;
        Ok(std::mem::take(&mut self.unannounced))
    }

    /// Reads the database again if another process changed it since it was last read.
    fn reload_if_changed(&mut self) -> Result<(), StoreError> {
        if self.store.data_version()? != self.seen_version {
            self.reload()?;
        }
        Ok(())
    }

    /// Counts a finished game, once: `None` when it is not this ladder's, or already counted.
    ///
    /// The ratings written with it are fitted over every game the database holds. Another
    /// server sharing the database may count a game between this one's fit and its write:
    /// the write is then refused (`Store::add_game_if_unchanged`), and the game is fitted
    /// again over the database read anew, up to [`FITS`] times; the last write is not checked
    /// (a game is never left out for it: its ratings are then a game behind, until the next).
    ///
    /// # Errors
    /// When the database refuses the transaction (nothing of the game is counted then).
    pub fn count(&mut self, record: &GameRecord) -> Result<Option<Counted>, StoreError> {
        let mut fits = 0;
        loop {
            fits += 1;
            // What other processes committed first (accounts; on a shared database, the other
            // servers' games): the new ratings are then fitted over every game the database
            // holds, and a player's account made a moment ago is known. Cheap when nothing
            // changed.
            self.reload_if_changed()?;
            let Some(fitted) = self.fit(record)? else {
                return Ok(None);
            };
            if let Some(counted) = self.write(fitted, fits < FITS)? {
                return Ok(Some(counted));
            }
        }
    }

    /// The game of `record` and the ratings with it, fitted over the games as last read:
    /// `None` when it is not this ladder's, or already counted.
    pub(crate) fn fit(&self, record: &GameRecord) -> Result<Option<Fitted>, StoreError> {
        let Some(row) = self.row_of(record) else {
            return Ok(None);
        };
        if let Some(counted) = self.store.game(&row.server, row.game_no)? {
            // Counted already (a catch-up over games counted live), unless the index's game
            // of this number is another one: numbers reused (see `anqi serve`'s numbering
            // after the index's highest), which must not pass in silence.
            if (counted.started_unix_ms, counted.first, counted.second)
                != (row.started_unix_ms, row.first, row.second)
            {
                tracing::error!(
                    game = row.game_no,
                    server = %row.server,
                    "a ladder game has the number of another game the index holds; not counted"
                );
            }
            return Ok(None);
        }
        let mut games = self.games.clone();
        let mut counts = self.counts.clone();
        if let Some(score) = row.score {
            games.add(row.first, row.second, score);
            *counts.entry(row.first).or_default() += 1;
            *counts.entry(row.second).or_default() += 1;
        }
        let ratings = if row.score.is_some() {
            rating::fit(&games)
        } else {
            self.ratings.clone()
        };
        Ok(Some(Fitted {
            row,
            games,
            counts,
            ratings,
        }))
    }

    /// Writes a game [`Ledger::fit`] fitted: with `checked`, only if the database is as it
    /// was read (`None`, nothing written, when another process wrote meanwhile).
    pub(crate) fn write(
        &mut self,
        fitted: Fitted,
        checked: bool,
    ) -> Result<Option<Counted>, StoreError> {
        let Fitted {
            row,
            games,
            counts,
            ratings,
        } = fitted;
        let start = std::time::Instant::now();
        if checked {
            let written =
                self.store
                    .add_game_if_unchanged(&row, &ratings, &counts, self.seen_version)?;
            if written.is_none() {
                return Ok(None);
            }
        } else {
            self.store.add_game(&row, &ratings, &counts)?;
        }
        let took = start.elapsed();
        // Only once the transaction is in: a failed one leaves the ledger as it was.
        self.games = games;
        self.counts = counts;
        self.ratings = ratings;
        Ok(Some(Counted { row, took }))
    }

    /// The index row of a record of this ladder: its two players must be accounts.
    fn row_of(&self, record: &GameRecord) -> Option<GameRow> {
        let tag = record.ladder.as_ref()?;
        if tag.server != self.server || record.variant != self.variant {
            return None;
        }
        let [first, second] = &record.players[..] else {
            return None;
        };
        let (Some(&first), Some(&second)) = (self.ids.get(&first.name), self.ids.get(&second.name))
        else {
            tracing::warn!(
                game = record.game,
                "a ladder game whose players are not both accounts; not counted"
            );
            return None;
        };
        let result = &record.result;
        let score = match (result.reason, result.winner) {
            (Termination::Aborted, _) => None,
            (_, 1) => Some(1.0),
            (_, 2) => Some(0.0),
            _ => Some(0.5),
        };
        Some(GameRow {
            server: self.server.clone(),
            game_no: record.game,
            variant: record.variant.clone(),
            records: self.records.clone(),
            started_unix_ms: record.started_unix_ms,
            first,
            second,
            score,
            termination: result.reason.name().to_string(),
            plies: result.plies,
        })
    }

    /// Counts every game of the records file at `path` not counted yet, in the file's order:
    /// what a crash between a record and its transaction left out. Returns how many. The file
    /// is untrusted: read a line at a time, bounded; a bad line is skipped.
    ///
    /// # Errors
    /// When the database refuses a transaction.
    pub fn catch_up(&mut self, path: &Path) -> Result<usize, StoreError> {
        let lines = match RecordLines::open(path) {
            Ok(lines) => lines,
            Err(e) => {
                if e.kind() != std::io::ErrorKind::NotFound {
                    tracing::warn!(path = %path.display(), error = %e, "cannot read the records file to catch up the ladder");
                }
                return Ok(0);
            }
        };
        // The games counted from this file are said to be in it (a rebuild reads files of
        // any name).
        let configured = std::mem::replace(&mut self.records, path.to_string_lossy().into_owned());
        let mut counted = 0;
        let mut result = Ok(());
        for item in lines {
            let Ok((_, Ok(record))) = item else {
                continue;
            };
            match self.count(&record) {
                Ok(Some(_)) => counted += 1,
                Ok(None) => {}
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        self.records = configured;
        result.map(|()| counted)
    }

    /// Every account with its rating, for the seating (retired ones marked).
    ///
    /// # Errors
    /// When the database cannot be read.
    pub fn seating_accounts(&self) -> Result<Vec<LadderAccount>, StoreError> {
        Ok(self
            .store
            .accounts()?
            .into_iter()
            .map(|a| LadderAccount {
                rating: self.rating_of(a.id).rating,
                retired: a.retired_unix_ms.is_some(),
                id: a.id,
                name: a.name,
                secret_sha256: a.secret_sha256,
            })
            .collect())
    }

    /// An account's rating now (the prior for one with no rated game).
    pub fn rating_of(&self, account: i64) -> Rating {
        self.ratings
            .get(&account)
            .copied()
            .unwrap_or_else(Rating::unrated)
    }

    /// How many rated games the ratings are fitted over.
    pub fn games_counted(&self) -> u64 {
        self.games.len()
    }

    /// Every rated account's rating now.
    pub fn ratings(&self) -> &BTreeMap<i64, Rating> {
        &self.ratings
    }

    /// The highest game number this server's games have in the index.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub fn last_game_no(&self) -> Result<u64, StoreError> {
        self.store.last_game_no(&self.server)
    }

    /// The latest `n` games of this server, for matchmaking.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub fn recent(&self, n: usize) -> Result<Vec<(i64, i64)>, StoreError> {
        self.store.recent(&self.server, n)
    }

    /// The database, to read from.
    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn variant(&self) -> &str {
        &self.variant
    }

    pub fn server(&self) -> &str {
        &self.server
    }
}
