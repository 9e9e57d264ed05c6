//! Server configuration: the TOML file documented line by line in the repository's
//! `config.toml`, which is also built in as the defaults.

use anqi_core::rules::Variant;
use anqi_core::scores::ScoreRules;
use anqi_core::tables::{TableRules, Tables};
use serde::Deserialize;
use std::path::Path;
use std::sync::Arc;

// The values this file shares with a tournament's, defined with the rules core so that a
// tournament's configuration is read without the server.
pub use anqi_core::settings::{Adjudicate, ClockConfig, LegalCounts};

/// The repository's `config.toml`, the defaults of every key.
pub const DEFAULT_CONFIG: &str = include_str!("../../../config.toml");

/// The whole configuration.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub server: ServerConfig,
    pub referee: RefereeConfig,
    pub clock: ClockConfig,
    pub seed: SeedConfig,
    pub records: RecordsConfig,
    pub http: HttpConfig,
    pub ladder: LadderConfig,
    pub metrics: MetricsConfig,
}

/// `[ladder]`: a rated ladder of bot accounts (protocol/LADDER.md).
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct LadderConfig {
    /// The ladder's database (SQLite); empty: the server runs no ladder.
    pub database: String,
    /// This server's name in the database, written in its games' records.
    pub server: String,
    /// Connections an account may hold at once, waiting or playing.
    pub connections_per_account: usize,
    /// Games an account may play at once.
    pub games_per_account: usize,
    /// How many of an account's latest games count against meeting the same opponent again.
    pub variety: usize,
    /// `POST /api/ladder/accounts` makes an account for whoever asks (bots registering).
    pub registration: bool,
    /// People in the web seats (`[http] humans`) without an account play as guests.
    pub guests: bool,
    /// Accounts asked for (registrations and guests) within an hour, in all and per client
    /// network (counted by `[server]`'s prefixes); 0: no cap.
    pub registrations_per_hour: usize,
    pub registrations_per_hour_per_address: usize,
}

/// `[server]`: listening, limits, the variant.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    pub listen: String,
    pub variant: String,
    pub max_connections: usize,
    pub max_connections_per_address: usize,
    /// The prefixes a client's network is counted by for the per-address cap: an IPv4
    /// address's first `ipv4_prefix` bits, an IPv6 address's first `ipv6_prefix`.
    pub ipv4_prefix: u8,
    pub ipv6_prefix: u8,
    /// Players waiting for a game or playing one at once from one client network, with
    /// seating by arrival (0: no cap; no cap either with `max_connections_per_address = 0`).
    pub max_seats_per_address: usize,
    pub handshake_timeout_ms: u64,
    pub max_frame_bytes: usize,
    pub max_nesting: usize,
    pub write_queue_bytes: usize,
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
    /// How long a player has for its first action in a game, from its first prompt, in
    /// milliseconds; past it the game is aborted (termination `aborted`) while no ply has been
    /// played, and the player loses on time (`time`) in a game under way. 0: no such limit.
    /// Games a tournament orders have none: their clocks rule.
    pub first_move_ms: u64,
    /// How long a seat waits for its player after a lost connection (the `rejoin`
    /// extension, or a tournament's per-game token), in milliseconds; 0: a lost connection
    /// loses at once.
    pub rejoin_grace_ms: u64,
    /// Whether the referee ends a game its endgame tables decide (`"tables"`), after every
    /// ply; `"off"` by default.
    #[serde(default)]
    pub adjudicate: Adjudicate,
    /// The endgame tables file (`anqi tables build`) for `adjudicate = "tables"`, built for
    /// the variant played; "" for none. Checked when the server starts, whenever it is set.
    #[serde(default)]
    pub tables: String,
    /// Adjudication by the engines' scores (`anqi_core::scores`), in cutechess's words: a
    /// draw (`"movenumber=40 movecount=8 score=10"`) and a loss (`"movecount=3 score=600
    /// twosided=false"`); "" for none.
    #[serde(default)]
    pub score_draw: String,
    #[serde(default)]
    pub score_resign: String,
}

