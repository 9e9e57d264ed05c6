//! A game as numbers for neural networks: the observation tensor and the legal-action mask.
//!
//! # The layout (PACKAGE.md, "Tensors")
//! This module is the one definition of the layout: [`PLANES`], the planes' names in order
//! ([`plane_names`], from the groups' first planes that the writer below uses) and which plane
//! each becomes when red and black are exchanged ([`colour_swap`]). The native module exports
//! them as `TENSOR_PLANES` and `TENSOR_COLOUR_SWAP`, with [`TENSOR_VERSION`], and the Python
//! side (`anqi.env`, `anqi.symmetries`) derives what it needs from them. The version changes
//! whenever the layout does: a plane added, removed, moved or given another meaning or scale.
//!
//! `Game.observation_tensor(player)` is a `float32` array of [`PLANES`] planes over the cells,
//! shape `(PLANES, S)` in cell order (any topology), or `(PLANES, rows, columns)` on a
//! rectangle with `grid=True` (cell `r * columns + c` at `[.., r, c]`). Every variant has the
//! same planes, so what a network reads depends only on the board's cells:
//!
//! | planes | names | on each cell |
//! |---|---|---|
//! | 0-13 | `up-K` ... `up-p` | 1 where a face-up piece of that letter stands, in the order `KGBRNCPkgbrncp` |
//! | 14 | `face-down` | 1 where a face-down piece stands |
//! | 15 | `empty` | 1 where the cell is empty (in a bag game, also a cell no piece was put on yet) |
//! | 16 | `red` | all 1 when the observing player may move red pieces |
//! | 17 | `black` | all 1 when it may move black pieces (16 and 17 both 0 before colours are decided; both 1 in single-player and cooperative games) |
//! | 18 | `to-move` | all 1 when the observing player is to move |
//! | 19-32 | `unseen-K` ... `unseen-p` | the unseen pieces of each letter (face-down or in the bag), over the variant's number of that piece (0 where it has none) |
//! | 33 | `no-progress` | the no-progress count over the variant's limit (0 without the rule), at most 1 |
//! | 34 | `repeated` | how often the current position occurred before, over the repetition rule's count less one (`(repetition 3)`: 0, then 0.5, then the draw); over `times + extra` under a cycle rule `(cycle times extra)`; 0 without the rule; at most 1 |
//! | 35-48 | `hand-K` ... `hand-p` | all 1 on the plane of the piece the player to move holds to put (bag games) |
//! | 49 | `chain` | 1 on the cell of the piece that must capture again (a chain capture in progress) |
//!
//! Everything in it is public: a face-down piece is hidden from every player alike, and so
//! only planes 16-18 depend on who observes.
//!
//! # Relative tensors
//! With `relative=True` (`Game.observation_tensor`, `VecGame`), the colour roles are the
//! observer's: when the observing player moves black pieces (and only black), every plane is
//! written where [`colour_swap`] moves it, so that the "red" planes always mean "mine" and the
//! "black" ones "the other colour's". An observer with no colour yet (before the first reveal or
//! draw) or with both (single-player and cooperative games) sees the tensor as it is. The
//! layout is the same (the version too): only which colour a plane's letter stands for
//! changes. [`update_planes`] writes both, through a table of where each plane goes.
//!
//! `Game.legal_action_mask()` is a `bool` array of `num_distinct_actions`: true at the ids of
//! the player to move's legal actions (`actions.rs` gives the ids).

use crate::actions::{piece_index, Codec, PIECE_LETTERS};
use anqi_core::rules::{
    self, Action, Board, Cell, Colour, Control, Piece, Played, Repetition, Square,
};
use pyo3::prelude::*;

/// The version of the layout: 1 for the planes above. Raised whenever the layout changes (a
/// plane added, removed, moved, or given another meaning or scale), so that a network trained
/// on one layout can tell that a tensor has another.
pub const TENSOR_VERSION: u32 = 1;

