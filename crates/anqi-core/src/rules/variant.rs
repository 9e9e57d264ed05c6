//! The variant model: what a game is played under (board, pieces, capture rules, players and
//! sides, start, objective, clock, draws), and the shipped variants. The model is read from a
//! description, whose notation (the S-expression format of `protocol/VARIANTS.md`) is parsed in
//! `description.rs`; the shipped descriptions live in `protocol/variants/` and are built into
//! the binary.

use super::capture::CaptureRules;
use super::description::{DescriptionError, MAX_DESCRIPTION_BYTES};
use super::piece::{Colour, Piece};
use super::topology::Topology;
use std::path::Path;

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

/// Why a variant could not be had by name or from a file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VariantError {
    /// No shipped variant has this name (and, from [`Variant::load`], no file has it as path).
    #[error("no shipped variant is named {name:?}; shipped: {}{}", shipped_names(), if *no_file { format!(" (and no file {name:?} exists)") } else { String::new() })]
    Unknown { name: String, no_file: bool },
    /// The file exists but cannot be read.
    #[error("cannot read {file}: {reason}")]
    Unreadable { file: String, reason: String },
    /// The description is invalid; `file` is the file it came from, if any.
    #[error("{}{error}", file.as_ref().map(|f| format!("{f}: ")).unwrap_or_default())]
    Invalid {
        file: Option<String>,
        error: DescriptionError,
    },
}

