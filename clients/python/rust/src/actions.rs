//! Actions as text (wire clauses) and as integer ids.
//!
//! # The id encoding (stable for a given variant; documented in PACKAGE.md)
//! With `S` cells, `M` moves of the topology (its `moves` list, wire order) and `J` jump pairs
//! (every `(origin, target)` a cannon could jump along one of the topology's lines, the target
//! at distance 2 or more, sorted by origin then target):
//! - `0 .. S`: `(rev c)` is `c`;
//! - `S .. S+M`: the step `(mov a b)` is `S + m`, `m` the index of `(a, b)` in `moves`;
//! - `S+M .. S+M+J`: the jump `(mov a b)` is `S + M + j`, `j` the index of `(a, b)` in `jumps`;
//! - bag variants only: `(bag)` is `S+M+J`, and `(put P c)` is `S+M+J+1 + p*S + c`, with `p`
//!   the index of `P` in `KGBRNCPkgbrncp`.
//!
//! So `num_distinct_actions` is `S+M+J`, or `S+M+J+1+14*S` with a bag. Every id of this range
//! is an action of the board (legal or not at a given moment); ids follow from the topology
//! alone, so they are the same in every game of a variant.

use anqi_core::rules::{Action, ActionKind, Piece, Variant};
use anqi_core::wire::ClientMessage;
use pyo3::exceptions::PyValueError;
use pyo3::PyResult;

/// The longest action text accepted: far more than any real clause, so a huge string is refused
/// before it is parsed.
const MAX_ACTION_TEXT: usize = 256;

/// The piece letters in the order of per-piece arrays (`colour * 7 + kind`).
pub const PIECE_LETTERS: &str = "KGBRNCPkgbrncp";

/// A piece's index in per-piece arrays, the position of its letter in [`PIECE_LETTERS`].
pub fn piece_index(p: Piece) -> usize {
    p.index()
}

/// The piece of index `i` (`i < 14`).
pub fn piece_of(i: usize) -> Piece {
    Piece::from_index(i)
}

/// Reads one action clause, as a client would send it.
pub fn parse_action(text: &str) -> PyResult<Action> {
    let refuse = |why: String| PyValueError::new_err(format!("not an action: {why}"));
    if text.len() > MAX_ACTION_TEXT {
        return Err(refuse(format!(
            "{} bytes of text, more than {MAX_ACTION_TEXT}",
            text.len()
        )));
    }
    let message =
        ClientMessage::parse(format!("({text})").as_bytes()).map_err(|e| refuse(e.text))?;
    match message.0.as_slice() {
        [clause] => clause.action().ok_or_else(|| {
            refuse(format!(
                "{text:?} is not (rev POS), (mov POS_I POS_F), (bag) or (put PIECE POS)"
            ))
        }),
        _ => Err(refuse(format!(
            "{text:?}: give exactly one clause, such as \"(rev 3)\""
        ))),
    }
}

/// The id encoding of one variant's actions (see the module documentation).
#[derive(Debug)]
pub struct Codec {
    size: usize,
    moves: Vec<(usize, usize)>,
    jumps: Vec<(usize, usize)>,
    bag: bool,
    /// The action of every id below the puts: reveals, steps, jumps, then the bag draw.
    table: Vec<Action>,
    /// The ids of the moves and jumps from each cell: `by_origin[starts[c]..starts[c + 1]]`
    /// holds `(to, id)` pairs, a handful per cell, scanned to encode a move.
    starts: Vec<u32>,
    by_origin: Vec<(u32, u32)>,
    /// On boards of at most [`DENSE_CELLS`] cells, the id of every `(from, to)` at
    /// `from * size + to` (`u32::MAX`: no move): one load per move when listing the legal ids
    /// (`Board::move_ids`), the hot path of `VecGame`.
    dense: Vec<u32>,
    /// On a board with step rows ([`Topology::step_row`]), the ids of the steps from each
    /// cell to the cells of its row, in row order (`u32::MAX` for the padding, the cell
    /// itself), as [`Board::move_ids`] reads them.
    ///
    /// [`Topology::step_row`]: anqi_core::rules::Topology::step_row
    /// [`Board::move_ids`]: anqi_core::rules::Board::move_ids
    rows: Vec<[u32; 4]>,
}

/// Boards up to this many cells get a dense move table (256 KiB at most).
const DENSE_CELLS: usize = 256;

