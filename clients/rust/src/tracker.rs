//! What a client knows of its game, kept without I/O: a [`Tracker`] is fed the server's messages
//! one at a time and says when the client must act ([`Event::Prompt`]) and when the game is over
//! ([`Event::Over`]).
//!
//! It is the state machine behind [`crate::play_seated`], kept apart from the socket so that
//! any transport can drive it: the async [`crate::Connection`], a blocking socket, or the
//! Python package's `ClientSession` (clients/python). The loop is always the same:
//!
//! ```
//! use anqi_client::tracker::{parse_server_line, Event, Tracker};
//! use anqi_client::{Bot, RandomBot};
//! # fn main() -> anqi_client::Result<()> {
//! let mut tracker = Tracker::new(None);
//! let mut bot = RandomBot::new(1);
//! let mut sent = Vec::new();
//! for line in [
//!     "((id 1)(players 2)(game traditional)(size 8)(pieces KPPPkppp)(moves (0 1)(1 2)(2 3)(4 5)(5 6)(6 7)(0 4)(1 5)(2 6)(3 7)))",
//!     "((board XXXXXXXX)(turn 0 1))",
//! ] {
//!     let Some(msg) = parse_server_line(line)? else { continue };
//!     match tracker.feed(&msg)? {
//!         Event::Prompt => {
//!             let action = bot.choose(&tracker.view().expect("a prompt awaits an answer"));
//!             sent.push(tracker.reply(action).to_string()); // send it, one line
//!         }
//!         Event::Over(result) => println!("{result:?}"),
//!         Event::Nothing => {}
//!     }
//! }
//! assert!(sent[0].starts_with("((board XXXXXXXX)(rev "));
//! # Ok(()) }
//! ```
//!
//! The tracker learns everything from the messages of the base protocol (and the `variant`
//! extension's description when the server sends it): its own colour from the first reveal or
//! bag draw (PROTOCOL.md, Your colour), the pieces drawn from the `(hand P)` clauses, and
//! whether a chain capture goes on from its own last action, so that the legal actions it
//! offers are exactly those the server accepts.

use crate::{ClientError, GameResult, Result, Setup, View};
use anqi_core::rules::{
    Action, ActionCounts, Board, Cell, Colour, ColourRule, Control, Objective, Piece, PublicState,
    Square, Start, Variant,
};
use anqi_core::wire::{ClientClause, ClientMessage, ErrorCode, FrameLimits, FrameScanner};
use anqi_core::wire::{ServerClause, ServerMessage};
use std::sync::Arc;

/// The limits a client reads the server's messages with: far above anything the server sends
/// (its longest message, the setup of the 8x16 team board, is 8,132 bytes), so only a broken
/// or hostile peer meets them, and the nesting limit keeps the parser's recursion shallow.
pub const SERVER_FRAME_LIMITS: FrameLimits = FrameLimits {
    max_bytes: 1 << 24,
    max_depth: 16,
};

/// Reads one line the server sent (one message: the server writes one per line). `None` for a
/// line with nothing but whitespace or a comment.
///
/// # Errors
/// A line over [`SERVER_FRAME_LIMITS`], more than one message, an unfinished one, or one that
/// does not parse.
pub fn parse_server_line(line: &str) -> Result<Option<ServerMessage>> {
    let bad = |why: String| ClientError::Protocol(format!("bad message from server: {why}"));
    // Refused before the scanner copies it: the limit plus room for the line's own whitespace.
    if line.len() > SERVER_FRAME_LIMITS.max_bytes + 64 {
        return Err(bad(format!(
            "a line of {} bytes, more than the {} a message may have",
            line.len(),
            SERVER_FRAME_LIMITS.max_bytes
        )));
    }
    let mut scanner = FrameScanner::new(SERVER_FRAME_LIMITS);
    scanner.push(line.as_bytes());
    // The end of the line ends whatever it held (a run of garbage is reported only when it ends).
    scanner.push(b"\n");
    let frame = match scanner.next_frame() {
        None if scanner.mid_frame() => return Err(bad("an unfinished message".into())),
        None => return Ok(None),
        Some(frame) => frame.map_err(|e| bad(e.to_string()))?,
    };
    if scanner.next_frame().is_some() || scanner.mid_frame() {
        return Err(bad("more than one message on one line".into()));
    }
    ServerMessage::parse(&frame)
        .map(Some)
        .map_err(|e| bad(e.text))
}

/// Reads a board string of the wire for `variant`: one square per cell of its board, and in a
/// bag game `X` (a cell that never held a piece) is empty.
///
/// # Errors
/// A character that is not a square, or the wrong number of cells.
pub fn read_board(variant: &Variant, text: &str) -> Result<Board> {
    let mut board =
        Board::parse(text).map_err(|e| ClientError::Protocol(format!("bad board: {e}")))?;
    if board.len() != variant.topology.size() {
        return Err(ClientError::Protocol(format!(
            "a board of {} cells on a board of {}",
            board.len(),
            variant.topology.size()
        )));
    }
    if variant.start == Start::Bag {
        for c in 0..board.len() {
            if board.get(c) == Square::Hidden {
                board.set(c, Square::Empty);
            }
        }
    }
    Ok(board)
}

