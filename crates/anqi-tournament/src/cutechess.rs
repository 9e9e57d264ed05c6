//! The cutechess-cli and fastchess command line, as organizers type it (`anqi match -engine
//! cmd=./a proto=uci -engine cmd=./b proto=uci -each tc=10+0.1 -rounds 50 -games 2`), read
//! into `anqi match`'s own settings ([`Dialect`]).
//!
//! Pure (no process is started, no file read), so that every mapping and every refusal is
//! tested as data. An option anqi has an equivalent for is mapped; one whose meaning anqi
//! already has (`-repeat`, `-recover`) is taken with a note; every other one is refused with a
//! message that names the nearest anqi option. None is skipped silently: a `-draw` skipped
//! without a word would change what the results mean.

use crate::book::BookOrder;
use crate::bridge::Protocol;
use crate::config::{BookConfig, SprtConfig};
use crate::quick_match::REFERENCE_BOTS;
use crate::time_control::Tc;
use anqi_core::scores::{DrawByScores, ResignByScores};

/// Every option of the dialect anqi knows, accepted or refused with a reason (without its
/// leading dash). A command line holding one of these, single-dashed, is read in the dialect.
pub const OPTIONS: &[&str] = &[
    "engine",
    "each",
    "rounds",
    "games",
    "repeat",
    "concurrency",
    "pgnout",
    "sprt",
    "ratinginterval",
    "recover",
    "srand",
    "variant",
    "maxmoves",
    "tournament",
    "draw",
    "resign",
    "openings",
    "bookmode",
    "pgnin",
    "epdin",
    "epdout",
    "tb",
    "tbpieces",
    "tbignore50",
    "tbadjudicate",
    "noswap",
    "reverse",
    "wait",
    "debug",
    "log",
    "event",
    "site",
    "resultformat",
    "output",
    "report",
    "outcomeinterval",
    "scoreinterval",
    "config",
    "autosaveinterval",
    "use-affinity",
    "logs",
    "quiet",
    "help",
];

