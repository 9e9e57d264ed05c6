//! The positions since the last irreversible action (reveal, capture, draw or put), as the
//! repetition rule compares them, and how often each occurred.
//!
//! A position is its board, the place in the turn order of the player to move, and the cell
//! of a chain capture in progress. The board is the rules' ([`super::Board`]'s codes), where
//! every empty cell is alike: in a bag game, a cell no piece has stood on (`X` on the wire)
//! and one a piece has left (`.`) are the same (`protocol/VARIANTS.md`, repetition). Between two irreversible actions every ply is a step onto
//! an empty cell, so the positions are kept as the steps between them: the current position
//! is the game's, and any earlier one is rebuilt from it by taking the steps back. Each has a
//! hash ([`position_hash`]) that the game keeps up to date square by square as it plays
//! ([`square_hash`]), without reading the board; positions with equal hashes are compared
//! whole, board rebuilt, so a collision costs a comparison, never a wrong ruling.
//!
//! # Why steps and a hash kept by the game
//! A learner's observation reads how often the current position occurred before at every ply
//! ([`Game::repetitions`](super::Game::repetitions)), and a quiet stretch may last hundreds of
//! plies (180 in `traditional`), so the common case, a position not seen before, must be
//! cheap. Copying each position's board into a list of keys and hashing the copy was a sixth
//! of `VecGame`'s step: the copy is a write of a cache line or so per ply to memory that
//! grows with the stretch, and the hash read the board's bytes right after the ply wrote
//! them, which the processor cannot forward from its pending writes. Now a ply writes 16
//! bytes and reads nothing back. A bit per hash value's top bits ([`Positions::filter`])
//! says a position is new for most new positions without reading the others; otherwise the
//! hashes are counted, a loop the compiler makes wide over memory read in order, and boards
//! are rebuilt only for a hash that matches. (A hash table of counts was slower still: a
//! slot is a memory access nothing predicts, and hundreds of games' tables do not stay in
//! the cache.)

use super::cell_set::Cell;
use super::cell_set::MASK_CELLS;
use super::square::{CODES, EMPTY};
use super::variant::Repetition;

/// The positions since the last irreversible action, current last.
#[derive(Clone, Debug, Default)]
pub(crate) struct Positions {
    /// Each position, oldest first: one record each, so that a ply writes to one place in
    /// memory, not one per field.
    entries: Vec<Entry>,
    /// The cell of a chain capture in progress in the first position. No later one has one:
    /// a step ends a chain.
    first_chain: Option<Cell>,
    /// Bit `h >> 54` (of 1,024) set for the hash `h` of every position: a clear bit, a hash
    /// no position has.
    filter: [u64; 16],
}

/// One position of [`Positions`].
#[derive(Clone, Copy, Debug)]
struct Entry {
    /// Its hash ([`position_hash`]).
    hash: u64,
    /// The place in the turn order of its player to move.
    place: u32,
    /// The step `[from, to]` that led to it from the position before (none for the first).
    step: [u16; 2],
}

// Cell numbers fit the steps' `u16`.
const _: () = assert!(super::topology::MAX_CELLS <= u16::MAX as usize);

