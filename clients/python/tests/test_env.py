"""The environments (PACKAGE.md, Environments): PettingZoo's and Gymnasium's own checkers on every
shipped variant, seeds that replay, games that end with the rules' rewards, what an action is and
what an illegal one does, the observation's options, and the registration. Rendering is
tests/test_env_render.py's, the vector environment tests/test_env_vector.py's."""

import contextlib
import io
import os
import re
import subprocess
import sys
import unittest
import warnings

import anqi

try:
    import gymnasium
    import numpy as np
    import pettingzoo
    from gymnasium.utils.env_checker import check_env
    from pettingzoo.test import api_test, seed_test

    import anqi.env
except ImportError as e:  # the tests say so rather than pass in silence
    MISSING = f"{e.name} is not installed: pip install './clients/python[rl]'"
else:
    MISSING = None

try:
    import matplotlib

    matplotlib.use("Agg")  # check_env renders every mode, "human" included: no window
except ImportError:
    matplotlib = None


def quietly():
    """The checkers warn about every dict observation with an action mask (their own classic
    games' included) and print their progress."""
    stack = contextlib.ExitStack()
    stack.enter_context(warnings.catch_warnings())
    warnings.simplefilter("ignore")
    stack.enter_context(contextlib.redirect_stdout(io.StringIO()))
    return stack


def first_legal(obs):
    return int(np.flatnonzero(obs["action_mask"])[0])


def an_illegal_action(mask):
    return int(np.flatnonzero(mask == 0)[0])


# What step() must refuse as no action at all (TypeError), and integers of every accepted kind.
NOT_ACTIONS = [3.7, 3.0, True, np.bool_(False), "3", None, [3], (3,)] if not MISSING else []
if not MISSING:
    NOT_ACTIONS += [np.float32(3), np.array([3]), np.array(3.0), np.array(True)]


def as_kinds(a):
    return [a, np.int64(a), np.int32(a), np.uint16(a), np.array(a), np.array(a, dtype=np.int8)]


