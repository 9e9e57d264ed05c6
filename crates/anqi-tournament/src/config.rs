//! The `[tournament]` section: everything an event needs, documented key by key in
//! `tournament.toml`; `[tournament.each]`, the defaults every engine shares; and the
//! command line's overrides ([`Overrides`]).

mod book;
mod log_bytes;
mod ray;

pub use book::BookConfig;
pub use log_bytes::{EngineLogBytes, DEFAULT_EVENT_LOG_BYTES, DEFAULT_GAME_LOG_BYTES};
pub use ray::{OnEngineFailure, RayConfig};

use super::time_control::Tc;
use crate::bridge::Protocol;
use anqi_core::rules::ClockDefaults;
use anqi_core::settings::{Adjudicate, ClockConfig, LegalCounts};
use serde::{Deserialize, Serialize, Serializer};
use std::collections::BTreeMap;
use std::path::Path;

/// A tournament file: the `[tournament]` table (other tables, such as a server config's, are
/// ignored, so the section can live in `config.toml`).
#[derive(Debug, Deserialize)]
struct File {
    tournament: TournamentConfig,
}

/// The whole event. It serializes as the file reads it ([`TournamentConfig::to_toml`]).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TournamentConfig {
    /// Variant: a shipped name or a description file.
    #[serde(default = "default_variant")]
    pub variant: String,
    #[serde(default)]
    pub format: Format,
    /// Round robin: how many times every pairing is played.
    #[serde(default = "one")]
    pub cycles: u32,
    /// Deals per pairing and cycle. Each deal is played once per seat arrangement (twice, seats
    /// swapped, in a two-player game), so the luck of the deal cancels out.
    #[serde(default = "one")]
    pub deals: u32,
    /// Gauntlet: the engine that plays all the others (default: the first listed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gauntlet: Option<String>,
    /// A fixed master seed, for reproducible experiments: every deal and engine seed derives
    /// from it by a keyed function (`tournament::seeds`; tokens do not: they are fresh
    /// secrets, see `tournament::token`). Anyone who knows or guesses it computes every deal.
    /// Left out (the default), the event deals from a random master seed kept secret in its
    /// seed file until the event ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<String>,
    /// Where the event's random master seed is kept (created when the event starts, read by
    /// a resumed run and by every shard): by default `OUTPUT.seed`, beside the records. Not
    /// with `seed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed_file: Option<String>,
    /// `[tournament.book]`: the deal book the event plays, instead of dealing from its master
    /// seed ([`BookConfig`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub book: Option<BookConfig>,
    /// Address of the tournament's server. Spawned engines are told it through `{addr}`;
    /// external engines need a fixed one. The real address is printed on stderr.
    #[serde(default = "default_listen")]
    pub listen: String,
    /// Games played at once.
    #[serde(default = "one")]
    pub concurrency: u32,
    /// Records file (JSON lines), appended as each game ends; also the resume point.
    #[serde(default = "default_output")]
    pub output: String,
    /// Directory for the engines' stdout and stderr (see `engine_logs`).
    #[serde(default = "default_logs")]
    pub logs: String,
    /// How the engines' output is kept.
    #[serde(default)]
    pub engine_logs: EngineLogs,
    /// The most bytes of the engines' output kept: of one engine per game, and of all of them
    /// in one run of the event ([`EngineLogBytes`]); the rest is dropped and counted.
    #[serde(default = "default_engine_log_bytes")]
    pub engine_log_bytes: EngineLogBytes,
    /// Time an engine has to connect and send `init` after it is started.
    #[serde(default = "default_connect_timeout")]
    pub connect_timeout_ms: u64,
    /// Adjudicate a draw after this many plies (0: only the variant's rules end games).
    #[serde(default)]
    pub max_plies: u32,
    /// Whether a game the endgame tables decide ends with their verdict, as `[referee]
    /// adjudicate` (`"off"` by default).
    #[serde(default, serialize_with = "adjudicate_text")]
    pub adjudicate: Adjudicate,
    /// The endgame tables file for `adjudicate = "tables"`, built for the event's variant
    /// (`anqi tables build`), as `[referee] tables`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tables: Option<String>,
    /// Adjudication by the engines' scores, as `[referee] score_draw` and `score_resign`
    /// (cutechess's `-draw` and `-resign`, in their words); "" for none.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub score_draw: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub score_resign: String,
    /// How long a seat waits for an engine whose connection is lost, to take it back with its
    /// per-game token, as `[referee] rejoin_grace_ms` (0: a lost connection loses at once).
    #[serde(default)]
    pub rejoin_grace_ms: u64,
    /// Time control of every engine without a `tc` of its own, as a string (`40/60+0.6`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "tc_text"
    )]
    pub tc: Option<Tc>,
    /// Time control as a table of milliseconds; keys left out take the variant's
    /// `(clock ...)`. Not with `tc`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "clock_table"
    )]
    pub clock: Option<ClockConfig>,
    /// Print the standings on stderr every N finished games (0: only at the end).
    #[serde(default)]
    pub standings_every: u32,
    /// Early stopping for a two-engine match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sprt: Option<SprtConfig>,
    /// `[tournament.ray]`: the event on a Ray cluster ([`RayConfig`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ray: Option<RayConfig>,
    /// Whose legal-action counts the records keep at every ply, as `[records] legal_counts`.
    #[serde(default, serialize_with = "legal_counts_text")]
    pub legal_counts: LegalCounts,
    /// `[tournament.each]`: keys every engine takes unless it sets them itself. Already
    /// applied to `engines` by [`TournamentConfig::parse`]; kept to show where keys came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub each: Option<toml::Table>,
    #[serde(rename = "engine")]
    pub engines: Vec<EngineConfig>,
}

