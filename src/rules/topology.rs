//! Board topology: the cells, the directed single-step `moves`, and the straight lines (rays)
//! along which a cannon jumps.
//!
//! The protocol sends a topology as `(size N)`, `(moves (POS_I POS_F)...)` and the compact
//! `(jumps (ORI TG_I TG_F)...)`. A jump clause names one ray from `ORI`: every cell of that
//! straight line from `TG_I` to `TG_F` is a possible target, and the cells of a ray form an
//! arithmetic progression of cell numbers `ORI, ORI+d, ORI+2d, ...` whose consecutive pairs are
//! moves (on a rectangle, `d` is `±1` or `±C`). As in the paper, each clause is written with
//! `TG_I < TG_F`: the ray from cell 3 leftwards on 2x4 (targets 1 and 0) is `(3 0 1)`.
//!
//! A ray is stored from its origin outwards, starting with the adjacent cell (a possible screen,
//! never a target) so that the cannon's "exactly one piece in between" rule can be checked by
//! walking it.

use std::fmt;

/// A cell number, 0-based, as on the wire.
pub type Cell = usize;

/// Cells, moves and jump rays of one board. Shared (behind an `Arc`) by every game of a variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Topology {
    size: usize,
    /// Rectangle dimensions (lines, columns) when the board is one; used for display only.
    rectangle: Option<(usize, usize)>,
    /// Directed single steps, in the order they are sent on the wire.
    moves: Vec<(Cell, Cell)>,
    /// `neighbours[c]`: the cells one step from `c`, derived from `moves`.
    neighbours: Vec<Vec<Cell>>,
    /// `rays[c]`: the straight lines leaving `c`, each from the adjacent cell outwards, each at
    /// least two cells long (a shorter one holds no jump target).
    rays: Vec<Vec<Vec<Cell>>>,
}

/// What is wrong with a topology.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TopologyError(pub String);

fn err<T>(msg: impl Into<String>) -> Result<T, TopologyError> {
    Err(TopologyError(msg.into()))
}

impl Topology {
    /// The rectangle of `lines` x `columns` cells numbered row by row (`cell = row * C + col`),
    /// with orthogonal moves and the four orthogonal rays of every cell.
    ///
    /// # Errors
    /// When either dimension is below 1 or the board has fewer than 2 cells.
    pub fn rectangle(lines: usize, columns: usize) -> Result<Topology, TopologyError> {
        if lines == 0 || columns == 0 || lines * columns < 2 {
            return err(format!(
                "a rectangle needs at least 2 cells, got {lines}x{columns}"
            ));
        }
        if lines * columns > u16::MAX as usize {
            return err(format!("{lines}x{columns} has too many cells"));
        }
        let at = |r: usize, c: usize| r * columns + c;
        let mut moves = Vec::new();
        let mut rays = vec![Vec::new(); lines * columns];
        for r in 0..lines {
            for c in 0..columns {
                let from = at(r, c);
                // Directions as (dr, dc): up, left, right, down.
                for (dr, dc) in [(-1i64, 0i64), (0, -1), (0, 1), (1, 0)] {
                    let mut ray = Vec::new();
                    let (mut rr, mut cc) = (r as i64 + dr, c as i64 + dc);
                    while rr >= 0 && cc >= 0 && rr < lines as i64 && cc < columns as i64 {
                        ray.push(at(rr as usize, cc as usize));
                        rr += dr;
                        cc += dc;
                    }
                    if let Some(&first) = ray.first() {
                        moves.push((from, first));
                    }
                    if ray.len() >= 2 {
                        rays[from].push(ray);
                    }
                }
            }
        }
        moves.sort_unstable();
        let mut t = Topology::from_parts(lines * columns, moves, rays)?;
        t.rectangle = Some((lines, columns));
        Ok(t)
    }