/// SplitMix64's output function: a bijection of `u64` whose every output bit depends on every
/// input bit.
#[inline(always)]
const fn mix(x: u64) -> u64 {
    let z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// [`square_hash`] of every cell below [`MASK_CELLS`] and every code, cell by cell, computed
/// once: a lookup where a game updates its board's hash every ply (16 KiB, of which a 4x8
/// board reads the first 4).
static SQUARE_HASHES: [u64; MASK_CELLS * CODES] = {
    let mut table = [0; MASK_CELLS * CODES];
    let mut i = 0;
    while i < table.len() {
        table[i] = square_part(i / CODES, (i % CODES) as u8);
        i += 1;
    }
    table
};

/// [`square_hash`], computed.
const fn square_part(cell: Cell, code: u8) -> u64 {
    if code == EMPTY {
        0
    } else {
        mix((cell as u64) << 8 | code as u64)
    }
}

/// The part of a board's hash for cell `cell` holding the square of code `code`: 0 for an
/// empty cell, so that a step changes two parts. A board's hash is the exclusive-or of its
/// cells' parts ([`board_hash`]), so a game keeps it up to date as a ply changes cells.
#[inline(always)]
pub(crate) fn square_hash(cell: Cell, code: u8) -> u64 {
    match SQUARE_HASHES.get(cell * CODES + usize::from(code)) {
        Some(&part) if usize::from(code) < CODES => part,
        _ => square_part(cell, code),
    }
}

/// The hash of a board of square codes `codes`.
pub(crate) fn board_hash(codes: &[u8]) -> u64 {
    codes
        .iter()
        .enumerate()
        .fold(0, |h, (cell, &code)| h ^ square_hash(cell, code))
}

/// The hash of a position: its board's hash ([`board_hash`]), the place `place` in the turn
/// order, and the chain capture's cell.
#[inline(always)]
pub(crate) fn position_hash(board: u64, place: usize, chain: Option<Cell>) -> u64 {
    // Place and chain as one word (a place and a cell each below 2^32), for a mix of its own:
    // a bijection, so different places or chains never give the same part.
    let turn = (place as u64) << 32 | chain.map_or(u64::from(u32::MAX), |c| c as u64);
    board ^ turn_part(turn)
}

/// The part of a position's hash for its place in the turn order and chain, `turn` as
/// [`position_hash`] makes it: looked up for the first places without a chain (a position's
/// usual case), computed otherwise.
#[inline(always)]
fn turn_part(turn: u64) -> u64 {
    const PLACES: usize = 8;
    const NO_CHAIN: u64 = u32::MAX as u64;
    const fn part(turn: u64) -> u64 {
        mix(turn ^ 0xd1b5_4a32_d192_ed03)
    }
    static PARTS: [u64; PLACES] = {
        let mut table = [0; PLACES];
        let mut place = 0;
        while place < PLACES {
            table[place] = part((place as u64) << 32 | NO_CHAIN);
            place += 1;
        }
        table
    };
    let place = (turn >> 32) as usize;
    match PARTS.get(place) {
        Some(&p) if turn & NO_CHAIN == NO_CHAIN => p,
        _ => part(turn),
    }
}

/// Takes back the quiet step `from -> to` on `board` (codes): the piece returns, `to` is empty.
fn take_back(board: &mut [u8], from: Cell, to: Cell) {
    board[from] = board[to];
    board[to] = EMPTY;
}

impl Positions {
    /// Forgets every position: after an irreversible action, none of them can occur again.
    pub(crate) fn clear(&mut self) {
        self.entries.clear();
        self.first_chain = None;
        self.filter = [0; 16];
    }

    /// Adds the current position, of hash `hash` ([`position_hash`]), board `codes`, place
    /// `place` in the turn order and chain capture cell `chain`, reached from the last one by
    /// the step `step` (`None` for the first position after a clear, or of a game), and
    /// returns how many of the earlier ones equal it.
    pub(crate) fn push(
        &mut self,
        hash: u64,
        codes: &[u8],
        place: usize,
        chain: Option<Cell>,
        step: Option<(Cell, Cell)>,
    ) -> u32 {
        let step = match step {
            Some((from, to)) if !self.entries.is_empty() => {
                debug_assert!(chain.is_none(), "a step ends a chain");
                [from as u16, to as u16]
            }
            // A position reached otherwise starts the positions again.
            _ => {
                self.clear();
                self.first_chain = chain;
                [0; 2]
            }
        };
        self.entries.push(Entry {
            hash,
            place: place as u32,
            step,
        });
        let bit = (hash >> 54) as usize;
        let (word, mask) = (bit / 64, 1u64 << (bit % 64));
        if self.filter[word] & mask == 0 {
            // No earlier position has this hash.
            self.filter[word] |= mask;
            return 0;
        }
        self.occurrences_before(codes)
    }

    /// The chain capture's cell in position `i`.
    fn chain_of(&self, i: usize) -> Option<Cell> {
        if i == 0 {
            self.first_chain
        } else {
            None
        }
    }

    /// Whether positions `i` and `j` have the same hash, place and chain: equal unless their
    /// boards differ.
    fn alike(&self, i: usize, j: usize) -> bool {
        let (a, b) = (&self.entries[i], &self.entries[j]);
        a.hash == b.hash && a.place == b.place && self.chain_of(i) == self.chain_of(j)
    }

    /// How many of the positions before the current one (of board `codes`) equal it: the
    /// hashes equal to its counted first, and boards rebuilt only when there are some.
    fn occurrences_before(&self, codes: &[u8]) -> u32 {
        let Some((last, before)) = self.entries.split_last() else {
            return 0;
        };
        // Counted rather than searched: a count has no early exit, and so is done many hashes
        // at a time.
        if before.iter().filter(|e| e.hash == last.hash).count() == 0 {
            return 0;
        }
        let t = before.len();
        let mut count = 0;
        self.rebuild(codes, 0, |i, board| {
            if i < t && self.alike(i, t) && board == codes {
                count += 1;
            }
        });
        count
    }

    /// Calls `f` with each position's index and board, from the current one (of board
    /// `codes`) back to position `first`, each board rebuilt from the next by taking back the
    /// step between them.
    fn rebuild(&self, codes: &[u8], first: usize, mut f: impl FnMut(usize, &[u8])) {
        let mut board = codes.to_vec();
        let t = self.entries.len() - 1;
        f(t, &board);
        for i in (first..t).rev() {
            // Position i + 1 back to position i.
            let [from, to] = self.entries[i + 1].step.map(usize::from);
            take_back(&mut board, from, to);
            f(i, &board);
        }
    }

    /// Whether the positions draw by `rule`, the current one (of board `codes`) having
    /// occurred `repeats` times before (what [`Positions::push`] returned).
    pub(crate) fn repeated(&self, rule: Repetition, repeats: u32, codes: &[u8]) -> bool {
        let Some(t) = self.entries.len().checked_sub(1) else {
            return false;
        };
        match rule {
            Repetition::Occurrence(n) => repeats + 1 >= n,
            Repetition::Cycle { times, extra } => {
                // Positions p_0..p_t; a cycle of length L repeated `times` times plus `extra`
                // plies means p_i == p_(i+L) for every i in t - (times*L + extra) ..= t - L.
                // Looked for by hashes, places and chains; boards are rebuilt only to confirm
                // a cycle found so.
                (1..=t / times as usize).any(|l| {
                    let span = times as usize * l + extra as usize;
                    span <= t
                        && (t - span..=t - l).all(|i| self.alike(i, i + l))
                        && self.same_boards(codes, t - span, l)
                })
            }
        }
    }

    /// Whether the board of each position `i` from `first` on equals that of position
    /// `i + l`, the current one's board being `codes`.
    fn same_boards(&self, codes: &[u8], first: usize, l: usize) -> bool {
        let mut boards = Vec::new();
        self.rebuild(codes, first, |_, board| boards.push(board.to_vec()));
        // Rebuilt from the current position back: position `i` is at `t - i`.
        boards.reverse();
        (0..boards.len() - l).all(|k| boards[k] == boards[k + l])
    }

    /// Every position's board and place in the turn order, oldest first, the board now being
    /// `codes`: the last position's, or one step past it when `ahead` names a quiet step
    /// played after it whose position was not kept (the game ended on it).
    pub(crate) fn boards(
        &self,
        codes: &[u8],
        ahead: Option<(Cell, Cell)>,
    ) -> Vec<(Vec<u8>, usize)> {
        let mut out = Vec::with_capacity(self.entries.len());
        let mut last = codes.to_vec();
        if let Some((from, to)) = ahead {
            take_back(&mut last, from, to);
        }
        if !self.entries.is_empty() {
            self.rebuild(&last, 0, |i, board| {
                out.push((board.to_vec(), self.entries[i].place as usize));
            });
        }
        out.reverse();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_and_chains_far_apart_do_not_collide() {
        let board = board_hash(&[0, 1]);
        let hash = |place, chain| position_hash(board, place, chain);
        assert_ne!(hash(1, None), hash(257, None));
        assert_ne!(hash(0, Some(3)), hash(0, Some(259)));
        assert_ne!(hash(0, Some(255)), hash(0, None));
        assert_ne!(hash(1, Some(0)), hash(0, Some(1)));
    }

    #[test]
    fn looked_up_parts_are_the_computed_ones() {
        for cell in [0, 1, 31, MASK_CELLS - 1, MASK_CELLS, 4000] {
            for code in 0..CODES as u8 {
                assert_eq!(square_hash(cell, code), square_part(cell, code));
            }
        }
        assert_eq!(square_hash(3, EMPTY), 0);
        for place in 0..12 {
            for chain in [None, Some(0), Some(7)] {
                let turn = (place as u64) << 32 | chain.map_or(u64::from(u32::MAX), |c| c as u64);
                assert_eq!(turn_part(turn), mix(turn ^ 0xd1b5_4a32_d192_ed03));
            }
        }
    }

    #[test]
    fn a_board_hash_is_kept_up_to_date_square_by_square() {
        let mut codes = vec![EMPTY, 1, 5, EMPTY, 9];
        let mut hash = board_hash(&codes);
        // A step from cell 2 to cell 3, then a capture from cell 3 onto cell 4.
        hash ^= square_hash(2, 5) ^ square_hash(3, 5);
        codes.swap(2, 3);
        assert_eq!(hash, board_hash(&codes));
        hash ^= square_hash(3, 5) ^ square_hash(4, 9) ^ square_hash(4, 5);
        codes[4] = codes[3];
        codes[3] = EMPTY;
        assert_eq!(hash, board_hash(&codes));
        assert_eq!(board_hash(&[EMPTY; 9]), 0, "an empty cell adds nothing");
    }

    /// Steps of one piece among a few cells, on boards of one or two pieces, with clears
    /// between some: each count equals the count over every position kept whole.
    #[test]
    fn counts_equal_a_scan_of_every_earlier_position() {
        let mut positions = Positions::default();
        let mut x = 1u64;
        let mut codes = vec![EMPTY; 5];
        codes[0] = 3;
        let mut kept: Vec<(Vec<u8>, usize)> = Vec::new();
        let mut place = 0;
        let mut step = None;
        for round in 0..20_000 {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1442695040888963407);
            if (x >> 60) == 0 && round % 7 == 0 {
                // An irreversible action: the next position starts the positions again.
                positions.clear();
                kept.clear();
                step = None;
                codes = vec![EMPTY; 5];
                codes[(x >> 20) as usize % 5] = 3;
                codes[(x >> 30) as usize % 5] = 11;
            }
            let hash = position_hash(board_hash(&codes), place, None);
            let want = kept
                .iter()
                .filter(|(b, p)| *b == codes && *p == place)
                .count() as u32;
            assert_eq!(
                positions.push(hash, &codes, place, None, step),
                want,
                "round {round}"
            );
            kept.push((codes.clone(), place));
            assert_eq!(positions.boards(&codes, None), kept, "round {round}");
            // A step of a piece onto an empty cell, by a player of two.
            let pieces: Vec<usize> = (0..5).filter(|&c| codes[c] != EMPTY).collect();
            let from = pieces[(x >> 40) as usize % pieces.len()];
            let to = (0..5)
                .filter(|&c| codes[c] == EMPTY)
                .nth((x >> 50) as usize % (5 - pieces.len()))
                .unwrap();
            codes[to] = codes[from];
            codes[from] = EMPTY;
            step = Some((from, to));
            place = 1 - place;
        }
    }

    /// Positions whose hashes are equal and boards not (as a collision would give) are told
    /// apart.
    #[test]
    fn equal_hashes_of_different_boards_are_not_counted() {
        let mut positions = Positions::default();
        assert_eq!(positions.push(7, &[3, EMPTY], 0, None, None), 0);
        assert_eq!(positions.push(7, &[EMPTY, 3], 0, None, Some((0, 1))), 0);
        assert_eq!(positions.push(7, &[3, EMPTY], 0, None, Some((1, 0))), 1);
    }

    #[test]
    fn a_cycle_rule_sees_the_cycle() {
        // The positions A B A B A: a cycle of two plies, twice and one ply more.
        let mut positions = Positions::default();
        let (a, b) = ([3, EMPTY], [EMPTY, 3]);
        let mut last = 0;
        for i in 0..5 {
            let codes = if i % 2 == 0 { a } else { b };
            let hash = position_hash(board_hash(&codes), i % 2, None);
            let step = (i > 0).then_some(if i % 2 == 1 { (0, 1) } else { (1, 0) });
            last = positions.push(hash, &codes, i % 2, None, step);
        }
        let rule = |times, extra| Repetition::Cycle { times, extra };
        assert!(positions.repeated(rule(2, 0), last, &a));
        assert!(!positions.repeated(rule(2, 1), last, &a));
        assert!(!positions.repeated(rule(3, 0), last, &a));
        assert!(positions.repeated(Repetition::Occurrence(3), last, &a));
        assert!(!positions.repeated(Repetition::Occurrence(4), last, &a));
    }
}
