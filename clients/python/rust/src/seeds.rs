//! Seeds as Python gives them: the one reading of a seed argument for every API that takes one
//! (PACKAGE.md, Games: "Seeds").
//!
//! A seed is a text, as the protocol's seeds are (PROTOCOL.md, Seeds): a deal is made from the
//! texts' bytes. Python code passes ints as often as strings (`random.Random(1)`, numpy's
//! `seed=0`), so an int is accepted wherever a seed is and means exactly its decimal string:
//! `Game(seed=1)` is `Game(seed="1")`, `VecGame.reset(seed=7)` is `reset(seed="7")`. Negative
//! ints are refused rather than read as `"-1"` (a negative seed is nearly always a mistake,
//! numpy refuses them too), and so are bools, which Python counts as ints: `seed=True` is far
//! more likely a misplaced flag than the seed `"1"`.
//!
//! Where a seed starts a generator of numbers rather than a deal (`resample`, `sample_chance`,
//! `ReferenceBot`), the text becomes the generator's 64-bit state by [`seed_number`]: the
//! number a decimal text names, so that `ReferenceBot(seed=7)` is `anqi-bot --seed 7`'s bot,
//! and a hash of any other text.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyString};

/// The text of a seed argument `value` (`what` names the argument in errors): a `str` as it
/// is, an `int` of 0 or more as its decimal string. TypeError for a bool or any other type,
/// ValueError for a negative int.
pub fn seed_text(what: &str, value: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(text) = value.cast::<PyString>() {
        return Ok(text.to_str()?.to_owned());
    }
    // Checked before `int`: `True` is an `int` to Python.
    if value.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "{what}={}: a seed is a str or an int of 0 or more, not a bool (seed=1 is seed=\"1\")",
            value.str()?
        )));
    }
    // An int, or a number that is one (`__index__`: numpy's integers).
    let int = match value.cast::<PyInt>() {
        Ok(int) => Some(int.clone()),
        Err(_) if value.hasattr("__index__")? => value
            .call_method0("__index__")
            .ok()
            .and_then(|i| i.cast_into::<PyInt>().ok()),
        Err(_) => None,
    };
    let Some(int) = int else {
        return Err(PyTypeError::new_err(format!(
            "{what}: a seed is a str or an int of 0 or more, not {} (an int means its decimal string: seed=1 is seed=\"1\")",
            value.get_type().name()?
        )));
    };
    if int.lt(0)? {
        return Err(PyValueError::new_err(format!(
            "{what}={}: a seed is a str or an int of 0 or more (an int means its decimal string: seed=1 is seed=\"1\")",
            int.str()?
        )));
    }
    Ok(int.str()?.to_string())
}

/// `seed_text` of an optional argument, a fresh random seed (16 bytes from the operating
/// system, in hex) when it is `None`.
pub fn seed_text_or_fresh(what: &str, value: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
    match value {
        Some(v) if !v.is_none() => seed_text(what, v),
        _ => Ok(crate::fresh_seed()),
    }
}

/// Every seed of a sequence of them (`client_seeds`), as texts.
pub fn seed_texts(what: &str, values: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if values.is_instance_of::<PyString>() {
        // A str is a sequence of one-letter seeds to Python: certainly not what was meant.
        return Err(PyTypeError::new_err(format!(
            "{what}: a list of seeds (str or int), one per client in seat order, not a str"
        )));
    }
    let mut out = Vec::new();
    for (i, item) in values
        .try_iter()
        .map_err(|_| {
            PyTypeError::new_err(format!(
                "{what}: a list of seeds (str or int), one per client in seat order"
            ))
        })?
        .enumerate()
    {
        out.push(seed_text(&format!("{what}[{i}]"), &item?)?);
    }
    Ok(out)
}

/// The 64-bit state of a generator seeded by `text`: the number a decimal text names (digits
/// only, no leading zero, below 2^64), else the FNV-1a hash of the text's bytes. So an int
/// seed `n` below 2^64 starts the generator at `n`, as it always has; `"07"` is hashed, not
/// read as 7, so that two texts name the same generator only by a hash's chance.
pub fn seed_number(text: &str) -> u64 {
    let canonical = !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'));
    if canonical {
        if let Ok(n) = text.parse::<u64>() {
            return n;
        }
    }
    fnv1a(text.as_bytes())
}

/// The 64-bit FNV-1a hash of `bytes`.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A generator argument (`rng=` of `resample` and `sample_chance`): `None` (the `random`
/// module), a seed (a str, or an int meaning its decimal string: a generator of its own,
/// [`seed_number`]), or an object with `randrange` (a `random.Random`).
pub enum Rng<'py> {
    /// Draws from this object's `randrange(n)`.
    Python(Bound<'py, PyAny>),
    /// Draws from a generator seeded here.
    Seeded(anqi_core::rules::playout::SplitMix64),
}

impl<'py> Rng<'py> {
    /// Reads `rng=`; `what` names it in errors.
    pub fn of(py: Python<'py>, what: &str, rng: Option<&Bound<'py, PyAny>>) -> PyResult<Rng<'py>> {
        let Some(r) = rng.filter(|r| !r.is_none()) else {
            return Ok(Rng::Python(py.import("random")?.into_any()));
        };
        if r.hasattr("randrange")? {
            return Ok(Rng::Python(r.clone()));
        }
        if !(r.is_instance_of::<PyString>()
            || r.is_instance_of::<PyInt>()
            || r.hasattr("__index__")?)
        {
            return Err(PyTypeError::new_err(format!(
                "{what}: a random.Random (anything with randrange), a seed (a str, or an int of 0 or more), or None; not {}",
                r.get_type().name()?
            )));
        }
        let text = seed_text(what, r)?;
        Ok(Rng::Seeded(anqi_core::rules::playout::SplitMix64::new(
            seed_number(&text),
        )))
    }

    /// A uniform draw in `0..n` (`n >= 1`).
    pub fn below(&mut self, n: u32) -> PyResult<u32> {
        match self {
            Rng::Seeded(s) => Ok(s.below(n)),
            Rng::Python(r) => {
                let x: u32 = r.call_method1("randrange", (n,))?.extract()?;
                if x >= n {
                    return Err(PyValueError::new_err(format!(
                        "randrange({n}) gave {x}, out of range"
                    )));
                }
                Ok(x)
            }
        }
    }
}
