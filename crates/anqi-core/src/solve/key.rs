//! A public state as a 128-bit key, and back.
//!
//! Bits 0-63: each cell's square code (4 bits, cell 0 lowest: 0 empty, 1 face-down, 2-15 a
//! face-up piece); bits 64-119: the unseen count of each piece (4 bits, in the order
//! `KGBRNCPkgbrncp`); bit 120: the place in the turn order of the player to move; bits
//! 121-122: side 0's colour (0 undecided, 1 red, 2 black; side 1 has the other). Boards of up
//! to 16 cells, at most 15 unseen pieces of a letter, two players.

use crate::rules::{Colour, Game, Piece, Position, Square, Variant};

/// The most cells a key holds.
pub const MAX_CELLS: usize = 16;

/// The most unseen pieces of one letter a key holds.
pub const MAX_OF_A_PIECE: usize = 15;

/// A public state: everything the value of a position depends on under the solver's semantics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key(pub u128);

impl Key {
    /// The key of a game's position (a game of at most [`MAX_CELLS`] cells and two players).
    pub fn of(game: &Game) -> Key {
        let mut k: u128 = 0;
        for (cell, sq) in game.board().squares().iter().enumerate() {
            k |= u128::from(sq.code()) << (4 * cell);
        }
        for (i, n) in game.face_down_counts().iter().enumerate() {
            debug_assert!(*n as usize <= MAX_OF_A_PIECE);
            k |= u128::from(*n) << (64 + 4 * i);
        }
        k |= (game.turn_place() as u128 & 1) << 120;
        let colour = match game.colour_of_side(0) {
            None => 0u128,
            Some(Colour::Red) => 1,
            Some(Colour::Black) => 2,
        };
        Key(k | colour << 121)
    }

    /// The position of a key, on a board of `cells` cells.
    pub fn position(self, cells: usize) -> Position {
        let k = self.0;
        let squares = (0..cells)
            .map(|c| Square::from_code(((k >> (4 * c)) & 15) as u8).expect("a key holds codes"))
            .collect();
        let mut face_down = Vec::new();
        for i in 0..14 {
            let n = (k >> (64 + 4 * i)) & 15;
            face_down.extend(std::iter::repeat_n(Piece::from_index(i), n as usize));
        }
        let side0 = match (k >> 121) & 3 {
            1 => Some(Colour::Red),
            2 => Some(Colour::Black),
            _ => None,
        };
        Position {
            squares,
            face_down,
            turn_place: ((k >> 120) & 1) as usize,
            side_colours: vec![side0, side0.map(Colour::other)],
        }
    }

    /// The unseen pieces, per piece index.
    pub fn unseen(self) -> [u32; 14] {
        std::array::from_fn(|i| ((self.0 >> (64 + 4 * i)) & 15) as u32)
    }

    /// How many face-down cells and how many pieces (face-up or down) the key's board has.
    pub fn material(self, cells: usize) -> (u32, u32) {
        let (mut down, mut pieces) = (0, 0);
        for c in 0..cells {
            match (self.0 >> (4 * c)) & 15 {
                0 => {}
                1 => {
                    down += 1;
                    pieces += 1;
                }
                _ => pieces += 1,
            }
        }
        (down, pieces)
    }
}

/// Why a state's key cannot hold a variant's positions ([`super::fits`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DoesNotFit {
    #[error("{cells} cells: the solver's states hold boards of at most {max}", max = MAX_CELLS)]
    TooManyCells { cells: usize },
    /// More than a key counts of one piece.
    #[error(
        "{count} pieces {piece}: the solver's states count at most {max} of a piece",
        max = MAX_OF_A_PIECE
    )]
    TooManyOfAPiece { count: usize, piece: Piece },
}

/// Whether the key can hold `variant`'s positions.
///
/// # Errors
/// Why it cannot ([`DoesNotFit`]).
pub fn fits(variant: &Variant) -> Result<(), DoesNotFit> {
    let cells = variant.topology.size();
    if cells > MAX_CELLS {
        return Err(DoesNotFit::TooManyCells { cells });
    }
    let mut counts = [0usize; 14];
    for p in &variant.pieces {
        counts[p.index()] += 1;
    }
    if let Some(i) = (0..14).find(|&i| counts[i] > MAX_OF_A_PIECE) {
        return Err(DoesNotFit::TooManyOfAPiece {
            count: counts[i],
            piece: Piece::from_index(i),
        });
    }
    Ok(())
}
