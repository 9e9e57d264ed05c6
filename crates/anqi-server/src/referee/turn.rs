//! The loop of one turn: the position sent to everyone, the mover prompted, then every message
//! read and ruled on until the mover's action is played or the game ends (a clock, a deadline,
//! shutdown, a lost connection or a grace that ran out).

use super::rulings::Step;
use super::{NoStart, Referee, Seat, Turn};
use crate::config::LegalCounts;
use crate::connection::Inbound;
use anqi_core::rules::Termination;
use anqi_core::wire::{Extensions, Request};
use std::future::poll_fn;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

impl Referee {
    /// Sends the board with `(turn ...)` to the mover and `(info ...)` to everyone else (with
    /// the extension clauses each asked for before them). A seat without its player (its
    /// connection lost, the seat kept) is skipped: it gets the position when it comes back.
    /// `None` when the game ended on the way (a player who cannot be written to is gone).
    pub(super) fn prompt(&mut self) -> Option<Turn> {
        let mover = self.game.to_move();
        let prompt = self.send_position(mover)?;
        let started = Instant::now();
        if self.first_moves.prompted(mover, started) {
            self.first_prompt(mover, started);
        }
        Some(Turn {
            mover,
            prompt,
            board: self.game.wire_board(),
            round: self.game.round(),
            started,
            deadline: self.clocks.deadline(mover, started),
            counts: self.game.counts(),
            counts_all: (self.ctx.config.records.legal_counts == LegalCounts::All).then(|| {
                (1..=self.seats.len())
                    .map(|p| self.game.counts_of(p))
                    .collect()
            }),
        })
    }

    /// Sends the position to every seated player: `(turn ...)` to the mover, `(info ...)` to
    /// everyone else. Returns the mover's prompt (written even when the mover is away: it is
    /// sent anew when it comes back); `None` when the game ended on the way (a player who
    /// cannot be written to is gone).
    fn send_position(&mut self, mover: usize) -> Option<Arc<str>> {
        // Most games have at most two kinds of clients (with and without extensions).
        let mut made: Vec<(Extensions, bool, Arc<str>)> = Vec::new();
        let mut prompt = None;
        let mut gone = Vec::new();
        for player in 1..=self.seats.len() {
            if self.seats[player - 1].away.is_some() {
                continue;
            }
            let ext = self.seats[player - 1].player.ext;
            let to_move = player == mover;
            let line = match made.iter().find(|(e, m, _)| *e == ext && *m == to_move) {
                Some((_, _, line)) => line.clone(),
                None => {
                    let line = self.position_line(ext, to_move, Duration::ZERO);
                    made.push((ext, to_move, line.clone()));
                    line
                }
            };
            if to_move {
                prompt = Some(line.clone());
            }
            if self.send(player, line).is_err() {
                gone.push(player);
            }
        }
        for player in gone {
            if self.lost(player) {
                return None;
            }
        }
        Some(prompt.unwrap_or_else(|| {
            self.position_line(self.seats[mover - 1].player.ext, true, Duration::ZERO)
        }))
    }

    /// The mover's first prompt of the game, at `started`: until it acts, it may have to make
    /// room on a full server, ending the game. Every open connection of the game gives its
    /// place back then (a seat waiting for its player after a lost connection has given its
    /// place back already), and a game under way makes room only when no game without a ply
    /// can.
    fn first_prompt(&mut self, mover: usize, started: Instant) {
        let frees = self
            .seats
            .iter()
            .filter(|s| s.player.ticket.is_some() && s.away.is_none())
            .count();
        let game_started = self.game.ply() > 0;
        if let Some(ticket) = &mut self.seats[mover - 1].player.ticket {
            ticket.prompted(started, frees, game_started);
        }
    }

