//! The count behind picking an action by its index without listing the others: a byte per
//! cell holding the cell's number of actions, summed eight cells to a word, so that the cell
//! of the `k`-th action is found without a branch on the data (random playouts pick every
//! action this way).

use crate::rules::action::ActionCounts;
use crate::rules::cell_set::{Cell, MASK_CELLS};
use crate::rules::topology::MAX_MOVES_PER_CELL;

/// For each set of eight bits, the word whose byte `i` is bit `i`: eight cells' face-down
/// flags as their counts of actions (see [`Board::count_pieces`](crate::rules::Board)).
pub(super) const SPREAD: [u64; 256] = {
    let mut table = [0; 256];
    let mut set = 0;
    while set < 256 {
        let mut bit = 0;
        while bit < 8 {
            table[set] |= ((set as u64 >> bit) & 1) << (8 * bit);
            bit += 1;
        }
        set += 1;
    }
    table
};

/// Every byte of a word: 1.
const BYTES_ONE: u64 = 0x0101_0101_0101_0101;
/// Every byte of a word: its low half (see `Counted::per_cell`).
const BYTES_LOW_HALF: u64 = 0x0f0f_0f0f_0f0f_0f0f;
/// Every byte of a word: its top bit.
const BYTES_TOP: u64 = 0x8080_8080_8080_8080;

// A cell's moves fit the low half of its byte in `Counted::per_cell`.
const _: () = assert!(MAX_MOVES_PER_CELL <= 15);

/// A board's reveals and moves for one control, counted by `Board::count_pieces`.
#[derive(Clone, Debug)]
pub(crate) struct Counted {
    /// The counts, by kind (no bag draw or put: those are not on the board).
    pub counts: ActionCounts,
    /// `counts.total()`, kept apart: summing the counts just written field by field would
    /// read them back as one vector, which stalls the processor (no store forwarding).
    pub total: u32,
    /// A byte per cell, in cell order (the board's cells, rounded up to eight, are
    /// meaningful). The low half is the cell's actions: a face-down cell's reveal, a movable
    /// piece's moves, else none; at most
    /// [`MAX_MOVES_PER_CELL`], 15, so the sum of eight
    /// cells keeps a byte's top bit clear. The high half is a movable piece's steps as the
    /// cells of its step row they go to (bit `j` for the row's `j`-th cell), when the topology
    /// has step rows: the chosen step is then found without reading the neighbours again,
    /// which would lengthen the chain of reads from the drawn index to the action. One array
    /// rather than two keeps a server game's state small (issue 10's S3).
    pub(super) per_cell: [u8; MASK_CELLS],
}

impl Default for Counted {
    fn default() -> Counted {
        Counted {
            counts: ActionCounts::default(),
            total: 0,
            per_cell: [0; MASK_CELLS],
        }
    }
}

impl Counted {
    /// The cell of the `k`-th (from 0) action on a board of `len` cells (`k` below the total),
    /// and the action's index among that cell's. Eight cells are one word of bytes: the
    /// product by [`BYTES_ONE`] puts in each byte the sum of the bytes up to it, so a word's
    /// total is its top byte, and the cell is the first byte whose sum exceeds `k`.
    #[inline]
    pub(super) fn find(&self, len: usize, k: u32) -> (Cell, u32) {
        let word = |w: usize| {
            let bytes = &self.per_cell[(8 * w) & (MASK_CELLS - 8)..][..8];
            u64::from_le_bytes(bytes.try_into().expect("eight bytes")) & BYTES_LOW_HALF
        };
        // The action's word is the last one whose running total before it is at most `k`
        // (running totals only grow): kept as the words go by, with no branch on the data
        // and no second read of the word once `k` is known.
        let (mut w, mut before, mut running) = (0, 0, 0);
        let (mut counts, mut sums) = (0, 0);
        for i in 0..len.div_ceil(8) {
            let here = word(i);
            let here_sums = here.wrapping_mul(BYTES_ONE);
            let reached = running <= k;
            w = if reached { i } else { w };
            before = if reached { running } else { before };
            counts = if reached { here } else { counts };
            sums = if reached { here_sums } else { sums };
            running += (here_sums >> 56) as u32;
        }
        let k = k - before;
        // The top bit of byte `i` stays set when its sum is above `k` (sums and `k + 1` are
        // below 128, so no byte borrows from the next).
        let above = ((sums | BYTES_TOP) - u64::from(k + 1) * BYTES_ONE) & BYTES_TOP;
        let i = above.trailing_zeros() / 8;
        let sum_before = ((sums >> (8 * i)) as u8 - (counts >> (8 * i)) as u8) as u32;
        (8 * w + i as usize, k - sum_before)
    }
}
