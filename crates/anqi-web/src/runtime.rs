//! The pages' own runtime: a thread (and, with `[http] threads` above 1, worker threads) apart
//! from the runtime that plays the games, each at a priority `[http] nice` steps lower.
//!
//! Why apart, and why lower: on the games' runtime, a page's work (rebuilding a finished game,
//! writing a large answer, a crowd's WebSockets) sits in the same queues as the referees' tasks
//! and delays the plies behind it; with 64 connections polling a finished game, games went at
//! a third of their pace. On threads of their own, the pages are scheduled by the operating
//! system beside the games, and with a lower priority (a nice increment: the kernel gives a
//! thread at nice 10 about a tenth of the processor time of one at 0 when both want it) they
//! take what the games leave: on a 2-core machine running games flat out, the games keep
//! their pace and the pages get the rest, while an idle machine serves pages at full speed.
//! `spawn_blocking` alone would move the rebuilds off the games' threads but not the rest
//! of the pages' work, and its threads would compete with the games as equals.
//!
//! The tasks a page starts for the games (a person's seat, the bots against them) are spawned
//! on the games' runtime (`seats`), not here.

use std::future::Future;
use std::io;
use std::time::Duration;

/// How long the runtime's last tasks get once the server has stopped.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// Threads that may rebuild finished games at once (each rebuild is a few milliseconds; the
/// cache makes them rare).
const BLOCKING_THREADS: usize = 2;

/// Runs the future `make` returns on a runtime of its own (`threads` workers, each thread of it
/// `nice` steps lower in priority), on a thread of its own, and returns its result. `make` is
/// called on that runtime, so that what it binds registers with it.
///
/// # Errors
/// When the thread or the runtime cannot be started, or as the future ends.
pub async fn run_apart<F, M>(threads: usize, nice: i32, make: M) -> io::Result<()>
where
    M: FnOnce() -> F + Send + 'static,
    F: Future<Output = io::Result<()>>,
{
    // Every thread of the runtime at the same value, `nice` above the caller's (a thread
    // inherits its creator's: lowering each by `nice` would lower the later ones twice).
    let nice = anqi_server::sys::thread_nice().map_or(nice, |n| (n + nice).min(19));
    let (done, result) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("anqi-web".into())
        .spawn(move || {
            lower(nice);
            let outcome = build(threads, nice).and_then(|rt| {
                let outcome = rt.block_on(async move { make().await });
                rt.shutdown_timeout(SHUTDOWN_GRACE);
                outcome
            });
            let _ = done.send(outcome);
        })?;
    result
        .await
        .unwrap_or_else(|_| Err(io::Error::other("the web pages' thread stopped abruptly")))
}

fn build(threads: usize, nice: i32) -> io::Result<tokio::runtime::Runtime> {
    // One thread: the pages' thread runs every task itself (no worker to hand them to).
    let mut builder = if threads <= 1 {
        tokio::runtime::Builder::new_current_thread()
    } else {
        let mut b = tokio::runtime::Builder::new_multi_thread();
        b.worker_threads(threads);
        b
    };
    builder
        .enable_all()
        .thread_name("anqi-web")
        .max_blocking_threads(BLOCKING_THREADS)
        .on_thread_start(move || lower(nice))
        .build()
}

/// Sets this thread's nice value to `nice`, or says why it could not.
fn lower(nice: i32) {
    if let Err(e) = anqi_server::sys::set_thread_nice(nice) {
        tracing::warn!(error = %e, nice, "web: cannot lower the pages' priority; they compete with the games as equals");
    }
}

#[cfg(test)]
mod tests {
    #[tokio::test]
    #[cfg(target_os = "linux")]
    async fn the_pages_run_on_threads_of_their_own_at_a_lower_priority() {
        let games_thread = std::thread::current().id();
        let games_nice = anqi_server::sys::thread_nice().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        super::run_apart(1, 5, move || async move {
            let here = (std::thread::current().id(), anqi_server::sys::thread_nice());
            let blocking = tokio::task::spawn_blocking(anqi_server::sys::thread_nice)
                .await
                .unwrap();
            tx.send((here, blocking)).unwrap();
            Ok(())
        })
        .await
        .unwrap();
        let ((thread, nice), blocking) = rx.recv().unwrap();
        assert_ne!(thread, games_thread);
        let lowered = Some((games_nice + 5).min(19));
        assert_eq!((nice, blocking), (lowered, lowered));
        assert_eq!(anqi_server::sys::thread_nice(), Some(games_nice));
    }
}
