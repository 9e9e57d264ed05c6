//! Seeds and deals: how the clients' and the server's seed contributions become the face-down
//! layout.
//!
//! # Derivation (stable: records depend on it)
//! 1. Key = SHA-256 of the bytes `anqi-deal-v1`, then the number of contributions as a 4-byte
//!    big-endian integer, then for each contribution, in order (clients in seat order, then the
//!    server's), its length as a 4-byte big-endian integer followed by its UTF-8 bytes.
//! 2. A ChaCha20 generator (`rand_chacha::ChaCha20Rng`) is seeded with the 32-byte key.
//! 3. What is shuffled depends on the variant's start (`shuffle` is Fisher–Yates: for `i` from
//!    `len-1` down to `1`, swap items `i` and `j = uniform(i+1)`, where `uniform(n)` draws 64-bit
//!    words (`next_u64`) until one is at least `2^64 mod n` and returns it modulo `n`):
//!    - `face-down`, `open`, `(reveal K)`: the layout (the variant's piece string followed by one
//!      empty cell per cell left over) is shuffled, and cell `c` gets item `c`. For `(reveal K)`
//!      the occupied cells are then listed in cell order and the first `K` of them are picked by
//!      a partial shuffle (for `i` in `0..K`, swap items `i` and `i + uniform(n - i)`): those are
//!      face-up. `open` turns every piece face-up.
//!    - `(fixed BOARD)`: the pieces not shown on the board, in piece-string order, are shuffled
//!      and given to the `X` cells in cell order. `(fixed BOARD DEAL)` uses no randomness.
//!    - `bag`: the piece string is shuffled; `(bag)` draws from its start.
//!
//! The same contributions always give the same deal, on every platform and in every version.

use super::piece::Piece;
use super::variant::{Start, Variant};
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};
use sha2::{Digest, Sha256};

/// The inputs of one deal, as kept in the game record.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SeedInputs {
    /// Each client's `SEED` from `(init NAME SEED)`, in seat order (empty when the
    /// configuration leaves client seeds out of the mix).
    pub clients: Vec<String>,
    /// The server's contribution.
    pub server: String,
}

impl SeedInputs {
    /// The 32-byte key of step 1.
    pub fn key(&self) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(b"anqi-deal-v1");
        let parts: Vec<&str> = self
            .clients
            .iter()
            .map(String::as_str)
            .chain(std::iter::once(self.server.as_str()))
            .collect();
        h.update((parts.len() as u32).to_be_bytes());
        for p in parts {
            h.update((p.len() as u32).to_be_bytes());
            h.update(p.as_bytes());
        }
        h.finalize().into()
    }

    /// The random layout for `pieces` on `size` cells: `Some(piece)` where a piece is dealt
    /// (step 3 for a face-down start).
    pub fn deal(&self, pieces: &[Piece], size: usize) -> Vec<Option<Piece>> {
        let mut rng = ChaCha20Rng::from_seed(self.key());
        layout(&mut rng, pieces, size)
    }

    /// The starting position of a game of `variant`.
    pub fn deal_for(&self, variant: &Variant) -> Deal {
        let size = variant.topology.size();
        let mut rng = ChaCha20Rng::from_seed(self.key());
        match &variant.start {
            Start::FaceDown | Start::Open | Start::Reveal(_) => {
                let cells = layout(&mut rng, &variant.pieces, size);
                let mut face_up = vec![matches!(variant.start, Start::Open); size];
                if let Start::Reveal(k) = variant.start {
                    let mut occupied: Vec<usize> =
                        (0..size).filter(|&c| cells[c].is_some()).collect();
                    let n = occupied.len();
                    for i in 0..(k as usize).min(n) {
                        let j = i + uniform(&mut rng, (n - i) as u64) as usize;
                        occupied.swap(i, j);
                        face_up[occupied[i]] = true;
                    }
                }
                Deal {
                    cells,
                    face_up,
                    bag: Vec::new(),
                }
            }
            Start::Fixed { board, deal } => {
                let mut cells = vec![None; size];
                let mut face_up = vec![false; size];
                let mut shown = Vec::new();
                for (c, ch) in board.chars().enumerate() {
                    if let Some(p) = Piece::from_letter(ch) {
                        cells[c] = Some(p);
                        face_up[c] = true;
                        shown.push(p);
                    }
                }
                let hidden: Vec<usize> = board
                    .chars()
                    .enumerate()
                    .filter(|(_, ch)| *ch == 'X')
                    .map(|(c, _)| c)
                    .collect();
                match deal {
                    Some(d) => {
                        let d: Vec<char> = d.chars().collect();
                        for &c in &hidden {
                            cells[c] = Piece::from_letter(d[c]);
                        }
                    }
                    None => {
                        let mut rest = variant.pieces.clone();
                        for p in shown {
                            let i = rest.iter().position(|&q| q == p).expect("validated");
                            rest.remove(i);
                        }
                        shuffle(&mut rng, &mut rest);
                        for (&c, p) in hidden.iter().zip(rest) {
                            cells[c] = Some(p);
                        }
                    }
                }
                Deal {
                    cells,
                    face_up,
                    bag: Vec::new(),
                }
            }
            Start::Bag => {
                let mut bag = variant.pieces.clone();
                shuffle(&mut rng, &mut bag);
                Deal {
                    cells: vec![None; size],
                    face_up: vec![false; size],
                    bag,
                }
            }
        }
    }
}

