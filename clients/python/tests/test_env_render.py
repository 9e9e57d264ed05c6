"""The environments' pictures (PACKAGE.md, Environments; anqi/env/render.py): every shipped
variant renders, with numpy alone; each cell is drawn where its variant puts it, in its state;
two positions give two frames; Gymnasium's and PettingZoo's render contracts hold, and
RecordVideo writes a video where moviepy is installed."""

import contextlib
import io
import os
import random
import sys
import tempfile
import unittest
import warnings
from unittest import mock

import anqi

try:
    import gymnasium
    import numpy as np
    from pettingzoo.test import render_test

    import anqi.env
    from anqi.env import render
except ImportError as e:  # the tests say so rather than pass in silence
    MISSING = f"{e.name} is not installed: pip install './clients/python[rl]'"
else:
    MISSING = None

try:
    import matplotlib

    matplotlib.use("Agg")  # the "human" mode draws into a figure, no window
except ImportError:
    matplotlib = None
NO_MATPLOTLIB = "matplotlib is not installed (the \"human\" render mode): pip install matplotlib"

RING = """(variant (name ring)
  (board (cells 6)
         (moves (0 1) (0 5) (1 2) (1 0) (2 3) (2 1) (3 4) (3 2) (4 5) (4 3) (5 0) (5 4))
         (jumps (0 2 2) (3 1 1)))
  (pieces Cp) (colours fixed) (start open))"""


def played(variant, plies, seed=0):
    """A game of `variant` after up to `plies` random plies."""
    game = anqi.Game(variant, seed=str(seed))
    rng = random.Random(seed)
    for _ in range(plies):
        if game.is_terminal:
            break
        game.play(rng.choice(game.legal_actions()))
    return game


def pixel(frame, centre, dy=0, dx=0):
    return tuple(int(c) for c in frame[centre[0] + dy, centre[1] + dx])


