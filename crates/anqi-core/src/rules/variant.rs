//! The variant model: what a game is played under (board, pieces, capture rules, players and
//! sides, start, objective, clock, draws). The model is read from a description, whose
//! notation (the S-expression format of `protocol/VARIANTS.md`) is parsed in `description.rs`;
//! `catalog.rs` finds variants by name, file or text.

use super::capture::CaptureRules;
use super::piece::{Colour, Piece};
use super::topology::Topology;

/// A validated variant.
#[derive(Clone, Debug)]
pub struct Variant {
    /// Short name (`traditional`, `traditional-2x4`), used by `--variant` and in records.
    pub name: String,
    /// One line saying what the variant is.
    pub summary: String,
    /// The value of the `(game TYPE)` clause sent to clients.
    pub game_type: String,
    pub topology: Topology,
    /// Every piece of the game (both colours), the multiset dealt face-down.
    pub pieces: Vec<Piece>,
    pub capture: CaptureRules,
    /// Number of players (seats), numbered 1..=players.
    pub players: usize,
    /// The players of each side (two sides in a competitive game, one in a `clear` game).
    pub sides: Vec<Vec<usize>>,
    /// The turn order: player ids, repeated round after round.
    pub order: Vec<usize>,
    pub start: Start,
    pub colours: ColourRule,
    pub objective: Objective,
    /// After a capture, the capturing piece must go on capturing while it can, in the same turn.
    pub chain_capture: bool,
    /// Default time control (the server configuration may override it).
    pub clock: ClockDefaults,
    pub draw: DrawRules,
    /// The description text this variant was read from, kept so records are self-contained.
    pub source: String,
}

/// How the pieces are placed at the start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    /// Every piece face-down, dealt at random.
    FaceDown,
    /// Dealt face-down at random, then this many of them turned face-up at random.
    Reveal(u32),
    /// Dealt at random, every piece face-up.
    Open,
    /// A given board: letters are face-up pieces, `X` face-down ones, `.` empty cells. With a
    /// deal (a letter at every `X`, `.` elsewhere) the face-down pieces are given too (a puzzle);
    /// without, they are dealt at random from the pieces not shown.
    Fixed { board: String, deal: Option<String> },
    /// An empty board; every piece in a bag, drawn with `(bag)` and placed with `(put P POS)`.
    Bag,
}

impl Start {
    /// Whether any piece starts unknown (face-down or in the bag).
    pub fn has_unknowns(&self) -> bool {
        match self {
            Start::FaceDown | Start::Bag => true,
            Start::Open => false,
            Start::Reveal(_) => true,
            Start::Fixed { board, .. } => board.contains('X'),
        }
    }

    /// Validates a fixed board (and deal) against the piece multiset.
    pub(super) fn fixed(
        board: String,
        deal: Option<String>,
        pieces: &[Piece],
        size: usize,
    ) -> Result<Start, String> {
        let cells: Vec<char> = board.chars().collect();
        if cells.len() != size {
            return Err(format!(
                "the board has {} cells, the string {}",
                size,
                cells.len()
            ));
        }
        // What is left of the piece multiset, counted per piece (a list searched for every
        // cell would take time quadratic in the pieces).
        let index = |p: Piece| p.colour.index() * 7 + p.kind.index();
        let mut left = [0usize; 14];
        for &p in pieces {
            left[index(p)] += 1;
        }
        let mut take = |p: Piece, what: &str| -> Result<(), String> {
            match left[index(p)].checked_sub(1) {
                Some(n) => {
                    left[index(p)] = n;
                    Ok(())
                }
                None => Err(format!(
                    "{what} {} is not in (pieces ...), or not that many times",
                    p.letter()
                )),
            }
        };
        for (i, &c) in cells.iter().enumerate() {
            match c {
                '.' | 'X' => {}
                c => take(
                    Piece::from_letter(c).ok_or_else(|| {
                        format!("{c:?} at cell {i} is not X, . or a piece letter")
                    })?,
                    "the board's",
                )?,
            }
        }
        let hidden = cells.iter().filter(|&&c| c == 'X').count();
        if let Some(d) = &deal {
            let dc: Vec<char> = d.chars().collect();
            if dc.len() != size {
                return Err(format!("the deal has {} cells, the board {size}", dc.len()));
            }
            for (i, (&b, &c)) in cells.iter().zip(&dc).enumerate() {
                match (b, c) {
                    ('X', c) => take(
                        Piece::from_letter(c).ok_or_else(|| {
                            format!("the deal must give a piece letter at face-down cell {i}")
                        })?,
                        "the deal's",
                    )?,
                    (_, '.') => {}
                    _ => {
                        return Err(format!(
                            "the deal has a piece at cell {i}, which is not face-down"
                        ))
                    }
                }
            }
        }
        let left: usize = left.iter().sum();
        if deal.is_none() && left != hidden {
            return Err(format!(
                "{left} pieces are left to deal face-down but the board has {hidden} X cells"
            ));
        }
        if deal.is_some() && left != 0 {
            return Err(format!(
                "{left} pieces of (pieces ...) are neither on the board nor in the deal"
            ));
        }
        Ok(Start::Fixed { board, deal })
    }
}