/// What `anqi match -help` prints: how each option of the dialect maps onto anqi.
pub const HELP: &str = "\
anqi match reads cutechess-cli's and fastchess's command line (TOURNAMENTS.md, \"For cutechess
and fastchess users\"). What each option becomes:

  -engine KEY=VALUE...   one engine (give two); keys:
      cmd=COMMAND          the program, split as a shell would (cmd=random, greedy, search or
                           python-random: a reference bot)
      arg=WORD             one more argument (repeat it); args=\"WORDS\" several (fastchess)
      name=NAME  dir=DIR   its name in the standings; its working directory
      proto=PROTOCOL       uci (anqi's uci-banqi bridge), tcg, cdc (cdc-platform), or anqi
                           (anqi's own, the default: the engine connects to {addr} itself)
      tc=TC  st=SECONDS    its own time control (60+0.5, 40/60, inf); st=2: 2 s per move
      assumes=PRESET       the rules an engine of another protocol believes (anqi's own key)
      restart=on, trust    taken: anqi starts every engine afresh for each game
  -each KEY=VALUE...     keys both engines take unless they set them themselves
  -rounds N -games M     N x M games in all (either alone: the other is 1; neither: 2). anqi
                         plays each deal twice, seats swapped, so the total must be even
  -repeat                taken: anqi always plays each deal twice, seats swapped
  -concurrency N         --concurrency N
  -pgnout FILE           --output FILE: the records, as JSON lines (not PGN); run again, the
                         same command resumes
  -sprt elo0=A elo1=B [alpha=X beta=Y]   --sprt A,B,X,Y (logistic Elo)
  -ratinginterval N      --standings-every N
  -recover               taken: a crashed engine loses that game and plays the next
  -srand N               --seed N (the same deals again)
  -variant NAME          --variant NAME (an anqi variant: anqi variants)
  -maxmoves N            --max-plies 2N (a draw once each player has made N moves)
  -draw movenumber=N movecount=N score=CP        --draw \"movenumber=N movecount=N score=CP\"
  -resign movecount=N score=CP [twosided=B]      --resign \"movecount=N score=CP ...\"
                         (adjudication by the engines' scores, from their comments)
  -tournament round-robin|gauntlet   taken (two engines: the same event)
  -logs DIR, -quiet      anqi's own --logs DIR and --quiet

  -openings file=BOOK [order=sequential|random] [start=N]   --book BOOK [--book-order ...]
                         an anqi deal book (anqi book new, anqi book from RECORDS; format=anqi),
                         each entry played twice, seats swapped; plies= and epd/pgn refused

Refused, each with the nearest anqi option: -tb, -noswap, -wait, -debug, -event, -epdout,
-config and the rest. Engine keys refused: option.NAME, depth, nodes, timemargin, ponder,
book, initstr, conf, stderr.
";

/// A cutechess or fastchess command line, read: what `anqi match` plays.
#[derive(Clone, Debug, PartialEq)]
pub struct Dialect {
    /// The two engines, in the order given (the first plays seat 1 in the first game of each
    /// deal).
    pub engines: [DialectEngine; 2],
    /// Games in all (`-rounds` x `-games`): even.
    pub games: u32,
    pub variant: Option<String>,
    pub concurrency: Option<u32>,
    /// The records file (`-pgnout`).
    pub output: Option<String>,
    /// The engines' logs directory (`-logs`, anqi's own).
    pub logs: Option<String>,
    pub quiet: bool,
    /// A fixed master seed (`-srand`).
    pub seed: Option<String>,
    pub sprt: Option<SprtConfig>,
    /// `-ratinginterval`.
    pub standings_every: Option<u32>,
    /// `-maxmoves N`, as plies (2N).
    pub max_plies: Option<u32>,
    /// `-draw` and `-resign`: adjudication by the engines' scores, their words as given.
    pub score_draw: Option<String>,
    pub score_resign: Option<String>,
    /// `-openings file=BOOK`: the deal book played (an anqi book: `anqi book new`).
    pub book: Option<BookConfig>,
    /// What was taken as anqi already does it (`-repeat`, `-recover`), or read in anqi's way
    /// (`-pgnout`: JSON lines): one line each, for stderr.
    pub notes: Vec<String>,
    /// `-help`: print [`HELP`] and play nothing.
    pub help: bool,
}

/// One `-engine`, with `-each`'s keys under its own.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DialectEngine {
    /// `name=`; `None`: named after its program, as `anqi match` names engines.
    pub name: Option<String>,
    pub protocol: Protocol,
    /// `cmd=`: a command line (split as a shell would), or a reference bot's name.
    pub cmd: String,
    /// `arg=` words, then `args=` words.
    pub args: Vec<String>,
    pub dir: Option<String>,
    /// `tc=` or `st=`.
    pub tc: Option<Tc>,
    pub assumes: Option<String>,
}

impl DialectEngine {
    /// The engine as `anqi match` takes it (`ENGINE_A`): `PROTOCOL:COMMAND ARGS...` for an
    /// engine of another protocol, a reference bot's name, or the command line, each `arg=`
    /// quoted so that it splits back into the same word.
    pub fn spec(&self) -> String {
        let mut line = self.cmd.clone();
        for a in &self.args {
            line.push(' ');
            line.push_str(&shell_quote(a));
        }
        if self.protocol.is_bridged() {
            format!("{}:{line}", self.protocol.name())
        } else {
            line
        }
    }
}

/// Why a dialect command line cannot be played, said in the dialect's words with anqi's
/// nearest option.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DialectError {
    /// An option anqi does not know at all.
    #[error("{option}: not an option anqi knows; `anqi match -help` lists the cutechess and fastchess options it reads, `anqi match --help` its own")]
    Unknown { option: String },
    /// An option (or engine key) with no equivalent in anqi.
    #[error("{option}: {nearest}")]
    NoEquivalent { option: String, nearest: String },
    /// A value that cannot be read.
    #[error("{option}: {problem}")]
    Value { option: String, problem: String },
    /// Not two engines.
    #[error("anqi match plays two engines, and -engine was given {count} times: give two, or write a tournament file with an [[tournament.engine]] entry for each (anqi tournament FILE, round-robin or gauntlet)")]
    Engines { count: usize },
    /// An odd number of games in all.
    #[error("-rounds {rounds} -games {games} make {total} games, but anqi plays each deal twice, seats swapped (what -games 2 -repeat does in cutechess), so the total must be even: for instance -rounds {} -games 2 ({} games)", total.div_ceil(2), total.div_ceil(2) * 2)]
    OddGames { rounds: u32, games: u32, total: u32 },
    /// A word that is no option nor an option's value.
    #[error("{word:?}: not an option's value; in the cutechess dialect each engine is -engine cmd=COMMAND ... (anqi's own form: anqi match ENGINE_A ENGINE_B --games N)")]
    Stray { word: String },
}

/// The name of a dialect option (`-engine`, `--engine`: `engine`), when `word` is one the
/// dialect knows.
pub fn option_name(word: &str) -> Option<&str> {
    let name = word.strip_prefix("--").or_else(|| word.strip_prefix('-'))?;
    OPTIONS.contains(&name).then_some(name)
}

/// Whether `word` starts an option (so ends the key=value list before it): a dash and a
/// letter.
fn is_option(word: &str) -> bool {
    let rest = word.trim_start_matches('-');
    word.starts_with('-') && rest.starts_with(|c: char| c.is_ascii_alphabetic())
}

/// The settings a command line has read so far.
#[derive(Default)]
struct Reading {
    engines: Vec<Keys>,
    each: Keys,
    rounds: Option<u32>,
    games: Option<u32>,
    out: Partial,
}

/// The settings that go through to [`Dialect`] as they are.
#[derive(Default)]
struct Partial {
    variant: Option<String>,
    concurrency: Option<u32>,
    output: Option<String>,
    logs: Option<String>,
    quiet: bool,
    seed: Option<String>,
    sprt: Option<SprtConfig>,
    standings_every: Option<u32>,
    max_plies: Option<u32>,
    score_draw: Option<String>,
    score_resign: Option<String>,
    book: Option<BookConfig>,
    notes: Vec<String>,
    help: bool,
}

/// Reads a cutechess or fastchess command line (the words after `anqi match`).
///
/// # Errors
/// An option or engine key anqi has no equivalent for, a value that cannot be read, not two
/// engines, an odd number of games: each named, with the nearest anqi option.
pub fn parse(words: &[String]) -> Result<Dialect, DialectError> {
    let mut r = Reading::default();
    let mut i = 0;
    while i < words.len() {
        let word = &words[i];
        i += 1;
        if !is_option(word) {
            return Err(DialectError::Stray { word: word.clone() });
        }
        let name = word.trim_start_matches('-');
        // The words up to the next option: an option's key=value list, or its values.
        let end = words[i..]
            .iter()
            .position(|w| is_option(w))
            .map_or(words.len(), |n| i + n);
        let values = &words[i..end];
        i = end;
        option(&mut r, word, name, values)?;
    }
    finish(r)
}

/// Takes one option and its values into `r`.
fn option(r: &mut Reading, word: &str, name: &str, values: &[String]) -> Result<(), DialectError> {
    let out = &mut r.out;
    match name {
        "engine" => r.engines.push(keys(word, values)?),
        "each" => r.each = keys(word, values)?,
        "rounds" => r.rounds = Some(positive(word, one(word, values)?)?),
        "games" => r.games = Some(positive(word, one(word, values)?)?),
        "concurrency" => out.concurrency = Some(positive(word, one(word, values)?)?),
        "ratinginterval" => out.standings_every = Some(number(word, one(word, values)?)?),
        "srand" => out.seed = Some(one(word, values)?.to_string()),
        "variant" => out.variant = Some(one(word, values)?.to_string()),
        "maxmoves" => {
            let moves = positive(word, one(word, values)?)?;
            out.max_plies = Some(moves.checked_mul(2).ok_or_else(|| DialectError::Value {
                option: word.into(),
                problem: format!("{moves} moves is too many"),
            })?);
        }
        "logs" => out.logs = Some(one(word, values)?.to_string()),
        "quiet" => none(word, values).map(|()| out.quiet = true)?,
        "help" => out.help = true,
        "repeat" => repeat(word, values, &mut out.notes)?,
        "recover" => none(word, values).map(|()| {
            out.notes.push(
                "-recover: anqi starts each engine afresh for every game; one that crashes loses that game (crash) and plays the next".into(),
            )
        })?,
        "tournament" => match one(word, values)? {
            "round-robin" | "gauntlet" => {}
            other => {
                return Err(no_equivalent(
                    word,
                    &format!("{other:?}: anqi's formats are round-robin and gauntlet (two engines play the same match in both)"),
                ))
            }
        },
        "pgnout" => out.output = Some(pgnout(word, values, &mut out.notes)?),
        "draw" => out.score_draw = Some(score_rule::<DrawByScores>(word, values)?),
        "resign" => out.score_resign = Some(score_rule::<ResignByScores>(word, values)?),
        "sprt" => out.sprt = Some(sprt(word, values, &mut out.notes)?),
        "openings" => out.book = Some(openings(word, values, &mut out.notes)?),
        _ => return Err(refused(word, name)),
    }
    Ok(())
}

/// `-openings file=BOOK [format=anqi] [order=sequential|random] [start=N] [policy=P]`: an
/// anqi deal book. anqi's books hold deals, not positions after opening moves, so `plies=`
/// and the chess formats are refused; `policy=` is taken, since anqi plays every entry twice,
/// seats swapped, whatever it says.
fn openings(
    option: &str,
    values: &[String],
    notes: &mut Vec<String>,
) -> Result<BookConfig, DialectError> {
    let fail = |problem: String| DialectError::Value {
        option: option.into(),
        problem,
    };
    let (mut file, mut order, mut start) = (None, BookOrder::Sequential, 1u64);
    for v in values {
        let (key, value) = v.split_once('=').ok_or_else(|| {
            fail(format!(
                "{v:?}: give KEY=VALUE (file, format, order, start, policy)"
            ))
        })?;
        match key {
            "file" => file = Some(value.to_string()),
            "format" if value == "anqi" => {}
            "format" => {
                return Err(no_equivalent(
                    option,
                    &format!("format={value}: anqi plays its own deal books (format=anqi), which hold whole deals: write one with anqi book new --deals N --output BOOK, or anqi book from RECORDS --output BOOK"),
                ))
            }
            "order" => order = value.parse().map_err(fail)?,
            "start" => {
                start = value
                    .parse()
                    .ok()
                    .filter(|&n| n >= 1)
                    .ok_or_else(|| fail(format!("start={value}: give the first entry played, 1 or more")))?;
            }
            "policy" => notes.push(format!(
                "-openings policy={value}: anqi plays each entry of the book twice, seats swapped, whatever the policy"
            )),
            "plies" => {
                return Err(no_equivalent(
                    &format!("{option} plies"),
                    "an anqi deal book holds whole deals, not opening moves: every game starts from its deal",
                ))
            }
            other => return Err(fail(format!("{other:?} is not a key anqi reads; it reads file, format, order, start, policy"))),
        }
    }
    let file = file.ok_or_else(|| {
        fail("give the book: -openings file=BOOK (an anqi deal book: anqi book new)".into())
    })?;
    if order == BookOrder::Random && start > 1 {
        return Err(fail(format!(
            "start={start} with order=random: a book in random order skips no entries"
        )));
    }
    Ok(BookConfig {
        file,
        order,
        skip: start - 1,
    })
}

/// `-draw` and `-resign`'s words, checked as anqi reads them (`anqi_core::scores`).
fn score_rule<R: std::str::FromStr<Err = anqi_core::scores::RuleError>>(
    word: &str,
    values: &[String],
) -> Result<String, DialectError> {
    let text = values.join(" ");
    text.parse::<R>().map_err(|e| DialectError::Value {
        option: word.into(),
        problem: e.to_string(),
    })?;
    Ok(text)
}

/// Why an option of the dialect is refused: what anqi has in its place.
fn refused(word: &str, name: &str) -> DialectError {
    let nearest = match name {
        "bookmode" | "pgnin" | "epdin" => "anqi plays deal books, not positions: -openings file=BOOK (anqi match --book BOOK), a book written by anqi book new or anqi book from RECORDS",
        "tb" | "tbpieces" | "tbignore50" | "tbadjudicate" => "anqi's endgame tables are its own (anqi tables build): a tournament file sets them, adjudicate = \"tables\" and tables = FILE (anqi tournament FILE)",
        "noswap" | "reverse" => "anqi always plays each deal twice, seats swapped, so that the luck of the deal cancels out",
        "wait" => "anqi starts the next game at once; -concurrency N plays N at a time",
        "debug" | "log" => "-logs DIR (anqi match --logs DIR) keeps each engine's output; RUST_LOG=debug shows anqi's own",
        "event" | "site" => "anqi's records name no event or site: the records file's name is yours (-pgnout FILE)",
        "epdout" => "anqi keeps records, not positions: -pgnout FILE, then anqi replay FILE shows every position",
        "resultformat" | "output" | "report" | "outcomeinterval" | "scoreinterval" => "anqi prints its own standings (Elo, LOS, pentanomial counts): -ratinginterval N (anqi match --standings-every N) prints them as the match goes, anqi report FILE from the records",
        "config" | "autosaveinterval" => "anqi resumes a match from its records: run the same command again, with -pgnout FILE; settings kept in a file are a tournament file (anqi tournament FILE)",
        "use-affinity" => "anqi pins no engine to a processor; -concurrency N sets how many games run at once",
        _ => return DialectError::Unknown { option: word.into() },
    };
    no_equivalent(word, nearest)
}

fn no_equivalent(option: &str, nearest: &str) -> DialectError {
    DialectError::NoEquivalent {
        option: option.into(),
        nearest: nearest.into(),
    }
}

/// The one value of an option.
fn one<'a>(option: &str, values: &'a [String]) -> Result<&'a str, DialectError> {
    match values {
        [v] => Ok(v),
        [] => Err(DialectError::Value {
            option: option.into(),
            problem: "needs a value".into(),
        }),
        [_, extra, ..] => Err(DialectError::Value {
            option: option.into(),
            problem: format!("takes one value; {extra:?} is one too many"),
        }),
    }
}

