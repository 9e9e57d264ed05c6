//! The anqi side of a bridge: one client connection, with every extension asked for, turned
//! into the events a translator needs and the public state they describe (board, colours,
//! the face-down pieces, clocks, the no-progress count, every ply so far).
//!
//! Nothing here is guessed: the last ply and the piece it revealed, the clocks and the count
//! come from the referee's extension clauses, and the rules from its `(variant ...)` clause.

use super::BridgeError;
use anqi_core::rules::{Board, Colour, ColourRule, Kind, Piece, Square, Start, Variant};
use anqi_core::wire::{
    ClientClause, ClientMessage, ErrorCode, Extensions, FrameLimits, FrameReader, LastPly,
    ServerClause, ServerMessage,
};
use std::collections::VecDeque;
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

/// What happened in the game, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A ply was played, this engine's own included; the state already shows it.
    Played { player: usize, ply: LastPly },
    /// This player must act now.
    MyTurn,
    /// The referee refused the last answer (a re-prompt follows if the game goes on).
    Refused { code: ErrorCode, text: String },
    /// The game is over: the `(win PLAYER TEAM)` values.
    Over { win: (usize, usize) },
}

/// One game on an anqi server, seen by one player.
pub struct Session {
    /// The socket, read through the frame reader and written to directly.
    reader: FrameReader<TcpStream>,
    events: VecDeque<Event>,
    /// This player's id.
    pub me: usize,
    /// The rules, from the `variant` extension.
    pub variant: Variant,
    /// This player's time control: game, increment, move limit, period moves (ms; 0 = none).
    pub time_control: [u64; 4],
    board: Board,
    board_text: String,
    /// The board of the first prompt: the position before the first ply.
    start_board: Option<Board>,
    /// Colour of each side (0-based), once known.
    side_colour: [Option<Colour>; 2],
    /// Face-down pieces not yet revealed, per colour and kind.
    hidden: [[u32; 7]; 2],
    clocks: Vec<u64>,
    progress: u32,
    history: Vec<(usize, LastPly)>,
    to_move: usize,
    result: Option<(usize, usize)>,
}

impl Session {
    /// Connects to `addr`, introduces itself as `name` with `token` as its SEED, asks for every
    /// extension, and waits to be seated.
    ///
    /// # Errors
    /// The server cannot be reached, refuses, or sends a setup without the extensions.
    pub async fn join(addr: &str, name: &str, token: &str) -> Result<Session, BridgeError> {
        let server = |what: String| BridgeError::Server(what);
        let stream = TcpStream::connect(addr)
            .await
            .map_err(|e| server(format!("cannot connect to {addr}: {e}")))?;
        stream.set_nodelay(true).ok();
        let mut session = Session {
            reader: FrameReader::new(
                stream,
                FrameLimits {
                    max_bytes: 1 << 24,
                    max_depth: 16,
                },
            ),
            events: VecDeque::new(),
            me: 0,
            variant: Variant::shipped("traditional").expect("shipped"),
            time_control: [0; 4],
            board: Board::hidden(0),
            board_text: String::new(),
            start_board: None,
            side_colour: [None; 2],
            hidden: [[0; 7]; 2],
            clocks: Vec::new(),
            progress: 0,
            history: Vec::new(),
            to_move: 1,
            result: None,
        };
        session
            .send(vec![
                ClientClause::Init {
                    name: name.to_string(),
                    seed: token.to_string(),
                },
                ClientClause::Ext(Extensions::all().names()),
            ])
            .await?;
        let setup = loop {
            let msg = session.recv().await?.ok_or_else(|| {
                server("the server closed the connection before seating this engine".into())
            })?;
            if let Some(ServerClause::Error(code, text)) =
                msg.0.iter().find(|c| matches!(c, ServerClause::Error(..)))
            {
                tracing::warn!("server: {} {text}", code.name());
            }
            if msg.0.iter().any(|c| matches!(c, ServerClause::Id(_))) {
                break msg;
            }
        };
        session.apply_setup(&setup)?;
        Ok(session)
    }

    fn apply_setup(&mut self, setup: &ServerMessage) -> Result<(), BridgeError> {
        let mut variant = None;
        for clause in &setup.0 {
            match clause {
                ServerClause::Id(id) => self.me = *id,
                ServerClause::TimeControl(tc) => self.time_control = *tc,
                ServerClause::Variant(text) => {
                    variant = Some(Variant::parse(text).map_err(|e| {
                        BridgeError::Server(format!("the server's (variant ...) is invalid: {e}"))
                    })?)
                }
                _ => {}
            }
        }
        self.variant = variant.ok_or_else(|| {
            BridgeError::Server("the server does not offer the variant extension".into())
        })?;
        let v = &self.variant;
        for p in &v.pieces {
            self.hidden[p.colour.index()][p.kind.index()] += 1;
        }
        if v.colours == ColourRule::Fixed {
            self.side_colour = [Some(Colour::Red), Some(Colour::Black)];
        }
        self.clocks = vec![self.time_control[0]; v.players];
        Ok(())
    }