@unittest.skipIf(MISSING, MISSING or "")
class PettingZoo(unittest.TestCase):
    def test_the_api_and_seed_tests_pass_on_every_shipped_variant(self):
        for name in anqi.variants():
            with self.subTest(name), quietly():
                api_test(anqi.env.pettingzoo_env(name), num_cycles=60)
                seed_test(lambda: anqi.env.pettingzoo_env(name), num_cycles=60)

    def test_agents_are_named_from_0_as_indices_of_the_players(self):
        for name, players in (("single", 1), ("traditional", 2), ("1v2", 3), ("2v2", 4)):
            with self.subTest(name):
                env = anqi.env.pettingzoo_env(name)
                env.reset(seed=0)
                self.assertEqual(env.possible_agents, [f"player_{k}" for k in range(players)])
                for k, agent in enumerate(env.possible_agents):
                    self.assertEqual(env.player(agent), k + 1)
                    self.assertEqual(env.agent(k + 1), agent)
                # The agent selected is the game's player to move (from 1), as an index.
                for _ in range(8):
                    agent = env.agent_selection
                    self.assertEqual(agent, f"player_{env.game.to_move - 1}")
                    env.step(first_legal(env.observe(agent)))

    def test_a_whole_game_ends_with_the_rules_rewards(self):
        env = anqi.env.pettingzoo_env("2v2", render_mode="ansi")
        env.reset(seed=4)
        totals = {a: 0.0 for a in env.possible_agents}
        rng = np.random.default_rng(0)
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            totals[agent] += reward
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        outcome = env.game.outcome
        self.assertIsNotNone(outcome)
        self.assertIn("over:", env.render())
        # Teammates share their side's result; returns()[k] is agent player_k's.
        self.assertEqual([totals[a] for a in env.possible_agents], env.game.returns())
        for side in anqi.Variant("2v2").sides:
            self.assertEqual(len({totals[env.agent(p)] for p in side}), 1, totals)
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
            env.step(first_legal(obs))
        self.assertEqual(truncated, 4)

    def test_an_illegal_action_ends_the_game_as_the_offender_s_loss(self):
        for name in ("traditional", "1v2"):
            with self.subTest(name):
                env = anqi.env.pettingzoo_env(name)
                env.reset(seed=3)
                for _ in range(5):  # a few plies in, so that some moves are legal too
                    env.step(first_legal(env.observe(env.agent_selection)))
                offender = env.agent_selection
                board = env.game.board
                bad = an_illegal_action(env.observe(offender)["action_mask"])
                with warnings.catch_warnings():
                    warnings.simplefilter("error")  # ends silently: info says why
                    env.step(bad)
                self.assertEqual(env.game.board, board)  # not played
                self.assertTrue(all(env.terminations.values()))
                self.assertFalse(any(env.truncations.values()))
                self.assertEqual(env.agent_selection, offender)
                self.assertIn(env.game.action_text(bad), env.infos[offender]["illegal"])
                rewards = {}
                for agent in env.agent_iter():
                    obs, reward, term, trunc, info = env.last()
                    self.assertTrue(term)
                    self.assertFalse(obs["action_mask"].any())
                    rewards[agent] = reward
                    env.step(None)
                self.assertEqual(rewards, {a: -1.0 if a == offender else 0.0
                                           for a in env.possible_agents})

    def test_strict_mode_raises_naming_the_agent_the_action_and_why(self):
        env = anqi.env.pettingzoo_env("traditional", strict=True)
        env.reset(seed=3)
        env.step(first_legal(env.observe(env.agent_selection)))  # a reveal: player 2 to move
        agent = env.agent_selection
        mask = env.observe(agent)["action_mask"]
        bad = an_illegal_action(mask)
        board = env.game.board
        with self.assertRaises(ValueError) as cm:
            env.step(bad)
        message = str(cm.exception)
        self.assertIn(agent, message)
        self.assertIn(f"action {bad}", message)
        self.assertIn(env.game.action_text(bad), message)
        # Nothing happened: the same agent may still play.
        self.assertEqual((env.agent_selection, env.game.board), (agent, board))
        self.assertFalse(any(env.terminations.values()))
        env.step(first_legal(env.observe(agent)))

    def test_an_action_is_an_integer_and_nothing_else(self):
        env = anqi.env.pettingzoo_env("traditional")
        for action in NOT_ACTIONS:
            env.reset(seed=0)
            with self.subTest(action=action), self.assertRaisesRegex(
                    TypeError, r"player_0: action .*an action is an action id"):
                env.step(action)
        for action in (-1, 352, np.int64(400)):
            env.reset(seed=0)
            with self.subTest(action=action), self.assertRaisesRegex(
                    ValueError, "is not an action id: this variant's ids are 0..351"):
                env.step(action)
        # Every integer kind is an action, played as the same id.
        boards = set()
        for action in as_kinds(first_legal(env.observe("player_0"))):
            env.reset(seed=0)
            env.step(action)
            boards.add(env.game.board)
        self.assertEqual(len(boards), 1)


@unittest.skipIf(MISSING, MISSING or "")
class TensorLayout(unittest.TestCase):
    def test_every_environment_carries_the_layouts_version_and_planes(self):
        # The layout is the native module's (tensor.rs): the environments read it, and say
        # which version their observations have.
        for env in (anqi.env.pettingzoo_env("traditional"), anqi.env.gymnasium_env("traditional"),
                    anqi.env.vector_env(2, "traditional")):
            with self.subTest(type(env).__name__):
                self.assertEqual(env.metadata["tensor_version"], anqi.env.TENSOR_VERSION)
                space = (env.observation_space("player_0") if callable(env.observation_space)
                         else getattr(env, "single_observation_space", env.observation_space))
                self.assertEqual(space["observation"].shape, (anqi.env.PLANES, 32))
                self.assertEqual(anqi.env.PLANES, len(anqi.env.TENSOR_PLANES))


