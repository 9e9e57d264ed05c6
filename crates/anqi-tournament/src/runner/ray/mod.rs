//! The event on a Ray cluster (`anqi tournament --ray ADDRESS`): this runner keeps the event
//! (the schedule, the master seed, the one records file, the standings, the SPRT, the pages)
//! and hands the games out in units, a deal's seatings each, to the cluster's nodes through
//! the dispatcher; the records come back as games end.
//!
//! Exactly once: a game is known by its place in the schedule, and a record of a game already
//! recorded (a unit Ray ran again after a node died under it) is dropped. A unit that ended
//! with games unplayed is sent again; when the SPRT decides, the units in flight are cancelled
//! and the games that had already ended are still recorded.

mod dispatcher;

use super::event::{Event, Ledger};
use super::game::{GameSecrets, Played};
use super::unit::{UnitCommon, UnitGame, UnitLine};
use crate::config::{OnEngineFailure, RayConfig, TournamentConfig};
use crate::schedule::ScheduledGame;
use crate::TournamentError;
use anqi_core::record::GameRecord;
use dispatcher::{Dispatcher, Said};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::Path;

/// How often the games of one unit are sent again (a unit that ended with games unplayed, or
/// that Ray gave up) before the event stops.
const UNIT_ATTEMPTS: u32 = 3;

/// Checks that the event can be played on a cluster.
///
/// # Errors
/// An engine without a command (nothing on a node can start it), or shards (the cluster
/// shares the games out itself).
pub(in crate::runner) fn check(
    config: &TournamentConfig,
    shard: Option<(u64, u64)>,
) -> Result<(), TournamentError> {
    if shard.is_some() {
        return Err(TournamentError::Config(
            "--shard and a Ray cluster (--ray, [tournament.ray] address) do not go together: the cluster shares the games out itself".into(),
        ));
    }
    if let Some(e) = config.engines.iter().find(|e| e.command.is_none()) {
        return Err(TournamentError::Config(format!(
            "engine {:?} has no command: on a Ray cluster every engine is started on the node that plays its game, so each needs a `command`",
            e.name
        )));
    }
    Ok(())
}

/// A unit in flight: its games.
struct InFlight {
    games: Vec<ScheduledGame>,
    attempt: u32,
}

/// The games still to send, and those in flight, by unit number.
struct Units {
    queue: VecDeque<(Vec<ScheduledGame>, u32)>,
    in_flight: BTreeMap<u64, InFlight>,
    next: u64,
    /// The nodes the event no longer uses (`avoid-node`), by Ray node id.
    avoided: BTreeSet<String>,
}

/// Plays `todo` on the cluster of `[tournament.ray]`, appending each record to `out` (and to
/// `records`) as it comes, until the schedule is done or the SPRT decides.
///
/// # Errors
/// The cluster cannot be reached, an engine cannot start on a node (unless the event avoids
/// that node), a unit fails again and again, I/O failures.
pub(in crate::runner) async fn play_all(
    event: &Event,
    todo: Vec<ScheduledGame>,
    records: &mut Vec<GameRecord>,
    out: &mut std::fs::File,
) -> Result<(), TournamentError> {
    let config = &event.config;
    let ray = config.ray.clone().unwrap_or_default();
    let (mut dispatcher, ready) = Dispatcher::start(&ray, event_message(config, &ray)?).await?;
    let mut cpus = match ready {
        Said::Ready {
            cpus,
            nodes,
            ray: version,
        } => {
            event.say(&format!(
                "ray {version}: {nodes} node(s), {cpus} processor(s) at {}",
                ray.address.as_deref().unwrap_or("auto")
            ));
            cpus
        }
        _ => unreachable!("start returns Ready"),
    };
    let mut units = Units {
        queue: by_unit(todo, ray.deals_per_unit),
        in_flight: BTreeMap::new(),
        next: 0,
        avoided: BTreeSet::new(),
    };
    let mut ledger = event.ledger(records, out);
    let played = drive(
        event,
        &ray,
        &mut dispatcher,
        &mut units,
        &mut ledger,
        &mut cpus,
    )
    .await;
    dispatcher.close().await;
    played
}

