//! What a client knows of its game, kept without I/O: a [`Tracker`] is fed the server's messages
//! one at a time and says when the client must act ([`Event::Prompt`]) and when the game is over
//! ([`Event::Over`]).
//!
//! It is the state machine behind [`crate::play_seated`], kept apart from the socket so that
//! any transport can drive it: the async [`crate::Connection`], a blocking socket, the Python
//! package's `ClientSession` (clients/python), or the anqi side of `anqi bridge` (the `anqi`
//! program's `bridge::session`). The loop is always the same:
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
//! The tracker learns everything from the messages of the base protocol: its own colour from
//! the first reveal or bag draw (PROTOCOL.md, Your colour), the pieces drawn from the `(hand P)`
//! clauses, whether a chain capture goes on from its own last action (so that the legal actions
//! it offers are exactly those the server accepts), and the game's [`History`]: the pieces no
//! one has seen yet, how often each position occurred and the plies without progress, inferred
//! from consecutive boards. It reads the extensions' clauses when the server sends them (ask
//! for them with [`hello_with`]): the rules from `variant`, every ply from `last` (what a
//! reveal turned up is then told rather than read off the boards, and the result message adds
//! the final ply), the clocks and the time control from `clock`, the server's count from
//! `progress`.

use crate::history::{History, Sight};
use crate::{ClientError, GameResult, ObservationError, Result, Setup, View};
use anqi_core::rules::{
    Action, ActionCounts, Board, Cell, Colour, ColourRule, Control, Objective, Piece, PublicState,
    Square, Start, Variant,
};
use anqi_core::wire::{ClientClause, ClientMessage, ErrorCode, Extensions, FrameLimits};
use anqi_core::wire::{FrameScanner, LastPly, ServerClause, ServerMessage};
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
        init(name, seed),
    ]
}

/// Where a client's request for extensions goes in its handshake ([`hello_with`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExtRequest {
    /// In a message of its own before `(init ...)`: a server without extensions refuses only
    /// that message and seats the client all the same (what [`hello`] does).
    Apart,
    /// In the `(init ...)` message, after the `init` clause: one message, for a client that
    /// cannot play without the extensions anyway (what `anqi bridge` sends).
    WithInit,
}

/// The messages a client sends first, asking for `extensions` (none: `(init NAME SEED)`
/// alone). [`hello`] is `hello_with(name, seed, variant, ExtRequest::Apart)`; `anqi bridge`
/// asks for every extension with its `init` (`((init NAME TOKEN)(ext last clock progress
/// variant))`). The tracker reads whatever the server grants.
pub fn hello_with(
    name: &str,
    seed: &str,
    extensions: Extensions,
    request: ExtRequest,
) -> Vec<ClientMessage> {
    let mut init = init(name, seed);
    if extensions.is_empty() {
        return vec![init];
    }
    let ext = ClientClause::Ext(extensions.names());
    match request {
        ExtRequest::Apart => vec![ClientMessage(vec![ext]), init],
        ExtRequest::WithInit => {
            init.0.push(ext);
            vec![init]
        }
    }
}

