//! What a client has seen of its game beyond the position in front of it: the pieces no one has
//! seen yet (the face-down pool), how often each position occurred (the repetition rule), the
//! no-progress count, and what the protocol extensions add (every ply, the clocks, the start).
//!
//! A [`crate::Tracker`] keeps one [`History`] per game and updates it at every prompt; every
//! [`crate::Observation`] and [`crate::View`] carries it. The facts are exact when they come
//! from the server's extension clauses, and otherwise inferred from consecutive boards: every
//! player is prompted after every ply (`(turn ...)` or `(info ...)`), so the difference between
//! two boards is one ply, and a reveal shows which piece it turned up.

use anqi_core::rules::{Board, Cell, Game, Piece, Square, Variant};
use anqi_core::wire::LastPly;
use std::collections::HashMap;

/// The index of a piece in per-piece arrays of 14: `colour * 7 + kind`, the order of the letters
/// `KGBRNCPkgbrncp` (as [`Game::face_down_counts`] counts).
#[inline]
pub fn piece_index(p: Piece) -> usize {
    p.index()
}

/// The piece of an index of [`piece_index`] (below 14).
#[inline]
pub fn piece_at_index(i: usize) -> Piece {
    Piece::from_index(i)
}

/// Counts of each piece (per [`piece_index`]) among the face-up pieces of `board`.
pub fn face_up_counts(board: &Board) -> [u32; 14] {
    let mut n = [0u32; 14];
    for sq in board.squares() {
        if let Square::Up(p) = sq {
            n[piece_index(*p)] += 1;
        }
    }
    n
}

/// Counts of each piece (per [`piece_index`]) in the variant's set.
pub fn variant_counts(variant: &Variant) -> [u32; 14] {
    let mut n = [0u32; 14];
    for p in &variant.pieces {
        n[piece_index(*p)] += 1;
    }
    n
}

/// What one client has seen of its game so far, beyond the position itself (see the module's
/// documentation). Built by the [`crate::Tracker`] from the server's messages, or from a
/// position alone ([`History::of_position`]) or a rules-core game ([`History::of_game`]),
/// which know less and say so.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct History {
    /// The pieces no player has seen yet, per [`piece_index`].
    pool: [u32; 14],
    /// Each position since the last irreversible ply (reveal, capture, draw or put) with how
    /// often it occurred: the board and the place in the turn order of the player to move.
    positions: HashMap<(Board, usize), u32>,
    /// The place in the variant's turn order of the player to move.
    place: usize,
    /// Plies since the last reveal, capture, draw or put.
    progress: u32,
    /// Every ply with its mover, from the `last` extension.
    plies: Vec<(usize, LastPly)>,
    /// Every player's game time left, by player id - 1, from the `clock` extension.
    clocks: Option<Vec<u64>>,
    /// The board before the first ply.
    start_board: Option<Board>,
}

/// What one ply was, as far as a client can tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ply {
    /// A piece turned face-up.
    Reveal(Piece),
    /// A piece moved; `captured` when it took one.
    Move { to: Cell, captured: bool },
    /// A piece drawn from the bag (shown in `(hand P)`).
    Draw(Piece),
    /// The drawn piece put on the board.
    Put,
    /// The boards differ by more than one ply (a prompt was missed): see
    /// [`History::record_unknown`].
    Unknown,
}

/// The public facts of one prompt (or of the result message's final board), as
/// [`History::record_ply`] compares them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sight<'a> {
    pub board: &'a Board,
    pub hand: Option<Piece>,
    /// The player to move (`None` for the final board, which has none).
    pub mover: Option<usize>,
}

impl History {
    /// What a client knows of a position it is shown without the game before it: the pool is
    /// the variant's pieces minus those face-up and in hand (so pieces captured earlier count
    /// as face-down), the position has occurred once, the count of plies without progress is 0,
    /// and nothing else is known (no plies, no clocks, no start board). The player to move is
    /// taken at its first place in the turn order.
    pub fn of_position(
        variant: &Variant,
        board: &Board,
        hand: Option<Piece>,
        mover: usize,
    ) -> History {
        let place = variant.order.iter().position(|&p| p == mover).unwrap_or(0);
        let mut h = History {
            place,
            ..History::default()
        };
        h.pool = variant_counts(variant);
        h.cap_pool(variant, board, hand);
        h.positions.insert((board.clone(), place), 1);
        h
    }