/// An option that takes no value.
fn none(option: &str, values: &[String]) -> Result<(), DialectError> {
    match values.first() {
        None => Ok(()),
        Some(v) => Err(DialectError::Value {
            option: option.into(),
            problem: format!("takes no value, and {v:?} follows it"),
        }),
    }
}

fn number(option: &str, text: &str) -> Result<u32, DialectError> {
    text.parse().map_err(|_| DialectError::Value {
        option: option.into(),
        problem: format!("{text:?} is not a whole number"),
    })
}

fn positive(option: &str, text: &str) -> Result<u32, DialectError> {
    match number(option, text)? {
        0 => Err(DialectError::Value {
            option: option.into(),
            problem: "0: give at least 1".into(),
        }),
        n => Ok(n),
    }
}

/// `-repeat [N]`: what anqi always does, when N is 2.
fn repeat(option: &str, values: &[String], notes: &mut Vec<String>) -> Result<(), DialectError> {
    match values {
        [] => {}
        [n] if n == "2" => {}
        _ => {
            return Err(no_equivalent(
                option,
                &format!(
                    "{}: anqi plays each deal exactly twice, seats swapped (-repeat or -repeat 2)",
                    values.join(" ")
                ),
            ))
        }
    }
    notes.push("-repeat: anqi always plays each deal twice, seats swapped".into());
    Ok(())
}