/// The messages a client sends first: a request for the `variant` extension, in a message of
/// its own so that a server without extensions refuses only that (PROTOCOL.md, Extensions), then
/// `(init NAME SEED)`. `seed` is the client's seed contribution, or a tournament's token.
pub fn hello(name: &str, seed: &str) -> [ClientMessage; 2] {
    [
        ClientMessage(vec![ClientClause::Ext(vec!["variant".into()])]),
        ClientMessage(vec![ClientClause::Init {
            name: name.to_string(),
            seed: seed.to_string(),
        }]),
    ]
}

/// What a message means for the client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// Nothing to do: wait for the next message.
    Nothing,
    /// This client must act now: [`Tracker::view`] is what its bot sees, and
    /// [`Tracker::reply`] the message to send.
    Prompt,
    /// The game is over (the server closes the connection next).
    Over(GameResult),
}

/// What one player knows of the game at one prompt: the public position, its own seat, and its
/// legal actions when it is to move. It owns its data, so it can be kept, sent to another
/// thread, or handed to a bot that runs later.
#[derive(Clone, Debug)]
pub struct Observation {
    /// The setup of this player's seat (its id is `setup.id`).
    pub setup: Arc<Setup>,
    /// The rules played by.
    pub variant: Arc<Variant>,
    /// The board as the wire writes it (what a client echoes in `(board ...)`).
    pub wire_board: String,
    /// The board: in a bag game a cell that never held a piece (`X` on the wire) is empty.
    pub board: Board,
    /// The player to move.
    pub to_move: usize,
    /// The paper's TURN counter: completed rounds of the turn order.
    pub turn: u32,
    /// The piece the player to move has drawn and must put (everyone sees it).
    pub hand: Option<Piece>,
    /// During a chain capture, the cell of the piece that must capture again. A client knows
    /// this only of its own chains, so it is `None` at other players' prompts.
    pub chain: Option<Cell>,
    /// The colour of each side, by side index, as far as this player knows it.
    pub side_colours: Vec<Option<Colour>>,
    /// Whether a `(bag)` draw is possible.
    pub bag_has_pieces: bool,
    /// This player's legal actions: empty unless it is to move.
    pub legal: Vec<Action>,
}

impl Observation {
    /// This player's id.
    pub fn player(&self) -> usize {
        self.setup.id
    }

    /// Whether this player must act now.
    pub fn is_my_turn(&self) -> bool {
        self.to_move == self.setup.id
    }

    /// The side (0-based) of a player, `None` for an id that is not a seat of the game.
    pub fn side_of(&self, player: usize) -> Option<usize> {
        self.variant.sides.iter().position(|s| s.contains(&player))
    }

    /// The colour this player's side plays, once known.
    pub fn colour(&self) -> Option<Colour> {
        self.side_of(self.player())
            .and_then(|s| self.side_colours.get(s).copied().flatten())
    }

    /// What `player` may move: both colours in single-player and cooperative games, else its
    /// side's colour once decided, and nothing before.
    pub fn control_of(&self, player: usize) -> Control {
        match self.variant.objective {
            Objective::Clear { .. } => Control::Both,
            Objective::Capture => self
                .side_of(player)
                .and_then(|s| self.side_colours.get(s).copied().flatten())
                .into(),
        }
    }

    /// The legal-action counts `player` has or would have here, as `anqi_core::rules::Game::counts_of`
    /// counts them: the player to move with its hand and chain, anyone else with its own
    /// control, no hand and no chain. `None` for an id that is not a seat of the game.
    pub fn counts_of(&self, player: usize) -> Option<ActionCounts> {
        self.side_of(player)?;
        let mover = player == self.to_move;
        let state = PublicState {
            variant: &self.variant,
            board: &self.board,
            control: self.control_of(player),
            hand: if mover { self.hand } else { None },
            chain: if mover { self.chain } else { None },
            bag_has_pieces: self.bag_has_pieces,
        };
        let mut counts = ActionCounts::default();
        state.for_each_legal(|_, kind| counts.add(kind));
        Some(counts)
    }

    /// This player's own counts.
    pub fn counts(&self) -> ActionCounts {
        self.counts_of(self.player()).unwrap_or_default()
    }

