//! Endgame tables: every position with all pieces face-up and at most K pieces on the board,
//! won, drawn or lost for the side to move, and in how many plies (`anqi tables`;
//! `protocol/SOLVING.md`, "Endgame tables").
//!
//! # What a value means
//! A position's value is what perfect play gets from it under the capture and stalemate
//! rules alone: **won in `d` plies** (`d` odd: the side to move makes the last capture, or
//! leaves the other side with no move), **lost in `d` plies** (`d` even; 0 when the side to
//! move has no move now), or **drawn**: neither side can force the end, so play goes on until
//! a draw rule ends it. The winner takes the shortest way, the loser the longest. The draw
//! rules (no-progress, repetition) are left out, as in every endgame table: along the winner's
//! way every ply brings the end one ply nearer, so no position comes round again, and the win
//! holds under a no-progress rule whenever `d` is at most the quiet plies left. That is the
//! test [`Tables::adjudication`] makes before it ends a game.
//!
//! # The parts
//! - `material`: how many of each piece stand on the board.
//! - `symmetry`: the board's turns and mirrors, and the domain a position is turned into.
//! - `layout`: where each position of a material is in its table.
//! - `build`: the retrograde analysis of a material and its colour swap.
//! - `file`: the tables file, its header checked when opened (what is wrong with one:
//!   [`FileError`]), and each material's values checked when read (the file is untrusted
//!   input).
//! - `error`: what else can go wrong: a variant tables cannot hold, a material's name that
//!   does not read, and a probe the tables cannot answer ([`TablesError`]).
//! - `read`: one material's stored bytes streamed through their SHA-256 and the inflater.
//! - `probe`: tables to probe, read a material at a time; a material that fails its checks
//!   is left out, and said once ([`TablesError`]); one that cannot be read is tried again.
//!   Tables opened by the variant their file names ([`OpenError`]).
//!
//! Every table holds positions with **red** to move: a position with black to move is looked
//! up as the same position with the colours exchanged. With the board's symmetries, a table
//! holds one position of each class: a quarter of them on a 4x8 board.

mod build;
mod error;
pub mod file;
mod layout;
mod material;
mod probe;
mod read;
mod symmetry;

pub use build::{build_all, build_pair};
pub use error::{clip, MaterialFault, MaterialNameError, RulesError, TablesError};
pub use file::{EntryFault, FileError};
pub use layout::{Layout, MAX_PIECES};
pub use material::Material;
pub use probe::{OpenError, Tables};
pub use symmetry::{board_maps, Symmetries};

use crate::rules::{Objective, Start, Variant};
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// A table entry: not a position (two pieces on one cell).
pub const NONE: u16 = 0;
/// A table entry: drawn.
pub const DRAW: u16 = 1;

/// The entry of a position decided in `plies` plies.
pub fn code(plies: u16) -> u16 {
    2 + plies
}

/// A position's value for the side to move, as the tables give it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Won in `plies` (odd).
    Win {
        plies: u32,
    },
    /// Lost in `plies` (even).
    Loss {
        plies: u32,
    },
    Draw,
}

impl Verdict {
    /// The verdict of a table entry (`None` for [`NONE`]).
    pub fn of_code(code: u16) -> Option<Verdict> {
        match code {
            NONE => None,
            DRAW => Some(Verdict::Draw),
            c => {
                let plies = u32::from(c - 2);
                Some(if plies % 2 == 1 {
                    Verdict::Win { plies }
                } else {
                    Verdict::Loss { plies }
                })
            }
        }
    }

    /// The verdict for the other side.
    pub fn flipped(self) -> Verdict {
        match self {
            Verdict::Win { plies } => Verdict::Loss { plies },
            Verdict::Loss { plies } => Verdict::Win { plies },
            Verdict::Draw => Verdict::Draw,
        }
    }

    /// The verdict of a move's mover, from the verdict of the position it leads to (for the
    /// side to move there): the other side's, one ply further.
    pub fn before(self) -> Verdict {
        match self.flipped() {
            Verdict::Win { plies } => Verdict::Win { plies: plies + 1 },
            Verdict::Loss { plies } => Verdict::Loss { plies: plies + 1 },
            Verdict::Draw => Verdict::Draw,
        }
    }

    /// As a record and a reader put it: `win in 7`, `loss in 4`, `draw`.
    pub fn text(self) -> String {
        match self {
            Verdict::Win { plies } => format!("win in {plies}"),
            Verdict::Loss { plies } => format!("loss in {plies}"),
            Verdict::Draw => "draw".to_string(),
        }
    }

    /// How good it is for the side to move, to choose among moves (higher is better): a win
    /// sooner, a loss later.
    pub fn rank(self) -> i64 {
        match self {
            Verdict::Win { plies } => 1_000_000 - i64::from(plies),
            Verdict::Draw => 0,
            Verdict::Loss { plies } => -1_000_000 + i64::from(plies),
        }
    }
}

/// One material's table: a value per index of its layout.
#[derive(Clone, Debug)]
pub struct Table {
    layout: Layout,
    values: Vec<u16>,
}

/// What a table holds, counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TableStats {
    /// Positions stored (one of each symmetry class).
    pub positions: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// The most plies of a decided position.
    pub longest: u32,
}

