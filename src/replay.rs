//! Record verification: re-derive each deal from its seeds, re-play every action through the
//! rules, and compare everything the record claims (legal action counts, revealed and captured
//! pieces, the final board, the result) with what the rules say.

use crate::record::GameRecord;
use crate::rules::{Action, Game, Termination, Variant};
use crate::wire::ClientMessage;
use std::sync::Arc;

/// Checks one record.
///
/// # Errors
/// The first claim of the record that the rules contradict.
pub fn verify(record: &GameRecord) -> Result<(), String> {
    let variant = Variant::parse(&record.variant_source)
        .map_err(|e| format!("variant description does not parse: {e}"))?;
    if variant.name != record.variant {
        return Err(format!(
            "variant named {:?} but its description says {:?}",
            record.variant, variant.name
        ));
    }
    if record.players.len() != variant.players {
        return Err(format!(
            "{} players for a {}-player variant",
            record.players.len(),
            variant.players
        ));
    }
    let clients: Vec<&str> = record.players.iter().map(|p| p.seed.as_str()).collect();
    if !record.seeds.clients.is_empty() && record.seeds.clients != clients {
        return Err("seed contributions differ from the players' seeds".into());
    }
    let deal = record.seeds.deal_for(&variant);
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
        let action = parse_action(&ply.action)
            .ok_or_else(|| format!("{at}: cannot read action {:?}", ply.action))?;
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
            } else if result.reason == Termination::Crash && result.loser.is_none() {
                // Nobody came: no plies, no winner.
                if !record.plies.is_empty() || result.winner_side.is_some() {
                    return Err("a game nobody played has plies or a winner".into());
                }
                game.adjudicate_draw(Termination::Crash);
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
            result.win, expect_win
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
            record.final_board,
            game.wire_board()
        ));
    }
    Ok(())
}

/// Reads an action clause such as `(mov 4 0)`.
fn parse_action(text: &str) -> Option<Action> {
    let msg = ClientMessage::parse(format!("({text})").as_bytes()).ok()?;
    match msg.0.as_slice() {
        [clause] => clause.action(),
        _ => None,
    }
}
