//! The uci-banqi protocol: MistyBanqi's dialect of UCI, over the engine's stdin and stdout.
//!
//! The engine keeps no game of its own: before every `go` the bridge sends the whole position
//! as a FEN, `BOARD TURN POOL CLOCK MOVENUM`, with the quiet moves since the last reveal or
//! capture after `moves` (its repetition window), and reads `bestmove FROMTO` back: a reveal is
//! the same square twice, `(none)` gives up. `protocol/bridges/UCI-BANQI.md` has the whole
//! contract; what anqi learnt from the real engine is in its comments below.
//!
//! Squares are a file `a`..`h` and a rank digit `0`..`3`, rank 0 at the bottom: anqi cell
//! `row * 8 + col` is file `col`, rank `3 - row`, and the FEN lists anqi's rows in order.

use super::assess::UCI_REPETITION_WINDOW;
use super::engine::LineEngine;
use super::error::BridgeError;
use super::session::{Answer, Event, Session};
use super::translator::{report, BridgeOptions, Translator};
use anqi_core::rules::{Board, Colour, Control, Kind, Square, Variant};
use anqi_core::wire::LastPly;
use std::time::Duration;

const FILES: &[u8; 8] = b"abcdefgh";
const ROWS: usize = 4;
const COLS: usize = 8;
const CELLS: usize = ROWS * COLS;

/// Search time when the game has neither a game clock nor a move limit (the engine's own
/// default for a `go` without `movetime`).
const DEFAULT_MOVETIME_MS: u64 = 1000;
/// The game time left is spread over this many more moves (each `go` gets 1/30 of it).
const MOVES_TO_GO: u64 = 30;
/// Kept back from every search for the bridge's own work and the way to the referee and back:
/// 50 ms plus 5 % of the search.
const MARGIN_MS: u64 = 50;
const MARGIN_DIVISOR: u64 = 20;
/// How long the engine has to exit after `quit` before it is killed.
const QUIT_GRACE: Duration = Duration::from_secs(2);

/// The protocol's name for anqi cell `cell` on the 4x8 board: file `a`..`h` for the column,
/// rank digit `3 - row` (`a3` = 0, `h3` = 7, `a0` = 24, `h0` = 31).
pub fn square_name(cell: usize) -> String {
    if cell < CELLS {
        let (row, col) = (cell / COLS, cell % COLS);
        format!("{}{}", FILES[col] as char, ROWS - 1 - row)
    } else {
        format!("?{cell}")
    }
}

/// The anqi cell a square names (the inverse of [`square_name`]). A square of the protocol's
/// syntax (a lower-case letter and a digit) off the 4x8 board, such as `i0` or `a7`, gets a cell
/// past the board, `32 + 26 * rank + file`, which the referee refuses like any other. `None`
/// when `square` is not of the syntax at all.
pub fn cell_of(square: &str) -> Option<usize> {
    let &[f, r] = square.as_bytes() else {
        return None;
    };
    if !f.is_ascii_lowercase() || !r.is_ascii_digit() {
        return None;
    }
    let (file, rank) = (usize::from(f - b'a'), usize::from(r - b'0'));
    Some(if file < COLS && rank < ROWS {
        (ROWS - 1 - rank) * COLS + file
    } else {
        CELLS + 26 * rank + file
    })
}

/// A move token, `FROMTO` (`d1e1`; `b2b2` reveals b2), as an answer in anqi's terms.
pub fn parse_move(token: &str) -> Option<Answer> {
    if token.len() != 4 || !token.is_ascii() {
        return None;
    }
    let from = cell_of(&token[..2])?;
    let to = cell_of(&token[2..])?;
    Some(if from == to {
        Answer::Reveal(from)
    } else {
        Answer::Move(from, to)
    })
}

/// The protocol's token for a move between two cells of the board.
fn move_token(from: usize, to: usize) -> String {
    format!("{}{}", square_name(from), square_name(to))
}

/// The protocol's letter for a piece kind (upper case; black pieces are lower case):
/// G general, A advisor, E elephant, R chariot, H horse, C cannon, S soldier.
pub fn kind_letter(kind: Kind) -> char {
    match kind {
        Kind::King => 'G',
        Kind::Guard => 'A',
        Kind::Bishop => 'E',
        Kind::Rook => 'R',
        Kind::Knight => 'H',
        Kind::Cannon => 'C',
        Kind::Pawn => 'S',
    }
}

