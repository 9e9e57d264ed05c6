//! A lost connection, and a seat taken back by its player: a kept seat waits for its player
//! (until its grace runs out), and a connection that proves it is the seat's (with the seat's
//! secret or its tournament token) takes it back and plays on.

use super::{granted, text, Referee, Turn};
use crate::connection::Player;
use crate::rejoin::{Proof, Return};
use anqi_core::record::DropRecord;
use anqi_core::rules::Termination;
use anqi_core::wire::{ErrorCode, Extension};
use tokio::time::Instant;

/// How often a seat may be taken back in one game: a player that drops and comes back without
/// end could otherwise hold an untimed game up for ever, a grace at a time, and grow its
/// record's `drops` without bound.
const MAX_RETURNS: u32 = 20;

impl Referee {
    /// `player`'s connection is lost (closed, or not taking what it is sent). A kept seat
    /// waits for its player's return (until its grace runs out), and the old connection is let
    /// go, so that a client that is still there sees it closed and comes back; any other
    /// player loses by `disconnect`. Returns whether the game is over.
    pub(super) fn lost(&mut self, player: usize) -> bool {
        let seat = &mut self.seats[player - 1];
        if !seat.kept {
            self.game.forfeit(player, Termination::Disconnect);
            return true;
        }
        if seat.away.is_none() {
            tracing::info!(
                player,
                grace_ms = self.grace.as_millis() as u64,
                "a player's connection is lost; its seat waits for it"
            );
            seat.away = Some((Instant::now(), self.game.ply() + 1));
            seat.player.let_go();
        }
        false
    }

    /// A connection came back for a seat with its proof: it takes the seat, is sent the
    /// setup message again and the position as it stands, and plays on. The clock ran on
    /// meanwhile.
    ///
    /// A seat still connected is taken from its old connection with the seat's secret (a peer
    /// that vanished without closing its socket leaves a connection that still looks open),
    /// not with a tournament token: a token may have been read from a command line, and it
    /// only stands in for a lost connection. A seat is taken back at most [`MAX_RETURNS`]
    /// times a game.
    ///
    /// A player whose grace or clock ran out while it was away is too late, however soon
    /// after it came (the timers may not have fired yet when the return is read): it loses as
    /// `disconnect`, and this returns `true` (the game is over).
    pub(super) fn take_back(&mut self, back: Return, turn: &mut Turn) -> bool {
        let Return {
            seat,
            player,
            proof,
        } = back;
        let now = Instant::now();
        if self.too_late(seat, &player, turn, now) {
            return true;
        }
        if self.refuses_return(seat, &player, proof) {
            return false;
        }
        self.seat_returning(seat, player, now);
        self.catch_up(seat, turn, now);
        false
    }

    /// Whether `player`, coming back for `seat` at `now`, is too late: the seat's grace, or
    /// its clock as the mover, ran out while it was away. Then it is told so, the seat loses
    /// (on time, or as `disconnect`), and the game is over.
    fn too_late(&mut self, seat: usize, player: &Player, turn: &Turn, now: Instant) -> bool {
        let Some((since, _)) = self.seats[seat - 1].away else {
            return false;
        };
        let flag_fell = seat == turn.mover && turn.deadline.is_some_and(|d| now >= d);
        if !flag_fell && now < since + self.grace {
            return false;
        }
        // Not in the exchange: this connection was never seated (`send`).
        player.outbox.error(ErrorCode::Unexpected, text::TOO_LATE);
        if flag_fell {
            self.lose_on_time(turn);
        } else {
            self.game.forfeit(seat, Termination::Disconnect);
        }
        true
    }

    /// Whether `player`'s return to `seat` with `proof` is refused (and it is told why): a
    /// tournament token for a seat still connected, or a seat taken back too often.
    fn refuses_return(&self, seat: usize, player: &Player, proof: Proof) -> bool {
        let s = &self.seats[seat - 1];
        if s.away.is_none() && proof == Proof::Token {
            tracing::warn!(player = seat, peer = %player.peer, "refused a connection presenting a tournament token whose seat is already taken: its engine is still connected");
            player
                .outbox
                .error(ErrorCode::Unexpected, text::TOKEN_SEAT_TAKEN);
            return true;
        }
        if s.returns >= MAX_RETURNS {
            tracing::warn!(player = seat, peer = %player.peer, "refused a seat's return: it came back too often");
            player
                .outbox
                .error(ErrorCode::Unexpected, text::returned_too_often(MAX_RETURNS));
            return true;
        }
        false
    }

    /// `player` takes `seat` (back from its old connection, if that one still looked open):
    /// the drop is recorded, and the seat keeps its name, seed and place among the seated.
    fn seat_returning(&mut self, seat: usize, mut player: Player, now: Instant) {
        let next_ply = self.game.ply() + 1;
        let s = &mut self.seats[seat - 1];
        s.returns += 1;
        let (away_ms, ply) = match s.away.take() {
            Some((since, ply)) => (now.duration_since(since).as_millis() as u64, ply),
            None => {
                tracing::warn!(player = seat, peer = %player.peer, "a connection took its seat back with its secret while the old one was still open");
                // Not in the exchange, as the lines to a connection coming back are not: the
                // seat's player is the new connection.
                s.player
                    .outbox
                    .error(ErrorCode::Unexpected, text::TAKEN_BY_ANOTHER);
                (0, next_ply)
            }
        };
        tracing::info!(player = seat, peer = %player.peer, away_ms, "a player took its seat back");
        self.ctx.rejoins.taken_back();
        self.drops.push(DropRecord {
            player: seat,
            ply,
            away_ms,
            back: true,
        });
        // The seat keeps its name and seed for the record; the connection is the new one,
        // with the extensions it asked for (as far as this server grants them).
        player.name = std::mem::take(&mut s.player.name);
        player.seed = std::mem::take(&mut s.player.seed);
        player.ticket = s.player.ticket.take();
        player.ext = granted(player.ext, &self.ctx.config);
        if s.secret.is_none() {
            player.ext = player.ext.without(Extension::Rejoin);
        }
        s.player = player;
    }

    /// Sends the player back in `seat` its setup message and the position as it stands (the
    /// mover's clock showing the time it has been away, and its prompt written anew).
    fn catch_up(&mut self, seat: usize, turn: &mut Turn, now: Instant) {
        if self.send_setup(seat).is_err() {
            self.lost(seat);
            return;
        }
        let ext = self.seats[seat - 1].player.ext;
        let to_move = seat == turn.mover;
        let line = self.position_line(ext, to_move, now.duration_since(turn.started));
        if to_move {
            turn.prompt = line.clone();
        }
        if self.send(seat, line).is_err() {
            self.lost(seat);
        }
    }
}
