"""Observation tensors and legal-action masks (PACKAGE.md, Tensors): the board, the pool and the
counters read back from the planes, in random games of every shipped variant. Planes are found by
their names in the layout the native module defines (`anqi.env.TENSOR_PLANES`, from tensor.rs),
not by numbers restated here."""

import hashlib
import random
import unittest

import anqi
from anqi.env import PLANES, TENSOR_COLOUR_SWAP, TENSOR_PLANES, TENSOR_VERSION

try:
    import numpy as np
except ImportError:  # the tests say so rather than pass in silence
    np = None

LETTERS = "KGBRNCPkgbrncp"
#: Each plane by its name: P["up-K"], P["unseen-p"], P["red"], ...
P = {name: i for i, name in enumerate(TENSOR_PLANES)}
#: The planes on which each cell has a value of its own; every other plane is one value.
CELL_PLANES = {P[f"up-{x}"] for x in LETTERS} | {P["face-down"], P["empty"], P["chain"]}
#: The planes that depend on who observes.
OBSERVER_PLANES = [P["red"], P["black"], P["to-move"]]

#: The layout's digest (its names and colour swap) at each version: a layout that changes
#: without a new TENSOR_VERSION fails `test_the_version_changes_with_the_layout`.
LAYOUT_DIGESTS = {
    1: "783c34bd4374e48cca57fc1317076f1aa508b616fed2d8e641f156c5b9e3b990",
}


def layout_digest():
    text = "\n".join(TENSOR_PLANES) + "\n" + ",".join(map(str, TENSOR_COLOUR_SWAP))
    return hashlib.sha256(text.encode()).hexdigest()


def board_from_planes(planes):
    """The board the `up-*`, `face-down` and `empty` planes show, one letter per cell (X
    face-down, . empty)."""
    shows = {P[f"up-{x}"]: x for x in LETTERS} | {P["face-down"]: "X", P["empty"]: "."}
    cells = []
    for c in range(planes.shape[1]):
        on = [p for p in shows if planes[p, c] == 1.0]
        assert len(on) == 1, (c, on)
        cells.append(shows[on[0]])
    return "".join(cells)


def internal_board(game):
    """The board as the tensor shows it: the wire's, except that a bag game's cell no piece was
    put on yet is empty (the wire writes X there)."""
    board = game.board
    if game.variant_info.start != "bag":
        return board
    # Face-down pieces never exist in a bag game: every X of the wire is such a cell.
    return board.replace("X", ".")


class Layout(unittest.TestCase):
    """The layout as the native module defines it (tensor.rs), which Python only reads."""

    def test_the_planes_are_named_and_the_colour_swap_exchanges_the_colours(self):
        self.assertIsInstance(TENSOR_VERSION, int)
        self.assertGreaterEqual(TENSOR_VERSION, 1)
        self.assertEqual(PLANES, len(TENSOR_PLANES))
        self.assertEqual(len(set(TENSOR_PLANES)), PLANES, "each plane has a name of its own")
        # A permutation that undoes itself, taking each plane to its colour's opposite by name.
        self.assertEqual(sorted(TENSOR_COLOUR_SWAP), list(range(PLANES)))
        opposite = {"red": "black", "black": "red"}
        for p, name in enumerate(TENSOR_PLANES):
            self.assertEqual(TENSOR_COLOUR_SWAP[TENSOR_COLOUR_SWAP[p]], p)
            group, _, letter = name.rpartition("-")
            image = f"{group}-{letter.swapcase()}" if letter in LETTERS and group else None
            self.assertEqual(TENSOR_PLANES[TENSOR_COLOUR_SWAP[p]],
                             image or opposite.get(name, name), name)

    def test_the_version_changes_with_the_layout(self):
        self.assertEqual(
            layout_digest(), LAYOUT_DIGESTS.get(TENSOR_VERSION),
            "the tensor layout changed: raise TENSOR_VERSION in clients/python/rust/src/tensor.rs "
            "and add the new version's digest to LAYOUT_DIGESTS (the old ones stay)")

    @unittest.skipIf(np is None, "numpy is not installed: pip install numpy")
    def test_tensors_have_the_layouts_planes(self):
        for name in ("traditional", "strategic", "cross"):
            game = anqi.Game(name, seed="layout")
            self.assertEqual(game.observation_tensor().shape, (PLANES, len(game.board)))


