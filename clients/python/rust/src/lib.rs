//! `anqi._anqi`: the native module of the `anqi` Python package (`clients/python`), the rules
//! core of [`anqi::rules`] in process.
//!
//! Actions cross the boundary as their wire clauses, the strings a client sends (`"(rev 3)"`,
//! `"(mov 4 0)"`, `"(bag)"`, `"(put K 7)"`), read by the protocol's own parser
//! ([`anqi::wire::ClientMessage`]) and printed by [`Action`]'s `Display`, so there is one
//! mapping between text and actions. `clients/python/PACKAGE.md` documents the Python side.

mod bots;
mod client;
mod observation;

use anqi::rules::{self, Action, SeedInputs, Variant, SHIPPED};
use anqi::wire::ClientMessage;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;

/// The longest action text accepted: far more than any real clause, so a huge string is refused
/// before it is parsed.
const MAX_ACTION_TEXT: usize = 256;

/// The shipped variants, name to one-line summary, in the order of `protocol/variants/`.
#[pyfunction]
fn variants(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let out = PyDict::new(py);
    for (name, _) in SHIPPED {
        let v = Variant::shipped(name).map_err(|e| PyValueError::new_err(e.to_string()))?;
        out.set_item(*name, v.summary)?;
    }
    Ok(out)
}

/// Reads one action clause, as a client would send it.
fn parse_action(text: &str) -> PyResult<Action> {
    let refuse = |why: String| PyValueError::new_err(format!("not an action: {why}"));
    if text.len() > MAX_ACTION_TEXT {
        return Err(refuse(format!(
            "{} bytes of text, more than {MAX_ACTION_TEXT}",
            text.len()
        )));
    }
    let message =
        ClientMessage::parse(format!("({text})").as_bytes()).map_err(|e| refuse(e.text))?;
    match message.0.as_slice() {
        [clause] => clause.action().ok_or_else(|| {
            refuse(format!(
                "{text:?} is not (rev POS), (mov POS_I POS_F), (bag) or (put PIECE POS)"
            ))
        }),
        _ => Err(refuse(format!(
            "{text:?}: give exactly one clause, such as \"(rev 3)\""
        ))),
    }
}

/// One game of any variant, with the server's knowledge (the face-down pieces too).
///
/// `Game(variant="traditional", seed=None, client_seeds=())`: `variant` is a shipped name or
/// the path of a description file; the deal is derived from the seed contributions exactly as
/// the server does (`client_seeds` in seat order, then `seed`, the server's; PROTOCOL.md,
/// Seeds), so a record's `seeds` give back its deal. Without `seed`, a random one is drawn.
#[pyclass(module = "anqi", name = "Game", from_py_object)]
#[derive(Clone)]
struct Game {
    game: rules::Game,
    seeds: SeedInputs,
}

#[pymethods]
impl Game {
    #[new]
    #[pyo3(signature = (variant = "traditional", seed = None, client_seeds = Vec::new()))]
    fn new(variant: &str, seed: Option<String>, client_seeds: Vec<String>) -> PyResult<Game> {
        let variant = Variant::load(variant).map_err(|e| PyValueError::new_err(e.to_string()))?;
        let seeds = SeedInputs {
            clients: client_seeds,
            server: seed.unwrap_or_else(rules::random_server_seed),
        };
        let deal = seeds.deal_for(&variant);
        Ok(Game {
            game: rules::Game::new(Arc::new(variant), deal),
            seeds,
        })
    }

    /// The legal actions of the player to move, as wire clauses (empty once the game is over).
    fn legal_actions(&self) -> Vec<String> {
        if self.game.outcome().is_some() {
            return Vec::new();
        }
        let mut out = Vec::new();
        self.game.for_each_legal(|a, _| out.push(a.to_string()));
        out
    }

    /// Plays an action of the player to move, given as its wire clause.
    ///
    /// Raises ValueError with the rules' reason when the text is not an action or the action is
    /// illegal (the game is then unchanged).
    fn play(&mut self, action: &str) -> PyResult<()> {
        let action = parse_action(action)?;
        let player = self.game.to_move();
        self.game
            .play(player, action)
            .map(|_| ())
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// The player to move: its id, counted from 1 as on the wire.
    #[getter]
    fn to_move(&self) -> usize {
        self.game.to_move()
    }

    /// Plies played so far (every action counts, bag draws included).
    #[getter]
    fn ply(&self) -> u32 {
        self.game.ply()
    }

    /// The public board as the wire's board string (`X` face-down, `.` empty).
    #[getter]
    fn board(&self) -> String {
        self.game.wire_board()
    }

    /// The variant's short name.
    #[getter]
    fn variant(&self) -> String {
        self.game.variant().name.clone()
    }

    /// The number of players (seats).
    #[getter]
    fn players(&self) -> usize {
        self.game.variant().players
    }

    /// The deal's inputs, as a record's `seeds`: `{"clients": [...], "server": "..."}`.
    #[getter]
    fn seeds<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        out.set_item("clients", self.seeds.clients.clone())?;
        out.set_item("server", self.seeds.server.clone())?;
        Ok(out)
    }

    /// `None` while the game goes on; then the result with the keys of a record's `result`:
    /// `win` (the `(win PLAYER TEAM)` clause), `winner` (player id, 0 for a team win or no
    /// winner), `winner_team`, `winner_side` (counted from 0, `None` when nobody won), `reason`
    /// (`capture-all`, `no-moves`, `no-progress`, ...) and `loser` (`None` unless a fault).
    #[getter]
    fn outcome<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(outcome) = self.game.outcome() else {
            return Ok(None);
        };
        let (winner, team) = self.game.win_clause();
        let out = PyDict::new(py);
        out.set_item("win", format!("(win {winner} {team})"))?;
        out.set_item("winner", winner)?;
        out.set_item("winner_team", team)?;
        out.set_item("winner_side", outcome.winner)?;
        out.set_item("reason", outcome.reason.name())?;
        out.set_item("loser", outcome.loser)?;
        Ok(Some(out))
    }

    /// The legal-action counts of the player to move, as in records: `moves`, `jumps`,
    /// `reveals`, `bags`, `puts` (all 0 once the game is over).
    fn counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = if self.game.outcome().is_some() {
            rules::ActionCounts::default()
        } else {
            self.game.counts()
        };
        let out = PyDict::new(py);
        out.set_item("moves", c.moves)?;
        out.set_item("jumps", c.jumps)?;
        out.set_item("reveals", c.reveals)?;
        out.set_item("bags", c.bags)?;
        out.set_item("puts", c.puts)?;
        Ok(out)
    }

    /// An independent copy: playing on one leaves the other as it was.
    fn clone(&self) -> Game {
        Clone::clone(self)
    }

    fn __copy__(&self) -> Game {
        Clone::clone(self)
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Game {
        Clone::clone(self)
    }

    fn __repr__(&self) -> String {
        format!(
            "<anqi.Game {} ply {} to_move {} board {}>",
            self.game.variant().name,
            self.game.ply(),
            self.game.to_move(),
            self.game.wire_board()
        )
    }
}

/// The native module; `anqi/__init__.py` re-exports it.
#[pymodule]
fn _anqi(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(variants, m)?)?;
    m.add_class::<Game>()?;
    m.add_class::<observation::Observation>()?;
    m.add_class::<client::ClientSession>()?;
    m.add_class::<bots::ReferenceBot>()?;
    Ok(())
}