/// Where the engines' stdout and stderr go, in the `logs` directory.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum EngineLogs {
    /// One file per game and seat: `game-INDEX-seatN-NAME.log`.
    Game,
    /// One file per engine, `NAME.log`, appended: each line starts with `game INDEX seat N: `,
    /// so that games played at the same time stay apart.
    #[default]
    Engine,
    /// None: the output is thrown away.
    Off,
}

/// How engines are paired.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Every engine against every other (every group of N for N-player variants).
    #[default]
    RoundRobin,
    /// One engine against each of the others.
    Gauntlet,
}

/// SPRT parameters: H0 elo = elo0 against H1 elo = elo1 (logistic Elo), error rates.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SprtConfig {
    pub elo0: f64,
    pub elo1: f64,
    #[serde(default = "five_percent")]
    pub alpha: f64,
    #[serde(default = "five_percent")]
    pub beta: f64,
}

/// One player program.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct EngineConfig {
    pub name: String,
    /// Program to start for each game (absent for an external engine). It finds its token
    /// (to send as the SEED of `(init NAME SEED)`) in the environment variable `ANQI_TOKEN`.
    /// Placeholders in the command, its arguments and its environment: `{host}`, `{port}`,
    /// `{addr}` (`host:port`), `{seed}` (a number for the engine's own randomness), `{name}`,
    /// `{game}` (the game index), `{seat}`, and `{token}` for engines that cannot read the
    /// environment (on the command line, other local users can read it: see
    /// [`EngineConfig::token_on_command_line`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// Working directory of the program.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<String>,
    /// An external engine connects by itself for each of its games and identifies with this
    /// standing token as its SEED. It is a secret: whoever knows it can play that engine's
    /// games (`anqi token` makes a good one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// The protocol the engine speaks: `anqi` (it connects by itself), or `tcg`, `uci-banqi`,
    /// `cdc-platform`, for which anqi runs a bridge (`anqi bridge`, see protocol/BRIDGES.md)
    /// that starts the engine and translates.
    #[serde(default, serialize_with = "protocol_name")]
    pub protocol: Protocol,
    /// The rules the engine believes: an engine preset (`misty-banqi`, `ntu-engines`), a
    /// shipped variant or a description file. anqi warns where the event's differ, and
    /// translates the counters the protocol carries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assumes: Option<String>,
    /// Whether a bridged engine gets its protocol's optional commands (tcg: `num_repetition`,
    /// `num_moves_to_draw`) when it says it knows them; `false` leaves them out.
    #[serde(default = "yes")]
    pub optional_commands: bool,
    /// The engine's own time control (`40/60+0.6`): its clock follows it, whatever its
    /// opponents play with (time odds).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "tc_text"
    )]
    pub tc: Option<Tc>,
}

impl EngineConfig {
    /// Whether the engine's command or arguments carry `{token}`: command lines are readable by
    /// every local user, who could then take the seat first.
    pub fn token_on_command_line(&self) -> bool {
        let has = |s: &String| s.contains("{token}");
        self.command.iter().chain(&self.args).any(has)
    }
}

fn default_variant() -> String {
    "traditional".into()
}
fn default_listen() -> String {
    "127.0.0.1:0".into()
}
fn yes() -> bool {
    true
}

fn one() -> u32 {
    1
}
fn default_output() -> String {
    "tournament.jsonl".into()
}
pub(crate) fn default_engine_log_bytes() -> EngineLogBytes {
    EngineLogBytes::default()
}

fn default_logs() -> String {
    "tournament-logs".into()
}
fn default_connect_timeout() -> u64 {
    10_000
}
fn five_percent() -> f64 {
    0.05
}

// The values of other modules' and crates' types, written as the file writes them (their own
// deserializers read them back).

