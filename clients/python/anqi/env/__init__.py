"""anqi as a standard environment for reinforcement learning (PACKAGE.md, Environments).

    >>> env = anqi.env.pettingzoo_env(variant="traditional")       # every seat an agent (AEC)
    >>> env = anqi.env.gymnasium_env(variant="traditional", opponent="greedy")  # one seat
    >>> envs = anqi.env.vector_env(64, variant="traditional")      # one seat, 64 games
    >>> env = gymnasium.make("anqi/Anqi-v0", variant="traditional")  # the same, registered

All need the `rl` extra (`pip install './clients/python[rl]'`: numpy, pettingzoo, gymnasium);
`import anqi` does not. Observations are `Game.observation_tensor` with the legal-action mask
beside it, actions are the variant's action ids (PACKAGE.md, Action ids and Tensors).

Players: `seat` (Gymnasium) and `anqi.Game` use the protocol's player ids, counted from 1;
indices count from 0, PettingZoo's agent names among them: agent `player_k` is player k + 1.

Importing this module registers "anqi/Anqi-v0" with Gymnasium when Gymnasium is installed
(`registration.py`; so `import anqi` imports Gymnasium then).

The tensor's layout is defined once, in the native module (clients/python/rust/src/tensor.rs),
and read here without numpy: `TENSOR_PLANES`, the planes' names in order (`PLANES` of them);
`TENSOR_COLOUR_SWAP`, the plane each becomes when red and black are exchanged; and
`TENSOR_VERSION`, which changes whenever the layout does (the environments' `metadata` carry it
as `"tensor_version"`).
"""

from __future__ import annotations

from typing import Any, Callable

from .._anqi import TENSOR_COLOUR_SWAP, TENSOR_PLANES, TENSOR_VERSION

#: The number of planes of an observation tensor.
PLANES = len(TENSOR_PLANES)

__all__ = ["PLANES", "TENSOR_COLOUR_SWAP", "TENSOR_PLANES", "TENSOR_VERSION", "gymnasium_env",
           "pettingzoo_env", "vector_env"]


def pettingzoo_env(variant: str = "traditional", render_mode: str | None = None,
                   max_plies: int | None = None, strict: bool = False,
                   observation_shape: str = "flat", relative: bool = False) -> Any:
    """A PettingZoo AEC environment of `variant` (a shipped name, a description file or an
    `anqi.Variant`): one agent per seat, `player_0` ... `player_{N-1}`, agent `player_k`
    being protocol player k + 1. Chance (what a reveal turns up, what a draw gives) is
    sampled inside `step` from the generator `reset(seed=...)` seeds.

    `render_mode`: None, "ansi" (text), "rgb_array" (an (H, W, 3) uint8 picture of the board)
    or "human" (that picture in a matplotlib window). `max_plies`: truncate every agent after
    that many plies (None: the variant's own rules end every game). `strict`: an illegal
    action raises ValueError instead of ending the game as the offender's loss.
    `observation_shape`: "flat" (PLANES, cells) or "grid" (PLANES, rows, columns; rectangles
    only). `relative`: the observer's colour's planes first (PACKAGE.md, Environments)."""
    from .pettingzoo_aec import AnqiAEC

    return AnqiAEC(variant, render_mode=render_mode, max_plies=max_plies, strict=strict,
                   observation_shape=observation_shape, relative=relative)


def gymnasium_env(variant: str = "traditional", opponent: str | Callable[..., str] | Any = "random",
                  seat: int | None = None, render_mode: str | None = None,
                  max_plies: int | None = None, depth: int | None = None, strict: bool = False,
                  observation_shape: str = "flat", relative: bool = False) -> Any:
    """A Gymnasium environment of `variant` where the agent plays one seat and every other seat
    is played by `opponent`: `"random"`, `"greedy"` or `"search"` (the reference bots, in
    process; `depth` for search), or a callable (or an object with `choose`) given an
    `anqi.Observation` and answering a wire clause. `seat`: the agent's player id, counted
    from 1 (None: a seat drawn at each reset). `strict`: an illegal action raises ValueError
    instead of ending the episode at -1. The other options as for `pettingzoo_env`.
    `gymnasium.make("anqi/Anqi-v0", ...)` makes the same environment."""
    from .gymnasium_single import AnqiGym

    return AnqiGym(variant, opponent=opponent, seat=seat, render_mode=render_mode,
                   max_plies=max_plies, depth=depth, strict=strict,
                   observation_shape=observation_shape, relative=relative)


def vector_env(num_envs: int, variant: str = "traditional", opponent: str | Callable = "random",
               seat: int | None = None, render_mode: str | None = None,
               max_plies: int | None = None, strict: bool = False,
               observation_shape: str = "flat", relative: bool = False) -> Any:
    """`num_envs` games of the Gymnasium environment at once, a `gymnasium.vector.VectorEnv`
    stepped natively (`anqi.VecGame`), with same-step autoreset. `opponent`: "random" (drawn
    natively) or a batch policy `(obs, masks) -> actions`. The other options as for
    `gymnasium_env`. `gymnasium.make_vec("anqi/Anqi-v0", num_envs, ...)` makes the same."""
    from .vector import AnqiVectorEnv

    return AnqiVectorEnv(num_envs, variant=variant, opponent=opponent, seat=seat,
                         render_mode=render_mode, max_plies=max_plies, strict=strict,
                         observation_shape=observation_shape, relative=relative)


# Registration needs Gymnasium, which `import anqi` must not: without it nothing is registered
# (and the environments above say what to install when asked for).
try:
    import gymnasium as _gymnasium  # noqa: F401
except ImportError:
    pass
else:
    from . import registration

    registration.register()
