//! What the NAME of `(init NAME SEED)` may hold.
//!
//! A name goes into every record, log line, standings table and text export of a game, most of
//! them one line per player or per result. A name holding a line break would forge lines there
//! (a second `result:` line in a game's moves.txt, say), and one holding a bidirectional text
//! control would show the text after it reordered. So the handshake refuses, besides names
//! longer than [`MAX_NAME_CHARS`]:
//!
//! - control characters (Unicode's `Cc`: U+0000 to U+001F and U+007F to U+009F, which hold
//!   the line feed, the carriage return, the tab and NEL, U+0085);
//! - the line and paragraph separators U+2028 and U+2029 (some readers break lines there:
//!   JavaScript, Python's `splitlines`);
//! - the bidirectional text controls (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to
//!   U+2069), which reorder what is shown after them;
//! - invisible formatting characters that can hide or join text unseen: U+180E, U+200B, U+2060
//!   to U+2064, U+206A to U+206F, U+FEFF and U+FFF9 to U+FFFB.
//!
//! Everything else is allowed: spaces, letters and signs of every script, emoji. The zero-width
//! joiner and non-joiner (U+200D, U+200C) stay allowed: Persian and Indic names and emoji
//! sequences need them, and they break nothing.

/// The longest NAME of `(init NAME SEED)`, in characters: names go into every record, log line
/// and standings table.
pub const MAX_NAME_CHARS: usize = 64;

/// Why a NAME is refused; the text is the error reply's (`((error syntax "..."))`), without an
/// excerpt of the name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// Longer than [`MAX_NAME_CHARS`] characters (how many it has).
    #[error("a NAME has at most {MAX_NAME_CHARS} characters, not {0}")]
    TooLong(usize),
    /// A character that breaks line-based records and exports, or hides text; `at` counts
    /// characters from 1.
    #[error(
        "a NAME may not hold U+{:04X} ({}), found at character {at}: names are written into line-based records and exports; send one of printable characters",
        u32::from(*ch),
        unfit(*ch).unwrap_or("a character not allowed")
    )]
    Unfit { ch: char, at: usize },
}

/// Whether `name` may be a player's NAME.
///
/// # Errors
/// The first reason it may not: too long, or a character [`unfit`] for a name.
pub fn check_name(name: &str) -> Result<(), NameError> {
    let mut count = 0;
    for (i, ch) in name.chars().enumerate() {
        if unfit(ch).is_some() {
            return Err(NameError::Unfit { ch, at: i + 1 });
        }
        count += 1;
    }
    if count > MAX_NAME_CHARS {
        return Err(NameError::TooLong(count));
    }
    Ok(())
}

/// What `ch` is when a name may not hold it (see the module's list), or `None` when it may.
pub fn unfit(ch: char) -> Option<&'static str> {
    match ch {
        '\n' | '\r' | '\u{0B}' | '\u{0C}' | '\u{85}' | '\u{2028}' | '\u{2029}' => {
            Some("a line break")
        }
        c if c.is_control() => Some("a control character"),
        '\u{061C}'
        | '\u{200E}'
        | '\u{200F}'
        | '\u{202A}'..='\u{202E}'
        | '\u{2066}'..='\u{2069}' => Some("a bidirectional text control"),
        '\u{180E}'
        | '\u{200B}'
        | '\u{2060}'..='\u{2064}'
        | '\u{206A}'..='\u{206F}'
        | '\u{FEFF}'
        | '\u{FFF9}'..='\u{FFFB}' => Some("an invisible formatting character"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printable_names_of_any_script_pass() {
        for name in [
            "rand_player",
            "my bot",
            "張三",
            "bot#1",
            "\u{1F600}",
            "\u{645}\u{200C}\u{6CC}",
            "a\u{00A0}b",
            "",
        ] {
            assert_eq!(check_name(name), Ok(()), "{name:?}");
        }
        assert_eq!(check_name(&"x".repeat(MAX_NAME_CHARS)), Ok(()));
    }

    #[test]
    fn line_breaks_controls_and_hidden_text_are_named_with_their_place() {
        let cases = [
            ("a\nresult: 1-0", '\n', 2, "a line break"),
            ("ab\r", '\r', 3, "a line break"),
            ("\u{85}", '\u{85}', 1, "a line break"),
            ("x\u{2028}y", '\u{2028}', 2, "a line break"),
            ("x\u{2029}", '\u{2029}', 2, "a line break"),
            ("tab\there", '\t', 4, "a control character"),
            ("nul\0", '\0', 4, "a control character"),
            ("del\u{7F}", '\u{7F}', 4, "a control character"),
            ("\u{9B}", '\u{9B}', 1, "a control character"),
            (
                "evil\u{202E}txt",
                '\u{202E}',
                5,
                "a bidirectional text control",
            ),
            ("\u{2067}a", '\u{2067}', 1, "a bidirectional text control"),
            ("a\u{200F}", '\u{200F}', 2, "a bidirectional text control"),
            (
                "al\u{200B}ice",
                '\u{200B}',
                3,
                "an invisible formatting character",
            ),
            (
                "\u{FEFF}bom",
                '\u{FEFF}',
                1,
                "an invisible formatting character",
            ),
        ];
        for (name, ch, at, what) in cases {
            assert_eq!(
                check_name(name),
                Err(NameError::Unfit { ch, at }),
                "{name:?}"
            );
            assert_eq!(unfit(ch), Some(what), "{ch:?}");
        }
        let text = check_name("a\nb").unwrap_err().to_string();
        assert!(
            text.starts_with("a NAME may not hold U+000A (a line break), found at character 2"),
            "{text}"
        );
        assert!(
            !text.contains('\n'),
            "the reply does not echo the character"
        );
    }

    #[test]
    fn long_names_are_counted_in_characters() {
        let long = "é".repeat(MAX_NAME_CHARS + 1);
        assert_eq!(
            check_name(&long),
            Err(NameError::TooLong(MAX_NAME_CHARS + 1))
        );
        assert_eq!(
            NameError::TooLong(80).to_string(),
            "a NAME has at most 64 characters, not 80"
        );
    }
}