/// The number of planes of an observation tensor.
pub const PLANES: usize = 50;

/// Where each group of planes starts.
const UP: usize = 0;
const FACE_DOWN: usize = 14;
const EMPTY: usize = 15;
const RED: usize = 16;
const BLACK: usize = 17;
const TO_MOVE: usize = 18;
const UNSEEN: usize = 19;
const NO_PROGRESS: usize = 33;
const REPEATED: usize = 34;
const HAND: usize = 35;
const CHAIN: usize = 49;

/// The groups of planes in order: the first plane, the name, and whether the group has a
/// plane per piece (14, in the order of [`PIECE_LETTERS`], named `NAME-LETTER`) or is one
/// plane. The names are Python's `TENSOR_PLANES`.
const GROUPS: [(usize, &str, bool); 11] = [
    (UP, "up", true),
    (FACE_DOWN, "face-down", false),
    (EMPTY, "empty", false),
    (RED, "red", false),
    (BLACK, "black", false),
    (TO_MOVE, "to-move", false),
    (UNSEEN, "unseen", true),
    (NO_PROGRESS, "no-progress", false),
    (REPEATED, "repeated", false),
    (HAND, "hand", true),
    (CHAIN, "chain", false),
];

// The groups follow each other without a gap and fill the PLANES planes.
const _: () = {
    let mut next = 0;
    let mut i = 0;
    while i < GROUPS.len() {
        assert!(GROUPS[i].0 == next);
        next += if GROUPS[i].2 { 14 } else { 1 };
        i += 1;
    }
    assert!(next == PLANES);
};

/// Each plane's name, plane 0 first: `up-K` ... `up-p`, `face-down`, `empty`, `red`, `black`,
/// `to-move`, `unseen-K` ... `unseen-p`, `no-progress`, `repeated`, `hand-K` ... `hand-p`,
/// `chain`.
pub fn plane_names() -> Vec<String> {
    GROUPS
        .iter()
        .flat_map(|&(_, name, per_piece)| {
            if per_piece {
                PIECE_LETTERS
                    .chars()
                    .map(|letter| format!("{name}-{letter}"))
                    .collect()
            } else {
                vec![name.to_string()]
            }
        })
        .collect()
}

/// The plane that plane `p` becomes when red and black are exchanged (a colour swap maps a
/// game to one whose tensor is this game's with plane `p` moved to `colour_swap(p)`): a
/// piece's plane to the same kind's of the other colour, red's to black's and back, the rest
/// to themselves.
pub fn colour_swap(p: usize) -> usize {
    usize::from(SWAPPED[p])
}

/// Where each plane is written: [`AS_IS`], or [`SWAPPED`] (plane `p` at `colour_swap(p)`) for a
/// relative tensor of an observer that moves black.
type PlaneMap = [u8; PLANES];

/// Every plane where it is.
const AS_IS: PlaneMap = {
    let mut map = [0u8; PLANES];
    let mut p = 0;
    while p < PLANES {
        map[p] = p as u8;
        p += 1;
    }
    map
};

/// Every plane where the colour swap moves it: within a group of per-piece planes, the letter
/// at `i` of [`PIECE_LETTERS`] to the other colour's at `(i + 7) % 14` (the letters are the
/// seven red ones, then the same seven black; checked below), and red's plane to black's.
const SWAPPED: PlaneMap = {
    let letters = PIECE_LETTERS.as_bytes();
    let mut i = 0;
    while i < 14 {
        assert!(letters[i].eq_ignore_ascii_case(&letters[(i + 7) % 14]));
        assert!(letters[i].is_ascii_uppercase() == (i < 7));
        i += 1;
    }
    let mut map = AS_IS;
    let mut g = 0;
    while g < GROUPS.len() {
        let (first, _, per_piece) = GROUPS[g];
        if per_piece {
            let mut i = 0;
            while i < 14 {
                map[first + i] = (first + (i + 7) % 14) as u8;
                i += 1;
            }
        }
        g += 1;
    }
    map[RED] = BLACK as u8;
    map[BLACK] = RED as u8;
    map
};

