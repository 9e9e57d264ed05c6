//! The end of a game: the record assembled and written, and only then the result told.

use super::Referee;
use crate::record_sink::Committed;
use anqi_core::record::{wire_team, DropRecord, GameRecord, PlayerRecord};
use anqi_core::rules::Termination;
use anqi_core::wire::{ErrorCode, Extension, ServerClause, ServerMessage};
use std::sync::Arc;
use tokio::time::Instant;

impl Referee {
    /// Writes the record, then tells everyone the result: a player who has seen `(win ...)`
    /// can count on the record being on disk. An aborted game's players are told why instead.
    pub(super) async fn finish(mut self) {
        // No connection is handed to this game any more.
        self.registrations.clear();
        // The players' seats are free again before anyone hears how the game ended: a client
        // that has its result may take a seat for its next game at once.
        for seat in &mut self.seats {
            seat.player.ticket = None;
        }
        let outcome = self
            .game
            .outcome()
            .expect("the game loop ends with an outcome");
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
        if outcome.reason == Termination::Aborted {
            for player in 1..=self.seats.len() {
                let (code, text) = match self.no_start {
                    Some((idle, why)) => self.no_start_error(idle, why, player),
                    None => (
                        ErrorCode::Shutdown,
                        "the server is shutting down; this game is aborted".into(),
                    ),
                };
                self.reply_fault(player, code, text);
            }
        }
        let players = self
            .seats
            .iter()
            .enumerate()
            .map(|(i, s)| PlayerRecord {
                id: i + 1,
                name: s.player.name.clone(),
                seed: s.player.seed.clone(),
                side: Some(self.game.side_of(i + 1)),
                team: Some(wire_team(self.game.variant(), i + 1)),
                colour: self
                    .game
                    .colour_of_side(self.game.side_of(i + 1))
                    .map(|c| c.name().to_string()),
                time_used_ms: self.clocks.used(i + 1).as_millis() as u64,
            })
            .collect();
        let mut record = GameRecord::of_game(
            self.header,
            &self.game,
            players,
            std::mem::take(&mut self.plies),
            std::mem::take(&mut self.faults),
        );
        record.drops = std::mem::take(&mut self.drops);
        if outcome.reason == Termination::Adjudicated {
            record.result.adjudication = self.adjudication.take();
        }
        let win = record.result.win.clone();
        tracing::info!(
            result = %if win.is_empty() { "aborted" } else { &win },
            reason = outcome.reason.name(),
            plies = self.game.ply(),
            "game over"
        );
        let done = self.done.take().map(|done| (done, record.clone()));
        let watched = self.feed.take().map(|feed| (feed, record.clone()));
        let game_no = record.game;
        let aborted = outcome.reason == Termination::Aborted;
        // An aborted game's players have been told already (and get no result): the server
        // waits for its record when it stops, not the game.
        let wait = if aborted {
            std::time::Duration::ZERO
        } else {
            std::time::Duration::from_millis(self.ctx.config.records.write_wait_ms)
        };
        let committed = self.ctx.records.commit(record, wait).await;
        if let Some((done, record)) = done {
            let _ = done.send(record);
        }
        if !aborted {
            // The players are told when the result they get next is not on disk (the record
            // is kept and written when the file can be: protocol/RECORDS.md).
            if let Committed::Pending(why) = &committed {
                tracing::error!(
                    game = game_no,
                    error = %why,
                    "announcing a result that is not on disk: the records file cannot be written"
                );
                let text = format!(
                    "this game's record could not be written ({why}); the result that follows is not on disk yet"
                );
                for (i, seat) in self.seats.iter().enumerate() {
                    if let Some(x) = &mut self.exchange {
                        let line = ServerMessage(vec![ServerClause::Error(
                            ErrorCode::Unrecorded,
                            text.clone(),
                        )])
                        .to_line();
                        x.sent(i + 1, self.game.ply() + 1, &line);
                    }
                    seat.player
                        .outbox
                        .error(ErrorCode::Unrecorded, text.clone());
                }
            }
            let (player, team) = self.game.win_clause();
            let win = ServerClause::Win(player, team);
            let line: Arc<str> = ServerMessage(vec![win.clone()]).to_line().into();
            // With `last`: the final board and ply before the result.
            let with_last: Arc<str> = ServerMessage(
                std::iter::once(ServerClause::Board(self.game.wire_board()))
                    .chain(self.last.map(|(id, ply)| ServerClause::Last(id, ply)))
                    .chain([win])
                    .collect(),
            )
            .to_line()
            .into();
            for (i, seat) in self.seats.iter().enumerate() {
                let line = if seat.player.ext.contains(Extension::Last) {
                    &with_last
                } else {
                    &line
                };
                if let Some(x) = &mut self.exchange {
                    x.sent(i + 1, self.game.ply() + 1, line);
                }
                let _ = seat.player.outbox.send_line(line.clone());
            }
        }
        if let Some((feed, record)) = watched {
            feed.finish(&record, self.exchange.take().unwrap_or_default());
        }
        // Connections that came back while the game was ending.
        while let Ok(late) = self.returns.try_recv() {
            late.player.outbox.error(
                ErrorCode::Unexpected,
                format!(
                    "the game of this seat is over: {} by {}",
                    if win.is_empty() { "aborted" } else { &win },
                    outcome.reason.name()
                ),
            );
        }
    }
}
