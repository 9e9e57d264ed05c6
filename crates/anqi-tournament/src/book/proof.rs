//! Proofs of some of a book's entries (`anqi book prove`): the entries an event played, each
//! with its deal and its Merkle path to the book's commitment, so that anyone can check the
//! event's deals (`anqi report --book PROOF`) while the book's other entries stay secret for
//! the events still to play them.
//!
//! The file (JSON): `{"kind": "anqi-deal-book-proof", "variant", "commitment", "deals": N,
//! "entries": [{"entry", "deal", "path"}]}`, `path` the sibling hashes from the leaf up, as
//! one string of 64 hex digits each. Read, every entry must lead to one root, and that root
//! with the variant and `N` to the commitment written beside them.

use super::merkle::{self, Hash};
use super::{fit_deal, BookError, DealBook, Deals, MAX_DEALS};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

pub(super) const PROOF_KIND: &str = "anqi-deal-book-proof";

/// The most entries a proof holds: the deals of an event of 80,000 two-player games. Each
/// takes about 1.4 KB in a book of a million deals, so the largest proof stays under the
/// 64 MiB any book file may have.
const MAX_PROVEN: usize = 40_000;

/// The longest path: a tree of [`MAX_DEALS`] leaves is 20 levels high.
const MAX_PATH: usize = 64;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProofText {
    kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    variant: Option<String>,
    commitment: String,
    /// How many deals the whole book holds.
    deals: u64,
    #[serde(deserialize_with = "bounded_entries")]
    entries: Vec<ProvenEntry>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProvenEntry {
    entry: u64,
    deal: String,
    path: String,
}

/// A proof file's entries, [`super::bounded`].
fn bounded_entries<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<ProvenEntry>, D::Error> {
    super::bounded(d, MAX_PROVEN, "entries")
}

/// The text of a proof of `entries` of `book`, whose deals are `deals`.
pub(super) fn text(
    book: &DealBook,
    deals: &[String],
    entries: &BTreeSet<u64>,
) -> Result<String, BookError> {
    let in_book = entries.range(..deals.len() as u64).count();
    if in_book > MAX_PROVEN {
        return Err(BookError::Invalid(format!(
            "a proof holds at most {MAX_PROVEN} entries, not {in_book}: prove the event's records in parts"
        )));
    }
    let tree = merkle::Tree::of(deals);
    let proven: Vec<ProvenEntry> = entries
        .iter()
        .filter_map(|&e| Some((e, usize::try_from(e).ok().filter(|&i| i < deals.len())?)))
        .map(|(entry, i)| ProvenEntry {
            entry,
            deal: deals[i].clone(),
            path: tree
                .path(i)
                .iter()
                .map(|h| anqi_core::hex::hex(h))
                .collect(),
        })
        .collect();
    if proven.is_empty() {
        return Err(BookError::Invalid("no entry of the book to prove".into()));
    }
    let mut text = serde_json::to_string(&ProofText {
        kind: PROOF_KIND.into(),
        variant: book.variant.clone(),
        commitment: book.commitment.clone(),
        deals: deals.len() as u64,
        entries: proven,
    })
    .expect("a proof serializes");
    text.push('\n');
    if text.len() as u64 > super::MAX_BOOK_BYTES {
        return Err(BookError::Invalid(format!(
            "a proof of {} entries takes {} bytes, more than a book file may have: prove the event's records in parts",
            entries.len(),
            text.len()
        )));
    }
    Ok(text)
}

/// A proof's entries, each checked against the commitment written in it.
pub(super) fn read(text: &str) -> Result<DealBook, String> {
    let file: ProofText = serde_json::from_str(text).map_err(|e| e.to_string())?;
    if let Some(v) = &file.variant {
        super::check_variant(v).map_err(|e| e.to_string())?;
    }
    let len = usize::try_from(file.deals)
        .ok()
        .filter(|n| (1..=MAX_DEALS).contains(n))
        .ok_or_else(|| format!("a book holds 1 to {MAX_DEALS} deals, not {}", file.deals))?;
    if file.entries.is_empty() {
        return Err("it proves no entry".into());
    }
    let mut root: Option<Hash> = None;
    let mut entries = BTreeMap::new();
    for e in file.entries {
        let path = hashes(&e.path).ok_or_else(|| {
            format!(
                "entry {}: its path is not hashes of 64 hex digits (at most {MAX_PATH})",
                e.entry
            )
        })?;
        if !fit_deal(&e.deal) {
            return Err(format!("entry {}: its deal is not a server seed", e.entry));
        }
        let led = merkle::root_from(e.entry, file.deals, &e.deal, &path).ok_or_else(|| {
            format!(
                "entry {}: its path does not fit a book of {len} deals",
                e.entry
            )
        })?;
        if root.is_some_and(|r| r != led) {
            return Err(format!(
                "entry {}: its deal and path lead to another root than the entries before it: the file was changed",
                e.entry
            ));
        }
        root = Some(led);
        if entries.insert(e.entry, e.deal).is_some() {
            return Err(format!("entry {} is proven twice", e.entry));
        }
    }
    let root = root.expect("at least one entry");
    if merkle::commitment(file.variant.as_deref(), file.deals, &root) != file.commitment {
        return Err(
            "its entries do not lead to the commitment written in it: the file was changed".into(),
        );
    }
    Ok(DealBook {
        variant: file.variant,
        len,
        deals: Deals::Proven(entries),
        commitment: file.commitment,
    })
}

/// A path's hashes, 64 hex digits each.
fn hashes(text: &str) -> Option<Vec<Hash>> {
    // Digits alone: `from_str_radix` would also take a sign.
    if text.len() % 64 != 0
        || text.len() / 64 > MAX_PATH
        || !text.bytes().all(|b| b.is_ascii_hexdigit())
    {
        return None;
    }
    (0..text.len() / 64)
        .map(|k| {
            let mut h = [0u8; 32];
            for (i, byte) in h.iter_mut().enumerate() {
                let at = k * 64 + 2 * i;
                *byte = u8::from_str_radix(&text[at..at + 2], 16).ok()?;
            }
            Some(h)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn book(n: usize) -> DealBook {
        DealBook::new(
            Some("traditional".into()),
            (0..n).map(|i| format!("d{i}")).collect(),
        )
        .unwrap()
    }

    #[test]
    fn a_proof_holds_its_entries_and_checks_against_the_commitment() {
        let b = book(13);
        let text = b.prove(&[2, 3, 11, 40].into_iter().collect()).unwrap();
        let proof = read(&text).unwrap();
        assert_eq!(
            (proof.len(), proof.proven(), proof.is_whole()),
            (13, 3, false)
        );
        assert_eq!(proof.commitment(), b.commitment());
        assert_eq!(proof.variant(), Some("traditional"));
        assert_eq!(proof.deal(11), Some("d11"));
        assert_eq!(proof.deal(4), None, "not proven");
        assert!(!text.contains("\"d4\""), "other deals stay out");
        // A deal changed, an entry moved, or the length changed: refused.
        for (from, to) in [
            ("\"d3\"", "\"d4\""),
            ("\"entry\":11", "\"entry\":12"),
            ("\"deals\":13", "\"deals\":14"),
        ] {
            assert!(text.contains(from), "{from}");
            let e = read(&text.replacen(from, to, 1)).unwrap_err();
            assert!(
                e.contains("was changed") || e.contains("does not fit"),
                "{from}: {e}"
            );
        }
        assert!(
            read(&text.replace("\"variant\":\"traditional\"", "\"variant\":\"small\"")).is_err()
        );
        // A proof proves nothing more.
        assert!(proof.prove(&[2].into_iter().collect()).is_err());
        assert!(book(3).prove(&[7].into_iter().collect()).is_err());
    }
}
