//! `anqi._anqi.ReferenceBot`: the client library's reference bots (`anqi_client::bots`, the
//! ones behind `anqi-bot`) for Python, choosing from an `Observation`.

use crate::observation::Observation;
use crate::seeds::{seed_number, seed_text};
use anqi_client::bots::{GreedyBot, SearchBot};
use anqi_client::{Bot, RandomBot};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// A reference bot: `ReferenceBot(strategy="random", seed=0, depth=None)`.
///
/// `seed`: a str, or an int of 0 or more meaning its decimal string, as everywhere in the
/// package; the bot's generator starts at the number a decimal seed names (`seed=7` is
/// `anqi-bot --seed 7`'s bot; one of 2^64 or more, or any other text, at its hash: seeds.rs).
///
/// Strategies, weakest first: `"random"` (a uniformly random legal action), `"greedy"` (one
/// ply of material bookkeeping), `"search"` (expectiminimax over the public state, `depth`
/// plies). Every choice is deterministic given the seed. A bot keeps no memory of the game:
/// what it knows beyond the board (the face-down pool, how often each position occurred)
/// comes with the observation. Its tie-breaking generator is its own, so give each player its
/// own bot for games that replay the same way.
#[pyclass(module = "anqi._anqi", name = "ReferenceBot")]
pub struct ReferenceBot {
    bot: Box<dyn Bot + Send + Sync>,
    strategy: &'static str,
}

#[pymethods]
impl ReferenceBot {
    #[new]
    #[pyo3(signature = (strategy = "random", seed = None, depth = None))]
    fn new(
        strategy: &str,
        seed: Option<&Bound<'_, PyAny>>,
        depth: Option<u32>,
    ) -> PyResult<ReferenceBot> {
        let seed = match seed {
            Some(s) if !s.is_none() => seed_number(&seed_text("seed", s)?),
            _ => 0,
        };
        if depth.is_some() && strategy != "search" {
            return Err(PyValueError::new_err("depth is for the search strategy"));
        }
        let (bot, strategy): (Box<dyn Bot + Send + Sync>, _) = match strategy {
            "random" => (Box::new(RandomBot::new(seed)), "random"),
            "greedy" => (Box::new(GreedyBot::new(seed)), "greedy"),
            "search" => match depth {
                Some(0) => return Err(PyValueError::new_err("depth: at least 1")),
                Some(d) => (Box::new(SearchBot::with_depth(seed, d)), "search"),
                None => (Box::new(SearchBot::new(seed)), "search"),
            },
            other => {
                return Err(PyValueError::new_err(format!(
                    "no strategy {other:?}: random, greedy or search"
                )))
            }
        };
        Ok(ReferenceBot { bot, strategy })
    }

    /// The strategy's name.
    #[getter]
    fn strategy(&self) -> &'static str {
        self.strategy
    }

    /// The action to play, a wire clause (one of `observation.legal_actions()`). Raises
    /// ValueError when the observation's player is not to move. The search runs without the
    /// GIL, so bots of several games can think in parallel threads.
    fn choose(&mut self, py: Python<'_>, observation: &Observation) -> PyResult<String> {
        let known = &observation.inner;
        if known.legal.is_empty() {
            return Err(PyValueError::new_err(format!(
                "player {} is not to move (player {} is): nothing to choose",
                known.player(),
                known.to_move
            )));
        }
        let bot = &mut self.bot;
        let action = py.detach(|| bot.choose(&known.view()));
        Ok(action.to_string())
    }

    fn __repr__(&self) -> String {
        format!("<anqi.ReferenceBot {}>", self.strategy)
    }
}
