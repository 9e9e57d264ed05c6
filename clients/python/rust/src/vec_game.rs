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
//! that Python may only read ([`ReadOnlyMemory`](crate::read_only::ReadOnlyMemory),
//! `vec_arrays.rs`), which numpy refuses to make writeable, since a value changed from Python
//! would stay wrong until its cell next changed.
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
//! games staying in its core's cache). Everything per game is done on the game's thread:
//! reading and checking its action, its ply, its observation and mask, its new episode, its
//! draw in `random_actions` (from its own generator). A step is one call of two phases, the
//! checks then the plies, so that an illegal action still leaves every game as it was. What
//! is left on the calling thread is Python's part: taking the actions' array and making the
//! array of `random_actions`, whatever the number of games.

use crate::actions::Codec;
use crate::legal_ids::LegalIds;
use crate::tensor::{self, Change, Shown};
use crate::variant::{load_any, Loaded};
use crate::vec_arrays::{
    native_order, shared_values, Arrays, NewIds, NumpyCalls, Out, Shares, Sizes,
};
use crate::workers::{Parts, Workers};
use anqi_core::rules::playout::SplitMix64;
use anqi_core::rules::{self, Action, SeedInputs};
use pyo3::buffer::PyBuffer;
use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// n games stepped together; see PACKAGE.md, Batched stepping.
#[pyclass(module = "anqi", name = "VecGame")]
pub struct VecGame {
    loaded: Arc<Loaded>,
    seed: String,
    /// The observations in each observer's colour roles (`relative=True`, tensor.rs).
    relative: bool,
    /// `obs` seen as `(n, PLANES, rows, columns)` (`grid=True`).
    grid: bool,
    /// The threads asked for (`workers` may hold fewer: see [`useful_threads`]).
    threads: usize,
    /// The threads every call runs on, kept from call to call.
    workers: Workers,
    slots: Vec<Slot>,
    /// The numpy arrays every call writes.
    arrays: Arrays,
    /// The actions of the last `step`, copied from Python's array into memory kept for them.
    actions: Vec<i64>,
    /// numpy's functions each call uses, looked up once.
    numpy: NumpyCalls,
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
    SplitMix64::new(crate::seeds::fnv1a(format!("{seed}/{i}").as_bytes()))
}

