"""anqi as a Gymnasium environment: the agent plays one seat, bots the others (PACKAGE.md,
Environments)."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from .._anqi import Game, ReferenceBot
from . import _common
from .render import Rendering

STRATEGIES = ("random", "greedy", "search")

#: Deals tried at a reset before giving up, where the other seats end every game before the
#: agent's first turn (no shipped variant does; a description could).
MAX_DEALS = 100


class AnqiGym(gymnasium.Env):
    """One seat of an anqi variant for a single agent; every other seat (teammates included)
    is played by the opponent, in process, between the agent's turns. `seat` is the
    protocol's player id, counted from 1 (None: drawn at each reset; `info["seat"]` says
    which).

    Observations are dicts as in the PettingZoo environment (`observation`: the tensor from
    the agent's seat, planes `anqi.env.TENSOR_PLANES`, layout version
    `metadata["tensor_version"]`, shaped by `observation_shape` and `relative`;
    `action_mask`: its legal action ids, `int8`, all zero once the episode is over), actions
    the variant's action ids. `action_masks()` is the same mask as a bool array, as
    sb3-contrib's MaskablePPO reads it. The reward is +1, -1 or 0 at the end (the agent's
    side won, lost, or nobody won; one-side games: +1 when the goal was reached), 0 before.
    `info["outcome"]` is the game's result at the end.

    An action is an action id (a Python int, a numpy integer or a 0-d integer array); anything
    else raises TypeError, an id outside the action space ValueError. An id the rules do not
    allow now ends the episode as a loss (reward -1, `info["illegal"]` says why); with
    `strict=True` it raises ValueError instead, the game unchanged.
    """

    metadata = {"render_modes": list(_common.RENDER_MODES), "render_fps": _common.RENDER_FPS,
                **_common.METADATA}

    def __init__(self, variant: Any = "traditional", opponent: Any = "random",
                 seat: int | None = None, render_mode: str | None = None,
                 max_plies: int | None = None, depth: int | None = None, strict: bool = False,
                 observation_shape: str = "flat", relative: bool = False) -> None:
        _common.check_render_mode(render_mode)
        self._variant = _common.load(variant)
        players = self._variant.players
        if seat is not None and not 1 <= seat <= players:
            raise ValueError(f"seat {seat}: the variant's seats are 1..{players} (player ids, "
                             "counted from 1)")
        if isinstance(opponent, str) and opponent not in STRATEGIES:
            raise ValueError(f"opponent {opponent!r}: one of {', '.join(STRATEGIES)}, or a callable")
        self._opponent = opponent
        self._depth = depth
        self._fixed_seat = seat
        self._observer = _common.Observer(self._variant, observation_shape, relative)
        self.render_mode = render_mode
        self.max_plies = max_plies
        self.strict = strict
        self.observation_space, self.action_space = _common.spaces(self._variant, self._observer)
        self.game: Game | None = None
        self.seat = seat or 1
        self._bots: dict[int, Any] = {}
        self._over = True  # the episode ended (by the rules, an illegal action or truncation)
        self._rendering = Rendering(self._variant, render_mode, self.metadata["render_fps"])

    def _bot(self, seed: int):
        if isinstance(self._opponent, str):
            depth = self._depth if self._opponent == "search" else None
            return ReferenceBot(self._opponent, seed, depth)
        return self._opponent

    def _choose(self, player: int) -> str:
        bot = self._bots[player]
        view = self.game.observation(player)
        choose = getattr(bot, "choose", None)
        return choose(view) if callable(choose) else bot(view)

    def _others_play(self) -> None:
        """The other seats play until the agent is to move or the game is over."""
        game = self.game
        while not game.is_terminal and game.to_move != self.seat:
            game.play(self._choose(game.to_move))

    def _observation(self) -> dict[str, np.ndarray]:
        return _common.observe(self.game, self.seat, not self._over, self._observer)

    def action_masks(self) -> np.ndarray:
        """The agent's legal action ids now, as a bool array over the action ids (all False
        once the episode is over): what sb3-contrib's MaskablePPO asks an environment for.
        Through `gymnasium.make`'s wrappers: `env.unwrapped.action_masks()`."""
        if self.game is None or self._over:
            return np.zeros(self.action_space.n, dtype=bool)
        return self.game.legal_action_mask()

    def reset(self, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        rng = self.np_random
        players = self._variant.players
        for _ in range(MAX_DEALS):
            self.seat = self._fixed_seat or int(rng.integers(1, players + 1))
            self.game = Game(self._variant, seed=str(int(rng.integers(2**63))))
            self._bots = {p: self._bot(int(rng.integers(2**63)))
                          for p in range(1, players + 1) if p != self.seat}
            self._others_play()
            # A game the others ended before the agent's first turn held no decision of the
            # agent's: it is dealt again.
            if not self.game.is_terminal:
                break
        else:
            raise RuntimeError(f"{MAX_DEALS} deals in a row ended before seat {self.seat}'s "
                               f"first turn in {self._variant.name}: no episode to play")
        self._over = False
        if self.render_mode == "human":
            self.render()
        return self._observation(), {"seat": self.seat}

    def step(self, action: Any):
        game = self.game
        if game is None or self._over:
            raise RuntimeError("step() after the end of the episode: call reset()")
        action = _common.action_id(action, game.num_distinct_actions)
        info: dict[str, Any] = {"seat": self.seat}
        reward, terminated, truncated = 0.0, False, False
        try:
            game.apply(action)  # an illegal id raises, the game unchanged
        except ValueError as e:
            why = _common.illegal(game, action, e)
            if self.strict:
                raise ValueError(f"seat {self.seat}: action {action} is not legal now: "
                                 f"{why}") from None
            info["illegal"] = why
            reward, terminated = -1.0, True
        else:
            self._others_play()
            if game.is_terminal:
                info["outcome"] = _common.Outcome(game.outcome)
                reward, terminated = game.returns()[self.seat - 1], True
            else:
                truncated = self.max_plies is not None and game.ply >= self.max_plies
        self._over = terminated or truncated
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, terminated, truncated, info

    def render(self) -> str | np.ndarray | None:
        """The board now: text ("ansi"), an (H, W, 3) uint8 frame ("rgb_array"), or that frame
        shown in a window ("human", returning None)."""
        return self._rendering(self.game)

    def close(self) -> None:
        self._rendering.close()
