//! One game's complete state and its rules: turn order and rounds, colour ownership, hidden
//! pieces, the bag, chain captures, the end of the game and draws. Pure: no I/O, no clock (time
//! losses are ruled by the caller through [`Game::forfeit`]).

use super::action::{Action, ActionCounts, ActionKind, Packed};
use super::board::Board;
use super::cell_set::{Cell, MASK_CELLS};
use super::deal::Deal;
use super::movegen::{Counted, Illegal};
use super::piece::Control;
use super::piece::{Colour, Piece};
use super::positions::{board_hash, position_hash, square_hash, Positions};
use super::square::Square;
use super::variant::{ColourRule, Objective, Start, Variant};
use smallvec::SmallVec;
use std::sync::{Arc, OnceLock};

/// Why a game ended. The wire names (`capture-all`, ...) appear in records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Termination {
    /// A side lost its last piece.
    CaptureAll,
    /// The player to move had no legal action.
    NoMoves,
    Resign,
    /// A clock ran out; or a player made no first action in a game under way, within
    /// `[referee] first_move_ms` or before it had to make room on a full server.
    Time,
    /// An illegal action (or too many errors) under a rule that makes it a loss.
    Illegal,
    Disconnect,
    /// The player's program crashed after it connected: it exited with a failure status and
    /// its connection closed (tournaments).
    Crash,
    /// The player never took its seat: its program did not connect and send `(init ...)`
    /// within the connect timeout, or exited before it did (tournaments). Kept apart from
    /// `Crash` because it usually means a wrong command or address, not a bug in the engine.
    NoConnect,
    /// Draw: too many plies without a reveal, a capture, a draw from the bag or a put.
    NoProgress,
    /// Draw: the same position occurred too often.
    Repetition,
    /// Single-player or cooperative goal reached: one colour is gone.
    Cleared,
    /// The ply cap was reached: a single-player or cooperative goal missed, or a competitive
    /// game adjudicated as a draw by the referee's `max_plies`.
    PlyCap,
    /// The referee ended the game by its endgame tables (`adjudicate = "tables"`): a win the
    /// tables prove within the plies the no-progress rule leaves, or a draw they prove. A
    /// decided result, not a fault; the record's result says what the tables ruled.
    Adjudicated,
    /// The server stopped the game with no result: it shut down, or a player never made a
    /// first action before any ply was played (`[referee] first_move_ms`, or evicted to make
    /// room for a new connection; later, that is a loss on `Time`).
    Aborted,
}

impl Termination {
    /// The kebab-case name used in records and logs.
    pub fn name(self) -> &'static str {
        match self {
            Termination::CaptureAll => "capture-all",
            Termination::NoMoves => "no-moves",
            Termination::Resign => "resign",
            Termination::Time => "time",
            Termination::Illegal => "illegal",
            Termination::Disconnect => "disconnect",
            Termination::Crash => "crash",
            Termination::NoConnect => "no-connect",
            Termination::NoProgress => "no-progress",
            Termination::Repetition => "repetition",
            Termination::Cleared => "cleared",
            Termination::PlyCap => "ply-cap",
            Termination::Adjudicated => "adjudicated",
            Termination::Aborted => "aborted",
        }
    }

    /// Whether a player's fault (not the rules) ended the game.
    pub fn is_fault(self) -> bool {
        matches!(
            self,
            Termination::Resign
                | Termination::Time
                | Termination::Illegal
                | Termination::Disconnect
                | Termination::Crash
                | Termination::NoConnect
        )
    }
}

/// How a game ended: the winning side (`None`: draw, failure or aborted), why, and for a loss by
/// fault (resign, time, illegal, disconnect, crash) the player whose fault it was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Outcome {
    /// Winning side (0-based index into the variant's sides).
    pub winner: Option<usize>,
    pub reason: Termination,
    /// The player who lost by a fault.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loser: Option<usize>,
}

/// Why [`Game::play`] refused an action.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    #[error("the game is over")]
    GameOver,
    #[error("it is player {to_move}'s turn, not yours")]
    NotYourTurn { to_move: usize },
    #[error(transparent)]
    Illegal(#[from] Illegal),
}

/// What a played action did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played {
    pub kind: ActionKind,
    /// The piece a reveal turned up.
    pub revealed: Option<Piece>,
    /// The piece a move captured.
    pub captured: Option<Piece>,
    /// The piece a bag draw gave.
    pub drawn: Option<Piece>,
}

/// A position in play, for [`Game::from_position`]: the squares, the unseen pieces, who is to
/// move and the colours decided. (No bag, hand, chain or history: a position of a game
/// without a bag, between two turns.)
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    pub squares: Vec<Square>,
    /// The face-down pieces, one per face-down cell.
    pub face_down: Vec<Piece>,
    /// The place in the turn order of the player to move (0 for the first).
    pub turn_place: usize,
    /// Each side's colour, once decided.
    pub side_colours: Vec<Option<Colour>>,
}

/// Everything the legality of the mover's actions depends on, all of it public: what a client
/// can rebuild from the messages it receives (see the reference client), and what the server
/// uses too, so both always agree.
#[derive(Clone, Copy, Debug)]
pub struct PublicState<'a> {
    pub variant: &'a Variant,
    pub board: &'a Board,
    /// What the mover may move.
    pub control: Control,
    /// The piece the mover drew and must put.
    pub hand: Option<Piece>,
    /// Chain capture in progress: the cell of the piece that must capture again.
    pub chain: Option<Cell>,
    /// Whether a `(bag)` draw is possible.
    pub bag_has_pieces: bool,
}

