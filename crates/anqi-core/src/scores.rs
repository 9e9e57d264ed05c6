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
//! What counts, exactly, as cutechess-cli counts it (a ply whose comment has no score breaks
//! every run it is part of):
//! - **Draw**, once `movenumber` full moves have been played (ply `2 × movenumber` on): the
//!   last `2 × movecount` plies, both players', all scored within `±score` centipawns, with
//!   no progress among them but the first (a reveal, a capture, a draw from the bag or a
//!   put starts the run afresh, as a capture or a pawn move does in cutechess and fastchess:
//!   the position is a new one).
//! - **Loss**, ruled on the ply of the player who loses: its last `movecount` scores all at
//!   `-score` or worse (the engine sees itself lost); with `twosided=true`, the opponent's
//!   last `movecount` scores must also all be at `+score` or better (both agree).
//!
//! A mate score (`score mate N`) counts as [`MATE`] centipawns, for the side it favours.
//! `movenumber=0` is refused: cutechess reads it as "no draw adjudication", which here is
//! leaving the rule out.

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
        if seen.iter().any(|(k, v)| k == "movenumber" && v == "0") {
            return Err(RuleError(
                "movenumber=0: at least 1 (cutechess reads 0 as no draw adjudication: leave the rule out for that)".into(),
            ));
        }
        Ok(DrawByScores {
            move_number: number(&seen, "movenumber", 1)?,
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

/// The rules at work over one game, a ply at a time: the referee's after every ply, and
/// `anqi replay`'s over a record. Counters, as cutechess keeps them: constant work a ply.
#[derive(Clone, Debug)]
pub struct ScoreJudge {
    rules: ScoreRules,
    plies: u64,
    /// Consecutive plies (both players') scored within the draw window since the last
    /// progress.
    even: u64,
    /// Each player's consecutive scores at `-score` or worse, and at `+score` or better.
    lost: [u64; 2],
    won: [u64; 2],
}

impl ScoreJudge {
    pub fn new(rules: ScoreRules) -> ScoreJudge {
        ScoreJudge {
            rules,
            plies: 0,
            even: 0,
            lost: [0; 2],
            won: [0; 2],
        }
    }

    /// The rules it judges by.
    pub fn rules(&self) -> &ScoreRules {
        &self.rules
    }

    /// Whether it rules on nothing (no rule on).
    pub fn is_off(&self) -> bool {
        self.rules.is_off()
    }

    /// After a ply of `mover` (1 or 2) that said `score` (`None`: said none); `progress`: the
    /// ply revealed, captured, drew or put a piece. The ruling, when the rules are met.
    pub fn ply(&mut self, mover: usize, score: Option<i32>, progress: bool) -> Option<ScoreRuling> {
        self.plies += 1;
        if !(1..=2).contains(&mover) {
            return None;
        }
        let me = mover - 1;
        if let Some(d) = &self.rules.draw {
            if progress {
                self.even = 0;
            }
            match score {
                Some(s) if s.abs() <= d.score => self.even += 1,
                _ => self.even = 0,
            }
            if self.plies / 2 >= u64::from(d.move_number)
                && self.even >= 2 * u64::from(d.move_count)
            {
                return Some(ScoreRuling::Draw);
            }
        }
        if let Some(r) = &self.rules.resign {
            let bump = |n: &mut u64, yes: bool| *n = if yes { *n + 1 } else { 0 };
            bump(&mut self.lost[me], score.is_some_and(|s| s <= -r.score));
            bump(&mut self.won[me], score.is_some_and(|s| s >= r.score));
            let count = u64::from(r.move_count);
            if self.lost[me] >= count && (!r.two_sided || self.won[1 - me] >= count) {
                return Some(ScoreRuling::Loses(mover));
            }
        }
        None
    }
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

    /// The rulings after each ply of `plies` (mover, score, progress).
    fn rulings(
        rules: ScoreRules,
        plies: &[(usize, Option<i32>, bool)],
    ) -> Vec<Option<ScoreRuling>> {
        let mut judge = ScoreJudge::new(rules);
        plies.iter().map(|&(m, s, p)| judge.ply(m, s, p)).collect()
    }

    fn draw(move_number: u32, move_count: u32, score: i32) -> ScoreRules {
        ScoreRules {
            draw: Some(DrawByScores {
                move_number,
                move_count,
                score,
            }),
            resign: None,
        }
    }

    fn resign(move_count: u32, score: i32, two_sided: bool) -> ScoreRules {
        ScoreRules {
            draw: None,
            resign: Some(ResignByScores {
                move_count,
                score,
                two_sided,
            }),
        }
    }

    #[test]
    fn a_draw_needs_the_move_number_and_a_run_of_both_players_since_the_last_progress() {
        let even = [
            (1, Some(5), false),
            (2, Some(-5), false),
            (1, Some(0), false),
            (2, Some(10), false),
        ];
        assert_eq!(
            rulings(draw(2, 2, 10), &even),
            [None, None, None, Some(ScoreRuling::Draw)]
        );
        // Not before move 2 is complete.
        assert_eq!(rulings(draw(3, 2, 10), &even)[3], None);
        // One score out of the window, or missing, breaks the run.
        let mut out = even;
        out[1].1 = Some(11);
        assert_eq!(rulings(draw(2, 2, 10), &out)[3], None);
        out[1].1 = None;
        assert_eq!(rulings(draw(2, 2, 10), &out)[3], None);
        // Progress (a reveal, a capture) starts the run afresh: the ply itself counts.
        let mut progress = even.to_vec();
        progress[2].2 = true;
        assert_eq!(rulings(draw(2, 2, 10), &progress)[3], None);
        progress.extend([(1, Some(1), false), (2, Some(2), false)]);
        assert_eq!(
            rulings(draw(2, 2, 10), &progress)[5],
            Some(ScoreRuling::Draw)
        );
    }

    #[test]
    fn a_loss_is_ruled_on_the_losers_ply_and_with_two_sided_needs_the_winners_run() {
        let lost = [
            (1, Some(-700), false),
            (2, Some(100), false),
            (1, Some(-600), false),
            (2, Some(50), false),
        ];
        assert_eq!(
            rulings(resign(2, 600, false), &lost)[2],
            Some(ScoreRuling::Loses(1))
        );
        assert_eq!(rulings(resign(2, 600, true), &lost), [None; 4]);
        // Two-sided: the winner's run counts, and the loss is ruled on the loser's ply.
        let agreed = [
            (1, Some(-700), false),
            (2, Some(650), false),
            (1, Some(-600), false),
            (2, Some(900), false),
            (1, Some(-900), false),
        ];
        assert_eq!(
            rulings(resign(2, 600, true), &agreed),
            [None, None, None, None, Some(ScoreRuling::Loses(1))]
        );
        // A run broken by a better score is not a loss.
        let broken = [
            (1, Some(-700), false),
            (2, Some(0), false),
            (1, Some(-599), false),
            (2, Some(0), false),
        ];
        assert_eq!(rulings(resign(2, 600, false), &broken), [None; 4]);
        // Player 2's run, with a mate score.
        let mated = [
            (1, Some(0), false),
            (2, Some(-MATE), false),
            (1, Some(0), false),
            (2, Some(-MATE), false),
        ];
        assert_eq!(
            rulings(resign(2, 600, false), &mated)[3],
            Some(ScoreRuling::Loses(2))
        );
        // A mover that is no player rules nothing (a hostile record).
        assert_eq!(
            rulings(resign(1, 600, false), &[(3, Some(-MATE), false)]),
            [None]
        );
    }

    #[test]
    fn movenumber_0_is_refused_as_cutechess_reads_it_as_off() {
        let e = "movenumber=0 movecount=8 score=10"
            .parse::<DrawByScores>()
            .unwrap_err();
        assert!(e.to_string().contains("at least 1"), "{e}");
    }
}
