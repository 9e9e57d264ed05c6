//! Record verification: re-derive each deal from its seeds, re-play every action through the
//! rules, and compare everything the record claims (each player's side and team, legal action
//! counts, revealed and captured pieces, the final board, the result) with what the rules say.

use crate::record::{wire_team, GameRecord};
use crate::rules::{Action, Game, Termination, Variant};
use crate::wire::ClientMessage;
use std::sync::Arc;

/// Checks one record. Any record, however corrupted or hostile, gets an answer: the description
/// is read within its limits (`rules::description`), and everything the rules would take on
/// trust (player ids, the loser, the deal) is checked before they see it.
///
/// # Errors
/// The first claim of the record that the rules contradict.
pub fn verify(record: &GameRecord) -> Result<(), String> {
    let variant = Variant::parse(&record.variant_source)
        .map_err(|e| format!("variant description does not parse: {e}"))?;
    if variant.name != record.variant {
        return Err(format!(
            "variant named {:?} but its description says {:?}",
            clip(&record.variant),
            clip(&variant.name)
        ));
    }
    if record.players.len() != variant.players {
        return Err(format!(
            "{} players for a {}-player variant",
            record.players.len(),
            variant.players
        ));
    }
    // Sides and teams, when the record has them (records written before they were have not).
    for (i, p) in record.players.iter().enumerate() {
        let id = i + 1;
        let side = variant.side_of(id);
        if let Some(recorded) = p.side.filter(|&s| s != side) {
            return Err(format!(
                "player {id} is recorded on side {recorded}, but the variant puts them on side {side}"
            ));
        }
        let team = wire_team(&variant, id);
        if let Some(recorded) = p.team.filter(|&t| t != team) {
            return Err(format!(
                "player {id} is recorded in team {recorded}, but the wire gives them team {team}"
            ));
        }
    }
    let clients: Vec<&str> = record.players.iter().map(|p| p.seed.as_str()).collect();
    if !record.seeds.clients.is_empty() && record.seeds.clients != clients {
        return Err("seed contributions differ from the players' seeds".into());
    }
    let deal = record.seeds.deal_for(&variant);
    // `Game::new` asserts one deal entry per cell; the deal is derived from the variant, so this
    // holds, and is checked rather than trusted.
    if deal.cells.len() != variant.topology.size() || deal.face_up.len() != deal.cells.len() {
        return Err(format!(
            "the deal has {} cells for a {}-cell board",
            deal.cells.len(),
            variant.topology.size()
        ));
    }
    let mut game = Game::new(Arc::new(variant), deal);
    for (i, ply) in record.plies.iter().enumerate() {
        let at = format!("ply {}", i + 1);
        if ply.ply as usize != i + 1 {
            return Err(format!("{at}: numbered {}", ply.ply));
        }
        if game.outcome().is_some() {
            return Err(format!("{at}: played after the game was over"));
        }
        if ply.player != game.to_move() || ply.turn != game.round() {
            return Err(format!(
                "{at}: by player {} at turn {}, but the rules give player {} at turn {}",
                ply.player,
                ply.turn,
                game.to_move(),
                game.round()
            ));
        }
        if ply.legal != game.counts() {
            return Err(format!(
                "{at}: legal actions recorded as {:?}, the rules count {:?}",
                ply.legal,
                game.counts()
            ));
        }
        if let Some(all) = &ply.legal_all {
            if all.len() != record.players.len() {
                return Err(format!(
                    "{at}: legal_all has {} entries for {} players",
                    all.len(),
                    record.players.len()
                ));
            }
            for (i, claimed) in all.iter().enumerate() {
                let counted = game.counts_of(i + 1);
                if *claimed != counted {
                    return Err(format!(
                        "{at}: player {}'s legal actions recorded as {claimed:?}, the rules count {counted:?}",
                        i + 1
                    ));
                }
            }
        }
        let action = parse_action(&ply.action)
            .ok_or_else(|| format!("{at}: cannot read action {:?}", clip(&ply.action)))?;
        let played = game
            .play(ply.player, action)
            .map_err(|e| format!("{at}: {} is refused by the rules: {e}", ply.action))?;
        let letter = |p: Option<crate::rules::Piece>| p.map(|p| p.letter());
        let claimed = (ply.revealed, ply.captured, ply.drawn);
        let actual = (
            letter(played.revealed),
            letter(played.captured),
            letter(played.drawn),
        );
        if claimed != actual {
            return Err(format!(
                "{at}: record says (revealed, captured, drawn) = {claimed:?}; the deal gives {actual:?}"
            ));
        }
    }
    if let Some(cap) = record.max_plies {
        if game.ply() > cap {
            return Err(format!(
                "{} plies, past the record's ply cap of {cap}",
                game.ply()
            ));
        }
    }
    let result = &record.result;
    match game.outcome() {
        Some(o) => {
            if o.reason != result.reason || o.winner != result.winner_side {
                return Err(format!(
                    "result {:?} (winner side {:?}) but the rules end it by {:?} (winner side {:?})",
                    result.reason, result.winner_side, o.reason, o.winner
                ));
            }
        }
        None => {
            if result.reason.is_fault() {
                let loser = result.loser.ok_or("a loss by fault names no loser")?;
                if loser == 0 || loser > game.variant().players {
                    return Err(format!("the loser, player {loser}, is not in the game"));
                }
                game.forfeit(loser, result.reason);
                if game.outcome().and_then(|o| o.winner) != result.winner_side {
                    return Err(format!(
                        "player {loser} lost, but winner side is {:?}",
                        result.winner_side
                    ));
                }
            } else if result.reason == Termination::PlyCap {
                // The referee's cap, outside the rules: a draw, exactly at the cap.
                if result.winner_side.is_some() {
                    return Err("a game adjudicated at the ply cap has no winner".into());
                }
                if record.max_plies != Some(game.ply()) {
                    return Err(format!(
                        "adjudicated at the ply cap after {} plies, but the record's cap is {:?}",
                        game.ply(),
                        record.max_plies
                    ));
                }
                game.adjudicate_draw(Termination::PlyCap);
            } else if matches!(result.reason, Termination::Crash | Termination::NoConnect)
                && result.loser.is_none()
            {
                // Nobody came: no plies, no winner. (`crash` in records written before
                // `no-connect` existed.)
                if !record.plies.is_empty() || result.winner_side.is_some() {
                    return Err("a game nobody played has plies or a winner".into());
                }
                game.adjudicate_draw(result.reason);
            } else if result.reason != Termination::Aborted {
                return Err(format!(
                    "result {:?}, but after the last ply the rules have not ended the game",
                    result.reason
                ));
            } else if result.winner_side.is_some() {
                return Err("an aborted game has no winner".into());
            }
        }
    }
    let (p, t) = game.win_clause();
    let expect_win = match result.reason {
        Termination::Aborted => String::new(),
        _ => format!("(win {p} {t})"),
    };
    if result.win != expect_win {
        return Err(format!(
            "win clause {:?}, expected {:?}",
            clip(&result.win),
            expect_win
        ));
    }
    if result.plies != game.ply() || result.turns != game.round() {
        return Err(format!(
            "result counts {} plies / {} turns, the replay {} / {}",
            result.plies,
            result.turns,
            game.ply(),
            game.round()
        ));
    }
    if record.final_board != game.wire_board() {
        return Err(format!(
            "final board {} but the replay ends on {}",
            clip(&record.final_board),
            game.wire_board()
        ));
    }
    Ok(())
}

/// A text from the record as quoted in a message: cut after 80 characters (a corrupted record
/// may hold megabytes in any string).
fn clip(text: &str) -> String {
    match text.char_indices().nth(80) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text.to_string(),
    }
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

    fn good() -> GameRecord {
        serde_json::from_str(include_str!("../../../tests/data/one-game.jsonl")).unwrap()
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
            let e = verify(&record).unwrap_err();
            assert!(e.contains(expected), "{expected:?} not in {e:?}");
            assert!(e.len() < 400, "{} bytes", e.len());
        }
    }
}
