//! The legal action ids of a game's player to move, kept beside its share of `VecGame`'s mask:
//! the reveals as a set of cells, everything else as a list of ids.
//!
//! # Why reveals are a set
//! A reveal's id is its cell (`actions.rs`), so the mask's first `S` bytes are the face-down
//! cells, one byte each. Early in a game most legal actions are reveals (32 at the start of
//! `traditional`), and a call and a write per reveal each step was most of the listing. As a
//! set they cost one word of the board's ([`Board::face_down_set`]), written into the mask
//! eight cells at a time, whatever their number; only the moves are listed one by one.
//!
//! [`Board::face_down_set`]: anqi_core::rules::Board::face_down_set

/// A set of cells as words, in the [`LegalIds`] itself up to 128 cells: in the slot of the
/// game in `VecGame`, not behind a pointer to memory of its own (see `Board`'s squares).
type Words = smallvec::SmallVec<[u64; 2]>;

/// The legal ids: reveals (ids below the board's cell count) as bits, the others listed.
#[derive(Clone, Debug)]
pub struct LegalIds {
    /// The board's cells.
    cells: usize,
    /// Bit `c % 64` of word `c / 64` for the reveal of cell `c`.
    reveals: Words,
    /// How many bits `reveals` has set.
    reveal_count: u32,
    /// The reveals the mask's first bytes hold: the set changes only when a piece is turned
    /// up (or a game starts), so most steps leave those bytes as they are.
    shown: Words,
    /// The other legal ids (moves, jumps, a draw, puts), in listing order, in
    /// `others[..other_count]`. The buffer holds every id of the variant, so a listing writes
    /// into it by index: a `Vec::push` would make the compiler reload the length from memory
    /// after every id stored (the store might have changed it), a quarter of the listing.
    others: Box<[u32]>,
    other_count: usize,
    /// The listed others again as a set, bit `id % 64` of word `id / 64` (kept with the mask's
    /// bytes by [`LegalIds::write`] and [`LegalIds::clear`]): whether an action is legal, in
    /// one test.
    listed_set: IdSet,
}

/// A set of action ids as words, in the [`LegalIds`] itself up to 512 ids (352 on a 4x8 board).
type IdSet = smallvec::SmallVec<[u64; 8]>;

/// Each byte's eight bits, one to a byte of a word (bit `i` to byte `i`, little-endian): eight
/// cells of a set as eight bytes of a mask in one store.
const SPREAD: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut bit = 0;
        while bit < 8 {
            if byte >> bit & 1 == 1 {
                table[byte] |= 1 << (8 * bit);
            }
            bit += 1;
        }
        byte += 1;
    }
    table
};

impl LegalIds {
    /// No legal id, on a board of `cells` cells in a variant of `ids` ids (what a mask of
    /// zeros says).
    ///
    /// `None` when the memory for it cannot be allocated (`VecGame` raises MemoryError): its
    /// listing buffer, with room for every id of the variant, is a large part of a game's.
    pub fn try_new(cells: usize, ids: usize) -> Option<LegalIds> {
        // Room for every id, and for a listing that writes four at a time.
        let mut others = Vec::new();
        others.try_reserve_exact(ids.checked_add(4)?).ok()?;
        others.resize(ids + 4, 0);
        Some(LegalIds {
            cells,
            reveals: Words::from_elem(0, cells.div_ceil(64)),
            reveal_count: 0,
            shown: Words::from_elem(0, cells.div_ceil(64)),
            // Exactly the length reserved: no reallocation.
            others: others.into_boxed_slice(),
            other_count: 0,
            listed_set: IdSet::from_elem(0, ids.div_ceil(64)),
        })
    }

    /// The other ids listed.
    #[inline]
    fn listed(&self) -> &[u32] {
        &self.others[..self.other_count]
    }

    /// How many legal ids.
    #[inline]
    pub fn len(&self) -> usize {
        self.reveal_count as usize + self.other_count
    }

