"""What both environments share: the spaces, the observations and the text a board renders
as. (Rewards are `Game.returns()`.)"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._anqi import Game, Variant
from . import PLANES, TENSOR_VERSION

#: What both environments' `metadata` add to their own: the layout's version, which changes
#: whenever the observation's planes do.
METADATA = {"tensor_version": TENSOR_VERSION}


def load(variant: Any) -> Variant:
    """An `anqi.Variant` from a shipped name, a description file or a Variant."""
    return variant if isinstance(variant, Variant) else Variant(variant)


def spaces(v: Variant):
    """The observation space (a dict of the tensor and the legal-action mask, as PettingZoo's
    classic games have it) and the action space (the action ids)."""
    from gymnasium import spaces as s

    observation = s.Dict({
        "observation": s.Box(low=0.0, high=1.0, shape=(PLANES, v.size), dtype=np.float32),
        "action_mask": s.Box(low=0, high=1, shape=(v.num_distinct_actions,), dtype=np.int8),
    })
    return observation, s.Discrete(v.num_distinct_actions)


def observe(game: Game, player: int, to_act: bool) -> dict[str, np.ndarray]:
    """`player`'s observation: the tensor, and the mask of its legal actions when it is the one
    to act (all zeros otherwise)."""
    mask = game.legal_action_mask().astype(np.int8) if to_act else np.zeros(
        game.num_distinct_actions, dtype=np.int8)
    return {"observation": game.observation_tensor(player), "action_mask": mask}


def ansi(game: Game) -> str:
    """The board as text, a row per line on a rectangle, with who is to move."""
    board = game.board
    rect = game.variant_info.rectangle
    rows = [board[r * rect[1]:(r + 1) * rect[1]] for r in range(rect[0])] if rect else [board]
    state = (f"over: {game.outcome['win']} by {game.outcome['reason']}" if game.is_terminal
             else f"player {game.to_move} to move")
    return f"{game.variant} ply {game.ply}, {state}\n" + "\n".join(rows) + "\n"
