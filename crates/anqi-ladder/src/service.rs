//! The ladder at work beside a server: it tells the seating the accounts (and, every second,
//! any account added or retired meanwhile by `anqi ladder`), and counts every game whose
//! record the server wrote, in the records file's order, telling the seating the new ratings.
//!
//! Records reach it after they are on disk (the server's record observer); it ends when the
//! server has stopped and the last record has been counted. What a kill leaves uncounted is
//! counted at the next start from the records file ([`Ledger::catch_up`]).

use crate::ledger::Ledger;
use crate::store::StoreError;
use anqi_core::record::GameRecord;
use anqi_server::metrics::Metrics;
use anqi_server::{LadderDesk, LadderNews};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

/// How often the database is looked at for accounts added or retired by another process.
const ACCOUNTS_EVERY: Duration = Duration::from_secs(1);

/// How many of the server's latest games matchmaking is told of at start.
const RECENT_TOLD: usize = 256;

fn lock(ledger: &Mutex<Ledger>) -> std::sync::MutexGuard<'_, Ledger> {
    ledger.lock().unwrap_or_else(|e| e.into_inner())
}

/// Before the server runs: counts what the records file holds and the database does not (a
/// crash between the two), then tells the seating the accounts and the latest games. Returns
/// how many games were caught up.
///
/// # Errors
/// When the database refuses.
pub fn prepare(
    ledger: &Mutex<Ledger>,
    desk: &LadderDesk,
    records: &Path,
) -> Result<usize, StoreError> {
    let mut ledger = lock(ledger);
    let caught_up = ledger.catch_up(records)?;
    let accounts = ledger.seating_accounts()?;
    let recent = ledger.recent(RECENT_TOLD)?;
    let _ = desk.tell(LadderNews::Accounts(accounts));
    let _ = desk.tell(LadderNews::Recent(recent));
    Ok(caught_up)
}

/// Counts each record as it comes, until the server has stopped and every record is counted;
/// in the server's `metrics` too.
pub async fn run(
    ledger: Arc<Mutex<Ledger>>,
    desk: LadderDesk,
    mut records: mpsc::UnboundedReceiver<GameRecord>,
    metrics: Metrics,
) {
    metrics.ladder().start();
    let mut tick = tokio::time::interval(ACCOUNTS_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            record = records.recv() => {
                let Some(record) = record else { break };
                let (ledger, metrics) = (ledger.clone(), metrics.clone());
                let news = tokio::task::spawn_blocking(move || count(&ledger, &record, &metrics)).await;
                if let Ok(Some(news)) = news {
                    let _ = desk.tell(news);
                }
            }
            _ = tick.tick() => {
                let (ledger, desk) = (ledger.clone(), desk.clone());
                let _ = tokio::task::spawn_blocking(move || accounts_if_changed(&ledger, &desk)).await;
            }
        }
    }
}

/// Counts one record; the new ratings, when it changed them.
fn count(ledger: &Mutex<Ledger>, record: &GameRecord, metrics: &Metrics) -> Option<LadderNews> {
    let mut ledger = lock(ledger);
    match ledger.count(record) {
        Ok(Some(counted)) => {
            metrics
                .ladder()
                .counted(counted.row.score.is_some(), counted.took);
            tracing::info!(game = counted.row.game_no, score = ?counted.row.score, "ladder game counted");
            let ratings = ledger
                .ratings()
                .iter()
                .map(|(&id, r)| (id, r.rating))
                .collect();
            Some(LadderNews::Ratings(ratings))
        }
        Ok(None) => None,
        // The record is on disk: the next start counts it (catch_up).
        Err(e) => {
            tracing::error!(game = record.game, error = %e, "a ladder game could not be counted now; it will be at the next start");
            metrics.ladder().refused(e.to_string());
            None
        }
    }
}

/// Tells the seating the accounts, when another process changed the database: under the
/// ledger's lock, so that a list read here never reaches the seating after a newer one (an
/// account made on request meanwhile, `registration`, is told under the same lock).
fn accounts_if_changed(ledger: &Mutex<Ledger>, desk: &LadderDesk) {
    let mut ledger = lock(ledger);
    match ledger.refresh() {
        Ok(true) => {
            if let Ok(accounts) = ledger.seating_accounts() {
                let _ = desk.tell(LadderNews::Accounts(accounts));
            }
        }
        Ok(false) => {}
        Err(e) => tracing::warn!(error = %e, "the ladder database cannot be read"),
    }
}
