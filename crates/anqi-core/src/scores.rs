//! Adjudication by the engines' own scores, as cutechess-cli's and fastchess's `-draw` and
//! `-resign` do it: a game both engines score as even for long enough is a draw, and a game an
//! engine scores as lost for long enough is its loss. The scores are what the engines said of
//! their plies (the `comment` extension: the UCI-Banqi bridge passes on its engine's last
//! `info` line, `... score cp 35 ...`), so the rules here read only the record's plies, and
//! `anqi replay` re-checks a ruling from the record alone.
//!
//! The rules are written as those programs write them, `movenumber=40 movecount=8 score=10`
//! for a draw and `movecount=3 score=600 twosided=true` for a loss, so that an organizer's
//! settings carry over. They apply to two-player games only.
//!
//! What counts, exactly (each player's own plies, in order; a ply whose comment has no score
//! breaks a run):
//! - **Draw**, once `movenumber` full moves have been played (ply `2 × movenumber` on): each
//!   player's last `movecount` scores are all within `±score` centipawns.
//! - **Loss**: a player's last `movecount` scores are all at `-score` or worse (the engine
//!   sees itself lost); with `twosided=true`, the opponent's last `movecount` scores must
//!   also all be at `+score` or better (both agree).
//!
//! A mate score (`score mate N`) counts as [`MATE`] centipawns, for the side it favours.

/// A mate score in centipawns: more than any material score.
pub const MATE: i32 = 100_000;

/// Adjudication of draws by scores (`-draw`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawByScores {
    /// Full moves played before a draw may be adjudicated.
    pub move_number: u32,
    /// Consecutive plies of each player that must stay within `score`.
    pub move_count: u32,
    /// Centipawns, either way.
    pub score: i32,
}

/// Adjudication of losses by scores (`-resign`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResignByScores {
    /// Consecutive plies of the losing player at `-score` or worse.
    pub move_count: u32,
    /// Centipawns.
    pub score: i32,
    /// Whether the opponent must agree (its scores at `+score` or better).
    pub two_sided: bool,
}

/// What the scores ruled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoreRuling {
    Draw,
    /// This player (1-based) loses.
    Loses(usize),
}

/// Why a rule's text does not read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct RuleError(String);

fn words(text: &str, allowed: &[&str]) -> Result<Vec<(String, String)>, RuleError> {
    let mut seen = Vec::new();
    for word in text.split_whitespace() {
        let Some((key, value)) = word.split_once('=') else {
            return Err(RuleError(format!(
                "{word:?}: the rule's words are KEY=VALUE, with KEY one of {}",
                allowed.join(", ")
            )));
        };
        if !allowed.contains(&key) {
            return Err(RuleError(format!(
                "{key:?}: not a key of this rule; the keys are {}",
                allowed.join(", ")
            )));
        }
        if seen.iter().any(|(k, _)| k == key) {
            return Err(RuleError(format!("{key} is given twice")));
        }
        seen.push((key.to_string(), value.to_string()));
    }
    Ok(seen)
}

fn number<T>(seen: &[(String, String)], key: &str, least: T) -> Result<T, RuleError>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display + Copy,
{
    let (_, value) = seen
        .iter()
        .find(|(k, _)| k == key)
        .ok_or_else(|| RuleError(format!("{key}= is missing")))?;
    match value.parse::<T>() {
        Ok(n) if n >= least => Ok(n),
        _ => Err(RuleError(format!(
            "{key}={value}: a whole number, at least {least}"
        ))),
    }
}

impl std::str::FromStr for DrawByScores {
    type Err = RuleError;

    /// `movenumber=N movecount=N score=CP`.
    fn from_str(text: &str) -> Result<DrawByScores, RuleError> {
        let seen = words(text, &["movenumber", "movecount", "score"])?;
        Ok(DrawByScores {
            move_number: number(&seen, "movenumber", 0)?,
            move_count: number(&seen, "movecount", 1)?,
            score: number(&seen, "score", 0)?,
        })
    }
}

impl std::str::FromStr for ResignByScores {
    type Err = RuleError;

    /// `movecount=N score=CP [twosided=true|false]`.
    fn from_str(text: &str) -> Result<ResignByScores, RuleError> {
        let seen = words(text, &["movecount", "score", "twosided"])?;
        let two_sided = match seen.iter().find(|(k, _)| k == "twosided") {
            None => false,
            Some((_, v)) if v == "true" => true,
            Some((_, v)) if v == "false" => false,
            Some((_, v)) => {
                return Err(RuleError(format!("twosided={v}: true or false")));
            }
        };
        Ok(ResignByScores {
            move_count: number(&seen, "movecount", 1)?,
            score: number(&seen, "score", 1)?,
            two_sided,
        })
    }
}