/// Whether `player`'s relative tensor is written swapped: it moves black pieces, and only
/// those (no colour yet, or both, leaves the tensor as it is).
fn observes_black(seen: &(impl Seen + ?Sized), player: usize) -> bool {
    seen.control_of(player) == Control::Colour(Colour::Black)
}

/// What a tensor is written from: a rules-core game (`Game.observation_tensor`, `VecGame`), or
/// what one player knows at its prompt (`Observation.observation_tensor`, for a bot on a
/// server). Everything asked is public or the observer's own, so both give the same tensor
/// of the same moment (`tests/test_tensors.py` checks it on every variant).
pub trait Seen {
    fn variant(&self) -> &rules::Variant;
    fn board(&self) -> &Board;
    /// The pieces nobody has seen, per piece index: face-down and in the bag.
    fn unseen(&self) -> [u32; 14];
    fn control_of(&self, player: usize) -> Control;
    /// Whether `player` is to move in a game not over.
    fn is_to_move(&self, player: usize) -> bool;
    /// Plies since the last reveal, capture, draw or put.
    fn quiet_plies(&self) -> u32;
    /// How often the current position occurred before (0: the first time), as the variant's
    /// repetition rule compares positions.
    fn repetitions(&self) -> u32;
    /// The piece the player to move holds to put.
    fn hand(&self) -> Option<Piece>;
    /// The cell of the piece that must capture again.
    fn chain(&self) -> Option<Cell>;
}

impl Seen for rules::Game {
    fn variant(&self) -> &rules::Variant {
        rules::Game::variant(self)
    }
    fn board(&self) -> &Board {
        rules::Game::board(self)
    }
    fn unseen(&self) -> [u32; 14] {
        let (face_down, bag) = (self.face_down_counts(), self.bag_counts());
        std::array::from_fn(|i| face_down[i] + bag[i])
    }
    fn control_of(&self, player: usize) -> Control {
        rules::Game::control_of(self, player)
    }
    fn is_to_move(&self, player: usize) -> bool {
        self.outcome().is_none() && self.to_move() == player
    }
    fn quiet_plies(&self) -> u32 {
        rules::Game::quiet_plies(self)
    }
    fn repetitions(&self) -> u32 {
        rules::Game::repetitions(self)
    }
    fn hand(&self) -> Option<Piece> {
        rules::Game::hand(self)
    }
    fn chain(&self) -> Option<Cell> {
        self.public_state().chain
    }
}

/// A player's knowledge: the pool of unseen pieces, the no-progress count and the positions
/// its history keeps (exact when it saw every ply: a bot on a server does). The wire tells a
/// chain capture only to its mover, so another player's tensor shows no chain.
impl Seen for anqi_client::Observation {
    fn variant(&self) -> &rules::Variant {
        &self.variant
    }
    fn board(&self) -> &Board {
        &self.board
    }
    fn unseen(&self) -> [u32; 14] {
        *self.history.pool()
    }
    fn control_of(&self, player: usize) -> Control {
        anqi_client::Observation::control_of(self, player)
    }
    fn is_to_move(&self, player: usize) -> bool {
        self.to_move == player
    }
    fn quiet_plies(&self) -> u32 {
        self.history.progress()
    }
    fn repetitions(&self) -> u32 {
        // The game keeps no positions without a repetition rule, and counts 0 then.
        match self.variant.draw.repetition {
            Some(_) => self.occurrences().saturating_sub(1),
            None => 0,
        }
    }
    fn hand(&self) -> Option<Piece> {
        self.hand
    }
    fn chain(&self) -> Option<Cell> {
        self.chain
    }
}

