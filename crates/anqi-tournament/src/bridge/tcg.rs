//! The tcg protocol: the NTU "Theory of Computer Games" course protocol, over the engine's
//! stdin and stdout (see `protocol/bridges/TCG.md`).
//!
//! A command is `ID NAME ARGS`, ID being the command's place in a fixed table; the engine
//! answers `=ID TEXT` (success) or `?ID TEXT` (failure). Any other line on its stdout is debug
//! output: it is logged and skipped. The engine keeps its own board from what it is told:
//! `reset_board` at the start, then `flip SQ PIECE` or `move SQ SQ` after every ply, its own
//! included (`genmove` does not play the move it answers).
//!
//! The map transposes the board: anqi's rows are TCG's files, and anqi's columns its ranks
//! counted down from 8. anqi cell `row * 8 + col` is file `a + row`, rank `8 - col`: cell 0 is
//! `a8`, cell 7 `a1`, cell 24 `d8`, cell 31 `d1`.

use super::engine::LineEngine;
use super::error::BridgeError;
use super::session::{Answer, Event, Session};
use super::translator::{report, BridgeOptions, Translator};
use anqi_core::rules::{Colour, Repetition};
use anqi_core::wire::LastPly;
use std::collections::VecDeque;
use std::time::Duration;

/// The command table: a command's ID is its place in it.
mod id {
    pub const NAME: u32 = 1;
    pub const KNOWN_COMMAND: u32 = 3;
    pub const QUIT: u32 = 5;
    pub const RESET_BOARD: u32 = 7;
    pub const NUM_REPETITION: u32 = 8;
    pub const NUM_MOVES_TO_DRAW: u32 = 9;
    pub const MOVE: u32 = 10;
    pub const FLIP: u32 = 11;
    pub const GENMOVE: u32 = 12;
    pub const GAME_OVER: u32 = 13;
    pub const READY: u32 = 14;
    pub const TIME_SETTINGS: u32 = 15;
    pub const TIME_LEFT: u32 = 16;
}

/// Files (anqi rows) and ranks (anqi columns) of the board.
const FILES: usize = 4;
const RANKS: usize = 8;

/// Where a square off the 4x8 board goes: the first cell past the board, which the referee
/// refuses as out of range.
pub const OFF_BOARD: usize = FILES * RANKS;

/// How long an engine has to acknowledge `quit`, and then to exit, before it is killed.
const QUIT_TIMEOUT: Duration = Duration::from_secs(2);
/// After a resignation for the engine, how long to wait for the result.
const RESULT_TIMEOUT: Duration = Duration::from_secs(5);

/// The largest part of the referee's clock held back from the engine for the bridge's own
/// overhead (pipes, parsing, the network): a tenth of the time, at most this much.
const MAX_RESERVE_MS: u64 = 2000;

/// The protocol's name for anqi cell `cell` on the 4x8 board (`a8` for cell 0); `?` for a
/// cell off the board.
pub fn square_name(cell: usize) -> String {
    if cell >= OFF_BOARD {
        return "?".into();
    }
    let (row, col) = (cell / RANKS, cell % RANKS);
    format!("{}{}", char::from(b'a' + row as u8), RANKS - col)
}

/// The inverse of [`square_name`]: the anqi cell of a square. A square is a lower-case letter
/// and a rank number (one or two digits); one off the board (`e1`, `a9`, `a0`) gives
/// [`OFF_BOARD`]. `None` when `text` is not a square at all.
pub fn parse_square(text: &str) -> Option<usize> {
    let mut chars = text.chars();
    let file = chars.next().filter(char::is_ascii_lowercase)?;
    let digits = chars.as_str();
    if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let rank: usize = digits.parse().ok()?;
    let row = usize::from(file as u8 - b'a');
    if row >= FILES || !(1..=RANKS).contains(&rank) {
        return Some(OFF_BOARD);
    }
    Some(row * RANKS + (RANKS - rank))
}

/// The protocol's letter for an anqi piece letter: the same, but the bishop (minister) is `M`.
fn piece_letter(anqi: char) -> char {
    match anqi {
        'B' => 'M',
        'b' => 'm',
        other => other,
    }
}

