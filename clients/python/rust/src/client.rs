//! `anqi._anqi.ClientSession`: a client of the anqi server without I/O, over the client
//! library's [`Tracker`]. The caller owns the socket: it sends [`ClientSession::hello`], feeds
//! every line the server sends, and sends the reply to each prompt (`anqi/client.py` does this
//! with a blocking socket).

use crate::actions::parse_action;
use crate::observation::Observation;
use anqi_client::tracker::{self, Event, Tracker, SERVER_FRAME_LIMITS};
use anqi_core::rules::Variant;
use anqi_core::wire::ClientMessage;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyString};

/// The longest name or seed accepted: the server refuses an `init` message longer than its
/// frame limit (16,384 bytes by default), and a name is for people.
const MAX_INIT_TEXT: usize = 1024;

/// A string, or an int written in decimal: what the wire's `(init NAME SEED)` takes. A seed
/// is read as every seed of the package is (seeds.rs: no bool, no negative int).
fn init_text(what: &str, value: &Bound<'_, PyAny>) -> PyResult<String> {
    let text = if what == "seed" {
        crate::seeds::seed_text(what, value)?
    } else if value.is_instance_of::<PyString>() || value.is_instance_of::<PyInt>() {
        value.str()?.to_string()
    } else {
        return Err(PyTypeError::new_err(format!("{what}: a str or an int")));
    };
    if text.is_empty() || text.len() > MAX_INIT_TEXT {
        return Err(PyValueError::new_err(format!(
            "{what}: 1 to {MAX_INIT_TEXT} bytes, not {}",
            text.len()
        )));
    }
    Ok(text)
}

/// One client's game, without I/O.
///
/// `ClientSession(name, seed, variant=None)`: `seed` is the client's seed contribution, or
/// the token a tournament gave (seating by token); `variant` (a shipped name or a description
/// file) gives the exact rules, which otherwise come from the server's description (the
/// `variant` extension, which `hello` asks for) or the defaults of the game type.
#[pyclass(module = "anqi._anqi", name = "ClientSession")]
pub struct ClientSession {
    tracker: Tracker,
    name: String,
    seed: String,
}

fn line(msg: &ClientMessage) -> String {
    let mut text = msg.to_string();
    text.push('\n');
    text
}

#[pymethods]
impl ClientSession {
    /// The longest line `feed` accepts, in bytes (a message of the client limits plus room for
    /// whitespace): read lines with this bound.
    #[classattr]
    const MAX_LINE_BYTES: usize = SERVER_FRAME_LIMITS.max_bytes + 64;

    #[new]
    #[pyo3(signature = (name, seed, variant = None))]
    fn new(
        name: &Bound<'_, PyAny>,
        seed: &Bound<'_, PyAny>,
        variant: Option<&str>,
    ) -> PyResult<ClientSession> {
        let variant = variant
            .map(Variant::load)
            .transpose()
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(ClientSession {
            tracker: Tracker::new(variant),
            name: init_text("name", name)?,
            seed: init_text("seed", seed)?,
        })
    }

    /// The lines to send first, each ending with a newline: the request for the `variant`
    /// extension (its own message, so that a server without extensions refuses only that),
    /// then `(init NAME SEED)`.
    fn hello(&self) -> String {
        tracker::hello(&self.name, &self.seed)
            .iter()
            .map(line)
            .collect()
    }

