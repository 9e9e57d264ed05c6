//! The anqi side of a bridge: one client connection ([`anqi_client::Connection`]), with every
//! extension asked for, fed to the client library's [`Tracker`], turned into the events a
//! translator needs; the public state they describe (board, colours, the face-down pieces,
//! clocks, the no-progress count, every ply so far) is the tracker's, read through the
//! accessors below.
//!
//! Nothing here is guessed: the last ply and the piece it revealed, the clocks and the count
//! come from the referee's extension clauses, and the rules from its `(variant ...)` clause.

use super::error::BridgeError;
use anqi_client::tracker::{ExtRequest, Tracker};
use anqi_client::{ClientError, Connection, History};
use anqi_core::rules::{Action, Board, Colour, Kind, Piece, Start, Variant};
use anqi_core::wire::{ClientClause, ClientMessage, ErrorCode, Extension, Extensions, LastPly};
use anqi_core::wire::{ServerClause, ServerMessage};
use std::collections::VecDeque;
use std::time::Duration;

/// The longest comment the bridge sends (an engine's `info` line): the server keeps at most
/// its `[records] comment_bytes` (512 by default), and a message must fit its frame limit
/// (16 KiB by default).
const MAX_COMMENT_BYTES: usize = 2048;

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
    conn: Connection,
    /// What this player knows of the game: every message of the server goes through it.
    tracker: Tracker,
    /// The rules, from the `variant` extension.
    variant: Variant,
    events: VecDeque<Event>,
    /// The board before the first prompt: none.
    no_board: Board,
    /// The history before the first prompt: nothing seen yet.
    no_history: History,
}

/// A failure of the connection, or a message that makes no sense, as the bridge reports it.
fn server_error(e: ClientError) -> BridgeError {
    BridgeError::Server(match e {
        ClientError::Protocol(text) => text,
        e => e.to_string(),
    })
}

