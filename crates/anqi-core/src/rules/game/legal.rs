//! The legal actions of the player to move: listed, counted, picked by index, and one action
//! checked by the rules (`Game::check`, which [`Game::play`] calls first).

use super::{Game, PlayError, PublicState};
use crate::rules::action::{Action, ActionCounts, ActionKind};
use crate::rules::cell_set::Cell;
use crate::rules::movegen::Illegal;
use crate::rules::piece::Control;
use crate::rules::square::Square;
use crate::rules::variant::Start;

impl Game {
    /// What the player to move sees: everything legality depends on.
    pub fn public_state(&self) -> PublicState<'_> {
        PublicState {
            variant: &self.variant,
            board: &self.board,
            control: self.control,
            hand: self.hand,
            chain: self.chain,
            bag_has_pieces: !self.bag.is_empty(),
        }
    }

    /// Legal action counts of the player to move.
    pub fn counts(&self) -> ActionCounts {
        if self.counted_now {
            // Counted with no bag to draw from and no piece in hand: the board's count is all.
            return self.counted.counts;
        }
        *self.counts.get_or_init(|| self.public_state().counts())
    }

    /// The legal action counts `player` would have in this position: the mover's own counts,
    /// and for anyone else what they could do were it their turn (the board as it is, their
    /// own control, no piece in hand, no chain: those belong to the mover). This is the
    /// mobility of the paper's Section III for every player, not only the one to move.
    pub fn counts_of(&self, player: usize) -> ActionCounts {
        if player == self.to_move() {
            return self.counts();
        }
        let state = PublicState {
            variant: &self.variant,
            board: &self.board,
            control: self.control_of(player),
            hand: None,
            chain: None,
            bag_has_pieces: !self.bag.is_empty(),
        };
        state.counts()
    }

    /// Calls `f` with every legal action of the player to move.
    pub fn for_each_legal(&self, f: impl FnMut(Action, ActionKind)) {
        self.public_state().for_each_legal(f);
    }

    /// The `k`-th (from 0) of the legal actions of the player to move, in the order of
    /// [`Game::for_each_legal`], without listing them (`None` when `k` is not below
    /// `counts().total()`): how a random playout picks its action.
    pub fn nth_legal(&self, k: usize) -> Option<Action> {
        self.public_state().nth_legal(k)
    }

    /// The legal actions of the player to move.
    pub fn legal_actions(&self) -> Vec<Action> {
        let mut out = Vec::new();
        self.for_each_legal(|a, _| out.push(a));
        out
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
        let illegal = |s: String| Err(PlayError::Illegal(Illegal(s)));
        let v = &self.variant;
        let size = self.board.len();
        let cell_ok = |c: Cell| c < size;
        if let Some(piece) = self.hand {
            return match action {
                Action::Put { piece: p, cell } if p == piece => {
                    match self.board.squares().get(cell) {
                        Some(Square::Empty) => Ok(ActionKind::Put),
                        Some(_) => illegal(format!("cell {cell} is not empty")),
                        None => illegal(format!(
                            "cell {cell} is out of range: the board has cells 0..{}",
                            size - 1
                        )),
                    }
                }
                Action::Put { piece: p, .. } => illegal(format!("you hold {piece}, not {p}")),
                _ => illegal(format!(
                    "you drew {piece}: put it on an empty cell with (put {piece} POS)"
                )),
            };
        }
        if let Some(cell) = self.chain {
            return match action {
                Action::Move { from, to } if from == cell => {
                    let kind =
                        self.board
                            .check_move(&v.topology, &v.capture, Control::Both, from, to)?;
                    if matches!(self.board.get(to), Square::Up(_)) {
                        Ok(kind)
                    } else {
                        illegal(format!(
                            "chain capture: the piece at {cell} must capture again"
                        ))
                    }
                }
                _ => illegal(format!(
                    "chain capture: the piece at {cell} must capture again"
                )),
            };
        }
        match action {
            Action::Reveal(cell) => match self.board.squares().get(cell) {
                None => illegal(format!(
                    "cell {cell} is out of range: the board has cells 0..{}",
                    size - 1
                )),
                Some(Square::Hidden) => Ok(ActionKind::Reveal),
                Some(Square::Empty) => illegal(format!("cell {cell} is empty: nothing to reveal")),
                Some(Square::Up(p)) => {
                    illegal(format!("cell {cell} is already face-up ({})", p.describe()))
                }
            },
            Action::Move { from, to } => {
                let control = self.control_of(player);
                Ok(self
                    .board
                    .check_move(&v.topology, &v.capture, control, from, to)?)
            }
            Action::Bag if v.start != Start::Bag => illegal(
                "this game has no bag: (bag) and (put ...) belong to the strategic variants".into(),
            ),
            Action::Bag if self.bag.is_empty() => {
                illegal("the bag is empty: every piece has been drawn".into())
            }
            Action::Bag => Ok(ActionKind::Bag),
            Action::Put { piece, cell } => {
                if !cell_ok(cell) {
                    return illegal(format!("cell {cell} is out of range"));
                }
                illegal(format!(
                    "you hold no piece: draw one with (bag) before (put {piece} {cell})"
                ))
            }
        }
    }
}