    /// A topology from explicit parts. Every ray must start at a cell adjacent to its origin and
    /// follow moves from cell to cell.
    ///
    /// # Errors
    /// Names the first cell out of range, self-move, duplicate move, or broken ray.
    pub fn from_parts(
        size: usize,
        moves: Vec<(Cell, Cell)>,
        rays: Vec<Vec<Vec<Cell>>>,
    ) -> Result<Topology, TopologyError> {
        if size == 0 {
            return err("a board needs at least one cell");
        }
        let mut neighbours = vec![Vec::new(); size];
        for &(a, b) in &moves {
            if a >= size || b >= size {
                return err(format!("move ({a} {b}) names a cell outside 0..{size}"));
            }
            if a == b {
                return err(format!("move ({a} {b}) goes nowhere"));
            }
            if neighbours[a].contains(&b) {
                return err(format!("move ({a} {b}) is listed twice"));
            }
            neighbours[a].push(b);
        }
        if rays.len() != size {
            return err(format!(
                "rays are given for {} cells, not {size}",
                rays.len()
            ));
        }
        for (origin, list) in rays.iter().enumerate() {
            for ray in list {
                let mut prev = origin;
                for &cell in ray {
                    if cell >= size {
                        return err(format!(
                            "a ray from {origin} names cell {cell}, outside 0..{size}"
                        ));
                    }
                    if !neighbours[prev].contains(&cell) {
                        return err(format!(
                            "a ray from {origin} steps from {prev} to {cell}, which is not a move"
                        ));
                    }
                    prev = cell;
                }
                if ray.len() < 2 {
                    return err(format!("a ray from {origin} has no cell at distance 2"));
                }
            }
        }
        Ok(Topology {
            size,
            rectangle: None,
            moves,
            neighbours,
            rays,
        })
    }

    /// Rebuilds a topology from the protocol's `size`, `moves` and compact `jumps` clauses (what
    /// a client receives in the setup message).
    ///
    /// # Errors
    /// When a jump clause does not describe an arithmetic progression of cells joined by moves
    /// whose first target is at distance 2.
    pub fn from_wire(
        size: usize,
        moves: Vec<(Cell, Cell)>,
        jumps: &[(Cell, Cell, Cell)],
    ) -> Result<Topology, TopologyError> {
        let probe = Topology::from_parts(size, moves.clone(), vec![Vec::new(); size])?;
        let mut rays = vec![Vec::new(); size];
        for &(origin, a, b) in jumps {
            if origin >= size || a >= size || b >= size {
                return err(format!(
                    "jump ({origin} {a} {b}) names a cell outside 0..{size}"
                ));
            }
            let ray = probe.decode_ray(origin, a, b).ok_or_else(|| {
                TopologyError(format!(
                    "jump ({origin} {a} {b}) is not a straight line of moves from {origin} whose first target is at distance 2"
                ))
            })?;
            rays[origin].push(ray);
        }
        Topology::from_parts(size, moves, rays)
    }

    /// Finds the ray from `origin` whose targets (distance >= 2) are exactly the cells from `a`
    /// to `b` (in either order) along an arithmetic progression of moves.
    fn decode_ray(&self, origin: Cell, a: Cell, b: Cell) -> Option<Vec<Cell>> {
        for &first in &self.neighbours[origin] {
            let step = first as i64 - origin as i64;
            let mut ray = vec![first];
            let mut prev = first;
            loop {
                let next = prev as i64 + step;
                if next < 0
                    || next as usize >= self.size
                    || !self.neighbours[prev].contains(&(next as usize))
                {
                    break;
                }
                let next = next as usize;
                ray.push(next);
                prev = next;
                let (near, far) = (ray[1], next);
                if (near == a && far == b) || (near == b && far == a) {
                    return Some(ray);
                }
            }
        }
        None
    }

    /// Number of cells.
    pub fn size(&self) -> usize {
        self.size
    }

    /// `(lines, columns)` when the board is a rectangle.
    pub fn rectangle_dims(&self) -> Option<(usize, usize)> {
        self.rectangle
    }

    /// The directed moves, in wire order.
    pub fn moves(&self) -> &[(Cell, Cell)] {
        &self.moves
    }

    /// Cells one step from `cell`.
    pub fn neighbours(&self, cell: Cell) -> &[Cell] {
        &self.neighbours[cell]
    }

    /// Rays leaving `cell`, each from the adjacent cell outwards.
    pub fn rays(&self, cell: Cell) -> &[Vec<Cell>] {
        &self.rays[cell]
    }

    /// Whether `b` is one step from `a`.
    pub fn is_move(&self, a: Cell, b: Cell) -> bool {
        self.neighbours[a].contains(&b)
    }

    /// The ray from `origin` that passes through `target` at distance >= 2, if any.
    pub fn ray_through(&self, origin: Cell, target: Cell) -> Option<&[Cell]> {
        self.rays[origin]
            .iter()
            .find(|ray| ray[1..].contains(&target))
            .map(|r| r.as_slice())
    }

    /// The compact `(ORI TG_I TG_F)` jump clauses, `TG_I < TG_F`, ordered by origin then `TG_I`.
    pub fn wire_jumps(&self) -> Vec<(Cell, Cell, Cell)> {
        let mut out = Vec::new();
        for (origin, list) in self.rays.iter().enumerate() {
            let mut here: Vec<_> = list
                .iter()
                .map(|ray| {
                    let (near, far) = (ray[1], ray[ray.len() - 1]);
                    (origin, near.min(far), near.max(far))
                })
                .collect();
            here.sort_unstable();
            out.extend(here);
        }
        out
    }

