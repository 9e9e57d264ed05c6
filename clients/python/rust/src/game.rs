//! `anqi.Game`: one game of any variant, with the referee's knowledge, played by wire clauses
//! or by action ids, optionally with explicit chance nodes (chance mode).
//!
//! Chance mode keeps the rules in the core: a reveal (or a draw) first stops at a chance node;
//! the chosen piece is then arranged by [`rules::Game::arrange_reveal`] (or `arrange_draw`),
//! which exchanges face-down pieces so that the multiset stays the same, and the action is
//! played as in any game. `start` follows the same exchanges, so it is always a deal that the
//! game so far is a normal game of: `game.deal` gives it back, and `Game(deal=...)` replays it.
//!
//! A game pickles as that deal and the ids played since ([`Game::__reduce__`]): unpickling
//! plays them again, so everything the rules keep (the repetition rule's positions, the
//! counters) comes back as it was, through the rules' own code.

use crate::actions::{parse_action, piece_index, piece_of, PIECE_LETTERS};
use crate::numpy_array::numpy_array;
use crate::observation::{counts_dict, observation_of, Observation};
use crate::seeds::{seed_text_or_fresh, seed_texts, Rng};
use crate::tensor::{self, PLANES};
use crate::variant::{load_any, Loaded, VariantInfo};
use anqi_core::record::{wire_team, GameHeader, GameRecord, PlayerRecord, PlyRecord};
use anqi_core::rules::{self, Action, ActionCounts, Deal, Piece, SeedInputs, Start};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::sync::Arc;

mod pickle;
use pickle::Pickled;

/// One game of any variant, with the server's knowledge (the face-down pieces too).
///
/// `Game(variant="traditional", seed=None, client_seeds=(), deal=None, chance=False,
/// revealed=None, record=False)`; see PACKAGE.md for the whole reference.
#[pyclass(module = "anqi", name = "Game", from_py_object)]
#[derive(Clone)]
pub struct Game {
    pub(crate) game: rules::Game,
    pub(crate) loaded: Arc<Loaded>,
    /// The deal's inputs; `None` when the deal was given (`deal=`).
    seeds: Option<SeedInputs>,
    /// The starting position; in chance mode, with the exchanges made so far.
    start: Deal,
    chance: bool,
    /// At a chance node: the reveal or draw waiting for its piece.
    pending: Option<Action>,
    /// Bag draws made so far (where the next draw is in `start.bag`).
    draws: usize,
    /// With `record=True`: every ply so far, as a record keeps it, every player's counts
    /// included; and the counts of a reveal or draw waiting at a chance node.
    log: Option<Vec<PlyRecord>>,
    pending_counts: Option<(ActionCounts, Vec<ActionCounts>, u32)>,
    /// The ids of the actions played since `start` (a pending reveal or draw not among
    /// them), what a pickle keeps; `None` for a game taken from a `VecGame`, whose plies
    /// before were not kept.
    played: Option<Vec<u32>>,
}

impl Game {
    /// The rules core's game (for the other modules of the crate).
    pub fn rules(&self) -> &rules::Game {
        &self.game
    }

    /// A game already under way in the rules core (a `VecGame`'s), dealt from `seeds`: not in
    /// chance mode.
    pub(crate) fn of_rules(game: rules::Game, loaded: Arc<Loaded>, seeds: SeedInputs) -> Game {
        let start = seeds.deal_for(&loaded.variant);
        let draws = start.bag.len() - game.bag_len();
        Game {
            game,
            loaded,
            seeds: Some(seeds),
            start,
            chance: false,
            pending: None,
            draws,
            log: None,
            pending_counts: None,
            played: None,
        }
    }

    /// Keeps the id of `action`, just played, for a pickle.
    fn keep(&mut self, action: Action) {
        if let Some(played) = self.played.as_mut() {
            played.push(
                self.loaded
                    .codec
                    .encode(action)
                    .expect("a legal action has an id"),
            );
        }
    }

