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

use super::cell_set::{Cell, Representation, MASK_CELLS};
use std::fmt;

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
    /// `neighbours` and `rays` again, flattened into a few arrays of `u16` cell numbers, for
    /// the move generator (the nested lists cost a pointer chase per cell and per ray, which
    /// dominated random playouts). Derived from the two fields above, never changed apart.
    flat: Flat,
}

/// The flattened neighbour and ray lists (see [`Topology::step_cells`] and
/// [`Topology::ray_cells`]).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Flat {
    /// Cell `c`'s neighbours are `nb[nb_at[c]..nb_at[c + 1]]`.
    nb_at: Vec<u32>,
    nb: Vec<u16>,
    /// Cell `c`'s rays are the ray numbers `ray_at[c]..ray_at[c + 1]`; ray `r` is
    /// `cells[ray_bound[r]..ray_bound[r + 1]]`.
    ray_at: Vec<u32>,
    ray_bound: Vec<u32>,
    cells: Vec<u16>,
    /// Ray `r` as a set of cells, on a board of at most [`MASK_CELLS`] cells (empty on larger
    /// boards): finds a cannon's screen and target with a few word operations.
    lines: Vec<Line>,
    /// Cell `c`'s neighbours as `step_rows[c]`, padded with `c` itself, on a board of at most
    /// [`MASK_CELLS`] cells where no cell has more than four (empty otherwise): a piece's
    /// steps are then counted with four lookups and no loop (a piece never steps onto its
    /// own cell, so the padding counts nothing). Rows past the last cell fill the table to
    /// [`MASK_CELLS`] rows, so a cell number masked to its bits needs no bounds check.
    step_rows: Vec<[u8; 4]>,
    /// Whether the board has at most [`MASK_CELLS`] cells, none of them with more than
    /// [`MAX_MOVES_PER_CELL`] neighbours and rays together: then a piece's moves fit half
    /// of the move generator's byte per cell, and eight cells' sum a byte with its top bit
    /// clear (see `Board::count_pieces`).
    small_counts: bool,
}

/// The most moves (steps and jumps) a cell may give for [`Topology::small_counts`]: what
/// half a byte holds.
pub(crate) const MAX_MOVES_PER_CELL: usize = 15;

/// One ray as a set of cells (see [`Topology::lines`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Line {
    /// The ray's cells: bit `c` for cell `c`.
    pub cells: u128,
    /// How the cell numbers run from the origin outwards.
    pub order: LineOrder,
    /// The ray's number, for [`Topology::line_cells`].
    pub ray: u32,
}

/// How the cell numbers of a ray run from its origin outwards. On a rising ray the first cell
/// of the ray in a set is the set's lowest, on a falling one its highest; every straight line
/// of a grid numbered row by row is one or the other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LineOrder {
    Rising,
    Falling,
    /// Neither (possible on an explicit board): the ray is walked cell by cell.
    Mixed,
}

// Every cell number fits the flattened tables' `u16`.
const _: () = assert!(MAX_CELLS <= u16::MAX as usize);

impl Flat {
    fn new(neighbours: &[Vec<Cell>], rays: &[Vec<Vec<Cell>>]) -> Flat {
        let mut flat = Flat {
            nb_at: vec![0],
            nb: Vec::new(),
            ray_at: vec![0],
            ray_bound: vec![0],
            cells: Vec::new(),
            lines: Vec::new(),
            step_rows: Vec::new(),
            small_counts: neighbours.len() <= MASK_CELLS
                && neighbours
                    .iter()
                    .zip(rays)
                    .all(|(n, r)| n.len() + r.len() <= MAX_MOVES_PER_CELL),
        };
        if neighbours.len() <= MASK_CELLS && neighbours.iter().all(|list| list.len() <= 4) {
            flat.step_rows = neighbours
                .iter()
                .enumerate()
                .map(|(cell, list)| {
                    let mut row = [cell as u8; 4];
                    for (slot, &c) in row.iter_mut().zip(list) {
                        *slot = c as u8;
                    }
                    row
                })
                .collect();
            flat.step_rows.resize(MASK_CELLS, [0; 4]);
        }
        let masked = neighbours.len() <= MASK_CELLS;
        for list in neighbours {
            flat.nb.extend(list.iter().map(|&c| c as u16));
            flat.nb_at.push(flat.nb.len() as u32);
        }
        for list in rays {
            for ray in list {
                if masked {
                    let order = if ray.windows(2).all(|w| w[0] < w[1]) {
                        LineOrder::Rising
                    } else if ray.windows(2).all(|w| w[0] > w[1]) {
                        LineOrder::Falling
                    } else {
                        LineOrder::Mixed
                    };
                    flat.lines.push(Line {
                        cells: ray.iter().fold(0, |set, &c| set | 1 << c),
                        order,
                        ray: flat.ray_bound.len() as u32 - 1,
                    });
                }
                flat.cells.extend(ray.iter().map(|&c| c as u16));
                flat.ray_bound.push(flat.cells.len() as u32);
            }
            flat.ray_at.push(flat.ray_bound.len() as u32 - 1);
        }
        flat
    }
}

