"""anqi as a PettingZoo AEC environment: one agent per seat (PACKAGE.md, Environments)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from pettingzoo import AECEnv

from .._anqi import Game
from . import _common
from .render import Rendering


class AnqiAEC(AECEnv):
    """Every seat of an anqi variant an agent, acting in the variant's turn order. Agents are
    named as indices, from 0, as PettingZoo's classic games name them: `player_0` ...
    `player_{N-1}`, agent `player_k` being the protocol's (and `anqi.Game`'s) player k + 1.

    The game is played in chance mode: a reveal or a draw stops at a chance node, which `step`
    resolves at once with the environment's own generator (seeded by `reset(seed=...)`), so the
    same seed and actions give the same game. Each agent observes a dict: `observation`, the
    tensor of `Game.observation_tensor` from its seat (planes `anqi.env.TENSOR_PLANES`, layout
    version `metadata["tensor_version"]`; shaped by `observation_shape` and `relative`), and
    `action_mask`, its legal action ids (`int8`; all zero when it is not the one to act).
    Rewards come at the end: +1 to the winning side's agents, -1 to the others, 0 in a draw
    (one-side games: +1 when the goal was reached).

    An action is an action id (a Python int, a numpy integer or a 0-d integer array); anything
    else raises TypeError, an id outside the action space ValueError. An id the rules do not
    allow now ends the game for every agent, as in PettingZoo's classic games: the offender
    gets -1, the others 0, and `infos[offender]["illegal"]` says what was wrong; with
    `strict=True` it raises ValueError instead, naming the agent, the action and the rules'
    reason, and the game is unchanged.
    """

    metadata = {"render_modes": list(_common.RENDER_MODES), "name": "anqi_v0",
                "is_parallelizable": False, "render_fps": _common.RENDER_FPS,
                **_common.METADATA}

    def __init__(self, variant: Any = "traditional", render_mode: str | None = None,
                 max_plies: int | None = None, strict: bool = False,
                 observation_shape: str = "flat", relative: bool = False) -> None:
        super().__init__()
        _common.check_render_mode(render_mode)
        self._variant = _common.load(variant)
        self._observer = _common.Observer(self._variant, observation_shape, relative)
        self.render_mode = render_mode
        self.max_plies = max_plies
        self.strict = strict
        self.possible_agents = [f"player_{k}" for k in range(self._variant.players)]
        observation, action = _common.spaces(self._variant, self._observer)
        self.observation_spaces = {a: observation for a in self.possible_agents}
        self.action_spaces = {a: action for a in self.possible_agents}
        self._rng = random.Random()
        self._rendering = Rendering(self._variant, render_mode, self.metadata["render_fps"])
        self.game: Game | None = None

    def observation_space(self, agent: str):
        return self.observation_spaces[agent]

    def action_space(self, agent: str):
        return self.action_spaces[agent]

    def player(self, agent: str) -> int:
        """The protocol's player id (from 1) of an agent: `player_k` is player k + 1."""
        return self.possible_agents.index(agent) + 1

    def agent(self, player: int) -> str:
        """The agent of a protocol player id (from 1): player p is `player_{p-1}`."""
        return self.possible_agents[player - 1]

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
        self.agent_selection = self.agent(self.game.to_move)
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        to_act = (agent == self.agent_selection and not self.game.is_terminal
                  and not self.terminations.get(agent, True)
                  and not self.truncations.get(agent, True))
        return _common.observe(self.game, self.player(agent), to_act, self._observer)

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        action = _common.action_id(action, game.num_distinct_actions, f"{agent}: ")
        illegal = None
        try:
            game.apply(action)  # an illegal id raises, the game unchanged
        except ValueError as e:
            illegal = _common.illegal(game, action, e)
            if self.strict:
                raise ValueError(f"{agent} (player {self.player(agent)}): action {action} "
                                 f"is not legal now: {illegal}") from None
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        if illegal is not None:
            # PettingZoo's classic games (their TerminateIllegalWrapper): the game ends for
            # every agent, the offender loses. A termination, not a truncation: the rules of
            # the environment ended it. The offender stays selected, to see its -1 first.
            self.rewards[agent] = -1.0
            self.terminations = {a: True for a in self.agents}
            self.infos[agent]["illegal"] = illegal
        else:
            if game.is_chance_node:
                game.sample_chance(self._rng)
            if game.is_terminal:
                for a, r in zip(self.possible_agents, game.returns()):
                    self.rewards[a] = r
                    self.terminations[a] = True
            elif self.max_plies is not None and game.ply >= self.max_plies:
                self.truncations = {a: True for a in self.agents}
            if not game.is_terminal:
                self.agent_selection = self.agent(game.to_move)
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | np.ndarray | None:
        """The board now: text ("ansi"), an (H, W, 3) uint8 frame ("rgb_array"), or that frame
        shown in a window ("human", returning None)."""
        return self._rendering(self.game)

    def close(self) -> None:
        self._rendering.close()