    /// What a [`crate::Bot`] sees. Its `legal` is empty unless this player is to move, and
    /// bots are asked only then.
    pub fn view(&self) -> View<'_> {
        View {
            setup: &self.setup,
            variant: &self.variant,
            board: &self.board,
            control: self.control_of(self.player()),
            hand: self.hand,
            turn: self.turn,
            legal: &self.legal,
        }
    }

    /// The observation of `player` in a position described by its public facts: the board as
    /// the wire writes it, the player to move, the colour of each side (by side index; `None`
    /// while undecided), the mover's drawn piece and chain, and whether a bag draw is possible.
    /// The legal actions are computed when `player` is to move.
    ///
    /// # Errors
    /// What does not fit the variant (the text says what): a player or mover that is not a
    /// seat, a board of the wrong size, a chain outside the board, a wrong number of colours.
    #[allow(clippy::too_many_arguments)]
    pub fn public(
        variant: Arc<Variant>,
        player: usize,
        wire_board: &str,
        to_move: usize,
        turn: u32,
        hand: Option<Piece>,
        chain: Option<Cell>,
        side_colours: Vec<Option<Colour>>,
        bag_has_pieces: bool,
    ) -> std::result::Result<Observation, String> {
        let seats = 1..=variant.players;
        for (what, p) in [("player", player), ("player to move", to_move)] {
            if !seats.contains(&p) {
                return Err(format!(
                    "no {what} {p}: the players of {} are 1 to {}",
                    variant.name, variant.players
                ));
            }
        }
        let board = read_board(&variant, wire_board).map_err(|e| e.to_string())?;
        if let Some(c) = chain.filter(|&c| c >= board.len()) {
            return Err(format!("the chain's cell {c} is not on the board"));
        }
        if side_colours.len() != variant.sides.len() {
            return Err(format!(
                "{} colours for the {} sides of {}",
                side_colours.len(),
                variant.sides.len(),
                variant.name
            ));
        }
        let mut o = Observation {
            setup: Arc::new(Setup::of_seat(&variant, player)),
            variant,
            wire_board: wire_board.to_string(),
            board,
            to_move,
            turn,
            hand,
            chain,
            side_colours,
            bag_has_pieces,
            legal: Vec::new(),
        };
        if player == to_move {
            o.legal = PublicState {
                variant: &o.variant,
                board: &o.board,
                control: o.control_of(player),
                hand,
                chain,
                bag_has_pieces,
            }
            .legal_actions();
        }
        Ok(o)
    }

    /// The observation of `player` in a game of the rules core: what that player would know
    /// at this point had it played the game over the wire (the face-down pieces stay hidden;
    /// the chain of a chain capture is public, since everyone saw the capture). The setup is
    /// the one the server would send, with the variant's public description.
    ///
    /// # Errors
    /// When `player` is not a seat of the game (the text says why).
    pub fn of_game(
        game: &anqi_core::rules::Game,
        player: usize,
    ) -> std::result::Result<Self, String> {
        let variant = game.variant();
        if !(1..=variant.players).contains(&player) {
            return Err(format!(
                "no player {player}: the players of {} are 1 to {}",
                variant.name, variant.players
            ));
        }
        let setup = Setup::of_seat(variant, player);
        let over = game.outcome().is_some();
        let to_move = game.to_move();
        let state = game.public_state();
        Ok(Observation {
            setup: Arc::new(setup),
            variant: variant.clone(),
            wire_board: game.wire_board(),
            board: game.board().clone(),
            to_move,
            turn: game.round(),
            hand: game.hand(),
            chain: state.chain,
            side_colours: (0..variant.sides.len())
                .map(|s| game.colour_of_side(s))
                .collect(),
            bag_has_pieces: state.bag_has_pieces,
            legal: if player == to_move && !over {
                game.legal_actions()
            } else {
                Vec::new()
            },
        })
    }
}

/// What the client keeps once seated.
#[derive(Clone, Debug)]
struct Seat {
    setup: Arc<Setup>,
    variant: Arc<Variant>,
    /// This side's colour, learnt from the first reveal or bag draw of the game.
    colour: Option<Colour>,
    /// What this player knew at the last prompt (its board and mover are what the next prompt
    /// is compared with).
    now: Option<Observation>,
    /// Whether the last prompt is this client's turn, not yet answered.
    awaiting: bool,
    /// Pieces drawn from the bag so far.
    draws: usize,
    /// Whether the last prompt carried `(hand P)` (a re-prompt after an error repeats it).
    last_had_hand: bool,
    /// This client's last action and whether it captured, while no other player has moved
    /// since.
    my_last: Option<(Action, bool)>,
    /// `my_last` before the latest action, restored when the server refuses that action.
    my_last_before: Option<(Action, bool)>,
}

impl Seat {
    fn new(setup: Setup, variant: Arc<Variant>) -> Result<Seat> {
        if !(1..=variant.players).contains(&setup.id) {
            return Err(ClientError::Protocol(format!(
                "the setup seats this client as player {} of {}",
                setup.id, variant.players
            )));
        }
        // With fixed colours, side 1 plays red and side 2 black from the start.
        let colour = (variant.colours == ColourRule::Fixed).then(|| {
            if variant.side_of(setup.id) == 0 {
                Colour::Red
            } else {
                Colour::Black
            }
        });
        Ok(Seat {
            setup: Arc::new(setup),
            variant,
            colour,
            now: None,
            awaiting: false,
            draws: 0,
            last_had_hand: false,
            my_last: None,
            my_last_before: None,
        })
    }

    fn learn_colour(&mut self, piece: Piece, mover: usize) {
        if self.colour.is_none() {
            self.colour = Some(if self.setup.is_ally(mover) {
                piece.colour
            } else {
                piece.colour.other()
            });
        }
    }

    fn control(&self) -> Control {
        match self.variant.objective {
            Objective::Clear { .. } => Control::Both,
            Objective::Capture => self.colour.into(),
        }
    }

    /// Every side's colour: this side's, and the other one for everyone else (there are two
    /// colours); none in games where every player moves both.
    fn side_colours(&self) -> Vec<Option<Colour>> {
        let mine = self.variant.side_of(self.setup.id);
        (0..self.variant.sides.len())
            .map(|s| match self.variant.objective {
                Objective::Clear { .. } => None,
                Objective::Capture if s == mine => self.colour,
                Objective::Capture => self.colour.map(Colour::other),
            })
            .collect()
    }

