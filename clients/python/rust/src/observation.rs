//! `anqi.Observation`: what one player knows of a game at one moment, the thing a bot is given.
//!
//! It wraps the client library's [`anqi_client::Observation`], so an observation built by a
//! connected client (`ClientSession`, fed the server's messages), from a rules-core game
//! ([`observation_of`]) or from public facts (`Observation.from_public`) is the same object with
//! the same legal actions: the ones the server accepts.

use anqi_client::history::piece_at_index;
use anqi_client::Observation as Known;
use anqi_core::rules::{self, ActionCounts, Colour, ColourRule, Piece, Start, Variant};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;

/// What one player knows: the public board, the player to move, the piece in hand, the
/// colours, what it has seen of the game (the face-down pool, the repetitions, the no-progress
/// count), and its own legal actions when it is to move. Never the face-down pieces.
#[pyclass(module = "anqi", name = "Observation", frozen)]
pub struct Observation {
    pub(crate) inner: Known,
}

/// The observation of `player` in a rules-core game: what that player would know at this
/// point had it played the game over the wire. For `Game.observation(player)`.
pub(crate) fn observation_of(game: &rules::Game, player: usize) -> PyResult<Observation> {
    Known::of_game(game, player)
        .map(|inner| Observation { inner })
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// `"red"`, `"black"` or `None`.
fn colour_name(c: Option<Colour>) -> Option<&'static str> {
    c.map(|c| match c {
        Colour::Red => "red",
        Colour::Black => "black",
    })
}

fn colour_from_name(name: &str) -> PyResult<Colour> {
    match name {
        "red" => Ok(Colour::Red),
        "black" => Ok(Colour::Black),
        other => Err(PyValueError::new_err(format!(
            "a colour is \"red\" or \"black\", not {other:?}"
        ))),
    }
}

/// The counts as in records: `moves`, `jumps`, `reveals`, `bags`, `puts`.
pub(crate) fn counts_dict(py: Python<'_>, c: ActionCounts) -> PyResult<Bound<'_, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("moves", c.moves)?;
    out.set_item("jumps", c.jumps)?;
    out.set_item("reveals", c.reveals)?;
    out.set_item("bags", c.bags)?;
    out.set_item("puts", c.puts)?;
    Ok(out)
}

/// A variant from a shipped name, a description file's path, or a description's text (what
/// the server sends with the `variant` extension).
fn load_variant(variant: &str) -> PyResult<Variant> {
    let bad = |e: String| PyValueError::new_err(e);
    if variant.trim_start().starts_with('(') {
        Variant::parse(variant).map_err(|e| bad(e.to_string()))
    } else {
        Variant::load(variant).map_err(|e| bad(e.to_string()))
    }
}

