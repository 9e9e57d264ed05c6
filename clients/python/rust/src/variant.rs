//! Variants: `anqi.variants()`, `anqi.Variant` (a variant's rules and topology as Python data),
//! and the loading shared by `Game` and `playouts` (shipped variants are read once per process).

use crate::actions::{parse_action, Codec};
use anqi_core::rules::{self, ColourRule, Objective, Repetition, Start, SHIPPED};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// A variant with its action ids, shared by every game of it.
#[derive(Debug)]
pub struct Loaded {
    pub variant: Arc<rules::Variant>,
    pub codec: Codec,
}

impl Loaded {
    fn new(variant: rules::Variant) -> Arc<Loaded> {
        let codec = Codec::new(&variant);
        Arc::new(Loaded {
            variant: Arc::new(variant),
            codec,
        })
    }
}

/// A shipped name or the path of a description file. Shipped variants are parsed once per
/// process (a Python loop creating a game per playout would otherwise parse the description
/// and build the id tables every time); files are read every time, as they may change.
pub fn load(name_or_path: &str) -> PyResult<Arc<Loaded>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<Loaded>>>> = OnceLock::new();
    let refuse = |e: rules::VariantError| PyValueError::new_err(e.to_string());
    if !SHIPPED.iter().any(|(n, _)| *n == name_or_path) {
        return Ok(Loaded::new(
            rules::Variant::load(name_or_path).map_err(refuse)?,
        ));
    }
    let cache = CACHE.get_or_init(Default::default);
    if let Some(hit) = cache.lock().expect("not poisoned").get(name_or_path) {
        return Ok(hit.clone());
    }
    let loaded = Loaded::new(rules::Variant::shipped(name_or_path).map_err(refuse)?);
    cache
        .lock()
        .expect("not poisoned")
        .insert(name_or_path.to_string(), loaded.clone());
    Ok(loaded)
}

/// A variant from the whole text of its description (`Variant::source`, a fixed start's
/// secret deal included), as a pickled `Game` keeps it: the shipped variant of that name when
/// the text is its own (shared, as [`load`] shares it), else the text parsed.
pub fn load_source(text: &str) -> PyResult<Arc<Loaded>> {
    let variant = rules::Variant::parse(text).map_err(|e| PyValueError::new_err(e.to_string()))?;
    if SHIPPED.iter().any(|(n, _)| *n == variant.name) {
        let shipped = load(&variant.name)?;
        if shipped.variant.source == variant.source {
            return Ok(shipped);
        }
    }
    Ok(Loaded::new(variant))
}

/// A variant given as a shipped name, a description file's path or a `Variant`.
pub fn load_any(variant: &Bound<'_, PyAny>) -> PyResult<Arc<Loaded>> {
    if let Ok(v) = variant.cast::<VariantInfo>() {
        return Ok(v.get().loaded.clone());
    }
    match variant.extract::<String>() {
        Ok(name) => load(&name),
        Err(_) => Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "variant: give a shipped name, a description file's path or an anqi.Variant, not {}",
            variant.get_type().name()?
        ))),
    }
}

/// The shipped variants, name to one-line summary, in the order of `protocol/variants/`.
#[pyfunction]
pub fn variants(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let out = PyDict::new(py);
    for (name, _) in SHIPPED {
        out.set_item(*name, load(name)?.variant.summary.clone())?;
    }
    Ok(out)
}

/// One variant: its rules and its board as Python data.
///
/// `Variant(name_or_path)`: a shipped name or the path of a description file
/// (protocol/VARIANTS.md). Immutable; `Game(variant=...)` accepts it in place of the name.
#[pyclass(module = "anqi", name = "Variant", frozen)]
pub struct VariantInfo {
    pub loaded: Arc<Loaded>,
}

impl VariantInfo {
    fn v(&self) -> &rules::Variant {
        &self.loaded.variant
    }
}

#[pymethods]
impl VariantInfo {
    #[new]
    fn new(name_or_path: &str) -> PyResult<VariantInfo> {
        Ok(VariantInfo {
            loaded: load(name_or_path)?,
        })
    }

    /// A variant from the text of a description (protocol/VARIANTS.md), such as a record's
    /// `variant_source`; a ValueError says what is wrong with it.
    #[staticmethod]
    fn from_description(text: &str) -> PyResult<VariantInfo> {
        let variant =
            rules::Variant::parse(text).map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(VariantInfo {
            loaded: Loaded::new(variant),
        })
    }

    /// The short name (`traditional`, `2v2`, ...), as in records.
    #[getter]
    fn name(&self) -> &str {
        &self.v().name
    }

    /// One line saying what the variant is.
    #[getter]
    fn summary(&self) -> &str {
        &self.v().summary
    }

    /// The `(game TYPE)` sent to clients: `traditional`, `strategic`, `single`, ...
    #[getter]
    fn game_type(&self) -> &str {
        &self.v().game_type
    }

    /// The number of players (seats), numbered from 1.
    #[getter]
    fn players(&self) -> usize {
        self.v().players
    }

    /// The players of each side: `[[1], [2]]`, `[[1, 3], [2, 4]]`, `[[1]]` (one side).
    #[getter]
    fn sides(&self) -> Vec<Vec<usize>> {
        self.v().sides.clone()
    }

    /// The turn order, player ids repeated round after round.
    #[getter]
    fn order(&self) -> Vec<usize> {
        self.v().order.clone()
    }

    /// The number of cells.
    #[getter]
    fn size(&self) -> usize {
        self.v().topology.size()
    }

    /// Every piece of the game as a piece string (`KGGBB...ppppp`).
    #[getter]
    fn pieces(&self) -> String {
        self.v().pieces_wire()
    }

