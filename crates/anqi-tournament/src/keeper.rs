//! Engines die with their games: everything an engine started, helpers in new sessions
//! included, ends when its game ends, when its bridge or runner exits, and when the runner is
//! killed with SIGKILL.
//!
//! An engine is never the runner's own child: a keeper stands between them, `anqi keep` for
//! an engine of anqi's protocol, the bridge for one of another protocol. The keeper is a child
//! subreaper (a process its engine started and then lost, a daemon's double fork or `setsid`,
//! becomes the keeper's child, not init's), runs the engine in a process group of its own,
//! and, when the engine exits or the keeper is told to stop (SIGTERM from the runner, or from
//! the kernel when the runner dies, even by SIGKILL: `process::stop_with_parent`), ends every
//! process below it before it exits itself.
//!
//! On Linux, each engine also runs in a cgroup v2 of its own where one can be made
//! ([`engine_cgroup`]; `crate::process::cgroup`): a process cannot leave it, so when the
//! engine ends, ending the cgroup ends everything it started, even a helper that forks and
//! exits over and over (never at one pid long enough for [`end_descendants`] to signal it).
//! The runner puts each keeper in one too, so that what a keeper killed with SIGKILL leaves
//! behind still ends with the game. Where no cgroup can be made, one line per process says
//! so and the containment is the process group and the subreaper alone, as above.

use crate::process::cgroup::Cgroup;
use std::time::{Duration, Instant};

/// A cgroup of its own for an engine about to be started (pass it the command with
/// [`Cgroup::contain`]; dropping it ends every process in it), or `None` where none can be
/// made: then the first call of the process says why, on the log (stderr where no log is set
/// up: a keeper's stderr is its engine's log).
pub fn engine_cgroup() -> Option<Cgroup> {
    match Cgroup::create() {
        Ok(cgroup) => Some(cgroup),
        Err(why) => {
            static SAID: std::sync::Once = std::sync::Once::new();
            SAID.call_once(|| {
                let text = format!(
                    "engines run without a cgroup of their own ({why}): what an engine starts is \
                     ended through its process group and its keeper's descendants, which a \
                     process that forks over and over can outlive"
                );
                if tracing::dispatcher::has_been_set() {
                    tracing::warn!("{text}");
                } else {
                    eprintln!("anqi: {text}");
                }
            });
            None
        }
    }
}

/// Ends every living process below this one (children, theirs, adopted orphans), by SIGKILL,
/// round after round until none is left (one may start another while it is being ended), for
/// at most `limit`; reaps them. Returns how many were signalled.
///
/// First it waits (within the same `limit`) for the engines' cgroups dropped in async code to
/// be ended and removed on the runtime's blocking threads
/// ([`crate::process::cgroup::wait_for_endings`]): this is the end of a keeper's or a
/// bridge's work, and no cgroup of its own may outlive it.
///
/// Call it when no child of this process is waited for by anyone else (tokio's
/// `Child::wait`): it reaps whatever exited.
pub fn end_descendants(limit: Duration) -> usize {
    let me = std::process::id();
    let started = Instant::now();
    if !crate::process::cgroup::wait_for_endings(limit) {
        tracing::warn!("the engines' cgroups are still being ended after {limit:?}");
    }
    let mut ended = 0;
    loop {
        let living = crate::process::descendants(me);
        if living.is_empty() {
            break;
        }
        for pid in living {
            if crate::process::kill(pid).is_ok() {
                ended += 1;
            }
        }
        crate::process::reap_exited();
        if started.elapsed() > limit {
            tracing::warn!("processes below this one are still running after {limit:?}");
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    crate::process::reap_exited();
    ended
}
