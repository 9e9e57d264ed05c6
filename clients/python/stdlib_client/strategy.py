"""Strategies: how a bot picks one of its legal actions.

A strategy is a function ``(choices, state, rng) -> Action``: ``choices`` are the legal
actions still open (the server's refusals left out, never empty), ``state`` is the
:class:`~stdlib_client.rules.PublicState` they were worked out from, and ``rng`` is the
bot's seeded generator, so a run replays exactly from its ``--seed``.
"""

from __future__ import annotations

import random
from typing import Callable

from .rules import Action, PublicState

Strategy = Callable[[list[Action], PublicState, random.Random], Action]


def random_strategy(choices: list[Action], state: PublicState, rng: random.Random) -> Action:
    """Any legal action, uniformly: one draw of ``rng.choice``, as the bot has always made."""
    del state  # A random player looks at nothing.
    return rng.choice(choices)
