//! Variants by name, from files and from text: the shipped catalogue (`protocol/variants/`,
//! built into the binary), [`Variant::shipped`], [`Variant::load`], [`Variant::parse`], and
//! [`VariantError`] for what goes wrong. The one place that knows both the model
//! (`variant.rs`) and its notation (`description.rs`).

use super::description::{DescriptionError, MAX_DESCRIPTION_BYTES};
use super::variant::Variant;
use std::path::Path;

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
    use crate::rules::{CaptureRules, Colour, DrawRules, Repetition, Start};

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
