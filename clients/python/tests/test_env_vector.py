"""The vector environment (PACKAGE.md, Environments; anqi/env/vector.py): every step of every game
is what `anqi.Game` gives for the same actions (observations, masks, rewards, the final
observation and outcome, the same-step reset), the opponents play until the agent is to move,
seeds replay, illegal and malformed actions are handled as in the single environment, and
Gymnasium's vector wrappers read it."""

import unittest

import anqi

try:
    import gymnasium
    import numpy as np

    import anqi.env
    from anqi.env import _common
except ImportError as e:  # the tests say so rather than pass in silence
    MISSING = f"{e.name} is not installed: pip install './clients/python[rl]'"
else:
    MISSING = None


def lowest_legal(obs, masks):
    """A batch policy the test can follow by hand: each game's lowest legal id."""
    return masks.argmax(axis=1)


def agent_actions(env, rng):
    return np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()])


@unittest.skipIf(MISSING, MISSING or "")
class AgainstTheRules(unittest.TestCase):
    def check_against_games(self, name, seat, steps, shape="flat", relative=False, seed=0):
        """Plays `steps` random agent steps against `lowest_legal`, following every game in an
        `anqi.Game`: before each step, the game as it is; then the agent's action and the
        opponents' lowest legal ids until the agent is to move or the game is over."""
        v = anqi.Variant(name)
        n = 4
        env = anqi.env.vector_env(n, name, opponent=lowest_legal, seat=seat,
                                  observation_shape=shape, relative=relative)
        observer = _common.Observer(v, shape, relative)
        obs, info = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        ends = 0
        for _ in range(steps):
            seats = info["seat"]
            for i in range(n):
                game = env.game(i)
                self.assertEqual(game.to_move, seats[i])
                tensor = game.observation_tensor(int(seats[i]), relative=relative)
                np.testing.assert_array_equal(obs["observation"][i], observer(tensor))
                np.testing.assert_array_equal(obs["action_mask"][i], game.legal_action_mask())
            np.testing.assert_array_equal(env.action_masks(), obs["action_mask"] == 1)
            self.assertTrue(env.observation_space.contains(obs))
            actions = agent_actions(env, rng)
            expected = []
            for i in range(n):
                game = env.game(i)
                game.apply(int(actions[i]))
                while not game.is_terminal and game.to_move != seats[i]:
                    game.apply(int(game.legal_action_mask().argmax()))
                expected.append(game)
            obs, rewards, terminated, truncated, info = env.step(actions)
            self.assertFalse(truncated.any())
            for i, game in enumerate(expected):
                if game.is_terminal:
                    ends += 1
                    self.assertTrue(terminated[i])
                    self.assertEqual(rewards[i], game.returns()[seats[i] - 1])
                    self.assertIn(rewards[i], (-1.0, 0.0, 1.0))
                    self.assertTrue(info["_final_obs"][i])
                    final = info["final_obs"][i]
                    tensor = game.observation_tensor(int(seats[i]), relative=relative)
                    np.testing.assert_array_equal(final["observation"], observer(tensor))
                    self.assertFalse(final["action_mask"].any())
                    self.assertEqual(info["final_info"]["seat"][i], seats[i])
                    self.assertEqual(info["final_info"]["outcome"][i], game.outcome)
                    # Same-step reset: a new deal, the agent to move, only the opponents'
                    # opening plies played (a bag draw and its put are two).
                    now = env.game(i)
                    self.assertLess(now.ply, 2 * v.players)
                    self.assertEqual(now.to_move, info["seat"][i])
                else:
                    self.assertFalse(terminated[i])
                    self.assertEqual(rewards[i], 0.0)
                    self.assertFalse(info.get("_final_obs", np.zeros(n, bool))[i])
                    now = env.game(i)
                    self.assertEqual((now.board, now.ply, now.to_move),
                                     (game.board, game.ply, game.to_move))
        return ends

    def test_two_player_games_with_a_fixed_and_a_drawn_seat(self):
        self.assertGreater(self.check_against_games("traditional-2x4", seat=None, steps=60), 4)
        self.assertGreater(self.check_against_games("traditional-2x4", seat=2, steps=40), 2)

    def test_games_where_a_player_keeps_the_turn(self):
        # Bag draws (the drawer puts next) and chain captures: several plies between turns.
        self.assertGreater(self.check_against_games("strategic-2x4", seat=2, steps=40), 0)
        self.check_against_games("chain-capture", seat=1, steps=40)

    def test_three_and_four_players_teams_and_one_player(self):
        for name in ("1v2", "2v2", "single", "cooperative"):
            with self.subTest(name):
                self.check_against_games(name, seat=None, steps=25)

    def test_grid_observations_are_game_s_grid_tensors(self):
        # The VecGame's (n, PLANES, cells) arrays reshaped: what Game gives with grid=True.
        for name in ("traditional", "2v2-8x16"):
            env = anqi.env.vector_env(3, name, observation_shape="grid")
            obs, info = env.reset(seed=4)
            rng = np.random.default_rng(4)
            for _ in range(10):
                for i in range(3):
                    np.testing.assert_array_equal(
                        obs["observation"][i],
                        env.game(i).observation_tensor(int(info["seat"][i]), grid=True))
                obs, _, _, _, info = env.step(agent_actions(env, rng))

    def test_grid_and_relative_observations(self):
        self.check_against_games("traditional-2x4", seat=None, steps=30, shape="grid",
                                 relative=True)
        self.check_against_games("2v2", seat=2, steps=20, relative=True)