/// `(init NAME SEED)`.
fn init(name: &str, seed: &str) -> ClientMessage {
    ClientMessage(vec![ClientClause::Init {
        name: name.to_string(),
        seed: seed.to_string(),
    }])
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

/// What one player knows of the game at one prompt: the public position, its own seat, what it
/// has seen of the game so far ([`History`]), and its legal actions when it is to move. It owns
/// its data, so it can be kept, sent to another thread, or handed to a bot that runs later.
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
    /// What this player has seen of the game up to this prompt: the face-down pool, how often
    /// each position occurred, the plies without progress, and what the extensions told
    /// (shared, not copied, between the observations of one game).
    pub history: Arc<History>,
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

    /// How often the current position has occurred, this time included (see
    /// [`History::occurrences`]).
    pub fn occurrences(&self) -> u32 {
        self.history
            .occurrences(&self.board, self.history.turn_place())
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
            history: &self.history,
        }
    }

    /// The observation of `player` in a position described by its public facts: the board as
    /// the wire writes it, the player to move, the colour of each side (by side index; `None`
    /// while undecided), the mover's drawn piece and chain, and whether a bag draw is possible.
    /// The legal actions are computed when `player` is to move. The game before this position
    /// is unknown: the history is [`History::of_position`]'s (the face-down pool is the
    /// variant's pieces minus those face-up and in hand, the position has occurred once, no
    /// plies, clocks or start board).
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
    ) -> std::result::Result<Observation, ObservationError> {
        let seats = 1..=variant.players;
        for (what, p) in [("player", player), ("player to move", to_move)] {
            if !seats.contains(&p) {
                return Err(ObservationError::NoSuchPlayer {
                    what,
                    player: p,
                    variant: variant.name.clone(),
                    players: variant.players,
                });
            }
        }
        let board =
            read_board(&variant, wire_board).map_err(|e| ObservationError::Board(e.to_string()))?;
        if let Some(c) = chain.filter(|&c| c >= board.len()) {
            return Err(ObservationError::ChainOffBoard(c));
        }
        if side_colours.len() != variant.sides.len() {
            return Err(ObservationError::Colours {
                given: side_colours.len(),
                sides: variant.sides.len(),
                variant: variant.name.clone(),
            });
        }
        let history = Arc::new(History::of_position(&variant, &board, hand, to_move));
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
            history,
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
    /// the one the server would send, with the variant's public description. The history is
    /// [`History::of_game`]'s: the exact face-down pool, no-progress count and place in the
    /// turn order, and the positions the repetition rule counts (in a variant with one).
    ///
    /// # Errors
    /// When `player` is not a seat of the game (the text says why).
    pub fn of_game(
        game: &anqi_core::rules::Game,
        player: usize,
    ) -> std::result::Result<Self, ObservationError> {
        let variant = game.variant();
        if !(1..=variant.players).contains(&player) {
            return Err(ObservationError::NoSuchPlayer {
                what: "player",
                player,
                variant: variant.name.clone(),
                players: variant.players,
            });
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
            history: Arc::new(History::of_game(game)),
        })
    }
}

