//! One game's complete state and its rules: turn order and rounds, colour ownership, hidden
//! pieces, the bag, chain captures, the end of the game and draws. Pure: no I/O, no clock (time
//! losses are ruled by the caller through [`Game::forfeit`]).
//!
//! # Layout
//!
//! One type, [`Game`], whose methods are grouped by concern, one file each:
//! - this file: the `Game` type and its fields, construction ([`Game::new`] from a deal,
//!   [`Game::from_position`] from a position in play), and applying an action
//!   ([`Game::play`], and the unchecked entries of the random playouts and `VecGame`).
//! - `legal`: the legal actions of the player to move: listed, counted, and checked one at a
//!   time ([`Game::check`]).
//! - `pick`: picking a legal action by its index from a count, the random playouts' path.
//! - `turn`: turn order and rounds, sides, colour ownership and what a player may move, and
//!   the start of each turn.
//! - `chance`: the hidden side of the game: the face-down pieces, the bag and the hand, and
//!   the chance hooks that arrange or redeal them (the Python package's chance modes).
//! - `end`: how a game ends: [`Termination`], [`Outcome`], the rulings at the start of a turn
//!   (capture-all, no move, the ply cap, the no-progress and repetition draws) and those from
//!   outside the rules (resign, forfeit, adjudication, abort).
//! - `public`: [`PublicState`], what legality depends on, shared with clients.
//!
//! Imports run one way: `public` needs the board (with its move generator) and the variant, not
//! `Game`; every other file is methods of the `Game` this one defines.

mod chance;
mod end;
mod legal;
mod pick;
mod public;
mod turn;

pub use end::{Outcome, Termination};
pub use public::PublicState;

use super::action::{Action, ActionCounts, ActionKind};
use super::board::Board;
use super::cell_set::{Cell, MASK_CELLS};
use super::deal::Deal;
use super::movegen::{Counted, Illegal};
use super::piece::{Colour, Control, Piece};
use super::positions::{board_hash, square_hash, Positions};
use super::square::Square;
use super::variant::{ColourRule, Start, Variant};
use smallvec::SmallVec;
use std::sync::{Arc, OnceLock};
use turn::NextTurn;

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
            left[p.index()] += 1;
        }
        let up = position.squares.iter().filter_map(|s| match s {
            Square::Up(p) => Some(*p),
            _ => None,
        });
        for p in up.chain(position.face_down.iter().copied()) {
            let n = &mut left[p.index()];
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
    /// shown as `X` (as in the paper's Table V) and a vacated one as `.`: on the wire only, as
    /// the rules (the repetition rule included) see both as empty.
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

    /// Plies played so far (every action counts, bag draws included).
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// Pieces of `colour` left: on the board, in the bag or in hand.
    pub fn remaining(&self, colour: Colour) -> u32 {
        self.remaining[colour.index()]
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
            self.pass_turn();
        }
        self.start_turn(next, step);
        played
    }

    /// The board's hash for the repetition rule ([`board_hash`]), 0 in a variant without one.
    fn hash_of_board(&self) -> u64 {
        if self.variant.draw.repetition.is_some() {
            board_hash(self.board.codes())
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests;
