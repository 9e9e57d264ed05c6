//! Who may capture whom: the rank table, its named exceptions, and the cannon's jump.
//!
//! All of it is data from the variant description. The step-capture table is computed once per
//! variant (`attacker x target`), so the per-ply test is one lookup.

use super::piece::{Colour, Kind, Piece};
use super::square::{Square, CODES, EMPTY};

/// Capture rules of a variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureRules {
    /// Rank of each kind (index: [`Kind::index`]); higher captures lower or equal.
    pub ranks: [u8; 7],
    /// `step[attacker][target]`: whether a revealed `attacker` may capture an adjacent revealed
    /// enemy `target` by stepping onto it.
    step: [[bool; 7]; 7],
    /// `step` by square codes ([`Square::code`](super::Square::code)), for the move generator:
    /// `by_code[mover][target]` says whether the piece of code `mover` may step onto a cell of
    /// code `target`: empty yes, face-down no, a revealed piece when it is an enemy it may
    /// capture. Derived from `step` in [`CaptureRules::new`]. A row has an entry for every
    /// byte (false past the codes), so a code read as a byte indexes it with no mask or
    /// bounds check: the generator does that four times per piece.
    by_code: [[bool; 256]; CODES],
    /// The square codes of the pieces that jump (bit `code`): the two cannons' when
    /// `cannon_jump`.
    jumpers: u16,
    /// Whether cannons capture by jumping over exactly one screen (traditional); when false the
    /// cannon only steps like the other pieces (Hong Kong style).
    pub cannon_jump: bool,
}

/// An exception to the rank rule: `attacker` may (allow) or may not (forbid) step-capture
/// `target`; `target == None` means every kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CaptureException {
    pub attacker: Kind,
    pub target: Option<Kind>,
    pub allowed: bool,
}

impl CaptureRules {
    /// Builds the table: rank order first, then every `forbid`, then every `allow`.
    pub fn new(ranks: [u8; 7], exceptions: &[CaptureException], cannon_jump: bool) -> CaptureRules {
        let mut step = [[false; 7]; 7];
        for a in Kind::ALL {
            for t in Kind::ALL {
                step[a.index()][t.index()] = ranks[a.index()] >= ranks[t.index()];
            }
        }
        for pass_allowed in [false, true] {
            for e in exceptions.iter().filter(|e| e.allowed == pass_allowed) {
                for t in Kind::ALL {
                    if e.target.is_none_or(|k| k == t) {
                        step[e.attacker.index()][t.index()] = e.allowed;
                    }
                }
            }
        }
        // Piece codes are `2 + colour * 7 + kind`.
        let mut by_code = [[false; 256]; CODES];
        for mover in 0..14 {
            by_code[2 + mover][EMPTY as usize] = true;
            for target in 0..14 {
                by_code[2 + mover][2 + target] =
                    mover / 7 != target / 7 && step[mover % 7][target % 7];
            }
        }
        let cannons = [Colour::Red, Colour::Black]
            .map(|colour| Square::Up(Piece::new(colour, Kind::Cannon)).code());
        let jumpers = if cannon_jump {
            cannons.iter().fold(0, |set, &code| set | 1 << code)
        } else {
            0
        };
        CaptureRules {
            ranks,
            step,
            by_code,
            jumpers,
            cannon_jump,
        }
    }

    /// The standard Taiwanese / ICGA rules: K > G > B > R > N > C > P, the king cannot take a
    /// pawn, a pawn takes the king, a cannon never takes by a step but jumps.
    pub fn standard() -> CaptureRules {
        CaptureRules::new(
            [7, 6, 5, 4, 3, 2, 1],
            &[
                CaptureException {
                    attacker: Kind::King,
                    target: Some(Kind::Pawn),
                    allowed: false,
                },
                CaptureException {
                    attacker: Kind::Cannon,
                    target: None,
                    allowed: false,
                },
                CaptureException {
                    attacker: Kind::Pawn,
                    target: Some(Kind::King),
                    allowed: true,
                },
            ],
            true,
        )
    }

    /// Whether `attacker` may capture `target` by a single step.
    #[inline]
    pub fn can_step_capture(&self, attacker: Kind, target: Kind) -> bool {
        self.step[attacker.index()][target.index()]
    }

    /// Which square codes the piece of square code `mover` may step onto (see `by_code`).
    #[inline]
    pub(crate) fn steps_of_code(&self, mover: u8) -> &[bool; 256] {
        &self.by_code[mover as usize & (CODES - 1)]
    }

    /// [`CaptureRules::jumps`] for the piece of square code `mover` (a revealed piece).
    #[inline]
    pub(crate) fn jumps_code(&self, mover: u8) -> bool {
        self.jumpers >> (mover & 15) & 1 != 0
    }

    /// Whether `kind` captures by jumping.
    #[inline]
    pub fn jumps(&self, kind: Kind) -> bool {
        self.cannon_jump && kind == Kind::Cannon
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Kind::*;

    /// The 7x7 table of the standard rules, written out by hand from RULES.md, row = attacker.
    #[test]
    fn every_capture_pair_of_the_standard_table() {
        let r = CaptureRules::standard();
        // Columns: K G B R N C P.
        let expected: [(Kind, [bool; 7]); 7] = [
            (King, [true, true, true, true, true, true, false]),
            (Guard, [false, true, true, true, true, true, true]),
            (Bishop, [false, false, true, true, true, true, true]),
            (Rook, [false, false, false, true, true, true, true]),
            (Knight, [false, false, false, false, true, true, true]),
            (Cannon, [false; 7]),
            (Pawn, [true, false, false, false, false, false, true]),
        ];
        for (attacker, row) in expected {
            for (t, &want) in Kind::ALL.iter().zip(row.iter()) {
                assert_eq!(
                    r.can_step_capture(attacker, *t),
                    want,
                    "{} takes {}",
                    attacker.name(),
                    t.name()
                );
            }
        }
        assert!(r.jumps(Cannon) && !r.jumps(Rook));
    }
}