impl RefereeConfig {
    /// The endgame tables the referee adjudicates by, opened for `variant`: `None` unless
    /// `adjudicate = "tables"`. Opening reads the file's header only; each material's values
    /// are read when a game first reaches a position of it. A `tables` file set while
    /// adjudication is off is opened and checked all the same, and not used.
    ///
    /// # Errors
    /// `adjudicate = "tables"` without `tables`, or a `tables` file that cannot be read, is
    /// not a tables file, or was built for other rules than `variant`'s (or a variant the
    /// tables cannot hold).
    pub fn open_tables(&self, variant: &Arc<Variant>) -> Result<Option<Arc<Tables>>, ConfigError> {
        if self.adjudicate == Adjudicate::Tables && self.tables.is_empty() {
            return Err(ConfigError(Adjudicate::NEEDS_TABLES.into()));
        }
        if self.tables.is_empty() {
            return Ok(None);
        }
        let tables = open_tables(Path::new(&self.tables), variant.clone())
            .map_err(|e| ConfigError(format!("referee: tables: {e}")))?;
        Ok((self.adjudicate == Adjudicate::Tables).then(|| Arc::new(tables)))
    }
}

/// Opens the endgame tables file at `path` for `variant`'s rules (its header read and checked
/// against the rules and the file: `anqi_core::tables::file::open`).
///
/// # Errors
/// [`TablesError::Variant`]: the variant is one endgame tables cannot hold.
/// [`TablesError::File`]: the file cannot be read, is not a tables file of this format,
/// holds tables of other rules, or its header does not hold together (a length past the end
/// of the file, say). The message says which.
pub fn open_tables(path: &Path, variant: Arc<Variant>) -> Result<Tables, TablesError> {
    let rules = TableRules::new(variant).map_err(TablesError::Variant)?;
    Tables::open(path, rules).map_err(TablesError::File)
}

/// Why the endgame tables cannot be used for a variant ([`open_tables`]); shown as the message
/// of the tables code that refused them.
#[derive(Debug, thiserror::Error)]
pub enum TablesError {
    /// The variant is one endgame tables cannot hold (a bag, chain captures, more than two
    /// sides, ...): no file can serve it.
    #[error(transparent)]
    Variant(anqi_core::tables::RulesError),
    /// The file cannot be opened for the variant: unreadable, not a tables file, tables of
    /// other rules, or a header that does not hold together.
    #[error(transparent)]
    File(anqi_core::tables::FileError),
}

/// `[seed]`: what goes into each deal.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SeedConfig {
    pub server: SeedSource,
    pub clients: bool,
}

/// The server's contribution to each deal: `"random"` in the file, or any other text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SeedSource {
    /// 16 fresh bytes from the operating system per game.
    Random,
    /// This text, for every game (deals then depend only on the clients' seeds).
    Fixed(String),
}

impl SeedSource {
    /// The server's contribution to one game's deal: the fixed text, or 16 fresh bytes from
    /// the operating system in hex.
    pub fn contribution(&self) -> String {
        match self {
            SeedSource::Random => random_hex_seed(),
            SeedSource::Fixed(text) => text.clone(),
        }
    }
}

/// 16 bytes from the operating system, in hex.
fn random_hex_seed() -> String {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        // No OS randomness: fall back on the clock, which is still recorded and verifiable.
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        bytes = nanos.to_le_bytes();
    }
    anqi_core::hex::hex(&bytes)
}

impl<'de> Deserialize<'de> for SeedSource {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<SeedSource, D::Error> {
        let text = String::deserialize(d)?;
        Ok(if text == "random" {
            SeedSource::Random
        } else {
            SeedSource::Fixed(text)
        })
    }
}

/// `[records]`: where finished games go.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct RecordsConfig {
    pub path: String,
    pub fsync: bool,
    /// How long a finished game's result waits for its record while the records file cannot
    /// be written, in milliseconds; then it goes out with `(error unrecorded ...)` first.
    pub write_wait_ms: u64,
    /// Whose legal-action counts each ply records.
    #[serde(default)]
    pub legal_counts: LegalCounts,
    /// The longest comment a ply's record keeps, in bytes (the `comment` extension); longer
    /// ones are cut. 0: comments are not taken (the extension is not granted).
    pub comment_bytes: usize,
}

