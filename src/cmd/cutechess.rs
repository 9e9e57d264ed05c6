//! `anqi match -engine cmd=... -each tc=... -rounds N`: the cutechess-cli and fastchess command
//! line, read by `anqi_tournament::cutechess` and played as `anqi match` plays.
//!
//! Why `anqi match` and not a command of its own: an organizer's cutechess or fastchess line
//! then works with only the program's name changed, and `anqi match` is already the command
//! for "these two engines, this many games". clap cannot read single-dash long options
//! (`-engine` reads as `-e -n -g...`), so the line is recognised before clap sees it
//! ([`dialect`]): a single-dash word that names a dialect option. anqi's own `anqi match` has
//! no single-dash options (`-h` aside), so no line of its own form is taken for the dialect.

use anqi_tournament::cutechess::{self, Dialect, DialectEngine};
use anqi_tournament::quick_match::MatchRequest;
use anyhow::Result;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

/// The words after `anqi match` when the command line (the program's own `args_os`) is in the
/// cutechess dialect: `match`, then, anywhere before a `--`, a single-dash option that the
/// dialect knows (`-engine`, `-rounds`, `-draw`...).
pub fn dialect(args: impl IntoIterator<Item = OsString>) -> Option<Vec<OsString>> {
    let mut args = args.into_iter().skip(1);
    if args.next()? != "match" {
        return None;
    }
    let rest: Vec<OsString> = args.collect();
    let single_dash = |w: &&OsString| {
        w.to_str()
            .is_some_and(|w| !w.starts_with("--") && cutechess::option_name(w).is_some())
    };
    rest.iter()
        .take_while(|w| *w != "--")
        .any(|w| single_dash(&w))
        .then_some(rest)
}

/// Plays the match a dialect command line asks for (or prints `anqi match -help`).
pub fn run(words: Vec<OsString>) -> Result<ExitCode> {
    let words = words
        .into_iter()
        .map(|w| {
            w.into_string()
                .map_err(|w| anyhow::anyhow!("{w:?}: the cutechess dialect reads UTF-8 words only"))
        })
        .collect::<Result<Vec<String>>>()?;
    let d = cutechess::parse(&words)?;
    if d.help {
        print!("{}", cutechess::HELP);
        return Ok(ExitCode::SUCCESS);
    }
    // What was taken in anqi's way, said once (-quiet: nothing but the standings).
    if !d.quiet {
        for note in &d.notes {
            eprintln!("anqi: {note}");
        }
    }
    let Dialect {
        engines,
        sprt,
        output,
        quiet,
        ..
    } = d.clone();
    super::r#match::play(request(&d), output.map(PathBuf::from), quiet, |event| {
        for (config, given) in event.engines.iter_mut().zip(&engines) {
            set(config, given);
        }
        // Two engines given one name: the second is told apart, as `anqi match` does.
        if event.engines[0].name == event.engines[1].name {
            event.engines[1].name.push_str("-2");
        }
        event.sprt = sprt;
        Ok(())
    })
}

/// `anqi match`'s request for a dialect command line; what goes per engine is [`set`] on the
/// event.
fn request(d: &Dialect) -> MatchRequest {
    MatchRequest {
        engines: [d.engines[0].spec(), d.engines[1].spec()],
        games: d.games,
        variant: d.variant.clone().unwrap_or_else(|| "traditional".into()),
        seed: d.seed.clone(),
        // Each engine's own (`-each` gives both the same).
        tc: None,
        concurrency: d.concurrency.unwrap_or(1),
        output: PathBuf::new(),
        logs: d.logs.as_ref().map(PathBuf::from),
        standings_every: d.standings_every.unwrap_or(0),
        max_plies: d.max_plies.unwrap_or(0),
        score_draw: d.score_draw.clone().unwrap_or_default(),
        score_resign: d.score_resign.clone().unwrap_or_default(),
        book: d.book.clone(),
    }
}

/// An `-engine`'s own keys on its entry of the event.
fn set(config: &mut anqi_tournament::config::EngineConfig, given: &DialectEngine) {
    if let Some(name) = &given.name {
        config.name = name.clone();
    }
    config.dir = given.dir.clone();
    config.tc = given.tc.clone();
    config.assumes = given.assumes.clone();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &[&str]) -> Vec<OsString> {
        line.iter().map(OsString::from).collect()
    }

    #[test]
    fn the_dialect_is_told_by_a_single_dash_option_after_match() {
        let d = |l: &[&str]| dialect(words(l));
        assert_eq!(
            d(&["anqi", "match", "-engine", "cmd=random"]),
            Some(words(&["-engine", "cmd=random"]))
        );
        // Anywhere: an organizer who mixes the two forms gets the dialect's message.
        assert!(d(&["anqi", "match", "random", "greedy", "-games", "4"]).is_some());
        assert!(d(&["anqi", "match", "-help"]).is_some());
        // anqi's own form, its help, other commands, and words after `--` are not.
        assert_eq!(
            d(&["anqi", "match", "random", "greedy", "--games", "4"]),
            None
        );
        assert_eq!(d(&["anqi", "match", "-h"]), None);
        assert_eq!(d(&["anqi", "match", "--help"]), None);
        assert_eq!(d(&["anqi", "match", "a", "b", "--sprt", "-5,5"]), None);
        assert_eq!(d(&["anqi", "tournament", "-engine"]), None);
        assert_eq!(d(&["anqi", "match", "a", "b", "--", "-engine"]), None);
    }
}
