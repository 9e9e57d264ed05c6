//! One item of the check played as a tiny match (the engine against a reference bot, both
//! seatings) on the runner's in-process server, and judged from the records: what the referee
//! ruled is what a tournament would rule.

use super::proxy::Proxy;
use super::{match_request, CheckRequest, Kind, Verdict};
use crate::config::{EngineConfig, EngineLogs, Overrides, TournamentConfig};
use crate::quick_match::{self, Bots, MatchError};
use crate::runner::{self, Progress, RunOptions};
use anqi_core::record::GameRecord;
use anqi_core::rules::Termination;
use std::net::SocketAddr;
use std::path::Path;

/// How long the seat of an engine cut off by the rejoin item is kept for it.
const REJOIN_GRACE_MS: u64 = 5_000;

/// The engine's action after which the rejoin item cuts its connection.
const CUT_AFTER_ACTIONS: u32 = 3;

/// How long an engine has to connect and send `init`: less than a tournament's 10 s, as the
/// whole check should take about 30 s.
const CONNECT_TIMEOUT_MS: u64 = 5_000;

/// Plays `variant` as the item `name` and judges it.
pub(super) async fn play(request: &CheckRequest, variant: &str, kind: Kind, name: &str) -> Verdict {
    let rejoin = kind == Kind::Rejoin;
    let dir = request.scratch.join(name.replace(' ', "-"));
    let fail = |why: String| Verdict::Fail {
        why,
        exchange: Vec::new(),
    };
    let (event, proxy, listening) = match prepare(request, variant, rejoin, &dir).await {
        Ok(prepared) => prepared,
        Err(why) => return fail(why),
    };
    let engine = event.engines[0].name.clone();
    let protocol = event.engines[0].protocol;
    let bridged = protocol.is_bridged().then_some(protocol);
    let output = dir.join("records.jsonl");
    let ran = runner::run(
        event,
        RunOptions {
            shard: None,
            progress: Progress::Silent,
            output: None,
            http: None,
            listening,
        },
    )
    .await;
    // The exchange of one game: its connection (the games are played one after the other,
    // so game N is the Nth connection but in the rejoin item) and its engine log.
    let exchange = |game: Option<u64>| {
        let connection = game.filter(|_| !rejoin).map(|g| g as usize);
        let mut lines = proxy
            .as_ref()
            .map(|p| p.exchange(connection))
            .unwrap_or_default();
        lines.extend(log_tail(&dir.join("logs"), game, &engine));
        lines
    };
    // An engine that does not ask for rejoin is not judged again on the games of the rejoin
    // item: its variant's item has said what there is to say about them.
    let asked = proxy
        .as_ref()
        .is_some_and(|p| p.seen.lock().expect("not poisoned").asked_rejoin);
    if rejoin && !asked {
        return Verdict::NotOffered(
            "the engine did not ask for the rejoin extension (ext rejoin)".into(),
        );
    }
    // The extensions item is first about the handshake: a refusal there says more than the
    // games that followed.
    let refused = proxy.as_ref().is_some_and(|p| {
        let seen = p.seen.lock().expect("not poisoned");
        seen.refused_extension.is_some()
    });
    if kind == Kind::Extensions && refused {
        if let Some(proxy) = proxy.as_ref() {
            return judge_extensions(proxy, exchange(Some(0)));
        }
    }
    if let Err(e) = ran {
        return Verdict::Fail {
            why: e.to_string(),
            exchange: exchange(None),
        };
    }
    let records = match anqi_core::record::read_records(&output) {
        Ok(r) => r
            .into_iter()
            .filter_map(|(_, r)| r.ok())
            .collect::<Vec<_>>(),
        Err(e) => return fail(format!("cannot read the records: {e}")),
    };
    if let Some((mut why, game)) = judge(&records, &engine) {
        if bridged.is_some() && why.contains("illegal") {
            why.push_str(&format!(
                " (the {} protocol cannot tell an engine the variant's rules: see which it knows, and check only those with --variant)",
                bridged.map_or("", |p| p.name())
            ));
        }
        return Verdict::Fail {
            why,
            exchange: exchange(game),
        };
    }
    if rejoin {
        let Some(proxy) = proxy.as_ref() else {
            return Verdict::NotOffered("a bridged engine does not rejoin".into());
        };
        return judge_rejoin(&records, &engine, proxy, exchange(None));
    }
    if kind == Kind::Extensions {
        if let Some(proxy) = proxy.as_ref() {
            return judge_extensions(proxy, exchange(None));
        }
    }
    let plies: u32 = records.iter().map(|r| r.result.plies).sum();
    Verdict::Pass(format!("{} games, {plies} plies", records.len()))
}

