//! The values of one quiet component: the positions that quiet moves (no reveal, no capture)
//! link, a game of perfect information without chance whose plays may cycle, and whose exits
//! (reveals, captures, ends) have values known already.
//!
//! Under the solver's semantics play that never leaves the component is a draw, worth `draw`.
//! The maximizer's positions worth more than `draw` are those from which it can force an exit
//! worth more; their values come from a retrograde pass that takes exit values from the
//! highest down (a maximizer's position takes the first value that reaches it, a minimizer's
//! the last, once every move has one), as in Washburn's algorithm for deterministic graphical
//! games. The same pass from the lowest up gives the positions worth less than `draw`; every
//! other position is worth `draw`: neither side can force its way out to anything better.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// One position of a component.
#[derive(Clone, Debug, Default)]
pub struct Node {
    /// Whether the maximizer (player 1) moves here.
    pub max: bool,
    /// The best exit for the mover (the highest for the maximizer, the lowest for the
    /// minimizer), if it has any.
    pub exit: Option<u64>,
    /// The positions of the component its quiet moves reach (a move to a position twice is
    /// listed twice or once: either counts).
    pub next: Vec<u32>,
    /// A position valued already (found solved, when another part of its component was):
    /// its value and plies, which the pass takes as they are.
    pub fixed: Option<(u64, u32)>,
}

/// Every node's value and plies: how many quiet plies play from there takes to leave the
/// component for an exit worth that value, the favoured side taking the shortest way, the
/// other side the longest among its moves worth the value (0 when it leaves at once; 0 for a
/// draw).
pub fn solve(nodes: &[Node], draw: u64) -> Vec<(u64, u32)> {
    let n = nodes.len();
    let mut before: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (i, node) in nodes.iter().enumerate() {
        for &j in &node.next {
            before[j as usize].push(i as u32);
        }
    }
    let mut value: Vec<Option<u64>> = vec![None; n];
    let mut plies = vec![0u32; n];
    retrograde(nodes, &before, &mut value, &mut plies, true, |v| v > draw);
    retrograde(nodes, &before, &mut value, &mut plies, false, |v| v < draw);
    value
        .into_iter()
        .zip(plies)
        .map(|(v, p)| (v.unwrap_or(draw), p))
        .collect()
}

