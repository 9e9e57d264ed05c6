//! The notation of variant descriptions: the S-expression text of `protocol/VARIANTS.md`, read
//! with `lexpr` and validated into a [`Variant`] (the model, in `variant.rs`). Every mistake is
//! reported with the line of the clause it concerns.
//!
//! # Limits
//! Descriptions come from files anyone may write (`anqi variant check`, `anqi serve --variant`)
//! and from game records (`anqi replay`), so every size is bounded, and each bound is checked
//! before anything whose size depends on it is allocated: the text ([`MAX_DESCRIPTION_BYTES`],
//! checked before it is read or parsed), the board ([`MAX_CELLS`], [`MAX_MOVES`], [`MAX_JUMPS`],
//! [`MAX_JUMP_TARGETS`](super::topology::MAX_JUMP_TARGETS),
//! [`MAX_GRID_SIDE`](super::topology::MAX_GRID_SIDE), enforced by [`Topology`] itself), the players
//! ([`MAX_PLAYERS`]), the turn order ([`MAX_ORDER`]) and the lists the reader builds
//! ([`MAX_LIST_ITEMS`]). The pieces may not outnumber the cells. Within these limits, parsing
//! takes time and memory linear in the text, except the check of an explicit board's jumps,
//! which is bounded by cells x (cells + moves). `protocol/VARIANTS.md` (Limits) lists them for
//! description writers.

use super::capture::{CaptureException, CaptureRules};
use super::piece::{Colour, Kind, Piece};
use super::topology::{Topology, MAX_CELLS, MAX_JUMPS, MAX_MOVES};
use super::variant::{
    default_order, ClockDefaults, ColourRule, DrawRules, Objective, Repetition, Start, Variant,
};
use crate::sexp::{self, excerpt as clip, shown, Sexp};
use lexpr::Value;

/// Longest description text, in bytes (1 MiB). The longest shipped one is under 2 KiB; an
/// explicit board at the other limits (4096 cells, 16,384 moves and jumps) takes under 500 KiB.
pub const MAX_DESCRIPTION_BYTES: usize = 1 << 20;

/// Most players (seats) a game may have.
pub const MAX_PLAYERS: usize = 64;

/// Longest `(order ...)`. The longest default order, two sides of 31 and 33 players, has 2046
/// entries.
pub const MAX_ORDER: usize = 4096;

/// Most items in a list, counting for a list inside another the items before it in the lists
/// that hold it (the cells a recursive drop of the parsed value walks through). The longest
/// valid lists, `(moves ...)` at [`MAX_MOVES`] and `(jumps ...)` at [`MAX_JUMPS`], stay under
/// it. `lexpr` frees a list it could not finish (a syntax error at its end) one stack frame per
/// item, about 64 bytes each: this bound keeps that under 1.3 MiB, within even a 2 MiB thread
/// stack.
pub const MAX_LIST_ITEMS: usize = sexp::MAX_ITEMS;

/// What is wrong with a description. `Display` gives the line it concerns, when known, and the
/// problem, naming the clause: `line 4: (pieces ...): character 'q' at index 7 ...`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DescriptionError {
    /// The text is longer than [`MAX_DESCRIPTION_BYTES`]; none of it was parsed. `bytes` is its
    /// length when known (a file read through a pipe is only known to be longer).
    #[error("the description is {}more than {MAX_DESCRIPTION_BYTES} bytes, the limit", bytes.map(|b| format!("{b} bytes, ")).unwrap_or_default())]
    TooLong { bytes: Option<u64> },
    /// The text is not one S-expression, or uses reader syntax that descriptions do not (quote,
    /// quasiquote, unquote), or has a list over [`MAX_LIST_ITEMS`].
    #[error("{}not a valid S-expression: {message}", at(*line))]
    Syntax {
        line: Option<usize>,
        message: String,
    },
    /// The text is an S-expression but not a valid description: not one `(variant ...)` list of
    /// clauses, or a clause that is unknown, missing, given twice or wrong.
    #[error("{}{message}", at(*line))]
    Invalid {
        line: Option<usize>,
        message: String,
    },
}

impl DescriptionError {
    /// The line of the description the problem concerns, when known.
    pub fn line(&self) -> Option<usize> {
        match self {
            DescriptionError::TooLong { .. } => None,
            DescriptionError::Syntax { line, .. } | DescriptionError::Invalid { line, .. } => *line,
        }
    }
}

/// `line N: `, or nothing when the line is not known.
fn at(line: Option<usize>) -> String {
    line.map(|l| format!("line {l}: ")).unwrap_or_default()
}

/// Parses and validates a description.
///
/// # Errors
/// Names the line and the problem.
pub(super) fn parse(text: &str) -> Result<Variant, DescriptionError> {
    if text.len() > MAX_DESCRIPTION_BYTES {
        return Err(DescriptionError::TooLong {
            bytes: Some(text.len() as u64),
        });
    }
    let value = read_sexp(text)?;
    Parser { text }.variant(value.value(), text)
}

