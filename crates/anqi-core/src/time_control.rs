//! Time controls as organizers write them for cutechess and fastchess: `60+0.5`, `40/60+0.6`,
//! `st=2`, `inf`. A text is read once, into the clock settings the server runs on
//! ([`ClockConfig`], every key set so that the variant's `(clock ...)` does not leak in).

use crate::settings::ClockConfig;
use serde::Deserialize;
use std::fmt;
use std::str::FromStr;

/// The forms a time control may take, for error messages.
pub const FORMS: &str = "60+0.5 (60 s per game, 0.5 s added after each move), \
40/60+0.6 (60 s for every 40 moves, plus 0.6 s per move), 40/60 or 60 (no increment), \
1:30+1 (minutes:seconds), st=2 (2 s per move, no game clock), inf (no clock at all)";

/// Longest time accepted anywhere in a time control, in seconds (about 31 years): beyond it,
/// sums of increments could overflow.
const MAX_SECONDS: f64 = 1e9;

/// A time control as written (`tc = "40/60+0.6"`) and the clock settings it stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tc {
    /// The text, trimmed, as the organizer wrote it.
    pub text: String,
    /// Every key set: 0 switches a limit off.
    pub clock: ClockConfig,
}

/// A time control that cannot be read: the text, what is wrong, and the accepted forms.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad time control {text:?}: {problem}; write one of {FORMS}")]
pub struct TcError {
    pub text: String,
    pub problem: String,
}

impl FromStr for Tc {
    type Err = TcError;

    fn from_str(text: &str) -> Result<Tc, TcError> {
        let fail = |problem: &str| TcError {
            text: text.to_string(),
            problem: problem.to_string(),
        };
        let trimmed = text.trim();
        // As pasted from a cutechess or fastchess command line (`tc=40/60+0.6`).
        let body = trimmed.strip_prefix("tc=").unwrap_or(trimmed);
        let mut clock = ClockConfig {
            game_ms: Some(0),
            move_ms: Some(0),
            increment_ms: Some(0),
            period_moves: Some(0),
        };
        if body.is_empty() {
            return Err(fail("it is empty"));
        }
        if body == "inf" || body == "infinite" {
            return Ok(Tc {
                text: trimmed.to_string(),
                clock,
            });
        }
        if let Some(per_move) = body.strip_prefix("st=") {
            let ms = milliseconds(per_move).map_err(|p| fail(&format!("st={per_move}: {p}")))?;
            if ms == 0 {
                return Err(fail("st=0 leaves no time to move"));
            }
            clock.move_ms = Some(ms);
            return Ok(Tc {
                text: trimmed.to_string(),
                clock,
            });
        }
        let (moves, rest) = match body.split_once('/') {
            Some((moves, rest)) => {
                let n: u32 = moves.parse().ok().filter(|&n| n > 0).ok_or_else(|| {
                    fail(&format!(
                        "{moves:?} before '/' is not a number of moves (1 or more)"
                    ))
                })?;
                (n, rest)
            }
            None => (0, body),
        };
        let (time, increment) = match rest.split_once('+') {
            Some((time, inc)) => (time, Some(inc)),
            None => (rest, None),
        };
        let game = match time.split_once(':') {
            Some((minutes, seconds)) => {
                let m: u64 = minutes.parse().map_err(|_| {
                    fail(&format!(
                        "{minutes:?} before ':' is not a number of minutes"
                    ))
                })?;
                let s = milliseconds(seconds)
                    .map_err(|p| fail(&format!("{seconds:?} after ':': {p}")))?;
                if s >= 60_000 {
                    return Err(fail(&format!(
                        "{seconds:?} after ':' is 60 seconds or more"
                    )));
                }
                m.checked_mul(60_000)
                    .and_then(|m| m.checked_add(s))
                    .filter(|&ms| ms as f64 <= MAX_SECONDS * 1000.0)
                    .ok_or_else(|| fail("the game time is too long"))?
            }
            None => milliseconds(time).map_err(|p| fail(&format!("{time:?}: {p}")))?,
        };
        if game == 0 {
            return Err(fail(
                "a game time of 0 leaves no time to move (inf is no clock)",
            ));
        }
        clock.game_ms = Some(game);
        clock.period_moves = Some(moves);
        if let Some(inc) = increment {
            clock.increment_ms =
                Some(milliseconds(inc).map_err(|p| fail(&format!("{inc:?} after '+': {p}")))?);
        }
        Ok(Tc {
            text: trimmed.to_string(),
            clock,
        })
    }
}

