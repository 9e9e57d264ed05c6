//! The two ways a piece moves, each written once: a step to a neighbour (onto an empty cell, or
//! onto an enemy its rank may capture), and a cannon's jump over exactly one screen onto a
//! revealed enemy. Every representation and the check of one action call these; a rule change
//! is a change here (and in the variant's data, `CaptureRules`), nowhere else.
//!
//! Each rule has a form per way of holding the board: the listed form walks cells and reads
//! their square codes; the set form answers for a whole line of cells with a few word
//! operations and no branch on the board (the processor cannot predict those). Both are
//! tested against each other on every shipped variant (`movegen/tests.rs`).

use crate::rules::capture::CaptureRules;
use crate::rules::cell_set::{Cell, CellSet};
use crate::rules::square::{colour_of_code, EMPTY, HIDDEN};
use crate::rules::topology::Topology;

/// The step rule for the piece of square code `mover`, as a table by the square code of the
/// cell it would step onto: an empty cell yes, a face-down piece or one of its own colour no,
/// an enemy when the variant's rank table lets its kind capture that kind by a step. Built
/// once per variant ([`CaptureRules`]); read with [`may_step_onto`].
#[inline(always)]
pub(super) fn step_rule(rules: &CaptureRules, mover: u8) -> &[bool; 256] {
    rules.steps_of_code(mover)
}

/// Whether a piece whose [`step_rule`] is `rule` may step onto a cell of square code
/// `target`. A code is a byte and the table has an entry for every byte: no mask, no bounds
/// check.
#[inline(always)]
pub(super) fn may_step_onto(rule: &[bool; 256], target: u8) -> bool {
    rule[usize::from(target)]
}

/// Calls `f` with each neighbour of `from` that the piece of square code `code` may step onto
/// (only those holding a piece it captures when `captures_only`), in the order of
/// [`Topology::neighbours`]. `codes` is the board's byte per cell.
#[inline(always)]
pub(super) fn for_each_step(
    topo: &Topology,
    rules: &CaptureRules,
    codes: &[u8],
    from: Cell,
    code: u8,
    captures_only: bool,
    mut f: impl FnMut(Cell),
) {
    let rule = step_rule(rules, code);
    // A capture's target holds a revealed piece: its code is above the face-down one's.
    let lowest = if captures_only { HIDDEN + 1 } else { EMPTY };
    let mut step = |to: Cell| {
        let target = codes[to];
        if target >= lowest && may_step_onto(rule, target) {
            f(to);
        }
    };
    // The padding of a step row is `from` itself, which holds the mover: never a step.
    match topo.step_row(from) {
        Some(row) => row.iter().for_each(|&to| step(to as Cell)),
        None => topo
            .step_cells(from)
            .iter()
            .for_each(|&to| step(to as Cell)),
    }
}

/// How many steps [`for_each_step`] gives (captures or not), counted without a branch per
/// step.
#[inline(always)]
pub(super) fn count_steps(
    topo: &Topology,
    rules: &CaptureRules,
    codes: &[u8],
    from: Cell,
    code: u8,
) -> u32 {
    let rule = step_rule(rules, code);
    let mut n = 0;
    if let Some(row) = topo.step_row(from) {
        for &to in row {
            n += u32::from(may_step_onto(rule, codes[to as usize]));
        }
        return n;
    }
    for &to in topo.step_cells(from) {
        n += u32::from(may_step_onto(rule, codes[to as usize]));
    }
    n
}

/// Where a cannon's jump along `ray` (its cells from the one next to the cannon outwards)
/// lands, whatever is there: the second piece along the ray, face-down or not, the first
/// being the screen. `None` when the ray holds fewer than two pieces.
#[inline]
pub(super) fn jump_landing(codes: &[u8], ray: impl IntoIterator<Item = Cell>) -> Option<Cell> {
    // Skip empties to the screen, then empties to the first piece beyond.
    let mut pieces = ray.into_iter().filter(|&c| codes[c] != EMPTY);
    let _screen = pieces.next();
    pieces.next()
}

/// [`jump_landing`] as a set, for a line whose cells rise (`rising`) or fall from the cannon
/// outwards, given the line's occupied cells `on`: at most one cell, found without a branch.
/// On a rising line the screen is the lowest occupied cell and the landing the next one up; on
/// a falling line the highest and the next one down.
#[inline(always)]
pub(super) fn jump_landing_in<B: CellSet>(on: B, rising: bool) -> B {
    let up = on.without_first().lowest();
    let down = (on ^ on.highest()).highest();
    let pick = B::of(u128::from(rising).wrapping_neg());
    (up & pick) | (down & !pick)
}

/// Whether a cannon of square code `cannon` captures what its jump lands on, of code `target`:
/// a revealed piece of the other colour (whatever its rank).
#[inline(always)]
pub(super) fn jump_captures(cannon: u8, target: u8) -> bool {
    let target = colour_of_code(usize::from(target));
    target.is_some() && target != colour_of_code(usize::from(cannon))
}

/// Where the cannon of square code `code` captures along `ray`, if it does: [`jump_landing`],
/// when [`jump_captures`] says so.
#[inline]
pub(super) fn jump_target(
    codes: &[u8],
    code: u8,
    ray: impl IntoIterator<Item = Cell>,
) -> Option<Cell> {
    jump_landing(codes, ray).filter(|&to| jump_captures(code, codes[to]))
}
