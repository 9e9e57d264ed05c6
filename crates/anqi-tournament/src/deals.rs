//! Checking an event's deals from its records: that its games share one commitment, that each
//! was dealt from the master seed as its deal number says, and that they are a whole event as a
//! schedule deals it (`anqi report --seed-file`, `anqi replay --seed-file`, a resumed run).

use crate::seeds::MasterSeed;
use anqi_core::record::{GameRecord, TournamentTag};
use serde::Serialize;

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

/// Checks one tournament game against the revealed master seed `seed`: it carries the seed's
/// commitment, and its deal was dealt from the seed (the server seed derived for its deal
/// number, no client seeds). A game from outside a tournament is left alone (`Ok(false)`).
///
/// # Errors
/// Why the game does not match.
pub fn check_deal(record: &GameRecord, seed: &MasterSeed) -> Result<bool, DealsError> {
    let Some(tag) = &record.tournament else {
        return Ok(false);
    };
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

/// Checks every tournament game of `records` against the revealed master seed `seed`, as
/// [`check_deal`] does; with no seed, only that the games share one commitment.
///
/// # Errors
/// Games committed to different seeds, or the first game that does not match the seed.
pub fn check_deals(
    records: &[GameRecord],
    seed: Option<&MasterSeed>,
) -> Result<DealsCheck, DealsError> {
    let commitment = commitment_of(records)?;
    let Some(seed) = seed else {
        return Ok(DealsCheck {
            commitment,
            checked: 0,
            deals: 0,
            verified: false,
        });
    };
    let mut checked = 0;
    for r in records {
        if check_deal(r, seed)? {
            checked += 1;
        }
    }
    let deals = check_whole(records)?;
    Ok(DealsCheck {
        commitment,
        checked,
        deals,
        verified: true,
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
        if tag.deal + 1 == expected {
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
        assert_eq!(check_deal(&dealt(0, 0), &seed), Ok(true));
        assert_eq!(
            check_deal(&game(3, 1, None, "x"), &seed),
            Err(DealsError::Uncommitted { game: 3 })
        );
        let e = check_deal(&game(2, 1, Some(&c), "x"), &seed).unwrap_err();
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
            check_deal(&dealt(0, 0), &other),
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
        let check = check_deals(&whole, Some(&seed)).unwrap();
        assert_eq!((check.checked, check.deals, check.verified), (4, 2, true));
    }
}
