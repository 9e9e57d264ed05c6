//! The ladder's database on PostgreSQL, which several servers share: each counts its own games
//! (their identity is the server's name and the game's number) into the same tables, and sees
//! the others' accounts and games through `changes` ([`Postgres::data_version`]).
//!
//! The synchronous client (rust-postgres), one connection per store, without TLS: the
//! database is meant to be reached over a Unix socket or a trusted network. Its writes are
//! transactions that bump `changes` first: that row's lock makes the writers take turns, so a
//! name is checked and taken, or a game and its ratings written, with no other writer between.

use super::{schema, unix_ms, AccountRow, GameRow, PlayedGame, StoreError, Wdl};
use crate::rating::Rating;
use postgres::{Client, NoTls, Row, Transaction};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Mutex, MutexGuard};

/// The advisory lock taken while migrating: servers started together upgrade one at a time,
/// and the later ones find it done. Any number, the same in every anqi ("anqilade").
const MIGRATION_LOCK: i64 = 0x616e_7169_6c61_6465;

/// A PostgreSQL database, open.
pub(crate) struct Postgres {
    /// The store's methods read through `&self`, and the client needs `&mut` even to read;
    /// a mutex (never contended: one caller at a time), as calls may run on another thread
    /// ([`unblocked`]).
    client: Mutex<Conn>,
    /// How many of `changes` are this connection's own commits: `data_version` leaves them out,
    /// as SQLite's does.
    own: AtomicI64,
}

/// The connection; closed where it may block ([`unblocked`]) when dropped, as closing waits
/// for the server (`anqi serve` drops its ladder in async code).
struct Conn(Option<Client>);

impl std::ops::Deref for Conn {
    type Target = Client;

    fn deref(&self) -> &Client {
        self.0.as_ref().expect("a connection is open until dropped")
    }
}

impl std::ops::DerefMut for Conn {
    fn deref_mut(&mut self) -> &mut Client {
        self.0.as_mut().expect("a connection is open until dropped")
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        if let Some(client) = self.0.take() {
            unblocked(move || drop(client));
        }
    }
}

/// Runs `f`, which calls rust-postgres, where it can block. rust-postgres blocks on a small
/// tokio runtime of its own, which tokio forbids on a thread already inside one (`anqi serve`
/// opens the ladder from async code, and a test may too): there, `f` runs on a thread of its
/// own for its duration. A call costs a thread's start then, little beside a database's
/// round trip, and the ladder makes a few a second.
pub(crate) fn unblocked<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    if tokio::runtime::Handle::try_current().is_err() {
        return f();
    }
    std::thread::scope(|s| s.spawn(f).join()).unwrap_or_else(|e| std::panic::resume_unwind(e))
}

/// Both seats of every rated game of a variant, as (account, opponent, the account's score).
const SIDES: &str = "SELECT first AS account, second AS opponent, score FROM games
        WHERE variant = $1 AND score IS NOT NULL
     UNION ALL
     SELECT second, first, 1.0 - score FROM games WHERE variant = $1 AND score IS NOT NULL";

/// Wins, draws and losses counted over `SIDES` (as `s`).
const WDL: &str = "count(*) FILTER (WHERE s.score = 1.0), count(*) FILTER (WHERE s.score = 0.5),
     count(*) FILTER (WHERE s.score = 0.0)";

impl Postgres {
    pub(super) fn open(url: &str) -> Result<Postgres, StoreError> {
        Postgres::open_at(url, schema::POSTGRES_MIGRATIONS.len())
    }

    /// Opens the database, upgraded up to migration `target` (tests make old databases).
    pub(super) fn open_at(url: &str, target: usize) -> Result<Postgres, StoreError> {
        let store = Postgres {
            client: Mutex::new(Conn(Some(Client::connect(url, NoTls)?))),
            own: AtomicI64::new(0),
        };
        store.migrate_to(target)?;
        Ok(store)
    }