/// Most cells a board may have: a 64x64 board, 32 times the largest shipped board (8x16). A
/// client echoes the board, one character per cell, before every action, so this also keeps
/// the longest client message well within the server's default frame limit (16 KiB).
pub const MAX_CELLS: usize = 4096;

/// Most directed moves a board may have: 4 per cell on average, which every rectangle and
/// drawing fits (a 64x64 rectangle has 16,128). Checking an explicit board's jumps takes a
/// breadth-first search per origin, so cells x (cells + moves) bounds the work.
pub const MAX_MOVES: usize = 4 * MAX_CELLS;

/// Most cannon lines (rays) a board may have, which is the most jump clauses an explicit board
/// may list: 4 per cell on average, which every rectangle and drawing fits (a 64x64 rectangle
/// has 15,872).
pub const MAX_JUMPS: usize = 4 * MAX_CELLS;

/// Most jump targets (cells at distance 2 or more, summed over every ray) a board may have.
/// The paper's count is 2352 on 8x16 and 499,968 on 64x64; a 1x4096 line would have 16.8
/// million. The rays are stored cell by cell, so this bounds their memory (about 8 MiB).
pub const MAX_JUMP_TARGETS: usize = 1 << 20;

/// Most rows in a drawn board, most characters in one of its rows, and one more than the
/// largest row or column of a display position.
pub const MAX_GRID_SIDE: usize = 4096;

/// What is wrong with a topology.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TopologyError(pub String);

fn err<T>(msg: impl Into<String>) -> Result<T, TopologyError> {
    Err(TopologyError(msg.into()))
}

/// The jump targets of a straight run of `n` cells: each cell has the cells beyond its
/// neighbour on both sides, `(n - 1) * (n - 2)` in all.
fn run_targets(n: usize) -> usize {
    n.saturating_sub(1) * n.saturating_sub(2)
}