    /// What the rules core knows that a client would have inferred: the exact pool (the
    /// face-down pieces and those in the bag), the count of plies without progress, the place
    /// in the turn order, and, in a variant with a repetition rule, every position since the
    /// last irreversible ply (without one, the game keeps none: the position has occurred
    /// once). There are no plies, clocks or start board.
    pub fn of_game(game: &Game) -> History {
        let variant = game.variant();
        let mut h = History::of_position(variant, game.board(), game.hand(), game.to_move());
        let (down, bag) = (game.face_down_counts(), game.bag_counts());
        h.pool = std::array::from_fn(|i| down[i] + bag[i]);
        h.progress = game.quiet_plies();
        h.place = game.turn_place();
        h.positions.clear();
        let recent = game.recent_positions();
        if recent.is_empty() {
            h.positions.insert((game.board().clone(), h.place), 1);
        }
        for (board, place) in recent {
            *h.positions.entry((board, place)).or_default() += 1;
        }
        h
    }

    /// The history at the first prompt of a game: the position before any ply.
    pub(crate) fn start(variant: &Variant, now: Sight<'_>) -> History {
        let mut h = History::of_position(variant, now.board, now.hand, now.mover.unwrap_or(1));
        h.start_board = Some(now.board.clone());
        h
    }

    /// The pieces no player has seen yet, per [`piece_index`]: those face-down on the board
    /// and those still in the bag, which a reveal or a draw turns up with a probability
    /// proportional to their count. Exact when every ply was seen (or told by the `last`
    /// extension); see [`History::of_position`] for a position shown alone.
    pub fn pool(&self) -> &[u32; 14] {
        &self.pool
    }

    /// How many pieces equal to `piece` no player has seen yet (see [`History::pool`]).
    pub fn unseen(&self, piece: Piece) -> u32 {
        self.pool[piece_index(piece)]
    }

    /// The place in the variant's turn order (`Variant::order`, counted from 0) of the player
    /// to move: what tells apart two turns of a player the order names more than once.
    pub fn turn_place(&self) -> usize {
        self.place
    }

    /// How often the position (`board`, with the player at `place` of the turn order to move)
    /// has occurred since the last reveal, capture, draw or put, this time included when it is
    /// the current one: what the variant's repetition rule counts (see `protocol/VARIANTS.md`,
    /// repetition). No earlier position can occur again.
    pub fn occurrences(&self, board: &Board, place: usize) -> u32 {
        // The key is owned; the map holds only the positions since the last irreversible ply.
        self.positions
            .get(&(board.clone(), place))
            .copied()
            .unwrap_or(0)
    }

