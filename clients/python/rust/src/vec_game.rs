//! `anqi.VecGame`: n games of one variant stepped together in Rust, for reinforcement learning.
//!
//! Every call works on all games at once with the GIL released, over `threads` threads, and
//! writes its results straight into numpy arrays made with the `VecGame` (observations, masks,
//! rewards, dones, the players to move): no Python object per game or per step, and no copy.
//! Game `i`'s `k`-th episode is dealt from the seed text `"{seed}/{i}/{k}"` as
//! `anqi.Game(variant, seed=...)` deals it, so the games depend on the seed only, whatever the
//! thread count. The deal is the chance: what each reveal turns up (and each draw gives) was
//! drawn when the episode was dealt.
//!
//! # Why it is fast
//! A ply changes a cell or two and a few whole planes of an observation, so each game keeps
//! what its observation holds ([`tensor::Shown`]) and the next one writes only what differs:
//! a few hundred bytes instead of 6 KiB on a 4x8 board. Likewise each game keeps its legal
//! ids ([`LegalIds`]: the reveals as a set of cells, the moves listed), which clear the mask's
//! old ones, check the actions played and give `random_actions` without listing the actions
//! again. That is why the arrays handed to Python are read-only, truly: numpy views of memory
//! that Python may only read ([`ReadOnlyMemory`]), which numpy refuses to make writeable, since
//! a value changed from Python would stay wrong until its cell next changed.
//!
//! Stepping hundreds of games in turn, each game's memory has gone cold by the time its next
//! step comes, so a step waits for memory more than it computes: each game keeps its small
//! arrays in itself (the board's, its legal ids' sets, what its observation shows) and writes
//! one record a ply for the repetition rule, and a step starts by clearing the game's old ids
//! from its mask, so that the mask's memory is on its way while the game plays.
//!
//! # Threads
//! The games are cut into blocks of [`BLOCK`] and each thread has its run of blocks, the same
//! at every call ([`Workers`]: threads started with the `VecGame` and kept, each thread's
//! games staying in its core's cache). Everything per game is done on the game's thread: the
//! check of its action, its ply, its observation and mask, its new episode, its draw in
//! `random_actions` (from its own generator). A step is one call of two phases, the checks
//! then the plies, so that an illegal action still leaves every game as it was. What is left
//! on the calling thread is Python's part: reading the actions (a copy) and making the array
//! of `random_actions`.

use crate::actions::Codec;
use crate::legal_ids::LegalIds;
use crate::read_only::ReadOnlyMemory;
use crate::tensor::{self, Change, Shown, PLANES};
use crate::variant::{load_any, Loaded};
use crate::workers::{Parts, Workers};
use anqi_core::rules::playout::SplitMix64;
use anqi_core::rules::{self, Action, SeedInputs};
use pyo3::buffer::{Element, PyBuffer};
use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// n games stepped together; see PACKAGE.md, Batched stepping.
#[pyclass(module = "anqi", name = "VecGame")]
pub struct VecGame {
    loaded: Arc<Loaded>,
    seed: String,
    /// The threads asked for (`workers` may hold fewer: see [`useful_threads`]).
    threads: usize,
    /// The threads every call runs on, kept from call to call.
    workers: Workers,
    slots: Vec<Slot>,
    /// The numpy arrays every call writes.
    arrays: Arrays,
    /// The actions of the last `step`, read from Python's array into memory kept for them.
    actions: Vec<i64>,
    /// numpy's functions each call uses, looked up once.
    numpy: NumpyCalls,
}

/// The numpy functions `VecGame`'s calls use, looked up once rather than by name at every
/// call (a step of a few hundred games takes tens of microseconds; a lookup, a few hundred
/// nanoseconds).
struct NumpyCalls {
    /// `numpy.empty`.
    empty: Py<PyAny>,
    /// `numpy.frombuffer`.
    frombuffer: Py<PyAny>,
    /// `numpy.ascontiguousarray`.
    contiguous: Py<PyAny>,
}