impl Session {
    /// Connects to `addr`, introduces itself as `name` with `token` as its SEED, asks for the
    /// extensions that describe the game (and `comment` when the engine's protocol has
    /// something to say), and waits to be seated.
    ///
    /// # Errors
    /// The server cannot be reached, refuses, or sends a setup without the extensions.
    pub async fn join(
        addr: &str,
        name: &str,
        token: &str,
        comments: bool,
    ) -> Result<Session, BridgeError> {
        let mut conn = Connection::connect(addr).await.map_err(server_error)?;
        // One message, `((init NAME TOKEN)(ext last clock progress variant))`: a server without
        // extensions cannot be bridged anyway.
        let ext = if comments {
            Extensions::TRACKING.with(Extension::Comment)
        } else {
            Extensions::TRACKING
        };
        let seated = anqi_client::join_with(&mut conn, name, token, ext, ExtRequest::WithInit)
            .await
            .map_err(|e| match e {
                ClientError::Closed { .. } => BridgeError::Server(
                    "the server closed the connection before seating this engine".into(),
                ),
                e => server_error(e),
            })?;
        for (code, text) in &seated.errors {
            tracing::warn!("server: {} {text}", code.name());
        }
        let mut tracker = Tracker::new(None);
        tracker
            .feed(&seated.setup)
            .map_err(|e| BridgeError::Server(format!("the server's setup: {e}")))?;
        let variant = match (tracker.setup(), tracker.variant()) {
            (Some(setup), Some(v)) if setup.description.is_some() => Variant::clone(v),
            _ => {
                return Err(BridgeError::Server(
                    "the server does not offer the variant extension".into(),
                ))
            }
        };
        Ok(Session {
            conn,
            tracker,
            variant,
            events: VecDeque::new(),
            no_board: Board::hidden(0),
            no_history: History::default(),
        })
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
            // The only await: a message is either not read yet, or read and applied at once.
            let msg = self
                .conn
                .recv()
                .await
                .map_err(server_error)?
                .ok_or_else(|| {
                    BridgeError::Server("the server closed the connection before the result".into())
                })?;
            self.apply(&msg)?;
        }
    }

    /// Feeds one server message to the tracker and queues its events, in the order of its
    /// clauses.
    fn apply(&mut self, msg: &ServerMessage) -> Result<(), BridgeError> {
        let plies_before = self.seen().plies().len();
        self.tracker.feed(msg).map_err(server_error)?;
        let me = self.me();
        for clause in &msg.0 {
            match clause {
                // A re-prompt after an error, and the result, repeat the last ply: the tracker
                // takes a ply in once, and only a new one is an event.
                ServerClause::Last(..) => {
                    let plies = self.seen().plies();
                    if let Some(&(player, ply)) =
                        plies.last().filter(|_| plies.len() > plies_before)
                    {
                        self.events.push_back(Event::Played { player, ply });
                    }
                }
                ServerClause::Turn(_, id) if *id == me => self.events.push_back(Event::MyTurn),
                ServerClause::Error(code, text) => self.events.push_back(Event::Refused {
                    code: *code,
                    text: text.clone(),
                }),
                ServerClause::Win(p, t) => self.events.push_back(Event::Over { win: (*p, *t) }),
                _ => {}
            }
        }
        Ok(())
    }

    /// Forwards the engine's answer, as it is: the referee rules on it.
    ///
    /// # Errors
    /// The connection fails.
    pub async fn answer(&mut self, answer: Answer) -> Result<(), BridgeError> {
        self.answer_with(answer, None).await
    }

    /// Forwards the engine's answer with what it said of it (its last `info` line), as a
    /// `(comment ...)` when the server granted the `comment` extension (the server cuts it to
    /// its own bound).
    ///
    /// # Errors
    /// The connection fails.
    pub async fn answer_with(
        &mut self,
        answer: Answer,
        comment: Option<String>,
    ) -> Result<(), BridgeError> {
        let clause = match answer {
            Answer::Reveal(cell) => {
                self.tracker.sent(Action::Reveal(cell));
                ClientClause::Rev(cell)
            }
            Answer::Move(from, to) => {
                self.tracker.sent(Action::Move { from, to });
                ClientClause::Mov(from, to)
            }
            Answer::Resign => {
                self.tracker.gave_up();
                ClientClause::Resign
            }
        };
        // With the board of the prompt answered, even for a resignation (the referee reads it
        // as a check that the engine's view is the game's).
        let board = self
            .tracker
            .observation()
            .map_or_else(String::new, |o| o.wire_board.clone());
        let mut msg = ClientMessage(vec![ClientClause::Board(board), clause]);
        let granted = self
            .tracker
            .setup()
            .is_some_and(|s| s.extensions.contains(Extension::Comment));
        if let Some(mut c) = comment.filter(|c| granted && !c.is_empty()) {
            // The server cuts it to its own bound; a line longer than this would only put the
            // message past the server's frame limit, and the move with it.
            if c.len() > MAX_COMMENT_BYTES {
                let mut end = MAX_COMMENT_BYTES;
                while !c.is_char_boundary(end) {
                    end -= 1;
                }
                c.truncate(end);
            }
            msg.0.push(ClientClause::Comment(c));
        }
        self.conn.send(&msg).await.map_err(server_error)
    }

    /// This player's id.
    pub fn me(&self) -> usize {
        self.tracker.setup().map_or(0, |s| s.id)
    }

    /// The rules, from the `variant` extension.
    pub fn variant(&self) -> &Variant {
        &self.variant
    }

    /// This player's time control: game, increment, move limit, period moves (ms; 0 = none).
    pub fn time_control(&self) -> [u64; 4] {
        self.tracker
            .setup()
            .and_then(|s| s.time_control)
            .unwrap_or_default()
    }

    /// What the tracker has seen of the game (nothing before the first prompt).
    fn seen(&self) -> &History {
        self.tracker.history().unwrap_or(&self.no_history)
    }

    /// The `(win PLAYER TEAM)` values, once the game is over.
    pub fn result(&self) -> Option<(usize, usize)> {
        self.tracker.result().map(|r| r.win)
    }

    /// The board at the last prompt (anqi cells: row by row, row 0 first); no cells before the
    /// first.
    pub fn board(&self) -> &Board {
        self.tracker
            .observation()
            .map_or(&self.no_board, |o| &o.board)
    }

    /// The board before the first ply (the first prompt's), once a prompt has arrived: with
    /// face-up pieces at the start, what the game began from.
    pub fn start_board(&self) -> Option<&Board> {
        self.seen().start_board()
    }

    /// The colour `player` plays, once the first reveal has decided it.
    pub fn colour_of(&self, player: usize) -> Option<Colour> {
        let side = self
            .variant
            .sides
            .iter()
            .position(|s| s.contains(&player))?;
        self.tracker.side_colours().get(side).copied().flatten()
    }

    /// The player to move (after the last prompt; the first of the turn order before).
    pub fn to_move(&self) -> usize {
        self.tracker.observation().map_or_else(
            || self.variant.order.first().copied().unwrap_or(1),
            |o| o.to_move,
        )
    }

    /// Face-down pieces of `colour` and `kind` not revealed yet.
    pub fn hidden(&self, colour: Colour, kind: Kind) -> u32 {
        let piece = Piece::new(colour, kind);
        match self.tracker.history() {
            Some(h) => h.unseen(piece),
            // Before the first prompt: every piece of the set.
            None => self.variant.pieces.iter().filter(|&&p| p == piece).count() as u32,
        }
    }

    /// Each player's game time left when the last prompt was sent, by player id (the game
    /// time of the time control before the first prompt, 0 without a game clock: see
    /// [`Session::time_control`]).
    pub fn clock_ms(&self, player: usize) -> u64 {
        match self.seen().clocks() {
            Some(clocks) => player
                .checked_sub(1)
                .and_then(|i| clocks.get(i))
                .copied()
                .unwrap_or(0),
            None => self.time_control()[0],
        }
    }

    /// Whether this player has a game clock.
    pub fn has_game_clock(&self) -> bool {
        self.time_control()[0] > 0
    }

    /// The per-move limit, if any.
    pub fn move_limit(&self) -> Option<Duration> {
        let limit = self.time_control()[2];
        (limit > 0).then(|| Duration::from_millis(limit))
    }

    /// Plies since the last reveal or capture.
    pub fn progress(&self) -> u32 {
        self.seen().progress()
    }

    /// The no-progress count as an engine that believes `assumed` should see it: the same
    /// number of plies left before the draw (`assumed` limit - plies left in the event), so
    /// that an engine aiming for or avoiding the draw does so at the right moment. Without a
    /// belief, or when either side has no such rule, the count itself.
    pub fn progress_as_believed(&self, assumed: Option<&Variant>) -> u32 {
        believed_progress(
            self.progress(),
            self.variant.draw.no_progress,
            assumed.and_then(|a| a.draw.no_progress),
        )
    }

    /// Every ply so far, in order, with its mover.
    pub fn history(&self) -> &[(usize, LastPly)] {
        self.seen().plies()
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
    /// Turn up the piece on this cell: `(rev CELL)`.
    Reveal(usize),
    /// Move the piece of the first cell to the second: `(mov FROM TO)`.
    Move(usize, usize),
    /// Give the game up: `(resign)`.
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
