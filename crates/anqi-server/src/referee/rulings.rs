//! The rulings: what each request from a player gets. A legal action in time is played and
//! recorded; anything else is answered with an error (and, as `[referee]` says, may lose the
//! game), and a mover whose clock or first-move deadline ran out loses on time (or, before any
//! ply, has its game aborted).

use super::{clocks_left, text, unix_ms, NoStart, Referee, Turn};
use crate::config::Ruling;
use anqi_core::record::{FaultRecord, PlyRecord};
use anqi_core::rules::{Action, PlayError, Played, Termination};
use anqi_core::view;
use anqi_core::wire::{ErrorCode, Extension, LastPly, Request};
use std::time::Duration;

/// A fault of a player's, and what it gets.
struct Fault {
    code: ErrorCode,
    text: String,
    /// `error` (the reply only; counted against `max_errors`) or `lose`.
    ruling: Ruling,
}

/// What ruling on a request led to.
pub(super) enum Step {
    /// The mover's action was played: the next turn.
    Played,
    /// Answered with an error; the turn goes on.
    Answered,
    /// The game is over.
    Over,
}

impl Referee {
    /// Rules on one request from player `from`, read `spent` after the turn started.
    pub(super) fn rule(
        &mut self,
        turn: &Turn,
        from: usize,
        request: Request,
        spent: Duration,
    ) -> Step {
        let fault = match request {
            Request::Resign => {
                self.game.resign(from);
                return Step::Over;
            }
            Request::Refused(code, text) => Fault {
                code,
                text,
                ruling: Ruling::Error,
            },
            Request::Act {
                board,
                action,
                comment,
            } => {
                let refused = self.refusal(turn, from, board.as_deref(), comment.is_some());
                match refused {
                    Some(fault) => fault,
                    None => match self.play(turn, action, comment, spent) {
                        Ok(step) => return step,
                        Err(fault) => fault,
                    },
                }
            }
        };
        self.answer_fault(turn, from, fault)
    }

    /// Why an action from `from` is refused before it is tried, in this order: not its turn,
    /// a `(board ...)` that is not the board sent (unless `stale_board = "ignore"`), a
    /// `(comment ...)` without the `comment` extension. `None`: the action is tried.
    fn refusal(
        &self,
        turn: &Turn,
        from: usize,
        claimed: Option<&str>,
        commented: bool,
    ) -> Option<Fault> {
        let referee = &self.ctx.config.referee;
        if from != turn.mover {
            return Some(Fault {
                code: ErrorCode::NotYourTurn,
                text: text::not_your_turn(turn.mover),
                ruling: referee.out_of_turn,
            });
        }
        if let Some(claimed) = claimed {
            if claimed != turn.board && referee.stale_board != Ruling::Ignore {
                return Some(Fault {
                    code: ErrorCode::StaleBoard,
                    text: text::stale_board(&turn.board, claimed),
                    ruling: referee.stale_board,
                });
            }
        }
        if commented && !self.seats[from - 1].player.ext.contains(Extension::Comment) {
            return Some(Fault {
                code: ErrorCode::Unexpected,
                text: text::comment_not_granted(self.ctx.config.records.comment_bytes),
                ruling: Ruling::Error,
            });
        }
        None
    }

    /// Plays the mover's action, read `spent` after the turn started: recorded, shown to
    /// observers, and the game adjudicated after it. A flag that fell before it was read loses
    /// on time instead.
    ///
    /// # Errors
    /// The fault of an illegal action (the game goes on, or not, as its ruling says).
    fn play(
        &mut self,
        turn: &Turn,
        action: Action,
        comment: Option<String>,
        spent: Duration,
    ) -> Result<Step, Fault> {
        if self.clocks.would_fall(turn.mover, spent) {
            self.lose_on_time(turn);
            return Ok(Step::Over);
        }
        // The one validation of the ply: `play` checks and applies it.
        let played = match self.game.play(turn.mover, action) {
            Ok(played) => played,
            Err(PlayError::Illegal(e)) => {
                return Err(Fault {
                    code: ErrorCode::Illegal,
                    text: e.0,
                    ruling: self.ctx.config.referee.illegal_action,
                })
            }
            Err(e @ (PlayError::NotYourTurn { .. } | PlayError::GameOver)) => {
                unreachable!("the mover of a running game: {e}")
            }
        };
        self.clocks.charge(turn.mover, spent);
        self.acted(turn.mover);
        self.last = Some((turn.mover, last_ply(action, &played)));
        let comment_bytes = self.ctx.config.records.comment_bytes;
        self.plies.push(PlyRecord {
            think_ms: spent.as_millis() as u64,
            legal_all: turn.counts_all.clone(),
            comment: comment.map(|c| cut_comment(c, comment_bytes)),
            ..PlyRecord::of_play(
                &self.game,
                turn.round,
                turn.mover,
                action,
                turn.counts,
                &played,
            )
        });
        self.adjudicate_after_ply();
        self.publish_ply();
        Ok(Step::Played)
    }

