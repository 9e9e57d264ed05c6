//! The generator on a board of at most [`MASK_CELLS`] cells (every shipped board): the board's
//! cells by content as sets in one word `B` (`u64` up to 64 cells, `u128` up to 128), so that
//! only the cells with actions are visited, a cannon's line is settled with a few word
//! operations, and the counts behind random playouts run without a branch the processor cannot
//! predict.

use super::counted::{Counted, SPREAD};
use super::rule;
use super::Generator;
use crate::rules::action::{Action, ActionCounts, ActionKind, Packed};
use crate::rules::board::{Board, GRID_CELLS};
use crate::rules::capture::CaptureRules;
use crate::rules::cell_set::{Cell, CellSet, MASK_CELLS};
use crate::rules::piece::Control;
use crate::rules::square::HIDDEN;
use crate::rules::topology::{Line, LineOrder, Topology};

/// A board's cells by content as sets of `B` (which holds every cell of the board), and what
/// else the generator reads, fetched once per call.
pub(super) struct Sets<'a, B> {
    topo: &'a Topology,
    rules: &'a CaptureRules,
    /// Face-down cells.
    face_down: B,
    /// Revealed pieces of each colour.
    colour: [B; 2],
    /// Every cell that is not empty.
    occupied: B,
    /// [`Board::grid`]: the byte per cell, padded to every byte.
    grid: &'a [u8; GRID_CELLS],
    /// [`Topology::step_rows`].
    rows: Option<&'a [[u8; 4]; MASK_CELLS]>,
    /// The board's cells.
    len: usize,
    /// The board's face-down cells, counted: its reveals.
    reveals: u32,
}

impl<'a, B: CellSet> Sets<'a, B> {
    /// The sets of `board` (at most [`MASK_CELLS`] cells, `B` holding them all).
    #[inline(always)]
    pub(super) fn new(board: &'a Board, topo: &'a Topology, rules: &'a CaptureRules) -> Self {
        let [face_down, red, black, _] = board.masks().map(B::of);
        Sets {
            topo,
            rules,
            face_down,
            colour: [red, black],
            occupied: face_down | red | black,
            grid: board.grid(),
            rows: topo.step_rows(),
            len: board.len(),
            reveals: board.hidden_count() as u32,
        }
    }

    /// The square code of `cell` (a cell of the board).
    #[inline(always)]
    fn code(&self, cell: Cell) -> u8 {
        self.grid[cell & (GRID_CELLS - 1)]
    }

    /// The square code of the cell of a step row (see [`Topology::step_rows`]).
    #[inline(always)]
    fn code_at(&self, cell: u8) -> u8 {
        self.grid[usize::from(cell)]
    }

    /// The cells of the pieces `control` moves.
    #[inline(always)]
    fn movable(&self, control: Control) -> B {
        match control {
            Control::Nothing => B::NONE,
            Control::Colour(c) => self.colour[c.index()],
            Control::Both => self.colour[0] | self.colour[1],
        }
    }

    /// The cells a cannon of square code `code` captures on ([`rule::jump_captures`] as a
    /// set): the revealed pieces of the other colour.
    #[inline(always)]
    fn enemy_of(&self, code: u8) -> B {
        // Red codes are 2..=8 (see `Square::code`).
        if code <= 8 {
            self.colour[1]
        } else {
            self.colour[0]
        }
    }

    /// How many steps the piece of square code `code` at `cell` has ([`rule::count_steps`]),
    /// and which cells of its step row they go to (bit `j` for the row's `j`-th cell; 0
    /// without step rows): by the step rows when the topology has them, four lookups and no
    /// loop.
    #[inline(always)]
    fn count_steps(&self, cell: Cell, code: u8) -> (u32, u8) {
        let Some(rows) = self.rows else {
            return (self.count_steps_listed(cell, code), 0);
        };
        let set = self.row_steps(rows, cell, code);
        (ROW_STEPS[usize::from(set) & 15].0, set)
    }

    /// Which cells of its step row (bit `j` for the row's `j`-th cell) the piece of square
    /// code `code` at `cell` may step to, by the topology's step rows `rows`: four lookups.
    #[inline(always)]
    fn row_steps(&self, rows: &[[u8; 4]; MASK_CELLS], cell: Cell, code: u8) -> u8 {
        let step_rule = rule::step_rule(self.rules, code);
        let row = &rows[cell & (MASK_CELLS - 1)];
        let step = |j: usize| u8::from(rule::may_step_onto(step_rule, self.code_at(row[j])));
        step(0) | step(1) << 1 | step(2) << 2 | step(3) << 3
    }

    /// [`rule::count_steps`], kept out of line: the rare case of a board without step rows,
    /// which would otherwise weigh on the common one.
    #[cold]
    #[inline(never)]
    fn count_steps_listed(&self, cell: Cell, code: u8) -> u32 {
        rule::count_steps(self.topo, self.rules, &self.grid[..], cell, code)
    }

