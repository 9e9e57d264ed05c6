//! Reading S-expressions from untrusted text without letting the text choose how deep the
//! program recurses.
//!
//! Protocol messages and variant descriptions are parsed with `lexpr`. Two of its behaviours
//! are unsafe on hostile input, so every parse in anqi goes through [`read`]:
//!
//! - Its parser bounds the nesting of lists and vectors (128 levels) but recurses without any
//!   bound on reader prefixes: `'x` is read as `(quote x)` by a recursive call, so a run of
//!   10,000 quote characters overflows the stack and aborts the process. Neither the protocol
//!   nor the description format uses quote (`'`), quasiquote (`` ` ``) or unquote (`,` and
//!   `,@`), so [`read`] refuses them, outside strings and comments, before the parser sees a
//!   byte. It also bounds the nesting of lists itself, with the caller's limit, so the error
//!   names the limit a user can act on.
//! - A parsed list is a chain of cons cells and dropping it recurses once per element: a list
//!   of 100,000 numbers overflows a 2 MiB thread stack when it is dropped. [`Sexp`] owns the
//!   parsed value and dismantles it with a loop when it is dropped.
//!
//! Printing (`Display`), cloning and comparing parsed values recurse along lists too: code that
//! handles untrusted values uses them only on values it has bounded (a clause, an atom), and
//! shows untrusted text to people through [`excerpt`].

use lexpr::Value;
use std::fmt;

/// What [`read`] refuses, with where it is (1-based line and column).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SexpError {
    /// A quote, quasiquote or unquote prefix.
    #[error("line {line}, column {column}: {} is not part of this format: write plain lists, names, numbers and strings", prefix_name(*.prefix))]
    ReaderPrefix {
        prefix: char,
        line: usize,
        column: usize,
    },
    /// Lists nested deeper than the caller allows.
    #[error("line {line}, column {column}: lists nested deeper than {limit} levels")]
    TooDeep {
        limit: usize,
        line: usize,
        column: usize,
    },
    /// Not a well-formed S-expression (the parser's own message).
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
            SexpError::ReaderPrefix { line, .. } | SexpError::TooDeep { line, .. } => Some(*line),
            SexpError::Syntax { line, .. } => *line,
        }
    }
}

fn prefix_name(c: char) -> &'static str {
    match c {
        '\'' => "' (quote)",
        '`' => "` (quasiquote)",
        _ => ", (unquote)",
    }
}

/// A parsed S-expression that is dropped without recursion along its lists.
pub struct Sexp(Option<Value>);

impl std::ops::Deref for Sexp {
    type Target = Value;

    fn deref(&self) -> &Value {
        self.0.as_ref().expect("present until dropped")
    }
}

impl fmt::Debug for Sexp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&excerpt(&self.to_string()))
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
                stack.push(car);
                stack.push(cdr);
            }
            Value::Vector(items) => stack.extend(items.into_vec()),
            // Atoms hold no values: their drop does not recurse.
            _ => {}
        }
    }
}

/// Parses exactly one S-expression from `text`, refusing reader prefixes and lists nested
/// deeper than `max_depth`, before the parser runs.
///
/// # Errors
/// [`SexpError`] with the line and column of the first problem.
pub fn read(text: &str, max_depth: usize) -> Result<Sexp, SexpError> {
    check(text.as_bytes(), max_depth)?;
    lexpr::from_str(text)
        .map(|v| Sexp(Some(v)))
        .map_err(|e| SexpError::Syntax {
            message: e.to_string(),
            line: e.location().map(|l| l.line()),
        })
}

/// The lexical check of [`read`]: one pass, constant memory.
fn check(bytes: &[u8], max_depth: usize) -> Result<(), SexpError> {
    let (mut line, mut column) = (1usize, 0usize);
    let mut depth = 0usize;
    let (mut in_string, mut escape, mut in_comment) = (false, false, false);
    for &b in bytes {
        if b == b'\n' {
            line += 1;
            column = 0;
        } else {
            column += 1;
        }
        if in_comment {
            in_comment = b != b'\n';
            continue;
        }
        if in_string {
            if escape {
                escape = false;
            } else if b == b'\\' {
                escape = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b';' => in_comment = true,
            b'\'' | b'`' | b',' => {
                return Err(SexpError::ReaderPrefix {
                    prefix: b as char,
                    line,
                    column,
                })
            }
            // `[` opens a list for lexpr too. A character literal such as `#\(` is counted as
            // well: counting too much is safe, and lexpr's own bound covers the rest.
            b'(' | b'[' => {
                depth += 1;
                if depth > max_depth {
                    return Err(SexpError::TooDeep {
                        limit: max_depth,
                        line,
                        column,
                    });
                }
            }
            b')' | b']' => depth = depth.saturating_sub(1),
            _ => {}
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

    #[test]
    fn quote_runs_are_refused_before_parsing() {
        let text = format!("((init a {}1))", "'".repeat(100_000));
        let e = read(&text, 8).unwrap_err();
        assert!(
            matches!(
                e,
                SexpError::ReaderPrefix {
                    prefix: '\'',
                    line: 1,
                    column: 10
                }
            ),
            "{e}"
        );
        for bad in ["(a `b)", "(a ,b)", "(a ,@b)"] {
            assert!(
                matches!(read(bad, 8), Err(SexpError::ReaderPrefix { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn prefixes_inside_strings_and_comments_are_text() {
        let v = read("(init \"it's, `fine`\" 1) ; don't", 8).unwrap();
        assert_eq!(v.to_ref_vec().unwrap()[1].as_str(), Some("it's, `fine`"));
        let v = read("(a ; it's a comment\n b)", 8).unwrap();
        assert_eq!(v.to_ref_vec().unwrap().len(), 2);
    }

    #[test]
    fn nesting_is_bounded_for_parentheses_and_brackets() {
        assert!(read("((((x))))", 4).is_ok());
        assert!(matches!(
            read("(((((x)))))", 4),
            Err(SexpError::TooDeep { limit: 4, .. })
        ));
        assert!(matches!(
            read("([[[[x]]]])", 4),
            Err(SexpError::TooDeep { limit: 4, .. })
        ));
    }

    #[test]
    fn long_lists_are_dropped_without_deep_recursion() {
        // A million elements: dropping lexpr's cons chain recursively needs far more than the
        // 256 KiB stack this thread gets.
        let text = format!("({})", "1 ".repeat(1_000_000));
        std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || {
                let v = read(&text, 8).unwrap();
                assert!(v.is_list());
                drop(v);
            })
            .unwrap()
            .join()
            .expect("no stack overflow");
    }

    #[test]
    fn shown_values_are_cut_without_printing_them_whole() {
        let v = read(&format!("({})", "abc ".repeat(100_000)), 8).unwrap();
        let s = shown(&v);
        assert!(s.starts_with("(abc abc"), "{s}");
        assert_eq!(s.chars().count(), EXCERPT_CHARS + 3);
        assert_eq!(shown(&read("(a b)", 8).unwrap()), "(a b)");
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
