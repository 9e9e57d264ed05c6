//! Deal books: a file of deals that several events play, so that engines are compared on the
//! same deals across events (what fishtest's and OpenBench's opening books are for chess).
//!
//! # What a book is
//! A deal is the server seed a game is dealt from, with no client seeds: the same seed deals
//! the same game in the same variant. A book is a list of such seeds, written by `anqi book
//! new` (fresh random ones) or `anqi book from` (the deals of earlier events, from their
//! records), with the name of the variant it was written for (none for a fresh book). An
//! event with `[tournament.book]` takes its deal `n` from the book instead of its master
//! seed: entry `skip + n` in `sequential` order, or the `n`-th entry of the book shuffled by
//! the event's master seed in `random` order. Both seatings of a deal still play it.
//!
//! # What is secret
//! A book is as secret as a seed file: whoever reads it knows where every face-down piece of
//! every deal lies. It is written readable by its owner alone, its `Debug` never shows a deal,
//! and `anqi book show` prints its size and commitment only. A finished game shows its own
//! deal (its record's server seed is the book's entry), and nothing more of the book: the
//! entries of a fresh book are independent 256-bit random numbers. But an entry is spent once
//! any event has played it: its records, and the engines that played it, know it. Playing a
//! book's entries again is what a book is for when one compares one's own engines, which do
//! not read records; it is never fair in an event among others' engines (a book taken from
//! published records is public from the start). Checking an event's deals needs the entries it
//! played and nothing more: a **proof** (`anqi book prove`) holds those entries with their
//! Merkle paths, so the organizer can publish it without the entries kept for later events.
//!
//! # Commitment
//! The root of a Merkle tree over the entries, with the book's variant and length
//! (`merkle`), kept in the file as a check that it is whole, printed when an event starts,
//! and carried by every game's record with the entry played; `anqi report --book` and `anqi
//! replay --book` check every game against the book or a proof of its entries (`proof`).

mod merkle;
mod proof;

use crate::secret_file;
use crate::seeds::MasterSeed;
use anqi_core::hex::hex;
use anqi_core::record::{BookTag, GameRecord};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// The largest book file read: the largest book anqi writes ([`MAX_DEALS`] deals of
/// [`MAX_DEAL_BYTES`], quoted and separated: 67 MB) fits.
pub const MAX_BOOK_BYTES: u64 = 64 << 20;

/// The most deals a book holds.
pub const MAX_DEALS: usize = 1_000_000;

/// The longest deal (server seed) a book holds, in bytes: a tournament's are 64 hex digits.
pub const MAX_DEAL_BYTES: usize = 64;

const BOOK_KIND: &str = "anqi-deal-book";

/// A book of deals: the whole book, or the entries a proof holds.
#[derive(Clone, PartialEq, Eq)]
pub struct DealBook {
    /// The variant its deals were played in, when they come from records.
    variant: Option<String>,
    /// How many deals the whole book holds.
    len: usize,
    deals: Deals,
    commitment: String,
}

/// What a [`DealBook`] holds of its deals.
#[derive(Clone, PartialEq, Eq)]
enum Deals {
    /// All of them, entry 0 first (a book file).
    All(Vec<String>),
    /// Some entries, each proven against the commitment (a proof file).
    Proven(BTreeMap<u64, String>),
}

// The deals are secrets: never printed by accident.
impl std::fmt::Debug for DealBook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DealBook({} deals{}, commitment {})",
            self.len,
            match &self.deals {
                Deals::All(_) => String::new(),
                Deals::Proven(entries) => format!(", {} proven", entries.len()),
            },
            self.commitment
        )
    }
}

/// Why a book cannot be made, read, written or played.
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    #[error("cannot read the deal book {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write the deal book {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not an anqi deal book ({why})")]
    NotABook { path: PathBuf, why: String },
    #[error("{0}")]
    Invalid(String),
}

/// What a book file holds (JSON).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct BookText {
    /// Always `"anqi-deal-book"`.
    kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    variant: Option<String>,
    /// The book's commitment, as a check that the file is whole.
    commitment: String,
    #[serde(deserialize_with = "bounded_deals")]
    deals: Vec<String>,
}

