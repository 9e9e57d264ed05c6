//! Building the tables of a pair of materials by retrograde analysis, the tables of fewer
//! pieces being built.
//!
//! Every table holds positions with red to move: a position with black to move is the
//! colour-swapped position of the swapped material. So the quiet moves of material `M` lead to
//! positions of `swap(M)`, and the two are built together (one table when `M` is its own swap).
//! A capture leads to a table of one piece fewer, already built.
//!
//! The pass (as for chess endgames, with the capture exits known):
//! 1. Each position's exits are looked up: a capture of the last enemy piece wins in 1 ply; a
//!    capture whose child is lost in `e` plies gives a win in `e + 1`, put in bucket `e + 1`;
//!    a child won in `e` raises the position's loss floor to `e + 1`; a drawn child means
//!    the position is never lost. Its quiet moves are counted. A position with no move is lost
//!    at once (bucket 0); one whose every move is a capture that loses is lost at its floor.
//! 2. Buckets are taken in rising distance. A position taken from bucket `d` that has no
//!    value yet gets "decided in `d` plies" (won when `d` is odd, lost when even). Each of its
//!    predecessors by a quiet move (a step back of a piece of the side that just moved) is then
//!    won in `d + 1` if `d` is even; if `d` is odd, it has one losing move fewer to try, and
//!    once it has none left, no drawn or winning exit, it is lost at its floor.
//! 3. Positions never taken are draws: neither side can force an end.

use super::layout::Layout;
use super::material::Material;
use super::{code, Table, TableRules, DRAW, NONE};
use crate::rules::{Action, Board, Colour, Control, Piece, Square};
use std::collections::HashMap;

/// A position has a drawn exit (it is never lost).
const DRAW_EXIT: u8 = 1;
/// A position has a winning exit (its value comes from a bucket).
const WIN_EXIT: u8 = 2;

/// The colour-swapped piece index.
fn swap_piece(p: u8) -> u8 {
    if p < 7 {
        p + 7
    } else {
        p - 7
    }
}

/// The pieces of a position with the colours exchanged.
fn swap_colours(pieces: &mut [(u8, u8)]) {
    for (p, _) in pieces {
        *p = swap_piece(*p);
    }
}

/// One material's arrays during the build.
struct Slot {
    layout: Layout,
    values: Vec<u16>,
    /// Quiet moves not yet known to lose (16 pieces of a board with many steps per cell may
    /// have more than 255).
    remaining: Vec<u16>,
    floor: Vec<u16>,
    flags: Vec<u8>,
}

impl Slot {
    /// The empty arrays of `material`'s table: every value unknown.
    fn new(rules: &TableRules, material: Material) -> Slot {
        let layout = rules
            .layout(material)
            .expect("a table that fits (checked by the caller)");
        let n = layout.len() as usize;
        Slot {
            layout,
            values: vec![NONE; n],
            remaining: vec![0; n],
            floor: vec![0; n],
            flags: vec![0; n],
        }
    }
}

/// The positions waiting to be decided, by distance: bucket `d` holds (slot, index) pairs
/// decided in `d` plies unless a smaller distance decided them first.
#[derive(Default)]
struct Buckets(Vec<Vec<(u8, u64)>>);

impl Buckets {
    /// Puts position `i` of slot `a` in bucket `d`.
    fn push(&mut self, d: u16, a: usize, i: u64) {
        let d = usize::from(d);
        if self.0.len() <= d {
            self.0.resize_with(d + 1, Vec::new);
        }
        self.0[d].push((a as u8, i));
    }
}

/// Builds the tables of `material` and its swap (one table when they are the same), from the
/// built tables of fewer pieces in `solved`.
///
/// # Panics
/// When a table of fewer pieces that a capture leads to is missing from `solved`.
pub fn build_pair(
    rules: &TableRules,
    material: Material,
    solved: &HashMap<Material, Table>,
) -> Vec<Table> {
    let mut materials = vec![material];
    if material.swapped() != material {
        materials.push(material.swapped());
    }
    let mut slots: Vec<Slot> = materials.iter().map(|&m| Slot::new(rules, m)).collect();
    let mut buckets = Buckets::default();
    exits(rules, &mut slots, solved, &mut buckets);
    settle(rules, &mut slots, buckets);
    slots
        .into_iter()
        .map(|s| Table::new(s.layout, s.values))
        .collect()
}

