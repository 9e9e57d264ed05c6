//! The referee's one way to write to a seat's player, and the exchange kept on the way.
//!
//! A watched game keeps its exchange (`crate::exchange`): every line the referee sent each
//! player and every message it read from one. Every line to a seat goes through
//! [`Referee::send`] (or [`Referee::send_setup`], which hides the seat's secret), which
//! notes it in the exchange before it is written, so the exchange cannot miss a line or show
//! one that was never sent; [`Referee::note_read`] notes what was read.
//!
//! Lines to connections that are not a seat's player are not in the exchange: the refusals of
//! a connection coming back for a seat (it is not seated, and may not be the seat's player),
//! and the old connection let go when another takes its seat back. They are written to that
//! connection's outbox directly (`rejoin`, `finish`).

use super::Referee;
use crate::connection::{Gone, Inbound};
use anqi_core::wire::{ErrorCode, ServerClause, ServerMessage};
use std::sync::Arc;

impl Referee {
    /// Sends `line` to `player`, noted in the exchange of a watched game.
    ///
    /// # Errors
    /// [`Gone`] when the player's connection is lost (closed, or not taking what it is sent);
    /// the caller decides what that means for the game (`Referee::lost`).
    pub(super) fn send(&mut self, player: usize, line: Arc<str>) -> Result<(), Gone> {
        self.note_sent(player, &line);
        self.seats[player - 1].player.outbox.send_line(line)
    }

    /// Sends `((error CODE "text"))` to `player`, noted in the exchange, whether its
    /// connection takes it or not: a player that is gone is found out by the next line that
    /// must reach it.
    pub(super) fn send_error(&mut self, player: usize, code: ErrorCode, text: String) {
        let line = ServerMessage(vec![ServerClause::Error(code, text)]).to_line();
        let _ = self.send(player, line.into());
    }

    /// Sends `player` its setup message (at the start, and again when it takes its seat
    /// back), the seat's `rejoin` secret shown as `(secret)` in the exchange: the pages show
    /// the exchange once the game is over, when the secret is dead, and it is left out all
    /// the same.
    ///
    /// # Errors
    /// As [`Referee::send`].
    pub(super) fn send_setup(&mut self, player: usize) -> Result<(), Gone> {
        let line = self.setup_line(player);
        if let Some(x) = &mut self.exchange {
            let shown = match &self.seats[player - 1].secret {
                Some(secret) => line.replace(secret.as_str(), "(secret)"),
                None => line.clone(),
            };
            x.sent(player, self.game.ply() + 1, &shown);
        }
        self.seats[player - 1].player.outbox.send_line(line.into())
    }

    /// Notes in the exchange what was read from `player`: a message, one that could not be
    /// read (and why), or the connection closed.
    pub(super) fn note_read(&mut self, player: usize, inbound: &Inbound) {
        let Some(x) = &mut self.exchange else { return };
        let ply = self.game.ply() + 1;
        match inbound {
            Inbound::Message(m, _) => x.read(player, ply, &m.to_string()),
            Inbound::Bad(e, _) => x.read(player, ply, &format!("(unreadable: {})", e.text)),
            Inbound::Closed => x.read(player, ply, "(closed the connection)"),
        }
    }

    /// Notes in the exchange that `line` is being sent to `player`.
    fn note_sent(&mut self, player: usize, line: &str) {
        if let Some(x) = &mut self.exchange {
            x.sent(player, self.game.ply() + 1, line);
        }
    }
}