/// Adds the layout to the native module: `TENSOR_VERSION` (an int), `TENSOR_PLANES` (the
/// planes' names, a tuple) and `TENSOR_COLOUR_SWAP` (a tuple: the plane each plane becomes
/// under the colour swap).
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("TENSOR_VERSION", TENSOR_VERSION)?;
    m.add(
        "TENSOR_PLANES",
        pyo3::types::PyTuple::new(py, plane_names())?,
    )?;
    let swap: Vec<usize> = (0..PLANES).map(colour_swap).collect();
    m.add("TENSOR_COLOUR_SWAP", pyo3::types::PyTuple::new(py, swap)?)?;
    Ok(())
}

/// The `(rows, columns)` of a grid tensor (`grid=True`) of `variant`'s board, or the
/// ValueError saying that only a rectangle has one.
pub fn grid_dims(variant: &rules::Variant) -> PyResult<(usize, usize)> {
    variant.topology.rectangle_dims().ok_or_else(|| {
        pyo3::exceptions::PyValueError::new_err(format!(
            "grid=True needs a rectangular board (rows x columns); {}'s board is not one: use the cells' vector (grid=False), shape ({PLANES}, {})",
            variant.name,
            variant.topology.size()
        ))
    })
}

/// Writes `player`'s observation of `game` into `out` (`PLANES * cells` values, plane by
/// plane), every value set; `relative`: in the observer's colour roles (see the module's
/// "Relative tensors").
pub fn write_planes(game: &(impl Seen + ?Sized), player: usize, relative: bool, out: &mut [f32]) {
    out.fill(0.0);
    let mut shown = Shown::zeros(game.variant());
    update_planes(game, player, relative, Change::Any, &mut shown, out);
}

/// What a tensor buffer holds, kept beside it so that the next observation written into the
/// same buffer changes only what differs: a ply changes a cell or two and a few whole planes,
/// a few hundred bytes of the 50 planes' 6 KiB on a 4x8 board (how `VecGame` keeps its numpy
/// arrays up to date).
#[derive(Clone, Debug)]
pub struct Shown {
    /// The plane (0-15) set to 1 on each cell, [`Shown::NONE`] for none; kept in the `Shown`
    /// itself up to 128 cells (see `Board`'s squares).
    cells: smallvec::SmallVec<[u8; 128]>,
    /// The value of each whole plane (16-48; the others unused).
    fills: [f32; PLANES],
    /// The hand plane (35-48) set to 1.
    hand: Option<usize>,
    /// Whether the planes are written where the colour swap moves them (a relative tensor of
    /// an observer that moves black): every plane above is where it is written.
    swapped: bool,
    /// The cell set to 1 on plane 49.
    chain: Option<usize>,
    /// The unseen pieces of each letter (planes 19-32 before scaling).
    unseen: [u32; 14],
    /// The variant's number of each piece, as planes 19-32 divide by.
    totals: [u32; 14],
}

impl Shown {
    /// No plane set on a cell.
    const NONE: u8 = u8::MAX;

    /// What a buffer of zeros holds, for a game of `variant`.
    pub fn zeros(variant: &rules::Variant) -> Shown {
        let mut totals = [0u32; 14];
        for p in &variant.pieces {
            totals[piece_index(*p)] += 1;
        }
        Shown {
            cells: smallvec::SmallVec::from_elem(Shown::NONE, variant.topology.size()),
            fills: [0.0; PLANES],
            hand: None,
            swapped: false,
            chain: None,
            unseen: [0; 14],
            totals,
        }
    }
}

/// What changed in a game since its observation was last written into a buffer.
#[derive(Clone, Copy, Debug)]
pub enum Change {
    /// Anything (a new game): every cell and count is looked at.
    Any,
    /// One action, as `Game::play` played it: only the cells it names are looked at, and the
    /// unseen counts change only by the piece it turned up or drew.
    Ply(Action, Played),
}

