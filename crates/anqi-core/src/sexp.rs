//! Reading S-expressions from untrusted text without letting the text choose how deep the
//! program recurses.
//!
//! Protocol messages and variant descriptions are parsed with `lexpr`. Three of its behaviours
//! are unsafe on hostile input, so every parse in anqi goes through [`read`], whose lexical
//! [`check`] runs before `lexpr` sees a byte:
//!
//! - Its parser recurses without any bound on reader prefixes: `'x` is read as `(quote x)` by a
//!   recursive call, so a run of 10,000 quote characters overflows the stack and aborts the
//!   process. Neither the protocol nor the description format uses quote (`'`), quasiquote
//!   (`` ` ``) or unquote (`,` and `,@`): the check refuses them outside strings, comments and
//!   character literals, following `lexpr`'s own tokens so that nothing it reads as code (after
//!   the character literal `#\"`, say) is taken for a string.
//! - A parsed list is a chain of cons cells and dropping it recurses once per element, inside
//!   `lexpr` too when it gives up on a list after a syntax error: a list of 100,000 numbers
//!   overflows a 2 MiB thread stack. The check bounds the items of lists
//!   ([`Limits::max_items`]), and [`Sexp`] dismantles a parsed value with a loop when dropped.
//! - Its own nesting bound (128 levels) is not the caller's: the check applies
//!   [`Limits::max_depth`] and names it.
//!
//! Printing (`Display`), cloning and comparing parsed values recurse along lists too: code that
//! handles untrusted values shows them to people through [`shown`] and [`excerpt`], which cut
//! them short.

use lexpr::Value;
use std::fmt;

/// What [`read`] refuses, with the 1-based line it concerns when known.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SexpError {
    /// Reader syntax the formats do not use: quote, quasiquote, unquote, or a `"` or `#` inside
    /// a name or number.
    #[error("line {line}: {message}")]
    Unsupported { line: usize, message: String },
    /// Lists nested deeper than the caller allows.
    #[error("line {line}: lists nested deeper than {limit} levels")]
    TooDeep { limit: usize, line: usize },
    /// A list with more items than the caller allows.
    #[error("line {line}: a list has more than {limit} items, the limit")]
    TooManyItems { limit: usize, line: usize },
    /// Not a well-formed S-expression (the parser's own message, which names the line).
    #[error("{message}")]
    Syntax {
        message: String,
        line: Option<usize>,
    },
}

impl SexpError {
    /// The 1-based line the error concerns, when known.
    pub fn line(&self) -> Option<usize> {
        match self {
            SexpError::Unsupported { line, .. }
            | SexpError::TooDeep { line, .. }
            | SexpError::TooManyItems { line, .. } => Some(*line),
            SexpError::Syntax { line, .. } => *line,
        }
    }

    /// The problem without its line, for callers that show the line their own way.
    pub fn problem(&self) -> String {
        match self {
            SexpError::Unsupported { message, .. } | SexpError::Syntax { message, .. } => {
                message.clone()
            }
            SexpError::TooDeep { limit, .. } => format!("lists nested deeper than {limit} levels"),
            SexpError::TooManyItems { limit, .. } => {
                format!("a list has more than {limit} items, the limit")
            }
        }
    }
}

/// What [`read`] accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Deepest list nesting (at most [`MAX_DEPTH`]).
    pub max_depth: usize,
    /// Most items in a list, counting for a list inside another the items before it in the
    /// lists that hold it: the cons cells a recursive drop walks through, one stack frame each
    /// (about 64 bytes). At most [`MAX_ITEMS`].
    pub max_items: usize,
}

/// `lexpr`'s own nesting limit (it refuses the 128th level).
pub const MAX_DEPTH: usize = 127;

/// The most list items any caller may allow: `lexpr` frees a list it could not finish one stack
/// frame per item, and this keeps that under 1.3 MiB, within even a 2 MiB thread stack. The
/// longest valid lists (a board's 16,384 moves or jumps) stay under it.
pub const MAX_ITEMS: usize = 20_000;

/// A parsed S-expression that is dropped without recursion along its lists.
pub struct Sexp(Option<Value>);

impl Sexp {
    /// The parsed value.
    pub fn value(&self) -> &Value {
        self.0.as_ref().expect("present until dropped")
    }
}

impl std::ops::Deref for Sexp {
    type Target = Value;

    fn deref(&self) -> &Value {
        self.value()
    }
}

impl fmt::Debug for Sexp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&shown(self.value()))
    }
}

impl Drop for Sexp {
    fn drop(&mut self) {
        if let Some(v) = self.0.take() {
            dispose(v);
        }
    }
}

/// Drops a value with an explicit stack instead of recursion.
fn dispose(root: Value) {
    let mut stack = vec![root];
    while let Some(v) = stack.pop() {
        match v {
            Value::Cons(cell) => {
                let (car, cdr) = cell.into_pair();
                stack.push(cdr);
                stack.push(car);
            }
            Value::Vector(items) => stack.extend(items.into_vec()),
            // Atoms hold no values: their drop does not recurse.
            _ => {}
        }
    }
}

