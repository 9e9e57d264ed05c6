"""Tests of the `anqi` package (the native rules core in process), standard library only.

Run by clients/python/test.sh, which builds and installs the package in a virtual environment
first; by hand, with the package installed: python -m unittest discover -s clients/python/tests
"""

import copy
import pathlib
import random
import unittest

import anqi

REPO = pathlib.Path(__file__).resolve().parents[3]
SHIPPED_DIR = REPO / "protocol" / "variants"
COUNT_KEYS = ("moves", "jumps", "reveals", "bags", "puts")
OUTCOME_KEYS = {"win", "winner", "winner_team", "winner_side", "reason", "loser"}
# No shipped game comes near this: a playout that does not end by then is a bug.
MAX_PLIES = 100_000


def playout(game, rng):
    """Plays random legal actions until the game ends; returns the number of plies played."""
    plies = 0
    start = game.ply
    while game.outcome is None:
        legal = game.legal_actions()
        counts = game.counts()
        assert legal, f"{game!r}: no legal action but no outcome"
        assert len(legal) == sum(counts[k] for k in COUNT_KEYS), (legal, counts)
        assert len(set(legal)) == len(legal), legal
        game.play(rng.choice(legal))
        plies += 1
        assert game.ply == start + plies
        assert plies < MAX_PLIES, f"{game!r}: no end after {plies} plies"
    return plies


class Variants(unittest.TestCase):
    def test_every_shipped_file_is_listed_with_a_summary(self):
        names = anqi.variants()
        self.assertEqual(set(names), {p.stem for p in SHIPPED_DIR.glob("*.sexp")})
        self.assertEqual(next(iter(names)), "traditional")
        for name, summary in names.items():
            self.assertIsInstance(summary, str)
            self.assertTrue(summary, name)

    def test_a_description_file_by_path(self):
        game = anqi.Game(str(SHIPPED_DIR / "hong-kong.sexp"), seed="1")
        self.assertEqual(game.variant, "hong-kong")
        self.assertEqual(game.board, "X" * 32)

    def test_an_unknown_variant_is_a_value_error(self):
        with self.assertRaises(ValueError) as e:
            anqi.Game("no-such-variant")
        self.assertIn("traditional", str(e.exception))  # the message lists the names


class Playouts(unittest.TestCase):
    def test_every_shipped_variant_plays_to_its_end(self):
        rng = random.Random(9)
        for name in anqi.variants():
            for k in range(3):
                with self.subTest(variant=name, game=k):
                    game = anqi.Game(name, seed=f"playout-{k}")
                    self.assertEqual(game.variant, name)
                    self.assertEqual(game.ply, 0)
                    self.assertIn(game.to_move, range(1, game.players + 1))
                    plies = playout(game, rng)
                    outcome = game.outcome
                    self.assertEqual(set(outcome), OUTCOME_KEYS)
                    self.assertEqual(game.legal_actions(), [])
                    self.assertEqual(sum(game.counts().values()), 0)
                    self.assertGreater(plies, 0)
                    self.assertIsInstance(outcome["reason"], str)
                    if outcome["winner_side"] is None:
                        self.assertEqual(outcome["win"], "(win 0 0)")
                    with self.assertRaises(ValueError) as e:
                        game.play("(rev 0)")
                    self.assertIn("over", str(e.exception))

    def test_the_same_seeds_give_the_same_game(self):
        a = anqi.Game("traditional", seed="s", client_seeds=["1", "2"])
        b = anqi.Game("traditional", seed="s", client_seeds=["1", "2"])
        self.assertEqual(a.seeds, {"clients": ["1", "2"], "server": "s"})
        for cell in range(32):
            a.play(f"(rev {cell})") if "(rev %d)" % cell in a.legal_actions() else None
            b.play(f"(rev {cell})") if "(rev %d)" % cell in b.legal_actions() else None
        self.assertEqual(a.board, b.board)
        self.assertNotIn("X", a.board)
        # Other seeds, another deal (with 32 pieces, the same layout by chance is negligible).
        c = anqi.Game("open", seed="t")
        d = anqi.Game("open", seed="u")
        self.assertNotEqual(c.board, d.board)

    def test_without_a_seed_one_is_drawn(self):
        game = anqi.Game()
        self.assertEqual(game.variant, "traditional")
        self.assertTrue(game.seeds["server"])
        self.assertEqual(game.seeds["clients"], [])


class Illegal(unittest.TestCase):
    def test_an_illegal_action_raises_with_the_reason_and_changes_nothing(self):
        game = anqi.Game("traditional", seed="x")
        before = (game.board, game.ply, game.to_move)
        for action, reason in [
            ("(mov 0 1)", "face-down"),
            ("(rev 32)", "out of range"),
            ("(bag)", "no bag"),
        ]:
            with self.subTest(action=action):
                with self.assertRaises(ValueError) as e:
                    game.play(action)
                self.assertIn(reason, str(e.exception))
                self.assertEqual((game.board, game.ply, game.to_move), before)

    def test_text_that_is_no_action_raises(self):
        game = anqi.Game("traditional", seed="x")
        for text in ["", "rev 3", "(resign)", "(rev 3) (rev 4)", "(rev -1)", "(" * 1000]:
            with self.subTest(text=text):
                with self.assertRaises(ValueError) as e:
                    game.play(text)
                self.assertIn("not an action", str(e.exception))
        self.assertEqual(game.ply, 0)

    def test_a_revealed_cell_cannot_be_revealed_again(self):
        game = anqi.Game("traditional", seed="x")
        game.play("(rev 5)")
        self.assertNotEqual(game.board[5], "X")
        self.assertNotIn("(rev 5)", game.legal_actions())
        while game.to_move != 1:
            game.play(game.legal_actions()[0])
        with self.assertRaises(ValueError) as e:
            game.play("(rev 5)")
        self.assertIn("face-up", str(e.exception))


class Clone(unittest.TestCase):
    def test_a_clone_is_independent(self):
        for make in (lambda g: g.clone(), copy.copy, copy.deepcopy):
            game = anqi.Game("traditional", seed="c")
            game.play("(rev 0)")
            twin = make(game)
            self.assertIsInstance(twin, anqi.Game)
            self.assertEqual((twin.board, twin.ply, twin.to_move), (game.board, game.ply, game.to_move))
            self.assertEqual(twin.seeds, game.seeds)
            before = (game.board, game.ply, game.to_move, game.legal_actions())
            playout(twin, random.Random(1))
            self.assertIsNotNone(twin.outcome)
            self.assertIsNone(game.outcome)
            self.assertEqual((game.board, game.ply, game.to_move, game.legal_actions()), before)
            # And the other way round: the original plays on, the clone's end stays.
            end = (twin.board, twin.ply)
            game.play(game.legal_actions()[0])
            self.assertEqual((twin.board, twin.ply), end)


if __name__ == "__main__":
    unittest.main()