/// Who plays which colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColourRule {
    /// The first piece a side reveals (or draws from the bag) gives that side its colour.
    FirstReveal,
    /// Side 1 plays red, side 2 black, from the start.
    Fixed,
}

/// What the players play for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Objective {
    /// Competitive: a side that loses all its pieces, or cannot move, loses.
    Capture,
    /// Single-player or cooperative: every player moves both colours, and the side wins by
    /// removing every piece of one colour within this many plies.
    Clear { ply_cap: u32 },
}

/// A variant's default time control, in milliseconds (`None`: the server's default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClockDefaults {
    pub game_ms: Option<u64>,
    pub move_ms: Option<u64>,
    pub increment_ms: Option<u64>,
}

/// The default turn order: sides alternate, and the members of each side take turns, until
/// every player has moved as often as the order allows (2v2 with sides (1 3)(2 4): 1 2 3 4;
/// 1v2 with sides (1)(2 3): 1 2 1 3).
pub fn default_order(sides: &[Vec<usize>]) -> Vec<usize> {
    if sides.len() == 1 {
        return sides[0].clone();
    }
    let gcd = |mut a: usize, mut b: usize| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    let lcm = sides
        .iter()
        .map(Vec::len)
        .fold(1, |acc, n| acc / gcd(acc, n) * n);
    (0..lcm)
        .flat_map(|i| sides.iter().map(move |s| s[i % s.len()]))
        .collect()
}

/// The repetition rule. A position is the board, the player to move (and a chain capture in
/// progress); reveals, captures, draws and puts make every earlier position unreachable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repetition {
    /// `(repetition N)`: draw when a position occurs for the N-th time (ICGA: 3).
    Occurrence(u32),
    /// `(repetition (cycle N E))`: draw when the last plies repeat one cycle of moves N times in
    /// a row, and E more plies (NTU: N = 3, E = 0, a 4-ply back-and-forth draws after ply 12;
    /// Chen's platform: N = 3, E = 1, after ply 13).
    Cycle { times: u32, extra: u32 },
}

/// When a game is drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DrawRules {
    /// Draw after this many consecutive plies with neither a reveal nor a capture.
    pub no_progress: Option<u32>,
    /// When a repeated position draws.
    pub repetition: Option<Repetition>,
}

impl Variant {
    /// The number of pieces of `colour`.
    pub fn count_of(&self, colour: Colour) -> usize {
        self.pieces.iter().filter(|p| p.colour == colour).count()
    }

    /// The side (0-based) of a player (1-based).
    pub fn side_of(&self, player: usize) -> usize {
        self.sides
            .iter()
            .position(|s| s.contains(&player))
            .expect("every player is on a side")
    }

    /// Whether this is a team game (some side has several players).
    pub fn has_teams(&self) -> bool {
        self.sides.iter().any(|s| s.len() > 1)
    }

    /// The piece string sent as `(pieces ...)`.
    pub fn pieces_wire(&self) -> String {
        self.pieces.iter().map(|p| p.letter()).collect()
    }
}
