//! Record verification: re-derive each deal from its seeds, re-play every action through the
//! rules, and compare everything the record claims (each player's side and team, legal action
//! counts, revealed and captured pieces, the final board, the result) with what the rules say;
//! for a game the referee's endgame tables ended (`adjudicated`), with the tables given, probe
//! the final position again and compare their ruling with the record's.
//!
//! - this file: [`verify`] and [`verify_with`], claim by claim.
//! - `error`: [`ReplayError`], the first claim the rules contradict, and what it is about.

mod by_scores;
mod error;

pub use error::{AdjudicationFault, PlyFault, ReplayError};

use crate::record::{wire_team, Adjudication, GameRecord, PlyRecord};
use crate::rules::{Action, Game, Termination, Variant};
use crate::tables::{Material, TableRules, Tables, Verdict};
use crate::wire::ClientMessage;
use error::clip;
use std::sync::Arc;

/// How far a record that verified was checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checked {
    /// Every claim the record makes that the rules can check.
    All,
    /// Every claim but the endgame tables' ruling of an `adjudicated` game, for want of the
    /// tables: its final position is one the tables could rule on and its winner is the one
    /// its recorded verdict gives, but the verdict itself was not looked up
    /// ([`verify_with`] with the tables does).
    AdjudicationNotRechecked,
}

/// Checks one record, without endgame tables: [`verify_with`] with none (an `adjudicated`
/// record verifies as [`Checked::AdjudicationNotRechecked`]).
///
/// # Errors
/// The first claim of the record that the rules contradict ([`ReplayError`]).
pub fn verify(record: &GameRecord) -> Result<Checked, ReplayError> {
    verify_with(record, None)
}

/// Checks one record; `tables`: the endgame tables an `adjudicated` record's ruling is checked
/// against (they must be built for the record's variant's rules). Any record, however
/// corrupted or hostile, gets an answer: the description is read within its limits
/// (`rules::description`), and everything the rules would take on trust (player ids, the
/// loser, the deal, the adjudicated winner) is checked before they see it.
///
/// # Errors
/// The first claim of the record that the rules (or the tables) contradict ([`ReplayError`]).
pub fn verify_with(record: &GameRecord, tables: Option<&Tables>) -> Result<Checked, ReplayError> {
    let variant = Variant::parse(&record.variant_source).map_err(ReplayError::Description)?;
    if variant.name != record.variant {
        return Err(ReplayError::VariantName {
            named: clip(&record.variant),
            says: clip(&variant.name),
        });
    }
    if record.players.len() != variant.players {
        return Err(ReplayError::Players {
            recorded: record.players.len(),
            variant: variant.players,
        });
    }
    // Sides and teams, when the record has them (records written before they were have not).
    for (i, p) in record.players.iter().enumerate() {
        let id = i + 1;
        let side = variant.side_of(id);
        if let Some(recorded) = p.side.filter(|&s| s != side) {
            return Err(ReplayError::Side {
                player: id,
                recorded,
                side,
            });
        }
        let team = wire_team(&variant, id);
        if let Some(recorded) = p.team.filter(|&t| t != team) {
            return Err(ReplayError::Team {
                player: id,
                recorded,
                team,
            });
        }
    }
    let clients: Vec<&str> = record.players.iter().map(|p| p.seed.as_str()).collect();
    if !record.seeds.clients.is_empty() && record.seeds.clients != clients {
        return Err(ReplayError::Seeds);
    }
    let deal = record.seeds.deal_for(&variant);
    // `Game::new` asserts one deal entry per cell; the deal is derived from the variant, so this
    // holds, and is checked rather than trusted.
    if deal.cells.len() != variant.topology.size() || deal.face_up.len() != deal.cells.len() {
        return Err(ReplayError::DealSize {
            cells: deal.cells.len(),
            board: variant.topology.size(),
        });
    }
    let mut game = Game::new(Arc::new(variant), deal);
    for (i, ply) in record.plies.iter().enumerate() {
        replay_ply(&mut game, record, i, ply)
            .map_err(|fault| ReplayError::Ply { ply: i + 1, fault })?;
    }
    if let Some(cap) = record.max_plies {
        if game.ply() > cap {
            return Err(ReplayError::PastPlyCap {
                plies: game.ply(),
                cap,
            });
        }
    }
    by_scores::check(&game, record)?;
    let checked = rule_on_the_end(&mut game, record, tables)?;
    check_final_claims(&game, record)?;
    Ok(checked)
}