/// A list as a file gives it, read no further than `MAX` items (a book's deals, a proof's
/// entries): a crafted file of millions of tiny items is refused as it is read, not after it
/// has filled memory. Each item is checked after (`DealBook::new`, `proof::read`).
fn bounded<'de, D, T>(d: D, max: usize, noun: &'static str) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct Items<T> {
        max: usize,
        noun: &'static str,
        item: std::marker::PhantomData<T>,
    }
    impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for Items<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "a list of at most {} {}", self.max, self.noun)
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> Result<Self::Value, A::Error> {
            let mut items = Vec::new();
            while let Some(item) = seq.next_element()? {
                if items.len() == self.max {
                    return Err(serde::de::Error::custom(format!(
                        "more than {} {}",
                        self.max, self.noun
                    )));
                }
                items.push(item);
            }
            Ok(items)
        }
    }
    d.deserialize_seq(Items {
        max,
        noun,
        item: std::marker::PhantomData,
    })
}

/// A book file's deals, [`bounded`].
fn bounded_deals<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    bounded(d, MAX_DEALS, "deals")
}

impl DealBook {
    /// A book of `deals`, written for `variant` (`None`: any).
    ///
    /// # Errors
    /// No deals, too many, or a deal that is not 1 to [`MAX_DEAL_BYTES`] letters, digits, `-`
    /// or `_`.
    pub fn new(variant: Option<String>, deals: Vec<String>) -> Result<DealBook, BookError> {
        if deals.is_empty() {
            return Err(BookError::Invalid(
                "a deal book needs at least one deal".into(),
            ));
        }
        if deals.len() > MAX_DEALS {
            return Err(BookError::Invalid(format!(
                "a deal book holds at most {MAX_DEALS} deals, not {}",
                deals.len()
            )));
        }
        if let Some((i, d)) = deals.iter().enumerate().find(|(_, d)| !fit_deal(d)) {
            return Err(BookError::Invalid(format!(
                "deal {i} is not a server seed ({:?}): 1 to {MAX_DEAL_BYTES} letters, digits, - or _",
                d.chars().take(20).collect::<String>()
            )));
        }
        // A deal twice would be played twice in one event, where an engine may remember it.
        let mut seen = std::collections::HashSet::with_capacity(deals.len());
        if let Some((i, _)) = deals
            .iter()
            .enumerate()
            .find(|(_, d)| !seen.insert(d.as_str()))
        {
            return Err(BookError::Invalid(format!(
                "deal {i} is also an earlier deal of the book: a book holds each deal once"
            )));
        }
        if let Some(v) = &variant {
            check_variant(v)?;
        }
        let root = merkle::Tree::of(&deals).root();
        let commitment = merkle::commitment(variant.as_deref(), deals.len() as u64, &root);
        Ok(DealBook {
            variant,
            len: deals.len(),
            deals: Deals::All(deals),
            commitment,
        })
    }

