//! How a game ends: why ([`Termination`]) and with what result ([`Outcome`]); the rulings as a
//! turn starts (a colour gone, no legal action, the ply cap, the no-progress and repetition
//! draws) and what the draw rules count; and the endings from outside the rules (resign,
//! forfeit, adjudication, abort).

use super::Game;
use crate::rules::board::Board;
use crate::rules::cell_set::Cell;
use crate::rules::positions::position_hash;
use crate::rules::square::Square;
use crate::rules::variant::Objective;

/// Why a game ended. The wire names (`capture-all`, ...) appear in records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Termination {
    /// A side lost its last piece.
    CaptureAll,
    /// The player to move had no legal action.
    NoMoves,
    Resign,
    /// A clock ran out; or a player made no first action in a game under way, within
    /// `[referee] first_move_ms` or before it had to make room on a full server.
    Time,
    /// An illegal action (or too many errors) under a rule that makes it a loss.
    Illegal,
    Disconnect,
    /// The player's program crashed after it connected: it exited with a failure status and
    /// its connection closed (tournaments).
    Crash,
    /// The player never took its seat: its program did not connect and send `(init ...)`
    /// within the connect timeout, or exited before it did (tournaments). Kept apart from
    /// `Crash` because it usually means a wrong command or address, not a bug in the engine.
    NoConnect,
    /// Draw: too many plies without a reveal, a capture, a draw from the bag or a put.
    NoProgress,
    /// Draw: the same position occurred too often.
    Repetition,
    /// Single-player or cooperative goal reached: one colour is gone.
    Cleared,
    /// The ply cap was reached: a single-player or cooperative goal missed, or a competitive
    /// game adjudicated as a draw by the referee's `max_plies`.
    PlyCap,
    /// The referee ended the game by its endgame tables (`adjudicate = "tables"`): a win the
    /// tables prove within the plies the no-progress rule leaves, or a draw they prove. A
    /// decided result, not a fault; the record's result says what the tables ruled.
    Adjudicated,
    /// The server stopped the game with no result: it shut down, or a player never made a
    /// first action before any ply was played (`[referee] first_move_ms`, or evicted to make
    /// room for a new connection; later, that is a loss on `Time`).
    Aborted,
}

impl Termination {
    /// The kebab-case name used in records and logs.
    pub fn name(self) -> &'static str {
        match self {
            Termination::CaptureAll => "capture-all",
            Termination::NoMoves => "no-moves",
            Termination::Resign => "resign",
            Termination::Time => "time",
            Termination::Illegal => "illegal",
            Termination::Disconnect => "disconnect",
            Termination::Crash => "crash",
            Termination::NoConnect => "no-connect",
            Termination::NoProgress => "no-progress",
            Termination::Repetition => "repetition",
            Termination::Cleared => "cleared",
            Termination::PlyCap => "ply-cap",
            Termination::Adjudicated => "adjudicated",
            Termination::Aborted => "aborted",
        }
    }

    /// Whether a player's fault (not the rules) ended the game.
    pub fn is_fault(self) -> bool {
        matches!(
            self,
            Termination::Resign
                | Termination::Time
                | Termination::Illegal
                | Termination::Disconnect
                | Termination::Crash
                | Termination::NoConnect
        )
    }
}

/// How a game ended: the winning side (`None`: draw, failure or aborted), why, and for a loss by
/// fault (resign, time, illegal, disconnect, crash) the player whose fault it was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Outcome {
    /// Winning side (0-based index into the variant's sides).
    pub winner: Option<usize>,
    pub reason: Termination,
    /// The player who lost by a fault.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loser: Option<usize>,
}

impl Game {
    /// How the game ended, once it has.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// Plies since the last reveal, capture, draw or put: what the no-progress rule counts.
    pub fn quiet_plies(&self) -> u32 {
        self.quiet_plies
    }

    /// How many times the current position occurred before, since the last reveal, capture,
    /// draw or put (0: the first time), as the repetition rule compares positions. Always 0
    /// in a variant without a repetition rule (the game keeps no positions then).
    pub fn repetitions(&self) -> u32 {
        self.repeats
    }

    /// The positions since the last reveal, capture, draw or put, oldest first and the
    /// current one last, as the repetition rule compares them: the board, and the place in the
    /// turn order of the player to move then. The game keeps them only when its variant has a
    /// repetition rule (otherwise this is empty). A game that ended on a quiet ply before its
    /// position was compared (a no-progress draw, say) ends the list at the position before.
    pub fn recent_positions(&self) -> Vec<(Board, usize)> {
        self.positions
            .boards(self.board.codes(), self.unkept_step)
            .into_iter()
            .map(|(codes, place)| {
                let squares: String = codes
                    .iter()
                    .map(|&code| Square::from_code(code).map_or('?', Square::letter))
                    .collect();
                let board = Board::parse(&squares).expect("kept codes are squares");
                (board, place)
            })
            .collect()
    }

