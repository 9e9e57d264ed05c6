//! The rule sets engines believe (`assumes = PRESET|VARIANT|FILE`): presets for the known
//! engine families, in `protocol/presets/` and built in, then any shipped variant, then a
//! description file.

use anqi_core::rules::{Variant, VariantError};

/// The presets, as (name, description text).
pub const PRESETS: &[(&str, &str)] = &[
    (
        "misty-banqi",
        include_str!("../../../../protocol/presets/misty-banqi.sexp"),
    ),
    (
        "ntu-engines",
        include_str!("../../../../protocol/presets/ntu-engines.sexp"),
    ),
];

/// Why an `assumes` value names no rules ([`assumed`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AssumedError {
    /// No preset, shipped variant or file has this name: [`VariantError::Unknown`], whose
    /// text names the shipped variants, and the presets after it.
    #[error("{0}; engine presets: {presets}", presets = preset_names())]
    Unknown(VariantError),
    /// A file of that name that cannot be read, or does not describe a variant.
    #[error(transparent)]
    Variant(VariantError),
}

/// The names of [`PRESETS`], comma-separated.
fn preset_names() -> String {
    PRESETS
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The rules named by an `assumes` value: a preset, a shipped variant, or a description file.
///
/// # Errors
/// As [`Variant::load`] (which names the shipped variants; the presets are added to the text).
pub fn assumed(name: &str) -> Result<Variant, AssumedError> {
    if let Some((_, text)) = PRESETS.iter().find(|(n, _)| *n == name) {
        return Ok(Variant::parse(text).expect("presets are valid descriptions"));
    }
    Variant::load(name).map_err(|e| match e {
        VariantError::Unknown { .. } => AssumedError::Unknown(e),
        e => AssumedError::Variant(e),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_parse_and_names_resolve_in_order() {
        for (name, _) in PRESETS {
            assert_eq!(&assumed(name).unwrap().name, name);
        }
        assert_eq!(assumed("misty-banqi").unwrap().draw.no_progress, Some(40));
        assert_eq!(assumed("ntu-engines").unwrap().draw.no_progress, Some(60));
        assert_eq!(assumed("openspiel").unwrap().draw.no_progress, Some(50));
        let e = assumed("stockfish").unwrap_err();
        assert!(matches!(e, AssumedError::Unknown(_)), "{e:?}");
        let e = e.to_string();
        assert!(
            e.ends_with("; engine presets: misty-banqi, ntu-engines") && e.contains("traditional"),
            "{e}"
        );
        let dir = std::env::temp_dir().join(format!("anqi-presets-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("bad.sexp");
        std::fs::write(&file, "(variant").unwrap();
        let e = assumed(file.to_str().unwrap()).unwrap_err();
        assert!(
            matches!(e, AssumedError::Variant(VariantError::Invalid { .. })),
            "{e:?}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
