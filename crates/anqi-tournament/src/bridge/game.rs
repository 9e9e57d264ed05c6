//! One bridged game from start to end ([`run`]), and the rehearsal of a game's start without a
//! server ([`check`]).

use super::error::BridgeError;
use super::session::{self, Session};
use super::translator::{report, BridgeOptions, Translator};
use super::{assess, platform, tcg, uci, Protocol};
use anqi_core::rules::Variant;

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
            Err(BridgeError::Unplayable(refusal.to_string()))
        }
        Ok(assessment) => {
            for w in &assessment.warnings {
                eprintln!("anqi bridge: warning: {w}");
            }
            engine.play(&mut session, options).await
        }
    };
    engine.quit().await;
    if let Err(e) = &played {
        // The engine broke off (it died, or was slow to acknowledge): the bridge leaves the
        // game, as the engine's own connection would close, and the referee rules on that.
        if e.is_engine_failure() {
            report(&format!("left the game: {e}"));
        }
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