/// Where the event's server is, once it listens ([`RunOptions::listening`]).
type Listening = std::sync::Arc<std::sync::OnceLock<SocketAddr>>;

/// The item's event, and for an engine of anqi's protocol the relay it is told to connect to
/// instead of the server, with where the server will say it listens.
async fn prepare(
    request: &CheckRequest,
    variant: &str,
    rejoin: bool,
    dir: &Path,
) -> Result<(TournamentConfig, Option<Proxy>, Option<Listening>), String> {
    let mut event = event(request, variant, dir)?;
    let (proxy, listening) = if event.engines[0].protocol.is_bridged() {
        (None, None)
    } else {
        let listening = Listening::default();
        let proxy = relay(&mut event, listening.clone(), rejoin)
            .await
            .map_err(|e| format!("the check cannot listen on 127.0.0.1: {e}"))?;
        (Some(proxy), Some(listening))
    };
    if rejoin {
        event.rejoin_grace_ms = REJOIN_GRACE_MS;
    }
    Ok((event, proxy, listening))
}

/// The item's match as an event: the engine first, both seatings, short games.
fn event(request: &CheckRequest, variant: &str, dir: &Path) -> Result<TournamentConfig, String> {
    let bots = Bots {
        anqi_bot: request.anqi_bot.clone(),
        scratch: dir.to_path_buf(),
    };
    let mut m = match_request(request, variant, 2);
    m.output = dir.join("records.jsonl");
    m.logs = Some(dir.join("logs"));
    // A variant whose deals are played in more games than 2 (3 or 4 seat arrangements) says
    // how many: play one deal.
    let mut event = match quick_match::config(&m, &bots) {
        Err(MatchError::Games { per_deal, .. }) => {
            m.games = per_deal;
            quick_match::config(&m, &bots).map_err(|e| e.to_string())?
        }
        other => other.map_err(|e| e.to_string())?,
    };
    event.connect_timeout_ms = CONNECT_TIMEOUT_MS;
    // One game at a time, each with its own log: a failure shows that game's exchange alone.
    event.concurrency = 1;
    event.engine_logs = EngineLogs::Game;
    event
        .apply(&Overrides::default())
        .map_err(|e| e.to_string())?;
    Ok(event)
}

/// Starts the relay for the engine (seat list's first) and points its command at it; the
/// server listens on a port of its own choosing, which it tells `listening` before any engine
/// starts (a port chosen here and closed for the server to bind could be taken meanwhile).
async fn relay(
    event: &mut TournamentConfig,
    listening: Listening,
    rejoin: bool,
) -> std::io::Result<Proxy> {
    event.listen = "127.0.0.1:0".into();
    let proxy = Proxy::start(listening, rejoin.then_some(CUT_AFTER_ACTIONS)).await?;
    point_at(&mut event.engines[0], proxy.addr);
    Ok(proxy)
}

/// Replaces the address placeholders of `engine`'s command line by `addr`.
fn point_at(engine: &mut EngineConfig, addr: SocketAddr) {
    let fill = |s: &str| {
        s.replace("{addr}", &addr.to_string())
            .replace("{host}", &addr.ip().to_string())
            .replace("{port}", &addr.port().to_string())
    };
    engine.command = engine.command.as_deref().map(fill);
    for a in &mut engine.args {
        *a = fill(a);
    }
}

