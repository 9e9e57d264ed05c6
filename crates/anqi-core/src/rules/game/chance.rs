//! The hidden side of a game: the face-down pieces, the bag and the hand, as the referee knows
//! them; and chance, arranged (the next reveal or draw made to be a chosen piece, as a chance
//! node of a search plays it) or dealt anew (what determinized search samples). Everything a
//! player knows stays the same through either.

use super::Game;
use crate::rules::cell_set::Cell;
use crate::rules::movegen::Illegal;
use crate::rules::piece::Piece;

impl Game {
    /// The piece the player to move has drawn and must put.
    pub fn hand(&self) -> Option<Piece> {
        self.hand
    }

    /// Pieces still in the bag.
    pub fn bag_len(&self) -> usize {
        self.bag.len()
    }

    /// The face-down piece at `cell`, if any: the referee's knowledge, not a player's.
    pub fn hidden_piece(&self, cell: Cell) -> Option<Piece> {
        self.hidden.get(cell).copied().flatten()
    }

    /// The pieces in the bag, the next draw first: the referee's knowledge, not a player's.
    pub fn bag_pieces(&self) -> impl Iterator<Item = Piece> + '_ {
        self.bag.iter().rev().copied()
    }

    /// The face-down pieces on the board, counted per piece (index `colour * 7 + kind`, the
    /// order of the letters `KGBRNCPkgbrncp`). Nothing in play tells two face-down pieces
    /// apart, so a reveal turns up each of these with a probability proportional to its count:
    /// what a chance node of a search offers.
    pub fn face_down_counts(&self) -> [u32; 14] {
        let mut counts = [0; 14];
        for p in self.hidden.iter().flatten() {
            counts[p.index()] += 1;
        }
        counts
    }

    /// The pieces in the bag, counted as in [`Game::face_down_counts`]: what a draw may give.
    pub fn bag_counts(&self) -> [u32; 14] {
        let mut counts = [0; 14];
        for p in &self.bag {
            counts[p.index()] += 1;
        }
        counts
    }

    /// Chance: makes the face-down piece at `cell` be `piece`, by exchanging the face-down
    /// pieces of `cell` and of another face-down cell that holds `piece` (the first in cell
    /// order). The multiset of face-down pieces, and so everything a player knows, stays the
    /// same: revealing `cell` next is a reveal of a game dealt that way. Returns the other cell
    /// (`None` when `cell` held `piece` already), so a caller keeping the deal can exchange the
    /// same two cells in it.
    ///
    /// # Errors
    /// When `cell` holds no face-down piece, or no face-down piece is `piece`.
    pub fn arrange_reveal(&mut self, cell: Cell, piece: Piece) -> Result<Option<Cell>, Illegal> {
        match self.hidden.get(cell).copied().flatten() {
            None => Err(Illegal(format!("cell {cell} holds no face-down piece"))),
            Some(p) if p == piece => Ok(None),
            Some(_) => {
                let other = self
                    .hidden
                    .iter()
                    .position(|&h| h == Some(piece))
                    .ok_or_else(|| Illegal(format!("no face-down piece is {piece}")))?;
                self.hidden.swap(cell, other);
                Ok(Some(other))
            }
        }
    }

    /// Chance, all at once: deals the unseen pieces anew, the face-down ones among the
    /// face-down cells and the bag's in a new order, every arrangement equally likely when
    /// `below(n)` draws uniformly from `0..n`. The multisets stay the same, and so does
    /// everything a player knows: the same public state, another hidden one (determinized
    /// search samples these).
    pub fn redeal_unseen(&mut self, mut below: impl FnMut(u32) -> u32) {
        let cells: Vec<Cell> = (0..self.hidden.len())
            .filter(|&c| self.hidden[c].is_some())
            .collect();
        for i in (1..cells.len()).rev() {
            let j = below(i as u32 + 1) as usize;
            self.hidden.swap(cells[i], cells[j]);
        }
        for i in (1..self.bag.len()).rev() {
            let j = below(i as u32 + 1) as usize;
            self.bag.swap(i, j);
        }
    }

    /// Chance: makes the next bag draw be `piece`, by exchanging it with the first later draw
    /// that is `piece`. The bag's multiset stays the same. Returns how many draws after the
    /// next one the exchanged piece was (`None` when the next draw was `piece` already).
    ///
    /// # Errors
    /// When the bag holds no `piece`.
    pub fn arrange_draw(&mut self, piece: Piece) -> Result<Option<usize>, Illegal> {
        // `bag` is kept reversed: the next draw is its last item.
        let Some(next) = self.bag.len().checked_sub(1) else {
            return Err(Illegal("the bag is empty".into()));
        };
        if self.bag[next] == piece {
            return Ok(None);
        }
        let at = self
            .bag
            .iter()
            .rposition(|&p| p == piece)
            .ok_or_else(|| Illegal(format!("the bag holds no {piece}")))?;
        self.bag.swap(at, next);
        Ok(Some(next - at))
    }
}