@unittest.skipIf(np is None, "numpy is not installed: pip install numpy")
class Tensors(unittest.TestCase):
    def check(self, game):
        n = len(game.board)
        for player in range(1, game.players + 1):
            t = game.observation_tensor(player)
            self.assertEqual((t.shape, t.dtype), ((PLANES, n), np.float32))
            # The board's planes: exactly one per cell, and they give the board back.
            self.assertEqual(board_from_planes(t), internal_board(game))
            # Constant planes are constant.
            for p in set(range(PLANES)) - CELL_PLANES:
                self.assertTrue((t[p] == t[p, 0]).all(), TENSOR_PLANES[p])
            # The pool: unseen over the variant's count, per letter. A face-down piece stays
            # where it was dealt, so the deal tells which are unseen; in a bag game, every
            # piece neither on the board, in hand nor captured.
            pieces = game.variant_info.pieces
            dealt = game.deal["cells"]
            for letter in LETTERS:
                total = pieces.count(letter)
                if total == 0:
                    self.assertEqual(t[P[f"unseen-{letter}"], 0], 0.0, letter)
                    continue
                unseen = round(float(t[P[f"unseen-{letter}"], 0]) * total)
                if game.variant_info.start != "bag":
                    hidden = sum(1 for c, x in enumerate(game.board) if x == "X" and dealt[c] == letter)
                    self.assertEqual(unseen, hidden, letter)
                else:
                    held = int(t[P[f"hand-{letter}"], 0])
                    self.assertLessEqual(unseen + held + game.board.count(letter), total, letter)
            # Only the observer's planes differ between players.
            if player > 1:
                first = game.observation_tensor(1)
                np.testing.assert_array_equal(np.delete(t, OBSERVER_PLANES, axis=0),
                                              np.delete(first, OBSERVER_PLANES, axis=0))
            to_move = player == game.to_move and not game.is_terminal
            self.assertEqual(t[P["to-move"], 0], 1.0 if to_move else 0.0)
        mask = game.legal_action_mask()
        self.assertEqual((mask.shape, mask.dtype), ((game.num_distinct_actions,), np.bool_))
        self.assertEqual(sorted(np.flatnonzero(mask).tolist()), sorted(game.legal_action_ids()))

    def test_every_shipped_variant_reads_back_from_its_planes(self):
        rng = random.Random(7)
        for name in anqi.variants():
            with self.subTest(name):
                game = anqi.Game(name, seed=name)
                plies = 0
                while not game.is_terminal and plies < 400:
                    if plies % 7 == 0:
                        self.check(game)
                    game.apply(rng.choice(game.legal_action_ids()))
                    plies += 1
                self.check(game)

    def test_the_counters_and_the_colours(self):
        v = anqi.Variant.from_description(
            "(variant (name t) (board (rectangle 2 4)) (pieces Kk) (no-progress 10) (repetition 3))"
        )
        game = anqi.Game(v, deal="K......k")
        t = game.observation_tensor(1)
        observer = [P["red"], P["black"], P["to-move"]]
        self.assertEqual(t[observer, 0].tolist(), [0.0, 0.0, 1.0])
        unseen = [P[f"unseen-{x}"] for x in LETTERS]
        self.assertEqual(t[unseen, 0].tolist(), [1.0] + [0.0] * 6 + [1.0] + [0.0] * 6)
        game.play("(rev 0)")  # K: player 1 is red
        t1, t2 = game.observation_tensor(1), game.observation_tensor(2)
        self.assertEqual(t1[observer, 0].tolist(), [1.0, 0.0, 0.0])
        self.assertEqual(t2[observer, 0].tolist(), [0.0, 1.0, 1.0])
        self.assertEqual(t1[P["unseen-K"], 0], 0.0)  # no red king unseen any more
        game.play("(rev 7)")  # k
        game.play("(mov 0 1)")  # a quiet move: one ply of no progress out of 10
        self.assertAlmostEqual(float(game.observation_tensor(1)[P["no-progress"], 0]), 0.1,
                               places=6)
        # Back and forth: the position after the reveals again, its second occurrence: with
        # (repetition 3), half way to the draw.
        self.assertEqual(float(game.observation_tensor(1)[P["repeated"], 0]), 0.0)
        for a in ("(mov 7 6)", "(mov 1 0)", "(mov 6 7)"):
            game.play(a)
        self.assertEqual(float(game.observation_tensor(1)[P["repeated"], 0]), 0.5)

    def test_the_repetition_plane_stays_below_one_until_a_cycle_draw(self):
        for rule in ("(cycle 3 0)", "(cycle 3 1)", "3"):
            with self.subTest(rule):
                v = anqi.Variant.from_description(
                    f"(variant (name t) (board (rectangle 2 4)) (pieces Kk) (no-progress none) (repetition {rule}))"
                )
                game = anqi.Game(v, deal="K......k")
                game.play("(rev 0)")
                game.play("(rev 7)")
                seen = []
                moves = ["(mov 0 1)", "(mov 7 6)", "(mov 1 0)", "(mov 6 7)"]
                while not game.is_terminal:
                    seen.append(float(game.observation_tensor(1)[P["repeated"], 0]))
                    game.play(moves[(game.ply - 2) % 4])
                self.assertEqual(game.outcome["reason"], "repetition")
                self.assertGreater(max(seen), 0.0)
                self.assertLess(max(seen), 1.0, seen)

    def test_a_grid_on_rectangles_only(self):
        game = anqi.Game("traditional", seed="1")
        grid = game.observation_tensor(grid=True)
        flat = game.observation_tensor()
        self.assertEqual(grid.shape, (PLANES, 4, 8))
        np.testing.assert_array_equal(grid.reshape(PLANES, 32), flat)
        ring = anqi.Game("cross", seed="1")
        if ring.variant_info.rectangle is None:
            with self.assertRaisesRegex(ValueError, "rectangular"):
                ring.observation_tensor(grid=True)
        with self.assertRaisesRegex(ValueError, "player 3"):
            game.observation_tensor(3)

    def test_hand_and_chain_planes(self):
        game = anqi.Game("strategic", seed="3")
        game.play("(bag)")
        t = game.observation_tensor()
        held = [x for x in LETTERS if t[P[f"hand-{x}"], 0] == 1.0]
        self.assertEqual(len(held), 1)
        self.assertTrue(all(a.startswith(f"(put {held[0]} ") for a in game.legal_actions()))
        # A mask at a chance node is empty.
        chance = anqi.Game("traditional", seed="1", chance=True)
        chance.play("(rev 0)")
        self.assertFalse(chance.legal_action_mask().any())