/// Checks the claims of ply number `i + 1`, `ply`, against the rules, then plays it.
fn replay_ply(
    game: &mut Game,
    record: &GameRecord,
    i: usize,
    ply: &PlyRecord,
) -> Result<(), PlyFault> {
    if ply.ply as usize != i + 1 {
        return Err(PlyFault::Numbered { numbered: ply.ply });
    }
    if game.outcome().is_some() {
        return Err(PlyFault::AfterTheEnd);
    }
    if ply.player != game.to_move() || ply.turn != game.round() {
        return Err(PlyFault::NotTheMover {
            player: ply.player,
            turn: ply.turn,
            to_move: game.to_move(),
            round: game.round(),
        });
    }
    if ply.legal != game.counts() {
        return Err(PlyFault::Legal {
            recorded: ply.legal,
            counted: game.counts(),
        });
    }
    if let Some(all) = &ply.legal_all {
        if all.len() != record.players.len() {
            return Err(PlyFault::LegalAllLength {
                entries: all.len(),
                players: record.players.len(),
            });
        }
        for (i, claimed) in all.iter().enumerate() {
            let counted = game.counts_of(i + 1);
            if *claimed != counted {
                return Err(PlyFault::LegalAll {
                    player: i + 1,
                    recorded: *claimed,
                    counted,
                });
            }
        }
    }
    let action = parse_action(&ply.action).ok_or_else(|| PlyFault::Unreadable {
        action: clip(&ply.action),
    })?;
    let played = game
        .play(ply.player, action)
        .map_err(|why| PlyFault::Refused {
            action: ply.action.clone(),
            why,
        })?;
    let letter = |p: Option<crate::rules::Piece>| p.map(|p| p.letter());
    let claimed = (ply.revealed, ply.captured, ply.drawn);
    let dealt = (
        letter(played.revealed),
        letter(played.captured),
        letter(played.drawn),
    );
    if claimed != dealt {
        return Err(PlyFault::Pieces { claimed, dealt });
    }
    Ok(())
}

/// After the last ply: checks the recorded result against the rules' ruling, or, where the
/// rules did not end the game, rules as the record says something outside them did (a fault,
/// the referee's ply cap, the endgame tables, nobody coming, an abort), once that holds.
fn rule_on_the_end(
    game: &mut Game,
    record: &GameRecord,
    tables: Option<&Tables>,
) -> Result<Checked, ReplayError> {
    let result = &record.result;
    if let Some(o) = game.outcome() {
        if o.reason != result.reason || o.winner != result.winner_side {
            return Err(ReplayError::Result {
                reason: result.reason,
                winner: result.winner_side,
                ruled: o.reason,
                ruled_winner: o.winner,
            });
        }
        return Ok(Checked::All);
    }
    if result.reason.is_fault() {
        let loser = result.loser.ok_or(ReplayError::NoLoser)?;
        if loser == 0 || loser > game.variant().players {
            return Err(ReplayError::LoserNotInGame { loser });
        }
        game.forfeit(loser, result.reason);
        if game.outcome().and_then(|o| o.winner) != result.winner_side {
            return Err(ReplayError::LoserWinner {
                loser,
                winner: result.winner_side,
            });
        }
    } else if result.reason == Termination::PlyCap {
        // The referee's cap, outside the rules: a draw, exactly at the cap.
        if result.winner_side.is_some() {
            return Err(ReplayError::PlyCapWinner);
        }
        if record.max_plies != Some(game.ply()) {
            return Err(ReplayError::PlyCapPlies {
                plies: game.ply(),
                cap: record.max_plies,
            });
        }
        game.adjudicate_draw(Termination::PlyCap);
    } else if result.reason == Termination::Adjudicated {
        let winner = adjudicated(game, record, tables)?;
        game.adjudicate(winner);
        // A ruling by the scores is checked from the record alone; one by the tables needs
        // them.
        let by_scores = result
            .adjudication
            .as_ref()
            .is_some_and(|a| a.by == Adjudication::BY_SCORES);
        if tables.is_none() && !by_scores {
            return Ok(Checked::AdjudicationNotRechecked);
        }
    } else if matches!(result.reason, Termination::Crash | Termination::NoConnect)
        && result.loser.is_none()
    {
        // Nobody came: no plies, no winner. (`crash` in records written before
        // `no-connect` existed.)
        if !record.plies.is_empty() || result.winner_side.is_some() {
            return Err(ReplayError::NobodyPlayed);
        }
        game.adjudicate_draw(result.reason);
    } else if result.reason != Termination::Aborted {
        return Err(ReplayError::NotEnded {
            reason: result.reason,
        });
    } else if result.winner_side.is_some() {
        return Err(ReplayError::AbortedWinner);
    }
    Ok(Checked::All)
}

