"""Bots for Python experiments: the `Bot` base class and the reference bots.

A bot is any object with a `choose(view) -> str` method: `view` is an `anqi.Observation` (what
the bot's player knows: the public board, its colour, its hand, and `legal_actions()`), and the
answer is one of those actions, as its wire clause (`"(rev 3)"`, `"(mov 4 0)"`). Subclass `Bot`
for the optional hooks and a name:

    class Cautious(anqi.Bot):
        def choose(self, view):
            acts = view.legal_actions()
            quiet = [a for a in acts if not a.startswith("(rev")]
            return (quiet or acts)[0]

`anqi.play` gives each game a bot of its own: `spawn()` (a deep copy by default) makes one per
game slot, so a bot may keep state across the turns of a game; `game_over(result)` is called
when a game ends.
"""

from __future__ import annotations

import copy
import random
from typing import Any


class Bot:
    """Base class of Python bots (subclassing is optional: `choose` is all `anqi.play` needs).

    `name`: how tournaments, records and standings call the bot (default: the class name in
    lower case).
    """

    name: str | None = None

    def choose(self, view: Any) -> str:
        """The action to play, one of `view.legal_actions()`."""
        raise NotImplementedError(f"{type(self).__name__}.choose(view) must return an action")

    def game_over(self, result: dict[str, Any]) -> None:
        """Called when a game this bot played ends: `result` as `anqi.client.play_one` returns
        it (`me`, `win`, `errors`)."""

    def spawn(self) -> "Bot":
        """A bot for another game played at the same time (`anqi.play` with concurrency): a
        deep copy, so per-game state is never shared between threads."""
        return copy.deepcopy(self)

    def display_name(self) -> str:
        return self.name or type(self).__name__.lower()


class RandomBot(Bot):
    """Picks uniformly among the legal actions, from its own seeded generator (pure Python)."""

    name = "random"

    def __init__(self, seed: int | str | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def choose(self, view: Any) -> str:
        return self.rng.choice(view.legal_actions())

    def spawn(self) -> "RandomBot":
        # Copies would play identical sequences: give each its own stream, still seeded.
        self._spawned = getattr(self, "_spawned", 0) + 1
        seed = None if self.seed is None else f"{self.seed}/{self._spawned}"
        return type(self)(seed)


class _Reference(Bot):
    """A reference bot of the Rust client library (anqi-bot's strategies), run in process."""

    strategy = ""

    def __init__(self, seed: int = 0) -> None:
        from ._anqi import ReferenceBot

        self.seed = seed
        self._bot = ReferenceBot(self.strategy, seed)

    def choose(self, view: Any) -> str:
        return self._bot.choose(view)

    def spawn(self) -> "_Reference":
        self._spawned = getattr(self, "_spawned", 0) + 1
        return type(self)(self.seed + self._spawned)

    def __deepcopy__(self, memo: dict) -> "_Reference":
        return type(self)(self.seed)


class GreedyBot(_Reference):
    """anqi-bot's greedy strategy: the best immediate capture, otherwise safe moves and
    reveals (crates/anqi-client/src/bots/greedy.rs)."""

    name = "greedy"
    strategy = "greedy"


class SearchBot(_Reference):
    """anqi-bot's search strategy: a shallow expectimax over reveals
    (crates/anqi-client/src/bots/search.rs)."""

    name = "search"
    strategy = "search"
