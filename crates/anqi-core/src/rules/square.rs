//! What one cell holds as every player sees it (a face-down piece as `X`), and the byte the
//! move generator reads for it.

use super::piece::{Colour, Kind, Piece};

/// The content of one cell as everyone sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Square {
    /// `.`: nothing here.
    Empty,
    /// `X`: a face-down piece.
    Hidden,
    /// A revealed piece (its letter).
    Up(Piece),
}

impl Square {
    /// The wire character.
    pub fn letter(self) -> char {
        match self {
            Square::Empty => '.',
            Square::Hidden => 'X',
            Square::Up(p) => p.letter(),
        }
    }

    /// The square as one byte, the move generator's form: 0 empty, 1 face-down, and
    /// `2 + colour * 7 + kind` for a revealed piece (so below 16).
    #[inline]
    pub fn code(self) -> u8 {
        match self {
            Square::Empty => EMPTY,
            Square::Hidden => HIDDEN,
            Square::Up(p) => 2 + (p.colour.index() * 7 + p.kind.index()) as u8,
        }
    }

    /// The square of a [`Square::code`] (`None` for a byte that is no square's code).
    pub fn from_code(code: u8) -> Option<Square> {
        match code {
            EMPTY => Some(Square::Empty),
            HIDDEN => Some(Square::Hidden),
            2..=15 => {
                let i = usize::from(code - 2);
                Some(Square::Up(Piece::new(Colour::ALL[i / 7], Kind::ALL[i % 7])))
            }
            _ => None,
        }
    }

    /// The square for a wire character.
    pub fn from_letter(c: char) -> Option<Square> {
        match c {
            '.' => Some(Square::Empty),
            'X' => Some(Square::Hidden),
            _ => Piece::from_letter(c).map(Square::Up),
        }
    }
}

/// [`Square::code`] of an empty cell.
pub const EMPTY: u8 = 0;
/// [`Square::code`] of a face-down piece.
pub const HIDDEN: u8 = 1;
/// Square codes are below this: tables indexed by code have this many entries.
pub const CODES: usize = 16;

/// The colour of a revealed piece's square code (`None` for empty, face-down and unused codes).
pub(crate) const fn colour_of_code(code: usize) -> Option<Colour> {
    match code {
        2..=8 => Some(Colour::Red),
        9..=15 => Some(Colour::Black),
        _ => None,
    }
}
