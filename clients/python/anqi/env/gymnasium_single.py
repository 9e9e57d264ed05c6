"""anqi as a Gymnasium environment: the agent plays one seat, bots the others (PACKAGE.md,
Environments)."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from .._anqi import Game, ReferenceBot
from . import _common

STRATEGIES = ("random", "greedy", "search")


class AnqiGym(gymnasium.Env):
    """One seat of an anqi variant for a single agent; every other seat (teammates included)
    is played by the opponent, in process, between the agent's turns.

    Observations are dicts as in the PettingZoo environment (`observation`: the tensor from
    the agent's seat, planes `anqi.env.TENSOR_PLANES`, layout version
    `metadata["tensor_version"]`; `action_mask`: its legal action ids, `int8`), actions the variant's
    action ids. The reward is +1, -1 or 0 at the end (the agent's side won, lost, or nobody
    won; one-side games: +1 when the goal was reached), 0 before. An illegal action ends the
    episode as a loss (reward -1, `info["illegal"]`). `info["outcome"]` is the game's result at
    the end.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1, **_common.METADATA}

    def __init__(self, variant: Any = "traditional", opponent: Any = "random",
                 seat: int | None = None, render_mode: str | None = None,
                 max_plies: int | None = None, depth: int | None = None) -> None:
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode {render_mode!r}: anqi renders \"ansi\" (text) only")
        self._variant = _common.load(variant)
        players = self._variant.players
        if seat is not None and not 1 <= seat <= players:
            raise ValueError(f"seat {seat}: the variant's seats are 1..{players}")
        if isinstance(opponent, str) and opponent not in STRATEGIES:
            raise ValueError(f"opponent {opponent!r}: one of {', '.join(STRATEGIES)}, or a callable")
        self._opponent = opponent
        self._depth = depth
        self._fixed_seat = seat
        self.render_mode = render_mode
        self.max_plies = max_plies
        self.observation_space, self.action_space = _common.spaces(self._variant)
        self.game: Game | None = None
        self.seat = seat or 1
        self._bots: dict[int, Any] = {}

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
        return _common.observe(self.game, self.seat, not self.game.is_terminal)

    def reset(self, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        rng = self.np_random
        players = self._variant.players
        self.seat = self._fixed_seat or int(rng.integers(1, players + 1))
        self.game = Game(self._variant, seed=str(int(rng.integers(2**63))))
        self._bots = {p: self._bot(int(rng.integers(2**63))) for p in range(1, players + 1)
                      if p != self.seat}
        self._others_play()
        return self._observation(), {"seat": self.seat}

    def step(self, action: int):
        game = self.game
        if game is None or game.is_terminal:
            raise RuntimeError("step() after the end of the episode: call reset()")
        info: dict[str, Any] = {"seat": self.seat}
        try:
            game.apply(int(action))
        except ValueError as e:
            info.update(illegal=str(e))
            return self._observation(), -1.0, True, False, info
        self._others_play()
        if game.is_terminal:
            info["outcome"] = game.outcome
            reward = game.returns()[self.seat - 1]
            return self._observation(), reward, True, False, info
        truncated = self.max_plies is not None and game.ply >= self.max_plies
        return self._observation(), 0.0, False, truncated, info

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() without a render_mode: anqi renders \"ansi\"")
            return None
        return _common.ansi(self.game)
