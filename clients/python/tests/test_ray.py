"""examples/ray_selfplay.py (PACKAGE.md, Past one machine: Ray).

On the tests' local multi-node Ray cluster (`_ray_cluster.py`: a head that runs no task and
three worker nodes of one processor), the example's batches and evaluation points are the ones
the same seeds make in this process, and a run with fewer workers (one task at a time) makes
the same ones for the same task numbers. In process, a batch's rows are its games' steps, with
each episode's outcome on the step that ended it. `--wheel` gives Ray the runtime environment
that ships the package to every node (`py_modules`), and with it every node's tasks import the
package from the wheel Ray installed there: a wheel of the package as this process imports it,
zipped here (building one would need cargo).
"""

import base64
import contextlib
import hashlib
import importlib.util
import io
import json
import shutil
import sys
import tempfile
import unittest
import zipfile
from pathlib import Path

try:
    import numpy as np
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    import anqi
    import anqi.env  # noqa: F401 (pettingzoo and gymnasium)
    from _ray_cluster import local_cluster
except ImportError as e:  # the test says so rather than pass in silence
    MISSING = f"{e.name} is not installed: pip install './clients/python[rl]' ray"
else:
    MISSING = None

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "ray_selfplay.py"

VARIANT = "traditional-2x4"  # the example's default
ENVS, STEPS, GAMES = 8, 40, 4


