//! A material: how many of each piece stand on the board, all of them face-up.

use super::error::MaterialNameError;
use crate::rules::{Board, Colour, Piece, Square};
use std::fmt;

/// How many of each piece stand on the board, in the per-piece order `KGBRNCPkgbrncp`
/// ([`Piece::index`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Material {
    counts: [u8; 14],
}

impl Material {
    /// The material of a board whose pieces are all face-up (`None` with a face-down piece).
    pub fn of_board(board: &Board) -> Option<Material> {
        let mut counts = [0u8; 14];
        for sq in board.squares() {
            match sq {
                Square::Empty => {}
                Square::Hidden => return None,
                Square::Up(p) => counts[p.index()] = counts[p.index()].saturating_add(1),
            }
        }
        Some(Material { counts })
    }

    /// The material of per-piece counts.
    pub fn from_counts(counts: [u8; 14]) -> Material {
        Material { counts }
    }

    /// How many of each piece, per-piece order.
    pub fn counts(&self) -> [u8; 14] {
        self.counts
    }

    /// Pieces on the board.
    pub fn pieces(&self) -> usize {
        self.counts.iter().map(|&c| usize::from(c)).sum()
    }

    /// Pieces of one colour.
    pub fn of_colour(&self, colour: Colour) -> usize {
        let half = &self.counts[colour.index() * 7..colour.index() * 7 + 7];
        half.iter().map(|&c| usize::from(c)).sum()
    }

    /// The same pieces with red and black exchanged.
    pub fn swapped(&self) -> Material {
        let mut counts = [0u8; 14];
        counts[..7].copy_from_slice(&self.counts[7..]);
        counts[7..].copy_from_slice(&self.counts[..7]);
        Material { counts }
    }

    /// The material after the piece of index `piece` left the board (it must stand on it).
    pub fn without(&self, piece: usize) -> Material {
        let mut counts = self.counts;
        counts[piece] -= 1;
        Material { counts }
    }

    /// How many positions the material has on a board of `cells` cells with one colour to
    /// move, before any symmetry: the ways to put each group of identical pieces on the cells
    /// the groups before it left free.
    pub fn placements(&self, cells: usize) -> u128 {
        let mut free = cells as u128;
        let mut n: u128 = 1;
        for &c in self.counts.iter().filter(|&&c| c > 0) {
            let mut choose: u128 = 1;
            for i in 0..u128::from(c) {
                choose = choose * (free - i) / (i + 1);
            }
            n *= choose;
            free -= u128::from(c);
        }
        n
    }

    /// Reads a material's name (`KGkp`: its letters, in any order).
    ///
    /// # Errors
    /// A character that is no piece letter ([`MaterialNameError::NotAPiece`]).
    pub fn parse(text: &str) -> Result<Material, MaterialNameError> {
        let mut counts = [0u8; 14];
        for character in text.trim().chars() {
            let p = Piece::from_letter(character).ok_or_else(|| MaterialNameError::NotAPiece {
                character,
                name: super::error::clip(text, 40),
            })?;
            counts[p.index()] = counts[p.index()].saturating_add(1);
        }
        Ok(Material { counts })
    }

    /// Every material of at most `k` pieces with at least one piece of each colour and at most
    /// `limits[i]` of piece `i`: by number of pieces, then by name.
    pub fn all_up_to(limits: [u8; 14], k: usize) -> Vec<Material> {
        let mut out = Vec::new();
        let mut counts = [0u8; 14];
        fn walk(
            i: usize,
            left: usize,
            limits: &[u8; 14],
            counts: &mut [u8; 14],
            out: &mut Vec<Material>,
        ) {
            if i == 14 {
                let m = Material { counts: *counts };
                if m.of_colour(Colour::Red) > 0 && m.of_colour(Colour::Black) > 0 {
                    out.push(m);
                }
                return;
            }
            for n in 0..=usize::from(limits[i]).min(left) {
                counts[i] = n as u8;
                walk(i + 1, left - n, limits, counts, out);
            }
            counts[i] = 0;
        }
        walk(0, k, &limits, &mut counts, &mut out);
        out.sort_by_key(|m| (m.pieces(), m.to_string()));
        out
    }
}

impl fmt::Display for Material {
    /// The letters, per-piece order (`KGkp`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, &n) in self.counts.iter().enumerate() {
            for _ in 0..n {
                write!(f, "{}", Piece::from_index(i).letter())?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_swap() {
        let m = Material::parse("pKkG").unwrap();
        assert_eq!(m.to_string(), "KGkp");
        assert_eq!(m.swapped().to_string(), "KPkg");
        assert_eq!(
            m.without(Piece::from_letter('G').unwrap().index())
                .to_string(),
            "Kkp"
        );
        assert!(Material::parse("KX").is_err());
    }

    #[test]
    fn traditional_has_the_materials_counted_by_hand() {
        // Per colour K1 G2 B2 R2 N2 C2 P5: 7 one-piece, 27 two-piece and 72 three-piece sets,
        // so 7*7 two-piece materials, 2*7*27 three-piece and 27*27 + 2*7*72 four-piece.
        let limits = [1, 2, 2, 2, 2, 2, 5, 1, 2, 2, 2, 2, 2, 5];
        let all = Material::all_up_to(limits, 4);
        let of = |n| all.iter().filter(|m| m.pieces() == n).count();
        assert_eq!((of(2), of(3), of(4)), (49, 378, 729 + 1008));
    }
}
