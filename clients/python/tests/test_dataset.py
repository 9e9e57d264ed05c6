"""`python -m anqi.dataset` (PACKAGE.md, Datasets): every row is a decision of the recorded
games, replayed through the rules; the same seed makes the same rows; the exact values are the
solution's."""

from __future__ import annotations

import contextlib
import io
import json
import pathlib
import subprocess
import tempfile
import unittest

import anqi

try:
    import numpy as np

    from anqi import dataset
except ImportError:  # pragma: no cover - the rl extra
    np = None

from test_client import anqi_binary
from test_exact import like_2x4


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = dataset.main(argv)
    return status, out.getvalue(), err.getvalue()


@unittest.skipIf(np is None, "numpy is not installed (the rl extra)")
class Dataset(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = pathlib.Path(self.dir.name)

    def tearDown(self):
        self.dir.cleanup()

    def make(self, name: str, *args: str) -> dict:
        status, out, err = run(["--out", str(self.path / name), *args])
        self.assertEqual(status, 0, err)
        self.assertIn("games", out)
        return dataset.load(self.path / name)

    def test_every_row_is_a_decision_of_the_recorded_games(self):
        data = self.make("d", "--games", "6", "--players", "random,greedy", "--seed", "s")
        records = anqi.records.load(self.path / "d" / "records.jsonl")
        self.assertEqual(len(records), 6)
        self.assertEqual(len(data["action"]), sum(len(r.plies) for r in records))
        self.assertEqual(data["meta"]["rows"], len(data["action"]))
        for g, record in enumerate(records):
            rows = np.flatnonzero(data["game"] == g)
            self.assertEqual(len(rows), len(record.plies))
            # The seats take turns: game 0 seats the players as given, game 1 the other way.
            names = [p.name for p in record.players]
            self.assertEqual(names, ["random#1", "greedy#2"] if g % 2 == 0 else ["greedy#1", "random#2"])
            game = anqi.Game("traditional-2x4", seed=f"s/{g}")
            for i, ply in zip(rows, record.plies):
                player = int(data["player"][i])
                self.assertEqual((int(data["ply"][i]), player), (ply.ply, game.to_move))
                np.testing.assert_array_equal(data["observation"][i], game.observation_tensor(player))
                np.testing.assert_array_equal(data["mask"][i], game.legal_action_mask())
                self.assertTrue(data["mask"][i][data["action"][i]])
                game.apply(int(data["action"][i]))
            self.assertEqual(game.outcome["win"], record.result.win)
            returns = game.returns()
            for i in rows:
                self.assertEqual(data["outcome"][i], returns[data["player"][i] - 1])
        self.assertNotIn("value", data)
        self.assertEqual(data["meta"]["planes"], list(anqi._anqi.TENSOR_PLANES))

    def test_the_same_seed_makes_the_same_rows(self):
        a = self.make("a", "--games", "4", "--players", "search:1,random", "--seed", "x")
        b = self.make("b", "--games", "4", "--players", "search:1,random", "--seed", "x")
        c = self.make("c", "--games", "4", "--players", "search:1,random", "--seed", "y")
        for column in dataset.COLUMNS:
            if column in a:
                np.testing.assert_array_equal(a[column], b[column])
        self.assertEqual((self.path / "a/records.jsonl").read_text(),
                         (self.path / "b/records.jsonl").read_text())
        self.assertFalse(len(a["action"]) == len(c["action"]) and (a["action"] == c["action"]).all())

    def test_exact_values_label_every_row(self):
        variant = like_2x4(self.path, "2 3", "KPPkpp")
        solution = variant.with_suffix(".solution")
        subprocess.run([str(anqi_binary()), "solve", str(variant), "--out", str(solution)],
                       capture_output=True, check=True)
        data = self.make("v", "--variant", str(variant), "--games", "5", "--players",
                         "greedy,random", "--solution", str(solution))
        sol = anqi.Solution(str(solution))
        self.assertEqual(data["value"].dtype, np.float32)
        self.assertTrue(((data["value"] >= 0) & (data["value"] <= 1)).all())
        # The first row of each game is its start, worth the start's value to player 1 (2/3).
        first = np.flatnonzero(data["ply"] == 1)
        self.assertEqual(len(first), 5)
        for i in first:
            self.assertEqual(int(data["player"][i]), 1)
            self.assertAlmostEqual(float(data["value"][i]), 2 / 3, places=6)
        # Each row against the solution looked up anew, for the mover.
        for g in range(5):
            game = anqi.Game(str(variant), seed=f"0/{g}")
            for i in np.flatnonzero(data["game"] == g):
                v = sol.value(game)
                mover = v if game.to_move == 1 else 1 - v
                self.assertAlmostEqual(float(data["value"][i]), float(mover), places=6)
                game.apply(int(data["action"][i]))

    def test_parquet_holds_the_same_rows(self):
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            self.skipTest("pyarrow is not installed")
        npz = self.make("n", "--games", "3", "--seed", "p")
        parquet = self.make("q", "--games", "3", "--seed", "p", "--format", "parquet")
        self.assertTrue((self.path / "q/steps.parquet").exists())
        for column in ("game", "ply", "player", "observation", "mask", "action", "outcome"):
            np.testing.assert_array_equal(npz[column], parquet[column])
            self.assertEqual(npz[column].dtype, parquet[column].dtype, column)

    def test_mistakes_are_named(self):
        for argv, needle in ((["--players", "random,magic"], "magic"),
                             (["--players", "random"], "2 seats"),
                             (["--players", "greedy:3,random"], "only search"),
                             (["--variant", "nonesuch"], "nonesuch")):
            status, _, err = run(["--out", str(self.path / "bad"), "--games", "1", *argv])
            self.assertEqual(status, 2, err)
            self.assertIn(needle, err)
        with self.assertRaises(SystemExit), contextlib.redirect_stderr(io.StringIO()):
            dataset.main(["--out", str(self.path / "bad"), "--games", "0"])

    def test_the_metadata_says_how_to_read_the_rows(self):
        self.make("m", "--games", "2")
        meta = json.loads((self.path / "m/dataset.json").read_text())
        self.assertEqual(meta["shapes"]["observation"], [len(meta["planes"]), 8])
        self.assertEqual(set(meta["columns"]), {"game", "ply", "player", "observation", "mask",
                                                 "action", "outcome"})
        self.assertEqual(meta["tensor_version"], anqi._anqi.TENSOR_VERSION)


if __name__ == "__main__":
    unittest.main()
