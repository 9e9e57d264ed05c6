//! The lines the referee writes about the game: each player's setup message, and the position
//! as it stands (`(board ...)`, the extension clauses its client asked for, then `(turn ...)`
//! for the mover or `(info ...)` for everyone else).

use super::Referee;
use anqi_core::record::wire_team;
use anqi_core::rules::{Game, Square, Start, Variant};
use anqi_core::wire::{Extension, Extensions, ServerClause, ServerMessage};
use std::sync::Arc;
use std::time::Duration;

impl Referee {
    /// `player`'s setup message: its id, the players, its team, the variant's clauses, the
    /// cells where the game starts, then the extension clauses it was granted.
    pub(super) fn setup_line(&self, player: usize) -> String {
        let variant = &self.ctx.variant;
        format!(
            "({}{}{}{}{}{})\n",
            ServerClause::Id(player),
            ServerClause::Players(variant.players),
            team_clauses(variant, player),
            self.ctx.setup_common,
            setup_tail(&self.game),
            self.setup_extensions(player)
        )
    }

    /// The extension clauses ending `player`'s setup message: `(ext ...)` (what was granted),
    /// `(timecontrol ...)`, `(variant "...")`. Empty for a client that asked for nothing.
    fn setup_extensions(&self, player: usize) -> String {
        let ext = self.seats[player - 1].player.ext;
        if ext.is_empty() {
            return String::new();
        }
        let mut out = ServerClause::Ext(ext.names()).to_string();
        if ext.contains(Extension::Clock) {
            let c = self.clocks.control(player);
            let ms = |d: Option<std::time::Duration>| d.map_or(0, |d| d.as_millis() as u64);
            let control = [
                ms(c.game),
                c.increment.as_millis() as u64,
                ms(c.per_move),
                u64::from(c.period_moves),
            ];
            out.push_str(&ServerClause::TimeControl(control).to_string());
        }
        if ext.contains(Extension::Variant) {
            out.push_str(&self.ctx.public_variant);
        }
        if let Some(secret) = self.seats[player - 1]
            .secret
            .as_ref()
            .filter(|_| ext.contains(Extension::Rejoin))
        {
            out.push_str(&ServerClause::Rejoin(secret.clone()).to_string());
        }
        out
    }

    /// The extension clauses of a prompt for a client that asked for `ext`, in a fixed order:
    /// `(last ...)`, `(clock ...)`, `(progress ...)`.
    ///
    /// `thought`: how long the player to move has been thinking on this turn already (zero
    /// for a new prompt; the time away for a mover that comes back), taken off its clock.
    fn prompt_extensions(&self, ext: Extensions, thought: Duration) -> Vec<ServerClause> {
        let mut out = Vec::new();
        if ext.contains(Extension::Last) {
            out.extend(self.last.map(|(id, ply)| ServerClause::Last(id, ply)));
        }
        if ext.contains(Extension::Clock) {
            let mover = self.game.to_move();
            out.push(ServerClause::Clock(
                (1..=self.seats.len())
                    .map(|p| {
                        let spent = if p == mover { thought } else { Duration::ZERO };
                        self.clocks
                            .remaining(p)
                            .map_or(0, |d| d.saturating_sub(spent).as_millis() as u64)
                    })
                    .collect(),
            ));
        }
        if ext.contains(Extension::Progress) {
            out.push(ServerClause::Progress(self.game.quiet_plies()));
        }
        out
    }

    /// The message of the position as it stands, for a player that asked for `ext`:
    /// `(board ...)`, the drawn piece while it waits to be put, the extension clauses, then
    /// `(turn ...)` for the mover or `(info ...)` for everyone else.
    pub(super) fn position_line(
        &self,
        ext: Extensions,
        to_move: bool,
        thought: Duration,
    ) -> Arc<str> {
        let game = &self.game;
        let mut clauses = vec![ServerClause::Board(game.wire_board())];
        clauses.extend(game.hand().map(|p| ServerClause::Hand(p.letter())));
        if !ext.is_empty() {
            clauses.extend(self.prompt_extensions(ext, thought));
        }
        clauses.push(if to_move {
            ServerClause::Turn(game.round(), game.to_move())
        } else {
            ServerClause::Info(game.round(), game.to_move())
        });
        ServerMessage(clauses).to_line().into()
    }
}

/// The setup clause that lists the cells where the game starts: `(puts ...)` in a bag game (as in
/// Table V), `(revs ...)` (the face-down cells) otherwise.
fn setup_tail(game: &Game) -> String {
    let cells = |want: Square| -> Vec<usize> {
        (0..game.board().len())
            .filter(|&c| game.board().get(c) == want)
            .collect()
    };
    if game.variant().start == Start::Bag {
        ServerClause::Puts(cells(Square::Empty)).to_string()
    } else {
        ServerClause::Revs(cells(Square::Hidden)).to_string()
    }
}

/// `(team T)` and one `(teammate ID)` per teammate, in team games only.
fn team_clauses(variant: &Variant, player: usize) -> String {
    if !variant.has_teams() {
        return String::new();
    }
    let side = variant.side_of(player);
    // The number the record keeps as the player's `team`.
    let mut out = ServerClause::Team(wire_team(variant, player)).to_string();
    for &mate in variant.sides[side].iter().filter(|&&m| m != player) {
        out.push_str(&ServerClause::Teammate(mate).to_string());
    }
    out
}
