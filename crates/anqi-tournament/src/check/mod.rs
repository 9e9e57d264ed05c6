//! `anqi check ENGINE`: a compliance check for engine authors (in the spirit of fastchess's
//! UCI compliance checker). It drives the engine through what its protocol can send, in every
//! variant the protocol can play, and says pass or fail per item with the exchange that
//! failed.
//!
//! Nothing here plays a game by itself: each item is a tiny `anqi match` (the engine against
//! a reference bot, both seatings, a few dozen plies) run by the tournament runner on its
//! in-process server, and judged by what the referee recorded (faults, losses by time,
//! illegal action, crash or disconnection). So the check holds an engine to exactly what a
//! tournament holds it to. A bridged engine's handshake is the bridge's own `--check`
//! ([`crate::bridge::check`]).
//!
//! - this file: the plan of items, running them, and the bridge's handshake items.
//! - `game`: one item played as a match and judged from its records.
//! - `proxy`: the relay between an anqi-protocol engine and the server that keeps the last
//!   lines of the exchange, sees whether the engine asks for `rejoin`, and cuts it to rejoin.

mod game;
mod proxy;

use crate::bridge::{self, BridgeOptions, Protocol};
use crate::quick_match::{self, Bots, MatchError, MatchRequest};
use crate::time_control::Tc;
use anqi_core::rules::{Variant, SHIPPED};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What `anqi check` was asked for.
#[derive(Clone, Debug)]
pub struct CheckRequest {
    /// The engine, as `anqi match` takes it: a command line with `{addr}`, `PROTOCOL:COMMAND`,
    /// or a reference bot's name (`NAME=` before any of them names it).
    pub engine: String,
    /// The variants to play; empty: every shipped variant the engine's protocol can play.
    pub variants: Vec<String>,
    /// The engine's opponent: a reference bot's name.
    pub opponent: String,
    /// Plies per game before the referee draws it: the check is for the protocol, not the
    /// engine's strength, so games are short.
    pub max_plies: u32,
    /// The time control of every game: a time per move, so an engine that never answers
    /// fails in seconds.
    pub tc: Tc,
    /// The master seed of the deals (random when `None`), to replay a failure.
    pub seed: Option<String>,
    /// Items played at the same time.
    pub concurrency: usize,
    /// A directory for the matches' files (records, engine logs), kept by the caller.
    pub scratch: PathBuf,
    /// anqi-bot, for the reference bots.
    pub anqi_bot: PathBuf,
}

/// How an item ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It passed; what was played (`2 games, 48 plies`).
    Pass(String),
    /// It failed: why, and the last lines of the exchange (oldest first).
    Fail { why: String, exchange: Vec<String> },
    /// Something optional the engine does not do (it did not ask for `rejoin`): not a fault.
    NotOffered(String),
    /// Not played: the protocol cannot play the variant, and why.
    Skipped(String),
}

/// One item of the check.
#[derive(Clone, Debug)]
pub struct Item {
    /// `handshake`, `variant traditional`, `rejoin`, ...
    pub name: String,
    pub verdict: Verdict,
    pub took: Duration,
}

/// Why the check could not run at all (as opposed to an item that failed).
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// The engine (or a variant) cannot be made a match of: as `anqi match` says it.
    #[error(transparent)]
    Match(#[from] MatchError),
    /// The engine is not an engine the check can drive (a `cdc-platform` engine without a
    /// command, ...).
    #[error("{0}")]
    Engine(String),
}

/// One game item to play: its name, its variant, and what it checks.
#[derive(Clone, Debug)]
struct Planned {
    name: String,
    variant: String,
    kind: Kind,
}

/// What a game item checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A variant is played by the rules.
    Variant,
    /// The extensions the engine asks for (anqi's protocol): told, and played with.
    Extensions,
    /// The engine takes its seat back after a lost connection (anqi's protocol).
    Rejoin,
}

/// Runs every item of the check, handing each to `report` as soon as it and those before it
/// are done (in the plan's order), and returns them all.
///
/// # Errors
/// An engine or variant that cannot be played at all ([`CheckError`]).
pub async fn run(
    request: &CheckRequest,
    mut report: impl FnMut(&Item),
) -> Result<Vec<Item>, CheckError> {
    let first = probe(request)?;
    let mut items = Vec::new();
    let mut done = |item: Item, items: &mut Vec<Item>| {
        report(&item);
        items.push(item);
    };
    if first.protocol.is_bridged() {
        for item in handshake_items(first.protocol, &first.command).await {
            done(item, &mut items);
        }
    }
    let (plan, skipped) = plan(request, first.protocol)?;
    for item in skipped {
        done(item, &mut items);
    }
    // The games run a few at a time; their items are told in the plan's order.
    let permits = Arc::new(tokio::sync::Semaphore::new(request.concurrency.max(1)));
    let handles: Vec<_> = plan
        .into_iter()
        .map(|p| {
            let (request, permits) = (request.clone(), permits.clone());
            tokio::spawn(async move {
                let _permit = permits.acquire_owned().await.expect("never closed");
                let start = Instant::now();
                let verdict = game::play(&request, &p.variant, p.kind, &p.name).await;
                Item {
                    name: p.name,
                    verdict,
                    took: start.elapsed(),
                }
            })
        })
        .collect();
    for handle in handles {
        let item = handle.await.unwrap_or_else(|e| Item {
            name: "(an item)".into(),
            verdict: Verdict::Fail {
                why: format!("the check itself failed: {e}"),
                exchange: Vec::new(),
            },
            took: Duration::ZERO,
        });
        done(item, &mut items);
    }
    // anqi's protocol had its rejoin item played above, as a game; a bridge never asks for
    // the extension.
    if first.protocol.is_bridged() {
        let why = format!(
            "the {} bridge does not ask for the rejoin extension",
            first.protocol.name()
        );
        let item = Item {
            name: "rejoin".into(),
            verdict: Verdict::NotOffered(why),
            took: Duration::ZERO,
        };
        done(item, &mut items);
    }
    Ok(items)
}