/// `-pgnout FILE [min] [fi]` (cutechess) or `-pgnout file=FILE KEY=VALUE...` (fastchess): the
/// records file. What the other words ask of a PGN has no meaning for anqi's records.
fn pgnout(
    option: &str,
    values: &[String],
    notes: &mut Vec<String>,
) -> Result<String, DialectError> {
    let file = values
        .iter()
        .find_map(|v| v.strip_prefix("file="))
        .or_else(|| {
            values
                .first()
                .map(String::as_str)
                .filter(|v| !v.contains('='))
        })
        .ok_or_else(|| DialectError::Value {
            option: option.into(),
            problem: "give the records file: -pgnout FILE (or file=FILE)".into(),
        })?;
    notes.push(format!(
        "-pgnout: the records go to {file} as JSON lines (protocol/RECORDS.md), not PGN; the same command run again resumes from them"
    ));
    Ok(file.to_string())
}

/// `-sprt elo0=A elo1=B [alpha=X] [beta=Y] [model=logistic]`.
fn sprt(
    option: &str,
    values: &[String],
    notes: &mut Vec<String>,
) -> Result<SprtConfig, DialectError> {
    let fail = |problem: String| DialectError::Value {
        option: option.into(),
        problem,
    };
    let (mut elo0, mut elo1, mut alpha, mut beta) = (None, None, 0.05, 0.05);
    let mut model = None;
    for v in values {
        let (key, value) = v
            .split_once('=')
            .ok_or_else(|| fail(format!("{v:?}: give KEY=VALUE (elo0, elo1, alpha, beta)")))?;
        let x = || {
            value
                .parse::<f64>()
                .map_err(|_| fail(format!("{key}={value}: not a number")))
        };
        match key {
            "elo0" => elo0 = Some(x()?),
            "elo1" => elo1 = Some(x()?),
            "alpha" => alpha = x()?,
            "beta" => beta = x()?,
            "model" => model = Some(value),
            _ => {
                return Err(fail(format!(
                    "{key}: unknown key; -sprt takes elo0, elo1, alpha, beta, model"
                )))
            }
        }
    }
    match model {
        None => notes.push("-sprt: the bounds are read as logistic Elo (cutechess's; fastchess reads them as normalized Elo unless model=logistic)".into()),
        Some("logistic") => {}
        Some(other) => return Err(no_equivalent(option, &format!("model={other}: anqi's SPRT takes its bounds as logistic Elo (model=logistic; anqi match --sprt ELO0,ELO1)"))),
    }
    let (Some(elo0), Some(elo1)) = (elo0, elo1) else {
        return Err(fail("give elo0= and elo1=".into()));
    };
    if elo1.partial_cmp(&elo0) != Some(std::cmp::Ordering::Greater)
        || !(alpha > 0.0 && alpha < 0.5)
        || !(beta > 0.0 && beta < 0.5)
    {
        return Err(fail(
            "needs elo1 > elo0, and alpha and beta between 0 and 0.5".into(),
        ));
    }
    Ok(SprtConfig {
        elo0,
        elo1,
        alpha,
        beta,
    })
}