/// The clauses of one server message that the tracker reads, gathered before it acts on them
/// (the result message carries the final board and ply before `(win ...)`).
#[derive(Default)]
struct Clauses<'m> {
    board: Option<&'m str>,
    hand: Option<Piece>,
    /// `(turn T ID)` (`true`) or `(info T ID)` (`false`).
    turn: Option<(u32, usize, bool)>,
    last: Option<(usize, LastPly)>,
    clocks: Option<&'m [u64]>,
    progress: Option<u32>,
    win: Option<(usize, usize)>,
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
    /// What this player has seen of the game, the final ply of the result message included
    /// (`now` holds it as of the last prompt).
    history: Option<Arc<History>>,
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
            history: None,
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

    /// Takes in the board of a message (a prompt's, or the result's final board) into the
    /// history: a new ply when the board, the hand, the player to move or the round differ
    /// from the last prompt's, or when the server's `(last ...)` is new (a re-prompt after an
    /// error repeats both). `turn`: the prompt's round and player to move (`None` for the
    /// result).
    fn see(
        &mut self,
        wire_board: &str,
        board: &Board,
        hand: Option<Piece>,
        turn: Option<(u32, usize)>,
        c: &Clauses<'_>,
    ) {
        let mover = turn.map(|(_, m)| m);
        let now = Sight { board, hand, mover };
        // Disjoint fields: the last prompt is read while the history is updated.
        let turned_up = match (&self.now, &mut self.history) {
            (Some(prev), Some(history)) => {
                let last = c.last.filter(|l| history.last_ply() != Some(l));
                let moved = prev.wire_board != wire_board
                    || prev.hand != hand
                    || turn.is_some_and(|(round, m)| (prev.turn, prev.to_move) != (round, m));
                if last.is_some() || moved {
                    let before = Sight {
                        board: &prev.board,
                        hand: prev.hand,
                        mover: Some(prev.to_move),
                    };
                    // Copied only when someone still holds an observation that shares it.
                    Arc::make_mut(history).record_ply(&self.variant, before, now, last)
                } else {
                    None
                }
            }
            (_, history) => {
                *history = Some(Arc::new(History::start(&self.variant, now)));
                None
            }
        };
        if let Some((piece, player)) = turned_up {
            self.learn_colour(piece, player);
        }
        if let Some(history) = self.history.as_mut() {
            if let Some(clocks) = c.clocks {
                Arc::make_mut(history).set_clocks(clocks.to_vec());
            }
            if let Some(n) = c.progress {
                Arc::make_mut(history).set_progress(n);
            }
        }
    }

    /// Takes in a prompt: `(board B)`, maybe `(hand P)`, the extensions' clauses, and
    /// `(turn T ID)` (`my_turn`) or `(info T ID)`.
    fn prompt(
        &mut self,
        wire_board: &str,
        c: &Clauses<'_>,
        round: u32,
        mover: usize,
        my_turn: bool,
    ) -> Result<Event> {
        let hand = c.hand;
        let board = read_board(&self.variant, wire_board)?;
        // Dropped first: the history it shares is then updated in place.
        let prev = self.now.take().map(|mut o| {
            o.history = Arc::default();
            o
        });
        self.now = prev;
        self.see(wire_board, &board, hand, Some((round, mover)), c);
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
            PublicState {
                variant: &self.variant,
                board: &board,
                control: self.control(),
                hand,
                chain,
                bag_has_pieces,
            }
            .legal_actions()
        } else {
            Vec::new()
        };
        let stuck = my_turn && legal.is_empty();
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
            history: self.history.clone().unwrap_or_default(),
        });
        if stuck {
            return Err(ClientError::Protocol(format!(
                "asked to move with no legal action on {wire_board}"
            )));
        }
        self.awaiting = my_turn;
        Ok(if my_turn {
            Event::Prompt
        } else {
            Event::Nothing
        })
    }

    /// Takes in the result message's final board and ply (the `last` extension sends them):
    /// the history learns the last ply. A board that cannot be read is left out: the result
    /// stands.
    fn result_board(&mut self, wire_board: &str, c: &Clauses<'_>) {
        let Ok(board) = read_board(&self.variant, wire_board) else {
            return;
        };
        // The previous prompt's observation is kept as it was: its history is copied if needed.
        self.see(wire_board, &board, c.hand, None, c);
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
        let mut c = Clauses::default();
        for clause in &msg.0 {
            match clause {
                ServerClause::Id(_) => self.seat_from(msg)?,
                ServerClause::Board(b) => c.board = Some(b.as_str()),
                ServerClause::Hand(p) => c.hand = Piece::from_letter(*p),
                ServerClause::Turn(t, id) => c.turn = Some((*t, *id, true)),
                ServerClause::Info(t, id) => c.turn = Some((*t, *id, false)),
                ServerClause::Last(id, ply) => c.last = Some((*id, *ply)),
                ServerClause::Clock(ms) => c.clocks = Some(ms.as_slice()),
                ServerClause::Progress(n) => c.progress = Some(*n),
                ServerClause::Win(p, t) => c.win = Some((*p, *t)),
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
        if let Some(win) = c.win {
            if let Some(seat) = self.seat.as_mut() {
                if let Some(board) = c.board {
                    seat.result_board(board, &c);
                }
                seat.awaiting = false;
            }
            let result = GameResult {
                me: self.seat.as_ref().map_or(0, |s| s.setup.id),
                win,
                errors: self.errors.clone(),
            };
            self.result = Some(result.clone());
            return Ok(Event::Over(result));
        }
        let (Some(board), Some((round, mover, my_turn))) = (c.board, c.turn) else {
            return Ok(Event::Nothing);
        };
        let seat = self
            .seat
            .as_mut()
            .ok_or_else(|| ClientError::Protocol("(turn ...) before the setup message".into()))?;
        seat.prompt(board, &c, round, mover, my_turn)
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

    /// Every side's colour, by side index, as far as this client knows them (fixed colours
    /// from the setup on, else from the first reveal or draw); empty before the setup, and
    /// all `None` in games where every player moves both colours.
    pub fn side_colours(&self) -> Vec<Option<Colour>> {
        self.seat.as_ref().map_or_else(Vec::new, Seat::side_colours)
    }

    /// Pieces drawn from the bag so far (bag games).
    pub fn draws(&self) -> usize {
        self.seat.as_ref().map_or(0, |s| s.draws)
    }

    /// What this player knew at the latest prompt (its own or another player's).
    pub fn observation(&self) -> Option<&Observation> {
        self.seat.as_ref().and_then(|s| s.now.as_ref())
    }

    /// What this client has seen of the game, from the first prompt on: the observation's
    /// history, and once the game is over, the final ply of the result message (the `last`
    /// extension sends it) too.
    pub fn history(&self) -> Option<&History> {
        self.seat.as_ref().and_then(|s| s.history.as_deref())
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

    /// Tells the tracker this client resigned (or gave up its turn some other way): no prompt
    /// awaits an answer any more.
    pub fn gave_up(&mut self) {
        if let Some(seat) = self.seat.as_mut() {
            seat.awaiting = false;
        }
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
        self.gave_up();
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

#[cfg(test)]
mod tests {
    //! The tracker fed message text. The main test plays whole games on the rules core, writes
    //! each prompt as the server would (with and without the extensions), and checks every
    //! player's tracker against the game: the legal actions it offers, everyone's counts and
    //! controls, the colours, the face-down pool, the repetition counts and the no-progress
    //! count, and that refused actions leave it as it was.

    use super::*;
    use crate::testing::{self, parse, prompt_line, result_line, setup_line};
    use anqi_core::rules::{Game, Repetition, SeedInputs, Termination};
    use anqi_core::wire::Extension;
    use rand_chacha::ChaCha8Rng;
    use rand_core::{Rng, SeedableRng};
    use std::collections::HashMap;

    /// The extensions a plain client of the client library asks for.
    fn described() -> Extensions {
        [Extension::Variant].into_iter().collect()
    }

    /// The positions of a game since its last irreversible ply, as the rules count them for
    /// the repetition rule: the board and the place in the turn order, kept beside the game.
    #[derive(Default)]
    struct Positions {
        place: usize,
        seen: HashMap<(Board, usize), u32>,
    }

    impl Positions {
        fn start(game: &Game) -> Positions {
            let mut p = Positions::default();
            p.seen.insert((game.board().clone(), 0), 1);
            p
        }

        /// After `action`, which `played` says what it did, on `game` (played already).
        fn after(&mut self, game: &Game, action: Action, played: &anqi_core::rules::Played) {
            // A draw keeps the turn for the put; a capture that goes on keeps it for the chain.
            let kept = action == Action::Bag || game.public_state().chain.is_some();
            if !kept {
                self.place = (self.place + 1) % game.variant().order.len();
            }
            let irreversible = !matches!(action, Action::Move { .. }) || played.captured.is_some();
            if irreversible {
                self.seen.clear();
            }
            *self
                .seen
                .entry((game.board().clone(), self.place))
                .or_default() += 1;
        }
    }

    /// Plays a random game of `variant` with one tracker per player, the server granting `ext`
    /// (`variant`: the setup carries the description; `last`, `clock`, `progress`: their
    /// clauses in every prompt), refusing about one action in four with an error and a
    /// re-prompt, and checks every tracker at every prompt. Returns the plies played.
    fn follow(variant: &str, seed: u64, ext: Extensions) -> u32 {
        follow_variant(Arc::new(Variant::shipped(variant).unwrap()), seed, ext)
    }

    /// [`follow`] for any variant.
    fn follow_variant(v: Arc<Variant>, seed: u64, ext: Extensions) -> u32 {
        let variant = v.name.clone();
        let variant = variant.as_str();
        let seeds = SeedInputs {
            clients: vec![seed.to_string()],
            server: "tracker".into(),
        };
        let mut game = Game::new(v.clone(), seeds.deal_for(&v));
        let start = game.board().clone();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let players = 1..=v.players;
        let mut trackers: Vec<Tracker> = players.clone().map(|_| Tracker::new(None)).collect();
        for p in players.clone() {
            let t = &mut trackers[p - 1];
            assert_eq!(
                t.feed(&parse(&setup_line(&v, p, ext))).unwrap(),
                Event::Nothing
            );
            let setup = t.setup().unwrap();
            assert_eq!((setup.id, setup.extensions), (p, ext));
            let clock = ext.contains(Extension::Clock);
            assert_eq!(setup.time_control, clock.then_some(testing::TIME_CONTROL));
        }
        let mut positions = Positions::start(&game);
        let mut plies: Vec<(usize, LastPly)> = Vec::new();
        while game.outcome().is_none() && game.ply() < 600 {
            let mover = game.to_move();
            let last = plies.last().copied();
            for p in players.clone() {
                let line = prompt_line(&game, p, ext, last);
                let event = trackers[p - 1].feed(&parse(&line)).unwrap();
                assert_eq!(
                    event == Event::Prompt,
                    p == mover,
                    "{variant} ply {}",
                    game.ply()
                );
                check(&trackers[p - 1], &game, p);
                check_history(&trackers[p - 1], &game, ext, &positions, &plies, &start);
            }
            let t = &mut trackers[mover - 1];
            if rng.next_u32() % 4 == 0 {
                // A move to its own cell is never legal: the server refuses it and prompts
                // again, and the tracker must be where it was (its chain and history included).
                let bad = Action::Move { from: 0, to: 0 };
                let sent = t.reply(bad).to_string();
                assert_eq!(sent, format!("((board {})(mov 0 0))", game.wire_board()));
                assert!(t.view().is_none(), "answered");
                let refusal = r#"((error illegal "cell 0 cannot move to itself"))"#;
                assert_eq!(t.feed(&parse(refusal)).unwrap(), Event::Nothing);
                let again = t
                    .feed(&parse(&prompt_line(&game, mover, ext, last)))
                    .unwrap();
                assert_eq!(again, Event::Prompt);
                check(t, &game, mover);
                check_history(t, &game, ext, &positions, &plies, &start);
            }
            let legal = t.view().expect("a prompt awaits").legal.to_vec();
            let action = legal[rng.next_u32() as usize % legal.len()];
            let sent = t.reply(action).to_string();
            assert_eq!(sent, format!("((board {}){action})", game.wire_board()));
            let played = game.play(mover, action).unwrap();
            plies.push((mover, testing::last_ply(action, &played)));
            positions.after(&game, action, &played);
        }
        let (winner, team) = game.win_clause();
        let outcome = game.outcome();
        for p in players {
            let t = &mut trackers[p - 1];
            let line = result_line(&game, ext, plies.last().copied());
            let over = t.feed(&parse(&line)).unwrap();
            let Event::Over(result) = over else {
                panic!("{variant}: {over:?} for the result")
            };
            assert_eq!((result.me, result.win), (p, (winner, team)));
            // One refusal per injected bad action, all of them the mover's.
            assert!(result.errors.iter().all(|(c, _)| *c == ErrorCode::Illegal));
            assert_eq!(t.result(), Some(&result));
            if outcome.is_some() && ext.contains(Extension::Last) {
                // The result message's final board and ply are the history's last.
                let h = t.history().unwrap();
                assert_eq!(h.plies(), plies.as_slice(), "{variant}: every ply");
                assert_eq!(h.pool(), &truth_pool(&game), "{variant}: the final pool");
                let final_count = h.occurrences(game.board(), positions.place);
                let truth = positions.seen[&(game.board().clone(), positions.place)];
                assert_eq!(final_count, truth, "{variant}: the final position");
                if let (Some(Repetition::Occurrence(n)), Some(o)) = (v.draw.repetition, outcome) {
                    if o.reason == Termination::Repetition {
                        assert_eq!(final_count, n, "{variant}: the repetition that drew");
                    }
                }
            }
        }
        game.ply()
    }

    /// The pieces no player has seen in `game`: face-down, or in the bag.
    fn truth_pool(game: &Game) -> [u32; 14] {
        let (down, bag) = (game.face_down_counts(), game.bag_counts());
        std::array::from_fn(|i| down[i] + bag[i])
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
        if game.variant().objective == Objective::Capture {
            assert_eq!(o.side_colours, truth.side_colours, "{at}: the colours");
            assert_eq!(t.side_colours(), truth.side_colours, "{at}: the colours");
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
        assert_eq!(public.occurrences(), 1, "{at}: a position shown alone");
        assert_eq!(o.counts_of(0), None);
        assert_eq!(o.counts_of(game.variant().players + 1), None);
    }

    /// Checks the history `player`'s tracker keeps against the game, and against what the rules
    /// core's observation knows: the pool, the no-progress count, every position since the last
    /// irreversible ply and the place in the turn order, and with the extensions every ply, the
    /// clocks and the start.
    fn check_history(
        t: &Tracker,
        game: &Game,
        ext: Extensions,
        positions: &Positions,
        plies: &[(usize, LastPly)],
        start: &Board,
    ) {
        let o = t.observation().expect("a prompt was fed");
        let at = format!(
            "{} ply {} player {}",
            game.variant().name,
            game.ply(),
            o.player()
        );
        let h = &o.history;
        assert!(
            std::ptr::eq(h.as_ref(), t.history().unwrap()),
            "{at}: shared"
        );
        assert_eq!(h.pool(), &truth_pool(game), "{at}: the pool");
        let of_game = Observation::of_game(game, o.player()).unwrap();
        assert_eq!(of_game.history.pool(), h.pool(), "{at}: of_game's pool");
        assert_eq!(
            h.progress(),
            game.quiet_plies(),
            "{at}: the no-progress count"
        );
        assert_eq!(of_game.history.progress(), h.progress(), "{at}");
        assert_eq!(
            h.turn_place(),
            positions.place,
            "{at}: the place in the order"
        );
        let seen: HashMap<(Board, usize), u32> = h
            .positions()
            .map(|(b, place, n)| ((b.clone(), place), n))
            .collect();
        assert_eq!(seen, positions.seen, "{at}: the positions");
        assert_eq!(
            of_game.history.turn_place(),
            positions.place,
            "{at}: of_game's place"
        );
        if game.variant().draw.repetition.is_some() {
            let of_game_seen: HashMap<(Board, usize), u32> = of_game
                .history
                .positions()
                .map(|(b, place, n)| ((b.clone(), place), n))
                .collect();
            assert_eq!(of_game_seen, positions.seen, "{at}: of_game's positions");
            assert_eq!(of_game.occurrences(), o.occurrences(), "{at}");
        }
        assert!(o.occurrences() >= 1, "{at}");
        if let Some(Repetition::Occurrence(n)) = game.variant().draw.repetition {
            assert!(o.occurrences() < n, "{at}: the game would be drawn");
        }
        assert_eq!(h.start_board(), Some(start), "{at}: the start");
        let last = ext.contains(Extension::Last);
        assert_eq!(h.plies(), if last { plies } else { &[] }, "{at}: the plies");
        let clocks = ext
            .contains(Extension::Clock)
            .then(|| testing::clocks(game));
        assert_eq!(h.clocks(), clocks.as_deref(), "{at}: the clocks");
    }

    #[test]
    fn trackers_follow_games_of_every_shipped_variant() {
        let every: Extensions = Extensions::all();
        for (name, _) in anqi_core::rules::SHIPPED {
            // Long games on the big boards are slow in a debug build: two seeds each, one with
            // the description only (the pool and the counts inferred from the boards), one with
            // every extension (the plies, clocks and the server's count).
            follow(name, 0, described());
            follow(name, 1, every);
        }
    }

    #[test]
    fn every_extension_on_every_seed_of_the_small_boards() {
        // The same games with and without `last`: what is inferred equals what is told.
        let with_last: Extensions = [Extension::Last, Extension::Variant].into_iter().collect();
        for name in ["traditional-2x4", "strategic-2x4", "chain-capture", "1v2"] {
            for seed in 0..4 {
                let plies = follow(name, seed, described());
                assert_eq!(follow(name, seed, with_last), plies, "{name} {seed}");
            }
        }
    }

    #[test]
    fn turns_kept_by_a_draw_or_a_chain_are_told_from_the_next_place_of_the_same_player() {
        // Orders that name a player twice in a row: whether the turn was kept (a draw, a chain
        // capture going on) or passed to the same player's next place takes the ply itself.
        let chains = Variant::shipped("chain-capture")
            .unwrap()
            .source
            .replace("(chain-capture #t)", "(chain-capture #t) (order 1 2 2)");
        let bag = Variant::shipped("strategic-2x4")
            .unwrap()
            .source
            .replace("(start bag)", "(start bag) (order 1 1 2)");
        for text in [chains, bag] {
            let v = Arc::new(Variant::parse(&text).unwrap());
            for seed in 0..3 {
                follow_variant(v.clone(), seed, described());
                follow_variant(v.clone(), seed, Extensions::all());
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
                follow(name, seed, Extensions::NONE);
            }
        }
    }

    #[test]
    fn colours_come_from_the_first_reveal_as_the_protocol_says() {
        // PROTOCOL.md, Extensions' example on 2x4: player 1 turns up a red pawn, so player 2
        // plays black.
        let v = Variant::shipped("traditional-2x4").unwrap();
        let mut t = Tracker::new(None);
        t.feed(&parse(&setup_line(&v, 2, described()))).unwrap();
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
        t.feed(&parse(&setup_line(&trad, 1, described()))).unwrap();
        assert_eq!(t.variant().unwrap().name, "hong-kong");
        let mut t = Tracker::new(None);
        t.feed(&parse(&setup_line(&trad, 1, Extensions::NONE)))
            .unwrap();
        // The default rules are named after the game type.
        assert_eq!(t.variant().unwrap().name, "traditional");
        assert_eq!(t.setup().unwrap().description, None);
    }

    #[test]
    fn errors_are_kept_for_the_result_in_order() {
        let v = Variant::shipped("traditional-2x4").unwrap();
        let mut t = Tracker::new(None).with_errors(vec![(ErrorCode::Unknown, "no ext".into())]);
        t.feed(&parse(r#"((error syntax "first"))"#)).unwrap();
        t.feed(&parse(&setup_line(&v, 1, Extensions::NONE)))
            .unwrap();
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
        t.feed(&parse(&setup_line(&v, 1, Extensions::NONE)))
            .unwrap();
        let e = t.feed(&parse("((board XXXXXXXXX)(turn 0 1))")).unwrap_err();
        assert!(e.to_string().contains("9 cells on a board of 8"), "{e}");
        let e = t.feed(&parse("((board ........)(turn 0 1))")).unwrap_err();
        assert!(e.to_string().contains("no legal action"), "{e}");
        let seat_3 = setup_line(&v, 3, Extensions::NONE);
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
        assert!(
            matches!(e, ObservationError::NoSuchPlayer { player: 3, .. }),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            "no player 3: the players of traditional-2x4 are 1 to 2"
        );
        let e = make(1, "XXXX", None, two.clone()).unwrap_err();
        assert!(matches!(e, ObservationError::Board(_)), "{e:?}");
        assert!(e.to_string().contains("4 cells on a board of 8"), "{e}");
        let e = make(1, "XXXXXXXX", Some(8), two).unwrap_err();
        assert_eq!(e, ObservationError::ChainOffBoard(8));
        assert_eq!(e.to_string(), "the chain's cell 8 is not on the board");
        let e = make(1, "XXXXXXXX", None, vec![None]).unwrap_err();
        assert!(matches!(
            e,
            ObservationError::Colours {
                given: 1,
                sides: 2,
                ..
            }
        ));
        assert!(e.to_string().contains("1 colours for the 2 sides"), "{e}");
    }

    #[test]
    fn hello_asks_for_the_description_then_joins() {
        let [ext, init] = hello("my bot", "42");
        assert_eq!(ext.to_string(), "((ext variant))");
        assert_eq!(init.to_string(), r#"((init "my bot" 42))"#);
    }

    #[test]
    fn hello_with_asks_for_any_extensions_apart_or_with_init() {
        let lines = |ext, request| -> Vec<String> {
            hello_with("first", "11", ext, request)
                .iter()
                .map(ToString::to_string)
                .collect()
        };
        // What `anqi bridge` sends: one message.
        assert_eq!(
            lines(Extensions::TRACKING, ExtRequest::WithInit),
            ["((init first 11)(ext last clock progress variant))"]
        );
        assert_eq!(
            lines(Extensions::TRACKING, ExtRequest::Apart),
            ["((ext last clock progress variant))", "((init first 11))"]
        );
        assert_eq!(
            lines(described(), ExtRequest::Apart),
            hello("first", "11").map(|m| m.to_string())
        );
        for request in [ExtRequest::Apart, ExtRequest::WithInit] {
            assert_eq!(lines(Extensions::NONE, request), ["((init first 11))"]);
        }
    }

    /// A tracker of player 1 on the 4x8 board, fed the prompts of `boards` in turn (player 1
    /// and 2 alternating from player 1).
    fn fed(boards: &[String]) -> Tracker {
        let v = Variant::shipped("traditional").unwrap();
        let mut t = Tracker::new(None);
        t.feed(&parse(&setup_line(&v, 1, described()))).unwrap();
        for (ply, board) in boards.iter().enumerate() {
            let mover = 1 + ply % 2;
            let line = format!("((board {board})(info {} {mover}))", ply / 2);
            let line = if mover == 1 {
                line.replace("(info", "(turn")
            } else {
                line
            };
            t.feed(&parse(&line)).unwrap();
        }
        t
    }

    /// A board of 32 cells, face-down but for `cells`.
    fn board_with(cells: &[(usize, char)]) -> String {
        let mut b: Vec<char> = "X".repeat(32).chars().collect();
        for &(c, letter) in cells {
            b[c] = letter;
        }
        b.into_iter().collect()
    }

    fn pool_of(t: &Tracker, letter: char) -> u32 {
        t.history()
            .unwrap()
            .unseen(Piece::from_letter(letter).unwrap())
    }

    #[test]
    fn the_pool_follows_reveals_and_captures_ply_by_ply() {
        // Red king turned up at 0, black guard at 1, the king takes the guard: 30 face-down.
        let t = fed(&[
            board_with(&[]),
            board_with(&[(0, 'K')]),
            board_with(&[(0, 'K'), (1, 'g')]),
            board_with(&[(0, '.'), (1, 'K')]),
        ]);
        let h = t.history().unwrap();
        assert_eq!(h.pool().iter().sum::<u32>(), 30);
        assert_eq!((pool_of(&t, 'K'), pool_of(&t, 'g')), (0, 1));
        assert_eq!(h.progress(), 0, "a capture");
        assert_eq!(t.colour(), Some(Colour::Red), "player 1 turned up the king");
    }

    #[test]
    fn a_capture_onto_a_piece_revealed_unseen_is_not_a_reveal() {
        // A prompt is missed: the guard turned up at 1 and was taken by the king at once. The
        // king on 1 is no second king; the guard stays in the pool (nobody saw it).
        let t = fed(&[
            board_with(&[]),
            board_with(&[(0, 'K')]),
            board_with(&[(0, '.'), (1, 'K')]),
        ]);
        let h = t.history().unwrap();
        assert_eq!(h.pool().iter().sum::<u32>(), 31);
        assert_eq!((pool_of(&t, 'K'), pool_of(&t, 'g')), (0, 2));
    }

    #[test]
    fn quiet_moves_count_towards_progress_and_repetitions() {
        // Two pieces step out and back: the position of ply 0 (after the reveals) comes back
        // every 4 plies.
        let start = board_with(&[(0, 'K'), (1, '.'), (30, '.'), (31, 'k')]);
        let step = |a: usize, b: usize, board: &str| -> String {
            let mut cells: Vec<char> = board.chars().collect();
            cells.swap(a, b);
            cells.into_iter().collect()
        };
        let b1 = step(0, 1, &start);
        let b2 = step(31, 30, &b1);
        let b3 = step(1, 0, &b2);
        let boards = [
            start.clone(),
            b1.clone(),
            b2.clone(),
            b3.clone(),
            start.clone(),
            b1,
        ];
        let t = fed(&boards);
        let h = t.history().unwrap();
        assert_eq!(h.progress(), 5);
        let board = |s: &str| Board::parse(s).unwrap();
        assert_eq!(h.occurrences(&board(&start), 0), 2);
        assert_eq!(h.occurrences(&board(&boards[5]), 1), 2);
        assert_eq!(h.occurrences(&board(&b2), 0), 1);
        assert_eq!(h.occurrences(&board(&b2), 1), 0, "another mover");
        assert_eq!(h.turn_place(), 1);
        assert_eq!(t.observation().unwrap().occurrences(), 2);
    }
}
