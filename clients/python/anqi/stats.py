"""Standings of game records with their confidence intervals, as `anqi report` computes them
(PACKAGE.md, Standings).

    s = anqi.standings(records)
    s.engines[0]          # {"name", "games", "points", "wins", "draws", "losses", "score",
                          #  "score_low", "score_high", "elo", "elo_low", "elo_high"}
    s.seats               # per engine and seat: games, wins, win rate and its Wilson interval

Engines are the records' `engines` (a tournament's names, else the players' names), so records
of `anqi.play`, of tournaments and of in-process games (`Game.record`) all work. A game counts
once per engine, from the side of its first seat; games nobody won count half a point. The
formulas are `anqi report`'s (`crates/anqi-tournament/src/stats/`): the score's 95% interval is the mean
± 1.96 standard errors of the per-game scores (0, 0.5, 1), within [0, 1]; Elo is
−400·log10(1/score − 1) of the score and of the interval's ends (None at 0 or 1); a win rate's
interval is Wilson's. `tests/test_experiments.py` checks the engines' rows against
`anqi report --json`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable

from .records import Record

__all__ = ["Standings", "standings", "elo_of", "wilson"]

#: The two-sided 95% quantile of the standard normal distribution, as `anqi report` uses it.
Z95 = 1.959963984540054


def elo_of(score: float) -> float | None:
    """The logistic Elo difference of a score in (0, 1); None at 0 or 1 (infinite)."""
    if not 0.0 < score < 1.0:
        return None
    return -400.0 * math.log10(1.0 / score - 1.0)


def wilson(successes: int, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval of `successes` out of `n`; (0, 1) without games."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(centre - half, 0.0), min(centre + half, 1.0)


def _score_interval(wins: int, draws: int, losses: int) -> tuple[float, float, float]:
    """The mean per-game score and its 95% interval (the trinomial model)."""
    n = wins + draws + losses
    if n == 0:
        return 0.5, 0.5, 0.5
    mean = (wins + 0.5 * draws) / n
    variance = (wins * (1 - mean) ** 2 + draws * (0.5 - mean) ** 2 + losses * mean**2) / n
    half = Z95 * math.sqrt(variance / n)
    return mean, max(mean - half, 0.0), min(mean + half, 1.0)


@dataclass
class Standings:
    """`engines`: a row per engine, most points first; `seats`: a row per engine and seat (player
    id), with the win rate and its Wilson interval; `one_side`: a row per engine of the
    single-player and cooperative games (a side plays for a goal, not against another), with
    its success rate and Wilson interval, as `anqi report` gives them; `games`: the records
    counted."""

    games: int
    engines: list[dict[str, Any]] = field(default_factory=list)
    seats: list[dict[str, Any]] = field(default_factory=list)
    one_side: list[dict[str, Any]] = field(default_factory=list)

    def to_pandas(self, kind: str = "engines"):
        """A pandas DataFrame of `engines` or `seats` (pandas must be installed)."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("to_pandas needs pandas: pip install pandas") from None
        if kind not in ("engines", "seats", "one_side"):
            raise ValueError(f'kind must be "engines", "seats" or "one_side", not {kind!r}')
        return pd.DataFrame(getattr(self, kind))

    def __str__(self) -> str:
        lines = [f"{'engine':24s} {'games':>5s} {'W':>4s} {'D':>4s} {'L':>4s} {'score':>6s}  Elo [95%]"]
        def shown(elo: float | None, score: float) -> str:
            # None is an infinite Elo: a score of 1 is +inf, of 0 -inf.
            if elo is None:
                return "+inf" if score >= 1 else "-inf"
            return f"{elo:+.0f}"

        for e in self.engines:
            elo = shown(e["elo"], e["score"])
            low = shown(e["elo_low"], e["score_low"])
            high = shown(e["elo_high"], e["score_high"])
            lines.append(f"{e['name']:24s} {e['games']:5d} {e['wins']:4d} {e['draws']:4d} "
                         f"{e['losses']:4d} {100 * e['score']:5.1f}%  {elo} [{low}, {high}]")
        return "\n".join(lines)


def standings(records: Record | Iterable[Record]) -> Standings:
    """The standings of `records` (one `Record` or many); see the module documentation."""
    if isinstance(records, Record):
        records = [records]
    tally: dict[str, list[int]] = {}  # name -> [wins, draws, losses]
    seats: dict[tuple[str, int], list[int]] = {}  # (name, seat) -> [games, wins]
    goals: dict[str, list[int]] = {}  # one-side games: name -> [games, successes]
    order: list[str] = []
    games = 0
    for r in records:
        games += 1
        engines = r.engines
        won = r.result.winner_side
        if r.one_sided:
            # A goal reached or missed, not a game won against someone: success rates.
            for name in dict.fromkeys(engines):
                g = goals.setdefault(name, [0, 0])
                g[0] += 1
                g[1] += int(won is not None)
            continue
        counted = set()
        for p in r.players:
            name = engines[p.id - 1]
            if name not in tally:
                tally[name] = [0, 0, 0]
                order.append(name)
            side = r.side_of(p.id)
            win = won is not None and won == side
            seat = seats.setdefault((name, p.id), [0, 0])
            seat[0] += 1
            seat[1] += int(win)
            if name in counted:
                continue
            counted.add(name)
            if won is None:
                tally[name][1] += 1
            elif win:
                tally[name][0] += 1
            else:
                tally[name][2] += 1
    rows = []
    for name in order:
        w, d, l = tally[name]
        score, low, high = _score_interval(w, d, l)
        rows.append({
            "name": name, "games": w + d + l, "points": w + 0.5 * d, "wins": w, "draws": d,
            "losses": l, "score": score, "score_low": low, "score_high": high,
            "elo": elo_of(score), "elo_low": elo_of(low), "elo_high": elo_of(high),
        })
    # Most points first, then fewer games (as anqi report); ties keep the order engines were
    # first seen in.
    rows.sort(key=lambda e: (-e["points"], e["games"]))
    seat_rows = []
    for (name, seat), (n, wins) in sorted(seats.items(), key=lambda kv: (order.index(kv[0][0]), kv[0][1])):
        low, high = wilson(wins, n)
        seat_rows.append({"name": name, "seat": seat, "games": n, "wins": wins,
                          "win_rate": wins / n, "win_low": low, "win_high": high})
    one_side = []
    for name, (n, successes) in goals.items():
        low, high = wilson(successes, n)
        one_side.append({"name": name, "games": n, "successes": successes,
                         "success_rate": successes / n, "success_low": low, "success_high": high})
    one_side.sort(key=lambda g: -g["success_rate"])
    return Standings(games=games, engines=rows, seats=seat_rows, one_side=one_side)