impl PublicState<'_> {
    /// Calls `f` with every legal action: only puts while holding a drawn piece; only captures
    /// by the chaining piece during a chain; otherwise reveals, moves and a bag draw.
    pub fn for_each_legal(&self, mut f: impl FnMut(Action, ActionKind)) {
        let v = self.variant;
        if let Some(piece) = self.hand {
            for (cell, sq) in self.board.squares().iter().enumerate() {
                if *sq == Square::Empty {
                    f(Action::Put { piece, cell }, ActionKind::Put);
                }
            }
            return;
        }
        if let Some(cell) = self.chain {
            self.board
                .for_each_move_from(&v.topology, &v.capture, cell, true, f);
            return;
        }
        self.board
            .for_each_action(&v.topology, &v.capture, self.control, &mut f);
        if self.bag_has_pieces {
            f(Action::Bag, ActionKind::Bag);
        }
    }

    /// How many legal actions of each kind [`PublicState::for_each_legal`] gives, counted
    /// without listing them in the common case (no piece in hand, no chain).
    pub fn counts(&self) -> ActionCounts {
        let mut counts = ActionCounts::default();
        if self.hand.is_some() || self.chain.is_some() {
            self.for_each_legal(|_, kind| counts.add(kind));
            return counts;
        }
        let v = self.variant;
        counts = self
            .board
            .count_actions(&v.topology, &v.capture, self.control);
        counts.bags = u32::from(self.bag_has_pieces);
        counts
    }

    /// Whether there is any legal action (`counts().total() > 0`), found out cheaply: a
    /// face-down cell or a bag draw settles it at once, else the first movable piece with a
    /// move does.
    pub fn has_any(&self) -> bool {
        if self.hand.is_some() || self.chain.is_some() {
            return self.counts().total() > 0;
        }
        let v = self.variant;
        self.bag_has_pieces || self.board.has_action(&v.topology, &v.capture, self.control)
    }

    /// The `k`-th (from 0) of the actions [`PublicState::for_each_legal`] gives, without
    /// listing the others in the common case (no piece in hand, no chain).
    pub fn nth_legal(&self, k: usize) -> Option<Action> {
        self.nth_legal_kind(k).map(|(a, _)| a)
    }

    /// [`PublicState::nth_legal`], with the action's kind.
    fn nth_legal_kind(&self, k: usize) -> Option<(Action, ActionKind)> {
        if self.hand.is_some() || self.chain.is_some() {
            let (mut i, mut found) = (0, None);
            self.for_each_legal(|a, kind| {
                if i == k {
                    found = Some((a, kind));
                }
                i += 1;
            });
            return found;
        }
        let v = self.variant;
        let board = self.board;
        match board.nth_action(&v.topology, &v.capture, self.control, k) {
            Some(found) => Some(found),
            None => {
                let moves = board.count_actions(&v.topology, &v.capture, self.control);
                (self.bag_has_pieces && k == moves.total() as usize)
                    .then_some((Action::Bag, ActionKind::Bag))
            }
        }
    }

    /// The legal action of index `choose(n)` among the `n` of [`PublicState::for_each_legal`]
    /// (`choose` returns an index below `n`), with its kind (as a [`Packed`] word): what
    /// [`PublicState::counts`] then [`PublicState::nth_legal`] give. `None` when there is no
    /// legal action (`choose` is not called) or `choose` returns an index out of range. The
    /// general case of [`Game::choose_legal`], which picks from the board's count when it
    /// can ([`PublicState::choose_counted`]).
    fn choose_listed(&self, choose: impl FnOnce(u32) -> u32) -> Option<Packed> {
        let n = self.counts().total();
        let (action, kind) = (n > 0).then(|| self.nth_legal_kind(choose(n) as usize))??;
        Some(Packed::new(action, kind))
    }

    /// [`PublicState::choose_listed`] from the board's count for this state (no piece in hand,
    /// no chain), in one count instead of two.
    fn choose_counted(&self, counted: &Counted, choose: impl FnOnce(u32) -> u32) -> Option<Packed> {
        let v = self.variant;
        let on_board = counted.total;
        let n = on_board + u32::from(self.bag_has_pieces);
        if n == 0 {
            return None;
        }
        let k = choose(n);
        if k < on_board {
            self.board.action_at(&v.topology, &v.capture, counted, k)
        } else {
            (self.bag_has_pieces && k == on_board)
                .then_some(Packed::new(Action::Bag, ActionKind::Bag))
        }
    }

    /// The legal actions, collected.
    pub fn legal_actions(&self) -> Vec<Action> {
        let mut out = Vec::new();
        self.for_each_legal(|a, _| out.push(a));
        out
    }

    /// Whether the piece at `cell` could capture now (what starts or continues a chain).
    pub fn can_capture_from(&self, cell: Cell) -> bool {
        let v = self.variant;
        let mut any = false;
        self.board
            .for_each_move_from(&v.topology, &v.capture, cell, true, |_, _| any = true);
        any
    }
}

