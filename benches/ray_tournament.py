#!/usr/bin/env python3
"""What `anqi tournament --ray` costs against the one-machine runner, and how its games per
second grow with nodes (issue 34). Run by hand, not in CI (needs `pip install ray`):

    cargo build --release --bin anqi --bin anqi-bot
    python3 benches/ray_tournament.py                 # 60 games of about 1 s each, per row
    python3 benches/ray_tournament.py --games 120 --think-ms 30

Every event is the same: `traditional-2x4`, random against greedy (reference bots, choices
fixed by the seed), each bot waiting `--think-ms` before each move (`anqi-bot --think-ms`), so
that a game lasts about a second while the processor stays nearly idle. Rows:

- `here`: the one-machine runner, `concurrency` = 4;
- `ray N`: a local Ray cluster (`ray.cluster_utils.Cluster`, every node on this machine) of N
  worker nodes of 4 processors each, a unit (a deal: its 2 games one after the other) per
  processor, so N = 1 plays 4 games at once like `here`.

Prints per row the wall time, games per second, and the time per game over `here`'s at the
same number of games at once (`ray 1` against `here`: the cost of the cluster per game,
start-up included and without it). Everything on one machine: the nodes share its cores, so
rows past what its cores hold measure the sharing as well.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def event(folder: Path, bot: Path, games: int, think_ms: int, ray: str = "") -> Path:
    path = folder / "event.toml"
    engines = "".join(f"""
[[tournament.engine]]
name = "{s}"
command = "{bot}"
args = ["--connect", "{{addr}}", "--seed", "{{seed}}", "--name", "{{name}}",
        "--strategy", "{s}", "--think-ms", "{think_ms}"]
""" for s in ("random", "greedy"))
    path.write_text(f"""[tournament]
variant = "traditional-2x4"
deals = {games // 2}
seed = "ray bench"
concurrency = 4
output = "{folder / 'out.jsonl'}"
logs = "{folder / 'logs'}"
engine_logs = "off"
[tournament.ray]
python = "{sys.executable}"
{ray}
{engines}""")
    return path


def run(anqi: str, path: Path, *args: str) -> tuple[float, float]:
    """Wall seconds of the run, and seconds from its first game's end to its last's."""
    started = time.perf_counter()
    runner = subprocess.Popen([anqi, "tournament", path, "--json", *args],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    first = None
    for line in runner.stderr:
        if line.startswith("{") and '"game"' in line and first is None:
            first = time.perf_counter()
    runner.wait()
    if runner.returncode != 0:
        raise SystemExit(f"anqi tournament failed ({runner.returncode})")
    return time.perf_counter() - started, time.perf_counter() - (first or started)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--think-ms", type=int, default=70,
                    help="each bot's wait per move (70: about 1 s per game of traditional-2x4)")
    ap.add_argument("--nodes", type=int, default=3, help="largest cluster (default 3)")
    ap.add_argument("--anqi", default=str(ROOT / "target" / "release" / "anqi"))
    args = ap.parse_args(argv)
    from ray.cluster_utils import Cluster  # noqa: PLC0415 (an optional dependency)

    bot = Path(args.anqi).parent / "anqi-bot"
    rows = []
    with tempfile.TemporaryDirectory(prefix="anqi-ray-bench-") as tmp:
        folder = Path(tmp) / "here"
        folder.mkdir()
        here, here_games = run(args.anqi, event(folder, bot, args.games, args.think_ms))
        per_game = [json.loads(line)["result"]["plies"]
                    for line in (folder / "out.jsonl").read_text().splitlines()]
        print(f"{args.games} games of {sum(per_game) / len(per_game):.1f} plies on average, "
              f"{args.think_ms} ms per move", flush=True)
        rows.append(("here (concurrency 4)", here, here_games))
        cluster = Cluster(initialize_head=True,
                          head_node_args={"num_cpus": 0, "include_dashboard": False})
        try:
            for n in range(1, args.nodes + 1):
                cluster.add_node(num_cpus=4)
                cluster.wait_for_nodes()
                folder = Path(tmp) / f"ray-{n}"
                folder.mkdir()
                path = event(folder, bot, args.games, args.think_ms)
                rows.append((f"ray {n} node(s)", *run(args.anqi, path, "--ray",
                                                        cluster.address)))
        finally:
            cluster.shutdown()
    for name, wall, games_span in rows:
        line = f"{name:22} {wall:6.1f} s  {args.games / wall:5.2f} games/s"
        if name.startswith("ray 1"):
            line += (f"  {(wall - here) / args.games * 1000:+6.0f} ms per game over here "
                     f"({(wall - here) / here * 100:+.1f}%), "
                     f"{(games_span - here_games) / args.games * 1000:+6.0f} ms after the first "
                     f"game ({(games_span - here_games) / here_games * 100:+.1f}%)")
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
