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

/// A fresh random server contribution: 16 bytes from the operating system, in hex.
pub fn random_server_seed() -> String {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        // No OS randomness: fall back on the clock, which is still recorded and verifiable.
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        bytes = nanos.to_le_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
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

    #[test]
    fn random_server_seeds_differ() {
        assert_ne!(random_server_seed(), random_server_seed());
        assert_eq!(random_server_seed().len(), 32);
    }
}
