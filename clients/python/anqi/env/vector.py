"""anqi as a Gymnasium vector environment: the agent plays one seat in each of `num_envs`
games stepped natively, the opponents play the others (PACKAGE.md, Environments).

Each game is an `anqi.VecGame` of one game: its plies, observation, mask, the next episode's
deal and the "random" opponent's draws are native, written into arrays in place. They are not
one `VecGame` of `num_envs` games because a `VecGame` plays a ply in every one of its games at
every call, and here the games do not keep in step: between two turns of the agent, one game
needs one opponent ply, another two (a bag draw, a chain capture, a game just dealt where the
opponent moves first), another several (three or four players). The batch is gathered from
the games' arrays in Python.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .._anqi import Game, VecGame
from . import _common
from .gymnasium_single import MAX_DEALS
from .render import Rendering


class AnqiVectorEnv(VectorEnv):
    """`num_envs` games of one variant; in each the agent plays `seat` (the protocol's player
    id, from 1; None: drawn for every episode of every game, `infos["seat"]`), and `opponent`
    every other seat: "random" (a uniformly random legal action, drawn natively by
    `VecGame.random_actions`) or a batch policy `opponent(obs, masks) -> actions`, called with
    the games where an opponent is to move (k of them): `obs` their tensors from the mover's
    seat, `(k, *tensor shape)` float32, shaped as the agent's; `masks` their legal action ids,
    `(k, A)` bool; it returns k action ids.

    Observations, action ids, rewards, `strict` and the other options are the single
    environment's (`AnqiGym`), batched: `obs["observation"]` `(num_envs, *tensor shape)`,
    `obs["action_mask"]` `(num_envs, A)` int8, rewards `(num_envs,)` float64; actions are an
    integer array of `num_envs` ids (anything else raises TypeError). `action_masks()` is
    `(num_envs, A)` bool.

    Autoreset is same-step (`metadata["autoreset_mode"]`, Gymnasium's
    `AutoresetMode.SAME_STEP`): a step that ends game i's episode returns the next episode's
    first observation in `obs[i]`, and the ended episode's last observation and info in
    `infos["final_obs"][i]` and `infos["final_info"]` (Gymnasium's layout: per key an array
    over the games, with a mask `_key`; `infos["_final_obs"]` says which games ended). The
    final info has "seat", and "outcome" (the game's result) or "illegal" (why the action was
    refused). The final observation's mask is all zero, as the single environment's at the
    end.

    `reset(seed=s)` seeds game i with `s + i` (a list seeds each game), as Gymnasium's own
    vector environments do; the games then depend on the seeds alone (and the policy).
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": _common.RENDER_FPS,
                "autoreset_mode": AutoresetMode.SAME_STEP, **_common.METADATA}

    def __init__(self, num_envs: int = 1, variant: Any = "traditional",
                 opponent: str | Callable[[np.ndarray, np.ndarray], Any] = "random",
                 seat: int | None = None, render_mode: str | None = None,
                 max_plies: int | None = None, strict: bool = False,
                 observation_shape: str = "flat", relative: bool = False) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) \
                or num_envs < 1:
            raise ValueError(f"num_envs {num_envs!r}: the number of games, 1 or more")
        _common.check_render_mode(render_mode, tuple(self.metadata["render_modes"]))
        self._variant = v = _common.load(variant)
        if seat is not None and not 1 <= seat <= v.players:
            raise ValueError(f"seat {seat}: the variant's seats are 1..{v.players} (player ids, "
                             "counted from 1)")
        if not (opponent == "random" or (callable(opponent) and not isinstance(opponent, str))):
            raise ValueError(
                f"opponent {opponent!r}: \"random\", or a batch policy (obs, masks) -> actions. "
                "The reference bots \"greedy\" and \"search\" play one game at a time: for them "
                "use gymnasium.make_vec(\"anqi/Anqi-v0\", num_envs, vectorization_mode=\"sync\", "
                "opponent=...) (copies of the single environment)")
        self.num_envs = int(num_envs)
        self._opponent = opponent
        self._fixed_seat = seat
        self._observer = _common.Observer(v, observation_shape, relative)
        self.render_mode = render_mode
        self.max_plies = max_plies
        self.strict = strict
        self.single_observation_space, self.single_action_space = _common.spaces(
            v, self._observer)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._actions = self.single_action_space.n
        self._rendering = Rendering(v, render_mode, self.metadata["render_fps"])

        n = self.num_envs
        self._games = [VecGame(v, n=1, relative=relative) for _ in range(n)]
        # Each game's arrays (obs, masks, rewards, dones, to_move): the VecGame writes every
        # call's results into the same ones, so they are kept from its reset (None before).
        self._views: list[tuple[np.ndarray, ...] | None] = [None] * n
        self._rngs: list[np.random.Generator | None] = [None] * n  # per game: seats, seeds
        self._seeds: list[str] = [""] * n  # the seed of each game's VecGame
        self._episode = [0] * n  # the VecGame's episode now (its deal's number)
        self._played: list[list[int]] = [[] for _ in range(n)]  # its action ids so far
        self._acted = [False] * n  # whether the agent has played in it
        self._seats = np.ones(n, dtype=np.int64)
        self._plies = [0] * n
        self._ended: dict[int, tuple[dict, dict]] = {}  # this step's ends: final obs, info
        self._skipped = [0] * n  # episodes in a row that ended before the agent's turn
        self._one = np.zeros(1, dtype=np.int64)  # an agent's action, as VecGame takes it
        self._rewards = np.zeros(n, dtype=np.float64)  # this step's results
        self._terminations = np.zeros(n, dtype=bool)
        self._truncations = np.zeros(n, dtype=bool)

    # -- the games ------------------------------------------------------------------------

    def _deal(self, i: int, seed: str) -> None:
        """Starts game i afresh from `seed` (its VecGame reset)."""
        self._seeds[i] = seed
        self._episode[i] = 0
        self._views[i] = self._games[i].reset(seed=seed)
        self._new_episode(i)

    def _redeal(self, i: int) -> None:
        """A new episode for game i where the VecGame's would not start one by itself (after
        an illegal action or a truncation): a reset with a seed from game i's generator."""
        self._deal(i, str(int(self._rngs[i].integers(2**63))))

    def _new_episode(self, i: int) -> None:
        self._played[i] = []
        self._plies[i] = 0
        self._acted[i] = False
        if self._fixed_seat is None:
            self._seats[i] = self._rngs[i].integers(1, self._variant.players + 1)
        else:
            self._seats[i] = self._fixed_seat

    def _waiting(self, i: int) -> bool:
        """Whether an opponent is to move in game i."""
        return int(self._views[i][4][0]) != self._seats[i]

    def _play(self, i: int, ids: np.ndarray, by_agent: bool = False) -> None:
        """Plays `ids[0]` (a legal id) in game i; an episode that ends is recorded (when the
        agent has played in it) and the next one begins."""
        vec = self._games[i]
        vec.step(ids)
        self._played[i].append(int(ids[0]))
        self._plies[i] += 1
        self._acted[i] |= by_agent
        if not self._views[i][3][0]:
            return
        # The episode is over and the VecGame has dealt the next one.
        if self._acted[i]:
            seat = int(self._seats[i])
            final, outcome = self._last_observation(i)
            self._end(i, float(self._views[i][2][0, seat - 1]), final,
                      {"seat": seat, "outcome": outcome}, truncated=False)
            self._skipped[i] = 0
        else:
            # The opponents ended it before the agent's first turn: it held no decision of
            # the agent's, and is not reported (as the single environment deals again).
            self._skipped[i] += 1
            if self._skipped[i] > MAX_DEALS:
                raise RuntimeError(f"{MAX_DEALS} deals in a row ended before seat "
                                   f"{self._seats[i]}'s first turn in {self._variant.name}: "
                                   "no episode to play")
        self._episode[i] += 1
        self._new_episode(i)

    def _last_observation(self, i: int) -> tuple[dict[str, np.ndarray], _common.Outcome]:
        """The agent's observation of game i's episode that just ended, and its outcome. The
        VecGame has already dealt the next episode over its arrays, so the last position is
        played again on an `anqi.Game`: the VecGame dealt episode k of its game 0 as
        `anqi.Game(variant, seed=f"{seed}/0/{k}")`, and the same ids give the same game
        (PACKAGE.md, Batched stepping)."""
        game = Game(self._variant, seed=f"{self._seeds[i]}/0/{self._episode[i]}")
        for a in self._played[i]:
            game.apply(a)
        if not game.is_terminal:  # the VecGame's deals are no longer what the docs say
            raise AssertionError(f"game {i}: its episode ended in the VecGame but not when "
                                 "played again in anqi.Game from its seed")
        return (self._final(game.observation_tensor(int(self._seats[i]),
                                                    relative=self._observer.relative)),
                _common.Outcome(game.outcome))

    def _final(self, tensor: np.ndarray) -> dict[str, np.ndarray]:
        return {"observation": self._observer(tensor),
                "action_mask": np.zeros(self._actions, dtype=np.int8)}

    def _end(self, i: int, reward: float, final: dict, info: dict, truncated: bool) -> None:
        assert i not in self._ended, "one end per game per step"
        self._rewards[i] = reward
        (self._truncations if truncated else self._terminations)[i] = True
        self._ended[i] = (final, info)

    def _opponents_play(self, waiting: list[int]) -> None:
        """The opponents play in the games of `waiting` until the agent is to move in each
        (across episodes: a game just dealt may begin with the opponents' plies)."""
        while waiting:
            if self._opponent == "random":
                for i in waiting:
                    self._play(i, self._games[i].random_actions())
            else:
                for i, a in zip(waiting, self._policy_actions(waiting)):
                    self._one[0] = a
                    self._play(i, self._one)
            waiting = [i for i in waiting if self._waiting(i)]

    def _policy_actions(self, waiting: list[int]) -> np.ndarray:
        """The batch policy's actions for the games of `waiting`, checked."""
        obs = self._observer(np.concatenate([self._views[i][0] for i in waiting]))
        masks = np.concatenate([self._views[i][1] for i in waiting])
        actions = np.asarray(self._opponent(obs, masks))
        if actions.shape != (len(waiting),) or actions.dtype.kind not in "iu":
            raise TypeError(f"the opponent policy answered {actions.dtype} of shape "
                            f"{actions.shape} for {len(waiting)} games: it must return "
                            f"{len(waiting)} action ids, one per row of obs and masks")
        for k, (i, a) in enumerate(zip(waiting, actions)):
            if not (0 <= a < self._actions and masks[k, a]):
                why = (_common.why_illegal(self._games[i].game(0), int(a))
                       if 0 <= a < self._actions else "not an action id")
                raise ValueError(f"the opponent policy chose action {a} in game {i} (row {k} "
                                 f"of its batch), which is not legal: {why}")
        return actions

    # -- Gymnasium's API ------------------------------------------------------------------

    def reset(self, *, seed: int | list[int | None] | None = None,
              options: dict | None = None):
        """Deals every game anew. `seed`: an int s seeds game i with s + i; a list, one seed
        (or None) per game; None, seeds drawn from the generator of the last seeded reset."""
        if isinstance(seed, (list, tuple)):
            if len(seed) != self.num_envs:
                raise ValueError(f"{len(seed)} seeds for {self.num_envs} games")
            seeds = list(seed)
        else:
            super().reset(seed=seed)
            seeds = [None if seed is None else seed + i for i in range(self.num_envs)]
        self._ended = {}
        self._skipped = [0] * self.num_envs
        for i, s in enumerate(seeds):
            if s is None:
                s = int(self.np_random.integers(2**63))
            self._rngs[i] = np.random.default_rng(s)
            self._deal(i, str(s))
        self._opponents_play([i for i in range(self.num_envs) if self._waiting(i)])
        # Games dealt anew before the agent's first turn end nothing the agent sees.
        self._ended = {}
        return self._observations(), {"seat": self._seats.copy(),
                                      "_seat": np.ones(self.num_envs, dtype=bool)}

    def step(self, actions: Any):
        if self._views[0] is None:
            raise RuntimeError("step() before reset(): call reset() first")
        actions = self._check_actions(actions)
        masks = np.concatenate([view[1] for view in self._views])
        illegal = [int(i) for i in np.flatnonzero(~masks[np.arange(self.num_envs), actions])]
        if illegal and self.strict:
            i = illegal[0]
            why = _common.why_illegal(self._games[i].game(0), int(actions[i]))
            raise ValueError(f"game {i} (seat {self._seats[i]}): action {actions[i]} is not "
                             f"legal now: {why} (no game was stepped)")
        self._rewards = np.zeros(self.num_envs, dtype=np.float64)
        self._terminations = np.zeros(self.num_envs, dtype=bool)
        self._truncations = np.zeros(self.num_envs, dtype=bool)
        self._ended = {}
        for i in illegal:
            why = _common.why_illegal(self._games[i].game(0), int(actions[i]))
            final = self._final(self._views[i][0][0].copy())  # the VecGame's, rewritten next
            self._end(i, -1.0, final, {"seat": int(self._seats[i]), "illegal": why},
                      truncated=False)
            self._redeal(i)
        played = np.ones(self.num_envs, dtype=bool)
        played[illegal] = False
        for i in np.flatnonzero(played):
            self._one[0] = actions[i]
            self._play(int(i), self._one, by_agent=True)
        self._opponents_play([i for i in range(self.num_envs) if self._waiting(i)])
        if self.max_plies is not None:
            # Truncation, as in the single environment: once the agent is to move again in
            # the episode it played in, at max_plies plies or more.
            over = [int(i) for i in np.flatnonzero(played)
                    if int(i) not in self._ended and self._plies[i] >= self.max_plies]
            for i in over:
                self._end(i, 0.0, self._final(self._views[i][0][0].copy()),
                          {"seat": int(self._seats[i])}, truncated=True)
                self._redeal(i)
            self._opponents_play([i for i in over if self._waiting(i)])
        infos = {"seat": self._seats.copy(), "_seat": np.ones(self.num_envs, dtype=bool)}
        for i, (final, info) in sorted(self._ended.items()):
            infos = self._add_info(infos, {"final_obs": final, "final_info": info}, i)
        return (self._observations(), self._rewards, self._terminations, self._truncations,
                infos)

    def _check_actions(self, actions: Any) -> np.ndarray:
        a = np.asarray(actions)
        if a.dtype.kind not in "iu":  # bools are kind "b", floats "f"
            raise TypeError(f"actions of dtype {a.dtype}: the actions are an integer array of "
                            f"{self.num_envs} action ids, one per game; "
                            + _common.ACTION_IS.format(n=self._actions))
        if a.shape != (self.num_envs,):
            raise ValueError(f"actions of shape {a.shape}: one action id per game, shape "
                             f"({self.num_envs},)")
        out = np.flatnonzero((a < 0) | (a >= self._actions))
        if out.size:
            i = int(out[0])
            raise ValueError(f"game {i}: action {a[i]} is not an action id: this variant's ids "
                             f"are 0..{self._actions - 1}")
        return a.astype(np.int64, copy=False)

    def _observations(self) -> dict[str, np.ndarray]:
        return {"observation": self._observer(np.concatenate([v[0] for v in self._views])),
                "action_mask": np.concatenate([v[1] for v in self._views]).astype(np.int8)}

    def action_masks(self) -> np.ndarray:
        """The agent's legal action ids in every game now, `(num_envs, A)` bool."""
        if self._views[0] is None:
            return np.zeros((self.num_envs, self._actions), dtype=bool)
        return np.concatenate([view[1] for view in self._views])

    def game(self, i: int) -> Game:
        """Game i now, as an `anqi.Game` (a copy: playing it changes nothing here)."""
        return self._games[i].game(0)

    def render(self) -> tuple[Any, ...] | None:
        """Every game's board: a tuple of texts ("ansi") or frames ("rgb_array")."""
        if self.render_mode is None:
            return self._rendering(None)
        return tuple(self._rendering(self.game(i)) for i in range(self.num_envs))
