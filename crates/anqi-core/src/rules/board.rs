//! The board: what every player sees (face-down pieces as `X`), its wire string, and the
//! forms the move generator reads it in (a byte per cell, and sets of cells by content).
//!
//! The board holds no hidden information, so clients and the server share this code: the
//! server keeps the face-down pieces' identities apart (see [`crate::rules::Game`]). What the
//! pieces on it may do is the move generator's ([`super::movegen`]).

use super::cell_set::{Cell, MASK_CELLS};
use super::piece::Colour;
use super::square::{colour_of_code, Square, CODES, EMPTY, HIDDEN};
use smallvec::SmallVec;
use std::fmt;

/// A board's squares, in the board itself up to [`MASK_CELLS`] cells (every shipped board).
///
/// In the board rather than behind a pointer: a program stepping hundreds of games in turn
/// (`VecGame`) finds each game's memory cold, and every array of its own elsewhere is one more
/// wait for memory per ply (with the game's other small arrays, a tenth of a step).
type Squares = SmallVec<[Square; MASK_CELLS]>;
/// A board's codes, in the board itself up to [`GRID_CELLS`] (every board with masks), for the
/// same reason as [`Squares`].
type Codes = SmallVec<[u8; GRID_CELLS]>;

/// Why a board string does not read ([`Board::parse`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    /// A character that is no square's letter (`X`, `.` or a piece letter).
    #[error("character {character:?} at cell {cell} is not X, . or a piece letter")]
    NotASquare { character: char, cell: usize },
}

/// The public board: one square per cell.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    squares: Squares,
    /// `codes[c] == squares[c].code()`, kept in step by [`Board::set`]: what the move
    /// generator reads (one byte per cell, and table lookups instead of matches). On a board
    /// of at most [`MASK_CELLS`] cells, padded with empty cells to [`GRID_CELLS`] (see
    /// [`Board::grid`]).
    codes: Codes,
    /// On a board of at most [`MASK_CELLS`] cells, bit `c` of `masks[0]` says cell `c` is
    /// face-down, of `masks[1 + colour]` that it holds a revealed piece of that colour, of
    /// `masks[3]` that it is empty (all zero on larger boards; see [`MASK_OF_CODE`]). Kept in
    /// step by [`Board::set`]: the generator visits only the cells that have actions, and
    /// counts reveals with one instruction.
    masks: [u128; 4],
    /// How many cells are face-down, kept by [`Board::set`]: the reveals, without counting.
    face_down: u32,
}

/// Which of [`Board`]'s masks each square code belongs to: every code belongs to one, so
/// [`Board::set`] moves a cell from one mask to another without a branch.
const MASK_OF_CODE: [usize; CODES] = {
    let mut table = [3; CODES];
    let mut code = 0;
    while code < CODES {
        table[code] = match colour_of_code(code) {
            Some(Colour::Red) => 1,
            Some(Colour::Black) => 2,
            None if code == HIDDEN as usize => 0,
            None => 3,
        };
        code += 1;
    }
    table
};

/// The masks of a board's codes (all zero past [`MASK_CELLS`] cells).
fn masks_of(codes: &[u8]) -> [u128; 4] {
    let mut masks = [0; 4];
    if codes.len() <= MASK_CELLS {
        for (cell, &code) in codes.iter().enumerate() {
            masks[MASK_OF_CODE[usize::from(code) & (CODES - 1)]] |= 1 << cell;
        }
    }
    masks
}

/// How many codes a board with masks keeps (see [`Board::grid`]): one for every byte, so a
/// cell number read as a byte (a step row's) indexes them with no mask or bounds check.
pub(crate) const GRID_CELLS: usize = 256;

/// A board's codes, padded with empty cells to [`GRID_CELLS`] on a board with masks.
fn padded(codes: &[u8]) -> Codes {
    let mut codes = Codes::from_slice(codes);
    if codes.len() <= MASK_CELLS {
        codes.resize(GRID_CELLS, EMPTY);
    }
    codes
}

