//! Cells, and sets of cells as machine words, bit `c` for cell `c`: what the move generator
//! counts with on boards of at most [`MASK_CELLS`] cells (every shipped board, 8x16 included).
//!
//! The board and the topology keep their sets as `u128`; the generator works on `u64` when the
//! board has at most 64 cells (4x8 has 32): half the work per operation. Which one a board
//! gets is its [`Representation`], decided once by its size.

use std::ops::{BitAnd, BitOr, BitXor, Not};

/// A cell number, 0-based, as on the wire.
pub type Cell = usize;

/// Boards of at most this many cells keep cell sets ([`Board`](super::Board)'s masks, the
/// topology's lines); larger ones use the same generator without them.
pub const MASK_CELLS: usize = 128;

/// How the move generator holds a board's cells: as sets in one word of 64 or 128 bits, or,
/// past [`MASK_CELLS`] cells, as lists walked cell by cell. Chosen once per topology
/// ([`Topology::representation`](super::Topology::representation)), by its number of cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Representation {
    /// At most 64 cells: sets as `u64`.
    Sets64,
    /// At most [`MASK_CELLS`] cells: sets as `u128`.
    Sets128,
    /// More cells: no sets.
    Listed,
}

impl Representation {
    /// The representation of a board of `cells` cells.
    pub(crate) const fn of_cells(cells: usize) -> Representation {
        if cells <= 64 {
            Representation::Sets64
        } else if cells <= MASK_CELLS {
            Representation::Sets128
        } else {
            Representation::Listed
        }
    }
}

/// A set of cells in one machine word: `u64` or `u128`.
pub(crate) trait CellSet:
    Copy
    + Eq
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
{
    /// No cell.
    const NONE: Self;
    /// The low bits of a `u128` set (every cell of a board this type is used for).
    fn of(set: u128) -> Self;
    /// Whether the set has no cell.
    fn is_none(self) -> bool;
    /// The lowest cell (the set is not empty).
    fn first(self) -> Cell;
    /// The set without its lowest cell.
    fn without_first(self) -> Self;
    /// The set of its lowest cell alone (empty when the set is).
    fn lowest(self) -> Self;
    /// The set of its highest cell alone (empty when the set is), without a branch.
    fn highest(self) -> Self;
    /// Cells `8w..8w + 8` as the bits of a byte (`w` below the word's bytes).
    fn byte(self, w: usize) -> u8;
    /// The set of `cell` alone (`cell` less than the word's bits).
    fn single(cell: Cell) -> Self;
}

macro_rules! cell_set {
    ($t:ty) => {
        impl CellSet for $t {
            const NONE: $t = 0;

            #[inline(always)]
            fn of(set: u128) -> $t {
                set as $t
            }

            #[inline(always)]
            fn is_none(self) -> bool {
                self == 0
            }

            #[inline(always)]
            fn first(self) -> Cell {
                self.trailing_zeros() as Cell
            }

            #[inline(always)]
            fn without_first(self) -> $t {
                self & self.wrapping_sub(1)
            }

            #[inline(always)]
            fn lowest(self) -> $t {
                self & self.wrapping_neg()
            }

            #[inline(always)]
            fn highest(self) -> $t {
                // An empty set has as many leading zeros as bits: the shift is masked to stay
                // in range, and the result cleared.
                let top = (1 << (<$t>::BITS - 1)) >> (self.leading_zeros() & (<$t>::BITS - 1));
                top & <$t>::from(self != 0).wrapping_neg()
            }

            #[inline(always)]
            fn byte(self, w: usize) -> u8 {
                (self >> (8 * w)) as u8
            }

            #[inline(always)]
            fn single(cell: Cell) -> $t {
                1 << cell
            }
        }
    };
}

cell_set!(u64);
cell_set!(u128);

#[cfg(test)]
mod tests {
    use super::*;

    fn check<B: CellSet + std::fmt::Debug>(bits: u32) {
        let cells = [0, 3, 17, bits as Cell - 1];
        let set = cells.iter().fold(B::NONE, |s, &c| s | B::single(c));
        assert_eq!(
            set.without_first()
                .without_first()
                .without_first()
                .without_first(),
            B::NONE
        );
        assert_eq!(set.first(), 0);
        assert_eq!(set.without_first().first(), 3);
        assert_eq!(set.lowest(), B::single(0));
        assert_eq!((set.byte(0), set.byte(2)), (0b1001, 0b10));
        assert_eq!(set.highest(), B::single(bits as Cell - 1));
        assert_eq!(B::single(17).highest(), B::single(17));
        assert!(B::NONE.lowest().is_none() && B::NONE.highest().is_none());
        assert!(B::NONE.is_none() && !set.is_none());
        assert_eq!(B::of(u128::MAX).highest(), B::single(bits as Cell - 1));
    }

    #[test]
    fn both_words_agree_on_every_operation() {
        check::<u64>(64);
        check::<u128>(128);
    }
}
