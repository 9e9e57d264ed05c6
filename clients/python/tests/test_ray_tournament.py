"""`anqi tournament --ray` on a local multi-node Ray cluster (tests/_ray_cluster.py: a head
that runs no task and three worker nodes, all on this machine): the same report as one
machine, every game exactly once when a node dies mid-event or the runner is killed and run
again, the SPRT cancelling what is in flight, an engine that cannot start on one node, and a
deal book played there.

The runner is the real `anqi` program (ANQI_BIN, as clients/python/test.sh sets it), with the
reference bot beside it as every engine; the events are small and their games quick, except
where a test needs games still going (`--think-ms`)."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.request
from pathlib import Path

from _ray_cluster import MISSING, local_cluster

from anqi._binary import find_anqi

ANQI = Path(find_anqi())
BOT = ANQI.parent / "anqi-bot"


def event_file(folder: Path, *, variant: str = "traditional-2x4", deals: int = 4,
               strategies: tuple[str, str] = ("random", "greedy"), think_ms: int = 0,
               command: Path = BOT, ray: str = "", extra: str = "") -> Path:
    """A two-engine event in `folder` (records in `folder/out.jsonl`, a fixed seed: the deals
    and the bots' choices are the same wherever it runs)."""
    names = strategies if strategies[0] != strategies[1] else [f"{s}-{k}" for k, s in
                                                             enumerate(strategies, 1)]
    engines = "".join(
        f"""
[[tournament.engine]]
name = "{name}"
command = "{command}"
args = ["--connect", "{{addr}}", "--seed", "{{seed}}", "--name", "{{name}}",
        "--strategy", "{strategy}", "--think-ms", "{think_ms}"]
""" for name, strategy in zip(names, strategies))
    path = folder / "event.toml"
    path.write_text(f"""[tournament]
variant = "{variant}"
deals = {deals}
seed = "ray tests"
output = "{folder / 'out.jsonl'}"
logs = "{folder / 'logs'}"
{extra}
[tournament.ray]
python = "{sys.executable}"
{ray}
{engines}""")
    return path


def tournament(path: Path, *args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([ANQI, "tournament", path, *args], capture_output=True, text=True,
                          timeout=timeout)


def records(folder: Path) -> list[dict]:
    out = folder / "out.jsonl"
    if not out.exists():
        return []
    return [json.loads(line) for line in out.read_text().splitlines() if line.strip()]


def indexes(folder: Path) -> list[int]:
    return [r["tournament"]["index"] for r in records(folder)]


def report(path: Path) -> dict:
    done = subprocess.run([ANQI, "report", "--json", path], capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout)


def wait_for(what, runner: subprocess.Popen, seconds: float = 120):
    """Polls `what()` until it is true while `runner` runs; fails after `seconds`."""
    deadline = time.monotonic() + seconds
    while not what():
        if runner.poll() is not None:
            raise AssertionError(f"the runner ended first, status {runner.returncode}")
        if time.monotonic() > deadline:
            raise AssertionError(f"still waiting after {seconds} s")
        time.sleep(0.1)


@unittest.skipIf(MISSING, MISSING or "")
class RayTournament(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = local_cluster()

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="anqi-ray-test-"))

    def run_on_ray(self, path: Path, *args: str, **kw) -> subprocess.CompletedProcess:
        return tournament(path, "--ray", self.cluster.address, *args, **kw)

    def assert_every_game_once(self, folder: Path, games: int):
        got = indexes(folder)
        self.assertEqual(sorted(got), list(range(games)), "every game exactly once")

    def test_the_same_report_as_one_machine(self):
        # Deterministic bots and a fixed seed: the same deals, the same games, the same
        # standings, wherever each game was played.
        (self.tmp / "here").mkdir()
        (self.tmp / "ray").mkdir()
        here = tournament(event_file(self.tmp / "here", deals=5), "--quiet")
        self.assertEqual(here.returncode, 0, here.stderr)
        ray = self.run_on_ray(event_file(self.tmp / "ray", deals=5))
        self.assertEqual(ray.returncode, 0, ray.stderr)
        self.assertIn("node(s)", ray.stderr)
        self.assert_every_game_once(self.tmp / "ray", 10)
        self.assertEqual(report(self.tmp / "ray" / "out.jsonl"),
                         report(self.tmp / "here" / "out.jsonl"))
        # Game by game: the same plies, and each record names the node that played it.
        def by_index(folder):
            return {r["tournament"]["index"]: r for r in records(folder)}
        here_games, ray_games = by_index(self.tmp / "here"), by_index(self.tmp / "ray")
        for index, game in ray_games.items():
            self.assertIn(" node ", game["tournament"]["node"])
            self.assertNotIn("node", here_games[index]["tournament"])
            self.assertEqual([p["action"] for p in game["plies"]],
                             [p["action"] for p in here_games[index]["plies"]])
            self.assertEqual(game["result"], here_games[index]["result"])
        # The nodes ran this anqi, shipped through Ray's object store and kept under its digest.
        digest = hashlib.sha256(ANQI.read_bytes()).hexdigest()
        shipped = Path(tempfile.gettempdir()) / f"anqi-ray-{digest[:16]}" / "anqi"
        self.assertEqual(shipped.read_bytes(), ANQI.read_bytes())
        # The seeds the nodes played from prove every deal against the event's master seed.
        check = subprocess.run([ANQI, "report", self.tmp / "ray" / "out.jsonl", "--seed",
                                "ray tests"], capture_output=True, text=True)
        self.assertEqual(check.returncode, 0, check.stderr)

    def test_a_deal_book_is_played_on_the_cluster_and_proven(self):
        # The nodes are given each game's deal and its book entry, never the book: the records
        # name the entries, and the report checks them against the book and the seed.
        book = self.tmp / "deals.book"
        made = subprocess.run([ANQI, "book", "new", "--deals", "6", "--output", book],
                              capture_output=True, text=True)
        self.assertEqual(made.returncode, 0, made.stderr)
        path = event_file(self.tmp, deals=3,
                          extra=f'[tournament.book]\nfile = "{book}"\norder = "random"\n')
        ray = self.run_on_ray(path)
        self.assertEqual(ray.returncode, 0, ray.stderr)
        self.assert_every_game_once(self.tmp, 6)
        deals = json.loads(book.read_text())["deals"]
        entries = {}
        for game in records(self.tmp):
            tag = game["tournament"]
            self.assertEqual(tag["book"]["order"], "random")
            self.assertEqual(game["seeds"]["server"], deals[tag["book"]["entry"]])
            entries.setdefault(tag["deal"], set()).add(tag["book"]["entry"])
        self.assertEqual(len(entries), 3)
        self.assertTrue(all(len(e) == 1 for e in entries.values()), entries)
        self.assertEqual(len({e for s in entries.values() for e in s}), 3, entries)
        check = subprocess.run([ANQI, "report", self.tmp / "out.jsonl", "--seed", "ray tests",
                                "--book", book], capture_output=True, text=True)
        self.assertEqual(check.returncode, 0, check.stderr)
        self.assertIn("dealt from the deal book committed to", check.stdout)
        self.assertIn("in random order", check.stdout)

    def test_a_node_lost_mid_event_costs_no_game(self):
        doomed = self.cluster.add_node(num_cpus=2)
        try:
            path = event_file(self.tmp, deals=12, think_ms=20, strategies=("random", "random"))
            runner = subprocess.Popen([ANQI, "tournament", path, "--ray", self.cluster.address],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            # Once the node has played a game (its other units are then under way), it dies.
            name = f" node {doomed.node_id[:8]}"
            try:
                wait_for(lambda: any(r["tournament"]["node"].endswith(name)
                                     for r in records(self.tmp)), runner)
            finally:
                self.cluster.remove_node(doomed)
            out, err = runner.communicate(timeout=240)
        finally:
            if runner.poll() is None:
                runner.kill()
        self.assertEqual(runner.returncode, 0, err)
        self.assert_every_game_once(self.tmp, 24)
        # The units the node had under way were run again elsewhere: their games are recorded
        # from other nodes (or, when one had ended just before, dropped the second time).
        after = [r for r in records(self.tmp) if not r["tournament"]["node"].endswith(name)]
        self.assertTrue("Task run_unit failed" in err or "already recorded" in err, err)
        self.assertGreater(len(after), 0)

    def test_the_runner_killed_resumes_without_playing_a_game_twice(self):
        path = event_file(self.tmp, deals=10, think_ms=20, strategies=("random", "random"))
        runner = subprocess.Popen([ANQI, "tournament", path, "--ray", self.cluster.address,
                                   "--http", "127.0.0.1:0"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        said = []
        reader = threading.Thread(target=lambda: said.extend(runner.stderr), daemon=True)
        reader.start()
        try:
            wait_for(lambda: len(indexes(self.tmp)) >= 2, runner)
            # The runner's pages: the standings, and each game once it has ended (its moves
            # were played on a node), held back while its deal's other game is still to come.
            web = next(line.split()[-1] for line in said if line.startswith("web on "))
            def event():
                return json.load(urllib.request.urlopen(f"{web}api/event", timeout=10))
            self.assertEqual(event()["total"], 20)
            # Its progress follows the records file (just after each append).
            wait_for(lambda: event()["finished"] >= 2, runner)
            recorded_before = set(indexes(self.tmp))
            listed = json.load(urllib.request.urlopen(f"{web}api/games", timeout=10))["games"]
            recorded_after = set(indexes(self.tmp))
            self.assertTrue({g["game"] - 1 for g in listed} <= recorded_after, listed)
            self.assertGreaterEqual(len(listed), 2)
            for game in listed:
                # Two engines: deal d is games 2d and 2d + 1.
                deal = {game["game"] - 1, (game["game"] - 1) ^ 1}
                if "withheld" in game:
                    self.assertFalse(deal <= recorded_before, game)
                else:
                    self.assertTrue(deal <= recorded_after, game)
        finally:
            runner.send_signal(signal.SIGKILL)
            runner.wait()
            reader.join(timeout=10)
            runner.stderr.close()
        before = records(self.tmp)
        self.assertLess(len(before), 20, "killed before the end")
        again = self.run_on_ray(path)
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertIn(f"resuming: {len(before)} of 20 games already played", again.stderr)
        after = records(self.tmp)
        self.assertEqual(after[:len(before)], before, "finished games are kept as they were")
        self.assert_every_game_once(self.tmp, 20)

    def test_the_sprt_stops_the_cluster_early(self):
        # Greedy beats random nearly always: the SPRT decides within a few pairs of 100 deals.
        path = event_file(self.tmp, deals=100, strategies=("greedy", "random"), think_ms=5,
                          extra="[tournament.sprt]\nelo0 = 0\nelo1 = 100\n")
        done = self.run_on_ray(path)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("SPRT greedy vs random: H1 accepted", done.stderr)
        got = indexes(self.tmp)
        self.assertEqual(len(got), len(set(got)), "no game twice")
        self.assertLess(len(got), 60, "the units in flight were cancelled, the rest never sent")
        self.assertEqual(json.loads(self.run_on_ray(path, "--json").stdout)["sprt"]["verdict"],
                         "H1", "run again, it only reports")

    def test_an_engine_that_cannot_start_on_one_node(self):
        # The engine is there on every node but one (a node whose environment says so).
        engine = self.tmp / "engine.sh"
        engine.write_text(f"""#!/bin/sh
if [ -n "$ANQI_TEST_NO_ENGINE" ]; then echo "not installed on this node" >&2; exit 127; fi
exec {BOT} "$@"
""")
        engine.chmod(0o755)
        broken = self.cluster.add_node(num_cpus=2, env_vars={"ANQI_TEST_NO_ENGINE": "1"},
                                       resources={"broken": 4})
        try:
            # Avoided: the event goes on without it and plays every game elsewhere.
            path = event_file(self.tmp, deals=10, command=engine, think_ms=5,
                              ray='on_engine_failure = "avoid-node"')
            done = self.run_on_ray(path)
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assert_every_game_once(self.tmp, 20)
            # Stop (the default): the first unit there stops the event, naming engine and node.
            (self.tmp / "stop").mkdir()
            path = event_file(self.tmp / "stop", deals=2, command=engine,
                              ray='resources = { broken = 1 }')
            stopped = self.run_on_ray(path)
        finally:
            self.cluster.remove_node(broken)
        self.assertEqual(stopped.returncode, 2, stopped.stderr)
        self.assertRegex(stopped.stderr, r"on node \S+ node [0-9a-f]{8}: engine \"(random|greedy)\"")
        self.assertIn("exited (exit status: 127) before it connected", stopped.stderr)
        self.assertEqual(records(self.tmp / "stop"), [])
        if "avoid-node" not in done.stderr:
            # Ray may have given the broken node none of the first event's units.
            return
        self.assertIn("The event goes on without that node", done.stderr)


if __name__ == "__main__":
    unittest.main()
