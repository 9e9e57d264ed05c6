#!/usr/bin/env python3
"""How the runner of `anqi tournament --ray` holds up under a long event's reports (issue 34):
its time per report and its memory after 10,000, 30,000 and 100,000 games. Run by hand, not
in CI:

    cargo build --release --bin anqi
    python3 benches/ray_driver.py                   # 10k, 30k and 100k games
    python3 benches/ray_driver.py --games 20000     # one size

No cluster: this script stands in for the Ray dispatcher ([tournament.ray] python names it, so
the runner starts it in place of `python -c dispatch.py`). It answers every unit at once with
records made from one real game of `traditional` (played first by `anqi match`), each with its
unit's index, deal, engines and commitment. So the runner does all of its own work per report
(checking the line, dropping duplicates, appending and syncing the record, the standings, the
SPRT, the progress line) and nothing else waits: the games per second it reaches is the most
it can take in, and 1 / that is its time per report. Prints one line per size: wall time,
reports per second, the time per report over the last tenth of the games, and the runner's
peak memory (ru_maxrss of the child).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def dispatcher(template_path: str) -> int:
    """The stand-in dispatcher: the protocol of src/runner/ray/dispatch.py, every unit's games
    reported at once."""
    template = json.loads(Path(template_path).read_text())
    event = json.loads(sys.stdin.readline())
    config = tomllib.loads(event["common"]["config"])["tournament"]
    names = [e["name"] for e in config["engine"]]

    def say(kind, **fields):
        sys.stdout.write(json.dumps({"kind": kind, **fields}) + "\n")

    say("ready", cpus=64, nodes=1, ray="stand-in")
    sys.stdout.flush()
    for line in sys.stdin:
        command = json.loads(line)
        if command["op"] == "cancel":
            say("cancelled")
        elif command["op"] == "unit":
            for game in command["games"]:
                record = dict(template)
                record["tournament"] = {
                    "index": game["index"],
                    "deal": game["deal"],
                    "engines": [names[s] for s in game["seats"]],
                    "seats": template["tournament"]["seats"],
                    "commitment": game["secrets"]["commitment"],
                    "node": "127.0.0.1 node standin0",
                }
                played = {"kind": "played", "record": record, "seats": game["seats"],
                          "absent": [None] * len(game["seats"]), "logs": ["", ""]}
                say("line", unit=command["unit"], node="127.0.0.1 node standin0",
                    node_id="standin", line=json.dumps(played))
            say("done", unit=command["unit"])
        sys.stdout.flush()
    return 0


def one_game(anqi: str, folder: Path) -> Path:
    """A real tournament record of `traditional`, to copy."""
    out = folder / "one.jsonl"
    subprocess.run([anqi, "match", "random", "greedy", "--variant", "traditional", "--games",
                    "2", "--seed", "bench", "--output", out, "--quiet"], check=True,
                   capture_output=True)
    path = folder / "template.json"
    path.write_text(out.read_text().splitlines()[0])
    return path


def measure(anqi: str, games: int, folder: Path, template: Path) -> str:
    stand_in = folder / "dispatcher"
    stand_in.write_text(f"#!/bin/sh\nexec {sys.executable} {Path(__file__).resolve()} "
                        f"--dispatcher {template}\n")
    stand_in.chmod(0o755)
    out = folder / f"out-{games}.jsonl"
    config = folder / f"event-{games}.toml"
    bot = Path(anqi).parent / "anqi-bot"
    config.write_text(f"""[tournament]
variant = "traditional"
deals = {games // 2}
seed = "driver bench"
output = "{out}"
logs = "{folder / 'logs'}"
[tournament.ray]
address = "stand-in"
python = "{stand_in}"
deals_per_unit = 16
[[tournament.engine]]
name = "random"
command = "{bot}"
[[tournament.engine]]
name = "greedy"
command = "{bot}"
""")
    started = time.perf_counter()
    runner = subprocess.Popen([anqi, "tournament", config, "--json"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
    # The time per report at the end of the event: over its last tenth.
    tail_from, tail_started = games - games // 10, None
    for line in runner.stderr:
        if line.startswith("{"):
            finished = json.loads(line).get("finished", 0)
            if tail_started is None and finished >= tail_from:
                tail_started = time.perf_counter()
    runner.wait()
    seconds = time.perf_counter() - started
    tail = (time.perf_counter() - tail_started) / (games // 10) if tail_started else float("nan")
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    lines = sum(1 for _ in out.open())
    assert runner.returncode == 0 and lines == games, (runner.returncode, lines)
    return (f"{games:>7} games: {seconds:7.1f} s, {games / seconds:8.0f} reports/s, "
            f"{tail * 1e6:7.0f} us per report over the last tenth, runner's peak memory "
            f"{peak_kib / 1024:6.0f} MiB")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, action="append",
                    help="event sizes (default: 10000, 30000 and 100000)")
    ap.add_argument("--anqi", default=str(ROOT / "target" / "release" / "anqi"))
    ap.add_argument("--dispatcher", help=argparse.SUPPRESS)
    args, _ = ap.parse_known_args(argv)  # the runner passes `-c SCRIPT`: ignored
    if args.dispatcher:
        return dispatcher(args.dispatcher)
    with tempfile.TemporaryDirectory(prefix="anqi-driver-bench-") as tmp:
        folder = Path(tmp)
        template = one_game(args.anqi, folder)
        for games in args.games or [10_000, 30_000, 100_000]:
            # Each size in a process of its own: ru_maxrss of the children is the largest.
            if len(args.games or [0, 0]) > 1:
                done = subprocess.run([sys.executable, __file__, "--anqi", args.anqi,
                                       "--games", str(games)], capture_output=True, text=True)
                print(done.stdout.strip() or done.stderr.strip(), flush=True)
            else:
                print(measure(args.anqi, games, folder, template), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
