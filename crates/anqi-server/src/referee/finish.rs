//! The end of a game: the record assembled and written, and only then the result told.

use super::{text, Referee};
use crate::record_sink::Committed;
use anqi_core::record::{wire_team, DropRecord, GameRecord, PlayerRecord};
use anqi_core::rules::Termination;
use anqi_core::wire::{ErrorCode, Extension, ServerClause, ServerMessage};
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

impl Referee {
    /// Writes the record, then tells everyone the result: a player who has seen `(win ...)`
    /// can count on the record being on disk. An aborted game's players are told why instead.
    pub(super) async fn finish(mut self) {
        self.release_seats();
        let reason = self
            .game
            .outcome()
            .expect("the game loop ends with an outcome")
            .reason;
        self.close_drops();
        let aborted = reason == Termination::Aborted;
        if aborted {
            self.tell_aborted();
        }
        let record = self.record(reason);
        let win = record.result.win.clone();
        tracing::info!(
            result = %if win.is_empty() { "aborted" } else { &win },
            reason = reason.name(),
            plies = self.game.ply(),
            "game over"
        );
        let done = self.done.take().map(|done| (done, record.clone()));
        let watched = self.feed.take().map(|feed| (feed, record.clone()));
        let game_no = record.game;
        // An aborted game's players have been told already (and get no result): the server
        // waits for its record when it stops, not the game.
        let wait = if aborted {
            Duration::ZERO
        } else {
            Duration::from_millis(self.ctx.config.records.write_wait_ms)
        };
        let committed = self.ctx.records.commit(record, wait).await;
        if let Some((done, record)) = done {
            let _ = done.send(record);
        }
        if !aborted {
            // The players are told when the result they get next is not on disk (the record
            // is kept and written when the file can be: protocol/RECORDS.md).
            if let Committed::Pending(why) = &committed {
                self.tell_unrecorded(game_no, why);
            }
            self.tell_result();
        }
        if let Some((feed, record)) = watched {
            feed.finish(&record, self.exchange.take().unwrap_or_default());
        }
        self.answer_late_returns(&win, reason);
    }

    /// No connection is handed to this game any more, and the players' seats are free again
    /// before anyone hears how the game ended: a client that has its result may take a seat
    /// for its next game at once.
    fn release_seats(&mut self) {
        self.registrations.clear();
        for seat in &mut self.seats {
            seat.player.ticket = None;
        }
    }

    /// Records the drops of the seats still waiting for their players: they never came back.
    fn close_drops(&mut self) {
        let end = Instant::now();
        for (i, seat) in self.seats.iter().enumerate() {
            if let Some((since, ply)) = seat.away {
                self.drops.push(DropRecord {
                    player: i + 1,
                    ply,
                    away_ms: end.duration_since(since).as_millis() as u64,
                    back: false,
                });
            }
        }
    }

    /// Tells every player of an aborted game why (a player's missing first action, or the
    /// server's shutdown), as a fault of the game's.
    fn tell_aborted(&mut self) {
        let limit_ms = self.first_moves.limit().unwrap_or_default().as_millis();
        for player in 1..=self.seats.len() {
            let (code, text) = match self.no_start {
                Some((idle, why)) => text::no_first_action_aborted(idle, why, player, limit_ms),
                None => (ErrorCode::Shutdown, text::SHUTTING_DOWN.into()),
            };
            self.reply_fault(player, code, text);
        }
    }

    /// The game's record: its players (with their sides, teams, colours and time used), its
    /// plies, faults and drops, and the tables' verdict when they ended it.
    fn record(&mut self, reason: Termination) -> GameRecord {
        let game = &self.game;
        let players = self
            .seats
            .iter()
            .enumerate()
            .map(|(i, s)| PlayerRecord {
                id: i + 1,
                name: s.player.name.clone(),
                seed: s.player.seed.clone(),
                side: Some(game.side_of(i + 1)),
                team: Some(wire_team(game.variant(), i + 1)),
                colour: game
                    .colour_of_side(game.side_of(i + 1))
                    .map(|c| c.name().to_string()),
                time_used_ms: self.clocks.used(i + 1).as_millis() as u64,
            })
            .collect();
        let mut record = GameRecord::of_game(
            self.header.clone(),
            game,
            players,
            std::mem::take(&mut self.plies),
            std::mem::take(&mut self.faults),
        );
        record.drops = std::mem::take(&mut self.drops);
        record.ladder = self.ladder.clone();
        if reason == Termination::Adjudicated {
            record.result.adjudication = self.adjudication.take();
        }
        record
    }

    /// Tells every player that the record of game `game_no` is not on disk (`why`), before
    /// the result.
    fn tell_unrecorded(&mut self, game_no: u64, why: &str) {
        tracing::error!(
            game = game_no,
            error = %why,
            "announcing a result that is not on disk: the records file cannot be written"
        );
        let text = text::unrecorded(&why);
        for player in 1..=self.seats.len() {
            self.send_error(player, ErrorCode::Unrecorded, text.clone());
        }
    }

    /// Sends every player the result, `(win ...)`; with the `last` extension, after the final
    /// board and ply.
    fn tell_result(&mut self) {
        let (player, team) = self.game.win_clause();
        let win = ServerClause::Win(player, team);
        let line: Arc<str> = ServerMessage(vec![win.clone()]).to_line().into();
        let with_last: Arc<str> = ServerMessage(
            std::iter::once(ServerClause::Board(self.game.wire_board()))
                .chain(self.last.map(|(id, ply)| ServerClause::Last(id, ply)))
                .chain([win])
                .collect(),
        )
        .to_line()
        .into();
        for player in 1..=self.seats.len() {
            let line = if self.seats[player - 1].player.ext.contains(Extension::Last) {
                with_last.clone()
            } else {
                line.clone()
            };
            let _ = self.send(player, line);
        }
    }

    /// Answers the connections that came back for a seat while the game was ending: it is
    /// over (`win`: the result's text, empty when aborted).
    fn answer_late_returns(&mut self, win: &str, reason: Termination) {
        while let Ok(late) = self.returns.try_recv() {
            // Not in the exchange: these connections were never seated (`send`).
            late.player
                .outbox
                .error(ErrorCode::Unexpected, text::game_over(win, reason.name()));
        }
    }
}