fn tc_text<S: Serializer>(tc: &Option<Tc>, s: S) -> Result<S::Ok, S::Error> {
    match tc {
        Some(tc) => s.serialize_some(&tc.text),
        None => s.serialize_none(),
    }
}

fn clock_table<S: Serializer>(clock: &Option<ClockConfig>, s: S) -> Result<S::Ok, S::Error> {
    /// `[clock]`'s keys, those set.
    #[derive(Serialize)]
    struct Clock {
        #[serde(skip_serializing_if = "Option::is_none")]
        game_ms: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        move_ms: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        increment_ms: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        period_moves: Option<u32>,
    }
    match clock {
        Some(c) => s.serialize_some(&Clock {
            game_ms: c.game_ms,
            move_ms: c.move_ms,
            increment_ms: c.increment_ms,
            period_moves: c.period_moves,
        }),
        None => s.serialize_none(),
    }
}

fn adjudicate_text<S: Serializer>(a: &Adjudicate, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(match a {
        Adjudicate::Off => "off",
        Adjudicate::Tables => "tables",
    })
}

fn legal_counts_text<S: Serializer>(l: &LegalCounts, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(match l {
        LegalCounts::Mover => "mover",
        LegalCounts::All => "all",
    })
}

fn protocol_name<S: Serializer>(p: &Protocol, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(p.name())
}

impl TournamentConfig {
    /// The configuration as a tournament file: a `[tournament]` table with every key written
    /// out (defaults too), which [`TournamentConfig::parse`] reads back as this configuration
    /// (`[tournament.each]` stays, already applied to the engines, which it leaves as they
    /// are). The Python package writes the files it hands `anqi tournament` with it.
    pub fn to_toml(&self) -> String {
        #[derive(Serialize)]
        struct FileOut<'a> {
            tournament: &'a TournamentConfig,
        }
        toml::to_string(&FileOut { tournament: self }).expect("a configuration serializes")
    }
}

/// A tournament file that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct TournamentConfigError(pub String);

impl TournamentConfig {
    /// Parses the `[tournament]` section of a TOML text.
    ///
    /// # Errors
    /// TOML mistakes, unknown keys, and settings that make no sense, each named.
    pub fn parse(text: &str) -> Result<TournamentConfig, TournamentConfigError> {
        // Each engine's own keys are read straight from the text, so mistakes there come
        // with their line; then, when there is a [tournament.each], the engines are read again
        // with its keys under theirs.
        let file: File = toml::from_str(text).map_err(|e| TournamentConfigError(e.to_string()))?;
        let mut t = file.tournament;
        if let Some(each) = &t.each {
            t.engines = with_each(text, each)?;
        }
        t.validate()?;
        Ok(t)
    }

    /// Applies the command line's overrides, then checks the result as a file is checked.
    ///
    /// # Errors
    /// Settings that make no sense (`--deals 0`).
    pub fn apply(&mut self, o: &Overrides) -> Result<(), TournamentConfigError> {
        if let Some(n) = o.concurrency {
            self.concurrency = n;
        }
        if let Some(n) = o.deals {
            self.deals = n;
        }
        if let Some(s) = &o.seed {
            self.seed = Some(s.clone());
            self.seed_file = None;
        }
        if let Some(f) = &o.seed_file {
            self.seed_file = Some(f.clone());
            self.seed = None;
        }
        if let Some(tc) = &o.tc {
            // The command line has the last word: every engine plays at it.
            self.tc = Some(tc.clone());
            self.clock = None;
            for e in &mut self.engines {
                e.tc = None;
            }
        }
        if let Some(n) = o.standings_every {
            self.standings_every = n;
        }
        if let Some(address) = &o.ray {
            self.ray.get_or_insert_with(RayConfig::default).address = Some(address.clone());
        }
        if let Some(file) = &o.book {
            let book = self.book.get_or_insert_with(|| BookConfig {
                file: file.clone(),
                order: crate::book::BookOrder::default(),
                skip: 0,
            });
            book.file = file.clone();
        }
        if let Some(order) = o.book_order {
            match &mut self.book {
                Some(book) => book.order = order,
                None => {
                    return Err(TournamentConfigError(
                        "--book-order needs a book (--book FILE, or [tournament.book])".into(),
                    ))
                }
            }
        }
        self.validate()
    }

    /// The Ray cluster the event runs on, if it runs on one.
    pub fn ray_address(&self) -> Option<&str> {
        self.ray.as_ref().and_then(|r| r.address.as_deref())
    }

    /// The engines' names, in the file's order (the standings' order).
    pub fn engine_names(&self) -> Vec<String> {
        self.engines.iter().map(|e| e.name.clone()).collect()
    }