    fn client(&self) -> MutexGuard<'_, Conn> {
        self.client.lock().unwrap_or_else(|e| e.into_inner())
    }

    #[cfg(test)]
    pub(super) fn execute_raw(&self, sql: &str) -> Result<(), StoreError> {
        Ok(self.client().batch_execute(sql)?)
    }

    pub(super) fn schema_version(&self) -> Result<i64, StoreError> {
        version_of(&mut self.client())
    }

    fn migrate_to(&self, target: usize) -> Result<(), StoreError> {
        let mut client = self.client();
        client.execute("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK])?;
        let migrated = migrate_locked(&mut client, target);
        let unlocked = client.execute("SELECT pg_advisory_unlock($1)", &[&MIGRATION_LOCK]);
        migrated?;
        unlocked?;
        Ok(())
    }

    /// Runs `f` in a write transaction, `changes` bumped first.
    fn write<T>(
        &self,
        f: impl FnOnce(&mut Transaction<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let out = self.write_unless_changed(None, f)?;
        Ok(out.expect("a write unchecked is written"))
    }

    /// Runs `f` in a write transaction, `changes` bumped first; with `seen`, only if
    /// [`Postgres::data_version`] was still that when this write's turn came (`None`
    /// otherwise, rolled back).
    fn write_unless_changed<T>(
        &self,
        seen: Option<i64>,
        f: impl FnOnce(&mut Transaction<'_>) -> Result<T, StoreError>,
    ) -> Result<Option<T>, StoreError> {
        let mut client = self.client();
        // This connection's own commits: none can come while its client is held.
        let own = self.own.load(Ordering::Relaxed);
        let mut tx = client.transaction()?;
        // The bump takes the row's lock (the writers' turns): the count read with it is every
        // commit before this write's turn, and this one.
        let all: i64 = tx
            .query_one("UPDATE changes SET n = n + 1 RETURNING n", &[])?
            .try_get(0)?;
        if seen.is_some_and(|seen| all - 1 - own != seen) {
            return Ok(None);
        }
        let out = f(&mut tx)?;
        tx.commit()?;
        self.own.fetch_add(1, Ordering::Relaxed);
        Ok(Some(out))
    }

    fn query(
        &self,
        sql: &str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> Result<Vec<Row>, StoreError> {
        Ok(self.client().query(sql, params)?)
    }

    fn query_one(
        &self,
        sql: &str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> Result<Row, StoreError> {
        Ok(self.client().query_one(sql, params)?)
    }

    pub(super) fn add_account(
        &self,
        name: &str,
        secret_sha256: &[u8; 32],
    ) -> Result<i64, StoreError> {
        let digest: &[u8] = secret_sha256;
        self.write(|tx| {
            // In the write's turn (see `write`), so no other writer adds `bot` beside `Bot`
            // between the check and the insert. Names are ASCII: lower() folds them alike in
            // every locale.
            let there = tx.query_opt(
                "SELECT name FROM accounts WHERE lower(name) = lower($1) ORDER BY id LIMIT 1",
                &[&name],
            )?;
            if let Some(there) = there {
                return Err(StoreError::NameTaken(there.try_get(0)?));
            }
            let row = tx.query_one(
                "INSERT INTO accounts (name, secret_sha256, created_unix_ms) VALUES ($1, $2, $3) RETURNING id",
                &[&name, &digest, &unix_ms()],
            )?;
            Ok(row.try_get(0)?)
        })
    }

    pub(super) fn copy_accounts(&self, accounts: &[AccountRow]) -> Result<(), StoreError> {
        self.write(|tx| {
            let insert = tx.prepare(
                "INSERT INTO accounts (id, name, secret_sha256, created_unix_ms, retired_unix_ms) VALUES ($1, $2, $3, $4, $5)",
            )?;
            for a in accounts {
                let digest: &[u8] = &a.secret_sha256;
                tx.execute(
                    &insert,
                    &[&a.id, &a.name, &digest, &a.created_unix_ms, &a.retired_unix_ms],
                )?;
            }
            // The numbers were given, not drawn: the next drawn must come after them.
            tx.execute(
                "SELECT setval(pg_get_serial_sequence('accounts', 'id'), max(id)) FROM accounts HAVING count(*) > 0",
                &[],
            )?;
            Ok(())
        })
    }

    pub(super) fn retire(&self, name: &str) -> Result<(), StoreError> {
        self.write(|tx| {
            let changed = tx.execute(
                "UPDATE accounts SET retired_unix_ms = $2 WHERE name = $1 AND retired_unix_ms IS NULL",
                &[&name, &unix_ms()],
            )?;
            let exists = changed > 0
                || tx
                    .query_one("SELECT count(*) > 0 FROM accounts WHERE name = $1", &[&name])?
                    .try_get(0)?;
            if !exists {
                return Err(StoreError::NoAccount(name.to_string()));
            }
            Ok(())
        })
    }

    pub(super) fn account(&self, name: &str) -> Result<Option<AccountRow>, StoreError> {
        self.query(
            "SELECT id, name, secret_sha256, created_unix_ms, retired_unix_ms FROM accounts WHERE name = $1",
            &[&name],
        )?
        .first()
        .map(account_row)
        .transpose()
    }

    pub(super) fn accounts(&self) -> Result<Vec<AccountRow>, StoreError> {
        self.query(
            "SELECT id, name, secret_sha256, created_unix_ms, retired_unix_ms FROM accounts ORDER BY id",
            &[],
        )?
        .iter()
        .map(account_row)
        .collect()
    }

    /// The write transactions committed by anyone, less this connection's own.
    pub(super) fn data_version(&self) -> Result<i64, StoreError> {
        let all: i64 = self.query_one("SELECT n FROM changes", &[])?.try_get(0)?;
        Ok(all - self.own.load(Ordering::Relaxed))
    }

    pub(super) fn last_game_no(&self, server: &str) -> Result<u64, StoreError> {
        let n: Option<i64> = self
            .query_one(
                "SELECT max(game_no) FROM games WHERE server = $1",
                &[&server],
            )?
            .try_get(0)?;
        Ok(n.unwrap_or(0).max(0) as u64)
    }

    pub(super) fn game(&self, server: &str, game_no: u64) -> Result<Option<GameRow>, StoreError> {
        self.query(
            "SELECT server, game_no, variant, records, started_unix_ms, first, second, score, termination, plies
             FROM games WHERE server = $1 AND game_no = $2",
            &[&server, &(game_no as i64)],
        )?
        .first()
        .map(game_row)
        .transpose()
    }

    pub(super) fn has_game(&self, server: &str, game_no: u64) -> Result<bool, StoreError> {
        Ok(self
            .query_one(
                "SELECT count(*) > 0 FROM games WHERE server = $1 AND game_no = $2",
                &[&server, &(game_no as i64)],
            )?
            .try_get(0)?)
    }

    pub(super) fn add_game(
        &self,
        game: &GameRow,
        ratings: &BTreeMap<i64, Rating>,
        games: &BTreeMap<i64, u64>,
        seen: Option<i64>,
    ) -> Result<Option<i64>, StoreError> {
        self.write_unless_changed(seen, |tx| {
            let id: i64 = tx
                .query_one(
                    "INSERT INTO games (server, game_no, variant, records, started_unix_ms, first, second, score, termination, plies)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id",
                    &[
                        &game.server,
                        &(game.game_no as i64),
                        &game.variant,
                        &game.records,
                        &(game.started_unix_ms as i64),
                        &game.first,
                        &game.second,
                        &game.score,
                        &game.termination,
                        &i64::from(game.plies),
                    ],
                )?
                .try_get(0)?;
            if game.score.is_none() {
                return Ok(id);
            }
            let upsert = tx.prepare(
                "INSERT INTO ratings (account, variant, rating, \"interval\", games) VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (account, variant) DO UPDATE
                 SET rating = EXCLUDED.rating, \"interval\" = EXCLUDED.\"interval\", games = EXCLUDED.games",
            )?;
            for (account, r) in ratings {
                let n = games.get(account).copied().unwrap_or(0) as i64;
                tx.execute(
                    &upsert,
                    &[account, &game.variant, &r.rating, &r.interval, &n],
                )?;
            }
            let history = tx.prepare(
                "INSERT INTO rating_history (game, account, rating, \"interval\") VALUES ($1, $2, $3, $4)",
            )?;
            for account in [game.first, game.second] {
                if let Some(r) = ratings.get(&account) {
                    tx.execute(&history, &[&id, &account, &r.rating, &r.interval])?;
                }
            }
            Ok(id)
        })
    }

    pub(super) fn games(&self, variant: &str) -> Result<Vec<GameRow>, StoreError> {
        self.query(
            "SELECT server, game_no, variant, records, started_unix_ms, first, second, score, termination, plies
             FROM games WHERE variant = $1 ORDER BY id",
            &[&variant],
        )?
        .iter()
        .map(game_row)
        .collect()
    }

    pub(super) fn recent(&self, server: &str, n: usize) -> Result<Vec<(i64, i64)>, StoreError> {
        let rows = self.query(
            "SELECT first, second FROM games WHERE server = $1 ORDER BY id DESC LIMIT $2",
            &[&server, &(n as i64)],
        )?;
        let mut all = rows
            .iter()
            .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
            .collect::<Result<Vec<(i64, i64)>, StoreError>>()?;
        all.reverse();
        Ok(all)
    }

    pub(super) fn ratings(
        &self,
        variant: &str,
    ) -> Result<BTreeMap<i64, (Rating, u64)>, StoreError> {
        self.query(
            "SELECT account, rating, \"interval\", games FROM ratings WHERE variant = $1",
            &[&variant],
        )?
        .iter()
        .map(|r| {
            let rating = Rating {
                rating: r.try_get(1)?,
                interval: r.try_get(2)?,
            };
            Ok((r.try_get(0)?, (rating, r.try_get::<_, i64>(3)? as u64)))
        })
        .collect()
    }

    pub(super) fn history(
        &self,
        account: i64,
        variant: &str,
    ) -> Result<Vec<(String, u64, Rating)>, StoreError> {
        self.query(
            "SELECT g.server, g.game_no, h.rating, h.\"interval\" FROM rating_history h JOIN games g ON g.id = h.game
             WHERE h.account = $1 AND g.variant = $2 ORDER BY h.game",
            &[&account, &variant],
        )?
        .iter()
        .map(|r| {
            let rating = Rating {
                rating: r.try_get(2)?,
                interval: r.try_get(3)?,
            };
            Ok((r.try_get(0)?, r.try_get::<_, i64>(1)? as u64, rating))
        })
        .collect()
    }

    pub(super) fn results(&self, variant: &str) -> Result<BTreeMap<i64, Wdl>, StoreError> {
        let sql = format!("SELECT s.account, {WDL} FROM ({SIDES}) s GROUP BY s.account");
        self.query(&sql, &[&variant])?
            .iter()
            .map(|r| Ok((r.try_get(0)?, wdl(r, 1)?)))
            .collect()
    }

    pub(super) fn opponents(
        &self,
        account: i64,
        variant: &str,
    ) -> Result<BTreeMap<String, Wdl>, StoreError> {
        let sql = format!(
            "SELECT a.name, {WDL} FROM ({SIDES}) s JOIN accounts a ON a.id = s.opponent
             WHERE s.account = $2 GROUP BY a.name"
        );
        self.query(&sql, &[&variant, &account])?
            .iter()
            .map(|r| Ok((r.try_get(0)?, wdl(r, 1)?)))
            .collect()
    }

    pub(super) fn games_of(
        &self,
        account: i64,
        variant: &str,
        offset: usize,
        limit: usize,
    ) -> Result<(Vec<PlayedGame>, u64), StoreError> {
        let total: i64 = self
            .query_one(
                "SELECT count(*) FROM games WHERE variant = $1 AND (first = $2 OR second = $2)",
                &[&variant, &account],
            )?
            .try_get(0)?;
        let rows = self.query(
            "SELECT g.server, g.game_no, g.started_unix_ms, g.first = $2, o.name, g.score, g.termination, g.plies
             FROM games g JOIN accounts o ON o.id = (CASE WHEN g.first = $2 THEN g.second ELSE g.first END)
             WHERE g.variant = $1 AND (g.first = $2 OR g.second = $2)
             ORDER BY g.id DESC LIMIT $3 OFFSET $4",
            &[&variant, &account, &(limit as i64), &(offset as i64)],
        )?;
        let games = rows
            .iter()
            .map(|r| {
                let first: bool = r.try_get(3)?;
                let score: Option<f64> = r.try_get(5)?;
                Ok(PlayedGame {
                    server: r.try_get(0)?,
                    game_no: r.try_get::<_, i64>(1)? as u64,
                    started_unix_ms: r.try_get::<_, i64>(2)? as u64,
                    seat: if first { 1 } else { 2 },
                    opponent: r.try_get(4)?,
                    score: score.map(|s| if first { s } else { 1.0 - s }),
                    termination: r.try_get(6)?,
                    plies: r.try_get::<_, i64>(7)? as u32,
                })
            })
            .collect::<Result<_, StoreError>>()?;
        Ok((games, total as u64))
    }
}

/// The schema version of the database `client` is connected to: 0 for an empty one.
fn version_of(client: &mut Client) -> Result<i64, StoreError> {
    let exists: bool = client
        .query_one("SELECT to_regclass('schema_version') IS NOT NULL", &[])?
        .try_get(0)?;
    if !exists {
        return Ok(0);
    }
    let version: Option<i64> = client
        .query_one("SELECT max(version) FROM schema_version", &[])?
        .try_get(0)?;
    Ok(version.unwrap_or(0))
}

/// Runs the migrations past the database's version up to `target`, each in its own
/// transaction, with the migration lock held.
fn migrate_locked(client: &mut Client, target: usize) -> Result<(), StoreError> {
    let known = schema::POSTGRES_MIGRATIONS.len() as i64;
    let found = version_of(client)?;
    if found > known {
        return Err(StoreError::TooNew { found, known });
    }
    for (i, sql) in schema::POSTGRES_MIGRATIONS
        .iter()
        .enumerate()
        .take(target)
        .skip(found as usize)
    {
        let mut tx = client.transaction()?;
        tx.batch_execute("CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)")?;
        tx.batch_execute(sql)?;
        tx.execute(
            "INSERT INTO schema_version (version) VALUES ($1)",
            &[&(i as i64 + 1)],
        )?;
        tx.commit()?;
        tracing::info!(version = i + 1, "ladder database (PostgreSQL) upgraded");
    }
    Ok(())
}

fn wdl(r: &Row, from: usize) -> Result<Wdl, StoreError> {
    Ok(Wdl {
        wins: r.try_get::<_, i64>(from)? as u64,
        draws: r.try_get::<_, i64>(from + 1)? as u64,
        losses: r.try_get::<_, i64>(from + 2)? as u64,
    })
}

fn account_row(r: &Row) -> Result<AccountRow, StoreError> {
    let digest: Vec<u8> = r.try_get(2)?;
    let mut secret_sha256 = [0u8; 32];
    if digest.len() == 32 {
        secret_sha256.copy_from_slice(&digest);
    }
    Ok(AccountRow {
        id: r.try_get(0)?,
        name: r.try_get(1)?,
        secret_sha256,
        created_unix_ms: r.try_get(3)?,
        retired_unix_ms: r.try_get(4)?,
    })
}

fn game_row(r: &Row) -> Result<GameRow, StoreError> {
    Ok(GameRow {
        server: r.try_get(0)?,
        game_no: r.try_get::<_, i64>(1)? as u64,
        variant: r.try_get(2)?,
        records: r.try_get(3)?,
        started_unix_ms: r.try_get::<_, i64>(4)? as u64,
        first: r.try_get(5)?,
        second: r.try_get(6)?,
        score: r.try_get(7)?,
        termination: r.try_get(8)?,
        plies: r.try_get::<_, i64>(9)? as u32,
    })
}