#[pymethods]
impl Observation {
    /// An observation from public facts, without a game or a connection.
    ///
    /// `variant`: a shipped name, a description file or a description's text. `board`: the
    /// wire's board string. `colours`: one entry per side (`"red"`, `"black"` or `None` while
    /// undecided); by default the variant's fixed colours, or none decided. `hand`: the piece
    /// letter the player to move must put. `chain`: the cell of the piece that must capture
    /// again. `bag`: whether a `(bag)` draw is possible (default: in a bag game, yes).
    #[staticmethod]
    #[pyo3(signature = (variant, board, player, to_move, colours = None, hand = None, chain = None, turn = 0, bag = None))]
    #[allow(clippy::too_many_arguments)]
    fn from_public(
        variant: &str,
        board: &str,
        player: usize,
        to_move: usize,
        colours: Option<Vec<Option<String>>>,
        hand: Option<&str>,
        chain: Option<usize>,
        turn: u32,
        bag: Option<bool>,
    ) -> PyResult<Observation> {
        let variant = load_variant(variant)?;
        let side_colours = match colours {
            Some(names) => names
                .iter()
                .map(|n| n.as_deref().map(colour_from_name).transpose())
                .collect::<PyResult<Vec<_>>>()?,
            None if variant.colours == ColourRule::Fixed => {
                vec![Some(Colour::Red), Some(Colour::Black)]
            }
            None => vec![None; variant.sides.len()],
        };
        let hand = match hand {
            None => None,
            Some(text) => {
                let mut cs = text.chars();
                let piece = match (cs.next(), cs.next()) {
                    (Some(c), None) => Piece::from_letter(c),
                    _ => None,
                };
                Some(piece.ok_or_else(|| {
                    PyValueError::new_err(format!("hand: {text:?} is not a piece letter"))
                })?)
            }
        };
        let bag = bag.unwrap_or(variant.start == Start::Bag);
        Known::public(
            Arc::new(variant),
            player,
            board,
            to_move,
            turn,
            hand,
            chain,
            side_colours,
            bag,
        )
        .map(|inner| Observation { inner })
        .map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// The variant's name.
    #[getter]
    fn variant(&self) -> String {
        self.inner.variant.name.clone()
    }

    /// The variant's public description (VARIANTS.md format), or `None` when the rules are
    /// only assumed from the game type (a server without the `variant` extension).
    #[getter]
    fn description(&self) -> Option<String> {
        let v = &self.inner.variant;
        if v.source.is_empty() {
            self.inner.setup.description.clone()
        } else {
            Some(v.public_description())
        }
    }

    /// The game type, as the setup's `(game TYPE)`.
    #[getter]
    fn game(&self) -> String {
        self.inner.setup.game.clone()
    }

    /// This player's id, counted from 1.
    #[getter]
    fn player(&self) -> usize {
        self.inner.player()
    }

    /// The number of players.
    #[getter]
    fn players(&self) -> usize {
        self.inner.variant.players
    }

    /// The players of each side, side 0 first.
    #[getter]
    fn sides(&self) -> Vec<Vec<usize>> {
        self.inner.variant.sides.clone()
    }

    /// This player's side, counted from 0.
    #[getter]
    fn side(&self) -> usize {
        self.inner.side_of(self.inner.player()).unwrap_or_default()
    }

    /// The team number of the wire (`(team T)`), in team games; else `None`.
    #[getter]
    fn team(&self) -> Option<usize> {
        self.inner.setup.team
    }

    /// The other players of this player's side.
    #[getter]
    fn teammates(&self) -> Vec<usize> {
        self.inner.setup.teammates.clone()
    }

    /// The player to move.
    #[getter]
    fn to_move(&self) -> usize {
        self.inner.to_move
    }

    /// Whether this player must act now.
    #[getter]
    fn is_my_turn(&self) -> bool {
        self.inner.is_my_turn()
    }

    /// The board, the wire's board string.
    #[getter]
    fn board(&self) -> String {
        self.inner.wire_board.clone()
    }

    /// The letter of the piece the player to move drew and must put, else `None`.
    #[getter]
    fn hand(&self) -> Option<String> {
        self.inner.hand.map(|p| p.letter().to_string())
    }

    /// During a chain capture, the cell of the piece that must capture again (known for this
    /// player's own chains only, when the observation comes from a connection).
    #[getter]
    fn chain(&self) -> Option<usize> {
        self.inner.chain
    }

    /// This player's side's colour: `"red"`, `"black"`, or `None` while undecided and in
    /// games where everyone moves both colours.
    #[getter]
    fn colour(&self) -> Option<&'static str> {
        if matches!(self.inner.variant.objective, rules::Objective::Clear { .. }) {
            return None;
        }
        colour_name(self.inner.colour())
    }

