//! The runner's end of the Ray dispatcher (`dispatch.py`, started with the Python of
//! `[tournament.ray] python`): what goes to it and what comes back, one JSON object per line.

use crate::config::RayConfig;
use crate::TournamentError;
use serde::Deserialize;
use std::process::Stdio;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::mpsc;

/// The dispatcher's program, run as `python -c`: its functions reach the nodes with the tasks
/// (Ray pickles them by value), so nothing of anqi need be installed there but Ray itself.
const DISPATCH_PY: &str = include_str!("dispatch.py");

/// A message from the dispatcher.
#[derive(Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub(super) enum Said {
    /// Connected: the cluster's processors and nodes (those the event may use).
    Ready { cpus: f64, nodes: u64, ray: String },
    /// The cluster has changed.
    Cpus { cpus: f64, nodes: u64 },
    /// A line of unit `unit`'s output, from node `node`.
    Line {
        unit: u64,
        node: String,
        node_id: String,
        line: String,
    },
    /// Unit `unit` has ended.
    Done { unit: u64 },
    /// Ray gave unit `unit` up (its retries spent, or no node it may run on).
    Failed { unit: u64, why: String },
    /// Every unit in flight is cancelled.
    Cancelled,
    /// The dispatcher cannot go on.
    Error { why: String },
}

/// The running dispatcher.
pub(super) struct Dispatcher {
    /// The Python it runs on, to name it.
    python: String,
    child: Child,
    /// The commands, written to its input by a task of their own: a runner that waited for
    /// its writes while the dispatcher waited for the runner to read would wait forever.
    input: Option<mpsc::UnboundedSender<String>>,
    writer: tokio::task::JoinHandle<()>,
    output: Lines<BufReader<ChildStdout>>,
}

impl Dispatcher {
    /// Starts the dispatcher and sends it `event` (the cluster's address, the program to ship
    /// and what every unit shares), then waits until it has reached the cluster.
    ///
    /// # Errors
    /// The Python cannot be started, has no Ray, or cannot reach the cluster.
    pub(super) async fn start(
        ray: &RayConfig,
        event: serde_json::Value,
    ) -> Result<(Dispatcher, Said), TournamentError> {
        let mut command = Command::new(&ray.python);
        command
            .arg("-c")
            .arg(DISPATCH_PY)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        // Killed with the runner, even by SIGKILL: Ray then ends the event's tasks, and the
        // same command resumes it.
        crate::process::die_with_parent(command.as_std_mut());
        let mut child = command.spawn().map_err(|e| {
            TournamentError::Cluster(format!(
                "cannot start {:?} ([tournament.ray] python) to reach the Ray cluster: {e}",
                ray.python
            ))
        })?;
        let stdin = child.stdin.take().expect("piped");
        let output = BufReader::new(child.stdout.take().expect("piped")).lines();
        let (input, commands) = mpsc::unbounded_channel();
        let mut dispatcher = Dispatcher {
            python: ray.python.clone(),
            child,
            input: Some(input),
            writer: tokio::spawn(write_commands(stdin, commands)),
            output,
        };
        dispatcher.send(&event)?;
        match dispatcher.next().await? {
            ready @ Said::Ready { .. } => Ok((dispatcher, ready)),
            Said::Error { why } => Err(TournamentError::Cluster(why)),
            other => Err(TournamentError::Cluster(format!(
                "the Ray dispatcher said {other:?} before it was ready"
            ))),
        }
    }

    /// Sends one command.
    ///
    /// # Errors
    /// The dispatcher has gone.
    pub(super) fn send(&mut self, command: &serde_json::Value) -> Result<(), TournamentError> {
        let mut line = command.to_string();
        line.push('\n');
        let input = self.input.as_ref().expect("open until close");
        input.send(line).map_err(|_| {
            TournamentError::Cluster(format!(
                "the Ray dispatcher ({} -c ...) has gone: its errors are above",
                self.python
            ))
        })
    }

    /// The next message.
    ///
    /// # Errors
    /// The dispatcher has gone or said something that is not a message.
    pub(super) async fn next(&mut self) -> Result<Said, TournamentError> {
        let python = &self.python;
        let gone = |why: String| {
            TournamentError::Cluster(format!(
                "the Ray dispatcher ({python} -c ...) {why}: its errors are above"
            ))
        };
        loop {
            let line = self
                .output
                .next_line()
                .await
                .map_err(|e| gone(format!("cannot be read ({e})")))?
                .ok_or_else(|| gone("has exited".into()))?;
            // Ray prints its own notices on stdout at times; the messages are JSON objects.
            if !line.starts_with('{') {
                eprintln!("{line}");
                continue;
            }
            return serde_json::from_str(&line)
                .map_err(|e| gone(format!("said something else than a message ({e}): {line}")));
        }
    }

    /// Ends the dispatcher: its input closed, it cancels whatever is still in flight and exits.
    pub(super) async fn close(mut self) {
        drop(self.input.take());
        let _ = (&mut self.writer).await;
        let exited = tokio::time::timeout(std::time::Duration::from_secs(20), self.child.wait());
        if exited.await.is_err() {
            let _ = self.child.kill().await;
        }
    }
}

/// Writes each command to the dispatcher's input until the runner closes it (or the
/// dispatcher has gone), then closes the input: the dispatcher's sign to end.
async fn write_commands(mut stdin: ChildStdin, mut commands: mpsc::UnboundedReceiver<String>) {
    while let Some(line) = commands.recv().await {
        if stdin.write_all(line.as_bytes()).await.is_err() {
            return;
        }
    }
}
