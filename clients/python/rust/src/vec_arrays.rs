//! The numpy arrays `VecGame` writes (`vec_game.rs`): made with it over memory Python can only
//! read ([`ReadOnlyMemory`]), shared out game by game to the threads that write them, and the
//! arrays of actions that come and go with each call.

use crate::read_only::ReadOnlyMemory;
use crate::tensor::PLANES;
use pyo3::buffer::{Element, PyBuffer};
use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;
use std::sync::atomic::AtomicI64;

/// The numpy functions `VecGame`'s calls use, looked up once rather than by name at every
/// call (a step of a few hundred games takes tens of microseconds; a lookup, a few hundred
/// nanoseconds).
pub struct NumpyCalls {
    /// `numpy.empty`.
    pub empty: Py<PyAny>,
    /// `numpy.frombuffer`.
    pub frombuffer: Py<PyAny>,
    /// `numpy.ascontiguousarray`.
    pub contiguous: Py<PyAny>,
}

/// A numpy array that Rust writes with the GIL released and Python only reads: a read-only view
/// of memory Rust owns.
struct Written<T: Element> {
    view: Py<PyAny>,
    /// The memory under the view (kept alive by it too: it is the view's base).
    memory: Py<ReadOnlyMemory>,
    /// How many values of `T` the memory holds.
    len: usize,
    _values: std::marker::PhantomData<T>,
}

impl<T: Element> Written<T> {
    /// A new array of `len` zeros of `T`, seen from Python as an array of `shape` and numpy
    /// `dtype` (of `T`'s layout; `bool` for `u8`) that cannot be made writeable. `what` names
    /// it in a MemoryError.
    fn zeros(
        py: Python<'_>,
        numpy: &NumpyCalls,
        shape: Vec<usize>,
        len: usize,
        dtype: &str,
        what: &str,
    ) -> PyResult<Written<T>> {
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .ok_or_else(|| PyMemoryError::new_err(format!("{what} would not fit in memory")))?;
        let memory = Py::new(py, ReadOnlyMemory::zeroed(bytes, what)?)?;
        let view = numpy
            .frombuffer
            .bind(py)
            .call1((&memory, dtype))?
            .call_method1("reshape", (shape,))?;
        // The contract Python relies on, checked: numpy made it read-only (the buffer is).
        if view.getattr("flags")?.getattr("writeable")?.is_truthy()? {
            return Err(PyValueError::new_err(
                "numpy made a writeable array of read-only memory",
            ));
        }
        Ok(Written {
            view: view.unbind(),
            memory,
            len,
            _values: std::marker::PhantomData,
        })
    }

    /// The array's values, to write.
    fn values(&mut self) -> &mut [T] {
        let memory = self.memory.get();
        debug_assert!(memory.len() >= self.len * std::mem::size_of::<T>());
        // SAFETY: the memory holds `len` values of `T` (made so in `zeros`), aligned for any
        // `T` (`ReadOnlyMemory` aligns to 64 bytes), any bit pattern of which is a value (the
        // `Element` types: numbers), and stays where it is while `self.memory` lives. No other
        // Rust reference to it exists while this one lives (`&mut self`; nothing else writes
        // a `ReadOnlyMemory`), and Python holds only read-only views. Python code in another
        // thread may read it while a call writes with the GIL released, as it may with any
        // numpy operation that releases the GIL.
        unsafe { std::slice::from_raw_parts_mut(memory.as_ptr().cast::<T>(), self.len) }
    }
}

/// The arrays every call writes. Masks and dones are `bool` views of bytes (numpy's `bool`
/// layout: 0 or 1 in a byte), written as bytes.
pub struct Arrays {
    obs: Written<f32>,
    masks: Written<u8>,
    rewards: Written<f32>,
    dones: Written<u8>,
    to_move: Written<i32>,
    /// `(obs, masks, rewards, dones, to_move)`, the views every call returns.
    views: Py<pyo3::types::PyTuple>,
}

/// How many values each array of `n` games holds, checked to fit in memory before anything is
/// allocated: `obs` (`n * PLANES * cells` values), `masks` (`n * actions`), `rewards`
/// (`n * players`); dones and to_move hold `n`.
pub struct Sizes {
    pub n: usize,
    pub cells: usize,
    pub actions: usize,
    pub players: usize,
    pub obs: usize,
    pub masks: usize,
    pub rewards: usize,
}