/// The description a player may see: `text` (a valid description) without its comments and
/// without the secret part, a fixed start's DEAL (`(start (fixed BOARD DEAL))` becomes
/// `(start (fixed BOARD))`: the same rules, with the face-down pieces unknown). Sent by the
/// `variant` protocol extension; it parses back into the same rules.
pub fn public_text(text: &str) -> Result<String, DescriptionError> {
    let value = read_sexp(text)?;
    let mut out = String::new();
    print_public(value.value(), &mut Vec::new(), &mut out);
    Ok(out)
}

/// Prints `v` (at the path of clause heads `path`), leaving out a fixed start's deal.
fn print_public<'v>(v: &'v lexpr::Value, path: &mut Vec<&'v str>, out: &mut String) {
    let Some(items) = v.to_ref_vec().filter(|_| v.is_list()) else {
        out.push_str(&v.to_string());
        return;
    };
    let head = items.first().and_then(|h| h.as_symbol()).unwrap_or("");
    let keep = if path.last() == Some(&"start") && head == "fixed" {
        items.len().min(2)
    } else {
        items.len()
    };
    path.push(head);
    out.push('(');
    for (i, item) in items.iter().take(keep).enumerate() {
        if i > 0 {
            out.push(' ');
        }
        print_public(item, path, out);
    }
    out.push(')');
    path.pop();
}

/// Reads the text as one S-expression, through the shared safe reader (`crate::sexp`). Every
/// description is read here, and only here.
fn read_sexp(text: &str) -> Result<Sexp, DescriptionError> {
    let limits = sexp::Limits {
        max_depth: sexp::MAX_DEPTH,
        max_items: MAX_LIST_ITEMS,
    };
    sexp::read(text, limits).map_err(|e| DescriptionError::Syntax {
        line: e.line(),
        message: e.problem(),
    })
}

struct Parser<'a> {
    text: &'a str,
}

/// A description's clauses, as (key, values) in the order given: each key at most once.
struct Clauses<'v>(Vec<(&'v str, Vec<&'v Value>)>);

impl<'v> Clauses<'v> {
    /// The values of clause `key`, when given.
    fn get(&self, key: &str) -> Option<&[&'v Value]> {
        self.0
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.as_slice())
    }

    /// The values of clause `key`, which every description gives.
    fn require(&self, key: &str) -> Result<&[&'v Value], DescriptionError> {
        self.get(key).ok_or_else(|| DescriptionError::Invalid {
            line: None,
            message: format!("missing clause ({key} ...)"),
        })
    }
}

/// Who plays a variant: players, objective, sides (players by side), order of play.
type Seating = (usize, Objective, Vec<Vec<usize>>, Vec<usize>);

