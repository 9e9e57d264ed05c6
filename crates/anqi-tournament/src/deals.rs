//! Where an event's deals come from ([`Dealer`]: its master seed, or the deal book it plays),
//! and checking them from its records: that its games share one commitment, that each was
//! dealt as its deal number says, and that they are a whole event as a schedule deals it
//! (`anqi report --seed-file [--book]`, `anqi replay --seed-file [--book]`, a resumed run).

use crate::book::{BookOrder, BookPlan, DealBook};
use crate::seeds::MasterSeed;
use anqi_core::record::{BookTag, GameRecord, TournamentTag};
use serde::Serialize;
use std::sync::Arc;

/// Where an event's deals come from: deal `n` is dealt from its master seed
/// ([`MasterSeed::deal_seed`]) or, with a book, from the book's entry for `n`
/// ([`BookPlan`]).
#[derive(Clone, Debug)]
pub struct Dealer {
    pub master: MasterSeed,
    pub book: Option<BookPlan>,
}

impl Dealer {
    /// Deals from the master seed alone.
    pub fn of(master: MasterSeed) -> Dealer {
        Dealer { master, book: None }
    }

    /// Deal `deal`'s server seed, with its records' book tag when it comes from the book;
    /// `None` past the book's end.
    pub fn deal(&self, deal: u64) -> Option<(String, Option<BookTag>)> {
        match &self.book {
            None => Some((self.master.deal_seed(deal), None)),
            Some(plan) => plan.deal(deal).map(|(s, t)| (s.to_string(), Some(t))),
        }
    }
}

/// How the deals of some tournament records stand against a master seed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DealsCheck {
    /// The commitment the records carry (`None` when they carry none: an older anqi's).
    pub commitment: Option<String>,
    /// Tournament games whose deal was checked against the revealed seed (0 when no seed was
    /// given).
    pub checked: usize,
    /// The deals they play, once checked (0 when no seed was given).
    pub deals: u64,
    /// Whether a seed was given and every game's deal matched it.
    pub verified: bool,
    /// The commitment of the deal book the games were dealt from (`None`: from the master
    /// seed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub book: Option<String>,
    /// How the games took the book's entries, once checked: `sequential order from entry S`
    /// or `random order` ([`BookPlan::describe`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub book_order: Option<String>,
}

