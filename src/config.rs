//! Server configuration: the TOML file documented line by line in the repository's
//! `config.toml`, which is also built in as the defaults.

use serde::Deserialize;
use std::path::Path;

/// The repository's `config.toml`, the defaults of every key.
pub const DEFAULT_CONFIG: &str = include_str!("../config.toml");

/// The whole configuration.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub server: ServerConfig,
    pub referee: RefereeConfig,
    pub clock: ClockConfig,
    pub seed: SeedConfig,
    pub records: RecordsConfig,
}

/// `[server]`: listening, limits, the variant.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    pub listen: String,
    pub variant: String,
    pub max_connections: usize,
    pub handshake_timeout_ms: u64,
    pub max_frame_bytes: usize,
    pub max_nesting: usize,
    pub write_queue: usize,
}

/// What the referee does about a fault.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Ruling {
    /// Reply an error; prompt the mover again.
    Error,
    /// Reply an error; the player loses.
    Lose,
    /// Accept it (only for `stale_board`).
    Ignore,
}

/// `[referee]`: how faults are ruled.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct RefereeConfig {
    pub illegal_action: Ruling,
    pub stale_board: Ruling,
    pub out_of_turn: Ruling,
    pub max_errors: u32,
    pub max_plies: u32,
}

/// `[clock]`: time control, in milliseconds (0 = off; absent = the variant's default).
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ClockConfig {
    pub game_ms: Option<u64>,
    pub move_ms: Option<u64>,
    pub increment_ms: Option<u64>,
}

/// `[seed]`: what goes into each deal.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SeedConfig {
    pub server: String,
    pub clients: bool,
}

/// `[records]`: where finished games go.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct RecordsConfig {
    pub path: String,
}

/// A configuration that cannot be used, with what is wrong.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

impl Default for Config {
    fn default() -> Config {
        Config::parse(DEFAULT_CONFIG).expect("the built-in config.toml is valid")
    }
}

impl Config {
    /// Parses a configuration; keys it leaves out take the built-in defaults.
    ///
    /// # Errors
    /// TOML syntax, unknown keys, wrong types, or values that make no sense.
    pub fn parse(text: &str) -> Result<Config, ConfigError> {
        let mut base: toml::Table = toml::from_str(DEFAULT_CONFIG).expect("built-in config parses");
        let user: toml::Table = toml::from_str(text).map_err(|e| ConfigError(e.to_string()))?;
        merge(&mut base, user);
        let config: Config = toml::Value::Table(base)
            .try_into()
            .map_err(|e: toml::de::Error| ConfigError(e.to_string()))?;
        config.validate()?;
        Ok(config)
    }

    /// Reads and parses a configuration file.
    ///
    /// # Errors
    /// As [`Config::parse`], or when the file cannot be read; the message names the file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ConfigError(format!("cannot read {}: {e}", path.display())))?;
        Config::parse(&text).map_err(|e| ConfigError(format!("{}: {}", path.display(), e.0)))
    }

    fn validate(&self) -> Result<(), ConfigError> {
        let r = &self.referee;
        if r.illegal_action == Ruling::Ignore || r.out_of_turn == Ruling::Ignore {
            return Err(ConfigError(
                "referee: \"ignore\" is only allowed for stale_board; use \"error\" or \"lose\""
                    .into(),
            ));
        }
        let s = &self.server;
        if s.max_connections == 0 || s.write_queue == 0 {
            return Err(ConfigError(
                "server: max_connections and write_queue must be at least 1".into(),
            ));
        }
        if s.max_nesting < 2 {
            return Err(ConfigError(
                "server: max_nesting below 2 refuses every message".into(),
            ));
        }
        if s.max_frame_bytes < 64 {
            return Err(ConfigError(
                "server: max_frame_bytes below 64 refuses ordinary messages".into(),
            ));
        }
        Ok(())
    }
}

/// Overlays `user` on `base`, table by table.
fn merge(base: &mut toml::Table, user: toml::Table) {
    for (k, v) in user {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(u)) => merge(b, u),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_defaults_parse() {
        let c = Config::default();
        assert_eq!(c.server.variant, "traditional");
        assert_eq!(
            c.clock,
            ClockConfig::default(),
            "the variant decides unless configured"
        );
        assert_eq!(c.referee.illegal_action, Ruling::Error);
    }

    #[test]
    fn partial_files_keep_the_other_defaults() {
        let c = Config::parse("[clock]\nmove_ms = 500\n").unwrap();
        assert_eq!(c.clock.move_ms, Some(500));
        assert_eq!(c.clock.game_ms, None);
        assert_eq!(c.server, Config::default().server);
    }

    #[test]
    fn mistakes_are_named() {
        let e = Config::parse("[clock]\nmove_msec = 5\n").unwrap_err();
        assert!(e.0.contains("move_msec"), "{e}");
        let e = Config::parse("[referee]\nillegal_action = \"ignore\"\n").unwrap_err();
        assert!(e.0.contains("stale_board"), "{e}");
        let e = Config::parse("[referee]\nillegal_action = \"shrug\"\n").unwrap_err();
        assert!(e.0.contains("shrug") || e.0.contains("variant"), "{e}");
    }
}