def plane(name):
    return anqi.env.TENSOR_PLANES.index(name)


@unittest.skipIf(MISSING, MISSING or "")
class ObservationOptions(unittest.TestCase):
    def test_grid_observations_are_game_s_grid_tensors(self):
        for name in ("traditional", "traditional-2x4", "2v2-8x16"):
            v = anqi.Variant(name)
            with self.subTest(name):
                env = anqi.env.pettingzoo_env(name, observation_shape="grid")
                env.reset(seed=2)
                for _ in range(20):
                    agent = env.agent_selection
                    obs = env.observe(agent)
                    self.assertEqual(obs["observation"].shape, (anqi.env.PLANES, *v.rectangle))
                    self.assertTrue(env.observation_space(agent).contains(obs))
                    np.testing.assert_array_equal(
                        obs["observation"],
                        env.game.observation_tensor(env.player(agent), grid=True))
                    env.step(first_legal(obs))
                gym = anqi.env.gymnasium_env(name, observation_shape="grid", seat=2)
                obs, _ = gym.reset(seed=1)
                np.testing.assert_array_equal(obs["observation"],
                                              gym.game.observation_tensor(2, grid=True))

    def test_grid_is_refused_where_the_board_is_not_a_rectangle(self):
        for make in (lambda: anqi.env.pettingzoo_env("cross", observation_shape="grid"),
                     lambda: anqi.env.gymnasium_env("cross", observation_shape="grid"),
                     lambda: anqi.env.vector_env(2, "cross", observation_shape="grid")):
            with self.assertRaisesRegex(ValueError, "cross's board is not a rectangle.*"
                                                    "observation_shape=\"flat\""):
                make()
        with self.assertRaisesRegex(ValueError, "observation_shape 'square'"):
            anqi.env.gymnasium_env("traditional", observation_shape="square")

    def test_relative_puts_the_observer_s_colour_first(self):
        # Played until the colours are decided, then each seat's relative tensor is its
        # absolute one where it moves red, and the colour-exchanged one where it moves black:
        # its own pieces on the upper-case planes, read by name.
        swapped_seen = unswapped_seen = 0
        for name in ("traditional", "2v2", "1v2", "strategic-2x4"):
            absolute = anqi.env.pettingzoo_env(name)
            relative = anqi.env.pettingzoo_env(name, relative=True)
            for env in (absolute, relative):
                env.reset(seed=5)
            for _ in range(30):
                if absolute.game.is_terminal:
                    break
                for agent in absolute.possible_agents:
                    x = absolute.observe(agent)["observation"]
                    y = relative.observe(agent)["observation"]
                    colour = absolute.game.observation(absolute.player(agent)).colour
                    with self.subTest(name=name, agent=agent, colour=colour):
                        if colour == "black":
                            swapped_seen += 1
                            for up, low in zip("KGBRNCP", "kgbrncp"):
                                for kind in ("up", "unseen", "hand"):
                                    np.testing.assert_array_equal(
                                        y[plane(f"{kind}-{up}")], x[plane(f"{kind}-{low}")])
                                    np.testing.assert_array_equal(
                                        y[plane(f"{kind}-{low}")], x[plane(f"{kind}-{up}")])
                            self.assertTrue(y[plane("red")].all())
                            self.assertFalse(y[plane("black")].any())
                        else:  # red, or undecided: unchanged
                            unswapped_seen += 1
                            np.testing.assert_array_equal(x, y)
                        for same in ("face-down", "empty", "to-move", "chain"):
                            np.testing.assert_array_equal(x[plane(same)], y[plane(same)])
                action = first_legal(absolute.observe(absolute.agent_selection))
                absolute.step(action)
                relative.step(action)
        self.assertGreater(swapped_seen, 50)
        self.assertGreater(unswapped_seen, 50)

    def test_relative_leaves_games_where_everyone_moves_both_colours(self):
        for name in ("single", "cooperative"):
            env = anqi.env.gymnasium_env(name, relative=True, seat=1)
            obs, _ = env.reset(seed=0)
            for _ in range(6):
                obs, *_ = env.step(first_legal(obs))
            np.testing.assert_array_equal(obs["observation"], env.game.observation_tensor(1))