impl Codec {
    pub fn new(v: &Variant) -> Codec {
        let topo = &v.topology;
        let size = topo.size();
        let moves = topo.moves().to_vec();
        let mut jumps: Vec<(usize, usize)> = (0..size)
            .flat_map(|o| {
                topo.rays(o)
                    .iter()
                    .flat_map(move |ray| ray[1..].iter().map(move |&t| (o, t)))
            })
            .collect();
        jumps.sort_unstable();
        jumps.dedup();
        let bag = v.start == anqi_core::rules::Start::Bag;
        let mut table: Vec<Action> = (0..size).map(Action::Reveal).collect();
        let mut pairs: Vec<(usize, usize, u32)> = Vec::with_capacity(moves.len() + jumps.len());
        for &(from, to) in moves.iter().chain(&jumps) {
            pairs.push((from, to, table.len() as u32));
            table.push(Action::Move { from, to });
        }
        if bag {
            table.push(Action::Bag);
        }
        // Grouped by origin, in id order (a stable sort keeps steps before jumps).
        pairs.sort_by_key(|&(from, _, _)| from);
        let mut starts = vec![0u32; size + 1];
        for &(from, _, _) in &pairs {
            starts[from + 1] += 1;
        }
        for c in 0..size {
            starts[c + 1] += starts[c];
        }
        let mut dense = Vec::new();
        if size <= DENSE_CELLS {
            dense = vec![u32::MAX; size * size];
            for &(from, to, id) in &pairs {
                dense[from * size + to] = id;
            }
        }
        let mut rows = Vec::new();
        if !dense.is_empty() && topo.step_row(0).is_some() {
            rows = (0..size)
                .map(|from| {
                    let row = topo.step_row(from).expect("every cell has a row");
                    row.map(|to| {
                        let to = usize::from(to);
                        if to == from {
                            u32::MAX
                        } else {
                            dense[from * size + to]
                        }
                    })
                })
                .collect();
        }
        let by_origin = pairs
            .into_iter()
            .map(|(_, to, id)| (to as u32, id))
            .collect();
        Codec {
            size,
            moves,
            jumps,
            bag,
            table,
            starts,
            by_origin,
            dense,
            rows,
        }
    }

    /// How many ids there are.
    pub fn len(&self) -> usize {
        self.table.len() + if self.bag { 14 * self.size } else { 0 }
    }

    /// The topology's moves, in id order.
    pub fn moves(&self) -> &[(usize, usize)] {
        &self.moves
    }

    /// The jump pairs `(origin, target)`, in id order.
    pub fn jumps(&self) -> &[(usize, usize)] {
        &self.jumps
    }

    /// The id of every move `(from, to)` at `from * size + to` (`u32::MAX`: no move), and
    /// of the steps of each cell's step row (see `Codec::rows`; empty without step rows):
    /// the tables [`Board::move_ids`] numbers the moves with. `None` on a board too large for
    /// the table.
    ///
    /// [`Board::move_ids`]: anqi_core::rules::Board::move_ids
    #[inline]
    pub fn move_tables(&self) -> Option<(&[u32], &[[u32; 4]])> {
        (!self.dense.is_empty()).then_some((&self.dense[..], &self.rows[..]))
    }

    /// The kind of the action of an id (an id below [`Codec::len`]).
    #[inline]
    pub fn kind_of(&self, id: usize) -> ActionKind {
        let (s, m, j) = (self.size, self.moves.len(), self.jumps.len());
        if id < s {
            ActionKind::Reveal
        } else if id < s + m {
            ActionKind::Step
        } else if id < s + m + j {
            ActionKind::Jump
        } else if id == s + m + j {
            ActionKind::Bag
        } else {
            ActionKind::Put
        }
    }

    /// The action of an id, if the id is one.
    #[inline]
    pub fn decode(&self, id: usize) -> Option<Action> {
        if let Some(a) = self.table.get(id) {
            return Some(*a);
        }
        let put = id.checked_sub(self.table.len())?;
        (self.bag && put < 14 * self.size).then(|| Action::Put {
            piece: piece_of(put / self.size),
            cell: put % self.size,
        })
    }

    /// The id of an action, if it has one: a reveal of a cell, a move or jump along the
    /// topology, a bag draw or a put in a bag variant.
    #[inline]
    pub fn encode(&self, a: Action) -> Option<u32> {
        match a {
            Action::Reveal(c) => (c < self.size).then_some(c as u32),
            Action::Move { from, to } if !self.dense.is_empty() => {
                if from >= self.size || to >= self.size || from == to {
                    return None;
                }
                let id = self.dense[from * self.size + to];
                (id != u32::MAX).then_some(id)
            }
            Action::Move { from, to } => {
                let start = *self.starts.get(from)? as usize;
                let end = self.starts[from + 1] as usize;
                self.by_origin[start..end]
                    .iter()
                    .find(|&&(t, _)| t as usize == to)
                    .map(|&(_, id)| id)
            }
            Action::Bag => self.bag.then(|| self.table.len() as u32 - 1),
            Action::Put { piece, cell } => (self.bag && cell < self.size)
                .then(|| (self.table.len() + piece_index(piece) * self.size + cell) as u32),
        }
    }

    /// The id of an action, or a ValueError naming it.
    pub fn encode_or_refuse(&self, a: Action) -> PyResult<u32> {
        self.encode(a).ok_or_else(|| {
            PyValueError::new_err(format!(
                "{a} has no id in this variant: not a reveal of one of its {} cells, a move or jump of its board{}",
                self.size,
                if self.bag { ", a draw or a put" } else { "" }
            ))
        })
    }

    /// The action of an id, or a ValueError saying the range.
    #[inline]
    pub fn decode_or_refuse(&self, id: i64) -> PyResult<Action> {
        usize::try_from(id)
            .ok()
            .and_then(|i| self.decode(i))
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "action id {id} is out of range: this variant's ids are 0..{}",
                    self.len()
                ))
            })
    }
}