    /// [`rule::jump_target`] along a line whose cell numbers neither rise nor fall, kept out
    /// of line for the same reason as [`Sets::count_steps_listed`].
    #[cold]
    #[inline(never)]
    fn mixed_line_target(&self, code: u8, line: &Line) -> Option<Cell> {
        let ray = self.topo.line_cells(line).iter().map(|&c| Cell::from(c));
        rule::jump_target(&self.grid[..], code, ray)
    }

    /// The cell the cannon of square code `code` captures on along `line`, as a set of at most
    /// one cell: [`rule::jump_landing_in`] among the revealed enemies.
    #[inline(always)]
    fn line_target(&self, code: u8, line: &Line) -> B {
        if line.order == LineOrder::Mixed {
            return self
                .mixed_line_target(code, line)
                .map_or(B::NONE, B::single);
        }
        let on = B::of(line.cells) & self.occupied;
        rule::jump_landing_in(on, line.order == LineOrder::Rising) & self.enemy_of(code)
    }

    /// Calls `f` with the cell of every jump of the cannon of square code `code` at `from`, in
    /// the order of [`Topology::rays`].
    #[inline(always)]
    fn jumps(&self, from: Cell, code: u8, f: &mut impl FnMut(Cell)) {
        for line in self.topo.lines(from) {
            let target = self.line_target(code, line);
            if !target.is_none() {
                f(target.first());
            }
        }
    }

    /// How many jumps [`Sets::jumps`] gives, counted without a branch on the board.
    #[inline(always)]
    fn count_jumps(&self, from: Cell, code: u8) -> u32 {
        let mut n = 0;
        for line in self.topo.lines(from) {
            n += u32::from(!self.line_target(code, line).is_none());
        }
        n
    }

    /// Counts the reveals and moves `control` allows; calls `each` with every movable piece's
    /// cell, its steps and which cells of its step row they go to (see
    /// [`Sets::count_steps`]), then with each piece that jumps, its jumps (to add to its
    /// steps) and `None`.
    ///
    /// The first pass only gathers the pieces that jump, as a set (a conditional move, not a
    /// branch on whether a piece jumps, which follows no pattern the processor can predict);
    /// the second counts their jumps.
    #[inline(always)]
    fn count_each(
        &self,
        control: Control,
        mut each: impl FnMut(usize, u32, Option<u8>),
    ) -> ActionCounts {
        let mut counts = ActionCounts {
            reveals: self.reveals,
            ..ActionCounts::default()
        };
        let mut movable = self.movable(control);
        let mut jumpers = B::NONE;
        while !movable.is_none() {
            let cell = movable.first();
            movable = movable.without_first();
            let code = self.code(cell);
            let (steps, row_steps) = self.count_steps(cell, code);
            if self.rules.jumps_code(code) {
                jumpers = jumpers | B::single(cell);
            }
            counts.moves += steps;
            each(cell, steps, Some(row_steps));
        }
        while !jumpers.is_none() {
            let cell = jumpers.first();
            jumpers = jumpers.without_first();
            let jumps = self.count_jumps(cell, self.code(cell));
            counts.jumps += jumps;
            each(cell, jumps, None);
        }
        counts
    }

    /// Counts the reveals and moves `control` allows, and each cell's, into `bytes` (see
    /// [`Counted`]).
    #[inline(always)]
    pub(super) fn count_cells(
        &self,
        control: Control,
        bytes: &mut [u8; MASK_CELLS],
    ) -> ActionCounts {
        // A face-down cell has one action, its reveal: eight cells' worth at a time.
        for (w, word) in bytes
            .chunks_exact_mut(8)
            .take(self.len.div_ceil(8))
            .enumerate()
        {
            word.copy_from_slice(&SPREAD[usize::from(self.face_down.byte(w))].to_le_bytes());
        }
        // A piece's byte: its steps' cells of its step row in the high half, its moves in
        // the low half (jumps added after its steps: at most 15 moves, so no carry).
        self.count_each(control, |cell, n, steps| {
            let byte = &mut bytes[cell & (MASK_CELLS - 1)];
            *byte = match steps {
                Some(steps) => steps << 4 | n as u8,
                None => *byte + n as u8,
            };
        })
    }

    /// [`Board::move_ids`] on sets: the movable pieces' steps in cell order, each piece's by
    /// its step row when there are step rows (found with four lookups, as
    /// [`Sets::count_steps`] finds them, and written as four ids, the legal ones first by
    /// [`ROW_STEPS`]), then the jumps of the pieces that jump, in cell order.
    #[inline(always)]
    pub(super) fn move_ids(
        &self,
        control: Control,
        row_ids: &[[u32; 4]],
        pair_ids: &[u32],
        out: &mut [u32],
    ) -> usize {
        let n = self.len;
        let mut k = 0;
        let mut todo = self.movable(control);
        // The cells of the pieces that jump, whose jumps follow every piece's steps: a branch
        // per piece on whether it jumps would follow no pattern.
        let mut jumpers = B::NONE;
        while !todo.is_none() {
            let from = todo.first();
            todo = todo.without_first();
            let code = self.code(from);
            if self.rules.jumps_code(code) {
                jumpers = jumpers | B::single(from);
            }
            let Some(rows) = self.rows else {
                rule::for_each_step(
                    self.topo,
                    self.rules,
                    &self.grid[..],
                    from,
                    code,
                    false,
                    |to| {
                        out[k] = pair_ids[from * n + to];
                        k += 1;
                    },
                );
                continue;
            };
            let set = self.row_steps(rows, from, code);
            let (count, select) = ROW_STEPS[usize::from(set) & 15];
            let ids = &row_ids[from];
            let four: &mut [u32; 4] = (&mut out[k..k + 4]).try_into().expect("4 ids");
            for (id, &j) in four.iter_mut().zip(&select) {
                *id = ids[usize::from(j) & 3];
            }
            k += count as usize;
        }
        while !jumpers.is_none() {
            let from = jumpers.first();
            jumpers = jumpers.without_first();
            self.jumps(from, self.code(from), &mut |to| {
                out[k] = pair_ids[from * n + to];
                k += 1;
            });
        }
        k
    }

