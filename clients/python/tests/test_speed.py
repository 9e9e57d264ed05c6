"""anqi.playouts and the speed script's parts (python -m anqi.speed), briefly: no timing is
asserted, only that each part measures what it says.

Run by clients/python/test.sh (see test_game.py).
"""

import contextlib
import io
import os
import random
import signal
import subprocess
import sys
import time
import unittest

import anqi
from anqi import speed


def cpu_ticks(pid):
    """The CPU time process `pid` has used so far, in clock ticks (user and system)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


class NativePlayouts(unittest.TestCase):
    def test_every_game_is_counted_once(self):
        for name in ("traditional", "strategic-2x4", "single", "2v2"):
            with self.subTest(variant=name):
                r = anqi.playouts(name, 20, seed="p")
                self.assertEqual((r["variant"], r["seed"], r["games"]), (name, "p", 20))
                self.assertEqual(sum(r["by_reason"].values()), 20)
                self.assertEqual(sum(r["by_winner_side"].values()), 20)
                self.assertGreaterEqual(r["plies"], 20)
                self.assertGreater(r["plies_per_second"], 0)
                sides = len(anqi.Variant(name).sides)
                self.assertTrue(set(r["by_winner_side"]) <= {None, *range(sides)}, r)

    def test_the_same_seed_gives_the_same_games_on_any_number_of_threads(self):
        a = anqi.playouts("traditional-2x4", 50, seed=7)
        b = anqi.playouts("traditional-2x4", 50, seed="7", threads=3)
        keys = ("games", "plies", "by_reason", "by_winner_side")
        self.assertEqual([a[k] for k in keys], [b[k] for k in keys])
        c = anqi.playouts("traditional-2x4", 50, seed=8)
        self.assertNotEqual((a["plies"], a["by_reason"]), (c["plies"], c["by_reason"]))

    def test_chunks_do_not_change_the_games(self):
        # Enough games that the batch runs in several chunks, which grow as they go.
        a = anqi.playouts("traditional-2x4", 20_000, seed="c")
        b = anqi.playouts("traditional-2x4", 20_000, seed="c", threads=2)
        keys = ("games", "plies", "by_reason", "by_winner_side")
        self.assertEqual([a[k] for k in keys], [b[k] for k in keys])

    def test_ctrl_c_stops_a_long_batch(self):
        # A batch of minutes (not endless, so that a build that ignores Ctrl-C fails this test
        # instead of hanging it) in a Python of its own, sent one SIGINT once it is under way.
        # Of its own: in this process, what earlier tests leave behind (Ray's threads and
        # garbage, whose finalizers run Python code in the main thread) can take the signal's
        # KeyboardInterrupt where it is only printed as "Exception ignored", and then the batch
        # runs to its end ("KeyboardInterrupt not raised", seen once after the Ray tests).
        # Under way: a timer could fire before the batch starts, so the signal waits until the
        # child has spent 0.3 s of CPU time after saying "started", which nothing but the
        # batch does.
        # Its own handler, too: a Python started with SIGINT ignored (any child of a command
        # run in the background by a shell, as ./test.sh runs these tests beside the Rust
        # ones) keeps ignoring it, and the batch would run to its end.
        script = (
            "import signal\n"
            "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
            "import anqi\n"
            "print('started', flush=True)\n"
            "try:\n"
            "    anqi.playouts('traditional', 2_000_000, seed='long', threads=2)\n"
            "except KeyboardInterrupt:\n"
            "    print('interrupted', flush=True)\n"
            "else:\n"
            "    print('finished', flush=True)\n"
        )
        child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
        try:
            self.assertEqual(child.stdout.readline(), "started\n")
            at_start = cpu_ticks(child.pid)
            ticks = os.sysconf("SC_CLK_TCK")
            deadline = time.monotonic() + 60
            while cpu_ticks(child.pid) - at_start < 0.3 * ticks:
                self.assertLess(time.monotonic(), deadline, "the batch never got under way")
                time.sleep(0.01)
            sent = time.monotonic()
            child.send_signal(signal.SIGINT)
            self.assertEqual(child.wait(timeout=60), 0)
            stopped = time.monotonic() - sent
            self.assertEqual(child.stdout.read(), "interrupted\n")
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
            child.stdout.close()
        self.assertLess(stopped, 5)

    def test_max_plies_stops_games_as_draws(self):
        r = anqi.playouts(anqi.Variant("traditional"), 10, seed=1, max_plies=5)
        self.assertEqual((r["plies"], r["by_reason"], r["by_winner_side"]), (50, {"ply-cap": 10}, {None: 10}))

    def test_listing_every_ply_gives_the_same_games_as_counting(self):
        keys = ("games", "plies", "by_reason", "by_winner_side")
        for name in ("traditional", "strategic-2x4", "2v2"):
            with self.subTest(variant=name):
                counted = anqi.playouts(name, 30, seed="l")
                listed = anqi.playouts(name, 30, seed="l", pick="list")
                self.assertEqual([counted[k] for k in keys], [listed[k] for k in keys])

    def test_bad_arguments(self):
        with self.assertRaisesRegex(ValueError, '"count" or "list"'):
            anqi.playouts("traditional", 1, pick="nth")
        with self.assertRaises(ValueError):
            anqi.playouts("no-such-variant", 1)
        with self.assertRaises(ValueError):
            anqi.playouts("traditional", 1, threads=0)
        self.assertEqual(anqi.playouts("traditional", 0)["games"], 0)


class SpeedScript(unittest.TestCase):
    def test_each_round_plays_whole_games(self):
        rng = random.Random(1)
        for chance in (False, True):
            games, plies, seconds = speed.anqi_round("traditional-2x4", rng, 0.02, chance=chance)
            self.assertGreaterEqual(games, 1)
            self.assertGreaterEqual(plies, games)
            self.assertGreaterEqual(seconds, 0.02)
        games, plies, seconds = speed.native_round("traditional-2x4", 0.02, seed="t")
        self.assertGreaterEqual(games, 16)
        self.assertGreater(plies, games)

    def test_measure_and_report(self):
        figures = speed.measure(seconds=0.2, variant="traditional-2x4", rounds=1)
        for name in ("anqi-ids", "anqi-ids-chance", "anqi-native", "anqi-listed"):
            self.assertIn(name, figures)
            self.assertGreater(figures[name].plies_per_second, 0)
        self.assertEqual("pyspiel" in figures, speed.load_pyspiel() is not None)
        text = speed.report(figures, "traditional-2x4")
        self.assertIn("plies/s", text)
        self.assertIn("ratio anqi-ids / pyspiel" if "pyspiel" in figures else "pip install open_spiel", text)

    def test_the_report_gives_both_ratios_or_says_how_to_get_them(self):
        figures = {
            "pyspiel": speed.Figures("pyspiel", 10, 1000, 1.0),
            "anqi-ids": speed.Figures("anqi-ids", 10, 2500, 1.0),
            "anqi-native": speed.Figures("anqi-native", 10, 30000, 1.5),
        }
        text = speed.report(figures)
        self.assertIn("ratio anqi-ids / pyspiel:   2.50x", text)
        self.assertIn("ratio anqi-native / pyspiel:  20.00x", text)
        del figures["pyspiel"]
        text = speed.report(figures)
        self.assertNotIn("ratio anqi", text)
        self.assertIn("pip install open_spiel", text)

    def test_main_prints_the_figures(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(speed.main(["--seconds", "0.1", "--variant", "traditional-2x4", "--no-chance"]), 0)
        self.assertIn("native anqi.playouts", out.getvalue())
        self.assertNotIn("chance mode", out.getvalue())
        for bad in (["--seconds", "0"], ["--variant", "no-such-variant"]):
            err = io.StringIO()
            with contextlib.redirect_stderr(err), self.assertRaises(SystemExit):
                speed.main(bad)
            self.assertIn("seconds" if "0" in bad else "no shipped variant", err.getvalue())


if __name__ == "__main__":
    unittest.main()