/// The starting position: what is on each cell, which of it is face-up, and the bag's order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deal {
    /// The piece on each cell, if any.
    pub cells: Vec<Option<Piece>>,
    /// Whether that piece starts face-up.
    pub face_up: Vec<bool>,
    /// Pieces in the bag, the next draw first.
    pub bag: Vec<Piece>,
}

/// The part of a deal's text an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DealPart {
    /// The cells: a piece letter or `.` per cell.
    Cells,
    /// The bag's order: a piece letter per piece.
    Bag,
}

/// Why a deal given as text ([`Deal::from_text`]) is not one the variant's start could deal.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DealError {
    /// A character of `part` that is no piece letter (nor `.`, in the cells).
    #[error(
        "{}: {character:?} at index {index} is not {}a piece letter (KGBRNCP red, kgbrncp black)",
        part_name(*part),
        if *part == DealPart::Cells { "'.' or " } else { "" }
    )]
    NotAPiece {
        part: DealPart,
        character: char,
        index: usize,
    },
    /// The pieces of `part` are not the variant's (`pieces`, its letters): how many of each
    /// piece are missing and how many too many.
    #[error(
        "{} are not the variant's pieces ({pieces}): {}",
        pieces_of(*part),
        difference(missing, too_many)
    )]
    NotTheVariantsPieces {
        part: DealPart,
        pieces: String,
        missing: Vec<(u32, Piece)>,
        too_many: Vec<(u32, Piece)>,
    },
    #[error("a {variant} game starts with an empty board: give the bag's order, not cells")]
    CellsInBagGame { variant: String },
    #[error("a bag start has no face-up cells")]
    FaceUpInBagGame,
    #[error(
        "a {variant} game starts from a bag: give its order (every piece, the next draw first)"
    )]
    NoBag { variant: String },
    #[error("a {variant} game has no bag: give cells only")]
    BagInGameWithoutBag { variant: String },
    #[error("give the cells: one letter per cell, '.' for an empty one")]
    NoCells,
    #[error("the deal has {cells} cells, the {variant} board {board}")]
    CellCount {
        cells: usize,
        variant: String,
        board: usize,
    },
    /// A face-up cell past the board's `board` cells.
    #[error("face-up cell {cell} is out of range: the board has cells 0..{}", board - 1)]
    FaceUpOutOfRange { cell: usize, board: usize },
    #[error("face-up cell {cell} is empty")]
    FaceUpEmpty { cell: usize },
    #[error("face-up cell {cell} is given twice")]
    FaceUpTwice { cell: usize },
    #[error("every piece of a {variant} game starts face-down: give no face-up cells")]
    FaceUpInFaceDownGame { variant: String },
    #[error(
        "every piece of an open start is face-up: {given} face-up cells given for {pieces} pieces"
    )]
    OpenNotAllFaceUp { given: usize, pieces: usize },
    #[error(
        "a (reveal {k}) start turns {want} pieces face-up: give their cells as face_up ({given} given)"
    )]
    RevealFaceUp { k: u32, want: usize, given: usize },
    /// A cell that does not hold what the fixed board shows there.
    #[error("cell {cell} does not fit the fixed board {board:?}: it shows {shows:?} there")]
    NotTheFixedBoard {
        cell: usize,
        board: String,
        shows: char,
    },
    #[error("the face-up cells must be the fixed board's letters ({board:?}): cell {cell} is not")]
    FaceUpNotTheFixedLetters { board: String, cell: usize },
}

