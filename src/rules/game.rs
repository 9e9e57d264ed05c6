//! One game's complete state and its rules: turns and rounds, colour ownership, hidden pieces,
//! the end of the game and draws. Pure: no I/O, no clock (time losses are ruled by the caller
//! through [`Game::forfeit`]).

use super::action::{Action, ActionCounts, ActionKind};
use super::board::{Board, Illegal, Square};
use super::piece::{Colour, Piece};
use super::variant::Variant;
use std::sync::Arc;

/// Why a game ended. The wire names (`capture-all`, ...) appear in records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Termination {
    /// A side lost its last piece.
    CaptureAll,
    /// The side to move had no legal action.
    NoMoves,
    Resign,
    /// A clock ran out.
    Time,
    /// An illegal action (or too many errors) under a rule that makes it a loss.
    Illegal,
    Disconnect,
    /// Draw: too many plies without a reveal or a capture.
    NoProgress,
    /// Draw: the same position occurred too often.
    Repetition,
    /// The server stopped the game (shutdown).
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
            Termination::NoProgress => "no-progress",
            Termination::Repetition => "repetition",
            Termination::Aborted => "aborted",
        }
    }
}

/// How a game ended: the winning side (`None`: draw or aborted) and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Outcome {
    /// Winning side, 0 or 1 (side 0 holds seat 1 in a two-player game).
    pub winner: Option<usize>,
    pub reason: Termination,
}

/// Why [`Game::play`] refused an action.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    #[error("the game is over")]
    GameOver,
    #[error("it is player {to_move}'s turn, not yours")]
    NotYourTurn { to_move: usize },
    #[error(transparent)]
    Illegal(#[from] Illegal),
}

/// What a played action did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played {
    pub kind: ActionKind,
    /// The piece a reveal turned up.
    pub revealed: Option<Piece>,
    /// The piece a move captured.
    pub captured: Option<Piece>,
}

/// A game in progress. Players are numbered 1..=N as on the wire.
#[derive(Clone, Debug)]
pub struct Game {
    variant: Arc<Variant>,
    board: Board,
    /// Identity of the face-down piece of each cell (server-side knowledge).
    hidden: Vec<Option<Piece>>,
    /// Colour of each side, once the first reveal has decided it.
    side_colour: [Option<Colour>; 2],
    /// Pieces left per colour, face-up and face-down.
    remaining: [u32; 2],
    /// Index of the player to move in the turn order.
    turn_pos: usize,
    /// The paper's TURN: completed rounds of the turn order.
    round: u32,
    ply: u32,
    /// Consecutive plies without a reveal or a capture.
    quiet_plies: u32,
    /// Positions (board + player to move) since the last irreversible action, current last.
    history: Vec<Vec<u8>>,
    /// Legal action counts of the player to move (cached once per turn).
    counts: ActionCounts,
    outcome: Option<Outcome>,
}

impl Game {
    /// Starts a game from a deal (one entry per cell: the face-down piece there, if any).
    ///
    /// # Panics
    /// When the deal does not have one entry per cell.
    pub fn new(variant: Arc<Variant>, deal: Vec<Option<Piece>>) -> Game {
        assert_eq!(
            deal.len(),
            variant.topology.size(),
            "one deal entry per cell"
        );
        let mut board = Board::hidden(deal.len());
        let mut remaining = [0u32; 2];
        for (cell, p) in deal.iter().enumerate() {
            match p {
                Some(p) => remaining[p.colour.index()] += 1,
                None => board.set(cell, Square::Empty),
            }
        }
        let mut game = Game {
            variant,
            board,
            hidden: deal,
            side_colour: [None; 2],
            remaining,
            turn_pos: 0,
            round: 0,
            ply: 0,
            quiet_plies: 0,
            history: Vec::new(),
            counts: ActionCounts::default(),
            outcome: None,
        };
        game.start_turn();
        game
    }

    pub fn variant(&self) -> &Arc<Variant> {
        &self.variant
    }

    /// The public board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The player to move (1-based).
    pub fn to_move(&self) -> usize {
        self.turn_pos + 1
    }

