//! The ladder's database on SQLite, compiled into the binary, in WAL mode with
//! `synchronous = FULL`: a transaction that returned is on disk. One server's database (and
//! `anqi ladder` beside it); several servers share PostgreSQL instead (`pg`).

use super::{schema, unix_ms, AccountRow, GameRow, StoreError};
use crate::rating::Rating;
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// A SQLite database, open.
pub(crate) struct Sqlite {
    pub(super) conn: Connection,
}

impl Sqlite {
    /// Opens (or creates) the database at `path` and upgrades its schema.
    ///
    /// # Errors
    /// When it cannot be opened or upgraded, or is newer than this program.
    pub(super) fn open(path: &Path) -> Result<Sqlite, StoreError> {
        let conn = Connection::open(path)?;
        // Another process (`anqi ladder add` while the server runs) may hold the write lock
        // for a moment.
        conn.busy_timeout(Duration::from_secs(10))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", true)?;
        let mut store = Sqlite { conn };
        store.migrate()?;
        Ok(store)
    }

    /// Opens a database upgraded only up to migration `target` (tests).
    #[cfg(test)]
    pub(super) fn open_at(path: &Path, target: usize) -> Result<Sqlite, StoreError> {
        let mut store = Sqlite {
            conn: Connection::open(path)?,
        };
        store.migrate_to(target)?;
        Ok(store)
    }

    #[cfg(test)]
    pub(super) fn execute_raw(&self, sql: &str) -> Result<(), StoreError> {
        Ok(self.conn.execute_batch(sql)?)
    }

    /// The schema version the database is at.
    ///
    /// # Errors
    /// When it cannot be read.
    pub(super) fn schema_version(&self) -> Result<i64, StoreError> {
        let exists: bool = self.conn.query_row(
            "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'",
            [],
            |r| r.get(0),
        )?;
        if !exists {
            return Ok(0);
        }
        Ok(self
            .conn
            .query_row("SELECT max(version) FROM schema_version", [], |r| {
                r.get::<_, Option<i64>>(0)
            })?
            .unwrap_or(0))
    }

    fn migrate(&mut self) -> Result<(), StoreError> {
        self.migrate_to(schema::MIGRATIONS.len())
    }

    /// Runs the migrations up to `target` (tests make old databases with it).
    pub(super) fn migrate_to(&mut self, target: usize) -> Result<(), StoreError> {
        let known = schema::MIGRATIONS.len() as i64;
        let found = self.schema_version()?;
        if found > known {
            return Err(StoreError::TooNew { found, known });
        }
        for (i, sql) in schema::MIGRATIONS
            .iter()
            .enumerate()
            .take(target)
            .skip(found as usize)
        {
            // Write-locked from its start, and the version read again under the lock: of two
            // processes opening one old database at once, the second finds it done.
            let tx = self
                .conn
                .transaction_with_behavior(TransactionBehavior::Immediate)?;
            tx.execute_batch(
                "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)",
            )?;
            let now: i64 = tx.query_row(
                "SELECT coalesce(max(version), 0) FROM schema_version",
                [],
                |r| r.get(0),
            )?;
            if now > i as i64 {
                continue;
            }
            tx.execute_batch(sql)?;
            tx.execute("INSERT INTO schema_version (version) VALUES (?1)", [i + 1])?;
            tx.commit()?;
            tracing::info!(version = i + 1, "ladder database upgraded");
        }
        Ok(())
    }

