"""`anqi.VecGame` (PACKAGE.md, Batched stepping): each game is the `anqi.Game` its seed deals,
played the same way; the same seed gives the same games whatever the thread count; episodes
restart by themselves."""

import os
import signal
import unittest
import warnings

import anqi
import anqi.env

try:
    import numpy as np
except ImportError:  # the tests say so rather than pass in silence
    np = None


@unittest.skipIf(np is None, "numpy is not installed: pip install numpy")
class VecGames(unittest.TestCase):
    def test_each_game_is_the_game_its_seed_deals(self):
        for variant in ("traditional", "strategic", "2v2", "single"):
            with self.subTest(variant):
                n = 3
                vec = anqi.VecGame(variant, n=n, threads=2)
                obs, masks, rewards, dones, to_move = vec.reset(seed="s")
                games = [anqi.Game(variant, seed=f"s/{i}/0") for i in range(n)]
                episodes = [0] * n
                for step in range(300):
                    for i, g in enumerate(games):
                        np.testing.assert_array_equal(obs[i], g.observation_tensor(g.to_move))
                        np.testing.assert_array_equal(masks[i], g.legal_action_mask())
                        self.assertEqual(to_move[i], g.to_move)
                    actions = vec.random_actions()
                    for i, g in enumerate(games):
                        g.apply(int(actions[i]))
                    obs, masks, rewards, dones, to_move = vec.step(actions)
                    for i, g in enumerate(games):
                        self.assertEqual(bool(dones[i]), g.is_terminal)
                        if g.is_terminal:
                            won = g.outcome["winner_side"]
                            sides = g.variant_info.sides
                            for p in range(1, g.players + 1):
                                side = next(k for k, s in enumerate(sides) if p in s)
                                want = 0.0 if won is None else 1.0 if won == side else (
                                    0.0 if len(sides) == 1 else -1.0)
                                self.assertEqual(rewards[i, p - 1], want)
                            episodes[i] += 1
                            games[i] = anqi.Game(variant, seed=f"s/{i}/{episodes[i]}")
                        else:
                            self.assertFalse(rewards[i].any())
                self.assertEqual(vec.episodes, episodes)

    def test_every_variant_s_arrays_stay_equal_to_its_games_over_episodes(self):
        # Observations are updated in place, only where a ply changes them: played long enough
        # to cross episodes (and reveals, captures, chains, draws and puts), every step's arrays
        # must still equal what each game's own anqi.Game gives.
        for variant in anqi.variants():
            with self.subTest(variant):
                n = 2
                vec = anqi.VecGame(variant, n=n)
                obs, masks, rewards, dones, to_move = vec.reset(seed="e")
                for step in range(600 if "2x4" in variant or "3x4" in variant else 250):
                    for i in range(n):
                        g = vec.game(i)
                        np.testing.assert_array_equal(
                            obs[i], g.observation_tensor(g.to_move), err_msg=f"step {step} game {i}")
                        np.testing.assert_array_equal(masks[i], g.legal_action_mask())
                    obs, masks, rewards, dones, to_move = vec.step(vec.random_actions())
                if "2x4" in variant:
                    self.assertGreater(sum(vec.episodes), 0, "no episode ended: the test says nothing about resets")

    def test_grid_and_relative_observations_are_the_games_own_over_episodes(self):
        # Relative observations turn with the player to move (every ply in a two-player game):
        # each step's must still equal what the game's anqi.Game gives with the same options,
        # in every variant, over episodes, on one thread and on two.
        for variant in anqi.variants():
            grid = anqi.Variant(variant).rectangle is not None
            for threads in (1, 2):
                with self.subTest(variant=variant, threads=threads):
                    n = 130  # three blocks of 64: two threads share them
                    vec = anqi.VecGame(variant, n=n, threads=threads, grid=grid, relative=True)
                    self.assertEqual((vec.grid, vec.relative), (grid, True))
                    obs, masks, rewards, dones, to_move = vec.reset(seed=4)
                    if grid:
                        self.assertEqual(obs.shape, (n, anqi.env.PLANES, *anqi.Variant(variant).rectangle))
                    steps = 160 if "2x4" in variant else 60
                    for step in range(steps):
                        if step % 4 == 0 or step > steps - 3:
                            for i in (0, 63, 64, n - 1):
                                g = vec.game(i)
                                np.testing.assert_array_equal(
                                    obs[i], g.observation_tensor(g.to_move, grid=grid, relative=True),
                                    err_msg=f"step {step} game {i}")
                        obs, masks, rewards, dones, to_move = vec.step(vec.random_actions())
                    if "2x4" in variant:
                        self.assertGreater(sum(vec.episodes), 0, "no episode ended")

    def test_the_default_observations_do_not_change_with_the_options_off(self):
        plain = anqi.VecGame("traditional", n=3)
        spelled = anqi.VecGame("traditional", n=3, grid=False, relative=False)
        grid = anqi.VecGame("traditional", n=3, grid=True)
        a, b, c = plain.reset(seed=2), spelled.reset(seed=2), grid.reset(seed=2)
        for _ in range(40):
            np.testing.assert_array_equal(a[0], b[0])
            np.testing.assert_array_equal(c[0].reshape(a[0].shape), a[0])
            actions = plain.random_actions()
            a, b, c = plain.step(actions), spelled.step(actions), grid.step(actions)
        self.assertEqual(repr(grid), "<anqi.VecGame traditional x3 threads 1 grid>")
        with self.assertRaisesRegex(ValueError, "rectangular board.*cross"):
            anqi.VecGame("cross", n=2, grid=True)

    def test_the_arrays_are_read_only(self):
        vec = anqi.VecGame("traditional", n=2)
        for array in vec.reset(seed=1):
            self.assertFalse(array.flags.writeable)
            with self.assertRaises(ValueError):
                array[0] = 0
        kept = vec.step(vec.random_actions())[0].copy()
        kept[0] = 7  # a copy is the caller's own
        self.assertTrue(kept.flags.writeable)

    def test_no_array_handed_out_can_be_made_writeable(self):
        # numpy makes an array writeable again on request when it owns its memory or views a
        # writeable array: VecGame's were views of numpy.zeros arrays, and `writeable = True`
        # went through (issue 32), after which a value written stayed wrong. They are views of
        # memory that Python may only read: numpy refuses, for each of them and what is under it.
        vec = anqi.VecGame("traditional", n=2)
        handed = list(vec.reset(seed=1)) + list(vec.step(vec.random_actions()))
        self.assertEqual(len(handed), 10)
        for array in handed:
            with self.subTest(shape=array.shape, dtype=str(array.dtype)):
                with self.assertRaises(ValueError):
                    array.flags.writeable = True
                self.assertFalse(array.flags.writeable)
                base = array.base
                while isinstance(base, np.ndarray):
                    with self.assertRaises(ValueError):
                        base.flags.writeable = True
                    base = base.base
                self.assertTrue(memoryview(base).readonly, "the memory under it is read-only")
                with self.assertRaises(ValueError):
                    np.frombuffer(base, dtype=np.uint8).flags.writeable = True
        # The arrays go on matching the games.
        obs, masks, _, _, to_move = vec.step(vec.random_actions())
        for i in range(2):
            game = vec.game(i)
            np.testing.assert_array_equal(masks[i], game.legal_action_mask())
            np.testing.assert_array_equal(obs[i], game.observation_tensor(game.to_move))

    def test_a_batch_larger_than_memory_can_address_raises_memory_error(self):
        # n * 50 planes * 32 cells overflows: numpy used to say ValueError ("array is too big").
        for n in (2**62, 2**64 - 1):
            with self.subTest(n=n), self.assertRaisesRegex(MemoryError, "fewer games"):
                anqi.VecGame("traditional", n=n)
        # Nothing was kept: a batch of a normal size is made as always.
        self.assertEqual(len(anqi.VecGame("traditional", n=4)), 4)

    def test_a_batch_larger_than_the_memory_left_raises_memory_error(self):
        # n=400000 with room for the arrays and 64 MiB more: the games' own memory, allocated
        # after the arrays, did not fit, and Rust aborted the interpreter (issue 32). A process
        # of its own, its address space limited (RLIMIT_AS) to what it uses plus that.
        script = """
import resource, numpy, anqi
def used():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmSize:"))
n = 400000
arrays = sum(a.nbytes for a in anqi.VecGame("traditional", n=1).reset(seed=0)) * n
limit = used() + arrays + (64 << 20)
resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
try:
    anqi.VecGame("traditional", n=n)
    print("made")
except MemoryError as e:
    print("MemoryError:", e)
print("then", len(anqi.VecGame("traditional", n=16).reset(seed=1)))
"""
        import os
        import subprocess
        import sys
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                             env=env, timeout=300)
        self.assertEqual(out.returncode, 0, f"the interpreter died: {out.stderr[-2000:]}")
        self.assertIn("MemoryError:", out.stdout)
        self.assertIn("fewer games", out.stdout)
        self.assertIn("then 5", out.stdout)

    def test_the_same_seed_gives_the_same_arrays_and_draws_whatever_the_threads(self):
        # Games are shared out among the threads in blocks of 64 (PACKAGE.md): 300 games are
        # five blocks, the last one short, which 2, 3, 4 and 7 threads split every way, a
        # thread done with its own blocks taking others'. Every draw of random_actions and
        # every array, new episodes included, must come out as on one thread, bit for bit.
        for variant, steps in (("traditional", 120), ("traditional-2x4", 120), ("strategic", 60)):
            with self.subTest(variant):
                vecs = [anqi.VecGame(variant, n=300, threads=t) for t in (1, 2, 3, 4, 7)]
                outs = [vec.reset(seed="t") for vec in vecs]
                for step in range(steps):
                    for out in outs[1:]:
                        for a, b in zip(out, outs[0]):
                            np.testing.assert_array_equal(a, b, err_msg=f"step {step}")
                    draws = [vec.random_actions() for vec in vecs]
                    for d in draws[1:]:
                        np.testing.assert_array_equal(d, draws[0], err_msg=f"step {step}")
                    outs = [vec.step(d) for vec, d in zip(vecs, draws)]
                self.assertEqual(len({tuple(vec.episodes) for vec in vecs}), 1)
                if "2x4" in variant:
                    self.assertGreater(sum(vecs[0].episodes), 300, "episodes ended on threads")

    def test_a_refused_step_changes_nothing_draws_included(self):
        # A step is checked on the games' threads before any game plays (PACKAGE.md): one of
        # them refused leaves every game, and every game's generator of random actions, as it
        # was. Two VecGames of one seed, one of them refused a step before each step, go on
        # alike, random_actions called once, twice or not at all between steps (a step of
        # other actions), on one thread or several.
        for threads in (1, 3):
            with self.subTest(threads=threads):
                same, refused = (anqi.VecGame("traditional-2x4", n=200, threads=threads)
                                 for _ in range(2))
                same.reset(seed=5)
                refused.reset(seed=5)
                illegal = np.full(200, -1)
                for step in range(150):
                    with self.assertRaises(ValueError):
                        refused.step(illegal)
                    if step % 5 == 4:  # a step of other actions: the first legal id of each
                        masks = same.step(same.random_actions())[1]
                        refused.step(refused.random_actions())
                        actions = [masks.argmax(axis=1)] * 2
                    else:
                        for _ in range(1 + (step % 3 == 0)):
                            actions = [same.random_actions(), refused.random_actions()]
                            np.testing.assert_array_equal(*actions, err_msg=f"step {step}")
                    outs = [same.step(actions[0]), refused.step(actions[1])]
                    for a, b in zip(*outs):
                        np.testing.assert_array_equal(a, b, err_msg=f"step {step}")
                self.assertEqual(same.episodes, refused.episodes)
                self.assertGreater(sum(same.episodes), 200)

    def test_an_illegal_action_is_refused_before_any_game_steps_whatever_the_threads(self):
        # Each thread checks its own games: the first illegal one is named, and no game is
        # stepped, however the games are shared out.
        for threads in (1, 2, 3):
            with self.subTest(threads=threads):
                vec = anqi.VecGame("traditional", n=300, threads=threads)
                vec.reset(seed=2)
                actions = vec.random_actions()
                actions[[290, 150]] = 351  # a jump, illegal at the start
                with self.assertRaisesRegex(ValueError, r"^game 150: action 351"):
                    vec.step(actions)
                self.assertEqual({vec.game(i).ply for i in range(300)}, {0})
                vec.step(vec.random_actions())
                self.assertEqual({vec.game(i).ply for i in range(300)}, {1})

    @unittest.skipUnless(hasattr(os, "fork"), "no os.fork here")
    def test_a_child_forked_after_the_threads_started_steps_as_the_parent(self):
        # A VecGame's threads are started once and kept; a child forked from the process
        # (os.fork, multiprocessing's "fork") has none of them, nor may it use what they
        # shared (a lock one held at the fork): it starts its own. The alarm ends a child
        # that would hang.
        vec = anqi.VecGame("traditional", n=300, threads=2)
        vec.reset(seed=3)
        vec.step(vec.random_actions())
        read, write = os.pipe()
        with warnings.catch_warnings():
            # Python warns that a fork of a process with threads may deadlock its child.
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:
            try:
                signal.alarm(60)
                for _ in range(20):
                    obs = vec.step(vec.random_actions())[0]
                os.write(write, obs.tobytes()[:1 << 16] + b"ok")
            finally:
                os._exit(0)
        os.close(write)
        with os.fdopen(read, "rb") as pipe:
            got = pipe.read()
        _, status = os.waitpid(pid, 0)
        self.assertEqual(os.waitstatus_to_exitcode(status), 0)
        for _ in range(20):
            obs = vec.step(vec.random_actions())[0]
        self.assertEqual(got, obs.tobytes()[:1 << 16] + b"ok")

    def test_an_illegal_action_is_refused_before_any_game_steps(self):
        vec = anqi.VecGame("traditional", n=2)
        vec.reset(seed=1)
        actions = vec.random_actions()
        actions[1] = 351  # a jump, illegal at the start
        with self.assertRaisesRegex(ValueError, "game 1"):
            vec.step(actions)
        self.assertEqual(vec.game(0).ply, 0, "game 0 was not stepped")
        with self.assertRaisesRegex(ValueError, "2 games"):
            vec.step([0, 1, 2])

    def test_actions_of_any_integer_array_or_list(self):
        # The same actions as int64 (read as they are), big-endian, int32, a list and a
        # strided view: the same games.
        runs = []
        for convert in (
            lambda a: a,
            lambda a: a.astype(">i8"),
            lambda a: a.astype(np.int32),
            lambda a: a.tolist(),
            lambda a: np.repeat(a, 2)[::2],
        ):
            vec = anqi.VecGame("traditional", n=4)
            vec.reset(seed=8)
            for _ in range(30):
                obs = vec.step(convert(vec.random_actions()))[0]
            runs.append(obs.copy())
        for obs in runs[1:]:
            np.testing.assert_array_equal(obs, runs[0])

    def test_every_id_that_is_not_legal_is_refused(self):
        # Ids past the last, negative ones, and in each game every id its mask does not
        # have: each refused by name, the games left as they were; every legal one accepted.
        vec = anqi.VecGame("traditional", n=3)
        vec.reset(seed=4)
        for _ in range(40):  # into the middle game: moves, captures, reveals
            vec.step(vec.random_actions())
        masks = vec.step(vec.random_actions())[1].copy()
        plies = [vec.game(i).ply for i in range(3)]
        ids = masks.shape[1]
        for bad in (ids, ids + 1000, -1, 2**40):
            actions = vec.random_actions()
            actions[2] = bad
            with self.assertRaisesRegex(ValueError, "game 2"):
                vec.step(actions)
        for i in range(3):
            for id_ in np.flatnonzero(~masks[i]):
                actions = vec.random_actions()
                actions[i] = id_
                with self.assertRaisesRegex(ValueError, f"game {i}"):
                    vec.step(actions)
        self.assertEqual([vec.game(i).ply for i in range(3)], plies, "no game was stepped")
        # The last legal id of each game (a move, unlike most random picks) is accepted.
        episodes = vec.episodes
        vec.step(np.array([np.flatnonzero(masks[i])[-1] for i in range(3)]))
        for i in range(3):
            stepped = vec.game(i).ply == plies[i] + 1 or vec.episodes[i] == episodes[i] + 1
            self.assertTrue(stepped, f"game {i} was stepped")


    def test_the_threads_table_of_the_speed_script(self):
        # python -m anqi.speed's threads table: a VecGame of per_thread games a thread for each
        # thread count, taking turns; its report gives each count's ratio to one thread.
        from anqi import speed

        table = speed.measure_threads(0.2, "traditional-2x4", [2, 1, 2], per_thread=64, rounds=2)
        self.assertEqual(list(table.figures), [1, 2])
        for figures in table.figures.values():
            self.assertGreater(figures.plies, 0)
            self.assertGreater(figures.plies_per_second, 0)
        text = speed.report_threads(table)
        self.assertIn("VecGame of 64 games a thread", text)
        self.assertRegex(text, r"\n +1 +64 +[\d,]+ +1\.00x")
        self.assertRegex(text, r"\n +2 +128 +[\d,]+ +\d+\.\d\dx")

if __name__ == "__main__":
    unittest.main()