/// An engine's keys as given (by `-engine` or `-each`): `None` is left to the other.
#[derive(Clone, Debug, Default)]
struct Keys {
    name: Option<String>,
    protocol: Option<Protocol>,
    cmd: Option<String>,
    args: Option<Vec<String>>,
    dir: Option<String>,
    tc: Option<Tc>,
    assumes: Option<String>,
}

/// The keys of one `-engine` or `-each`.
fn keys(option: &str, values: &[String]) -> Result<Keys, DialectError> {
    let mut k = Keys::default();
    let fail = |problem: String| DialectError::Value {
        option: option.into(),
        problem,
    };
    let mut st = None;
    for v in values {
        let (key, value) = v.split_once('=').unwrap_or((v, ""));
        let set = |what: &mut Option<String>| *what = Some(value.to_string());
        match key {
            "name" => set(&mut k.name),
            "cmd" => set(&mut k.cmd),
            "dir" => set(&mut k.dir),
            "assumes" => set(&mut k.assumes),
            "arg" => k.args.get_or_insert_with(Vec::new).push(value.into()),
            "args" => {
                let words = crate::quick_match::split_command(value)
                    .map_err(|e| fail(format!("args={value}: {e}")))?;
                k.args.get_or_insert_with(Vec::new).extend(words);
            }
            "proto" => k.protocol = Some(protocol(option, value)?),
            "tc" => k.tc = Some(tc(option, value)?),
            "st" => st = Some(tc(option, &format!("st={value}"))?),
            "restart" if value == "on" => {}
            "trust" if value.is_empty() => {}
            _ => return Err(engine_key(option, key)),
        }
    }
    if let Some(st) = st {
        if k.tc.is_some() {
            return Err(fail("give tc= or st=, not both".into()));
        }
        k.tc = Some(st);
    }
    Ok(k)
}

/// Why an engine key is refused: what anqi has in its place.
fn engine_key(option_only: &str, key: &str) -> DialectError {
    let option = format!("{option_only} {key}");
    let nearest = match key {
        "restart" => "anqi starts every engine afresh for each game (restart=on)",
        "depth" | "nodes" | "plies" => "anqi limits engines by their clocks only: tc= or st=",
        "timemargin" => "anqi's clocks have no margin: a clock that runs out loses; give more time with tc=",
        "ponder" => "anqi's protocols do not ponder",
        "book" | "bookdepth" => "anqi's engines share one deal book, the match's: -openings file=BOOK (anqi match --book BOOK)",
        "initstr" | "whitepov" => "anqi has no xboard bridge: proto= takes uci, tcg, cdc or anqi",
        "conf" => "anqi has no engines file: give cmd= here, or write a tournament file (anqi tournament FILE)",
        "stderr" => "-logs DIR (anqi match --logs DIR) keeps each engine's output, DIR/NAME.log",
        k if k.starts_with("option.") => "anqi sends engines no options: give the engine its settings on its command line (arg=...)",
        _ => {
            return DialectError::Value {
                option: option_only.into(),
                problem: format!("{key:?} is not a key anqi knows; it reads name, cmd, dir, arg, args, proto, tc, st, assumes"),
            }
        }
    };
    no_equivalent(&option, nearest)
}

