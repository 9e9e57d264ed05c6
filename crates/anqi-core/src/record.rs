//! Game records: one JSON object per finished game, appended as one line to the records file.
//!
//! A record holds everything needed to re-derive the deal and re-play the game through the
//! rules (`anqi replay`), plus what researchers plot: the think time and the mover's number of
//! legal moves, jumps and reveals at every ply (optionally every player's), and each player's
//! side and team. The format is documented in `protocol/RECORDS.md`.

use crate::rules::{Action, ActionCounts, Game, Played, SeedInputs, Termination, Variant};
use serde::{Deserialize, Serialize};
use std::path::Path;

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
    /// The error replies the referee sent during the game: the first [`MAX_FAULTS`] of them.
    pub faults: Vec<FaultRecord>,
    /// Error replies past the first [`MAX_FAULTS`], counted but not kept.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub faults_dropped: u64,
    /// The referee's ply cap, when one applied (`[referee] max_plies`, a tournament's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_plies: Option<u32>,
    /// The referee's adjudication by the players' scores, when on (`[referee] score_draw`,
    /// `score_resign`, a tournament's), as configured: `anqi replay` checks every game
    /// against them, adjudicated or not.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub score_draw: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub score_resign: String,
    pub result: ResultRecord,
    /// The board at the end, as sent on the wire.
    pub final_board: String,
    /// Where the game stands in a tournament (absent outside tournaments).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament: Option<TournamentTag>,
    /// Every lost connection of a player whose seat was kept for it (`[referee]
    /// rejoin_grace_ms`), in the order they ended: taken back, or not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub drops: Vec<DropRecord>,
    /// A rated game of a ladder (`anqi serve --ladder`): which ladder's; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ladder: Option<LadderTag>,
}

/// A ladder game's tag: the players are the ladder's accounts, by name, and the game counts
/// in its ratings (`anqi-ladder`). The ladder is the server's (`[ladder] server`) and the
/// variant's: several servers sharing one database keep apart by name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LadderTag {
    /// The server's name in the ladder's database (`[ladder] server`).
    pub server: String,
}

/// A player's connection lost during the game while its seat was kept for it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DropRecord {
    pub player: usize,
    /// The ply being waited for when the connection was lost (1-based).
    pub ply: u32,
    /// How long the seat was without its player, in milliseconds (0: a new connection took
    /// the seat while the old one still looked open).
    pub away_ms: u64,
    /// Whether the player took its seat back. A player not back when its grace or its clock
    /// ran out lost the game as `disconnect`; one still away when the game ended otherwise
    /// (its side lost on the board, another player left...) is `false` too.
    pub back: bool,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// What a record says about a game besides its plays: where it comes from and how it was set.
#[derive(Clone, Debug)]
pub struct GameHeader {
    pub game: u64,
    pub started_unix_ms: u64,
    pub seeds: SeedInputs,
    /// The referee's ply cap, 0 for none.
    pub max_plies: u32,
    /// The referee's score rules, as configured ("" for none).
    pub score_draw: String,
    pub score_resign: String,
}

impl GameRecord {
    /// The record of a game that has ended: the header, the seats and plays the referee kept,
    /// and the result as the rules (and the referee's rulings, through [`Game::forfeit`] and
    /// friends) left it in the game's outcome.
    ///
    /// # Panics
    /// When the game has not ended.
    pub fn of_game(
        header: GameHeader,
        game: &Game,
        players: Vec<PlayerRecord>,
        plies: Vec<PlyRecord>,
        faults: FaultLog,
    ) -> GameRecord {
        let outcome = game
            .outcome()
            .expect("a record is made of a game that has ended");
        let (winner, winner_team) = game.win_clause();
        let win = if outcome.reason == Termination::Aborted {
            String::new()
        } else {
            format!("(win {winner} {winner_team})")
        };
        let variant = game.variant();
        GameRecord {
            format: RECORD_FORMAT,
            game: header.game,
            started_unix_ms: header.started_unix_ms,
            variant: variant.name.clone(),
            variant_source: variant.source.clone(),
            seeds: header.seeds,
            players,
            plies,
            faults: faults.kept,
            faults_dropped: faults.dropped,
            max_plies: (header.max_plies > 0).then_some(header.max_plies),
            score_draw: header.score_draw,
            score_resign: header.score_resign,
            result: ResultRecord {
                win,
                winner,
                winner_team,
                winner_side: outcome.winner,
                reason: outcome.reason,
                loser: outcome.loser,
                adjudication: None,
                plies: game.ply(),
                turns: game.round(),
            },
            final_board: game.wire_board(),
            tournament: None,
            drops: Vec::new(),
            ladder: None,
        }
    }
}

/// The team number the wire gives `player`: `T` of the `(team T)` clause, its side + 1, in team
/// games (some side has several players; a lone player of `1v2` is team 1 too), and 0 in games
/// without teams, where no `(team T)` is sent. A team's win is `(win 0 T)` with the same `T`
/// ([`Game::win_clause`]); a side of one player wins as `(win ID 0)`.
pub fn wire_team(variant: &Variant, player: usize) -> usize {
    if variant.has_teams() {
        variant.side_of(player) + 1
    } else {
        0
    }
}