impl Parser<'_> {
    /// The line of the first `(key` in the text, to point errors at a clause.
    fn line_of(&self, key: &str) -> Option<usize> {
        let needle = format!("({key}");
        self.text
            .lines()
            .position(|l| {
                let code = l.split(';').next().unwrap_or("");
                code.match_indices(&needle).any(|(i, _)| {
                    code[i + needle.len()..]
                        .chars()
                        .next()
                        .is_none_or(|c| c.is_whitespace() || c == ')')
                })
            })
            .map(|i| i + 1)
    }

    fn error(&self, key: &str, message: impl Into<String>) -> DescriptionError {
        DescriptionError::Invalid {
            line: self.line_of(key),
            message: format!("({} ...): {}", clip(key), message.into()),
        }
    }

    fn variant(&self, value: &Value, text: &str) -> Result<Variant, DescriptionError> {
        let clauses = self.clauses(value)?;
        let name = self.one_name("name", clauses.require("name")?)?;
        let summary = match clauses.get("summary") {
            Some(v) => self.one_name("summary", v)?,
            None => String::new(),
        };
        let game_type = match clauses.get("game") {
            Some(v) => self.one_name("game", v)?,
            None => "traditional".to_string(),
        };
        let topology = self.board(clauses.require("board")?)?;
        let pieces = self.pieces(clauses.require("pieces")?, &topology)?;
        let capture = self.capture(&clauses)?;
        let (players, objective, sides, order) = self.seating(&clauses)?;
        let start = match clauses.get("start") {
            Some(v) => self.start(v, &pieces, topology.size())?,
            None => Start::FaceDown,
        };
        let colours = self.colours(&clauses, objective, &start)?;
        let chain_capture = match clauses.get("chain-capture") {
            Some(v) => self.boolean("chain-capture", v)?,
            None => false,
        };
        let clock = match clauses.get("clock") {
            Some(v) => self.clock(v)?,
            None => ClockDefaults::default(),
        };
        let draw = DrawRules {
            no_progress: match clauses.get("no-progress") {
                Some(v) => self.count_or_none("no-progress", v)?,
                None => None,
            },
            repetition: match clauses.get("repetition") {
                Some(v) => self.repetition(v)?,
                None => None,
            },
        };
        Ok(Variant {
            name,
            summary,
            game_type,
            topology,
            pieces,
            capture,
            players,
            sides,
            order,
            start,
            colours,
            objective,
            chain_capture,
            clock,
            draw,
            source: text.to_string(),
        })
    }

    /// The clauses of `(variant CLAUSE...)`, each a known key given once: the form of a
    /// description, checked before any clause's value is read.
    fn clauses<'v>(&self, value: &'v Value) -> Result<Clauses<'v>, DescriptionError> {
        let items = value
            .to_ref_vec()
            .ok_or_else(|| DescriptionError::Invalid {
                line: Some(1),
                message: "a description is one list (variant (name ...) ...)".into(),
            })?;
        if items.first().and_then(|v| v.as_symbol()) != Some("variant") {
            return Err(DescriptionError::Invalid {
                line: Some(1),
                message: "a description starts with (variant".into(),
            });
        }
        let mut clauses = Clauses(Vec::new());
        for item in &items[1..] {
            let parts = item.to_ref_vec().filter(|p| !p.is_empty());
            let Some(parts) = parts else {
                return Err(DescriptionError::Invalid {
                    line: None,
                    message: format!(
                        "every clause is a list (KEY VALUE...), found {}",
                        shown(item)
                    ),
                });
            };
            let Some(key) = parts[0].as_symbol() else {
                return Err(DescriptionError::Invalid {
                    line: None,
                    message: format!("a clause starts with its key, found {}", shown(item)),
                });
            };
            if !KNOWN.contains(&key) {
                return Err(self.error(
                    key,
                    format!("unknown clause; known clauses: {}", KNOWN.join(", ")),
                ));
            }
            if clauses.get(key).is_some() {
                return Err(self.error(key, "given twice"));
            }
            clauses.0.push((key, parts[1..].to_vec()));
        }
        Ok(clauses)
    }

    /// `(pieces ...)`: the piece string, which must fit on the board's cells (counted before
    /// the pieces are read: a piece string may be a megabyte long) and hold both colours.
    fn pieces(&self, v: &[&Value], topology: &Topology) -> Result<Vec<Piece>, DescriptionError> {
        let pieces_text = self.one_name("pieces", v)?;
        let count = pieces_text.chars().count();
        if count > topology.size() {
            return Err(self.error(
                "pieces",
                format!("{count} pieces do not fit on {} cells", topology.size()),
            ));
        }
        let pieces =
            Piece::parse_list(&pieces_text).map_err(|e| self.error("pieces", e.to_string()))?;
        for colour in Colour::ALL {
            if !pieces.iter().any(|p| p.colour == colour) {
                return Err(self.error("pieces", format!("there is no {} piece", colour.name())));
            }
        }
        Ok(pieces)
    }

    /// The capture rules: `(ranks ...)`, `(step-capture ...)` and `(cannon-jump ...)`, each
    /// the standard game's when left out.
    fn capture(&self, clauses: &Clauses<'_>) -> Result<CaptureRules, DescriptionError> {
        let ranks = match clauses.get("ranks") {
            Some(v) => self.ranks(v)?,
            None => CaptureRules::standard().ranks,
        };
        let exceptions = match clauses.get("step-capture") {
            Some(v) => self.exceptions(v)?,
            None => Vec::new(),
        };
        let cannon_jump = match clauses.get("cannon-jump") {
            Some(v) => self.boolean("cannon-jump", v)?,
            None => true,
        };
        Ok(CaptureRules::new(ranks, &exceptions, cannon_jump))
    }

    /// Who plays, for what, and in which order: `(players ...)`, `(objective ...)`, `(sides
    /// ...)` and `(order ...)`, read together since each default and check depends on the
    /// others (two sides in a competitive game, one in a `(clear N)` game).
    fn seating(&self, clauses: &Clauses<'_>) -> Result<Seating, DescriptionError> {
        let players = match clauses.get("players") {
            Some(v) => self.count("players", v)? as usize,
            None => 2,
        };
        if !(1..=MAX_PLAYERS).contains(&players) {
            return Err(self.error("players", format!("a game has 1 to {MAX_PLAYERS} players")));
        }
        let objective = match clauses.get("objective") {
            Some(v) => self.objective(v)?,
            None => Objective::Capture,
        };
        let sides =
            match clauses.get("sides") {
                Some(v) => self.sides(v, players)?,
                None => match (players, objective) {
                    (2, Objective::Capture) => vec![vec![1], vec![2]],
                    (_, Objective::Clear { .. }) => vec![(1..=players).collect()],
                    _ => return Err(self.error(
                        "players",
                        "a competitive game of other than two players needs (sides ...), such as (sides (1 3) (2 4)); a one-player game needs (objective (clear N))",
                    )),
                },
            };
        match objective {
            Objective::Capture if sides.len() != 2 => {
                return Err(self.error("sides", "a competitive game has exactly two sides"))
            }
            Objective::Clear { .. } if sides.len() != 1 => {
                return Err(self.error(
                    "sides",
                    "in a (clear N) game every player is on one side: (sides (1 2))",
                ))
            }
            _ => {}
        }
        let order = match clauses.get("order") {
            Some(v) => self.order(v, players)?,
            None => default_order(&sides),
        };
        Ok((players, objective, sides, order))
    }

    /// `(colours ...)`, checked against the start: colours decided by the first reveal need
    /// something face-down or in a bag to reveal (in a competitive game).
    fn colours(
        &self,
        clauses: &Clauses<'_>,
        objective: Objective,
        start: &Start,
    ) -> Result<ColourRule, DescriptionError> {
        let colours = match clauses.get("colours") {
            Some(v) => match self.one_name("colours", v)?.as_str() {
                "first-reveal" => ColourRule::FirstReveal,
                "fixed" => ColourRule::Fixed,
                other => {
                    return Err(self.error(
                        "colours",
                        format!("unknown rule {other:?}; known: first-reveal, fixed"),
                    ))
                }
            },
            None => ColourRule::FirstReveal,
        };
        if colours == ColourRule::FirstReveal
            && objective == Objective::Capture
            && !start.has_unknowns()
        {
            return Err(self.error(
                "start",
                "nothing is face-down or in a bag, so no reveal can decide colours: add (colours fixed)",
            ));
        }
        Ok(colours)
    }

    fn repetition(&self, v: &[&Value]) -> Result<Option<Repetition>, DescriptionError> {
        if let [one] = v {
            if let Some(parts) = one.to_ref_vec() {
                if parts.first().and_then(|h| h.as_symbol()) == Some("cycle")
                    && (2..=3).contains(&parts.len())
                {
                    let times = self.count("repetition", &parts[1..2])?;
                    let extra = match parts.get(2) {
                        Some(e) => self.count("repetition", &[e])?,
                        None => 0,
                    };
                    if times < 2 {
                        return Err(self.error("repetition", "a cycle repeats at least twice"));
                    }
                    return Ok(Some(Repetition::Cycle { times, extra }));
                }
                return Err(self.error("repetition", "expected N, none, (cycle N) or (cycle N E)"));
            }
        }
        match self.count_or_none("repetition", v)? {
            Some(n) if n < 2 => {
                Err(self.error("repetition", "a position occurs at least twice to repeat"))
            }
            n => Ok(n.map(Repetition::Occurrence)),
        }
    }

    fn objective(&self, v: &[&Value]) -> Result<Objective, DescriptionError> {
        if let [one] = v {
            if one.as_symbol() == Some("capture") {
                return Ok(Objective::Capture);
            }
            if let Some(parts) = one.to_ref_vec() {
                if let [head, n] = parts.as_slice() {
                    if head.as_symbol() == Some("clear") {
                        let cap = self.count("objective", &[n])?;
                        if cap == 0 {
                            return Err(self.error("objective", "the ply cap must be at least 1"));
                        }
                        return Ok(Objective::Clear { ply_cap: cap });
                    }
                }
            }
        }
        Err(self.error("objective", "expected capture or (clear PLY_CAP)"))
    }

    fn player_list(
        &self,
        key: &str,
        items: &[&Value],
        players: usize,
    ) -> Result<Vec<usize>, DescriptionError> {
        items
            .iter()
            .map(|p| {
                p.as_u64()
                    .map(|n| n as usize)
                    .filter(|n| (1..=players).contains(n))
                    .ok_or_else(|| {
                        self.error(
                            key,
                            format!("{} is not a player number 1..{players}", shown(p)),
                        )
                    })
            })
            .collect()
    }

    fn sides(&self, v: &[&Value], players: usize) -> Result<Vec<Vec<usize>>, DescriptionError> {
        let mut sides = Vec::new();
        let mut seen = vec![false; players + 1];
        for item in v {
            let members = item.to_ref_vec().filter(|m| !m.is_empty()).ok_or_else(|| {
                self.error(
                    "sides",
                    format!("expected a list of players, found {}", shown(item)),
                )
            })?;
            let members = self.player_list("sides", &members, players)?;
            for &m in &members {
                if std::mem::replace(&mut seen[m], true) {
                    return Err(self.error("sides", format!("player {m} is on two sides")));
                }
            }
            sides.push(members);
        }
        if let Some(missing) = (1..=players).find(|&p| !seen[p]) {
            return Err(self.error("sides", format!("player {missing} is on no side")));
        }
        Ok(sides)
    }

    fn order(&self, v: &[&Value], players: usize) -> Result<Vec<usize>, DescriptionError> {
        if v.len() > MAX_ORDER {
            return Err(self.error(
                "order",
                format!("{} turns are more than {MAX_ORDER}, the limit", v.len()),
            ));
        }
        let order = self.player_list("order", v, players)?;
        let mut moves = vec![false; players + 1];
        for &p in &order {
            moves[p] = true;
        }
        if let Some(missing) = (1..=players).find(|&p| !moves[p]) {
            return Err(self.error("order", format!("player {missing} never moves")));
        }
        Ok(order)
    }

    fn start(
        &self,
        v: &[&Value],
        pieces: &[Piece],
        size: usize,
    ) -> Result<Start, DescriptionError> {
        let bad = || {
            self.error(
                "start",
                "expected face-down, open, bag, (reveal N), (fixed BOARD) or (fixed BOARD DEAL)",
            )
        };
        let [one] = v else { return Err(bad()) };
        if let Some(name) = one.as_symbol() {
            return match name {
                "face-down" => Ok(Start::FaceDown),
                "open" => Ok(Start::Open),
                "bag" => Ok(Start::Bag),
                _ => Err(bad()),
            };
        }
        let parts = one.to_ref_vec().ok_or_else(bad)?;
        match parts.first().and_then(|h| h.as_symbol()) {
            Some("reveal") if parts.len() == 2 => {
                let n = self.count("start", &parts[1..])?;
                if n as usize >= pieces.len() {
                    return Err(self.error(
                        "start",
                        format!(
                            "(reveal {n}) with {} pieces leaves nothing face-down to reveal; use open with (colours fixed)",
                            pieces.len()
                        ),
                    ));
                }
                Ok(Start::Reveal(n))
            }
            Some("fixed") if parts.len() == 2 || parts.len() == 3 => {
                let text = |v: &Value| v.as_name().or_else(|| v.as_str()).map(str::to_string);
                let board = text(parts[1]).ok_or_else(bad)?;
                let deal = match parts.get(2) {
                    Some(d) => Some(text(d).ok_or_else(bad)?),
                    None => None,
                };
                Start::fixed(board, deal, pieces, size).map_err(|e| self.error("start", e))
            }
            _ => Err(bad()),
        }
    }

    fn clock(&self, v: &[&Value]) -> Result<ClockDefaults, DescriptionError> {
        let mut c = ClockDefaults::default();
        for item in v {
            let parts = item.to_ref_vec().unwrap_or_default();
            let (key, value) = match parts.as_slice() {
                [k, n] => (
                    k.as_symbol().unwrap_or(""),
                    self.count("clock", &[n])? as u64,
                ),
                _ => {
                    return Err(self.error(
                        "clock",
                        format!(
                            "expected (game-ms N), (move-ms N) or (increment-ms N), found {}",
                            shown(item)
                        ),
                    ))
                }
            };
            match key {
                "game-ms" => c.game_ms = Some(value),
                "move-ms" => c.move_ms = Some(value),
                "increment-ms" => c.increment_ms = Some(value),
                _ => {
                    return Err(self.error(
                        "clock",
                        format!("unknown setting {key:?}; known: game-ms, move-ms, increment-ms"),
                    ))
                }
            }
        }
        Ok(c)
    }

    /// One symbol, string or number, as text.
    fn one_name(&self, key: &str, v: &[&Value]) -> Result<String, DescriptionError> {
        match v {
            [one] => one
                .as_name()
                .or_else(|| one.as_str())
                .map(str::to_string)
                .or_else(|| one.as_number().map(|n| n.to_string()))
                .ok_or_else(|| {
                    self.error(
                        key,
                        format!("expected a name or string, found {}", shown(one)),
                    )
                }),
            _ => Err(self.error(
                key,
                "expected exactly one value (quote a name that starts with a digit: \"2v2\")",
            )),
        }
    }

    fn count(&self, key: &str, v: &[&Value]) -> Result<u32, DescriptionError> {
        match v {
            [one] => one
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| {
                    self.error(
                        key,
                        format!("expected a whole number, found {}", shown(one)),
                    )
                }),
            _ => Err(self.error(key, "expected exactly one number")),
        }
    }

    fn count_or_none(&self, key: &str, v: &[&Value]) -> Result<Option<u32>, DescriptionError> {
        if let [one] = v {
            if one.as_symbol() == Some("none") {
                return Ok(None);
            }
        }
        let n = self.count(key, v)?;
        if n == 0 {
            return Err(self.error(key, "use none, not 0, to switch the rule off"));
        }
        Ok(Some(n))
    }

    fn boolean(&self, key: &str, v: &[&Value]) -> Result<bool, DescriptionError> {
        match v {
            [one] => one
                .as_bool()
                .ok_or_else(|| self.error(key, format!("expected #t or #f, found {}", shown(one)))),
            _ => Err(self.error(key, "expected #t or #f")),
        }
    }

    fn board(&self, v: &[&Value]) -> Result<Topology, DescriptionError> {
        let usage = "expected (board (rectangle LINES COLUMNS)), (board (shape \"ROW\" ...)) or (board (cells N) (moves ...) (jumps ...))";
        let first_head = v
            .first()
            .and_then(|f| f.to_ref_vec())
            .and_then(|f| f.first().and_then(|h| h.as_symbol()).map(str::to_string));
        if first_head.as_deref() == Some("cells") {
            return self.explicit_board(v);
        }
        let shape = match v {
            [one] => one.to_ref_vec(),
            _ => None,
        }
        .ok_or_else(|| self.error("board", usage))?;
        match shape.first().and_then(|s| s.as_symbol()) {
            Some("rectangle") => {
                let dims: Vec<_> = shape[1..].iter().filter_map(|d| d.as_u64()).collect();
                match (shape.len(), dims.as_slice()) {
                    (3, [l, c]) => Topology::rectangle(*l as usize, *c as usize)
                        .map_err(|e| self.error("board", e.0)),
                    _ => Err(self.error("board", "expected (rectangle LINES COLUMNS)")),
                }
            }
            Some("shape") => {
                let rows: Option<Vec<&str>> = shape[1..].iter().map(|r| r.as_str()).collect();
                let rows = rows.filter(|r| !r.is_empty()).ok_or_else(|| {
                    self.error(
                        "board",
                        "expected (shape \"ROW\" ...): one string per row, X a cell, . a hole",
                    )
                })?;
                Topology::shape(&rows).map_err(|e| self.error("board", e.0))
            }
            _ => Err(self.error("board", usage)),
        }
    }

    /// `(board (cells N) (moves (A B)...) (jumps (ORI TG_I TG_F)...) [(coords (ROW COL)...)])`:
    /// the wire form itself, so any graph works; jumps are decoded as on the wire.
    fn explicit_board(&self, parts: &[&Value]) -> Result<Topology, DescriptionError> {
        let usage = "expected (board (cells N) (moves (A B)...) (jumps (ORI TG_I TG_F)...) [(coords (ROW COL)...)])";
        let size = parts[0]
            .to_ref_vec()
            .and_then(|c| c.get(1).and_then(|n| n.as_u64()))
            .ok_or_else(|| self.error("board", usage))? as usize;
        let (mut moves, mut jumps, mut coords) = (None, None, None);
        for item in &parts[1..] {
            let list = item.to_ref_vec().unwrap_or_default();
            let numbers = |n: usize| -> Result<Vec<Vec<usize>>, DescriptionError> {
                list[1..]
                    .iter()
                    .map(|t| {
                        let v: Option<Vec<usize>> =
                            t.to_ref_vec().filter(|v| v.len() == n).and_then(|v| {
                                v.iter().map(|x| x.as_u64().map(|x| x as usize)).collect()
                            });
                        v.ok_or_else(|| {
                            self.error(
                                "board",
                                format!("expected lists of {n} numbers, found {}", shown(t)),
                            )
                        })
                    })
                    .collect()
            };
            let head = list.first().and_then(|h| h.as_symbol());
            // Counted before they are read, so that the message is about the limit.
            let limit = match head {
                Some("moves") => Some(MAX_MOVES),
                Some("jumps") => Some(MAX_JUMPS),
                Some("coords") => Some(MAX_CELLS),
                _ => None,
            };
            if let Some(limit) = limit.filter(|&l| list.len() > l + 1) {
                return Err(self.error(
                    "board",
                    format!(
                        "({} ...) has {} items, more than {limit}, the limit",
                        head.map(clip).unwrap_or_default(),
                        list.len() - 1
                    ),
                ));
            }
            match head {
                Some("moves") => {
                    moves = Some(
                        numbers(2)?
                            .into_iter()
                            .map(|v| (v[0], v[1]))
                            .collect::<Vec<_>>(),
                    )
                }
                Some("jumps") => {
                    jumps = Some(
                        numbers(3)?
                            .into_iter()
                            .map(|v| (v[0], v[1], v[2]))
                            .collect::<Vec<_>>(),
                    )
                }
                Some("coords") => {
                    coords = Some(
                        numbers(2)?
                            .into_iter()
                            .map(|v| (v[0], v[1]))
                            .collect::<Vec<_>>(),
                    )
                }
                _ => return Err(self.error("board", usage)),
            }
        }
        let moves =
            moves.ok_or_else(|| self.error("board", "an explicit board needs (moves ...)"))?;
        let topology = Topology::from_wire(size, moves, &jumps.unwrap_or_default())
            .map_err(|e| self.error("board", e.0))?;
        match coords {
            Some(c) => topology
                .with_coords(c)
                .map_err(|e| self.error("board", e.0)),
            None => Ok(topology),
        }
    }

    fn kind(&self, key: &str, v: &Value) -> Result<Kind, DescriptionError> {
        v.as_symbol()
            .filter(|s| s.len() == 1)
            .and_then(|s| Kind::from_letter(s.chars().next().unwrap_or(' ')))
            .ok_or_else(|| {
                self.error(
                    key,
                    format!("{} is not a piece letter (K G B R N C P)", shown(v)),
                )
            })
    }

    fn ranks(&self, v: &[&Value]) -> Result<[u8; 7], DescriptionError> {
        let mut ranks = [None; 7];
        for item in v {
            let pair = item.to_ref_vec().unwrap_or_default();
            let [k, r] = pair.as_slice() else {
                return Err(self.error(
                    "ranks",
                    format!("expected (LETTER RANK), found {}", shown(item)),
                ));
            };
            let kind = self.kind("ranks", k)?;
            let rank = r.as_u64().filter(|&n| n <= 255).ok_or_else(|| {
                self.error("ranks", format!("rank {} is not a number 0..255", shown(r)))
            })?;
            if ranks[kind.index()].replace(rank as u8).is_some() {
                return Err(self.error("ranks", format!("{} is ranked twice", kind.letter())));
            }
        }
        let mut out = [0; 7];
        for kind in Kind::ALL {
            out[kind.index()] = ranks[kind.index()]
                .ok_or_else(|| self.error("ranks", format!("{} has no rank", kind.letter())))?;
        }
        Ok(out)
    }

    fn exceptions(&self, v: &[&Value]) -> Result<Vec<CaptureException>, DescriptionError> {
        let mut out = Vec::new();
        for item in v {
            let parts = item.to_ref_vec().unwrap_or_default();
            let allowed = match parts.first().and_then(|s| s.as_symbol()) {
                Some("allow") => true,
                Some("forbid") => false,
                _ => {
                    return Err(self.error(
                        "step-capture",
                        format!(
                            "expected (allow (A T)...) or (forbid (A T)...), found {}",
                            shown(item)
                        ),
                    ))
                }
            };
            for pair in &parts[1..] {
                let pv = pair.to_ref_vec().unwrap_or_default();
                let [a, t] = pv.as_slice() else {
                    return Err(self.error(
                        "step-capture",
                        format!("expected (ATTACKER TARGET), found {}", shown(pair)),
                    ));
                };
                let attacker = self.kind("step-capture", a)?;
                let target = if t.as_symbol() == Some("*") {
                    None
                } else {
                    Some(self.kind("step-capture", t)?)
                };
                out.push(CaptureException {
                    attacker,
                    target,
                    allowed,
                });
            }
        }
        Ok(out)
    }
}