/// The claims of a record about the game's end, once the game has ended as it says: the
/// `(win ...)` clause, the counts, the final board, and an adjudication only where one ended
/// the game.
fn check_final_claims(game: &Game, record: &GameRecord) -> Result<(), ReplayError> {
    let result = &record.result;
    let (p, t) = game.win_clause();
    let expect_win = match result.reason {
        Termination::Aborted => String::new(),
        _ => format!("(win {p} {t})"),
    };
    if result.win != expect_win {
        return Err(ReplayError::WinClause {
            recorded: clip(&result.win),
            expected: expect_win,
        });
    }
    if result.plies != game.ply() || result.turns != game.round() {
        return Err(ReplayError::Counts {
            plies: result.plies,
            turns: result.turns,
            replay_plies: game.ply(),
            replay_turns: game.round(),
        });
    }
    if record.final_board != game.wire_board() {
        return Err(ReplayError::FinalBoard {
            recorded: clip(&record.final_board),
            replay: game.wire_board(),
        });
    }
    if result.adjudication.is_some() && result.reason != Termination::Adjudicated {
        return Err(ReplayError::AdjudicationRecorded {
            reason: result.reason,
        });
    }
    Ok(())
}

/// The winning side of an `adjudicated` game (`None`: a draw), once its claims hold: the
/// record says what the tables ruled, the final position is one they rule on, and the
/// recorded winner is the one the verdict gives; with `tables`, the verdict is theirs.
fn adjudicated(
    game: &Game,
    record: &GameRecord,
    tables: Option<&Tables>,
) -> Result<Option<usize>, AdjudicationFault> {
    let result = &record.result;
    let ruling = result
        .adjudication
        .as_ref()
        .ok_or(AdjudicationFault::NoRuling)?;
    if ruling.by == Adjudication::BY_SCORES {
        return by_scores::winner(game, ruling);
    }
    if ruling.by != Adjudication::BY_TABLES {
        return Err(AdjudicationFault::NotByTables {
            by: clip(&ruling.by),
        });
    }
    let claimed = parse_verdict(&ruling.verdict).ok_or_else(|| AdjudicationFault::BadVerdict {
        verdict: clip(&ruling.verdict),
    })?;
    let variant = game.variant().clone();
    let rules = TableRules::new(variant.clone()).map_err(AdjudicationFault::NoTables)?;
    let board = game.board();
    let state = game.public_state();
    let material = Material::of_board(board)
        .filter(|m| m.of_colour(crate::rules::Colour::Red) > 0)
        .filter(|m| m.of_colour(crate::rules::Colour::Black) > 0);
    if state.hand.is_some() || state.chain.is_some() || material.is_none() {
        return Err(AdjudicationFault::NoSuchPosition {
            board: game.wire_board(),
        });
    }
    let verdict = || ruling.verdict.clone();
    let ruled = match tables {
        Some(tables) => {
            if tables.rules().digest() != rules.digest() {
                return Err(AdjudicationFault::OtherTables {
                    tables: tables.rules().variant.name.clone(),
                    variant: variant.name.clone(),
                });
            }
            let found = tables
                .adjudication(game)
                .map_err(AdjudicationFault::Probe)?;
            let Some((winner, theirs)) = found else {
                let value = tables.probe_game(game).map_err(AdjudicationFault::Probe)?;
                return Err(match value {
                    None => AdjudicationFault::NotHeld {
                        verdict: verdict(),
                        pieces: material.map_or(0, |m| m.pieces()),
                        most: tables.pieces(),
                    },
                    Some(value) => AdjudicationFault::NotEnding {
                        verdict: verdict(),
                        value,
                        left: quiet_plies_left(game),
                    },
                });
            };
            if theirs != claimed {
                return Err(AdjudicationFault::OtherVerdict {
                    verdict: verdict(),
                    tables: theirs,
                });
            }
            winner
        }
        None => ruling_of(game, claimed).ok_or_else(|| AdjudicationFault::TooLong {
            verdict: verdict(),
            left: quiet_plies_left(game),
        })?,
    };
    if ruled != result.winner_side {
        return Err(AdjudicationFault::Winner {
            verdict: verdict(),
            recorded: result.winner_side,
            mover: game.side_of(game.to_move()),
            ruled,
        });
    }
    Ok(ruled)
}