def colour_swapped(x):
    """`x` (planes first) with each plane moved where TENSOR_COLOUR_SWAP says."""
    out = np.empty_like(x)
    out[list(TENSOR_COLOUR_SWAP)] = x
    return out


@unittest.skipIf(np is None, "numpy is not installed: pip install numpy")
class Relative(unittest.TestCase):
    """`observation_tensor(relative=True)`: the observer's colour roles (tensor.rs, "Relative
    tensors"): the red planes are its colour's whenever it moves one colour."""

    def test_a_relative_tensor_is_the_tensor_turned_for_an_observer_that_moves_black(self):
        rng = random.Random(3)
        for name in anqi.variants():
            with self.subTest(name):
                game = anqi.Game(name, seed=f"relative-{name}")
                plies, turned = 0, 0
                while plies < 300:
                    for p in range(1, game.players + 1):
                        x = game.observation_tensor(p)
                        r = game.observation_tensor(p, relative=True)
                        # Moving black alone shows as red 0, black 1; in the relative tensor
                        # never: a colour of one's own is always "red".
                        black = x[P["red"], 0] == 0 and x[P["black"], 0] == 1
                        np.testing.assert_array_equal(r, colour_swapped(x) if black else x)
                        self.assertFalse(r[P["red"], 0] == 0 and r[P["black"], 0] == 1)
                        turned += black
                        # What the planes mean, from the board: the upper-case planes hold the
                        # observer's own pieces.
                        colour = None if game.is_terminal else game.observation(p).colour
                        if colour is not None and not game.is_terminal:
                            mine = {c for c, x in enumerate(game.board)
                                    if x in LETTERS and x.isupper() == (colour == "red")}
                            shown = {c for c in range(len(game.board))
                                     if any(r[P[f"up-{x}"], c] for x in LETTERS[:7])}
                            self.assertEqual(shown, mine)
                    if game.is_terminal:
                        break
                    game.apply(rng.choice(game.legal_action_ids()))
                    plies += 1
                one_colour = anqi.Variant(name).objective == "capture"
                self.assertEqual(turned > 0, one_colour, "black observers are turned, others not")

    def test_grid_and_relative_together_and_the_errors(self):
        game = anqi.Game("traditional", seed="1")
        game.play("(rev 0)")
        game.play("(rev 1)")
        for p in (1, 2):
            flat = game.observation_tensor(p, relative=True)
            grid = game.observation_tensor(p, grid=True, relative=True)
            self.assertEqual(grid.shape, (PLANES, 4, 8))
            np.testing.assert_array_equal(grid.reshape(PLANES, 32), flat)
        with self.assertRaisesRegex(ValueError, "rectangular board.*cross.*grid=False"):
            anqi.Game("cross", seed="1").observation_tensor(grid=True, relative=True)
        with self.assertRaisesRegex(ValueError, "player 0 is not a player id.*from 1"):
            game.observation_tensor(0, relative=True)


