//! Where each position of a material is in its table: the index.
//!
//! The pieces of a material form groups of identical pieces, in per-piece order. A group of
//! `m` pieces stands on a set of `m` cells, numbered by its colex rank (`C(n, m)` sets on `n`
//! cells). With board symmetries ([`Symmetries`]), the first group of one piece, the
//! *anchor*, stands on the domain only: every position is turned so that it does, which picks
//! one position of each class (the symmetries act freely on cells, so exactly one). The index
//! is the mixed-radix number of the groups' ranks, the anchor's first. Two groups on one cell
//! make an index that is no position.

use super::material::Material;
use super::symmetry::Symmetries;

/// Binomial coefficients `C(n, k)` for `n` up to 128 cells and `k` up to 16 pieces.
struct Binomials([[u64; 17]; 129]);

impl Binomials {
    const fn new() -> Binomials {
        let mut t = [[0u64; 17]; 129];
        let mut n = 0;
        while n <= 128 {
            t[n][0] = 1;
            let mut k = 1;
            while k <= 16 {
                t[n][k] = if n == 0 {
                    0
                } else {
                    // Saturating: such sizes are refused before they are used.
                    t[n - 1][k - 1].saturating_add(t[n - 1][k])
                };
                k += 1;
            }
            n += 1;
        }
        Binomials(t)
    }

    fn get(&self, n: usize, k: usize) -> u64 {
        self.0[n][k]
    }
}

static BINOMIALS: Binomials = Binomials::new();

/// One group of identical pieces.
#[derive(Clone, Copy, Debug)]
struct Group {
    piece: u8,
    count: u8,
    /// The group's radix: the sets of cells it may stand on.
    radix: u64,
}

/// The index of one material's positions on one board.
#[derive(Clone, Debug)]
pub struct Layout {
    material: Material,
    cells: usize,
    groups: Vec<Group>,
    /// Which group each piece index belongs to (`u8::MAX`: none).
    group_of: [u8; 14],
    /// The anchor is `groups[0]`, on the domain, when the board has symmetries.
    anchored: bool,
    len: u64,
}

/// The most pieces a table holds.
pub const MAX_PIECES: usize = 16;

impl Layout {
    /// The layout of `material` on a board of `cells` cells with `symmetries`, `None` when its
    /// index would pass 2^40 entries or it has more than [`MAX_PIECES`] pieces.
    pub fn new(material: Material, cells: usize, symmetries: &Symmetries) -> Option<Layout> {
        if material.pieces() > MAX_PIECES || cells > 128 {
            return None;
        }
        let counts = material.counts();
        let mut groups: Vec<Group> = (0..14)
            .filter(|&i| counts[i] > 0)
            .map(|i| Group {
                piece: i as u8,
                count: counts[i],
                radix: BINOMIALS.get(cells, usize::from(counts[i])),
            })
            .collect();
        let lone = groups.iter().position(|g| g.count == 1);
        let anchored = !symmetries.is_empty() && lone.is_some();
        if let (true, Some(i)) = (anchored, lone) {
            let mut anchor = groups.remove(i);
            anchor.radix = symmetries.domain_len() as u64;
            groups.insert(0, anchor);
        }
        let mut group_of = [u8::MAX; 14];
        for (g, group) in groups.iter().enumerate() {
            group_of[usize::from(group.piece)] = g as u8;
        }
        let len = groups
            .iter()
            .try_fold(1u64, |n, g| n.checked_mul(g.radix))
            .filter(|&n| n <= 1 << 40)?;
        Some(Layout {
            material,
            cells,
            groups,
            group_of,
            anchored,
            len,
        })
    }

    pub fn material(&self) -> Material {
        self.material
    }

    /// Entries of the table (positions and indices that are none).
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether positions are stored one of each symmetry class.
    pub fn anchored(&self) -> bool {
        self.anchored
    }