@unittest.skipIf(MISSING, MISSING or "")
class RandomOpponents(unittest.TestCase):
    def test_rewards_come_at_ends_only_and_the_agent_is_always_to_move(self):
        for name in ("traditional-2x4", "strategic-2x4", "1v2", "2v2", "single"):
            with self.subTest(name):
                env = anqi.env.vector_env(16, name)
                obs, info = env.reset(seed=1)
                rng = np.random.default_rng(1)
                ends = 0
                for _ in range(60):
                    obs, rewards, terminated, truncated, info = env.step(agent_actions(env, rng))
                    self.assertFalse(truncated.any())
                    self.assertTrue(np.isin(rewards[terminated], (-1.0, 0.0, 1.0)).all())
                    self.assertFalse(rewards[~terminated].any())
                    np.testing.assert_array_equal(info.get("_final_obs", terminated), terminated)
                    ends += terminated.sum()
                    for i in range(env.num_envs):
                        game = env.game(i)
                        self.assertEqual(game.to_move, info["seat"][i])
                        np.testing.assert_array_equal(obs["action_mask"][i],
                                                      game.legal_action_mask())
                if name != "single":  # one player clearing the board at random: long games
                    self.assertGreater(ends, 0)

    def test_the_same_seed_replays_and_game_i_is_seeded_with_seed_plus_i(self):
        def trajectory(seed):
            env = anqi.env.vector_env(3, "traditional-2x4")
            obs, info = env.reset(seed=seed)
            rng = np.random.default_rng(0)
            out = [obs["observation"].tobytes(), info["seat"].tobytes()]
            for _ in range(30):
                obs, rewards, *_ = env.step(agent_actions(env, rng))
                out += [obs["observation"].tobytes(), rewards.tobytes()]
            return out

        self.assertEqual(trajectory(7), trajectory(7))
        self.assertNotEqual(trajectory(7), trajectory(8))
        self.assertEqual(trajectory(7), trajectory([7, 8, 9]))

    def test_seats_drawn_per_episode_cover_every_seat(self):
        env = anqi.env.vector_env(12, "1v2")
        _, info = env.reset(seed=0)
        self.assertEqual(set(info["seat"]), {1, 2, 3})
        env = anqi.env.vector_env(12, "1v2", seat=3)
        _, info = env.reset(seed=0)
        self.assertEqual(set(info["seat"]), {3})