    /// `count` fresh deals: 256 bits each from the operating system's generator, independent,
    /// for any variant.
    ///
    /// # Errors
    /// `count` out of range, or no randomness to draw.
    pub fn fresh(count: usize) -> Result<DealBook, BookError> {
        if count == 0 || count > MAX_DEALS {
            return Err(BookError::Invalid(format!(
                "a deal book holds 1 to {MAX_DEALS} deals, not {count}"
            )));
        }
        let deals = (0..count)
            .map(|_| {
                let mut bytes = [0u8; 32];
                getrandom::fill(&mut bytes)
                    .map(|()| hex(&bytes))
                    .map_err(|e| BookError::Invalid(format!("cannot draw a random deal: {e}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        DealBook::new(None, deals)
    }

    /// The deals of tournament games, in the order of the records given (and by deal number
    /// within an event), each once; their variant is the book's.
    ///
    /// # Errors
    /// No tournament game, a game dealt with client seeds (its server seed alone is not its
    /// deal), games of several variants, or too many deals.
    pub fn from_records(records: &[(String, GameRecord)]) -> Result<DealBook, BookError> {
        let mut variant: Option<&str> = None;
        let mut seen = std::collections::HashSet::new();
        let mut deals = Vec::new();
        for (at, r) in records {
            let Some(tag) = &r.tournament else { continue };
            if !r.seeds.clients.is_empty() {
                return Err(BookError::Invalid(format!(
                    "{at}: game {} was dealt with client seeds too, so its server seed alone is not its deal",
                    tag.index
                )));
            }
            match variant {
                None => variant = Some(&r.variant),
                Some(v) if v != r.variant => {
                    return Err(BookError::Invalid(format!(
                        "{at}: game {} is a game of {}, the games before it of {v}: a book holds the deals of one variant",
                        tag.index, r.variant
                    )))
                }
                Some(_) => {}
            }
            if seen.insert(r.seeds.server.as_str()) {
                deals.push(r.seeds.server.clone());
            }
        }
        if deals.is_empty() {
            return Err(BookError::Invalid(
                "the records hold no tournament game: a book is made of the deals of tournaments and matches".into(),
            ));
        }
        DealBook::new(variant.map(str::to_string), deals)
    }

    /// Reads a book, checking it is whole (its deals match the commitment written in it), or
    /// a proof of some of its entries (`anqi book prove`), checking every entry against the
    /// commitment written in it.
    ///
    /// # Errors
    /// An unreadable file, one over [`MAX_BOOK_BYTES`], or one that is not a whole book or
    /// proof.
    pub fn read(path: &Path) -> Result<DealBook, BookError> {
        let not = |why: String| BookError::NotABook {
            path: path.into(),
            why,
        };
        let text = secret_file::read(path, MAX_BOOK_BYTES).map_err(|e| match e {
            secret_file::ReadError::Io(source) => BookError::Read {
                path: path.into(),
                source,
            },
            secret_file::ReadError::TooLarge => not(format!("more than {MAX_BOOK_BYTES} bytes")),
        })?;
        #[derive(Deserialize)]
        struct Kind {
            kind: String,
        }
        let kind: Kind = serde_json::from_str(&text).map_err(|e| not(e.to_string()))?;
        if kind.kind == proof::PROOF_KIND {
            return proof::read(&text).map_err(not);
        }
        let file: BookText = serde_json::from_str(&text).map_err(|e| not(e.to_string()))?;
        if file.kind != BOOK_KIND {
            return Err(not(format!("its kind is {:?}", file.kind)));
        }
        let book = DealBook::new(file.variant, file.deals).map_err(|e| not(e.to_string()))?;
        if book.commitment != file.commitment {
            return Err(not(
                "its deals do not match the commitment written in it: the file was changed (or written before books committed to a Merkle tree of their entries: write it again)".into(),
            ));
        }
        Ok(book)
    }

    /// Writes the book to a new file (never an existing one), readable by its owner alone.
    ///
    /// # Errors
    /// The file exists, or cannot be written.
    pub fn write(&self, path: &Path) -> Result<(), BookError> {
        let Deals::All(deals) = &self.deals else {
            return Err(BookError::Invalid(
                "a proof of some entries is not a book: it cannot be written as one".into(),
            ));
        };
        let mut text = serde_json::to_string(&BookText {
            kind: BOOK_KIND.into(),
            variant: self.variant.clone(),
            commitment: self.commitment.clone(),
            deals: deals.clone(),
        })
        .expect("a book serializes");
        text.push('\n');
        secret_file::create(path, &text).map_err(|source| BookError::Write {
            path: path.into(),
            source,
        })
    }

    /// How many deals the whole book holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds none (never, once made).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether this is the whole book, not a proof of some of its entries: an event plays
    /// only a whole book.
    pub fn is_whole(&self) -> bool {
        matches!(self.deals, Deals::All(_))
    }

    /// How many entries a proof holds (the whole book's length for a book).
    pub fn proven(&self) -> usize {
        match &self.deals {
            Deals::All(deals) => deals.len(),
            Deals::Proven(entries) => entries.len(),
        }
    }

    /// Entry `entry`'s deal, when this book (or proof) holds it.
    pub fn deal(&self, entry: u64) -> Option<&str> {
        match &self.deals {
            Deals::All(deals) => deals.get(usize::try_from(entry).ok()?).map(String::as_str),
            Deals::Proven(entries) => entries.get(&entry).map(String::as_str),
        }
    }

    /// A proof of `entries` (entries past the book are left out), as its file's text: every
    /// one with its deal and its Merkle path, which anyone checks against the commitment
    /// without the book's other entries.
    ///
    /// # Errors
    /// A proof of a proof, or no entry to prove.
    pub fn prove(&self, entries: &std::collections::BTreeSet<u64>) -> Result<String, BookError> {
        let Deals::All(deals) = &self.deals else {
            return Err(BookError::Invalid(
                "give the book itself: a proof of some entries cannot prove others".into(),
            ));
        };
        proof::text(self, deals, entries)
    }

    /// The variant it was written for (`None`: any).
    pub fn variant(&self) -> Option<&str> {
        self.variant.as_deref()
    }

    /// Its commitment: 64 hex digits.
    pub fn commitment(&self) -> &str {
        &self.commitment
    }
}

/// A variant's name as a book names it.
fn check_variant(v: &str) -> Result<(), BookError> {
    if v.is_empty() || v.len() > 64 || v.chars().any(char::is_control) {
        return Err(BookError::Invalid(format!("{v:?} is not a variant name")));
    }
    Ok(())
}

/// A deal a book may hold: a server seed as records write them.
fn fit_deal(d: &str) -> bool {
    !d.is_empty()
        && d.len() <= MAX_DEAL_BYTES
        && d.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// In which order an event plays a book's entries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BookOrder {
    /// Entry `skip + n` for deal `n`.
    #[default]
    Sequential,
    /// The book shuffled by the event's master seed: no one who has the book but not the
    /// seed knows which of its deals come next. It hides nothing from an engine that has
    /// seen the book's deals played: it narrows a game down to them after a few reveals.
    Random,
}

impl BookOrder {
    /// How an event takes a book's entries in this order, passing over `skip` of them:
    /// `sequential order from entry S`, or `random order`.
    pub fn describe(self, skip: u64) -> String {
        match self {
            BookOrder::Sequential => format!("sequential order from entry {skip}"),
            BookOrder::Random => "random order".into(),
        }
    }

    /// As the records write it.
    pub fn as_str(self) -> &'static str {
        match self {
            BookOrder::Sequential => "sequential",
            BookOrder::Random => "random",
        }
    }
}

impl std::str::FromStr for BookOrder {
    type Err = String;
    fn from_str(s: &str) -> Result<BookOrder, String> {
        match s {
            "sequential" => Ok(BookOrder::Sequential),
            "random" => Ok(BookOrder::Random),
            other => Err(format!(
                "{other:?} is not a book order: sequential or random"
            )),
        }
    }
}

/// An event's use of a book: which entry each of its deals is.
#[derive(Clone)]
pub struct BookPlan {
    book: std::sync::Arc<DealBook>,
    order: BookOrder,
    skip: u64,
    /// Random order: the entry of each deal, deal 0 first.
    shuffled: Vec<u64>,
}

// The order of a random plan is as secret as the master seed that makes it.
impl std::fmt::Debug for BookPlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "BookPlan({:?}, {} order, skip {})",
            self.book,
            self.order.as_str(),
            self.skip
        )
    }
}

impl BookPlan {
    /// The entries of `deals` deals from `book`, in `order` (skipping `skip` entries, in
    /// sequential order); random order shuffles by `master`.
    ///
    /// # Errors
    /// A book too short for the deals, or `skip` with random order.
    pub fn new(
        book: std::sync::Arc<DealBook>,
        order: BookOrder,
        skip: u64,
        master: &MasterSeed,
        deals: u64,
    ) -> Result<BookPlan, BookError> {
        let len = book.len() as u64;
        if order == BookOrder::Random && skip > 0 {
            return Err(BookError::Invalid(
                "a book in random order skips no entries: leave out skip, or play it in sequential order".into(),
            ));
        }
        if skip.saturating_add(deals) > len {
            return Err(BookError::Invalid(format!(
                "the event plays {deals} deals{}, but the book holds {len}: no deal is played twice, so play fewer deals{}, or write a larger book (anqi book new --deals {}: new deals, not these)",
                if skip > 0 { format!(" from entry {skip}") } else { String::new() },
                if skip > 0 { " or skip fewer entries" } else { "" },
                skip.saturating_add(deals).min(MAX_DEALS as u64),
            )));
        }
        let shuffled = match order {
            BookOrder::Sequential => Vec::new(),
            BookOrder::Random => shuffle(master, book.commitment(), len, deals),
        };
        Ok(BookPlan {
            book,
            order,
            skip,
            shuffled,
        })
    }