    /// The clock settings engine `engine` (an index into `engines`) plays with: its own `tc`,
    /// else the event's `tc`, else `[tournament.clock]` over the variant's `(clock ...)`. When
    /// that last leaves no limit at all, a minute per move, so that a hanging engine cannot
    /// hang the event (an explicit `tc = "inf"` has no limit).
    pub fn clock_of(&self, engine: usize, variant: &ClockDefaults) -> ClockConfig {
        if let Some(tc) = self.engines[engine].tc.as_ref().or(self.tc.as_ref()) {
            return tc.clock.clone();
        }
        let mut clock = self.clock.clone().unwrap_or_default();
        if anqi_core::settings::TimeControl::resolve(&clock, variant).is_unlimited() {
            clock.move_ms = Some(60_000);
        }
        clock
    }

    /// Reads a tournament file.
    ///
    /// # Errors
    /// As [`TournamentConfig::parse`], or an unreadable file; messages name the file.
    pub fn load(path: &Path) -> Result<TournamentConfig, TournamentConfigError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| TournamentConfigError(format!("cannot read {}: {e}", path.display())))?;
        TournamentConfig::parse(&text)
            .map_err(|e| TournamentConfigError(format!("{}: {}", path.display(), e.0)))
    }

    /// Adjudication by tables without a tables file, and score rules that do not read.
    fn validate_adjudication(&self) -> Result<(), TournamentConfigError> {
        if self.adjudicate == Adjudicate::Tables && self.tables.is_none() {
            return Err(TournamentConfigError(
                "adjudicate = \"tables\" needs tables = \"FILE\", an endgame tables file built for the event's variant (anqi tables build)"
                    .into(),
            ));
        }
        anqi_core::scores::ScoreRules::read(&self.score_draw, &self.score_resign)
            .map(drop)
            .map_err(|e| TournamentConfigError(e.to_string()))
    }

    fn validate(&self) -> Result<(), TournamentConfigError> {
        let fail = |m: String| Err(TournamentConfigError(m));
        // One engine is enough for a single-player event; the schedule asks a competitive one
        // for as many engines as its seats.
        if self.engines.is_empty() {
            return fail("a tournament needs [[tournament.engine]] entries".into());
        }
        for (i, e) in self.engines.iter().enumerate() {
            if let Err(why) = check_engine_name(&e.name) {
                return fail(format!("engine name {:?}: {why}", e.name));
            }
            if self.engines[..i].iter().any(|o| o.name == e.name) {
                return fail(format!("two engines are named {:?}", e.name));
            }
            if let Some(o) = self.engines[..i]
                .iter()
                .find(|o| o.token.is_some() && o.token == e.token)
            {
                // Either could take the other's seats.
                return fail(format!(
                    "engines {:?} and {:?} have the same token: give each its own (anqi token)",
                    o.name, e.name
                ));
            }
            match (&e.command, &e.token) {
                (None, None) => {
                    return fail(format!(
                    "engine {:?} needs a command to start, or a token to connect with by itself",
                    e.name
                ))
                }
                (Some(_), Some(_)) => {
                    return fail(format!(
                        "engine {:?}: give a command or a token, not both",
                        e.name
                    ))
                }
                (None, Some(_)) if e.protocol.is_bridged() => {
                    return fail(format!(
                        "engine {:?} connects by itself (it has a token), so anqi cannot bridge it: leave out protocol = \"{}\", and run `anqi bridge --protocol {} --connect ADDR --token TOKEN -- ENGINE` for each of its games",
                        e.name, e.protocol, e.protocol
                    ))
                }
                _ => {}
            }
            check_ack_timeout(e).map_err(TournamentConfigError)?;
            if !e.optional_commands && e.protocol != crate::bridge::Protocol::Tcg {
                return fail(format!(
                    "engine {:?}: optional_commands = false leaves out the tcg protocol's optional commands; its protocol is {}",
                    e.name, e.protocol
                ));
            }
        }
        if self.seed.is_some() && self.seed_file.is_some() {
            return fail(
                "give seed (a fixed master seed) or seed_file (where a random one is kept), not both"
                    .into(),
            );
        }
        if let Some(book) = &self.book {
            book.check().map_err(TournamentConfigError)?;
        }
        if let Some(seed) = &self.seed {
            super::seeds::MasterSeed::fixed(seed)
                .map_err(|e| TournamentConfigError(format!("seed: {e}")))?;
        }
        if self.tc.is_some() && self.clock.is_some() {
            return fail(
                "give the event's time control once: tc = \"...\" or [tournament.clock], not both"
                    .into(),
            );
        }
        self.validate_adjudication()?;
        if self.concurrency == 0 || self.deals == 0 || self.cycles == 0 {
            return fail("concurrency, deals and cycles must be at least 1".into());
        }
        if let Some(g) = &self.gauntlet {
            if !self.engines.iter().any(|e| &e.name == g) {
                return fail(format!("gauntlet engine {g:?} is not among the engines"));
            }
        }
        if let Some(ray) = &self.ray {
            ray.check().map_err(TournamentConfigError)?;
        }
        if let Some(s) = &self.sprt {
            if self.engines.len() != 2 {
                return fail("SPRT needs exactly two engines".into());
            }
            if s.elo1.partial_cmp(&s.elo0) != Some(std::cmp::Ordering::Greater)
                || !(0.0..0.5).contains(&s.alpha)
                || !(0.0..0.5).contains(&s.beta)
            {
                return fail("SPRT needs elo1 > elo0 and alpha, beta in (0, 0.5)".into());
            }
        }
        Ok(())
    }
}

