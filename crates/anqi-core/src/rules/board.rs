//! The board: what every player sees (face-down pieces as `X`), its wire string, and legal
//! actions for a colour.
//!
//! The board holds no hidden information, so clients and the server share this code: the
//! server keeps the face-down pieces' identities apart (see [`crate::rules::Game`]).

use super::action::{Action, ActionCounts, ActionKind, Packed};
use super::capture::CaptureRules;
use super::cell_set::{CellSet, MASK_CELLS};
use super::piece::{Colour, Piece};
use super::topology::{Cell, Line, LineOrder, Topology};
use std::fmt;

/// The content of one cell as everyone sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Square {
    /// `.`: nothing here.
    Empty,
    /// `X`: a face-down piece.
    Hidden,
    /// A revealed piece (its letter).
    Up(Piece),
}

impl Square {
    /// The wire character.
    pub fn letter(self) -> char {
        match self {
            Square::Empty => '.',
            Square::Hidden => 'X',
            Square::Up(p) => p.letter(),
        }
    }

    /// The square as one byte, the move generator's form: 0 empty, 1 face-down, and
    /// `2 + colour * 7 + kind` for a revealed piece (so below 16).
    #[inline]
    pub fn code(self) -> u8 {
        match self {
            Square::Empty => EMPTY,
            Square::Hidden => HIDDEN,
            Square::Up(p) => 2 + (p.colour.index() * 7 + p.kind.index()) as u8,
        }
    }

    /// The square for a wire character.
    pub fn from_letter(c: char) -> Option<Square> {
        match c {
            '.' => Some(Square::Empty),
            'X' => Some(Square::Hidden),
            _ => Piece::from_letter(c).map(Square::Up),
        }
    }
}

/// [`Square::code`] of an empty cell.
pub const EMPTY: u8 = 0;
/// [`Square::code`] of a face-down piece.
pub const HIDDEN: u8 = 1;
/// Square codes are below this: tables indexed by code have this many entries.
pub const CODES: usize = 16;