fn piece_letter(colour: Colour, kind: Kind) -> char {
    let c = kind_letter(kind);
    match colour {
        Colour::Red => c,
        Colour::Black => c.to_ascii_lowercase(),
    }
}

/// What the engine is told before a search: the position where its repetition window starts
/// (after the last reveal or capture) and the quiet moves played since.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    /// The board at the window's start (anqi cells).
    pub board: Board,
    /// The colour to move at the window's start; `None` before the colours are decided.
    pub turn: Option<Colour>,
    /// Face-down pieces, by colour and kind (the same all through the window).
    pub pool: [[u32; 7]; 2],
    /// The no-progress count at the window's start, as the engine believes it.
    pub clock: u32,
    /// Full moves at the window's start, from 1 (the engine ignores it).
    pub movenum: usize,
    /// The quiet moves since, in order: (from, to) cells.
    pub moves: Vec<(usize, usize)>,
}

impl Position {
    /// The position of `session` now, for an engine that believes the rules of `assumes`.
    ///
    /// MistyBanqi takes the FEN at the start of the window and replays the moves itself,
    /// counting CLOCK up by one per move and remembering every position on the way for its
    /// repetition rule. It must never be given a reveal in `moves` (it panics), so the window
    /// starts after the last reveal or capture; the referee's `(progress N)` says how many
    /// plies that is. CLOCK is what the engine should see now
    /// ([`Session::progress_as_believed`]) minus the moves replayed. When the engine believes
    /// in a shorter no-progress rule than the event's, that count can be smaller than the
    /// window (it stays 0 for MistyBanqi's 40 plies until the event's count passes 140): the
    /// window is then cut, but never below [`UCI_REPETITION_WINDOW`] plies (nor half the engine's
    /// own rule), so that the engine still sees the positions its repetition rule looks for.
    /// Its count then reads the length of that window: higher than the exact translation,
    /// far from its own draw. Cut to the exact count, the engine saw no history at all and
    /// walked into repetitions while winning (issue 20: 16 of 34 games drawn by repetition).
    pub fn of(session: &Session, assumes: Option<&Variant>) -> Position {
        let history = session.history();
        let believed = session.progress_as_believed(assumes);
        let floor = assumes
            .and_then(|a| a.draw.no_progress)
            .map_or(UCI_REPETITION_WINDOW, |n| {
                (n as usize / 2).min(UCI_REPETITION_WINDOW)
            });
        let quiet = (session.progress() as usize)
            .min((believed as usize).max(floor))
            .min(history.len());
        let (board, moves) = window(session.board(), history, quiet).unwrap_or_else(|| {
            eprintln!(
                "anqi bridge: warning: the last {quiet} plies do not undo as quiet moves; \
                 the engine gets the position without its repetition window"
            );
            (session.board().clone(), Vec::new())
        });
        let start = history.len() - moves.len();
        let mover = history
            .get(start)
            .map_or(session.to_move(), |&(player, _)| player);
        let mut pool = [[0; 7]; 2];
        for colour in Colour::ALL {
            for kind in Kind::ALL {
                pool[colour.index()][kind.index()] = session.hidden(colour, kind);
            }
        }
        Position {
            board,
            turn: session.colour_of(mover),
            pool,
            clock: believed.saturating_sub(moves.len() as u32),
            movenum: start / 2 + 1,
            moves,
        }
    }

