//! The ladder on the pages: `GET /api/ladder` (the leaderboard) and `GET /api/players/{name}`
//! (one account: its rating history, its games, its results by opponent), as JSON read from
//! the ledger and its database (protocol/WEB.md, The ladder); and accounts made on request
//! (`registration`), and found by secret for the web seats.

use crate::accounts::digest;
use crate::ledger::Ledger;
use crate::rating::Rating;
use crate::registration::Registrar;
use crate::store::{StoreError, Wdl};
use anqi_server::watch::{
    LadderPages, LadderPeople, Registered, Registrant, RegistrationRefusal, SeatAccount,
};
use serde_json::{json, Value};
use std::net::IpAddr;

/// Games listed per page of a player's games.
pub const GAMES_PER_PAGE: usize = 100;

/// The pages' view of a ladder: its ledger is the registrar's, read through the registrar's
/// one handle.
pub struct Pages {
    registrar: Registrar,
}

impl Pages {
    /// The pages of the ladder `registrar` keeps: they keep no handle of their own to its
    /// ledger.
    pub fn new(registrar: Registrar) -> Pages {
        Pages { registrar }
    }

    fn ledger(&self) -> std::sync::MutexGuard<'_, Ledger> {
        self.registrar.ledger()
    }
}

/// A rating as the pages show it: rounded to a tenth of a point.
fn shown(r: Rating) -> (f64, f64) {
    (
        (r.rating * 10.0).round() / 10.0,
        (r.interval * 10.0).round() / 10.0,
    )
}

fn wdl(w: Wdl) -> Value {
    json!({"wins": w.wins, "draws": w.draws, "losses": w.losses})
}

/// The leaderboard: every account, the rated ones by rating (highest first), then those with
/// no rated game yet; retired ones are listed, marked.
pub fn leaderboard(ledger: &Ledger) -> Result<Value, StoreError> {
    let store = ledger.store();
    let results = store.results(ledger.variant())?;
    let mut rows: Vec<(Option<Rating>, Value)> = store
        .accounts()?
        .into_iter()
        .map(|a| {
            let rated = ledger.ratings().get(&a.id).copied();
            let (rating, interval) = shown(rated.unwrap_or_else(Rating::unrated));
            let w = results.get(&a.id).copied().unwrap_or_default();
            let games = w.wins + w.draws + w.losses;
            (
                rated,
                json!({
                    "name": a.name,
                    "rating": rating,
                    "interval": interval,
                    "games": games,
                    "wins": w.wins, "draws": w.draws, "losses": w.losses,
                    "retired": a.retired_unix_ms.is_some(),
                }),
            )
        })
        .collect();
    rows.sort_by(|(a, _), (b, _)| match (a, b) {
        (Some(a), Some(b)) => b.rating.total_cmp(&a.rating),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    let players: Vec<Value> = rows
        .into_iter()
        .enumerate()
        .map(|(i, (rated, mut row))| {
            row["rank"] = rated.map_or(Value::Null, |_| json!(i + 1));
            row
        })
        .collect();
    let rated_games: u64 = ledger.games_counted();
    Ok(json!({
        "server": ledger.server(),
        "variant": ledger.variant(),
        "method": "bradley-terry",
        "games": rated_games,
        "players": players,
    }))
}

/// One account's page: `None` when no account has the name.
pub fn player(ledger: &Ledger, name: &str, offset: usize) -> Result<Option<Value>, StoreError> {
    let store = ledger.store();
    let Some(account) = store.account(name)? else {
        return Ok(None);
    };
    let variant = ledger.variant();
    let rated = ledger.ratings().get(&account.id).copied();
    let (rating, interval) = shown(rated.unwrap_or_else(Rating::unrated));
    let history: Vec<Value> = store
        .history(account.id, variant)?
        .into_iter()
        .map(|(server, game, r)| {
            let (rating, interval) = shown(r);
            json!({"server": server, "game": game, "rating": rating, "interval": interval})
        })
        .collect();
    let (games, total) = store.games_of(account.id, variant, offset, GAMES_PER_PAGE)?;
    let games: Vec<Value> = games
        .into_iter()
        .map(|g| {
            json!({
                "server": g.server,
                "game": g.game_no,
                "started_unix_ms": g.started_unix_ms,
                "seat": g.seat,
                "opponent": g.opponent,
                "score": g.score,
                "termination": g.termination,
                "plies": g.plies,
            })
        })
        .collect();
    let opponents: Vec<Value> = store
        .opponents(account.id, variant)?
        .into_iter()
        .map(|(name, w)| {
            let mut row = wdl(w);
            row["name"] = json!(name);
            row
        })
        .collect();
    let w = store
        .results(variant)?
        .get(&account.id)
        .copied()
        .unwrap_or_default();
    Ok(Some(json!({
        "name": account.name,
        "server": ledger.server(),
        "variant": variant,
        "rated": rated.is_some(),
        "rating": rating,
        "interval": interval,
        "wins": w.wins, "draws": w.draws, "losses": w.losses,
        "retired": account.retired_unix_ms.is_some(),
        "created_unix_ms": account.created_unix_ms,
        "history": history,
        "games": games,
        "total": total,
        "offset": offset,
        "opponents": opponents,
    })))
}

impl LadderPages for Pages {
    fn ladder(&self) -> Result<String, String> {
        leaderboard(&self.ledger())
            .map(|v| v.to_string())
            .map_err(|e| {
                tracing::warn!(error = %e, "the ladder's leaderboard cannot be read");
                e.to_string()
            })
    }

    fn player(&self, name: &str, offset: usize) -> Result<Option<String>, String> {
        player(&self.ledger(), name, offset)
            .map(|v| v.map(|v| v.to_string()))
            .map_err(|e| {
                tracing::warn!(error = %e, "a ladder player's page cannot be read");
                e.to_string()
            })
    }

    fn people(&self) -> LadderPeople {
        self.registrar.people()
    }

    fn register(&self, who: Registrant, peer: IpAddr) -> Result<Registered, RegistrationRefusal> {
        self.registrar.register(&who, peer)
    }

    fn account_of(&self, secret: &str) -> Result<Option<SeatAccount>, String> {
        let wanted = digest(secret);
        let mut ledger = self.ledger();
        // An account another process added within the last second: the seating is told of
        // it now, before the seat taken with its secret reaches it.
        if ledger.refresh().unwrap_or(false) {
            self.registrar.announce(&mut ledger);
        }
        let accounts = ledger.store().accounts().map_err(|e| {
            tracing::warn!(error = %e, "the ladder's accounts cannot be read");
            e.to_string()
        })?;
        Ok(accounts
            .into_iter()
            .find(|a| a.secret_sha256 == wanted)
            .map(|a| SeatAccount {
                name: a.name,
                retired: a.retired_unix_ms.is_some(),
            }))
    }
}