/// Most error replies kept in one game's record, whatever the configuration: a client that
/// earns errors forever (with `max_errors = 0`) cannot grow the record or the server's memory
/// without bound. The rest are counted in `faults_dropped`.
pub const MAX_FAULTS: usize = 100;

/// The error replies of one game, bounded by [`MAX_FAULTS`].
#[derive(Clone, Debug, Default)]
pub struct FaultLog {
    kept: Vec<FaultRecord>,
    dropped: u64,
}

impl FaultLog {
    /// Notes one error reply.
    pub fn push(&mut self, fault: FaultRecord) {
        if self.kept.len() < MAX_FAULTS {
            self.kept.push(fault);
        } else {
            self.dropped += 1;
        }
    }
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
    /// How each seat's engine played, seat 1 first: its protocol, the rules it was assumed to
    /// believe, and its time control. Empty in records written before it was kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seats: Vec<SeatTag>,
    /// The event's commitment to its master seed (64 hex digits): every game of one event
    /// carries the same, and the revealed seed proves every deal (TOURNAMENTS.md). `None` in
    /// records written before events committed to their seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commitment: Option<String>,
    /// The machine that played the game, when the event ran on a Ray cluster (`anqi
    /// tournament --ray`): its address and Ray node id, as `10.0.0.5 node 3f2a9c1b`. `None`
    /// for a game played by the runner itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// The entry of the event's deal book the game's deal was taken from (`[tournament.book]`,
    /// TOURNAMENTS.md "Deal books"); `None` when the deal came from the master seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub book: Option<BookTag>,
}

/// Where a tournament game's deal came from in the event's deal book: the game's server seed
/// is the book's entry `entry` (0-based), and the entries are played in `order` (`sequential`
/// from some first entry, or `random`: shuffled by the event's master seed).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BookTag {
    /// The book's commitment (64 hex digits): `anqi book show` prints it, and `anqi report
    /// --book` checks it against the book.
    pub commitment: String,
    /// `sequential` or `random`.
    pub order: String,
    /// The book's entry this game's deal is, 0-based.
    pub entry: u64,
}

/// How one engine played its seat of a tournament game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatTag {
    /// `anqi`, `tcg`, `uci-banqi` or `cdc-platform`.
    pub protocol: String,
    /// The `assumes` of a bridged engine: the rules it believes, when not the event's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assumes: Option<String>,
    /// Its time control, as the tournament file writes one (`60+1`, `40/60`, ...), or
    /// `variant` for the variant's own clock.
    pub tc: String,
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
    /// The player's side: 0-based index into the variant's sides (compare with the result's
    /// `winner_side`). Written in every new record; `None` in records written before it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<usize>,
    /// The team number the wire gave the player, as [`wire_team`]: the `T` of `(team T)` (side
    /// + 1) in team games, 0 otherwise. Written in every new record; `None` in older ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<usize>,
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
    /// With `legal_counts = "all"`: every player's counts at that moment, player 1 first, as
    /// [`Game::counts_of`] gives them (the mover's entry equals `legal`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legal_all: Option<Vec<ActionCounts>>,
    /// The piece a reveal turned up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revealed: Option<char>,
    /// The piece a move captured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub captured: Option<char>,
    /// The piece a bag draw gave.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drawn: Option<char>,
    /// What the mover said of its ply (the `comment` extension: an engine's depth, score and
    /// principal variation), cut to the server's `[records] comment_bytes`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
}

impl PlyRecord {
    /// The record of a ply just played in `game`: `action` by `player` in round `turn`, with
    /// the mover's counts before it (`legal`) and the pieces `played` turned up, captured or
    /// drew. No think time, no other player's counts and no comment: a caller that has them
    /// sets them.
    pub fn of_play(
        game: &Game,
        turn: u32,
        player: usize,
        action: Action,
        legal: ActionCounts,
        played: &Played,
    ) -> PlyRecord {
        PlyRecord {
            ply: game.ply(),
            turn,
            player,
            action: action.to_string(),
            think_ms: 0,
            legal,
            legal_all: None,
            revealed: played.revealed.map(|p| p.letter()),
            drawn: played.drawn.map(|p| p.letter()),
            captured: played.captured.map(|p| p.letter()),
            comment: None,
        }
    }
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
    /// For a game ended by the referee's endgame tables (`adjudicated`): what they ruled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adjudication: Option<Adjudication>,
    pub plies: u32,
    pub turns: u32,
}

/// What ended an `adjudicated` game: the referee's endgame tables and their verdict on the
/// final position, or the engines' scores (`crate::scores`) and the rule they met.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Adjudication {
    /// What ruled: `tables` (the endgame tables, `adjudicate = "tables"`) or `scores` (the
    /// engines' scores, `score_draw` or `score_resign`).
    pub by: String,
    /// By the tables: their value of the final position for the player to move in it, as
    /// [`crate::tables::Verdict::text`] writes it: `win in 7`, `loss in 4`, `draw`. By the
    /// scores: `draw`, or `player N lost`.
    pub verdict: String,
    /// The tables file's name (its last path component), for a reader who wants the same;
    /// empty (and left out) for scores.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tables: String,
    /// By the scores: the rule met, as configured (`draw movenumber=40 movecount=8 score=10`,
    /// `resign movecount=3 score=600 twosided=false`), for `anqi replay` to check it by.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub rule: String,
}