    /// Rules on the end of the game as a turn starts, in this order: a colour is gone
    /// (capture-all, or cleared); the mover has no legal action (`stuck`); the ply cap; the
    /// no-progress draw; the repetition draw, which keeps the position (reached by the quiet
    /// `step`, if one) among those it compares.
    pub(super) fn rule_on_end(&mut self, stuck: bool, step: Option<(Cell, Cell)>) {
        match self.variant.objective {
            Objective::Capture => {
                for side in 0..2 {
                    if let Some(c) = self.side_colour[side] {
                        if self.remaining[c.index()] == 0 {
                            return self.finish(Some(1 - side), Termination::CaptureAll);
                        }
                    }
                }
                if stuck {
                    let mover_side = self.side_of(self.to_move());
                    return self.finish(Some(1 - mover_side), Termination::NoMoves);
                }
            }
            Objective::Clear { ply_cap } => {
                if self.remaining.contains(&0) {
                    return self.finish(Some(0), Termination::Cleared);
                }
                if stuck {
                    return self.finish(None, Termination::NoMoves);
                }
                if self.ply >= ply_cap {
                    return self.finish(None, Termination::PlyCap);
                }
            }
        }
        let draw = self.variant.draw;
        if draw.no_progress.is_some_and(|n| self.quiet_plies >= n) {
            return self.finish(None, Termination::NoProgress);
        }
        if let Some(rule) = draw.repetition {
            let codes = self.board.codes();
            let hash = position_hash(self.board_hash, self.turn_pos, self.chain);
            self.repeats = self
                .positions
                .push(hash, codes, self.turn_pos, self.chain, step);
            self.unkept_step = None;
            if self.positions.repeated(rule, self.repeats, codes) {
                self.finish(None, Termination::Repetition);
            }
        }
    }

    fn finish(&mut self, winner: Option<usize>, reason: Termination) {
        self.finish_by(winner, reason, None);
    }

    /// Ends the game unless it has ended already: the first ruling stands.
    fn finish_by(&mut self, winner: Option<usize>, reason: Termination, loser: Option<usize>) {
        if self.outcome.is_none() {
            self.outcome = Some(Outcome {
                winner,
                reason,
                loser,
            });
        }
    }

    /// `player` resigns: their side loses.
    pub fn resign(&mut self, player: usize) {
        self.forfeit(player, Termination::Resign);
    }

    /// `player` loses for `reason` (time, illegal action, disconnect): the other side wins; in a
    /// one-side game, the side fails.
    pub fn forfeit(&mut self, player: usize, reason: Termination) {
        let side = self.side_of(player);
        let winner = (self.variant.sides.len() == 2).then_some(1 - side);
        self.finish_by(winner, reason, Some(player));
    }

    /// The referee ends the game as a draw for a reason outside the rules (a tournament's ply
    /// cap).
    pub fn adjudicate_draw(&mut self, reason: Termination) {
        self.finish(None, reason);
    }

    /// The referee ends the game by a ruling of its endgame tables: `winner` wins (`None`: a
    /// draw), as [`Termination::Adjudicated`]. The first ruling stands: a game already over is
    /// left as it is.
    ///
    /// # Panics
    /// When `winner` is not a side of the variant.
    pub fn adjudicate(&mut self, winner: Option<usize>) {
        if let Some(side) = winner {
            assert!(
                side < self.variant.sides.len(),
                "side {side} adjudicated the winner of a {}-side game",
                self.variant.sides.len()
            );
        }
        self.finish(winner, Termination::Adjudicated);
    }

    /// The server stopped the game: no result (see [`Termination::Aborted`]).
    pub fn abort(&mut self) {
        self.finish(None, Termination::Aborted);
    }

    /// The `(win PLAYER TEAM)` values for the outcome: a side of one player wins as that player
    /// (`(win 1 0)`), a side of several as a team (`(win 0 2)`); no winner is `(win 0 0)`.
    pub fn win_clause(&self) -> (usize, usize) {
        match self.outcome.and_then(|o| o.winner) {
            None => (0, 0),
            Some(side) => match self.variant.sides[side].as_slice() {
                [only] => (*only, 0),
                _ => (0, side + 1),
            },
        }
    }
}