/// The colour of a revealed piece's square code (`None` for empty, face-down and unused codes).
const fn colour_of_code(code: usize) -> Option<Colour> {
    match code {
        2..=8 => Some(Colour::Red),
        9..=15 => Some(Colour::Black),
        _ => None,
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

/// The public board: one square per cell.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    squares: Vec<Square>,
    /// `codes[c] == squares[c].code()`, kept in step by [`Board::set`]: what the move
    /// generator reads (one byte per cell, and table lookups instead of matches). On a board
    /// of at most [`MASK_CELLS`] cells, padded with empty cells to [`GRID_CELLS`] (see
    /// [`Board::grid`]).
    codes: Vec<u8>,
    /// On a board of at most [`MASK_CELLS`] cells, bit `c` of `masks[0]` says cell `c` is
    /// face-down, of `masks[1 + colour]` that it holds a revealed piece of that colour, of
    /// `masks[3]` that it is empty (all zero on larger boards; see [`MASK_OF_CODE`]). Kept in
    /// step by [`Board::set`]: the generator visits only the cells that have actions, and
    /// counts reveals with one instruction.
    masks: [u128; 4],
    /// How many cells are face-down, kept by [`Board::set`]: the reveals, without counting.
    face_down: u32,
}

/// Which of [`Board`]'s masks each square code belongs to: every code belongs to one, so
/// [`Board::set`] moves a cell from one mask to another without a branch.
const MASK_OF_CODE: [usize; CODES] = {
    let mut table = [3; CODES];
    let mut code = 0;
    while code < CODES {
        table[code] = match colour_of_code(code) {
            Some(Colour::Red) => 1,
            Some(Colour::Black) => 2,
            None if code == HIDDEN as usize => 0,
            None => 3,
        };
        code += 1;
    }
    table
};

/// The masks of a board's codes (all zero past [`MASK_CELLS`] cells).
fn masks_of(codes: &[u8]) -> [u128; 4] {
    let mut masks = [0; 4];
    if codes.len() <= MASK_CELLS {
        for (cell, &code) in codes.iter().enumerate() {
            masks[MASK_OF_CODE[usize::from(code) & (CODES - 1)]] |= 1 << cell;
        }
    }
    masks
}

/// How many codes a board with masks keeps (see [`Board::grid`]): one for every byte, so a
/// cell number read as a byte (a step row's) indexes them with no mask or bounds check.
const GRID_CELLS: usize = 256;

/// A board's codes, padded with empty cells to [`GRID_CELLS`] on a board with masks.
fn padded(mut codes: Vec<u8>) -> Vec<u8> {
    if codes.len() <= MASK_CELLS {
        codes.resize(GRID_CELLS, EMPTY);
    }
    codes
}

/// Why an action is not legal, in words a bot author can act on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Illegal(pub String);

impl Board {
    /// A board of `size` face-down pieces.
    pub fn hidden(size: usize) -> Board {
        let codes = vec![HIDDEN; size];
        Board {
            squares: vec![Square::Hidden; size],
            masks: masks_of(&codes),
            face_down: size as u32,
            codes: padded(codes),
        }
    }

    /// Parses a board string (`KPPP.kpXX`).
    ///
    /// # Errors
    /// Names the first character that is not a square letter.
    pub fn parse(s: &str) -> Result<Board, String> {
        s.chars()
            .enumerate()
            .map(|(i, c)| {
                Square::from_letter(c).ok_or_else(|| {
                    format!("character {c:?} at cell {i} is not X, . or a piece letter")
                })
            })
            .collect::<Result<Vec<_>, _>>()
            .map(|squares: Vec<Square>| {
                let codes: Vec<u8> = squares.iter().map(|s| s.code()).collect();
                Board {
                    squares,
                    masks: masks_of(&codes),
                    face_down: codes.iter().filter(|&&c| c == HIDDEN).count() as u32,
                    codes: padded(codes),
                }
            })
    }

    /// Number of cells.
    pub fn len(&self) -> usize {
        self.squares.len()
    }

    /// Whether the board has no cells.
    pub fn is_empty(&self) -> bool {
        self.squares.is_empty()
    }

    /// The square at `cell`.
    #[inline]
    pub fn get(&self, cell: Cell) -> Square {
        self.squares[cell]
    }

    /// Sets the square at `cell`.
    #[inline]
    pub fn set(&mut self, cell: Cell, sq: Square) {
        self.squares[cell] = sq;
        let code = sq.code();
        let old = std::mem::replace(&mut self.codes[cell], code);
        self.face_down = self.face_down + u32::from(code == HIDDEN) - u32::from(old == HIDDEN);
        if self.len() <= MASK_CELLS {
            let bit = 1u128 << cell;
            self.masks[MASK_OF_CODE[usize::from(old) & (CODES - 1)]] &= !bit;
            self.masks[MASK_OF_CODE[usize::from(code) & (CODES - 1)]] |= bit;
        }
    }

    /// Moves the revealed piece at `from` to `to` (an empty cell, or an enemy piece it
    /// captures), leaving `from` empty, and returns what was at `to`: two [`Board::set`]s in
    /// fewer steps, as a random playout makes most plies. The masks change by three
    /// exclusive-ors whose cells are known, rather than by looking up the old code of each
    /// cell and clearing it then setting it.
    #[inline]
    pub(crate) fn move_piece(&mut self, from: Cell, to: Cell) -> Square {
        // A legal move's cells; anything else would leave the masks out of step with the codes.
        debug_assert!(from != to && self.codes[to] != HIDDEN && self.codes[from] > HIDDEN);
        let mover = std::mem::replace(&mut self.squares[from], Square::Empty);
        let target = std::mem::replace(&mut self.squares[to], mover);
        let code = std::mem::replace(&mut self.codes[from], EMPTY);
        let old = std::mem::replace(&mut self.codes[to], code);
        if self.len() <= MASK_CELLS {
            let (from_bit, to_bit) = (1u128 << from, 1u128 << to);
            // `to` leaves its mask (empty, or the captured piece's colour) first: when it was
            // empty, `from` then joins that mask.
            self.masks[MASK_OF_CODE[usize::from(old) & (CODES - 1)]] ^= to_bit;
            self.masks[MASK_OF_CODE[usize::from(code) & (CODES - 1)]] ^= from_bit | to_bit;
            self.masks[MASK_OF_CODE[usize::from(EMPTY)]] ^= from_bit;
        }
        target
    }

    /// Calls `f` with every cell that may have actions under `control`, in cell order, with
    /// its square code, until `f` returns false: the face-down cells (when `hidden`) and those
    /// of the pieces `control` moves.
    #[inline(always)]
    fn for_each_active_cell(
        &self,
        control: Control,
        hidden: bool,
        mut f: impl FnMut(Cell, u8) -> bool,
    ) {
        if self.len() <= MASK_CELLS {
            let [face_down, red, black, _] = self.masks;
            let mut todo = if hidden { face_down } else { 0 }
                | match control {
                    Control::Nothing => 0,
                    Control::Colour(Colour::Red) => red,
                    Control::Colour(Colour::Black) => black,
                    Control::Both => red | black,
                };
            while todo != 0 {
                let cell = todo.trailing_zeros() as Cell;
                todo &= todo - 1;
                if !f(cell, self.codes[cell]) {
                    return;
                }
            }
        } else {
            for (cell, &code) in self.codes().iter().enumerate() {
                let active = if code == HIDDEN {
                    hidden
                } else {
                    colour_of_code(code as usize).is_some_and(|c| control.moves(c))
                };
                if active && !f(cell, code) {
                    return;
                }
            }
        }
    }

    /// All squares, cell 0 first.
    pub fn squares(&self) -> &[Square] {
        &self.squares
    }

    /// Every cell's [`Square::code`], cell 0 first.
    pub fn codes(&self) -> &[u8] {
        &self.codes[..self.len()]
    }

    /// Every cell's code on a board of at most [`MASK_CELLS`] cells, padded to
    /// [`GRID_CELLS`]: indexed by a byte, or a cell number masked to a byte, with no bounds
    /// check.
    #[inline(always)]
    fn grid(&self) -> &[u8; GRID_CELLS] {
        self.codes[..GRID_CELLS]
            .try_into()
            .expect("a board with masks has padded codes")
    }

    /// The wire string.
    pub fn to_wire(&self) -> String {
        self.squares.iter().map(|s| s.letter()).collect()
    }

    /// Whether any cell is face-down.
    pub(crate) fn has_face_down(&self) -> bool {
        self.face_down != 0
    }

    /// Number of face-down pieces.
    pub fn hidden_count(&self) -> usize {
        self.face_down as usize
    }

    /// Checks one `(mov from to)` for a player of `colour`, and tells whether it is a step or a
    /// jump.
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
        let colour = mover.colour;
        let target = self.get(to);
        if topo.is_move(from, to) {
            return match target {
                Square::Empty => Ok(ActionKind::Step),
                Square::Hidden => Err(Illegal(format!(
                    "cell {to} holds a face-down piece, which cannot be moved onto"
                ))),
                Square::Up(t) if t.colour == colour => Err(Illegal(format!(
                    "cell {to} holds your own {}",
                    t.kind.name()
                ))),
                Square::Up(t) if rules.can_step_capture(mover.kind, t.kind) => Ok(ActionKind::Step),
                Square::Up(t) => Err(Illegal(format!(
                    "a {} cannot capture a {} by a step",
                    mover.kind.name(),
                    t.kind.name()
                ))),
            };
        }
        if !rules.jumps(mover.kind) {
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
        match target {
            Square::Empty => {
                return Err(Illegal(format!(
                    "a cannon jump must capture, and cell {to} is empty"
                )))
            }
            Square::Hidden => {
                return Err(Illegal(format!(
                    "cell {to} is face-down: a cannon captures only revealed pieces"
                )))
            }
            Square::Up(t) if t.colour == colour => {
                return Err(Illegal(format!(
                    "cell {to} holds your own {}",
                    t.kind.name()
                )))
            }
            Square::Up(_) => {}
        }
        let between = ray
            .iter()
            .take_while(|&&c| c != to)
            .filter(|&&c| self.get(c) != Square::Empty)
            .count();
        if between != 1 {
            return Err(Illegal(format!(
                "a cannon jump needs exactly one piece between {from} and {to}, found {between}"
            )));
        }
        Ok(ActionKind::Jump)
    }

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
        self.for_each_active_cell(control, true, |cell, code| {
            if code == HIDDEN {
                f(Action::Reveal(cell), ActionKind::Reveal);
            } else {
                self.moves_of_code(topo, rules, cell, code, false, &mut f);
            }
            true
        });
    }

    /// Whether [`Board::for_each_action`] gives any action, stopping at the first.
    pub fn has_action(&self, topo: &Topology, rules: &CaptureRules, control: Control) -> bool {
        let len = self.len();
        if len <= 64 {
            self.has_action_in::<u64>(topo, rules, control)
        } else if len <= MASK_CELLS {
            self.has_action_in::<u128>(topo, rules, control)
        } else {
            let mut any = false;
            self.for_each_active_cell(control, true, |cell, code| {
                any = code == HIDDEN || {
                    let (steps, jumps) = self.count_moves_of_code(topo, rules, cell, code);
                    steps + jumps > 0
                };
                !any
            });
            any
        }
    }

    /// [`Board::has_action`] on a board with masks, `B` holding every cell.
    #[inline]
    fn has_action_in<B: CellSet>(
        &self,
        topo: &Topology,
        rules: &CaptureRules,
        control: Control,
    ) -> bool {
        if self.masks[0] != 0 {
            return true; // a face-down cell: a reveal
        }
        let sets = self.sets::<B>(topo);
        let mut movable = sets.movable(control);
        while !movable.is_none() {
            let cell = movable.first();
            movable = movable.without_first();
            let code = sets.code(cell);
            if self.count_steps_in(topo, rules, &sets, cell, code).0 > 0 {
                return true;
            }
            if rules.jumps_code(code) {
                let mut any = false;
                self.jumps_in(topo, &sets, cell, code, &mut |_| any = true);
                if any {
                    return true;
                }
            }
        }
        false
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
        let mut k = k;
        let mut found = None;
        self.for_each_active_cell(control, true, |cell, code| {
            if code == HIDDEN {
                if k == 0 {
                    found = Some((Action::Reveal(cell), ActionKind::Reveal));
                    return false;
                }
                k -= 1;
                return true;
            }
            let (steps, jumps) = self.count_moves_of_code(topo, rules, cell, code);
            let here = (steps + jumps) as usize;
            if k >= here {
                k -= here;
                return true;
            }
            found = self.nth_move_of_code(topo, rules, cell, code, k);
            false
        });
        found
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
        if !topo.small_counts() || self.len() > MASK_CELLS {
            return false;
        }
        let bytes = &mut out.per_cell;
        out.counts = if self.len() <= 64 {
            self.count_cells_in::<u64>(topo, rules, control, bytes)
        } else {
            self.count_cells_in::<u128>(topo, rules, control, bytes)
        };
        out.total = out.counts.total();
        true
    }

    /// [`Board::count_pieces`], `B` holding every cell.
    #[inline(always)]
    fn count_cells_in<B: CellSet>(
        &self,
        topo: &Topology,
        rules: &CaptureRules,
        control: Control,
        bytes: &mut [u8; MASK_CELLS],
    ) -> ActionCounts {
        // A face-down cell has one action, its reveal: eight cells' worth at a time.
        let face_down = B::of(self.masks[0]);
        for (w, word) in bytes
            .chunks_exact_mut(8)
            .take(self.len().div_ceil(8))
            .enumerate()
        {
            word.copy_from_slice(&SPREAD[usize::from(face_down.byte(w))].to_le_bytes());
        }
        // A piece's byte: its steps' cells of its step row in the high half, its moves in
        // the low half (jumps added after its steps: at most 15 moves, so no carry).
        self.count_in::<B>(topo, rules, control, |cell, n, steps| {
            let byte = &mut bytes[cell & (MASK_CELLS - 1)];
            *byte = match steps {
                Some(steps) => steps << 4 | n as u8,
                None => *byte + n as u8,
            };
        })
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
        if self.codes[cell] == HIDDEN {
            return Some(Packed::new(Action::Reveal(cell), ActionKind::Reveal));
        }
        let row_steps = counted.per_cell[cell & (MASK_CELLS - 1)] >> 4;
        let found = if self.len() <= 64 {
            self.nth_move_in(topo, rules, &self.sets::<u64>(topo), cell, row_steps, k)
        } else {
            self.nth_move_in(topo, rules, &self.sets::<u128>(topo), cell, row_steps, k)
        };
        found.map(|(action, kind)| Packed::new(action, kind))
    }

    /// [`Board::nth_move_of_code`] on a board with masks, for the revealed piece at `from`,
    /// which has more than `k` moves: by the step rows when the topology has them.
    #[inline(always)]
    fn nth_move_in<B: CellSet>(
        &self,
        topo: &Topology,
        rules: &CaptureRules,
        sets: &Sets<'_, B>,
        from: Cell,
        row_steps: u8,
        k: u32,
    ) -> Option<(Action, ActionKind)> {
        let code = sets.code(from);
        let Some(rows) = sets.rows else {
            return self.nth_move_of_code(topo, rules, from, code, k as usize);
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
        self.jumps_in(topo, sets, from, code, &mut |to| {
            if k == 0 {
                found = Some((Action::Move { from, to }, ActionKind::Jump));
            }
            k = k.wrapping_sub(1);
        });
        found
    }

    /// The `k`-th (from 0) move [`Board::moves_of_code`] gives for the piece at `from`.
    fn nth_move_of_code(
        &self,
        topo: &Topology,
        rules: &CaptureRules,
        from: Cell,
        code: u8,
        k: usize,
    ) -> Option<(Action, ActionKind)> {
        let mut i = 0;
        let mut found = None;
        self.moves_of_code(topo, rules, from, code, false, &mut |a, kind| {
            if i == k {
                found = Some((a, kind));
            }
            i += 1;
        });
        found
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
            self.moves_of_code(topo, rules, from, code, captures_only, &mut f);
        }
    }

    /// [`Board::for_each_move_from`] for the piece of square code `code` (> [`HIDDEN`]).
    /// Always inlined: the callers' callbacks are then inlined too, which halves the cost of
    /// listing the actions.
    #[inline(always)]
    fn moves_of_code(
        &self,
        topo: &Topology,
        rules: &CaptureRules,
        from: Cell,
        code: u8,
        captures_only: bool,
        f: &mut impl FnMut(Action, ActionKind),
    ) {
        let codes = &self.codes[..];
        // A step onto an empty cell, or a capture by a step: one lookup by the two codes.
        let steps = rules.steps_of_code(code);
        let lowest = if captures_only { HIDDEN + 1 } else { EMPTY };
        let mut step = |to: Cell| {
            let target = codes[to];
            if target >= lowest && steps[target as usize & (CODES - 1)] {
                f(Action::Move { from, to }, ActionKind::Step);
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
        if rules.jumps_code(code) {
            let len = self.len();
            let mut jump = |to| f(Action::Move { from, to }, ActionKind::Jump);
            if len <= 64 {
                self.jumps_in::<u64>(topo, &self.sets(topo), from, code, &mut jump);
            } else if len <= MASK_CELLS {
                self.jumps_in::<u128>(topo, &self.sets(topo), from, code, &mut jump);
            } else {
                for ray in topo.ray_cells(from) {
                    if let Some(to) = self.jump_target(code, ray) {
                        jump(to);
                    }
                }
            }
        }
    }

    /// How many steps and jumps [`Board::moves_of_code`] gives (not only captures), counted
    /// without a branch per step, on a board without masks.
    #[inline]
    fn count_moves_of_code(
        &self,
        topo: &Topology,
        rules: &CaptureRules,
        from: Cell,
        code: u8,
    ) -> (u32, u32) {
        let mut jumps = 0;
        if rules.jumps_code(code) {
            for ray in topo.ray_cells(from) {
                jumps += u32::from(self.jump_target(code, ray).is_some());
            }
        }
        (self.count_steps(topo, rules, from, code), jumps)
    }

    /// How many steps (captures or not) [`Board::moves_of_code`] gives the piece of square
    /// code `code` at `from`, counted without a branch per step.
    #[inline(always)]
    fn count_steps(&self, topo: &Topology, rules: &CaptureRules, from: Cell, code: u8) -> u32 {
        let codes = &self.codes[..];
        let steps = rules.steps_of_code(code);
        let mut n = 0;
        if let Some(row) = topo.step_row(from) {
            for &to in row {
                n += u32::from(steps[codes[to as usize] as usize & (CODES - 1)]);
            }
            return n;
        }
        for &to in topo.step_cells(from) {
            // Codes are below 16 (`CODES`): the mask lets the compiler drop a bounds check.
            n += u32::from(steps[codes[to as usize] as usize & (CODES - 1)]);
        }
        n
    }

    /// [`Board::count_steps`], kept out of line: the set-based generator's rare case (a board
    /// without step rows), which would otherwise weigh on its common one.
    #[cold]
    #[inline(never)]
    fn count_steps_listed(
        &self,
        topo: &Topology,
        rules: &CaptureRules,
        from: Cell,
        code: u8,
    ) -> u32 {
        self.count_steps(topo, rules, from, code)
    }

    /// [`Board::jump_target`] along a line whose cell numbers neither rise nor fall, kept out
    /// of line for the same reason as [`Board::count_steps_listed`].
    #[cold]
    #[inline(never)]
    fn jump_target_on(&self, topo: &Topology, code: u8, line: &Line) -> Option<Cell> {
        self.jump_target(code, topo.line_cells(line))
    }

    /// Where the cannon of square code `code` captures along `ray` (from the cell next to it
    /// outwards), if it does: the first piece beyond the first piece (the screen, face-down or
    /// not), when it is a revealed enemy.
    #[inline]
    fn jump_target(&self, code: u8, ray: &[u16]) -> Option<Cell> {
        let codes = &self.codes[..];
        // Skip empties to the screen, then empties to the first piece beyond.
        let mut it = ray.iter().filter(|&&c| codes[c as usize] != EMPTY);
        let _screen = it.next();
        let to = *it.next()? as usize;
        let target = colour_of_code(codes[to] as usize);
        (target.is_some() && target != colour_of_code(code as usize)).then_some(to)
    }

    /// Calls `f` with the cell of every jump of the cannon of square code `code` at `from`, in
    /// the order of [`Topology::rays`], on a board with masks (`B` holding every cell): along a
    /// rising (falling) ray, the screen is the lowest (highest) occupied cell of the ray, and
    /// the target the next one.
    #[inline(always)]
    fn jumps_in<B: CellSet>(
        &self,
        topo: &Topology,
        sets: &Sets<'_, B>,
        from: Cell,
        code: u8,
        f: &mut impl FnMut(Cell),
    ) {
        let enemy = sets.enemy_of(code);
        for line in topo.lines(from) {
            let on = B::of(line.cells) & sets.occupied;
            let target = match line.order {
                LineOrder::Rising => {
                    let beyond = on.without_first();
                    (!beyond.is_none()).then(|| beyond.first())
                }
                LineOrder::Falling if on.is_none() => None,
                LineOrder::Falling => {
                    let beyond = on ^ B::single(on.last());
                    (!beyond.is_none()).then(|| beyond.last())
                }
                LineOrder::Mixed => self.jump_target_on(topo, code, line),
            };
            if let Some(to) = target.filter(|&to| !(enemy & B::single(to)).is_none()) {
                f(to);
            }
        }
    }

    /// How many jumps [`Board::jumps_in`] gives, counted without a branch on the board: the
    /// screen and the target of a rising and of a falling line are both found, and the line's
    /// order picks one.
    #[inline(always)]
    fn count_jumps_in<B: CellSet>(
        &self,
        topo: &Topology,
        sets: &Sets<'_, B>,
        from: Cell,
        code: u8,
    ) -> u32 {
        let enemy = sets.enemy_of(code);
        let mut n = 0;
        for line in topo.lines(from) {
            if line.order == LineOrder::Mixed {
                n += u32::from(self.jump_target_on(topo, code, line).is_some());
                continue;
            }
            let on = B::of(line.cells) & sets.occupied;
            // Past the screen: the next piece up (rising) or down (falling).
            let rising = on.without_first().lowest();
            let falling = (on ^ on.highest()).highest();
            let pick = B::of(u128::from(line.order == LineOrder::Rising).wrapping_neg());
            let target = (rising & pick) | (falling & !pick);
            n += u32::from(!(target & enemy).is_none());
        }
        n
    }

    /// [`Board::count_steps`] on a board with masks: by the step rows when the topology has
    /// them, without a bounds check.
    #[inline(always)]
    fn count_steps_in<B: CellSet>(
        &self,
        topo: &Topology,
        rules: &CaptureRules,
        sets: &Sets<'_, B>,
        cell: Cell,
        code: u8,
    ) -> (u32, u8) {
        let Some(rows) = sets.rows else {
            return (self.count_steps_listed(topo, rules, cell, code), 0);
        };
        let steps = rules.steps_of_code(code);
        let row = &rows[cell & (MASK_CELLS - 1)];
        let step = |j: usize| u8::from(steps[usize::from(sets.code_at(row[j]))]);
        let (a, b, c, d) = (step(0), step(1), step(2), step(3));
        (u32::from(a + b + c + d), a | b << 1 | c << 2 | d << 3)
    }

    /// [`Board::count_actions`] on a board with masks, `B` holding every cell; calls `each`
    /// with every movable piece's cell, its steps and which cells of its step row they go to
    /// (see [`Board::count_steps_in`]), then with each piece that jumps, its jumps (to add to
    /// its steps) and `None`.
    ///
    /// The first pass only gathers the pieces that jump, as a set (a conditional move, not a
    /// branch on whether a piece jumps, which follows no pattern the processor can predict);
    /// the second counts their jumps.
    #[inline(always)]
    fn count_in<B: CellSet>(
        &self,
        topo: &Topology,
        rules: &CaptureRules,
        control: Control,
        mut each: impl FnMut(usize, u32, Option<u8>),
    ) -> ActionCounts {
        let sets = self.sets::<B>(topo);
        let mut counts = ActionCounts {
            reveals: self.face_down,
            ..ActionCounts::default()
        };
        let mut movable = sets.movable(control);
        let mut jumpers = B::NONE;
        while !movable.is_none() {
            let cell = movable.first();
            movable = movable.without_first();
            let code = sets.code(cell);
            let (steps, row_steps) = self.count_steps_in(topo, rules, &sets, cell, code);
            if rules.jumps_code(code) {
                jumpers = jumpers | B::single(cell);
            }
            counts.moves += steps;
            each(cell, steps, Some(row_steps));
        }
        while !jumpers.is_none() {
            let cell = jumpers.first();
            jumpers = jumpers.without_first();
            let jumps = self.count_jumps_in(topo, &sets, cell, sets.code(cell));
            counts.jumps += jumps;
            each(cell, jumps, None);
        }
        counts
    }

    /// Counts the reveals and moves allowed by `control`.
    pub fn count_actions(
        &self,
        topo: &Topology,
        rules: &CaptureRules,
        control: Control,
    ) -> ActionCounts {
        let len = self.len();
        if len <= 64 {
            return self.count_in::<u64>(topo, rules, control, |_, _, _| {});
        }
        if len <= MASK_CELLS {
            return self.count_in::<u128>(topo, rules, control, |_, _, _| {});
        }
        let mut counts = ActionCounts {
            reveals: self.face_down,
            ..ActionCounts::default()
        };
        self.for_each_active_cell(control, false, |cell, code| {
            let (steps, jumps) = self.count_moves_of_code(topo, rules, cell, code);
            counts.moves += steps;
            counts.jumps += jumps;
            true
        });
        counts
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

    /// The board's masks as sets of `B` (a board with masks, `B` holding every cell).
    #[inline(always)]
    fn sets<'a, B: CellSet>(&'a self, topo: &'a Topology) -> Sets<'a, B> {
        let [hidden, red, black, _] = self.masks.map(B::of);
        Sets {
            colour: [red, black],
            occupied: hidden | red | black,
            grid: self.grid(),
            rows: topo.step_rows(),
        }
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

/// For each set of eight bits, the word whose byte `i` is bit `i`: eight cells' face-down
/// flags as their counts of actions (see [`Board::count_pieces`]).
const SPREAD: [u64; 256] = {
    let mut table = [0; 256];
    let mut set = 0;
    while set < 256 {
        let mut bit = 0;
        while bit < 8 {
            table[set] |= ((set as u64 >> bit) & 1) << (8 * bit);
            bit += 1;
        }
        set += 1;
    }
    table
};

/// Every byte of a word: 1.
const BYTES_ONE: u64 = 0x0101_0101_0101_0101;
/// Every byte of a word: its low half (see `Counted::per_cell`).
const BYTES_LOW_HALF: u64 = 0x0f0f_0f0f_0f0f_0f0f;
/// Every byte of a word: its top bit.
const BYTES_TOP: u64 = 0x8080_8080_8080_8080;

// A cell's moves fit the low half of its byte in `Counted::per_cell`.
const _: () = assert!(super::topology::MAX_MOVES_PER_CELL <= 15);

/// A board's reveals and moves for one control, counted by [`Board::count_pieces`].
#[derive(Clone, Debug)]
pub(crate) struct Counted {
    /// The counts, by kind (no bag draw or put: those are not on the board).
    pub counts: ActionCounts,
    /// `counts.total()`, kept apart: summing the counts just written field by field would
    /// read them back as one vector, which stalls the processor (no store forwarding).
    pub total: u32,
    /// A byte per cell, in cell order (the board's cells, rounded up to eight, are
    /// meaningful). The low half is the cell's actions: a face-down cell's reveal, a movable
    /// piece's moves, else none; at most
    /// [`MAX_MOVES_PER_CELL`](super::topology::MAX_MOVES_PER_CELL), 15, so the sum of eight
    /// cells keeps a byte's top bit clear. The high half is a movable piece's steps as the
    /// cells of its step row they go to (bit `j` for the row's `j`-th cell), when the topology
    /// has step rows: the chosen step is then found without reading the neighbours again,
    /// which would lengthen the chain of reads from the drawn index to the action. One array
    /// rather than two keeps a server game's state small (issue 10's S3).
    per_cell: [u8; MASK_CELLS],
}

impl Default for Counted {
    fn default() -> Counted {
        Counted {
            counts: ActionCounts::default(),
            total: 0,
            per_cell: [0; MASK_CELLS],
        }
    }
}

impl Counted {
    /// The cell of the `k`-th (from 0) action on a board of `len` cells (`k` below the total),
    /// and the action's index among that cell's. Eight cells are one word of bytes: the
    /// product by [`BYTES_ONE`] puts in each byte the sum of the bytes up to it, so a word's
    /// total is its top byte, and the cell is the first byte whose sum exceeds `k`.
    #[inline]
    fn find(&self, len: usize, k: u32) -> (Cell, u32) {
        let word = |w: usize| {
            let bytes = &self.per_cell[(8 * w) & (MASK_CELLS - 8)..][..8];
            u64::from_le_bytes(bytes.try_into().expect("eight bytes")) & BYTES_LOW_HALF
        };
        // The action's word is the last one whose running total before it is at most `k`
        // (running totals only grow): kept as the words go by, with no branch on the data
        // and no second read of the word once `k` is known.
        let (mut w, mut before, mut running) = (0, 0, 0);
        let (mut counts, mut sums) = (0, 0);
        for i in 0..len.div_ceil(8) {
            let here = word(i);
            let here_sums = here.wrapping_mul(BYTES_ONE);
            let reached = running <= k;
            w = if reached { i } else { w };
            before = if reached { running } else { before };
            counts = if reached { here } else { counts };
            sums = if reached { here_sums } else { sums };
            running += (here_sums >> 56) as u32;
        }
        let k = k - before;
        // The top bit of byte `i` stays set when its sum is above `k` (sums and `k + 1` are
        // below 128, so no byte borrows from the next).
        let above = ((sums | BYTES_TOP) - u64::from(k + 1) * BYTES_ONE) & BYTES_TOP;
        let i = above.trailing_zeros() / 8;
        let sum_before = ((sums >> (8 * i)) as u8 - (counts >> (8 * i)) as u8) as u32;
        (8 * w + i as usize, k - sum_before)
    }
}

/// A board's cells by content, as sets, and what else the generator reads on a board with
/// masks, fetched once per count.
struct Sets<'a, B> {
    /// Revealed pieces of each colour.
    colour: [B; 2],
    /// Every cell that is not empty.
    occupied: B,
    /// [`Board::grid`].
    grid: &'a [u8; GRID_CELLS],
    /// [`Topology::step_rows`].
    rows: Option<&'a [[u8; 4]; MASK_CELLS]>,
}

impl<B: CellSet> Sets<'_, B> {
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

    /// The revealed pieces of the other colour than the piece of square code `code`'s.
    #[inline(always)]
    fn enemy_of(&self, code: u8) -> B {
        // Red codes are 2..=8 (see `Square::code`).
        if code <= 8 {
            self.colour[1]
        } else {
            self.colour[0]
        }
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_wire())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup(board: &str) -> (Topology, CaptureRules, Board) {
        (
            Topology::rectangle(4, 8).unwrap(),
            CaptureRules::standard(),
            Board::parse(board).unwrap(),
        )
    }

    /// A 4x8 board from four 8-character rows.
    fn rows(r: [&str; 4]) -> String {
        r.concat()
    }

    #[test]
    fn board_string_round_trips() {
        for s in ["KPPP.kpXX", "XXXXXXXX", "pPXX.XXX", ".P.P.XPX"] {
            assert_eq!(Board::parse(s).unwrap().to_wire(), s);
        }
        assert!(Board::parse("KPZ").unwrap_err().contains("cell 2"));
    }

    #[test]
    fn cannon_jumps_over_a_face_down_screen() {
        let b = rows(["C.X..r..", "........", "........", "........"]);
        let (t, r, b) = setup(&b);
        assert_eq!(
            b.check_move(&t, &r, Control::Colour(Colour::Red), 0, 5),
            Ok(ActionKind::Jump)
        );
        let jumps: Vec<_> = b
            .legal_actions(&t, &r, Control::Colour(Colour::Red))
            .into_iter()
            .filter(|a| matches!(a, Action::Move { to: 5, .. }))
            .collect();
        assert_eq!(jumps, vec![Action::Move { from: 0, to: 5 }]);
    }

    #[test]
    fn cannon_over_two_pieces_is_illegal() {
        let b = rows(["C.Xp.r..", "........", "........", "........"]);
        let (t, r, b) = setup(&b);
        let e = b
            .check_move(&t, &r, Control::Colour(Colour::Red), 0, 5)
            .unwrap_err();
        assert!(e.0.contains("found 2"), "{e}");
        assert!(!b
            .legal_actions(&t, &r, Control::Colour(Colour::Red))
            .contains(&Action::Move { from: 0, to: 5 }));
        // ...but the first piece beyond the screen is a target.
        assert_eq!(
            b.check_move(&t, &r, Control::Colour(Colour::Red), 0, 3),
            Ok(ActionKind::Jump)
        );
    }

    #[test]
    fn cannon_onto_a_face_down_piece_is_illegal() {
        let b = rows(["C.p.X...", "........", "........", "........"]);
        let (t, r, b) = setup(&b);
        let e = b
            .check_move(&t, &r, Control::Colour(Colour::Red), 0, 4)
            .unwrap_err();
        assert!(e.0.contains("face-down"), "{e}");
        assert!(!b
            .legal_actions(&t, &r, Control::Colour(Colour::Red))
            .iter()
            .any(|a| matches!(a, Action::Move { from: 0, to: 4 })));
    }

    #[test]
    fn cannon_jumps_vertically_and_not_without_a_screen() {
        // Cannon at 1, screen at 9, target at 25 (two empty cells between screen and target).
        let b = rows([".C......", ".P......", "........", ".k......"]);
        let (t, r, b) = setup(&b);
        assert_eq!(
            b.check_move(&t, &r, Control::Colour(Colour::Red), 1, 25),
            Ok(ActionKind::Jump)
        );
        let b2 = Board::parse(&rows([".C......", "........", "........", ".k......"])).unwrap();
        let e = b2
            .check_move(&t, &r, Control::Colour(Colour::Red), 1, 25)
            .unwrap_err();
        assert!(e.0.contains("found 0"), "{e}");
        // A cannon steps but never captures by a step.
        let b3 = Board::parse(&rows([".Cp.....", "........", "........", "........"])).unwrap();
        assert!(b3
            .check_move(&t, &r, Control::Colour(Colour::Red), 1, 2)
            .is_err());
        assert_eq!(
            b3.check_move(&t, &r, Control::Colour(Colour::Red), 1, 0),
            Ok(ActionKind::Step)
        );
    }

    #[test]
    fn steps_and_captures_follow_ranks() {
        let b = rows(["KpG.....", "g.......", "........", "........"]);
        let (t, r, b) = setup(&b);
        // King cannot take the pawn, can take the guard.
        assert!(b
            .check_move(&t, &r, Control::Colour(Colour::Red), 0, 1)
            .is_err());
        assert_eq!(
            b.check_move(&t, &r, Control::Colour(Colour::Red), 0, 8),
            Ok(ActionKind::Step)
        );
        // The black pawn takes the king; the guard at 2 is out of its reach by rank.
        assert_eq!(
            b.check_move(&t, &r, Control::Colour(Colour::Black), 1, 0),
            Ok(ActionKind::Step)
        );
        assert!(b
            .check_move(&t, &r, Control::Colour(Colour::Black), 1, 2)
            .is_err());
        // Moving the opponent's piece, or before owning a colour, is refused.
        assert!(b
            .check_move(&t, &r, Control::Colour(Colour::Black), 0, 8)
            .is_err());
        assert!(b.check_move(&t, &r, Control::Nothing, 0, 8).is_err());
    }

    #[test]
    fn counts_split_moves_jumps_and_reveals() {
        let b = rows(["C.X..r..", "X.......", "........", "........"]);
        let (t, r, b) = setup(&b);
        let c = b.count_actions(&t, &r, Control::Colour(Colour::Red));
        // Cannon at 0: step to 1 (8 is face-down); jump to 5. Reveals: cells 2 and 8.
        assert_eq!(
            c,
            ActionCounts {
                moves: 1,
                jumps: 1,
                reveals: 2,
                ..Default::default()
            }
        );
        let none = b.count_actions(&t, &r, Control::Nothing);
        assert_eq!(
            none,
            ActionCounts {
                moves: 0,
                jumps: 0,
                reveals: 2,
                ..Default::default()
            }
        );
    }

    /// Every action as a sortable tuple: (from, to, kind), a reveal as (cell, cell, 0).
    fn keyed(a: Action, kind: ActionKind) -> (Cell, Cell, u8) {
        match (a, kind) {
            (Action::Reveal(c), _) => (c, c, 0),
            (Action::Move { from, to }, ActionKind::Step) => (from, to, 1),
            (Action::Move { from, to }, _) => (from, to, 2),
            _ => unreachable!("a board gives reveals and moves"),
        }
    }

    /// A random board of `size` cells, from `x` (a linear congruential generator's state).
    fn random_board(size: usize, x: &mut u64) -> Vec<Square> {
        (0..size)
            .map(|_| {
                *x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                match (*x >> 33) % 20 {
                    0..=5 => Square::Empty,
                    6..=8 => Square::Hidden,
                    n => Square::Up(Piece::new(
                        Colour::ALL[(n % 2) as usize],
                        crate::rules::Kind::ALL[((*x >> 40) % 7) as usize],
                    )),
                }
            })
            .collect()
    }

    /// Checks the generator on one board against the listing and against `check_move`
    /// (which shares none of its code), and returns the listing.
    fn listed_and_checked(
        t: &Topology,
        r: &CaptureRules,
        b: &Board,
        control: Control,
    ) -> Vec<(Cell, Cell, u8)> {
        let mut listed = Vec::new();
        b.for_each_action(t, r, control, |a, kind| listed.push((a, kind)));
        for (k, &(a, kind)) in listed.iter().enumerate() {
            assert_eq!(
                b.nth_action(t, r, control, k),
                Some((a, kind)),
                "action {k}"
            );
        }
        assert_eq!(b.nth_action(t, r, control, listed.len()), None);
        let mut counts = ActionCounts::default();
        listed.iter().for_each(|&(_, kind)| counts.add(kind));
        assert_eq!(b.count_actions(t, r, control), counts);
        assert_eq!(b.has_action(t, r, control), !listed.is_empty());
        let mut moves = Vec::new();
        for from in 0..b.len() {
            for to in 0..b.len() {
                if let Ok(kind) = b.check_move(t, r, control, from, to) {
                    moves.push(keyed(Action::Move { from, to }, kind));
                }
            }
        }
        let mut keys: Vec<_> = listed.iter().map(|&(a, kind)| keyed(a, kind)).collect();
        keys.sort_unstable();
        let listed_moves: Vec<_> = keys.iter().copied().filter(|k| k.2 > 0).collect();
        assert_eq!(listed_moves, moves, "the moves check_move accepts");
        keys
    }

    /// The set-based generator's rare cases: a board numbered so that cannon lines neither
    /// rise nor fall (a 4x8 rectangle with its cells renumbered), and one whose cells have
    /// more than four neighbours (no step rows). The renumbered board gives the rectangle's
    /// actions, renumbered; both agree with the listing and with `check_move`.
    #[test]
    fn boards_numbered_out_of_line_or_with_many_neighbours_agree() {
        let rect = Topology::rectangle(4, 8).unwrap();
        let renumber: Vec<Cell> = (0..32).map(|c| (c * 13 + 5) % 32).collect();
        let moves = rect
            .moves()
            .iter()
            .map(|&(a, b)| (renumber[a], renumber[b]))
            .collect();
        let mut rays = vec![Vec::new(); 32];
        for c in 0..32 {
            rays[renumber[c]] = rect
                .rays(c)
                .iter()
                .map(|ray| ray.iter().map(|&x| renumber[x]).collect())
                .collect();
        }
        let scrambled = Topology::from_parts(32, moves, rays).unwrap();
        assert!((0..32)
            .flat_map(|c| scrambled.lines(c))
            .any(|l| l.order == LineOrder::Mixed));
        // Kings' moves on 4x8: up to eight neighbours, no cannon lines.
        let mut kings = Vec::new();
        for a in 0..32usize {
            for b in 0..32usize {
                let (dr, dc) = ((a / 8).abs_diff(b / 8), (a % 8).abs_diff(b % 8));
                if a != b && dr <= 1 && dc <= 1 {
                    kings.push((a, b));
                }
            }
        }
        let kings = Topology::from_parts(32, kings, vec![Vec::new(); 32]).unwrap();
        assert!(kings.step_rows().is_none());
        let r = CaptureRules::standard();
        let controls = [
            Control::Nothing,
            Control::Colour(Colour::Red),
            Control::Colour(Colour::Black),
            Control::Both,
        ];
        let mut x = 1;
        for _ in 0..200 {
            let squares = random_board(32, &mut x);
            let b = Board::parse(&squares.iter().map(|s| s.letter()).collect::<String>()).unwrap();
            let mut moved = Board::hidden(32);
            for (c, &sq) in squares.iter().enumerate() {
                moved.set(renumber[c], sq);
            }
            for control in controls {
                let want = listed_and_checked(&rect, &r, &b, control);
                let mut want: Vec<_> = want
                    .into_iter()
                    .map(|(a, b, k)| (renumber[a], renumber[b], k))
                    .collect();
                want.sort_unstable();
                assert_eq!(listed_and_checked(&scrambled, &r, &moved, control), want);
                listed_and_checked(&kings, &r, &b, control);
            }
        }
    }

    /// The edges of the byte-per-cell count behind `nth_action`: the largest board with cell
    /// sets (8x16: sixteen words of counts, cell sets as `u128`), and cells with more moves
    /// than a byte per cell is trusted with (sixteen neighbours each: the count without
    /// sets).
    #[test]
    fn the_largest_board_with_sets_and_crowded_cells_agree() {
        let big = Topology::rectangle(8, 16).unwrap();
        assert!(big.small_counts());
        let mut moves = std::collections::BTreeSet::new();
        for a in 0..32usize {
            for d in 1..=8 {
                moves.insert((a, (a + d) % 32));
                moves.insert(((a + d) % 32, a));
            }
        }
        let crowded =
            Topology::from_parts(32, moves.into_iter().collect(), vec![Vec::new(); 32]).unwrap();
        assert!(!crowded.small_counts());
        let r = CaptureRules::standard();
        let mut x = 7;
        for _ in 0..20 {
            let squares = random_board(128, &mut x);
            let b = Board::parse(&squares.iter().map(|s| s.letter()).collect::<String>()).unwrap();
            let small = Board::parse(&squares[..32].iter().map(|s| s.letter()).collect::<String>())
                .unwrap();
            for control in [Control::Colour(Colour::Red), Control::Both] {
                listed_and_checked(&big, &r, &b, control);
                listed_and_checked(&crowded, &r, &small, control);
            }
        }
    }

    /// `move_piece` leaves the board exactly as the two `set`s it stands for, onto an empty
    /// cell and onto a piece, on boards with sets of both widths.
    #[test]
    fn moving_a_piece_is_setting_both_cells() {
        let mut x = 3;
        for size in [32, 128] {
            for _ in 0..200 {
                let squares = random_board(size, &mut x);
                let b =
                    Board::parse(&squares.iter().map(|s| s.letter()).collect::<String>()).unwrap();
                let pieces: Vec<Cell> = (0..size)
                    .filter(|&c| matches!(squares[c], Square::Up(_)))
                    .collect();
                let (from, to) = (pieces[0], pieces[pieces.len() - 1]);
                let empty = (0..size).find(|&c| squares[c] == Square::Empty).unwrap();
                for to in [to, empty] {
                    let (mut moved, mut set) = (b.clone(), b.clone());
                    assert_eq!(moved.move_piece(from, to), b.get(to));
                    set.set(to, b.get(from));
                    set.set(from, Square::Empty);
                    assert_eq!(moved, set, "{from} to {to}");
                }
            }
        }
    }
}
