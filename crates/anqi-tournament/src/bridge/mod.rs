//! Bridges: third-party engines that speak another protocol play on anqi unchanged.
//!
//! A bridge is one game long. It connects to an anqi server as an ordinary client (asking for
//! the protocol extensions that make translation exact: the last ply with the revealed piece,
//! both clocks, the no-progress count), starts the engine, and translates both ways. It never
//! fixes an engine's move: whatever the engine answers is forwarded, and the referee rules.
//!
//! - `mod.rs`: the protocols, whether an event's variant can be played through one
//!   ([`assess`]), and one bridged game from start to end ([`run`]).
//! - `session`: the anqi side: `anqi-client`'s connection and tracker (which keeps the public
//!   state: board, colours, face-down pieces, every ply, clocks), turned into events.
//! - `engine`: an engine process that speaks in lines on stdin and stdout.
//! - `tcg`, `uci`, `platform`: one translator per protocol, each with its coordinate map.
//! - `presets`: the rule sets engine families believe (`assumes`).
//!
//! `anqi bridge` runs one from the command line; a tournament runs `anqi bridge` for each
//! engine whose `protocol` is not `anqi`.

pub mod engine;
pub mod platform;
pub mod presets;
pub mod session;
pub mod tcg;
pub mod uci;

use anqi_core::rules::{CaptureRules, ColourRule, Objective, Piece, Start, Topology, Variant};
use serde::Deserialize;
use session::Session;
use std::fmt;
use std::time::Duration;

/// Why a bridged game could not be played to its end.
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    /// The engine could not be started, or failed its protocol's handshake: nothing was sent
    /// to the server (exit status 3).
    #[error("the engine did not start: {0}")]
    EngineStart(String),
    /// The engine died or broke its protocol during the game.
    #[error("engine: {0}")]
    Engine(String),
    /// The server could not be reached, or broke off.
    #[error("server: {0}")]
    Server(String),
    /// The event's variant cannot be played through this protocol.
    #[error("{0}")]
    Unplayable(String),
}

impl BridgeError {
    /// The exit status of `anqi bridge` for this error: 3 when the engine never started (a
    /// tournament stops the event), 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        match self {
            BridgeError::EngineStart(_) => 3,
            _ => 1,
        }
    }
}

/// How a bridge is run.
#[derive(Clone, Debug)]
pub struct BridgeOptions {
    pub protocol: Protocol,
    /// The anqi server, `HOST:PORT`.
    pub connect: String,
    /// The SEED to send in `(init NAME SEED)`: a tournament's seat token.
    pub token: String,
    /// The name to play under; default: the name the engine gives, else `engine`.
    pub name: Option<String>,
    /// The rules the engine believes, when they differ from the event's.
    pub assumes: Option<Variant>,
    /// The engine's program and arguments.
    pub command: Vec<String>,
    /// Log every line exchanged with the engine on stderr.
    pub verbose: bool,
    /// Send the protocol's optional commands (tcg: `num_repetition`, `num_moves_to_draw`)
    /// to an engine that says it knows them.
    pub optional_commands: bool,
}

/// The environment variable naming the file where a bridge writes why it gave its engine's
/// game up (a tournament's runner sets it, and puts the reason in the record's faults).
pub const REPORT_ENV: &str = "ANQI_BRIDGE_REPORT";

/// The most of a reason kept in the report file.
const MAX_REPORT_BYTES: usize = 1024;

/// Says why the engine's game ends early, on stderr (the engine's log) and in the report file
/// when the runner asked for one (see [`REPORT_ENV`]); the last reason wins.
pub(crate) fn report(reason: &str) {
    eprintln!("anqi bridge: {reason}");
    if let Some(path) = std::env::var_os(REPORT_ENV) {
        let mut end = reason.len().min(MAX_REPORT_BYTES);
        while !reason.is_char_boundary(end) {
            end -= 1;
        }
        let _ = std::fs::write(path, &reason[..end]);
    }
}

/// How long an engine has for its protocol's handshake.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// One protocol's translator: its engine, started and greeted, then one game.
pub(crate) trait Translator: Sized {
    /// Starts the engine and runs the protocol's handshake.
    async fn start(options: &BridgeOptions) -> Result<Self, BridgeError>;
    /// The name the engine gave in its handshake, if the protocol has one.
    fn engine_name(&self) -> Option<String>;
    /// After the handshake, the commands of a game's start under `variant`'s rules and a first
    /// move, without a server (`anqi bridge --check`): nothing more by default.
    async fn rehearse(&mut self, variant: &Variant) -> Result<(), BridgeError> {
        let _ = variant;
        Ok(())
    }
    /// Plays the session's game to its end.
    async fn play(
        &mut self,
        session: &mut Session,
        options: &BridgeOptions,
    ) -> Result<(), BridgeError>;
    /// Tells the engine the game is over and stops it.
    async fn quit(self);
    /// Whether the engine says something of its moves that the record should keep (the
    /// `comment` extension is asked for).
    const COMMENTS: bool = false;
}