/// Reads a `genmove` answer (the text after `=12`): two squares, the same one twice for a
/// flip. `None` when it is not a move in the protocol's syntax.
fn parse_move(text: &str) -> Option<Answer> {
    let mut words = text.split_whitespace();
    let (from, to) = (words.next()?, words.next()?);
    if words.next().is_some() {
        return None;
    }
    let (a, b) = (parse_square(from)?, parse_square(to)?);
    Some(if from == to {
        Answer::Reveal(a)
    } else {
        Answer::Move(a, b)
    })
}

/// What the engine is told it has of `ms`: the time less the bridge's reserve (a tenth, at
/// most [`MAX_RESERVE_MS`]), within the range of the 32-bit number engines read it into.
fn budget(ms: u64) -> u64 {
    (ms - (ms / 10).min(MAX_RESERVE_MS)).min(i32::MAX as u64)
}

/// An engine's text as a reason: at most 200 characters, control characters shown escaped.
fn sexp_safe(text: &str) -> String {
    text.chars()
        .take(200)
        .flat_map(char::escape_debug)
        .collect()
}

/// The colour word of `genmove` and `time_left`.
fn colour_word(colour: Colour) -> &'static str {
    match colour {
        Colour::Red => "red",
        Colour::Black => "black",
    }
}

/// An answer to a command: `=ID TEXT` (`ok`) or `?ID TEXT`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Reply {
    ok: bool,
    text: String,
}

/// `line` as the answer to command `id`, if it is one: its first word is exactly `=ID` or
/// `?ID`.
fn reply_to(id: u32, line: &str) -> Option<Reply> {
    let (head, rest) = line.split_once(' ').unwrap_or((line, ""));
    let (ok, number) = if let Some(n) = head.strip_prefix('=') {
        (true, n)
    } else {
        (false, head.strip_prefix('?')?)
    };
    (number == id.to_string()).then(|| Reply {
        ok,
        text: rest.trim().to_string(),
    })
}

/// How the engine's turn ended.
enum Turn {
    /// The engine answered: forward this.
    Answer(Answer),
    /// The game ended while the engine was thinking.
    Over((usize, usize)),
}

/// A running tcg engine.
pub struct TcgEngine {
    engine: LineEngine,
    name: Option<String>,
    /// Whether the engine says it knows `num_repetition` and `num_moves_to_draw`.
    knows_repetition: bool,
    knows_moves_to_draw: bool,
    /// The game ended while the engine was thinking: it will read nothing before it answers
    /// its `genmove`, so nothing more is waited for.
    thinking: bool,
    /// How long it has for each answer of its handshake ([`BridgeOptions::handshake`]).
    handshake: Duration,
    /// How long it has to acknowledge a command other than `genmove` ([`BridgeOptions::ack`]).
    ack: Duration,
}

impl TcgEngine {
    /// Sends `ID NAME ARGS` and waits for its answer, skipping (and logging) other lines.
    async fn command(
        &mut self,
        id: u32,
        name: &str,
        args: &str,
        limit: Option<Duration>,
    ) -> Result<Reply, BridgeError> {
        let line = if args.is_empty() {
            format!("{id} {name}")
        } else {
            format!("{id} {name} {args}")
        };
        self.engine.send(&line).await?;
        self.engine.expect(&line, limit, |l| reply_to(id, l)).await
    }

    /// A command that needs no more than an acknowledgement; a failure answer is logged.
    async fn tell(&mut self, id: u32, name: &str, args: &str) -> Result<(), BridgeError> {
        let reply = self.command(id, name, args, Some(self.ack)).await?;
        if !reply.ok {
            eprintln!(
                "anqi bridge: the engine failed `{id} {name} {args}`: ?{id} {}",
                reply.text
            );
        }
        Ok(())
    }

    /// A new game: a face-down board, the event's draw rules (when the engine knows the
    /// commands), readiness, the time.
    async fn new_game(&mut self, session: &Session) -> Result<(), BridgeError> {
        let game_ms = session.has_game_clock().then(|| session.time_control()[0]);
        self.start_game(&session.variant().draw, game_ms).await
    }

