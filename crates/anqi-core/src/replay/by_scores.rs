//! Re-checking a record against the referee's adjudication by the players' scores
//! (`crate::scores`), from the record alone: the rules it names in its header
//! (`score_draw`, `score_resign`), judged over its plies' comments as the referee judged them
//! after every ply, were met at no ply but the last; at the last, a game they rule on ended
//! by them (with the recorded verdict and rule), unless the rules of the game or the endgame
//! tables, which come first, ended it there.

use super::error::{clip, AdjudicationFault};
use crate::record::{Adjudication, GameRecord};
use crate::rules::{Game, Termination};
use crate::scores::{comment_score, ScoreJudge, ScoreRules, ScoreRuling};

/// Checks the record's plies against its score rules; `game`: the game after its last ply.
pub(super) fn check(game: &Game, record: &GameRecord) -> Result<(), AdjudicationFault> {
    let ruled_by_scores = record.result.reason == Termination::Adjudicated
        && record
            .result
            .adjudication
            .as_ref()
            .is_some_and(|a| a.by == Adjudication::BY_SCORES);
    let rules = ScoreRules::read(&record.score_draw, &record.score_resign).map_err(|e| {
        AdjudicationFault::ScoreRule {
            rule: clip(&format!("{} {}", record.score_draw, record.score_resign)),
            why: e.to_string(),
        }
    })?;
    if rules.is_off() {
        return if ruled_by_scores {
            Err(AdjudicationFault::NoScoreRules)
        } else {
            Ok(())
        };
    }
    rules
        .check_variant(game.variant())
        .map_err(|e| AdjudicationFault::ScoreRule {
            rule: clip(&format!("{} {}", record.score_draw, record.score_resign)),
            why: e.to_string(),
        })?;
    let mut judge = ScoreJudge::new(rules);
    let mut last = None;
    for (i, ply) in record.plies.iter().enumerate() {
        let score = ply.comment.as_deref().and_then(comment_score);
        let ruled = judge.ply(ply.player, score, ply.made_progress());
        if ruled.is_some() && i + 1 < record.plies.len() {
            return Err(AdjudicationFault::ScoresEarlier {
                ply: i + 1,
                last: record.plies.len(),
            });
        }
        last = ruled;
    }
    let shown = |r: Option<ScoreRuling>| {
        r.map_or("no ruling".to_string(), |r| {
            Adjudication::by_scores(r, String::new()).verdict
        })
    };
    match (&record.result.adjudication, last) {
        (Some(ruling), found) if ruled_by_scores => {
            if shown(found) != ruling.verdict {
                return Err(AdjudicationFault::ScoresDisagree {
                    verdict: clip(&ruling.verdict),
                    found: shown(found),
                });
            }
            let rule = found.map(|r| rules.rule_text(r)).unwrap_or_default();
            if rule != ruling.rule {
                return Err(AdjudicationFault::ScoreRule {
                    rule: clip(&ruling.rule),
                    why: format!("the record's score rules give {rule:?}"),
                });
            }
            Ok(())
        }
        // The rules of the game, or the tables (before the scores), ended it there.
        (_, Some(_))
            if game.outcome().is_some() || record.result.reason == Termination::Adjudicated =>
        {
            Ok(())
        }
        (_, Some(found)) => Err(AdjudicationFault::ScoresIgnored {
            found: shown(Some(found)),
            reason: record.result.reason.name(),
        }),
        (_, None) => Ok(()),
    }
}

/// The winning side of a game adjudicated by the scores, from its verdict (checked by
/// [`check`] against the plies): `None` for a draw.
pub(super) fn winner(
    game: &Game,
    ruling: &Adjudication,
) -> Result<Option<usize>, AdjudicationFault> {
    let bad = || AdjudicationFault::BadScoreVerdict {
        verdict: clip(&ruling.verdict),
    };
    if ruling.verdict == "draw" {
        return Ok(None);
    }
    let player = ruling
        .verdict
        .strip_prefix("player ")
        .and_then(|rest| rest.strip_suffix(" lost"))
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|n| {
            (1..=2).contains(n) && game.variant().players == 2 && game.variant().sides.len() == 2
        })
        .ok_or_else(bad)?;
    Ok(Some(1 - game.side_of(player)))
}