impl std::fmt::Display for DrawByScores {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "movenumber={} movecount={} score={}",
            self.move_number, self.move_count, self.score
        )
    }
}

impl std::fmt::Display for ResignByScores {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "movecount={} score={} twosided={}",
            self.move_count, self.score, self.two_sided
        )
    }
}

/// Both rules as configured (`score_draw`, `score_resign`; each may be off).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScoreRules {
    pub draw: Option<DrawByScores>,
    pub resign: Option<ResignByScores>,
}

impl ScoreRules {
    /// The rules written as configured: `draw` and `resign` in cutechess's words, `""` for
    /// none.
    ///
    /// # Errors
    /// A rule that does not read, said with the setting's name.
    pub fn read(draw: &str, resign: &str) -> Result<ScoreRules, RuleError> {
        let draw = (!draw.trim().is_empty())
            .then(|| draw.parse::<DrawByScores>())
            .transpose()
            .map_err(|e| RuleError(format!("score_draw = {draw:?}: {e}")))?;
        let resign = (!resign.trim().is_empty())
            .then(|| resign.parse::<ResignByScores>())
            .transpose()
            .map_err(|e| RuleError(format!("score_resign = {resign:?}: {e}")))?;
        Ok(ScoreRules { draw, resign })
    }

    pub fn is_off(&self) -> bool {
        self.draw.is_none() && self.resign.is_none()
    }

    /// Whether the rules can apply to `variant`: two players on two sides, or no rule.
    ///
    /// # Errors
    /// A rule set for a variant of other players.
    pub fn check_variant(&self, variant: &crate::rules::Variant) -> Result<(), RuleError> {
        if self.is_off() || (variant.players == 2 && variant.sides.len() == 2) {
            return Ok(());
        }
        Err(RuleError(format!(
            "score_draw and score_resign adjudicate two-player games, and {} has {} players on {} sides",
            variant.name,
            variant.players,
            variant.sides.len()
        )))
    }

    /// The ruling after the plies so far ([`judge`] with both rules).
    pub fn judge(&self, plies: &[(usize, Option<i32>)]) -> Option<ScoreRuling> {
        judge(self.draw.as_ref(), self.resign.as_ref(), plies)
    }

    /// The rule that gave `ruling`, as a record keeps it: `draw movenumber=...` or `resign
    /// movecount=...`.
    pub fn rule_text(&self, ruling: ScoreRuling) -> String {
        match (ruling, &self.draw, &self.resign) {
            (ScoreRuling::Draw, Some(d), _) => format!("draw {d}"),
            (ScoreRuling::Loses(_), _, Some(r)) => format!("resign {r}"),
            _ => String::new(),
        }
    }
}

/// The score an engine gave with its ply, in centipawns for the mover: the last `score cp N`
/// or `score mate N` of the comment (an `info` line's; a bare number after `score` too).
pub fn comment_score(comment: &str) -> Option<i32> {
    let words: Vec<&str> = comment.split_whitespace().collect();
    let mut found = None;
    for (i, w) in words.iter().enumerate() {
        if *w != "score" {
            continue;
        }
        let (kind, value) = match words.get(i + 1) {
            Some(&"cp") | Some(&"mate") => (words[i + 1], words.get(i + 2)),
            _ => ("cp", words.get(i + 1)),
        };
        let Some(n) = value.and_then(|v| v.parse::<i64>().ok()) else {
            continue;
        };
        found = Some(match kind {
            // Mate in N (N > 0: the mover mates; N < 0 or "-0": it is mated).
            "mate" if n > 0 || (n == 0 && !value.is_some_and(|v| v.starts_with('-'))) => MATE,
            "mate" => -MATE,
            _ => n.clamp(-i64::from(MATE), i64::from(MATE)) as i32,
        });
    }
    found
}