    /// Plays `action` for the player to move; in chance mode a reveal or a draw stops at a
    /// chance node instead (once checked legal).
    fn act(&mut self, action: Action) -> PyResult<()> {
        if self.pending.is_some() {
            return Err(at_chance_node());
        }
        let player = self.game.to_move();
        if self.chance && matches!(action, Action::Reveal(_) | Action::Bag) {
            self.game.check(player, action).map_err(value_error)?;
            self.pending = Some(action);
            self.pending_counts = self.log.is_some().then(|| self.counts_now());
            return Ok(());
        }
        let before = self.log.is_some().then(|| self.counts_now());
        let played = self.game.play(player, action).map_err(value_error)?;
        if played.drawn.is_some() {
            self.draws += 1;
        }
        if let Some(counts) = before {
            self.log_ply(player, action, &played, counts);
        }
        self.keep(action);
        Ok(())
    }

    /// The mover's counts, every player's, and the turn: what a ply's record keeps of the
    /// position before it.
    fn counts_now(&self) -> (ActionCounts, Vec<ActionCounts>, u32) {
        let all = (1..=self.game.variant().players)
            .map(|p| self.game.counts_of(p))
            .collect();
        (self.game.counts(), all, self.game.round())
    }

    fn log_ply(
        &mut self,
        player: usize,
        action: Action,
        played: &rules::Played,
        (legal, legal_all, turn): (ActionCounts, Vec<ActionCounts>, u32),
    ) {
        if let Some(log) = self.log.as_mut() {
            log.push(PlyRecord {
                legal_all: Some(legal_all),
                ..PlyRecord::of_play(&self.game, turn, player, action, legal, played)
            });
        }
    }

    /// The unseen pieces the pending chance node chooses from, counted per piece.
    fn pool(&self) -> PyResult<[u32; 14]> {
        match self.pending {
            Some(Action::Reveal(_)) => Ok(self.game.face_down_counts()),
            Some(_) => Ok(self.game.bag_counts()),
            None => Err(PyValueError::new_err(
                "not at a chance node: chance nodes come after a reveal or a draw, with chance=True",
            )),
        }
    }

    /// Resolves the pending chance node with `piece` (one of the pool's).
    fn resolve(&mut self, piece: Piece) -> PyResult<()> {
        let pending = self.pending.expect("at a chance node");
        let player = self.game.to_move();
        match pending {
            Action::Reveal(cell) => {
                if let Some(other) = self.game.arrange_reveal(cell, piece).map_err(value_error)? {
                    self.start.cells.swap(cell, other);
                }
            }
            _ => {
                if let Some(later) = self.game.arrange_draw(piece).map_err(value_error)? {
                    self.start.bag.swap(self.draws, self.draws + later);
                }
                self.draws += 1;
            }
        }
        self.pending = None;
        let played = self.game.play(player, pending).map_err(value_error)?;
        if let Some(counts) = self.pending_counts.take() {
            self.log_ply(player, pending, &played, counts);
        }
        self.keep(pending);
        Ok(())
    }
}

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

fn at_chance_node() -> PyErr {
    PyValueError::new_err(
        "the game is at a chance node: choose the piece with apply_chance(letter) or sample_chance(rng)",
    )
}

/// Reads `deal=`: a string (the cells; a bag variant's bag) or a dict with `cells`, `face_up`
/// and `bag`.
fn read_deal(variant: &rules::Variant, deal: &Bound<'_, PyAny>) -> PyResult<Deal> {
    let bag_start = variant.start == Start::Bag;
    if let Ok(text) = deal.extract::<String>() {
        let (cells, bag) = if bag_start {
            (None, Some(text.as_str()))
        } else {
            (Some(text.as_str()), None)
        };
        return Deal::from_text(variant, cells, None, bag).map_err(deal_error);
    }
    let Ok(dict) = deal.cast::<PyDict>() else {
        return Err(PyTypeError::new_err(
            "deal: give a string (one letter or '.' per cell; a bag variant's bag) or a dict with cells, face_up and bag",
        ));
    };
    for key in dict.keys() {
        let key: String = key.extract()?;
        if !matches!(key.as_str(), "cells" | "face_up" | "bag") {
            return Err(deal_error(format!(
                "unknown key {key:?}: the keys are cells, face_up and bag"
            )));
        }
    }
    let cells: Option<String> = dict.get_item("cells")?.map(|v| v.extract()).transpose()?;
    let face_up: Option<Vec<usize>> = dict.get_item("face_up")?.map(|v| v.extract()).transpose()?;
    let bag: Option<String> = dict.get_item("bag")?.map(|v| v.extract()).transpose()?;
    Deal::from_text(
        variant,
        cells.as_deref(),
        face_up.as_deref(),
        bag.as_deref(),
    )
    .map_err(deal_error)
}