/// Why tournament records do not match a master seed's commitment, or are not a whole event
/// ([`commitment_of`], [`check_deal`], [`check_whole`], [`check_deals`]). Each names the game
/// or deal concerned.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DealsError {
    /// Two games carry different commitments (`None`: none at all): not one event's games.
    #[error("game {game} is committed to master seed {} but game {first_game} to {}: the records are not one event's", or_none(.commitment), or_none(.first))]
    Commitments {
        game: u64,
        commitment: Option<String>,
        first_game: u64,
        first: Option<String>,
    },
    /// The game is committed to another master seed than the one given.
    #[error("game {game}: the record is committed to master seed {commitment}, but the seed given has commitment {expected}: it is not this event's master seed")]
    OtherSeed {
        game: u64,
        commitment: String,
        expected: String,
    },
    /// The game carries no commitment (an older anqi's record): its deal cannot be checked.
    #[error("game {game}: the record carries no commitment (written by an older anqi, whose deals were not committed to): its deal cannot be checked")]
    Uncommitted { game: u64 },
    /// The game was not dealt from the master seed as its deal number says: it has client
    /// seeds, or another server seed.
    #[error("game {game}: it was not dealt from the master seed as deal {deal} ({}): the record was changed", match server_seed { Some(seed) => format!("its server seed is {seed:?}"), None => "it has client seeds".to_string() })]
    NotDealt {
        game: u64,
        deal: u64,
        /// The record's server seed; `None` when it has client seeds.
        server_seed: Option<String>,
    },
    /// The game was dealt from a deal book, which was not given.
    #[error("game {game} was dealt from the deal book with commitment {}: give that book (--book FILE) to check its deal", shown(.commitment))]
    BookNotGiven { game: u64, commitment: String },
    /// A deal book was given (or this run plays one), but the game was dealt from the master
    /// seed.
    #[error("game {game} was dealt from the master seed, not from the deal book with commitment {commitment}")]
    NotFromBook { game: u64, commitment: String },
    /// The game was dealt from another deal book than the one given.
    #[error("game {game} was dealt from the deal book with commitment {}, but the book given has commitment {expected}: it is not that book", shown(.commitment))]
    OtherBook {
        game: u64,
        commitment: String,
        expected: String,
    },
    /// Two games play their book differently (another book, another order, or not at all).
    #[error("game {game} takes its deal from {}, but game {first_game} from {}: the records are not one event's", book_words(.book), book_words(.first))]
    Books {
        game: u64,
        book: Option<(String, String)>,
        first_game: u64,
        first: Option<(String, String)>,
    },
    /// The book given is a proof that does not hold the game's entry.
    #[error("game {game}: its deal is the book's entry {entry}, which the proof given does not hold: give the book, or a proof of this event's entries (anqi book prove BOOK RECORDS)")]
    NotProven { game: u64, entry: u64 },
    /// The game names a book order anqi does not know.
    #[error(
        "game {game}: {order:?} is not a book order (sequential or random): the record was changed"
    )]
    UnknownOrder { game: u64, order: String },
    /// The game's deal is not the book's entry its deal number and the event's order give.
    #[error("game {game}: deal {deal} is not {}: the record was changed", match entry { Some(e) => format!("the book's entry {e}, as the event's order of the book gives it"), None => "in the book, in the event's order of the book".to_string() })]
    NotTheEntry {
        game: u64,
        deal: u64,
        /// The entry the deal should be; `None` past the book's end.
        entry: Option<u64>,
    },
    /// A game number is missing: the next one present is `next`.
    #[error("game {game} is missing (the next game is {next}): the records are not a whole event (merge every shard of it first)")]
    GameMissing { game: u64, next: u64 },
    /// A game plays a deal out of order (`before`: the deal before it, -1 for none).
    #[error("game {game} plays deal {deal}, but the deals come in order and the one before it was {before}: no schedule deals so")]
    DealOutOfOrder { game: u64, deal: u64, before: i64 },
    /// A deal (not the last) was played in another number of games than deal 0.
    #[error("deal {deal} was played in {games} games, but deal 0 in {first}: some games of a deal are missing")]
    DealUneven {
        deal: u64,
        games: usize,
        first: usize,
    },
    /// The last deal was played in more games than deal 0.
    #[error("the last deal was played in {games} games, more than deal 0's {first}")]
    LastDealLonger { games: usize, first: usize },
}

/// A book and order as [`DealsError::Books`] names them.
fn book_words(book: &Option<(String, String)>) -> String {
    match book {
        Some((c, order)) => format!("the deal book {} in {} order", shown(c), shown(order)),
        None => "the master seed".into(),
    }
}

/// A word from a record as an error message shows it: as it is when it is letters and digits
/// (a commitment, an order), quoted and escaped otherwise, so that a crafted record cannot
/// write to the terminal.
fn shown(word: &str) -> String {
    if word.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
        word.to_string()
    } else {
        format!("{word:?}")
    }
}

/// A commitment as [`DealsError::Commitments`] names it: `none` for none.
fn or_none(commitment: &Option<String>) -> &str {
    commitment.as_deref().unwrap_or("none")
}

/// The one commitment of `records` (tournament games only).
///
/// # Errors
/// When the games carry different commitments (not one event), or some carry one and some
/// none.
pub fn commitment_of(records: &[GameRecord]) -> Result<Option<String>, DealsError> {
    let mut found: Option<(Option<&str>, u64)> = None;
    for r in records {
        let Some(tag) = &r.tournament else { continue };
        let c = tag.commitment.as_deref();
        match found {
            None => found = Some((c, tag.index)),
            Some((first, index)) if first != c => {
                return Err(DealsError::Commitments {
                    game: tag.index,
                    commitment: c.map(str::to_string),
                    first_game: index,
                    first: first.map(str::to_string),
                });
            }
            Some(_) => {}
        }
    }
    Ok(found.and_then(|(c, _)| c.map(str::to_string)))
}