impl PlyRecord {
    /// Whether the ply made progress as the no-progress rule counts it: a reveal, a capture,
    /// a draw from the bag or a put (the score rules' draw run starts afresh after one).
    pub fn made_progress(&self) -> bool {
        self.revealed.is_some()
            || self.captured.is_some()
            || self.drawn.is_some()
            || self.action.starts_with("(put ")
    }
}

impl Adjudication {
    /// What [`Adjudication::by`] says of the endgame tables.
    pub const BY_TABLES: &'static str = "tables";

    /// What [`Adjudication::by`] says of the engines' scores.
    pub const BY_SCORES: &'static str = "scores";

    /// As a result line shows it, after the termination: ` (tables: win in 7 for the player
    /// to move)`, ` (tables: draw)`, ` (scores: player 2 lost, resign movecount=3 ...)`.
    pub fn shown(&self) -> String {
        if self.by == Adjudication::BY_SCORES {
            format!(" ({}: {}, {})", self.by, self.verdict, self.rule)
        } else if self.verdict == "draw" {
            format!(" ({}: draw)", self.by)
        } else {
            format!(" ({}: {} for the player to move)", self.by, self.verdict)
        }
    }

    /// The endgame tables' ruling: `verdict` from the tables file at `path`.
    pub fn by_tables(verdict: crate::tables::Verdict, path: &Path) -> Adjudication {
        Adjudication {
            by: Adjudication::BY_TABLES.to_string(),
            verdict: verdict.text(),
            tables: path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            ),
            rule: String::new(),
        }
    }

    /// The engines' scores' ruling, by `rule` (as [`Adjudication::rule`] writes it).
    pub fn by_scores(ruling: crate::scores::ScoreRuling, rule: String) -> Adjudication {
        Adjudication {
            by: Adjudication::BY_SCORES.to_string(),
            verdict: match ruling {
                crate::scores::ScoreRuling::Draw => "draw".to_string(),
                crate::scores::ScoreRuling::Loses(p) => format!("player {p} lost"),
            },
            tables: String::new(),
            rule,
        }
    }
}

/// Why a line of a records file is not a record (the file itself was read).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecordLineError {
    /// Longer than [`MAX_RECORD_LINE_BYTES`] (or the reader's own limit): skipped unread.
    #[error("the line is longer than {limit} bytes, the limit")]
    TooLong { limit: usize },
    /// Bytes that are not UTF-8 text.
    #[error("not UTF-8 text: {0}")]
    NotUtf8(String),
    /// Text that is not one JSON game record (a torn line, another file's line): what the
    /// JSON reader said.
    #[error("{0}")]
    NotARecord(String),
}

/// Longest line [`RecordLines`] reads, in bytes (64 MiB): a record of a 100,000-ply game is
/// about 12 MiB. A longer line is reported in its place, and skipped without being kept.
pub const MAX_RECORD_LINE_BYTES: usize = 64 << 20;

/// Reads every record of a JSON-lines file; blank lines are skipped.
///
/// # Errors
/// When the file cannot be opened or read. Lines that are not records (not JSON, not a record,
/// not UTF-8, longer than [`MAX_RECORD_LINE_BYTES`]) are returned as errors in place.
pub fn read_records(
    path: &Path,
) -> std::io::Result<Vec<(usize, Result<GameRecord, RecordLineError>)>> {
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
    type Item = std::io::Result<(usize, Result<GameRecord, RecordLineError>)>;

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
                    Err(RecordLineError::TooLong {
                        limit: self.max_line,
                    }),
                )));
            }
            let text = match std::str::from_utf8(&self.buf) {
                Ok(text) => text,
                Err(e) => {
                    return Some(Ok((
                        self.line,
                        Err(RecordLineError::NotUtf8(e.to_string())),
                    )))
                }
            };
            if text.trim().is_empty() {
                continue;
            }
            let record = serde_json::from_str(text.strip_suffix('\r').unwrap_or(text))
                .map_err(|e| RecordLineError::NotARecord(e.to_string()));
            return Some(Ok((self.line, record)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_gets_an_answer_and_reading_goes_on() {
        let good = include_str!("../../../tests/data/one-game.jsonl").trim_end();
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
        assert!(
            matches!(error(1), RecordLineError::NotARecord(ref e) if e.contains("EOF while parsing")),
            "{}",
            error(1)
        );
        assert!(matches!(error(2), RecordLineError::NotUtf8(_)));
        assert!(error(2).to_string().starts_with("not UTF-8 text"));
        assert_eq!(
            error(3),
            RecordLineError::TooLong {
                limit: good.len() + 1
            }
        );
        assert!(error(3).to_string().contains("longer than"), "{}", error(3));
    }
}
