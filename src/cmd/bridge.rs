//! `anqi bridge`: one game on an anqi server for an engine of another protocol, or that
//! engine's handshake alone (`--check`), or a protocol's coordinate map.

use anqi_tournament::bridge::{
    BridgeOptions, Protocol, ACK_TIMEOUT, ACK_TIMEOUT_ENV, HANDSHAKE_TIMEOUT, MAX_TIMEOUT_SECONDS,
};
use anyhow::Result;
use std::process::ExitCode;

/// Play one game on an anqi server with an engine that speaks another protocol: start the
/// engine, greet it, join the server, and translate every message both ways.
///
/// PROTOCOL is `tcg` (the NTU course protocol, stdin/stdout), `uci-banqi` (MistyBanqi's,
/// stdin/stdout) or `cdc-platform` (the Olympiad platform's client: the engine is started
/// with HOST PORT and connects to the bridge). The engine's answers are forwarded as they
/// are, and the referee rules on them. See protocol/BRIDGES.md for each protocol's map.
///
/// Exits with status 0 when the game was played to its end, 3 when the engine could not be
/// started or failed its handshake (nothing was sent to the server), 4 when it was slow to
/// acknowledge a command in the game (--ack-timeout), 1 otherwise.
///
/// Examples:
///   anqi bridge --protocol uci-banqi --connect 127.0.0.1:7700 -- ./misty --uci
///   anqi bridge --protocol tcg --check --variant traditional -- ./hw3
///   anqi bridge --protocol tcg --no-optional-commands --connect 127.0.0.1:7700 -- ./proto
///   anqi bridge --print-map tcg
#[derive(clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// The engine's protocol.
    #[arg(long, value_name = "PROTOCOL", required_unless_present = "print_map")]
    protocol: Option<Protocol>,
    /// The anqi server to join, HOST:PORT.
    #[arg(
        long,
        value_name = "HOST:PORT",
        required_unless_present_any = ["print_map", "check"]
    )]
    connect: Option<String>,
    /// The SEED sent in (init NAME SEED): a tournament seat's token.
    #[arg(long, env = "ANQI_TOKEN", default_value = "0", hide_env_values = true)]
    token: String,
    /// The name to play under (default: the name the engine gives, else "engine").
    #[arg(long)]
    name: Option<String>,
    /// The rules the engine believes (an engine preset such as misty-banqi or ntu-engines, a
    /// shipped variant, or a description file): warns where they differ from the game's,
    /// and translates the counters the protocol carries.
    #[arg(long, value_name = "VARIANT")]
    assumes: Option<String>,
    /// Start the engine, run its protocol's handshake and the start of a game (tcg: every
    /// command a game starts with, and a first genmove), stop it; connect to nothing.
    #[arg(long)]
    check: bool,
    /// The rules --check rehearses a game's start with (a shipped variant or a description
    /// file): the event's. The game played otherwise comes from the server.
    #[arg(
        long,
        value_name = "NAME|FILE",
        default_value = "traditional",
        requires = "check"
    )]
    variant: String,
    /// Leave the protocol's optional commands out (tcg: num_repetition and
    /// num_moves_to_draw), for an engine that says it knows them and then fails on them.
    #[arg(long)]
    no_optional_commands: bool,
    /// Seconds the engine has for its protocol's handshake (uci-banqi: uci, isready; tcg:
    /// name and known_command, and --check's genmove; cdc-platform: to connect). Raise it for
    /// an engine that loads for long before it answers.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = HANDSHAKE_TIMEOUT.as_secs(),
        value_parser = clap::value_parser!(u64).range(1..=MAX_TIMEOUT_SECONDS)
    )]
    handshake_timeout: u64,
    /// Seconds the engine has, in a game, to acknowledge a command that needs no thought (tcg:
    /// every command but genmove, such as ready; uci-banqi: readyok; cdc-platform: /start and
    /// /turn). An engine that misses it loses the game as slow to acknowledge (status 4), not
    /// as a crash. Raise it for an engine that clears large tables when a game starts.
    #[arg(
        long,
        value_name = "SECONDS",
        env = ACK_TIMEOUT_ENV,
        default_value_t = ACK_TIMEOUT.as_secs(),
        value_parser = clap::value_parser!(u64).range(1..=MAX_TIMEOUT_SECONDS)
    )]
    ack_timeout: u64,
    /// Log every line exchanged with the engine on stderr.
    #[arg(long, short)]
    verbose: bool,
    /// Print PROTOCOL's coordinate map (square names of anqi's 4x8 cells) and exit.
    #[arg(long, value_name = "PROTOCOL", exclusive = true)]
    print_map: Option<Protocol>,
    /// The engine's program and its arguments, after `--`.
    #[arg(
        last = true,
        value_name = "ENGINE",
        required_unless_present = "print_map"
    )]
    engine: Vec<String>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    if let Some(protocol) = args.print_map {
        print!("{}", anqi_tournament::bridge::print_map(protocol));
        return Ok(ExitCode::SUCCESS);
    }
    let assumes = args
        .assumes
        .map(|a| {
            anqi_tournament::bridge::presets::assumed(&a)
                .map_err(|e| anyhow::anyhow!("--assumes {a}: {e}"))
        })
        .transpose()?;
    let options = BridgeOptions {
        protocol: args.protocol.expect("clap requires it"),
        connect: args.connect.unwrap_or_default(),
        token: args.token,
        name: args.name,
        assumes,
        command: args.engine,
        verbose: args.verbose,
        optional_commands: !args.no_optional_commands,
        handshake: std::time::Duration::from_secs(args.handshake_timeout),
        ack: std::time::Duration::from_secs(args.ack_timeout),
    };
    let check = if args.check {
        Some(anqi_core::rules::Variant::load(&args.variant)?)
    } else {
        None
    };
    // Everything the engine starts ends with the bridge (see `keeper`): orphans come here.
    let _ = anqi_tournament::process::become_subreaper();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let outcome = runtime.block_on(async {
        // Told to stop (by a runner, or by the kernel when the runner dies): end the engine
        // and everything below it.
        let signals = super::stop_signals()?;
        tokio::select! {
            outcome = bridge(check.as_ref(), &options) => Ok(outcome),
            _ = signals => Err(anyhow::anyhow!("stopped by a signal")),
        }
    });
    anqi_tournament::keeper::end_descendants(std::time::Duration::from_secs(2));
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(e) => {
            eprintln!("anqi bridge: {e}");
            return Ok(ExitCode::from(143));
        }
    };
    match outcome {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) => {
            eprintln!("anqi bridge: {e}");
            Ok(ExitCode::from(e.exit_code()))
        }
    }
}

/// One bridged game, or the engine's handshake alone (`--check`).
async fn bridge(
    check: Option<&anqi_core::rules::Variant>,
    options: &BridgeOptions,
) -> Result<(), anqi_tournament::bridge::BridgeError> {
    if let Some(variant) = check {
        anqi_tournament::bridge::check(options, variant)
            .await
            .map(|name| {
                println!(
                    "{}: the engine answered its handshake{} and the start of a game of {}",
                    options.protocol,
                    name.map(|n| format!(" as {n:?}")).unwrap_or_default(),
                    variant.name
                );
            })
    } else {
        anqi_tournament::bridge::run(options).await.map(|s| {
            eprintln!(
                "anqi bridge: game over after {} plies: (win {} {}), the engine was player {}",
                s.plies, s.win.0, s.win.1, s.me
            );
        })
    }
}