impl Topology {
    /// The rectangle of `lines` x `columns` cells numbered row by row (`cell = row * C + col`),
    /// with orthogonal moves and the four orthogonal rays of every cell.
    ///
    /// # Errors
    /// When either dimension is below 1, the board has fewer than 2 cells, or it is over
    /// [`MAX_CELLS`] or [`MAX_JUMP_TARGETS`] (checked before anything is built).
    pub fn rectangle(lines: usize, columns: usize) -> Result<Topology, TopologyError> {
        // The product is checked for overflow before anything: 2^32 x 2^32 wraps to 0.
        match lines.checked_mul(columns) {
            Some(n) if n < 2 => {
                return err(format!(
                    "a rectangle needs at least 2 cells, got {lines}x{columns}"
                ))
            }
            Some(n) if n <= MAX_CELLS => {}
            _ => {
                return err(format!(
                    "a {lines}x{columns} rectangle has more than {MAX_CELLS} cells, the limit"
                ))
            }
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
    /// When the drawing has fewer than 2 cells, or is over [`MAX_GRID_SIDE`], [`MAX_CELLS`] or
    /// [`MAX_JUMP_TARGETS`] (checked before the moves and rays are built).
    pub fn shape(rows: &[&str]) -> Result<Topology, TopologyError> {
        if rows.len() > MAX_GRID_SIDE {
            return err(format!(
                "the drawing has {} rows, more than {MAX_GRID_SIDE}, the limit",
                rows.len()
            ));
        }
        // Rows keep their own lengths (a short row is not padded), so the grid takes no more
        // memory than the drawing.
        let mut grid: Vec<Vec<bool>> = Vec::with_capacity(rows.len());
        let mut cells = 0usize;
        for (r, row) in rows.iter().enumerate() {
            let mut line = Vec::new();
            for ch in row.chars() {
                if line.len() == MAX_GRID_SIDE {
                    return err(format!(
                        "row {} of the drawing is longer than {MAX_GRID_SIDE} characters, the limit",
                        r + 1
                    ));
                }
                let cell = ch != '.' && ch != ' ';
                cells += usize::from(cell);
                line.push(cell);
            }
            if cells > MAX_CELLS {
                return err(format!(
                    "the drawing has more than {MAX_CELLS} cells, the limit"
                ));
            }
            grid.push(line);
        }
        if cells < 2 {
            return err(format!(
                "a board needs at least 2 cells, the drawing has {cells}"
            ));
        }
        // The jump targets, counted from the straight runs of cells before any ray is built.
        let targets = drawing_targets(&grid);
        if targets > MAX_JUMP_TARGETS {
            return err(format!(
                "the board has {targets} jump targets, more than {MAX_JUMP_TARGETS}, the limit"
            ));
        }
        let at_grid = |r: i64, c: i64| -> bool {
            r >= 0
                && c >= 0
                && (r as usize) < grid.len()
                && (c as usize) < grid[r as usize].len()
                && grid[r as usize][c as usize]
        };
        let mut number: Vec<Vec<usize>> = grid.iter().map(|l| vec![usize::MAX; l.len()]).collect();
        let mut coords = Vec::with_capacity(cells);
        for (r, row) in grid.iter().enumerate() {
            for (c, &cell) in row.iter().enumerate() {
                if cell {
                    number[r][c] = coords.len();
                    coords.push((r, c));
                }
            }
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
        // No check of the rays is needed: between two cells of one row (or column) with no hole
        // between them, the straight line is the only shortest path of grid steps (any step off
        // the line must be undone), so clients decode every ray of a drawing.
        let neighbours = neighbours_of(coords.len(), &moves);
        let mut t = Topology::assembled(coords.len(), moves, neighbours, rays);
        t.coords = Some(coords);
        Ok(t)
    }

    /// A topology from checked parts, with no rectangle or display positions yet.
    fn assembled(
        size: usize,
        moves: Vec<(Cell, Cell)>,
        neighbours: Vec<Vec<Cell>>,
        rays: Vec<Vec<Vec<Cell>>>,
    ) -> Topology {
        Topology {
            size,
            rectangle: None,
            coords: None,
            moves,
            flat: Flat::new(&neighbours, &rays),
            neighbours,
            rays,
        }
    }

    /// A topology from explicit parts. Every ray must start at a cell adjacent to its origin,
    /// follow moves from cell to cell, and be the only shortest path of moves from its origin to
    /// its last cell.
    ///
    /// # Errors
    /// Names the first cell out of range, self-move, duplicate move, or broken ray; or the limit
    /// ([`MAX_CELLS`], [`MAX_MOVES`], [`MAX_JUMPS`], [`MAX_JUMP_TARGETS`]) the parts are over.
    pub fn from_parts(
        size: usize,
        moves: Vec<(Cell, Cell)>,
        rays: Vec<Vec<Vec<Cell>>>,
    ) -> Result<Topology, TopologyError> {
        let links = Links::new(size, &moves)?;
        if rays.len() != size {
            return err(format!(
                "rays are given for {} cells, not {size}",
                rays.len()
            ));
        }
        let count: usize = rays.iter().map(Vec::len).sum();
        if count > MAX_JUMPS {
            return err(format!("{count} rays are more than {MAX_JUMPS}, the limit"));
        }
        let mut targets = 0usize;
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
                    if !links.set.contains(&(prev, cell)) {
                        return err(format!(
                            "a ray from {origin} steps from {prev} to {cell}, which is not a move"
                        ));
                    }
                    prev = cell;
                }
                if ray.len() < 2 {
                    return err(format!("a ray from {origin} has no cell at distance 2"));
                }
                targets += ray.len() - 1;
            }
        }
        if targets > MAX_JUMP_TARGETS {
            return err(format!(
                "the rays have {targets} jump targets, more than {MAX_JUMP_TARGETS}, the limit"
            ));
        }
        // One breadth-first search per origin (not per ray) keeps this within
        // cells x (cells + moves) steps.
        let mut search = Search::new(&links.neighbours);
        for (origin, list) in rays.iter().enumerate() {
            if list.is_empty() {
                continue;
            }
            search.run(origin, list.iter().map(|r| r[r.len() - 1]));
            for ray in list {
                let far = ray[ray.len() - 1];
                // The ray follows moves, so it is a path; as long as the shortest distance and
                // the only shortest path, it is that path.
                if search.distance(far) != Some(ray.len()) || !search.unique(far) {
                    return err(format!(
                        "the ray {origin} -> {} is not the only shortest path of moves from {origin} to {far}, so clients could not decode it from the wire",
                        ray.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" ")
                    ));
                }
            }
        }
        Ok(Topology::assembled(size, moves, links.neighbours, rays))
    }

    /// Rebuilds a topology from the protocol's `size`, `moves` and compact `jumps` clauses (what
    /// a client receives in the setup message).
    ///
    /// # Errors
    /// When a jump clause does not describe an arithmetic progression of cells joined by moves
    /// whose first target is at distance 2 (the first such clause, in the order given), or the
    /// parts are over a limit ([`MAX_CELLS`], [`MAX_MOVES`], [`MAX_JUMPS`],
    /// [`MAX_JUMP_TARGETS`]).
    pub fn from_wire(
        size: usize,
        moves: Vec<(Cell, Cell)>,
        jumps: &[(Cell, Cell, Cell)],
    ) -> Result<Topology, TopologyError> {
        let links = Links::new(size, &moves)?;
        if jumps.len() > MAX_JUMPS {
            return err(format!(
                "{} jump clauses are more than {MAX_JUMPS}, the limit",
                jumps.len()
            ));
        }
        for &(origin, a, b) in jumps {
            if origin >= size || a >= size || b >= size {
                return err(format!(
                    "jump ({origin} {a} {b}) names a cell outside 0..={}",
                    size - 1
                ));
            }
        }
        // The clauses grouped by origin (in their order within each origin), so that one
        // breadth-first search serves every clause of an origin; the groups taken in the order
        // of their first clause, so that decoding stops as soon as the first bad clause in the
        // given order is known.
        let mut by_origin: Vec<usize> = (0..jumps.len()).collect();
        by_origin.sort_by_key(|&i| jumps[i].0);
        let mut groups: Vec<&[usize]> = by_origin
            .chunk_by(|&i, &j| jumps[i].0 == jumps[j].0)
            .collect();
        groups.sort_by_key(|g| g[0]);
        let mut rays = vec![Vec::new(); size];
        let mut first_bad: Option<usize> = None;
        let mut search = Search::new(&links.neighbours);
        let mut targets = 0usize;
        for group in groups {
            if first_bad.is_some_and(|bad| bad < group[0]) {
                break;
            }
            let origin = jumps[group[0]].0;
            search.run(origin, group.iter().flat_map(|&i| [jumps[i].1, jumps[i].2]));
            for &i in group {
                let (_, a, b) = jumps[i];
                // The ray is the only shortest path to the farther target (both targets must
                // have one), and the nearer target is its second cell.
                let ray = match (search.distance(a), search.distance(b)) {
                    (Some(da), Some(db)) if search.unique(a) && search.unique(b) => {
                        let (far, near, length) = if da >= db { (a, b, da) } else { (b, a, db) };
                        targets += length - 1;
                        if targets > MAX_JUMP_TARGETS {
                            return err(format!(
                                "the jumps have more than {MAX_JUMP_TARGETS} jump targets, the limit"
                            ));
                        }
                        Some(search.path(far)).filter(|ray| ray.len() >= 2 && ray[1] == near)
                    }
                    _ => None,
                };
                match ray {
                    Some(ray) => rays[origin].push(ray),
                    None => first_bad = Some(first_bad.map_or(i, |bad| bad.min(i))),
                }
            }
        }
        if let Some(bad) = first_bad {
            let (origin, a, b) = jumps[bad];
            return err(format!(
                "jump ({origin} {a} {b}) is not the unique shortest path of moves from {origin}, with its first target at distance 2"
            ));
        }
        // Each origin's rays in wire order (by their targets, as `wire_jumps` lists them),
        // whatever the order of the clauses: a description's explicit board and the setup
        // message it is sent as then give every client the same legal actions in the same
        // order.
        for list in &mut rays {
            list.sort_by_key(|ray: &Vec<Cell>| {
                let (near, far) = (ray[1], ray[ray.len() - 1]);
                (near.min(far), near.max(far))
            });
        }
        // Every ray was built as the only shortest path of moves: nothing left to check.
        Ok(Topology::assembled(size, moves, links.neighbours, rays))
    }

    /// Number of cells.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Gives every cell a display position (row, column).
    ///
    /// # Errors
    /// When there is not exactly one position per cell, a row or column is not below
    /// [`MAX_GRID_SIDE`], or two cells share a position.
    pub fn with_coords(mut self, coords: Vec<(usize, usize)>) -> Result<Topology, TopologyError> {
        if coords.len() != self.size {
            return err(format!(
                "{} coordinates for {} cells",
                coords.len(),
                self.size
            ));
        }
        if let Some(&(r, c)) = coords
            .iter()
            .find(|&&(r, c)| r >= MAX_GRID_SIDE || c >= MAX_GRID_SIDE)
        {
            return err(format!(
                "the position ({r} {c}) is outside 0..{}, the limit",
                MAX_GRID_SIDE - 1
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

    /// Cells one step from `cell`, as [`Topology::neighbours`] in the same order, as `u16`: the
    /// move generator's form.
    #[inline]
    pub fn step_cells(&self, cell: Cell) -> &[u16] {
        let f = &self.flat;
        &f.nb[f.nb_at[cell] as usize..f.nb_at[cell + 1] as usize]
    }

    /// The rays leaving `cell` as [`Topology::rays`] in the same order, each as `u16` cells:
    /// the move generator's form.
    #[inline]
    pub fn ray_cells(&self, cell: Cell) -> impl Iterator<Item = &[u16]> + '_ {
        let f = &self.flat;
        (f.ray_at[cell] as usize..f.ray_at[cell + 1] as usize)
            .map(move |r| &f.cells[f.ray_bound[r] as usize..f.ray_bound[r + 1] as usize])
    }

    /// The rays leaving `cell` as sets of cells, in the order of [`Topology::rays`], on a board
    /// of at most [`MASK_CELLS`] cells (none on larger boards).
    #[inline]
    pub(crate) fn lines(&self, cell: Cell) -> &[Line] {
        let f = &self.flat;
        f.lines
            .get(f.ray_at[cell] as usize..f.ray_at[cell + 1] as usize)
            .unwrap_or_default()
    }

    /// The cells of a line's ray, from the origin outwards (as [`Topology::ray_cells`]).
    #[inline]
    pub(crate) fn line_cells(&self, line: &Line) -> &[u16] {
        let f = &self.flat;
        let r = line.ray as usize;
        &f.cells[f.ray_bound[r] as usize..f.ray_bound[r + 1] as usize]
    }

    /// Cell `cell`'s neighbours padded with `cell` to four, on a board of at most 128 cells
    /// with at most four neighbours per cell (`None` on another board), in neighbour order:
    /// the cells of the `row_ids` of [`Board::move_ids`](super::Board::move_ids).
    #[inline]
    pub fn step_row(&self, cell: Cell) -> Option<&[u8; 4]> {
        self.flat.step_rows.get(cell)
    }

    /// Every cell's [`Topology::step_row`], padded to [`MASK_CELLS`] rows, when there are
    /// step rows.
    #[inline]
    pub(crate) fn step_rows(&self) -> Option<&[[u8; 4]; MASK_CELLS]> {
        self.flat.step_rows.as_slice().try_into().ok()
    }

    /// How the move generator holds this board's cells (by its size).
    #[inline(always)]
    pub(crate) fn representation(&self) -> Representation {
        Representation::of_cells(self.size)
    }

    /// Whether the move generator may count moves in one byte per cell (see
    /// `Flat::small_counts`): true of every shipped board.
    #[inline]
    pub(crate) fn small_counts(&self) -> bool {
        self.flat.small_counts
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

/// The jump targets of a drawing (`true` a cell), from its straight runs of cells: a run of
/// `n` holds `(n - 1) * (n - 2)` (see [`run_targets`]). Takes rows x width steps, no more memory
/// than a row.
fn drawing_targets(grid: &[Vec<bool>]) -> usize {
    let width = grid.iter().map(Vec::len).max().unwrap_or(0);
    let mut targets = 0usize;
    let mut column_run = vec![0usize; width];
    for line in grid {
        let mut row_run = 0;
        for (c, run) in column_run.iter_mut().enumerate() {
            if line.get(c) == Some(&true) {
                row_run += 1;
                *run += 1;
            } else {
                targets += run_targets(row_run) + run_targets(*run);
                row_run = 0;
                *run = 0;
            }
        }
        targets += run_targets(row_run);
    }
    targets + column_run.iter().map(|&n| run_targets(n)).sum::<usize>()
}

/// `neighbours[c]`: the cells one step from `c`, in the order of `moves`.
fn neighbours_of(size: usize, moves: &[(Cell, Cell)]) -> Vec<Vec<Cell>> {
    let mut neighbours = vec![Vec::new(); size];
    for &(a, b) in moves {
        neighbours[a].push(b);
    }
    neighbours
}

/// The checked moves of an explicit board: neighbour lists, and a set for constant-time
/// lookups (a cell may have thousands of neighbours).
struct Links {
    neighbours: Vec<Vec<Cell>>,
    set: std::collections::HashSet<(Cell, Cell)>,
}

impl Links {
    /// Checks the size and the moves (limits first, before anything is allocated by size).
    fn new(size: usize, moves: &[(Cell, Cell)]) -> Result<Links, TopologyError> {
        if size == 0 {
            return err("a board needs at least one cell");
        }
        if size > MAX_CELLS {
            return err(format!("{size} cells are more than {MAX_CELLS}, the limit"));
        }
        if moves.len() > MAX_MOVES {
            return err(format!(
                "{} moves are more than {MAX_MOVES}, the limit",
                moves.len()
            ));
        }
        let mut set = std::collections::HashSet::with_capacity(moves.len());
        for &(a, b) in moves {
            if a >= size || b >= size {
                return err(format!(
                    "move ({a} {b}) names a cell outside 0..={}",
                    size - 1
                ));
            }
            if a == b {
                return err(format!("move ({a} {b}) goes nowhere"));
            }
            if !set.insert((a, b)) {
                return err(format!("move ({a} {b}) is listed twice"));
            }
        }
        Ok(Links {
            neighbours: neighbours_of(size, moves),
            set,
        })
    }
}

/// A breadth-first search from one origin that counts shortest paths (capped at 2) and keeps
/// one parent per cell. Checking a board's jumps runs one per origin, so it is kept compact: the
/// moves as one flat array, cells and distances as `u16` (a board has at most [`MAX_CELLS`]),
/// arrays reused from one origin to the next, and only the cells a search reached reset.
struct Search {
    origin: u16,
    /// `edges[offsets[c]..offsets[c + 1]]`: the cells one step from `c`.
    offsets: Vec<u32>,
    edges: Vec<u16>,
    /// Distance from the origin, `UNREACHED` when not reached.
    dist: Vec<u16>,
    paths: Vec<u8>,
    parent: Vec<u16>,
    wanted: Vec<bool>,
    /// The cells reached, in the order reached (the queue).
    reached: Vec<u16>,
}

const UNREACHED: u16 = u16::MAX;

impl Search {
    /// A search over `neighbours`, which has at most [`MAX_CELLS`] cells and [`MAX_MOVES`]
    /// moves (checked by the caller).
    fn new(neighbours: &[Vec<Cell>]) -> Search {
        const _: () = assert!(MAX_CELLS < u16::MAX as usize && MAX_MOVES < u32::MAX as usize);
        let size = neighbours.len();
        let mut offsets = Vec::with_capacity(size + 1);
        let mut edges = Vec::new();
        offsets.push(0);
        for list in neighbours {
            edges.extend(list.iter().map(|&n| n as u16));
            offsets.push(edges.len() as u32);
        }
        Search {
            origin: 0,
            offsets,
            edges,
            dist: vec![UNREACHED; size],
            paths: vec![0; size],
            parent: vec![0; size],
            wanted: vec![false; size],
            reached: Vec::with_capacity(size),
        }
    }

    /// Searches from `origin` until every cell of `targets` has its final distance and path
    /// count (when it is taken from the queue), or nothing more is reachable.
    fn run(&mut self, origin: Cell, targets: impl Iterator<Item = Cell> + Clone) {
        for &c in &self.reached {
            self.dist[c as usize] = UNREACHED;
            self.paths[c as usize] = 0;
        }
        self.reached.clear();
        let mut missing = 0usize;
        for t in targets.clone() {
            if !std::mem::replace(&mut self.wanted[t], true) {
                missing += 1;
            }
        }
        let origin = origin as u16;
        self.origin = origin;
        self.dist[origin as usize] = 0;
        self.paths[origin as usize] = 1;
        self.reached.push(origin);
        let mut next = 0;
        while next < self.reached.len() && missing > 0 {
            let c = self.reached[next] as usize;
            next += 1;
            if std::mem::replace(&mut self.wanted[c], false) {
                missing -= 1;
            }
            let (d, p) = (self.dist[c] + 1, self.paths[c]);
            let (from, to) = (self.offsets[c] as usize, self.offsets[c + 1] as usize);
            for &n in &self.edges[from..to] {
                let n = n as usize;
                let dn = self.dist[n];
                if dn == UNREACHED {
                    self.dist[n] = d;
                    self.paths[n] = p;
                    self.parent[n] = c as u16;
                    self.reached.push(n as u16);
                } else if dn == d {
                    self.paths[n] = (self.paths[n] + p).min(2);
                }
            }
        }
        for t in targets {
            self.wanted[t] = false;
        }
    }

    /// The distance of `cell` from the origin, if reached.
    fn distance(&self, cell: Cell) -> Option<usize> {
        (self.dist[cell] != UNREACHED).then_some(self.dist[cell] as usize)
    }

    /// Whether exactly one shortest path leads from the origin to `cell` (never the origin).
    fn unique(&self, cell: Cell) -> bool {
        cell != self.origin as usize && self.paths[cell] == 1
    }

    /// The cells of the shortest path kept to `to` (reached, not the origin), without the
    /// origin.
    fn path(&self, to: Cell) -> Vec<Cell> {
        let mut path = Vec::with_capacity(self.dist[to] as usize);
        let mut c = to;
        while c != self.origin as usize {
            path.push(c);
            c = self.parent[c] as usize;
        }
        path.reverse();
        path
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

    /// The move generator's flat tables hold the same neighbours and rays, in the same order,
    /// as the lists they are made from.
    #[test]
    fn flat_tables_match_the_lists() {
        let shapes = [
            Topology::rectangle(4, 8).unwrap(),
            Topology::rectangle(8, 16).unwrap(),
            Topology::rectangle(12, 12).unwrap(),
            Topology::shape(&[".XX.", "XXXX", ".XX."]).unwrap(),
        ];
        for t in shapes {
            for c in 0..t.size() {
                let steps: Vec<Cell> = t.step_cells(c).iter().map(|&n| n as Cell).collect();
                assert_eq!(steps, t.neighbours(c));
                let rays: Vec<Vec<Cell>> = t
                    .ray_cells(c)
                    .map(|r| r.iter().map(|&n| n as Cell).collect())
                    .collect();
                assert_eq!(rays, t.rays(c));
                // The sets of the set-based generator: lines (rising or falling on these
                // boards, all numbered row by row) and step rows padded with the cell itself.
                let lines = t.lines(c);
                let masked = t.size() <= MASK_CELLS;
                assert_eq!(lines.len(), if masked { t.rays(c).len() } else { 0 });
                assert_eq!(t.step_row(c).is_some(), masked);
                for (line, ray) in lines.iter().zip(t.rays(c)) {
                    assert_eq!(line.cells, ray.iter().fold(0, |set, &x| set | 1 << x));
                    let rising = ray[0] < ray[1];
                    let order = if rising {
                        LineOrder::Rising
                    } else {
                        LineOrder::Falling
                    };
                    assert_eq!(line.order, order);
                    let cells: Vec<Cell> = t.line_cells(line).iter().map(|&n| n as Cell).collect();
                    assert_eq!(&cells, ray);
                }
                if let Some(row) = t.step_row(c) {
                    let mut padded = t.neighbours(c).to_vec();
                    padded.resize(4, c);
                    assert_eq!(row.map(Cell::from).to_vec(), padded);
                }
            }
        }
    }

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
    fn rays_come_in_wire_order_whatever_the_order_of_the_clauses() {
        // A line of five cells: from the middle, one ray each way.
        let moves = vec![
            (0, 1),
            (1, 0),
            (1, 2),
            (2, 1),
            (2, 3),
            (3, 2),
            (3, 4),
            (4, 3),
        ];
        let given = Topology::from_wire(5, moves.clone(), &[(2, 4, 4), (2, 0, 0)]).unwrap();
        let sorted = Topology::from_wire(5, moves, &[(2, 0, 0), (2, 4, 4)]).unwrap();
        assert_eq!(given.rays(2), sorted.rays(2));
        assert_eq!(given.rays(2), [vec![1, 0], vec![3, 4]]);
        assert_eq!(given.wire_jumps(), [(2, 0, 0), (2, 4, 4)]);
    }

    #[test]
    fn bad_wire_jumps_are_named() {
        let t = Topology::rectangle(4, 8).unwrap();
        let e = Topology::from_wire(32, t.moves().to_vec(), &[(7, 8, 9)]).unwrap_err();
        assert!(e.0.contains("(7 8 9)"), "{e}");
        let e = Topology::from_parts(4, vec![(0, 9)], vec![Vec::new(); 4]).unwrap_err();
        assert!(e.0.contains("outside"), "{e}");
    }

    #[test]
    fn limits_are_checked_before_anything_is_built() {
        let e = Topology::rectangle(100_000, 100_000).unwrap_err();
        assert!(e.0.contains("more than 4096 cells"), "{e}");
        // 2^32 x 2^32 wraps to 0 cells: the product is checked, not wrapped.
        let e = Topology::rectangle(1 << 32, 1 << 32).unwrap_err();
        assert!(e.0.contains("more than 4096 cells"), "{e}");
        let e = Topology::rectangle(1, MAX_CELLS).unwrap_err();
        assert!(e.0.contains("16764930 jump targets"), "{e}");
        let t = Topology::rectangle(64, 64).unwrap();
        assert_eq!((t.moves().len(), t.jump_target_count()), (16128, 499_968));
        assert!(t.moves().len() <= MAX_MOVES && t.wire_jumps().len() <= MAX_JUMPS);

        let e = Topology::from_wire(4_000_000_000, vec![(0, 1)], &[]).unwrap_err();
        assert!(e.0.contains("4000000000 cells are more than 4096"), "{e}");
        let e = Topology::from_parts(4_000_000_000, vec![], vec![]).unwrap_err();
        assert!(e.0.contains("more than 4096"), "{e}");
        let many: Vec<_> = (0..=MAX_MOVES).map(|i| (i % 2, 1 - i % 2)).collect();
        let e = Topology::from_wire(2, many, &[]).unwrap_err();
        assert!(e.0.contains("moves are more than"), "{e}");
        let e = Topology::from_wire(3, vec![(0, 1), (1, 2)], &vec![(0, 2, 2); MAX_JUMPS + 1])
            .unwrap_err();
        assert!(e.0.contains("jump clauses are more than"), "{e}");

        let tall = vec!["X"; MAX_GRID_SIDE + 1];
        let e = Topology::shape(&tall).unwrap_err();
        assert!(e.0.contains("4097 rows"), "{e}");
        let wide = ".".repeat(MAX_GRID_SIDE) + "XX";
        let e = Topology::shape(&[wide.as_str()]).unwrap_err();
        assert!(e.0.contains("longer than 4096 characters"), "{e}");
        let e = Topology::rectangle(2, 4)
            .unwrap()
            .with_coords(vec![
                (0, 0),
                (0, 1),
                (0, 2),
                (0, 3),
                (1, 0),
                (1, 1),
                (1, 2),
                (1 << 40, 0),
            ])
            .unwrap_err();
        assert!(e.0.contains("outside 0..4095"), "{e}");
    }

    #[test]
    fn a_drawing_counts_its_jump_targets_before_building_them() {
        for rows in [
            &["XXXX", "XXXX"][..],
            &["..XX..", "..XX..", "XXXXXX", "XXXXXX", "..XX..", "..XX.."],
            &["XXX.XX", "X", "XXXXXXX", "", "X.X.XXX"],
            &["X", "XX", "XXX", "XXXX", "XXXXX"],
        ] {
            let grid: Vec<Vec<bool>> = rows
                .iter()
                .map(|r| r.chars().map(|c| c != '.').collect())
                .collect();
            let t = Topology::shape(rows).unwrap();
            assert_eq!(drawing_targets(&grid), t.jump_target_count(), "{rows:?}");
        }
    }

    #[test]
    fn the_first_bad_jump_in_the_given_order_is_named() {
        // The clauses are decoded origin by origin; the error still names the first one listed.
        let t = Topology::rectangle(4, 8).unwrap();
        let e = Topology::from_wire(32, t.moves().to_vec(), &[(9, 11, 15), (7, 8, 9), (0, 9, 9)])
            .unwrap_err();
        assert!(e.0.contains("(7 8 9)"), "{e}");
        // A hub: one cell with a move to every other, and back. The duplicate check is a set.
        let mut moves: Vec<_> = (1..MAX_CELLS).flat_map(|c| [(0, c), (c, 0)]).collect();
        let t = Topology::from_wire(MAX_CELLS, moves.clone(), &[]).unwrap();
        assert_eq!(t.neighbours(0).len(), MAX_CELLS - 1);
        moves.push((0, 4095));
        let e = Topology::from_wire(MAX_CELLS, moves, &[]).unwrap_err();
        assert!(e.0.contains("move (0 4095) is listed twice"), "{e}");
    }
}