/// What a bridged game came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BridgeSummary {
    /// The engine's player id.
    pub me: usize,
    /// The `(win PLAYER TEAM)` values.
    pub win: (usize, usize),
    pub plies: usize,
}

/// Starts the engine, greets it, joins the server and plays one game.
///
/// # Errors
/// See [`BridgeError`]; a game that ended early (the engine died) is an error too.
pub async fn run(options: &BridgeOptions) -> Result<BridgeSummary, BridgeError> {
    match options.protocol {
        Protocol::Anqi => Err(BridgeError::Unplayable(
            "an anqi engine connects by itself: it needs no bridge".into(),
        )),
        Protocol::Tcg => run_with::<tcg::TcgEngine>(options).await,
        Protocol::UciBanqi => run_with::<uci::UciEngine>(options).await,
        Protocol::CdcPlatform => run_with::<platform::PlatformEngine>(options).await,
    }
}

/// Starts the engine, runs its protocol's handshake and rehearses the start of a game under
/// `variant`'s rules (`anqi bridge --check`, and the check a tournament makes before its first
/// game), without a server. Returns the name the engine gave.
///
/// # Errors
/// [`BridgeError::EngineStart`], naming what the engine failed on.
pub async fn check(
    options: &BridgeOptions,
    variant: &Variant,
) -> Result<Option<String>, BridgeError> {
    async fn with<T: Translator>(
        options: &BridgeOptions,
        variant: &Variant,
    ) -> Result<Option<String>, BridgeError> {
        let mut engine = T::start(options).await?;
        let name = engine.engine_name();
        let rehearsed = engine.rehearse(variant).await;
        engine.quit().await;
        rehearsed.map_err(|e| {
            BridgeError::EngineStart(format!(
                "it answered its handshake, then failed at the start of a game: {}{}",
                match e {
                    BridgeError::Engine(why) => why,
                    other => other.to_string(),
                },
                if options.protocol == Protocol::Tcg && options.optional_commands {
                    " (if it fails on num_repetition or num_moves_to_draw, leave them out: --no-optional-commands, or optional_commands = false in its tournament entry)"
                } else {
                    ""
                }
            ))
        })?;
        Ok(name)
    }
    match options.protocol {
        Protocol::Anqi => Ok(None),
        Protocol::Tcg => with::<tcg::TcgEngine>(options, variant).await,
        Protocol::UciBanqi => with::<uci::UciEngine>(options, variant).await,
        Protocol::CdcPlatform => with::<platform::PlatformEngine>(options, variant).await,
    }
}

async fn run_with<T: Translator>(options: &BridgeOptions) -> Result<BridgeSummary, BridgeError> {
    let mut engine = T::start(options).await?;
    let name = options
        .name
        .clone()
        .or_else(|| engine.engine_name())
        .unwrap_or_else(|| "engine".into());
    let mut session =
        match Session::join(&options.connect, &name, &options.token, T::COMMENTS).await {
            Ok(s) => s,
            Err(e) => {
                engine.quit().await;
                return Err(e);
            }
        };
    let played = match assess(
        options.protocol,
        session.variant(),
        options.assumes.as_ref(),
    ) {
        Err(refusal) => {
            // Nothing faithful can be played: give the game up rather than play it wrong.
            report(&format!("resigned: {refusal}"));
            let _ = session.answer(session::Answer::Resign).await;
            Err(BridgeError::Unplayable(refusal))
        }
        Ok(assessment) => {
            for w in &assessment.warnings {
                eprintln!("anqi bridge: warning: {w}");
            }
            engine.play(&mut session, options).await
        }
    };
    engine.quit().await;
    if let Err(e @ BridgeError::Engine(_)) = &played {
        // The engine broke off (it died, or stopped answering): the bridge leaves the game, as
        // the engine's own connection would close, and the referee rules on that.
        report(&format!("left the game: {e}"));
    }
    played?;
    let win = session
        .result()
        .ok_or_else(|| BridgeError::Server("the game ended without a result".into()))?;
    Ok(BridgeSummary {
        me: session.me(),
        win,
        plies: session.history().len(),
    })
}

/// The coordinate map of a protocol: a 4x8 grid of the square names, anqi's cell numbers
/// beside them (`anqi bridge --print-map PROTOCOL`).
pub fn print_map(protocol: Protocol) -> String {
    let name: fn(usize) -> String = match protocol {
        Protocol::Anqi => |c| c.to_string(),
        Protocol::Tcg => tcg::square_name,
        Protocol::UciBanqi => uci::square_name,
        Protocol::CdcPlatform => platform::square_name,
    };
    let mut out = format!(
        "{protocol}: anqi cell = row * 8 + column, row 0 printed first; each cell shows CELL=NAME\n"
    );
    for row in 0..4 {
        let line: Vec<String> = (0..8)
            .map(|col| {
                let cell = row * 8 + col;
                format!("{cell:>2}={:<5}", name(cell))
            })
            .collect();
        out.push_str(line.join(" ").trim_end());
        out.push('\n');
    }
    out
}