def load_example():
    spec = importlib.util.spec_from_file_location("ray_selfplay", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_example(example, *args: str) -> str:
    """The example's `main` with these arguments: what it printed."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = example.main(["--envs", str(ENVS), "--steps", str(STEPS), "--games", str(GAMES),
                           "--seed", "t", *args])
    if rc != 0:
        raise AssertionError(f"ray_selfplay.py {' '.join(args)}: {rc}\n{out.getvalue()}")
    return out.getvalue()


def zip_wheel(directory: Path) -> Path:
    """A wheel of the `anqi` package as this process imports it (its Python files and its built
    native module), in `directory`: what `pip wheel ./clients/python` makes, without the build.
    Tagged for any Python, so that whichever pip Ray finds installs it; its files are this
    machine's, as the nodes are."""
    package = Path(anqi.__file__).parent
    info = "anqi-0.1.0.dist-info"
    files = {f"anqi/{path.relative_to(package)}": path.read_bytes()
             for path in sorted(package.rglob("*"))
             if path.is_file() and "__pycache__" not in path.parts}
    files[f"{info}/METADATA"] = b"Metadata-Version: 2.1\nName: anqi\nVersion: 0.1.0\n"
    files[f"{info}/WHEEL"] = (b"Wheel-Version: 1.0\nGenerator: test_ray\n"
                              b"Root-Is-Purelib: false\nTag: py3-none-any\n")
    record = [f"{name},sha256={record_hash(data)},{len(data)}" for name, data in files.items()]
    files[f"{info}/RECORD"] = "\n".join([*record, f"{info}/RECORD,,", ""]).encode()
    wheel = directory / "anqi-0.1.0-py3-none-any.whl"
    # The fastest compression: the native module of a debug build is tens of megabytes.
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        for name, data in files.items():
            z.writestr(name, data)
    return wheel


def record_hash(data: bytes) -> str:
    """A file's hash as a wheel's RECORD gives it (which pip checks)."""
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


@unittest.skipIf(MISSING, MISSING or "")
class OnACluster(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.example = load_example()
        cls.tmp = tempfile.TemporaryDirectory()
        cls.addClassCleanup(cls.tmp.cleanup)  # also when a run below fails
        cls.wide, cls.narrow = Path(cls.tmp.name, "wide"), Path(cls.tmp.name, "narrow")
        address = local_cluster().address
        # Three tasks at once on three one-processor nodes; then two tasks, one at a time.
        cls.wide_text = run_example(cls.example, "--address", address, "--workers", "3",
                                    "--tasks", "3", "--out", str(cls.wide))
        cls.narrow_text = run_example(cls.example, "--address", address, "--workers", "1",
                                      "--tasks", "2", "--out", str(cls.narrow))

    def test_the_driver_leaves_the_cluster(self):
        self.assertFalse(ray.is_initialized())

    def assert_batches_equal(self, saved, expected, task: int):
        self.assertEqual(sorted(saved.files), sorted(expected), task)
        for key, value in expected.items():
            self.assertEqual(saved[key].dtype, value.dtype, (task, key))
            np.testing.assert_array_equal(saved[key], value, f"task {task}, {key}")

    def test_the_batches_are_the_ones_their_seeds_make_in_process(self):
        self.assertIn(f"self-play: {3 * ENVS * STEPS} steps", self.wide_text)
        for k in range(3):
            with np.load(self.wide / f"selfplay-{k}.npz") as saved:
                self.assert_batches_equal(
                    saved, self.example.selfplay(VARIANT, f"t/{k}", ENVS, STEPS), k)
                # Episodes ended within the batch: the dones and rewards compared are not
                # all zeros.
                self.assertTrue(saved["dones"].any(), k)
                self.assertTrue(saved["rewards"].any(), k)

    def test_the_points_are_the_ones_their_seeds_make_in_process(self):
        points = json.loads((self.wide / "evaluation.json").read_text())["points"]
        self.assertEqual(points, [self.example.evaluate(VARIANT, f"t/eval/{k}", GAMES,
                                                        "greedy", "random")
                                  for k in range(3)])
        self.assertIn(f"/{3 * GAMES} against random", self.wide_text)
        # Greedy beats random on the small board: the evaluation played real games.
        self.assertGreater(sum(points), 3 * GAMES / 2)

    def test_fewer_workers_make_the_same_tasks(self):
        for k in range(2):
            with (np.load(self.narrow / f"selfplay-{k}.npz") as narrow,
                  np.load(self.wide / f"selfplay-{k}.npz") as wide):
                self.assert_batches_equal(narrow, dict(wide), k)
        narrow = json.loads((self.narrow / "evaluation.json").read_text())["points"]
        wide = json.loads((self.wide / "evaluation.json").read_text())["points"]
        self.assertEqual(narrow, wide[:2])

    @unittest.skipIf(shutil.which("pip") is None, "Ray installs a wheel with the pip on PATH")
    def test_with_a_wheel_every_node_imports_the_package_from_it(self):
        with tempfile.TemporaryDirectory() as tmp:
            args = self.example.parse_args(["--address", local_cluster().address,
                                            "--wheel", str(zip_wheel(Path(tmp)))])
            options = self.example.ray_init_options(args)
            # One node at a time: this cluster's nodes share one session directory, where each
            # installs the wheel, and two installs at once there race (one deletes the wheel
            # file the other is reading, then the directory). So no node installs it when the
            # job starts, as all do at once by default, but each when its first task comes, and
            # the tasks go one by one. A real cluster's machines each install on their own disk.
            options["runtime_env"]["config"] = {"eager_install": False}
            ray.init(**options)  # which uploads the wheel
        try:
            nodes = [node["NodeID"] for node in ray.nodes()
                     if node["Alive"] and node["Resources"].get("CPU")]
            ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
            where = ray.remote(where_anqi_is)
            found = [ray.get(where.options(
                         scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=False))
                         .remote()) for node in nodes]
        finally:
            ray.shutdown()
        self.assertEqual([node for node, _ in found], nodes)
        for _, path in found:
            # Ray installs a py_modules wheel under its session's runtime_resources, and its
            # workers import from there ahead of site-packages (where anqi is installed too).
            self.assertIn("py_modules_files", path)
            self.assertNotEqual(Path(path).parent, Path(anqi._anqi.__file__).parent)


def where_anqi_is() -> tuple[str, str]:
    """A Ray task: its node, and the file of the native module its `import anqi` loaded. (Sent
    to the workers by value, `register_pickle_by_value` below: this test module is not on their
    path when the tests run from another folder, as ../test.sh runs them.)"""
    import anqi as imported  # noqa: PLC0415 (in the task's worker: what it imports there)

    return ray.get_runtime_context().get_node_id(), imported._anqi.__file__


@unittest.skipIf(MISSING, MISSING or "")
class Batches(unittest.TestCase):
    def test_a_batch_s_rows_are_its_games_steps_and_outcomes(self):
        batch = load_example().selfplay(VARIANT, "b", ENVS, STEPS)
        ended = 0
        for i in range(ENVS):
            episode = 0
            game = anqi.Game(VARIANT, seed=f"b/{i}/{episode}")
            for t in range(STEPS):
                mover = game.to_move
                self.assertEqual(batch["to_move"][t, i], mover)
                np.testing.assert_array_equal(
                    batch["observations"][t, i],
                    game.observation_tensor(mover).astype(np.float16))
                np.testing.assert_array_equal(batch["masks"][t, i], game.legal_action_mask())
                game.apply(int(batch["actions"][t, i]))
                self.assertEqual(batch["dones"][t, i], game.is_terminal, (t, i))
                if not game.is_terminal:
                    self.assertFalse(batch["rewards"][t, i].any(), (t, i))
                    continue
                # The outcome is on the step that ended the episode: two sides, one player
                # each on this variant.
                won = game.outcome["winner_side"]
                want = [0.0, 0.0] if won is None else [1.0, -1.0] if won == 0 else [-1.0, 1.0]
                self.assertEqual(batch["rewards"][t, i].tolist(), want, (t, i))
                ended += 1
                episode += 1
                game = anqi.Game(VARIANT, seed=f"b/{i}/{episode}")
            self.assertEqual(batch["final_to_move"][i], game.to_move)
            np.testing.assert_array_equal(batch["final_observations"][i],
                                          game.observation_tensor(game.to_move)
                                          .astype(np.float16))
        self.assertGreater(ended, 0)


@unittest.skipIf(MISSING, MISSING or "")
class RayOptions(unittest.TestCase):
    def setUp(self):
        self.example = load_example()

    def test_a_wheel_is_shipped_to_every_node_by_py_modules(self):
        with tempfile.TemporaryDirectory() as tmp:
            wheel = Path(tmp, "anqi-0.1.0-cp311-abi3-linux_x86_64.whl")
            wheel.write_bytes(b"")
            args = self.example.parse_args(["--address", "auto", "--wheel", str(wheel)])
            options = self.example.ray_init_options(args)
        self.assertEqual(options["address"], "auto")
        self.assertEqual(options["runtime_env"], {"py_modules": [str(wheel.resolve())]})
        self.assertNotIn("num_cpus", options)  # a cluster's own: Ray refuses it

    def test_without_a_wheel_the_nodes_have_the_package(self):
        options = self.example.ray_init_options(self.example.parse_args(["--address", "h:6379"]))
        self.assertNotIn("runtime_env", options)

    def test_without_an_address_a_local_ray_of_the_workers(self):
        options = self.example.ray_init_options(self.example.parse_args(["--workers", "5"]))
        self.assertEqual(options["address"], "local")  # its own, even where one runs
        self.assertEqual(options["num_cpus"], 5)

    def test_a_wheel_that_is_not_one_is_refused_before_ray_starts(self):
        for path in ("/no/such/anqi.whl", __file__):
            with self.subTest(path), contextlib.redirect_stderr(io.StringIO()) as err:
                with self.assertRaises(SystemExit):
                    self.example.parse_args(["--wheel", path])
            self.assertIn("--wheel", err.getvalue())


if __name__ == "__main__":
    unittest.main()
