//! The Merkle tree a deal book commits to, so that the entries an event played can be proven
//! against the book's commitment without the entries it did not play (`anqi book prove`).
//!
//! Leaf `i` is `SHA-256(0x00 || DOMAIN " leaf\n" || i || "\n" || deal)`: the entry's number is
//! in it, so a proof cannot move a deal to another entry. A node is `SHA-256(0x01 || left ||
//! right)`; a level of odd length carries its last node up unchanged. The book's commitment is
//! `SHA-256(DOMAIN " commitment\n" || variant || "\n" || n || "\n" || root)`, `n` the number of
//! deals, so a proof also fixes the book's length (what a random order shuffles).

use sha2::{Digest, Sha256};

/// The domain of every hash here.
pub(super) const DOMAIN: &str = "anqi-deal-book-v2";

pub(super) type Hash = [u8; 32];

/// Leaf `index`, holding `deal`.
pub(super) fn leaf(index: u64, deal: &str) -> Hash {
    let mut h = Sha256::new();
    h.update([0u8]);
    h.update(DOMAIN.as_bytes());
    h.update(format!(" leaf\n{index}\n").as_bytes());
    h.update(deal.as_bytes());
    h.finalize().into()
}

fn node(left: &Hash, right: &Hash) -> Hash {
    let mut h = Sha256::new();
    h.update([1u8]);
    h.update(left);
    h.update(right);
    h.finalize().into()
}

/// The book's commitment, from its variant, length and root: 64 hex digits.
pub(super) fn commitment(variant: Option<&str>, len: u64, root: &Hash) -> String {
    let mut h = Sha256::new();
    h.update(DOMAIN.as_bytes());
    h.update(b" commitment\n");
    h.update(variant.unwrap_or_default().as_bytes());
    h.update(format!("\n{len}\n").as_bytes());
    h.update(root);
    anqi_core::hex::hex(&h.finalize())
}

/// The levels of the tree over `leaves`, leaves first, root last (alone).
fn levels(leaves: Vec<Hash>) -> Vec<Vec<Hash>> {
    let mut levels = vec![leaves];
    while levels.last().is_some_and(|l| l.len() > 1) {
        let below = levels.last().expect("a level");
        let above = below
            .chunks(2)
            .map(|pair| match pair {
                [l, r] => node(l, r),
                [only] => *only,
                _ => unreachable!("chunks of 2"),
            })
            .collect();
        levels.push(above);
    }
    levels
}

/// A book's tree: its root, and each entry's path to it.
pub(super) struct Tree {
    levels: Vec<Vec<Hash>>,
}

impl Tree {
    /// The tree over `deals`, entry 0 first (at least one).
    pub(super) fn of(deals: &[String]) -> Tree {
        let leaves = (0u64..).zip(deals).map(|(i, d)| leaf(i, d)).collect();
        Tree {
            levels: levels(leaves),
        }
    }

    pub(super) fn root(&self) -> Hash {
        self.levels.last().expect("a level")[0]
    }

    /// The siblings on entry `index`'s way to the root, lowest first (none where a level
    /// carries the node up alone).
    pub(super) fn path(&self, index: usize) -> Vec<Hash> {
        let mut at = index;
        let mut path = Vec::new();
        for level in &self.levels[..self.levels.len() - 1] {
            if let Some(sibling) = level.get(at ^ 1) {
                path.push(*sibling);
            }
            at /= 2;
        }
        path
    }
}

/// The root that entry `index` of a book of `len` deals, holding `deal`, leads to along
/// `path`; `None` when the path is not that long.
pub(super) fn root_from(index: u64, len: u64, deal: &str, path: &[Hash]) -> Option<Hash> {
    if index >= len {
        return None;
    }
    let (mut at, mut width, mut hash) = (index, len, leaf(index, deal));
    let mut siblings = path.iter();
    while width > 1 {
        if (at ^ 1) < width {
            let sibling = siblings.next()?;
            hash = if at % 2 == 0 {
                node(&hash, sibling)
            } else {
                node(sibling, &hash)
            };
        }
        at /= 2;
        width = width.div_ceil(2);
    }
    siblings.next().is_none().then_some(hash)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_of_every_size_proves_its_deal_and_no_other() {
        for n in 1..=33usize {
            let deals: Vec<String> = (0..n).map(|i| format!("deal{i}")).collect();
            let tree = Tree::of(&deals);
            for (i, deal) in deals.iter().enumerate() {
                let path = tree.path(i);
                let len = n as u64;
                assert_eq!(
                    root_from(i as u64, len, deal, &path),
                    Some(tree.root()),
                    "{n} {i}"
                );
                // Another deal, another entry, another length or a shorter path: not the root.
                assert_ne!(root_from(i as u64, len, "other", &path), Some(tree.root()));
                if n > 1 {
                    let j = (i as u64 + 1) % len;
                    assert_ne!(root_from(j, len, deal, &path), Some(tree.root()), "{n} {i}");
                }
                assert_eq!(
                    root_from(i as u64, len, deal, &[path.clone(), vec![[0; 32]]].concat()),
                    None
                );
                assert_eq!(root_from(len, len, deal, &path), None);
            }
        }
        // One deal: the root is its leaf, the path empty.
        let tree = Tree::of(&["x".to_string()]);
        assert_eq!(tree.root(), leaf(0, "x"));
        assert!(tree.path(0).is_empty());
    }
}
