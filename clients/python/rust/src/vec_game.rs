//! `anqi.VecGame`: n games of one variant stepped together in Rust, for reinforcement learning.
//!
//! Every call works on all games at once with the GIL released, over `threads` threads, and
//! writes its results into numpy arrays made once (observations, masks, rewards, dones, the
//! players to move): no Python object per game or per step. Game `i`'s `k`-th episode is dealt
//! from the seed text `"{seed}/{i}/{k}"` as `anqi.Game(variant, seed=...)` deals it, so the
//! games depend on the seed only, whatever the thread count. The deal is the chance: what each
//! reveal turns up (and each draw gives) was drawn when the episode was dealt.

use crate::actions::Codec;
use crate::tensor::{self, PLANES};
use crate::variant::{load_any, Loaded};
use anqi_core::rules::playout::SplitMix64;
use anqi_core::rules::{self, SeedInputs};
use pyo3::buffer::PyBuffer;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::sync::Arc;

/// n games stepped together; see PACKAGE.md, Batched stepping.
#[pyclass(module = "anqi", name = "VecGame")]
pub struct VecGame {
    loaded: Arc<Loaded>,
    seed: String,
    threads: usize,
    slots: Vec<Slot>,
    /// The results of the last call, in Rust, copied into the numpy arrays after it.
    out: Outputs,
    /// The numpy arrays handed to Python, overwritten by every call.
    arrays: Option<Arrays>,
}

/// One game, how many episodes its slot has started, and its generator of random actions.
#[derive(Clone)]
struct Slot {
    game: rules::Game,
    episode: u64,
    rng: SplitMix64,
}

/// The generator of slot `i`'s random actions for `seed` (FNV-1a of `"{seed}/{i}"`).
fn slot_rng(seed: &str, i: usize) -> SplitMix64 {
    let text = format!("{seed}/{i}");
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    SplitMix64::new(hash)
}

/// What one call writes, game by game.
/// (Masks and dones as bytes, 0 or 1: numpy's `bool` layout.)
struct Outputs {
    obs: Vec<f32>,
    masks: Vec<u8>,
    rewards: Vec<f32>,
    dones: Vec<u8>,
    to_move: Vec<i32>,
}

/// The arrays Python sees; masks and dones are `bool` views of `uint8` arrays (the buffer
/// protocol has no bool in Rust's reach), written through the `uint8` ones.
struct Arrays {
    obs: Py<PyAny>,
    masks: Py<PyAny>,
    masks_bool: Py<PyAny>,
    rewards: Py<PyAny>,
    dones: Py<PyAny>,
    dones_bool: Py<PyAny>,
    to_move: Py<PyAny>,
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

/// One game's share of the outputs.
struct Out<'a> {
    obs: &'a mut [f32],
    mask: &'a mut [u8],
    rewards: &'a mut [f32],
    done: &'a mut u8,
    to_move: &'a mut i32,
}

/// Writes a game's observation (from its player to move), mask and player to move.
fn observe(game: &rules::Game, codec: &Codec, out: &mut Out<'_>) {
    tensor::write_planes(game, game.to_move(), out.obs);
    tensor::write_mask(game, codec, out.mask);
    *out.to_move = game.to_move() as i32;
}

impl Outputs {
    fn new(n: usize, cells: usize, actions: usize, players: usize) -> Outputs {
        Outputs {
            obs: vec![0.0; n * PLANES * cells],
            masks: vec![0; n * actions],
            rewards: vec![0.0; n * players],
            dones: vec![0; n],
            to_move: vec![0; n],
        }
    }

    /// Splits the outputs into `n` games' shares, in order.
    fn shares(&mut self, n: usize) -> Vec<Out<'_>> {
        // n >= 1, and every game's share is at least one value (a cell, an action, a player).
        let (obs, mask, rewards) = (
            self.obs.len() / n,
            self.masks.len() / n,
            self.rewards.len() / n,
        );
        self.obs
            .chunks_mut(obs)
            .zip(self.masks.chunks_mut(mask))
            .zip(self.rewards.chunks_mut(rewards))
            .zip(self.dones.iter_mut())
            .zip(self.to_move.iter_mut())
            .map(|((((obs, mask), rewards), done), to_move)| Out {
                obs,
                mask,
                rewards,
                done,
                to_move,
            })
            .collect()
    }
}

