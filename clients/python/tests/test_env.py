"""The environments (PACKAGE.md, Environments): PettingZoo's and Gymnasium's own checkers on every
shipped variant, seeds that replay, and games that end with the rules' rewards."""

import contextlib
import io
import unittest
import warnings

import anqi

try:
    import gymnasium
    import pettingzoo
    from gymnasium.utils.env_checker import check_env
    from pettingzoo.test import api_test, seed_test

    import anqi.env
except ImportError as e:  # the tests say so rather than pass in silence
    MISSING = f"{e.name} is not installed: pip install './clients/python[rl]'"
else:
    MISSING = None


@unittest.skipIf(MISSING, MISSING or "")
class PettingZoo(unittest.TestCase):
    def test_the_api_and_seed_tests_pass_on_every_shipped_variant(self):
        for name in anqi.variants():
            quiet = contextlib.redirect_stdout(io.StringIO())
            with self.subTest(name), warnings.catch_warnings(), quiet:
                # The checker warns about every dict observation with an action mask, its own
                # classic games' included, and prints its progress.
                warnings.simplefilter("ignore")
                api_test(anqi.env.pettingzoo_env(name), num_cycles=60)
                seed_test(lambda: anqi.env.pettingzoo_env(name), num_cycles=60)

    def test_a_whole_game_ends_with_the_rules_rewards(self):
        env = anqi.env.pettingzoo_env("2v2", render_mode="ansi")
        env.reset(seed=4)
        totals = {a: 0.0 for a in env.possible_agents}
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            totals[agent] += reward
            if term or trunc:
                env.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            env.step(int(env.np_random.choice(legal)) if hasattr(env, "np_random") else int(legal[0]))
        outcome = env.game.outcome
        self.assertIsNotNone(outcome)
        self.assertIn("over:", env.render())
        # Teammates share their side's result.
        sides = anqi.Variant("2v2").sides
        for side in sides:
            self.assertEqual(len({totals[f"player_{p}"] for p in side}), 1, totals)
        if outcome["winner_side"] is not None:
            self.assertEqual(sorted(set(totals.values())), [-1.0, 1.0])


    def test_truncated_agents_see_no_legal_action(self):
        env = anqi.env.pettingzoo_env("2v2", max_plies=10)
        env.reset(seed=1)
        truncated = 0
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                truncated += trunc
                self.assertFalse(obs["action_mask"].any(), agent)
                env.step(None)
                continue
            env.step(int(obs["action_mask"].nonzero()[0][0]))
        self.assertEqual(truncated, 4)


@unittest.skipIf(MISSING, MISSING or "")
class TensorLayout(unittest.TestCase):
    def test_both_environments_carry_the_layouts_version_and_planes(self):
        # The layout is the native module's (tensor.rs): the environments read it, and say
        # which version their observations have.
        for env in (anqi.env.pettingzoo_env("traditional"), anqi.env.gymnasium_env("traditional")):
            with self.subTest(type(env).__name__):
                self.assertEqual(env.metadata["tensor_version"], anqi.env.TENSOR_VERSION)
                space = (env.observation_space("player_1") if callable(env.observation_space)
                         else env.observation_space)
                self.assertEqual(space["observation"].shape, (anqi.env.PLANES, 32))
                self.assertEqual(anqi.env.PLANES, len(anqi.env.TENSOR_PLANES))


@unittest.skipIf(MISSING, MISSING or "")
class Gymnasium(unittest.TestCase):
    def test_check_env_passes_against_each_reference_bot_and_a_callable(self):
        for opponent in ("random", "greedy", "search", lambda view: view.legal_actions()[0]):
            for name in ("traditional", "strategic", "1v2", "single"):
                with self.subTest(name=name, opponent=opponent), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    check_env(anqi.env.gymnasium_env(name, opponent=opponent, depth=1),
                              skip_render_check=True)

    def test_episodes_end_with_the_agents_result(self):
        env = anqi.env.gymnasium_env("traditional-2x4", opponent="greedy", seat=2,
                                     render_mode="ansi")
        results = []
        for episode in range(20):
            obs, info = env.reset(seed=episode)
            self.assertEqual(info["seat"], 2)
            done = False
            while not done:
                action = int(obs["action_mask"].nonzero()[0][0])
                obs, reward, term, trunc, info = env.step(action)
                done = term or trunc
            results.append(reward)
            side = 1  # seat 2's side
            won = info["outcome"]["winner_side"]
            self.assertEqual(reward, 0.0 if won is None else (1.0 if won == side else -1.0))
        self.assertIn("over:", env.render())
        # An illegal action loses.
        env.reset(seed=1)
        _, reward, term, _, info = env.step(env.action_space.n - 1)
        if "illegal" in info:
            self.assertEqual((reward, term), (-1.0, True))

    def test_what_cannot_be_is_refused(self):
        with self.assertRaisesRegex(ValueError, "one of random, greedy, search"):
            anqi.env.gymnasium_env("traditional", opponent="best")
        with self.assertRaisesRegex(ValueError, "seats are 1..2"):
            anqi.env.gymnasium_env("traditional", seat=3)
        with self.assertRaisesRegex(ValueError, "ansi"):
            anqi.env.pettingzoo_env("traditional", render_mode="human")


if __name__ == "__main__":
    unittest.main()