/// The quiet plies the no-progress rule leaves the game (`u32::MAX` without the rule).
fn quiet_plies_left(game: &Game) -> u32 {
    game.variant()
        .draw
        .no_progress
        .map_or(u32::MAX, |limit| limit.saturating_sub(game.quiet_plies()))
}

/// The winning side the tables rule with `verdict` for the player to move (`Some(None)`: a
/// draw), as [`Tables::adjudication`] does: `None` when a win or loss takes more plies than
/// the no-progress rule leaves, which ends no game.
fn ruling_of(game: &Game, verdict: Verdict) -> Option<Option<usize>> {
    let mover = game.side_of(game.to_move());
    let left = quiet_plies_left(game);
    match verdict {
        Verdict::Draw => Some(None),
        Verdict::Win { plies } if plies <= left => Some(Some(mover)),
        Verdict::Loss { plies } if plies <= left => Some(Some(1 - mover)),
        _ => None,
    }
}

/// Reads a verdict as [`Verdict::text`] writes it: `win in 7` (odd), `loss in 4` (even),
/// `draw`.
fn parse_verdict(text: &str) -> Option<Verdict> {
    if text == "draw" {
        return Some(Verdict::Draw);
    }
    let plies = |n: &str| -> Option<u32> {
        // Digits only: no sign, no spaces (`u32::from_str` takes a `+`).
        if n.is_empty() || n.len() > 9 || !n.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        n.parse().ok()
    };
    if let Some(n) = text.strip_prefix("win in ") {
        let plies = plies(n)?;
        return (plies % 2 == 1).then_some(Verdict::Win { plies });
    }
    let n = text.strip_prefix("loss in ")?;
    let plies = plies(n)?;
    (plies % 2 == 0).then_some(Verdict::Loss { plies })
}

/// Longest action text read: `(put K 4095)` is 12 characters. The text comes from the record,
/// not through the server's frame limits, and the message parser recurses on each `'`.
const MAX_ACTION_BYTES: usize = 64;