/// The dispatcher's first message: the cluster, the program the nodes run, and what every
/// unit shares.
fn event_message(
    config: &TournamentConfig,
    ray: &RayConfig,
) -> Result<serde_json::Value, TournamentError> {
    let binary = std::env::current_exe().map_err(TournamentError::io(
        "cannot find this anqi program to ship to the nodes",
    ))?;
    // A variant from a file goes with the units: the nodes may not have the file.
    let variant_text = Path::new(&config.variant)
        .is_file()
        .then(|| std::fs::read_to_string(&config.variant))
        .transpose()
        .map_err(TournamentError::io(format!(
            "cannot read {}",
            config.variant
        )))?;
    let common = UnitCommon {
        config: config.to_toml(),
        variant_text,
        cwd: std::env::current_dir()
            .ok()
            .map(|d| d.display().to_string()),
    };
    Ok(serde_json::json!({
        "op": "event",
        "address": ray.address.as_deref().unwrap_or("auto"),
        "binary": binary,
        "common": common,
        "cpus_per_unit": ray.cpus_per_unit,
        "resources": ray.resources,
        "max_retries": ray.max_retries,
    }))
}

/// The games in units of `deals_per_unit` deals, every seating of a deal in one unit (played
/// on one node, one after another, so that a node's speed weighs on both sides of the deal
/// alike).
fn by_unit(todo: Vec<ScheduledGame>, deals_per_unit: u32) -> VecDeque<(Vec<ScheduledGame>, u32)> {
    let mut deals: BTreeMap<u64, Vec<ScheduledGame>> = BTreeMap::new();
    for game in todo {
        deals.entry(game.deal).or_default().push(game);
    }
    let deals: Vec<Vec<ScheduledGame>> = deals.into_values().collect();
    deals
        .chunks(deals_per_unit.max(1) as usize)
        .map(|chunk| (chunk.concat(), 0))
        .collect()
}

/// Units in flight at once: two for each unit the cluster can run at a time, so that no node
/// waits for the runner, and no more, so that cancelling is quick.
fn window(cpus: f64, ray: &RayConfig) -> usize {
    2 * ((cpus / ray.cpus_per_unit).floor() as usize).max(1)
}

async fn drive(
    event: &Event,
    ray: &RayConfig,
    dispatcher: &mut Dispatcher,
    units: &mut Units,
    ledger: &mut Ledger<'_>,
    cpus: &mut f64,
) -> Result<(), TournamentError> {
    let mut cancelled = false;
    let mut duplicates = 0u64;
    loop {
        while !ledger.stopped_early && units.in_flight.len() < window(*cpus, ray) {
            let Some((games, attempt)) = units.queue.pop_front() else {
                break;
            };
            send_unit(event, dispatcher, units, games, attempt)?;
        }
        if units.in_flight.is_empty() && (units.queue.is_empty() || ledger.stopped_early) {
            break;
        }
        match dispatcher.next().await? {
            Said::Line {
                unit,
                node,
                node_id,
                line,
            } => {
                let line: UnitLine = serde_json::from_str(&line).map_err(|e| {
                    TournamentError::Cluster(format!(
                        "node {node} said something else than a unit's line ({e}): {line}"
                    ))
                })?;
                match line {
                    UnitLine::EngineFailure { why } => {
                        engine_failure(ray, dispatcher, units, unit, &node, &node_id, why)?;
                    }
                    UnitLine::Error { why } => {
                        return Err(TournamentError::Cluster(format!(
                            "a unit of the event cannot be played on node {node}: {why}"
                        )));
                    }
                    UnitLine::Played {
                        record,
                        seats,
                        absent,
                        logs,
                    } => {
                        let played = Played {
                            record: *record,
                            seats,
                            absent,
                            logs,
                        };
                        let index = played.record.tournament.as_ref().map(|t| t.index);
                        let ours = units
                            .in_flight
                            .get(&unit)
                            .is_some_and(|u| u.games.iter().any(|g| Some(g.index) == index));
                        if !ours {
                            return Err(TournamentError::Cluster(format!(
                                "node {node} sent a game unit {unit} does not hold ({index:?})"
                            )));
                        }
                        if index.is_some_and(|i| ledger.recorded.contains(&i)) {
                            // A unit Ray ran again: the game is already recorded.
                            duplicates += 1;
                            continue;
                        }
                        event.settle(ledger, played)?;
                        if ledger.stopped_early && !cancelled {
                            cancelled = true;
                            dispatcher.send(&serde_json::json!({ "op": "cancel" }))?;
                        }
                    }
                }
            }
            Said::Done { unit } => unit_over(units, ledger, unit, None)?,
            Said::Failed { unit, why } => unit_over(units, ledger, unit, Some(why))?,
            Said::Cancelled => units.in_flight.clear(),
            Said::Cpus { cpus: now, nodes } => {
                event.say(&format!("ray: now {nodes} node(s), {now} processor(s)"));
                *cpus = now;
            }
            Said::Error { why } => return Err(TournamentError::Cluster(why)),
            Said::Ready { .. } => {}
        }
    }
    if duplicates > 0 {
        event.say(&format!(
            "ray: {duplicates} game(s) of units run again were already recorded, and dropped"
        ));
    }
    Ok(())
}