    /// The paper's TURN counter: rounds completed so far.
    pub fn round(&self) -> u32 {
        self.round
    }

    /// Plies played so far.
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// The side of a player (1-based): in a two-player game, player `n` is side `n - 1`.
    pub fn side_of(&self, player: usize) -> usize {
        player - 1
    }

    /// The colour a side plays, once decided.
    pub fn colour_of_side(&self, side: usize) -> Option<Colour> {
        self.side_colour[side]
    }

    /// Legal action counts of the player to move.
    pub fn counts(&self) -> ActionCounts {
        self.counts
    }

    /// How the game ended, once it has.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// Pieces of `colour` left, face-up and face-down.
    pub fn remaining(&self, colour: Colour) -> u32 {
        self.remaining[colour.index()]
    }

    /// The legal actions of the player to move.
    pub fn legal_actions(&self) -> Vec<Action> {
        let colour = self.side_colour[self.side_of(self.to_move())];
        let v = &self.variant;
        self.board.legal_actions(&v.topology, &v.capture, colour)
    }

    /// Checks an action by `player` without playing it.
    ///
    /// # Errors
    /// Game over, not this player's turn, or why the action is illegal.
    pub fn check(&self, player: usize, action: Action) -> Result<ActionKind, PlayError> {
        if self.outcome.is_some() {
            return Err(PlayError::GameOver);
        }
        if player != self.to_move() {
            return Err(PlayError::NotYourTurn {
                to_move: self.to_move(),
            });
        }
        let v = &self.variant;
        match action {
            Action::Reveal(cell) => match self.board.squares().get(cell) {
                None => Err(Illegal(format!(
                    "cell {cell} is out of range: the board has cells 0..{}",
                    self.board.len() - 1
                ))
                .into()),
                Some(Square::Hidden) => Ok(ActionKind::Reveal),
                Some(Square::Empty) => {
                    Err(Illegal(format!("cell {cell} is empty: nothing to reveal")).into())
                }
                Some(Square::Up(p)) => Err(Illegal(format!(
                    "cell {cell} is already face-up ({})",
                    p.describe()
                ))
                .into()),
            },
            Action::Move { from, to } => {
                let colour = self.side_colour[self.side_of(player)];
                Ok(self
                    .board
                    .check_move(&v.topology, &v.capture, colour, from, to)?)
            }
        }
    }

    /// Plays an action by `player`, then rules on the end of the game.
    ///
    /// # Errors
    /// As [`Game::check`]; the game is unchanged on error.
    pub fn play(&mut self, player: usize, action: Action) -> Result<Played, PlayError> {
        let kind = self.check(player, action)?;
        let side = self.side_of(player);
        let mut played = Played {
            kind,
            revealed: None,
            captured: None,
        };
        match action {
            Action::Reveal(cell) => {
                let piece = self.hidden[cell]
                    .take()
                    .expect("a face-down cell has a dealt piece");
                self.board.set(cell, Square::Up(piece));
                if self.side_colour[side].is_none() {
                    self.side_colour[side] = Some(piece.colour);
                    self.side_colour[1 - side] = Some(piece.colour.other());
                }
                played.revealed = Some(piece);
            }
            Action::Move { from, to } => {
                if let Square::Up(t) = self.board.get(to) {
                    self.remaining[t.colour.index()] -= 1;
                    played.captured = Some(t);
                }
                self.board.set(to, self.board.get(from));
                self.board.set(from, Square::Empty);
            }
        }
        let progress = played.revealed.is_some() || played.captured.is_some();
        self.ply += 1;
        self.quiet_plies = if progress { 0 } else { self.quiet_plies + 1 };
        if progress {
            // Nothing before an irreversible action can occur again.
            self.history.clear();
        }
        self.turn_pos += 1;
        if self.turn_pos == self.variant.players {
            self.turn_pos = 0;
            self.round += 1;
        }
        self.start_turn();
        Ok(played)
    }