impl Table {
    pub fn new(layout: Layout, values: Vec<u16>) -> Table {
        Table { layout, values }
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    pub fn values(&self) -> &[u16] {
        &self.values
    }

    /// The entry of the position of `pieces` (`(piece index, cell)`, red to move).
    pub fn value(&self, pieces: &[(u8, u8)], symmetries: &Symmetries) -> u16 {
        self.values[self.layout.encode(pieces, symmetries) as usize]
    }

    pub fn stats(&self) -> TableStats {
        stats_of(&self.values)
    }
}

/// What a table's values hold, counted.
pub fn stats_of(values: &[u16]) -> TableStats {
    let mut s = TableStats::default();
    for &v in values {
        match Verdict::of_code(v) {
            None => {}
            Some(Verdict::Draw) => s.draws += 1,
            Some(Verdict::Win { plies }) => {
                s.wins += 1;
                s.longest = s.longest.max(plies);
            }
            Some(Verdict::Loss { plies }) => {
                s.losses += 1;
                s.longest = s.longest.max(plies);
            }
        }
    }
    s.positions = s.wins + s.draws + s.losses;
    s
}

/// What building and probing the tables of a variant need of it.
#[derive(Clone, Debug)]
pub struct TableRules {
    pub variant: Arc<Variant>,
    pub symmetries: Symmetries,
    /// For each cell, the cells a step reaches it from.
    reverse: Vec<Vec<u8>>,
    /// The most of each piece a material may have: the variant's count of that kind in either
    /// colour (so that a material's swap has a table too).
    limits: [u8; 14],
}

impl TableRules {
    /// The rules of `variant`'s tables.
    ///
    /// # Errors
    /// A variant the tables cannot hold ([`RulesError`]): not two sides taking turns by
    /// colour, not won by capturing, with a bag or chain captures, or a board of more than 128
    /// cells.
    pub fn new(variant: Arc<Variant>) -> Result<TableRules, RulesError> {
        let v = &variant;
        let name = || v.name.clone();
        if v.sides.len() != 2 || v.objective != Objective::Capture {
            return Err(RulesError::NotTwoSidesCapturing { variant: name() });
        }
        if v.start == Start::Bag {
            return Err(RulesError::Bag { variant: name() });
        }
        if v.chain_capture {
            return Err(RulesError::ChainCaptures { variant: name() });
        }
        if v.topology.size() > 128 {
            return Err(RulesError::TooManyCells { variant: name() });
        }
        let order = &v.order;
        let alternates = (0..order.len())
            .all(|i| v.side_of(order[i]) != v.side_of(order[(i + 1) % order.len()]));
        if !alternates {
            return Err(RulesError::NotTakingTurns { variant: name() });
        }
        let mut reverse = vec![Vec::new(); v.topology.size()];
        for &(a, b) in v.topology.moves() {
            reverse[b].push(a as u8);
        }
        let mut limits = [0u8; 14];
        for k in 0..7 {
            let red = v.pieces.iter().filter(|p| p.index() == k).count();
            let black = v.pieces.iter().filter(|p| p.index() == k + 7).count();
            limits[k] = red.max(black) as u8;
            limits[k + 7] = limits[k];
        }
        let symmetries = Symmetries::of(&v.topology);
        Ok(TableRules {
            variant,
            symmetries,
            reverse,
            limits,
        })
    }

    /// Every material of at most `k` pieces: by pieces, then name.
    pub fn materials(&self, k: usize) -> Vec<Material> {
        Material::all_up_to(self.limits, k)
    }

    /// Whether `m` is a material of the variant's tables: a piece of each colour, and no more
    /// of a piece than the variant has of it in either colour.
    pub fn holds(&self, m: Material) -> bool {
        m.of_colour(crate::rules::Colour::Red) > 0
            && m.of_colour(crate::rules::Colour::Black) > 0
            && m.counts().iter().zip(&self.limits).all(|(n, max)| n <= max)
    }

    /// The layout of a material's table (`None` when it is too large to index).
    pub fn layout(&self, m: Material) -> Option<Layout> {
        Layout::new(m, self.variant.topology.size(), &self.symmetries)
    }

    /// A digest of everything a table's values depend on: the cells, steps and cannon lines,
    /// and which square each piece may step onto or jump from. Two variants with the same
    /// digest share tables.
    pub fn digest(&self) -> String {
        let v = &self.variant;
        let topo = &v.topology;
        let mut text = format!("cells {}\nsteps", topo.size());
        for &(a, b) in topo.moves() {
            text.push_str(&format!(" {a}-{b}"));
        }
        text.push_str("\nlines");
        for c in 0..topo.size() {
            for ray in topo.rays(c) {
                text.push_str(&format!(" {ray:?}"));
            }
        }
        text.push_str("\ncaptures");
        for mover in 2u8..16 {
            let steps = v.capture.steps_of_code(mover);
            let onto: String = (0..16).map(|t| if steps[t] { '1' } else { '0' }).collect();
            let jumps = u8::from(v.capture.jumps_code(mover));
            text.push_str(&format!(" {mover}:{onto}:{jumps}"));
        }
        crate::hex::hex(&Sha256::digest(text.as_bytes()))
    }
}

#[cfg(test)]
mod tests;
