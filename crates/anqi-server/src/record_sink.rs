//! The record sink: finished games' records appended to the records file by one writer task,
//! each on disk before its game's result goes out. The record format itself is
//! [`anqi_core::record`].
//!
//! Storage fails in ways a write call does not always report, and the sink checks for each of
//! them before it acknowledges a record (see `protocol/RECORDS.md`, What is promised):
//! - a file that ends in the middle of a line (a crash, a power cut or a full disk cut the
//!   last write short): the line is ended before anything is appended, so the next record
//!   starts on a line of its own;
//! - a write or sync that fails (ENOSPC, EIO, EDQUOT; EFBIG past a file-size limit, whose
//!   SIGXFSZ the server ignores so the write fails instead of the process dying): the bytes
//!   of the failed write are cut off again;
//! - a file removed or replaced under the server (its name no longer leads to the file open):
//!   the file is opened again by its name, created if need be, and the record written there.
//!
//! A record that cannot be written stays in the sink, which tries again every
//! [`RETRY_EVERY`]; meanwhile [`RecordSink::failing`] says why, so that no new game starts.
//! When the server stops with records still unwritten, they are printed on stderr, one JSON
//! line each, after a line saying how many: the only copy left.

use anqi_core::record::GameRecord;
use std::collections::VecDeque;
use std::io::SeekFrom;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncSeekExt, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};

/// How records reach the disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Durability {
    /// `fsync` (`sync_data`) after each write, so a record survives a power cut, not only a
    /// crash of the server.
    pub fsync: bool,
}

/// What became of a record handed to [`RecordSink::commit`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Committed {
    /// On disk (flushed, and synced when configured), or no records file is kept.
    Written,
    /// Not written in the time given; the sink keeps it and goes on trying. Why, in words.
    Pending(String),
}

/// A record waiting to be written, and who waits for it.
type Pending = (GameRecord, oneshot::Sender<()>);

/// How often records that could not be written are tried again.
pub const RETRY_EVERY: Duration = Duration::from_millis(250);

/// Most records written (and fsynced) together.
const MAX_BATCH: usize = 256;

/// Appends records to a file from one task, so concurrent games never interleave lines, and
/// passes each record, once written, to an observer (tests, tournaments) when one is attached.
///
/// [`RecordSink::commit`] returns when the record is written and flushed (and fsynced when
/// configured), or when its wait runs out: the referee sends `(win ...)` after that, and says
/// when the record is not on disk. Records that arrive while one is being written are written
/// together and share one fsync (group commit), so many games ending at once cost one sync.
#[derive(Clone, Debug)]
pub struct RecordSink {
    tx: mpsc::UnboundedSender<Pending>,
    /// Why the last write failed, while writes fail.
    failing: Arc<Mutex<Option<String>>>,
}

impl RecordSink {
    /// Starts the writer task. `path` of `None` keeps no file.
    ///
    /// # Errors
    /// When the file cannot be opened for appending.
    pub async fn start(
        path: Option<PathBuf>,
        durability: Durability,
        observer: Option<mpsc::UnboundedSender<GameRecord>>,
        metrics: Option<crate::metrics::Metrics>,
    ) -> std::io::Result<(RecordSink, tokio::task::JoinHandle<()>)> {
        // A write past the file-size limit must fail (EFBIG), not kill the server mid-record.
        crate::sys::ignore_file_size_signal();
        let file = match path {
            Some(path) => {
                let mut file = RecordsFile::new(path.clone(), durability);
                file.open().await.map_err(|e| {
                    std::io::Error::new(e.kind(), format!("{}: {e}", path.display()))
                })?;
                Some(file)
            }
            None => None,
        };
        let (tx, rx) = mpsc::unbounded_channel::<Pending>();
        let failing = Arc::new(Mutex::new(None));
        if let Some(m) = &metrics {
            m.watch_records(failing.clone());
        }
        let writer = Writer {
            file,
            observer,
            pending: VecDeque::new(),
            failing: failing.clone(),
            metrics,
        };
        let handle = tokio::spawn(writer.run(rx));
        Ok((RecordSink { tx, failing }, handle))
    }