    /// Takes in a prompt: `(board B)`, maybe `(hand P)`, and `(turn T ID)` (`my_turn`) or
    /// `(info T ID)`.
    fn prompt(
        &mut self,
        wire_board: &str,
        hand: Option<Piece>,
        round: u32,
        mover: usize,
        my_turn: bool,
    ) -> Result<Event> {
        let board = read_board(&self.variant, wire_board)?;
        if let Some(prev) = &self.now {
            if let Some(p) = first_reveal(&prev.board, &board) {
                let prev_mover = prev.to_move;
                self.learn_colour(p, prev_mover);
            }
        }
        if let Some(p) = hand {
            // A draw shows as (hand P) on the prompts until the piece is put.
            if !self.last_had_hand {
                self.draws += 1;
            }
            self.learn_colour(p, mover);
        }
        self.last_had_hand = hand.is_some();
        if mover != self.setup.id {
            self.my_last = None;
        }
        // A chain goes on exactly when the server's rule says so: my last capture, nobody else
        // has moved since, the house rule is on, and the piece can capture again.
        let chain = match self.my_last {
            Some((Action::Move { to, .. }, true)) if my_turn && self.variant.chain_capture => {
                let probe = PublicState {
                    variant: &self.variant,
                    board: &board,
                    control: self.control(),
                    hand: None,
                    chain: None,
                    bag_has_pieces: false,
                };
                probe.can_capture_from(to).then_some(to)
            }
            _ => None,
        };
        let bag_has_pieces =
            self.variant.start == Start::Bag && self.draws < self.variant.pieces.len();
        let legal = if my_turn {
            let state = PublicState {
                variant: &self.variant,
                board: &board,
                control: self.control(),
                hand,
                chain,
                bag_has_pieces,
            };
            let legal = state.legal_actions();
            if legal.is_empty() {
                return Err(ClientError::Protocol(format!(
                    "asked to move with no legal action on {wire_board}"
                )));
            }
            legal
        } else {
            Vec::new()
        };
        self.now = Some(Observation {
            setup: self.setup.clone(),
            variant: self.variant.clone(),
            wire_board: wire_board.to_string(),
            board,
            to_move: mover,
            turn: round,
            hand,
            chain,
            side_colours: self.side_colours(),
            bag_has_pieces,
            legal,
        });
        self.awaiting = my_turn;
        Ok(if my_turn {
            Event::Prompt
        } else {
            Event::Nothing
        })
    }
}

/// Follows one client's game from its messages (see the module's documentation).
#[derive(Clone, Debug)]
pub struct Tracker {
    /// The rules the caller gave, which win over what the server says.
    given: Option<Arc<Variant>>,
    seat: Option<Seat>,
    /// Error replies received, the handshake's included.
    errors: Vec<(ErrorCode, String)>,
    result: Option<GameResult>,
}

impl Tracker {
    /// A tracker for a client that has not been seated yet. `variant` gives the exact rules;
    /// without it the tracker takes the description the server sends (the `variant`
    /// extension), or else assumes [`Setup::default_variant`].
    pub fn new(variant: Option<Variant>) -> Tracker {
        Tracker {
            given: variant.map(Arc::new),
            seat: None,
            errors: Vec::new(),
            result: None,
        }
    }

    /// Adds error replies received before the tracker was fed (such as [`crate::Seated`]'s):
    /// they belong to the game's result.
    pub fn with_errors(mut self, errors: Vec<(ErrorCode, String)>) -> Tracker {
        self.errors.splice(0..0, errors);
        self
    }

    /// Takes in one message from the server.
    ///
    /// # Errors
    /// A message that makes no sense here: a setup that cannot be read, a variant description
    /// that does not parse, a prompt before the setup, a board of the wrong size, or a turn
    /// with no legal action. Once the game is over, messages are ignored.
    pub fn feed(&mut self, msg: &ServerMessage) -> Result<Event> {
        if self.result.is_some() {
            return Ok(Event::Nothing);
        }
        let (mut board, mut turn, mut hand) = (None, None, None);
        for clause in &msg.0 {
            match clause {
                ServerClause::Id(_) => self.seat_from(msg)?,
                ServerClause::Board(b) => board = Some(b),
                ServerClause::Hand(p) => hand = Piece::from_letter(*p),
                ServerClause::Turn(t, id) => turn = Some((*t, *id, true)),
                ServerClause::Info(t, id) => turn = Some((*t, *id, false)),
                ServerClause::Win(p, t) => {
                    let result = GameResult {
                        me: self.seat.as_ref().map_or(0, |s| s.setup.id),
                        win: (*p, *t),
                        errors: self.errors.clone(),
                    };
                    if let Some(seat) = self.seat.as_mut() {
                        seat.awaiting = false;
                    }
                    self.result = Some(result.clone());
                    return Ok(Event::Over(result));
                }
                ServerClause::Error(code, text) => {
                    self.errors.push((*code, text.clone()));
                    // The action was refused: nothing changed.
                    if let Some(seat) = self.seat.as_mut() {
                        seat.my_last = seat.my_last_before;
                    }
                }
                _ => {}
            }
        }
        let (Some(board), Some((round, mover, my_turn))) = (board, turn) else {
            return Ok(Event::Nothing);
        };
        let seat = self
            .seat
            .as_mut()
            .ok_or_else(|| ClientError::Protocol("(turn ...) before the setup message".into()))?;
        seat.prompt(board, hand, round, mover, my_turn)
    }