@unittest.skipIf(MISSING, MISSING or "")
class Actions(unittest.TestCase):
    def test_an_illegal_action_ends_that_game_s_episode_at_minus_1(self):
        env = anqi.env.vector_env(3, "traditional", seat=1)
        obs, _ = env.reset(seed=0)
        actions = env.action_masks().argmax(axis=1)
        bad = int(np.flatnonzero(obs["action_mask"][1] == 0)[0])
        actions[1] = bad
        text = env.game(1).action_text(bad)
        before = obs["observation"][1].copy()
        obs, rewards, terminated, truncated, info = env.step(actions)
        np.testing.assert_array_equal(terminated, [False, True, False])
        self.assertEqual(rewards[1], -1.0)
        self.assertIn(text, info["final_info"]["illegal"][1])
        np.testing.assert_array_equal(info["final_obs"][1]["observation"], before)
        self.assertEqual(env.game(1).ply, 0)  # a new deal, seat 1 first
        self.assertEqual(env.game(0).ply, 2)  # the others played on

    def test_strict_mode_raises_naming_the_game_and_steps_none(self):
        env = anqi.env.vector_env(3, "traditional", seat=1, strict=True)
        obs, _ = env.reset(seed=0)
        actions = env.action_masks().argmax(axis=1)
        bad = int(np.flatnonzero(obs["action_mask"][2] == 0)[0])
        actions[2] = bad
        with self.assertRaisesRegex(ValueError, rf"game 2 \(seat 1\): action {bad} is not legal "
                                                r"now: .*\(no game was stepped\)"):
            env.step(actions)
        self.assertEqual([env.game(i).ply for i in range(3)], [0, 0, 0])

    def test_actions_are_an_integer_array_of_one_id_per_game(self):
        env = anqi.env.vector_env(2, "traditional", seat=1)
        env.reset(seed=0)
        for actions in ([0.0, 1.0], np.array([0.5, 1.5]), [True, False], ["0", "1"]):
            with self.subTest(actions=actions), self.assertRaisesRegex(
                    TypeError, "an integer array of 2 action ids"):
                env.step(actions)
        with self.assertRaisesRegex(ValueError, r"shape \(3,\): one action id per game"):
            env.step([0, 1, 2])
        with self.assertRaisesRegex(ValueError, "game 1: action 352 is not an action id"):
            env.step([0, 352])
        for actions in ([0, 1], np.array([0, 1], dtype=np.int32), np.array([0, 1], np.uint8)):
            env.reset(seed=0)
            obs, *_ = env.step(actions)

    def test_the_opponent_policy_s_answers_are_checked(self):
        for policy, error, pattern in (
                (lambda obs, masks: masks.argmax(axis=1).astype(float), TypeError,
                 "must return 2 action ids"),
                (lambda obs, masks: masks.argmax(axis=1)[:1], TypeError, "must return 2"),
                (lambda obs, masks: np.argmin(masks, axis=1), ValueError,
                 r"chose action \d+ in game 0 \(row 0 of its batch\), which is not legal")):
            env = anqi.env.vector_env(2, "traditional", seat=2, opponent=policy)
            with self.subTest(pattern), self.assertRaisesRegex(error, pattern):
                env.reset(seed=0)

    def test_the_policy_sees_the_opponent_s_view_shaped_as_the_agent_s(self):
        seen = []

        def policy(obs, masks):
            seen.append((obs.shape, masks.shape, masks.dtype))
            return masks.argmax(axis=1)

        env = anqi.env.vector_env(3, "traditional", seat=2, opponent=policy,
                                  observation_shape="grid")
        env.reset(seed=0)
        self.assertEqual(seen, [((3, anqi.env.PLANES, 4, 8), (3, 352), np.bool_)])

    def test_what_cannot_be_is_refused(self):
        with self.assertRaisesRegex(ValueError, "vectorization_mode=\"sync\""):
            anqi.env.vector_env(2, "traditional", opponent="greedy")
        with self.assertRaisesRegex(ValueError, "num_envs 0"):
            anqi.env.vector_env(0, "traditional")
        with self.assertRaisesRegex(ValueError, "seats are 1..4"):
            anqi.env.vector_env(2, "2v2", seat=5)
        with self.assertRaisesRegex(ValueError, "render_mode 'human'"):
            anqi.env.vector_env(2, "traditional", render_mode="human")
        with self.assertRaisesRegex(RuntimeError, "before reset"):
            anqi.env.vector_env(2, "traditional").step([0, 0])


@unittest.skipIf(MISSING, MISSING or "")
class Gymnasium(unittest.TestCase):
    def test_truncation_at_max_plies_gives_the_last_observation(self):
        env = anqi.env.vector_env(4, "traditional", seat=1, max_plies=6)
        obs, _ = env.reset(seed=0)
        for step in range(1, 4):
            before = [env.game(i) for i in range(4)]
            obs, rewards, terminated, truncated, info = env.step(env.action_masks().argmax(1))
            self.assertFalse(terminated.any())
            self.assertFalse(rewards.any())
            if step < 3:  # plies 2 and 4
                self.assertFalse(truncated.any())
            else:  # ply 6: the agent would be to move again
                self.assertTrue(truncated.all())
                self.assertTrue(info["_final_obs"].all())
                for i in range(4):
                    self.assertFalse(info["final_obs"][i]["action_mask"].any())
                    self.assertEqual(env.game(i).ply, 0)
                    self.assertNotEqual(before[i].ply, 0)

    def test_record_episode_statistics_reads_the_same_step_resets(self):
        env = gymnasium.wrappers.vector.RecordEpisodeStatistics(
            gymnasium.make_vec("anqi/Anqi-v0", num_envs=8, variant="traditional-2x4"))
        env.reset(seed=0)
        rng = np.random.default_rng(0)
        episodes = 0
        for _ in range(80):
            actions = agent_actions(env.unwrapped, rng)
            _, rewards, terminated, truncated, info = env.step(actions)
            if "episode" in info:
                done = info["_episode"]
                episodes += done.sum()
                np.testing.assert_array_equal(info["episode"]["r"][done], rewards[done])
                self.assertTrue((info["episode"]["l"][done] >= 1).all())
        self.assertGreater(episodes, 5)

    def test_render_gives_every_game_s_picture(self):
        env = anqi.env.vector_env(3, "cross", render_mode="rgb_array")
        env.reset(seed=0)
        frames = env.render()
        self.assertEqual(len(frames), 3)
        for frame in frames:
            self.assertEqual((frame.dtype, frame.ndim, frame.shape[2]), (np.uint8, 3, 3))
        text = anqi.env.vector_env(2, "traditional", render_mode="ansi")
        text.reset(seed=0)
        self.assertEqual(len(text.render()), 2)


if __name__ == "__main__":
    unittest.main()