impl Board {
    /// A board of `size` face-down pieces.
    pub fn hidden(size: usize) -> Board {
        let codes = vec![HIDDEN; size];
        Board {
            squares: Squares::from_elem(Square::Hidden, size),
            masks: masks_of(&codes),
            face_down: size as u32,
            codes: padded(&codes),
        }
    }

    /// Parses a board string (`KPPP.kpXX`).
    ///
    /// # Errors
    /// The first character that is not a square letter ([`BoardError::NotASquare`]).
    pub fn parse(s: &str) -> Result<Board, BoardError> {
        s.chars()
            .enumerate()
            .map(|(cell, character)| {
                Square::from_letter(character).ok_or(BoardError::NotASquare { character, cell })
            })
            .collect::<Result<Vec<_>, _>>()
            .map(|squares: Vec<Square>| {
                let codes: Vec<u8> = squares.iter().map(|s| s.code()).collect();
                Board {
                    squares: Squares::from_vec(squares),
                    masks: masks_of(&codes),
                    face_down: codes.iter().filter(|&&c| c == HIDDEN).count() as u32,
                    codes: padded(&codes),
                }
            })
    }

    /// Number of cells.
    pub fn len(&self) -> usize {
        self.squares.len()
    }

    /// Whether the board has no cells.
    pub fn is_empty(&self) -> bool {
        self.squares.is_empty()
    }

    /// The square at `cell`.
    #[inline]
    pub fn get(&self, cell: Cell) -> Square {
        self.squares[cell]
    }

    /// Sets the square at `cell`.
    #[inline]
    pub fn set(&mut self, cell: Cell, sq: Square) {
        let squares = self.squares.as_mut_slice();
        squares[cell] = sq;
        let len = squares.len();
        let code = sq.code();
        let old = std::mem::replace(&mut self.codes[cell], code);
        self.face_down = self.face_down + u32::from(code == HIDDEN) - u32::from(old == HIDDEN);
        if len <= MASK_CELLS {
            let bit = 1u128 << cell;
            self.masks[MASK_OF_CODE[usize::from(old) & (CODES - 1)]] &= !bit;
            self.masks[MASK_OF_CODE[usize::from(code) & (CODES - 1)]] |= bit;
        }
    }

    /// Moves the revealed piece at `from` to `to` (an empty cell, or an enemy piece it
    /// captures), leaving `from` empty, and returns what was at `to`: two [`Board::set`]s in
    /// fewer steps, as a random playout makes most plies. The masks change by three
    /// exclusive-ors whose cells are known, rather than by looking up the old code of each
    /// cell and clearing it then setting it.
    #[inline]
    pub(crate) fn move_piece(&mut self, from: Cell, to: Cell) -> Square {
        // A legal move's cells; anything else would leave the masks out of step with the codes.
        debug_assert!(from != to && self.codes[to] != HIDDEN && self.codes[from] > HIDDEN);
        // Each array looked up once (an inline array's place is a branch on its length).
        let squares = self.squares.as_mut_slice();
        let len = squares.len();
        let mover = std::mem::replace(&mut squares[from], Square::Empty);
        let target = std::mem::replace(&mut squares[to], mover);
        let codes = self.codes.as_mut_slice();
        let code = std::mem::replace(&mut codes[from], EMPTY);
        let old = std::mem::replace(&mut codes[to], code);
        if len <= MASK_CELLS {
            let (from_bit, to_bit) = (1u128 << from, 1u128 << to);
            // `to` leaves its mask (empty, or the captured piece's colour) first: when it was
            // empty, `from` then joins that mask.
            self.masks[MASK_OF_CODE[usize::from(old) & (CODES - 1)]] ^= to_bit;
            self.masks[MASK_OF_CODE[usize::from(code) & (CODES - 1)]] ^= from_bit | to_bit;
            self.masks[MASK_OF_CODE[usize::from(EMPTY)]] ^= from_bit;
        }
        target
    }