class Resample(unittest.TestCase):
    """`Game.resample`: the same public state, the unseen pieces dealt anew."""

    def test_the_public_state_stays_and_the_hidden_one_changes(self):
        rng = random.Random(5)
        for name in ("traditional", "strategic", "2v2", "cross"):
            with self.subTest(name):
                game = anqi.Game(name, seed="r")
                for _ in range(12):
                    game.apply(rng.choice(game.legal_action_ids()))
                seen = {}
                for seed in range(40):
                    copy = game.resample(seed)
                    self.assertEqual(copy.board, game.board)
                    self.assertEqual(copy.legal_actions(), game.legal_actions())
                    self.assertEqual(copy.to_move, game.to_move)
                    self.assertEqual(copy.counts(), game.counts())
                    if np is not None:
                        np.testing.assert_array_equal(
                            copy.observation_tensor(), game.observation_tensor()
                        )
                    # Its deal is one its game is a normal game of: what each face-down cell
                    # turns up is what the deal says.
                    for c, x in enumerate(copy.board):
                        if x == "X" and copy.variant_info.start != "bag":
                            seen.setdefault(c, set()).add(copy.deal["cells"][c])
                    self.assertEqual(sorted(copy.deal["cells"]), sorted(game.deal["cells"]))
                    self.assertEqual(sorted(copy.deal["bag"]), sorted(game.deal["bag"]))
                # The same seed, the same copy; the original is untouched.
                self.assertEqual(game.resample(3).deal, game.resample(3).deal)
                if seen:
                    self.assertTrue(any(len(v) > 1 for v in seen.values()), seen)

    def test_a_resampled_deal_replays_the_copy(self):
        game = anqi.Game("traditional", seed="deal")
        copy = game.resample(random.Random(1))
        cells = copy.deal["cells"]
        for c in range(32):
            before = copy.board
            if before[c] != "X" or f"(rev {c})" not in copy.legal_actions():
                continue
            copy.play(f"(rev {c})")
            self.assertEqual(copy.board[c], cells[c])
            break
        replayed = anqi.Game("traditional", deal=copy.deal)
        self.assertEqual(replayed.deal, copy.deal)


