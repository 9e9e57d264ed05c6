"""Figures of game records (matplotlib, when installed: `pip install matplotlib`).

    m = anqi.analysis.mobility(records, group="winner")
    anqi.plot.mobility(m, path="mobility.png")

`mobility` draws the paper's Figures 1-4 kind of curves (legal actions by ply, one colour per
group, one line style per kind) and, under them, how many games reached each ply: a mean at a
late ply is over the long games only (see `anqi.analysis`).
"""

from __future__ import annotations

import os
from typing import Any

from .analysis import Mobility

# The paper draws the red player in red and the black player in blue.
_COLOURS = {
    "red": "tab:red", "black": "tab:blue", "winner": "tab:green", "loser": "tab:gray",
    "drawn": "tab:orange",
    "goal reached": "tab:green", "goal missed": "tab:gray", "side 0": "tab:red",
    "side 1": "tab:blue", "all players": "tab:purple", "both colours": "tab:purple",
}
_STYLES = {"moves": "-", "jumps": ":", "reveals": "--", "total": "-", "bags": (0, (3, 1, 1, 1, 1, 1)),
           "puts": "-.", "empty": (0, (6, 2, 1, 2))}


def _pyplot():
    try:
        import matplotlib

        if not os.environ.get("DISPLAY") and not os.environ.get("MPLBACKEND"):
            matplotlib.use("Agg")  # headless: files only
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("anqi.plot needs matplotlib: pip install matplotlib") from None
    return plt


def mobility(m: Mobility, path: str | os.PathLike[str] | None = None,
             title: str | None = None, figsize: tuple[float, float] = (9, 6)) -> Any:
    """A figure of `m` (from `anqi.analysis.mobility`): mean counts by ply in the upper panel,
    games still running in the lower one (one panel for a single game). Saved to `path` when
    given. Returns the matplotlib Figure."""
    plt = _pyplot()
    if m.games > 1:
        fig, (top, bottom) = plt.subplots(
            2, 1, sharex=True, figsize=figsize, gridspec_kw={"height_ratios": [3, 1]}
        )
    else:  # one game: every point is that game's, there is no survival to show
        fig, top = plt.subplots(figsize=(figsize[0], figsize[1] * 0.75))
        bottom = None
    others = iter(["tab:blue", "tab:red", "tab:green", "tab:orange", "tab:brown", "tab:pink",
                   "tab:olive", "tab:cyan"])
    for label in m.labels:
        colour = _COLOURS.get(label) or next(others, None)
        for k in m.kinds:
            ys = m.mean[label][k]
            pts = [(xv, y) for xv, y in zip(m.index, ys) if y is not None]
            if not pts:
                continue
            xs, vs = zip(*pts)
            top.plot(xs, vs, linestyle=_STYLES.get(k, "-"), color=colour, linewidth=1.3,
                     label=f"{label}: {k}")
    top.set_ylabel("legal actions (mean)")
    top.legend(fontsize="small", ncol=2)
    top.grid(alpha=0.3)
    games = "1 game" if m.games == 1 else f"{m.games} games"
    top.set_title(title or f"Mobility by {m.x}, by {m.group} ({games}; {m.source})")
    if bottom is None:
        top.set_xlabel(m.x)
        top.set_ylabel("legal actions")
    else:
        bottom.fill_between(m.index, m.alive, step="mid", alpha=0.4, color="tab:gray")
        bottom.set_ylabel("games running")
        bottom.set_xlabel(m.x)
        bottom.grid(alpha=0.3)
        bottom.set_title("means at a ply are over the games still running then (survival)",
                         fontsize="small")
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=120)
    return fig