    fn seat_from(&mut self, msg: &ServerMessage) -> Result<()> {
        let setup = Setup::from_message(msg)?;
        let variant =
            match (&self.given, &setup.description) {
                (Some(v), _) => v.clone(),
                (None, Some(text)) => Arc::new(Variant::parse(text).map_err(|e| {
                    ClientError::Protocol(format!("the server's (variant ...): {e}"))
                })?),
                (None, None) => Arc::new(setup.default_variant()?),
            };
        self.seat = Some(Seat::new(setup, variant)?);
        Ok(())
    }

    /// The setup message, once seated.
    pub fn setup(&self) -> Option<&Setup> {
        self.seat.as_ref().map(|s| &*s.setup)
    }

    /// The rules played by, once seated.
    pub fn variant(&self) -> Option<&Arc<Variant>> {
        self.seat.as_ref().map(|s| &s.variant)
    }

    /// This side's colour, once known.
    pub fn colour(&self) -> Option<Colour> {
        self.seat.as_ref().and_then(|s| s.colour)
    }

    /// Pieces drawn from the bag so far (bag games).
    pub fn draws(&self) -> usize {
        self.seat.as_ref().map_or(0, |s| s.draws)
    }

    /// What this player knew at the latest prompt (its own or another player's).
    pub fn observation(&self) -> Option<&Observation> {
        self.seat.as_ref().and_then(|s| s.now.as_ref())
    }

    /// Whether a prompt for this client awaits its answer.
    pub fn awaiting(&self) -> bool {
        self.seat.as_ref().is_some_and(|s| s.awaiting)
    }

    /// What the bot sees, while a prompt awaits an answer.
    pub fn view(&self) -> Option<View<'_>> {
        let seat = self.seat.as_ref().filter(|s| s.awaiting)?;
        seat.now.as_ref().map(Observation::view)
    }

    /// Tells the tracker the action this client sent (whatever it is: the server judges it, and
    /// an error reply undoes what this records).
    pub fn sent(&mut self, action: Action) {
        let Some(seat) = self.seat.as_mut() else {
            return;
        };
        let board = seat.now.as_ref().map(|o| &o.board);
        let captures = match (action, board) {
            (Action::Move { to, .. }, Some(board)) => {
                to < board.len() && matches!(board.get(to), Square::Up(_))
            }
            _ => false,
        };
        seat.my_last_before = seat.my_last;
        seat.my_last = Some((action, captures));
        seat.awaiting = false;
    }

    /// The message that sends `action` (with the prompt's board, so the server can tell a
    /// client that lost track), recorded as with [`Tracker::sent`].
    pub fn reply(&mut self, action: Action) -> ClientMessage {
        self.sent(action);
        let mut clauses = Vec::with_capacity(2);
        if let Some(now) = self.observation() {
            clauses.push(ClientClause::Board(now.wire_board.clone()));
        }
        clauses.push(ClientClause::from(action));
        ClientMessage(clauses)
    }

    /// The message that resigns (accepted at any moment of the game).
    pub fn resign(&mut self) -> ClientMessage {
        if let Some(seat) = self.seat.as_mut() {
            seat.awaiting = false;
        }
        ClientMessage(vec![ClientClause::Resign])
    }

    /// Error replies received so far, the handshake's included.
    pub fn errors(&self) -> &[(ErrorCode, String)] {
        &self.errors
    }

    /// How the game ended, once it has.
    pub fn result(&self) -> Option<&GameResult> {
        self.result.as_ref()
    }

    /// The error for a connection the server closed `when` (such as "before the end of the
    /// game"), with the last error it had sent.
    pub fn closed(&self, when: &'static str) -> ClientError {
        ClientError::Closed {
            when,
            last: self.errors.last().cloned(),
        }
    }
}

/// The piece that was turned face-up between two boards, if one was.
fn first_reveal(prev: &Board, now: &Board) -> Option<Piece> {
    if prev.len() != now.len() {
        return None;
    }
    prev.squares()
        .iter()
        .zip(now.squares())
        .find_map(|(a, b)| match (a, b) {
            (Square::Hidden, Square::Up(p)) => Some(*p),
            _ => None,
        })
}

#[cfg(test)]
mod tests {
    //! The tracker fed message text. The main test plays whole games on the rules core, writes
    //! each prompt as the server would, and checks every player's tracker against the game:
    //! the legal actions it offers, everyone's counts and controls, and that refused actions
    //! leave it as it was.

    use super::*;
    use anqi_core::rules::{Game, SeedInputs};
    use rand_chacha::ChaCha8Rng;
    use rand_core::{Rng, SeedableRng};

    fn parse(line: &str) -> ServerMessage {
        parse_server_line(line)
            .unwrap_or_else(|e| panic!("{line}: {e}"))
            .unwrap_or_else(|| panic!("{line}: no message"))
    }

