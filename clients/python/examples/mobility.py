"""A fresh experiment, from games to figures: the mobility curves of Jouandeau's Section III.

    python clients/python/examples/mobility.py                          # 100 games of 2v2
    python clients/python/examples/mobility.py --variant traditional --games 200 \
        --players greedy random --out figures/

Plays the games with `anqi.play` (the real server, every player's counts kept at every ply),
then draws, in --out (default anqi-figures/): mobility-winner.png (the winners' players
against the losers'), mobility-side.png (per side) and game-1.png (the first game alone, as the
paper's figures show single games), and prints a short summary. Needs the anqi program (`cargo build --release`) and
matplotlib (`pip install matplotlib`).
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

import anqi
from anqi.play import players_from


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="2v2", help="shipped variant or description file")
    ap.add_argument("--games", type=int, default=100, help="games to play (rounded up to whole deals)")
    ap.add_argument("--players", nargs="+", default=["random:1", "greedy:1", "random:2", "greedy:2"],
                    help="random[:SEED], greedy[:SEED], search[:SEED] or an engine command line; "
                         "the list is repeated to fill the variant's seats")
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--seed", default="mobility")
    ap.add_argument("--out", default="anqi-figures", help="directory for the figures (created)")
    args = ap.parse_args(argv)

    seats = anqi.Game(args.variant, seed="0").players
    specs = list(args.players)
    while len(specs) < seats:
        specs += args.players
    players = players_from(specs)

    started = time.monotonic()
    records = anqi.play(players, games=args.games, variant=args.variant,
                        concurrency=args.concurrency, seed=args.seed, progress=True)
    took = time.monotonic() - started
    reasons = collections.Counter(r.result.reason for r in records)
    plies = sum(len(r.plies) for r in records)
    print(f"{len(records)} games of {args.variant} in {took:.1f} s, {plies} plies; "
          f"endings: {dict(reasons)}")

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    kinds = ("moves", "jumps", "reveals") + (("puts",) if "strategic" in args.variant else ())
    for group in ("winner", "side"):
        m = anqi.analysis.mobility(records, group=group, kinds=kinds)
        anqi.plot.mobility(m, path=out / f"mobility-{group}.png")
        print(f"mobility-{group}.png: {', '.join(m.labels)} over {m.games} games "
              f"({m.skipped} left out), {m.source}")
    first = anqi.analysis.mobility(records[0], group="player", kinds=kinds + ("empty",))
    anqi.plot.mobility(first, path=out / "game-1.png", title="The first game, player by player")
    print(f"figures in {out.resolve()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
