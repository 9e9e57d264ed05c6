"""Chance mode: reveals and draws as explicit chance nodes (as OpenSpiel exposes them), checked
against normal games dealt as the chance nodes came out.

Run by clients/python/test.sh (see test_game.py).
"""

import collections
import copy
import math
import random
import unittest

import anqi

PIECE_ORDER = "KGBRNCPkgbrncp"
MAX_PLIES = 100_000


def state(game):
    return (game.board, game.to_move, game.ply, game.counts(), game.outcome)


def expected_outcomes(unseen):
    """The chance outcomes of a pool of unseen pieces (a Counter): every piece once, in the
    documented order, with its count over the pool's size."""
    total = sum(unseen.values())
    return [(p, unseen[p] / total) for p in PIECE_ORDER if unseen[p] > 0]


def chance_playout(game, rng):
    """Plays a chance-mode game to its end, random actions and random chance outcomes,
    checking each chance node's outcomes against the pieces not seen yet. Returns, per ply,
    the action id, the piece its chance node gave (None without one) and the state after."""
    pieces = collections.Counter(game.variant_info.pieces)
    # Face-up at the start (in a bag game the X cells are cells never filled, not pieces).
    seen = collections.Counter(c for c in game.board if c in PIECE_ORDER)
    drawn = collections.Counter()
    plies = []
    while not game.is_terminal:
        action = rng.choice(game.legal_action_ids())
        text = game.action_text(action)
        game.apply(action)
        draw = text == "(bag)"
        assert game.is_chance_node == (draw or text.startswith("(rev")), text
        piece = None
        if game.is_chance_node:
            unseen = pieces - (drawn if draw else seen)
            outcomes = game.chance_outcomes()
            assert outcomes == expected_outcomes(unseen), (outcomes, unseen)
            # Each probability is its fraction rounded once, so the sum is 1 but for rounding.
            assert math.isclose(math.fsum(p for _, p in outcomes), 1.0, abs_tol=1e-12), outcomes
            piece = game.sample_chance(rng)
            assert piece in unseen, (piece, unseen)
            (drawn if draw else seen)[piece] += 1
            assert not game.is_chance_node
        plies.append((action, piece, state(game)))
        assert len(plies) < MAX_PLIES, f"{game!r}: no end"
    return plies


class ChanceGames(unittest.TestCase):
    def test_every_shipped_variant_replays_as_its_realised_deal(self):
        rng = random.Random(11)
        for name in anqi.variants():
            for k in range(3):
                with self.subTest(variant=name, game=k):
                    game = anqi.Game(name, seed=f"chance-{k}", chance=True)
                    self.assertTrue(game.chance)
                    before = state(game)
                    plies = chance_playout(game, rng)
                    self.assertIsNotNone(game.outcome)
                    # A normal game dealt as the chance nodes came out goes the same way.
                    replay = anqi.Game(name, deal=game.deal)
                    self.assertFalse(replay.chance)
                    self.assertEqual(state(replay), before)
                    for i, (action, piece, after) in enumerate(plies):
                        cell_text = replay.action_text(action)
                        replay.apply(action)
                        self.assertEqual(state(replay), after, f"ply {i}: {cell_text}")
                        if piece and cell_text.startswith("(rev"):
                            cell = int(cell_text[5:-1])
                            self.assertEqual(replay.board[cell], piece)
                    self.assertEqual(replay.outcome, game.outcome)

    def test_a_chance_game_from_a_given_deal_keeps_its_face_up_pieces(self):
        layout = "KGGBBRRNNCCPPPPPkggbbrrnnccppppp"
        game = anqi.Game("reveal-4", deal={"cells": layout, "face_up": [0, 1, 2, 3]}, chance=True)
        self.assertEqual(game.board[:5], "KGGBX")
        game.play("(rev 4)")
        # Unseen: the 28 face-down pieces, whatever the given deal put under them.
        outcomes = dict(game.chance_outcomes())
        self.assertNotIn("K", outcomes)
        self.assertEqual(outcomes["B"], 1 / 28)
        self.assertEqual(outcomes["p"], 5 / 28)
        game.apply_chance("p")
        self.assertEqual(game.board[4], "p")
        self.assertEqual(game.deal["cells"][4], "p")
        self.assertEqual(sorted(game.deal["cells"]), sorted(layout))