    /// All squares, cell 0 first.
    pub fn squares(&self) -> &[Square] {
        &self.squares
    }

    /// Every cell's [`Square::code`], cell 0 first.
    pub fn codes(&self) -> &[u8] {
        &self.codes[..self.len()]
    }

    /// Every cell's code on a board of at most [`MASK_CELLS`] cells, padded to
    /// [`GRID_CELLS`]: indexed by a byte, or a cell number masked to a byte, with no bounds
    /// check.
    #[inline(always)]
    pub(crate) fn grid(&self) -> &[u8; GRID_CELLS] {
        self.codes[..GRID_CELLS]
            .try_into()
            .expect("a board with masks has padded codes")
    }

    /// The wire string.
    pub fn to_wire(&self) -> String {
        self.squares.iter().map(|s| s.letter()).collect()
    }

    /// Whether any cell is face-down.
    pub(crate) fn has_face_down(&self) -> bool {
        self.face_down != 0
    }

    /// Number of face-down pieces.
    pub fn hidden_count(&self) -> usize {
        self.face_down as usize
    }

    /// The face-down cells as a set, bit `c` for cell `c`, on a board of at most 128 cells
    /// (`None` on a larger one): with [`Board::move_ids`], a
    /// caller's whole list of legal actions without a call per reveal.
    #[inline]
    pub fn face_down_set(&self) -> Option<u128> {
        (self.len() <= MASK_CELLS).then_some(self.masks[0])
    }

    /// The cells by content, on a board of at most [`MASK_CELLS`] cells: `[face-down, red,
    /// black, empty]` (all empty on larger boards).
    #[inline(always)]
    pub(crate) fn masks(&self) -> [u128; 4] {
        self.masks
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_wire())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::rules::piece::{Kind, Piece};

    #[test]
    fn board_string_round_trips() {
        for s in ["KPPP.kpXX", "XXXXXXXX", "pPXX.XXX", ".P.P.XPX"] {
            assert_eq!(Board::parse(s).unwrap().to_wire(), s);
        }
        let e = Board::parse("KPZ").unwrap_err();
        assert_eq!(
            e,
            BoardError::NotASquare {
                character: 'Z',
                cell: 2
            }
        );
        assert!(e.to_string().contains("cell 2"));
    }

    /// A random board of `size` cells, from `x` (a linear congruential generator's state).
    pub(crate) fn random_board(size: usize, x: &mut u64) -> Vec<Square> {
        (0..size)
            .map(|_| {
                *x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                match (*x >> 33) % 20 {
                    0..=5 => Square::Empty,
                    6..=8 => Square::Hidden,
                    n => Square::Up(Piece::new(
                        Colour::ALL[(n % 2) as usize],
                        Kind::ALL[((*x >> 40) % 7) as usize],
                    )),
                }
            })
            .collect()
    }

    /// `move_piece` leaves the board exactly as the two `set`s it stands for, onto an empty
    /// cell and onto a piece, on boards with sets of both widths.
    #[test]
    fn moving_a_piece_is_setting_both_cells() {
        let mut x = 3;
        for size in [32, 128] {
            for _ in 0..200 {
                let squares = random_board(size, &mut x);
                let b =
                    Board::parse(&squares.iter().map(|s| s.letter()).collect::<String>()).unwrap();
                let pieces: Vec<Cell> = (0..size)
                    .filter(|&c| matches!(squares[c], Square::Up(_)))
                    .collect();
                let (from, to) = (pieces[0], pieces[pieces.len() - 1]);
                let empty = (0..size).find(|&c| squares[c] == Square::Empty).unwrap();
                for to in [to, empty] {
                    let (mut moved, mut set) = (b.clone(), b.clone());
                    assert_eq!(moved.move_piece(from, to), b.get(to));
                    set.set(to, b.get(from));
                    set.set(from, Square::Empty);
                    assert_eq!(moved, set, "{from} to {to}");
                }
            }
        }
    }
}