    /// What starts every game: `reset_board`, the draw rules (`num_repetition`,
    /// `num_moves_to_draw`: optional commands, sent when the engine says it knows them and the
    /// bridge was not told to leave them out), `ready`, and `time_settings` with a game clock.
    async fn start_game(
        &mut self,
        draw: &anqi_core::rules::DrawRules,
        game_ms: Option<u64>,
    ) -> Result<(), BridgeError> {
        self.tell(id::RESET_BOARD, "reset_board", "").await?;
        let draw = *draw;
        if self.knows_repetition {
            let times = match draw.repetition {
                Some(Repetition::Occurrence(n)) => Some(n),
                Some(Repetition::Cycle { times, .. }) => Some(times),
                None => None,
            };
            if let Some(n) = times {
                self.tell(id::NUM_REPETITION, "num_repetition", &n.to_string())
                    .await?;
            }
        }
        if self.knows_moves_to_draw {
            if let Some(n) = draw.no_progress {
                self.tell(id::NUM_MOVES_TO_DRAW, "num_moves_to_draw", &n.to_string())
                    .await?;
            }
        }
        self.tell(id::READY, "ready", "").await?;
        if let Some(ms) = game_ms {
            let game = budget(ms);
            self.tell(id::TIME_SETTINGS, "time_settings", &game.to_string())
                .await?;
        }
        Ok(())
    }

    /// Tells the engine a ply (its own included).
    async fn tell_ply(&mut self, ply: LastPly) -> Result<(), BridgeError> {
        match ply {
            LastPly::Rev(cell, letter) => {
                let args = format!("{} {}", square_name(cell), piece_letter(letter));
                self.tell(id::FLIP, "flip", &args).await
            }
            LastPly::Mov(from, to) => {
                let args = format!("{} {}", square_name(from), square_name(to));
                self.tell(id::MOVE, "move", &args).await
            }
            LastPly::Bag | LastPly::Put(..) => Err(BridgeError::Unplayable(
                "the tcg protocol has no bag: a draw or a put cannot be told".into(),
            )),
        }
    }

    /// `time_left` for both colours, from the referee's clocks (see [`budget`]).
    async fn tell_time(&mut self, session: &Session, mine: Colour) -> Result<(), BridgeError> {
        let me = session.me();
        let other = if me == 1 { 2 } else { 1 };
        let limit = session.move_limit().map(|d| d.as_millis() as u64);
        let own = match (session.has_game_clock(), limit) {
            (true, Some(l)) => Some(session.clock_ms(me).min(l)),
            (true, None) => Some(session.clock_ms(me)),
            (false, l) => l,
        };
        if let Some(ms) = own {
            let args = format!("{} {}", colour_word(mine), budget(ms));
            self.tell(id::TIME_LEFT, "time_left", &args).await?;
        }
        let theirs = session.clock_ms(other);
        if theirs > 0 {
            let args = format!(
                "{} {}",
                colour_word(mine.other()),
                theirs.min(i32::MAX as u64)
            );
            self.tell(id::TIME_LEFT, "time_left", &args).await?;
        }
        Ok(())
    }

    /// The engine's turn: the clocks, `genmove`, and its answer, while watching the game (it
    /// may end meanwhile: a clock, a resignation...). Events that are not the end are kept in
    /// `deferred`.
    async fn turn(
        &mut self,
        session: &mut Session,
        deferred: &mut VecDeque<Event>,
    ) -> Result<Turn, BridgeError> {
        let colour = session.colour_of(session.me());
        if let Some(c) = colour {
            self.tell_time(session, c).await?;
        }
        let word = colour.map_or("unknown", colour_word);
        let line = format!("{} genmove {word}", id::GENMOVE);
        self.engine.send(&line).await?;
        let reply = loop {
            tokio::select! {
                reply = self.engine.expect(&line, None, |l| reply_to(id::GENMOVE, l)) => break reply?,
                event = session.next() => match event? {
                    Event::Over { win } => {
                        self.thinking = true;
                        return Ok(Turn::Over(win));
                    }
                    other => deferred.push_back(other),
                },
            }
        };
        let answer = if reply.ok {
            parse_move(&reply.text)
        } else {
            None
        };
        Ok(Turn::Answer(answer.unwrap_or_else(|| {
            report(&format!(
                "resigned: the engine's answer to `{line}` is not a move: {}{} {}",
                if reply.ok { '=' } else { '?' },
                id::GENMOVE,
                sexp_safe(&reply.text)
            ));
            Answer::Resign
        })))
    }

