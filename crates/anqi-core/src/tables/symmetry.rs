//! The board's symmetries as the tables use them: the turns and mirrors of the board's drawing
//! that map every step onto a step and every cannon line onto a line, and one cell of each
//! orbit (the domain a position's first lone piece is turned into).

use crate::rules::Topology;
use std::collections::BTreeSet;

/// The symmetries a table of a topology stores one position of each class for.
#[derive(Clone, Debug)]
pub struct Symmetries {
    /// Each symmetry as the image of every cell, the identity first.
    maps: Vec<Vec<u8>>,
    /// For each cell, the symmetry (index into `maps`) that turns it into the domain.
    to_domain: Vec<u8>,
    /// For each cell of the domain, its rank in the domain (`u8::MAX` off the domain).
    domain_rank: Vec<u8>,
    domain_len: usize,
}

impl Symmetries {
    /// The symmetries of `topo` that act freely on its cells (no turn or mirror but the
    /// identity leaves a cell where it is: a rectangle of even sides), so that each position
    /// with a lone piece has exactly one image with that piece in the domain. Others, and boards
    /// drawn with no grid, get the identity alone.
    pub fn of(topo: &Topology) -> Symmetries {
        let n = topo.size();
        let identity: Vec<u8> = (0..n as u8).collect();
        let mut maps = vec![identity];
        for map in board_maps(topo).into_iter().skip(1) {
            if map.iter().enumerate().any(|(c, &i)| usize::from(i) == c) {
                return Symmetries::identity(n);
            }
            maps.push(map);
        }
        let mut to_domain = vec![0u8; n];
        let mut domain_rank = vec![u8::MAX; n];
        let mut domain_len = 0;
        for c in 0..n {
            // The orbit's smallest cell is its member of the domain.
            let (s, least) = maps
                .iter()
                .enumerate()
                .map(|(s, m)| (s, m[c]))
                .min_by_key(|&(_, i)| i)
                .expect("the identity");
            to_domain[c] = s as u8;
            if usize::from(least) == c {
                domain_rank[c] = domain_len as u8;
                domain_len += 1;
            }
        }
        Symmetries {
            maps,
            to_domain,
            domain_rank,
            domain_len,
        }
    }

    /// The identity alone, on `n` cells.
    pub fn identity(n: usize) -> Symmetries {
        Symmetries {
            maps: vec![(0..n as u8).collect()],
            to_domain: vec![0; n],
            domain_rank: (0..n as u8).collect(),
            domain_len: n,
        }
    }

    /// How many symmetries (the identity counted).
    pub fn len(&self) -> usize {
        self.maps.len()
    }

    /// Whether there is only the identity.
    pub fn is_empty(&self) -> bool {
        self.maps.len() == 1
    }

    /// The image of every cell under symmetry `s`.
    pub fn map(&self, s: usize) -> &[u8] {
        &self.maps[s]
    }

    /// The symmetry that turns `cell` into the domain.
    pub fn to_domain(&self, cell: u8) -> usize {
        usize::from(self.to_domain[usize::from(cell)])
    }

    /// The rank of a domain cell in the domain (`None` off it).
    pub fn domain_rank(&self, cell: u8) -> Option<usize> {
        let r = self.domain_rank[usize::from(cell)];
        (r != u8::MAX).then_some(usize::from(r))
    }

    /// The domain cell of rank `r`.
    pub fn domain_cell(&self, r: usize) -> u8 {
        self.domain_rank
            .iter()
            .position(|&x| usize::from(x) == r)
            .expect("a rank below the domain's size") as u8
    }

    /// Cells in the domain.
    pub fn domain_len(&self) -> usize {
        self.domain_len
    }
}