    /// The book.
    pub fn book(&self) -> &DealBook {
        &self.book
    }

    /// The order its entries are played in.
    pub fn order(&self) -> BookOrder {
        self.order
    }

    /// Sequential order: the entries passed over before deal 0's.
    pub fn skip(&self) -> u64 {
        self.skip
    }

    /// How the event takes the book's entries, as its start says it: `sequential order from
    /// entry S`, or `random order`.
    pub fn describe(&self) -> String {
        self.order.describe(self.skip)
    }

    /// How many deals it can give.
    pub fn deals(&self) -> u64 {
        match self.order {
            BookOrder::Sequential => self.book.len() as u64 - self.skip,
            BookOrder::Random => self.shuffled.len() as u64,
        }
    }

    /// The entry deal `deal` is, when the plan reaches it.
    pub fn entry(&self, deal: u64) -> Option<u64> {
        match self.order {
            BookOrder::Sequential => self
                .skip
                .checked_add(deal)
                .filter(|&e| e < self.book.len() as u64),
            BookOrder::Random => usize::try_from(deal)
                .ok()
                .and_then(|d| self.shuffled.get(d).copied()),
        }
    }

    /// Deal `deal`'s server seed and its records' tag.
    pub fn deal(&self, deal: u64) -> Option<(&str, BookTag)> {
        let entry = self.entry(deal)?;
        let seed = self.book.deal(entry)?;
        Some((
            seed,
            BookTag {
                commitment: self.book.commitment.clone(),
                order: self.order.as_str().into(),
                entry,
            },
        ))
    }
}

/// The first `take` entries of a Fisher-Yates shuffle of `0..len` keyed by the master seed
/// (and the book, so that two books played by one event are shuffled apart): step `i` swaps
/// position `i` with `i + r mod (len - i)`, `r` a 128-bit number from
/// `HMAC-SHA256(master, "book order\nCOMMITMENT\ni")` (its bias is below 2^-100). Only the
/// positions touched are kept, so a large book costs as much as the deals played.
fn shuffle(master: &MasterSeed, book: &str, len: u64, take: u64) -> Vec<u64> {
    let mut moved: HashMap<u64, u64> = HashMap::new();
    let mut out = Vec::with_capacity(usize::try_from(take).unwrap_or(0));
    for i in 0..take.min(len) {
        let bytes = master.keyed_for(&format!("book order\n{book}\n{i}"));
        let r = u128::from_be_bytes(bytes[..16].try_into().expect("16 bytes"));
        let j = i + u64::try_from(r % u128::from(len - i)).expect("below len");
        let at_j = moved.get(&j).copied().unwrap_or(j);
        let at_i = moved.get(&i).copied().unwrap_or(i);
        moved.insert(j, at_i);
        out.push(at_j);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn book(n: usize) -> Arc<DealBook> {
        Arc::new(DealBook::new(None, (0..n).map(|i| format!("d{i}")).collect()).unwrap())
    }

    #[test]
    fn sequential_order_plays_entries_from_skip_and_refuses_a_short_book() {
        let master = MasterSeed::fixed("m").unwrap();
        let plan = BookPlan::new(book(5), BookOrder::Sequential, 2, &master, 3).unwrap();
        assert_eq!(plan.deal(0).unwrap().0, "d2");
        assert_eq!(plan.deal(2).unwrap().1.entry, 4);
        assert_eq!(plan.deal(3), None);
        let e = BookPlan::new(book(5), BookOrder::Sequential, 3, &master, 3).unwrap_err();
        assert!(
            e.to_string()
                .contains("plays 3 deals from entry 3, but the book holds 5"),
            "{e}"
        );
        assert!(BookPlan::new(book(5), BookOrder::Random, 1, &master, 1).is_err());
    }

    #[test]
    fn random_order_is_a_shuffle_keyed_by_the_master_seed() {
        let a = MasterSeed::fixed("a").unwrap();
        let b = MasterSeed::fixed("b").unwrap();
        let all = |m: &MasterSeed| {
            let plan = BookPlan::new(book(50), BookOrder::Random, 0, m, 50).unwrap();
            (0..50).map(|d| plan.entry(d).unwrap()).collect::<Vec<_>>()
        };
        let (x, y) = (all(&a), all(&b));
        let mut sorted = x.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..50).collect::<Vec<_>>(), "a permutation");
        assert_ne!(x, y, "another seed, another order");
        assert_ne!(x, (0..50).collect::<Vec<_>>());
        // The first deals do not depend on how many are taken.
        let few = BookPlan::new(book(50), BookOrder::Random, 0, &a, 7).unwrap();
        assert_eq!(
            (0..7).map(|d| few.entry(d).unwrap()).collect::<Vec<_>>(),
            x[..7]
        );
        assert_eq!(few.entry(7), None);
    }