@unittest.skipIf(MISSING, MISSING or "")
class Frames(unittest.TestCase):
    def test_every_shipped_variant_renders_every_cell_in_its_state(self):
        # Each cell's centre pixel tells its state: the face-down disc, the board's dot for an
        # empty cell, a face-up piece's letter or its light face; its ring is its colour.
        for name in anqi.variants():
            with self.subTest(name):
                v = anqi.Variant(name)
                r = render.BoardRenderer(v)
                game = played(name, 40)
                frame = r.frame(game.board)
                self.assertEqual(frame.dtype, np.uint8)
                self.assertEqual(frame.shape, r.shape)
                self.assertEqual((frame.shape[0] % 16, frame.shape[1] % 16), (0, 0))
                # Cells where the variant puts them: its coordinates, a pitch apart.
                rows, cols = np.asarray(v.coords).T
                for a, b in ((0, 1), (0, v.size - 1)):
                    self.assertEqual(tuple(r.centres[b] - r.centres[a]),
                                     ((rows[b] - rows[a]) * render.PITCH,
                                      (cols[b] - cols[a]) * render.PITCH))
                for cell, ch in enumerate(game.board):
                    centre = r.centres[cell]
                    ring = pixel(frame, centre, dy=-render.RADIUS + 1)
                    if ch == "." or (ch == "X" and v.start == "bag"):
                        self.assertEqual(pixel(frame, centre), render.LINES, (cell, ch))
                        self.assertNotIn(ring, (render.RED, render.BLACK, render.FACE_DOWN))
                    elif ch == "X":
                        self.assertEqual(pixel(frame, centre), render.FACE_DOWN, (cell, ch))
                    else:
                        colour = render.RED if ch.isupper() else render.BLACK
                        self.assertEqual(ring, colour, (cell, ch))
                        # The letter is drawn: its glyph's pixels, in the piece's colour.
                        glyph = np.kron(render.FONT[ch], np.ones((render.SCALE,) * 2, bool))
                        h, w = glyph.shape
                        box = frame[centre[0] - h // 2:centre[0] - h // 2 + h,
                                    centre[1] - w // 2:centre[1] - w // 2 + w]
                        self.assertTrue((box[glyph] == colour).all(), (cell, ch))
                        self.assertTrue((box[~glyph] == render.FACE_UP).all(), (cell, ch))

    def test_two_positions_give_two_frames_and_one_position_one(self):
        for name in ("traditional", "cross", "2v2-8x16", "strategic-2x4"):
            with self.subTest(name):
                r = render.BoardRenderer(anqi.Variant(name))
                a, b = played(name, 10), played(name, 11)
                self.assertNotEqual(a.board, b.board)
                self.assertFalse(np.array_equal(r.frame(a.board), r.frame(b.board)))
                np.testing.assert_array_equal(r.frame(a.board), r.frame(a.board))

    def test_the_letters_are_fourteen_distinct_glyphs(self):
        self.assertEqual(set(render.FONT), set("KGBRNCPkgbrncp"))
        shapes = {g.tobytes() for g in render.FONT.values()}
        self.assertEqual(len(shapes), 14)
        for letter, glyph in render.FONT.items():
            self.assertEqual(glyph.shape, (7, 5), letter)

    def test_moves_are_drawn_as_lines_and_only_moves(self):
        # Half-way between two cells a step apart is the line's colour; between two cells of
        # a row that are not neighbours (cross: the gaps of its shape), the background.
        v = anqi.Variant("cross")
        r = render.BoardRenderer(v)
        frame = r.frame("." * v.size)
        for a, b in v.moves[:20]:
            mid = (r.centres[a] + r.centres[b]) // 2
            self.assertEqual(pixel(frame, mid), render.LINES, (a, b))
        self.assertEqual(pixel(frame, (r.centres[0] + r.centres[8]) // 2 + (0, 0)),
                         render.BACKGROUND)

    def test_a_board_without_coordinates_is_drawn_on_a_circle(self):
        v = anqi.Variant.from_description(RING)
        self.assertIsNone(v.coords)
        r = render.BoardRenderer(v)
        centre = r.centres.mean(axis=0)
        distances = np.hypot(*(r.centres - centre).T)
        self.assertLess(distances.max() - distances.min(), 2)
        self.assertLess(r.centres[0, 0], r.centres[3, 0])  # cell 0 at the top
        game = anqi.Game(v, seed="1")
        frame = r.frame(game.board)
        for cell, ch in enumerate(game.board):
            if ch != ".":
                self.assertEqual(pixel(frame, r.centres[cell], dy=-render.RADIUS + 1),
                                 render.RED if ch.isupper() else render.BLACK)

    def test_a_board_string_of_another_size_is_refused(self):
        with self.assertRaisesRegex(ValueError, "a board of 8 cells for traditional's 32"):
            render.BoardRenderer(anqi.Variant("traditional")).frame("X" * 8)


@unittest.skipIf(MISSING, MISSING or "")
class RenderModes(unittest.TestCase):
    def test_rgb_array_is_the_frame_of_the_game_now_in_both_environments(self):
        for name in ("traditional", "cross", "1v2", "2v2"):
            with self.subTest(name):
                r = render.BoardRenderer(anqi.Variant(name))
                aec = anqi.env.pettingzoo_env(name, render_mode="rgb_array")
                aec.reset(seed=0)
                for _ in range(6):
                    aec.step(int(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"])[0]))
                np.testing.assert_array_equal(aec.render(), r.frame(aec.game.board))
                gym = anqi.env.gymnasium_env(name, render_mode="rgb_array")
                obs, _ = gym.reset(seed=0)
                first = gym.render()
                gym.step(int(np.flatnonzero(obs["action_mask"])[0]))
                np.testing.assert_array_equal(gym.render(), r.frame(gym.game.board))
                self.assertFalse(np.array_equal(first, gym.render()))

    def test_ansi_is_the_board_by_rows(self):
        env = anqi.env.gymnasium_env("traditional", render_mode="ansi", seat=1)
        env.reset(seed=0)
        text = env.render()
        self.assertEqual(text.splitlines(), ["traditional ply 0, player 1 to move"]
                         + ["X" * 8] * 4)

    def test_no_render_mode_warns_and_renders_nothing(self):
        env = anqi.env.gymnasium_env("traditional")
        env.reset(seed=0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            self.assertIsNone(env.render())
        self.assertIn("render_mode=\"ansi\", \"rgb_array\" or \"human\"", str(caught[0].message))

    @unittest.skipIf(matplotlib is None, NO_MATPLOTLIB)
    def test_human_shows_the_frames_in_a_matplotlib_figure(self):
        import matplotlib.pyplot as plt

        env = anqi.env.gymnasium_env("cross", render_mode="human", seat=1)
        obs, _ = env.reset(seed=0)  # renders
        figure = plt.gcf()
        shown = figure.axes[0].images[0]
        np.testing.assert_array_equal(shown.get_array(),
                                      render.BoardRenderer(anqi.Variant("cross")).frame(env.game.board))
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))  # renders again, same figure
        self.assertIs(plt.gcf(), figure)
        np.testing.assert_array_equal(shown.get_array(),
                                      render.BoardRenderer(anqi.Variant("cross")).frame(env.game.board))
        self.assertIsNone(env.render())
        env.close()
        self.assertFalse(plt.fignum_exists(figure.number))

    def test_human_without_matplotlib_says_what_to_install(self):
        with mock.patch.dict(sys.modules, {"matplotlib": None}):
            for make in (lambda: anqi.env.gymnasium_env("traditional", render_mode="human"),
                         lambda: anqi.env.pettingzoo_env("traditional", render_mode="human")):
                with self.assertRaises(gymnasium.error.DependencyNotInstalled) as cm:
                    make()
                self.assertIn("pip install matplotlib", str(cm.exception))
                self.assertIn("rgb_array", str(cm.exception))
        # rgb_array needs none of it.
        with mock.patch.dict(sys.modules, {"matplotlib": None, "matplotlib.pyplot": None}):
            env = anqi.env.pettingzoo_env("traditional", render_mode="rgb_array")
            env.reset(seed=0)
            self.assertEqual(env.render().ndim, 3)

    @unittest.skipIf(matplotlib is None, NO_MATPLOTLIB)
    def test_pettingzoo_s_render_test_passes_on_every_mode(self):
        for name in ("traditional", "cross", "2v2-8x16"):
            with self.subTest(name), contextlib.redirect_stdout(io.StringIO()):
                render_test(lambda render_mode=None: anqi.env.pettingzoo_env(
                    name, render_mode=render_mode))

    def test_gymnasium_s_render_collection_gathers_the_frames(self):
        env = gymnasium.wrappers.RenderCollection(
            gymnasium.make("anqi/Anqi-v0", variant="1v2", render_mode="rgb_array"))
        obs, _ = env.reset(seed=0)
        for _ in range(3):
            obs, *_ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        frames = env.render()
        self.assertEqual(len(frames), 4)
        for frame in frames:
            self.assertEqual((frame.dtype, frame.ndim, frame.shape[2]), (np.uint8, 3, 3))

    def test_record_video_writes_a_video(self):
        try:
            import moviepy  # noqa: F401
        except ImportError:
            self.skipTest("moviepy is not installed (gymnasium's RecordVideo writes with it): "
                          "pip install moviepy")
        with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            env = gymnasium.wrappers.RecordVideo(
                gymnasium.make("anqi/Anqi-v0", variant="cross", render_mode="rgb_array"),
                folder, episode_trigger=lambda episode: True, disable_logger=True)
            obs, _ = env.reset(seed=0)
            done = False
            while not done:
                obs, _, term, trunc, _ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
                done = term or trunc
            env.close()
            videos = [f for f in os.listdir(folder) if f.endswith(".mp4")]
            self.assertEqual(len(videos), 1, os.listdir(folder))
            self.assertGreater(os.path.getsize(os.path.join(folder, videos[0])), 1000)


if __name__ == "__main__":
    unittest.main()
