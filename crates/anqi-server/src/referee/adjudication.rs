//! What may end a game after a ply besides the rules: the endgame tables' verdict
//! (`[referee] adjudicate = "tables"`), then the engines' scores (`score_draw`,
//! `score_resign`), then the ply cap (`max_plies`).

use super::Referee;
use anqi_core::record::Adjudication;
use anqi_core::rules::Termination;
use anqi_core::scores::{comment_score, ScoreRuling};

impl Referee {
    /// After a ply: the endgame tables may end the game, then the players' scores, then the
    /// ply cap draws it (the tables first: their result is the better one).
    pub(super) fn adjudicate_after_ply(&mut self) {
        self.adjudicate_by_tables();
        self.adjudicate_by_scores();
        let cap = self.header.max_plies;
        if cap > 0 && self.game.ply() >= cap && self.game.outcome().is_none() {
            self.game.adjudicate_draw(Termination::PlyCap);
        }
    }

    /// With `adjudicate = "tables"`, after a ply: a game the endgame tables decide ends with
    /// their verdict (before the ply cap is looked at: the tables' result is the better one).
    /// Tables that cannot answer (a material whose values fail their checks, or went away
    /// under the server) leave the game to the rules, where they fail: the fault is logged
    /// once for the whole server (the tables say which report is the first), never per game.
    ///
    /// The first probe of a material reads it from the file (I/O, its SHA-256, inflation: up
    /// to a second for the largest), or waits for another referee reading it: on a
    /// multi-threaded runtime that probe runs under `block_in_place`, so that the worker's
    /// other tasks (other games, connections) move to another thread meanwhile. A
    /// current-thread runtime (tests) cannot hand them over, and probes in place.
    fn adjudicate_by_tables(&mut self) {
        let Some(tables) = &self.ctx.tables else {
            return;
        };
        if self.game.outcome().is_some() {
            return;
        }
        let game = &self.game;
        let multi_threaded = || {
            tokio::runtime::Handle::try_current()
                .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread)
        };
        let ruled = if tables.needs_read(game) && multi_threaded() {
            tokio::task::block_in_place(|| tables.adjudication(game))
        } else {
            tables.adjudication(game)
        };
        match ruled {
            Ok(None) => {}
            Ok(Some((winner, verdict))) => {
                self.game.adjudicate(winner);
                let path = std::path::Path::new(&self.ctx.config.referee.tables);
                self.adjudication = Some(Adjudication::by_tables(verdict, path));
                tracing::debug!(verdict = %verdict.text(), ?winner, "the endgame tables end the game");
            }
            Err(e) if e.first() => {
                tracing::error!(error = %e, ply = self.game.ply(), "the endgame tables cannot be used there; games go on without them where they fail");
            }
            Err(e) => tracing::debug!(error = %e, "the endgame tables cannot be used there"),
        }
    }

    /// With `score_draw` or `score_resign`, after a ply: the mover's score is read from its
    /// comment, and a game the engines' scores rule on ends with that ruling (termination
    /// `adjudicated`, the rule met in the record's result).
    fn adjudicate_by_scores(&mut self) {
        if self.scores.is_off() || self.game.outcome().is_some() {
            return;
        }
        let Some(ply) = self.plies.last() else {
            return;
        };
        let score = ply.comment.as_deref().and_then(comment_score);
        let Some(ruling) = self.scores.ply(ply.player, score, ply.made_progress()) else {
            return;
        };
        match ruling {
            ScoreRuling::Draw => self.game.adjudicate(None),
            ScoreRuling::Loses(player) => {
                let side = self.game.side_of(player);
                self.game.adjudicate(Some(1 - side));
            }
        }
        let rule = self.scores.rules().rule_text(ruling);
        tracing::debug!(?ruling, %rule, "the engines' scores end the game");
        self.adjudication = Some(Adjudication::by_scores(ruling, rule));
    }
}