/// `[http]`: watching games in a web browser (protocol/WEB.md).
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct HttpConfig {
    /// Where the pages are served; empty: nowhere.
    pub listen: String,
    /// Host names the pages answer to, besides addresses and `localhost` (a reverse proxy's
    /// public name).
    pub hosts: Vec<String>,
    /// Observers see a ply once this many later plies have been played...
    pub delay_plies: u32,
    /// ... and this long after it was played, in milliseconds.
    pub delay_ms: u64,
    /// Finished games kept for the pages (their records), the most recent ones.
    pub keep_finished: usize,
    pub max_connections: usize,
    pub max_connections_per_address: usize,
    pub max_observers_per_game: usize,
    /// A plain HTTP connection with nothing read or written for this long is closed (ms);
    /// WebSockets are not.
    pub idle_timeout_ms: u64,
    /// Events an observer may fall behind by before it is dropped.
    pub observer_queue: usize,
    /// Whether a person may take a seat from the pages (`anqi serve` only).
    pub humans: bool,
    /// Seats held by people at once, in all and per client network (0 = no per-address cap).
    pub max_humans: usize,
    pub max_humans_per_address: usize,
    /// How long a person's seat stays with no page open on it before its connection is
    /// closed, in milliseconds.
    pub human_away_ms: u64,
    /// The time controls a person may choose for a game against the server's bots
    /// (`anqi_core::time_control` forms: `3:00+2`), besides the server's `[clock]`.
    pub time_controls: Vec<String>,
    /// Worker threads of the pages' own runtime (apart from the games').
    pub threads: usize,
    /// How far below the games' threads the pages' threads run (a Linux nice increment,
    /// 0..=19; 0: the same priority).
    pub nice: i32,
    /// A connection must send a whole request header within this long (ms) of opening, or of
    /// its last answer.
    pub header_timeout_ms: u64,
    /// The most a connection's request header (and read buffer) may hold, in bytes.
    pub max_header_bytes: usize,
    /// Requests a second, on average, one connection may make (bursts of as many).
    pub requests_per_s_per_connection: u32,
    /// Requests a second, on average, one client network may make (bursts of as many).
    pub requests_per_s_per_address: u32,
    /// The most memory the finished games' events rebuilt for the pages may hold, in bytes.
    pub events_cache_bytes: usize,
    /// The most one game's exchange keeps (text and per-line upkeep), in bytes.
    pub exchange_bytes: usize,
    /// A player's line longer than this is kept cut in the exchange, in bytes.
    pub exchange_line_bytes: usize,
    /// The most the finished games' exchanges kept hold in all, in bytes.
    pub keep_exchanges_bytes: usize,
}

/// `[metrics]`: what an operator reads, on an address of its own (protocol/WEB.md).
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct MetricsConfig {
    /// Where `GET /metrics`, `/healthz` and `/readyz` alone are served; empty: nowhere (the
    /// pages serve them too).
    pub listen: String,
}

/// The smallest `[http] max_header_bytes`: hyper's smallest read buffer.
pub const MIN_HEADER_BYTES: usize = 8192;

/// The smallest write queue accepted: the setup message of the largest shipped board (8x16)
/// is about 12 KiB.
pub const MIN_WRITE_QUEUE_BYTES: usize = 64 * 1024;

/// The largest frame limit accepted: a client message is at most a board and an action.
pub const MAX_FRAME_BYTES: usize = 1024 * 1024;

/// The most `[records] comment_bytes` may be: a record holds one comment per ply.
pub const MAX_COMMENT_BYTES: usize = 65_536;

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

    /// Checks values that are each valid but do not work together (called by [`Config::parse`]; call
    /// it again after changing a configuration, as the command line does).
    ///
    /// # Errors
    /// The first problem, named.
    pub fn validate(&self) -> Result<(), ConfigError> {
        // In this order, which is the order the checks were written in: a configuration with
        // several problems is told the same first one, whatever moves inside each table's check.
        self.referee.validate()?;
        if !self.referee.score_rules()?.is_off() && self.records.comment_bytes == 0 {
            return Err(ConfigError(
                "referee: score_draw and score_resign read the players' scores from their comments, which [records] comment_bytes = 0 turns off: give comment_bytes (512 by default), or leave the score rules out".into(),
            ));
        }
        self.server.validate_caps()?;
        self.records.validate()?;
        self.http.validate()?;
        self.ladder.validate()?;
        self.server.validate_message_limits()
    }
}