fn deal_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(format!("deal: {e}"))
}

#[pymethods]
impl Game {
    #[new]
    #[pyo3(signature = (variant = None, seed = None, client_seeds = None, deal = None, chance = false, revealed = None, record = false))]
    fn new(
        variant: Option<&Bound<'_, PyAny>>,
        seed: Option<&Bound<'_, PyAny>>,
        client_seeds: Option<&Bound<'_, PyAny>>,
        deal: Option<&Bound<'_, PyAny>>,
        chance: bool,
        revealed: Option<u32>,
        record: bool,
    ) -> PyResult<Game> {
        // Seeds are texts; an int is its decimal string (seeds.rs).
        let seed = seed.filter(|s| !s.is_none());
        let client_seeds = match client_seeds {
            Some(c) if !c.is_none() => seed_texts("client_seeds", c)?,
            _ => Vec::new(),
        };
        let loaded = match variant {
            Some(v) => load_any(v)?,
            None => crate::variant::load("traditional")?,
        };
        // A curriculum's start: the variant's deal from the same seeds, `k` of its pieces
        // turned face-up at random, as `(start (reveal k))` deals.
        let dealt_as = match revealed {
            None => None,
            Some(_) if deal.is_some() => {
                return Err(PyValueError::new_err(
                    "give revealed= or a deal, not both: a deal says which cells start face-up (its face_up)",
                ))
            }
            Some(k) if k as usize >= loaded.variant.pieces.len()
                && loaded.variant.colours == rules::ColourRule::FirstReveal =>
            {
                return Err(PyValueError::new_err(format!(
                    "revealed={k}: at most {} of the {} pieces, since colours are decided by a reveal (with every piece face-up, the first player could not move)",
                    loaded.variant.pieces.len() - 1,
                    loaded.variant.pieces.len()
                )))
            }
            Some(k) => match loaded.variant.start {
                Start::FaceDown | Start::Reveal(_) => {
                    let mut v = rules::Variant::clone(&loaded.variant);
                    v.start = Start::Reveal(k);
                    Some(v)
                }
                _ => {
                    return Err(PyValueError::new_err(format!(
                        "revealed= turns face-down pieces up: {} does not start face-down",
                        loaded.variant.name
                    )))
                }
            },
        };
        let (seeds, start) = match deal {
            Some(deal) => {
                if seed.is_some() || !client_seeds.is_empty() {
                    return Err(PyValueError::new_err(
                        "give a deal or seeds, not both: the seeds only make a deal",
                    ));
                }
                (None, read_deal(&loaded.variant, deal)?)
            }
            None => {
                let seeds = SeedInputs {
                    clients: client_seeds,
                    server: seed_text_or_fresh("seed", seed)?,
                };
                let start = seeds.deal_for(dealt_as.as_ref().unwrap_or(&loaded.variant));
                (Some(seeds), start)
            }
        };
        Ok(Game {
            game: rules::Game::new(loaded.variant.clone(), start.clone()),
            loaded,
            seeds,
            start,
            chance,
            pending: None,
            draws: 0,
            log: record.then(Vec::new),
            pending_counts: None,
            played: Some(Vec::new()),
        })
    }