/// Reads an action clause such as `(mov 4 0)`.
pub(crate) fn parse_action(text: &str) -> Option<Action> {
    if text.len() > MAX_ACTION_BYTES {
        return None;
    }
    let msg = ClientMessage::parse(format!("({text})").as_bytes()).ok()?;
    match msg.0.as_slice() {
        [clause] => clause.action(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{GameHeader, PlayerRecord, PlyRecord};
    use crate::rules::SeedInputs;
    use crate::tables::build_all;

    fn good() -> GameRecord {
        serde_json::from_str(include_str!("../../../../tests/data/one-game.jsonl")).unwrap()
    }

    /// traditional-2x4's rules with a king and a pawn a side: endgames from the first reveal.
    fn kpkp() -> Arc<Variant> {
        let text = include_str!("../../../../protocol/variants/traditional-2x4.sexp")
            .replace("(name traditional-2x4)", "(name kpkp)")
            .replace("(pieces KPPPkppp)", "(pieces KPkp)");
        Arc::new(Variant::parse(&text).unwrap())
    }

    /// Every table of `variant` of at most 4 pieces, in memory.
    fn tables_of(variant: &Arc<Variant>) -> Tables {
        let rules = TableRules::new(variant.clone()).unwrap();
        let solved = build_all(&rules, 4);
        Tables::in_memory(rules, 4, solved.into_values().collect())
    }

    /// A game of `variant` dealt from `seed`, its actions picked by `pick`, ended by the
    /// tables as the referee ends it (after every ply), as its record.
    fn adjudicated_record(variant: &Arc<Variant>, tables: &Tables, pick: usize) -> GameRecord {
        let seeds = SeedInputs {
            clients: vec!["a".into(), "b".into()],
            server: format!("s{pick}"),
        };
        let mut game = Game::new(variant.clone(), seeds.deal_for(variant));
        let mut plies = Vec::new();
        let mut ruling = None;
        while game.outcome().is_none() {
            let legal = game.legal_actions();
            let action = legal[(game.ply() as usize * 7 + pick) % legal.len()];
            let (player, turn, counts) = (game.to_move(), game.round(), game.counts());
            let played = game.play(player, action).unwrap();
            plies.push(PlyRecord {
                think_ms: 1,
                ..PlyRecord::of_play(&game, turn, player, action, counts, &played)
            });
            if game.outcome().is_none() {
                if let Some((winner, verdict)) = tables.adjudication(&game).unwrap() {
                    game.adjudicate(winner);
                    ruling = Some(verdict);
                }
            }
        }
        let header = GameHeader {
            game: 1,
            started_unix_ms: 1,
            seeds,
            max_plies: 0,
            score_draw: String::new(),
            score_resign: String::new(),
        };
        let players = (1..=2)
            .map(|id| PlayerRecord {
                id,
                name: format!("p{id}"),
                seed: ["a", "b"][id - 1].into(),
                side: Some(id - 1),
                team: Some(0),
                colour: None,
                time_used_ms: 0,
            })
            .collect();
        let mut record = GameRecord::of_game(header, &game, players, plies, Default::default());
        record.result.adjudication =
            ruling.map(|v| Adjudication::by_tables(v, std::path::Path::new("/x/kpkp-4.tables")));
        record
    }

    #[test]
    fn an_adjudicated_record_is_re_checked_by_the_tables() {
        let variant = kpkp();
        let tables = tables_of(&variant);
        // Games the tables end with a winner, and one they end as a draw.
        let records: Vec<GameRecord> = (0..40)
            .map(|pick| adjudicated_record(&variant, &tables, pick))
            .filter(|r| r.result.reason == Termination::Adjudicated)
            .collect();
        assert!(
            records.iter().any(|r| r.result.winner_side.is_none()),
            "and a draw"
        );
        let won = records
            .iter()
            .find(|r| r.result.winner_side.is_some())
            .expect("a game the tables end with a win")
            .clone();
        assert!(won
            .result
            .adjudication
            .as_ref()
            .unwrap()
            .verdict
            .contains(" in "));
        assert_eq!(
            won.result.adjudication.as_ref().unwrap().tables,
            "kpkp-4.tables"
        );
        for r in &records {
            assert_eq!(
                verify_with(r, Some(&tables)),
                Ok(Checked::All),
                "{:?}",
                r.result
            );
            assert_eq!(verify(r), Ok(Checked::AdjudicationNotRechecked));
        }
        // What it looks like in the file.
        let json = serde_json::to_string(&won.result).unwrap();
        assert!(
            json.contains(r#""reason":"adjudicated","adjudication":{"by":"tables","verdict":""#),
            "{json}"
        );

        // The pages rebuild it ending on its last ply, as the referee's feed showed it.
        let events = crate::view::events_of_record(&won, false).unwrap();
        let last = events.iter().rev().find_map(|e| match e {
            crate::view::Event::Ply(p) => Some(p),
            _ => None,
        });
        assert_eq!(last.unwrap().position.to_move, None, "the game is over");
        assert!(crate::view::move_list(&won).contains("by adjudicated (tables: "));

        // The winner tampered with: refused with the tables and without.
        let mut r = won.clone();
        let other = 1 - r.result.winner_side.unwrap();
        r.result.winner_side = Some(other);
        r.result.winner = other + 1;
        r.result.win = format!("(win {} 0)", other + 1);
        for e in [verify_with(&r, Some(&tables)), verify(&r)] {
            let e = e.unwrap_err();
            assert!(
                matches!(
                    e,
                    ReplayError::Adjudication(AdjudicationFault::Winner { .. })
                ),
                "{e}"
            );
            let e = e.to_string();
            assert!(
                e.contains(&format!("with winner side Some({other})")),
                "{e}"
            );
        }
        // A draw claimed instead.
        let mut r = won.clone();
        r.result.winner_side = None;
        r.result.winner = 0;
        r.result.win = "(win 0 0)".into();
        assert!(verify_with(&r, Some(&tables))
            .unwrap_err()
            .to_string()
            .contains("gives winner side Some("));

        // Another verdict: the tables know better.
        let mut r = won.clone();
        let verdict = &mut r.result.adjudication.as_mut().unwrap().verdict;
        let plies: u32 = verdict.rsplit(' ').next().unwrap().parse().unwrap();
        *verdict = verdict.replace(&plies.to_string(), &(plies + 2).to_string());
        let e = verify_with(&r, Some(&tables)).unwrap_err().to_string();
        assert!(e.contains("but the tables say"), "{e}");
        assert_eq!(verify(&r), Ok(Checked::AdjudicationNotRechecked));
        for bad in ["win in 2", "loss in 3", "win in +3", "victory", ""] {
            let mut r = won.clone();
            r.result.adjudication.as_mut().unwrap().verdict = bad.into();
            assert!(
                verify(&r)
                    .unwrap_err()
                    .to_string()
                    .contains("which is not `win in N`"),
                "{bad}"
            );
        }
        let mut r = won.clone();
        r.result.adjudication = None;
        assert!(verify(&r)
            .unwrap_err()
            .to_string()
            .contains("no result.adjudication"));

        // Adjudicated where the tables rule on nothing (face-down pieces): refused.
        let mut r = won.clone();
        let first_capture = r
            .plies
            .iter()
            .position(|p| p.captured.is_some())
            .unwrap_or(0);
        r.plies.truncate(first_capture.min(2));
        let mut g = Game::new(variant.clone(), r.seeds.deal_for(&variant));
        for p in &r.plies {
            g.play(p.player, parse_action(&p.action).unwrap()).unwrap();
        }
        r.result.plies = g.ply();
        r.result.turns = g.round();
        r.final_board = g.wire_board();
        for e in [verify_with(&r, Some(&tables)), verify(&r)] {
            let e = e.unwrap_err().to_string();
            assert!(
                e.contains("they hold no position like the final one"),
                "{e}"
            );
        }

        // Tables of other rules: a clear refusal, not a verdict.
        let other_rules = Arc::new(
            Variant::parse(
                &include_str!("../../../../protocol/variants/traditional-2x4.sexp")
                    .replace("(name traditional-2x4)", "(name other)")
                    .replace("(pieces KPPPkppp)", "(pieces KPkp)")
                    .replace("(allow (P K))", ""),
            )
            .unwrap(),
        );
        let e = verify_with(&won, Some(&tables_of(&other_rules))).unwrap_err();
        assert!(
            matches!(
                e,
                ReplayError::Adjudication(AdjudicationFault::OtherTables { .. })
            ),
            "{e}"
        );
        let e = e.to_string();
        assert!(e.contains("the tables given are for variant other"), "{e}");

        // An adjudication on a game the rules ended: refused.
        let mut r = good();
        r.result.adjudication = won.result.adjudication.clone();
        assert!(verify(&r)
            .unwrap_err()
            .to_string()
            .contains("an adjudication is recorded"));
    }

    #[test]
    fn corrupted_and_hostile_records_are_refused_without_a_panic() {
        verify(&good()).unwrap();
        let resigned = |loser: usize| {
            let mut r = good();
            r.plies.truncate(4);
            r.result.reason = Termination::Resign;
            r.result.loser = Some(loser);
            r
        };
        let cases: Vec<(GameRecord, &str)> = vec![
            (
                {
                    let mut r = good();
                    r.plies[2].player = 99;
                    r
                },
                "by player 99",
            ),
            (resigned(99), "player 99, is not in the game"),
            (resigned(0), "player 0, is not in the game"),
            (resigned(usize::MAX), "is not in the game"),
            (
                {
                    let mut r = good();
                    r.variant_source = format!("(variant (name {}x))", "'".repeat(100_000));
                    r
                },
                "variant description does not parse",
            ),
            (
                {
                    let mut r = good();
                    r.variant_source =
                        "(variant (name traditional-2x4) (board (cells 4000000000) (moves (0 1))) (pieces Kk))"
                            .into();
                    r
                },
                "4000000000 cells are more than 4096",
            ),
            (
                {
                    let mut r = good();
                    r.variant_source = " ".repeat(crate::rules::MAX_DESCRIPTION_BYTES + 1);
                    r
                },
                "the limit",
            ),
            (
                {
                    let mut r = good();
                    r.plies[0].action = format!("(rev {}3)", "'".repeat(100_000));
                    r
                },
                "ply 1: cannot read action",
            ),
            (
                {
                    let mut r = good();
                    r.players.clear();
                    r
                },
                "0 players for a 2-player variant",
            ),
            (
                {
                    let mut r = good();
                    r.variant = "v".repeat(1_000_000);
                    r
                },
                "variant named",
            ),
        ];
        for (record, expected) in cases {
            let e = verify(&record).unwrap_err().to_string();
            assert!(e.contains(expected), "{expected:?} not in {e:?}");
            assert!(e.len() < 400, "{} bytes", e.len());
        }
    }
}