/// Step 1 of the pass: every position's exits. Its captures are looked up in the tables of
/// fewer pieces (`solved`), its quiet moves counted; a position with a winning capture, no
/// move, or only losing captures goes in its bucket. Every position gets `DRAW` until a bucket
/// decides it.
fn exits(
    rules: &TableRules,
    slots: &mut [Slot],
    solved: &HashMap<Material, Table>,
    buckets: &mut Buckets,
) {
    let topo = &rules.variant.topology;
    let capture = &rules.variant.capture;
    let syms = &rules.symmetries;
    let mut board = Board::parse(&".".repeat(topo.size())).expect("an empty board");
    let mut pieces = Vec::new();
    let mut moves = Vec::new();
    let mut child = Vec::new();
    for (a, slot) in slots.iter_mut().enumerate() {
        let enemies = slot.layout.material().of_colour(Colour::Black);
        for i in 0..slot.layout.len() {
            if !slot.layout.decode(i, syms, &mut pieces) {
                continue;
            }
            let i_ = i as usize;
            slot.values[i_] = DRAW;
            for &(p, c) in &pieces {
                board.set(
                    usize::from(c),
                    Square::Up(Piece::from_index(usize::from(p))),
                );
            }
            moves.clear();
            board.for_each_action(topo, capture, Control::Colour(Colour::Red), |a, _| {
                if let Action::Move { from, to } = a {
                    moves.push((from as u8, to as u8, board.get(to)));
                }
            });
            for &(_, c) in &pieces {
                board.set(usize::from(c), Square::Empty);
            }
            let (mut quiet, mut floor, mut flags, mut win) = (0u32, 0u16, 0u8, u16::MAX);
            for &(from, to, target) in &moves {
                let Square::Up(taken) = target else {
                    quiet += 1;
                    continue;
                };
                if enemies == 1 {
                    win = 1;
                    continue;
                }
                child.clear();
                child.extend(
                    pieces
                        .iter()
                        .filter(|&&(_, c)| c != to)
                        .map(|&(p, c)| (swap_piece(p), if c == from { to } else { c })),
                );
                let m = slot.layout.material().without(taken.index()).swapped();
                let table = solved.get(&m).unwrap_or_else(|| panic!("the table of {m}"));
                match table.value(&child, syms) {
                    DRAW => flags |= DRAW_EXIT,
                    v => {
                        let e = v - 2;
                        if e % 2 == 0 {
                            win = win.min(e + 1);
                        } else {
                            floor = floor.max(e + 1);
                        }
                    }
                }
            }
            // At most 16 pieces (the layout's limit) with a step to each of at most 128 cells.
            slot.remaining[i_] = u16::try_from(quiet).expect("fewer than 65,536 quiet moves");
            slot.floor[i_] = floor;
            if win != u16::MAX {
                flags |= WIN_EXIT;
                buckets.push(win, a, i);
            } else if moves.is_empty() {
                buckets.push(0, a, i);
            } else if quiet == 0 && flags & DRAW_EXIT == 0 {
                buckets.push(floor, a, i);
            }
            slot.flags[i_] = flags;
        }
    }
}

/// Step 2 of the pass: the buckets in rising distance. A position taken from bucket `d` with
/// no value yet is decided in `d` plies, and its predecessors by a quiet move (in the other
/// slot: the side that just moved) are won in `d + 1`, or have one losing move fewer to try.
fn settle(rules: &TableRules, slots: &mut [Slot], mut buckets: Buckets) {
    let syms = &rules.symmetries;
    let pair = slots.len() == 2;
    let other = |a: usize| if pair { 1 - a } else { a };
    let mut pieces = Vec::new();
    let mut child = Vec::new();
    let mut d = 0usize;
    while d < buckets.0.len() {
        let bucket = std::mem::take(&mut buckets.0[d]);
        let dist = d as u16;
        for (a, i) in bucket {
            let a = usize::from(a);
            if slots[a].values[i as usize] != DRAW {
                continue; // decided already, at a smaller distance
            }
            slots[a].values[i as usize] = code(dist);
            slots[a].layout.decode(i, syms, &mut pieces);
            let b = other(a);
            // Predecessors: black (which just moved) stepped here from an empty cell.
            for k in 0..pieces.len() {
                let (p, c) = pieces[k];
                if p < 7 {
                    continue;
                }
                for &from in &rules.reverse[usize::from(c)] {
                    if pieces.iter().any(|&(_, x)| x == from) {
                        continue;
                    }
                    child.clear();
                    child.extend_from_slice(&pieces);
                    child[k].1 = from;
                    swap_colours(&mut child);
                    let q = slots[b].layout.encode(&child, syms);
                    let before = &mut slots[b];
                    let q_ = q as usize;
                    if before.values[q_] != DRAW {
                        continue;
                    }
                    if dist % 2 == 0 {
                        buckets.push(dist + 1, b, q);
                    } else {
                        before.remaining[q_] -= 1;
                        before.floor[q_] = before.floor[q_].max(dist + 1);
                        if before.remaining[q_] == 0 && before.flags[q_] == 0 {
                            let floor = before.floor[q_];
                            buckets.push(floor, b, q);
                        }
                    }
                }
            }
        }
        d += 1;
    }
}

/// Every table of at most `k` pieces of `rules`' variant, built fewest pieces first, one
/// material pair after another, all kept in memory: for tests and small tables (`anqi tables
/// build` builds on threads and writes each table of K pieces out as it goes).
pub fn build_all(rules: &TableRules, k: usize) -> HashMap<Material, Table> {
    let mut solved = HashMap::new();
    for m in rules.materials(k) {
        if solved.contains_key(&m) {
            continue;
        }
        for t in build_pair(rules, m, &solved) {
            solved.insert(t.layout().material(), t);
        }
    }
    solved
}