    /// Adds an account.
    ///
    /// # Errors
    /// When the name is taken (by a retired account too).
    pub(super) fn add_account(
        &self,
        name: &str,
        secret_sha256: &[u8; 32],
    ) -> Result<i64, StoreError> {
        // Write-locked from its start: of two processes adding `Bot` and `bot` at once, the
        // second sees the first's (names are ASCII, which SQLite's lower() folds).
        let tx = rusqlite::Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)?;
        let there: Option<String> = tx
            .query_row(
                "SELECT name FROM accounts WHERE lower(name) = lower(?1) ORDER BY id LIMIT 1",
                [name],
                |r| r.get(0),
            )
            .optional()?;
        if let Some(there) = there {
            return Err(StoreError::NameTaken(there));
        }
        tx.execute(
            "INSERT INTO accounts (name, secret_sha256, created_unix_ms) VALUES (?1, ?2, ?3)",
            params![name, &secret_sha256[..], unix_ms()],
        )?;
        let id = tx.last_insert_rowid();
        tx.commit()?;
        Ok(id)
    }

    /// Copies accounts as they are (numbers, secrets' digests, dates) into an empty database:
    /// a rebuilt database keeps the live one's accounts.
    ///
    /// # Errors
    /// When one is already there.
    pub(super) fn copy_accounts(&self, accounts: &[AccountRow]) -> Result<(), StoreError> {
        let mut insert = self.conn.prepare(
            "INSERT INTO accounts (id, name, secret_sha256, created_unix_ms, retired_unix_ms) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        for a in accounts {
            insert.execute(params![
                a.id,
                a.name,
                &a.secret_sha256[..],
                a.created_unix_ms,
                a.retired_unix_ms
            ])?;
        }
        Ok(())
    }

    /// Retires an account: it can no longer connect; its games and ratings stay.
    ///
    /// # Errors
    /// When no account has the name.
    pub(super) fn retire(&self, name: &str) -> Result<(), StoreError> {
        let changed = self.conn.execute(
            "UPDATE accounts SET retired_unix_ms = ?2 WHERE name = ?1 AND retired_unix_ms IS NULL",
            params![name, unix_ms()],
        )?;
        if changed == 0 && self.account(name)?.is_none() {
            return Err(StoreError::NoAccount(name.to_string()));
        }
        Ok(())
    }

    /// One account, by name.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub(super) fn account(&self, name: &str) -> Result<Option<AccountRow>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT id, name, secret_sha256, created_unix_ms, retired_unix_ms FROM accounts WHERE name = ?1",
                [name],
                account_row,
            )
            .optional()?)
    }

    /// Every account, retired ones too, in order of creation.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub(super) fn accounts(&self) -> Result<Vec<AccountRow>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT id, name, secret_sha256, created_unix_ms, retired_unix_ms FROM accounts ORDER BY id",
        )?;
        let rows = stmt.query_map([], account_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// A number that changes whenever another connection (another process) commits: the
    /// ladder reads its accounts again when it does.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub(super) fn data_version(&self) -> Result<i64, StoreError> {
        Ok(self
            .conn
            .query_row("PRAGMA data_version", [], |r| r.get(0))?)
    }

    /// Whether the index has this server's game `game_no`.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub(super) fn last_game_no(&self, server: &str) -> Result<u64, StoreError> {
        let n: Option<i64> = self.conn.query_row(
            "SELECT max(game_no) FROM games WHERE server = ?1",
            [server],
            |r| r.get(0),
        )?;
        Ok(n.unwrap_or(0).max(0) as u64)
    }

    pub(super) fn game(&self, server: &str, game_no: u64) -> Result<Option<GameRow>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT server, game_no, variant, records, started_unix_ms, first, second, score, termination, plies
                 FROM games WHERE server = ?1 AND game_no = ?2",
                params![server, game_no as i64],
                game_row,
            )
            .optional()?)
    }

    pub(super) fn has_game(&self, server: &str, game_no: u64) -> Result<bool, StoreError> {
        Ok(self.conn.query_row(
            "SELECT count(*) > 0 FROM games WHERE server = ?1 AND game_no = ?2",
            params![server, game_no as i64],
            |r| r.get(0),
        )?)
    }

    /// Adds a game to the index and sets the variant's ratings to `ratings` (its players'
    /// rows after it go to the history), all in one transaction: both are written, or
    /// neither. `games` is each rated player's count of rated games. With `seen`, only if
    /// `data_version` is still that (`None` otherwise, nothing written).
    ///
    /// # Errors
    /// When the transaction fails (nothing is written then).
    pub(super) fn add_game(
        &mut self,
        game: &GameRow,
        ratings: &BTreeMap<i64, Rating>,
        games: &BTreeMap<i64, u64>,
        seen: Option<i64>,
    ) -> Result<Option<i64>, StoreError> {
        // Write-locked from its start: no other connection commits between the check and
        // the commit. (Returning early drops the transaction: rolled back.)
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        if let Some(seen) = seen {
            let now: i64 = tx.query_row("PRAGMA data_version", [], |r| r.get(0))?;
            if now != seen {
                return Ok(None);
            }
        }
        tx.execute(
            "INSERT INTO games (server, game_no, variant, records, started_unix_ms, first, second, score, termination, plies)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                game.server,
                game.game_no as i64,
                game.variant,
                game.records,
                game.started_unix_ms as i64,
                game.first,
                game.second,
                game.score,
                game.termination,
                game.plies,
            ],
        )?;
        let id = tx.last_insert_rowid();
        if game.score.is_some() {
            let mut upsert = tx.prepare(
                "INSERT INTO ratings (account, variant, rating, interval, games) VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (account, variant) DO UPDATE SET rating = ?3, interval = ?4, games = ?5",
            )?;
            for (account, r) in ratings {
                let n = games.get(account).copied().unwrap_or(0) as i64;
                upsert.execute(params![account, game.variant, r.rating, r.interval, n])?;
            }
            let mut history = tx.prepare(
                "INSERT INTO rating_history (game, account, rating, interval) VALUES (?1, ?2, ?3, ?4)",
            )?;
            for account in [game.first, game.second] {
                if let Some(r) = ratings.get(&account) {
                    history.execute(params![id, account, r.rating, r.interval])?;
                }
            }
        }
        tx.commit()?;
        Ok(Some(id))
    }

    /// Every game of a variant, in the order they were added.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub(super) fn games(&self, variant: &str) -> Result<Vec<GameRow>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT server, game_no, variant, records, started_unix_ms, first, second, score, termination, plies
             FROM games WHERE variant = ?1 ORDER BY id",
        )?;
        let rows = stmt.query_map([variant], game_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The latest `n` games of this server, oldest first, as (seat 1, seat 2) accounts:
    /// matchmaking's memory.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub(super) fn recent(&self, server: &str, n: usize) -> Result<Vec<(i64, i64)>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT first, second FROM games WHERE server = ?1 ORDER BY id DESC LIMIT ?2",
        )?;
        let rows = stmt.query_map(params![server, n as i64], |r| Ok((r.get(0)?, r.get(1)?)))?;
        let mut all: Vec<(i64, i64)> = rows.collect::<Result<_, _>>()?;
        all.reverse();
        Ok(all)
    }

    /// The ratings table of a variant: account -> (rating, games).
    ///
    /// # Errors
    /// When the database cannot be read.
    pub(super) fn ratings(
        &self,
        variant: &str,
    ) -> Result<BTreeMap<i64, (Rating, u64)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT account, rating, interval, games FROM ratings WHERE variant = ?1")?;
        let rows = stmt.query_map([variant], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                (
                    Rating {
                        rating: r.get(1)?,
                        interval: r.get(2)?,
                    },
                    r.get::<_, i64>(3)? as u64,
                ),
            ))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// An account's rating after each of its rated games of a variant, oldest first: (the
    /// game's server and number, rating, interval).
    ///
    /// # Errors
    /// When the database cannot be read.
    pub(super) fn history(
        &self,
        account: i64,
        variant: &str,
    ) -> Result<Vec<(String, u64, Rating)>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT g.server, g.game_no, h.rating, h.interval FROM rating_history h JOIN games g ON g.id = h.game
             WHERE h.account = ?1 AND g.variant = ?2 ORDER BY h.game",
        )?;
        let rows = stmt.query_map(params![account, variant], |r| {
            Ok((
                r.get(0)?,
                r.get::<_, i64>(1)? as u64,
                Rating {
                    rating: r.get(2)?,
                    interval: r.get(3)?,
                },
            ))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

fn account_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<AccountRow> {
    let digest: Vec<u8> = r.get(2)?;
    let mut secret_sha256 = [0u8; 32];
    if digest.len() == 32 {
        secret_sha256.copy_from_slice(&digest);
    }
    Ok(AccountRow {
        id: r.get(0)?,
        name: r.get(1)?,
        secret_sha256,
        created_unix_ms: r.get(3)?,
        retired_unix_ms: r.get(4)?,
    })
}

fn game_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<GameRow> {
    Ok(GameRow {
        server: r.get(0)?,
        game_no: r.get::<_, i64>(1)? as u64,
        variant: r.get(2)?,
        records: r.get(3)?,
        started_unix_ms: r.get::<_, i64>(4)? as u64,
        first: r.get(5)?,
        second: r.get(6)?,
        score: r.get(7)?,
        termination: r.get(8)?,
        plies: r.get(9)?,
    })
}
