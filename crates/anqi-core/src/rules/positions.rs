//! The positions since the last irreversible action (reveal, capture, draw, put), as the
//! repetition rule compares them, and how often each occurred.
//!
//! A position's key is its board (one byte per cell), the place in the turn order of the
//! player to move, and the cell of a chain capture in progress. Keys are kept end to end, so
//! equal positions are told apart from a hash collision byte for byte: a rare collision costs
//! a comparison, never a wrong ruling.
//!
//! # Why a filter, then the hashes on their own
//! A learner's observation reads how often the current position occurred before at every ply
//! ([`Game::repetitions`](super::Game::repetitions)), and a quiet stretch may last hundreds of
//! plies (180 in `traditional`), so counting must be cheap when, as at most plies, the
//! position is new. A bit per hash value's top bits ([`Positions::filter`]) says so for most
//! new positions without reading the others; otherwise the hashes are counted, a loop the
//! compiler makes wide over memory read in order, and keys are compared only for a hash that
//! matches. (A hash table of counts, one slot looked up per ply, was slower in `VecGame`: a
//! slot is a memory access nothing predicts, and hundreds of games' tables do not stay in the
//! cache.)

use super::cell_set::Cell;
use super::variant::Repetition;

/// The positions since the last irreversible action, current last.
#[derive(Clone, Debug, Default)]
pub(crate) struct Positions {
    /// The keys end to end, all of one length (see [`push_key`]).
    keys: Vec<u8>,
    /// The hash of each key (see [`key_hash`]).
    hashes: Vec<u64>,
    /// Bit `h >> 54` (of 1,024) set for the hash `h` of every key: a clear bit, a hash no key
    /// has.
    filter: [u64; 16],
}

impl Positions {
    /// Forgets every position: after an irreversible action, none of them can occur again.
    pub(crate) fn clear(&mut self) {
        self.keys.clear();
        self.hashes.clear();
        self.filter = [0; 16];
    }

    /// Adds the current position (the board's `codes`, the place `turn_pos` in the turn order,
    /// the chain capture's cell) and returns how many of the earlier ones equal it.
    pub(crate) fn push(&mut self, codes: &[u8], turn_pos: usize, chain: Option<Cell>) -> u32 {
        let len = codes.len() + 8;
        push_key(&mut self.keys, codes, turn_pos, chain);
        let hash = key_hash(&self.keys[self.keys.len() - len..]);
        self.hashes.push(hash);
        let bit = (hash >> 54) as usize;
        let (word, mask) = (bit / 64, 1u64 << (bit % 64));
        if self.filter[word] & mask == 0 {
            // No earlier key has this hash.
            self.filter[word] |= mask;
            return 0;
        }
        occurrences_before(&self.keys, &self.hashes, len)
    }

    /// Whether the positions draw by `rule`, the current one having occurred `repeats` times
    /// before (what [`Positions::push`] returned).
    pub(crate) fn repeated(&self, rule: Repetition, repeats: u32) -> bool {
        let Some(t) = self.hashes.len().checked_sub(1) else {
            return false;
        };
        match rule {
            Repetition::Occurrence(n) => repeats + 1 >= n,
            Repetition::Cycle { times, extra } => {
                let len = self.keys.len() / self.hashes.len();
                let same = |i: usize, j: usize| same_key(&self.keys, &self.hashes, len, i, j);
                // Positions p_0..p_t; a cycle of length L repeated `times` times plus `extra`
                // plies means p_i == p_(i+L) for every i in t - (times*L + extra) ..= t - L.
                (1..=t / times as usize).any(|l| {
                    let span = times as usize * l + extra as usize;
                    span <= t && (t - span..=t - l).all(|i| same(i, i + l))
                })
            }
        }
    }

    /// The keys, oldest first, on a board of `cells` cells: each the board's codes, the place
    /// in the turn order (4 bytes, little-endian) and the chain's cell (4 bytes).
    pub(crate) fn keys(&self, cells: usize) -> std::slice::ChunksExact<'_, u8> {
        self.keys.chunks_exact(cells + 8)
    }
}

/// Appends the key of a position for the repetition rule to `out`: the board (its square
/// codes, one byte per cell: equal keys, equal boards), the place in the turn order, and the
/// cell of a chain capture in progress. The numbers are written whole (4 bytes each): a turn
/// order may have thousands of entries and a board thousands of cells, so one byte each would
/// make different positions collide. Every key of a game has the same length, cells + 8.
fn push_key(out: &mut Vec<u8>, codes: &[u8], turn_pos: usize, chain: Option<Cell>) {
    out.extend_from_slice(codes);
    out.extend_from_slice(&(turn_pos as u32).to_le_bytes());
    out.extend_from_slice(&chain.map_or(u32::MAX, |c| c as u32).to_le_bytes());
}

