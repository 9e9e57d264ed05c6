//! Variant descriptions: one S-expression file states the board, the pieces, the capture rules,
//! the players and the draw rules of a game. The format is documented in
//! `protocol/VARIANTS.md`; the shipped descriptions live in `protocol/variants/` and are built
//! into the binary.
//!
//! A description is parsed with `lexpr` and validated into a [`Variant`]; every mistake is
//! reported with the line of the clause it concerns.

use super::capture::{CaptureException, CaptureRules};
use super::piece::{Colour, Kind, Piece};
use super::topology::Topology;
use lexpr::Value;
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
    /// Number of players (seats).
    pub players: usize,
    pub draw: DrawRules,
    /// The description text this variant was read from, kept so records are self-contained.
    pub source: String,
}

/// When a game is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawRules {
    /// Draw after this many consecutive plies with neither a reveal nor a capture.
    pub no_progress: Option<u32>,
    /// Draw when the same position (board and player to move) occurs this many times.
    pub repetition: Option<u32>,
}

/// What is wrong with a description, with the line it concerns when known.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}{}{message}", file.as_ref().map(|f| format!("{f}: ")).unwrap_or_default(), line.map(|l| format!("line {l}: ")).unwrap_or_default())]
pub struct VariantError {
    /// The description file, when it came from one.
    pub file: Option<String>,
    pub line: Option<usize>,
    pub message: String,
}

/// The variants shipped in `protocol/variants/`, as (name, description text).
pub const SHIPPED: &[(&str, &str)] = &[
    (
        "traditional",
        include_str!("../../protocol/variants/traditional.sexp"),
    ),
    (
        "traditional-2x4",
        include_str!("../../protocol/variants/traditional-2x4.sexp"),
    ),
];

