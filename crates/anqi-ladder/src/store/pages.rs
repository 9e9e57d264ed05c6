//! What the pages read of the database: each account's wins, draws and losses, and one
//! account's games and opponents (the types; SQLite's queries here, PostgreSQL's in `pg`).

use super::{sqlite::Sqlite, StoreError};
use rusqlite::params;
use std::collections::BTreeMap;

/// Wins, draws and losses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wdl {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

/// One game of an account, as its page lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayedGame {
    pub server: String,
    pub game_no: u64,
    pub started_unix_ms: u64,
    /// 1 or 2.
    pub seat: u8,
    pub opponent: String,
    /// The account's score; `None`: the game counted for nothing.
    pub score: Option<f64>,
    pub termination: String,
    pub plies: u32,
}

/// Both seats of every game of a variant, as (account, opponent, the account's score).
const SIDES: &str = "SELECT first AS account, second AS opponent, score AS score FROM games
        WHERE variant = ?1 AND score IS NOT NULL
     UNION ALL
     SELECT second, first, 1.0 - score FROM games WHERE variant = ?1 AND score IS NOT NULL";

impl Sqlite {
    /// Every account's wins, draws and losses in rated games of a variant.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub(super) fn results(&self, variant: &str) -> Result<BTreeMap<i64, Wdl>, StoreError> {
        let sql = format!(
            "SELECT account, sum(score = 1.0), sum(score = 0.5), sum(score = 0.0) FROM ({SIDES}) GROUP BY account"
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map([variant], |r| Ok((r.get::<_, i64>(0)?, wdl(r, 1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// An account's results against each opponent in rated games of a variant, by the
    /// opponent's name.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub(super) fn opponents(
        &self,
        account: i64,
        variant: &str,
    ) -> Result<BTreeMap<String, Wdl>, StoreError> {
        let sql = format!(
            "SELECT a.name, sum(s.score = 1.0), sum(s.score = 0.5), sum(s.score = 0.0)
             FROM ({SIDES}) s JOIN accounts a ON a.id = s.opponent
             WHERE s.account = ?2 GROUP BY a.name"
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map(params![variant, account], |r| {
            Ok((r.get::<_, String>(0)?, wdl(r, 1)?))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// An account's games of a variant, latest first: `limit` of them from the `offset`th,
    /// and how many it has in all.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub(super) fn games_of(
        &self,
        account: i64,
        variant: &str,
        offset: usize,
        limit: usize,
    ) -> Result<(Vec<PlayedGame>, u64), StoreError> {
        let total: i64 = self.conn.query_row(
            "SELECT count(*) FROM games WHERE variant = ?1 AND (first = ?2 OR second = ?2)",
            params![variant, account],
            |r| r.get(0),
        )?;
        let mut stmt = self.conn.prepare(
            "SELECT g.server, g.game_no, g.started_unix_ms, g.first = ?2, o.name, g.score, g.termination, g.plies
             FROM games g JOIN accounts o ON o.id = (CASE WHEN g.first = ?2 THEN g.second ELSE g.first END)
             WHERE g.variant = ?1 AND (g.first = ?2 OR g.second = ?2)
             ORDER BY g.id DESC LIMIT ?3 OFFSET ?4",
        )?;
        let rows = stmt.query_map(
            params![variant, account, limit as i64, offset as i64],
            |r| {
                let first: bool = r.get(3)?;
                let score: Option<f64> = r.get(5)?;
                Ok(PlayedGame {
                    server: r.get(0)?,
                    game_no: r.get::<_, i64>(1)? as u64,
                    started_unix_ms: r.get::<_, i64>(2)? as u64,
                    seat: if first { 1 } else { 2 },
                    opponent: r.get(4)?,
                    score: score.map(|s| if first { s } else { 1.0 - s }),
                    termination: r.get(6)?,
                    plies: r.get(7)?,
                })
            },
        )?;
        Ok((rows.collect::<Result<_, _>>()?, total as u64))
    }
}

/// Wins, draws and losses from a row's three columns from `from` (as pg.rs's `wdl`).
fn wdl(r: &rusqlite::Row<'_>, from: usize) -> rusqlite::Result<Wdl> {
    Ok(Wdl {
        wins: r.get::<_, i64>(from)? as u64,
        draws: r.get::<_, i64>(from + 1)? as u64,
        losses: r.get::<_, i64>(from + 2)? as u64,
    })
}
