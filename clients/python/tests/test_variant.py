"""anqi.Variant: a variant's rules and board as Python data.

Run by clients/python/test.sh (see test_game.py).
"""

import pathlib
import tempfile
import unittest

import anqi

REPO = pathlib.Path(__file__).resolve().parents[3]
SHIPPED_DIR = REPO / "protocol" / "variants"


class Shipped(unittest.TestCase):
    def test_every_shipped_variant_is_consistent_with_its_games(self):
        for name, summary in anqi.variants().items():
            with self.subTest(variant=name):
                v = anqi.Variant(name)
                game = anqi.Game(v, seed="v")
                self.assertEqual((v.name, v.summary), (name, summary))
                self.assertEqual(game.variant_info.name, name)
                self.assertEqual(game.variant, name)
                self.assertEqual(v.players, game.players)
                self.assertEqual(sorted(p for side in v.sides for p in side), list(range(1, v.players + 1)))
                self.assertEqual(set(v.order), set(range(1, v.players + 1)))
                self.assertEqual(v.size, len(game.board))
                self.assertEqual(len(v.neighbours), v.size)
                self.assertIn(v.start, ("face-down", "open", "reveal", "fixed", "bag"))
                self.assertTrue(v.game_type)
                self.assertTrue(v.description.startswith("(variant (name "), v.description)
                self.assertIn(name, v.description)
                # The moves are the neighbour lists, and no jump is a move.
                self.assertEqual(
                    sorted(v.moves), sorted((a, b) for a in range(v.size) for b in v.neighbours[a])
                )
                moves = set(v.moves)
                self.assertTrue(all((a, b) not in moves and a != b for a, b in v.jumps))
                self.assertEqual(v.jumps, sorted(set(v.jumps)))
                # Every jump pair lies on one of the wire's lines, and every line's ends are jumps.
                jumps = set(v.jumps)
                for origin, first, last in v.lines:
                    self.assertIn((origin, first), jumps)
                    self.assertIn((origin, last), jumps)
                self.assertEqual({o for o, _ in v.jumps}, {o for o, _, _ in v.lines})
                if v.coords is not None:
                    self.assertEqual(len(set(v.coords)), v.size)

    def test_the_traditional_board(self):
        v = anqi.Variant("traditional")
        self.assertEqual(v.size, 32)
        self.assertEqual(v.rectangle, (4, 8))
        self.assertEqual(v.sides, [[1], [2]])
        self.assertEqual(v.order, [1, 2])
        self.assertEqual(sorted(v.pieces), sorted("KGGBBRRNNCCPPPPPkggbbrrnnccppppp"))
        self.assertEqual((v.start, v.reveal_count, v.fixed_board), ("face-down", None, None))
        self.assertEqual((v.colours, v.objective, v.ply_cap), ("first-reveal", "capture", None))
        self.assertEqual((v.chain_capture, v.cannon_jump), (False, True))
        self.assertEqual((v.no_progress, v.repetition), (180, {"occurrence": 3}))
        # The paper's counts for 4x8: 104 moves, 216 jump targets.
        self.assertEqual((len(v.moves), len(v.jumps)), (104, 216))
        self.assertEqual(v.num_distinct_actions, 32 + 104 + 216)
        self.assertEqual(sorted(v.neighbours[0]), [1, 8])
        self.assertEqual(sorted(v.neighbours[9]), [1, 8, 10, 17])
        self.assertEqual([t for o, t in v.jumps if o == 0], [2, 3, 4, 5, 6, 7, 16, 24])
        self.assertIn((0, 2, 7), v.lines)
        self.assertIn((0, 16, 24), v.lines)
        self.assertEqual(v.coords[9], (1, 1))
        self.assertEqual(v.action_text(32), "(mov %d %d)" % v.moves[0])
        self.assertEqual(v.action_id("(rev 7)"), 7)
        self.assertIn("traditional", repr(v))

    def test_starts_rules_and_shapes(self):
        self.assertEqual(anqi.Variant("open").start, "open")
        self.assertEqual(anqi.Variant("reveal-4").reveal_count, 4)
        puzzle = anqi.Variant("puzzle")
        self.assertEqual((puzzle.start, puzzle.fixed_board, puzzle.colours), ("fixed", "C.XgK..p", "fixed"))
        self.assertNotIn("..k.....", puzzle.description, "the puzzle's deal is a secret")
        self.assertEqual(anqi.Variant("strategic").start, "bag")
        self.assertEqual(anqi.Variant("ntu").repetition, {"cycle": 3, "extra": 0})
        self.assertEqual(anqi.Variant("platform").repetition, {"cycle": 3, "extra": 1})
        self.assertIsNone(anqi.Variant("openspiel").repetition)
        self.assertEqual(anqi.Variant("openspiel").no_progress, 50)
        single = anqi.Variant("single")
        self.assertEqual((single.objective, single.ply_cap, single.sides), ("clear", 400, [[1]]))
        self.assertEqual(anqi.Variant("1v2").order, [1, 2, 1, 3])
        self.assertEqual(anqi.Variant("2v2").sides, [[1, 3], [2, 4]])
        self.assertTrue(anqi.Variant("chain-capture").chain_capture)
        cross = anqi.Variant("cross")
        self.assertIsNone(cross.rectangle)
        self.assertEqual(cross.size, 32)
        self.assertEqual(cross.coords[0], (0, 2))


class FromFiles(unittest.TestCase):
    def test_a_description_file_and_its_public_text(self):
        v = anqi.Variant(str(SHIPPED_DIR / "cross.sexp"))
        self.assertEqual(v.name, "cross")
        # The public description is itself a valid description of the same board.
        with tempfile.TemporaryDirectory() as tmp:
            path = pathlib.Path(tmp) / "public.sexp"
            path.write_text(v.description)
            again = anqi.Variant(str(path))
            self.assertEqual((again.moves, again.jumps, again.pieces), (v.moves, v.jumps, v.pieces))
            game = anqi.Game(again, seed="f")
            self.assertEqual(game.variant, "cross")

    def test_a_description_text(self):
        v = anqi.Variant.from_description((SHIPPED_DIR / "cross.sexp").read_text())
        self.assertEqual(v.name, "cross")
        self.assertEqual(v.moves, anqi.Variant("cross").moves)
        self.assertEqual(anqi.Game(v, seed="t").variant, "cross")
        with self.assertRaises(ValueError) as e:
            anqi.Variant.from_description("(variant (name bad))")
        self.assertIn("(board ...)", str(e.exception))

    def test_bad_names_and_types(self):
        with self.assertRaises(ValueError) as e:
            anqi.Variant("no-such-variant")
        self.assertIn("traditional", str(e.exception))
        with tempfile.TemporaryDirectory() as tmp:
            path = pathlib.Path(tmp) / "bad.sexp"
            path.write_text("(variant (name bad))")
            with self.assertRaises(ValueError) as e:
                anqi.Variant(str(path))
            self.assertIn("bad.sexp", str(e.exception))
        with self.assertRaises(TypeError):
            anqi.Game(variant=3)
        with self.assertRaises(ValueError):
            anqi.Variant("traditional").action_text(352)


if __name__ == "__main__":
    unittest.main()
