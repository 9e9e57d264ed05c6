//! The check of one move, with the reason a bot author can act on when it is refused.
//!
//! The verdict comes from the same rules as the listing ([`super::rule`]): a move passes
//! exactly when the generator lists it, which the tests check on every shipped variant. The
//! reason is found afterwards, by looking at what stands in the way, in a fixed order (the
//! texts are part of the protocol's error replies).

use super::rule;
use crate::rules::action::ActionKind;
use crate::rules::board::Board;
use crate::rules::capture::CaptureRules;
use crate::rules::cell_set::Cell;
use crate::rules::piece::{Control, Piece};
use crate::rules::square::Square;
use crate::rules::topology::Topology;

/// Why an action is not legal, in words a bot author can act on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Illegal(pub String);

impl Board {
    /// Checks one `(mov from to)` for a player of `control`, and tells whether it is a step or
    /// a jump.
    ///
    /// # Errors
    /// Says precisely why the move is not legal.
    pub fn check_move(
        &self,
        topo: &Topology,
        rules: &CaptureRules,
        control: Control,
        from: Cell,
        to: Cell,
    ) -> Result<ActionKind, Illegal> {
        let size = self.len();
        if from >= size || to >= size {
            return Err(Illegal(format!(
                "cell out of range: the board has cells 0..{}",
                size - 1
            )));
        }
        let mover = match self.get(from) {
            Square::Empty => return Err(Illegal(format!("cell {from} is empty"))),
            Square::Hidden => {
                return Err(Illegal(format!(
                    "cell {from} is face-down: reveal it with (rev {from}) instead"
                )))
            }
            Square::Up(p) => p,
        };
        match control {
            Control::Nothing => {
                return Err(Illegal(
                    "you own no colour yet: your first action must be a reveal".into(),
                ))
            }
            Control::Colour(c) if c != mover.colour => {
                return Err(Illegal(format!(
                    "the {} at {from} is not yours: you play {}",
                    mover.describe(),
                    c.name()
                )))
            }
            _ => {}
        }
        let codes = self.codes();
        let (code, target) = (codes[from], codes[to]);
        if topo.is_move(from, to) {
            if rule::may_step_onto(rule::step_rule(rules, code), target) {
                return Ok(ActionKind::Step);
            }
            return Err(why_no_step(self, mover, to));
        }
        if !rules.jumps_code(code) {
            return Err(Illegal(format!(
                "({from} {to}) is not a move of this board, and a {} does not jump",
                mover.kind.name()
            )));
        }
        let Some(ray) = topo.ray_through(from, to) else {
            return Err(Illegal(format!(
                "cell {to} is neither adjacent to {from} nor on a jump line from it"
            )));
        };
        if rule::jump_target(codes, code, ray.iter().copied()) == Some(to) {
            return Ok(ActionKind::Jump);
        }
        Err(why_no_jump(self, mover, ray, from, to))
    }
}

/// Why the step of `mover` onto the neighbouring cell `to` breaks the step rule.
fn why_no_step(board: &Board, mover: Piece, to: Cell) -> Illegal {
    Illegal(match board.get(to) {
        Square::Hidden => format!("cell {to} holds a face-down piece, which cannot be moved onto"),
        Square::Up(t) if t.colour == mover.colour => {
            format!("cell {to} holds your own {}", t.kind.name())
        }
        Square::Up(t) => format!(
            "a {} cannot capture a {} by a step",
            mover.kind.name(),
            t.kind.name()
        ),
        // The step rule allows every step onto an empty cell.
        Square::Empty => format!("cell {to} cannot be stepped onto"),
    })
}

/// Why the jump of the cannon `mover` at `from` along `ray` onto `to` breaks the cannon rule:
/// what is at `to` first, then the screens.
fn why_no_jump(board: &Board, mover: Piece, ray: &[Cell], from: Cell, to: Cell) -> Illegal {
    Illegal(match board.get(to) {
        Square::Empty => format!("a cannon jump must capture, and cell {to} is empty"),
        Square::Hidden => {
            format!("cell {to} is face-down: a cannon captures only revealed pieces")
        }
        Square::Up(t) if t.colour == mover.colour => {
            format!("cell {to} holds your own {}", t.kind.name())
        }
        Square::Up(_) => {
            let between = ray
                .iter()
                .take_while(|&&c| c != to)
                .filter(|&&c| board.get(c) != Square::Empty)
                .count();
            format!(
                "a cannon jump needs exactly one piece between {from} and {to}, found {between}"
            )
        }
    })
}