    /// Every position since the last reveal, capture, draw or put: its board, the place in the
    /// turn order of the player to move, and how often it occurred. In no particular order.
    pub fn positions(&self) -> impl Iterator<Item = (&Board, usize, u32)> + '_ {
        self.positions.iter().map(|((b, p), n)| (b, *p, *n))
    }

    /// Plies since the last reveal, capture, draw or put: the count the no-progress draw rule
    /// compares with its limit. The server's `(progress N)` when it sends the `progress`
    /// extension, else counted from the boards.
    pub fn progress(&self) -> u32 {
        self.progress
    }

    /// Every ply so far, in order, with its mover: from the `last` extension, so empty without
    /// it.
    pub fn plies(&self) -> &[(usize, LastPly)] {
        &self.plies
    }

    /// Every player's game time left in milliseconds, by player id - 1, when the latest prompt
    /// was sent (0 for a player without a game clock): from the `clock` extension, `None`
    /// without it.
    pub fn clocks(&self) -> Option<&[u64]> {
        self.clocks.as_deref()
    }

    /// The board before the first ply (the first prompt's): with face-up pieces at the start,
    /// what the game began from. `None` for a history not built from the game's prompts.
    pub fn start_board(&self) -> Option<&Board> {
        self.start_board.as_ref()
    }

    /// Sets how often a position occurred (for the bots' tests).
    #[cfg(test)]
    pub(crate) fn set_occurrences(&mut self, board: &Board, place: usize, n: u32) {
        self.positions.insert((board.clone(), place), n);
    }

    /// Takes the server's `(clock ...)` values.
    pub(crate) fn set_clocks(&mut self, clocks: Vec<u64>) {
        self.clocks = Some(clocks);
    }

    /// Takes the server's `(progress N)`, which wins over the count from the boards.
    pub(crate) fn set_progress(&mut self, progress: u32) {
        self.progress = progress;
    }

    /// The last ply the `last` extension told, if any: a re-prompt after an error, and the
    /// result message, repeat it.
    pub(crate) fn last_ply(&self) -> Option<&(usize, LastPly)> {
        self.plies.last()
    }

    /// Takes in one ply: the position went from `before` to `now`, and `last` is the server's
    /// `(last ...)` clause for it when it sent a new one. Returns a piece this ply turned up or
    /// drew with the player who did (what decides colours), if it did.
    pub(crate) fn record_ply(
        &mut self,
        variant: &Variant,
        before: Sight<'_>,
        now: Sight<'_>,
        last: Option<(usize, LastPly)>,
    ) -> Option<(Piece, usize)> {
        let (ply, player) = match last {
            Some((player, told)) => (Ply::told(told, before.board, now.hand), Some(player)),
            None => (Ply::inferred(before, now), before.mover),
        };
        if let Some(told) = last {
            self.plies.push(told);
        }
        let mut turned_up = None;
        let irreversible = match ply {
            Ply::Reveal(p) | Ply::Draw(p) => {
                self.take_from_pool(p);
                turned_up = player.map(|m| (p, m));
                true
            }
            Ply::Move { captured, .. } => captured,
            Ply::Put => true,
            Ply::Unknown => {
                turned_up = self.record_unknown(before, now);
                // Something irreversible happened in between if the face-down cells, the
                // pieces on the board or the hand changed; else only quiet moves did.
                let pieces =
                    |b: &Board| b.squares().iter().filter(|&&q| q != Square::Empty).count();
                before.board.hidden_count() != now.board.hidden_count()
                    || pieces(before.board) != pieces(now.board)
                    || before.hand != now.hand
            }
        };
        self.cap_pool(variant, now.board, now.hand);
        self.progress = if irreversible { 0 } else { self.progress + 1 };
        // A draw keeps the turn for the put, and so does a capture that can go on under the
        // chain-capture rule (the same piece must capture again).
        let kept_turn = match ply {
            Ply::Draw(_) => true,
            Ply::Move { to, captured: true } => {
                variant.chain_capture
                    && to < now.board.len()
                    && can_capture_from(variant, now.board, to)
            }
            _ => false,
        };
        self.advance_place(variant, kept_turn, now.mover);
        if irreversible {
            self.positions.clear();
        }
        *self
            .positions
            .entry((now.board.clone(), self.place))
            .or_default() += 1;
        turned_up
    }

    /// The pool after plies that were not seen one by one (a missed prompt): every cell that
    /// went from face-down to face-up was a reveal, except where a piece of the same letter
    /// left another cell and there are no more of that letter face-up than before: a capture
    /// onto a piece revealed in between, whose identity was never seen (it stays in the pool).
    /// Returns the first piece counted as revealed, with the player who was to move.
    fn record_unknown(&mut self, before: Sight<'_>, now: Sight<'_>) -> Option<(Piece, usize)> {
        let (was, is) = (before.board, now.board);
        if was.len() != is.len() {
            return None;
        }
        let (up_before, up_now) = (face_up_counts(was), face_up_counts(is));
        let mut first = None;
        for (cell, (a, b)) in was.squares().iter().zip(is.squares()).enumerate() {
            let (Square::Hidden, Square::Up(p)) = (*a, *b) else {
                continue;
            };
            let moved_in = was
                .squares()
                .iter()
                .enumerate()
                .any(|(c, s)| c != cell && *s == Square::Up(p) && is.get(c) != Square::Up(p));
            let i = piece_index(p);
            if !(moved_in && up_now[i] <= up_before[i]) {
                self.take_from_pool(p);
                first = first.or(before.mover.map(|m| (p, m)));
            }
        }
        if let (None, Some(p)) = (before.hand, now.hand) {
            self.take_from_pool(p);
        }
        first
    }

    fn take_from_pool(&mut self, p: Piece) {
        let n = &mut self.pool[piece_index(p)];
        *n = n.saturating_sub(1);
    }

    /// Keeps the pool within what can still be unseen: the variant's pieces minus those
    /// face-up and in hand now (a tally that missed a reveal is corrected here).
    fn cap_pool(&mut self, variant: &Variant, board: &Board, hand: Option<Piece>) {
        let mut seen = face_up_counts(board);
        if let Some(p) = hand {
            seen[piece_index(p)] += 1;
        }
        let all = variant_counts(variant);
        for (i, n) in self.pool.iter_mut().enumerate() {
            *n = (*n).min(all[i].saturating_sub(seen[i]));
        }
    }

    /// Moves to the next place in the turn order (or stays, when the turn was kept), then makes
    /// sure the place names `mover`: when it does not (plies were missed), the next place that
    /// does.
    fn advance_place(&mut self, variant: &Variant, kept_turn: bool, mover: Option<usize>) {
        let order = &variant.order;
        if order.is_empty() {
            return;
        }
        let next = (self.place + 1) % order.len();
        let guess = if kept_turn { self.place } else { next };
        self.place = match mover {
            Some(m) if order[guess] != m => (0..order.len())
                .map(|k| (next + k) % order.len())
                .find(|&i| order[i] == m)
                .unwrap_or(guess),
            _ => guess,
        };
    }
}