/// One game, how many episodes its slot has started, its generator of random actions, and
/// what its share of the arrays holds.
struct Slot {
    game: rules::Game,
    episode: u64,
    rng: SplitMix64,
    /// What the game's observation in the arrays holds.
    shown: Shown,
    /// The ids of the legal actions of the game's player to move: the ones set in its mask.
    legal: LegalIds,
}

/// The generator of slot `i`'s random actions for `seed` (FNV-1a of `"{seed}/{i}"`).
fn slot_rng(seed: &str, i: usize) -> SplitMix64 {
    let text = format!("{seed}/{i}");
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    SplitMix64::new(hash)
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
struct Arrays {
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
struct Sizes {
    n: usize,
    cells: usize,
    actions: usize,
    players: usize,
    obs: usize,
    masks: usize,
    rewards: usize,
}

impl Sizes {
    /// The sizes of `n` games' arrays, or MemoryError when they and the games' own memory
    /// would take more bytes than a process can address (an `n` no machine can hold).
    fn of(n: usize, cells: usize, actions: usize, players: usize) -> PyResult<Sizes> {
        let sizes = (|| {
            let obs = n.checked_mul(PLANES)?.checked_mul(cells)?;
            let masks = n.checked_mul(actions)?;
            let rewards = n.checked_mul(players)?;
            // Every byte: the arrays, then each game's slot, its listing buffer and its
            // action.
            let per_game = std::mem::size_of::<Slot>()
                .checked_add(actions.checked_add(4)?.checked_mul(4)?)?
                .checked_add(4 + 1 + 4 + 8)?;
            let bytes = obs
                .checked_mul(4)?
                .checked_add(masks)?
                .checked_add(rewards.checked_mul(4)?)?
                .checked_add(n.checked_mul(per_game)?)?;
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
    fn new(py: Python<'_>, numpy: &NumpyCalls, sizes: &Sizes) -> PyResult<Arrays> {
        let Sizes {
            n,
            cells,
            actions,
            players,
            ..
        } = *sizes;
        let obs = Written::zeros(
            py,
            numpy,
            vec![n, PLANES, cells],
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
    fn shares(&mut self, n: usize) -> Shares<'_> {
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
    fn views<'py>(&self, py: Python<'py>) -> Bound<'py, pyo3::types::PyTuple> {
        self.views.bind(py).clone()
    }
}

/// Whether a buffer of `format` (the struct module's syntax) holds its numbers in this
/// machine's byte order: pyo3 lets an array of the other order through as `i64`, which would
/// read its numbers byte-swapped.
fn native_order(format: &std::ffi::CStr) -> bool {
    match format.to_bytes().first() {
        Some(b'>' | b'!') => cfg!(target_endian = "big"),
        Some(b'<') => cfg!(target_endian = "little"),
        // `@`, `=` or no prefix: native.
        _ => true,
    }
}

/// The game of slot `i`'s episode `k`.
fn deal(loaded: &Loaded, seed: &str, i: usize, k: u64) -> rules::Game {
    let start = SeedInputs {
        clients: Vec::new(),
        server: format!("{seed}/{i}/{k}"),
    }
    .deal_for(&loaded.variant);
    rules::Game::new(loaded.variant.clone(), start)
}

/// One game's share of the arrays.
struct Out<'a> {
    obs: &'a mut [f32],
    mask: &'a mut [u8],
    rewards: &'a mut [f32],
    done: &'a mut u8,
    to_move: &'a mut i32,
}

/// Consecutive games' shares of the arrays (game 0 of a `Shares` is its first), handed out one
/// game at a time without a list of them.
struct Shares<'a> {
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
    fn split_at(self, k: usize) -> (Shares<'a>, Shares<'a>) {
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
    fn get(&mut self, i: usize) -> Out<'_> {
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

/// Brings a game's share of the arrays up to date with its game, after a change: its
/// observation (from its player to move), legal ids and mask, and its player to move. The
/// legal ids were cleared from the mask before ([`LegalIds::clear`]): as the first thing a
/// step does for a game, so that the mask's memory is on its way while the game plays (a
/// cold write the processor would otherwise wait for here).
fn observe(slot: &mut Slot, codec: &Codec, change: Change, out: &mut Out<'_>) {
    let game = &slot.game;
    tensor::update_planes(game, game.to_move(), change, &mut slot.shown, out.obs);
    let legal = &mut slot.legal;
    let state = game.public_state();
    let face_down = state.board.face_down_set();
    match (codec.move_tables(), face_down, state.hand, state.chain) {
        _ if game.outcome().is_some() => legal.clear_reveals(),
        (Some((pair_ids, row_ids)), Some(face_down), None, None) => {
            // The common case, without an `Action` per legal action: the face-down cells as
            // a set, the moves written as ids by the board from the codec's tables, then a
            // draw.
            legal.set_reveals(face_down, state.board.hidden_count() as u32);
            let v = state.variant;
            legal.list_others(|buf| {
                let mut k = state.board.move_ids(
                    &v.topology,
                    &v.capture,
                    state.control,
                    row_ids,
                    pair_ids,
                    buf,
                );
                if state.bag_has_pieces {
                    buf[k] = codec
                        .encode(Action::Bag)
                        .expect("a bag variant's draw has an id");
                    k += 1;
                }
                k
            });
        }
        _ => {
            legal.clear_reveals();
            game.for_each_legal(|a, _| {
                legal.push(codec.encode(a).expect("every legal action has an id"));
            });
        }
    }
    legal.write(out.mask);
    *out.to_move = game.to_move() as i32;
}

/// Games are shared out among threads in blocks of this many, so that two threads never write
/// the same cache line (64 bytes) of an array: a block's share of each array is a whole number
/// of lines (64 games, whatever the bytes a game, and every array starts on a line).
/// Otherwise the line a thread's last game shares with the next thread's first game would go
/// back and forth between their cores at every step (`to_move`, 4 bytes a game, is written
/// at every one).
const BLOCK: usize = 64;

/// How many threads `n` games are worth, of the `threads` asked for: one a block at most.
fn useful_threads(n: usize, threads: usize) -> usize {
    threads.min(n.div_ceil(BLOCK)).max(1)
}

/// Runs `f` on every slot with its share of the arrays, over `workers`' threads, slot `i` on
/// the same data whatever the split.
fn for_each<F>(workers: &mut Workers, slots: &mut [Slot], shares: Shares<'_>, f: F)
where
    F: Fn(usize, &mut Slot, Out<'_>) + Sync,
{
    let run = |first: usize, slots: &mut [Slot], mut shares: Shares<'_>| {
        for (k, slot) in slots.iter_mut().enumerate() {
            f(first + k, slot, shares.get(k));
        }
    };
    if workers.ready() == 1 {
        return run(0, slots, shares);
    }
    workers.run_parts(blocks(slots, shares), |(first, slots, shares)| {
        run(first, slots, shares);
    });
}

/// The slots and their shares of the arrays cut into blocks of [`BLOCK`] games, each with the
/// index of its first game.
fn blocks<'a>(
    slots: &'a mut [Slot],
    shares: Shares<'a>,
) -> Vec<(usize, &'a mut [Slot], Shares<'a>)> {
    let mut blocks = Vec::with_capacity(slots.len().div_ceil(BLOCK));
    let mut shares = shares;
    for (b, mine) in slots.chunks_mut(BLOCK).enumerate() {
        let (my_shares, rest) = shares.split_at(mine.len());
        shares = rest;
        blocks.push((b * BLOCK, mine, my_shares));
    }
    blocks
}

/// Plays `id` (one of its legal ids) in slot `i`'s game and brings its share of the arrays up
/// to date; an episode that ends sets the rewards and `done`, and the next one is dealt.
/// Inlined in its loops, as the closure it was: a call a game was 1% more instructions a step.
#[inline(always)]
fn play(loaded: &Loaded, seed: &str, i: usize, slot: &mut Slot, o: &mut Out<'_>, id: i64) {
    slot.legal.clear(o.mask);
    let codec = &loaded.codec;
    // Checked against the game's legal ids before any game was stepped.
    let id = id as usize;
    let (action, kind) = (
        codec.decode(id).expect("a listed id has an action"),
        codec.kind_of(id),
    );
    let played = slot.game.play_listed(action, kind);
    let mut change = Change::Ply(action, played);
    if slot.game.outcome().is_some() {
        tensor::write_returns(&slot.game, o.rewards);
        *o.done = 1;
        slot.episode += 1;
        slot.game = deal(loaded, seed, i, slot.episode);
        change = Change::Any;
    } else if *o.done != 0 {
        // Rewards are set only in the step an episode ends.
        o.rewards.fill(0.0);
        *o.done = 0;
    }
    observe(slot, codec, change, o);
}

/// A uniformly random legal id of each slot's game into `ids` (-1 for a game without one),
/// from the slot's own generator.
fn draw(slots: &mut [Slot], ids: &mut [i64]) {
    for (slot, id) in slots.iter_mut().zip(ids) {
        *id = match slot.legal.len() {
            0 => -1,
            n => i64::from(slot.legal.nth(slot.rng.below(n as u32) as usize)),
        };
    }
}

impl VecGame {
    /// Brings every game's share of the arrays up to date (after `new`: the arrays are zeros,
    /// and each game's `shown` and `legal` say so).
    fn observe_all(&mut self, py: Python<'_>) {
        let (codec, n) = (&self.loaded.codec, self.slots.len());
        let (slots, arrays, workers) = (&mut self.slots, &mut self.arrays, &mut self.workers);
        py.detach(|| {
            for_each(workers, slots, arrays.shares(n), |_, slot, mut o| {
                slot.legal.clear(o.mask);
                observe(slot, codec, Change::Any, &mut o);
            });
        });
    }

    /// Reads `actions` (any integer array or sequence of `n`) into `self.actions`.
    fn read_actions(&mut self, py: Python<'_>, actions: &Bound<'_, PyAny>) -> PyResult<()> {
        // An array of int64 (what `random_actions` gives, and most policies) is read as it is;
        // anything else is made one first.
        let buffer = match PyBuffer::<i64>::get(actions) {
            Ok(buffer) if buffer.is_c_contiguous() && native_order(buffer.format()) => buffer,
            _ => {
                let array = self.numpy.contiguous.bind(py).call1((actions, "int64"))?;
                PyBuffer::<i64>::get(&array)?
            }
        };
        let n = self.slots.len();
        if buffer.item_count() != n {
            return Err(PyValueError::new_err(format!(
                "{} actions for {n} games",
                buffer.item_count()
            )));
        }
        buffer.copy_to_slice(py, &mut self.actions)
    }

    /// Plays every game's action in `self.actions` if all are legal ids; otherwise plays none
    /// and returns the first game whose action is not.
    fn play_all(&mut self, py: Python<'_>) -> Option<usize> {
        let (loaded, seed, actions) = (&self.loaded, &self.seed, &self.actions);
        let n = self.slots.len();
        let (slots, arrays, workers) = (&mut self.slots, &mut self.arrays, &mut self.workers);
        let legal = |i: usize, slot: &Slot| {
            u32::try_from(actions[i]).is_ok_and(|id| slot.legal.contains(id))
        };
        if workers.ready() == 1 {
            if let Some(i) = (0..n).find(|&i| !legal(i, &slots[i])) {
                return Some(i);
            }
            py.detach(|| {
                for_each(workers, slots, arrays.shares(n), |i, slot, mut o| {
                    play(loaded, seed, i, slot, &mut o, actions[i]);
                });
            });
            return None;
        }
        py.detach(|| {
            let parts = Parts::new(blocks(slots, arrays.shares(n)));
            let first = AtomicUsize::new(usize::MAX);
            // One call of two phases, each thread on its own games: the checks, then, once
            // every game's action is checked, the plies (one call rather than two: each
            // call's handing out and waiting for the threads is a microsecond or so).
            workers.run(parts.len(), 2, &|phase, b| {
                if phase == 0 {
                    parts.with(b, |(start, slots, _)| {
                        if let Some(k) = (0..slots.len()).find(|&k| !legal(*start + k, &slots[k])) {
                            first.fetch_min(*start + k, Ordering::Relaxed);
                        }
                    });
                } else if first.load(Ordering::Relaxed) == usize::MAX {
                    let (start, slots, mut shares) = parts.take(b);
                    for (k, slot) in slots.iter_mut().enumerate() {
                        let i = start + k;
                        play(loaded, seed, i, slot, &mut shares.get(k), actions[i]);
                    }
                }
            });
            Some(first.into_inner()).filter(|&i| i < n)
        })
    }

    /// The ValueError for game `i`'s action, which is not one of its legal ids: what is wrong
    /// with it, slowly.
    fn refusal(&self, py: Python<'_>, i: usize) -> PyErr {
        let (id, slot) = (self.actions[i], &self.slots[i]);
        let action = match self.loaded.codec.decode_or_refuse(id) {
            Ok(action) => action,
            // The message alone: a PyErr shown whole would read "game 1: ValueError: ...".
            Err(e) => return PyValueError::new_err(format!("game {i}: {}", e.value(py))),
        };
        let why = match slot.game.check(slot.game.to_move(), action) {
            Err(e) => e.to_string(),
            Ok(_) => "not a legal action".to_string(),
        };
        PyValueError::new_err(format!("game {i}: action {id}: {why}"))
    }
}

#[pymethods]
impl VecGame {
    #[new]
    #[pyo3(signature = (variant = None, n = 1, threads = 1))]
    fn new(
        py: Python<'_>,
        variant: Option<&Bound<'_, PyAny>>,
        n: usize,
        threads: usize,
    ) -> PyResult<VecGame> {
        let loaded = match variant {
            Some(v) => load_any(v)?,
            None => crate::variant::load("traditional")?,
        };
        if n == 0 || threads == 0 {
            return Err(PyValueError::new_err("n and threads must be at least 1"));
        }
        let v = &loaded.variant;
        let cells = v.topology.size();
        let actions = loaded.codec.len();
        // Everything checked to fit, then allocated fallibly: a batch too large raises
        // MemoryError (an allocation that fails in Rust would abort the interpreter).
        let sizes = Sizes::of(n, cells, actions, v.players)?;
        let numpy = py.import("numpy").map_err(|_| {
            pyo3::exceptions::PyImportError::new_err(
                "VecGame writes numpy arrays: pip install numpy",
            )
        })?;
        let numpy = NumpyCalls {
            empty: numpy.getattr("empty")?.unbind(),
            frombuffer: numpy.getattr("frombuffer")?.unbind(),
            contiguous: numpy.getattr("ascontiguousarray")?.unbind(),
        };
        let out_of_memory = |what: &str| {
            PyMemoryError::new_err(format!(
                "VecGame(n={n}): cannot allocate {what}: ask for fewer games"
            ))
        };
        let mut slots = Vec::new();
        slots
            .try_reserve_exact(n)
            .map_err(|_| out_of_memory("the games"))?;
        let arrays = Arrays::new(py, &numpy, &sizes)?;
        for i in 0..n {
            slots.push(Slot {
                game: deal(&loaded, "", i, 0),
                episode: 0,
                rng: slot_rng("", i),
                shown: Shown::zeros(v),
                legal: LegalIds::try_new(cells, actions)
                    .ok_or_else(|| out_of_memory("the games' legal actions"))?,
            });
        }
        let mut actions = Vec::new();
        actions
            .try_reserve_exact(n)
            .map_err(|_| out_of_memory("the actions"))?;
        actions.resize(n, 0);
        crate::workers::watch_forks(py)?;
        let workers = Workers::new(useful_threads(n, threads)).map_err(|e| {
            pyo3::exceptions::PyOSError::new_err(format!(
                "VecGame(threads={threads}): cannot start a thread: {e}"
            ))
        })?;
        let mut vec = VecGame {
            loaded,
            seed: String::new(),
            threads,
            workers,
            slots,
            arrays,
            actions,
            numpy,
        };
        vec.observe_all(py);
        Ok(vec)
    }

    /// Deals every game's first episode from `seed` and returns `(obs, masks, rewards, dones,
    /// to_move)`: the read-only numpy arrays every call overwrites (rewards and dones all zero
    /// here).
    #[pyo3(signature = (seed = None))]
    fn reset<'py>(
        &mut self,
        py: Python<'py>,
        seed: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        self.seed = match seed {
            Some(s) => s.str()?.to_string(),
            None => crate::fresh_seed(),
        };
        let (loaded, seed) = (&self.loaded, &self.seed);
        let n = self.slots.len();
        let (slots, arrays, workers) = (&mut self.slots, &mut self.arrays, &mut self.workers);
        py.detach(|| {
            for_each(workers, slots, arrays.shares(n), |i, slot, mut o| {
                slot.episode = 0;
                slot.game = deal(loaded, seed, i, 0);
                slot.rng = slot_rng(seed, i);
                o.rewards.fill(0.0);
                *o.done = 0;
                slot.legal.clear(o.mask);
                observe(slot, &loaded.codec, Change::Any, &mut o);
            });
        });
        Ok(self.arrays.views(py))
    }

    /// Plays `actions[i]` (an action id of the player to move) in game `i` for every `i`, and
    /// returns `(obs, masks, rewards, dones, to_move)`. A game that ends has `dones[i]` set,
    /// each player's reward in `rewards[i]` (+1 for the winning side, -1 for the others, 0 in
    /// a draw), and is dealt its next episode at once: `obs[i]` and `masks[i]` are then the new
    /// episode's first. Observations are from each game's player to move (`to_move`). An
    /// illegal action raises ValueError naming its game, before any game is stepped.
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        self.read_actions(py, actions)?;
        if let Some(i) = self.play_all(py) {
            return Err(self.refusal(py, i));
        }
        Ok(self.arrays.views(py))
    }

    /// A uniformly random legal action id for every game, as a new numpy `int64` array, drawn
    /// in Rust from each game's own generator (seeded by `reset`): a random policy, or random
    /// opponents, with no per-game Python work. The same seed gives the same draws, whatever
    /// the threads.
    fn random_actions<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let n = self.slots.len();
        let out = self.numpy.empty.bind(py).call1((n, "int64"))?;
        let buffer = PyBuffer::<i64>::get(&out)?;
        if buffer.readonly() || !buffer.is_c_contiguous() || buffer.item_count() != n {
            return Err(PyValueError::new_err(
                "numpy.empty made no writeable array of n int64",
            ));
        }
        // SAFETY: the buffer is `n` values of `i64` in a row (checked above), writeable, in
        // the array just made, which `out` keeps alive and nothing else holds yet: no other
        // reference to its memory exists while `ids` lives (this function's end).
        let ids = unsafe { std::slice::from_raw_parts_mut(buffer.buf_ptr().cast::<i64>(), n) };
        let (slots, workers) = (&mut self.slots, &mut self.workers);
        if workers.ready() == 1 {
            // Too little work for the GIL's release, which a step of few games would notice.
            draw(slots, ids);
        } else {
            // Drawn on every thread, each game's from its own generator: the draws do not
            // depend on which thread makes them.
            py.detach(|| {
                let blocks = slots.chunks_mut(BLOCK).zip(ids.chunks_mut(BLOCK)).collect();
                workers.run_parts(blocks, |(slots, ids)| draw(slots, ids));
            });
        }
        Ok(out)
    }

    /// How many games.
    fn __len__(&self) -> usize {
        self.slots.len()
    }

    /// Game `i` as it stands, as an `anqi.Game` (a copy; for inspection and tests).
    fn game(&self, i: usize) -> PyResult<crate::game::Game> {
        let slot = self.slots.get(i).ok_or_else(|| {
            PyValueError::new_err(format!("game {i}: there are {}", self.slots.len()))
        })?;
        Ok(crate::game::Game::of_rules(
            slot.game.clone(),
            self.loaded.clone(),
            SeedInputs {
                clients: Vec::new(),
                server: format!("{}/{i}/{}", self.seed, slot.episode),
            },
        ))
    }

    /// How many episodes each game has finished.
    #[getter]
    fn episodes(&self) -> Vec<u64> {
        self.slots.iter().map(|s| s.episode).collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "<anqi.VecGame {} x{} threads {}>",
            self.loaded.variant.name,
            self.slots.len(),
            self.threads
        )
    }
}
