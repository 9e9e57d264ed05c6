"""Analysis of game records: the mobility curves of the paper's Section III.

Jouandeau's Figures 1-4 plot, for one game, each player's number of possible actions (moves,
jumps, reveals; puts and free cells in the strategic game) against the ply. `mobility` computes
those curves for one game or averaged over many, grouped by side, by winner and loser, by colour
or by player:

    m = anqi.analysis.mobility(records, group="winner")
    m.mean["winner"]["moves"][40]        # mean legal moves of the winners' players at ply 40
    m.mean["drawn"]["moves"][40]         # ... of the players of games nobody won
    m.alive[40]                          # games still running at ply 40

**Survival.** Averaged over games, the value at ply t is a mean over the games that lasted past
t only: late plies describe long games, and a curve's end is a few games' (or one game's). Every
`Mobility` carries `alive` (how many games reached each ply) and `samples` (how many values each
point averages) so that plots and tables can show it; `anqi.plot.mobility` draws `alive` under
the curves.

**Whose counts.** A record always has the mover's counts at its ply. With every player's counts
(`[records] legal_counts = "all"`, which `anqi.play` sets), each ply gives a value for every
player, as the paper's figures show; otherwise each player is sampled only at its own plies
(every other ply in a two-player game): `Mobility.source` says which.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from .records import COUNT_KINDS, Record

#: Kinds `mobility` knows: the counts of records, their total, and "empty" (empty cells on the
#: board before the ply, re-derived through the rules: the free positions of Figures 1 and 4).
KINDS = COUNT_KINDS + ("total", "empty")
GROUPS = ("side", "winner", "colour", "player")


@dataclass
class Mobility:
    """Mean legal-action counts by ply (or turn), per group and kind."""

    #: "ply" (1 = the first ply) or "turn" (the paper's TURN, from 0).
    x: str
    group: str
    kinds: tuple[str, ...]
    #: The x values: 1..max ply, or 0..max turn.
    index: list[int]
    #: group label -> kind -> mean at each x (None where no game of the group had a value).
    mean: dict[str, dict[str, list[float | None]]]
    #: group label -> how many values each mean averages.
    samples: dict[str, list[int]]
    #: How many games reached each x.
    alive: list[int]
    #: Games used, and games left out (with group="winner" and drawn=False: games nobody won).
    games: int
    skipped: int = 0
    #: "every player's counts", "the mover's counts only", or "mixed" (some records each way).
    source: str = ""
    labels: list[str] = field(default_factory=list)

    def rows(self) -> list[dict[str, Any]]:
        """One dict per (x, group) with the mean of each kind, the samples and games alive."""
        out = []
        for i, xv in enumerate(self.index):
            for label in self.labels:
                row: dict[str, Any] = {self.x: xv, "group": label,
                                       "samples": self.samples[label][i], "alive": self.alive[i]}
                for k in self.kinds:
                    row[k] = self.mean[label][k][i]
                out.append(row)
        return out

    def to_pandas(self):
        """`rows()` as a pandas DataFrame (pandas must be installed)."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("to_pandas needs pandas: pip install pandas") from None
        return pd.DataFrame(self.rows())


def _label(r: Record, pid: int, group: str, drawn: bool) -> str | None:
    p = r.player(pid)
    if group == "side":
        return "all players" if r.one_sided else f"side {p.side}"
    if group == "player":
        return f"player {pid}"
    if group == "colour":
        return p.colour or "both colours"
    # winner
    ws = r.result.winner_side
    if r.one_sided:
        return "goal reached" if ws == 0 else "goal missed"
    if ws is None:
        return "drawn" if drawn else None
    return "winner" if p.side == ws else "loser"


def _order(labels: set[str]) -> list[str]:
    fixed = ["winner", "loser", "drawn", "goal reached", "goal missed", "red", "black", "both colours",
             "all players"]
    first = [x for x in fixed if x in labels]
    rest = sorted(labels - set(first), key=lambda s: (len(s), s))
    return first + rest