impl Ply {
    /// The ply a `(last ...)` clause tells, on the board it was played on (`hand`: the piece
    /// in hand after it, which a draw shows).
    fn told(last: LastPly, before: &Board, hand: Option<Piece>) -> Ply {
        match last {
            LastPly::Rev(_, letter) => Piece::from_letter(letter).map_or(Ply::Unknown, Ply::Reveal),
            LastPly::Mov(_, to) => Ply::Move {
                to,
                captured: to < before.len() && matches!(before.get(to), Square::Up(_)),
            },
            LastPly::Bag => hand.map_or(Ply::Unknown, Ply::Draw),
            LastPly::Put(..) => Ply::Put,
        }
    }

    /// The ply between two consecutive prompts, from their boards and hands.
    fn inferred(before: Sight<'_>, now: Sight<'_>) -> Ply {
        let (was, is) = (before.board, now.board);
        if was.len() != is.len() {
            return Ply::Unknown;
        }
        let changed: Vec<Cell> = (0..was.len())
            .filter(|&c| was.get(c) != is.get(c))
            .collect();
        match (changed.as_slice(), before.hand, now.hand) {
            ([], None, Some(p)) => Ply::Draw(p),
            (&[cell], _, _) => match (was.get(cell), is.get(cell)) {
                (Square::Hidden, Square::Up(p)) => Ply::Reveal(p),
                (Square::Empty, Square::Up(p)) if before.hand == Some(p) => Ply::Put,
                _ => Ply::Unknown,
            },
            (&[a, b], _, _) => {
                // One cell emptied, the other took its piece (onto an empty cell, or capturing).
                let step = |from: Cell, to: Cell| match (was.get(from), is.get(from), is.get(to)) {
                    (Square::Up(p), Square::Empty, Square::Up(q)) if p == q => match was.get(to) {
                        Square::Empty => Some(Ply::Move {
                            to,
                            captured: false,
                        }),
                        Square::Up(_) => Some(Ply::Move { to, captured: true }),
                        Square::Hidden => None,
                    },
                    _ => None,
                };
                step(a, b).or_else(|| step(b, a)).unwrap_or(Ply::Unknown)
            }
            _ => Ply::Unknown,
        }
    }
}

/// Whether the piece at `cell` can capture (what the chain-capture rule asks of it).
fn can_capture_from(variant: &Variant, board: &Board, cell: Cell) -> bool {
    let mut any = false;
    board.for_each_move_from(&variant.topology, &variant.capture, cell, true, |_, _| {
        any = true
    });
    any
}
