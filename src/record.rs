//! Game records: one JSON object per finished game, appended as one line to the records file.
//!
//! A record holds everything needed to re-derive the deal and re-play the game through the
//! rules (`anqi replay`), plus what researchers plot: the think time and the mover's number of
//! legal moves, jumps and reveals at every ply. The format is documented in
//! `protocol/RECORDS.md`.

use crate::rules::{ActionCounts, SeedInputs, Termination};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;

/// Version of the record format.
pub const RECORD_FORMAT: u32 = 1;

/// One finished game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    pub format: u32,
    /// Game number within the server run (1, 2, ...).
    pub game: u64,
    /// When the game started, in milliseconds since the Unix epoch.
    pub started_unix_ms: u64,
    /// The variant's name.
    pub variant: String,
    /// The variant description the game was played under, verbatim.
    pub variant_source: String,
    /// Every seed contribution of the deal.
    pub seeds: SeedInputs,
    pub players: Vec<PlayerRecord>,
    /// Every ply, in order.
    pub plies: Vec<PlyRecord>,
    /// Every error reply the referee sent during the game.
    pub faults: Vec<FaultRecord>,
    /// The referee's ply cap, when one applied (`[referee] max_plies`, a tournament's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_plies: Option<u32>,
    pub result: ResultRecord,
    /// The board at the end, as sent on the wire.
    pub final_board: String,
    /// Where the game stands in a tournament (absent outside tournaments).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament: Option<TournamentTag>,
}

/// A tournament game's place in its event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentTag {
    /// 0-based index in the schedule.
    pub index: u64,
    /// The deal played; the games of one deal differ only in seating.
    pub deal: u64,
    /// The engine in each seat, seat 1 first.
    pub engines: Vec<String>,
}

/// A seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerRecord {
    /// The player id (1-based), as in `(id N)`.
    pub id: usize,
    /// NAME from `(init NAME SEED)`.
    pub name: String,
    /// SEED from `(init NAME SEED)`, as sent.
    pub seed: String,
    /// The colour this player ended up with ("red", "black"), if decided.
    pub colour: Option<String>,
    /// Thinking time used, in milliseconds.
    pub time_used_ms: u64,
}

/// One ply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlyRecord {
    /// 1-based ply number.
    pub ply: u32,
    /// The paper's TURN counter when the ply was played.
    pub turn: u32,
    /// The mover's player id.
    pub player: usize,
    /// The action as its protocol clause: `(rev 3)`, `(mov 4 0)`, `(bag)`, `(put K 0)`.
    pub action: String,
    /// Time from sending `turn` to receiving the action, in milliseconds.
    pub think_ms: u64,
    /// The mover's legal actions at that moment.
    pub legal: ActionCounts,
    /// The piece a reveal turned up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revealed: Option<char>,
    /// The piece a move captured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub captured: Option<char>,
    /// The piece a bag draw gave.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drawn: Option<char>,
}

/// An error reply sent to a player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultRecord {
    /// The ply being waited for when it happened (1-based).
    pub ply: u32,
    pub player: usize,
    /// The error code (`illegal`, `stale-board`, ...).
    pub code: String,
    pub text: String,
}

/// How the game ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultRecord {
    /// The `(win PLAYER TEAM)` clause everyone received.
    pub win: String,
    /// Winning player id, 0 when none (draw, failure, aborted, or a team win).
    pub winner: usize,
    /// Winning team (side + 1) in team games, 0 otherwise.
    #[serde(default)]
    pub winner_team: usize,
    /// Winning side (0-based index of the variant's sides), absent when nobody won.
    pub winner_side: Option<usize>,
    pub reason: Termination,
    /// For losses by fault (resign, time, illegal, disconnect): the player who lost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loser: Option<usize>,
    pub plies: u32,
    pub turns: u32,
}

/// Appends records to a file from one task, so concurrent games never interleave lines, and
/// passes each record to an observer (tests, tournaments) when one is attached.
#[derive(Clone, Debug)]
pub struct RecordSink {
    tx: mpsc::UnboundedSender<GameRecord>,
}

impl RecordSink {
    /// Starts the writer task. `path` of `None` keeps no file.
    ///
    /// # Errors
    /// When the file cannot be opened for appending.
    pub async fn start(
        path: Option<PathBuf>,
        observer: Option<mpsc::UnboundedSender<GameRecord>>,
    ) -> std::io::Result<(RecordSink, tokio::task::JoinHandle<()>)> {
        let mut file = match &path {
            Some(p) => Some(open_append(p).await?),
            None => None,
        };
        let (tx, mut rx) = mpsc::unbounded_channel::<GameRecord>();
        let handle = tokio::spawn(async move {
            while let Some(record) = rx.recv().await {
                if let Some(f) = file.as_mut() {
                    let mut line = serde_json::to_string(&record).expect("records serialize");
                    line.push('\n');
                    // One write per record, flushed at once: a crash loses no finished game.
                    if let Err(e) = async {
                        f.write_all(line.as_bytes()).await?;
                        f.flush().await
                    }
                    .await
                    {
                        tracing::error!(error = %e, game = record.game, "cannot write game record");
                    }
                }
                if let Some(obs) = &observer {
                    let _ = obs.send(record);
                }
            }
            if let Some(f) = file {
                let _ = f.sync_data().await;
            }
        });
        Ok((RecordSink { tx }, handle))
    }

