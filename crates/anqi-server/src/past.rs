//! The games a server played before this start, read from its records file when it starts:
//! a game's number is a lasting identity on a server (a page's `#/game/12` names the same game
//! after a restart), so a server seating by arrival numbers its games after the highest one the
//! file holds, and shows the latest ones on its pages.
//!
//! The file is untrusted input (it may be torn, edited, or another program's): it is read one
//! line at a time, each line bounded (`RecordLines`, `MAX_RECORD_LINE_BYTES`), a line that is
//! not a record skipped with a warning, and a game number past [`MAX_GAME_NO`] not believed. A
//! bad line never stops the server from starting; a missing file is a server's first start.

use anqi_core::record::{GameRecord, RecordLines};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// The highest game number believed from a records file: 2^53 - 1, the largest integer a
/// page's JavaScript counts exactly. A record numbered past it is skipped as not a record.
pub const MAX_GAME_NO: u64 = (1 << 53) - 1;

/// Bad lines warned about one by one; past these, only their count is said.
const WARN_LINES: usize = 5;

/// What a records file holds of earlier runs.
#[derive(Debug, Default)]
pub struct Past {
    /// The highest game number recorded (0 for none): the next game is numbered after it.
    pub last_game: u64,
    /// The latest records, at most the number asked for, oldest first; a number recorded
    /// twice keeps its later record.
    pub recent: Vec<GameRecord>,
    /// Records read.
    pub games: usize,
    /// Lines skipped: not a record, or numbered past [`MAX_GAME_NO`].
    pub skipped: usize,
}

/// Reads `path`'s records: the highest game number, and the latest `keep` records. Never
/// fails: what cannot be read is warned about and left out.
pub fn read(path: &Path, keep: usize) -> Past {
    // Only a regular file is read: a FIFO would block the start, and a device such as
    // /dev/full or /dev/zero never ends.
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => {
            tracing::info!(path = %path.display(), "the records file is not a regular file: game numbers start at 1");
            return Past::default();
        }
        _ => {}
    }
    let lines = match RecordLines::open(path) {
        Ok(lines) => lines,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Past::default(),
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "cannot read the records file: game numbers start at 1");
            return Past::default();
        }
    };
    let mut past = Past::default();
    // The latest records by the order read, and the order each number's latest was read in.
    let mut latest: BTreeMap<usize, GameRecord> = BTreeMap::new();
    let mut order_of: HashMap<u64, usize> = HashMap::new();
    for item in lines {
        let (line, record) = match item {
            Ok(item) => item,
            Err(e) => {
                tracing::warn!(path = %path.display(), error = %e, "cannot read the records file further");
                break;
            }
        };
        let record = match record {
            Ok(r) if r.game <= MAX_GAME_NO => r,
            Ok(r) => {
                skip(
                    &mut past,
                    path,
                    line,
                    &format!("game number {} is too large", r.game),
                );
                continue;
            }
            Err(e) => {
                skip(&mut past, path, line, &e.to_string());
                continue;
            }
        };
        past.games += 1;
        past.last_game = past.last_game.max(record.game);
        if keep == 0 {
            continue;
        }
        if let Some(earlier) = order_of.insert(record.game, line) {
            latest.remove(&earlier);
        }
        latest.insert(line, record);
        if latest.len() > keep {
            if let Some((_, old)) = latest.pop_first() {
                order_of.remove(&old.game);
            }
        }
    }
    if past.skipped > WARN_LINES {
        tracing::warn!(path = %path.display(), skipped = past.skipped, "lines of the records file skipped in all (not records)");
    }
    past.recent = latest.into_values().collect();
    past
}

/// Notes a line that is not a record, warning about the first few.
fn skip(past: &mut Past, path: &Path, line: usize, why: &str) {
    past.skipped += 1;
    if past.skipped <= WARN_LINES {
        // The text is the file's: escaped (`?`), so that it cannot forge a log line.
        tracing::warn!(path = %path.display(), line, why = ?why, "a line of the records file skipped: not a record");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(game: u64, name: &str) -> String {
        let mut r: serde_json::Value =
            serde_json::from_str(include_str!("../../../tests/data/one-game.jsonl").trim_end())
                .unwrap();
        r["game"] = game.into();
        r["players"][0]["name"] = name.into();
        r.to_string()
    }

    #[test]
    fn numbers_continue_after_the_highest_and_the_latest_records_are_kept() {
        let dir = std::env::temp_dir().join(format!("anqi-past-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("games.jsonl");
        assert_eq!(read(&path, 3).last_game, 0, "no file: a first start");
        let lines = [
            record(4, "a"),
            "not json".to_string(),
            record(9, "b"),
            record(u64::MAX, "forged"),
            record(2, "c"),
            record(9, "b-again"),
            record(5, "d"),
            "\u{0}{\"format\": 1".to_string(),
        ];
        std::fs::write(&path, lines.join("\n")).unwrap();
        let past = read(&path, 3);
        assert_eq!(past.last_game, 9);
        assert_eq!((past.games, past.skipped), (5, 3));
        let kept: Vec<(u64, &str)> = past
            .recent
            .iter()
            .map(|r| (r.game, r.players[0].name.as_str()))
            .collect();
        assert_eq!(kept, [(2, "c"), (9, "b-again"), (5, "d")]);
        assert!(read(&path, 0).recent.is_empty());
        // A device that never ends, or a directory, is not read.
        assert_eq!(read(Path::new("/dev/zero"), 3).last_game, 0);
        assert_eq!(read(&dir, 3).last_game, 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