    /// Every side's colour, side 0 first, as `colour`.
    #[getter]
    fn colours(&self) -> Vec<Option<&'static str>> {
        let clear = matches!(self.inner.variant.objective, rules::Objective::Clear { .. });
        self.inner
            .side_colours
            .iter()
            .map(|&c| if clear { None } else { colour_name(c) })
            .collect()
    }

    /// The paper's TURN: completed rounds of the turn order.
    #[getter]
    fn turn(&self) -> u32 {
        self.inner.turn
    }

    /// The pieces no player has seen yet (face-down, or in the bag), as `{letter: count}` in
    /// the order `KGBRNCPkgbrncp`, pieces with a count only: what a reveal or a draw may turn
    /// up, each as likely as its count. Exact from a connection (the tracker follows every ply)
    /// and from `Game.observation`; from `from_public`, the variant's pieces minus those
    /// face-up and in hand (captured pieces count as face-down).
    #[getter]
    fn pool<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        for (i, &n) in self.inner.history.pool().iter().enumerate() {
            if n > 0 {
                out.set_item(piece_at_index(i).letter().to_string(), n)?;
            }
        }
        Ok(out)
    }

    /// Plies since the last reveal, capture, draw or put: what the no-progress draw rule counts
    /// (0 from `from_public`, which knows no earlier ply).
    #[getter]
    fn progress(&self) -> u32 {
        self.inner.history.progress()
    }

    /// How often the current position (the board and the place in the turn order of the
    /// player to move) has occurred since the last reveal, capture, draw or put, this time
    /// included: what the repetition rule counts. From a connection, counted over the game;
    /// `Game.observation` and `from_public` know only this position (1).
    #[getter]
    fn occurrences(&self) -> u32 {
        self.inner.occurrences()
    }

    /// This player's observation tensor as a numpy `float32` array, the same as
    /// `Game.observation_tensor(player, grid, relative)` of the same moment (`tensor.rs`,
    /// PACKAGE.md "Tensors"): what a network trained on the games in process reads, for a bot
    /// on a server. Made from what this player knows: the unseen pieces, the no-progress
    /// count and the repetitions are exact when it saw the whole game (a connected client does);
    /// over the wire the chain plane is set only at this player's own prompts (a chain capture
    /// is told to its mover alone). numpy must be installed.
    #[pyo3(signature = (grid = false, relative = false))]
    fn observation_tensor<'py>(
        &self,
        py: Python<'py>,
        grid: bool,
        relative: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        use crate::tensor::{self, PLANES};
        let cells = self.inner.board.len();
        let shape: Vec<usize> = if grid {
            let (rows, columns) = tensor::grid_dims(&self.inner.variant)?;
            vec![PLANES, rows, columns]
        } else {
            vec![PLANES, cells]
        };
        let mut planes = vec![0f32; PLANES * cells];
        tensor::write_planes(&self.inner, self.inner.player(), relative, &mut planes);
        let bytes: Vec<u8> = planes.iter().flat_map(|f| f.to_le_bytes()).collect();
        crate::numpy_array::numpy_array(py, &bytes, "<f4", shape)
    }

    /// This player's legal actions as wire clauses, in the rules' order: empty unless it is
    /// to move.
    fn legal_actions(&self) -> Vec<String> {
        self.inner.legal.iter().map(|a| a.to_string()).collect()
    }

    /// This player's legal-action counts (`moves`, `jumps`, `reveals`, `bags`, `puts`): its
    /// real ones when it is to move, else what it could do were it its turn.
    fn counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        counts_dict(py, self.inner.counts())
    }

    /// The counts of any player from what this player knows, as `Game.counts_of`: the player to
    /// move with its hand (and chain, when known), anyone else with its own colour, no hand and
    /// no chain.
    fn counts_of<'py>(&self, py: Python<'py>, player: usize) -> PyResult<Bound<'py, PyDict>> {
        let counts = self.inner.counts_of(player).ok_or_else(|| {
            PyValueError::new_err(format!(
                "no player {player}: the players are 1 to {}",
                self.inner.variant.players
            ))
        })?;
        counts_dict(py, counts)
    }

    fn __repr__(&self) -> String {
        format!(
            "<anqi.Observation {} player {} to_move {} turn {} board {}{}>",
            self.inner.variant.name,
            self.inner.player(),
            self.inner.to_move,
            self.inner.turn,
            self.inner.wire_board,
            self.inner
                .hand
                .map(|p| format!(" hand {}", p.letter()))
                .unwrap_or_default()
        )
    }
}