    /// The legal actions of the player to move, as wire clauses (empty once the game is over
    /// and at a chance node).
    fn legal_actions(&self) -> Vec<String> {
        if self.game.outcome().is_some() || self.pending.is_some() {
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
        self.act(parse_action(action)?)
    }

    /// The legal actions of the player to move, as action ids in the rules' order (empty once
    /// the game is over and at a chance node).
    fn legal_action_ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        // The hot path of Python-driven playouts: the ids go into a buffer on the stack (a
        // heap one only past `SMALL` actions), then straight into the list.
        const SMALL: usize = 64;
        let mut small = [0u32; SMALL];
        let mut large: Vec<u32> = Vec::new();
        let mut n = 0;
        if self.game.outcome().is_none() && self.pending.is_none() {
            let codec = &self.loaded.codec;
            self.game.for_each_legal(|a, _| {
                let id = codec.encode(a).expect("every legal action has an id");
                if n < SMALL {
                    small[n] = id;
                } else {
                    if large.is_empty() {
                        large.extend_from_slice(&small);
                    }
                    large.push(id);
                }
                n += 1;
            });
        }
        let ids = if n <= SMALL { &small[..n] } else { &large[..] };
        PyList::new(py, ids)
    }

    /// Plays the action of an id for the player to move (ValueError as `play`).
    fn apply(&mut self, id: i64) -> PyResult<()> {
        let action = self.loaded.codec.decode_or_refuse(id)?;
        self.act(action)
    }

    /// The wire clause of an action id.
    fn action_text(&self, id: i64) -> PyResult<String> {
        Ok(self.loaded.codec.decode_or_refuse(id)?.to_string())
    }

    /// The id of an action given as its wire clause.
    fn action_id(&self, text: &str) -> PyResult<u32> {
        self.loaded.codec.encode_or_refuse(parse_action(text)?)
    }

    /// How many action ids the variant has: ids are `0 .. num_distinct_actions`.
    #[getter]
    fn num_distinct_actions(&self) -> usize {
        self.loaded.codec.len()
    }

    /// Whether the game is over (`outcome is not None`), cheaply.
    #[getter]
    fn is_terminal(&self) -> bool {
        self.game.outcome().is_some()
    }

    /// Whether this game has chance nodes (`chance=True`).
    #[getter]
    fn chance(&self) -> bool {
        self.chance
    }

    /// Whether a reveal or a draw waits for its piece (chance mode).
    #[getter]
    fn is_chance_node(&self) -> bool {
        self.pending.is_some()
    }

    /// At a chance node, the pieces it may give with their probabilities: `[(letter, p)]`,
    /// every unseen piece (face-down for a reveal, in the bag for a draw) once, in the order
    /// `KGBRNCPkgbrncp`, `p` its count over the pool's size. ValueError elsewhere.
    fn chance_outcomes(&self) -> PyResult<Vec<(char, f64)>> {
        let pool = self.pool()?;
        let total: u32 = pool.iter().sum();
        Ok((0..14)
            .filter(|&i| pool[i] > 0)
            .map(|i| {
                (
                    PIECE_LETTERS.as_bytes()[i] as char,
                    f64::from(pool[i]) / f64::from(total),
                )
            })
            .collect())
    }

