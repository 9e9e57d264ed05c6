//! The move generator: which reveals and moves a player may make on a board, listed, counted,
//! picked by index, or checked one at a time.
//!
//! # The spine
//!
//! - One public surface, on [`Board`]: [`Board::for_each_action`] (the order records, seeded
//!   bots and golden transcripts depend on: cell by cell, a face-down cell's reveal or a
//!   movable piece's steps then jumps), [`Board::for_each_move_from`], [`Board::count_actions`],
//!   [`Board::has_action`], [`Board::nth_action`], [`Board::legal_actions`], and
//!   [`Board::check_move`] (`check`), which passes a move exactly when it is listed; and, for
//!   random playouts, `Board::count_pieces` then `Board::action_at`.
//! - One choice of representation per topology ([`Representation`], by its number of cells):
//!   sets in a `u64` or a `u128` (`sets`), or lists walked cell by cell past 128 cells
//!   (`listed`). Each is a [`Generator`]; every surface function dispatches once, on entry,
//!   and runs the same generic code on either.
//! - The two capture rules written once (`rule`): a step onto an empty cell or an enemy the
//!   rank table lets the piece capture, and a cannon's jump over exactly one screen onto a
//!   revealed enemy. Every generator and the check call them.
//! - The byte-per-cell count behind picking an action by its index (`counted`).

mod check;
mod counted;
mod listed;
mod rule;
mod sets;
#[cfg(test)]
mod tests;

pub use check::Illegal;
pub(crate) use counted::Counted;

use super::action::{Action, ActionCounts, ActionKind, Packed};
use super::board::Board;
use super::capture::CaptureRules;
use super::cell_set::{Cell, Representation};
use super::piece::Control;
use super::square::HIDDEN;
use super::topology::Topology;
use listed::Listed;
use sets::Sets;

/// What the surface needs of a representation. Every method is called with the pieces and
/// cells of the board it was made for; listing orders are the surface's (cells ascending;
/// a piece's steps in the order of [`Topology::neighbours`], then its jumps in the order of
/// [`Topology::rays`]).
trait Generator {
    /// Calls `f` with every cell that may have actions under `control`, in cell order, with
    /// its square code, until `f` returns false: the face-down cells (when `reveals`) and
    /// those of the pieces `control` moves.
    fn for_each_active_cell(
        &self,
        control: Control,
        reveals: bool,
        f: impl FnMut(Cell, u8) -> bool,
    );

    /// Calls `f` with every move of the revealed piece of square code `code` at `from` (only
    /// its captures when `captures_only`).
    fn for_each_move_of(
        &self,
        from: Cell,
        code: u8,
        captures_only: bool,
        f: &mut impl FnMut(Action, ActionKind),
    );

    /// How many steps and jumps [`Generator::for_each_move_of`] gives (not only captures).
    fn count_moves_of(&self, from: Cell, code: u8) -> (u32, u32);

    /// Counts the reveals and moves `control` allows.
    fn count(&self, control: Control) -> ActionCounts;

    /// Whether `control` has any reveal or move, stopping at the first.
    fn has_action(&self, control: Control) -> bool;
}

/// Evaluates `$body` with `$g` the generator of `$board`'s representation (see
/// [`Representation`]): the one place the representation is looked at.
macro_rules! with_generator {
    ($board:expr, $topo:expr, $rules:expr, |$g:ident| $body:expr) => {{
        let (board, topo, rules) = ($board, $topo, $rules);
        debug_assert_eq!(board.len(), topo.size(), "a board of its topology's size");
        match topo.representation() {
            Representation::Sets64 => {
                let $g = Sets::<u64>::new(board, topo, rules);
                $body
            }
            Representation::Sets128 => {
                let $g = Sets::<u128>::new(board, topo, rules);
                $body
            }
            Representation::Listed => {
                let $g = Listed::new(board, topo, rules);
                $body
            }
        }
    }};
}

