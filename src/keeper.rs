//! Engines die with their games: everything an engine started, helpers in new sessions
//! included, ends when its game ends, when its bridge or runner exits, and when the runner is
//! killed with SIGKILL.
//!
//! An engine is never the runner's own child: a keeper stands between them, `anqi keep` for
//! an engine of anqi's protocol, the bridge for one of another protocol. The keeper is a child
//! subreaper (a process its engine started and then lost, a daemon's double fork or `setsid`,
//! becomes the keeper's child, not init's), runs the engine in a process group of its own,
//! and, when the engine exits or the keeper is told to stop (SIGTERM from the runner, or from
//! the kernel when the runner dies, even by SIGKILL: `sys::stop_with_parent`), ends every
//! process below it before it exits itself.

use std::time::{Duration, Instant};

/// Ends every living process below this one (children, theirs, adopted orphans), by SIGKILL,
/// round after round until none is left (one may start another while it is being ended), for
/// at most `limit`; reaps them. Returns how many were signalled.
///
/// Call it when no child of this process is waited for by anyone else (tokio's
/// `Child::wait`): it reaps whatever exited.
pub fn end_descendants(limit: Duration) -> usize {
    let me = std::process::id();
    let started = Instant::now();
    let mut ended = 0;
    loop {
        let living = anqi_server::sys::descendants(me);
        if living.is_empty() {
            break;
        }
        for pid in living {
            if anqi_server::sys::kill(pid).is_ok() {
                ended += 1;
            }
        }
        anqi_server::sys::reap_exited();
        if started.elapsed() > limit {
            tracing::warn!("processes below this one are still running after {limit:?}");
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    anqi_server::sys::reap_exited();
    ended
}