/// What the engine is, as `anqi match` reads its command line.
struct Probe {
    protocol: Protocol,
    /// Its program and arguments (for the bridge's handshake).
    command: Vec<String>,
}

/// Reads the engine as `anqi match` does (the same refusals), on the traditional variant.
fn probe(request: &CheckRequest) -> Result<Probe, CheckError> {
    let bots = Bots {
        anqi_bot: request.anqi_bot.clone(),
        scratch: request.scratch.join("probe"),
    };
    let event = quick_match::config(&match_request(request, "traditional", 2), &bots)?;
    let engine = &event.engines[0];
    let mut command: Vec<String> = engine.command.iter().cloned().collect();
    command.extend(engine.args.iter().cloned());
    Ok(Probe {
        protocol: engine.protocol,
        command,
    })
}

/// The match of one item: the engine against the opponent, `games` games of `variant`.
fn match_request(request: &CheckRequest, variant: &str, games: u32) -> MatchRequest {
    MatchRequest {
        engines: [request.engine.clone(), request.opponent.clone()],
        games,
        variant: variant.to_string(),
        seed: request.seed.clone(),
        tc: Some(request.tc.clone()),
        concurrency: 2,
        output: PathBuf::new(),
        logs: None,
        standings_every: 0,
        max_plies: request.max_plies,
        // No adjudication by the engines' scores: the games are the referee's alone.
        score_draw: String::new(),
        score_resign: String::new(),
        book: None,
    }
}

/// The game items (a variant each, then the rejoin item for anqi's protocol), and the
/// variants the protocol cannot play, as skipped items.
fn plan(
    request: &CheckRequest,
    protocol: Protocol,
) -> Result<(Vec<Planned>, Vec<Item>), CheckError> {
    let names: Vec<String> = if request.variants.is_empty() {
        SHIPPED.iter().map(|(n, _)| n.to_string()).collect()
    } else {
        request.variants.clone()
    };
    let (mut planned, mut skipped) = (Vec::new(), Vec::new());
    for name in names {
        let variant = Variant::load(&name).map_err(MatchError::Variant)?;
        match bridge::assess(protocol, &variant, None) {
            Ok(_) => planned.push(Planned {
                name: format!("variant {name}"),
                variant: name,
                kind: Kind::Variant,
            }),
            Err(why) => skipped.push(Item {
                name: format!("variant {name}"),
                verdict: Verdict::Skipped(why.to_string()),
                took: Duration::ZERO,
            }),
        }
    }
    if !protocol.is_bridged() {
        let variant = planned
            .first()
            .map_or("traditional".to_string(), |p| p.variant.clone());
        for (name, kind) in [("extensions", Kind::Extensions), ("rejoin", Kind::Rejoin)] {
            planned.push(Planned {
                name: name.into(),
                variant: variant.clone(),
                kind,
            });
        }
    }
    Ok((planned, skipped))
}

/// The bridge's own `--check` ([`bridge::check`]): the handshake and a game's start without
/// the protocol's optional commands, then with them.
async fn handshake_items(protocol: Protocol, command: &[String]) -> Vec<Item> {
    let variant = Variant::load("traditional").expect("shipped");
    let mut items = Vec::new();
    for optional in [false, true] {
        let start = Instant::now();
        let name = if optional {
            "optional commands"
        } else {
            "handshake"
        };
        let options = BridgeOptions {
            protocol,
            connect: String::new(),
            token: String::new(),
            name: None,
            assumes: None,
            command: command.to_vec(),
            verbose: false,
            optional_commands: optional,
            handshake: bridge::HANDSHAKE_TIMEOUT,
            ack: bridge::ACK_TIMEOUT,
        };
        let verdict = if optional && protocol != Protocol::Tcg {
            Verdict::NotOffered(format!(
                "the {} protocol has no optional commands",
                protocol.name()
            ))
        } else {
            match bridge::check(&options, &variant).await {
                Ok(said) => Verdict::Pass(match said {
                    Some(n) => format!("the engine calls itself {n:?}"),
                    None => "the engine answered".into(),
                }),
                Err(e) => Verdict::Fail {
                    why: e.to_string(),
                    exchange: Vec::new(),
                },
            }
        };
        items.push(Item {
            name: name.into(),
            verdict,
            took: start.elapsed(),
        });
    }
    items
}