class Revealed(unittest.TestCase):
    """`Game(..., revealed=k)`: the same deal, k of its pieces face-up."""

    def test_k_pieces_start_face_up_from_the_same_deal(self):
        for k in (0, 1, 5, 16, 31):
            game = anqi.Game("traditional", seed="curriculum", revealed=k)
            plain = anqi.Game("traditional", seed="curriculum")
            self.assertEqual(game.deal["cells"], plain.deal["cells"])
            self.assertEqual(len(game.deal["face_up"]), k)
            self.assertEqual(32 - game.board.count("X"), k)
            for c in game.deal["face_up"]:
                self.assertEqual(game.board[c], plain.deal["cells"][c])
            rng = random.Random(k)
            while not game.is_terminal:
                game.apply(rng.choice(game.legal_action_ids()))

    def test_what_cannot_be_revealed_is_refused(self):
        with self.assertRaisesRegex(ValueError, "does not start face-down"):
            anqi.Game("strategic", seed="1", revealed=2)
        with self.assertRaisesRegex(ValueError, "not both"):
            anqi.Game("traditional-2x4", deal="KPPPkppp", revealed=2)
        with self.assertRaisesRegex(ValueError, "at most 31 of the 32"):
            anqi.Game("traditional", seed="1", revealed=32)


class TensorBot(anqi.Bot):
    """Plays its first legal action and keeps the tensor it was given at each of its turns."""

    def __init__(self, name: str, seen: list) -> None:
        self.name, self.seen = name, seen

    def choose(self, view):
        self.seen.append(view.observation_tensor())
        return view.legal_actions()[0]

    def spawn(self):
        return self  # one game at a time: every tensor in one list, in order


@unittest.skipIf(np is None, "numpy is not installed")
class ObservationTensors(unittest.TestCase):
    """`Observation.observation_tensor`: what a player knows gives the tensor the game gives it,
    so a network trained in process plays the same on a server."""

    def test_what_a_player_knows_gives_the_games_tensor(self):
        for name in anqi.variants():
            with self.subTest(name):
                game = anqi.Game(name, seed="observation tensors")
                rng = random.Random(5)
                if game.variant_info.rectangle:
                    np.testing.assert_array_equal(
                        game.observation(game.to_move).observation_tensor(grid=True),
                        game.observation_tensor(game.to_move, grid=True))
                while game.outcome is None and game.ply < 150:
                    for p in range(1, game.players + 1):
                        for relative in (False, True):
                            mine = game.observation(p).observation_tensor(relative=relative)
                            full = game.observation_tensor(p, relative=relative)
                            if p != game.to_move:
                                # Over the wire a chain capture is told to its mover alone.
                                mine[P["chain"]] = full[P["chain"]] = 0
                            np.testing.assert_array_equal(mine, full, f"ply {game.ply}, player {p}")
                    game.play(rng.choice(game.legal_actions()))

    def test_a_bot_on_a_server_reads_the_tensor_of_the_game(self):
        # Over the wire the player's history is what the server's messages told it: the pool,
        # the no-progress count and the repetitions must still come out as the game's own.
        seen = {"a": [], "b": []}
        records = anqi.play([TensorBot("a", seen["a"]), TensorBot("b", seen["b"])], games=2,
                            variant="traditional-2x4", seed="tensors", concurrency=1)
        turns = {"a": iter(seen["a"]), "b": iter(seen["b"])}
        compared = 0
        for record in sorted(records, key=lambda r: r.tournament["index"]):
            names = {p.id: p.name for p in record.players}
            for ply, game in zip(record.plies, record.games()):
                tensor = next(turns[names[ply.player]])
                np.testing.assert_array_equal(tensor, game.observation_tensor(ply.player),
                                              f"ply {ply.ply}")
                compared += 1
        self.assertEqual(compared, len(seen["a"]) + len(seen["b"]))
        self.assertGreater(compared, 20)


if __name__ == "__main__":
    unittest.main()
