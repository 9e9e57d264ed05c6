//! `anqi._anqi`: the native module of the `anqi` Python package (`clients/python`), the rules
//! core of [`anqi_core::rules`] in process.
//!
//! Actions cross the boundary as their wire clauses, the strings a client sends (`"(rev 3)"`,
//! `"(mov 4 0)"`, `"(bag)"`, `"(put K 7)"`), read by the protocol's own parser
//! ([`anqi_core::wire::ClientMessage`]) and printed by [`anqi_core::rules::Action`]'s
//! `Display`, so there is one mapping between text and actions; or as integer ids, for speed
//! (`actions.rs`).
//! `clients/python/PACKAGE.md` documents the Python side.
//!
//! Modules: `variant.rs` (`variants()`, `Variant`), `actions.rs` (text and ids), `game.rs`
//! (`Game`, chance mode; `game/pickle.rs`, its pickling), `numpy_array.rs` (the arrays of
//! tensors and masks), `playouts.rs` (native batch playouts), `observation.rs` (what one
//! player knows: `Observation`), `tensor.rs` (observation tensors and action masks), `vec_game.rs` (`VecGame`, n games stepped
//! together) with `legal_ids.rs` (the legal ids it keeps per game) and `read_only.rs` (the
//! memory of its arrays, which Python can only read), `client.rs` (`ClientSession`, a sans-IO protocol client over
//! anqi-client's tracker), `bots.rs` (`ReferenceBot`, anqi-bot's strategies).
//! `tournament.rs`: `anqi.standings` (anqi-tournament's statistics, as `anqi report`), the
//! tournament file `anqi.play` writes (anqi-tournament's configuration) and TOML text.
//! `tensor.rs` also exports the tensor layout (`TENSOR_*`); `records.rs` reads records with
//! anqi-core's types for `anqi.records` (`read_record`, `RECORD_*`, `TERMINATIONS`).
//! `seeds.rs`: the one reading of a seed argument (a str, or an int meaning its decimal
//! string) for every API that takes one.
//!
//! # Crate map
//!
//! Builds on: `anqi-core`, `anqi-client`, `anqi-tournament`.
//! Compiles tokio: no (the rules in process; `anqi.Server` runs the `anqi` program).
//!
//! (`tests/integration/layout.rs` checks both lines against `cargo metadata` and `cargo tree`.)

mod actions;
mod bots;
mod client;
mod game;
mod legal_ids;
mod numpy_array;
mod observation;
mod playouts;
mod read_only;
mod records;
mod seeds;
mod tensor;
mod tournament;
mod variant;
mod vec_arrays;
mod vec_game;
mod workers;

use pyo3::prelude::*;

/// A fresh server seed for a deal the caller gave no seed for: 16 bytes from the operating
/// system, in hex (as `anqi serve` makes with `server = "random"`).
fn fresh_seed() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the operating system gives random bytes");
    anqi_core::hex::hex(&bytes)
}

/// The native module; `anqi/__init__.py` re-exports it. One line per class or function.
#[pymodule]
fn _anqi(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(variant::variants, m)?)?;
    m.add_class::<variant::VariantInfo>()?;
    m.add_class::<game::Game>()?;
    m.add_function(wrap_pyfunction!(playouts::playouts, m)?)?;
    m.add_class::<vec_game::VecGame>()?;
    m.add_class::<observation::Observation>()?;
    m.add_class::<client::ClientSession>()?;
    m.add_class::<bots::ReferenceBot>()?;
    m.add_function(wrap_pyfunction!(tournament::standings_json, m)?)?;
    m.add_function(wrap_pyfunction!(tournament::tournament_config_toml, m)?)?;
    m.add_function(wrap_pyfunction!(tournament::toml_dumps, m)?)?;
    m.add_function(wrap_pyfunction!(tournament::wilson, m)?)?;
    tensor::register(m)?;
    records::register(m)?;
    Ok(())
}