impl LadderConfig {
    fn validate(&self) -> Result<(), ConfigError> {
        if self.connections_per_account == 0 || self.games_per_account == 0 {
            return Err(ConfigError(
                "ladder: connections_per_account and games_per_account must be at least 1".into(),
            ));
        }
        if self.server.is_empty() || self.server.len() > 64 {
            return Err(ConfigError(
                "ladder: server must be a name of 1 to 64 bytes".into(),
            ));
        }
        Ok(())
    }
}

impl RefereeConfig {
    /// Rulings the referee cannot apply, and adjudication by tables without a tables file.
    fn validate(&self) -> Result<(), ConfigError> {
        if self.illegal_action == Ruling::Ignore || self.out_of_turn == Ruling::Ignore {
            return Err(ConfigError(
                "referee: \"ignore\" is only allowed for stale_board; use \"error\" or \"lose\""
                    .into(),
            ));
        }
        if self.adjudicate == Adjudicate::Tables && self.tables.is_empty() {
            return Err(ConfigError(Adjudicate::NEEDS_TABLES.into()));
        }
        self.score_rules()?;
        Ok(())
    }

    /// `score_draw` and `score_resign`, read.
    ///
    /// # Errors
    /// A rule that does not read.
    pub fn score_rules(&self) -> Result<ScoreRules, ConfigError> {
        ScoreRules::read(&self.score_draw, &self.score_resign)
            .map_err(|e| ConfigError(format!("referee: {e}")))
    }
}

impl ServerConfig {
    /// The connection caps, the write queue, the network prefixes and the largest frame: values
    /// that would let the server take no one, or let one client make it hold too much.
    fn validate_caps(&self) -> Result<(), ConfigError> {
        if self.max_connections == 0 {
            return Err(ConfigError(
                "server: max_connections must be at least 1".into(),
            ));
        }
        if self.write_queue_bytes < MIN_WRITE_QUEUE_BYTES {
            return Err(ConfigError(format!(
                "server: write_queue_bytes below {MIN_WRITE_QUEUE_BYTES} cannot hold a setup message"
            )));
        }
        if self.ipv4_prefix > 32 || self.ipv6_prefix > 128 {
            return Err(ConfigError(format!(
                "server: ipv4_prefix is 0..32 and ipv6_prefix 0..128, not {} and {}",
                self.ipv4_prefix, self.ipv6_prefix
            )));
        }
        if self.max_frame_bytes > MAX_FRAME_BYTES {
            return Err(ConfigError(format!(
                "server: max_frame_bytes above {MAX_FRAME_BYTES} lets one client make the server buffer too much"
            )));
        }
        Ok(())
    }

    /// Frame limits so small that ordinary messages are refused. Checked after `[http]` (see
    /// [`Config::validate`]).
    fn validate_message_limits(&self) -> Result<(), ConfigError> {
        if self.max_nesting < 2 {
            return Err(ConfigError(
                "server: max_nesting below 2 refuses every message".into(),
            ));
        }
        if self.max_frame_bytes < 64 {
            return Err(ConfigError(
                "server: max_frame_bytes below 64 refuses ordinary messages".into(),
            ));
        }
        Ok(())
    }
}

impl RecordsConfig {
    /// A comment limit past what a record of one comment per ply should hold.
    fn validate(&self) -> Result<(), ConfigError> {
        if self.comment_bytes > MAX_COMMENT_BYTES {
            return Err(ConfigError(format!(
                "records: comment_bytes is at most {MAX_COMMENT_BYTES}, not {}",
                self.comment_bytes
            )));
        }
        Ok(())
    }
}