/// A game in progress. Players are numbered 1..=N as on the wire.
#[derive(Clone, Debug)]
pub struct Game {
    variant: Arc<Variant>,
    board: Board,
    /// Identity of the face-down piece of each cell (server-side knowledge). This array and
    /// the game's other small ones are kept in the game up to [`MASK_CELLS`] cells (or a few
    /// places of the turn order), like the board's squares and codes: see the board's
    /// `Squares`.
    hidden: SmallVec<[Option<Piece>; MASK_CELLS]>,
    /// Cells that have held a piece (strategic games show the others as `X`).
    filled: SmallVec<[bool; MASK_CELLS]>,
    /// Pieces still in the bag, the next draw first (reversed: the next draw is last).
    bag: Vec<Piece>,
    /// The piece the player to move drew and must put.
    hand: Option<Piece>,
    /// After a capture under chain-capture rules: the cell of the piece that must capture again.
    chain: Option<Cell>,
    /// Colour of each side, once decided (a game has one side or two; a one-side game's
    /// second entry stays `None`).
    side_colour: [Option<Colour>; 2],
    /// Pieces left per colour: on the board (face-up or down), in the bag or in hand.
    remaining: [u32; 2],
    /// Index of the player to move in the turn order.
    turn_pos: usize,
    /// What the player to move may move ([`Game::control_of`] the mover), set by
    /// [`Game::start_turn`]: colours are decided by a reveal or a draw, before it.
    control: Control,
    /// The side of the player at each place of the turn order.
    turn_sides: SmallVec<[usize; 4]>,
    /// The paper's TURN: completed rounds of the turn order.
    round: u32,
    ply: u32,
    /// Consecutive plies without progress (reveal, capture, draw, put).
    quiet_plies: u32,
    /// Positions (board, place in the turn order, chain) since the last irreversible action,
    /// and how often each occurred, when the variant has a repetition rule.
    positions: Positions,
    /// The hash of the board ([`board_hash`]) when the variant has a repetition rule, kept
    /// up to date square by square as the game plays (0 otherwise): the repetition rule's
    /// hash of a position without reading the board.
    board_hash: u64,
    /// The quiet step of the last ply when the game ended on it before its position was kept
    /// (the no-progress draw, no move, the ply cap): the kept positions end one step behind
    /// the board. `None` otherwise.
    unkept_step: Option<(Cell, Cell)>,
    /// How many times the current position occurred before, since the last irreversible
    /// action, counted once when it is added ([`Game::repetitions`], which a learner's
    /// observation reads every ply).
    repeats: u32,
    /// The board's count of the mover's actions, when `counted_now` says [`Game::start_turn`]
    /// made it this turn (see [`Board::count_pieces`]): [`Game::choose_legal`] then picks
    /// from it, and [`Game::counts`] reads it.
    counted: Counted,
    counted_now: bool,
    /// Legal action counts of the player to move, counted when first asked for in a turn: the
    /// rules themselves only need to know whether there is any (see [`Game::start_turn`]),
    /// which is much cheaper, and a driver listing the actions has no use for them.
    counts: OnceLock<ActionCounts>,
    outcome: Option<Outcome>,
}

impl Game {
    /// Starts a game from a deal.
    ///
    /// # Panics
    /// When the deal does not have one entry per cell.
    pub fn new(variant: Arc<Variant>, deal: Deal) -> Game {
        let size = variant.topology.size();
        assert_eq!(deal.cells.len(), size, "one deal entry per cell");
        let mut board = Board::hidden(size);
        let mut hidden = SmallVec::from_elem(None, size);
        let mut remaining = [0u32; 2];
        for p in &variant.pieces {
            remaining[p.colour.index()] += 1;
        }
        for (cell, p) in deal.cells.iter().enumerate() {
            match p {
                Some(p) if deal.face_up[cell] => board.set(cell, Square::Up(*p)),
                Some(p) => hidden[cell] = Some(*p),
                None => board.set(cell, Square::Empty),
            }
        }
        let filled = deal.cells.iter().map(Option::is_some).collect();
        let side_colour = match variant.colours {
            ColourRule::Fixed => [Some(Colour::Red), Some(Colour::Black)],
            ColourRule::FirstReveal => [None; 2],
        };
        let mut bag = deal.bag;
        bag.reverse();
        let turn_sides = variant.order.iter().map(|&p| variant.side_of(p)).collect();
        let mut game = Game {
            variant,
            board,
            hidden,
            filled,
            bag,
            hand: None,
            chain: None,
            side_colour,
            remaining,
            turn_pos: 0,
            control: Control::Nothing,
            turn_sides,
            round: 0,
            ply: 0,
            quiet_plies: 0,
            positions: Positions::default(),
            board_hash: 0,
            unkept_step: None,
            repeats: 0,
            counted: Counted::default(),
            counted_now: false,
            counts: OnceLock::new(),
            outcome: None,
        };
        game.board_hash = game.hash_of_board();
        game.start_turn(NextTurn::Count, None);
        game
    }