    #[test]
    fn a_huge_deal_number_is_past_the_book_not_an_overflow() {
        let master = MasterSeed::fixed("m").unwrap();
        let plan = BookPlan::new(book(5), BookOrder::Sequential, 2, &master, 3).unwrap();
        assert_eq!(plan.entry(u64::MAX), None);
        assert_eq!(plan.deal(u64::MAX - 1), None);
        let random = BookPlan::new(book(5), BookOrder::Random, 0, &master, 5).unwrap();
        assert_eq!(random.entry(u64::MAX), None);
        // A plan never prints its order.
        assert!(!format!("{random:?}").contains('['), "{random:?}");
    }

    #[test]
    fn a_book_holds_each_deal_once_and_no_more_than_it_may() {
        let e = DealBook::new(None, vec!["a".into(), "b".into(), "a".into()]).unwrap_err();
        assert!(
            e.to_string().contains("deal 2 is also an earlier deal"),
            "{e}"
        );
        // A file of more deals than a book holds is refused as it is read.
        let dir = std::env::temp_dir().join(format!("anqi-book-big-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("big.book");
        let deals = vec!["\"a\""; MAX_DEALS + 1].join(",");
        std::fs::write(
            &path,
            format!("{{\"kind\":\"anqi-deal-book\",\"commitment\":\"x\",\"deals\":[{deals}]}}"),
        )
        .unwrap();
        let e = DealBook::read(&path).unwrap_err().to_string();
        assert!(e.contains("more than 1000000 deals"), "{e}");
        std::fs::write(
            &path,
            r#"{"kind":"anqi-deal-book","commitment":"x","deals":["a b"]}"#,
        )
        .unwrap();
        let e = DealBook::read(&path).unwrap_err().to_string();
        assert!(e.contains("deal 0 is not a server seed"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn books_are_bounded_checked_and_private() {
        assert!(DealBook::new(None, vec![]).is_err());
        assert!(DealBook::new(None, vec!["a b".into()]).is_err());
        assert!(DealBook::new(None, vec!["x".repeat(MAX_DEAL_BYTES + 1)]).is_err());
        let fresh = DealBook::fresh(3).unwrap();
        assert_eq!(fresh.len(), 3);
        assert!(!format!("{fresh:?}").contains(fresh.deal(0).unwrap()));
        let dir = std::env::temp_dir().join(format!("anqi-book-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("deals.book");
        let _ = std::fs::remove_file(&path);
        fresh.write(&path).unwrap();
        assert_eq!(DealBook::read(&path).unwrap(), fresh);
        assert!(fresh.write(&path).is_err(), "never replaced");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o077, 0, "mode {mode:o}");
        }
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace(fresh.deal(1).unwrap(), &"0".repeat(64))).unwrap();
        let e = DealBook::read(&path).unwrap_err().to_string();
        assert!(e.contains("do not match the commitment"), "{e}");
        std::fs::write(&path, "[]").unwrap();
        assert!(matches!(
            DealBook::read(&path),
            Err(BookError::NotABook { .. })
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