/// Why the records fail the engine named `engine`, if they do, and the game's index in the
/// event: a loss by fault, an aborted game, an error reply of the referee to it, or a reference
/// bot that failed.
fn judge(records: &[GameRecord], engine: &str) -> Option<(String, Option<u64>)> {
    if records.is_empty() {
        return Some(("no game was played".into(), None));
    }
    for r in records {
        let seats: Vec<String> = r
            .tournament
            .as_ref()
            .map(|t| t.engines.clone())
            .unwrap_or_default();
        let index = r.tournament.as_ref().map(|t| t.index);
        let is_engine = |player: usize| {
            seats
                .get(player.wrapping_sub(1))
                .is_some_and(|n| n == engine)
        };
        let who = r.result.loser.map(|l| {
            if is_engine(l) {
                "the engine"
            } else {
                "the reference bot"
            }
        });
        let faulty = matches!(
            r.result.reason,
            Termination::Time
                | Termination::Illegal
                | Termination::Disconnect
                | Termination::Crash
                | Termination::NoConnect
                | Termination::Aborted
        );
        // A resignation is the engine's right, but not in a check's short games: an engine
        // that resigns there has usually not found its moves.
        let resigned = r.result.reason == Termination::Resign && who == Some("the engine");
        let fault = r.faults.iter().find(|f| is_engine(f.player));
        let said = fault.map_or(String::new(), |f| {
            format!(
                "; at ply {} the referee answered it (error {} {:?})",
                f.ply, f.code, f.text
            )
        });
        if faulty || resigned {
            let why = format!(
                "game {} ({}): {} lost by {} at ply {}{said}",
                r.game,
                r.variant,
                who.unwrap_or("a player"),
                r.result.reason.name(),
                r.result.plies
            );
            return Some((why, index));
        }
        if let Some(f) = fault {
            let why = format!(
                "game {} ({}), ply {}: the referee answered the engine (error {} {:?})",
                r.game, r.variant, f.ply, f.code, f.text
            );
            return Some((why, index));
        }
    }
    None
}

/// The extensions item: what the engine asked for was granted, and its games (played with
/// them) passed.
fn judge_extensions(proxy: &Proxy, exchange: Vec<String>) -> Verdict {
    let seen = proxy.seen.lock().expect("not poisoned");
    if let Some(refusal) = &seen.refused_extension {
        return Verdict::Fail {
            why: format!("the engine asked for an extension the server does not know: {refusal}"),
            exchange,
        };
    }
    if seen.extensions.is_empty() {
        return Verdict::NotOffered(
            "the engine asked for no extension (PROTOCOL.md, Extensions): the last ply, the clocks, the variant's rules are there for the asking".into(),
        );
    }
    Verdict::Pass(format!(
        "it asked for {}, and played its games with them",
        seen.extensions.join(" ")
    ))
}

/// The rejoin item: the engine asked for `rejoin`, was cut after its third action, and took
/// its seat back within the grace.
fn judge_rejoin(
    records: &[GameRecord],
    engine: &str,
    proxy: &Proxy,
    exchange: Vec<String>,
) -> Verdict {
    let seen = proxy.seen.lock().expect("not poisoned");
    if !seen.cut {
        return Verdict::Fail {
            why: format!("the games ended before the engine's action {CUT_AFTER_ACTIONS}, where the check cuts its connection"),
            exchange,
        };
    }
    let back = records.iter().any(|r| {
        let seats = r
            .tournament
            .as_ref()
            .map(|t| t.engines.clone())
            .unwrap_or_default();
        r.drops
            .iter()
            .any(|d| d.back && seats.get(d.player - 1).is_some_and(|n| n == engine))
    });
    if back {
        Verdict::Pass(format!(
            "cut after its action {CUT_AFTER_ACTIONS}, it took its seat back"
        ))
    } else {
        Verdict::Fail {
            why: format!(
                "the check closed the engine's connection after its action {CUT_AFTER_ACTIONS}, and it did not come back with (rejoin \"SECRET\") within {} s",
                REJOIN_GRACE_MS / 1000
            ),
            exchange,
        }
    }
}

/// The last lines of the engine's log of game `game` (its stderr, and a bridge's reasons),
/// each marked; of every game when `None`.
fn log_tail(dir: &Path, game: Option<u64>, engine: &str) -> Vec<String> {
    let prefix = game.map(|g| format!("game-{g:05}-"));
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            name.ends_with(&format!("-{engine}.log"))
                && prefix
                    .as_ref()
                    .is_none_or(|pre| name.starts_with(pre.as_str()))
        })
        .collect();
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let tail = &lines[lines.len().saturating_sub(6)..];
        out.extend(tail.iter().map(|l| format!("stderr: {l}")));
    }
    out
}