/// Checks one tournament game against the event's revealed master seed and its book
/// (`dealer`): it carries the seed's commitment, and its deal was dealt as its deal number
/// says (the server seed derived for it, or the book's entry for it; no client seeds). A game
/// from outside a tournament is left alone (`Ok(false)`).
///
/// # Errors
/// Why the game does not match.
pub fn check_deal(record: &GameRecord, dealer: &Dealer) -> Result<bool, DealsError> {
    let Some(tag) = &record.tournament else {
        return Ok(false);
    };
    let seed = &dealer.master;
    let expected = seed.commitment();
    match tag.commitment.as_deref() {
        Some(c) if c == expected => {}
        Some(c) => {
            return Err(DealsError::OtherSeed {
                game: tag.index,
                commitment: c.to_string(),
                expected,
            })
        }
        None => return Err(DealsError::Uncommitted { game: tag.index }),
    }
    let game = tag.index;
    match (&tag.book, &dealer.book) {
        (None, None) => {}
        (Some(t), None) => {
            return Err(DealsError::BookNotGiven {
                game,
                commitment: t.commitment.clone(),
            })
        }
        (None, Some(plan)) => {
            return Err(DealsError::NotFromBook {
                game,
                commitment: plan.book().commitment().into(),
            })
        }
        (Some(t), Some(plan)) => {
            if t.commitment != plan.book().commitment() {
                return Err(DealsError::OtherBook {
                    game,
                    commitment: t.commitment.clone(),
                    expected: plan.book().commitment().into(),
                });
            }
            let entry = plan.entry(tag.deal);
            // A proof without the entry the game names, and its order gives: not a changed
            // record, an incomplete proof.
            if let Some(e) = entry.filter(|&e| e == t.entry && plan.book().deal(e).is_none()) {
                return Err(DealsError::NotProven { game, entry: e });
            }
            let dealt = plan.deal(tag.deal);
            let right = dealt.is_some_and(|(seed, expected)| {
                &expected == t && record.seeds.clients.is_empty() && record.seeds.server == seed
            });
            if !right {
                return Err(DealsError::NotTheEntry {
                    game,
                    deal: tag.deal,
                    entry,
                });
            }
            return Ok(true);
        }
    }
    if !record.seeds.clients.is_empty() || record.seeds.server != seed.deal_seed(tag.deal) {
        return Err(DealsError::NotDealt {
            game: tag.index,
            deal: tag.deal,
            server_seed: record
                .seeds
                .clients
                .is_empty()
                .then(|| record.seeds.server.clone()),
        });
    }
    Ok(true)
}

/// Checks every tournament game of `records` against the revealed master seed `seed` and,
/// when the event played one, its deal book `book`, as [`check_deal`] does; with no seed,
/// only that the games share one commitment and one book.
///
/// # Errors
/// Games committed to different seeds or books, a book the games played not given (or one
/// given that they did not play), or the first game that does not match.
pub fn check_deals(
    records: &[GameRecord],
    seed: Option<&MasterSeed>,
    book: Option<&DealBook>,
) -> Result<DealsCheck, DealsError> {
    let commitment = commitment_of(records)?;
    let played = book_of(records)?;
    let Some(seed) = seed else {
        return Ok(DealsCheck {
            commitment,
            checked: 0,
            deals: 0,
            verified: false,
            book: played
                .and_then(|t| t.book.as_ref())
                .map(|b| b.commitment.clone()),
            book_order: None,
        });
    };
    let dealer = dealer_for(records, seed, book)?;
    let mut checked = 0;
    for r in records {
        if check_deal(r, &dealer)? {
            checked += 1;
        }
    }
    let deals = check_whole(records)?;
    Ok(DealsCheck {
        commitment,
        checked,
        deals,
        verified: true,
        book: played
            .and_then(|t| t.book.as_ref())
            .map(|b| b.commitment.clone()),
        book_order: dealer.book.as_ref().map(BookPlan::describe),
    })
}

/// The first tournament game of `records` when they were dealt from a deal book (its tag's
/// `book` is then set); `None` when they were dealt from the master seed.
///
/// # Errors
/// Games that take their deals differently (another book or order, or none).
pub fn book_of(records: &[GameRecord]) -> Result<Option<&TournamentTag>, DealsError> {
    let words = |t: &TournamentTag| {
        t.book
            .as_ref()
            .map(|b| (b.commitment.clone(), b.order.clone()))
    };
    let mut tags = records.iter().filter_map(|r| r.tournament.as_ref());
    let Some(first) = tags.next() else {
        return Ok(None);
    };
    if let Some(other) = tags.find(|t| words(t) != words(first)) {
        return Err(DealsError::Books {
            game: other.index,
            book: words(other),
            first_game: first.index,
            first: words(first),
        });
    }
    Ok(first.book.is_some().then_some(first))
}

