"""anqi as a PettingZoo AEC environment: one agent per seat (PACKAGE.md, Environments)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from pettingzoo import AECEnv

from .._anqi import Game
from . import _common


class AnqiAEC(AECEnv):
    """Every seat of an anqi variant an agent, `player_1` ... `player_N`, acting in the
    variant's turn order.

    The game is played in chance mode: a reveal or a draw stops at a chance node, which `step`
    resolves at once with the environment's own generator (seeded by `reset(seed=...)`), so the
    same seed and actions give the same game. Each agent observes a dict: `observation`, the
    tensor of `Game.observation_tensor` from its seat (planes `anqi.env.TENSOR_PLANES`, layout
    version `metadata["tensor_version"]`), and `action_mask`, its legal action ids (`int8`; all
    zero when it is not the one to act). Rewards come at the end: +1 to the winning side's
    agents, -1 to the others, 0 in a draw (one-side games: +1 when the goal was reached).
    """

    metadata = {"render_modes": ["ansi"], "name": "anqi_v0", "is_parallelizable": False,
                "render_fps": 1, **_common.METADATA}

    def __init__(self, variant: Any = "traditional", render_mode: str | None = None,
                 max_plies: int | None = None) -> None:
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode {render_mode!r}: anqi renders \"ansi\" (text) only")
        self._variant = _common.load(variant)
        self.render_mode = render_mode
        self.max_plies = max_plies
        self.possible_agents = [f"player_{p}" for p in range(1, self._variant.players + 1)]
        observation, action = _common.spaces(self._variant)
        self.observation_spaces = {a: observation for a in self.possible_agents}
        self.action_spaces = {a: action for a in self.possible_agents}
        self._rng = random.Random()
        self.game: Game | None = None

    def observation_space(self, agent: str):
        return self.observation_spaces[agent]

    def action_space(self, agent: str):
        return self.action_spaces[agent]

    def _player(self, agent: str) -> int:
        return self.possible_agents.index(agent) + 1

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
        self.game = Game(self._variant, seed=str(self._rng.getrandbits(64)), chance=True)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.game.to_move - 1]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        p = self._player(agent)
        to_act = (agent == self.agent_selection and not self.game.is_terminal
                  and not self.truncations[agent])
        return _common.observe(self.game, p, to_act)

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        game = self.game
        try:
            game.apply(int(action))
        except ValueError as e:
            raise ValueError(f"{agent}: action {action}: {e}") from None
        if game.is_chance_node:
            game.sample_chance(self._rng)
        self.rewards = {a: 0.0 for a in self.agents}
        if game.is_terminal:
            for a, r in zip(self.possible_agents, game.returns()):
                self.rewards[a] = r
                self.terminations[a] = True
        elif self.max_plies is not None and game.ply >= self.max_plies:
            self.truncations = {a: True for a in self.agents}
        if not game.is_terminal:
            self.agent_selection = self.possible_agents[game.to_move - 1]
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() without a render_mode: anqi renders \"ansi\"")
            return None
        return _common.ansi(self.game)

    def close(self) -> None:
        pass
