//! `anqi match A B`: a two-engine event from the command line, without a file. The engines are
//! reference bot names or command lines; the event is an ordinary [`TournamentConfig`], built
//! here and run by the same runner as `anqi tournament`.

use super::config::{EngineConfig, EngineLogs, Format, TournamentConfig};
use super::time_control::Tc;
use anqi_core::rules::{Variant, VariantError};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Why a match cannot be built from its command line ([`config`], [`Bots::beside_this_binary`]),
/// each said so that the user can fix the command line.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// The running binary's own path cannot be known (so neither can anqi-bot's).
    #[error("cannot find the anqi binary's own path: {source}")]
    OwnPath { source: std::io::Error },
    /// The variant cannot be had.
    #[error(transparent)]
    Variant(VariantError),
    /// `--games` is not a positive multiple of the games each deal is played in.
    #[error("--games {games}: each deal is played {how} ({per_deal} games on {variant}), so give a multiple of {per_deal}, such as {}", (games / per_deal).max(1) * per_deal)]
    Games {
        games: u32,
        /// How each deal is played: `once per seat arrangement`, ...
        how: &'static str,
        per_deal: u32,
        variant: String,
    },
    /// A directory of the scratch files cannot be created.
    #[error("cannot create {}: {source}", path.display())]
    Create {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A scratch file (the variant's description, the Python bot) cannot be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A reference bot played by anqi-bot, which is not beside anqi (looked for at `path`).
    #[error("the reference bot {strategy:?} is anqi-bot, which is not beside anqi (looked for {}): build it with `cargo build --release --workspace`, or give a command line", path.display())]
    NoAnqiBot { strategy: String, path: PathBuf },
    /// An engine's command line cannot be split into words.
    #[error("engine {spec:?}: {error}")]
    Split { spec: String, error: SplitError },
    /// An engine's command line holds no word.
    #[error("engine {spec:?}: the command is empty")]
    EmptyCommand { spec: String },
    /// An engine of anqi's protocol whose command does not say where it connects.
    #[error("engine {spec:?} is neither a reference bot ({}) nor a command that can find the match's server: put {{addr}} (HOST:PORT) or {{port}} where the engine takes the address, e.g. \"./my-bot --connect {{addr}}\"", reference_bot_names())]
    NoAddress { spec: String },
}

/// Why a command line cannot be split into words as a shell would.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SplitError {
    #[error("a single quote (') is not closed")]
    SingleQuote,
    #[error("a double quote (\") is not closed")]
    DoubleQuote,
    #[error("a backslash ends the command")]
    FinalBackslash,
}

/// The names of [`REFERENCE_BOTS`], comma-separated.
fn reference_bot_names() -> String {
    let names: Vec<&str> = REFERENCE_BOTS.iter().map(|(n, _)| *n).collect();
    names.join(", ")
}

/// The reference bots a match knows by name, and what each is.
pub const REFERENCE_BOTS: [(&str, &str); 4] = [
    (
        "random",
        "anqi-bot --strategy random (beside the anqi binary)",
    ),
    ("greedy", "anqi-bot --strategy greedy"),
    ("search", "anqi-bot --strategy search"),
    (
        "python-random",
        "the Python random bot (clients/python, built into anqi; needs python3)",
    ),
];

macro_rules! python_bot {
    ($($path:literal),* $(,)?) => {
        &[$(($path, include_str!(concat!("../../../clients/python/", $path)))),*]
    };
}

/// The Python reference bot, carried inside the binary so that `python-random` works wherever
/// `anqi` is copied (it uses the standard library only): the script and the package beside it,
/// as (path in the scratch directory, text).
const PYTHON_BOT: &[(&str, &str)] = python_bot![
    "anqi_random_bot.py",
    "stdlib_client/__init__.py",
    "stdlib_client/sexp.py",
    "stdlib_client/framing.py",
    "stdlib_client/topology.py",
    "stdlib_client/messages.py",
    "stdlib_client/rules.py",
    "stdlib_client/variant.py",
    "stdlib_client/colours.py",
    "stdlib_client/strategy.py",
    "stdlib_client/client.py",
];