/// The rules' ruling after the plies so far: `(mover, score)` of each ply in order (players
/// 1 and 2), or `None` when the game goes on. A draw is looked at first: both engines agree
/// that nothing is decided.
pub fn judge(
    draw: Option<&DrawByScores>,
    resign: Option<&ResignByScores>,
    plies: &[(usize, Option<i32>)],
) -> Option<ScoreRuling> {
    let last = |player: usize, n: u32| -> Option<Vec<i32>> {
        let mine: Vec<Option<i32>> = plies
            .iter()
            .rev()
            .filter(|(p, _)| *p == player)
            .take(n as usize)
            .map(|(_, s)| *s)
            .collect();
        (mine.len() == n as usize)
            .then_some(mine)?
            .into_iter()
            .collect()
    };
    if let Some(d) = draw {
        let late_enough = plies.len() as u64 >= 2 * u64::from(d.move_number);
        let even = |p| last(p, d.move_count).is_some_and(|s| s.iter().all(|s| s.abs() <= d.score));
        if late_enough && even(1) && even(2) {
            return Some(ScoreRuling::Draw);
        }
    }
    if let Some(r) = resign {
        for (player, other) in [(1, 2), (2, 1)] {
            let lost = last(player, r.move_count).is_some_and(|s| s.iter().all(|&s| s <= -r.score));
            let agreed = !r.two_sided
                || last(other, r.move_count).is_some_and(|s| s.iter().all(|&s| s >= r.score));
            if lost && agreed {
                return Some(ScoreRuling::Loses(player));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_are_read_from_info_lines() {
        assert_eq!(
            comment_score("depth 8 score cp 35 nodes 100 pv a0a1"),
            Some(35)
        );
        assert_eq!(comment_score("info depth 2 score cp -712"), Some(-712));
        assert_eq!(comment_score("score mate 3"), Some(MATE));
        assert_eq!(comment_score("score mate -2"), Some(-MATE));
        assert_eq!(comment_score("score cp 10 ... score cp 20"), Some(20));
        assert_eq!(comment_score("score 15"), Some(15));
        assert_eq!(comment_score("depth 3 nodes 9"), None);
        assert_eq!(comment_score("score cp lots"), None);
        assert_eq!(comment_score("score cp 99999999999"), Some(MATE));
    }

    #[test]
    fn rules_read_as_cutechess_writes_them_and_say_what_is_wrong() {
        let d: DrawByScores = "movenumber=40 movecount=8 score=10".parse().unwrap();
        assert_eq!((d.move_number, d.move_count, d.score), (40, 8, 10));
        assert_eq!(d.to_string(), "movenumber=40 movecount=8 score=10");
        let r: ResignByScores = "movecount=3 score=600 twosided=true".parse().unwrap();
        assert!(r.two_sided);
        assert_eq!(r.to_string().parse::<ResignByScores>().unwrap(), r);
        let e = "movecount=3".parse::<ResignByScores>().unwrap_err();
        assert!(e.to_string().contains("score= is missing"), "{e}");
        let e = "movecount=0 score=5".parse::<ResignByScores>().unwrap_err();
        assert!(e.to_string().contains("at least 1"), "{e}");
        let e = "movenumber=1 movecount=1 score=1 depth=3"
            .parse::<DrawByScores>()
            .unwrap_err();
        assert!(e.to_string().contains("not a key"), "{e}");
        let e = "twosided=maybe movecount=1 score=1"
            .parse::<ResignByScores>()
            .unwrap_err();
        assert!(e.to_string().contains("true or false"), "{e}");
    }

    fn plies(scores: &[(usize, Option<i32>)]) -> Vec<(usize, Option<i32>)> {
        scores.to_vec()
    }

    #[test]
    fn a_draw_needs_the_move_number_and_each_players_run() {
        let d = DrawByScores {
            move_number: 2,
            move_count: 2,
            score: 10,
        };
        let even = plies(&[(1, Some(5)), (2, Some(-5)), (1, Some(0)), (2, Some(10))]);
        assert_eq!(judge(Some(&d), None, &even), Some(ScoreRuling::Draw));
        // Before move 2 is complete: not yet.
        assert_eq!(judge(Some(&d), None, &even[..3]), None);
        // One score out of the window, or missing: no draw.
        let mut out = even.clone();
        out[1].1 = Some(11);
        assert_eq!(judge(Some(&d), None, &out), None);
        out[1].1 = None;
        assert_eq!(judge(Some(&d), None, &out), None);
    }

    #[test]
    fn a_loss_needs_the_losers_run_and_with_two_sided_the_winners_too() {
        let r = ResignByScores {
            move_count: 2,
            score: 600,
            two_sided: false,
        };
        let lost = plies(&[
            (1, Some(-700)),
            (2, Some(100)),
            (1, Some(-600)),
            (2, Some(50)),
        ]);
        assert_eq!(judge(None, Some(&r), &lost), Some(ScoreRuling::Loses(1)));
        let both = ResignByScores {
            two_sided: true,
            ..r
        };
        assert_eq!(judge(None, Some(&both), &lost), None);
        let agreed = plies(&[
            (1, Some(-700)),
            (2, Some(650)),
            (1, Some(-600)),
            (2, Some(900)),
        ]);
        assert_eq!(
            judge(None, Some(&both), &agreed),
            Some(ScoreRuling::Loses(1))
        );
        // A run broken by a better score is not a loss.
        let broken = plies(&[(1, Some(-700)), (2, Some(0)), (1, Some(-599)), (2, Some(0))]);
        assert_eq!(judge(None, Some(&r), &broken), None);
        // Player 2's run, with a mate score.
        let mated = plies(&[
            (1, Some(0)),
            (2, Some(-MATE)),
            (1, Some(0)),
            (2, Some(-MATE)),
        ]);
        assert_eq!(judge(None, Some(&r), &mated), Some(ScoreRuling::Loses(2)));
    }
}
