"""The training examples (PACKAGE.md, Training examples) run at a tiny budget, so that they
cannot rot: each script's `main` is run in process with its arguments, and what it prints is
checked: the progress it reports, and a last line whose counts add up, whose win rate is the
wins over the games, and whose 95% interval is the Wilson interval of those counts (computed
here again). Their measured results at a real budget are in PACKAGE.md; these runs are far too
short to learn anything, so they check that the scripts work, not how well they learn.

Each example needs its extra (`pip install './clients/python[examples]'`); a test whose packages
are missing is skipped and says which.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import math
import re
import unittest
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def missing(*modules: str) -> str | None:
    """Why a test cannot run: the first of `modules` that is not installed, or None."""
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError as e:
            return f"{e.name} is not installed: pip install './clients/python[examples]'"
    return None


def load(name: str):
    """examples/NAME.py as a module (the examples are scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(module, *args: str) -> list[str]:
    """The example's `main` with these arguments: the lines it printed."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = module.main(list(args))
    if rc != 0:
        raise AssertionError(f"{module.__name__} {' '.join(args)}: exit status {rc}\n"
                             f"{out.getvalue()}")
    return out.getvalue().splitlines()


def help_text(module) -> str:
    """What `--help` prints (argparse exits with status 0 after it)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        module.main(["--help"])
    return out.getvalue()


def refused(module, *args: str) -> str:
    """The error argparse prints for arguments it refuses (it exits with status 2)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            module.main(list(args))
        except SystemExit as e:
            if e.code != 2:
                raise AssertionError(f"{args}: exit status {e.code}, not 2") from None
        else:
            raise AssertionError(f"{args} were accepted")
    return err.getvalue()


def wilson(k: int, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval, written here again to check the examples' own."""
    z = 1.959964
    p = k / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


#: What every example's result says: "won 40.0% (4 of 10 games, 95% interval 16.8%-68.7%),
#: drew 4, lost 2".
RESULT = re.compile(r"won (?P<rate>[\d.]+)% \((?P<wins>\d+) of (?P<games>\d+) games, 95% "
                    r"interval (?P<low>[\d.]+)%-(?P<high>[\d.]+)%\), drew (?P<draws>\d+), "
                    r"lost (?P<losses>\d+)")


class ExampleTest(unittest.TestCase):
    def check_result(self, line: str, games: int) -> dict[str, int]:
        """The counts of a result line, checked: they add up to `games`, the rate is the wins
        over the games, and the interval is the Wilson interval of those counts."""
        m = RESULT.search(line)
        self.assertIsNotNone(m, f"not a result: {line!r}")
        wins, draws, losses = (int(m[k]) for k in ("wins", "draws", "losses"))
        self.assertEqual(int(m["games"]), games, line)
        self.assertEqual(wins + draws + losses, games, line)
        self.assertAlmostEqual(float(m["rate"]), 100 * wins / games, delta=0.05, msg=line)
        low, high = wilson(wins, games)
        self.assertAlmostEqual(float(m["low"]), 100 * low, delta=0.051, msg=line)
        self.assertAlmostEqual(float(m["high"]), 100 * high, delta=0.051, msg=line)
        return {"wins": wins, "draws": draws, "losses": losses}


@unittest.skipIf(missing("torch", "numpy", "pettingzoo", "gymnasium"),
                 missing("torch", "numpy", "pettingzoo", "gymnasium") or "")
class PpoVecGame(ExampleTest):
    """examples/ppo_vecgame.py: PPO by self-play over VecGame, evaluated in PettingZoo."""

    TINY = ("--total-steps", "1024", "--envs", "16", "--rollout", "16", "--minibatches", "2",
            "--epochs", "1", "--hidden", "32", "--eval-games", "6", "--seed", "3")

    @classmethod
    def setUpClass(cls):
        cls.example = load("ppo_vecgame")

    def test_help_names_the_budget_and_the_seed(self):
        text = help_text(self.example)
        for option in ("--total-steps", "--seed", "--eval-games", "--variant"):
            self.assertIn(option, text)

    def test_a_tiny_run_reports_its_progress_and_its_result(self):
        lines = run(self.example, *self.TINY)
        self.assertTrue(lines[0].startswith("before training: "), lines[0])
        before = self.check_result(lines[0], 6)
        # 1024 steps of 16 games x 16 steps: 4 updates, each reported.
        updates = [line for line in lines if line.startswith("update ")]
        self.assertEqual([u.split(":")[0] for u in updates],
                         [f"update {i}/4" for i in range(1, 5)], lines)
        for i, line in enumerate(updates, 1):
            self.assertIn(f" {i * 256:,} steps, ", line)
        last = lines[-1]
        self.assertTrue(last.startswith("result: "), last)
        self.check_result(last, 6)
        self.assertIn("against random on traditional-2x4", last)
        self.assertIn(f"(before training: won {100 * before['wins'] / 6:.1f}%)", last)
        self.assertIn("after 1,024 steps in ", last)
        # The same seed trains the same network: the same games, the same result.
        again = run(self.example, *self.TINY)
        self.assertEqual(again[-1].split(" in ")[0], last.split(" in ")[0])

    def test_the_exported_policy_is_the_trained_one_played_with_numpy(self):
        import tempfile

        import numpy as np
        import torch

        import anqi
        from anqi.network import NetworkBot

        with tempfile.TemporaryDirectory() as tmp:
            path = str(Path(tmp) / "net.npz")
            lines = run(self.example, *self.TINY, "--export", path)
            self.assertEqual(lines[-1], f"wrote {path}")
            bot = NetworkBot(path)
            self.assertIn("--export net.npz", bot.network.about)
            self.assertNotIn(tmp, bot.network.about)
            self.assertIn(lines[-2], bot.network.about)
            # A file exported from an agent gives that agent's logits, with numpy alone.
            agent = self.example.Agent(bot.network.inputs, bot.network.outputs, 32)
            self.example.export(agent, anqi.Variant("traditional-2x4"), path, about="")
            x = anqi.Game("traditional-2x4", seed="export").observation_tensor(1)
            with torch.no_grad():
                want = agent.actor(torch.as_tensor(x.reshape(1, -1))).numpy()[0]
            np.testing.assert_allclose(NetworkBot(path).network.logits(x), want,
                                       rtol=1e-5, atol=1e-5)

    def test_bad_arguments_are_refused_with_the_reason(self):
        self.assertIn("two sides", refused(self.example, "--variant", "single"))
        self.assertIn("--minibatches 3 must divide", refused(self.example, "--minibatches", "3"))
        self.assertIn("--envs must be at least 1", refused(self.example, "--envs", "0"))


@unittest.skipIf(missing("pyspiel", "numpy"), missing("pyspiel", "numpy") or "")
class OpenSpielSearch(ExampleTest):
    """examples/openspiel_search.py: OpenSpiel's MCTS and expectiminimax against random."""

    @classmethod
    def setUpClass(cls):
        cls.example = load("openspiel_search")

    def test_help_names_the_budgets_and_the_seed(self):
        text = help_text(self.example)
        for option in ("--simulations", "--depth", "--games", "--seed"):
            self.assertIn(option, text)

    def test_a_tiny_run_of_both_searches_reports_each(self):
        lines = run(self.example, "--games", "4", "--simulations", "8", "--depth", "1")
        for algorithm in ("mcts", "expectiminimax"):
            progress = [line for line in lines if line.startswith(f"{algorithm}: ")]
            self.assertEqual([p.split(" games:")[0] for p in progress],
                             [f"{algorithm}: {g}/4" for g in range(1, 5)], lines)
        results = lines[-2:]
        self.assertTrue(results[0].startswith("result: mcts (8 simulations a move) won "),
                        results[0])
        self.assertTrue(results[1].startswith("result: expectiminimax (depth 1) won "),
                        results[1])
        for line in results:
            self.check_result(line, 4)
            self.assertIn("against random on traditional-2x4", line)

    def test_the_material_evaluation_is_the_searching_players(self):
        # Before the colours are decided it is 0 for both players; after a capture, the
        # material is the one piece more of the capturing colour, seen with opposite signs.
        import anqi
        import anqi.openspiel
        import pyspiel

        [name] = anqi.openspiel.register(["traditional-2x4"])
        value = self.example.material(anqi.Variant("traditional-2x4"))
        state = pyspiel.load_game(name).new_initial_state()
        self.assertEqual((value(state, 0), value(state, 1)), (0.0, 0.0))
        # traditional-2x4 is K P P P k p p p on two rows of four cells (cell 5 under cell 1).
        # Red reveals a pawn on 1, black a pawn on 5, red a pawn on 3; black's pawn takes 1.
        for move in ("(rev 1)", "P", "(rev 5)", "p", "(rev 3)", "P", "(mov 5 1)"):
            if state.is_chance_node():
                state.apply_action(anqi.openspiel.LETTERS.index(move))
            else:
                [action] = [a for a in state.legal_actions()
                            if state.action_to_string(state.current_player(), a) == move]
                state.apply_action(action)
        # Black (player 1, OpenSpiel's 1) has its 4 pieces, red 3 of its 4.
        self.assertAlmostEqual(value(state, 1), 0.9 * (4 - 3) / 7)
        self.assertAlmostEqual(value(state, 0), -0.9 * (4 - 3) / 7)


@unittest.skipIf(missing("sb3_contrib", "torch", "numpy", "gymnasium"),
                 missing("sb3_contrib", "torch", "numpy", "gymnasium") or "")
class MaskablePpo(ExampleTest):
    """examples/maskable_ppo.py: sb3-contrib's MaskablePPO on the Gymnasium environment."""

    @classmethod
    def setUpClass(cls):
        cls.example = load("maskable_ppo")

    def test_help_names_the_budget_and_the_seed(self):
        text = help_text(self.example)
        for option in ("--total-steps", "--seed", "--eval-games", "--opponent"):
            self.assertIn(option, text)

    def test_a_tiny_run_reports_its_progress_and_its_result(self):
        lines = run(self.example, "--total-steps", "512", "--envs", "2", "--n-steps", "128",
                    "--batch-size", "64", "--eval-games", "6", "--seed", "2")
        self.assertTrue(lines[0].startswith("before training: "), lines[0])
        before = self.check_result(lines[0], 6)
        # Two rollouts of 2 environments x 128 steps, a line after each.
        progress = [line for line in lines if line.startswith("steps ")]
        self.assertEqual([p.split(":")[0] for p in progress], ["steps 256", "steps 512"], lines)
        for line in progress:
            # The training games so far: won ... (drew D, lost L), adding up.
            m = re.search(r": (\d+) training games since the last line, won ([\d.]+%|-) "
                          r"\(drew (\d+), lost (\d+)\)", line)
            self.assertIsNotNone(m, line)
            games, draws, losses = int(m[1]), int(m[3]), int(m[4])
            self.assertLessEqual(draws + losses, games, line)
        last = lines[-1]
        self.assertTrue(last.startswith("result: "), last)
        self.check_result(last, 6)
        self.assertIn("against random on traditional-2x4", last)
        self.assertIn(f"(before training: won {100 * before['wins'] / 6:.1f}%)", last)
        self.assertIn("after 512 steps in ", last)


if __name__ == "__main__":
    unittest.main()