    /// Why records cannot be written now, while they cannot.
    pub fn failing(&self) -> Option<String> {
        self.failing
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Hands a finished game's record to the writer and waits until it is on disk, at most
    /// `wait` (then the writer keeps it and goes on trying).
    pub async fn commit(&self, record: GameRecord, wait: Duration) -> Committed {
        let game = record.game;
        let (ack, written) = oneshot::channel();
        if self.tx.send((record, ack)).is_err() {
            tracing::error!(game, "record writer has stopped; a game record is lost");
            return Committed::Pending("the record writer has stopped".into());
        }
        match tokio::time::timeout(wait, written).await {
            Ok(Ok(())) => Committed::Written,
            Ok(Err(_)) => Committed::Pending("the record writer has stopped".into()),
            Err(_) => Committed::Pending(
                self.failing()
                    .unwrap_or_else(|| "the records file is slow to write".into()),
            ),
        }
    }
}

/// The writer task's state.
struct Writer {
    file: Option<RecordsFile>,
    observer: Option<mpsc::UnboundedSender<GameRecord>>,
    /// Records not yet on disk, oldest first.
    pending: VecDeque<Pending>,
    failing: Arc<Mutex<Option<String>>>,
    /// Writes, failures and their latency, for `GET /metrics` (a watched server).
    metrics: Option<crate::metrics::Metrics>,
}

impl Writer {
    async fn run(mut self, mut rx: mpsc::UnboundedReceiver<Pending>) {
        let mut open = true;
        loop {
            let retrying = !self.pending.is_empty();
            if !open && !retrying {
                break;
            }
            tokio::select! {
                got = rx.recv(), if open => match got {
                    Some(first) => {
                        self.pending.push_back(first);
                        while let Ok(more) = rx.try_recv() {
                            self.pending.push_back(more);
                        }
                    }
                    None => open = false,
                },
                _ = tokio::time::sleep(RETRY_EVERY), if retrying => {}
            }
            self.write_pending().await;
            if !open && !self.pending.is_empty() {
                // The server is stopping: one last try has failed.
                self.report_unsaved();
                break;
            }
        }
    }

    /// Writes the pending records, oldest first, a batch at a time, until one fails.
    async fn write_pending(&mut self) {
        while !self.pending.is_empty() {
            let n = self.pending.len().min(MAX_BATCH);
            let started = std::time::Instant::now();
            let result = match self.file.as_mut() {
                Some(file) => file.append(self.pending.range(..n).map(|(r, _)| r)).await,
                None => Ok(()),
            };
            if let Err(e) = result {
                if let Some(m) = &self.metrics {
                    m.record_write_failed();
                }
                self.fail(n, e.to_string());
                return;
            }
            if let (Some(m), Some(_)) = (&self.metrics, &self.file) {
                m.records_written(n, started.elapsed());
            }
            self.recovered();
            for (record, ack) in self.pending.drain(..n) {
                if let Some(obs) = &self.observer {
                    let _ = obs.send(record);
                }
                let _ = ack.send(());
            }
        }
    }

    /// Notes a failed write of `n` records: logged when the failure starts or changes, not at
    /// every try.
    fn fail(&mut self, n: usize, why: String) {
        let mut failing = self.failing.lock().unwrap_or_else(|e| e.into_inner());
        if failing.as_deref() != Some(why.as_str()) {
            let games: Vec<u64> = self.pending.iter().take(n).map(|(r, _)| r.game).collect();
            let file = self.file.as_ref().map(|f| f.path.display().to_string());
            tracing::error!(
                error = %why,
                file = file.as_deref().unwrap_or_default(),
                ?games,
                "cannot write game records; no new game starts until they are written (trying again every {} ms)",
                RETRY_EVERY.as_millis()
            );
        }
        *failing = Some(why);
    }