@unittest.skipIf(MISSING, MISSING or "")
class Gymnasium(unittest.TestCase):
    @unittest.skipIf(matplotlib is None, "matplotlib is not installed (the \"human\" render mode's "
                                         "check): pip install matplotlib")
    def test_check_env_passes_on_every_shipped_variant_with_every_render_mode(self):
        # Made through the registry, so that check_env makes it again in each render mode.
        for name in anqi.variants():
            with self.subTest(name), quietly():
                env = gymnasium.make("anqi/Anqi-v0", variant=name, render_mode="rgb_array")
                check_env(env.unwrapped)

    def test_check_env_passes_against_each_reference_bot_a_callable_and_the_options(self):
        for opponent in ("random", "greedy", "search", lambda view: view.legal_actions()[0]):
            for name in ("traditional", "strategic", "1v2", "single"):
                with self.subTest(name=name, opponent=opponent), quietly():
                    check_env(anqi.env.gymnasium_env(name, opponent=opponent, depth=1),
                              skip_render_check=True)
        with quietly():
            # (Not strict: check_env plays actions sampled without the mask.)
            check_env(anqi.env.gymnasium_env("2v2", observation_shape="grid", relative=True),
                      skip_render_check=True)

    def test_episodes_end_with_the_agents_result(self):
        env = anqi.env.gymnasium_env("traditional-2x4", opponent="greedy", seat=2,
                                     render_mode="ansi")
        for episode in range(20):
            obs, info = env.reset(seed=episode)
            self.assertEqual(info["seat"], 2)
            done = False
            while not done:
                self.assertEqual(env.game.to_move, 2)
                np.testing.assert_array_equal(env.action_masks(), obs["action_mask"] == 1)
                np.testing.assert_array_equal(env.action_masks(), env.game.legal_action_mask())
                obs, reward, term, trunc, info = env.step(first_legal(obs))
                done = term or trunc
            won = info["outcome"]["winner_side"]  # seat 2's side is side 1
            self.assertEqual(reward, 0.0 if won is None else (1.0 if won == 1 else -1.0))
            self.assertEqual(reward, env.game.returns()[1])
            self.assertFalse(obs["action_mask"].any())
            self.assertFalse(env.action_masks().any())
        self.assertIn("over:", env.render())
        with self.assertRaisesRegex(RuntimeError, "call reset"):
            env.step(0)

    def test_a_seat_drawn_at_reset_is_said_in_info(self):
        env = anqi.env.gymnasium_env("1v2")
        seats = set()
        for seed in range(12):
            obs, info = env.reset(seed=seed)
            seats.add(info["seat"])
            self.assertEqual(env.game.to_move, info["seat"])
        self.assertEqual(seats, {1, 2, 3})

    def test_an_illegal_action_ends_the_episode_at_minus_1(self):
        env = anqi.env.gymnasium_env("traditional", seat=1)
        obs, _ = env.reset(seed=1)
        board = env.game.board
        bad = an_illegal_action(obs["action_mask"])
        obs, reward, term, trunc, info = env.step(bad)
        self.assertEqual((reward, term, trunc), (-1.0, True, False))
        self.assertIn(env.game.action_text(bad), info["illegal"])
        self.assertEqual(env.game.board, board)
        self.assertFalse(obs["action_mask"].any())

    def test_strict_mode_raises_and_leaves_the_episode_going(self):
        env = anqi.env.gymnasium_env("traditional", seat=2, strict=True)
        obs, _ = env.reset(seed=1)
        bad = an_illegal_action(obs["action_mask"])
        text = env.game.action_text(bad)
        with self.assertRaisesRegex(ValueError, re.escape(f"seat 2: action {bad} is not legal "
                                                          f"now: {text}: ")):
            env.step(bad)
        env.step(first_legal(obs))

    def test_an_action_is_an_integer_and_nothing_else(self):
        env = anqi.env.gymnasium_env("traditional", seat=1)
        for action in NOT_ACTIONS:
            env.reset(seed=0)
            with self.subTest(action=action), self.assertRaisesRegex(
                    TypeError, "an action is an action id: an int in range"):
                env.step(action)
            env.step(0)  # nothing was played: the episode goes on
        for action in (-1, 352):
            env.reset(seed=0)
            with self.subTest(action=action), self.assertRaisesRegex(ValueError,
                                                                     "not an action id"):
                env.step(action)
        results = set()
        for action in as_kinds(5):
            env.reset(seed=0)
            obs, *_ = env.step(action)
            results.add(obs["observation"].tobytes())
        self.assertEqual(len(results), 1)

    def test_what_cannot_be_is_refused(self):
        with self.assertRaisesRegex(ValueError, "one of random, greedy, search"):
            anqi.env.gymnasium_env("traditional", opponent="best")
        with self.assertRaisesRegex(ValueError, r"seats are 1..2 \(player ids, counted from 1\)"):
            anqi.env.gymnasium_env("traditional", seat=3)
        with self.assertRaisesRegex(ValueError, "render_mode 'video': one of 'ansi', "
                                                "'rgb_array', 'human'"):
            anqi.env.pettingzoo_env("traditional", render_mode="video")


