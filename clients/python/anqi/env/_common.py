"""What both environments share: the spaces, the rewards and the text a board renders as."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._anqi import Game, Variant

PLANES = 50


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


def rewards(game: Game) -> dict[int, float]:
    """Each player's reward at the end: +1 for the winning side's players, -1 for the others,
    0 for all in a draw; in a single-player or cooperative game (one side), +1 when the goal
    was reached, 0 when it was not."""
    outcome = game.outcome
    v = game.variant_info
    out = {}
    for p in range(1, game.players + 1):
        side = next(i for i, players in enumerate(v.sides) if p in players)
        if outcome["winner_side"] is None:
            out[p] = 0.0
        elif outcome["winner_side"] == side:
            out[p] = 1.0
        else:
            out[p] = -1.0
    return out


def ansi(game: Game) -> str:
    """The board as text, a row per line on a rectangle, with who is to move."""
    board = game.board
    rect = game.variant_info.rectangle
    rows = [board[r * rect[1]:(r + 1) * rect[1]] for r in range(rect[0])] if rect else [board]
    state = (f"over: {game.outcome['win']} by {game.outcome['reason']}" if game.is_terminal
             else f"player {game.to_move} to move")
    return f"{game.variant} ply {game.ply}, {state}\n" + "\n".join(rows) + "\n"