    /// Computes the mover's legal actions and rules on the end of the game, in this order:
    /// a side without pieces loses; a mover without legal actions loses; no-progress draw;
    /// repetition draw.
    fn start_turn(&mut self) {
        let mover_side = self.side_of(self.to_move());
        let colour = self.side_colour[mover_side];
        let v = &self.variant;
        self.counts = self.board.count_actions(&v.topology, &v.capture, colour);
        for side in 0..2 {
            if let Some(c) = self.side_colour[side] {
                if self.remaining[c.index()] == 0 {
                    self.finish(Some(1 - side), Termination::CaptureAll);
                    return;
                }
            }
        }
        if self.counts.total() == 0 {
            self.finish(Some(1 - mover_side), Termination::NoMoves);
            return;
        }
        if let Some(n) = v.draw.no_progress {
            if self.quiet_plies >= n {
                self.finish(None, Termination::NoProgress);
                return;
            }
        }
        if let Some(n) = v.draw.repetition {
            let mut key: Vec<u8> = self
                .board
                .squares()
                .iter()
                .map(|s| s.letter() as u8)
                .collect();
            key.push(self.turn_pos as u8);
            let seen = self.history.iter().filter(|k| **k == key).count() as u32 + 1;
            self.history.push(key);
            if seen >= n {
                self.finish(None, Termination::Repetition);
            }
        }
    }

    fn finish(&mut self, winner: Option<usize>, reason: Termination) {
        if self.outcome.is_none() {
            self.outcome = Some(Outcome { winner, reason });
        }
    }

    /// `player` resigns: the other side wins.
    pub fn resign(&mut self, player: usize) {
        self.forfeit(player, Termination::Resign);
    }

    /// `player` loses for `reason` (time, illegal action, disconnect).
    pub fn forfeit(&mut self, player: usize, reason: Termination) {
        let side = self.side_of(player);
        self.finish(Some(1 - side), reason);
    }