    /// Queues a finished game.
    pub fn write(&self, record: GameRecord) {
        if self.tx.send(record).is_err() {
            tracing::error!("record writer has stopped; a game record is lost");
        }
    }
}

async fn open_append(path: &Path) -> std::io::Result<tokio::fs::File> {
    tokio::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .await
        .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))
}

/// Longest line [`RecordLines`] reads, in bytes (64 MiB): a record of a 100,000-ply game is
/// about 12 MiB. A longer line is reported in its place, and skipped without being kept.
pub const MAX_RECORD_LINE_BYTES: usize = 64 << 20;

/// Reads every record of a JSON-lines file; blank lines are skipped.
///
/// # Errors
/// When the file cannot be opened or read. Lines that are not records (not JSON, not a record,
/// not UTF-8, longer than [`MAX_RECORD_LINE_BYTES`]) are returned as errors in place.
pub fn read_records(path: &Path) -> std::io::Result<Vec<(usize, Result<GameRecord, String>)>> {
    RecordLines::open(path)?.collect()
}

/// The records of a JSON-lines file, read one line at a time (so a file of any size is read in
/// the memory of its longest line): `(line number, record or what is wrong with the line)`,
/// blank lines skipped. An item is `Err` only when the file itself cannot be read further; the
/// iteration ends after it.
pub struct RecordLines<R> {
    reader: R,
    /// Lines read so far.
    line: usize,
    /// Longest line kept ([`MAX_RECORD_LINE_BYTES`]; tests use less).
    max_line: usize,
    buf: Vec<u8>,
    failed: bool,
}

impl RecordLines<std::io::BufReader<std::fs::File>> {
    /// Opens a records file.
    ///
    /// # Errors
    /// When the file cannot be opened.
    pub fn open(path: &Path) -> std::io::Result<Self> {
        Ok(RecordLines::new(std::io::BufReader::new(
            std::fs::File::open(path)?,
        )))
    }
}

impl<R: std::io::BufRead> RecordLines<R> {
    pub fn new(reader: R) -> Self {
        RecordLines {
            reader,
            line: 0,
            max_line: MAX_RECORD_LINE_BYTES,
            buf: Vec::new(),
            failed: false,
        }
    }

    /// The next line into `buf`, without its `\n`: `Ok(None)` at the end of the file,
    /// `Ok(Some(false))` for a line over [`MAX_RECORD_LINE_BYTES`] (read to its end, not kept).
    fn next_line(&mut self) -> std::io::Result<Option<bool>> {
        self.buf.clear();
        let mut fits = true;
        let mut any = false;
        loop {
            let available = match self.reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                return Ok(any.then_some(fits));
            }
            any = true;
            let (part, end) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (&available[..i], Some(i + 1)),
                None => (available, None),
            };
            if fits && self.buf.len() + part.len() <= self.max_line {
                self.buf.extend_from_slice(part);
            } else if fits {
                fits = false;
                self.buf = Vec::new();
            }
            let used = end.unwrap_or(part.len());
            self.reader.consume(used);
            if end.is_some() {
                return Ok(Some(fits));
            }
        }
    }
}

impl<R: std::io::BufRead> Iterator for RecordLines<R> {
    type Item = std::io::Result<(usize, Result<GameRecord, String>)>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        loop {
            let fits = match self.next_line() {
                Ok(Some(fits)) => fits,
                Ok(None) => return None,
                Err(e) => {
                    self.failed = true;
                    return Some(Err(e));
                }
            };
            self.line += 1;
            if !fits {
                return Some(Ok((
                    self.line,
                    Err(format!(
                        "the line is longer than {} bytes, the limit",
                        self.max_line
                    )),
                )));
            }
            let text = match std::str::from_utf8(&self.buf) {
                Ok(text) => text,
                Err(e) => return Some(Ok((self.line, Err(format!("not UTF-8 text: {e}"))))),
            };
            if text.trim().is_empty() {
                continue;
            }
            let record = serde_json::from_str(text.strip_suffix('\r').unwrap_or(text))
                .map_err(|e| e.to_string());
            return Some(Ok((self.line, record)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_gets_an_answer_and_reading_goes_on() {
        let good = include_str!("../tests/data/one-game.jsonl").trim_end();
        let mut file = Vec::new();
        file.extend_from_slice(good.as_bytes());
        file.extend_from_slice(b"\n\n   \n{\"format\": 1");
        file.extend_from_slice(b"\n\xff\xfe not UTF-8\n");
        file.extend_from_slice(&[b'x'; 5000]);
        file.extend_from_slice(b"\n");
        file.extend_from_slice(good.as_bytes());
        file.extend_from_slice(b"\r\n");
        file.extend_from_slice(good.as_bytes());
        // A small buffer and line limit: lines span many reads, and the long one is skipped.
        let mut lines = RecordLines::new(std::io::BufReader::with_capacity(64, &file[..]));
        lines.max_line = good.len() + 1;
        let got: Vec<_> = lines.map(Result::unwrap).collect();
        let numbers: Vec<usize> = got.iter().map(|(n, _)| *n).collect();
        assert_eq!(numbers, [1, 4, 5, 6, 7, 8]);
        assert!(got[0].1.is_ok() && got[4].1.is_ok() && got[5].1.is_ok());
        let error = |i: usize| got[i].1.as_ref().unwrap_err().clone();
        assert!(error(1).contains("EOF while parsing"), "{}", error(1));
        assert!(error(2).starts_with("not UTF-8 text"), "{}", error(2));
        assert!(error(3).contains("longer than"), "{}", error(3));
    }
}