/// Every turn and mirror of the board's drawing (its rectangle, or the grid positions of a
/// drawn shape) that maps the cells onto themselves, every step onto a step and every cannon
/// line onto a line, as cell images; the identity first.
pub fn board_maps(topo: &Topology) -> Vec<Vec<u8>> {
    let n = topo.size();
    let identity: Vec<u8> = (0..n as u8).collect();
    let points: Vec<(i64, i64)> = match (topo.coords(), topo.rectangle_dims()) {
        (Some(coords), _) => coords.iter().map(|&(r, c)| (r as i64, c as i64)).collect(),
        (None, Some((_, columns))) => (0..n)
            .map(|c| ((c / columns) as i64, (c % columns) as i64))
            .collect(),
        _ => return vec![identity],
    };
    if n > 256 {
        return vec![identity];
    }
    let (r0, r1) = (
        points.iter().map(|p| p.0).min().unwrap_or(0),
        points.iter().map(|p| p.0).max().unwrap_or(0),
    );
    let (c0, c1) = (
        points.iter().map(|p| p.1).min().unwrap_or(0),
        points.iter().map(|p| p.1).max().unwrap_or(0),
    );
    type Turn = fn((i64, i64), [i64; 4]) -> (i64, i64);
    let turns: [Turn; 8] = [
        |(r, c), _| (r, c),
        |(r, c), [r0, r1, _, _]| (r0 + r1 - r, c),
        |(r, c), [_, _, c0, c1]| (r, c0 + c1 - c),
        |(r, c), [r0, r1, c0, c1]| (r0 + r1 - r, c0 + c1 - c),
        |(r, c), [r0, _, c0, _]| (r0 + (c - c0), c0 + (r - r0)),
        |(r, c), [r0, r1, c0, c1]| (r0 + (c1 - c), c0 + (r1 - r)),
        |(r, c), [r0, r1, c0, _]| (r0 + (c - c0), c0 + (r1 - r)),
        |(r, c), [r0, _, c0, c1]| (r0 + (c1 - c), c0 + (r - r0)),
    ];
    let steps: BTreeSet<(usize, usize)> = topo.moves().iter().copied().collect();
    let lines: BTreeSet<Vec<usize>> = (0..n).flat_map(|c| topo.rays(c).iter().cloned()).collect();
    let mut out = vec![identity];
    for turn in &turns[1..] {
        let image: Option<Vec<u8>> = points
            .iter()
            .map(|&p| {
                let q = turn(p, [r0, r1, c0, c1]);
                points.iter().position(|&x| x == q).map(|i| i as u8)
            })
            .collect();
        let Some(image) = image else { continue };
        let at = |c: usize| usize::from(image[c]);
        if image.iter().collect::<BTreeSet<_>>().len() != n
            || steps
                .iter()
                .map(|&(a, b)| (at(a), at(b)))
                .collect::<BTreeSet<_>>()
                != steps
            || lines
                .iter()
                .map(|l| l.iter().map(|&c| at(c)).collect::<Vec<_>>())
                .collect::<BTreeSet<_>>()
                != lines
            || out.contains(&image)
        {
            continue;
        }
        out.push(image);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rectangle_of_even_sides_has_four_free_symmetries_and_a_quarter_domain() {
        let s = Symmetries::of(&Topology::rectangle(4, 8).unwrap());
        assert_eq!((s.len(), s.domain_len()), (4, 8));
        for c in 0..32u8 {
            let image = s.map(s.to_domain(c))[usize::from(c)];
            assert!(s.domain_rank(image).is_some(), "cell {c} turned to {image}");
        }
        assert_eq!(
            s.domain_cell(s.domain_rank(s.domain_cell(5)).unwrap()),
            s.domain_cell(5)
        );
    }

    #[test]
    fn a_rectangle_with_a_middle_line_keeps_the_identity() {
        // Mirroring 3 lines leaves the middle line's cells in place.
        let s = Symmetries::of(&Topology::rectangle(3, 4).unwrap());
        assert_eq!((s.len(), s.domain_len()), (1, 12));
    }
}