/// `proto=`: cutechess's and fastchess's names, and anqi's.
fn protocol(option: &str, value: &str) -> Result<Protocol, DialectError> {
    match value {
        "cdc" => Ok(Protocol::CdcPlatform),
        "xboard" | "cecp" => Err(no_equivalent(
            &format!("{option} proto={value}"),
            "anqi has no xboard bridge; proto= takes uci (anqi's uci-banqi bridge), tcg, cdc (cdc-platform) or anqi (anqi's own)",
        )),
        other => other.parse().map_err(|e| DialectError::Value {
            option: format!("{option} proto"),
            problem: format!("{e}; also uci and cdc"),
        }),
    }
}

fn tc(option: &str, value: &str) -> Result<Tc, DialectError> {
    value
        .parse()
        .map_err(|e: crate::time_control::TcError| DialectError::Value {
            option: option.into(),
            problem: e.to_string(),
        })
}

/// The engines with `-each` under them, the games counted: the command line's settings.
fn finish(r: Reading) -> Result<Dialect, DialectError> {
    let out = r.out;
    let skeleton = |engines| Dialect {
        engines,
        games: 2,
        variant: out.variant.clone(),
        concurrency: out.concurrency,
        output: out.output.clone(),
        logs: out.logs.clone(),
        quiet: out.quiet,
        seed: out.seed.clone(),
        sprt: out.sprt,
        standings_every: out.standings_every,
        max_plies: out.max_plies,
        score_draw: out.score_draw.clone(),
        score_resign: out.score_resign.clone(),
        book: out.book.clone(),
        notes: out.notes.clone(),
        help: out.help,
    };
    if out.help {
        return Ok(skeleton(Default::default()));
    }
    if r.engines.len() != 2 {
        return Err(DialectError::Engines {
            count: r.engines.len(),
        });
    }
    let games = match (r.rounds, r.games) {
        (None, None) => 2,
        (rounds, games) => {
            let (rounds, games) = (rounds.unwrap_or(1), games.unwrap_or(1));
            let total = rounds
                .checked_mul(games)
                .ok_or_else(|| DialectError::Value {
                    option: "-rounds".into(),
                    problem: format!("{rounds} x {games} games is too many"),
                })?;
            if total % 2 != 0 {
                return Err(DialectError::OddGames {
                    rounds,
                    games,
                    total,
                });
            }
            total
        }
    };
    let engine = |n: usize| engine(n, &r.engines[n], &r.each);
    let mut dialect = skeleton([engine(0)?, engine(1)?]);
    dialect.games = games;
    Ok(dialect)
}

/// Engine `n` (from 0), its keys over `-each`'s, checked as far as can be without starting
/// it.
fn engine(n: usize, own: &Keys, each: &Keys) -> Result<DialectEngine, DialectError> {
    let option = format!("-engine (the {})", ["first", "second"][n]);
    let pick = |a: &Option<String>, b: &Option<String>| a.clone().or_else(|| b.clone());
    let e = DialectEngine {
        name: pick(&own.name, &each.name),
        protocol: own.protocol.or(each.protocol).unwrap_or_default(),
        cmd: pick(&own.cmd, &each.cmd).unwrap_or_default(),
        args: own
            .args
            .clone()
            .or_else(|| each.args.clone())
            .unwrap_or_default(),
        dir: pick(&own.dir, &each.dir),
        tc: own.tc.clone().or_else(|| each.tc.clone()),
        assumes: pick(&own.assumes, &each.assumes),
    };
    let fail = |problem: &str| DialectError::Value {
        option: option.clone(),
        problem: problem.into(),
    };
    if e.cmd.trim().is_empty() {
        return Err(fail(
            "give cmd=COMMAND (or cmd=random, greedy, search or python-random: a reference bot)",
        ));
    }
    let bot = REFERENCE_BOTS.iter().any(|(b, _)| *b == e.cmd.trim());
    if e.protocol.is_bridged() {
        if bot {
            return Err(fail(&format!(
                "cmd={} is a reference bot, which speaks anqi's own protocol: leave out proto=",
                e.cmd
            )));
        }
    } else {
        if e.assumes.is_some() {
            return Err(fail("assumes= is for an engine of another protocol (proto=uci, tcg, cdc): anqi's own protocol tells the engine the rules"));
        }
        if bot && !e.args.is_empty() {
            return Err(fail(&format!(
                "cmd={} is a reference bot, which takes no arg=",
                e.cmd
            )));
        }
        let finds_server = std::iter::once(&e.cmd)
            .chain(&e.args)
            .any(|w| w.contains("{addr}") || w.contains("{port}"));
        if !bot && !finds_server {
            return Err(fail(&format!("cmd={}: without proto= an engine speaks anqi's own protocol and connects to the match's server itself, so put {{addr}} (HOST:PORT) or {{port}} where it takes the address (arg={{addr}}); an engine of another protocol: proto=uci (uci-banqi), tcg or cdc (cdc-platform)", e.cmd)));
        }
    }
    Ok(e)
}