/// Runs `f` on every slot with its share of the outputs, over `threads` threads, slot `i` on
/// the same data whatever the split.
fn for_each<F>(slots: &mut [Slot], outs: Vec<Out<'_>>, threads: usize, f: F)
where
    F: Fn(usize, &mut Slot, Out<'_>) + Sync,
{
    let n = slots.len();
    let chunk = n.div_ceil(threads.max(1)).max(1);
    let mut outs = outs;
    std::thread::scope(|scope| {
        let mut start = 0;
        let mut slots = slots;
        while !slots.is_empty() {
            let take = chunk.min(slots.len());
            let (mine, rest) = slots.split_at_mut(take);
            slots = rest;
            let my_outs: Vec<Out<'_>> = outs.drain(..take).collect();
            let f = &f;
            let first = start;
            let work = move || {
                for (k, (slot, out)) in mine.iter_mut().zip(my_outs).enumerate() {
                    f(first + k, slot, out);
                }
            };
            // The last chunk runs on the calling thread.
            if start + take >= n {
                work();
            } else {
                scope.spawn(work);
            }
            start += take;
        }
    });
}

impl VecGame {
    /// Copies the outputs into the numpy arrays (made on first use) and returns them.
    fn publish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        if self.arrays.is_none() {
            let numpy = py.import("numpy").map_err(|_| {
                pyo3::exceptions::PyImportError::new_err(
                    "VecGame writes numpy arrays: pip install numpy",
                )
            })?;
            let n = self.slots.len();
            let cells = self.loaded.variant.topology.size();
            let zeros = |shape: Vec<usize>, dtype: &str| -> PyResult<Py<PyAny>> {
                Ok(numpy.call_method1("zeros", (shape, dtype))?.unbind())
            };
            let masks = zeros(vec![n, self.loaded.codec.len()], "uint8")?;
            let dones = zeros(vec![n], "uint8")?;
            let view = |a: &Py<PyAny>| -> PyResult<Py<PyAny>> {
                Ok(a.bind(py).call_method1("view", ("bool",))?.unbind())
            };
            self.arrays = Some(Arrays {
                obs: zeros(vec![n, PLANES, cells], "float32")?,
                masks_bool: view(&masks)?,
                masks,
                rewards: zeros(vec![n, self.loaded.variant.players], "float32")?,
                dones_bool: view(&dones)?,
                dones,
                to_move: zeros(vec![n], "int32")?,
            });
        }
        let a = self.arrays.as_ref().expect("made above");
        PyBuffer::<f32>::get(a.obs.bind(py))?.copy_from_slice(py, &self.out.obs)?;
        PyBuffer::<u8>::get(a.masks.bind(py))?.copy_from_slice(py, &self.out.masks)?;
        PyBuffer::<f32>::get(a.rewards.bind(py))?.copy_from_slice(py, &self.out.rewards)?;
        PyBuffer::<u8>::get(a.dones.bind(py))?.copy_from_slice(py, &self.out.dones)?;
        PyBuffer::<i32>::get(a.to_move.bind(py))?.copy_from_slice(py, &self.out.to_move)?;
        pyo3::types::PyTuple::new(
            py,
            [
                a.obs.clone_ref(py),
                a.masks_bool.clone_ref(py),
                a.rewards.clone_ref(py),
                a.dones_bool.clone_ref(py),
                a.to_move.clone_ref(py),
            ],
        )
    }
}

#[pymethods]
impl VecGame {
    #[new]
    #[pyo3(signature = (variant = None, n = 1, threads = 1))]
    fn new(variant: Option<&Bound<'_, PyAny>>, n: usize, threads: usize) -> PyResult<VecGame> {
        let loaded = match variant {
            Some(v) => load_any(v)?,
            None => crate::variant::load("traditional")?,
        };
        if n == 0 || threads == 0 {
            return Err(PyValueError::new_err("n and threads must be at least 1"));
        }
        let v = &loaded.variant;
        let out = Outputs::new(n, v.topology.size(), loaded.codec.len(), v.players);
        let slots = (0..n)
            .map(|i| Slot {
                game: deal(&loaded, "", i, 0),
                episode: 0,
                rng: slot_rng("", i),
            })
            .collect();
        Ok(VecGame {
            loaded,
            seed: String::new(),
            threads,
            slots,
            out,
            arrays: None,
        })
    }

    /// Deals every game's first episode from `seed` and returns `(obs, masks, rewards, dones,
    /// to_move)`: the numpy arrays every call overwrites (rewards and dones all zero here).
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
        let (loaded, seed, threads) = (self.loaded.clone(), self.seed.clone(), self.threads);
        let n = self.slots.len();
        let slots = &mut self.slots;
        let out = &mut self.out;
        py.detach(|| {
            let shares = out.shares(n);
            for_each(slots, shares, threads, |i, slot, mut o| {
                slot.episode = 0;
                slot.game = deal(&loaded, &seed, i, 0);
                slot.rng = slot_rng(&seed, i);
                o.rewards.fill(0.0);
                *o.done = 0;
                observe(&slot.game, &loaded.codec, &mut o);
            });
        });
        self.publish(py)
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
        let numpy = py.import("numpy")?;
        let actions = numpy.call_method1("ascontiguousarray", (actions, "int64"))?;
        let actions: Vec<i64> = PyBuffer::<i64>::get(&actions)?.to_vec(py)?;
        let n = self.slots.len();
        if actions.len() != n {
            return Err(PyValueError::new_err(format!(
                "{} actions for {n} games",
                actions.len()
            )));
        }
        let codec = &self.loaded.codec;
        let mut decoded = Vec::with_capacity(n);
        for (i, (&id, slot)) in actions.iter().zip(&self.slots).enumerate() {
            let action = codec
                .decode_or_refuse(id)
                .map_err(|e| PyValueError::new_err(format!("game {i}: {e}")))?;
            let player = slot.game.to_move();
            slot.game
                .check(player, action)
                .map_err(|e| PyValueError::new_err(format!("game {i}: action {id}: {e}")))?;
            decoded.push(action);
        }
        let (loaded, seed, threads) = (self.loaded.clone(), self.seed.clone(), self.threads);
        let slots = &mut self.slots;
        let out = &mut self.out;
        py.detach(|| {
            let shares = out.shares(n);
            for_each(slots, shares, threads, |i, slot, mut o| {
                let player = slot.game.to_move();
                slot.game
                    .play(player, decoded[i])
                    .expect("checked before any game was stepped");
                if slot.game.outcome().is_some() {
                    tensor::write_returns(&slot.game, o.rewards);
                    *o.done = 1;
                    slot.episode += 1;
                    slot.game = deal(&loaded, &seed, i, slot.episode);
                } else {
                    o.rewards.fill(0.0);
                    *o.done = 0;
                }
                observe(&slot.game, &loaded.codec, &mut o);
            });
        });
        self.publish(py)
    }

    /// A uniformly random legal action id for every game, as a numpy `int64` array, drawn in
    /// Rust from each game's own generator (seeded by `reset`): a random policy, or random
    /// opponents, with no per-game Python work. The same seed gives the same draws.
    fn random_actions<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let codec = &self.loaded.codec;
        let ids: Vec<i64> = self
            .slots
            .iter_mut()
            .map(|slot| {
                let Slot { game, rng, .. } = slot;
                game.pick_legal(|n| rng.below(n))
                    .and_then(|(a, _)| codec.encode(a))
                    .map_or(-1, i64::from)
            })
            .collect();
        let numpy = py.import("numpy")?;
        numpy.call_method1("array", (ids, "int64"))
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
