//! The record sink: finished games' records appended to the records file by one writer task,
//! each on disk before its game's result goes out. The record format itself is
//! [`anqi_core::record`].

use anqi_core::record::GameRecord;
use std::path::{Path, PathBuf};
use tokio::io::AsyncWriteExt;
use tokio::sync::{mpsc, oneshot};

/// How records reach the disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Durability {
    /// `fsync` (`sync_data`) after each write, so a record survives a power cut, not only a
    /// crash of the server.
    pub fsync: bool,
}

/// A record waiting to be written, and who waits for it.
type Pending = (GameRecord, oneshot::Sender<bool>);

/// Appends records to a file from one task, so concurrent games never interleave lines, and
/// passes each record, once written, to an observer (tests, tournaments) when one is attached.
///
/// [`RecordSink::commit`] returns only when the record is written and flushed (and fsynced
/// when configured): the referee sends `(win ...)` after that, so a player who has seen the
/// result can count on the record. Records that arrive while one is being written are written
/// together and share one fsync (group commit), so many games ending at once cost one sync.
#[derive(Clone, Debug)]
pub struct RecordSink {
    tx: mpsc::UnboundedSender<Pending>,
}

/// Most records written (and fsynced) together.
const MAX_BATCH: usize = 256;

impl RecordSink {
    /// Starts the writer task. `path` of `None` keeps no file.
    ///
    /// # Errors
    /// When the file cannot be opened for appending.
    pub async fn start(
        path: Option<PathBuf>,
        durability: Durability,
        observer: Option<mpsc::UnboundedSender<GameRecord>>,
    ) -> std::io::Result<(RecordSink, tokio::task::JoinHandle<()>)> {
        let mut file = match &path {
            Some(p) => Some(open_append(p).await?),
            None => None,
        };
        let (tx, mut rx) = mpsc::unbounded_channel::<Pending>();
        let handle = tokio::spawn(async move {
            while let Some(first) = rx.recv().await {
                let mut batch = vec![first];
                while batch.len() < MAX_BATCH {
                    match rx.try_recv() {
                        Ok(more) => batch.push(more),
                        Err(_) => break,
                    }
                }
                let written = match file.as_mut() {
                    Some(f) => write_batch(f, &batch, durability).await,
                    None => true,
                };
                for (record, ack) in batch {
                    if let Some(obs) = &observer {
                        let _ = obs.send(record);
                    }
                    let _ = ack.send(written);
                }
            }
        });
        Ok((RecordSink { tx }, handle))
    }

    /// Writes a finished game's record and waits until it is on disk. Returns whether it
    /// could be written (a failure is logged).
    pub async fn commit(&self, record: GameRecord) -> bool {
        let game = record.game;
        let (ack, written) = oneshot::channel();
        if self.tx.send((record, ack)).is_err() {
            tracing::error!(game, "record writer has stopped; a game record is lost");
            return false;
        }
        written.await.unwrap_or(false)
    }
}

/// Writes a batch of records in one write, flushes it, and syncs it when asked.
async fn write_batch(
    file: &mut tokio::fs::File,
    batch: &[Pending],
    durability: Durability,
) -> bool {
    let mut text = String::new();
    for (record, _) in batch {
        text.push_str(&serde_json::to_string(record).expect("records serialize"));
        text.push('\n');
    }
    let result = async {
        file.write_all(text.as_bytes()).await?;
        file.flush().await?;
        if durability.fsync {
            file.sync_data().await?;
        }
        Ok::<(), std::io::Error>(())
    }
    .await;
    if let Err(e) = &result {
        let games: Vec<u64> = batch.iter().map(|(r, _)| r.game).collect();
        tracing::error!(error = %e, ?games, "cannot write game records");
    }
    result.is_ok()
}

async fn open_append(path: &Path) -> std::io::Result<tokio::fs::File> {
    tokio::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .await
        .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))
}