/// One pass: `forcing` is the side that forces (true: the maximizer, taking values from the
/// highest; false: the minimizer, from the lowest); `wins` says which values this pass
/// settles. Sets `value` for the positions it settles, and `plies` (see [`solve`]).
fn retrograde(
    nodes: &[Node],
    before: &[Vec<u32>],
    value: &mut [Option<u64>],
    plies: &mut [u32],
    forcing: bool,
    wins: impl Fn(u64) -> bool,
) {
    // The heap orders values best-first for `forcing`: as is for the maximizer, reversed for
    // the minimizer.
    let key = |v: u64| if forcing { v } else { u64::MAX - v };
    let unkey = |k: u64| if forcing { k } else { u64::MAX - k };
    // Among equal values, the fewest plies first.
    let mut heap: BinaryHeap<(u64, Reverse<u32>, u32)> = BinaryHeap::new();
    // For the other side's positions: the most plies among its settled moves worth the worst
    // value so far (values come best-first for `forcing`, so the last is the worst), and that
    // value.
    let mut longest = vec![0u32; nodes.len()];
    let mut worst_so_far: Vec<Option<u64>> = vec![None; nodes.len()];
    // For the other side's positions: moves not yet known to lead to a settled position.
    let mut open: Vec<usize> = nodes.iter().map(|n| n.next.len()).collect();
    for (i, node) in nodes.iter().enumerate() {
        if value[i].is_some() {
            continue;
        }
        if let Some((v, p)) = node.fixed {
            if wins(v) {
                heap.push((key(v), Reverse(p), i as u32));
            }
            continue;
        }
        match node.exit {
            Some(e) if node.max == forcing && wins(e) => heap.push((key(e), Reverse(0), i as u32)),
            // The other side with every move an exit that this pass settles.
            Some(e) if node.max != forcing && node.next.is_empty() && wins(e) => {
                heap.push((key(e), Reverse(0), i as u32))
            }
            _ => {}
        }
    }
    while let Some((k, Reverse(d), i)) = heap.pop() {
        let i = i as usize;
        if value[i].is_some() {
            continue;
        }
        let v = unkey(k);
        value[i] = Some(v);
        plies[i] = d;
        for &p in &before[i] {
            let p = p as usize;
            if value[p].is_some() {
                continue;
            }
            let node = &nodes[p];
            if node.fixed.is_some() {
                continue;
            }
            if node.max == forcing {
                // The first settled move is the best one left (values come best-first).
                heap.push((key(v), Reverse(d + 1), p as u32));
            } else {
                open[p] -= 1;
                if worst_so_far[p] == Some(v) {
                    longest[p] = longest[p].max(d + 1);
                } else {
                    worst_so_far[p] = Some(v);
                    longest[p] = d + 1;
                }
                if open[p] == 0 {
                    // Every move settled, this one the worst for the other side so far (values
                    // come best-first for `forcing`); its own exit may be worse still, or
                    // not settled by this pass at all.
                    match node.exit {
                        None => heap.push((key(v), Reverse(longest[p]), p as u32)),
                        Some(e) if wins(e) => {
                            let worst = if forcing { v.min(e) } else { v.max(e) };
                            // Out at once when the exit is worse than every move.
                            let plies = if worst == v { longest[p] } else { 0 };
                            heap.push((key(worst), Reverse(plies), p as u32));
                        }
                        Some(_) => {}
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(nodes: &[Node]) -> Vec<u64> {
        solve(nodes, 5).into_iter().map(|(v, _)| v).collect()
    }

    fn node(max: bool, exit: Option<u64>, next: &[u32]) -> Node {
        Node {
            max,
            exit,
            next: next.to_vec(),
            fixed: None,
        }
    }

    #[test]
    fn positions_valued_already_count_with_their_plies() {
        // 0 (max) -> 1, valued already at 8 in 3 plies; 0 has an exit at 8 too.
        let fixed = Node {
            fixed: Some((8, 3)),
            ..Node::default()
        };
        let nodes = [node(true, None, &[1]), fixed.clone()];
        assert_eq!(solve(&nodes, 5), [(8, 4), (8, 3)]);
        let nodes = [node(true, Some(8), &[1]), fixed.clone()];
        assert_eq!(solve(&nodes, 5), [(8, 0), (8, 3)]);
        // Below the draw, and at it.
        let low = Node {
            fixed: Some((2, 1)),
            ..Node::default()
        };
        assert_eq!(solve(&[node(false, None, &[1]), low], 5), [(2, 2), (2, 1)]);
        let even = Node {
            fixed: Some((5, 0)),
            ..Node::default()
        };
        assert_eq!(
            solve(&[node(true, Some(3), &[1]), even], 5),
            [(5, 0), (5, 0)]
        );
    }

    #[test]
    fn a_cycle_with_no_way_out_is_a_draw() {
        let nodes = [node(true, None, &[1]), node(false, None, &[0])];
        assert_eq!(values(&nodes), [5, 5]);
    }

    #[test]
    fn the_maximizer_takes_its_best_exit_and_the_minimizer_its_worst() {
        // 0 (max) -> 1 (min) or exit 6; 1 (min) -> 0 or exit 3.
        let nodes = [node(true, Some(6), &[1]), node(false, Some(3), &[0])];
        assert_eq!(values(&nodes), [6, 3]);
        // The minimizer can only go back: the maximizer's exit is worth having.
        let nodes = [node(true, Some(6), &[1]), node(false, None, &[0])];
        assert_eq!(values(&nodes), [6, 6]);
        // The maximizer exits at once (0 plies); the minimizer's move back takes 1.
        assert_eq!(solve(&nodes, 5), [(6, 0), (6, 1)]);
    }

    #[test]
    fn plies_count_the_shortest_forced_way_out() {
        // A line 0 -> 1 -> 2 -> 3 of maximizer and minimizer in turn, 3 (max) exits at 9; 0
        // may also go straight to 3? No: 0 (max) -> 1 or 2? Keep it a line, with a cycle back.
        let nodes = [
            node(true, None, &[1]),
            node(false, None, &[2, 0]),
            node(true, None, &[3]),
            node(false, None, &[2]),
        ];
        // Nothing leaves: all draws, 0 plies.
        assert_eq!(solve(&nodes, 5), [(5, 0); 4]);
        let mut nodes = nodes.to_vec();
        nodes[2].exit = Some(9);
        // 2 exits at once; 3 can only go to 2; 1 may go back to 0, which goes to 1: the
        // minimizer at 1 cycles forever rather than let 2 exit.
        assert_eq!(solve(&nodes, 5), [(5, 0), (5, 0), (9, 0), (9, 1)]);
        nodes[1].next = vec![2];
        assert_eq!(solve(&nodes, 5), [(9, 2), (9, 1), (9, 0), (9, 1)]);
    }

    #[test]
    fn a_side_that_cannot_force_better_than_the_cycle_keeps_the_draw() {
        // 0 (max) -> 1 or exit 2; 1 (min) -> 0 or exit 9: the maximizer cycles (5) rather than
        // exit at 2, the minimizer cycles rather than give 9.
        let nodes = [node(true, Some(2), &[1]), node(false, Some(9), &[0])];
        assert_eq!(values(&nodes), [5, 5]);
    }

    #[test]
    fn a_minimizer_forced_out_takes_the_least_of_its_settled_moves() {
        // 0 (min) -> 1 or 2; 1 (max) exit 8; 2 (max) exit 7, both only exits.
        let nodes = [
            node(false, None, &[1, 2]),
            node(true, Some(8), &[]),
            node(true, Some(7), &[]),
        ];
        assert_eq!(values(&nodes), [7, 8, 7]);
        // With its own exit at 6, lower still.
        let nodes = [
            node(false, Some(6), &[1, 2]),
            node(true, Some(8), &[]),
            node(true, Some(7), &[]),
        ];
        assert_eq!(values(&nodes), [6, 8, 7]);
        // With an exit at 4, below the draw: the second pass settles it.
        let nodes = [
            node(false, Some(4), &[1, 2]),
            node(true, Some(8), &[]),
            node(true, Some(7), &[]),
        ];
        assert_eq!(values(&nodes), [4, 8, 7]);
    }
}
