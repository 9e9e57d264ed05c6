//! Colours, piece kinds and pieces, with their one-letter wire form, and which of them a player
//! may move ([`Control`]).
//!
//! Letters follow Table II of the paper: `K` king, `G` guard, `B` bishop (minister), `N` knight,
//! `R` rook, `C` cannon, `P` pawn; red upper case, black lower case. What a kind may capture is
//! not here: ranks and capture rules are data of the variant (see [`crate::rules::CaptureRules`]).

use std::fmt;

/// One of the two piece colours. Which side plays which colour is decided by the first reveal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Colour {
    Red,
    Black,
}

impl Colour {
    /// Both colours, red first (the order used by every per-colour array).
    pub const ALL: [Colour; 2] = [Colour::Red, Colour::Black];

    /// The other colour.
    pub fn other(self) -> Colour {
        match self {
            Colour::Red => Colour::Black,
            Colour::Black => Colour::Red,
        }
    }

    /// Index into per-colour arrays: red 0, black 1.
    pub fn index(self) -> usize {
        self as usize
    }

    /// Lower-case English name, as used in records and messages.
    pub fn name(self) -> &'static str {
        match self {
            Colour::Red => "red",
            Colour::Black => "black",
        }
    }
}

/// The seven kinds of piece, highest conventional rank first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    King,
    Guard,
    Bishop,
    Rook,
    Knight,
    Cannon,
    Pawn,
}

impl Kind {
    /// Every kind, in the order used by every per-kind array.
    pub const ALL: [Kind; 7] = [
        Kind::King,
        Kind::Guard,
        Kind::Bishop,
        Kind::Rook,
        Kind::Knight,
        Kind::Cannon,
        Kind::Pawn,
    ];

    /// Index into per-kind arrays.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The upper-case letter of this kind (the red piece's letter).
    pub fn letter(self) -> char {
        match self {
            Kind::King => 'K',
            Kind::Guard => 'G',
            Kind::Bishop => 'B',
            Kind::Rook => 'R',
            Kind::Knight => 'N',
            Kind::Cannon => 'C',
            Kind::Pawn => 'P',
        }
    }

    /// The kind named by a letter of either case.
    pub fn from_letter(c: char) -> Option<Kind> {
        Some(match c.to_ascii_uppercase() {
            'K' => Kind::King,
            'G' => Kind::Guard,
            'B' => Kind::Bishop,
            'R' => Kind::Rook,
            'N' => Kind::Knight,
            'C' => Kind::Cannon,
            'P' => Kind::Pawn,
            _ => return None,
        })
    }

    /// English name, for error messages.
    pub fn name(self) -> &'static str {
        match self {
            Kind::King => "king",
            Kind::Guard => "guard",
            Kind::Bishop => "bishop",
            Kind::Rook => "rook",
            Kind::Knight => "knight",
            Kind::Cannon => "cannon",
            Kind::Pawn => "pawn",
        }
    }
}

/// A piece: a colour and a kind. Its wire form is one letter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Piece {
    pub colour: Colour,
    pub kind: Kind,
}

impl Piece {
    pub const fn new(colour: Colour, kind: Kind) -> Piece {
        Piece { colour, kind }
    }

    /// The piece's index in per-piece arrays (counts of unseen pieces, tensor planes, state
    /// keys): `colour * 7 + kind`, the order of the letters `KGBRNCPkgbrncp`.
    pub fn index(self) -> usize {
        self.colour.index() * 7 + self.kind.index()
    }

    /// The piece of [`Piece::index`] `i` (below 14).
    pub fn from_index(i: usize) -> Piece {
        Piece::new(Colour::ALL[i / 7], Kind::ALL[i % 7])
    }

    /// The wire letter: upper case for red, lower case for black.
    pub fn letter(self) -> char {
        let c = self.kind.letter();
        match self.colour {
            Colour::Red => c,
            Colour::Black => c.to_ascii_lowercase(),
        }
    }

    /// The piece named by a wire letter (`K`..`P` red, `k`..`p` black).
    pub fn from_letter(c: char) -> Option<Piece> {
        let kind = Kind::from_letter(c)?;
        let colour = if c.is_ascii_uppercase() {
            Colour::Red
        } else {
            Colour::Black
        };
        Some(Piece { colour, kind })
    }

    /// Parses a piece string such as `KPPPkppp` into a multiset (kept in the given order).
    ///
    /// # Errors
    /// The first character that is not a piece letter ([`PieceError::NotAPiece`]).
    pub fn parse_list(s: &str) -> Result<Vec<Piece>, PieceError> {
        s.chars()
            .enumerate()
            .map(|(index, character)| {
                Piece::from_letter(character).ok_or_else(|| PieceError::NotAPiece {
                    character,
                    index,
                    text: s.to_string(),
                })
            })
            .collect()
    }

    /// A name like "red cannon", for error messages.
    pub fn describe(self) -> String {
        format!("{} {}", self.colour.name(), self.kind.name())
    }
}

/// Why a piece string does not read ([`Piece::parse_list`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PieceError {
    /// A character that is no piece letter, at `index` of `text` (the whole string).
    #[error("character {character:?} at index {index} of {text:?} is not a piece letter (KGBNRCP, kgbnrcp)")]
    NotAPiece {
        character: char,
        index: usize,
        text: String,
    },
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// Which pieces a player may move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Control {
    /// None yet (before the first reveal decides colours): only reveals (and bag draws).
    Nothing,
    /// The pieces of one colour.
    Colour(Colour),
    /// Both colours (single-player and cooperative games).
    Both,
}

impl Control {
    /// Whether a piece of `colour` may be moved.
    #[inline]
    pub fn moves(self, colour: Colour) -> bool {
        match self {
            Control::Nothing => false,
            Control::Colour(c) => c == colour,
            Control::Both => true,
        }
    }
}

impl From<Option<Colour>> for Control {
    fn from(c: Option<Colour>) -> Control {
        c.map_or(Control::Nothing, Control::Colour)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn piece_indexes_follow_the_letters_kgbrncp_then_their_black_ones() {
        for (i, letter) in "KGBRNCPkgbrncp".chars().enumerate() {
            let piece = Piece::from_letter(letter).unwrap();
            assert_eq!(piece.index(), i);
            assert_eq!(Piece::from_index(i), piece);
        }
    }

    #[test]
    fn letters_round_trip() {
        for colour in Colour::ALL {
            for kind in Kind::ALL {
                let p = Piece::new(colour, kind);
                assert_eq!(Piece::from_letter(p.letter()), Some(p));
            }
        }
        assert_eq!(Piece::from_letter('X'), None);
        assert_eq!(Piece::from_letter('.'), None);
    }

    #[test]
    fn parse_list_names_the_bad_character() {
        let err = Piece::parse_list("KPxP").unwrap_err();
        assert!(
            matches!(
                err,
                PieceError::NotAPiece {
                    character: 'x',
                    index: 2,
                    ..
                }
            ),
            "{err}"
        );
        let err = err.to_string();
        assert!(err.contains("'x'") && err.contains("index 2"), "{err}");
        assert_eq!(Piece::parse_list("Kp").unwrap().len(), 2);
    }
}