    /// The FEN: `BOARD TURN POOL CLOCK MOVENUM`. The board lists anqi's rows 0..3 (ranks 3..0)
    /// separated by `/`, runs of empty cells as digits, `X` for a face-down piece; TURN is the
    /// colour to move (`r`, `b`, `-` before the colours are decided); POOL the face-down pieces
    /// as letter and count (`-` when none).
    pub fn fen(&self) -> String {
        let mut ranks = Vec::with_capacity(ROWS);
        for row in 0..ROWS {
            let mut rank = String::new();
            let mut empty = 0;
            for col in 0..COLS {
                let letter = match self.board.get(row * COLS + col) {
                    Square::Empty => {
                        empty += 1;
                        continue;
                    }
                    Square::Hidden => 'X',
                    Square::Up(p) => piece_letter(p.colour, p.kind),
                };
                if empty > 0 {
                    rank.push_str(&empty.to_string());
                    empty = 0;
                }
                rank.push(letter);
            }
            if empty > 0 {
                rank.push_str(&empty.to_string());
            }
            ranks.push(rank);
        }
        let turn = match self.turn {
            Some(Colour::Red) => "r",
            Some(Colour::Black) => "b",
            None => "-",
        };
        let mut pool = String::new();
        for colour in Colour::ALL {
            for kind in Kind::ALL {
                let n = self.pool[colour.index()][kind.index()];
                if n > 0 {
                    pool.push(piece_letter(colour, kind));
                    pool.push_str(&n.to_string());
                }
            }
        }
        if pool.is_empty() {
            pool.push('-');
        }
        format!(
            "{} {turn} {pool} {} {}",
            ranks.join("/"),
            self.clock,
            self.movenum
        )
    }

    /// The `position fen FEN [moves M...]` command.
    pub fn command(&self) -> String {
        let mut line = format!("position fen {}", self.fen());
        if !self.moves.is_empty() {
            line.push_str(" moves");
            for &(from, to) in &self.moves {
                line.push(' ');
                line.push_str(&move_token(from, to));
            }
        }
        line
    }
}

/// The board before the last `quiet` plies of `history` and those plies as moves, undoing them
/// from `now`; `None` when one of them is not a move from an empty cell onto a piece.
fn window(
    now: &Board,
    history: &[(usize, LastPly)],
    quiet: usize,
) -> Option<(Board, Vec<(usize, usize)>)> {
    let mut board = now.clone();
    let mut moves = Vec::with_capacity(quiet);
    for &(_, ply) in history[history.len().checked_sub(quiet)?..].iter().rev() {
        let LastPly::Mov(from, to) = ply else {
            return None;
        };
        if from >= board.len() || to >= board.len() {
            return None;
        }
        let (Square::Empty, Square::Up(piece)) = (board.get(from), board.get(to)) else {
            return None;
        };
        board.set(from, Square::Up(piece));
        board.set(to, Square::Empty);
        moves.push((from, to));
    }
    moves.reverse();
    Some((board, moves))
}

/// The search time for one move: 1/30 of the game time left plus the increment (at most half
/// the time left), at most the move limit, less the margin; `DEFAULT_MOVETIME_MS` (1 s) without
/// either clock. Never 0, which MistyBanqi reads as "no time limit".
pub fn movetime_ms(game_left: Option<u64>, increment: u64, move_limit: Option<u64>) -> u64 {
    let from_game = game_left.map(|left| (left / MOVES_TO_GO + increment).min(left / 2));
    let budget = match (from_game, move_limit) {
        (Some(a), Some(b)) => a.min(b),
        (a, b) => match a.or(b) {
            Some(x) => x,
            None => return DEFAULT_MOVETIME_MS,
        },
    };
    budget
        .saturating_sub(MARGIN_MS + budget / MARGIN_DIVISOR)
        .max(1)
}

fn session_movetime(session: &Session) -> u64 {
    movetime_ms(
        session
            .has_game_clock()
            .then(|| session.clock_ms(session.me())),
        session.time_control()[1],
        session.move_limit().map(|d| d.as_millis() as u64),
    )
}

/// A line the engine sent while it searched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// `info ...`: what the engine says of its search (the words after `info`).
    Info(String),
    /// `bestmove FROMTO`.
    Move(Answer),
    /// `bestmove (none)`: no move (or no position it could read).
    NoMove,
    /// `bestmove` with something that is not a move (the whole line).
    NotAMove(String),
}

/// What a line from a searching engine is; `None` for a line the protocol has no place for.
pub fn parse_reply(line: &str) -> Option<Reply> {
    let mut words = line.split_whitespace();
    match words.next()? {
        "info" => Some(Reply::Info(
            line.trim_start()["info".len()..].trim().to_string(),
        )),
        "bestmove" => Some(match words.next() {
            Some("(none)") => Reply::NoMove,
            Some(token) => {
                parse_move(token).map_or_else(|| Reply::NotAMove(line.to_string()), Reply::Move)
            }
            None => Reply::NotAMove(line.to_string()),
        }),
        _ => None,
    }
}

