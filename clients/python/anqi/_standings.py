"""Standings of game records, as `anqi report` computes them, by the same code (PACKAGE.md,
Standings).

    s = anqi.standings(records)
    print(s)              # anqi report's text
    s.engines[0]          # {"name", "games", "points", "wins", "draws", "losses", "score",
                          #  "score_low", "score_high", "elo", "elo_low", "elo_high",
                          #  "terminations"}
    s.report              # what `anqi report --json` prints for the same records
    s.seats               # per engine and seat: games, wins, win rate and its Wilson interval

The statistics are the Rust crate anqi-tournament's (`crates/anqi-tournament/src/stats/`), in
the native module (`anqi._anqi.standings_json`): nothing is computed here. Records of no
tournament (`Game.record`, a server's) count as games of one: the players' names are the
engines, each game a deal of its own.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from ._anqi import standings_json
from .records import Record

__all__ = ["Standings", "standings"]

#: The sections of `anqi report --json`, in its order.
REPORT_KEYS = ("variant", "games", "engines", "crosstable", "pentanomial", "pairs", "teams",
               "sprt", "one_side")


@dataclass
class Standings:
    """The standings of some records, as `anqi report --json` gives them, key by key:

    - `variant`, `games`: the variant of the first competitive game, and the games counted;
    - `engines`: a row per engine of the competitive games, most points first;
    - `crosstable`: `crosstable[a][b]`, a's `points` and `games` against b;
    - `pairs`: every two engines that met, with Elo, nElo, LOS, draw ratio and pentanomial
      counts; `pentanomial`: the pairs' counts over paired deals;
    - `teams`: a row per team of engines, in team games;
    - `sprt`: None (`anqi report --sprt` runs one);
    - `one_side`: per one-side variant (single-player, cooperative), its success rate and a
      row per engine (and per team) with its Wilson interval.

    Beside them, `seats`: a row per engine and seat of the competitive games, with the win rate
    and its Wilson interval; and `text`, the report's text (`str(s)`)."""

    variant: str
    games: int
    engines: list[dict[str, Any]] = field(default_factory=list)
    crosstable: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    pentanomial: list[dict[str, Any]] = field(default_factory=list)
    pairs: list[dict[str, Any]] = field(default_factory=list)
    teams: list[dict[str, Any]] = field(default_factory=list)
    sprt: dict[str, Any] | None = None
    one_side: list[dict[str, Any]] = field(default_factory=list)
    seats: list[dict[str, Any]] = field(default_factory=list)
    text: str = field(default="", repr=False)

    @property
    def report(self) -> dict[str, Any]:
        """What `anqi report --json` prints for the same records (without a seed to check the
        deals against)."""
        return {k: getattr(self, k) for k in REPORT_KEYS}

    def rows(self, kind: str = "engines") -> list[dict[str, Any]]:
        """The rows of a section: `engines`, `seats`, `pairs`, `teams`, or `one_side` (a row
        per engine of each one-side variant, with its `variant`)."""
        if kind == "one_side":
            return [{"variant": g["variant"], **e} for g in self.one_side for e in g["engines"]]
        if kind not in ("engines", "seats", "pairs", "teams"):
            raise ValueError(
                f'kind must be "engines", "seats", "pairs", "teams" or "one_side", not {kind!r}')
        return list(getattr(self, kind))

    def to_pandas(self, kind: str = "engines"):
        """A pandas DataFrame of `rows(kind)` (pandas must be installed)."""
        rows = self.rows(kind)
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("to_pandas needs pandas: pip install pandas") from None
        return pd.DataFrame(rows)

    def __str__(self) -> str:
        return self.text.rstrip("\n")


def standings(records: Record | Iterable[Record], order: Sequence[str] = ()) -> Standings:
    """The standings of `records` (one `Record` or many; see the module documentation).
    `order`: engine names to break ties in, as a tournament's file lists them (the others come
    after, as the records show them)."""
    if isinstance(records, Record):
        records = [records]
    out = json.loads(standings_json([json.dumps(r.raw) for r in records], list(order)))
    return Standings(**out["standings"], seats=out["seats"], text=out["text"])
