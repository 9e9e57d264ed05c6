//! What is checked before any engine is started, so that an event set up wrong stops at once
//! and by name instead of losing every game: the variant against the SPRT and the endgame
//! tables, each engine's program, what its protocol can play, and a bridged engine's
//! handshake.

use crate::config::TournamentConfig;
use crate::TournamentError;
use anqi_core::rules::Variant;
use std::path::Path;
use std::sync::Arc;

/// Checks the event's variant against its SPRT, its endgame tables and its adjudication by
/// scores.
///
/// # Errors
/// An SPRT for a one-side game; tables of other rules, or no file: either would stop the
/// event when its server is started, so it is said before any engine is.
pub(super) fn check_event(
    config: &TournamentConfig,
    variant: &Variant,
) -> Result<(), TournamentError> {
    if crate::one_side(variant) && config.sprt.is_some() {
        return Err(TournamentError::Config(format!(
            "[tournament.sprt]: {} is a one-side game ({}: the side plays for a goal, not against another engine), so its engines get success rates, not Elo; the SPRT tests the Elo difference of two engines playing each other. Leave out [tournament.sprt]",
            variant.name, variant.game_type
        )));
    }
    if let Some(path) = &config.tables {
        anqi_server::config::open_tables(Path::new(path), Arc::new(variant.clone()))
            .map_err(|e| TournamentError::Config(format!("tables: {e}")))?;
    }
    anqi_core::scores::ScoreRules::read(&config.score_draw, &config.score_resign)
        .and_then(|rules| rules.check_variant(variant))
        .map_err(|e| TournamentError::Config(e.to_string()))?;
    Ok(())
}

/// Checks every engine: its program can be started, its protocol can play the variant (with a
/// warning for each rule it believes otherwise), and, for a bridged engine, its handshake.
///
/// # Errors
/// The first engine that cannot play, named.
pub(super) async fn check_engines(
    config: &TournamentConfig,
    variant: &Variant,
) -> Result<(), TournamentError> {
    for engine in &config.engines {
        crate::engine::check_program(engine).map_err(TournamentError::Engine)?;
        let assumed = engine
            .assumes
            .as_deref()
            .map(crate::bridge::presets::assumed)
            .transpose()
            .map_err(|e| {
                TournamentError::Config(format!("engine {:?}: assumes: {e}", engine.name))
            })?;
        let assessment = crate::bridge::assess(engine.protocol, variant, assumed.as_ref())
            .map_err(|e| TournamentError::Config(format!("engine {:?}: {e}", engine.name)))?;
        for w in assessment.warnings {
            eprintln!("anqi: warning: engine {:?}: {w}", engine.name);
        }
    }
    // The event's rules, as the bridge's check reads them from its engine's directory.
    let rules = std::fs::canonicalize(&config.variant)
        .map_or_else(|_| config.variant.clone(), |p| p.display().to_string());
    for engine in &config.engines {
        crate::engine::check_handshake(engine, &rules)
            .await
            .map_err(TournamentError::Engine)?;
    }
    Ok(())
}
