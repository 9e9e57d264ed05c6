//! Re-checking an adjudication by the engines' scores (`crate::scores`) from the record
//! alone: the rule it names, read again, gives its verdict on the plies' comments at the end,
//! and at no ply before (where the referee, which looks after every ply, would have ended
//! the game).

use super::error::{clip, AdjudicationFault};
use crate::record::{Adjudication, GameRecord};
use crate::rules::Game;
use crate::scores::{comment_score, judge, DrawByScores, ResignByScores, ScoreRuling};

/// The winning side the scores' ruling gives (`None`: a draw), once it holds.
pub(super) fn winner(
    game: &Game,
    record: &GameRecord,
    ruling: &Adjudication,
) -> Result<Option<usize>, AdjudicationFault> {
    let bad_rule = |why: String| AdjudicationFault::ScoreRule {
        rule: clip(&ruling.rule),
        why,
    };
    // The rules are for two players on two sides (and a side's index below is 0 or 1).
    if game.variant().players != 2 || game.variant().sides.len() != 2 {
        return Err(bad_rule(format!(
            "the scores adjudicate two-player games only, and {} is not one",
            game.variant().name
        )));
    }
    let (draw, resign) = match ruling.rule.split_once(' ') {
        Some(("draw", rest)) => (
            Some(
                rest.parse::<DrawByScores>()
                    .map_err(|e| bad_rule(e.to_string()))?,
            ),
            None,
        ),
        Some(("resign", rest)) => (
            None,
            Some(
                rest.parse::<ResignByScores>()
                    .map_err(|e| bad_rule(e.to_string()))?,
            ),
        ),
        _ => return Err(bad_rule("it begins with neither draw nor resign".into())),
    };
    let plies: Vec<(usize, Option<i32>)> = record
        .plies
        .iter()
        .map(|p| (p.player, p.comment.as_deref().and_then(comment_score)))
        .collect();
    let ruled = |n: usize| judge(draw.as_ref(), resign.as_ref(), &plies[..n]);
    let found = ruled(plies.len());
    let shown = found.map_or("no ruling".to_string(), |r| {
        Adjudication::by_scores(r, String::new()).verdict
    });
    if shown != ruling.verdict {
        return Err(AdjudicationFault::ScoresDisagree {
            verdict: clip(&ruling.verdict),
            found: shown,
        });
    }
    if let Some(ply) = (1..plies.len()).find(|&n| ruled(n).is_some()) {
        return Err(AdjudicationFault::ScoresEarlier {
            ply,
            last: plies.len(),
        });
    }
    Ok(match found {
        Some(ScoreRuling::Loses(player)) => Some(1 - game.side_of(player)),
        _ => None,
    })
}