class ChanceNodes(unittest.TestCase):
    def test_a_reveal_waits_at_a_chance_node(self):
        game = anqi.Game("traditional", seed="n", chance=True)
        self.assertFalse(game.is_chance_node)
        counts = game.counts()
        game.play("(rev 5)")
        self.assertTrue(game.is_chance_node)
        self.assertIn("chance node", repr(game))
        # Nothing has happened yet: same board, ply, player and counts; no actions meanwhile.
        self.assertEqual((game.board, game.ply, game.to_move), ("X" * 32, 0, 1))
        self.assertEqual(game.counts(), counts)
        self.assertEqual(game.legal_actions(), [])
        self.assertEqual(game.legal_action_ids(), [])
        for act in (lambda: game.play("(rev 6)"), lambda: game.apply(6)):
            with self.assertRaises(ValueError) as e:
                act()
            self.assertIn("chance node", str(e.exception))
        outcomes = game.chance_outcomes()
        self.assertEqual([p for p, _ in outcomes], list(PIECE_ORDER))
        self.assertEqual(dict(outcomes)["P"], 5 / 32)
        self.assertEqual(dict(outcomes)["k"], 1 / 32)
        game.apply_chance("k")
        self.assertFalse(game.is_chance_node)
        self.assertEqual((game.board[5], game.ply, game.to_move), ("k", 1, 2))
        game.play("(rev 6)")
        outcomes = dict(game.chance_outcomes())
        self.assertNotIn("k", outcomes)
        self.assertEqual(outcomes["P"], 5 / 31)

    def test_a_draw_from_the_bag_is_a_chance_node(self):
        game = anqi.Game("strategic-2x4", seed="b", chance=True)
        game.play("(bag)")
        self.assertTrue(game.is_chance_node)
        self.assertEqual(game.chance_outcomes(), [("K", 1 / 8), ("P", 3 / 8), ("k", 1 / 8), ("p", 3 / 8)])
        game.apply_chance("K")
        self.assertEqual(game.deal["bag"][0], "K")
        self.assertEqual(game.legal_actions()[0], "(put K 0)")
        game.play("(put K 5)")
        game.play("(bag)")
        self.assertEqual(game.chance_outcomes(), [("P", 3 / 7), ("k", 1 / 7), ("p", 3 / 7)])

    def test_sample_chance_takes_a_random_a_seed_or_nothing(self):
        game = anqi.Game("traditional", seed="s", chance=True)
        game.play("(rev 0)")
        twins = [copy.copy(game) for _ in range(3)]
        self.assertTrue(all(t.is_chance_node for t in twins))
        # A seed always gives the same piece from the same node; an int is its decimal string.
        self.assertEqual(twins[0].sample_chance(7), twins[1].sample_chance("7"))
        self.assertEqual(twins[0].board, twins[1].board)
        letter = twins[2].sample_chance(random.Random(1))
        self.assertIn(letter, PIECE_ORDER)
        self.assertEqual(twins[2].board[0], letter)
        self.assertIn(game.sample_chance(), PIECE_ORDER)
        # Over many draws every piece comes out, about as often as its count says.
        start = anqi.Game("traditional", seed="s", chance=True)
        start.play("(rev 0)")
        hits = collections.Counter()
        rng = random.Random(2)
        for _ in range(3200):
            hits[start.clone().sample_chance(rng)] += 1
        self.assertEqual(set(hits), set(PIECE_ORDER))
        self.assertTrue(400 <= hits["P"] <= 600, hits)  # expected 500
        self.assertTrue(60 <= hits["K"] <= 150, hits)  # expected 100

    def test_chance_errors(self):
        game = anqi.Game("traditional", seed="e", chance=True)
        for act in (game.chance_outcomes, lambda: game.apply_chance("K"), game.sample_chance):
            with self.assertRaises(ValueError) as e:
                act()
            self.assertIn("not at a chance node", str(e.exception))
        with self.assertRaises(ValueError) as e:
            game.play("(mov 0 1)")  # illegal actions are refused before any chance node
        self.assertIn("face-down", str(e.exception))
        self.assertFalse(game.is_chance_node)
        game.play("(rev 0)")
        game.apply_chance("K")
        game.play("(rev 1)")
        for bad, reason in [("X", "not a piece letter"), ("KG", "not a piece letter"), ("", "not a piece letter"), ("K", "unseen pieces are GBRNCPkgbrncp")]:
            with self.subTest(piece=bad):
                with self.assertRaises(ValueError) as e:
                    game.apply_chance(bad)
                self.assertIn(reason, str(e.exception))
                self.assertTrue(game.is_chance_node)
        # Without chance mode a reveal is played at once, with the dealt piece.
        normal = anqi.Game("traditional", seed="e")
        normal.play("(rev 0)")
        self.assertFalse(normal.is_chance_node)
        self.assertNotEqual(normal.board[0], "X")


if __name__ == "__main__":
    unittest.main()
