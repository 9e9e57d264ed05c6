//! The generator on a board of more than [`MASK_CELLS`](crate::rules::cell_set::MASK_CELLS)
//! cells, which keeps no sets: every cell's square code is read in turn, and a cannon's rays
//! are walked cell by cell. No shipped board needs it; the tests hold it to the same answers
//! as the set-based one.

use super::rule;
use super::Generator;
use crate::rules::action::{Action, ActionCounts, ActionKind};
use crate::rules::board::Board;
use crate::rules::capture::CaptureRules;
use crate::rules::cell_set::Cell;
use crate::rules::piece::Control;
use crate::rules::square::{colour_of_code, HIDDEN};
use crate::rules::topology::Topology;

/// A board read cell by cell.
pub(super) struct Listed<'a> {
    topo: &'a Topology,
    rules: &'a CaptureRules,
    /// The board's byte per cell.
    codes: &'a [u8],
    /// The board's face-down cells, counted: its reveals.
    reveals: u32,
}

impl<'a> Listed<'a> {
    pub(super) fn new(board: &'a Board, topo: &'a Topology, rules: &'a CaptureRules) -> Self {
        Listed {
            topo,
            rules,
            codes: board.codes(),
            reveals: board.hidden_count() as u32,
        }
    }

    /// Calls `f` with the cell of every jump of the cannon of square code `code` at `from`, in
    /// the order of [`Topology::rays`].
    #[inline]
    fn jumps(&self, from: Cell, code: u8, mut f: impl FnMut(Cell)) {
        for ray in self.topo.ray_cells(from) {
            let ray = ray.iter().map(|&c| Cell::from(c));
            if let Some(to) = rule::jump_target(self.codes, code, ray) {
                f(to);
            }
        }
    }
}

impl Generator for Listed<'_> {
    #[inline]
    fn for_each_active_cell(
        &self,
        control: Control,
        reveals: bool,
        mut f: impl FnMut(Cell, u8) -> bool,
    ) {
        for (cell, &code) in self.codes.iter().enumerate() {
            let active = if code == HIDDEN {
                reveals
            } else {
                colour_of_code(usize::from(code)).is_some_and(|c| control.moves(c))
            };
            if active && !f(cell, code) {
                return;
            }
        }
    }

    #[inline]
    fn for_each_move_of(
        &self,
        from: Cell,
        code: u8,
        captures_only: bool,
        f: &mut impl FnMut(Action, ActionKind),
    ) {
        rule::for_each_step(
            self.topo,
            self.rules,
            self.codes,
            from,
            code,
            captures_only,
            |to| f(Action::Move { from, to }, ActionKind::Step),
        );
        if self.rules.jumps_code(code) {
            self.jumps(from, code, |to| {
                f(Action::Move { from, to }, ActionKind::Jump)
            });
        }
    }

    #[inline]
    fn count_moves_of(&self, from: Cell, code: u8) -> (u32, u32) {
        let mut jumps = 0;
        if self.rules.jumps_code(code) {
            self.jumps(from, code, |_| jumps += 1);
        }
        let steps = rule::count_steps(self.topo, self.rules, self.codes, from, code);
        (steps, jumps)
    }

    fn count(&self, control: Control) -> ActionCounts {
        let mut counts = ActionCounts {
            reveals: self.reveals,
            ..ActionCounts::default()
        };
        self.for_each_active_cell(control, false, |cell, code| {
            let (steps, jumps) = self.count_moves_of(cell, code);
            counts.moves += steps;
            counts.jumps += jumps;
            true
        });
        counts
    }

    fn has_action(&self, control: Control) -> bool {
        let mut any = false;
        self.for_each_active_cell(control, true, |cell, code| {
            any = code == HIDDEN || {
                let (steps, jumps) = self.count_moves_of(cell, code);
                steps + jumps > 0
            };
            !any
        });
        any
    }
}