impl Sizes {
    /// The sizes of `n` games' arrays, or MemoryError when they and the games' own memory
    /// (`game_bytes` a game, None if that overflowed) would take more bytes than a process can
    /// address (an `n` no machine can hold).
    pub fn of(
        n: usize,
        cells: usize,
        actions: usize,
        players: usize,
        game_bytes: Option<usize>,
    ) -> PyResult<Sizes> {
        let sizes = (|| {
            let obs = n.checked_mul(PLANES)?.checked_mul(cells)?;
            let masks = n.checked_mul(actions)?;
            let rewards = n.checked_mul(players)?;
            // Every byte: the arrays, then each game's own.
            let bytes = obs
                .checked_mul(4)?
                .checked_add(masks)?
                .checked_add(rewards.checked_mul(4)?)?
                .checked_add(n.checked_mul(game_bytes?)?)?;
            (bytes <= isize::MAX as usize).then_some(Sizes {
                n,
                cells,
                actions,
                players,
                obs,
                masks,
                rewards,
            })
        })();
        sizes.ok_or_else(|| {
            PyMemoryError::new_err(format!(
                "VecGame(n={n}): the games and their arrays would take more memory than a process can address: ask for fewer games"
            ))
        })
    }
}

impl Arrays {
    /// The arrays of `sizes`' games, zeros; `grid`: `obs` seen as `(n, PLANES, rows, columns)`
    /// rather than `(n, PLANES, cells)` (the same memory: cell `r * columns + c` at `[.., r, c]`).
    pub fn new(
        py: Python<'_>,
        numpy: &NumpyCalls,
        sizes: &Sizes,
        grid: Option<(usize, usize)>,
    ) -> PyResult<Arrays> {
        let Sizes {
            n,
            cells,
            actions,
            players,
            ..
        } = *sizes;
        let obs_shape = match grid {
            Some((rows, columns)) => vec![n, PLANES, rows, columns],
            None => vec![n, PLANES, cells],
        };
        let obs = Written::zeros(
            py,
            numpy,
            obs_shape,
            sizes.obs,
            "float32",
            "the observations",
        )?;
        let masks = Written::zeros(
            py,
            numpy,
            vec![n, actions],
            sizes.masks,
            "bool",
            "the masks",
        )?;
        let rewards = Written::zeros(
            py,
            numpy,
            vec![n, players],
            sizes.rewards,
            "float32",
            "the rewards",
        )?;
        let dones = Written::zeros(py, numpy, vec![n], n, "bool", "the dones")?;
        let to_move = Written::zeros(py, numpy, vec![n], n, "int32", "the players to move")?;
        let views = pyo3::types::PyTuple::new(
            py,
            [
                &obs.view,
                &masks.view,
                &rewards.view,
                &dones.view,
                &to_move.view,
            ],
        )?
        .unbind();
        Ok(Arrays {
            obs,
            masks,
            rewards,
            dones,
            to_move,
            views,
        })
    }

    /// The arrays, to be shared out among `n` games.
    pub fn shares(&mut self, n: usize) -> Shares<'_> {
        let Arrays {
            obs,
            masks,
            rewards,
            dones,
            to_move,
            views: _,
        } = self;
        let (obs, masks, rewards) = (obs.values(), masks.values(), rewards.values());
        // n >= 1, and every game's share is at least one value (a cell, an action, a player).
        Shares {
            sizes: [obs.len() / n, masks.len() / n, rewards.len() / n],
            obs,
            masks,
            rewards,
            dones: dones.values(),
            to_move: to_move.values(),
        }
    }

    /// The arrays as Python sees them: `(obs, masks, rewards, dones, to_move)`.
    pub fn views<'py>(&self, py: Python<'py>) -> Bound<'py, pyo3::types::PyTuple> {
        self.views.bind(py).clone()
    }
}

/// A buffer's values as atomics, to be read on any thread with the GIL released (Python code
/// in another thread may write the array meanwhile: each value is read once, then checked and
/// played from the copy), or None when they are not aligned for atomics.
pub fn shared_values(buffer: &PyBuffer<i64>) -> Option<&[AtomicI64]> {
    let ptr = buffer.buf_ptr().cast::<AtomicI64>();
    if !ptr.is_aligned() {
        return None;
    }
    // SAFETY: the buffer is `item_count()` values of `i64` in a row (C-contiguous, checked
    // when it was got), alive while `buffer` is (a buffer holds its exporter); `AtomicI64` has
    // the size of `i64`, and the pointer is aligned for it. The memory is only loaded from,
    // atomically, which read-only memory allows.
    Some(unsafe { std::slice::from_raw_parts(ptr, buffer.item_count()) })
}