    /// The action of [`Counted::find`]'s cell `cell` and index `k` among its actions, from
    /// the count [`Sets::count_cells`] made.
    #[inline(always)]
    pub(super) fn action_at(&self, counted: &Counted, cell: Cell, k: u32) -> Option<Packed> {
        let code = self.code(cell);
        if code == HIDDEN {
            return Some(Packed::new(Action::Reveal(cell), ActionKind::Reveal));
        }
        let row_steps = counted.per_cell[cell & (MASK_CELLS - 1)] >> 4;
        self.nth_move(cell, code, row_steps, k)
            .map(|(action, kind)| Packed::new(action, kind))
    }

    /// The `k`-th (from 0) move of the revealed piece at `from`, which has more than `k`
    /// moves, whose steps go to the cells `row_steps` of its step row: by the step rows when
    /// the topology has them.
    #[inline(always)]
    fn nth_move(
        &self,
        from: Cell,
        code: u8,
        row_steps: u8,
        k: u32,
    ) -> Option<(Action, ActionKind)> {
        let Some(rows) = self.rows else {
            return super::nth_move_of(self, from, code, k as usize);
        };
        let row = &rows[from & (MASK_CELLS - 1)];
        // The `k`-th of the row's steps by table rather than by a branch per cell, which the
        // processor cannot predict.
        let (count, select) = ROW_STEPS[usize::from(row_steps) & 15];
        if k < count {
            let to = row[usize::from(select[k as usize & 3])] as Cell;
            return Some((Action::Move { from, to }, ActionKind::Step));
        }
        let mut k = k - count;
        let mut found = None;
        self.jumps(from, code, &mut |to| {
            if k == 0 {
                found = Some((Action::Move { from, to }, ActionKind::Jump));
            }
            k = k.wrapping_sub(1);
        });
        found
    }
}

impl<B: CellSet> Generator for Sets<'_, B> {
    #[inline(always)]
    fn for_each_active_cell(
        &self,
        control: Control,
        reveals: bool,
        mut f: impl FnMut(Cell, u8) -> bool,
    ) {
        let mut todo = if reveals { self.face_down } else { B::NONE } | self.movable(control);
        while !todo.is_none() {
            let cell = todo.first();
            todo = todo.without_first();
            if !f(cell, self.code(cell)) {
                return;
            }
        }
    }

    #[inline(always)]
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
            &self.grid[..],
            from,
            code,
            captures_only,
            |to| f(Action::Move { from, to }, ActionKind::Step),
        );
        if self.rules.jumps_code(code) {
            self.jumps(from, code, &mut |to| {
                f(Action::Move { from, to }, ActionKind::Jump)
            });
        }
    }

    #[inline(always)]
    fn count_moves_of(&self, from: Cell, code: u8) -> (u32, u32) {
        let jumps = if self.rules.jumps_code(code) {
            self.count_jumps(from, code)
        } else {
            0
        };
        (self.count_steps(from, code).0, jumps)
    }

    #[inline(always)]
    fn count(&self, control: Control) -> ActionCounts {
        self.count_each(control, |_, _, _| {})
    }

    #[inline]
    fn has_action(&self, control: Control) -> bool {
        if !self.face_down.is_none() {
            return true; // a face-down cell: a reveal
        }
        let mut movable = self.movable(control);
        while !movable.is_none() {
            let cell = movable.first();
            movable = movable.without_first();
            let code = self.code(cell);
            if self.count_steps(cell, code).0 > 0 {
                return true;
            }
            if self.rules.jumps_code(code) && self.count_jumps(cell, code) > 0 {
                return true;
            }
        }
        false
    }
}

/// For each set of four bits (a step row's steps), how many bits it has and where its `k`-th
/// (from 0) bit is.
const ROW_STEPS: [(u32, [u8; 4]); 16] = {
    let mut table = [(0, [0; 4]); 16];
    let mut set = 0;
    while set < 16 {
        let mut bit = 0;
        while bit < 4 {
            if set >> bit & 1 != 0 {
                let (count, ref mut select) = table[set];
                select[count as usize] = bit as u8;
                table[set].0 = count + 1;
            }
            bit += 1;
        }
        set += 1;
    }
    table
};