/// An engine's acknowledgement time, set in its `env` as `ANQI_ACK_TIMEOUT` (the bridge reads
/// it there: `anqi bridge --ack-timeout`): whole seconds the bridge takes, for an engine with a
/// bridge; checked here so that a mistake stops the file, not every game.
fn check_ack_timeout(e: &EngineConfig) -> Result<(), String> {
    use crate::bridge::{ACK_TIMEOUT_ENV, MAX_TIMEOUT_SECONDS};
    let Some(seconds) = e.env.get(ACK_TIMEOUT_ENV) else {
        return Ok(());
    };
    if !e.protocol.is_bridged() {
        return Err(format!(
            "engine {:?}: {ACK_TIMEOUT_ENV} is the acknowledgement time of a bridged engine (tcg, uci-banqi, cdc-platform); its protocol is {}",
            e.name, e.protocol
        ));
    }
    match seconds.trim().parse::<u64>() {
        Ok(n) if (1..=MAX_TIMEOUT_SECONDS).contains(&n) => Ok(()),
        _ => Err(format!(
            "engine {:?}: {ACK_TIMEOUT_ENV} = {seconds:?}: give whole seconds, 1 to {MAX_TIMEOUT_SECONDS} (the default is {})",
            e.name,
            crate::bridge::DEFAULT_ACK_SECONDS
        )),
    }
}

/// The longest engine name accepted, in bytes.
pub const MAX_ENGINE_NAME_BYTES: usize = 64;

/// Why a text cannot name an engine ([`check_engine_name`]), in words that follow
/// `engine name "NAME": `.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EngineNameError {
    #[error("empty")]
    Empty,
    /// Longer than [`MAX_ENGINE_NAME_BYTES`].
    #[error("longer than {MAX_ENGINE_NAME_BYTES} bytes")]
    TooLong,
    /// `.` or `..`: a directory, not a log file of its own.
    #[error("not a file name of its own")]
    NotAFileName,
    /// A path separator (`/`, `\`).
    #[error("{0:?} is not allowed: the name is also its log file's name")]
    Separator(char),
    /// A control character, or a line or paragraph separator.
    #[error("the control character {0:?} is not allowed: names are printed one per line")]
    Control(char),
}

/// Whether `name` can name an engine: it names the engine's log file (`logs/NAME.log`) and its
/// column in every table, so it is a file name of its own, printable, on one line.
///
/// # Errors
/// Why not.
pub fn check_engine_name(name: &str) -> Result<(), EngineNameError> {
    if name.is_empty() {
        return Err(EngineNameError::Empty);
    }
    if name.len() > MAX_ENGINE_NAME_BYTES {
        return Err(EngineNameError::TooLong);
    }
    if name == "." || name == ".." {
        return Err(EngineNameError::NotAFileName);
    }
    if let Some(c) = name.chars().find(|&c| matches!(c, '/' | '\\')) {
        return Err(EngineNameError::Separator(c));
    }
    if let Some(c) = name
        .chars()
        .find(|&c| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}'))
    {
        return Err(EngineNameError::Control(c));
    }
    Ok(())
}

/// The command line's settings that replace the file's (`anqi tournament --deals 100`).
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    pub concurrency: Option<u32>,
    pub deals: Option<u32>,
    /// A fixed master seed (replaces `seed` and `seed_file`).
    pub seed: Option<String>,
    /// Where the random master seed is kept (replaces `seed` and `seed_file`).
    pub seed_file: Option<String>,
    /// Every engine's time control: replaces `tc`, `[tournament.clock]` and the engines' own.
    pub tc: Option<Tc>,
    pub standings_every: Option<u32>,
    /// Play on this Ray cluster (`[tournament.ray] address`).
    pub ray: Option<String>,
    /// The deal book to play (`[tournament.book] file`), and its order.
    pub book: Option<String>,
    pub book_order: Option<crate::book::BookOrder>,
}

/// Keys an engine must set itself: `[tournament.each]` may not give them.
const OWN_KEYS: [&str; 2] = ["name", "token"];