/// The dealer that checks the games of one event, `records`: the master seed, and the book
/// they played when they played one (their first game gives its order and, in sequential
/// order, its first entry), planned to its end.
///
/// # Errors
/// Games that take their deals differently, a book they played not given, one given that
/// they did not play, or another book.
pub fn dealer_for(
    records: &[GameRecord],
    seed: &MasterSeed,
    book: Option<&DealBook>,
) -> Result<Dealer, DealsError> {
    let (first, book) = match (book_of(records)?, book) {
        (None, None) => return Ok(Dealer::of(seed.clone())),
        (None, Some(b)) => {
            let game = records.iter().find_map(|r| r.tournament.as_ref());
            return Err(DealsError::NotFromBook {
                game: game.map_or(0, |t| t.index),
                commitment: b.commitment().into(),
            });
        }
        (Some(first), book) => (first, book),
    };
    let tag = first.book.as_ref().expect("a game dealt from a book");
    let Some(book) = book else {
        return Err(DealsError::BookNotGiven {
            game: first.index,
            commitment: tag.commitment.clone(),
        });
    };
    if tag.commitment != book.commitment() {
        return Err(DealsError::OtherBook {
            game: first.index,
            commitment: tag.commitment.clone(),
            expected: book.commitment().into(),
        });
    }
    let not_the_entry = |deal| DealsError::NotTheEntry {
        game: first.index,
        deal,
        entry: None,
    };
    let order: BookOrder = tag.order.parse().map_err(|_| DealsError::UnknownOrder {
        game: first.index,
        order: tag.order.clone(),
    })?;
    // Sequential: the event's first entry is its first game's entry less its deal number.
    let skip = match order {
        BookOrder::Sequential => tag
            .entry
            .checked_sub(first.deal)
            .ok_or_else(|| not_the_entry(first.deal))?,
        BookOrder::Random => 0,
    };
    // A game whose deal is past the book's end is refused by `check_deal`.
    let deals = (book.len() as u64).saturating_sub(skip);
    let plan = BookPlan::new(Arc::new(book.clone()), order, skip, seed, deals)
        .map_err(|_| not_the_entry(first.deal))?;
    Ok(Dealer {
        master: seed.clone(),
        book: Some(plan),
    })
}