@unittest.skipIf(MISSING, MISSING or "")
class Registration(unittest.TestCase):
    def test_make_gives_the_environment_with_its_arguments(self):
        env = gymnasium.make("anqi/Anqi-v0", variant="1v2", opponent="greedy", seat=3,
                             observation_shape="grid")
        self.assertIsInstance(env.unwrapped, anqi.env.gymnasium_single.AnqiGym)
        self.assertIsNone(env.spec.max_episode_steps)
        obs, info = env.reset(seed=0)
        self.assertEqual(info["seat"], 3)
        self.assertEqual(obs["observation"].shape, (anqi.env.PLANES, 4, 8))
        env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))

    def test_make_vec_gives_the_native_vector_environment(self):
        envs = gymnasium.make_vec("anqi/Anqi-v0", num_envs=8,
                                  vectorization_mode="vector_entry_point", variant="2v2", seat=1)
        self.assertIsInstance(envs, anqi.env.vector.AnqiVectorEnv)
        self.assertEqual(envs.num_envs, 8)
        obs, info = envs.reset(seed=0)
        self.assertEqual(obs["action_mask"].shape, (8, anqi.Variant("2v2").num_distinct_actions))
        # The single environment's copies are there too, for the reference bots.
        with quietly():
            sync = gymnasium.make_vec("anqi/Anqi-v0", num_envs=2, vectorization_mode="sync",
                                      opponent="greedy")
        sync.reset(seed=0)
        with self.assertRaisesRegex(ValueError, "vectorization_mode=\"sync\""):
            gymnasium.make_vec("anqi/Anqi-v0", num_envs=2, opponent="greedy")

    def test_the_module_qualified_id_works_without_importing_anqi(self):
        code = ("import sys, gymnasium\n"
                "env = gymnasium.make('anqi.env:anqi/Anqi-v0', variant='traditional-2x4')\n"
                "obs, info = env.reset(seed=0)\n"
                "print(obs['observation'].shape, 'anqi' in sys.modules)\n")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
                             timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout.strip(), f"({anqi.env.PLANES}, 8) True")


if __name__ == "__main__":
    unittest.main()