    /// Starts a game from a position anywhere in play (what a solver or an endgame table walks
    /// through): `squares` as everyone sees them, `face_down` the unseen pieces (one per
    /// face-down cell, in any order: the first face-down cell gets the first), the player at
    /// `turn_place` of the turn order to move, and each side's colour as decided. Pieces missing
    /// from the board and the unseen ones are the captured ones. The game counts its plies and
    /// its no-progress and repetition draws from here.
    ///
    /// # Errors
    /// A bag variant (its bag and hand are not a position's), a board of the wrong size, as
    /// many unseen pieces as face-down cells, pieces the variant does not have, a turn place
    /// out of the order, or colours that the variant fixes otherwise.
    pub fn from_position(variant: Arc<Variant>, position: &Position) -> Result<Game, Illegal> {
        let refuse = |why: String| Err(Illegal(why));
        if variant.start == Start::Bag {
            return refuse("a bag variant's position has a bag and a hand as well".into());
        }
        let size = variant.topology.size();
        if position.squares.len() != size {
            return refuse(format!(
                "{} squares for a board of {size} cells",
                position.squares.len()
            ));
        }
        let down: Vec<Cell> = (0..size)
            .filter(|&c| position.squares[c] == Square::Hidden)
            .collect();
        if down.len() != position.face_down.len() {
            return refuse(format!(
                "{} face-down cells and {} unseen pieces",
                down.len(),
                position.face_down.len()
            ));
        }
        let mut left = [0u32; 14];
        for p in &variant.pieces {
            left[piece_index(*p)] += 1;
        }
        let up = position.squares.iter().filter_map(|s| match s {
            Square::Up(p) => Some(*p),
            _ => None,
        });
        for p in up.chain(position.face_down.iter().copied()) {
            let n = &mut left[piece_index(p)];
            if *n == 0 {
                return refuse(format!("more {p} than the variant has"));
            }
            *n -= 1;
        }
        if position.turn_place >= variant.order.len() {
            return refuse(format!(
                "turn place {} of an order of {}",
                position.turn_place,
                variant.order.len()
            ));
        }
        if position.side_colours.len() != variant.sides.len()
            || (variant.colours == ColourRule::Fixed
                && position.side_colours != [Some(Colour::Red), Some(Colour::Black)])
        {
            return refuse("colours the variant does not allow".into());
        }
        // A game on an empty board, then filled in: `new` rules on its empty board at once (no
        // move: the game is over), so that ruling is cleared before the position's turn starts.
        let mut game = Game::new(variant, Deal::face_down(vec![None; size]));
        let mut remaining = [0u32; 2];
        for (cell, sq) in position.squares.iter().enumerate() {
            game.board.set(cell, *sq);
            game.filled[cell] = *sq != Square::Empty;
            if let Square::Up(p) = sq {
                remaining[p.colour.index()] += 1;
            }
        }
        for (&cell, &p) in down.iter().zip(&position.face_down) {
            game.hidden[cell] = Some(p);
            remaining[p.colour.index()] += 1;
        }
        game.remaining = remaining;
        for (kept, &colour) in game.side_colour.iter_mut().zip(&position.side_colours) {
            *kept = colour;
        }
        game.turn_pos = position.turn_place;
        game.outcome = None;
        // The position starts the positions the repetition rule compares (the empty board
        // `new` ruled on is none of them).
        game.positions.clear();
        game.board_hash = game.hash_of_board();
        game.start_turn(NextTurn::Count, None);
        Ok(game)
    }

    pub fn variant(&self) -> &Arc<Variant> {
        &self.variant
    }

    /// The public board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The board string sent on the wire. In a bag game, a cell that has never held a piece is
    /// shown as `X` (as in the paper's Table V) and a vacated one as `.`.
    pub fn wire_board(&self) -> String {
        let bag_game = self.variant.start == Start::Bag;
        self.board
            .squares()
            .iter()
            .zip(&self.filled)
            .map(|(sq, &filled)| match sq {
                Square::Empty if bag_game && !filled => 'X',
                sq => sq.letter(),
            })
            .collect()
    }

    /// The player to move (1-based).
    pub fn to_move(&self) -> usize {
        self.variant.order[self.turn_pos]
    }

    /// The paper's TURN counter: rounds of the turn order completed so far.
    pub fn round(&self) -> u32 {
        self.round
    }

    /// Plies played so far (every action counts, bag draws included).
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// The place in the variant's turn order (`Variant::order`, from 0) of the player to move:
    /// what tells apart two turns of a player the order names more than once.
    pub fn turn_place(&self) -> usize {
        self.turn_pos
    }

    /// The positions since the last reveal, capture, draw or put, oldest first and the
    /// current one last, as the repetition rule compares them: the board, and the place in the
    /// turn order of the player to move then. The game keeps them only when its variant has a
    /// repetition rule (otherwise this is empty). A game that ended on a quiet ply before its
    /// position was compared (a no-progress draw, say) ends the list at the position before.
    pub fn recent_positions(&self) -> Vec<(Board, usize)> {
        self.positions
            .boards(self.board.codes(), self.unkept_step)
            .into_iter()
            .map(|(codes, place)| {
                let squares: String = codes
                    .iter()
                    .map(|&code| Square::from_code(code).map_or('?', Square::letter))
                    .collect();
                let board = Board::parse(&squares).expect("kept codes are squares");
                (board, place)
            })
            .collect()
    }

    /// Plies since the last reveal, capture, draw or put: what the no-progress rule counts.
    pub fn quiet_plies(&self) -> u32 {
        self.quiet_plies
    }

    /// How many times the current position occurred before, since the last reveal, capture,
    /// draw or put (0: the first time), as the repetition rule compares positions. Always 0
    /// in a variant without a repetition rule (the game keeps no positions then).
    pub fn repetitions(&self) -> u32 {
        self.repeats
    }

    /// The side (0-based) of a player (1-based).
    pub fn side_of(&self, player: usize) -> usize {
        self.variant.side_of(player)
    }

    /// The colour a side plays, once decided.
    pub fn colour_of_side(&self, side: usize) -> Option<Colour> {
        self.side_colour.get(side).copied().flatten()
    }

    /// The piece the player to move has drawn and must put.
    pub fn hand(&self) -> Option<Piece> {
        self.hand
    }

    /// Pieces still in the bag.
    pub fn bag_len(&self) -> usize {
        self.bag.len()
    }

    /// Legal action counts of the player to move.
    pub fn counts(&self) -> ActionCounts {
        if self.counted_now {
            // Counted with no bag to draw from and no piece in hand: the board's count is all.
            return self.counted.counts;
        }
        *self.counts.get_or_init(|| self.public_state().counts())
    }