/// The bytes of a game's own memory besides its share of the arrays, for [`Sizes::of`]: its
/// slot, its listing buffer and its action; None when that would overflow.
fn game_bytes(actions: usize) -> Option<usize> {
    std::mem::size_of::<Slot>()
        .checked_add(actions.checked_add(4)?.checked_mul(4)?)?
        .checked_add(4 + 1 + 4 + 8)
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

/// Brings a game's share of the arrays up to date with its game, after a change: its
/// observation (from its player to move; `relative`: in its colour roles), legal ids and mask,
/// and its player to move. The
/// legal ids were cleared from the mask before ([`LegalIds::clear`]): as the first thing a
/// step does for a game, so that the mask's memory is on its way while the game plays (a
/// cold write the processor would otherwise wait for here).
fn observe(slot: &mut Slot, codec: &Codec, relative: bool, change: Change, out: &mut Out<'_>) {
    let game = &slot.game;
    let player = game.to_move();
    tensor::update_planes(game, player, relative, change, &mut slot.shown, out.obs);
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

/// What every game of a `VecGame` is dealt and observed by: the variant, the seed of the
/// episodes' deals, and whether observations are relative.
struct Setup<'a> {
    loaded: &'a Loaded,
    seed: &'a str,
    relative: bool,
}

/// Plays `id` (one of its legal ids) in slot `i`'s game and brings its share of the arrays up
/// to date; an episode that ends sets the rewards and `done`, and the next one is dealt.
/// Inlined in its loops, as the closure it was: a call a game was 1% more instructions a step.
#[inline(always)]
fn play(setup: &Setup<'_>, i: usize, slot: &mut Slot, o: &mut Out<'_>, id: i64) {
    let Setup {
        loaded,
        seed,
        relative,
    } = *setup;
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
    observe(slot, codec, relative, change, o);
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
        let (codec, n, relative) = (&self.loaded.codec, self.slots.len(), self.relative);
        let (slots, arrays, workers) = (&mut self.slots, &mut self.arrays, &mut self.workers);
        py.detach(|| {
            for_each(workers, slots, arrays.shares(n), |_, slot, mut o| {
                slot.legal.clear(o.mask);
                observe(slot, codec, relative, Change::Any, &mut o);
            });
        });
    }

    /// `actions` (any integer array or sequence of `n`) as a buffer of `n` int64 in a row.
    fn actions_buffer(
        &self,
        py: Python<'_>,
        actions: &Bound<'_, PyAny>,
    ) -> PyResult<PyBuffer<i64>> {
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
        Ok(buffer)
    }

    /// Plays every game's action in `actions` if all are legal ids; otherwise plays none and
    /// returns the first game whose action is not. The actions are copied into
    /// `self.actions` first, each on its game's thread when there are several: read on the
    /// calling thread, the ids `random_actions` drew on the others would all come to its
    /// core, and back to theirs in `self.actions` (with sixteen threads, the calling thread
    /// alone would read every game's action from fifteen other cores at every step).
    fn play_all(&mut self, py: Python<'_>, actions: &PyBuffer<i64>) -> PyResult<Option<usize>> {
        let n = self.slots.len();
        let shared = match self.workers.ready() {
            1 => None,
            _ => shared_values(actions),
        };
        if shared.is_none() {
            actions.copy_to_slice(py, &mut self.actions)?;
        }
        let setup = Setup {
            loaded: &self.loaded,
            seed: &self.seed,
            relative: self.relative,
        };
        let (slots, arrays, workers) = (&mut self.slots, &mut self.arrays, &mut self.workers);
        let shares = arrays.shares(n);
        let legal =
            |id: i64, slot: &Slot| u32::try_from(id).is_ok_and(|id| slot.legal.contains(id));
        let Some(shared) = shared else {
            let actions = &self.actions;
            if let Some(i) = (0..n).find(|&i| !legal(actions[i], &slots[i])) {
                return Ok(Some(i));
            }
            py.detach(|| {
                for_each(workers, slots, shares, |i, slot, mut o| {
                    play(&setup, i, slot, &mut o, actions[i]);
                });
            });
            return Ok(None);
        };
        let blocks = blocks(slots, shares).into_iter();
        let parts = Parts::new(blocks.zip(self.actions.chunks_mut(BLOCK)).collect());
        Ok(py.detach(|| {
            let first = AtomicUsize::new(usize::MAX);
            // One call of two phases, each thread on its own games: the actions read and
            // checked, then, once every game's is, the plies (one call rather than two: each
            // call's handing out and waiting for the threads is a microsecond or so).
            workers.run(parts.len(), 2, &|phase, b| {
                if phase == 0 {
                    parts.with(b, |((start, slots, _), ids)| {
                        for (id, from) in ids.iter_mut().zip(&shared[*start..]) {
                            *id = from.load(Ordering::Relaxed);
                        }
                        if let Some(k) = (0..slots.len()).find(|&k| !legal(ids[k], &slots[k])) {
                            first.fetch_min(*start + k, Ordering::Relaxed);
                        }
                    });
                } else if first.load(Ordering::Relaxed) == usize::MAX {
                    let ((start, slots, mut shares), ids) = parts.take(b);
                    for (k, slot) in slots.iter_mut().enumerate() {
                        play(&setup, start + k, slot, &mut shares.get(k), ids[k]);
                    }
                }
            });
            Some(first.into_inner()).filter(|&i| i < n)
        }))
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
    #[pyo3(signature = (variant = None, n = 1, threads = 1, grid = false, relative = false))]
    fn new(
        py: Python<'_>,
        variant: Option<&Bound<'_, PyAny>>,
        n: usize,
        threads: usize,
        grid: bool,
        relative: bool,
    ) -> PyResult<VecGame> {
        let loaded = match variant {
            Some(v) => load_any(v)?,
            None => crate::variant::load("traditional")?,
        };
        if n == 0 || threads == 0 {
            return Err(PyValueError::new_err("n and threads must be at least 1"));
        }
        let v = &loaded.variant;
        let dims = if grid {
            Some(tensor::grid_dims(v)?)
        } else {
            None
        };
        let cells = v.topology.size();
        let actions = loaded.codec.len();
        // Everything checked to fit, then allocated fallibly: a batch too large raises
        // MemoryError (an allocation that fails in Rust would abort the interpreter).
        let sizes = Sizes::of(n, cells, actions, v.players, game_bytes(actions))?;
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
        let arrays = Arrays::new(py, &numpy, &sizes, dims)?;
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
            relative,
            grid,
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

    /// Deals every game's first episode from `seed` (a str, or an int meaning its decimal
    /// string; `None`: a fresh random one) and returns `(obs, masks, rewards, dones,
    /// to_move)`: the read-only numpy arrays every call overwrites (rewards and dones all zero
    /// here).
    #[pyo3(signature = (seed = None))]
    fn reset<'py>(
        &mut self,
        py: Python<'py>,
        seed: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        self.seed = crate::seeds::seed_text_or_fresh("seed", seed)?;
        let (loaded, seed, relative) = (&self.loaded, &self.seed, self.relative);
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
                observe(slot, &loaded.codec, relative, Change::Any, &mut o);
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
        let actions = self.actions_buffer(py, actions)?;
        if let Some(i) = self.play_all(py, &actions)? {
            return Err(self.refusal(py, i));
        }
        Ok(self.arrays.views(py))
    }

    /// A uniformly random legal action id for every game, as a new numpy `int64` array, drawn
    /// in Rust from each game's own generator (seeded by `reset`): a random policy, or random
    /// opponents, with no per-game Python work. The same seed gives the same draws, whatever
    /// the threads.
    fn random_actions<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut ids = NewIds::new(py, &self.numpy, self.slots.len())?;
        let (slots, workers) = (&mut self.slots, &mut self.workers);
        let values = ids.values();
        if workers.ready() == 1 {
            // Too little work for the GIL's release, which a step of few games would notice.
            draw(slots, values);
        } else {
            // Drawn on every thread, each game's from its own generator: the draws do not
            // depend on which thread makes them.
            py.detach(|| {
                let blocks = slots
                    .chunks_mut(BLOCK)
                    .zip(values.chunks_mut(BLOCK))
                    .collect();
                workers.run_parts(blocks, |(slots, ids)| draw(slots, ids));
            });
        }
        Ok(ids.into_array())
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

    /// Whether `obs` is `(n, PLANES, rows, columns)` (`grid=True`).
    #[getter]
    fn grid(&self) -> bool {
        self.grid
    }

    /// Whether observations are in each observer's colour roles (`relative=True`).
    #[getter]
    fn relative(&self) -> bool {
        self.relative
    }

    fn __repr__(&self) -> String {
        format!(
            "<anqi.VecGame {} x{} threads {}{}{}>",
            self.loaded.variant.name,
            self.slots.len(),
            self.threads,
            if self.grid { " grid" } else { "" },
            if self.relative { " relative" } else { "" },
        )
    }
}