/// Seconds, written with digits and at most one decimal point (`2`, `0.5`, `.25`), in
/// milliseconds, rounded to the nearest.
fn milliseconds(text: &str) -> Result<u64, String> {
    let digits = !text.is_empty()
        && text != "."
        && text.chars().all(|c| c.is_ascii_digit() || c == '.')
        && text.matches('.').count() <= 1;
    if !digits {
        return Err("not a number of seconds (such as 2 or 0.5)".into());
    }
    let seconds: f64 = text
        .parse()
        .map_err(|_| "not a number of seconds (such as 2 or 0.5)".to_string())?;
    if seconds > MAX_SECONDS {
        return Err("too long".into());
    }
    Ok((seconds * 1000.0).round() as u64)
}

/// A resolved clock written as a time control is (`900+0`, `40/60+0.6`, `st=2`, `inf`), for
/// records: what an engine played with when no `tc` named it.
pub fn label(tc: &crate::settings::TimeControl) -> String {
    let secs = |d: std::time::Duration| {
        let s = d.as_secs_f64();
        if s.fract() == 0.0 {
            format!("{}", s as u64)
        } else {
            format!("{s}")
        }
    };
    let mut parts = Vec::new();
    if let Some(game) = tc.game {
        let period = if tc.period_moves > 0 {
            format!("{}/", tc.period_moves)
        } else {
            String::new()
        };
        parts.push(format!("{period}{}+{}", secs(game), secs(tc.increment)));
    }
    if let Some(m) = tc.per_move {
        parts.push(format!("st={}", secs(m)));
    }
    if parts.is_empty() {
        "inf".into()
    } else {
        parts.join(" ")
    }
}

impl fmt::Display for Tc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for Tc {
    /// From a string, so that a bad one is reported where it is in the file.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Tc, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(text: &str) -> (u64, u64, u64, u32) {
        let c = text.parse::<Tc>().unwrap().clock;
        (
            c.game_ms.unwrap(),
            c.move_ms.unwrap(),
            c.increment_ms.unwrap(),
            c.period_moves.unwrap(),
        )
    }

    #[test]
    fn the_forms_of_cutechess_and_fastchess() {
        assert_eq!(clock("60+0.5"), (60_000, 0, 500, 0));
        assert_eq!(clock("40/60+0.6"), (60_000, 0, 600, 40));
        assert_eq!(clock("40/60"), (60_000, 0, 0, 40));
        assert_eq!(clock("10"), (10_000, 0, 0, 0));
        assert_eq!(clock("1:30+1"), (90_000, 0, 1000, 0));
        assert_eq!(clock("40/2:00"), (120_000, 0, 0, 40));
        assert_eq!(clock("0.1+.05"), (100, 0, 50, 0));
        assert_eq!(clock("st=2"), (0, 2000, 0, 0));
        assert_eq!(clock("st=0.05"), (0, 50, 0, 0));
        assert_eq!(clock("inf"), (0, 0, 0, 0));
        assert_eq!(clock(" tc=8+0.08 "), (8000, 0, 80, 0));
        assert_eq!("tc=8+0.08".parse::<Tc>().unwrap().to_string(), "tc=8+0.08");
    }

    #[test]
    fn mistakes_name_the_text_and_show_the_accepted_forms() {
        for bad in [
            "",
            "60+",
            "+1",
            "abc",
            "0",
            "0+1",
            "st=0",
            "st=",
            "st=-1",
            "-5+1",
            "0/60",
            "x/60",
            "60+1+2",
            "1e3",
            "NaN",
            "inf+1",
            "60s",
            "1:75",
            "1::0",
            "2.5.1",
            "99999999999",
        ] {
            let e = bad.parse::<Tc>().unwrap_err();
            let text = e.to_string();
            assert!(text.contains(&format!("{bad:?}")), "{text}");
            assert!(
                text.contains("40/60+0.6") && text.contains("st=2"),
                "{text}"
            );
        }
        let e = "60+x".parse::<Tc>().unwrap_err();
        assert!(e.problem.contains("after '+'"), "{e}");
    }
}