    /// The next event; `Over` is the last.
    ///
    /// Cancel-safe: dropped while waiting, nothing is lost (a bridge waits for the engine and
    /// the server at once).
    ///
    /// # Errors
    /// The connection fails, or closes before the result.
    pub async fn next(&mut self) -> Result<Event, BridgeError> {
        loop {
            if let Some(e) = self.events.pop_front() {
                return Ok(e);
            }
            let msg = self.recv().await?.ok_or_else(|| {
                BridgeError::Server("the server closed the connection before the result".into())
            })?;
            self.apply(msg)?;
        }
    }

    /// Folds one server message into the state and queues its events.
    fn apply(&mut self, msg: ServerMessage) -> Result<(), BridgeError> {
        for clause in msg.0 {
            match clause {
                ServerClause::Board(b) => {
                    self.board = Board::parse(&b)
                        .map_err(|e| BridgeError::Server(format!("bad board {b:?}: {e}")))?;
                    if self.board_text.is_empty() {
                        // The first prompt comes before any ply: pieces that start face-up
                        // (open, reveal-4, fixed boards) were never face-down.
                        for sq in self.board.squares() {
                            if let Square::Up(p) = sq {
                                let n = &mut self.hidden[p.colour.index()][p.kind.index()];
                                *n = n.saturating_sub(1);
                            }
                        }
                    }
                    self.board_text = b;
                    // Every player gets the first prompt before any ply is played.
                    if self.start_board.is_none() {
                        self.start_board = Some(self.board.clone());
                    }
                }
                // A re-prompt after an error, and the result, repeat the last ply; no ply can
                // follow an identical one by the same player (a cell or a piece differs).
                ServerClause::Last(player, ply) if self.history.last() != Some(&(player, ply)) => {
                    self.record(player, ply)
                }
                ServerClause::Clock(ms) => self.clocks = ms,
                ServerClause::Progress(n) => self.progress = n,
                ServerClause::Turn(_, id) => {
                    self.to_move = id;
                    if id == self.me {
                        self.events.push_back(Event::MyTurn);
                    }
                }
                ServerClause::Info(_, id) => self.to_move = id,
                ServerClause::Error(code, text) => {
                    self.events.push_back(Event::Refused { code, text })
                }
                ServerClause::Win(p, t) => {
                    self.result = Some((p, t));
                    self.events.push_back(Event::Over { win: (p, t) })
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Takes note of a ply (once: a re-prompt after an error repeats the same `(last ...)`).
    fn record(&mut self, player: usize, ply: LastPly) {
        if let LastPly::Rev(_, letter) = ply {
            if let Some(piece) = Piece::from_letter(letter) {
                let n = &mut self.hidden[piece.colour.index()][piece.kind.index()];
                *n = n.saturating_sub(1);
                let side = self.variant.side_of(player);
                if self.side_colour[side].is_none() {
                    self.side_colour[side] = Some(piece.colour);
                    self.side_colour[1 - side] = Some(piece.colour.other());
                }
            }
        }
        self.history.push((player, ply));
        self.events.push_back(Event::Played { player, ply });
    }

    async fn recv(&mut self) -> Result<Option<ServerMessage>, BridgeError> {
        let frame = self
            .reader
            .read_frame()
            .await
            .map_err(|e| BridgeError::Server(format!("connection: {e}")))?;
        let Some(frame) = frame else {
            return Ok(None);
        };
        let frame =
            frame.map_err(|e| BridgeError::Server(format!("bad frame from the server: {e}")))?;
        ServerMessage::parse(&frame)
            .map(Some)
            .map_err(|e| BridgeError::Server(format!("bad message from the server: {}", e.text)))
    }

    async fn send(&mut self, clauses: Vec<ClientClause>) -> Result<(), BridgeError> {
        let mut line = ClientMessage(clauses).to_string();
        line.push('\n');
        self.reader
            .get_mut()
            .write_all(line.as_bytes())
            .await
            .map_err(|e| BridgeError::Server(format!("connection: {e}")))
    }

    /// Forwards the engine's answer, as it is: the referee rules on it.
    ///
    /// # Errors
    /// The connection fails.
    pub async fn answer(&mut self, answer: Answer) -> Result<(), BridgeError> {
        let clause = match answer {
            Answer::Reveal(cell) => ClientClause::Rev(cell),
            Answer::Move(from, to) => ClientClause::Mov(from, to),
            Answer::Resign => ClientClause::Resign,
        };
        let board = ClientClause::Board(self.board_text.clone());
        self.send(vec![board, clause]).await
    }

    /// The `(win PLAYER TEAM)` values, once the game is over.
    pub fn result(&self) -> Option<(usize, usize)> {
        self.result
    }

    /// The board now (anqi cells: row by row, row 0 first).
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The board before the first ply (the first prompt's), once a prompt has arrived: with
    /// face-up pieces at the start, what the game began from.
    pub fn start_board(&self) -> Option<&Board> {
        self.start_board.as_ref()
    }

    /// The colour `player` plays, once the first reveal has decided it.
    pub fn colour_of(&self, player: usize) -> Option<Colour> {
        self.side_colour[self.variant.side_of(player)]
    }

    /// The player to move (after the last prompt).
    pub fn to_move(&self) -> usize {
        self.to_move
    }

    /// Face-down pieces of `colour` and `kind` not revealed yet.
    pub fn hidden(&self, colour: Colour, kind: Kind) -> u32 {
        self.hidden[colour.index()][kind.index()]
    }

    /// Each player's game time left when the last prompt was sent, by player id - 1 (0
    /// without a game clock: see [`Session::time_control`]).
    pub fn clock_ms(&self, player: usize) -> u64 {
        self.clocks.get(player - 1).copied().unwrap_or(0)
    }

    /// Whether this player has a game clock.
    pub fn has_game_clock(&self) -> bool {
        self.time_control[0] > 0
    }

    /// The per-move limit, if any.
    pub fn move_limit(&self) -> Option<Duration> {
        (self.time_control[2] > 0).then(|| Duration::from_millis(self.time_control[2]))
    }

    /// Plies since the last reveal or capture.
    pub fn progress(&self) -> u32 {
        self.progress
    }

    /// The no-progress count as an engine that believes `assumed` should see it: the same
    /// number of plies left before the draw (`assumed` limit - plies left in the event), so
    /// that an engine aiming for or avoiding the draw does so at the right moment. Without a
    /// belief, or when either side has no such rule, the count itself.
    pub fn progress_as_believed(&self, assumed: Option<&Variant>) -> u32 {
        believed_progress(
            self.progress,
            self.variant.draw.no_progress,
            assumed.and_then(|a| a.draw.no_progress),
        )
    }

    /// Every ply so far, in order, with its mover.
    pub fn history(&self) -> &[(usize, LastPly)] {
        &self.history
    }

    /// Whether the start is the usual face-down one (nothing was revealed before play).
    pub fn starts_face_down(&self) -> bool {
        self.variant.start == Start::FaceDown
    }
}

/// The no-progress count `progress` of an event drawing at `event` plies, as an engine that
/// believes the draw comes at `believed` should see it (see
/// [`Session::progress_as_believed`]).
fn believed_progress(progress: u32, event: Option<u32>, believed: Option<u32>) -> u32 {
    match (event, believed) {
        (Some(event), Some(believed)) => believed.saturating_sub(event.saturating_sub(progress)),
        _ => progress,
    }
}

/// What an engine answered, in anqi's terms. Cells may lie outside the board: whatever the
/// engine said is forwarded, and the referee rules on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    Reveal(usize),
    Move(usize, usize),
    Resign,
}

#[cfg(test)]
mod tests {
    use super::believed_progress;

    #[test]
    fn an_engine_sees_as_many_plies_left_before_its_draw_as_the_event_leaves() {
        // MistyBanqi (40) in a traditional event (180): nothing until 140, then in step.
        assert_eq!(believed_progress(0, Some(180), Some(40)), 0);
        assert_eq!(believed_progress(140, Some(180), Some(40)), 0);
        assert_eq!(believed_progress(141, Some(180), Some(40)), 1);
        assert_eq!(believed_progress(179, Some(180), Some(40)), 39);
        // A longer belief than the event's: the engine sees more plies gone.
        assert_eq!(believed_progress(10, Some(40), Some(60)), 30);
        // No belief, or no rule on either side: the count itself.
        assert_eq!(believed_progress(17, Some(180), None), 17);
        assert_eq!(believed_progress(17, None, Some(40)), 17);
    }
}