    /// Plays until the result; the engine's errors end the game (see [`TcgEngine::play`]).
    async fn game(&mut self, session: &mut Session) -> Result<(), BridgeError> {
        self.new_game(session).await?;
        let mut deferred = VecDeque::new();
        loop {
            let event = match deferred.pop_front() {
                Some(e) => e,
                None => session.next().await?,
            };
            match event {
                Event::Played { ply, .. } => self.tell_ply(ply).await?,
                Event::MyTurn => match self.turn(session, &mut deferred).await? {
                    Turn::Answer(answer) => session.answer(answer).await?,
                    Turn::Over(win) => return self.game_over(session, win).await,
                },
                Event::Refused { code, text } => eprintln!(
                    "anqi bridge: the referee refused the engine's answer: {} {text}",
                    code.name()
                ),
                Event::Over { win } => return self.game_over(session, win).await,
            }
        }
    }

    /// `game_over win|lose|draw` (from the engine's side).
    async fn game_over(
        &mut self,
        session: &Session,
        (player, team): (usize, usize),
    ) -> Result<(), BridgeError> {
        let my_team = session.variant().side_of(session.me()) + 1;
        let result = if player == session.me() || (player == 0 && team == my_team) {
            "win"
        } else if player == 0 && team == 0 {
            "draw"
        } else {
            "lose"
        };
        // The game is over whatever the engine makes of it: its answer is not waited for long.
        let line = format!("{} game_over {result}", id::GAME_OVER);
        let told = match self.engine.send(&line).await {
            Ok(()) if !self.thinking => self
                .engine
                .expect(&line, Some(QUIT_TIMEOUT), |l| reply_to(id::GAME_OVER, l))
                .await
                .map(drop),
            other => other,
        };
        if let Err(e) = told {
            eprintln!("anqi bridge: {e}");
        }
        Ok(())
    }
}

impl Translator for TcgEngine {
    async fn start(options: &BridgeOptions) -> Result<Self, BridgeError> {
        let engine = LineEngine::spawn(&options.command, options.verbose)?;
        let mut me = TcgEngine {
            engine,
            name: None,
            knows_repetition: false,
            knows_moves_to_draw: false,
            thinking: false,
            handshake: options.handshake,
            ack: options.ack,
        };
        let handshake = async {
            let name = me.command(id::NAME, "name", "", Some(me.handshake)).await?;
            me.name = (name.ok && !name.text.is_empty()).then_some(name.text);
            // Left out when told to: an engine may say it knows a command it then fails on.
            let optional = if options.optional_commands {
                vec![
                    ("num_repetition", &mut me.knows_repetition),
                    ("num_moves_to_draw", &mut me.knows_moves_to_draw),
                ]
            } else {
                Vec::new()
            };
            for (command, known) in optional {
                let line = format!("{} known_command {command}", id::KNOWN_COMMAND);
                me.engine.send(&line).await?;
                let reply = me
                    .engine
                    .expect(&line, Some(me.handshake), |l| {
                        reply_to(id::KNOWN_COMMAND, l)
                    })
                    .await?;
                *known = reply.ok && reply.text == "true";
            }
            Ok::<(), BridgeError>(())
        };
        match handshake.await {
            Ok(()) => Ok(me),
            Err(e) => {
                let program = me.engine.program().to_string();
                me.engine.finish(Duration::ZERO).await;
                Err(BridgeError::EngineStart(match e {
                    BridgeError::Engine(why) | BridgeError::SlowAck(why) => why,
                    other => format!("{program}: {other}"),
                }))
            }
        }
    }

    fn engine_name(&self) -> Option<String> {
        self.name.clone()
    }

    /// The start of a game as the event would play it, and a first move: every command the
    /// engine gets at the start of each game, so that an engine that cannot take one of them
    /// fails here, before the event, rather than in every game.
    async fn rehearse(&mut self, variant: &anqi_core::rules::Variant) -> Result<(), BridgeError> {
        let game_ms = variant.clock.game_ms.filter(|&ms| ms > 0);
        self.start_game(&variant.draw, game_ms).await?;
        let line = format!("{} genmove unknown", id::GENMOVE);
        self.engine.send(&line).await?;
        let reply = self
            .engine
            .expect(&line, Some(self.handshake), |l| reply_to(id::GENMOVE, l))
            .await?;
        match (reply.ok, parse_move(&reply.text)) {
            (true, Some(_)) => Ok(()),
            _ => Err(BridgeError::Engine(format!(
                "its answer to `{line}` on the opening board is not a move: {}{} {}",
                if reply.ok { '=' } else { '?' },
                id::GENMOVE,
                reply.text
            ))),
        }
    }

