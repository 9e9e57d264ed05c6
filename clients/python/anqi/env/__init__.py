"""anqi as a standard environment for reinforcement learning (PACKAGE.md, Environments).

    >>> env = anqi.env.pettingzoo_env(variant="traditional")       # every seat an agent (AEC)
    >>> env = anqi.env.gymnasium_env(variant="traditional", opponent="greedy")  # one seat

Both need the `rl` extra (`pip install './clients/python[rl]'`: numpy, pettingzoo, gymnasium);
`import anqi` does not. Observations are `Game.observation_tensor` with the legal-action mask
beside it, actions are the variant's action ids (PACKAGE.md, Action ids and Tensors).

The tensor's layout is defined once, in the native module (clients/python/rust/src/tensor.rs),
and read here without numpy: `TENSOR_PLANES`, the planes' names in order (`PLANES` of them);
`TENSOR_COLOUR_SWAP`, the plane each becomes when red and black are exchanged; and
`TENSOR_VERSION`, which changes whenever the layout does (both environments' `metadata` carry it
as `"tensor_version"`).
"""

from __future__ import annotations

from typing import Any, Callable

from .._anqi import TENSOR_COLOUR_SWAP, TENSOR_PLANES, TENSOR_VERSION

#: The number of planes of an observation tensor.
PLANES = len(TENSOR_PLANES)

__all__ = ["PLANES", "TENSOR_COLOUR_SWAP", "TENSOR_PLANES", "TENSOR_VERSION", "gymnasium_env",
           "pettingzoo_env"]


def pettingzoo_env(variant: str = "traditional", render_mode: str | None = None,
                   max_plies: int | None = None) -> Any:
    """A PettingZoo AEC environment of `variant` (a shipped name, a description file or an
    `anqi.Variant`): one agent per seat, `player_1` ... `player_N`; chance (what a reveal turns
    up, what a draw gives) is sampled inside `step` from the generator `reset(seed=...)` seeds.
    `max_plies`: truncate every agent after that many plies (None: the variant's own rules end
    every game)."""
    from .pettingzoo_aec import AnqiAEC

    return AnqiAEC(variant, render_mode=render_mode, max_plies=max_plies)


def gymnasium_env(variant: str = "traditional", opponent: str | Callable[..., str] | Any = "random",
                  seat: int | None = None, render_mode: str | None = None,
                  max_plies: int | None = None, depth: int | None = None) -> Any:
    """A Gymnasium environment of `variant` where the agent plays one seat and every other seat
    is played by `opponent`: `"random"`, `"greedy"` or `"search"` (the reference bots, in
    process; `depth` for search), or a callable (or an object with `choose`) given an
    `anqi.Observation` and answering a wire clause. `seat`: the agent's player id (None: a seat
    drawn at each reset)."""
    from .gymnasium_single import AnqiGym

    return AnqiGym(variant, opponent=opponent, seat=seat, render_mode=render_mode,
                   max_plies=max_plies, depth=depth)