    /// Resolves the chance node with a piece (its letter, one of `chance_outcomes()`), and the
    /// pending reveal or draw is played.
    fn apply_chance(&mut self, piece: &str) -> PyResult<()> {
        let pool = self.pool()?;
        let mut letters = piece.chars();
        let p = match (letters.next().and_then(Piece::from_letter), letters.next()) {
            (Some(p), None) => p,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "{piece:?} is not a piece letter (KGBRNCP red, kgbrncp black)"
                )))
            }
        };
        if pool[piece_index(p)] == 0 {
            let unseen: String = (0..14)
                .filter(|&i| pool[i] > 0)
                .map(|i| PIECE_LETTERS.as_bytes()[i] as char)
                .collect();
            return Err(PyValueError::new_err(format!(
                "{piece} cannot come out here: the unseen pieces are {unseen}"
            )));
        }
        self.resolve(p)
    }

    /// Resolves the chance node with a piece drawn with the node's probabilities, and returns
    /// its letter. `rng`: a `random.Random` (its `randrange`), a seed (a str, or an int meaning
    /// its decimal string: a generator of its own, started anew at each call, so the same
    /// node gives the same piece), or `None` (the `random` module).
    #[pyo3(signature = (rng = None))]
    fn sample_chance(&mut self, py: Python<'_>, rng: Option<&Bound<'_, PyAny>>) -> PyResult<char> {
        let pool = self.pool()?;
        let total: u32 = pool.iter().sum();
        let mut x = Rng::of(py, "rng", rng)?.below(total)?;
        let i = (0..14)
            .find(|&i| {
                let hit = x < pool[i];
                x = x.saturating_sub(pool[i]);
                hit
            })
            .expect("x < total");
        self.resolve(piece_of(i))?;
        Ok(PIECE_LETTERS.as_bytes()[i] as char)
    }

    /// The starting position as `{"cells", "face_up", "bag"}`: the layout, one letter per cell
    /// (`.` empty) as it would read face-up; the cells that start face-up; the bag, the next
    /// draw first. In chance mode, the pieces chosen so far are where they came out (the unseen
    /// ones somewhere consistent), so `Game(variant, deal=game.deal)` replays the game.
    #[getter]
    fn deal<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        out.set_item("cells", self.start.cells_text())?;
        out.set_item("face_up", self.start.face_up_cells())?;
        out.set_item("bag", self.start.bag_text())?;
        Ok(out)
    }

    /// The player to move, counted from 1 as on the wire (at a chance node: the player whose
    /// reveal or draw waits for its piece).
    #[getter]
    fn to_move(&self) -> usize {
        self.game.to_move()
    }

    /// Plies played so far (every action counts, bag draws included; a chance node's reveal
    /// counts once it is resolved).
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

    /// The variant as an `anqi.Variant` (rules, topology, description).
    #[getter]
    fn variant_info(&self) -> VariantInfo {
        VariantInfo {
            loaded: self.loaded.clone(),
        }
    }

    /// The number of players (seats).
    #[getter]
    fn players(&self) -> usize {
        self.game.variant().players
    }

    /// The deal's inputs, as a record's `seeds`: `{"clients": [...], "server": "..."}`; `None`
    /// when the deal was given.
    #[getter]
    fn seeds<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(seeds) = &self.seeds else {
            return Ok(None);
        };
        let out = PyDict::new(py);
        out.set_item("clients", seeds.clients.clone())?;
        out.set_item("server", seeds.server.clone())?;
        Ok(Some(out))
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
    /// `reveals`, `bags`, `puts` (all 0 once the game is over; at a chance node, those of the
    /// position before the pending reveal or draw).
    fn counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = if self.game.outcome().is_some() {
            rules::ActionCounts::default()
        } else {
            self.game.counts()
        };
        counts_dict(py, c)
    }

    /// The legal-action counts `player` would have in this position: the mover's own, and for
    /// anyone else what it could do were it its turn (its own colour, no hand, no chain). The
    /// mobility of every player, as records keep it with `legal_counts = "all"`.
    fn counts_of<'py>(&self, py: Python<'py>, player: usize) -> PyResult<Bound<'py, PyDict>> {
        if !(1..=self.game.variant().players).contains(&player) {
            return Err(value_error(format!(
                "player {player} is not in 1..={}",
                self.game.variant().players
            )));
        }
        let c = self.game.counts_of(player);
        counts_dict(py, c)
    }

    /// What `player` knows (an `anqi.Observation`): the public board, its colour, the hand of
    /// the player to move, and its legal actions when it is to move; never a face-down piece.
    /// This is what a bot may be given. Refused at a chance node (apply the chance outcome
    /// first).
    fn observation(&self, player: usize) -> PyResult<Observation> {
        if self.is_chance_node() {
            return Err(at_chance_node());
        }
        observation_of(&self.game, player)
    }

    /// `player`'s observation as a numpy `float32` array (`tensor.rs`, PACKAGE.md "Tensors"):
    /// shape `(50, S)` over the cells, or `(50, rows, columns)` with `grid=True` on a
    /// rectangle. `player`: a player id, counted from 1; the player to move by default.
    /// `relative=True`: in the observer's colour roles (the "red" planes are its colour's).
    /// numpy must be installed.
    #[pyo3(signature = (player = None, grid = false, relative = false))]
    fn observation_tensor<'py>(
        &self,
        py: Python<'py>,
        player: Option<usize>,
        grid: bool,
        relative: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let players = self.game.variant().players;
        let player = player.unwrap_or_else(|| self.game.to_move());
        if !(1..=players).contains(&player) {
            return Err(value_error(format!(
                "player {player} is not a player id of this game: ids are counted from 1, 1..={players}"
            )));
        }
        let cells = self.game.board().len();
        let shape: Vec<usize> = if grid {
            let (rows, columns) = tensor::grid_dims(self.game.variant())?;
            vec![PLANES, rows, columns]
        } else {
            vec![PLANES, cells]
        };
        let mut planes = vec![0f32; PLANES * cells];
        tensor::write_planes(&self.game, player, relative, &mut planes);
        let bytes: Vec<u8> = planes.iter().flat_map(|f| f.to_le_bytes()).collect();
        numpy_array(py, &bytes, "<f4", shape)
    }

    /// The legal actions of the player to move as a numpy `bool` array over the action ids
    /// (`num_distinct_actions` long): all false once the game is over and at a chance node.
    fn legal_action_mask<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut mask = vec![0u8; self.loaded.codec.len()];
        if self.pending.is_none() {
            tensor::write_mask(&self.game, &self.loaded.codec, &mut mask);
        }
        numpy_array(py, &mask, "bool", vec![mask.len()])
    }

    /// A copy of this game with the unseen pieces dealt anew: the face-down pieces among the
    /// face-down cells, the bag in a new order, every arrangement equally likely. The public
    /// state (board, pool, counters, colours, the player to move, a pending chance node) is the
    /// same; `deal` of the copy is a deal its game is a normal game of (its `seeds` are
    /// `None`: they made the original's deal, not this one). `rng`: a `random.Random` (its
    /// `randrange`), a seed (a str, or an int meaning its decimal string: the same seed, the
    /// same copy), or `None` (the `random` module).
    #[pyo3(signature = (rng = None))]
    fn resample(&self, py: Python<'_>, rng: Option<&Bound<'_, PyAny>>) -> PyResult<Game> {
        let mut out = Clone::clone(self);
        let mut rng = Rng::of(py, "rng", rng)?;
        // The rules draw through a closure that cannot fail: the first error from Python's
        // generator is kept, and raised once the draws are over.
        let mut error = None;
        out.game.redeal_unseen(|n| match rng.below(n) {
            Ok(x) => x,
            Err(e) => {
                error.get_or_insert(e);
                0
            }
        });
        if let Some(e) = error {
            return Err(e);
        }
        // The deal follows: a face-down piece has never moved, and the bag's next draws are
        // the deal's after those made.
        for c in 0..out.start.cells.len() {
            if let Some(p) = out.game.hidden_piece(c) {
                out.start.cells[c] = Some(p);
            }
        }
        let draws = out.draws;
        for (k, p) in out.game.bag_pieces().enumerate() {
            out.start.bag[draws + k] = p;
        }
        // The seeds no longer make this deal: the copy's deal is its own.
        out.seeds = None;
        Ok(out)
    }

    /// The state's key in a solution file of `anqi solve` (protocol/SOLVING.md): the board as
    /// everyone sees it, the unseen pieces, the player to move and the colours, as one integer
    /// (128 bits). `anqi.Solution` looks values up by it. ValueError at a chance node, in a
    /// bag game, on more than 16 cells or with more than two players.
    fn state_key(&self) -> PyResult<u128> {
        if self.pending.is_some() {
            return Err(PyValueError::new_err(
                "a chance node has no state of its own: apply the chance first",
            ));
        }
        anqi_core::solve::solver_variant(self.game.variant())
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(anqi_core::solve::Key::of(&self.game).0)
    }

    /// Each player's return, player 1 first: +1 for the winning side's players, -1 for the
    /// others, 0 while the game goes on or when nobody won (one-side games: +1 when the goal
    /// was reached, else 0). The rewards of `anqi.env`, `anqi.openspiel` and `VecGame`.
    fn returns(&self) -> Vec<f32> {
        let mut out = vec![0.0; self.game.variant().players];
        tensor::write_returns(&self.game, &mut out);
        out
    }

    /// The game's record, an `anqi.records.Record` as the server writes them, every player's
    /// counts at every ply included (`legal_all`): for `anqi.analysis` and the records' tables.
    /// Needs `record=True` at the start, and a finished game. `names`: the players' names
    /// (default `player1` ...). The record's `seeds` are the game's; a game dealt otherwise
    /// (`deal=`, chance mode, `revealed=`) has a record that its seeds do not replay.
    #[pyo3(signature = (names = None))]
    fn record<'py>(
        &self,
        py: Python<'py>,
        names: Option<Vec<String>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let Some(log) = &self.log else {
            return Err(value_error(
                "this game keeps no record: start it with anqi.Game(..., record=True)",
            ));
        };
        if self.game.outcome().is_none() {
            return Err(value_error(
                "the game is not over: a record is made of a finished game",
            ));
        }
        let players = self.game.variant().players;
        let names = names.unwrap_or_else(|| (1..=players).map(|p| format!("player{p}")).collect());
        if names.len() != players {
            return Err(value_error(format!(
                "{} names for {players} players",
                names.len()
            )));
        }
        let variant = self.game.variant();
        let seeds = self.seeds.clone().unwrap_or(SeedInputs {
            clients: Vec::new(),
            server: String::new(),
        });
        let players = names
            .into_iter()
            .enumerate()
            .map(|(i, name)| PlayerRecord {
                id: i + 1,
                name,
                seed: seeds.clients.get(i).cloned().unwrap_or_default(),
                side: Some(self.game.side_of(i + 1)),
                team: Some(wire_team(variant, i + 1)),
                colour: self
                    .game
                    .colour_of_side(self.game.side_of(i + 1))
                    .map(|c| c.name().to_string()),
                time_used_ms: 0,
            })
            .collect();
        let header = GameHeader {
            game: 1,
            started_unix_ms: 0,
            seeds,
            max_plies: 0,
            score_draw: String::new(),
            score_resign: String::new(),
        };
        let record =
            GameRecord::of_game(header, &self.game, players, log.clone(), Default::default());
        let json = serde_json::to_string(&record).map_err(value_error)?;
        let d = py.import("json")?.call_method1("loads", (json,))?;
        py.import("anqi.records")?
            .call_method1("_record", (d, "in process"))
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

    /// Pickling (`pickle`, `multiprocessing`, OpenSpiel's `state.serialize()`): the game as
    /// `Game()` and a state that `__setstate__` replays: the variant's description, the deal
    /// (`game.deal`, which in chance mode holds the pieces chosen so far), the seeds, the
    /// options, the ids played and a pending reveal or draw. A copy of a `VecGame`'s game
    /// (`vec.game(i)`) does not know its plies before and refuses.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, pyo3::types::PyType>, (), Pickled)> {
        let state = slf.borrow().pickled()?;
        Ok((slf.get_type(), (), state))
    }

    /// Restores a pickled game (see `__reduce__`): its plies are played again.
    fn __setstate__(&mut self, state: Pickled) -> PyResult<()> {
        *self = Game::unpickle(state)?;
        Ok(())
    }

    fn __repr__(&self) -> String {
        format!(
            "<anqi.Game {} ply {} to_move {} board {}{}>",
            self.game.variant().name,
            self.game.ply(),
            self.game.to_move(),
            self.game.wire_board(),
            if self.pending.is_some() {
                " (chance node)"
            } else {
                ""
            }
        )
    }
}