    /// Plays the game. When the engine fails (it died, or stopped answering), the failure is
    /// returned: the bridge leaves the game, as every bridge does. When the game cannot go
    /// on in this protocol (a bag), the bridge resigns for the engine and waits for the
    /// result.
    async fn play(
        &mut self,
        session: &mut Session,
        _options: &BridgeOptions,
    ) -> Result<(), BridgeError> {
        match self.game(session).await {
            Err(e @ BridgeError::Unplayable(_)) => {
                report(&format!("resigned: {e}"));
                if session.result().is_none() && session.answer(Answer::Resign).await.is_ok() {
                    let _ = tokio::time::timeout(RESULT_TIMEOUT, async {
                        while !matches!(session.next().await, Ok(Event::Over { .. }) | Err(_)) {}
                    })
                    .await;
                }
                Err(e)
            }
            other => other,
        }
    }

    async fn quit(mut self) {
        let line = format!("{} quit", id::QUIT);
        if self.engine.send(&line).await.is_ok() && !self.thinking {
            let _ = self
                .engine
                .expect(&line, Some(QUIT_TIMEOUT), |l| reply_to(id::QUIT, l))
                .await;
        }
        self.engine.finish(QUIT_TIMEOUT).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_map_transposes_the_board() {
        assert_eq!(square_name(0), "a8");
        assert_eq!(square_name(7), "a1");
        assert_eq!(square_name(8), "b8");
        assert_eq!(square_name(24), "d8");
        assert_eq!(square_name(31), "d1");
        assert_eq!(square_name(32), "?");
        for cell in 0..32 {
            assert_eq!(parse_square(&square_name(cell)), Some(cell));
        }
        // Neighbours in an anqi row are neighbours on a TCG file.
        assert_eq!(parse_square("a7"), Some(1));
        assert_eq!(parse_square("b8"), Some(8));
    }

    #[test]
    fn squares_off_the_board_parse_to_a_cell_off_the_board() {
        for s in ["e1", "z5", "a9", "a0", "d10", "a99"] {
            assert_eq!(parse_square(s), Some(OFF_BOARD), "{s}");
        }
        for s in ["", "a", "1a", "A1", "a-1", "a123", "a1b", "ä1", "a 1"] {
            assert_eq!(parse_square(s), None, "{s:?}");
        }
    }

    #[test]
    fn genmove_answers() {
        assert_eq!(parse_move("c8 c8"), Some(Answer::Reveal(16)));
        assert_eq!(parse_move("b2 b1"), Some(Answer::Move(14, 15)));
        assert_eq!(parse_move("a1 e1"), Some(Answer::Move(7, OFF_BOARD)));
        // Off the board both: a move, forwarded for the referee to refuse.
        assert_eq!(
            parse_move("e1 e2"),
            Some(Answer::Move(OFF_BOARD, OFF_BOARD))
        );
        for bad in ["", "a1", "a1 a2 a3", "a1-a2", "resign", "a1 xx"] {
            assert_eq!(parse_move(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn replies_are_told_from_noise() {
        let ok = |t: &str| Reply {
            ok: true,
            text: t.into(),
        };
        assert_eq!(reply_to(12, "=12 a1 a1"), Some(ok("a1 a1")));
        assert_eq!(reply_to(7, "=7"), Some(ok("")));
        assert_eq!(reply_to(7, "=7 "), Some(ok("")));
        assert_eq!(
            reply_to(12, "?12 no move"),
            Some(Reply {
                ok: false,
                text: "no move".into()
            })
        );
        for noise in [
            "=1",
            "=120 a1",
            "= 12 a1 a1",
            " =12 a1 a1",
            "move:a1-a1",
            "",
            "=12x",
        ] {
            assert_eq!(reply_to(12, noise), None, "{noise:?}");
        }
    }

    #[test]
    fn pieces_and_time() {
        assert_eq!(piece_letter('B'), 'M');
        assert_eq!(piece_letter('b'), 'm');
        assert_eq!(piece_letter('k'), 'k');
        assert_eq!(budget(900_000), 898_000);
        assert_eq!(budget(5_000), 4_500);
        assert_eq!(budget(0), 0);
        assert_eq!(budget(u64::MAX), i32::MAX as u64);
    }
}
