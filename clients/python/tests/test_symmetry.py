"""`anqi.symmetries`: every symmetry of every shipped variant maps legal actions to legal actions,
observation tensors to observation tensors, and games to games that end alike.

The tensor check is also where Python and Rust must agree on the layout: `Symmetry.tensor` moves
planes by the native module's `TENSOR_COLOUR_SWAP`, and the image game's tensor is written by
tensor.rs itself, so a colour swap table that disagrees with the planes written fails here."""

import random
import unittest

import anqi

try:
    import numpy as np
except ImportError:  # the tensor checks say so rather than pass in silence
    np = None

MAX_PLIES = 150


class Symmetries(unittest.TestCase):
    def test_the_groups_of_some_boards(self):
        names = lambda v: [s.name for s in anqi.symmetries(v)]  # noqa: E731
        self.assertEqual(
            names("traditional"),
            ["identity", "mirror-rows", "mirror-columns", "rotate-180",
             "colours", "mirror-rows+colours", "mirror-columns+colours", "rotate-180+colours"],
        )
        self.assertEqual(names("puzzle"), ["identity"], "a fixed start is part of the rules")
        for v in anqi.variants():
            syms = anqi.symmetries(v)
            self.assertEqual(syms[0].name, "identity")
            n = anqi.Variant(v).num_distinct_actions
            for s in syms:
                # Permutations, and the identity among them.
                self.assertEqual(sorted(s.cells), list(range(len(s.cells))), (v, s.name))
                self.assertEqual(sorted(s.actions), list(range(n)), (v, s.name))

    def test_games_map_to_games_that_play_and_end_alike(self):
        rng = random.Random(11)
        for v in anqi.variants():
            for s in anqi.symmetries(v):
                with self.subTest(variant=v, symmetry=s.name):
                    game = anqi.Game(v, seed=f"{v}-{s.name}")
                    image = anqi.Game(v, deal=s.deal(game.deal))
                    self.assertEqual(image.board, s.board(game.board))
                    plies = 0
                    while not game.is_terminal and plies < MAX_PLIES:
                        ids = game.legal_action_ids()
                        self.assertEqual(
                            sorted(s.actions[i] for i in ids), sorted(image.legal_action_ids())
                        )
                        if np is not None and plies % 5 == 0:
                            p = game.to_move
                            np.testing.assert_array_equal(
                                s.tensor(game.observation_tensor(p)), image.observation_tensor(p)
                            )
                            np.testing.assert_array_equal(
                                s.policy(game.legal_action_mask()), image.legal_action_mask()
                            )
                        i = rng.choice(ids)
                        game.apply(i)
                        image.apply(s.actions[i])
                        self.assertEqual(image.board, s.board(game.board))
                        plies += 1
                    self.assertEqual(image.is_terminal, game.is_terminal)
                    if game.is_terminal:
                        a, b = game.outcome, image.outcome
                        self.assertEqual(
                            (a["winner"], a["winner_side"], a["reason"]),
                            (b["winner"], b["winner_side"], b["reason"]),
                        )

    @unittest.skipIf(np is None, "numpy is not installed: pip install numpy")
    def test_a_grid_tensor_maps_as_the_flat_one(self):
        game = anqi.Game("traditional", seed="g")
        for _ in range(10):
            game.apply(game.legal_action_ids()[0])
        for s in anqi.symmetries("traditional"):
            flat = s.tensor(game.observation_tensor())
            grid = s.tensor(game.observation_tensor(grid=True))
            np.testing.assert_array_equal(grid.reshape(flat.shape), flat)


    @unittest.skipIf(np is None, "numpy is not installed: pip install numpy")
    def test_batches_map_as_each_of_their_tensors(self):
        # Tensors of several games and players, flat and grid, in batches of one and two
        # leading dimensions: each image is the image of the tensor alone.
        rng = random.Random(4)
        for v in ("traditional", "2v2", "single", "cross", "reveal-4"):
            flats, grids, masks = [], [], []
            for k in range(6):
                game = anqi.Game(v, seed=f"batch-{k}")
                for _ in range(rng.randrange(0, 40)):
                    if game.is_terminal:
                        break
                    game.apply(rng.choice(game.legal_action_ids()))
                for p in range(1, game.players + 1):
                    for relative in (False, True):
                        flats.append((game.observation_tensor(p, relative=relative), relative))
                masks.append(game.legal_action_mask())
            rect = anqi.Variant(v).rectangle
            for s in anqi.symmetries(v):
                with self.subTest(variant=v, symmetry=s.name):
                    for relative in (False, True):
                        items = np.stack([x for x, r in flats if r == relative])
                        one = np.stack([s.tensor(x, relative=relative) for x in items])
                        np.testing.assert_array_equal(s.tensor(items, relative=relative), one)
                        pairs = items.reshape(-1, 2, *items.shape[1:])
                        np.testing.assert_array_equal(
                            s.tensor(pairs, relative=relative), one.reshape(pairs.shape))
                        if rect is not None:
                            grid = items.reshape(len(items), items.shape[1], *rect)
                            np.testing.assert_array_equal(
                                s.tensor(grid, relative=relative), one.reshape(grid.shape))
                    batch = np.stack(masks)
                    np.testing.assert_array_equal(s.policy(batch), np.stack([s.policy(m) for m in masks]))
        with self.assertRaisesRegex(ValueError, r"expected \(\.\.\., 50, 32\)"):
            anqi.symmetries("traditional")[1].tensor(np.zeros((50, 31)))

    @unittest.skipIf(np is None, "numpy is not installed: pip install numpy")
    def test_relative_tensors_map_to_the_image_game_s_relative_tensors(self):
        # The colour swap leaves a relative tensor's colour roles alone when its observer moves
        # one colour, and moves its planes otherwise: checked against tensor.rs's own relative
        # tensor of the image game, for every observer, as the game goes.
        rng = random.Random(12)
        for v in ("traditional", "reveal-4", "single", "2v2", "strategic"):
            for s in anqi.symmetries(v):
                if not s.colour_swap:
                    continue
                with self.subTest(variant=v, symmetry=s.name):
                    game = anqi.Game(v, seed=f"rel-{s.name}")
                    image = anqi.Game(v, deal=s.deal(game.deal))
                    for ply in range(60):
                        for p in range(1, game.players + 1):
                            np.testing.assert_array_equal(
                                s.tensor(game.observation_tensor(p, relative=True), relative=True),
                                image.observation_tensor(p, relative=True), err_msg=f"ply {ply}")
                        if game.is_terminal:
                            break
                        i = rng.choice(game.legal_action_ids())
                        game.apply(i)
                        image.apply(s.actions[i])


if __name__ == "__main__":
    unittest.main()
