//! Board topology: the cells, the directed single-step `moves`, and the straight lines (rays)
//! along which a cannon jumps.
//!
//! The protocol sends a topology as `(size N)`, `(moves (POS_I POS_F)...)` and the compact
//! `(jumps (ORI TG_I TG_F)...)`. A jump clause names one ray from `ORI`: every cell of that
//! straight line from `TG_I` to `TG_F` is a possible target. As in the paper, each clause is
//! written with `TG_I < TG_F`: the ray from cell 3 leftwards on 2x4 (targets 1 and 0) is
//! `(3 0 1)`.
//!
//! Decoding rule (any board shape): a ray is the unique shortest path of moves from `ORI` to the
//! farther of `TG_I` and `TG_F`; its targets are its cells from distance 2 on, the nearer of the
//! two being at distance 2. Every topology anqi accepts has rays that satisfy this, so a client
//! can rebuild the rays from the wire with a breadth-first search. (On a rectangle numbered row
//! by row, the ray is simply `ORI, ORI+d, ORI+2d, ...` with `d` = ±1 or ±C.)
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
    /// Rectangle dimensions (lines, columns) when the board is one.
    rectangle: Option<(usize, usize)>,
    /// Display position (row, column) of each cell, when the board was drawn as a grid.
    coords: Option<Vec<(usize, usize)>>,
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
        let row = "X".repeat(columns);
        let rows: Vec<&str> = std::iter::repeat_n(row.as_str(), lines).collect();
        let mut t = Topology::shape(&rows)?;
        t.rectangle = Some((lines, columns));
        Ok(t)
    }

    /// A board drawn as rows of a grid: `X` (or any letter) is a cell, `.` or a space is a hole.
    /// Cells are numbered row by row, left to right; moves are the orthogonal steps between
    /// cells; rays run along rows and columns and stop at a hole or the edge.
    ///
    /// # Errors
    /// When the drawing has fewer than 2 cells or too many.
    pub fn shape(rows: &[&str]) -> Result<Topology, TopologyError> {
        let grid: Vec<Vec<bool>> = rows
            .iter()
            .map(|r| r.chars().map(|c| c != '.' && c != ' ').collect())
            .collect();
        let width = grid.iter().map(Vec::len).max().unwrap_or(0);
        let at_grid = |r: i64, c: i64| -> bool {
            r >= 0
                && c >= 0
                && (r as usize) < grid.len()
                && (c as usize) < grid[r as usize].len()
                && grid[r as usize][c as usize]
        };
        let mut number = vec![vec![usize::MAX; width]; grid.len()];
        let mut coords = Vec::new();
        for (r, row) in grid.iter().enumerate() {
            for (c, &cell) in row.iter().enumerate() {
                if cell {
                    number[r][c] = coords.len();
                    coords.push((r, c));
                }
            }
        }
        if coords.len() < 2 {
            return err(format!(
                "a board needs at least 2 cells, the drawing has {}",
                coords.len()
            ));
        }
        if coords.len() > u16::MAX as usize {
            return err(format!("{} cells are too many", coords.len()));
        }
        let mut moves = Vec::new();
        let mut rays = vec![Vec::new(); coords.len()];
        for (from, &(r, c)) in coords.iter().enumerate() {
            // Directions as (dr, dc): up, left, right, down.
            for (dr, dc) in [(-1i64, 0i64), (0, -1), (0, 1), (1, 0)] {
                let mut ray = Vec::new();
                let (mut rr, mut cc) = (r as i64 + dr, c as i64 + dc);
                while at_grid(rr, cc) {
                    ray.push(number[rr as usize][cc as usize]);
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
        moves.sort_unstable();
        let mut t = Topology::from_parts(coords.len(), moves, rays)?;
        t.coords = Some(coords);
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
                return err(format!(
                    "move ({a} {b}) names a cell outside 0..={}",
                    size - 1
                ));
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
                            "a ray from {origin} names cell {cell}, outside 0..={}",
                            size - 1
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
        let t = Topology {
            size,
            rectangle: None,
            coords: None,
            moves,
            neighbours,
            rays,
        };
        for (origin, list) in t.rays.iter().enumerate() {
            for ray in list {
                let far = ray[ray.len() - 1];
                if t.unique_shortest_path(origin, far).as_deref() != Some(ray.as_slice()) {
                    return err(format!(
                        "the ray {origin} -> {} is not the only shortest path of moves from {origin} to {far}, so clients could not decode it from the wire",
                        ray.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" ")
                    ));
                }
            }
        }
        Ok(t)
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
                    "jump ({origin} {a} {b}) names a cell outside 0..={}",
                    size - 1
                ));
            }
            let ray = probe.decode_ray(origin, a, b).ok_or_else(|| {
                TopologyError(format!(
                    "jump ({origin} {a} {b}) is not the unique shortest path of moves from {origin}, with its first target at distance 2"
                ))
            })?;
            rays[origin].push(ray);
        }
        Topology::from_parts(size, moves, rays)
    }

    /// Finds the ray from `origin` whose targets (distance >= 2) run from `a` to `b` (in either
    /// order): the unique shortest path to the farther one, with the nearer at distance 2.
    fn decode_ray(&self, origin: Cell, a: Cell, b: Cell) -> Option<Vec<Cell>> {
        let pa = self.unique_shortest_path(origin, a)?;
        let pb = self.unique_shortest_path(origin, b)?;
        let ray = if pa.len() >= pb.len() { pa } else { pb };
        let near = if ray.last() == Some(&a) { b } else { a };
        (ray.len() >= 2 && ray[1] == near).then_some(ray)
    }

    /// The cells of the only shortest path of moves from `from` to `to` (without `from`), or
    /// `None` when there is no path or more than one.
    fn unique_shortest_path(&self, from: Cell, to: Cell) -> Option<Vec<Cell>> {
        // Breadth-first search counting shortest paths (capped at 2) and keeping one parent.
        let mut dist = vec![usize::MAX; self.size];
        let mut paths = vec![0u8; self.size];
        let mut parent = vec![usize::MAX; self.size];
        let mut queue = std::collections::VecDeque::from([from]);
        dist[from] = 0;
        paths[from] = 1;
        while let Some(c) = queue.pop_front() {
            if c == to {
                break;
            }
            for &n in &self.neighbours[c] {
                if dist[n] == usize::MAX {
                    dist[n] = dist[c] + 1;
                    paths[n] = paths[c];
                    parent[n] = c;
                    queue.push_back(n);
                } else if dist[n] == dist[c] + 1 {
                    paths[n] = (paths[n] + paths[c]).min(2);
                }
            }
        }
        if from == to || paths[to] != 1 {
            return None;
        }
        let mut path = vec![to];
        let mut c = to;
        while parent[c] != from {
            c = parent[c];
            path.push(c);
        }
        path.reverse();
        Some(path)
    }

    /// Number of cells.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Gives every cell a display position (row, column).
    ///
    /// # Errors
    /// When there is not exactly one position per cell, or two cells share one.
    pub fn with_coords(mut self, coords: Vec<(usize, usize)>) -> Result<Topology, TopologyError> {
        if coords.len() != self.size {
            return err(format!(
                "{} coordinates for {} cells",
                coords.len(),
                self.size
            ));
        }
        let mut seen = std::collections::HashSet::new();
        if let Some(dup) = coords.iter().find(|c| !seen.insert(**c)) {
            return err(format!("two cells share the position {dup:?}"));
        }
        self.coords = Some(coords);
        Ok(self)
    }

    /// Display position (row, column) of every cell, when the board was drawn as a grid.
    pub fn coords(&self) -> Option<&[(usize, usize)]> {
        self.coords.as_deref()
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
            None if self.coords.is_some() => write!(f, "{}-cell drawn board", self.size),
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
    fn a_cross_shaped_board_round_trips_through_the_wire() {
        let cross = ["..XX..", "..XX..", "XXXXXX", "XXXXXX", "..XX..", "..XX.."];
        let t = Topology::shape(&cross).unwrap();
        assert_eq!(t.size(), 20);
        // Cell 0 is row 0 column 2; straight down its column: 2 (row 1), 6 (row 2), 12, 16, 18.
        assert_eq!(t.coords().unwrap()[0], (0, 2));
        assert!(t.rays(0).iter().any(|r| r == &vec![2, 6, 12, 16, 18]));
        // Row 2 runs 4..=9 with no hole.
        assert!(t.rays(4).iter().any(|r| r == &vec![5, 6, 7, 8, 9]));
        let back = Topology::from_wire(t.size(), t.moves().to_vec(), &t.wire_jumps()).unwrap();
        for cell in 0..t.size() {
            let (mut a, mut b) = (t.rays(cell).to_vec(), back.rays(cell).to_vec());
            a.sort();
            b.sort();
            assert_eq!(a, b, "rays of {cell}");
        }
    }

    #[test]
    fn holes_break_lines() {
        let t = Topology::shape(&["XXX.XX"]).unwrap();
        assert_eq!(t.size(), 5);
        assert_eq!(t.rays(0), &[vec![1, 2]]);
        assert!(t.rays(3).is_empty(), "cells 3 and 4 form a line of two");
        assert!(!t.is_move(2, 3));
    }

    #[test]
    fn rays_that_clients_could_not_decode_are_refused() {
        // A 2x2 ring: 0-1, 1-3, 3-2, 2-0. From 0 to 3 there are two shortest paths.
        let moves = vec![
            (0, 1),
            (1, 0),
            (1, 3),
            (3, 1),
            (3, 2),
            (2, 3),
            (2, 0),
            (0, 2),
        ];
        let mut rays = vec![Vec::new(); 4];
        rays[0].push(vec![1, 3]);
        let e = Topology::from_parts(4, moves, rays).unwrap_err();
        assert!(e.0.contains("not the only shortest path"), "{e}");
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