    /// Takes in one line from the server. Returns `"prompt"` when this client must act now
    /// (see `observation` and `reply`), `"over"` when the game is over (see `result`), else
    /// `None`. Raises ValueError for a line that is not a message (or more than one, or longer
    /// than `MAX_LINE_BYTES`) and for a message that makes no sense here.
    fn feed(&mut self, line: &str) -> PyResult<Option<&'static str>> {
        let bad = |e: anqi_client::ClientError| PyValueError::new_err(e.to_string());
        let Some(msg) = tracker::parse_server_line(line).map_err(bad)? else {
            return Ok(None);
        };
        Ok(match self.tracker.feed(&msg).map_err(bad)? {
            Event::Nothing => None,
            Event::Prompt => Some("prompt"),
            Event::Over(_) => Some("over"),
        })
    }

    /// What this player knows at the latest prompt (its own or another player's). Raises
    /// RuntimeError before the first prompt.
    fn observation(&self) -> PyResult<Observation> {
        self.tracker
            .observation()
            .map(|o| Observation { inner: o.clone() })
            .ok_or_else(|| PyRuntimeError::new_err("no prompt yet"))
    }

    /// The line that answers the prompt with `action` (a wire clause such as `"(rev 3)"`),
    /// ending with a newline. The action is recorded for the tracking (a chain capture goes
    /// on after it), and an error reply from the server undoes that. The action is not checked
    /// against the rules: the server judges it. Raises ValueError for a text that is not an
    /// action, RuntimeError when no prompt awaits an answer.
    fn reply(&mut self, action: &str) -> PyResult<String> {
        let action = parse_action(action)?;
        if !self.tracker.awaiting() {
            return Err(PyRuntimeError::new_err(
                "no prompt awaits an answer (answer each \"prompt\" once)",
            ));
        }
        Ok(line(&self.tracker.reply(action)))
    }

    /// The line that resigns (accepted at any moment of the game).
    fn resign(&mut self) -> String {
        line(&self.tracker.resign())
    }

    /// Whether a prompt awaits this client's answer.
    #[getter]
    fn awaiting(&self) -> bool {
        self.tracker.awaiting()
    }

    /// This client's player id once seated, else `None`.
    #[getter]
    fn player(&self) -> Option<usize> {
        self.tracker.setup().map(|s| s.id)
    }

    /// The setup message once seated, else `None`: `id`, `players`, `team` (`None` outside
    /// team games), `teammates`, `game`, `pieces`, `size`, `variant` (the rules played by)
    /// and `description` (the server's, `None` without the `variant` extension).
    #[getter]
    fn setup<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let (Some(s), Some(v)) = (self.tracker.setup(), self.tracker.variant()) else {
            return Ok(None);
        };
        let out = PyDict::new(py);
        out.set_item("id", s.id)?;
        out.set_item("players", s.players)?;
        out.set_item("team", s.team)?;
        out.set_item("teammates", s.teammates.clone())?;
        out.set_item("game", s.game.clone())?;
        out.set_item("pieces", s.pieces.clone())?;
        out.set_item("size", s.topology.size())?;
        out.set_item("variant", v.name.clone())?;
        out.set_item("description", s.description.clone())?;
        Ok(Some(out))
    }

    /// The error replies received so far, the handshake's included: `(code, text)` pairs.
    #[getter]
    fn errors(&self) -> Vec<(&'static str, String)> {
        self.tracker
            .errors()
            .iter()
            .map(|(c, t)| (c.name(), t.clone()))
            .collect()
    }

    /// `None` until the game is over, then `{"me": ID, "win": [PLAYER, TEAM], "errors":
    /// [(code, text), ...]}` (`me`: this client's id; `win`: the `(win P T)` clause).
    #[getter]
    fn result<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(r) = self.tracker.result() else {
            return Ok(None);
        };
        let out = PyDict::new(py);
        out.set_item("me", r.me)?;
        out.set_item("win", vec![r.win.0, r.win.1])?;
        let errors: Vec<(&str, String)> = r
            .errors
            .iter()
            .map(|(c, t)| (c.name(), t.clone()))
            .collect();
        out.set_item("errors", errors)?;
        Ok(Some(out))
    }

    fn __repr__(&self) -> String {
        let state = match (self.tracker.result(), self.tracker.setup()) {
            (Some(r), _) => format!("over (win {} {})", r.win.0, r.win.1),
            (None, Some(s)) => format!("player {}", s.id),
            (None, None) => "not seated".into(),
        };
        format!("<anqi.ClientSession {:?} {state}>", self.name)
    }
}