    /// Whether `id` is one of them (once written into the mask: [`LegalIds::write`]): two bit
    /// tests and no branch on what `id` is, which would follow no pattern the processor could
    /// predict when a batch of actions is checked.
    #[inline]
    pub fn contains(&self, id: u32) -> bool {
        let bit = |set: &[u64], i: usize| set.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1);
        let i = id as usize;
        (i < self.cells && bit(&self.reveals, i)) | bit(&self.listed_set, i)
    }

    /// The `k`-th (from 0, below [`LegalIds::len`]): the reveals in cell order, then the
    /// others in listing order.
    pub fn nth(&self, k: usize) -> u32 {
        let mut k = k;
        if k >= self.reveal_count as usize {
            return self.listed()[k - self.reveal_count as usize];
        }
        for (w, &word) in self.reveals.iter().enumerate() {
            let here = word.count_ones() as usize;
            if k < here {
                let mut word = word;
                for _ in 0..k {
                    word &= word - 1;
                }
                return (w * 64) as u32 + word.trailing_zeros();
            }
            k -= here;
        }
        unreachable!("k is below the reveal count")
    }

    /// Takes every id's byte in `mask` back to 0 and forgets the ids other than reveals.
    #[inline]
    pub fn clear(&mut self, mask: &mut [u8]) {
        for &id in self.listed() {
            mask[id as usize] = 0;
        }
        // Word by word, not id by id: a few stores.
        self.listed_set.fill(0);
        self.other_count = 0;
        // The reveals' bytes are all rewritten by `write`; the set is left to the listing
        // ([`LegalIds::set_reveals`], or [`LegalIds::push`] after [`LegalIds::clear_reveals`]).
    }

    /// Forgets the reveals, before they are pushed one by one.
    #[inline]
    pub fn clear_reveals(&mut self) {
        self.reveals.fill(0);
        self.reveal_count = 0;
    }

    /// Sets the reveals to the `count` cells of `set` (bit `c` for cell `c`), on a board of
    /// at most 128 cells.
    #[inline]
    pub fn set_reveals(&mut self, set: u128, count: u32) {
        debug_assert_eq!(set.count_ones(), count);
        for (w, word) in self.reveals.iter_mut().enumerate() {
            *word = (set >> (64 * w)) as u64;
        }
        self.reveal_count = count;
    }

    /// Adds an id, from a listing in order (reveals and others may come mixed).
    #[inline]
    pub fn push(&mut self, id: u32) {
        let i = id as usize;
        if i < self.cells {
            self.reveals[i / 64] |= 1 << (i % 64);
            self.reveal_count += 1;
        } else {
            self.others[self.other_count] = id;
            self.other_count += 1;
        }
    }

    /// Lists the others with `list`, which writes them from the start of the buffer it is
    /// given (room for every id of the variant and four more) and returns how many it wrote: for a caller
    /// that knows its ids are no reveals, each one stored by index.
    #[inline]
    pub fn list_others(&mut self, list: impl FnOnce(&mut [u32]) -> usize) {
        let start = self.other_count;
        self.other_count += list(&mut self.others[start..]);
    }

    /// Writes the ids into `mask`, which holds zeros where [`LegalIds::clear`] left them: a 1
    /// at each id other than a reveal, then every reveal byte (eight at a time from the set)
    /// unless the mask holds that set already.
    #[inline]
    pub fn write(&mut self, mask: &mut [u8]) {
        // The set as a slice once, not at every id.
        let set: &mut [u64] = &mut self.listed_set;
        for &id in &self.others[..self.other_count] {
            mask[id as usize] = 1;
            set[id as usize / 64] |= 1 << (id % 64);
        }
        // Compared word by word (a slice comparison is a call to `memcmp`, for one word).
        let changed = self
            .shown
            .iter()
            .zip(&self.reveals)
            .fold(0, |diff, (a, b)| diff | (a ^ b));
        if changed == 0 {
            return;
        }
        self.shown.copy_from_slice(&self.reveals);
        let cells = &mut mask[..self.cells];
        let mut chunks = cells.chunks_exact_mut(8);
        for (i, chunk) in chunks.by_ref().enumerate() {
            let byte = (self.reveals[i / 8] >> (8 * (i % 8))) as u8;
            chunk.copy_from_slice(&SPREAD[usize::from(byte)].to_le_bytes());
        }
        let rest = chunks.into_remainder();
        let start = self.cells - rest.len();
        for (k, b) in rest.iter_mut().enumerate() {
            let c = start + k;
            *b = (self.reveals[c / 64] >> (c % 64) & 1) as u8;
        }
    }
}