    /// Answers a fault of `from`'s: the error reply, then the loss when its ruling is `lose`
    /// or it has had more than `max_errors`; otherwise a mover is prompted again, with the
    /// prompt as it was sent.
    fn answer_fault(&mut self, turn: &Turn, from: usize, fault: Fault) -> Step {
        let max_errors = self.ctx.config.referee.max_errors;
        self.reply_fault(from, fault.code, fault.text);
        let too_many = max_errors > 0 && self.seats[from - 1].errors > max_errors;
        if fault.ruling == Ruling::Lose || too_many {
            self.game.forfeit(from, Termination::Illegal);
            return Step::Over;
        }
        if from != turn.mover {
            return Step::Answered;
        }
        if self.send(from, turn.prompt.clone()).is_err() && self.lost(from) {
            return Step::Over;
        }
        Step::Answered
    }

    /// `player` made an action: its first-move deadline is over, and it never makes room.
    fn acted(&mut self, player: usize) {
        self.first_moves.acted(player);
        if let Some(ticket) = &mut self.seats[player - 1].player.ticket {
            ticket.acted();
        }
    }

    /// The mover has not made its first action (see [`crate::clock::FirstMoves`]): in time,
    /// or before it had to make room on a full server.
    ///
    /// While no ply has been played, nobody has started playing, so nobody wins: the game is
    /// aborted, and every player is told why in [`Referee::finish`]. Once a ply has been
    /// played (a piece revealed, colours set), the mover has seen the game start, and walking
    /// away from a position it dislikes must not spare it a loss: it loses on time, as if its
    /// clock had run out (told why here; the others get their `(win ...)`). A mover away from
    /// its kept seat loses by `disconnect`, as on its clock.
    pub(super) fn missed_first_action(&mut self, turn: &Turn, why: NoStart) {
        self.clocks.charge(turn.mover, turn.started.elapsed());
        if self.game.ply() == 0 {
            tracing::info!(
                player = turn.mover,
                ?why,
                "a player made no first action; the game is aborted"
            );
            self.no_start = Some((turn.mover, why));
            self.game.abort();
            return;
        }
        tracing::info!(
            player = turn.mover,
            ?why,
            plies = self.game.ply(),
            "a player made no first action in a game under way; it loses on time"
        );
        if self.seats[turn.mover - 1].away.is_some() {
            self.game.forfeit(turn.mover, Termination::Disconnect);
            return;
        }
        self.game.forfeit(turn.mover, Termination::Time);
        let limit_ms = self.first_moves.limit().unwrap_or_default().as_millis();
        let (code, text) = text::no_first_action_under_way(why, limit_ms);
        self.reply_fault(turn.mover, code, text);
    }

    /// Shows observers the ply just played and the position after it.
    fn publish_ply(&mut self) {
        let Some(feed) = &mut self.feed else { return };
        let Some(ply) = self.plies.last() else { return };
        let clocks = clocks_left(&self.clocks, self.seats.len());
        feed.ply(ply, &self.game, clocks, unix_ms());
    }

    /// The mover's flag fell: they are told, and lose. A mover away from its kept seat loses
    /// by `disconnect`: it was not there to play.
    pub(super) fn lose_on_time(&mut self, turn: &Turn) {
        self.clocks.charge(turn.mover, turn.started.elapsed());
        if self.seats[turn.mover - 1].away.is_some() {
            self.game.forfeit(turn.mover, Termination::Disconnect);
            return;
        }
        self.game.forfeit(turn.mover, Termination::Time);
        self.reply_fault(turn.mover, ErrorCode::Timeout, text::CLOCK_RAN_OUT.into());
    }

    /// Sends `((error CODE "text"))` to a player, counts it against them and records it.
    pub(super) fn reply_fault(&mut self, player: usize, code: ErrorCode, text: String) {
        self.send_error(player, code, text.clone());
        let seat = &mut self.seats[player - 1];
        seat.errors += 1;
        let fault = FaultRecord {
            ply: self.game.ply() + 1,
            player,
            code: code.name().to_string(),
            text,
        };
        if let Some(feed) = &mut self.feed {
            feed.push(&view::Event::Fault(view::FaultView::of(&fault)));
        }
        self.faults.push(fault);
    }
}

/// A comment as a record keeps it: at most `max` bytes, cut at a character boundary and
/// ending with `...` when it was longer.
pub(super) fn cut_comment(mut text: String, max: usize) -> String {
    if text.len() <= max {
        return text;
    }
    const MORE: &str = "...";
    // Room for the mark, unless the bound is too small to hold it.
    let mark = if max > MORE.len() { MORE } else { "" };
    let mut end = max - mark.len();
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text.push_str(mark);
    text
}

/// The `(last ...)` clause's form of an action just played (a reveal with the piece it showed).
fn last_ply(action: Action, played: &Played) -> LastPly {
    match action {
        Action::Reveal(cell) => LastPly::Rev(cell, played.revealed.map_or('X', |p| p.letter())),
        Action::Move { from, to } => LastPly::Mov(from, to),
        Action::Bag => LastPly::Bag,
        Action::Put { piece, cell } => LastPly::Put(piece.letter(), cell),
    }
}