/// How an error names a part of the deal.
fn part_name(part: DealPart) -> &'static str {
    match part {
        DealPart::Cells => "the cells",
        DealPart::Bag => "the bag",
    }
}

/// How an error names the pieces of a part of the deal.
fn pieces_of(part: DealPart) -> &'static str {
    match part {
        DealPart::Cells => "the cells' pieces",
        DealPart::Bag => "the bag's pieces",
    }
}

/// `missing 2 P, 1 k; too many 1 K`: the pieces missing and those too many.
fn difference(missing: &[(u32, Piece)], too_many: &[(u32, Piece)]) -> String {
    let list = |pieces: &[(u32, Piece)]| -> String {
        pieces
            .iter()
            .map(|(n, p)| format!("{n} {p}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut parts = Vec::new();
    if !missing.is_empty() {
        parts.push(format!("missing {}", list(missing)));
    }
    if !too_many.is_empty() {
        parts.push(format!("too many {}", list(too_many)));
    }
    parts.join("; ")
}

impl Deal {
    /// A deal with every piece face-down where `cells` says (tests, puzzles).
    pub fn face_down(cells: Vec<Option<Piece>>) -> Deal {
        let n = cells.len();
        Deal {
            cells,
            face_up: vec![false; n],
            bag: Vec::new(),
        }
    }

    /// Reads a given starting position of `variant` and checks that it is one the variant's
    /// start could deal.
    ///
    /// - `cells`: one character per cell, the piece's letter or `.` for an empty cell, as the
    ///   board would read with every piece face-up. Required unless the start is a bag, where
    ///   it may be left out or be all `.`.
    /// - `face_up`: the cells whose piece starts face-up. Left out, it is what the start says
    ///   when that is certain: none (`face-down`), every piece (`open`), the board's letters
    ///   (`fixed`); a `(reveal K)` start needs it (the K cells). Given, it must be what the
    ///   start allows: none, every piece, K pieces, or the fixed board's letters.
    /// - `bag`: the bag's pieces, the next draw first: required for a bag start (every piece
    ///   of the variant), empty or left out otherwise.
    ///
    /// The pieces must be the variant's multiset. A `fixed` start's board must be matched (its
    /// letters where it has letters, a piece at each `X`, nothing at each `.`); the pieces at
    /// its `X` cells may be any of those not shown, even when the description gives a deal.
    ///
    /// # Errors
    /// What does not fit ([`DealError`]), said for people who typed the deal.
    pub fn from_text(
        variant: &Variant,
        cells: Option<&str>,
        face_up: Option<&[usize]>,
        bag: Option<&str>,
    ) -> Result<Deal, DealError> {
        let size = variant.topology.size();
        let name = || variant.name.clone();
        if variant.start == Start::Bag {
            return Deal::from_bag_text(variant, cells, face_up, bag);
        }
        if bag.is_some_and(|b| !b.is_empty()) {
            return Err(DealError::BagInGameWithoutBag { variant: name() });
        }
        let Some(cells) = cells else {
            return Err(DealError::NoCells);
        };
        let n = cells.chars().count();
        if n != size {
            return Err(DealError::CellCount {
                cells: n,
                variant: name(),
                board: size,
            });
        }
        let cells = letters(DealPart::Cells, cells)?;
        let dealt: Vec<Piece> = cells.iter().flatten().copied().collect();
        same_pieces(DealPart::Cells, &dealt, &variant.pieces)?;
        let occupied: Vec<usize> = (0..size).filter(|&c| cells[c].is_some()).collect();
        let mut up = vec![false; size];
        if let Some(given) = face_up {
            for &cell in given {
                if cell >= size {
                    return Err(DealError::FaceUpOutOfRange { cell, board: size });
                }
                if cells[cell].is_none() {
                    return Err(DealError::FaceUpEmpty { cell });
                }
                if std::mem::replace(&mut up[cell], true) {
                    return Err(DealError::FaceUpTwice { cell });
                }
            }
        }
        let given = face_up.map_or(0, <[usize]>::len);
        match &variant.start {
            Start::FaceDown if given > 0 => {
                return Err(DealError::FaceUpInFaceDownGame { variant: name() })
            }
            Start::FaceDown => {}
            Start::Open => match face_up {
                Some(_) if given != occupied.len() => {
                    return Err(DealError::OpenNotAllFaceUp {
                        given,
                        pieces: occupied.len(),
                    })
                }
                Some(_) => {}
                None => occupied.iter().for_each(|&c| up[c] = true),
            },
            Start::Reveal(k) => {
                let want = (*k as usize).min(occupied.len());
                if face_up.is_none() || given != want {
                    return Err(DealError::RevealFaceUp { k: *k, want, given });
                }
            }
            Start::Fixed { board, .. } => {
                for (cell, shows) in board.chars().enumerate() {
                    let fits = match shows {
                        '.' => cells[cell].is_none(),
                        'X' => cells[cell].is_some(),
                        letter => cells[cell].map(Piece::letter) == Some(letter),
                    };
                    if !fits {
                        return Err(DealError::NotTheFixedBoard {
                            cell,
                            board: board.clone(),
                            shows,
                        });
                    }
                    let shown = Piece::from_letter(shows).is_some();
                    if face_up.is_some() && up[cell] != shown {
                        return Err(DealError::FaceUpNotTheFixedLetters {
                            board: board.clone(),
                            cell,
                        });
                    }
                    up[cell] = shown;
                }
            }
            Start::Bag => unreachable!("handled above"),
        }
        Ok(Deal {
            cells,
            face_up: up,
            bag: Vec::new(),
        })
    }

    /// [`Deal::from_text`] for a bag start: the bag's order, the board empty.
    fn from_bag_text(
        variant: &Variant,
        cells: Option<&str>,
        face_up: Option<&[usize]>,
        bag: Option<&str>,
    ) -> Result<Deal, DealError> {
        let size = variant.topology.size();
        let name = || variant.name.clone();
        if let Some(cells) = cells {
            if cells.chars().any(|c| c != '.') {
                return Err(DealError::CellsInBagGame { variant: name() });
            }
        }
        if face_up.is_some_and(|f| !f.is_empty()) {
            return Err(DealError::FaceUpInBagGame);
        }
        let Some(bag) = bag else {
            return Err(DealError::NoBag { variant: name() });
        };
        let bag: Vec<Piece> = letters(DealPart::Bag, bag)?.into_iter().flatten().collect();
        same_pieces(DealPart::Bag, &bag, &variant.pieces)?;
        Ok(Deal {
            cells: vec![None; size],
            face_up: vec![false; size],
            bag,
        })
    }

    /// The cells as text: each piece's letter (face-up or not), `.` for an empty cell.
    pub fn cells_text(&self) -> String {
        self.cells
            .iter()
            .map(|p| p.map_or('.', Piece::letter))
            .collect()
    }

    /// The cells whose piece starts face-up, in order.
    pub fn face_up_cells(&self) -> Vec<usize> {
        (0..self.face_up.len())
            .filter(|&c| self.face_up[c])
            .collect()
    }

    /// The bag as text, the next draw first.
    pub fn bag_text(&self) -> String {
        self.bag.iter().map(|p| p.letter()).collect()
    }
}

/// The pieces of a deal's `part`, read from its text: a piece letter per character, or `.` (no
/// piece) in the cells.
fn letters(part: DealPart, text: &str) -> Result<Vec<Option<Piece>>, DealError> {
    text.chars()
        .enumerate()
        .map(|(index, character)| match character {
            '.' if part == DealPart::Cells => Ok(None),
            c => Piece::from_letter(c).map(Some).ok_or(DealError::NotAPiece {
                part,
                character,
                index,
            }),
        })
        .collect()
}

/// Checks that `given` is the multiset `want`, and says which pieces are missing or too many.
fn same_pieces(part: DealPart, given: &[Piece], want: &[Piece]) -> Result<(), DealError> {
    let mut diff = [0i64; 14];
    for p in want {
        diff[p.index()] += 1;
    }
    for p in given {
        diff[p.index()] -= 1;
    }
    if diff.iter().all(|&d| d == 0) {
        return Ok(());
    }
    let list = |sign: i64| -> Vec<(u32, Piece)> {
        (0..14)
            .filter(|&i| diff[i] * sign > 0)
            .map(|i| ((diff[i] * sign) as u32, Piece::from_index(i)))
            .collect()
    };
    Err(DealError::NotTheVariantsPieces {
        part,
        pieces: want.iter().map(|p| p.letter()).collect(),
        missing: list(1),
        too_many: list(-1),
    })
}

fn layout(rng: &mut ChaCha20Rng, pieces: &[Piece], size: usize) -> Vec<Option<Piece>> {
    let mut layout: Vec<Option<Piece>> = pieces.iter().copied().map(Some).collect();
    layout.resize(size, None);
    shuffle(rng, &mut layout);
    layout
}

fn shuffle<T>(rng: &mut ChaCha20Rng, items: &mut [T]) {
    for i in (1..items.len()).rev() {
        let j = uniform(rng, i as u64 + 1) as usize;
        items.swap(i, j);
    }
}

/// A uniform integer in `0..n` (`n >= 1`) by rejection, as documented above.
fn uniform(rng: &mut ChaCha20Rng, n: u64) -> u64 {
    let threshold = n.wrapping_neg() % n; // 2^64 mod n
    loop {
        let x = rng.next_u64();
        if x >= threshold {
            return x % n;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs(clients: &[&str], server: &str) -> SeedInputs {
        SeedInputs {
            clients: clients.iter().map(|s| s.to_string()).collect(),
            server: server.to_string(),
        }
    }

    #[test]
    fn same_inputs_same_deal() {
        let pieces = Piece::parse_list("KGGBBRRNNCCPPPPPkggbbrrnnccppppp").unwrap();
        let a = inputs(&["666", "1"], "abc").deal(&pieces, 32);
        let b = inputs(&["666", "1"], "abc").deal(&pieces, 32);
        assert_eq!(a, b);
        let mut sorted: Vec<_> = a.iter().map(|p| p.unwrap()).collect();
        sorted.sort();
        let mut want = pieces.clone();
        want.sort();
        assert_eq!(sorted, want, "a deal is a permutation of the pieces");
    }

    #[test]
    fn every_contribution_changes_the_deal() {
        let pieces = Piece::parse_list("KGGBBRRNNCCPPPPPkggbbrrnnccppppp").unwrap();
        let base = inputs(&["666", "1"], "abc").deal(&pieces, 32);
        assert_ne!(base, inputs(&["667", "1"], "abc").deal(&pieces, 32));
        assert_ne!(base, inputs(&["666", "2"], "abc").deal(&pieces, 32));
        assert_ne!(base, inputs(&["666", "1"], "abd").deal(&pieces, 32));
        // Lengths are framed: moving a character between contributions changes the key.
        assert_ne!(
            inputs(&["66", "61"], "").key(),
            inputs(&["666", "1"], "").key()
        );
    }

    /// Pins the derivation: if this changes, every stored record stops verifying.
    #[test]
    fn derivation_is_pinned() {
        let pieces = Piece::parse_list("KPPPkppp").unwrap();
        let deal: String = inputs(&["666", "1"], "0")
            .deal(&pieces, 8)
            .iter()
            .map(|p| p.map_or('.', |p| p.letter()))
            .collect();
        assert_eq!(deal, PINNED_2X4_DEAL);
    }

    const PINNED_2X4_DEAL: &str = "kPpPpKPp";

    #[test]
    fn fewer_pieces_than_cells_leaves_empties() {
        let pieces = Piece::parse_list("Kk").unwrap();
        let d = inputs(&[], "x").deal(&pieces, 6);
        assert_eq!(d.iter().filter(|p| p.is_some()).count(), 2);
    }

    #[test]
    fn uniform_is_roughly_uniform() {
        let mut rng = ChaCha20Rng::from_seed([7; 32]);
        let mut hits = [0u32; 3];
        for _ in 0..30_000 {
            hits[uniform(&mut rng, 3) as usize] += 1;
        }
        assert!(
            hits.iter().all(|&h| (9_000..11_000).contains(&h)),
            "{hits:?}"
        );
    }

    /// Every deal the seeds give, written as text and read back, is the same deal; leaving
    /// out the face-up cells gives the start's own where they are certain.
    #[test]
    fn dealt_starts_read_back_from_text() {
        for (name, _) in crate::rules::SHIPPED {
            let v = Variant::shipped(name).unwrap();
            for seed in ["a", "b", "c"] {
                let deal = inputs(&[], seed).deal_for(&v);
                let cells = deal.cells_text();
                let back = Deal::from_text(
                    &v,
                    Some(&cells),
                    Some(&deal.face_up_cells()),
                    Some(&deal.bag_text()),
                );
                assert_eq!(back.as_ref(), Ok(&deal), "{name} {seed}");
                if !matches!(v.start, Start::Reveal(_)) {
                    let bare = if v.start == Start::Bag {
                        Deal::from_text(&v, None, None, Some(&deal.bag_text()))
                    } else {
                        Deal::from_text(&v, Some(&cells), None, None)
                    };
                    assert_eq!(bare, Ok(deal), "{name} {seed}");
                }
            }
        }
    }

    const ALL: &str = "KGGBBRRNNCCPPPPPkggbbrrnnccppppp";

    /// A variant, the deal's cells, face-up cells and bag, and what the refusal must say.
    type Case<'a> = (
        &'a str,
        Option<&'a str>,
        Option<&'a [usize]>,
        Option<&'a str>,
        &'a str,
    );

    fn refusal(
        variant: &str,
        cells: Option<&str>,
        up: Option<&[usize]>,
        bag: Option<&str>,
    ) -> String {
        let v = Variant::shipped(variant).unwrap();
        Deal::from_text(&v, cells, up, bag)
            .expect_err("refused")
            .to_string()
    }

    #[test]
    fn deals_that_the_start_could_not_give_are_refused_with_the_reason() {
        // "traditional-2x4" deals KPPPkppp face-down on 8 cells.
        let cases: &[Case] = &[
            (
                "traditional-2x4",
                Some("KPPPkpp"),
                None,
                None,
                "7 cells, the traditional-2x4 board 8",
            ),
            (
                "traditional-2x4",
                Some("KPPPkppk"),
                None,
                None,
                "missing 1 p; too many 1 k",
            ),
            (
                "traditional-2x4",
                Some("KPPPkpp."),
                None,
                None,
                "missing 1 p",
            ),
            (
                "traditional-2x4",
                Some("KPPPkppx"),
                None,
                None,
                "'x' at index 7 is not '.' or a piece letter",
            ),
            (
                "traditional-2x4",
                Some("KPPPkppp"),
                Some(&[0][..]),
                None,
                "give no face-up cells",
            ),
            (
                "traditional-2x4",
                Some("KPPPkppp"),
                None,
                Some("K"),
                "has no bag",
            ),
            ("traditional-2x4", None, None, None, "give the cells"),
            (
                "open",
                Some(ALL),
                Some(&[0, 1][..]),
                None,
                "2 face-up cells given for 32 pieces",
            ),
            ("reveal-4", Some(ALL), None, None, "turns 4 pieces face-up"),
            (
                "reveal-4",
                Some(ALL),
                Some(&[0, 1, 2, 2][..]),
                None,
                "cell 2 is given twice",
            ),
            (
                "reveal-4",
                Some(ALL),
                Some(&[0, 1, 2, 40][..]),
                None,
                "cell 40 is out of range",
            ),
            // puzzle: the fixed board "C.XgK..p" with CKkgp.
            (
                "puzzle",
                Some("C.kgK.p."),
                None,
                None,
                "cell 6 does not fit the fixed board",
            ),
            (
                "puzzle",
                Some("C.kgK..p"),
                Some(&[0, 3, 4][..]),
                None,
                "cell 7 is not",
            ),
            (
                "strategic-2x4",
                Some("K......."),
                None,
                Some("KPPPkppp"),
                "starts with an empty board",
            ),
            ("strategic-2x4", None, None, None, "give its order"),
            (
                "strategic-2x4",
                None,
                None,
                Some("KPPPkpp"),
                "the bag's pieces are not the variant's pieces (KPPPkppp): missing 1 p",
            ),
        ];
        for (variant, cells, up, bag, want) in cases {
            let got = refusal(variant, *cells, *up, *bag);
            assert!(
                got.contains(want),
                "{variant} {cells:?}: {got:?} lacks {want:?}"
            );
        }
        // The puzzle's X cell may hold any piece not shown, not only the description's deal.
        let v = Variant::shipped("puzzle").unwrap();
        let d = Deal::from_text(&v, Some("C.kgK..p"), None, None).unwrap();
        assert_eq!(d.face_up_cells(), vec![0, 3, 4, 7]);
        assert!(
            Deal::from_text(&v, Some("C.pgK..k"), None, None).is_err(),
            "k shown at 7"
        );
    }
}