    /// The setup message the server sends `player` (PROTOCOL.md, The setup message), with the
    /// `variant` extension's description when `describe`.
    fn setup_line(v: &Variant, player: usize, describe: bool) -> String {
        let t = &v.topology;
        let mut c = vec![ServerClause::Id(player), ServerClause::Players(v.players)];
        if v.has_teams() {
            let side = v.side_of(player);
            c.push(ServerClause::Team(side + 1));
            for &m in v.sides[side].iter().filter(|&&m| m != player) {
                c.push(ServerClause::Teammate(m));
            }
        }
        c.extend([
            ServerClause::Game(v.game_type.clone()),
            ServerClause::Size(t.size()),
            ServerClause::Pieces(v.pieces_wire()),
            ServerClause::Moves(t.moves().to_vec()),
            ServerClause::Jumps(t.wire_jumps()),
        ]);
        if describe {
            c.push(ServerClause::Ext(vec!["variant".into()]));
            c.push(ServerClause::Variant(v.public_description()));
        }
        ServerMessage(c).to_string()
    }

    /// The prompt the server sends `player` in this position.
    fn prompt_line(game: &Game, player: usize) -> String {
        let mut c = vec![ServerClause::Board(game.wire_board())];
        if let Some(p) = game.hand() {
            c.push(ServerClause::Hand(p.letter()));
        }
        let (round, mover) = (game.round(), game.to_move());
        c.push(if player == mover {
            ServerClause::Turn(round, mover)
        } else {
            ServerClause::Info(round, mover)
        });
        ServerMessage(c).to_string()
    }

    /// Plays a random game of `variant` with one tracker per player (`describe`: whether the
    /// setup carries the description), refusing about one action in four with an error and a
    /// re-prompt, and checks every tracker at every prompt. Returns the plies played.
    fn follow(variant: &str, seed: u64, describe: bool) -> u32 {
        let v = Arc::new(Variant::shipped(variant).unwrap());
        let seeds = SeedInputs {
            clients: vec![seed.to_string()],
            server: "tracker".into(),
        };
        let mut game = Game::new(v.clone(), seeds.deal_for(&v));
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let players = 1..=v.players;
        let mut trackers: Vec<Tracker> = players.clone().map(|_| Tracker::new(None)).collect();
        for p in players.clone() {
            let t = &mut trackers[p - 1];
            assert_eq!(
                t.feed(&parse(&setup_line(&v, p, describe))).unwrap(),
                Event::Nothing
            );
            assert_eq!(t.setup().unwrap().id, p);
        }
        while game.outcome().is_none() && game.ply() < 600 {
            let mover = game.to_move();
            for p in players.clone() {
                let line = prompt_line(&game, p);
                let event = trackers[p - 1].feed(&parse(&line)).unwrap();
                assert_eq!(
                    event == Event::Prompt,
                    p == mover,
                    "{variant} ply {}",
                    game.ply()
                );
                check(&trackers[p - 1], &game, p);
            }
            let t = &mut trackers[mover - 1];
            if rng.next_u32() % 4 == 0 {
                // A move to its own cell is never legal: the server refuses it and prompts
                // again, and the tracker must be where it was (its chain included).
                let bad = Action::Move { from: 0, to: 0 };
                let sent = t.reply(bad).to_string();
                assert_eq!(sent, format!("((board {})(mov 0 0))", game.wire_board()));
                assert!(t.view().is_none(), "answered");
                let refusal = r#"((error illegal "cell 0 cannot move to itself"))"#;
                assert_eq!(t.feed(&parse(refusal)).unwrap(), Event::Nothing);
                let again = t.feed(&parse(&prompt_line(&game, mover))).unwrap();
                assert_eq!(again, Event::Prompt);
                check(t, &game, mover);
            }
            let legal = t.view().expect("a prompt awaits").legal.to_vec();
            let action = legal[rng.next_u32() as usize % legal.len()];
            let sent = t.reply(action).to_string();
            assert_eq!(sent, format!("((board {}){action})", game.wire_board()));
            game.play(mover, action).unwrap();
        }
        let (winner, team) = game.win_clause();
        for p in players {
            let t = &mut trackers[p - 1];
            let over = t.feed(&parse(&format!("((win {winner} {team}))"))).unwrap();
            let Event::Over(result) = over else {
                panic!("{variant}: {over:?} for the result")
            };
            assert_eq!((result.me, result.win), (p, (winner, team)));
            // One refusal per injected bad action, all of them the mover's.
            assert!(result.errors.iter().all(|(c, _)| *c == ErrorCode::Illegal));
            assert_eq!(t.result(), Some(&result));
        }
        game.ply()
    }