/// Reads the engines of `text` again, each one's table laid over a copy of `each`: its own keys
/// win, tables (`env`) are merged key by key, everything else (`args`) is replaced whole. Any
/// key an engine takes, present or future, is thus shared without code of its own here.
fn with_each(text: &str, each: &toml::Table) -> Result<Vec<EngineConfig>, TournamentConfigError> {
    let fail = |m: String| TournamentConfigError(m);
    if let Some(key) = OWN_KEYS.iter().find(|k| each.contains_key(**k)) {
        return Err(fail(format!(
            "[tournament.each] may not set {key}: every engine needs its own"
        )));
    }
    // Its keys alone, under a stand-in name, so a mistake in them is reported as theirs.
    let mut alone = each.clone();
    alone.insert("name".into(), toml::Value::String("each".into()));
    toml::Value::Table(alone)
        .try_into::<EngineConfig>()
        .map_err(|e| fail(format!("[tournament.each]: {}", e.message())))?;
    let doc: toml::Table = toml::from_str(text).map_err(|e| fail(e.to_string()))?;
    let engines = doc
        .get("tournament")
        .and_then(|t| t.get("engine"))
        .and_then(toml::Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    engines
        .iter()
        .enumerate()
        .map(|(i, own)| {
            let mut merged = each.clone();
            if let Some(own) = own.as_table() {
                overlay(&mut merged, own.clone());
            }
            let name = merged
                .get("name")
                .and_then(toml::Value::as_str)
                .map_or(format!("#{}", i + 1), |n| format!("{n:?}"));
            toml::Value::Table(merged)
                .try_into::<EngineConfig>()
                .map_err(|e| {
                    fail(format!(
                        "engine {name} with [tournament.each]: {}",
                        e.message()
                    ))
                })
        })
        .collect()
}

/// Overlays an engine's own keys on `[tournament.each]`'s, table by table (a value that is not
/// a table replaces the shared one): the same overlay as a server's `config.toml` on its
/// defaults (`anqi_server::config::merge`), written here so that reading a tournament's file
/// needs no server.
fn overlay(base: &mut toml::Table, own: toml::Table) {
    for (key, value) in own {
        match (base.get_mut(&key), value) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => overlay(b, o),
            (_, value) => {
                base.insert(key, value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "[tournament]\n";

    #[test]
    fn engine_names_must_name_a_log_file_on_one_line() {
        let with = |name: &str| {
            TournamentConfig::parse(&format!(
                "{HEAD}[[tournament.engine]]\nname = {}\ncommand = \"x\"\n",
                toml::Value::String(name.into())
            ))
        };
        assert!(with("search-2 (v1.3)").is_ok());
        for (bad, why) in [
            ("a/b", "'/'"),
            ("..", "not a file name"),
            ("", "empty"),
            ("two\nlines", "control character"),
            ("tab\there", "control character"),
            ("x\u{2028}y", "control character"),
        ] {
            let e = with(bad).unwrap_err().to_string();
            assert!(e.contains(why), "{bad:?}: {e}");
        }
        let e = with(&"n".repeat(65)).unwrap_err().to_string();
        assert!(e.contains("longer than 64"), "{e}");
        // The reasons, for a caller that branches on them.
        assert_eq!(
            check_engine_name("a\\b"),
            Err(EngineNameError::Separator('\\'))
        );
        assert_eq!(check_engine_name("."), Err(EngineNameError::NotAFileName));
        assert_eq!(
            check_engine_name("a\rb"),
            Err(EngineNameError::Control('\r'))
        );
        assert_eq!(
            check_engine_name(&"n".repeat(65)),
            Err(EngineNameError::TooLong)
        );
        assert_eq!(check_engine_name(&"n".repeat(64)), Ok(()));
        assert_eq!(
            EngineNameError::Separator('/').to_string(),
            "'/' is not allowed: the name is also its log file's name"
        );
    }

    #[test]
    fn two_external_engines_may_not_share_a_token() {
        let text = format!(
            "{HEAD}[[tournament.engine]]\nname = \"a\"\ntoken = \"same\"\n[[tournament.engine]]\nname = \"b\"\ntoken = \"same\"\n"
        );
        let e = TournamentConfig::parse(&text).unwrap_err();
        assert!(e.0.contains("same token"), "{e}");
    }

    #[test]
    fn a_token_placeholder_in_the_command_line_is_noticed() {
        let text = format!(
            "{HEAD}[[tournament.engine]]\nname = \"a\"\ncommand = \"bot\"\nargs = [\"--token\", \"{{token}}\"]\n[[tournament.engine]]\nname = \"b\"\ncommand = \"bot\"\nenv = {{ TOKEN = \"{{token}}\" }}\n"
        );
        let t = TournamentConfig::parse(&text).unwrap();
        assert!(t.engines[0].token_on_command_line());
        assert!(
            !t.engines[1].token_on_command_line(),
            "the environment is private"
        );
    }

    #[test]
    fn optional_commands_are_left_out_of_tcg_engines_only() {
        let entry = |protocol: &str| {
            format!(
                "{HEAD}[[tournament.engine]]\nname = \"a\"\nprotocol = \"{protocol}\"\ncommand = \"e\"\noptional_commands = false\n[[tournament.engine]]\nname = \"b\"\ncommand = \"own\"\n"
            )
        };
        let t = TournamentConfig::parse(&entry("tcg")).unwrap();
        assert!(!t.engines[0].optional_commands && t.engines[1].optional_commands);
        let e = TournamentConfig::parse(&entry("uci-banqi")).unwrap_err();
        assert!(
            e.0.contains("optional_commands") && e.0.contains("uci-banqi"),
            "{e}"
        );
    }

    fn engines(extra: &str) -> String {
        format!(
            "[[tournament.engine]]\nname = \"a\"\n{extra}\n[[tournament.engine]]\nname = \"b\"\ncommand = \"own\"\nenv = {{ B = \"2\" }}\n"
        )
    }

    #[test]
    fn each_gives_every_engine_its_keys_under_their_own() {
        let text = format!(
            "{HEAD}[tournament.each]\ncommand = \"bot\"\nargs = [\"--connect\", \"{{addr}}\"]\nenv = {{ A = \"1\" }}\ntc = \"st=1\"\n{}",
            engines("args = [\"--mine\"]")
        );
        let t = TournamentConfig::parse(&text).unwrap();
        let (a, b) = (&t.engines[0], &t.engines[1]);
        assert_eq!(a.command.as_deref(), Some("bot"));
        assert_eq!(
            a.args,
            vec!["--mine"],
            "an engine's own array replaces the shared one"
        );
        assert_eq!(a.env.get("A").map(String::as_str), Some("1"));
        assert_eq!(b.command.as_deref(), Some("own"));
        assert_eq!(b.args, vec!["--connect", "{addr}"]);
        let env: Vec<_> = b.env.keys().map(String::as_str).collect();
        assert_eq!(env, ["A", "B"], "tables merge key by key");
        assert_eq!(b.tc.as_ref().map(|t| t.text.as_str()), Some("st=1"));
    }

    #[test]
    fn adjudication_is_off_by_default_and_needs_tables() {
        let t =
            TournamentConfig::parse(&format!("{HEAD}{}", engines("command = \"bot\""))).unwrap();
        assert_eq!((t.adjudicate, t.tables), (Adjudicate::Off, None));
        let e = TournamentConfig::parse(&format!(
            "{HEAD}adjudicate = \"tables\"\n{}",
            engines("command = \"bot\"")
        ))
        .unwrap_err();
        assert!(e.0.contains("adjudicate = \"tables\" needs tables"), "{e}");
        let e = TournamentConfig::parse(&format!(
            "{HEAD}adjudicate = \"yes\"\n{}",
            engines("command = \"bot\"")
        ))
        .unwrap_err();
        assert!(e.0.contains("\"off\" or \"tables\""), "{e}");
        let t = TournamentConfig::parse(&format!(
            "{HEAD}adjudicate = \"tables\"\ntables = \"t.tables\"\n{}",
            engines("command = \"bot\"")
        ))
        .unwrap();
        assert_eq!(
            (t.adjudicate, t.tables.as_deref()),
            (Adjudicate::Tables, Some("t.tables"))
        );
    }

    #[test]
    fn each_mistakes_are_named() {
        let text = format!("{HEAD}[tournament.each]\ncomand = \"bot\"\n{}", engines(""));
        let e = TournamentConfig::parse(&text).unwrap_err();
        assert!(
            e.0.contains("[tournament.each]") && e.0.contains("comand"),
            "{e}"
        );
        let text = format!("{HEAD}[tournament.each]\nname = \"x\"\n{}", engines(""));
        let e = TournamentConfig::parse(&text).unwrap_err();
        assert!(e.0.contains("may not set name"), "{e}");
        let text = format!("{HEAD}[tournament.each]\ntc = \"60+\"\n{}", engines(""));
        let e = TournamentConfig::parse(&text).unwrap_err();
        assert!(e.0.contains("\"60+\"") && e.0.contains("40/60+0.6"), "{e}");
        // A mistake in an engine's own keys keeps its line.
        let text = format!(
            "{HEAD}[tournament.each]\ncommand = \"bot\"\n{}",
            engines("tc = 5")
        );
        let e = TournamentConfig::parse(&text).unwrap_err();
        assert!(e.0.contains("line"), "{e}");
    }

    #[test]
    fn time_controls_resolve_engine_first_and_tc_excludes_the_clock_table() {
        let text = format!(
            "{HEAD}tc = \"40/60+0.6\"\n{}",
            engines("command = \"bot\"\ntc = \"st=0.05\"")
        );
        let t = TournamentConfig::parse(&text).unwrap();
        let none = ClockDefaults::default();
        assert_eq!(t.clock_of(0, &none).move_ms, Some(50));
        assert_eq!(t.clock_of(1, &none).period_moves, Some(40));
        let text = format!(
            "{HEAD}tc = \"10+1\"\n[tournament.clock]\nmove_ms = 5\n{}",
            engines("command = \"bot\"")
        );
        let e = TournamentConfig::parse(&text).unwrap_err();
        assert!(e.0.contains("not both"), "{e}");
        // Nothing anywhere: a minute per move; inf: nothing.
        let text = format!("{HEAD}{}", engines("command = \"bot\""));
        let mut t = TournamentConfig::parse(&text).unwrap();
        assert_eq!(t.clock_of(0, &none).move_ms, Some(60_000));
        let o = Overrides {
            tc: Some("inf".parse().unwrap()),
            deals: Some(7),
            ..Overrides::default()
        };
        t.apply(&o).unwrap();
        assert_eq!(t.clock_of(0, &none).move_ms, Some(0));
        assert_eq!(t.deals, 7);
        let o = Overrides {
            concurrency: Some(0),
            ..Overrides::default()
        };
        assert!(t.apply(&o).is_err());
    }

    #[test]
    fn legal_counts_take_the_server_configs_values() {
        let text = format!(
            "{HEAD}legal_counts = \"all\"\n{}",
            engines("command = \"bot\"")
        );
        let t = TournamentConfig::parse(&text).unwrap();
        assert_eq!(t.legal_counts, LegalCounts::All);
        let text = format!(
            "{HEAD}legal_counts = \"most\"\n{}",
            engines("command = \"bot\"")
        );
        let e = TournamentConfig::parse(&text).unwrap_err();
        assert!(
            e.0.contains("legal_counts = \"most\"") && e.0.contains("\"mover\" or \"all\""),
            "{e}"
        );
    }

    #[test]
    fn a_configuration_written_out_reads_back_the_same() {
        let text = format!(
            "{HEAD}variant = \"2v2\"\nformat = \"gauntlet\"\ngauntlet = \"b\"\ndeals = 3\nseed = \"fixed\"\n\
             engine_logs = \"game\"\nadjudicate = \"tables\"\ntables = \"t.tables\"\n\
             legal_counts = \"all\"\nmax_plies = 300\n\
             [tournament.clock]\nmove_ms = 5\nperiod_moves = 40\n\
             [tournament.sprt]\nelo0 = -1.5\nelo1 = 3\n\
             [tournament.each]\nenv = {{ SHARED = \"1\" }}\n\
             [[tournament.engine]]\nname = \"a\"\nprotocol = \"tcg\"\ncommand = \"e\"\n\
             optional_commands = false\ntc = \"tc=40/60+0.6\"\nassumes = \"ntu-engines\"\n\
             [[tournament.engine]]\nname = \"b\"\ntoken = \"secret\"\ndir = \"/tmp\"\n\
             env = {{ B = \"two words\" }}\n"
        );
        let t = TournamentConfig::parse(&text).unwrap();
        let written = t.to_toml();
        assert_eq!(TournamentConfig::parse(&written).unwrap(), t, "{written}");
        // And the shipped example, with its every key.
        let shipped = TournamentConfig::parse(include_str!("../../../tournament.toml")).unwrap();
        assert_eq!(
            TournamentConfig::parse(&shipped.to_toml()).unwrap(),
            shipped
        );
        // A time control as a string is written as its text.
        let text = format!("{HEAD}tc = \"st=2\"\n{}", engines("command = \"bot\""));
        let written = TournamentConfig::parse(&text).unwrap().to_toml();
        assert!(written.contains("tc = \"st=2\""), "{written}");
    }

    #[test]
    fn the_shipped_example_shows_the_defaults() {
        let text = include_str!("../../../tournament.toml");
        let shipped = TournamentConfig::parse(text).unwrap();
        // The same engines with every other key left out.
        let doc: toml::Table = toml::from_str(text).unwrap();
        let mut section = toml::Table::new();
        section.insert("engine".into(), doc["tournament"]["engine"].clone());
        let mut bare = toml::Table::new();
        bare.insert("tournament".into(), toml::Value::Table(section));
        let bare = TournamentConfig::parse(&toml::to_string(&bare).unwrap()).unwrap();
        assert_eq!(shipped, bare);
    }
}
