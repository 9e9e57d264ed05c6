//! The server's tasks, counted so that shutdown can wait for every one of them: each task holds
//! a clone of one channel's sender, and the channel closes when the last clone is gone (the
//! shutdown pattern of mini-redis). A task that ends, panics or is aborted drops its clone.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Spawns tasks that [`AllDone::wait`] waits for. A clone spawns into the same set, and a task
/// holding one (the seating task) keeps the set open while it may still spawn.
#[derive(Clone, Debug)]
pub struct Tasks {
    alive: mpsc::Sender<()>,
}

/// Waits for the tasks of a [`Tasks`] set.
#[derive(Debug)]
pub struct AllDone {
    closed: mpsc::Receiver<()>,
}

/// A new set of tasks, and what waits for them.
pub fn tasks() -> (Tasks, AllDone) {
    let (alive, closed) = mpsc::channel(1);
    (Tasks { alive }, AllDone { closed })
}

impl Tasks {
    /// Spawns `task` on the runtime, counted in the set until it ends.
    pub fn spawn<F>(&self, task: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        tokio::spawn(Counted {
            task,
            _alive: self.alive.clone(),
        })
    }
}

pin_project_lite::pin_project! {
    /// A task and its place in the count, released when the task is dropped. A struct rather
    /// than `async move { task.await }`: the compiler lays an async block out with room for
    /// the moved-in task and for the future it awaits, both, which added 0.5 KiB to every
    /// idle connection and 5 KiB to every game (S3 in BENCHMARKS.md, measured).
    struct Counted<F> {
        #[pin]
        task: F,
        _alive: mpsc::Sender<()>,
    }
}

impl<F: Future> Future for Counted<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        self.project().task.poll(cx)
    }
}

impl AllDone {
    /// Returns once every task of the set has ended and every [`Tasks`] handle is dropped.
    pub async fn wait(mut self) {
        // Nothing is ever sent: `recv` returns `None` when the last sender is gone.
        let _ = self.closed.recv().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::time::Duration;

    #[tokio::test]
    async fn waiting_ends_when_every_task_has_ended_nested_and_panicking_ones_included() {
        let (tasks, done) = tasks();
        let ended = Arc::new(AtomicUsize::new(0));
        let spawner = tasks.clone();
        let count = ended.clone();
        // A task that spawns more while it runs, as the seating task starts games.
        tasks.spawn(async move {
            for i in 0..5u64 {
                let count = count.clone();
                spawner.spawn(async move {
                    tokio::time::sleep(Duration::from_millis(10 * i)).await;
                    count.fetch_add(1, Ordering::SeqCst);
                });
            }
        });
        tasks.spawn(async { panic!("a task that fails still counts as ended") });
        drop(tasks);
        tokio::time::timeout(Duration::from_secs(5), done.wait())
            .await
            .expect("every task ends");
        assert_eq!(ended.load(Ordering::SeqCst), 5);
    }

    #[tokio::test]
    async fn a_handle_still_held_keeps_the_wait_going() {
        let (tasks, done) = tasks();
        let waiting = tokio::spawn(done.wait());
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiting.is_finished());
        drop(tasks);
        waiting.await.unwrap();
    }
}