impl Variant {
    /// A shipped variant by name.
    ///
    /// # Errors
    /// When no shipped variant has that name (the message lists the names).
    pub fn shipped(name: &str) -> Result<Variant, VariantError> {
        match SHIPPED.iter().find(|(n, _)| *n == name) {
            Some((_, text)) => Variant::parse(text),
            None => Err(VariantError {
                file: None,
                line: None,
                message: format!(
                    "no shipped variant is named {name:?}; shipped: {}",
                    SHIPPED
                        .iter()
                        .map(|(n, _)| *n)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
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
            return Variant::shipped(name_or_path).map_err(|e| VariantError {
                file: None,
                line: None,
                message: format!("{} (and no file {name_or_path:?} exists)", e.message),
            });
        }
        let text = std::fs::read_to_string(path).map_err(|e| VariantError {
            file: None,
            line: None,
            message: format!("cannot read {name_or_path}: {e}"),
        })?;
        Variant::parse(&text).map_err(|e| VariantError {
            file: Some(name_or_path.to_string()),
            ..e
        })
    }

    /// Parses and validates a description.
    ///
    /// # Errors
    /// Names the line and the problem.
    pub fn parse(text: &str) -> Result<Variant, VariantError> {
        let value = lexpr::from_str(text).map_err(|e| VariantError {
            file: None,
            line: e.location().map(|l| l.line()),
            message: format!("not a valid S-expression: {e}"),
        })?;
        Parser { text }.variant(&value, text)
    }

    /// The number of pieces of `colour`.
    pub fn count_of(&self, colour: Colour) -> usize {
        self.pieces.iter().filter(|p| p.colour == colour).count()
    }

    /// The piece string sent as `(pieces ...)`.
    pub fn pieces_wire(&self) -> String {
        self.pieces.iter().map(|p| p.letter()).collect()
    }
}

struct Parser<'a> {
    text: &'a str,
}

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

    fn error(&self, key: &str, message: impl Into<String>) -> VariantError {
        VariantError {
            file: None,
            line: self.line_of(key),
            message: format!("({key} ...): {}", message.into()),
        }
    }

    fn variant(&self, value: &Value, text: &str) -> Result<Variant, VariantError> {
        let items = value.to_ref_vec().ok_or_else(|| VariantError {
            file: None,
            line: Some(1),
            message: "a description is one list (variant (name ...) ...)".into(),
        })?;
        if items.first().and_then(|v| v.as_symbol()) != Some("variant") {
            return Err(VariantError {
                file: None,
                line: Some(1),
                message: "a description starts with (variant".into(),
            });
        }
        let mut clauses: Vec<(&str, Vec<&Value>)> = Vec::new();
        for item in &items[1..] {
            let parts = item.to_ref_vec().filter(|p| !p.is_empty());
            let Some(parts) = parts else {
                return Err(VariantError {
                    file: None,
                    line: None,
                    message: format!("every clause is a list (KEY VALUE...), found {item}"),
                });
            };
            let Some(key) = parts[0].as_symbol() else {
                return Err(VariantError {
                    file: None,
                    line: None,
                    message: format!("a clause starts with its key, found {item}"),
                });
            };
            if !KNOWN.contains(&key) {
                return Err(self.error(
                    key,
                    format!("unknown clause; known clauses: {}", KNOWN.join(", ")),
                ));
            }
            if clauses.iter().any(|(k, _)| *k == key) {
                return Err(self.error(key, "given twice"));
            }
            clauses.push((key, parts[1..].to_vec()));
        }
        let get = |key: &str| {
            clauses
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| v.as_slice())
        };
        let require = |key: &str| {
            get(key).ok_or_else(|| VariantError {
                file: None,
                line: None,
                message: format!("missing clause ({key} ...)"),
            })
        };

        let name = self.one_name("name", require("name")?)?;
        let summary = match get("summary") {
            Some(v) => self.one_name("summary", v)?,
            None => String::new(),
        };
        let game_type = match get("game") {
            Some(v) => self.one_name("game", v)?,
            None => "traditional".to_string(),
        };
        let topology = self.board(require("board")?)?;
        let pieces_text = self.one_name("pieces", require("pieces")?)?;
        let pieces = Piece::parse_list(&pieces_text).map_err(|e| self.error("pieces", e))?;
        if pieces.len() > topology.size() {
            return Err(self.error(
                "pieces",
                format!(
                    "{} pieces do not fit on {} cells",
                    pieces.len(),
                    topology.size()
                ),
            ));
        }
        for colour in Colour::ALL {
            if !pieces.iter().any(|p| p.colour == colour) {
                return Err(self.error("pieces", format!("there is no {} piece", colour.name())));
            }
        }
        let ranks = match get("ranks") {
            Some(v) => self.ranks(v)?,
            None => CaptureRules::standard().ranks,
        };
        let exceptions = match get("step-capture") {
            Some(v) => self.exceptions(v)?,
            None => Vec::new(),
        };
        let cannon_jump = match get("cannon-jump") {
            Some(v) => self.boolean("cannon-jump", v)?,
            None => true,
        };
        let capture = CaptureRules::new(ranks, &exceptions, cannon_jump);
        let players = match get("players") {
            Some(v) => self.count("players", v)? as usize,
            None => 2,
        };
        if players != 2 {
            return Err(self.error("players", "only two-player games are supported so far"));
        }
        if let Some(v) = get("start") {
            let start = self.one_name("start", v)?;
            if start != "face-down" {
                return Err(self.error(
                    "start",
                    format!("unknown start {start:?}; known: face-down"),
                ));
            }
        }
        let draw = DrawRules {
            no_progress: match get("no-progress") {
                Some(v) => self.count_or_none("no-progress", v)?,
                None => None,
            },
            repetition: match get("repetition") {
                Some(v) => self.count_or_none("repetition", v)?,
                None => None,
            },
        };
        if draw.repetition.is_some_and(|n| n < 2) {
            return Err(self.error("repetition", "a position occurs at least twice to repeat"));
        }
        Ok(Variant {
            name,
            summary,
            game_type,
            topology,
            pieces,
            capture,
            players,
            draw,
            source: text.to_string(),
        })
    }

    /// One symbol, string or number, as text.
    fn one_name(&self, key: &str, v: &[&Value]) -> Result<String, VariantError> {
        match v {
            [one] => one
                .as_name()
                .or_else(|| one.as_str())
                .map(str::to_string)
                .or_else(|| one.as_number().map(|n| n.to_string()))
                .ok_or_else(|| self.error(key, format!("expected a name or string, found {one}"))),
            _ => Err(self.error(key, "expected exactly one value")),
        }
    }

