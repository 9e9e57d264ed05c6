"""What depends on seeds alone, pinned (PACKAGE.md, Determinism).

Each test plays something from fixed seeds and compares a digest of everything it saw (deals,
actions, observations, rewards, ends) with the value pinned here. The values are the package's
promise: the same seeds give the same games on any machine, with any number of threads, and in
every later version until PACKAGE.md's Determinism section announces a change. A test that
fails here has changed what a seed means: if that was meant, say so there (with the version)
and pin the new value; if not, it is a bug.

Beside the pins, each test checks the equalities the promise is made of (threads against
threads, an int seed against its decimal string, an environment reset twice with one seed), so
that a failure says which part moved.
"""

from __future__ import annotations

import hashlib
import json
import random
import unittest

import anqi

try:
    import numpy as np
except ImportError:  # pragma: no cover - the rl extra
    np = None


def digest(*parts) -> str:
    """The first 16 hex digits of SHA-256 over `parts` as JSON (numpy arrays as their bytes'
    own SHA-256, with dtype and shape)."""

    def plain(x):
        if np is not None and isinstance(x, np.ndarray):
            return [str(x.dtype), list(x.shape), hashlib.sha256(np.ascontiguousarray(x).tobytes()).hexdigest()]
        if isinstance(x, (list, tuple)):
            return [plain(y) for y in x]
        if isinstance(x, dict):
            return {str(k): plain(v) for k, v in sorted(x.items(), key=lambda kv: str(kv[0]))}
        if np is not None and isinstance(x, np.generic):
            return x.item()
        return x

    text = json.dumps(plain(list(parts)), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


#: The pinned digests (see the module documentation before changing one).
PINNED = {
    "game": "c0156af89aaccf1f",
    "game_chance": "cd1ef6556c5da8bc",
    "playouts": "ed7153403b60892a",
    "vec_game": "6331a470bda74207",
    "pettingzoo": "822c5866de2c3700",
    "gymnasium": "c923113035865798",
}


class Pinned(unittest.TestCase):
    def pin(self, name: str, value: str) -> None:
        want = PINNED[name]
        self.assertEqual(value, want, f"{name}: what its seeds give changed (module docstring)")

    def test_a_game_from_a_seed(self):
        """`anqi.Game(variant, seed=S)`: the deal (every face-down piece) is the seed's; a
        player choosing with `random.Random(0)` then plays the same game to the same end."""
        seen = []
        for variant in ("traditional", "traditional-2x4", "2v2", "strategic"):
            game = anqi.Game(variant, seed="determinism")
            rng = random.Random(0)
            plies = []
            while game.outcome is None and game.ply < 400:
                action = rng.choice(game.legal_actions())
                game.play(action)
                plies.append((action, game.board))
            seen.append((variant, plies, game.outcome))
        self.pin("game", digest(seen))

    def test_chance_mode_from_a_generator(self):
        """In chance mode, what a reveal turns up is drawn from the generator given to
        `sample_chance`: the same generator, the same game."""
        game = anqi.Game("traditional", seed="determinism", chance=True)
        rng = random.Random(7)
        trail = []
        while game.outcome is None and game.ply < 300:
            if game.is_chance_node:
                trail.append(game.sample_chance(rng))
            else:
                action = rng.choice(game.legal_actions())
                game.play(action)
                trail.append(action)
        self.pin("game_chance", digest(trail, game.board, game.outcome))

    def test_native_playouts_from_a_seed_whatever_the_threads(self):
        results = []
        for threads in (1, 2, 3):
            r = anqi.playouts("traditional-2x4", n=200, seed="determinism", threads=threads)
            results.append((r["games"], r["plies"], r["by_reason"],
                            {str(k): v for k, v in r["by_winner_side"].items()}))
        self.assertEqual(results[0], results[1])
        self.assertEqual(results[0], results[2])
        self.pin("playouts", digest(results[0]))


@unittest.skipIf(np is None, "numpy is not installed (the rl extra)")
class PinnedArrays(unittest.TestCase):
    pin = Pinned.pin

    def test_vec_game_from_a_seed_whatever_the_threads(self):
        """`VecGame.reset(seed)` then `step(random_actions())`: every array of every step, and
        every draw, the same with 1, 2 and 3 threads (128 games: two blocks of 64)."""
        runs = []
        for threads in (1, 2, 3):
            vec = anqi.VecGame("traditional-2x4", n=128, threads=threads)
            obs, masks, rewards, dones, to_move = vec.reset(seed="determinism")
            h = hashlib.sha256()
            for _ in range(60):
                actions = vec.random_actions()
                obs, masks, rewards, dones, to_move = vec.step(actions)
                for a in (actions, obs, masks, rewards, dones, to_move):
                    h.update(np.ascontiguousarray(a).tobytes())
            runs.append((h.hexdigest(), list(vec.episodes)))
        self.assertEqual(runs[0], runs[1])
        self.assertEqual(runs[0], runs[2])
        self.pin("vec_game", digest(runs[0]))

    def test_pettingzoo_env_from_a_seed(self):
        try:
            import anqi.env
        except ImportError as e:  # pragma: no cover
            self.skipTest(f"the rl extra: {e}")
        trails = []
        for _ in range(2):
            env = anqi.env.pettingzoo_env("traditional-2x4")
            env.reset(seed=11)
            rng = random.Random(3)
            trail = []
            for agent in env.agent_iter():
                obs, reward, termination, truncation, _ = env.last()
                if termination or truncation:
                    action = None
                else:
                    action = rng.choice(list(obs["action_mask"].nonzero()[0]))
                trail.append((env.possible_agents.index(agent), None if action is None else int(action),
                              float(reward), obs["observation"]))
                env.step(action)
            trails.append(digest(trail))
        self.assertEqual(trails[0], trails[1])
        self.pin("pettingzoo", trails[0])

    def test_gymnasium_env_from_a_seed(self):
        try:
            import anqi.env
        except ImportError as e:  # pragma: no cover
            self.skipTest(f"the rl extra: {e}")
        trails = []
        for _ in range(2):
            env = anqi.env.gymnasium_env("traditional-2x4", opponent="random")
            trail = []
            for episode in range(3):
                obs, info = env.reset(seed=100 + episode)
                rng = random.Random(episode)
                trail.append(info["seat"])
                done = False
                while not done:
                    action = int(rng.choice(list(obs["action_mask"].nonzero()[0])))
                    obs, reward, terminated, truncated, info = env.step(action)
                    trail.append((action, float(reward), obs["observation"]))
                    done = terminated or truncated
            trails.append(digest(trail))
        self.assertEqual(trails[0], trails[1])
        self.pin("gymnasium", trails[0])


if __name__ == "__main__":
    unittest.main()