    /// Number of jump targets: the sum over rays of the cells at distance >= 2.
    pub fn jump_target_count(&self) -> usize {
        self.rays.iter().flatten().map(|r| r.len() - 1).sum()
    }
}

impl fmt::Display for Topology {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.rectangle {
            Some((l, c)) => write!(f, "{l}x{c} rectangle"),
            None => write!(f, "{} cells", self.size),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// Table IV of the paper, 2x4: the moves and jumps it prints.
    const TABLE_IV_MOVES: &[(usize, usize)] = &[
        (0, 1),
        (0, 4),
        (1, 0),
        (1, 2),
        (1, 5),
        (2, 1),
        (2, 3),
        (2, 6),
        (3, 2),
        (3, 7),
        (4, 0),
        (4, 5),
        (5, 4),
        (5, 6),
        (5, 1),
        (6, 5),
        (6, 2),
        (6, 7),
        (7, 6),
        (7, 3),
    ];
    const TABLE_IV_JUMPS: &[(usize, usize, usize)] = &[
        (0, 2, 3),
        (1, 3, 3),
        (2, 0, 0),
        (3, 0, 1),
        (4, 6, 7),
        (5, 7, 7),
        (6, 4, 4),
        (7, 4, 5),
    ];

    #[test]
    fn two_by_four_matches_table_iv_as_sets() {
        let t = Topology::rectangle(2, 4).unwrap();
        let ours: BTreeSet<_> = t.moves().iter().copied().collect();
        let paper: BTreeSet<_> = TABLE_IV_MOVES.iter().copied().collect();
        assert_eq!(ours, paper);
        assert_eq!(t.moves().len(), 20);
        let ours: BTreeSet<_> = t.wire_jumps().into_iter().collect();
        let paper: BTreeSet<_> = TABLE_IV_JUMPS.iter().copied().collect();
        assert_eq!(ours, paper);
        assert_eq!(t.jump_target_count(), 12);
    }

    #[test]
    fn rectangle_counts_follow_the_papers_formulas() {
        for (l, c) in [(2, 4), (4, 8), (8, 16), (3, 3), (2, 2), (5, 7)] {
            let t = Topology::rectangle(l, c).unwrap();
            assert_eq!(t.moves().len(), 4 * l * c - 2 * l - 2 * c, "{l}x{c} moves");
            assert_eq!(
                t.jump_target_count(),
                l * (c - 2) * (c - 1) + c * (l - 2) * (l - 1),
                "{l}x{c} jumps"
            );
        }
        let t = Topology::rectangle(4, 8).unwrap();
        assert_eq!((t.moves().len(), t.jump_target_count()), (104, 216));
        let t = Topology::rectangle(8, 16).unwrap();
        assert_eq!((t.moves().len(), t.jump_target_count()), (464, 2352));
    }

    #[test]
    fn wire_form_decodes_to_the_same_topology() {
        for (l, c) in [(2, 4), (4, 8), (8, 16), (3, 5)] {
            let t = Topology::rectangle(l, c).unwrap();
            let back = Topology::from_wire(t.size(), t.moves().to_vec(), &t.wire_jumps()).unwrap();
            assert_eq!(back.wire_jumps(), t.wire_jumps());
            for cell in 0..t.size() {
                let mut a: Vec<_> = t.rays(cell).to_vec();
                let mut b: Vec<_> = back.rays(cell).to_vec();
                a.sort();
                b.sort();
                assert_eq!(a, b, "{l}x{c} rays of {cell}");
            }
        }
    }

    #[test]
    fn vertical_rays_on_4x8_step_by_a_row() {
        let t = Topology::rectangle(4, 8).unwrap();
        assert!(t.wire_jumps().contains(&(0, 16, 24)));
        assert!(t.wire_jumps().contains(&(0, 2, 7)));
        assert!(t.wire_jumps().contains(&(31, 24, 29)));
        assert_eq!(t.ray_through(0, 24), Some(&[8, 16, 24][..]));
        assert_eq!(
            t.ray_through(0, 8),
            None,
            "distance 1 is never a jump target"
        );
    }

    #[test]
    fn bad_wire_jumps_are_named() {
        let t = Topology::rectangle(4, 8).unwrap();
        let e = Topology::from_wire(32, t.moves().to_vec(), &[(7, 8, 9)]).unwrap_err();
        assert!(e.0.contains("(7 8 9)"), "{e}");
        let e = Topology::from_parts(4, vec![(0, 9)], vec![Vec::new(); 4]).unwrap_err();
        assert!(e.0.contains("outside"), "{e}");
    }
}