impl HttpConfig {
    /// The pages' caps, timeouts and rates, their host names, and people's seats: values that
    /// serve no one, or that do not work together.
    fn validate(&self) -> Result<(), ConfigError> {
        if self.max_connections == 0 || self.observer_queue == 0 || self.idle_timeout_ms == 0 {
            return Err(ConfigError(
                "http: max_connections, observer_queue and idle_timeout_ms must be at least 1"
                    .into(),
            ));
        }
        if self.humans && (self.delay_plies > 0 || self.delay_ms > 0) {
            return Err(ConfigError(
                "http: humans = true with a broadcast delay (delay_plies, delay_ms): a person's page draws the game from the public feed, which the delay holds back from the person too; use one or the other".into(),
            ));
        }
        if self.humans && self.max_humans == 0 {
            return Err(ConfigError(
                "http: humans = true with max_humans = 0 seats nobody".into(),
            ));
        }
        for tc in &self.time_controls {
            tc.parse::<anqi_core::time_control::Tc>()
                .map_err(|e| ConfigError(format!("http: time_controls: {e}")))?;
        }
        if let Some(bad) = self.hosts.iter().find(|n| !is_host_name(n)) {
            return Err(ConfigError(format!(
                "http: hosts: {bad:?} is not a host name (letters, digits, '-' and '.', no port: \"games.example.org\")"
            )));
        }
        if self.threads == 0 || self.header_timeout_ms == 0 {
            return Err(ConfigError(
                "http: threads and header_timeout_ms must be at least 1".into(),
            ));
        }
        if !(0..=19).contains(&self.nice) {
            return Err(ConfigError(format!(
                "http: nice = {}: 0 (the games' priority) to 19 (the lowest)",
                self.nice
            )));
        }
        if self.max_header_bytes < MIN_HEADER_BYTES {
            return Err(ConfigError(format!(
                "http: max_header_bytes is at least {MIN_HEADER_BYTES} (the HTTP library's smallest buffer), not {}",
                self.max_header_bytes
            )));
        }
        if self.requests_per_s_per_connection == 0 || self.requests_per_s_per_address == 0 {
            return Err(ConfigError(
                "http: requests_per_s_per_connection and requests_per_s_per_address must be at least 1 (every page is a few requests)".into(),
            ));
        }
        if self.humans && self.human_away_ms < 100 {
            return Err(ConfigError(
                "http: human_away_ms below 100 gives a seat up before its page can open".into(),
            ));
        }
        Ok(())
    }
}

/// Whether `name` can be a host name of `[http] hosts`: letters, digits, '-' and '.', not
/// empty (no port, no scheme).
fn is_host_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
}