/// What `anqi match` was asked for.
#[derive(Clone, Debug)]
pub struct MatchRequest {
    /// The two engines, as given: a reference bot name, or a command line (`NAME=COMMAND` to
    /// name it).
    pub engines: [String; 2],
    /// Games in all: each deal is played once per seat arrangement (twice, seats swapped), or
    /// in a single-player variant once by each engine.
    pub games: u32,
    pub variant: String,
    /// A fixed master seed; `None`: a random one, kept beside the records (`OUTPUT.seed`).
    pub seed: Option<String>,
    pub tc: Option<Tc>,
    pub concurrency: u32,
    /// Records file; the caller picks a scratch file when the user gave none.
    pub output: PathBuf,
    /// Engine logs directory (one file per engine), or none.
    pub logs: Option<PathBuf>,
    pub standings_every: u32,
    /// Draw a game still going after this many plies (0: only the variant's rules end games).
    pub max_plies: u32,
    /// Adjudication by the engines' scores, in cutechess's words (`-draw`, `-resign`); ""
    /// for none.
    pub score_draw: String,
    pub score_resign: String,
    /// The deal book to play (`--book`, `-openings`), instead of dealing from the master seed.
    pub book: Option<super::config::BookConfig>,
}

/// Where the match finds the reference bots.
#[derive(Clone, Debug)]
pub struct Bots {
    /// `anqi-bot`, beside the running `anqi`.
    pub anqi_bot: PathBuf,
    /// A scratch directory where the Python bot and the variant's description are written.
    pub scratch: PathBuf,
}

impl Bots {
    /// The reference bots of the running binary, with `scratch` for the files the match writes.
    ///
    /// # Errors
    /// When the running binary's path cannot be known.
    pub fn beside_this_binary(scratch: PathBuf) -> Result<Bots, MatchError> {
        let exe = std::env::current_exe().map_err(|source| MatchError::OwnPath { source })?;
        let dir = exe.parent().unwrap_or(Path::new("."));
        Ok(Bots {
            anqi_bot: dir.join("anqi-bot"),
            scratch,
        })
    }
}

/// Builds the event of a match.
///
/// # Errors
/// An unknown variant, a number of games the seats do not divide, an engine command that
/// cannot be split or cannot find the server, a missing reference bot; each said so that the
/// user can fix the command line.
pub fn config(request: &MatchRequest, bots: &Bots) -> Result<TournamentConfig, MatchError> {
    let variant = Variant::load(&request.variant).map_err(MatchError::Variant)?;
    // Games per deal: one per seat arrangement; in a single-player game, one per engine (each
    // plays the deal alone).
    let (per_deal, why) = if variant.players == 1 {
        (2, "once by each engine")
    } else if variant.players > 2 && variant.sides.len() == 2 {
        // Each engine fields a side (every seat of it); the sides swap on each deal.
        (
            2,
            "twice, each engine fielding a whole side, the sides swapped",
        )
    } else {
        (variant.players as u32, "once per seat arrangement")
    };
    if request.games == 0 || request.games % per_deal != 0 {
        return Err(MatchError::Games {
            games: request.games,
            how: why,
            per_deal,
            variant: variant.name.clone(),
        });
    }
    // The bots are told the exact rules: a file, since the Python bot carried in the binary
    // has no shipped descriptions beside it.
    create_dir(&bots.scratch)?;
    let rules = bots.scratch.join("variant.sexp");
    write_file(&rules, &variant.source)?;
    let mut engines = Vec::new();
    for spec in &request.engines {
        let mut engine = engine(spec, bots, &rules)?;
        if engines.iter().any(|e: &EngineConfig| e.name == engine.name) {
            engine.name.push_str("-2");
        }
        engines.push(engine);
    }
    let logs = request.logs.clone();
    Ok(TournamentConfig {
        variant: request.variant.clone(),
        format: Format::RoundRobin,
        cycles: 1,
        deals: request.games / per_deal,
        gauntlet: None,
        seed: request.seed.clone(),
        seed_file: None,
        book: request.book.clone(),
        listen: "127.0.0.1:0".into(),
        concurrency: request.concurrency,
        output: request.output.display().to_string(),
        logs: logs
            .as_ref()
            .map_or(String::new(), |l| l.display().to_string()),
        engine_logs: if logs.is_some() {
            EngineLogs::Engine
        } else {
            EngineLogs::Off
        },
        engine_log_bytes: super::config::default_engine_log_bytes(),
        connect_timeout_ms: 10_000,
        max_plies: request.max_plies,
        adjudicate: Default::default(),
        tables: None,
        score_draw: request.score_draw.clone(),
        score_resign: request.score_resign.clone(),
        rejoin_grace_ms: 0,
        tc: request.tc.clone(),
        clock: None,
        standings_every: request.standings_every,
        sprt: None,
        ray: None,
        legal_counts: Default::default(),
        each: None,
        engines,
    })
}