def mobility(
    records: Record | Iterable[Record],
    group: str = "side",
    kinds: Sequence[str] = ("moves", "jumps", "reveals"),
    x: str = "ply",
    max_x: int | None = None,
    drawn: bool = True,
) -> Mobility:
    """Mean counts per ply of `records` (one `Record` or many), grouped by `group`:

    - "side": each side (team) of the variant; one-sided games have one group;
    - "winner": the winning side's players ("winner") against the others ("loser"), and the
      players of games nobody won in a group of their own ("drawn"; with `drawn=False` those
      games are left out and counted in `skipped`); in one-sided games, games that reached the
      goal against those that did not;
    - "colour": red against black (the paper's colours), "both colours" in one-sided games;
    - "player": each seat.

    `kinds`: any of KINDS. `x`: "ply" or "turn" (values of one player in one turn are averaged
    first). `max_x`: cut the curves there.
    """
    if isinstance(records, Record):
        records = [records]
    records = list(records)
    if group not in GROUPS:
        raise ValueError(f"group must be one of {', '.join(GROUPS)}, not {group!r}")
    if x not in ("ply", "turn"):
        raise ValueError(f'x must be "ply" or "turn", not {x!r}')
    bad = [k for k in kinds if k not in KINDS]
    if bad:
        raise ValueError(f"unknown kinds {bad}: choose among {', '.join(KINDS)}")
    kinds = tuple(kinds)

    # sums[label][kind][x] and counts[label][x]; per game and x, one value per (label, player)
    sums: dict[str, dict[str, dict[int, float]]] = {}
    counts: dict[str, dict[int, int]] = {}
    alive: dict[int, int] = {}
    used = skipped = 0
    with_all = with_mover = 0
    for r in records:
        labels = {p.id: _label(r, p.id, group, drawn) for p in r.players}
        if all(v is None for v in labels.values()):
            skipped += 1
            continue
        used += 1
        boards = r.boards() if "empty" in kinds else None
        # per (label, pid, x): kind -> list of values (a turn may hold several plies)
        acc: dict[tuple[str, int, int], dict[str, list[float]]] = {}
        xs: set[int] = set()
        for i, p in enumerate(r.plies):
            xv = p.ply if x == "ply" else p.turn
            if max_x is not None and xv > max_x:
                break
            xs.add(xv)
            if p.legal_all is not None:
                with_all += 1
                per_player = list(enumerate(p.legal_all, start=1))
            else:
                with_mover += 1
                per_player = [(p.player, p.legal)]
            for pid, c in per_player:
                label = labels.get(pid)
                if label is None:
                    continue
                slot = acc.setdefault((label, pid, xv), {k: [] for k in kinds})
                for k in kinds:
                    if k == "empty":
                        slot[k].append(boards[i].count("."))
                    else:
                        slot[k].append(c.get(k))
        for xv in xs:
            alive[xv] = alive.get(xv, 0) + 1
        for (label, _pid, xv), vals in acc.items():
            s = sums.setdefault(label, {k: {} for k in kinds})
            for k in kinds:
                v = sum(vals[k]) / len(vals[k])
                s[k][xv] = s[k].get(xv, 0.0) + v
            c = counts.setdefault(label, {})
            c[xv] = c.get(xv, 0) + 1

    if alive:
        lo = 1 if x == "ply" else 0
        index = list(range(lo, max(alive) + 1))
    else:
        index = []
    labels = _order(set(sums))
    mean = {
        label: {
            k: [
                (sums[label][k][xv] / counts[label][xv]) if counts[label].get(xv) else None
                for xv in index
            ]
            for k in kinds
        }
        for label in labels
    }
    samples = {label: [counts[label].get(xv, 0) for xv in index] for label in labels}
    source = (
        "every player's counts" if with_all and not with_mover
        else "the mover's counts only" if with_mover and not with_all
        else "mixed" if with_all else ""
    )
    return Mobility(
        x=x, group=group, kinds=kinds, index=index, mean=mean, samples=samples,
        alive=[alive.get(xv, 0) for xv in index], games=used, skipped=skipped,
        source=source, labels=labels,
    )