    /// Notes a write that worked, after failures.
    fn recovered(&mut self) {
        let mut failing = self.failing.lock().unwrap_or_else(|e| e.into_inner());
        if failing.take().is_some() {
            tracing::warn!(
                records = self.pending.len(),
                "the records file can be written again; writing the records held"
            );
        }
    }

    /// The server stops with records that could not be written: they go to stderr, the only
    /// copy left, after a line saying so.
    fn report_unsaved(&mut self) {
        let games: Vec<u64> = self.pending.iter().map(|(r, _)| r.game).collect();
        let why = self.failing().unwrap_or_default();
        tracing::error!(
            ?games,
            error = %why,
            "stopping with game records that could not be written; they follow on stderr, one JSON line each"
        );
        let mut text = format!(
            "anqi: {} game records could not be written ({why}); here they are, one per line:\n",
            games.len()
        );
        for (record, _) in self.pending.drain(..) {
            text.push_str(&serde_json::to_string(&record).expect("records serialize"));
            text.push('\n');
        }
        use std::io::Write;
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
    }

    fn failing(&self) -> Option<String> {
        self.failing
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

/// The records file, opened by its name and checked before each write (see the module's
/// documentation).
struct RecordsFile {
    path: PathBuf,
    durability: Durability,
    /// The open file, `None` after a failure: the next write opens it again by its name.
    file: Option<tokio::fs::File>,
}

impl RecordsFile {
    fn new(path: PathBuf, durability: Durability) -> RecordsFile {
        RecordsFile {
            path,
            durability,
            file: None,
        }
    }

    /// Opens the file for appending (creating it), and ends a last line cut short.
    async fn open(&mut self) -> std::io::Result<()> {
        let mut file = tokio::fs::OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(&self.path)
            .await?;
        let len = file.metadata().await?.len();
        if len > 0 {
            let mut last = [0u8];
            file.seek(SeekFrom::Start(len - 1)).await?;
            file.read_exact(&mut last).await?;
            if last[0] != b'\n' {
                tracing::warn!(
                    file = %self.path.display(),
                    bytes = len,
                    "the records file ends in the middle of a line (a record cut short by a crash, a power cut or a full disk); ending that line so the next record starts on its own"
                );
                file.write_all(b"\n").await?;
                file.flush().await?;
            }
        }
        self.file = Some(file);
        Ok(())
    }

    /// Whether the open file is still the one the path names (not removed, not replaced).
    async fn still_named(&self, file: &tokio::fs::File) -> bool {
        use std::os::unix::fs::MetadataExt;
        let (Ok(open), Ok(named)) = (file.metadata().await, tokio::fs::metadata(&self.path).await)
        else {
            return false;
        };
        open.nlink() > 0 && open.dev() == named.dev() && open.ino() == named.ino()
    }

    /// Appends `records`, one line each, in one write; flushes and syncs as configured. On
    /// failure, cuts off what the write left and closes the file, so the next try opens it
    /// again and starts on a whole line.
    async fn append<'a>(
        &mut self,
        records: impl Iterator<Item = &'a GameRecord>,
    ) -> std::io::Result<()> {
        let mut text = String::new();
        for record in records {
            text.push_str(&serde_json::to_string(record).expect("records serialize"));
            text.push('\n');
        }
        if let Some(file) = &self.file {
            if !self.still_named(file).await {
                tracing::warn!(
                    file = %self.path.display(),
                    "the records file was removed or replaced while the server ran; opening it again by its name"
                );
                self.file = None;
            }
        }
        if self.file.is_none() {
            self.open().await?;
        }
        let file = self.file.as_mut().expect("just opened");
        let before = file.metadata().await?.len();
        let written = async {
            file.write_all(text.as_bytes()).await?;
            file.flush().await?;
            if self.durability.fsync {
                file.sync_data().await?;
            }
            Ok::<(), std::io::Error>(())
        }
        .await;
        if let Err(e) = written {
            // Our own bytes, none of them acknowledged: cut them off, so the file ends on a
            // whole line again (if even that fails, the next open ends the line).
            let _ = file.set_len(before).await;
            self.file = None;
            return Err(e);
        }
        Ok(())
    }
}