/// Writes `player`'s observation of `game` into `out`, which holds what `shown` says, by
/// changing only the values that differ; `shown` then says what `out` holds. `change` says
/// what changed in the game since `shown` was last brought up to date. `relative`: in the
/// observer's colour roles (see the module's "Relative tensors").
pub fn update_planes(
    game: &(impl Seen + ?Sized),
    player: usize,
    relative: bool,
    change: Change,
    shown: &mut Shown,
    out: &mut [f32],
) {
    let board = game.board();
    let n = board.len();
    debug_assert_eq!(out.len(), PLANES * n);
    debug_assert_eq!(shown.cells.len(), n);
    let swapped = relative && observes_black(game, player);
    // Turned the other way round since the last write (in a two-player game a relative
    // tensor from the player to move turns at every ply), every piece's plane is elsewhere:
    // every cell and count is looked at again, as for a new game.
    let change = if swapped == shown.swapped {
        change
    } else {
        shown.swapped = swapped;
        Change::Any
    };
    let map = if swapped { &SWAPPED } else { &AS_IS };
    // Each inline array looked up once, not per cell.
    let (squares, cells) = (board.squares(), &mut shown.cells[..]);
    let mut show_cell = |cell: usize| show_cell(squares, map, cell, cells, out);
    // The unseen counts' planes change only with the piece a reveal turned up or a draw gave.
    let unseen_planes = match change {
        Change::Any => {
            (0..n).for_each(&mut show_cell);
            shown.unseen = game.unseen();
            0..14
        }
        Change::Ply(action, played) => {
            match action {
                Action::Reveal(cell) | Action::Put { cell, .. } => show_cell(cell),
                Action::Move { from, to } => {
                    show_cell(from);
                    show_cell(to);
                }
                Action::Bag => {}
            }
            match played.revealed.or(played.drawn) {
                Some(p) => {
                    let i = piece_index(p);
                    shown.unseen[i] -= 1;
                    i..i + 1
                }
                None => 0..0,
            }
        }
    };
    for i in unseen_planes {
        let (unseen, total) = (shown.unseen[i], shown.totals[i]);
        let value = if total > 0 {
            unseen as f32 / total as f32
        } else {
            0.0
        };
        fill_plane(out, n, shown, at(map, UNSEEN + i), value);
    }
    write_ply_planes(game, player, map, shown, out);
    let chain = game.chain();
    if chain != shown.chain {
        if let Some(cell) = shown.chain {
            plane_of(out, n, CHAIN)[cell] = 0.0;
        }
        if let Some(cell) = chain {
            plane_of(out, n, CHAIN)[cell] = 1.0;
        }
        shown.chain = chain;
    }
}

/// Where `map` writes plane `p`.
#[inline(always)]
fn at(map: &PlaneMap, p: usize) -> usize {
    usize::from(map[p])
}

/// Brings cell `cell` of `out` (a tensor of the cells of a board of `squares`, holding what
/// `shown`, a [`Shown`]'s cells, says) up to date: its plane 0-15 (written where `map` says)
/// at 1 for what the cell holds, the one it held before at 0.
#[inline(always)]
fn show_cell(squares: &[Square], map: &PlaneMap, cell: usize, shown: &mut [u8], out: &mut [f32]) {
    let n = squares.len();
    let p = match squares[cell] {
        Square::Up(piece) => map[UP + piece_index(piece)],
        Square::Hidden => FACE_DOWN as u8,
        Square::Empty => EMPTY as u8,
    };
    let was = &mut shown[cell];
    if *was != p {
        if *was != Shown::NONE {
            out[usize::from(*was) * n + cell] = 0.0;
        }
        out[usize::from(p) * n + cell] = 1.0;
        *was = p;
    }
}