/// The protocol an engine speaks.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum Protocol {
    /// anqi's own (the paper's): the engine connects to the server by itself.
    #[default]
    Anqi,
    /// The NTU "Theory of Computer Games" course protocol, over stdin and stdout.
    Tcg,
    /// MistyBanqi's UCI dialect, over stdin and stdout.
    UciBanqi,
    /// The Computer Olympiad CDC platform's client protocol: the engine connects over TCP.
    CdcPlatform,
}

impl Protocol {
    /// Every protocol, in the order the docs list them.
    pub const ALL: [Protocol; 4] = [
        Protocol::Anqi,
        Protocol::Tcg,
        Protocol::UciBanqi,
        Protocol::CdcPlatform,
    ];

    /// The name used in tournament files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Anqi => "anqi",
            Protocol::Tcg => "tcg",
            Protocol::UciBanqi => "uci-banqi",
            Protocol::CdcPlatform => "cdc-platform",
        }
    }

    /// Whether anqi must translate for engines of this protocol.
    pub fn is_bridged(self) -> bool {
        self != Protocol::Anqi
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Protocol {
    type Err = String;

    fn from_str(s: &str) -> Result<Protocol, String> {
        Protocol::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Protocol::ALL.iter().map(|p| p.name()).collect();
                format!("unknown protocol {s:?}; known: {}", names.join(", "))
            })
    }
}

/// What an organizer must hear before the first game about one engine and the event's variant.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Assessment {
    /// Rules the engine believes that differ from the event's: it plays on, but may misjudge.
    pub warnings: Vec<String>,
}

/// Checks that `event` can be played by an engine of `protocol` that believes the rules of
/// `assumed` (when its configuration says), before any game starts.
///
/// # Errors
/// A sentence naming what the protocol cannot represent (another board, a bag, teams, chain
/// capture, ...): no game could be played faithfully, so the event must not start.
pub fn assess(
    protocol: Protocol,
    event: &Variant,
    assumed: Option<&Variant>,
) -> Result<Assessment, String> {
    if protocol.is_bridged() {
        representable(protocol, event)?;
    }
    let mut warnings = Vec::new();
    if let Some(assumed) = assumed {
        warnings.extend(differences(event, assumed));
    }
    Ok(Assessment { warnings })
}

/// The one board every bridged protocol knows: 4 lines of 8 cells, the 32 standard pieces.
fn representable(protocol: Protocol, v: &Variant) -> Result<(), String> {
    let cannot = |what: String| {
        Err(format!(
            "the {protocol} protocol cannot play {}: {what}",
            v.name
        ))
    };
    let standard = Topology::rectangle(4, 8).expect("a 4x8 rectangle is a board");
    if v.topology != standard {
        return cannot("its board is not the 4x8 rectangle".into());
    }
    let mut pieces = v.pieces.clone();
    let mut usual = Piece::parse_list("KGGBBRRNNCCPPPPPkggbbrrnnccppppp").expect("standard set");
    pieces.sort_by_key(|p| p.letter());
    usual.sort_by_key(|p| p.letter());
    if pieces != usual {
        return cannot("its pieces are not the standard 32".into());
    }
    if v.players != 2 || v.sides.len() != 2 {
        return cannot(format!(
            "it has {} players in {} sides, and the protocol knows one against one",
            v.players,
            v.sides.len()
        ));
    }
    if v.objective != Objective::Capture {
        return cannot("it is not played against an opponent".into());
    }
    if v.chain_capture {
        return cannot("chain capture (a second action in the same turn)".into());
    }
    match (&v.start, protocol) {
        (Start::Bag, _) => return cannot("a bag (draw and put actions)".into()),
        (Start::FaceDown, _) => {}
        // NTU engines are given a face-down board and nothing else before the first ply.
        (_, Protocol::Tcg) => return cannot("a start with face-up pieces".into()),
        _ => {}
    }
    if v.colours == ColourRule::Fixed && protocol == Protocol::Tcg {
        return cannot("colours fixed before the first reveal".into());
    }
    Ok(())
}

