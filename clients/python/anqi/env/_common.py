"""What the environments share: the options every one of them takes, the spaces, the
observations, the check of an action, and the text a board renders as. (Rewards are
`Game.returns()`.)"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .._anqi import Game, Variant
from . import PLANES, TENSOR_VERSION

#: What every environment's `metadata` adds to its own: the layout's version, which changes
#: whenever the observation's planes do.
METADATA = {"tensor_version": TENSOR_VERSION}

#: The render modes of the single-game environments (PettingZoo's and Gymnasium's).
RENDER_MODES = ("ansi", "rgb_array", "human")

#: The frames a second a "human" window shows at most (and what RecordVideo writes).
RENDER_FPS = 4

OBSERVATION_SHAPES = ("flat", "grid")

def load(variant: Any) -> Variant:
    """An `anqi.Variant` from a shipped name, a description file or a Variant."""
    return variant if isinstance(variant, Variant) else Variant(variant)


def check_render_mode(render_mode: str | None, modes: tuple[str, ...] = RENDER_MODES) -> None:
    """Refuses a render mode the environment does not have; for "human", a missing
    matplotlib is said now rather than at the first frame."""
    if render_mode is not None and render_mode not in modes:
        raise ValueError(f"render_mode {render_mode!r}: one of {', '.join(map(repr, modes))} "
                         "or None")
    if render_mode == "human":
        from .render import require_matplotlib

        require_matplotlib()


class Observer:
    """How an environment shapes the tensors it hands out: `observation_shape` "flat" (the
    tensor as `Game.observation_tensor` gives it, `(PLANES, size)`) or "grid" (`(PLANES, rows,
    columns)`, on a rectangle only), and `relative` (the observer's colour's planes first).

    `relative=True` is the native tensor's own option (`Game.observation_tensor(player,
    relative=True)`, `VecGame(..., relative=True)`; PACKAGE.md, Tensors): where the observer
    moves black and not red, the planes are exchanged as `TENSOR_COLOUR_SWAP` says, so that
    the upper-case planes and `red` are the observer's colour's; elsewhere (it moves red, both
    colours, or none yet) the tensor is unchanged. The environments ask for it where they make
    their tensors; this class only shapes them."""

    def __init__(self, variant: Variant, observation_shape: str = "flat",
                 relative: bool = False) -> None:
        if observation_shape not in OBSERVATION_SHAPES:
            raise ValueError(f"observation_shape {observation_shape!r}: \"flat\" (PLANES, "
                             "cells) or \"grid\" (PLANES, rows, columns, on a rectangle)")
        if not isinstance(relative, bool):
            raise TypeError(f"relative {relative!r}: True or False")
        self.grid = variant.rectangle if observation_shape == "grid" else None
        if observation_shape == "grid" and self.grid is None:
            raise ValueError(f"observation_shape=\"grid\": {variant.name}'s board is not a "
                             "rectangle, so its cells have no rows and columns; use "
                             "observation_shape=\"flat\" (PLANES, cells)")
        self.relative = relative
        self.shape = (PLANES, *self.grid) if self.grid else (PLANES, variant.size)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """`x`: tensors of shape `(..., PLANES, size)` (one, or a batch), as `Game` and
        `VecGame` give them; returns them shaped as the observation space says (a new array
        where anything changed; `x` itself is never written)."""
        if self.grid:
            # Cells are numbered row by row on a rectangle (PACKAGE.md, Variants): cell
            # r * columns + c is at [..., r, c], as Game.observation_tensor(grid=True) has it.
            x = x.reshape(*x.shape[:-1], *self.grid)
        return x


def spaces(v: Variant, observer: Observer):
    """The observation space (a dict of the tensor and the legal-action mask, as PettingZoo's
    classic games have it) and the action space (the action ids)."""
    from gymnasium import spaces as s

    observation = s.Dict({
        "observation": s.Box(low=0.0, high=1.0, shape=observer.shape, dtype=np.float32),
        "action_mask": s.Box(low=0, high=1, shape=(v.num_distinct_actions,), dtype=np.int8),
    })
    return observation, s.Discrete(v.num_distinct_actions)


def observe(game: Game, player: int, to_act: bool, observer: Observer) -> dict[str, np.ndarray]:
    """`player`'s observation: the tensor, and the mask of its legal actions when it is the one
    to act (all zeros otherwise)."""
    mask = game.legal_action_mask().astype(np.int8) if to_act else np.zeros(
        game.num_distinct_actions, dtype=np.int8)
    tensor = game.observation_tensor(player, relative=observer.relative)
    return {"observation": observer(tensor), "action_mask": mask}


#: What an action is, for the errors that refuse something else.
ACTION_IS = ("an action is an action id: an int in range({n}) (a Python int, a numpy integer "
             "or a 0-d integer array), such as one of np.flatnonzero(obs[\"action_mask\"])")


def action_id(action: Any, n: int, who: str = "") -> int:
    """`action` as an action id, or an error that says what an action is.

    Python ints, numpy integer scalars and 0-d integer arrays are ids; anything else (a float
    such as 3.7, even 3.0, which would be a silent truncation; a bool, a string, None, an
    array with elements) raises TypeError. An integer outside `range(n)` is no action of the
    variant at all and raises ValueError, whatever the environment's `strict`: that is a
    mistake in the caller's action space, not a move the rules refuse."""
    if isinstance(action, np.ndarray) and action.ndim == 0:
        action = action[()]
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        kind = (f"an array of shape {action.shape}" if isinstance(action, np.ndarray)
                else type(action).__name__)
        raise TypeError(f"{who}action {action!r} ({kind}): {ACTION_IS.format(n=n)}")
    if not 0 <= action < n:
        raise ValueError(f"{who}action {int(action)} is not an action id: this variant's ids "
                         f"are 0..{n - 1} (the action space is Discrete({n}))")
    return int(action)


def illegal(game: Game, action: int, error: ValueError) -> str:
    """What `info["illegal"]` and the strict error say of an action id the rules refused
    (`error`, from `Game.apply`): the action's wire clause and the rules' reason."""
    return f"{game.action_text(action)}: {error}"


def why_illegal(game: Game, action: int) -> str:
    """The same for an action id that is not legal in `game` now, found by trying it on a
    copy (`game` is not changed)."""
    try:
        game.clone().apply(action)
    except ValueError as e:
        return illegal(game, action, e)
    raise AssertionError(f"action {action} is legal")  # the callers checked the mask


class Outcome(Mapping):
    """`Game.outcome` in an info dict (`info["outcome"]`): the same keys and values, read the
    same way (`outcome["winner_side"]`, `dict(outcome)`, `outcome == game.outcome`), but not a
    dict. Gymnasium's vector environments split a dict in an info into an array per key, typed
    by the first game's value, and fail on a later game's None (a draw's `winner_side` after a
    win's 0); anything else they keep whole, in an array of objects."""

    __slots__ = ("_fields",)

    def __init__(self, fields: dict) -> None:
        self._fields = dict(fields)

    def __getitem__(self, key: str) -> Any:
        return self._fields[key]

    def __iter__(self):
        return iter(self._fields)

    def __len__(self) -> int:
        return len(self._fields)

    def __repr__(self) -> str:
        return f"Outcome({self._fields!r})"

    def __reduce__(self):  # pickled as its dict (AsyncVectorEnv sends infos between processes)
        return (Outcome, (self._fields,))


def ansi(game: Game) -> str:
    """The board as text, a row per line on a rectangle, with who is to move."""
    board = game.board
    rect = game.variant_info.rectangle
    rows = [board[r * rect[1]:(r + 1) * rect[1]] for r in range(rect[0])] if rect else [board]
    state = (f"over: {game.outcome['win']} by {game.outcome['reason']}" if game.is_terminal
             else f"player {game.to_move} to move")
    return f"{game.variant} ply {game.ply}, {state}\n" + "\n".join(rows) + "\n"