/// The shipped names, comma-separated.
fn shipped_names() -> String {
    SHIPPED
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

macro_rules! shipped {
    ($($name:literal),* $(,)?) => {
        &[$(($name, include_str!(concat!("../../../../protocol/variants/", $name, ".sexp")))),*]
    };
}

/// The variants shipped in `protocol/variants/`, as (name, description text).
pub const SHIPPED: &[(&str, &str)] = shipped![
    "traditional",
    "traditional-2x4",
    "ntu",
    "platform",
    "openspiel",
    "hong-kong",
    "paper-ranks",
    "handicap",
    "open",
    "reveal-4",
    "puzzle",
    "strategic",
    "strategic-2x4",
    "single",
    "cooperative",
    "2v2",
    "1v2",
    "2v2-8x16",
    "cross",
    "chain-capture",
    "cannon-step",
];

impl Variant {
    /// A shipped variant by name.
    ///
    /// # Errors
    /// When no shipped variant has that name (the message lists the names).
    pub fn shipped(name: &str) -> Result<Variant, VariantError> {
        match SHIPPED.iter().find(|(n, _)| *n == name) {
            Some((_, text)) => {
                Variant::parse(text).map_err(|error| VariantError::Invalid { file: None, error })
            }
            None => Err(VariantError::Unknown {
                name: name.to_string(),
                no_file: false,
            }),
        }
    }

    /// A variant by shipped name, or else from a description file.
    ///
    /// # Errors
    /// When it is neither a shipped name nor a readable, valid file.
    pub fn load(name_or_path: &str) -> Result<Variant, VariantError> {
        if SHIPPED.iter().any(|(n, _)| *n == name_or_path) {
            return Variant::shipped(name_or_path);
        }
        let path = Path::new(name_or_path);
        if !path.exists() {
            return Err(VariantError::Unknown {
                name: name_or_path.to_string(),
                no_file: true,
            });
        }
        let text = read_limited(path, name_or_path)?;
        Variant::parse(&text).map_err(|error| VariantError::Invalid {
            file: Some(name_or_path.to_string()),
            error,
        })
    }

    /// Parses and validates a description (see `description.rs` and `protocol/VARIANTS.md`).
    ///
    /// # Errors
    /// Names the line and the problem.
    pub fn parse(text: &str) -> Result<Variant, DescriptionError> {
        super::description::parse(text)
    }

    /// The description a player may see: the source without its comments and without a fixed
    /// start's secret deal (see `description::public_text`).
    pub fn public_description(&self) -> String {
        super::description::public_text(&self.source)
            .expect("a variant's source is a valid description")
    }

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

/// Reads a description file, refusing one over [`MAX_DESCRIPTION_BYTES`] before reading it
/// (by its length) and while reading it (the length of a pipe or a growing file is not known
/// beforehand), so no more than the limit is ever held in memory.
fn read_limited(path: &Path, name: &str) -> Result<String, VariantError> {
    use std::io::Read;
    let unreadable = |e: std::io::Error| VariantError::Unreadable {
        file: name.to_string(),
        reason: e.to_string(),
    };
    let too_long = |bytes: Option<u64>| VariantError::Invalid {
        file: Some(name.to_string()),
        error: DescriptionError::TooLong { bytes },
    };
    let file = std::fs::File::open(path).map_err(unreadable)?;
    let length = file.metadata().map_err(unreadable)?.len();
    if length > MAX_DESCRIPTION_BYTES as u64 {
        return Err(too_long(Some(length)));
    }
    let mut bytes = Vec::with_capacity(length as usize);
    file.take(MAX_DESCRIPTION_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() > MAX_DESCRIPTION_BYTES {
        return Err(too_long(None));
    }
    String::from_utf8(bytes).map_err(|e| VariantError::Unreadable {
        file: name.to_string(),
        reason: format!("not UTF-8 text: {}", e.utf8_error()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_variants_parse() {
        for (name, _) in SHIPPED {
            let v = Variant::shipped(name).unwrap();
            assert_eq!(&v.name, name);
        }
        let t = Variant::shipped("traditional").unwrap();
        assert_eq!(t.pieces.len(), 32);
        assert_eq!(t.count_of(Colour::Red), 16);
        assert_eq!(t.capture, CaptureRules::standard());
        assert_eq!(
            t.draw,
            DrawRules {
                no_progress: Some(180),
                repetition: Some(Repetition::Occurrence(3))
            }
        );
        let s = Variant::shipped("traditional-2x4").unwrap();
        assert_eq!(s.pieces_wire(), "KPPPkppp");
        assert_eq!(s.topology.size(), 8);
    }

    #[test]
    fn the_public_description_is_the_same_rules_without_the_secret_deal() {
        for (name, _) in SHIPPED {
            let v = Variant::shipped(name).unwrap();
            let text = v.public_description();
            assert!(
                !text.contains('\n') && text.len() < v.source.len(),
                "comments left out: {text}"
            );
            let p = Variant::parse(&text).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
            assert_eq!(p.name, v.name);
            assert_eq!(p.topology, v.topology, "{name}");
            assert_eq!(p.pieces, v.pieces, "{name}");
            assert_eq!(p.capture, v.capture, "{name}");
            assert_eq!(p.draw, v.draw, "{name}");
            assert_eq!((p.colours, p.objective), (v.colours, v.objective), "{name}");
            assert_eq!((&p.sides, &p.order), (&v.sides, &v.order), "{name}");
            assert_eq!(p.chain_capture, v.chain_capture, "{name}");
            match (&v.start, &p.start) {
                (
                    Start::Fixed {
                        board,
                        deal: Some(_),
                    },
                    Start::Fixed { board: b, deal },
                ) => {
                    assert_eq!((b, deal), (board, &None), "{name}: the deal is a secret")
                }
                (a, b) => assert_eq!(a, b, "{name}"),
            }
        }
        let puzzle = Variant::shipped("puzzle").unwrap().public_description();
        assert!(puzzle.contains("(start (fixed \"C.XgK..p\"))"), "{puzzle}");
    }

    #[test]
    fn load_explains_unknown_names() {
        let e = Variant::load("no-such-variant").unwrap_err();
        assert!(e.to_string().contains("traditional-2x4"), "{e}");
        assert!(
            matches!(e, VariantError::Unknown { no_file: true, .. }),
            "{e}"
        );
    }
}
