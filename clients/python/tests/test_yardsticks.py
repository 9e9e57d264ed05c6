"""`python -m anqi.yardsticks` (PACKAGE.md, Yardsticks): the rating fit against results worked
out by hand, and a small table measured for real (engine programs alone, a solved board and
its perfect player)."""

from __future__ import annotations

import contextlib
import io
import json
import math
import pathlib
import tempfile
import unittest
from types import SimpleNamespace

import anqi
from anqi import yardsticks

from test_client import anqi_binary
from test_exact import like_2x4


def game(first: str, second: str, winner: int | None):
    """A record of `first` (side 0) against `second` (side 1): `winner` 0, 1 or None."""
    players = [SimpleNamespace(name=first, side=0), SimpleNamespace(name=second, side=1)]
    return SimpleNamespace(players=players, result=SimpleNamespace(winner_side=winner))


def elo(score: float) -> float:
    return -400 * math.log10(1 / score - 1)


class RatingFit(unittest.TestCase):
    def test_two_players_get_the_elo_of_their_score(self):
        # 3 wins, 1 draw, 0 losses: 3.5/4 = 0.875, seats taken in turn.
        records = [game("a", "b", 0), game("b", "a", 1), game("a", "b", 0), game("b", "a", None)]
        fit = yardsticks.fit_ratings(records, ["b", "a"], "b", prior_draws=0)
        self.assertEqual(fit["b"], (0.0, 0.0))
        self.assertAlmostEqual(fit["a"][0], elo(0.875), places=6)
        # The error is the inverse square root of the curvature: n·p·(1-p)·(ln 10/400)².
        k = math.log(10) / 400
        self.assertAlmostEqual(fit["a"][1], 1 / (k * math.sqrt(4 * 0.875 * 0.125)), places=6)

    def test_ratings_chain_through_players_who_never_met(self):
        # a beats b 3 to 1, b beats c 3 to 1, a and c never meet: a is two steps above c.
        records = [game("a", "b", 0)] * 3 + [game("a", "b", 1)] + \
                  [game("b", "c", 0)] * 3 + [game("b", "c", 1)]
        fit = yardsticks.fit_ratings(records, ["c", "b", "a"], "c", prior_draws=0)
        self.assertAlmostEqual(fit["b"][0], elo(0.75), places=6)
        self.assertAlmostEqual(fit["a"][0], 2 * elo(0.75), places=6)
        self.assertGreater(fit["a"][1], fit["b"][1])

    def test_the_prior_keeps_a_clean_sweep_finite(self):
        records = [game("a", "b", 0), game("b", "a", 1)] * 5
        fit = yardsticks.fit_ratings(records, ["b", "a"], "b")
        # 10 wins and one virtual draw: 10.5 of 11.
        self.assertAlmostEqual(fit["a"][0], elo(10.5 / 11), places=6)

    def test_games_with_an_absent_player_are_left_out(self):
        records = [game("a", "b", 0), game("(absent seat 1)", "b", 1), game("b", "a", None)]
        kept, absent = yardsticks.played(records, ["a", "b"])
        self.assertEqual((len(kept), absent), (2, 1))
        self.assertTrue(all("absent" not in p.name for r in kept for p in r.players))

    def test_players_who_are_not_connected_are_named(self):
        records = [game("a", "b", 0), game("c", "d", 0)]
        with self.assertRaises(ValueError) as e:
            yardsticks.fit_ratings(records, ["a", "b", "c", "d"], "a")
        self.assertIn("connected", str(e.exception))


class Measured(unittest.TestCase):
    def test_a_small_table_with_the_perfect_player(self):
        binary = anqi_binary()
        with tempfile.TemporaryDirectory() as tmp:
            tmp = pathlib.Path(tmp)
            variant = like_2x4(tmp, "2 3", "KPPkpp")
            out = tmp / "y"
            argv = ["--variant", str(variant), "--players", "random,greedy,perfect", "--deals",
                    "2", "--out", str(out), "--binary", str(binary), "--concurrency", "2"]
            stdout, stderr = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
                status = yardsticks.main(argv)
            self.assertEqual(status, 0, stderr.getvalue())
            self.assertTrue((out / "small-KPPkpp.solution").exists())
            table = json.loads((out / "table.json").read_text())
            self.assertEqual(table["games"], 3 * 2 * 2)
            rows = {r["name"]: r for r in table["rows"]}
            self.assertEqual(set(rows), {"random", "greedy", "perfect"})
            self.assertEqual(rows["random"]["rating"], 0.0)
            for name, row in rows.items():
                self.assertEqual(row["games"], 8)
                self.assertLessEqual(row["rating_low"], row["rating"])
                self.assertLessEqual(row["rating"], row["rating_high"])
                if name == "perfect":
                    self.assertIsNone(row["vs_perfect"])
                else:
                    score, low, high = row["vs_perfect"]
                    self.assertTrue(0 <= low <= score <= high <= 1, row)
            # The records are anqi's own, and the table reads as they say.
            records = anqi.records.load(out / "records.jsonl")
            self.assertEqual(len(records), 12)
            points = sum(1.0 if r.result.winner_side == p.side else
                         0.5 if r.result.winner_side is None else 0.0
                         for r in records for p in r.players if p.name == "perfect")
            self.assertAlmostEqual(rows["perfect"]["score"], points / 8)
            text = (out / "table.md").read_text()
            self.assertIn("| random | 8 |", text)
            self.assertIn("0 (the anchor)", text)
            self.assertIn("score against perfect", stdout.getvalue())
            # The same command again plays nothing: it resumes from the records.
            with contextlib.redirect_stdout(io.StringIO()) as again, \
                    contextlib.redirect_stderr(io.StringIO()):
                self.assertEqual(yardsticks.main(argv), 0)
            self.assertIn("12 played before, resumed", again.getvalue())
            self.assertEqual(len(anqi.records.load(out / "records.jsonl")), 12)
            # Another anchor: the same fit, every rating moved by the anchor's.
            with contextlib.redirect_stdout(io.StringIO()), \
                    contextlib.redirect_stderr(io.StringIO()):
                self.assertEqual(yardsticks.main(argv + ["--anchor", "greedy"]), 0)
            moved = {r["name"]: r for r in json.loads((out / "table.json").read_text())["rows"]}
            self.assertEqual(moved["greedy"]["rating"], 0.0)
            for name in rows:
                self.assertAlmostEqual(moved[name]["rating"],
                                       rows[name]["rating"] - rows["greedy"]["rating"], places=6)
            with contextlib.redirect_stderr(io.StringIO()) as err:
                self.assertEqual(yardsticks.main(argv + ["--anchor", "nobody"]), 2)
            self.assertIn("nobody", err.getvalue())

    def test_an_unknown_player_is_named(self):
        with tempfile.TemporaryDirectory() as tmp, \
                contextlib.redirect_stderr(io.StringIO()) as err:
            status = yardsticks.main(["--players", "random,wizard", "--out", tmp,
                                      "--binary", str(anqi_binary())])
        self.assertEqual(status, 2)
        self.assertIn("wizard", err.getvalue())


if __name__ == "__main__":
    unittest.main()
