"""anqi's variants as OpenSpiel games (PACKAGE.md, OpenSpiel): OpenSpiel's own checker on every
shipped variant, its MCTS bot (chance nodes and all) against a random one, and random play whose
lengths and results agree with anqi.playouts."""

import math
import pathlib
import pickle
import random
import tempfile
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


def pick(state, rng):
    """A random legal action, or a chance outcome by its probability."""
    if state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        return rng.choices(outcomes, probs)[0]
    return rng.choice(state.legal_actions())


def facts(state):
    """What two states must agree on to be the same state."""
    players = range(state.num_players())
    out = [state.history(), state.current_player(), state.is_terminal(), state.returns(),
           str(state), state.move_number()]
    if state.is_chance_node():
        out.append(state.chance_outcomes())
    elif not state.is_terminal():
        out.append(state.legal_actions())
    out += [state.observation_tensor(p) for p in players]
    out += [state.observation_string(p) for p in players]
    out += [state.information_state_string(p) for p in players]
    return out


def stalled_game(variant, seed):
    """The length of a game played to last: quiet moves (steps onto empty cells) while the
    no-progress rule allows one more, then a capture (or, when none, a reveal, a draw or a
    put), never an action that ends the game while another does not."""
    v = anqi.Variant(variant)
    cells, moves, limit = v.size, v.moves, v.no_progress
    game = anqi.Game(v, seed=f"stall-{seed}")
    rng = random.Random(seed)
    quiet = 0

    def survives(i):
        g = game.clone()
        g.apply(i)
        return not g.is_terminal

    while not game.is_terminal:
        ids, board = game.legal_action_ids(), game.board
        is_quiet = lambda i: cells <= i < cells + len(moves) and board[moves[i - cells][1]] == "."  # noqa: E731
        steps = [i for i in ids if is_quiet(i)]
        progress = sorted((i for i in ids if not is_quiet(i)), key=lambda i: (i < cells, rng.random()))
        rng.shuffle(steps)
        choice = None
        if quiet >= limit - 2 or not steps:
            choice = next((i for i in progress if survives(i)), None)
        if choice is None and quiet < limit - 1:
            choice = next((i for i in steps if survives(i)), None)
        if choice is None:
            choice = next((i for i in progress if survives(i)), (steps or progress)[0])
        quiet = quiet + 1 if is_quiet(choice) else 0
        game.apply(choice)
    return game.ply


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
                pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)

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

    def test_states_serialize_and_come_back_equal_at_every_moment(self):
        # Chance nodes included: the state comes back with the same history, player, legal
        # actions, chance outcomes, returns, text and tensors, and plays on the same way.
        rng = random.Random(21)
        chance_nodes = 0
        for name in self.names:
            with self.subTest(name):
                game = pyspiel.load_game(name)
                state = game.new_initial_state()
                checked = 0
                while True:
                    if state.is_terminal() or rng.random() < (0.5 if state.is_chance_node() else 0.1):
                        back = game.deserialize_state(state.serialize())
                        self.assertEqual(facts(back), facts(state))
                        self.assertEqual(facts(pickle.loads(pickle.dumps(state))), facts(state))
                        _, again = pyspiel.deserialize_game_and_state(
                            pyspiel.serialize_game_and_state(game, state))
                        self.assertEqual(facts(again), facts(state))
                        checked += 1
                        chance_nodes += state.is_chance_node()
                        for _ in range(3):  # both play on alike
                            if state.is_terminal():
                                break
                            a = pick(state, rng)
                            state.apply_action(a)
                            back.apply_action(a)
                            self.assertEqual(facts(back), facts(state))
                    if state.is_terminal():
                        break
                    state.apply_action(pick(state, rng))
                self.assertGreater(checked, 1)
        self.assertGreater(chance_nodes, len(self.names), "chance nodes were serialized")

    def test_max_game_length_bounds_every_random_game_and_play_comes_near_it(self):
        for v in anqi.variants():
            bound = pyspiel.load_game(anqi.openspiel.game_name(v)).max_game_length()
            self.assertEqual(bound, anqi.openspiel.max_game_length(v))
            with self.subTest(v):
                if anqi.Variant(v).ply_cap:
                    # The rules stop the game there (reason "ply-cap" too).
                    self.assertLessEqual(bound, anqi.Variant(v).ply_cap)
                    continue
                # A game still going at `bound` plies would be stopped there as "ply-cap".
                r = anqi.playouts(v, n=2000, seed="bound", max_plies=bound)
                self.assertNotIn("ply-cap", r["by_reason"], (v, bound))
        # Not absurdly loose: a player that stalls (quiet moves while the no-progress rule
        # allows, then a capture or a reveal) plays games of more than half the bound on 4x8,
        # and near it on 8x16, where pieces have room to move without repeating a position.
        self.assertEqual(anqi.openspiel.max_game_length("traditional"), 10_983)
        for v, seeds, share in (("traditional", 3, 0.5), ("openspiel", 3, 0.5),
                                ("strategic", 3, 0.5), ("2v2-8x16", 1, 0.8)):
            bound = anqi.openspiel.max_game_length(v)
            longest = max(stalled_game(v, seed) for seed in range(seeds))
            self.assertLessEqual(longest, bound, v)
            self.assertGreater(longest, share * bound, (v, longest, bound))

    def test_the_seed_parameter_is_checked(self):
        with self.assertRaisesRegex(ValueError, "0 or more"):
            pyspiel.load_game("anqi_reveal_4(seed=-1)")
        text = "(variant (name endless) (board (rectangle 2 4)) (pieces Kk) (no-progress none))"
        with self.assertRaisesRegex(ValueError, "no-progress"):
            anqi.openspiel.max_game_length(anqi.Variant.from_description(text))
        with tempfile.TemporaryDirectory() as d:
            path = pathlib.Path(d) / "endless.sexp"
            path.write_text(text)
            with self.assertRaisesRegex(ValueError, "endless: no no-progress rule and no ply cap"):
                anqi.openspiel.register([str(path)])

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