/// Parses exactly one S-expression from `text`, after [`check`]ing it.
///
/// # Errors
/// [`SexpError`] with the line of the first problem.
pub fn read(text: &str, limits: Limits) -> Result<Sexp, SexpError> {
    check(text.as_bytes(), limits)?;
    lexpr::from_str(text)
        .map(|v| Sexp(Some(v)))
        .map_err(|e| SexpError::Syntax {
            message: e.to_string(),
            line: e.location().map(|l| l.line()),
        })
}

/// The lexical check of [`read`]: one pass over the bytes, memory in the nesting depth.
///
/// It follows `lexpr`'s tokens closely enough that it never takes for a string or a comment
/// what `lexpr` reads as code: a token starts after whitespace, a parenthesis or a bracket, or
/// right after a string; `"` opens a string only at the start of a token, `;` a comment
/// anywhere outside a string or a `#\` character. Inside a token, `"` is refused, and so is
/// `#` unless the token starts like a name (a number may end early, and a `#` after it could
/// start a character literal), along with the prefixes.
///
/// # Errors
/// The first reader prefix, `"` inside a token, `#` inside a number, or list over a limit.
pub fn check(b: &[u8], limits: Limits) -> Result<(), SexpError> {
    let max_depth = limits.max_depth.min(MAX_DEPTH);
    let max_items = limits.max_items.min(MAX_ITEMS);
    let mut line = 1;
    // For each open list: the items a recursive drop walks through before its first item, and
    // its items so far.
    let mut open: Vec<(usize, usize)> = Vec::new();
    let item = |open: &mut Vec<(usize, usize)>, line: usize| -> Result<usize, SexpError> {
        let Some((before, items)) = open.last_mut() else {
            return Ok(0);
        };
        *items += 1;
        let walked = *before + *items;
        if walked > max_items {
            return Err(SexpError::TooManyItems {
                limit: max_items,
                line,
            });
        }
        Ok(walked)
    };
    let is_space = |c: u8| matches!(c, b' ' | b'\n' | b'\t' | b'\r' | 0x0C);
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\n' => {
                line += 1;
                i += 1;
            }
            c if is_space(c) => i += 1,
            b';' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'(' | b'[' => {
                if open.len() == max_depth {
                    return Err(SexpError::TooDeep {
                        limit: max_depth,
                        line,
                    });
                }
                let walked = item(&mut open, line)?;
                open.push((walked, 0));
                i += 1;
            }
            b')' | b']' => {
                open.pop();
                i += 1;
            }
            b'"' => {
                item(&mut open, line)?;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    if i < b.len() && b[i] == b'\n' {
                        line += 1;
                    }
                    i += 1;
                }
                i += 1;
            }
            b'\'' | b'`' | b',' => {
                return Err(SexpError::Unsupported {
                    line,
                    message: "quote, quasiquote and unquote (' ` ,) are not part of this format: write plain lists, names, numbers and strings".into(),
                })
            }
            first => {
                item(&mut open, line)?;
                // A token that starts like a name is read to its end as one symbol, `#`
                // included (`bot#1`); one that starts like a number may end early, and a `#`
                // in it could start a character literal (`1#\"`).
                let name = first.is_ascii_alphabetic() || b"!$%&*/:<=>?^_~".contains(&first);
                // `#\` reads the next character whatever it is (`#\;`, `#\"`, `#\(`).
                i += if first == b'#' && b.get(i + 1) == Some(&b'\\') {
                    3
                } else {
                    1
                };
                while i < b.len() && !is_space(b[i]) && !b"()[];".contains(&b[i]) {
                    if b"'`,\"".contains(&b[i]) || (b[i] == b'#' && !name) {
                        return Err(SexpError::Unsupported {
                            line,
                            message: format!(
                                "{:?} inside a name or number; write text in double quotes",
                                char::from(b[i])
                            ),
                        });
                    }
                    i += 1;
                }
            }
        }
    }
    Ok(())
}

/// At most this many characters of untrusted text are shown in an error or a log line.
pub const EXCERPT_CHARS: usize = 40;

/// A parsed value as text, cut like [`excerpt`]; printing stops at the cut, so a huge value
/// costs no more than a small one.
pub fn shown(value: &Value) -> String {
    /// Keeps the first characters written to it, then refuses the rest.
    struct Cut {
        out: String,
        chars: usize,
        cut: bool,
    }
    impl fmt::Write for Cut {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            for c in s.chars() {
                if self.chars == EXCERPT_CHARS {
                    self.cut = true;
                    return Err(fmt::Error);
                }
                self.out.push(c);
                self.chars += 1;
            }
            Ok(())
        }
    }
    let mut w = Cut {
        out: String::new(),
        chars: 0,
        cut: false,
    };
    let _ = fmt::write(&mut w, format_args!("{value}"));
    if w.cut {
        w.out.push_str("...");
    }
    w.out
}