/// Overlays `user` on `base`, table by table (values that are not tables are replaced).
pub fn merge(base: &mut toml::Table, user: toml::Table) {
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
    fn random_server_seeds_differ() {
        let random = SeedSource::Random;
        assert_ne!(random.contribution(), random.contribution());
        assert_eq!(random.contribution().len(), 32);
        assert_eq!(SeedSource::Fixed("x".into()).contribution(), "x");
    }

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
        let e = Config::parse("[records]\nlegal_counts = \"everyone\"\n").unwrap_err();
        assert!(
            e.0.contains("legal_counts = \"everyone\"") && e.0.contains("\"mover\" or \"all\""),
            "{e}"
        );
    }

    #[test]
    fn people_play_without_a_broadcast_delay_and_only_when_asked() {
        assert!(!Config::default().http.humans, "off by default");
        assert!(Config::parse("[http]\nhumans = true\n").is_ok());
        let e = Config::parse("[http]\nhumans = true\ndelay_plies = 2\n").unwrap_err();
        assert!(e.0.contains("humans") && e.0.contains("delay"), "{e}");
        let e = Config::parse("[http]\nhumans = true\nmax_humans = 0\n").unwrap_err();
        assert!(e.0.contains("max_humans"), "{e}");
    }

    #[test]
    fn the_pages_limits_are_checked() {
        let h = Config::default().http;
        assert_eq!((h.threads, h.nice, h.header_timeout_ms), (1, 10, 10_000));
        assert!(h.hosts.is_empty());
        assert!(Config::parse("[http]\nhosts = [\"games.example.org\"]\n").is_ok());
        for (bad, named) in [
            ("nice = 20", "nice"),
            ("nice = -1", "nice"),
            ("threads = 0", "threads"),
            ("header_timeout_ms = 0", "header_timeout_ms"),
            ("max_header_bytes = 4096", "max_header_bytes"),
            ("requests_per_s_per_connection = 0", "requests_per_s"),
            ("requests_per_s_per_address = 0", "requests_per_s"),
            ("hosts = [\"evil.example:80\"]", "hosts"),
            ("hosts = [\"\"]", "hosts"),
        ] {
            let e = Config::parse(&format!("[http]\n{bad}\n")).unwrap_err();
            assert!(e.0.contains(named), "{bad}: {e}");
        }
    }

    #[test]
    fn adjudication_is_off_by_default_and_needs_tables() {
        let c = Config::default();
        assert_eq!(c.referee.adjudicate, Adjudicate::Off);
        assert_eq!(c.referee.tables, "");
        let e = Config::parse("[referee]\nadjudicate = \"tables\"\n").unwrap_err();
        assert!(e.0.contains("needs tables = "), "{e}");
        let e = Config::parse("[referee]\nadjudicate = \"oracle\"\n").unwrap_err();
        assert!(
            e.0.contains("adjudicate = \"oracle\"") && e.0.contains("\"off\" or \"tables\""),
            "{e}"
        );
        let c =
            Config::parse("[referee]\nadjudicate = \"tables\"\ntables = \"t.tables\"\n").unwrap();
        assert_eq!(c.referee.adjudicate, Adjudicate::Tables);
        // The file is checked when the server starts: a missing one is named.
        let variant = Arc::new(Variant::shipped("traditional-2x4").unwrap());
        let e = c.referee.open_tables(&variant).unwrap_err();
        assert!(e.0.contains("referee: tables: cannot open t.tables"), "{e}");
        assert!(Config::default()
            .referee
            .open_tables(&variant)
            .unwrap()
            .is_none());
    }

    #[test]
    fn score_rules_are_off_by_default_read_when_given_and_need_the_comments() {
        let rules = Config::default().referee.score_rules().unwrap();
        assert!(rules.is_off());
        let c = Config::parse("[referee]\nscore_resign = \"movecount=3 score=600\"\n").unwrap();
        assert_eq!(
            c.referee.score_rules().unwrap().resign.unwrap().move_count,
            3
        );
        let e = Config::parse("[referee]\nscore_draw = \"movecount=3\"\n").unwrap_err();
        assert!(e.0.starts_with("referee: score_draw = "), "{e}");
        let e = Config::parse(
            "[referee]\nscore_resign = \"movecount=3 score=600\"\n[records]\ncomment_bytes = 0\n",
        )
        .unwrap_err();
        assert!(e.0.contains("comment_bytes = 0 turns off"), "{e}");
    }

    #[test]
    fn tables_that_cannot_be_used_say_whether_the_variant_or_the_file_is_why() {
        let bag = Arc::new(Variant::shipped("strategic-2x4").unwrap());
        let e = open_tables(Path::new("t.tables"), bag).unwrap_err();
        assert!(matches!(e, TablesError::Variant(_)), "{e:?}");
        assert_eq!(
            e.to_string(),
            "variant strategic-2x4: endgame tables do not hold a bag"
        );
        let variant = Arc::new(Variant::shipped("traditional-2x4").unwrap());
        let e = open_tables(Path::new("t.tables"), variant).unwrap_err();
        assert!(matches!(e, TablesError::File(_)), "{e:?}");
        assert!(e.to_string().starts_with("cannot open t.tables"), "{e}");
    }

    #[test]
    fn crowd_limits_have_safe_defaults_well_under_the_game_clock() {
        let c = Config::default();
        assert_eq!(
            c.referee.first_move_ms, 60_000,
            "a minute, of a 15-minute clock"
        );
        assert_eq!(c.server.max_seats_per_address, 16);
        assert!(c.server.max_seats_per_address <= c.server.max_connections_per_address);
        let c =
            Config::parse("[referee]\nfirst_move_ms = 0\n[server]\nmax_seats_per_address = 0\n")
                .unwrap();
        assert_eq!(
            (c.referee.first_move_ms, c.server.max_seats_per_address),
            (0, 0)
        );
    }

    #[test]
    fn legal_counts_default_to_the_mover() {
        assert_eq!(Config::default().records.legal_counts, LegalCounts::Mover);
        let c = Config::parse("[records]\nlegal_counts = \"all\"\n").unwrap();
        assert_eq!(c.records.legal_counts, LegalCounts::All);
    }
}