/// `std::fs::create_dir_all`, its error naming the directory.
fn create_dir(path: &Path) -> Result<(), MatchError> {
    std::fs::create_dir_all(path).map_err(|source| MatchError::Create {
        path: path.to_path_buf(),
        source,
    })
}

/// `std::fs::write`, its error naming the file.
fn write_file(path: &Path, text: &str) -> Result<(), MatchError> {
    std::fs::write(path, text).map_err(|source| MatchError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// One engine of a match: a reference bot by name, or a command line.
fn engine(spec: &str, bots: &Bots, rules: &Path) -> Result<EngineConfig, MatchError> {
    let (name, command) = match spec.split_once('=') {
        Some((name, command)) if is_name(name) => (Some(name.to_string()), command),
        _ => (None, spec),
    };
    let rules = rules.display().to_string();
    let mut engine = match command.trim() {
        strategy @ ("random" | "greedy" | "search") => anqi_bot(strategy, bots, &rules)?,
        "python-random" => python_random(bots, &rules)?,
        _ => from_command(spec, command)?,
    };
    if let Some(name) = name {
        engine.name = name;
    }
    Ok(engine)
}

/// An engine with nothing set but the defaults.
fn bare() -> EngineConfig {
    EngineConfig {
        name: String::new(),
        command: None,
        args: Vec::new(),
        env: BTreeMap::new(),
        dir: None,
        token: None,
        protocol: Default::default(),
        assumes: None,
        optional_commands: true,
        tc: None,
    }
}

fn words(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// The reference bot `strategy` (`random`, `greedy`, `search`): anqi-bot, beside anqi.
fn anqi_bot(strategy: &str, bots: &Bots, rules: &str) -> Result<EngineConfig, MatchError> {
    if !bots.anqi_bot.is_file() {
        return Err(MatchError::NoAnqiBot {
            strategy: strategy.to_string(),
            path: bots.anqi_bot.clone(),
        });
    }
    Ok(EngineConfig {
        name: strategy.to_string(),
        command: Some(bots.anqi_bot.display().to_string()),
        args: words(
            &[
                "--connect",
                "{addr}",
                "--strategy",
                strategy,
                "--seed",
                "{seed}",
                "--name",
                "{name}",
                "--variant",
                rules,
            ][..]
                .iter()
                .copied()
                // The search says what it found with each move: the records keep it.
                .chain((strategy == "search").then_some("--comment"))
                .collect::<Vec<_>>(),
        ),
        ..bare()
    })
}

/// The Python random bot, written out of the binary into the scratch directory.
fn python_random(bots: &Bots, rules: &str) -> Result<EngineConfig, MatchError> {
    for (path, text) in PYTHON_BOT {
        let file = bots.scratch.join(path);
        if let Some(dir) = file.parent() {
            create_dir(dir)?;
        }
        write_file(&file, text)?;
    }
    let script = bots.scratch.join("anqi_random_bot.py");
    Ok(EngineConfig {
        name: "python-random".into(),
        command: Some("python3".into()),
        args: words(&[
            &script.display().to_string(),
            "--connect",
            "{addr}",
            "--seed",
            "{seed}",
            "--name",
            "{name}",
            "--quiet",
            "--variant",
            rules,
        ]),
        ..bare()
    })
}

/// An engine given by its command line: `PROTOCOL:COMMAND` for an engine of another protocol,
/// run through a bridge; otherwise an engine of anqi's, whose command must say where it
/// connects (`{addr}` or `{port}`).
fn from_command(spec: &str, command: &str) -> Result<EngineConfig, MatchError> {
    let bridged = command.split_once(':').and_then(|(p, rest)| {
        // `uci:` reads as `uci-banqi:` (`Protocol::from_str`), as cutechess names it.
        p.parse::<crate::bridge::Protocol>()
            .ok()
            .filter(|p| p.is_bridged())
            .map(|p| (p, rest))
    });
    let (protocol, command) = match bridged {
        Some((protocol, command)) => (Some(protocol), command),
        None => (None, command),
    };
    let words = split_command(command).map_err(|error| MatchError::Split {
        spec: spec.to_string(),
        error,
    })?;
    let Some((program, args)) = words.split_first() else {
        return Err(MatchError::EmptyCommand {
            spec: spec.to_string(),
        });
    };
    if protocol.is_none()
        && !words
            .iter()
            .any(|w| w.contains("{addr}") || w.contains("{port}"))
    {
        return Err(MatchError::NoAddress {
            spec: spec.to_string(),
        });
    }
    Ok(EngineConfig {
        name: default_name(program, args),
        command: Some(program.clone()),
        args: args.to_vec(),
        protocol: protocol.unwrap_or_default(),
        ..bare()
    })
}

/// Whether `s` can name an engine (`NAME=COMMAND`): letters, digits, `-`, `_`, `.`.
fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// A name for a command line's engine: the program's file name, or for an interpreter
/// (`python3 bot.py`) the script's, without its extension.
fn default_name(program: &str, args: &[String]) -> String {
    let stem = |p: &str| {
        Path::new(p)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let base = stem(program);
    let interpreter = [
        "python", "python3", "node", "ruby", "perl", "sh", "bash", "java",
    ]
    .contains(&base.as_str());
    let chosen = match args.iter().find(|a| !a.starts_with('-')) {
        Some(script) if interpreter => stem(script),
        _ => base,
    };
    let clean: String = chosen
        .chars()
        .map(|c| if is_name(&c.to_string()) { c } else { '_' })
        .collect();
    if clean.is_empty() {
        "engine".into()
    } else {
        clean
    }
}

/// Splits a command line into words as a POSIX shell would, without expanding anything:
/// whitespace separates words; `'...'` keeps everything literally; `"..."` keeps everything
/// but `\"`, `\\`, `` \` `` and `\$`; a backslash outside quotes keeps the next character.
///
/// # Errors
/// An unterminated quote, or a backslash at the very end.
pub(crate) fn split_command(line: &str) -> Result<Vec<String>, SplitError> {
    let mut words = Vec::new();
    let mut word = String::new();
    // Whether a word has started (an empty quoted word `''` is still a word).
    let mut started = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            '\'' => {
                started = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(SplitError::SingleQuote),
                    }
                }
            }
            '"' => {
                started = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '`' | '$')) => word.push(c),
                            Some('\n') => {}
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err(SplitError::DoubleQuote),
                        },
                        Some(c) => word.push(c),
                        None => return Err(SplitError::DoubleQuote),
                    }
                }
            }
            '\\' => {
                started = true;
                match chars.next() {
                    Some('\n') => {}
                    Some(c) => word.push(c),
                    None => return Err(SplitError::FinalBackslash),
                }
            }
            c => {
                started = true;
                word.push(c);
            }
        }
    }
    if started {
        words.push(word);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_split_as_a_shell_would() {
        let s = |l: &str| split_command(l).unwrap();
        assert_eq!(
            s("  bot  --connect {addr} "),
            ["bot", "--connect", "{addr}"]
        );
        assert_eq!(s("a 'b c' \"d e\" f\\ g"), ["a", "b c", "d e", "f g"]);
        assert_eq!(
            s(r#""say \"hi\" \n" '\x' x''y "" "#),
            [r#"say "hi" \n"#, r"\x", "xy", ""]
        );
        assert_eq!(s(""), Vec::<String>::new());
        for (bad, why) in [
            ("'open", SplitError::SingleQuote),
            ("\"open", SplitError::DoubleQuote),
            ("end\\", SplitError::FinalBackslash),
            ("\"a\\", SplitError::DoubleQuote),
        ] {
            assert_eq!(split_command(bad), Err(why), "{bad}");
        }
    }

    fn bots(dir: &Path) -> Bots {
        Bots {
            anqi_bot: dir.join("no-such-anqi-bot"),
            scratch: dir.to_path_buf(),
        }
    }

    fn request(a: &str, b: &str, games: u32) -> MatchRequest {
        MatchRequest {
            engines: [a.into(), b.into()],
            games,
            variant: "traditional-2x4".into(),
            seed: Some("s".into()),
            tc: None,
            concurrency: 1,
            output: "out.jsonl".into(),
            logs: None,
            standings_every: 0,
            max_plies: 0,
            score_draw: String::new(),
            score_resign: String::new(),
            book: None,
        }
    }

    #[test]
    fn engines_are_named_and_checked() {
        let dir = std::env::temp_dir().join(format!("anqi-quick-match-{}", std::process::id()));
        let b = bots(&dir);
        let c = config(
            &request(
                "python-random",
                "mine=python3 -u my_bot.py --connect {addr}",
                4,
            ),
            &b,
        )
        .unwrap();
        assert_eq!(c.deals, 2);
        assert_eq!(c.engines[0].name, "python-random");
        assert_eq!(c.engines[1].name, "mine");
        assert_eq!(
            c.engines[1].args,
            ["-u", "my_bot.py", "--connect", "{addr}"]
        );
        assert!(dir.join("anqi_random_bot.py").is_file());
        assert!(dir.join("stdlib_client/client.py").is_file());
        // Named after the script; the same engine twice gets two names.
        let c = config(
            &request("python3 bots/x.py {addr}", "python3 bots/x.py {addr}", 2),
            &b,
        )
        .unwrap();
        assert_eq!(
            (c.engines[0].name.as_str(), c.engines[1].name.as_str()),
            ("x", "x-2")
        );
        let e = config(&request("random", "python-random", 2), &b).unwrap_err();
        assert!(matches!(e, MatchError::NoAnqiBot { .. }), "{e:?}");
        let e = e.to_string();
        assert!(e.contains("anqi-bot") && e.contains("cargo build"), "{e}");
        let e = config(&request("./bot", "python-random", 2), &b).unwrap_err();
        assert!(
            matches!(&e, MatchError::NoAddress { spec } if spec == "./bot"),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            r#"engine "./bot" is neither a reference bot (random, greedy, search, python-random) nor a command that can find the match's server: put {addr} (HOST:PORT) or {port} where the engine takes the address, e.g. "./my-bot --connect {addr}""#
        );
        let e = config(&request("python-random", "python-random", 3), &b).unwrap_err();
        assert!(matches!(e, MatchError::Games { per_deal: 2, .. }), "{e:?}");
        assert_eq!(
            e.to_string(),
            "--games 3: each deal is played once per seat arrangement (2 games on traditional-2x4), so give a multiple of 2, such as 2"
        );
        let e = config(&request("'open", "python-random", 2), &b).unwrap_err();
        assert!(
            matches!(
                e,
                MatchError::Split {
                    error: SplitError::SingleQuote,
                    ..
                }
            ),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            r#"engine "'open": a single quote (') is not closed"#
        );
        let e = config(&request("name=", "python-random", 2), &b).unwrap_err();
        assert!(matches!(e, MatchError::EmptyCommand { .. }), "{e:?}");
        // PROTOCOL:COMMAND: bridged, no {addr} needed; NAME= still names it.
        let c = config(
            &request(
                "python-random",
                "misty=uci-banqi:/opt/banqi-engine --fast",
                2,
            ),
            &b,
        )
        .unwrap();
        let misty = &c.engines[1];
        assert_eq!(
            (
                misty.name.as_str(),
                misty.protocol,
                misty.command.as_deref()
            ),
            (
                "misty",
                crate::bridge::Protocol::UciBanqi,
                Some("/opt/banqi-engine")
            )
        );
        assert_eq!(misty.args, ["--fast"]);
        // `uci:` is cutechess's name for it.
        let c = config(&request("python-random", "uci:./bot", 2), &b).unwrap();
        assert_eq!(c.engines[1].protocol, crate::bridge::Protocol::UciBanqi);
        assert_eq!(c.engines[1].command.as_deref(), Some("./bot"));
        // A colon that names no protocol is part of an ordinary command.
        let e = config(&request("python-random", "xboard:./bot", 2), &b).unwrap_err();
        assert!(matches!(e, MatchError::NoAddress { .. }), "{e:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_python_bot_is_carried_whole() {
        // A module added to clients/python/stdlib_client but not to PYTHON_BOT would break
        // `python-random` only where the repository is absent.
        let package = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../clients/python/stdlib_client"
        );
        for entry in std::fs::read_dir(package).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            if name.ends_with(".py") {
                let path = format!("stdlib_client/{name}");
                assert!(
                    PYTHON_BOT.iter().any(|(p, _)| *p == path),
                    "{path} is not in PYTHON_BOT"
                );
            }
        }
    }
}