/// A hash of a position key (word by word, multiplying as FxHash does): equal keys have
/// equal hashes, so different hashes settle that two keys differ.
fn key_hash(key: &[u8]) -> u64 {
    let mix = |h: u64, word: u64| (h.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    // Whole words read as such (a copy of a chunk of unknown length is a call to memcpy, a
    // tenth of a random playout's time), the last partial word zero-padded.
    let words = key.chunks_exact(8);
    let tail = words.remainder();
    let h = words.fold(0, |h, w| {
        mix(h, u64::from_le_bytes(w.try_into().expect("8 bytes")))
    });
    if tail.is_empty() {
        return h;
    }
    let mut word = [0; 8];
    word[..tail.len()].copy_from_slice(tail);
    mix(h, u64::from_le_bytes(word))
}

/// Whether keys `i` and `j` of `keys` (keys of `len` bytes, hashed in `hashes`) are equal:
/// compared whole, byte for byte, only when their hashes are equal.
fn same_key(keys: &[u8], hashes: &[u64], len: usize, i: usize, j: usize) -> bool {
    hashes[i] == hashes[j] && keys[i * len..(i + 1) * len] == keys[j * len..(j + 1) * len]
}

/// How many of the positions before the last (keys of `len` bytes in `keys`) equal it: the
/// hashes equal to its counted first, and keys compared only when there are some.
fn occurrences_before(keys: &[u8], hashes: &[u64], len: usize) -> u32 {
    let Some((&last, before)) = hashes.split_last() else {
        return 0;
    };
    // Counted rather than searched: a count has no early exit, and so is done many hashes
    // at a time.
    if before.iter().filter(|&&h| h == last).count() == 0 {
        return 0;
    }
    let t = before.len();
    let key = &keys[t * len..(t + 1) * len];
    before
        .iter()
        .enumerate()
        .filter(|&(i, &h)| h == last && keys[i * len..(i + 1) * len] == *key)
        .count() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_hashes_are_the_word_by_word_fold_of_zero_padded_words() {
        let reference = |key: &[u8]| {
            key.chunks(8).fold(0u64, |h, chunk| {
                let mut word = [0; 8];
                word[..chunk.len()].copy_from_slice(chunk);
                (h.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(0x517c_c1b7_2722_0a95)
            })
        };
        let bytes: Vec<u8> = (0..100u32).map(|i| (i * 37 + 11) as u8).collect();
        for len in 0..bytes.len() {
            assert_eq!(
                key_hash(&bytes[..len]),
                reference(&bytes[..len]),
                "{len} bytes"
            );
        }
    }

    fn key(codes: &[u8], turn_pos: usize, chain: Option<Cell>) -> Vec<u8> {
        let mut key = Vec::new();
        push_key(&mut key, codes, turn_pos, chain);
        key
    }

    #[test]
    fn positions_far_apart_in_the_turn_order_or_the_board_do_not_collide() {
        let codes = [0, 1];
        assert_ne!(key(&codes, 1, None), key(&codes, 257, None));
        assert_ne!(key(&codes, 0, Some(3)), key(&codes, 0, Some(259)));
        assert_ne!(key(&codes, 0, Some(255)), key(&codes, 0, None));
    }

    /// A sequence of positions drawn from a few, with clears between some: each count equals
    /// the count over the keys kept.
    #[test]
    fn counts_equal_a_scan_of_every_earlier_position() {
        let mut positions = Positions::default();
        let mut x = 1u64;
        let mut kept: Vec<Vec<u8>> = Vec::new();
        for step in 0..20_000 {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1442695040888963407);
            if (x >> 60) == 0 && step % 7 == 0 {
                positions.clear();
                kept.clear();
            }
            // Few distinct boards and places, so positions come round often.
            let codes = [(x >> 33) as u8 % 3, (x >> 40) as u8 % 5, 7];
            let turn = (x >> 50) as usize % 2;
            let now = key(&codes, turn, None);
            let want = kept.iter().filter(|k| **k == now).count() as u32;
            assert_eq!(positions.push(&codes, turn, None), want, "step {step}");
            kept.push(now);
        }
    }

    #[test]
    fn a_cycle_rule_sees_the_cycle() {
        // The positions A B A B A: a cycle of two plies, twice and one ply more.
        let mut positions = Positions::default();
        let mut last = 0;
        for (i, codes) in [[1u8], [2], [1], [2], [1]].iter().enumerate() {
            last = positions.push(codes, i % 2, None);
        }
        let rule = |times, extra| Repetition::Cycle { times, extra };
        assert!(positions.repeated(rule(2, 0), last));
        assert!(!positions.repeated(rule(2, 1), last));
        assert!(!positions.repeated(rule(3, 0), last));
        assert!(positions.repeated(Repetition::Occurrence(3), last));
        assert!(!positions.repeated(Repetition::Occurrence(4), last));
    }
}