/// Untrusted text cut to [`EXCERPT_CHARS`] characters (`...` marks the cut), for error replies
/// and logs: a client's own text is never echoed back at full length.
pub fn excerpt(text: &str) -> String {
    match text.char_indices().nth(EXCERPT_CHARS) {
        None => text.to_string(),
        Some((cut, _)) => format!("{}...", &text[..cut]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WIRE: Limits = Limits {
        max_depth: 8,
        max_items: MAX_ITEMS,
    };

    fn refused(text: &str) -> bool {
        matches!(read(text, WIRE), Err(SexpError::Unsupported { .. }))
    }

    #[test]
    fn quote_runs_are_refused_before_parsing() {
        let text = format!("((init a {}1))", "'".repeat(100_000));
        assert_eq!(read(&text, WIRE).unwrap_err().line(), Some(1));
        assert!(refused(&text));
        for bad in ["(a `b)", "(a ,b)", "(a ,@b)", "(a\n\n 'b)"] {
            assert!(refused(bad), "{bad}");
        }
        assert_eq!(read("(a\n\n 'b)", WIRE).unwrap_err().line(), Some(3));
    }

    #[test]
    fn a_character_literal_does_not_hide_code_from_the_check() {
        // `#\"` is the character `"` for lexpr, not the start of a string: the quotes after it
        // are code, and refused.
        let text = format!(r#"((init #\" {}x "))"#, "'".repeat(10_000));
        assert!(refused(&text));
        // A `"` or `#` inside a name could end a number early and start something else.
        assert!(refused(r#"(a 12"b 'x")"#));
        assert!(refused(&format!(r#"(a 1#\" {}x ")"#, "'".repeat(100))));
        // In a name, `#` is a character of the name.
        assert_eq!(
            read("(init bot#1 x)", WIRE).unwrap().to_ref_vec().unwrap()[1].as_symbol(),
            Some("bot#1")
        );
    }

    #[test]
    fn prefixes_inside_strings_and_comments_are_text() {
        let v = read("(init \"it's, `fine`\" 1) ; don't", WIRE).unwrap();
        assert_eq!(v.to_ref_vec().unwrap()[1].as_str(), Some("it's, `fine`"));
        let v = read("(a ; it's a comment\n b)", WIRE).unwrap();
        assert_eq!(v.to_ref_vec().unwrap().len(), 2);
    }

    #[test]
    fn nesting_is_bounded_for_parentheses_and_brackets() {
        let four = Limits {
            max_depth: 4,
            max_items: 100,
        };
        assert!(read("((((x))))", four).is_ok());
        assert!(matches!(
            read("(((((x)))))", four),
            Err(SexpError::TooDeep { limit: 4, .. })
        ));
        assert!(matches!(
            read("([[[[x]]]])", four),
            Err(SexpError::TooDeep { limit: 4, .. })
        ));
    }

    #[test]
    fn list_items_are_bounded_even_before_a_syntax_error() {
        // lexpr would free the unfinished list recursively on its error: refused before.
        let text = format!("({} #", "1 ".repeat(MAX_ITEMS + 1));
        assert!(matches!(
            read(&text, WIRE),
            Err(SexpError::TooManyItems { .. })
        ));
        let inner = format!("(a b c ({}))", "1 ".repeat(MAX_ITEMS - 2));
        assert!(matches!(
            read(&inner, WIRE),
            Err(SexpError::TooManyItems { .. })
        ));
    }

    #[test]
    fn long_lists_are_dropped_without_deep_recursion() {
        // The most items allowed: dropping lexpr's cons chain recursively needs more than the
        // 256 KiB stack this thread gets.
        let text = format!("({})", "1 ".repeat(MAX_ITEMS - 1));
        std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || {
                let v = read(&text, WIRE).unwrap();
                assert!(v.is_list());
                drop(v);
            })
            .unwrap()
            .join()
            .expect("no stack overflow");
    }

    #[test]
    fn shown_values_are_cut_without_printing_them_whole() {
        let v = read(&format!("({})", "abc ".repeat(10_000)), WIRE).unwrap();
        let s = shown(&v);
        assert!(s.starts_with("(abc abc"), "{s}");
        assert_eq!(s.chars().count(), EXCERPT_CHARS + 3);
        assert_eq!(shown(&read("(a b)", WIRE).unwrap()), "(a b)");
    }

    #[test]
    fn excerpts_are_cut_on_character_boundaries() {
        assert_eq!(excerpt("short"), "short");
        let long = "é".repeat(100);
        let cut = excerpt(&long);
        assert_eq!(cut.chars().count(), EXCERPT_CHARS + 3);
        assert!(cut.ends_with("..."));
    }
}