/// Every clause a description may have.
const KNOWN: &[&str] = &[
    "name",
    "summary",
    "game",
    "board",
    "pieces",
    "ranks",
    "step-capture",
    "cannon-jump",
    "players",
    "sides",
    "order",
    "start",
    "colours",
    "objective",
    "chain-capture",
    "clock",
    "no-progress",
    "repetition",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mistakes_name_the_line_and_the_problem() {
        let text = "(variant\n (name x)\n (board (rectangle 2 4))\n (pieces KPPPkppq)\n)";
        let e = Variant::parse(text).unwrap_err();
        assert_eq!(e.line(), Some(4), "{e}");
        assert!(e.to_string().contains("'q'"), "{e}");

        let text =
            "(variant\n (name x)\n (board (rectangle 2 4))\n (pieces KPPPkppp)\n (colour red))";
        let e = Variant::parse(text).unwrap_err();
        assert_eq!(e.line(), Some(5), "{e}");
        assert!(e.to_string().contains("unknown clause"), "{e}");

        let text = "(variant (name x) (pieces KPPPkppp))";
        let e = Variant::parse(text).unwrap_err();
        assert!(e.to_string().contains("missing clause (board"), "{e}");

        let text = "(variant (name x) (board (rectangle 2 2)) (pieces KPPPkppp))";
        let e = Variant::parse(text).unwrap_err();
        assert!(e.to_string().contains("do not fit"), "{e}");

        let e = Variant::parse("(variant (name x)").unwrap_err();
        assert!(e.to_string().contains("S-expression"), "{e}");
    }

    #[test]
    fn an_explicit_board_is_the_wire_form() {
        // A ring of 6 cells: each cell steps to both neighbours; a cannon at 0 fires along the
        // ring through 1 to 2 and 3 (3 has two shortest paths, so it is not a jump target).
        let moves: String = (0..6)
            .map(|c| format!("({c} {}) ({c} {}) ", (c + 1) % 6, (c + 5) % 6))
            .collect();
        let text = format!(
            "(variant (name ring) (board (cells 6) (moves {moves}) (jumps (0 2 2) (3 1 1)) (coords (0 0) (0 1) (0 2) (1 2) (1 1) (1 0))) (pieces Cp))"
        );
        let v = Variant::parse(&text).unwrap();
        assert_eq!(v.topology.size(), 6);
        assert_eq!(v.topology.rays(0), &[vec![1, 2]]);
        assert_eq!(v.topology.coords().unwrap()[3], (1, 2));
        let bad = text.replace("(0 2 2)", "(0 3 3)");
        let e = Variant::parse(&bad).unwrap_err();
        assert!(e.to_string().contains("(0 3 3)"), "{e}");
    }

    #[test]
    fn a_quote_run_is_refused_before_the_reader_recurses() {
        let quotes = format!("(variant (name {}x))", "'".repeat(100_000));
        let e = Variant::parse(&quotes).unwrap_err();
        assert!(
            matches!(e, DescriptionError::Syntax { line: Some(1), .. }),
            "{e}"
        );
        assert!(
            e.to_string().contains("quote, quasiquote and unquote"),
            "{e}"
        );
        // Where the scan could mistake code for text: a `"` inside a name, `#\;` (a character,
        // not a comment) and a number that `lexpr` ends at `#`.
        for text in [
            "(variant (name x\") ''x)",
            "(variant (name #\\;) ''x)",
            "(variant (name 12#\\;) ''x)",
            "(variant (name \"a\"'x))",
            "(variant (name x)\n (summary `(a ,b ,@c)))",
        ] {
            let e = Variant::parse(text).unwrap_err();
            assert!(matches!(e, DescriptionError::Syntax { .. }), "{text}: {e}");
        }
        // In strings and comments they are text.
        let v = Variant::parse(
            "(variant (name x) ; it's\n (summary \"it's `so`, \\\"really\\\"\") (board (rectangle 2 4)) (pieces Kk))",
        )
        .unwrap();
        assert_eq!(v.summary, "it's `so`, \"really\"");
    }

    #[test]
    fn limits_are_named_in_the_error() {
        let cases = [
            (
                "(variant (name x) (board (cells 4000000000) (moves (0 1))) (pieces Kk))"
                    .to_string(),
                "(board ...): 4000000000 cells are more than 4096, the limit",
            ),
            (
                "(variant (name x) (board (rectangle 100000 100000)) (pieces Kk))".into(),
                "(board ...): a 100000x100000 rectangle has more than 4096 cells, the limit",
            ),
            (
                format!("(variant (name x) (order {}))", "1 ".repeat(MAX_LIST_ITEMS)),
                "a list has more than 20000 items, the limit",
            ),
            (
                format!("(variant {}))", "(".repeat(200)),
                "lists nested deeper than 127 levels",
            ),
            (
                format!(
                    "(variant (name x) (board (rectangle 2 4)) (pieces Kk) (order {}))",
                    "1 2 ".repeat(MAX_ORDER / 2 + 1)
                ),
                "(order ...): 4098 turns are more than 4096, the limit",
            ),
            (
                format!(
                    "(variant (name x) (board (rectangle 2 4)) (pieces {}q))",
                    "Kk".repeat(10_000)
                ),
                "(pieces ...): 20001 pieces do not fit on 8 cells",
            ),
            (
                "(variant (name x) (board (rectangle 2 4)) (pieces Kk) (players 65))".into(),
                "(players ...): a game has 1 to 64 players",
            ),
        ];
        for (text, expected) in cases {
            let e = Variant::parse(&text).unwrap_err().to_string();
            assert!(e.contains(expected), "{e}");
        }
        let long = " ".repeat(MAX_DESCRIPTION_BYTES + 1);
        assert_eq!(
            Variant::parse(&long).unwrap_err(),
            DescriptionError::TooLong {
                bytes: Some(MAX_DESCRIPTION_BYTES as u64 + 1)
            }
        );
    }

    #[test]
    fn messages_quote_at_most_a_little_of_the_text() {
        let key = "k".repeat(100_000);
        let list = (0..10_000)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(" ");
        for text in [
            format!("(variant (name x) ({key} 1))"),
            format!("(variant (name x) (board (rectangle 2 4)) (pieces Kk) (players ({list})))"),
            format!("(variant (name x) ({list}))"),
        ] {
            let e = Variant::parse(&text).unwrap_err().to_string();
            assert!(e.len() < 400, "{} bytes: {}", e.len(), &e[..400]);
        }
    }

    #[test]
    fn long_lists_are_freed_without_deep_recursion() {
        // Run on a test thread (2 MiB of stack): a list at the limit, parsed and dropped, and
        // one that `lexpr` gives up on at its end (it frees that one itself, recursively).
        let exceptions = "(K P) ".repeat(MAX_LIST_ITEMS - 10);
        let v = Variant::parse(&format!(
            "(variant (name x) (board (rectangle 2 4)) (pieces Kk) (step-capture (forbid {exceptions})))"
        ))
        .unwrap();
        assert_eq!(v.name, "x");
        let e = Variant::parse(&format!(
            "(variant (name x) (order {}",
            "1 ".repeat(MAX_LIST_ITEMS - 10)
        ))
        .unwrap_err();
        assert!(e.to_string().contains("EOF while parsing a list"), "{e}");
    }
}