/// A line of the engine's handshake.
enum Greeting {
    Name(String),
    Other,
    UciOk,
}

/// A running uci-banqi engine.
pub struct UciEngine {
    engine: LineEngine,
    name: Option<String>,
    /// How long it has for each answer of its handshake ([`BridgeOptions::handshake`]).
    handshake: Duration,
    /// How long it has for `readyok` in a game ([`BridgeOptions::ack`]).
    ack: Duration,
}

impl UciEngine {
    /// `isready`, then waits `limit` for `readyok`.
    async fn ready(&mut self, limit: Duration) -> Result<(), BridgeError> {
        self.engine.send("isready").await?;
        self.engine
            .expect("isready", Some(limit), |l| {
                (l.trim() == "readyok").then_some(())
            })
            .await
    }

    /// One turn: the position, `go`, and the answer forwarded. `false` when the game ended
    /// while the engine was thinking.
    async fn turn(
        &mut self,
        session: &mut Session,
        options: &BridgeOptions,
    ) -> Result<bool, BridgeError> {
        let position = Position::of(session, options.assumes.as_ref());
        self.engine.send(&position.command()).await?;
        self.engine
            .send(&format!("go movetime {}", session_movetime(session)))
            .await?;
        // The record keeps the last `info` line with a score or a principal variation (the
        // search's conclusion), else the last one.
        let mut said: Option<String> = None;
        let reply = loop {
            tokio::select! {
                line = self.engine.expect("go", None, parse_reply) => match line? {
                    Reply::Info(words) => {
                        let telling = |w: &str| w.split_whitespace().any(|x| x == "score" || x == "pv");
                        if !words.is_empty()
                            && (telling(&words) || !said.as_deref().is_some_and(telling))
                        {
                            said = Some(words);
                        }
                    }
                    reply => break reply,
                },
                event = session.next() => match event? {
                    Event::Over { .. } => return Ok(false),
                    Event::Refused { code, text } => refused(code.name(), &text),
                    Event::Played { .. } | Event::MyTurn => {}
                },
            }
        };
        let answer = match reply {
            Reply::Move(answer) => answer,
            Reply::NoMove => {
                let v = session.variant();
                let control = Control::from(session.colour_of(session.me()));
                let legal = session
                    .board()
                    .count_actions(&v.topology, &v.capture, control)
                    .total();
                report(&format!(
                    "resigned: the engine answered `bestmove (none)` ({legal} actions are \
                     legal here by the event's rules)"
                ));
                Answer::Resign
            }
            Reply::NotAMove(line) => {
                report(&format!(
                    "resigned: the engine answered {line:?}, which is not a move \
                     (bestmove FROMTO, squares a0..h3)"
                ));
                Answer::Resign
            }
            Reply::Info(_) => unreachable!("info lines are taken in above"),
        };
        session.answer_with(answer, said).await?;
        Ok(true)
    }
}

fn refused(code: &str, text: &str) {
    eprintln!("anqi bridge: the referee refused the engine's answer: {code} {text:?}");
}

impl Translator for UciEngine {
    /// Its `info` lines: depth, score, nodes, principal variation.
    const COMMENTS: bool = true;

    async fn start(options: &BridgeOptions) -> Result<Self, BridgeError> {
        let engine = LineEngine::spawn(&options.command, options.verbose)?;
        let mut uci = UciEngine {
            engine,
            name: None,
            handshake: options.handshake,
            ack: options.ack,
        };
        let handshake = async {
            uci.engine.send("uci").await?;
            loop {
                let greeting = uci
                    .engine
                    .expect("uci", None, |l| {
                        let l = l.trim();
                        if l == "uciok" {
                            Some(Greeting::UciOk)
                        } else if let Some(name) = l.strip_prefix("id name ") {
                            Some(Greeting::Name(name.trim().to_string()))
                        } else if l.starts_with("id ") || l.starts_with("option ") {
                            Some(Greeting::Other)
                        } else {
                            None
                        }
                    })
                    .await?;
                match greeting {
                    Greeting::UciOk => break,
                    Greeting::Name(name) => uci.name = Some(name),
                    Greeting::Other => {}
                }
            }
            uci.ready(uci.handshake).await
        };
        let outcome = match tokio::time::timeout(options.handshake, handshake).await {
            Ok(outcome) => outcome,
            Err(_) => Err(BridgeError::Engine(format!(
                "{} did not finish its handshake (uci, isready) within {} s",
                uci.engine.program(),
                options.handshake.as_secs()
            ))),
        };
        match outcome {
            Ok(()) => Ok(uci),
            Err(e) => {
                let why = match e {
                    BridgeError::Engine(why) | BridgeError::EngineStart(why) => why,
                    other => other.to_string(),
                };
                uci.quit().await;
                Err(BridgeError::EngineStart(why))
            }
        }
    }