    /// Waits until the mover's action is played or the game ends, answering every other
    /// message on the way.
    ///
    /// Time is charged up to the moment a message was read from the socket, so a message read
    /// before the deadline is ruled on even when the referee gets to it after the deadline, and
    /// the flag falls only when nothing read in time was a legal action.
    pub(super) async fn await_action(&mut self, turn: &mut Turn) {
        loop {
            let shutdown = self.ctx.shutdown.clone();
            // The first kept seat whose player's grace runs out.
            let grace_over = self
                .seats
                .iter()
                .enumerate()
                .filter_map(|(i, s)| s.away.map(|(since, _)| (since + self.grace, i + 1)))
                .min();
            // A mover that has not acted yet: its first action's deadline, and the signal that
            // it must make room on a full server.
            let first_due = self.first_moves.deadline(turn.mover);
            let made_room = (!self.first_moves.has_acted(turn.mover))
                .then(|| self.seats[turn.mover - 1].player.ticket.as_ref())
                .flatten()
                .map(|t| t.made_room().clone());
            // A local player may abort the game on its own turn while no ply has been played.
            let asked_abort = (self.game.ply() == 0)
                .then(|| self.seats[turn.mover - 1].player.abort.clone())
                .flatten();
            let (from, inbound) = tokio::select! {
                biased;
                _ = shutdown.cancelled() => {
                    self.clocks.charge(turn.mover, turn.started.elapsed());
                    self.game.abort();
                    return;
                }
                // Before the deadline: what was read in time is ruled on first.
                e = next_event(&mut self.seats, &mut self.next_poll) => e,
                _ = sleep_until_opt(turn.deadline) => {
                    self.lose_on_time(turn);
                    return;
                }
                _ = sleep_until_opt(first_due) => {
                    self.missed_first_action(turn, NoStart::Deadline);
                    return;
                }
                _ = cancelled_opt(made_room.as_ref()) => {
                    self.missed_first_action(turn, NoStart::MadeRoom);
                    return;
                }
                _ = cancelled_opt(asked_abort.as_ref()) => {
                    self.missed_first_action(turn, NoStart::Asked);
                    return;
                }
                _ = sleep_until_opt(grace_over.map(|(at, _)| at)) => {
                    let player = grace_over.expect("a grace ran out").1;
                    tracing::info!(player, "a player did not come back in time");
                    self.ctx.rejoins.expired();
                    self.game.forfeit(player, Termination::Disconnect);
                    return;
                }
                Some(back) = self.returns.recv() => {
                    if self.take_back(back, turn) {
                        self.ctx.rejoins.expired();
                        return;
                    }
                    continue;
                }
            };
            self.note_read(from, &inbound);
            let (request, read_at) = match inbound {
                Inbound::Closed => {
                    if self.lost(from) {
                        return;
                    }
                    continue;
                }
                Inbound::Bad(e, at) => (Request::Refused(e.code, e.text), at.instant()),
                Inbound::Message(m, at) => (Request::of(m), at.instant()),
            };
            // Past the deadline, the mover's flag has fallen (whatever the message says).
            if from == turn.mover && turn.deadline.is_some_and(|d| read_at > d) {
                self.lose_on_time(turn);
                return;
            }
            // Likewise past the first-move deadline: the game was over before this was read.
            if from == turn.mover && first_due.is_some_and(|d| read_at > d) {
                self.missed_first_action(turn, NoStart::Deadline);
                return;
            }
            let spent = read_at.saturating_duration_since(turn.started);
            match self.rule(turn, from, request, spent) {
                Step::Answered => {}
                Step::Played | Step::Over => return,
            }
        }
    }
}

async fn sleep_until_opt(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

/// Waits until `token` is cancelled; for ever without one.
async fn cancelled_opt(token: Option<&CancellationToken>) {
    match token {
        Some(t) => t.cancelled().await,
        None => std::future::pending().await,
    }
}

/// The next message from any seat, taking seats in turn so none is starved.
async fn next_event(seats: &mut [Seat], next: &mut usize) -> (usize, Inbound) {
    poll_fn(|cx| {
        let n = seats.len();
        for k in 0..n {
            let i = (*next + k) % n;
            // A seat without its player has nothing to say until it is back.
            if seats[i].away.is_some() {
                continue;
            }
            match seats[i].player.inbox.poll_recv(cx) {
                Poll::Ready(Some(msg)) => {
                    *next = (i + 1) % n;
                    return Poll::Ready((i + 1, msg));
                }
                Poll::Ready(None) => return Poll::Ready((i + 1, Inbound::Closed)),
                Poll::Pending => {}
            }
        }
        Poll::Pending
    })
    .await
}