/// `word` quoted for a POSIX shell when it needs to be, so that `quick_match`'s splitting
/// gives it back whole.
fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:,+=@%{}".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(line: &str) -> Result<Dialect, DialectError> {
        let words = crate::quick_match::split_command(line).unwrap();
        parse(&words)
    }

    #[test]
    fn a_cutechess_command_line_maps_onto_anqi_match() {
        let d = read(
            "-engine cmd=./eng name='My Engine' proto=uci arg=--hash=64 arg='two words' dir=/opt \
             -engine cmd=greedy tc=st=1 \
             -each tc=40/60+0.6 -rounds 25 -games 2 -repeat -concurrency 4 -pgnout out.jsonl \
             -sprt elo0=0 elo1=10 alpha=0.05 beta=0.1 model=logistic -ratinginterval 10 \
             -recover -srand 7 -variant traditional-2x4 -maxmoves 100 -tournament gauntlet",
        )
        .unwrap();
        let [mine, greedy] = &d.engines;
        assert_eq!(mine.name.as_deref(), Some("My Engine"));
        assert_eq!(mine.protocol, Protocol::UciBanqi);
        assert_eq!(mine.args, ["--hash=64", "two words"]);
        assert_eq!(mine.dir.as_deref(), Some("/opt"));
        assert_eq!(mine.tc.as_ref().unwrap().text, "40/60+0.6", "-each's");
        assert_eq!(mine.spec(), "uci-banqi:./eng --hash=64 'two words'");
        assert_eq!(greedy.spec(), "greedy");
        assert_eq!(
            greedy.tc.as_ref().unwrap().text,
            "st=1",
            "its own, over -each's"
        );
        assert_eq!(d.games, 50);
        assert_eq!(d.concurrency, Some(4));
        assert_eq!(d.output.as_deref(), Some("out.jsonl"));
        assert_eq!(
            d.sprt,
            Some(SprtConfig {
                elo0: 0.0,
                elo1: 10.0,
                alpha: 0.05,
                beta: 0.1
            })
        );
        assert_eq!(d.standings_every, Some(10));
        assert_eq!(d.seed.as_deref(), Some("7"));
        assert_eq!(d.variant.as_deref(), Some("traditional-2x4"));
        assert_eq!(d.max_plies, Some(200), "100 moves of each player");
        // What anqi already does is taken with a word, and so is what it does its own way.
        assert!(
            d.notes.iter().any(|n| n.starts_with("-repeat:")),
            "{:?}",
            d.notes
        );
        assert!(d.notes.iter().any(|n| n.starts_with("-recover:")));
        assert!(d.notes.iter().any(|n| n.contains("JSON lines")));
        assert_eq!(
            d.notes.len(),
            3,
            "model=logistic needs no note: {:?}",
            d.notes
        );
    }

    #[test]
    fn fastchess_spellings_are_read_too() {
        let d = read(
            "--engine cmd=./a args='-t 2 --fast' proto=tcg --engine cmd=./b proto=cdc st=0.5 \
             -each proto=uci -rounds 10 -repeat 2 -pgnout file=m.jsonl notation=san -sprt elo0=0 elo1=5",
        )
        .unwrap();
        assert_eq!(d.engines[0].protocol, Protocol::Tcg);
        assert_eq!(d.engines[0].args, ["-t", "2", "--fast"]);
        assert_eq!(d.engines[1].protocol, Protocol::CdcPlatform);
        assert_eq!(d.games, 10, "-games defaults to 1");
        assert_eq!(d.output.as_deref(), Some("m.jsonl"));
        assert!(
            d.notes.iter().any(|n| n.contains("normalized")),
            "{:?}",
            d.notes
        );
        // Neither -rounds nor -games: anqi match's own default, one deal.
        let d = read("-engine cmd=random -engine cmd=greedy").unwrap();
        assert_eq!(d.games, 2);
        assert_eq!(d.engines[0].protocol, Protocol::Anqi);
        // An engine of anqi's own protocol with {addr}; names and quiet.
        let d = read("-engine cmd='python3 bot.py' arg=--connect arg={addr} -engine cmd=random -logs L -quiet")
            .unwrap();
        assert_eq!(d.engines[0].spec(), "python3 bot.py --connect {addr}");
        assert_eq!((d.logs.as_deref(), d.quiet), (Some("L"), true));
        assert!(read("-help").unwrap().help);
        // -openings: an anqi deal book, in order from entry start (1-based).
        let d = read("-engine cmd=random -engine cmd=greedy -openings file=d.book format=anqi order=sequential start=11 policy=round").unwrap();
        let book = d.book.unwrap();
        assert_eq!(
            (book.file.as_str(), book.order, book.skip),
            ("d.book", BookOrder::Sequential, 10)
        );
        assert!(
            d.notes.iter().any(|n| n.contains("policy=round")),
            "{:?}",
            d.notes
        );
        let d = read("-engine cmd=random -engine cmd=greedy -openings file=d.book order=random")
            .unwrap();
        assert_eq!(d.book.unwrap().order, BookOrder::Random);
    }

    /// Every refusal names what anqi has instead.
    #[test]
    fn what_anqi_cannot_do_is_refused_with_the_nearest_option() {
        let two = "-engine cmd=random -engine cmd=greedy";
        for (extra, words) in [
            ("-draw movenumber=40 movecount=8", "score= is missing"),
            ("-resign movecount=3 score=600 twosided=maybe", "twosided=maybe: true or false"),
            ("-openings file=book.epd format=epd order=random", "-openings: format=epd: anqi plays its own deal books (format=anqi)"),
            ("-openings file=b plies=8", "-openings plies: an anqi deal book holds whole deals"),
            ("-openings order=random", "give the book: -openings file=BOOK"),
            ("-openings file=b order=random start=3", "start=3 with order=random"),
            ("-openings file=b start=0", "start=0: give the first entry played, 1 or more"),
            ("-openings file=b order=shuffled", "\"shuffled\" is not a book order"),
            ("-pgnin games.pgn", "-openings file=BOOK (anqi match --book BOOK)"),
            ("-tb /syzygy", "adjudicate = \"tables\""),
            ("-noswap", "seats swapped"),
            ("-wait 100", "-concurrency N"),
            ("-debug", "--logs DIR"),
            ("-event Test", "-pgnout FILE"),
            ("-epdout x.epd", "anqi replay FILE"),
            ("-config file=c.json", "run the same command again"),
            ("-bogus 1", "-bogus: not an option anqi knows; `anqi match -help`"),
            ("-repeat 4", "exactly twice"),
            ("-tournament knockout", "round-robin and gauntlet"),
            ("-sprt elo0=0 elo1=5 model=normalized", "logistic Elo"),
            ("-sprt elo0=5 elo1=0", "elo1 > elo0"),
            ("-rounds 3", "-rounds 3 -games 1 make 3 games, but anqi plays each deal twice, seats swapped (what -games 2 -repeat does in cutechess), so the total must be even: for instance -rounds 2 -games 2 (4 games)"),
            ("-games 0", "-games: 0: give at least 1"),
            ("-concurrency many", "\"many\" is not a whole number"),
            ("-pgnout", "give the records file"),
            ("-recover now", "takes no value"),
        ] {
            let e = read(&format!("{two} {extra}")).unwrap_err().to_string();
            assert!(e.contains(words), "{extra}: {e}");
        }
        for (engine, words) in [
            ("cmd=./e proto=xboard", "no xboard bridge"),
            ("cmd=./e proto=usi", "unknown protocol \"usi\""),
            (
                "cmd=./e proto=uci option.Hash=64",
                "-engine option.Hash: anqi sends engines no options",
            ),
            ("cmd=./e proto=uci depth=10", "clocks only"),
            ("cmd=./e proto=uci timemargin=50", "no margin"),
            (
                "cmd=./e proto=uci book=b.bin",
                "-engine book: anqi's engines share one deal book, the match's: -openings file=BOOK",
            ),
            ("cmd=./e proto=uci restart=off", "afresh"),
            ("cmd=./e proto=uci stderr=e.log", "--logs DIR"),
            (
                "cmd=./e proto=uci colour=red",
                "\"colour\" is not a key anqi knows",
            ),
            ("cmd=./e proto=uci tc=fast", "bad time control \"fast\""),
            ("cmd=./e proto=uci tc=1+0 st=1", "tc= or st=, not both"),
            ("name=x", "give cmd=COMMAND"),
            (
                "cmd=./e",
                "without proto= an engine speaks anqi's own protocol",
            ),
            ("cmd=random proto=uci", "leave out proto="),
            ("cmd=random arg=x", "takes no arg="),
            (
                "cmd=./e arg={addr} assumes=misty-banqi",
                "assumes= is for an engine of another protocol",
            ),
        ] {
            let e = read(&format!("-engine {engine} -engine cmd=random"))
                .unwrap_err()
                .to_string();
            assert!(e.contains(words), "{engine}: {e}");
        }
        let e = read("-engine cmd=random").unwrap_err();
        assert_eq!(e, DialectError::Engines { count: 1 });
        assert!(e.to_string().contains("[[tournament.engine]]"));
        let e = read(&format!("random {two}")).unwrap_err();
        assert!(matches!(e, DialectError::Stray { .. }), "{e:?}");
        assert!(e.to_string().contains("anqi match ENGINE_A ENGINE_B"));
    }

    #[test]
    fn options_are_known_by_either_dash_and_quoted_words_split_back() {
        assert_eq!(option_name("-engine"), Some("engine"));
        assert_eq!(option_name("--rounds"), Some("rounds"));
        assert_eq!(option_name("-draw"), Some("draw"));
        assert_eq!(option_name("--games-of"), None);
        assert_eq!(option_name("engine"), None);
        for word in ["plain", "two words", "it's", "", "$HOME", "a\"b", "{addr}"] {
            let line = format!("x {}", shell_quote(word));
            assert_eq!(
                crate::quick_match::split_command(&line).unwrap(),
                ["x", word],
                "{word}"
            );
        }
    }
}
