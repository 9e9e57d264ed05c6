"""`anqi.network` (PACKAGE.md, A trained network): network files read with numpy alone and
checked as untrusted input; the bot's choice is the legal action of the highest logit, in
process and over the wire alike; the shipped network beats random play."""

from __future__ import annotations

import pathlib
import random
import tempfile
import unittest

import anqi

try:
    import numpy as np

    from anqi import network
except ImportError:  # pragma: no cover - the rl extra
    np = None

VARIANT = "traditional-2x4"


def write(path: pathlib.Path, sizes: list[int], seed: int = 0, **extra) -> pathlib.Path:
    """A random network of layer `sizes` (inputs first) as a network file."""
    rng = np.random.default_rng(seed)
    arrays = {}
    for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
        arrays[f"W{i}"] = rng.normal(size=(a, b)).astype(np.float32)
        arrays[f"b{i}"] = rng.normal(size=b).astype(np.float32)
    arrays.update(extra)
    np.savez(path, **arrays)
    return path


@unittest.skipIf(np is None, "numpy is not installed (the rl extra)")
class Networks(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = pathlib.Path(self.dir.name)
        v = anqi.Variant(VARIANT)
        self.sizes = [len(anqi.env.TENSOR_PLANES) * v.size, 16, v.num_distinct_actions]

    def tearDown(self):
        self.dir.cleanup()

    def test_the_choice_is_the_legal_action_of_the_highest_logit(self):
        file = write(self.path / "n.npz", self.sizes, activation=np.array("relu"),
                     variant=np.array(VARIANT))
        bot = network.NetworkBot(file)
        w0, b0, w1, b1 = (bot.network.layers[0][0], bot.network.layers[0][1],
                          bot.network.layers[1][0], bot.network.layers[1][1])
        game = anqi.Game(VARIANT, seed="net")
        rng = random.Random(1)
        while game.outcome is None:
            x = game.observation_tensor(game.to_move).reshape(-1)
            logits = np.maximum(x @ w0 + b0, 0) @ w1 + b1
            legal = game.legal_action_ids()
            want = legal[int(np.argmax(logits[legal]))]
            self.assertEqual(bot.choose_id(game), want)
            # Through what the player knows, the same choice.
            view = game.observation(game.to_move)
            self.assertEqual(game.action_id(bot.choose(view)), want)
            game.apply(want if rng.random() < 0.5 else rng.choice(legal))

    def test_it_plays_on_a_server(self):
        file = write(self.path / "n.npz", self.sizes, variant=np.array(VARIANT))
        records = anqi.play([network.NetworkBot(file), anqi.RandomBot(1)], games=2,
                            variant=VARIANT, seed="net", concurrency=1)
        self.assertEqual(len(records), 2)
        for record in records:
            record.replay()
            self.assertEqual({p.name for p in record.players}, {"network", "random"})

    def test_a_sampling_bot_is_seeded(self):
        file = write(self.path / "n.npz", self.sizes)
        game = anqi.Game(VARIANT, seed="net")
        picks = [[network.NetworkBot(file, temperature=1.0, seed=s).choose_id(game)
                  for _ in range(1)] for s in (3, 3)]
        self.assertEqual(picks[0], picks[1])

    def test_files_that_do_not_fit_are_refused_with_the_reason(self):
        cases = {
            "another variant": (write(self.path / "a.npz", self.sizes,
                                      variant=np.array("traditional")), "plays traditional"),
            "wrong inputs": (write(self.path / "b.npz", [10, 4, self.sizes[-1]]), "inputs"),
            "broken chain": (self.path / "c.npz", "takes 7 inputs"),
            "no layer": (self.path / "d.npz", "no layer"),
            "bad activation": (write(self.path / "e.npz", self.sizes,
                                     activation=np.array("sigmoid")), "activation"),
            "objects": (self.path / "f.npz", "pickle"),
        }
        np.savez(self.path / "c.npz", W0=np.zeros((400, 5), np.float32),
                 b0=np.zeros(5, np.float32), W1=np.zeros((7, 40), np.float32),
                 b1=np.zeros(40, np.float32))
        np.savez(self.path / "d.npz", about=np.array("nothing"))
        np.savez(self.path / "f.npz", W0=np.array([{"run": "me"}], dtype=object))
        game = anqi.Game(VARIANT, seed="net")
        for what, (file, needle) in cases.items():
            with self.subTest(what), self.assertRaises(ValueError) as e:
                network.NetworkBot(file).choose_id(game)
            self.assertIn(needle, str(e.exception))

    def test_the_shipped_network_beats_random_play(self):
        bot = network.NetworkBot()
        self.assertIn("ppo_vecgame.py", bot.network.about)
        self.assertEqual(bot.network.variant, VARIANT)
        size = sum(w.size + b.size for w, b in bot.network.layers)
        self.assertLess(size * 4, 4 << 20, "a few MB at most")
        wins = 0
        for g in range(20):
            game = anqi.Game(VARIANT, seed=f"shipped/{g}")
            me = 1 + g % 2
            rng = random.Random(g)
            while game.outcome is None:
                game.apply(bot.choose_id(game) if game.to_move == me
                           else rng.choice(game.legal_action_ids()))
            wins += game.returns()[me - 1] == 1
        self.assertGreaterEqual(wins, 16)


if __name__ == "__main__":
    unittest.main()
