//! The `[tournament]` section: everything an event needs, documented key by key in
//! `tournament.toml`.

use crate::config::ClockConfig;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// A tournament file: the `[tournament]` table (other tables, such as a server config's, are
/// ignored, so the section can live in `config.toml`).
#[derive(Debug, Deserialize)]
struct File {
    tournament: TournamentConfig,
}

/// The whole event.
#[derive(Clone, Debug, Deserialize, PartialEq)]
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
    #[serde(default)]
    pub gauntlet: Option<String>,
    /// Master seed: every deal and engine seed derives from it and the game's index (tokens do
    /// not: they are fresh secrets, see `tournament::token`).
    #[serde(default = "default_seed")]
    pub seed: String,
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
    /// Directory for the engines' stdout and stderr, one file per engine per game.
    #[serde(default = "default_logs")]
    pub logs: String,
    /// Time an engine has to connect and send `init` after it is started.
    #[serde(default = "default_connect_timeout")]
    pub connect_timeout_ms: u64,
    /// Adjudicate a draw after this many plies (0: only the variant's rules end games).
    #[serde(default)]
    pub max_plies: u32,
    /// Time control; keys left out take the variant's `(clock ...)`.
    #[serde(default)]
    pub clock: ClockConfig,
    /// Early stopping for a two-engine match.
    #[serde(default)]
    pub sprt: Option<SprtConfig>,
    #[serde(rename = "engine")]
    pub engines: Vec<EngineConfig>,
}

/// How engines are paired.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Every engine against every other (every group of N for N-player variants).
    #[default]
    RoundRobin,
    /// One engine against each of the others.
    Gauntlet,
}

/// SPRT parameters: H0 elo = elo0 against H1 elo = elo1 (logistic Elo), error rates.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
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
#[derive(Clone, Debug, Deserialize, PartialEq)]
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
    #[serde(default)]
    pub command: Option<String>,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Working directory of the program.
    #[serde(default)]
    pub dir: Option<String>,
    /// An external engine connects by itself for each of its games and identifies with this
    /// standing token as its SEED. It is a secret: whoever knows it can play that engine's
    /// games (`anqi token` makes a good one).
    #[serde(default)]
    pub token: Option<String>,
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
fn one() -> u32 {
    1
}
fn default_seed() -> String {
    "anqi".into()
}
fn default_output() -> String {
    "tournament.jsonl".into()
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
        let file: File = toml::from_str(text).map_err(|e| TournamentConfigError(e.to_string()))?;
        let t = file.tournament;
        t.validate()?;
        Ok(t)
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

    fn validate(&self) -> Result<(), TournamentConfigError> {
        let fail = |m: String| Err(TournamentConfigError(m));
        if self.engines.len() < 2 {
            return fail("a tournament needs at least two [[tournament.engine]] entries".into());
        }
        for (i, e) in self.engines.iter().enumerate() {
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
                _ => {}
            }
        }
        if self.concurrency == 0 || self.deals == 0 || self.cycles == 0 {
            return fail("concurrency, deals and cycles must be at least 1".into());
        }
        if let Some(g) = &self.gauntlet {
            if !self.engines.iter().any(|e| &e.name == g) {
                return fail(format!("gauntlet engine {g:?} is not among the engines"));
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "[tournament]\n";

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
}