    fn engine_name(&self) -> Option<String> {
        self.name.clone()
    }

    async fn play(
        &mut self,
        session: &mut Session,
        options: &BridgeOptions,
    ) -> Result<(), BridgeError> {
        self.engine.send("ucinewgame").await?;
        self.ready(self.ack).await?;
        loop {
            match session.next().await? {
                Event::MyTurn => {
                    if !self.turn(session, options).await? {
                        return Ok(());
                    }
                }
                Event::Over { .. } => return Ok(()),
                Event::Refused { code, text } => refused(code.name(), &text),
                Event::Played { .. } => {}
            }
        }
    }

    async fn quit(mut self) {
        let _ = self.engine.send("quit").await;
        self.engine.finish(QUIT_GRACE).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_and_cells_are_inverse_and_keep_rows() {
        for cell in 0..CELLS {
            assert_eq!(cell_of(&square_name(cell)), Some(cell), "{cell}");
        }
        assert_eq!(square_name(0), "a3");
        assert_eq!(square_name(7), "h3");
        assert_eq!(square_name(24), "a0");
        assert_eq!(square_name(31), "h0");
        assert_eq!(square_name(11), "d2");
    }

    #[test]
    fn off_board_squares_get_distinct_cells_past_the_board() {
        let mut seen = std::collections::HashSet::new();
        for f in b'a'..=b'z' {
            for r in b'0'..=b'9' {
                let sq = String::from_utf8(vec![f, r]).unwrap();
                let cell = cell_of(&sq).unwrap();
                assert!(seen.insert(cell), "{sq}");
                let on_board = f <= b'h' && r <= b'3';
                assert_eq!(cell < CELLS, on_board, "{sq} -> {cell}");
            }
        }
        for bad in ["", "a", "A0", "a-", "aa", "a00", "é0", "0a"] {
            assert_eq!(cell_of(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn replies_parse_as_the_protocol_says() {
        assert_eq!(
            parse_reply("bestmove d1e1"),
            Some(Reply::Move(Answer::Move(19, 20)))
        );
        assert_eq!(
            parse_reply("bestmove b1b1"),
            Some(Reply::Move(Answer::Reveal(17)))
        );
        assert_eq!(
            parse_reply("bestmove a3h0 ponder h0a3"),
            Some(Reply::Move(Answer::Move(0, 31)))
        );
        assert_eq!(
            parse_reply("bestmove a0i0"),
            Some(Reply::Move(Answer::Move(24, 40)))
        );
        assert_eq!(parse_reply("bestmove (none)"), Some(Reply::NoMove));
        assert_eq!(
            parse_reply("info depth 3 score cp 12"),
            Some(Reply::Info("depth 3 score cp 12".into()))
        );
        for bad in ["bestmove", "bestmove e2", "bestmove E2E4", "bestmove d1e1x"] {
            assert_eq!(
                parse_reply(bad),
                Some(Reply::NotAMove(bad.to_string())),
                "{bad}"
            );
        }
        assert_eq!(parse_reply("thinking about d1e1"), None);
        assert_eq!(parse_reply(""), None);
    }

    fn full_pool() -> [[u32; 7]; 2] {
        let one = [1, 2, 2, 2, 2, 2, 5];
        [one, one]
    }

    #[test]
    fn the_opening_fen_is_misty_banqis_own() {
        let p = Position {
            board: Board::hidden(32),
            turn: None,
            pool: full_pool(),
            clock: 0,
            movenum: 1,
            moves: vec![],
        };
        assert_eq!(
            p.command(),
            "position fen XXXXXXXX/XXXXXXXX/XXXXXXXX/XXXXXXXX - G1A2E2R2H2C2S5g1a2e2r2h2c2s5 0 1"
        );
    }

    #[test]
    fn fen_rows_runs_letters_and_moves() {
        // Row 0 holds a red king and a black pawn, row 2 a black cannon, the rest is empty
        // except a face-down piece at the bottom right.
        let board = board_with(&[(0, 'K'), (5, 'p'), (19, 'c'), (31, 'X')]);
        let mut pool = [[0; 7]; 2];
        pool[Colour::Black.index()][Kind::Guard.index()] = 1;
        let p = Position {
            board,
            turn: Some(Colour::Black),
            pool,
            clock: 7,
            movenum: 40,
            moves: vec![(19, 20), (0, 1)],
        };
        assert_eq!(
            p.command(),
            "position fen G4s2/8/3c4/7X b a1 7 40 moves d1e1 a3b3"
        );
        let none = Position {
            pool: [[0; 7]; 2],
            turn: Some(Colour::Red),
            ..p
        };
        assert!(none.fen().contains(" r - 7 40"), "{}", none.fen());
    }

    /// An empty 4x8 board with pieces (or `X`) on some cells.
    fn board_with(cells: &[(usize, char)]) -> Board {
        let mut text = ['.'; 32];
        for &(cell, letter) in cells {
            text[cell] = letter;
        }
        Board::parse(&text.iter().collect::<String>()).unwrap()
    }

    #[test]
    fn the_window_undoes_quiet_moves_only() {
        // Red revealed its rook on 9, black moved its cannon 19 -> 20, red its rook 9 -> 1.
        let now = board_with(&[(0, 'X'), (1, 'R'), (20, 'c')]);
        let history = vec![
            (1, LastPly::Rev(9, 'R')),
            (2, LastPly::Mov(19, 20)),
            (1, LastPly::Mov(9, 1)),
        ];
        let (start, moves) = window(&now, &history, 2).unwrap();
        assert_eq!(moves, vec![(19, 20), (9, 1)]);
        assert_eq!(start, board_with(&[(0, 'X'), (9, 'R'), (19, 'c')]));
        assert_eq!(window(&now, &history, 0).unwrap(), (now.clone(), vec![]));
        // A reveal never goes into the window, nor more plies than were played.
        assert_eq!(window(&now, &history, 3), None);
        assert_eq!(window(&now, &history, 4), None);
        // A move that does not undo onto an empty cell (a capture, or a board out of step).
        let crowded = board_with(&[(1, 'R'), (2, 'n')]);
        assert_eq!(window(&crowded, &[(1, LastPly::Mov(2, 1))], 1), None);
    }

    #[test]
    fn movetime_follows_the_clock_with_a_margin_and_is_never_zero() {
        // No clock: the engine's default.
        assert_eq!(movetime_ms(None, 0, None), 1000);
        // 15 minutes: 30 s a move, less 50 ms and 5 %.
        assert_eq!(movetime_ms(Some(900_000), 0, None), 30_000 - 50 - 1500);
        // A move limit binds.
        assert_eq!(movetime_ms(Some(900_000), 0, Some(1000)), 1000 - 50 - 50);
        assert_eq!(movetime_ms(None, 0, Some(2000)), 2000 - 50 - 100);
        // The increment is spent, but never more than half of what is left.
        assert_eq!(movetime_ms(Some(3000), 500, None), 600 - 50 - 30);
        assert_eq!(movetime_ms(Some(400), 5000, None), 200 - 50 - 10);
        // Almost out of time: still a search of 1 ms, never 0 ("no limit" to the engine).
        assert_eq!(movetime_ms(Some(30), 0, None), 1);
        assert_eq!(movetime_ms(Some(0), 0, None), 1);
    }

    #[test]
    fn every_kind_has_a_distinct_letter() {
        let letters: std::collections::HashSet<char> =
            Kind::ALL.iter().map(|&k| kind_letter(k)).collect();
        assert_eq!(letters.len(), 7);
        assert_eq!(piece_letter(Colour::Black, Kind::King), 'g');
    }
}