/// Sends the unit of `games`.
fn send_unit(
    event: &Event,
    dispatcher: &mut Dispatcher,
    units: &mut Units,
    games: Vec<ScheduledGame>,
    attempt: u32,
) -> Result<(), TournamentError> {
    let unit = units.next;
    units.next += 1;
    let sent: Vec<UnitGame> = games
        .iter()
        .map(|g| UnitGame::of(g, GameSecrets::of(&event.dealer, g)))
        .collect();
    dispatcher.send(&serde_json::json!({ "op": "unit", "unit": unit, "games": sent }))?;
    units.in_flight.insert(unit, InFlight { games, attempt });
    Ok(())
}

/// Unit `unit` is over (`failed`: Ray gave it up, and why): its games not recorded go back in
/// the queue, unless they have been sent too often already.
fn unit_over(
    units: &mut Units,
    ledger: &Ledger<'_>,
    unit: u64,
    failed: Option<String>,
) -> Result<(), TournamentError> {
    let Some(flight) = units.in_flight.remove(&unit) else {
        return Ok(());
    };
    let left: Vec<ScheduledGame> = flight
        .games
        .into_iter()
        .filter(|g| !ledger.recorded.contains(&g.index))
        .collect();
    if left.is_empty() || ledger.stopped_early {
        return Ok(());
    }
    let indexes: Vec<u64> = left.iter().map(|g| g.index).collect();
    if flight.attempt + 1 >= UNIT_ATTEMPTS {
        return Err(TournamentError::Cluster(format!(
            "games {indexes:?} were sent to the cluster {UNIT_ATTEMPTS} times without an end ({}): the event is stopped; the games already played are recorded, and the same command resumes it",
            failed.as_deref().unwrap_or("their unit ended without them")
        )));
    }
    units.queue.push_front((left, flight.attempt + 1));
    Ok(())
}

/// An engine cannot play on node `node`: the event stops, or (`avoid-node`) the node gets no
/// more of the event's units and the unit's games go elsewhere.
fn engine_failure(
    ray: &RayConfig,
    dispatcher: &mut Dispatcher,
    units: &mut Units,
    unit: u64,
    node: &str,
    node_id: &str,
    why: String,
) -> Result<(), TournamentError> {
    if ray.on_engine_failure == OnEngineFailure::Stop {
        return Err(TournamentError::Engine(format!(
            "on node {node}: {why}. (With [tournament.ray] on_engine_failure = \"avoid-node\" the event would go on without that node.)"
        )));
    }
    if units.avoided.insert(node_id.to_string()) {
        // Said once a node: its other units in flight fail the same way.
        super::progress::say(&format!(
            "anqi: warning: on node {node}: {why}. The event goes on without that node (on_engine_failure = \"avoid-node\")"
        ));
        dispatcher.send(&serde_json::json!({ "op": "avoid", "node_id": node_id }))?;
    }
    if let Some(flight) = units.in_flight.get_mut(&unit) {
        // Its games go elsewhere; this is not one of the unit's attempts.
        flight.attempt = flight.attempt.saturating_sub(1);
    }
    Ok(())
}