impl Board {
    /// Calls `f` with every reveal and every move allowed by `control`, without allocating:
    /// cell by cell, a face-down cell's reveal, or a movable piece's moves (see
    /// [`Board::for_each_move_from`]). Records, seeded bots and the golden transcripts depend
    /// on this order.
    pub fn for_each_action(
        &self,
        topo: &Topology,
        rules: &CaptureRules,
        control: Control,
        mut f: impl FnMut(Action, ActionKind),
    ) {
        with_generator!(self, topo, rules, |g| {
            g.for_each_active_cell(control, true, |cell, code| {
                if code == HIDDEN {
                    f(Action::Reveal(cell), ActionKind::Reveal);
                } else {
                    g.for_each_move_of(cell, code, false, &mut f);
                }
                true
            })
        })
    }

    /// Writes the id of every move allowed by `control` (no reveal) into `out` and returns how
    /// many: first every step, then every jump, each in the order of
    /// [`Board::for_each_action`] (a piece's steps or jumps together, pieces in cell order;
    /// the steps of all pieces first, so that whether a piece jumps decides no branch in the
    /// loop over them). A step from `c` to the `j`-th
    /// cell of `c`'s step row ([`Topology::step_row`]) is `row_ids[c][j]` on a topology with
    /// step rows, and any other move `(from, to)` is `pair_ids[from * n + to]` on a board of
    /// `n` cells. `out` needs room for every move and four more: a piece's four steps are
    /// written at once, the legal ones first, and only those are counted, so that which of
    /// them are legal (no pattern the processor can predict) decides no branch. With
    /// [`Board::face_down_set`] for the reveals, how `VecGame` lists its legal action ids.
    ///
    /// # Panics
    /// When `out` is too short, or a table has no entry for a move.
    pub fn move_ids(
        &self,
        topo: &Topology,
        rules: &CaptureRules,
        control: Control,
        row_ids: &[[u32; 4]],
        pair_ids: &[u32],
        out: &mut [u32],
    ) -> usize {
        match topo.representation() {
            Representation::Sets64 => {
                Sets::<u64>::new(self, topo, rules).move_ids(control, row_ids, pair_ids, out)
            }
            Representation::Sets128 => {
                Sets::<u128>::new(self, topo, rules).move_ids(control, row_ids, pair_ids, out)
            }
            Representation::Listed => {
                let (n, mut k) = (self.len(), 0);
                for kind in [ActionKind::Step, ActionKind::Jump] {
                    self.for_each_action(topo, rules, control, |a, of| {
                        if let (Action::Move { from, to }, true) = (a, of == kind) {
                            out[k] = pair_ids[from * n + to];
                            k += 1;
                        }
                    });
                }
                k
            }
        }
    }

    /// Calls `f` with every move of the revealed piece at `from` (only its captures when
    /// `captures_only`): its steps in the order of [`Topology::neighbours`], then its jumps in
    /// the order of [`Topology::rays`].
    pub fn for_each_move_from(
        &self,
        topo: &Topology,
        rules: &CaptureRules,
        from: Cell,
        captures_only: bool,
        mut f: impl FnMut(Action, ActionKind),
    ) {
        let code = self.codes()[from];
        if code > HIDDEN {
            with_generator!(self, topo, rules, |g| {
                g.for_each_move_of(from, code, captures_only, &mut f)
            })
        }
    }

    /// Counts the reveals and moves allowed by `control`.
    pub fn count_actions(
        &self,
        topo: &Topology,
        rules: &CaptureRules,
        control: Control,
    ) -> ActionCounts {
        with_generator!(self, topo, rules, |g| g.count(control))
    }

    /// Whether [`Board::for_each_action`] gives any action, stopping at the first.
    pub fn has_action(&self, topo: &Topology, rules: &CaptureRules, control: Control) -> bool {
        with_generator!(self, topo, rules, |g| g.has_action(control))
    }

