"""examples/ray_selfplay.py on a local Ray instance with 2 workers: its self-play batches are
the ones the same seed makes in process, and its evaluation plays whole games."""

import contextlib
import importlib.util
import io
import tempfile
import unittest
from pathlib import Path

try:
    import numpy as np
    import ray  # noqa: F401 (only whether it is there)

    import anqi.env  # noqa: F401 (pettingzoo and gymnasium)
except ImportError as e:  # the test says so rather than pass in silence
    MISSING = f"{e.name} is not installed: pip install './clients/python[rl]' ray"
else:
    MISSING = None

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "ray_selfplay.py"


def load_example():
    spec = importlib.util.spec_from_file_location("ray_selfplay", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@unittest.skipIf(MISSING, MISSING or "")
class RaySelfPlay(unittest.TestCase):
    def test_two_workers_make_what_the_seed_makes_in_process(self):
        example = load_example()
        with tempfile.TemporaryDirectory() as tmp:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                rc = example.main(["--workers", "2", "--envs", "8", "--steps", "40",
                                   "--games", "6", "--seed", "t", "--out", tmp])
            self.assertEqual(rc, 0)
            text = out.getvalue()
            self.assertIn("self-play: 640 steps", text)
            self.assertIn("/12 against random", text)
            for k in range(2):
                saved = np.load(Path(tmp) / f"selfplay-{k}.npz")
                local = example.selfplay("traditional-2x4", f"t/{k}", 8, 40)
                for key, value in local.items():
                    np.testing.assert_array_equal(saved[key], value, key)
        # Greedy beats random on the small board: the evaluation played real games.
        points = float(text.split("scored ")[1].split("/")[0])
        self.assertGreater(points, 6)


if __name__ == "__main__":
    unittest.main()