    /// Checks what `player`'s tracker knows against the game.
    fn check(t: &Tracker, game: &Game, player: usize) {
        let at = format!("{} ply {} player {player}", game.variant().name, game.ply());
        let o = t.observation().expect("a prompt was fed");
        let truth = Observation::of_game(game, player).unwrap();
        assert_eq!(o.player(), player, "{at}");
        assert_eq!(o.wire_board, game.wire_board(), "{at}");
        assert_eq!(o.board, *game.board(), "{at}");
        assert_eq!(
            (o.to_move, o.turn, o.hand),
            (game.to_move(), game.round(), game.hand()),
            "{at}"
        );
        assert_eq!(o.is_my_turn(), t.view().is_some(), "{at}");
        if o.is_my_turn() {
            assert_eq!(o.legal, game.legal_actions(), "{at}: the legal actions");
            assert_eq!(o.legal, truth.legal, "{at}");
            assert_eq!(o.chain, truth.chain, "{at}: the chain");
        } else {
            assert!(o.legal.is_empty(), "{at}");
        }
        for q in 1..=game.variant().players {
            assert_eq!(o.control_of(q), game.control_of(q), "{at}: control of {q}");
            if q != game.to_move() || o.is_my_turn() {
                let counts = o.counts_of(q).unwrap();
                assert_eq!(counts, game.counts_of(q), "{at}: counts of {q}");
                assert_eq!(
                    truth.counts_of(q).unwrap(),
                    counts,
                    "{at}: of_game counts of {q}"
                );
            }
        }
        let public = Observation::public(
            game.variant().clone(),
            player,
            &game.wire_board(),
            game.to_move(),
            game.round(),
            game.hand(),
            truth.chain,
            truth.side_colours.clone(),
            truth.bag_has_pieces,
        )
        .unwrap();
        assert_eq!(public.legal, truth.legal, "{at}: from the public facts");
        assert_eq!(o.counts_of(0), None);
        assert_eq!(o.counts_of(game.variant().players + 1), None);
    }

    #[test]
    fn trackers_follow_games_of_every_shipped_variant() {
        for (name, _) in anqi_core::rules::SHIPPED {
            // Long games on the big boards are slow in a debug build: two seeds each.
            for seed in 0..2 {
                follow(name, seed, true);
            }
        }
    }

    #[test]
    fn without_a_description_the_game_type_decides_the_rules() {
        // What an old server (no `variant` extension) gives: the defaults of (game TYPE), which
        // are the shipped rules of these variants.
        for name in [
            "traditional",
            "2v2",
            "1v2",
            "single",
            "cooperative",
            "strategic",
        ] {
            for seed in 0..3 {
                follow(name, seed, false);
            }
        }
    }

    #[test]
    fn colours_come_from_the_first_reveal_as_the_protocol_says() {
        // PROTOCOL.md, Extensions' example on 2x4: player 1 turns up a red pawn, so player 2
        // plays black.
        let v = Variant::shipped("traditional-2x4").unwrap();
        let mut t = Tracker::new(None);
        t.feed(&parse(&setup_line(&v, 2, true))).unwrap();
        assert_eq!(t.variant().unwrap().name, "traditional-2x4");
        assert_eq!(t.colour(), None);
        assert_eq!(
            t.feed(&parse("((board XXXXXXXX)(info 0 1))")).unwrap(),
            Event::Nothing
        );
        let o = t.observation().unwrap();
        assert!(!o.is_my_turn() && o.legal.is_empty());
        assert_eq!(o.counts_of(1).unwrap().reveals, 8);
        assert!(t.view().is_none());
        assert_eq!(
            t.feed(&parse("((board PXXXXXXX)(turn 0 2))")).unwrap(),
            Event::Prompt
        );
        assert_eq!(t.colour(), Some(Colour::Black));
        let o = t.observation().unwrap();
        assert_eq!(o.colour(), Some(Colour::Black));
        assert_eq!(o.control_of(1), Control::Colour(Colour::Red));
        // Black has nothing face-up: reveals only. Red's pawn could step to 1 or 4.
        assert_eq!(o.legal.len(), 7);
        assert_eq!(
            o.counts_of(1).unwrap().moves,
            0,
            "1 and 4 are face-down, not empty"
        );
        assert_eq!(
            t.reply(Action::Reveal(7)).to_string(),
            "((board PXXXXXXX)(rev 7))"
        );
    }

    #[test]
    fn the_given_variant_wins_over_the_description() {
        let hk = Variant::shipped("hong-kong").unwrap();
        let trad = Variant::shipped("traditional").unwrap();
        let mut t = Tracker::new(Some(hk));
        t.feed(&parse(&setup_line(&trad, 1, true))).unwrap();
        assert_eq!(t.variant().unwrap().name, "hong-kong");
        let mut t = Tracker::new(None);
        t.feed(&parse(&setup_line(&trad, 1, false))).unwrap();
        // The default rules are named after the game type.
        assert_eq!(t.variant().unwrap().name, "traditional");
        assert_eq!(t.setup().unwrap().description, None);
    }

