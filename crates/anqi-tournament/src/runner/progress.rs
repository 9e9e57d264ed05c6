//! What a run says as it goes: a line (or a JSON object) per finished game on stderr, the
//! standings every so often, and the event's progress for its pages.

use super::Progress;
use crate::stats::Standings;
use anqi_core::record::GameRecord;
use std::time::Instant;

/// How far a run has got: the games finished (earlier runs' too) and played in this run, and
/// when this run started.
#[derive(Clone, Copy)]
pub(super) struct Tally {
    pub(super) finished: usize,
    pub(super) played_now: usize,
    pub(super) started: Instant,
}

/// A line on stderr, whoever reads it: a reader that has gone (a script that took the
/// `listening on` line and closed the pipe) must not stop the event, as `eprintln!` would.
pub(super) fn say(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// Where the event stands, as its pages show it.
pub(super) struct EventPage<'a> {
    pub(super) finished: usize,
    pub(super) total: usize,
    pub(super) elapsed_s: f64,
    pub(super) eta_s: Option<f64>,
    pub(super) standings: &'a Standings,
    pub(super) commitment: &'a str,
    /// The master seed, once the event is over and the seed revealed.
    pub(super) revealed: Option<&'a str>,
    /// Whether this run has played its last game: the standings are final.
    pub(super) done: bool,
}

/// What the event's pages show of it (`GET /api/event`, protocol/WEB.md).
pub(super) fn event_json(page: &EventPage<'_>) -> String {
    serde_json::json!({
        "finished": page.finished,
        "total": page.total,
        "done": page.done,
        "elapsed_s": page.elapsed_s,
        "eta_s": page.eta_s,
        "commitment": page.commitment,
        "master_seed": page.revealed,
        "standings": page.standings,
        "text": crate::report::text(page.standings),
    })
    .to_string()
}

/// The standings so far, on stderr (`standings_every`).
pub(super) fn report_standings(
    mode: Progress,
    finished: usize,
    total: usize,
    standings: &Standings,
) {
    match mode {
        Progress::Quiet | Progress::Silent => {}
        Progress::Text => eprint!(
            "--- after {finished} of {total} games\n{}---\n",
            crate::report::text(standings)
        ),
        Progress::Json => eprintln!(
            "{}",
            serde_json::json!({ "finished": finished, "total": total, "standings": standings })
        ),
    }
}

/// Says that `record`'s game is over, with the rate, the time left and the leader so far.
pub(super) fn report_progress(
    mode: Progress,
    joiner: &str,
    record: &GameRecord,
    total: usize,
    tally: &Tally,
    standings: &Standings,
) {
    let Tally {
        finished,
        played_now,
        started,
    } = *tally;
    let tag = record.tournament.as_ref().expect("tagged");
    let elapsed = started.elapsed().as_secs_f64().max(1e-9);
    let rate = played_now as f64 / elapsed;
    let eta = (total - finished) as f64 / rate.max(1e-9);
    // The leader: by score (points per game: engines may have played different numbers of
    // games so far), or in a one-side event by success rate.
    let best = standings
        .engines
        .iter()
        .filter(|e| e.games > 0)
        .max_by(|a, b| {
            a.score
                .total_cmp(&b.score)
                .then(a.points.total_cmp(&b.points))
        });
    let leader: Option<(&str, String)> = match best {
        Some(l) => Some((
            &l.name,
            format!("{:.0}% ({}/{})", 100.0 * l.score, l.points, l.games),
        )),
        None => standings
            .one_side
            .first()
            .and_then(|g| g.engines.first())
            .map(|l| {
                (
                    l.name.as_str(),
                    format!("{}/{} successes", l.successes, l.games),
                )
            }),
    };
    match mode {
        Progress::Quiet | Progress::Silent => {}
        Progress::Text => eprintln!(
            "[{finished}/{total}] game {}: {}: {} {} after {} plies | {:.1} games/s, ETA {:.0}s | leader {} {}",
            tag.index,
            tag.engines.join(joiner),
            record.result.win,
            record.result.reason.name(),
            record.result.plies,
            rate,
            eta,
            leader.as_ref().map_or("-", |l| l.0),
            leader.as_ref().map_or("0/0", |l| l.1.as_str()),
        ),
        Progress::Json => eprintln!(
            "{}",
            serde_json::json!({
                "finished": finished, "total": total, "game": tag.index, "engines": tag.engines,
                "win": record.result.win, "reason": record.result.reason.name(),
                "plies": record.result.plies, "games_per_second": rate, "eta_seconds": eta,
                "leader": leader.map(|l| l.0),
            })
        ),
    }
}