/// Whether a buffer of `format` (the struct module's syntax) holds its numbers in this
/// machine's byte order: pyo3 lets an array of the other order through as `i64`, which would
/// read its numbers byte-swapped.
pub fn native_order(format: &std::ffi::CStr) -> bool {
    match format.to_bytes().first() {
        Some(b'>' | b'!') => cfg!(target_endian = "big"),
        Some(b'<') => cfg!(target_endian = "little"),
        // `@`, `=` or no prefix: native.
        _ => true,
    }
}

/// One game's share of the arrays.
pub struct Out<'a> {
    pub obs: &'a mut [f32],
    pub mask: &'a mut [u8],
    pub rewards: &'a mut [f32],
    pub done: &'a mut u8,
    pub to_move: &'a mut i32,
}

/// Consecutive games' shares of the arrays (game 0 of a `Shares` is its first), handed out one
/// game at a time without a list of them.
pub struct Shares<'a> {
    obs: &'a mut [f32],
    masks: &'a mut [u8],
    rewards: &'a mut [f32],
    dones: &'a mut [u8],
    to_move: &'a mut [i32],
    /// One game's values of `obs`, `masks` and `rewards`.
    sizes: [usize; 3],
}

impl<'a> Shares<'a> {
    /// The shares of the first `k` games, and of the others.
    pub fn split_at(self, k: usize) -> (Shares<'a>, Shares<'a>) {
        let [o, m, r] = self.sizes;
        let (obs, obs_rest) = self.obs.split_at_mut(k * o);
        let (masks, masks_rest) = self.masks.split_at_mut(k * m);
        let (rewards, rewards_rest) = self.rewards.split_at_mut(k * r);
        let (dones, dones_rest) = self.dones.split_at_mut(k);
        let (to_move, to_move_rest) = self.to_move.split_at_mut(k);
        let sizes = self.sizes;
        (
            Shares {
                obs,
                masks,
                rewards,
                dones,
                to_move,
                sizes,
            },
            Shares {
                obs: obs_rest,
                masks: masks_rest,
                rewards: rewards_rest,
                dones: dones_rest,
                to_move: to_move_rest,
                sizes,
            },
        )
    }

    /// Game `i`'s share.
    #[inline(always)]
    pub fn get(&mut self, i: usize) -> Out<'_> {
        let [o, m, r] = self.sizes;
        Out {
            obs: &mut self.obs[i * o..(i + 1) * o],
            mask: &mut self.masks[i * m..(i + 1) * m],
            rewards: &mut self.rewards[i * r..(i + 1) * r],
            done: &mut self.dones[i],
            to_move: &mut self.to_move[i],
        }
    }
}

/// A new numpy `int64` array of `n` values for Rust to write (`random_actions`' draws), held
/// by nothing else until handed out ([`NewIds::into_array`]).
pub struct NewIds<'py> {
    array: Bound<'py, PyAny>,
    buffer: PyBuffer<i64>,
}

impl<'py> NewIds<'py> {
    pub fn new(py: Python<'py>, numpy: &NumpyCalls, n: usize) -> PyResult<NewIds<'py>> {
        let array = numpy.empty.bind(py).call1((n, "int64"))?;
        let buffer = PyBuffer::<i64>::get(&array)?;
        if buffer.readonly() || !buffer.is_c_contiguous() || buffer.item_count() != n {
            return Err(PyValueError::new_err(
                "numpy.empty made no writeable array of n int64",
            ));
        }
        Ok(NewIds { array, buffer })
    }

    /// The values, to write (with the GIL released, on any thread).
    pub fn values(&mut self) -> &mut [i64] {
        // SAFETY: the buffer is `item_count()` values of `i64` in a row (checked in `new`),
        // writeable, in the array made in `new`, which `self.array` keeps alive and nothing
        // else holds: the array is handed out only by `into_array`, which ends `self` and
        // with it this borrow.
        unsafe {
            std::slice::from_raw_parts_mut(self.buffer.buf_ptr().cast(), self.buffer.item_count())
        }
    }

    /// The array, to hand out.
    pub fn into_array(self) -> Bound<'py, PyAny> {
        self.array
    }
}
