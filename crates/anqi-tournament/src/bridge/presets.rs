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

/// The rules named by an `assumes` value: a preset, a shipped variant, or a description file.
///
/// # Errors
/// As [`Variant::load`] (which names the shipped variants; the presets are added to the text).
pub fn assumed(name: &str) -> Result<Variant, String> {
    if let Some((_, text)) = PRESETS.iter().find(|(n, _)| *n == name) {
        return Ok(Variant::parse(text).expect("presets are valid descriptions"));
    }
    Variant::load(name).map_err(|e| match e {
        VariantError::Unknown { .. } => format!(
            "{e}; engine presets: {}",
            PRESETS
                .iter()
                .map(|(n, _)| *n)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        e => e.to_string(),
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
        assert!(
            e.contains("misty-banqi") && e.contains("traditional"),
            "{e}"
        );
    }
}