    /// How the pieces start: `face-down`, `open`, `reveal` (see `reveal_count`), `fixed` (see
    /// `fixed_board`) or `bag`.
    #[getter]
    fn start(&self) -> &'static str {
        match self.v().start {
            Start::FaceDown => "face-down",
            Start::Open => "open",
            Start::Reveal(_) => "reveal",
            Start::Fixed { .. } => "fixed",
            Start::Bag => "bag",
        }
    }

    /// How many pieces a `reveal` start turns face-up; `None` for other starts.
    #[getter]
    fn reveal_count(&self) -> Option<u32> {
        match self.v().start {
            Start::Reveal(k) => Some(k),
            _ => None,
        }
    }

    /// A `fixed` start's board as players see it (letters face-up, `X` face-down, `.` empty);
    /// `None` for other starts. The description's deal, if any, is a secret and not given.
    #[getter]
    fn fixed_board(&self) -> Option<&str> {
        match &self.v().start {
            Start::Fixed { board, .. } => Some(board),
            _ => None,
        }
    }

    /// `first-reveal` (a side's first revealed or drawn piece gives its colour) or `fixed`
    /// (side 1 red, side 2 black).
    #[getter]
    fn colours(&self) -> &'static str {
        match self.v().colours {
            ColourRule::FirstReveal => "first-reveal",
            ColourRule::Fixed => "fixed",
        }
    }

    /// `capture` (competitive) or `clear` (one side removes a colour within `ply_cap` plies).
    #[getter]
    fn objective(&self) -> &'static str {
        match self.v().objective {
            Objective::Capture => "capture",
            Objective::Clear { .. } => "clear",
        }
    }

    /// The ply cap of a `clear` objective; `None` for `capture`.
    #[getter]
    fn ply_cap(&self) -> Option<u32> {
        match self.v().objective {
            Objective::Clear { ply_cap } => Some(ply_cap),
            Objective::Capture => None,
        }
    }

    /// Whether a capturing piece must go on capturing while it can.
    #[getter]
    fn chain_capture(&self) -> bool {
        self.v().chain_capture
    }

    /// Whether cannons capture by jumping over one piece.
    #[getter]
    fn cannon_jump(&self) -> bool {
        self.v().capture.cannon_jump
    }

    /// Plies without a reveal, capture, draw or put that draw the game; `None`: no such rule.
    #[getter]
    fn no_progress(&self) -> Option<u32> {
        self.v().draw.no_progress
    }

    /// The repetition rule: `None`, `{"occurrence": N}` (a position's N-th occurrence draws),
    /// or `{"cycle": N, "extra": E}` (one cycle of moves repeated N times and E plies more).
    #[getter]
    fn repetition<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(rule) = self.v().draw.repetition else {
            return Ok(None);
        };
        let out = PyDict::new(py);
        match rule {
            Repetition::Occurrence(n) => out.set_item("occurrence", n)?,
            Repetition::Cycle { times, extra } => {
                out.set_item("cycle", times)?;
                out.set_item("extra", extra)?;
            }
        }
        Ok(Some(out))
    }

    /// The directed one-cell moves `(from, to)`, in the wire's order; step ids follow it.
    #[getter]
    fn moves(&self) -> Vec<(usize, usize)> {
        self.loaded.codec.moves().to_vec()
    }

    /// Every `(origin, target)` a cannon may jump: `target` lies on a straight line of cells
    /// from `origin`, two or more steps away. Sorted; jump ids follow this order. Whether a
    /// jump is legal also needs exactly one piece between (see `lines`).
    #[getter]
    fn jumps(&self) -> Vec<(usize, usize)> {
        self.loaded.codec.jumps().to_vec()
    }

    /// The cannon lines as the wire's jump clauses `(origin, first, last)`: from `origin`, the
    /// targets are the cells of that line from `first` to `last` (`first < last`), the nearer
    /// of the two at distance 2 (PROTOCOL.md).
    #[getter]
    fn lines(&self) -> Vec<(usize, usize, usize)> {
        self.v().topology.wire_jumps()
    }

    /// `neighbours[c]`: the cells one step from `c`.
    #[getter]
    fn neighbours(&self) -> Vec<Vec<usize>> {
        let t = &self.v().topology;
        (0..t.size()).map(|c| t.neighbours(c).to_vec()).collect()
    }

    /// `(lines, columns)` when the board is a rectangle (numbered row by row), else `None`.
    #[getter]
    fn rectangle(&self) -> Option<(usize, usize)> {
        self.v().topology.rectangle_dims()
    }

    /// The display position `(row, column)` of every cell when the board is drawn as a grid
    /// (rectangles and drawn shapes), else `None`.
    #[getter]
    fn coords(&self) -> Option<Vec<(usize, usize)>> {
        self.v().topology.coords().map(<[_]>::to_vec)
    }

    /// The description a player may see (the source without comments and without a fixed
    /// start's secret deal), one line of protocol/VARIANTS.md notation.
    #[getter]
    fn description(&self) -> String {
        self.v().public_description()
    }

    /// How many action ids the variant has (see PACKAGE.md, Action ids).
    #[getter]
    fn num_distinct_actions(&self) -> usize {
        self.loaded.codec.len()
    }

    /// The wire clause of an action id.
    fn action_text(&self, id: i64) -> PyResult<String> {
        Ok(self.loaded.codec.decode_or_refuse(id)?.to_string())
    }

    /// The id of an action given as its wire clause.
    fn action_id(&self, text: &str) -> PyResult<u32> {
        self.loaded.codec.encode_or_refuse(parse_action(text)?)
    }

    fn __repr__(&self) -> String {
        format!("<anqi.Variant {}: {}>", self.v().name, self.v().summary)
    }
}