/// Checks that tournament records are a whole event as a schedule deals it, so that the
/// revealed seed proves every deal was played, in order: the games numbered 0 to N-1 with none
/// missing, their deals 0, 1, 2, ... in the order of the games (every schedule deals in that
/// order: `schedule::build`), and every deal played by as many games as the first, but the last
/// (an event the SPRT stopped may end in the middle of a deal). Without this, an organizer who
/// knows the seed could leave out the games of a deal it disliked, or play other deal numbers.
///
/// Returns the number of deals. Leaving out the last deals whole is not seen here (the records
/// are then those of a shorter event): compare it with the event's announced `deals`.
///
/// # Errors
/// The first game or deal out of place, named.
pub fn check_whole(records: &[GameRecord]) -> Result<u64, DealsError> {
    let mut tags: Vec<&TournamentTag> = records
        .iter()
        .filter_map(|r| r.tournament.as_ref())
        .collect();
    tags.sort_by_key(|t| t.index);
    let mut per_deal: Vec<usize> = Vec::new();
    for (i, tag) in tags.iter().enumerate() {
        if tag.index != i as u64 {
            return Err(DealsError::GameMissing {
                game: i as u64,
                next: tag.index,
            });
        }
        let expected = per_deal.len() as u64;
        // Checked: a crafted deal number of u64::MAX is out of order, not an overflow.
        if tag.deal.checked_add(1) == Some(expected) {
            *per_deal.last_mut().expect("a deal") += 1;
        } else if tag.deal == expected {
            per_deal.push(1);
        } else {
            return Err(DealsError::DealOutOfOrder {
                game: i as u64,
                deal: tag.deal,
                before: expected as i64 - 1,
            });
        }
    }
    if let Some((&first, middle)) = per_deal.split_first() {
        let middle = &middle[..middle.len().saturating_sub(1)];
        if let Some(d) = middle.iter().position(|&n| n != first) {
            return Err(DealsError::DealUneven {
                deal: d as u64 + 1,
                games: middle[d],
                first,
            });
        }
        if per_deal.len() > 1 && per_deal[per_deal.len() - 1] > first {
            return Err(DealsError::LastDealLonger {
                games: per_deal[per_deal.len() - 1],
                first,
            });
        }
    }
    Ok(per_deal.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tournament game `index` of deal `deal`, committed to `commitment`, dealt from
    /// `server` with no client seeds.
    fn game(index: u64, deal: u64, commitment: Option<&str>, server: &str) -> GameRecord {
        serde_json::from_value(serde_json::json!({
            "format": 1, "game": index + 1, "started_unix_ms": 0, "variant": "traditional",
            "variant_source": "", "seeds": {"clients": [], "server": server},
            "players": [], "plies": [], "faults": [], "final_board": "",
            "result": {"win": "", "winner": 0, "winner_side": null, "reason": "resign",
                       "plies": 0, "turns": 0},
            "tournament": {"index": index, "deal": deal, "engines": [],
                           "commitment": commitment},
        }))
        .unwrap()
    }

    #[test]
    fn records_that_do_not_match_the_seed_say_which_game() {
        let seed = MasterSeed::fixed("s").unwrap();
        let c = seed.commitment();
        let dealt = |index, deal| game(index, deal, Some(&c), &seed.deal_seed(deal));
        assert_eq!(
            check_deal(&dealt(0, 0), &Dealer::of(seed.clone())),
            Ok(true)
        );
        assert_eq!(
            check_deal(&game(3, 1, None, "x"), &Dealer::of(seed.clone())),
            Err(DealsError::Uncommitted { game: 3 })
        );
        let e = check_deal(&game(2, 1, Some(&c), "x"), &Dealer::of(seed.clone())).unwrap_err();
        assert_eq!(
            e,
            DealsError::NotDealt {
                game: 2,
                deal: 1,
                server_seed: Some("x".into())
            }
        );
        assert_eq!(
            e.to_string(),
            r#"game 2: it was not dealt from the master seed as deal 1 (its server seed is "x"): the record was changed"#
        );
        let other = MasterSeed::fixed("t").unwrap();
        assert!(matches!(
            check_deal(&dealt(0, 0), &Dealer::of(other)),
            Err(DealsError::OtherSeed { game: 0, .. })
        ));
        let mixed = [dealt(0, 0), game(1, 0, None, "x")];
        let e = commitment_of(&mixed).unwrap_err();
        assert!(
            matches!(
                e,
                DealsError::Commitments {
                    game: 1,
                    first_game: 0,
                    ..
                }
            ),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            format!("game 1 is committed to master seed none but game 0 to {c}: the records are not one event's")
        );
        // A whole event: games 0.. in order, every deal played as often as deal 0.
        let whole = [dealt(0, 0), dealt(1, 0), dealt(2, 1), dealt(3, 1)];
        assert_eq!(check_whole(&whole), Ok(2));
        assert_eq!(
            check_whole(&[dealt(0, 0), dealt(2, 1)]),
            Err(DealsError::GameMissing { game: 1, next: 2 })
        );
        assert_eq!(
            check_whole(&[dealt(0, 0), dealt(1, 2)]),
            Err(DealsError::DealOutOfOrder {
                game: 1,
                deal: 2,
                before: 0
            })
        );
        let uneven = [dealt(0, 0), dealt(1, 0), dealt(2, 1), dealt(3, 2)];
        assert!(matches!(
            check_whole(&uneven),
            Err(DealsError::DealUneven {
                deal: 1,
                games: 1,
                first: 2
            })
        ));
        assert!(matches!(
            check_whole(&[dealt(0, 0), dealt(1, 1), dealt(2, 1)]),
            Err(DealsError::LastDealLonger { games: 2, first: 1 })
        ));
        // A crafted deal number cannot overflow the count.
        assert!(matches!(
            check_whole(&[dealt(0, u64::MAX)]),
            Err(DealsError::DealOutOfOrder { game: 0, .. })
        ));
        // An order anqi does not know is named, escaped.
        let mut odd = dealt(0, 0);
        odd.tournament.as_mut().unwrap().book = Some(BookTag {
            commitment: "b".into(),
            order: "sideways\u{1b}".into(),
            entry: 0,
        });
        let book = DealBook::new(None, vec!["x".into()]).unwrap();
        odd.tournament
            .as_mut()
            .unwrap()
            .book
            .as_mut()
            .unwrap()
            .commitment = book.commitment().into();
        let e = check_deals(&[odd], Some(&seed), Some(&book)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "game 0: \"sideways\\u{1b}\" is not a book order (sequential or random): the record was changed"
        );
        let check = check_deals(&whole, Some(&seed), None).unwrap();
        assert_eq!((check.checked, check.deals, check.verified), (4, 2, true));
    }
}