/// Sets whole plane `p` of `out` (`n` cells) to `value`, unless `shown` says it holds it.
#[inline]
fn fill_plane(out: &mut [f32], n: usize, shown: &mut Shown, p: usize, value: f32) {
    // Compared as bits: the values are never NaN, and an integer compare needs no care.
    if shown.fills[p].to_bits() != value.to_bits() {
        plane_of(out, n, p).fill(value);
        shown.fills[p] = value;
    }
}

/// Brings up to date the whole planes a ply may change (16-18, 33-48), each written where `map`
/// says: who moves what, who is to move, the draw counters and the piece in hand.
fn write_ply_planes(
    game: &(impl Seen + ?Sized),
    player: usize,
    map: &PlaneMap,
    shown: &mut Shown,
    out: &mut [f32],
) {
    let n = shown.cells.len();
    let flag = |on: bool| if on { 1.0 } else { 0.0 };
    let control = game.control_of(player);
    let moves = |c: Colour| match control {
        Control::Nothing => false,
        Control::Colour(mine) => mine == c,
        Control::Both => true,
    };
    fill_plane(out, n, shown, at(map, RED), flag(moves(Colour::Red)));
    fill_plane(out, n, shown, at(map, BLACK), flag(moves(Colour::Black)));
    fill_plane(out, n, shown, TO_MOVE, flag(game.is_to_move(player)));
    let variant = game.variant();
    if let Some(limit) = variant.draw.no_progress.filter(|&l| l > 0) {
        let value = (game.quiet_plies() as f32 / limit as f32).min(1.0);
        fill_plane(out, n, shown, NO_PROGRESS, value);
    }
    // Scaled so that the value stays below 1 before the draw: `(repetition N)` draws at the
    // N-th occurrence (N - 1 before it); a cycle rule once the last plies repeat one cycle
    // `times` times and `extra` plies more, before which no position occurred `times + extra`
    // times before.
    let scale = match variant.draw.repetition {
        Some(Repetition::Occurrence(n)) => n.saturating_sub(1),
        Some(Repetition::Cycle { times, extra }) => times + extra,
        None => 0,
    };
    if scale > 0 {
        let value = (game.repetitions() as f32 / scale as f32).min(1.0);
        fill_plane(out, n, shown, REPEATED, value);
    }
    // The piece in hand: its plane at 1, the others at 0 (only the one shown can be set).
    let hand = game.hand().map(|p| at(map, HAND + piece_index(p)));
    if hand != shown.hand {
        if let Some(was) = shown.hand {
            fill_plane(out, n, shown, was, 0.0);
        }
        if let Some(now) = hand {
            fill_plane(out, n, shown, now, 1.0);
        }
        shown.hand = hand;
    }
}

/// Plane `p` of a tensor of `n` cells.
fn plane_of(out: &mut [f32], n: usize, p: usize) -> &mut [f32] {
    &mut out[p * n..(p + 1) * n]
}

/// Writes each player's return (player 1 first) into `out`: +1 for the winning side's players,
/// -1 for the others, 0 for everyone while the game goes on or when nobody won. A one-side
/// game (single-player, cooperative) has no other side: +1 when the goal was reached, else 0.
pub fn write_returns(game: &rules::Game, out: &mut [f32]) {
    let winner = game.outcome().and_then(|o| o.winner);
    for (p, r) in out.iter_mut().enumerate() {
        *r = match winner {
            None => 0.0,
            Some(w) if w == game.side_of(p + 1) => 1.0,
            Some(_) => -1.0,
        };
    }
}

/// Writes the legal-action mask of `game`'s player to move into `out` (`codec.len()` bytes, 1
/// at a legal action's id, 0 elsewhere: numpy's `bool` layout), every value set: all 0 once the
/// game is over.
pub fn write_mask(game: &rules::Game, codec: &Codec, out: &mut [u8]) {
    out.fill(0);
    if game.outcome().is_some() {
        return;
    }
    game.for_each_legal(|a, _| {
        let id = codec.encode(a).expect("every legal action has an id");
        out[id as usize] = 1;
    });
}