    /// The position of `index` as `(piece index, cell)` pairs, group by group, each group's
    /// cells rising, into `out`; false when the index is no position (two pieces on a cell).
    pub fn decode(&self, index: u64, symmetries: &Symmetries, out: &mut Vec<(u8, u8)>) -> bool {
        out.clear();
        let mut rest = index;
        let mut used = 0u128;
        for (g, group) in self.groups.iter().enumerate().rev() {
            let rank = rest % group.radix;
            rest /= group.radix;
            let start = out.len();
            if g == 0 && self.anchored {
                out.push((group.piece, symmetries.domain_cell(rank as usize)));
            } else {
                unrank(rank, usize::from(group.count), self.cells, |c| {
                    out.push((group.piece, c))
                });
            }
            for &(_, c) in &out[start..] {
                if used >> c & 1 != 0 {
                    return false;
                }
                used |= 1 << c;
            }
        }
        out.reverse();
        true
    }

    /// The index of the position of `pieces` (`(piece index, cell)` pairs of this material,
    /// in any order), turned by the board's symmetries as the table stores it.
    pub fn encode(&self, pieces: &[(u8, u8)], symmetries: &Symmetries) -> u64 {
        let map = if self.anchored {
            let anchor = usize::from(self.groups[0].piece);
            let &(_, cell) = pieces
                .iter()
                .find(|&&(p, _)| usize::from(p) == anchor)
                .expect("a position of the layout's material");
            symmetries.map(symmetries.to_domain(cell))
        } else {
            symmetries.map(0)
        };
        let mut sets = [0u128; MAX_PIECES];
        for &(p, c) in pieces {
            let g = self.group_of[usize::from(p)];
            debug_assert!(g != u8::MAX, "a piece of the layout's material");
            sets[usize::from(g)] |= 1 << map[usize::from(c)];
        }
        let mut index = 0u64;
        for (g, group) in self.groups.iter().enumerate() {
            let rank = if g == 0 && self.anchored {
                let cell = sets[0].trailing_zeros() as u8;
                symmetries
                    .domain_rank(cell)
                    .expect("turned into the domain") as u64
            } else {
                rank(sets[g])
            };
            index = index * group.radix + rank;
        }
        index
    }
}

/// The colex rank of a set of cells: `sum C(c_i, i + 1)` over its cells rising.
fn rank(mut set: u128) -> u64 {
    let mut r = 0;
    let mut i = 1;
    while set != 0 {
        let c = set.trailing_zeros() as usize;
        set &= set - 1;
        r += BINOMIALS.get(c, i);
        i += 1;
    }
    r
}

/// Calls `f` with the cells of the set of `k` cells (of `n`) of colex rank `r`, falling.
fn unrank(mut r: u64, k: usize, n: usize, mut f: impl FnMut(u8)) {
    let mut c = n;
    for i in (1..=k).rev() {
        // The largest c with C(c, i) <= r.
        c -= 1;
        while BINOMIALS.get(c, i) > r {
            c -= 1;
        }
        r -= BINOMIALS.get(c, i);
        f(c as u8);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Topology;

    #[test]
    fn every_position_decodes_and_encodes_back_and_each_class_once() {
        let topo = Topology::rectangle(2, 4).unwrap();
        let syms = Symmetries::of(&topo);
        assert_eq!(syms.len(), 4);
        for name in ["KPkp", "PPpp", "Gccp", "Kk"] {
            let m = Material::parse(name).unwrap();
            let layout = Layout::new(m, 8, &syms).unwrap();
            let mut seen = std::collections::HashSet::new();
            let mut out = Vec::new();
            let mut positions = 0;
            for i in 0..layout.len() {
                if !layout.decode(i, &syms, &mut out) {
                    continue;
                }
                positions += 1;
                assert_eq!(layout.encode(&out, &syms), i, "{name} {out:?}");
                // Every image of the position has the same index (when anchored: otherwise
                // each image is stored apart).
                for s in 0..syms.len() {
                    let turned: Vec<(u8, u8)> = out
                        .iter()
                        .map(|&(p, c)| (p, syms.map(s)[usize::from(c)]))
                        .collect();
                    if layout.anchored() {
                        assert_eq!(layout.encode(&turned, &syms), i);
                    }
                    let mut key: Vec<(u8, u8)> = turned.clone();
                    key.sort_unstable();
                    seen.insert(key);
                }
            }
            // All positions of the material, each reached from exactly one index (whole
            // classes when anchored).
            let all = m.placements(8) as u64;
            assert_eq!(seen.len() as u64, all, "{name}");
            let stored = if layout.anchored() { all / 4 } else { all };
            assert_eq!(positions, stored, "{name}");
        }
    }
}