    fn count(&self, key: &str, v: &[&Value]) -> Result<u32, VariantError> {
        match v {
            [one] => one
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| self.error(key, format!("expected a whole number, found {one}"))),
            _ => Err(self.error(key, "expected exactly one number")),
        }
    }

    fn count_or_none(&self, key: &str, v: &[&Value]) -> Result<Option<u32>, VariantError> {
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

    fn boolean(&self, key: &str, v: &[&Value]) -> Result<bool, VariantError> {
        match v {
            [one] => one
                .as_bool()
                .ok_or_else(|| self.error(key, format!("expected #t or #f, found {one}"))),
            _ => Err(self.error(key, "expected #t or #f")),
        }
    }

    fn board(&self, v: &[&Value]) -> Result<Topology, VariantError> {
        let shape = match v {
            [one] => one.to_ref_vec(),
            _ => None,
        }
        .ok_or_else(|| self.error("board", "expected (board (rectangle LINES COLUMNS))"))?;
        match shape.first().and_then(|s| s.as_symbol()) {
            Some("rectangle") => {
                let dims: Vec<_> = shape[1..].iter().filter_map(|d| d.as_u64()).collect();
                match (shape.len(), dims.as_slice()) {
                    (3, [l, c]) => Topology::rectangle(*l as usize, *c as usize)
                        .map_err(|e| self.error("board", e.0)),
                    _ => Err(self.error("board", "expected (rectangle LINES COLUMNS)")),
                }
            }
            _ => Err(self.error("board", "expected (board (rectangle LINES COLUMNS))")),
        }
    }

    fn kind(&self, key: &str, v: &Value) -> Result<Kind, VariantError> {
        v.as_symbol()
            .filter(|s| s.len() == 1)
            .and_then(|s| Kind::from_letter(s.chars().next().unwrap_or(' ')))
            .ok_or_else(|| self.error(key, format!("{v} is not a piece letter (K G B R N C P)")))
    }

    fn ranks(&self, v: &[&Value]) -> Result<[u8; 7], VariantError> {
        let mut ranks = [None; 7];
        for item in v {
            let pair = item.to_ref_vec().unwrap_or_default();
            let [k, r] = pair.as_slice() else {
                return Err(self.error("ranks", format!("expected (LETTER RANK), found {item}")));
            };
            let kind = self.kind("ranks", k)?;
            let rank = r
                .as_u64()
                .filter(|&n| n <= 255)
                .ok_or_else(|| self.error("ranks", format!("rank {r} is not a number 0..255")))?;
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

    fn exceptions(&self, v: &[&Value]) -> Result<Vec<CaptureException>, VariantError> {
        let mut out = Vec::new();
        for item in v {
            let parts = item.to_ref_vec().unwrap_or_default();
            let allowed = match parts.first().and_then(|s| s.as_symbol()) {
                Some("allow") => true,
                Some("forbid") => false,
                _ => {
                    return Err(self.error(
                        "step-capture",
                        format!("expected (allow (A T)...) or (forbid (A T)...), found {item}"),
                    ))
                }
            };
            for pair in &parts[1..] {
                let pv = pair.to_ref_vec().unwrap_or_default();
                let [a, t] = pv.as_slice() else {
                    return Err(self.error(
                        "step-capture",
                        format!("expected (ATTACKER TARGET), found {pair}"),
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
    "start",
    "no-progress",
    "repetition",
];

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
                repetition: Some(3)
            }
        );
        let s = Variant::shipped("traditional-2x4").unwrap();
        assert_eq!(s.pieces_wire(), "KPPPkppp");
        assert_eq!(s.topology.size(), 8);
    }

    #[test]
    fn mistakes_name_the_line_and_the_problem() {
        let text = "(variant\n (name x)\n (board (rectangle 2 4))\n (pieces KPPPkppq)\n)";
        let e = Variant::parse(text).unwrap_err();
        assert_eq!(e.line, Some(4), "{e}");
        assert!(e.message.contains("'q'"), "{e}");

        let text =
            "(variant\n (name x)\n (board (rectangle 2 4))\n (pieces KPPPkppp)\n (colour red))";
        let e = Variant::parse(text).unwrap_err();
        assert_eq!(e.line, Some(5), "{e}");
        assert!(e.message.contains("unknown clause"), "{e}");

        let text = "(variant (name x) (pieces KPPPkppp))";
        let e = Variant::parse(text).unwrap_err();
        assert!(e.message.contains("missing clause (board"), "{e}");

        let text = "(variant (name x) (board (rectangle 2 2)) (pieces KPPPkppp))";
        let e = Variant::parse(text).unwrap_err();
        assert!(e.message.contains("do not fit"), "{e}");

        let e = Variant::parse("(variant (name x)").unwrap_err();
        assert!(e.message.contains("S-expression"), "{e}");
    }

    #[test]
    fn load_explains_unknown_names() {
        let e = Variant::load("no-such-variant").unwrap_err();
        assert!(e.message.contains("traditional-2x4"), "{e}");
    }
}