    /// The server stopped the game: no result.
    pub fn abort(&mut self) {
        self.finish(None, Termination::Aborted);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::piece::Kind;

    fn deal(s: &str) -> Vec<Option<Piece>> {
        s.chars().map(Piece::from_letter).collect()
    }

    fn game(variant: &str, layout: &str) -> Game {
        Game::new(Arc::new(Variant::shipped(variant).unwrap()), deal(layout))
    }

    fn mv(from: usize, to: usize) -> Action {
        Action::Move { from, to }
    }

    #[test]
    fn first_reveal_decides_colours() {
        let mut g = game("traditional-2x4", "kPPPKppp");
        assert_eq!(g.colour_of_side(0), None);
        // Before owning a colour, only reveals are legal.
        assert_eq!(
            g.counts(),
            ActionCounts {
                moves: 0,
                jumps: 0,
                reveals: 8
            }
        );
        g.play(1, Action::Reveal(0)).unwrap();
        assert_eq!(g.colour_of_side(0), Some(Colour::Black));
        assert_eq!(g.colour_of_side(1), Some(Colour::Red));
        assert_eq!(g.to_move(), 2);
        assert_eq!(g.round(), 0);
        // Player 2 may reveal a black piece: legal, and it does not change colours.
        g.play(2, Action::Reveal(5)).unwrap();
        assert_eq!(g.colour_of_side(1), Some(Colour::Red));
        assert_eq!(g.round(), 1);
        assert_eq!(g.to_move(), 1);
        // Player 1 (black) owns the pawn at 5 but may not move it onto face-down pieces.
        assert!(g.check(1, mv(5, 6)).is_err(), "6 is face-down");
        assert_eq!(
            g.check(1, mv(5, 4)).unwrap_err(),
            PlayError::Illegal(Illegal(
                "cell 4 holds a face-down piece, which cannot be moved onto".into()
            ))
        );
    }

    #[test]
    fn out_of_turn_and_after_the_end_are_refused() {
        let mut g = game("traditional-2x4", "KPPPkppp");
        assert_eq!(
            g.play(2, Action::Reveal(0)),
            Err(PlayError::NotYourTurn { to_move: 1 })
        );
        g.resign(2);
        assert_eq!(
            g.outcome(),
            Some(Outcome {
                winner: Some(0),
                reason: Termination::Resign
            })
        );
        assert_eq!(g.play(1, Action::Reveal(0)), Err(PlayError::GameOver));
    }

    #[test]
    fn capturing_the_last_piece_wins() {
        // 2x4 with one piece per side: K at 0, k at 1 (king takes king).
        let v = Variant::parse(
            "(variant (name t) (board (rectangle 2 4)) (pieces Kk) (no-progress none) (repetition none))",
        )
        .unwrap();
        let mut g = Game::new(Arc::new(v), deal("Kk......"));
        g.play(1, Action::Reveal(0)).unwrap();
        g.play(2, Action::Reveal(1)).unwrap();
        let p = g.play(1, mv(0, 1)).unwrap();
        assert_eq!(p.captured, Some(Piece::new(Colour::Black, Kind::King)));
        assert_eq!(
            g.outcome(),
            Some(Outcome {
                winner: Some(0),
                reason: Termination::CaptureAll
            })
        );
    }

    #[test]
    fn a_mover_without_legal_actions_loses() {
        // Red pawn at 0 boxed in by two black kings, which it may capture... use cannons instead:
        // red cannon at 0 with black guards at 1 and 4: the cannon cannot step-capture, has no
        // empty neighbour and no jump target beyond (2 and 3 are empty on row 0? make them full).
        let v = Variant::parse(
            "(variant (name t) (board (rectangle 2 4)) (pieces Cggg) (no-progress none) (repetition none))",
        )
        .unwrap();
        // Layout: C g . .   /   g g . .  -> after reveals, red cannon at 0 is boxed in.
        let mut g = Game::new(Arc::new(v), deal("Cg..gg.."));
        g.play(1, Action::Reveal(0)).unwrap(); // player 1 red
        g.play(2, Action::Reveal(1)).unwrap();
        g.play(1, Action::Reveal(4)).unwrap();
        g.play(2, Action::Reveal(5)).unwrap();
        // Red cannon at 0: neighbours 1 and 4 hold guards; jumps: over 1 to 2..3 (empty), over
        // 4 nothing (2 lines). No legal action: red loses.
        assert_eq!(
            g.outcome(),
            Some(Outcome {
                winner: Some(1),
                reason: Termination::NoMoves
            })
        );
    }

    #[test]
    fn no_progress_draw_after_n_quiet_plies() {
        let v = Variant::parse(
            "(variant (name t) (board (rectangle 2 4)) (pieces Kk) (no-progress 4) (repetition none))",
        )
        .unwrap();
        let mut g = Game::new(Arc::new(v), deal("K......k"));
        g.play(1, Action::Reveal(0)).unwrap();
        g.play(2, Action::Reveal(7)).unwrap();
        for (p, a) in [(1, mv(0, 1)), (2, mv(7, 6)), (1, mv(1, 2))] {
            g.play(p, a).unwrap();
            assert_eq!(g.outcome(), None);
        }
        g.play(2, mv(6, 7)).unwrap();
        assert_eq!(
            g.outcome(),
            Some(Outcome {
                winner: None,
                reason: Termination::NoProgress
            })
        );
    }

    #[test]
    fn repetition_draws_on_the_third_occurrence() {
        let v = Variant::parse(
            "(variant (name t) (board (rectangle 2 4)) (pieces Kk) (no-progress none) (repetition 3))",
        )
        .unwrap();
        let mut g = Game::new(Arc::new(v), deal("K......k"));
        g.play(1, Action::Reveal(0)).unwrap();
        g.play(2, Action::Reveal(7)).unwrap();
        // Position A (red to move) occurs now, after ply 2: occurrence 1.
        let cycle = [(1, mv(0, 1)), (2, mv(7, 6)), (1, mv(1, 0)), (2, mv(6, 7))];
        for (p, a) in cycle {
            g.play(p, a).unwrap();
        }
        assert_eq!(g.outcome(), None, "second occurrence after ply 6");
        for (i, (p, a)) in cycle.into_iter().enumerate() {
            g.play(p, a).unwrap();
            let want = (i == 3).then_some(Outcome {
                winner: None,
                reason: Termination::Repetition,
            });
            assert_eq!(g.outcome(), want, "after cycle ply {i}");
        }
        assert_eq!(g.ply(), 10);
    }
}
