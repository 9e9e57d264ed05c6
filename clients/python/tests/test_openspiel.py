"""anqi's variants as OpenSpiel games (PACKAGE.md, OpenSpiel): OpenSpiel's own checker on every
shipped variant, its MCTS bot (chance nodes and all) against a random one, and random play whose
lengths and results agree with anqi.playouts."""

import math
import random
import unittest

import anqi

try:
    import pyspiel
    from open_spiel.python.algorithms import evaluate_bots, mcts

    import anqi.openspiel
except ImportError as e:  # the tests say so rather than pass in silence
    MISSING = f"{e.name} is not installed: pip install './clients/python[openspiel]'"
else:
    MISSING = None


@unittest.skipIf(MISSING, MISSING or "")
class OpenSpiel(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.names = anqi.openspiel.register()

    def test_every_shipped_variant_passes_openspiels_random_simulation_test(self):
        self.assertEqual(len(self.names), len(anqi.variants()))
        self.assertEqual(anqi.openspiel.register(), self.names, "registering twice is harmless")
        for name in self.names:
            with self.subTest(name):
                game = pyspiel.load_game(name)
                t = game.get_type()
                self.assertEqual(t.information, pyspiel.GameType.Information.PERFECT_INFORMATION)
                self.assertEqual(t.chance_mode, pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC)
                pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)

    def test_ids_players_and_tensors_are_anqis(self):
        game = pyspiel.load_game("anqi_traditional")
        self.assertEqual(game.num_distinct_actions(), anqi.Variant("traditional").num_distinct_actions)
        state = game.new_initial_state()
        self.assertEqual(state.current_player(), 0, "anqi's player 1")
        self.assertEqual(state.legal_actions(), list(range(32)), "the 32 reveals")
        self.assertEqual(state.action_to_string(0, 5), "(rev 5)")
        state.apply_action(5)
        self.assertTrue(state.is_chance_node())
        outcomes = dict(state.chance_outcomes())
        self.assertAlmostEqual(sum(outcomes.values()), 1.0)
        self.assertAlmostEqual(outcomes[anqi.openspiel.LETTERS.index("P")], 5 / 32)
        state.apply_action(anqi.openspiel.LETTERS.index("P"))
        self.assertEqual(state.current_player(), 1)
        self.assertEqual(str(state).split()[0][5], "P")
        tensor = state.observation_tensor(1)
        self.assertEqual(len(tensor), 50 * 32)
        self.assertEqual(tensor[6 * 32 + 5], 1.0, "plane P, cell 5")
        self.assertEqual(state.history(), [5, 6])
        # The information state is the history; the observation names the colours.
        self.assertEqual(state.information_state_string(0), "5 6")
        self.assertIn("colours r/b", state.observation_string(1))

    def test_the_seed_parameter_deals_the_face_up_start(self):
        a = pyspiel.load_game("anqi_reveal_4(seed=7)").new_initial_state()
        b = pyspiel.load_game("anqi_reveal_4(seed=8)").new_initial_state()
        face_up = lambda s: 32 - str(s).split()[0].count("X")  # noqa: E731
        self.assertEqual((face_up(a), face_up(b)), (4, 4))
        self.assertNotEqual(str(a), str(b))

    def test_mcts_with_chance_nodes_beats_random_play(self):
        game = pyspiel.load_game("anqi_traditional_2x4")
        rng = random.Random(3)
        score = 0.0
        games = 16
        for i in range(games):
            np_rng = __import__("numpy").random.RandomState(i)
            bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=60,
                               evaluator=mcts.RandomRolloutEvaluator(2, np_rng),
                               random_state=np_rng)
            rand = pyspiel.make_uniform_random_bot(1 - i % 2, rng.randrange(1 << 30))
            bots = [bot, rand] if i % 2 == 0 else [rand, bot]
            returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np_rng)
            score += (returns[i % 2] + 1) / 2
        self.assertGreater(score / games, 0.6, f"MCTS scored {score}/{games}")

    def test_random_play_agrees_with_anqi_playouts(self):
        name, n = "traditional-2x4", 3000
        game = pyspiel.load_game(anqi.openspiel.game_name(name))
        rng = random.Random(17)
        lengths, wins = [], {0: 0, 1: 0, None: 0}
        for _ in range(n):
            state = game.new_initial_state()
            plies = 0
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes, probs = zip(*state.chance_outcomes())
                    state.apply_action(rng.choices(outcomes, probs)[0])
                    continue
                state.apply_action(rng.choice(state.legal_actions()))
                plies += 1
            lengths.append(plies)
            r = state.returns()
            wins[0 if r[0] > 0 else 1 if r[1] > 0 else None] += 1
        ref = anqi.playouts(name, n=20000, seed="openspiel-check")
        mean = sum(lengths) / n
        sd = math.sqrt(sum((x - mean) ** 2 for x in lengths) / (n - 1))
        ref_mean = ref["plies"] / ref["games"]
        self.assertLess(abs(mean - ref_mean), 4 * sd / math.sqrt(n), (mean, ref_mean))
        for side in (0, 1, None):
            p = wins[side] / n
            q = ref["by_winner_side"].get(side, 0) / ref["games"]
            se = math.sqrt(q * (1 - q) / n + 1e-12)
            self.assertLess(abs(p - q), 4 * se + 1e-9, (side, p, q))


if __name__ == "__main__":
    unittest.main()
