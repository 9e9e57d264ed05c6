//! What each action of the mover is worth, read from a table of values: what the check of a
//! solution file re-derives, and what a perfect player chooses by.

use super::{Entry, Key, LookupError, Scale, Score};
use crate::rules::{Action, Game, Piece};
use std::collections::HashMap;

/// One action of the mover, and its value.
#[derive(Clone, Copy, Debug)]
pub struct Valued {
    pub action: Action,
    pub value: Score,
    /// For a quiet move (no reveal, no capture, the game going on): the entry of the state it
    /// leads to, which tells how far from the way out it is.
    pub quiet: Option<Entry>,
}

/// The value of an ended game, for player 1: a win for side 0 is the whole scale.
pub fn ended(scale: Scale, game: &Game) -> Option<Score> {
    game.outcome().map(|o| match o.winner {
        None => scale.draw(),
        Some(0) => scale.win(),
        Some(_) => 0,
    })
}

/// What revealing `cell` (face-down) in `game` may turn up: each unseen piece, how many of it
/// are unseen (its weight), and the game after the reveal turned it up.
pub fn reveals(game: &Game, cell: usize) -> Vec<(Piece, u32, Game)> {
    let mover = game.to_move();
    let mut out = Vec::new();
    for (i, &n) in game.face_down_counts().iter().enumerate() {
        if n == 0 {
            continue;
        }
        let piece = Piece::from_index(i);
        let mut child = game.clone();
        child
            .arrange_reveal(cell, piece)
            .expect("an unseen piece is face-down somewhere");
        child
            .play(mover, Action::Reveal(cell))
            .expect("a face-down cell can be revealed");
        out.push((piece, n, child));
    }
    out
}

/// The average of `(weight, value)` outcomes, exact: `None` when it is no whole number of
/// units (which a right table on the right scale never gives).
pub fn average(outcomes: &[(u32, Score)]) -> Option<Score> {
    let total: u128 = outcomes.iter().map(|&(n, _)| u128::from(n)).sum();
    let sum: u128 = outcomes
        .iter()
        .map(|&(n, v)| u128::from(n) * u128::from(v))
        .sum();
    (total > 0 && sum % total == 0).then(|| (sum / total) as Score)
}

/// Every legal action of the mover of `game` (a game going on, of a variant without bag or
/// chain), valued from `table`: an ended game by its result, a reveal by the average over
/// what it may turn up (exact), anything else by the table.
///
/// # Errors
/// A state missing from the table, or a reveal whose average is not a multiple of the scale's
/// unit ([`LookupError`]).
pub fn valued_actions(
    scale: Scale,
    table: &HashMap<Key, Entry>,
    game: &Game,
) -> Result<Vec<Valued>, LookupError> {
    let mover = game.to_move();
    let stored = |g: &Game| -> Result<Entry, LookupError> {
        let state = Key::of(g);
        table
            .get(&state)
            .copied()
            .ok_or_else(|| LookupError::Missing {
                state,
                from: Key::of(game),
            })
    };
    let mut out = Vec::new();
    for action in game.legal_actions() {
        match action {
            Action::Reveal(cell) => {
                let mut outcomes = Vec::new();
                for (_, n, child) in reveals(game, cell) {
                    let v = match ended(scale, &child) {
                        Some(v) => v,
                        None => stored(&child)?.value,
                    };
                    outcomes.push((n, v));
                }
                let value = average(&outcomes).ok_or_else(|| LookupError::InexactAverage {
                    state: Key::of(game),
                    denominator: scale.denominator,
                })?;
                out.push(Valued {
                    action,
                    value,
                    quiet: None,
                });
            }
            _ => {
                let mut child = game.clone();
                let played = child.play(mover, action)?;
                let valued = if let Some(v) = ended(scale, &child) {
                    Valued {
                        action,
                        value: v,
                        quiet: None,
                    }
                } else {
                    let e = stored(&child)?;
                    Valued {
                        action,
                        value: e.value,
                        quiet: played.captured.is_none().then_some(e),
                    }
                };
                out.push(valued);
            }
        }
    }
    Ok(out)
}

/// The action a perfect player takes: the best value for the mover's side; among actions
/// worth it, when the value favours the mover, a way out of the component (a reveal, capture
/// or end) or else the quiet move nearest the way out, so that play never goes round a cycle;
/// when it favours the other side, the quiet move farthest from it (the longest resistance);
/// at a draw, the first. `None` when the game is over.
///
/// # Errors
/// As [`valued_actions`].
pub fn best_action(
    scale: Scale,
    table: &HashMap<Key, Entry>,
    game: &Game,
) -> Result<Option<Valued>, LookupError> {
    if game.outcome().is_some() {
        return Ok(None);
    }
    let max = game.variant().side_of(game.to_move()) == 0;
    let actions = valued_actions(scale, table, game)?;
    let best = if max {
        actions.iter().map(|a| a.value).max()
    } else {
        actions.iter().map(|a| a.value).min()
    };
    let Some(best) = best else {
        return Ok(None);
    };
    let worth = actions.iter().filter(|a| a.value == best);
    let favoured = if max {
        best > scale.draw()
    } else {
        best < scale.draw()
    };
    // Quiet moves ordered by plies; a way out counts as 0 plies before any quiet move.
    let plies = |a: &&Valued| a.quiet.map_or(0, |e| u32::from(e.plies) + 1);
    let chosen = if best == scale.draw() {
        worth.clone().next()
    } else if favoured {
        worth.clone().min_by_key(plies)
    } else {
        worth.clone().max_by_key(plies)
    };
    Ok(chosen.copied())
}