    /// The legal action counts `player` would have in this position: the mover's own counts,
    /// and for anyone else what they could do were it their turn (the board as it is, their
    /// own control, no piece in hand, no chain: those belong to the mover). This is the
    /// mobility of the paper's Section III for every player, not only the one to move.
    pub fn counts_of(&self, player: usize) -> ActionCounts {
        if player == self.to_move() {
            return self.counts();
        }
        let state = PublicState {
            variant: &self.variant,
            board: &self.board,
            control: self.control_of(player),
            hand: None,
            chain: None,
            bag_has_pieces: !self.bag.is_empty(),
        };
        state.counts()
    }

    /// The face-down piece at `cell`, if any: the referee's knowledge, not a player's.
    pub fn hidden_piece(&self, cell: Cell) -> Option<Piece> {
        self.hidden.get(cell).copied().flatten()
    }

    /// The pieces in the bag, the next draw first: the referee's knowledge, not a player's.
    pub fn bag_pieces(&self) -> impl Iterator<Item = Piece> + '_ {
        self.bag.iter().rev().copied()
    }

    /// The face-down pieces on the board, counted per piece (index `colour * 7 + kind`, the
    /// order of the letters `KGBRNCPkgbrncp`). Nothing in play tells two face-down pieces
    /// apart, so a reveal turns up each of these with a probability proportional to its count:
    /// what a chance node of a search offers.
    pub fn face_down_counts(&self) -> [u32; 14] {
        let mut counts = [0; 14];
        for p in self.hidden.iter().flatten() {
            counts[piece_index(*p)] += 1;
        }
        counts
    }

    /// The pieces in the bag, counted as in [`Game::face_down_counts`]: what a draw may give.
    pub fn bag_counts(&self) -> [u32; 14] {
        let mut counts = [0; 14];
        for p in &self.bag {
            counts[piece_index(*p)] += 1;
        }
        counts
    }

    /// Chance: makes the face-down piece at `cell` be `piece`, by exchanging the face-down
    /// pieces of `cell` and of another face-down cell that holds `piece` (the first in cell
    /// order). The multiset of face-down pieces, and so everything a player knows, stays the
    /// same: revealing `cell` next is a reveal of a game dealt that way. Returns the other cell
    /// (`None` when `cell` held `piece` already), so a caller keeping the deal can exchange the
    /// same two cells in it.
    ///
    /// # Errors
    /// When `cell` holds no face-down piece, or no face-down piece is `piece`.
    pub fn arrange_reveal(&mut self, cell: Cell, piece: Piece) -> Result<Option<Cell>, Illegal> {
        match self.hidden.get(cell).copied().flatten() {
            None => Err(Illegal(format!("cell {cell} holds no face-down piece"))),
            Some(p) if p == piece => Ok(None),
            Some(_) => {
                let other = self
                    .hidden
                    .iter()
                    .position(|&h| h == Some(piece))
                    .ok_or_else(|| Illegal(format!("no face-down piece is {piece}")))?;
                self.hidden.swap(cell, other);
                Ok(Some(other))
            }
        }
    }

    /// Chance, all at once: deals the unseen pieces anew, the face-down ones among the
    /// face-down cells and the bag's in a new order, every arrangement equally likely when
    /// `below(n)` draws uniformly from `0..n`. The multisets stay the same, and so does
    /// everything a player knows: the same public state, another hidden one (determinized
    /// search samples these).
    pub fn redeal_unseen(&mut self, mut below: impl FnMut(u32) -> u32) {
        let cells: Vec<Cell> = (0..self.hidden.len())
            .filter(|&c| self.hidden[c].is_some())
            .collect();
        for i in (1..cells.len()).rev() {
            let j = below(i as u32 + 1) as usize;
            self.hidden.swap(cells[i], cells[j]);
        }
        for i in (1..self.bag.len()).rev() {
            let j = below(i as u32 + 1) as usize;
            self.bag.swap(i, j);
        }
    }

    /// Chance: makes the next bag draw be `piece`, by exchanging it with the first later draw
    /// that is `piece`. The bag's multiset stays the same. Returns how many draws after the
    /// next one the exchanged piece was (`None` when the next draw was `piece` already).
    ///
    /// # Errors
    /// When the bag holds no `piece`.
    pub fn arrange_draw(&mut self, piece: Piece) -> Result<Option<usize>, Illegal> {
        // `bag` is kept reversed: the next draw is its last item.
        let Some(next) = self.bag.len().checked_sub(1) else {
            return Err(Illegal("the bag is empty".into()));
        };
        if self.bag[next] == piece {
            return Ok(None);
        }
        let at = self
            .bag
            .iter()
            .rposition(|&p| p == piece)
            .ok_or_else(|| Illegal(format!("the bag holds no {piece}")))?;
        self.bag.swap(at, next);
        Ok(Some(next - at))
    }

    /// How the game ended, once it has.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// Pieces of `colour` left: on the board, in the bag or in hand.
    pub fn remaining(&self, colour: Colour) -> u32 {
        self.remaining[colour.index()]
    }

    /// What a player may move.
    #[inline]
    pub fn control_of(&self, player: usize) -> Control {
        if player == self.to_move() {
            // Kept for the turn (a learner's observation asks every ply, and finding a
            // player's side is a search of the variant's sides).
            return self.control;
        }
        self.control_of_side(self.side_of(player))
    }

    /// What the players of `side` may move.
    fn control_of_side(&self, side: usize) -> Control {
        match self.variant.objective {
            Objective::Clear { .. } => Control::Both,
            Objective::Capture => self.colour_of_side(side).into(),
        }
    }

    /// What the player to move sees: everything legality depends on.
    pub fn public_state(&self) -> PublicState<'_> {
        PublicState {
            variant: &self.variant,
            board: &self.board,
            control: self.control,
            hand: self.hand,
            chain: self.chain,
            bag_has_pieces: !self.bag.is_empty(),
        }
    }

    /// Calls `f` with every legal action of the player to move.
    pub fn for_each_legal(&self, f: impl FnMut(Action, ActionKind)) {
        self.public_state().for_each_legal(f);
    }

    /// The `k`-th (from 0) of the legal actions of the player to move, in the order of
    /// [`Game::for_each_legal`], without listing them (`None` when `k` is not below
    /// `counts().total()`): how a random playout picks its action.
    pub fn nth_legal(&self, k: usize) -> Option<Action> {
        self.public_state().nth_legal(k)
    }

    /// The legal action of the player to move of index `choose(n)` among the `n` of
    /// [`Game::for_each_legal`], with its kind, `None` when there is none: the pick random
    /// playouts make ([`super::playout`]), for callers that play the same games.
    pub fn pick_legal(&mut self, choose: impl FnOnce(u32) -> u32) -> Option<(Action, ActionKind)> {
        self.choose_legal(choose).map(Packed::unpack)
    }

    /// The legal action of the player to move of index `choose(n)` among the `n` of
    /// [`Game::for_each_legal`], with its kind: [`PublicState::choose_listed`], from the
    /// board's count when there is one (no piece in hand, no chain, a board with sets). The
    /// count goes into the game's own buffer, rather than a new one every ply.
    pub(crate) fn choose_legal(&mut self, choose: impl FnOnce(u32) -> u32) -> Option<Packed> {
        if self.counted_now {
            return self.public_state().choose_counted(&self.counted, choose);
        }
        let v = &self.variant;
        if self.hand.is_none()
            && self.chain.is_none()
            && self
                .board
                .count_pieces(&v.topology, &v.capture, self.control, &mut self.counted)
        {
            // Not `counted_now`: that count is the whole of `counts()`, and this one may
            // leave out a bag draw.
            return self.public_state().choose_counted(&self.counted, choose);
        }
        self.public_state().choose_listed(choose)
    }

    /// The legal actions of the player to move.
    pub fn legal_actions(&self) -> Vec<Action> {
        let mut out = Vec::new();
        self.for_each_legal(|a, _| out.push(a));
        out
    }

    /// Checks an action by `player` without playing it.
    ///
    /// # Errors
    /// Game over, not this player's turn, or why the action is illegal.
    pub fn check(&self, player: usize, action: Action) -> Result<ActionKind, PlayError> {
        if self.outcome.is_some() {
            return Err(PlayError::GameOver);
        }
        if player != self.to_move() {
            return Err(PlayError::NotYourTurn {
                to_move: self.to_move(),
            });
        }
        let illegal = |s: String| Err(PlayError::Illegal(Illegal(s)));
        let v = &self.variant;
        let size = self.board.len();
        let cell_ok = |c: Cell| c < size;
        if let Some(piece) = self.hand {
            return match action {
                Action::Put { piece: p, cell } if p == piece => {
                    match self.board.squares().get(cell) {
                        Some(Square::Empty) => Ok(ActionKind::Put),
                        Some(_) => illegal(format!("cell {cell} is not empty")),
                        None => illegal(format!(
                            "cell {cell} is out of range: the board has cells 0..{}",
                            size - 1
                        )),
                    }
                }
                Action::Put { piece: p, .. } => illegal(format!("you hold {piece}, not {p}")),
                _ => illegal(format!(
                    "you drew {piece}: put it on an empty cell with (put {piece} POS)"
                )),
            };
        }
        if let Some(cell) = self.chain {
            return match action {
                Action::Move { from, to } if from == cell => {
                    let kind =
                        self.board
                            .check_move(&v.topology, &v.capture, Control::Both, from, to)?;
                    if matches!(self.board.get(to), Square::Up(_)) {
                        Ok(kind)
                    } else {
                        illegal(format!(
                            "chain capture: the piece at {cell} must capture again"
                        ))
                    }
                }
                _ => illegal(format!(
                    "chain capture: the piece at {cell} must capture again"
                )),
            };
        }
        match action {
            Action::Reveal(cell) => match self.board.squares().get(cell) {
                None => illegal(format!(
                    "cell {cell} is out of range: the board has cells 0..{}",
                    size - 1
                )),
                Some(Square::Hidden) => Ok(ActionKind::Reveal),
                Some(Square::Empty) => illegal(format!("cell {cell} is empty: nothing to reveal")),
                Some(Square::Up(p)) => {
                    illegal(format!("cell {cell} is already face-up ({})", p.describe()))
                }
            },
            Action::Move { from, to } => {
                let control = self.control_of(player);
                Ok(self
                    .board
                    .check_move(&v.topology, &v.capture, control, from, to)?)
            }
            Action::Bag if v.start != Start::Bag => illegal(
                "this game has no bag: (bag) and (put ...) belong to the strategic variants".into(),
            ),
            Action::Bag if self.bag.is_empty() => {
                illegal("the bag is empty: every piece has been drawn".into())
            }
            Action::Bag => Ok(ActionKind::Bag),
            Action::Put { piece, cell } => {
                if !cell_ok(cell) {
                    return illegal(format!("cell {cell} is out of range"));
                }
                illegal(format!(
                    "you hold no piece: draw one with (bag) before (put {piece} {cell})"
                ))
            }
        }
    }

    /// Plays an action by `player`, then rules on the end of the game.
    ///
    /// # Errors
    /// As [`Game::check`]; the game is unchanged on error.
    pub fn play(&mut self, player: usize, action: Action) -> Result<Played, PlayError> {
        let kind = self.check(player, action)?;
        Ok(self.play_unchecked(action, kind))
    }

    /// Plays an action of the player to move taken from this turn's legal actions
    /// ([`Game::for_each_legal`], or the board's [`Board::move_ids`]), of the
    /// kind they give, without checking it again: how `VecGame` plays the ids it listed and
    /// checked against its list. An action that was not listed this turn leaves the game in a
    /// state the rules never reach (debug builds check it).
    pub fn play_listed(&mut self, action: Action, kind: ActionKind) -> Played {
        debug_assert_eq!(
            self.check(self.to_move(), action).ok(),
            Some(kind),
            "{action} is not a legal action of this turn of that kind"
        );
        self.play_turn(action, kind, NextTurn::Check)
    }

    /// Plays an action of the player to move that is known to be legal, of the kind
    /// [`Game::check`] would say (as [`Game::for_each_legal`] gives it), without checking
    /// it: how a random playout plays the action it chose. An illegal action here leaves the
    /// game in a state the rules never reach.
    pub(crate) fn play_unchecked(&mut self, action: Action, kind: ActionKind) -> Played {
        self.play_turn(action, kind, NextTurn::Count)
    }

    /// [`Game::play_unchecked`], then the next turn's start as `next` says.
    #[inline(always)]
    fn play_turn(&mut self, action: Action, kind: ActionKind, next: NextTurn) -> Played {
        let mut played = Played {
            kind,
            revealed: None,
            captured: None,
            drawn: None,
        };
        let mut keeps_turn = false;
        // The board's hash, kept only for the repetition rule; the step of a quiet ply, for
        // the positions it compares.
        let hashing = self.variant.draw.repetition.is_some();
        let mut step = None;
        match action {
            Action::Reveal(cell) => {
                let piece = self.hidden[cell]
                    .take()
                    .expect("a face-down cell has a dealt piece");
                self.board.set(cell, Square::Up(piece));
                if hashing {
                    self.board_hash ^= square_hash(cell, Square::Hidden.code())
                        ^ square_hash(cell, Square::Up(piece).code());
                }
                self.decide_colours(piece.colour);
                played.revealed = Some(piece);
            }
            Action::Move { from, to } => {
                self.chain = None;
                let target = self.board.move_piece(from, to);
                if let Square::Up(t) = target {
                    self.remaining[t.colour.index()] -= 1;
                    played.captured = Some(t);
                }
                if hashing {
                    let mover = self.board.codes()[to];
                    self.board_hash ^= square_hash(from, mover)
                        ^ square_hash(to, target.code())
                        ^ square_hash(to, mover);
                }
                step = Some((from, to));
                // The cell has held a piece now: vacated later, a bag game shows it as `.`.
                self.filled[to] = true;
                if played.captured.is_some()
                    && self.variant.chain_capture
                    && self.public_state().can_capture_from(to)
                {
                    self.chain = Some(to);
                    keeps_turn = true;
                }
            }
            Action::Bag => {
                let piece = self.bag.pop().expect("checked: the bag is not empty");
                self.decide_colours(piece.colour);
                self.hand = Some(piece);
                played.drawn = Some(piece);
                keeps_turn = true;
            }
            Action::Put { piece, cell } => {
                self.board.set(cell, Square::Up(piece));
                if hashing {
                    // Onto an empty cell, whose part is 0.
                    self.board_hash ^= square_hash(cell, Square::Up(piece).code());
                }
                self.filled[cell] = true;
                self.hand = None;
            }
        }
        let progress = kind != ActionKind::Step || played.captured.is_some();
        self.ply += 1;
        self.quiet_plies = if progress { 0 } else { self.quiet_plies + 1 };
        if progress {
            // Nothing before an irreversible action can occur again.
            self.positions.clear();
            step = None;
        }
        if !keeps_turn {
            // Without a branch: two players take turns in a pattern the processor may not
            // predict (after a capture-chain or a bag draw keeps the turn).
            let next = self.turn_pos + 1;
            let wraps = next == self.variant.order.len();
            self.turn_pos = if wraps { 0 } else { next };
            self.round += u32::from(wraps);
        }
        self.start_turn(next, step);
        played
    }

    /// The first piece a side reveals or draws decides the colours (competitive games only).
    fn decide_colours(&mut self, colour: Colour) {
        if self.variant.objective == Objective::Capture
            && self.side_colour.iter().all(Option::is_none)
        {
            let side = self.side_of(self.to_move());
            self.side_colour[side] = Some(colour);
            self.side_colour[1 - side] = Some(colour.other());
        }
    }

    /// The board's hash for the repetition rule ([`board_hash`]), 0 in a variant without one.
    fn hash_of_board(&self) -> u64 {
        if self.variant.draw.repetition.is_some() {
            board_hash(self.board.codes())
        } else {
            0
        }
    }

    /// Looks at the mover's legal actions (counting them when `next` says so) and rules on the
    /// end of the game, in this order: a colour is gone (capture-all, or cleared); the mover
    /// has no legal action; the ply cap; the no-progress draw; the repetition draw.
    /// `step` is the quiet step (a step onto an empty cell) that led to the position, if one
    /// did: how the positions since the last irreversible action are kept.
    fn start_turn(&mut self, next: NextTurn, step: Option<(Cell, Cell)>) {
        // Until the position is kept (below, unless a ruling ends the game first).
        self.unkept_step = step;
        self.counts = OnceLock::new();
        self.repeats = 0;
        self.control = self.control_of_side(self.turn_sides[self.turn_pos]);
        // With no face-down cell to reveal and no bag to draw from, whether the mover is stuck
        // takes looking at its moves. A random playout, which picks its next action from a
        // count of them (`Game::choose_legal`), counts them all and keeps the count for the
        // turn; a driver that lists them (`VecGame`) has no use for a count, and only asks
        // whether there is a move, stopping at the first.
        let v = &self.variant;
        self.counted_now = next == NextTurn::Count
            && self.hand.is_none()
            && self.chain.is_none()
            && self.bag.is_empty()
            && !self.board.has_face_down()
            && self
                .board
                .count_pieces(&v.topology, &v.capture, self.control, &mut self.counted);
        let stuck = if self.counted_now {
            self.counted.total == 0
        } else {
            !self.public_state().has_any()
        };
        match self.variant.objective {
            Objective::Capture => {
                for side in 0..2 {
                    if let Some(c) = self.side_colour[side] {
                        if self.remaining[c.index()] == 0 {
                            return self.finish(Some(1 - side), Termination::CaptureAll);
                        }
                    }
                }
                if stuck {
                    let mover_side = self.side_of(self.to_move());
                    return self.finish(Some(1 - mover_side), Termination::NoMoves);
                }
            }
            Objective::Clear { ply_cap } => {
                if self.remaining.contains(&0) {
                    return self.finish(Some(0), Termination::Cleared);
                }
                if stuck {
                    return self.finish(None, Termination::NoMoves);
                }
                if self.ply >= ply_cap {
                    return self.finish(None, Termination::PlyCap);
                }
            }
        }
        let draw = self.variant.draw;
        if draw.no_progress.is_some_and(|n| self.quiet_plies >= n) {
            return self.finish(None, Termination::NoProgress);
        }
        if let Some(rule) = draw.repetition {
            let codes = self.board.codes();
            let hash = position_hash(self.board_hash, self.turn_pos, self.chain);
            self.repeats = self
                .positions
                .push(hash, codes, self.turn_pos, self.chain, step);
            self.unkept_step = None;
            if self.positions.repeated(rule, self.repeats, codes) {
                self.finish(None, Termination::Repetition);
            }
        }
    }

    fn finish(&mut self, winner: Option<usize>, reason: Termination) {
        self.finish_by(winner, reason, None);
    }

    /// Ends the game unless it has ended already: the first ruling stands.
    fn finish_by(&mut self, winner: Option<usize>, reason: Termination, loser: Option<usize>) {
        if self.outcome.is_none() {
            self.outcome = Some(Outcome {
                winner,
                reason,
                loser,
            });
        }
    }

    /// `player` resigns: their side loses.
    pub fn resign(&mut self, player: usize) {
        self.forfeit(player, Termination::Resign);
    }

    /// `player` loses for `reason` (time, illegal action, disconnect): the other side wins; in a
    /// one-side game, the side fails.
    pub fn forfeit(&mut self, player: usize, reason: Termination) {
        let side = self.side_of(player);
        let winner = (self.variant.sides.len() == 2).then_some(1 - side);
        self.finish_by(winner, reason, Some(player));
    }

    /// The referee ends the game as a draw for a reason outside the rules (a tournament's ply
    /// cap).
    pub fn adjudicate_draw(&mut self, reason: Termination) {
        self.finish(None, reason);
    }

    /// The referee ends the game by a ruling of its endgame tables: `winner` wins (`None`: a
    /// draw), as [`Termination::Adjudicated`]. The first ruling stands: a game already over is
    /// left as it is.
    ///
    /// # Panics
    /// When `winner` is not a side of the variant.
    pub fn adjudicate(&mut self, winner: Option<usize>) {
        if let Some(side) = winner {
            assert!(
                side < self.variant.sides.len(),
                "side {side} adjudicated the winner of a {}-side game",
                self.variant.sides.len()
            );
        }
        self.finish(winner, Termination::Adjudicated);
    }

    /// The server stopped the game: no result (see [`Termination::Aborted`]).
    pub fn abort(&mut self) {
        self.finish(None, Termination::Aborted);
    }

    /// The `(win PLAYER TEAM)` values for the outcome: a side of one player wins as that player
    /// (`(win 1 0)`), a side of several as a team (`(win 0 2)`); no winner is `(win 0 0)`.
    pub fn win_clause(&self) -> (usize, usize) {
        match self.outcome.and_then(|o| o.winner) {
            None => (0, 0),
            Some(side) => match self.variant.sides[side].as_slice() {
                [only] => (*only, 0),
                _ => (0, side + 1),
            },
        }
    }
}

/// A piece's index in per-piece arrays ([`Piece::index`]).
fn piece_index(p: Piece) -> usize {
    p.index()
}

/// What [`Game::start_turn`] does with the mover's legal actions, besides ruling on the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NextTurn {
    /// Counts them on a board with no face-down cell (where whether the mover is stuck takes
    /// looking at its moves anyway), for a random playout to pick from.
    Count,
    /// Only asks whether there is one, stopping at the first: for a driver that lists them.
    Check,
}

#[cfg(test)]
mod tests;