    #[test]
    fn errors_are_kept_for_the_result_in_order() {
        let v = Variant::shipped("traditional-2x4").unwrap();
        let mut t = Tracker::new(None).with_errors(vec![(ErrorCode::Unknown, "no ext".into())]);
        t.feed(&parse(r#"((error syntax "first"))"#)).unwrap();
        t.feed(&parse(&setup_line(&v, 1, false))).unwrap();
        assert_eq!(
            t.feed(&parse("((board XXXXXXXX)(turn 0 1))")).unwrap(),
            Event::Prompt
        );
        assert_eq!(
            t.reply(Action::Reveal(9)).to_string(),
            "((board XXXXXXXX)(rev 9))"
        );
        t.feed(&parse(r#"((error illegal "no cell 9"))"#)).unwrap();
        match t.closed("before the end of the game") {
            ClientError::Closed { last, .. } => {
                assert_eq!(last, Some((ErrorCode::Illegal, "no cell 9".into())))
            }
            e => panic!("{e}"),
        }
        let Event::Over(r) = t.feed(&parse("((board XXXXXXXX)(win 2 0))")).unwrap() else {
            panic!("no result")
        };
        let codes: Vec<_> = r.errors.iter().map(|(c, _)| *c).collect();
        assert_eq!(
            codes,
            [ErrorCode::Unknown, ErrorCode::Syntax, ErrorCode::Illegal]
        );
        assert_eq!((r.me, r.win), (1, (2, 0)));
        // After the result nothing changes.
        assert_eq!(
            t.feed(&parse("((board XXXXXXXX)(turn 0 1))")).unwrap(),
            Event::Nothing
        );
    }

    #[test]
    fn messages_that_make_no_sense_are_errors() {
        let v = Variant::shipped("traditional-2x4").unwrap();
        let mut t = Tracker::new(None);
        let e = t.feed(&parse("((board XXXXXXXX)(turn 0 1))")).unwrap_err();
        assert!(e.to_string().contains("before the setup"), "{e}");
        // A result before any setup: nobody's.
        let Event::Over(r) = Tracker::new(None).feed(&parse("((win 0 0))")).unwrap() else {
            panic!()
        };
        assert_eq!(r.me, 0);
        t.feed(&parse(&setup_line(&v, 1, false))).unwrap();
        let e = t.feed(&parse("((board XXXXXXXXX)(turn 0 1))")).unwrap_err();
        assert!(e.to_string().contains("9 cells on a board of 8"), "{e}");
        let e = t.feed(&parse("((board ........)(turn 0 1))")).unwrap_err();
        assert!(e.to_string().contains("no legal action"), "{e}");
        let seat_3 = setup_line(&v, 3, false);
        let e = Tracker::new(None).feed(&parse(&seat_3)).unwrap_err();
        assert!(e.to_string().contains("player 3 of 2"), "{e}");
        let e = Tracker::new(None)
            .feed(&parse("((id 1)(players 100000)(size 8))"))
            .unwrap_err();
        assert!(e.to_string().contains("100000 players"), "{e}");
        let bad_description = r#"((id 1)(players 2)(size 8)(variant "(variant (name x))"))"#;
        let e = Tracker::new(None)
            .feed(&parse(bad_description))
            .unwrap_err();
        assert!(e.to_string().contains("the server's (variant ...)"), "{e}");
    }

    #[test]
    fn lines_are_read_within_limits() {
        assert!(parse_server_line("  ; a comment\n").unwrap().is_none());
        assert_eq!(
            parse_server_line("((win 1 0))\n").unwrap(),
            Some(ServerMessage(vec![ServerClause::Win(1, 0)]))
        );
        for (line, why) in [
            ("((win 1 0))((win 1 0))", "more than one message"),
            ("((win 1 0)", "unfinished"),
            ("hello", "expected a message"),
            ("((dance))", "unknown server clause"),
        ] {
            let e = parse_server_line(line).unwrap_err().to_string();
            assert!(e.contains(why), "{line}: {e}");
        }
        let deep = format!("({}{})", "(".repeat(20), ")".repeat(20));
        let e = parse_server_line(&deep).unwrap_err().to_string();
        assert!(e.contains("deeper than 16"), "{e}");
        // Just over the limit: the scanner refuses it; far over: refused before scanning.
        let over = format!("((error syntax \"{}\"))", "a".repeat(1 << 24));
        let e = parse_server_line(&over).unwrap_err().to_string();
        assert!(e.contains("message longer than 16777216 bytes"), "{e}");
        let huge = "a".repeat(1 << 25);
        let e = parse_server_line(&huge).unwrap_err().to_string();
        assert!(
            e.contains("more than the 16777216 a message may have"),
            "{e}"
        );
    }

    #[test]
    fn public_facts_that_do_not_fit_are_refused() {
        let v = Arc::new(Variant::shipped("traditional-2x4").unwrap());
        let make = |player, board: &str, chain, colours: Vec<Option<Colour>>| {
            Observation::public(v.clone(), player, board, 1, 0, None, chain, colours, false)
        };
        let two = vec![None, None];
        assert_eq!(
            make(1, "XXXXXXXX", None, two.clone()).unwrap().legal.len(),
            8
        );
        assert_eq!(
            make(2, "XXXXXXXX", None, two.clone()).unwrap().legal.len(),
            0
        );
        let e = make(3, "XXXXXXXX", None, two.clone()).unwrap_err();
        assert!(e.contains("no player 3"), "{e}");
        let e = make(1, "XXXX", None, two.clone()).unwrap_err();
        assert!(e.contains("4 cells on a board of 8"), "{e}");
        let e = make(1, "XXXXXXXX", Some(8), two).unwrap_err();
        assert!(e.contains("cell 8"), "{e}");
        let e = make(1, "XXXXXXXX", None, vec![None]).unwrap_err();
        assert!(e.contains("1 colours for the 2 sides"), "{e}");
    }

    #[test]
    fn hello_asks_for_the_description_then_joins() {
        let [ext, init] = hello("my bot", "42");
        assert_eq!(ext.to_string(), "((ext variant))");
        assert_eq!(init.to_string(), r#"((init "my bot" 42))"#);
    }
}
