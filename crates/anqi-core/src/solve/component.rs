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
}

/// Every node's value, and the most quiet plies a forcing side needs to get its value out of
/// the component (over the nodes not worth `draw`).
pub fn solve(nodes: &[Node], draw: u64) -> (Vec<u64>, u32) {
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
    let longest = plies.iter().copied().max().unwrap_or(0);
    (
        value.into_iter().map(|v| v.unwrap_or(draw)).collect(),
        longest,
    )
}

/// One pass: `forcing` is the side that forces (true: the maximizer, taking values from the
/// highest; false: the minimizer, from the lowest); `wins` says which values this pass
/// settles. Sets `value` for the positions it settles, and `plies`: how many quiet plies play
/// from there takes to leave the component (the forcing side taking the shortest way, the
/// other side the longest).
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
    // The most plies among the settled moves of the other side's positions.
    let mut longest = vec![0u32; nodes.len()];
    // For the other side's positions: moves not yet known to lead to a settled position.
    let mut open: Vec<usize> = nodes.iter().map(|n| n.next.len()).collect();
    for (i, node) in nodes.iter().enumerate() {
        if value[i].is_some() {
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
    let mut done = vec![false; nodes.len()];
    while let Some((k, Reverse(d), i)) = heap.pop() {
        let i = i as usize;
        if done[i] || value[i].is_some() {
            continue;
        }
        let v = unkey(k);
        done[i] = true;
        value[i] = Some(v);
        plies[i] = d;
        for &p in &before[i] {
            let p = p as usize;
            if done[p] || value[p].is_some() {
                continue;
            }
            let node = &nodes[p];
            if node.max == forcing {
                // The first settled move is the best one left (values come best-first).
                heap.push((key(v), Reverse(d + 1), p as u32));
            } else {
                open[p] -= 1;
                longest[p] = longest[p].max(d + 1);
                if open[p] == 0 {
                    // Every move settled, this one the worst for the other side so far (values
                    // come best-first for `forcing`); its own exit may be worse still, or
                    // not settled by this pass at all.
                    match node.exit {
                        None => heap.push((key(v), Reverse(longest[p]), p as u32)),
                        Some(e) if wins(e) => {
                            let worst = if forcing { v.min(e) } else { v.max(e) };
                            heap.push((key(worst), Reverse(longest[p]), p as u32));
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

    fn node(max: bool, exit: Option<u64>, next: &[u32]) -> Node {
        Node {
            max,
            exit,
            next: next.to_vec(),
        }
    }

    #[test]
    fn a_cycle_with_no_way_out_is_a_draw() {
        let nodes = [node(true, None, &[1]), node(false, None, &[0])];
        assert_eq!(solve(&nodes, 5).0, [5, 5]);
    }

    #[test]
    fn the_maximizer_takes_its_best_exit_and_the_minimizer_its_worst() {
        // 0 (max) -> 1 (min) or exit 6; 1 (min) -> 0 or exit 3.
        let nodes = [node(true, Some(6), &[1]), node(false, Some(3), &[0])];
        assert_eq!(solve(&nodes, 5).0, [6, 3]);
        // The minimizer can only go back: the maximizer's exit is worth having.
        let nodes = [node(true, Some(6), &[1]), node(false, None, &[0])];
        assert_eq!(solve(&nodes, 5).0, [6, 6]);
    }

    #[test]
    fn a_side_that_cannot_force_better_than_the_cycle_keeps_the_draw() {
        // 0 (max) -> 1 or exit 2; 1 (min) -> 0 or exit 9: the maximizer cycles (5) rather than
        // exit at 2, the minimizer cycles rather than give 9.
        let nodes = [node(true, Some(2), &[1]), node(false, Some(9), &[0])];
        assert_eq!(solve(&nodes, 5).0, [5, 5]);
    }

    #[test]
    fn a_minimizer_forced_out_takes_the_least_of_its_settled_moves() {
        // 0 (min) -> 1 or 2; 1 (max) exit 8; 2 (max) exit 7, both only exits.
        let nodes = [
            node(false, None, &[1, 2]),
            node(true, Some(8), &[]),
            node(true, Some(7), &[]),
        ];
        assert_eq!(solve(&nodes, 5).0, [7, 8, 7]);
        // With its own exit at 6, lower still.
        let nodes = [
            node(false, Some(6), &[1, 2]),
            node(true, Some(8), &[]),
            node(true, Some(7), &[]),
        ];
        assert_eq!(solve(&nodes, 5).0, [6, 8, 7]);
        // With an exit at 4, below the draw: the second pass settles it.
        let nodes = [
            node(false, Some(4), &[1, 2]),
            node(true, Some(8), &[]),
            node(true, Some(7), &[]),
        ];
        assert_eq!(solve(&nodes, 5).0, [4, 8, 7]);
    }
}