/// The rules `assumed` gets wrong about `event`, each as a sentence.
fn differences(event: &Variant, assumed: &Variant) -> Vec<String> {
    let mut out = Vec::new();
    let what = |rule: &str, e: String, a: String| {
        format!(
            "the event plays {rule} {e}, the engine assumes {a} ({})",
            assumed.name
        )
    };
    if event.capture != assumed.capture {
        out.push(what(
            "capture rules",
            describe_capture(&event.capture),
            describe_capture(&assumed.capture),
        ));
    }
    if event.draw.no_progress != assumed.draw.no_progress {
        let n = |x: Option<u32>| x.map_or("none".to_string(), |n| format!("{n} plies"));
        let mut warning = what(
            "a no-progress draw after",
            n(event.draw.no_progress),
            n(assumed.draw.no_progress),
        );
        if let (Some(e), Some(a)) = (event.draw.no_progress, assumed.draw.no_progress) {
            if a < e {
                warning.push_str(&format!(
                    "; where its protocol carries a count, the engine's is the event's minus {}, 0 until the event's passes {} (uci-banqi: it still gets up to {} quiet plies of history for its repetition rule, and its count then reads their number)",
                    e - a,
                    e - a,
                    (a as usize / 2).min(uci::REPETITION_WINDOW)
                ));
            }
        }
        out.push(warning);
    }
    if event.draw.repetition != assumed.draw.repetition {
        out.push(what(
            "a repetition draw",
            describe_repetition(event.draw.repetition),
            describe_repetition(assumed.draw.repetition),
        ));
    }
    if std::mem::discriminant(&event.start) != std::mem::discriminant(&assumed.start) {
        out.push(what(
            "the start",
            describe_start(&event.start),
            describe_start(&assumed.start),
        ));
    }
    out
}

fn describe_repetition(r: Option<anqi_core::rules::Repetition>) -> String {
    use anqi_core::rules::Repetition;
    match r {
        None => "never".into(),
        Some(Repetition::Occurrence(n)) => format!("when a position occurs {n} times"),
        Some(Repetition::Cycle { times, extra: 0 }) => {
            format!("when a cycle of moves is played {times} times")
        }
        Some(Repetition::Cycle { times, extra }) => {
            format!("when a cycle of moves is played {times} times and {extra} more plies")
        }
    }
}

fn describe_start(s: &Start) -> String {
    match s {
        Start::FaceDown => "face-down".into(),
        Start::Reveal(n) => format!("with {n} pieces face-up"),
        Start::Open => "open".into(),
        Start::Fixed { .. } => "from a fixed board".into(),
        Start::Bag => "from a bag".into(),
    }
}

fn describe_capture(c: &CaptureRules) -> String {
    if *c == CaptureRules::standard() {
        "standard".into()
    } else {
        format!(
            "ranks {:?}{}",
            c.ranks,
            if c.cannon_jump {
                ""
            } else {
                " without cannon jumps"
            }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shipped(name: &str) -> Variant {
        Variant::shipped(name).unwrap()
    }

    #[test]
    fn protocol_names_round_trip() {
        for p in Protocol::ALL {
            assert_eq!(p.name().parse::<Protocol>(), Ok(p));
        }
        let e = "uci".parse::<Protocol>().unwrap_err();
        assert!(e.contains("uci-banqi"), "{e}");
    }

    #[test]
    fn the_traditional_board_goes_through_every_protocol() {
        for p in Protocol::ALL {
            for v in ["traditional", "ntu", "openspiel", "platform"] {
                assert_eq!(assess(p, &shipped(v), None), Ok(Assessment::default()));
            }
        }
    }

    #[test]
    fn what_a_protocol_cannot_represent_is_refused_with_its_reason() {
        let cases = [
            (Protocol::Tcg, "traditional-2x4", "4x8"),
            (Protocol::UciBanqi, "strategic", "bag"),
            (Protocol::CdcPlatform, "2v2", "one against one"),
            (Protocol::CdcPlatform, "2v2-8x16", "4x8"),
            (Protocol::Tcg, "chain-capture", "chain capture"),
            (Protocol::Tcg, "open", "face-up"),
        ];
        for (p, v, why) in cases {
            let e = assess(p, &shipped(v), None).unwrap_err();
            assert!(e.contains(why) && e.contains(p.name()), "{p} {v}: {e}");
        }
        // anqi's own protocol plays everything.
        assert!(assess(Protocol::Anqi, &shipped("2v2"), None).is_ok());
    }

    #[test]
    fn differing_beliefs_are_warnings() {
        let a = assess(
            Protocol::UciBanqi,
            &shipped("traditional"),
            Some(&shipped("ntu")),
        )
        .unwrap();
        assert!(
            a.warnings
                .iter()
                .any(|w| w.contains("180 plies") && w.contains("40 plies")),
            "{a:?}"
        );
        let a = assess(
            Protocol::Tcg,
            &shipped("hong-kong"),
            Some(&shipped("traditional")),
        )
        .unwrap();
        assert!(a.warnings.iter().any(|w| w.contains("capture")), "{a:?}");
    }
}