    /// The `k`-th (from 0) of the actions [`Board::for_each_action`] gives, and its kind,
    /// without listing the others: the pieces before it are only counted.
    pub fn nth_action(
        &self,
        topo: &Topology,
        rules: &CaptureRules,
        control: Control,
        k: usize,
    ) -> Option<(Action, ActionKind)> {
        let mut counted = Counted::default();
        if self.count_pieces(topo, rules, control, &mut counted) {
            let k = u32::try_from(k).ok()?;
            return self.action_at(topo, rules, &counted, k).map(Packed::unpack);
        }
        with_generator!(self, topo, rules, |g| nth_action(&g, control, k))
    }

    /// Collects the reveals and moves allowed by `control`.
    pub fn legal_actions(
        &self,
        topo: &Topology,
        rules: &CaptureRules,
        control: Control,
    ) -> Vec<Action> {
        let mut out = Vec::new();
        self.for_each_action(topo, rules, control, |a, _| out.push(a));
        out
    }

    /// Counts the reveals and moves `control` allows, and each cell's, into `out`, on a board
    /// whose topology has [`Topology::small_counts`] (false, and `out` untouched, on another
    /// board): what [`Board::action_at`] needs to find an action by its index.
    pub(crate) fn count_pieces(
        &self,
        topo: &Topology,
        rules: &CaptureRules,
        control: Control,
        out: &mut Counted,
    ) -> bool {
        if !topo.small_counts() {
            return false;
        }
        let bytes = &mut out.per_cell;
        out.counts = match topo.representation() {
            Representation::Sets64 => {
                Sets::<u64>::new(self, topo, rules).count_cells(control, bytes)
            }
            Representation::Sets128 => {
                Sets::<u128>::new(self, topo, rules).count_cells(control, bytes)
            }
            // A topology with small counts has sets.
            Representation::Listed => return false,
        };
        out.total = out.counts.total();
        true
    }

    /// The `k`-th (from 0) of the actions [`Board::for_each_action`] gives, with its kind (as
    /// a [`Packed`] word), from the count of [`Board::count_pieces`] for the same `control`
    /// (`None` when `k` is not below its total), without listing the others and without a
    /// branch the processor cannot predict until the cell is found: the cell is found from
    /// sums of the per-cell counts eight cells at a time, then only that cell is looked at
    /// again.
    pub(crate) fn action_at(
        &self,
        topo: &Topology,
        rules: &CaptureRules,
        counted: &Counted,
        k: u32,
    ) -> Option<Packed> {
        if k >= counted.total {
            return None;
        }
        let (cell, k) = counted.find(self.len(), k);
        match topo.representation() {
            Representation::Sets64 => {
                Sets::<u64>::new(self, topo, rules).action_at(counted, cell, k)
            }
            Representation::Sets128 => {
                Sets::<u128>::new(self, topo, rules).action_at(counted, cell, k)
            }
            Representation::Listed => None,
        }
    }
}

/// [`Board::nth_action`] by counting each active cell's actions until the one holding the
/// `k`-th.
fn nth_action(g: &impl Generator, control: Control, k: usize) -> Option<(Action, ActionKind)> {
    let mut k = k;
    let mut found = None;
    g.for_each_active_cell(control, true, |cell, code| {
        if code == HIDDEN {
            if k == 0 {
                found = Some((Action::Reveal(cell), ActionKind::Reveal));
                return false;
            }
            k -= 1;
            return true;
        }
        let (steps, jumps) = g.count_moves_of(cell, code);
        let here = (steps + jumps) as usize;
        if k >= here {
            k -= here;
            return true;
        }
        found = nth_move_of(g, cell, code, k);
        false
    });
    found
}

/// The `k`-th (from 0) move [`Generator::for_each_move_of`] gives for the piece of square code
/// `code` at `from`.
fn nth_move_of(g: &impl Generator, from: Cell, code: u8, k: usize) -> Option<(Action, ActionKind)> {
    let mut i = 0;
    let mut found = None;
    g.for_each_move_of(from, code, false, &mut |a, kind| {
        if i == k {
            found = Some((a, kind));
        }
        i += 1;
    });
    found
}
