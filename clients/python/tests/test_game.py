"""Tests of the `anqi` package (the native rules core in process), standard library only.

Run by clients/python/test.sh, which builds and installs the package in a virtual environment
first; by hand, with the package installed: python -m unittest discover -s clients/python/tests
"""

import copy
import pathlib
import random
import tempfile
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


def state(game):
    """What a player could compare between two games at one moment."""
    return (game.board, game.to_move, game.ply, game.counts(), game.outcome)


def id_playout(game, rng, check=False):
    """Plays random legal action ids to the end (resolving chance nodes by `sample_chance`);
    returns the ids played and the state after each. With `check`, each ply also checks that
    the ids are the legal actions' ids, in the same order."""
    played = []
    while not game.is_terminal:
        if game.is_chance_node:
            game.sample_chance(rng)
            continue
        ids = game.legal_action_ids()
        if check:
            texts = game.legal_actions()
            assert [game.action_text(i) for i in ids] == texts, (ids, texts)
            assert [game.action_id(t) for t in texts] == ids, (ids, texts)
            assert all(0 <= i < game.num_distinct_actions for i in ids), ids
        action = rng.choice(ids)
        game.apply(action)
        played.append((action, state(game)))
        assert len(played) < MAX_PLIES, f"{game!r}: no end"
    return played


class ActionIds(unittest.TestCase):
    def test_ids_are_the_legal_actions_in_every_shipped_variant(self):
        rng = random.Random(3)
        for name in anqi.variants():
            with self.subTest(variant=name):
                game = anqi.Game(name, seed="ids")
                played = id_playout(game, rng, check=True)
                self.assertTrue(played)
                self.assertEqual(game.legal_action_ids(), [])
                # The same game played by text goes the same way.
                again = anqi.Game(name, seed="ids")
                for action, after in played:
                    again.play(again.action_text(action))
                    self.assertEqual(state(again), after)

    def test_the_encoding_is_the_documented_one(self):
        for name in ("traditional", "cross", "strategic-2x4", "2v2-8x16"):
            with self.subTest(variant=name):
                v = anqi.Variant(name)
                game = anqi.Game(name, seed="1")
                size, moves, jumps = v.size, v.moves, v.jumps
                bag = v.start == "bag"
                self.assertEqual(
                    game.num_distinct_actions,
                    size + len(moves) + len(jumps) + (1 + 14 * size if bag else 0),
                )
                self.assertEqual(v.num_distinct_actions, game.num_distinct_actions)
                for c in (0, size - 1):
                    self.assertEqual(game.action_id(f"(rev {c})"), c)
                for m, (a, b) in enumerate(moves):
                    self.assertEqual(game.action_id(f"(mov {a} {b})"), size + m)
                for j, (a, b) in enumerate(jumps):
                    self.assertEqual(game.action_text(size + len(moves) + j), f"(mov {a} {b})")
                if bag:
                    first_put = size + len(moves) + len(jumps) + 1
                    self.assertEqual(game.action_id("(bag)"), first_put - 1)
                    self.assertEqual(game.action_id("(put K 0)"), first_put)
                    self.assertEqual(game.action_id(f"(put p {size - 1})"), first_put + 14 * size - 1)
                    self.assertEqual(game.action_text(first_put + 3 * size + 2), "(put R 2)")
                # Every id reads back to itself.
                for i in range(game.num_distinct_actions):
                    self.assertEqual(game.action_id(game.action_text(i)), i)

    def test_a_large_board_with_hundreds_of_legal_actions(self):
        # 400 cells: more legal actions than the id list's buffer on the stack (64), and a board
        # too large for the dense move table.
        text = (SHIPPED_DIR / "traditional-2x4.sexp").read_text()
        text = (
            text.replace("(rectangle 2 4)", "(rectangle 20 20)")
            .replace("(name traditional-2x4)", "(name large)")
            .replace("(pieces KPPPkppp)", "(pieces %s)" % ("KPPPkppp" * 40))
        )
        with tempfile.TemporaryDirectory() as tmp:
            path = pathlib.Path(tmp) / "large.sexp"
            path.write_text(text)
            game = anqi.Game(str(path), seed="l")
        ids = game.legal_action_ids()
        self.assertEqual(len(ids), 320)  # a reveal per piece
        self.assertEqual(ids, [game.action_id(a) for a in game.legal_actions()])
        played = id_playout(game, random.Random(4), check=True)
        self.assertTrue(played)

    def test_bad_ids_and_actions_without_ids_raise(self):
        game = anqi.Game("traditional", seed="x")
        before = state(game)
        for bad in (-1, 352, 10**6):
            with self.assertRaises(ValueError) as e:
                game.apply(bad)
            self.assertIn("0..352", str(e.exception))
            with self.assertRaises(ValueError):
                game.action_text(bad)
        with self.assertRaises(ValueError) as e:
            game.apply(game.action_id("(mov 0 1)"))  # a move of the board, but face-down
        self.assertIn("face-down", str(e.exception))
        for text in ("(mov 0 9)", "(bag)", "(put K 3)", "(rev 32)"):
            with self.subTest(text=text):
                with self.assertRaises(ValueError) as e:
                    game.action_id(text)
                self.assertIn("no id", str(e.exception))
        with self.assertRaises(ValueError) as e:
            game.action_id("(rev")
        self.assertIn("not an action", str(e.exception))
        self.assertEqual(state(game), before)


def full_state(game):
    """Everything a caller can read of a game at one moment, for comparing two games: the
    public state, the hidden one (the deal), the chance node, the legal actions and returns."""
    return (state(game), game.deal, game.seeds, game.is_chance_node, game.chance,
            game.legal_action_ids(), game.returns(), game.variant)


#: A seed of each kind that every API must refuse, with the error it raises.
BAD_SEEDS = [(True, TypeError, "not a bool"), (False, TypeError, "not a bool"),
             (-1, ValueError, "0 or more"), (1.0, TypeError, "not float"),
             (b"1", TypeError, "not bytes")]


class Seeds(unittest.TestCase):
    """Every API that takes a seed takes a str or an int of 0 or more, the int meaning exactly
    its decimal string (seeds.rs), and refuses bools and negative ints."""

    def test_a_game_from_an_int_seed_is_the_game_of_its_decimal_string(self):
        for name in ("traditional", "strategic", "2v2", "reveal-4"):
            for n in (0, 7, 2**64 + 5):
                with self.subTest(variant=name, seed=n):
                    a = anqi.Game(name, seed=n, client_seeds=[n + 1, "x"])
                    b = anqi.Game(name, seed=str(n), client_seeds=[str(n + 1), "x"])
                    self.assertEqual(a.seeds, {"clients": [str(n + 1), "x"], "server": str(n)})
                    self.assertEqual(full_state(a), full_state(b))
                    self.assertEqual(id_playout(a, random.Random(n)), id_playout(b, random.Random(n)))
        # Another number, another deal: the int is not ignored.
        self.assertNotEqual(anqi.Game(seed=1).deal, anqi.Game(seed=2).deal)

    def test_numpy_integers_are_ints(self):
        try:
            import numpy as np
        except ImportError:
            self.skipTest("numpy is not installed")
        self.assertEqual(anqi.Game(seed=np.int64(3)).deal, anqi.Game(seed="3").deal)
        self.assertEqual(anqi.Game(seed=np.uint8(3)).seeds["server"], "3")
        with self.assertRaises(TypeError):
            anqi.Game(seed=np.True_)

    def test_playouts_vecgames_resamples_and_chance_nodes_read_ints_as_their_strings(self):
        a = anqi.playouts("traditional-2x4", n=50, seed=12)
        b = anqi.playouts("traditional-2x4", n=50, seed="12")
        self.assertEqual(a["seed"], "12")
        for key in ("plies", "by_reason", "by_winner_side"):
            self.assertEqual(a[key], b[key], key)
        try:
            import numpy as np
        except ImportError:
            np = None
        if np is not None:
            x, y = anqi.VecGame("traditional", n=4), anqi.VecGame("traditional", n=4)
            for k in range(30):
                one = x.reset(seed=9) if k == 0 else x.step(x.random_actions())
                two = y.reset(seed="9") if k == 0 else y.step(y.random_actions())
                for u, v in zip(one, two):
                    np.testing.assert_array_equal(u, v)
            self.assertEqual(x.game(0).seeds["server"], "9/0/0")
        game = anqi.Game("traditional", seed="r")
        for _ in range(8):
            game.apply(game.legal_action_ids()[-1])
        for seed in (5, 2**70):
            self.assertEqual(game.resample(seed).deal, game.resample(str(seed)).deal)
        self.assertEqual(game.resample("word").deal, game.resample("word").deal)
        chance = anqi.Game("traditional", seed="c", chance=True)
        chance.play("(rev 4)")
        for seed in (0, 3, 11):
            a, b = chance.clone(), chance.clone()
            self.assertEqual(a.sample_chance(seed), b.sample_chance(str(seed)))
            self.assertEqual(full_state(a), full_state(b))

    def test_reference_bots_read_ints_as_their_strings(self):
        for strategy in ("random", "greedy"):
            for seed in (0, 7, 2**64 + 1):
                with self.subTest(strategy=strategy, seed=seed):
                    games = [anqi.Game("traditional-2x4", seed="bots") for _ in range(2)]
                    bots = [anqi.ReferenceBot(strategy, seed=seed), anqi.ReferenceBot(strategy, seed=str(seed))]
                    while not games[0].is_terminal:
                        moves = [b.choose(g.observation(g.to_move)) for b, g in zip(bots, games)]
                        self.assertEqual(moves[0], moves[1])
                        for g in games:
                            g.play(moves[0])
        session = anqi.ClientSession("me", 42)
        self.assertIn("(init me 42)", session.hello())

    def test_bools_negative_ints_and_other_types_are_refused_everywhere(self):
        chance = anqi.Game("traditional", seed="c", chance=True)
        chance.play("(rev 4)")
        calls = {
            "Game(seed)": lambda s: anqi.Game(seed=s),
            "Game(client_seeds)": lambda s: anqi.Game(client_seeds=[s]),
            "playouts": lambda s: anqi.playouts("traditional-2x4", n=1, seed=s),
            "resample": lambda s: anqi.Game(seed="g").resample(s),
            "sample_chance": lambda s: chance.clone().sample_chance(s),
            "ReferenceBot": lambda s: anqi.ReferenceBot("random", seed=s),
            "ClientSession": lambda s: anqi.ClientSession("me", s),
        }
        try:
            import numpy  # noqa: F401
            calls["VecGame.reset"] = lambda s: anqi.VecGame("traditional", n=1).reset(seed=s)
        except ImportError:
            pass
        for name, call in calls.items():
            for seed, error, words in BAD_SEEDS:
                if name in ("resample", "sample_chance") and isinstance(seed, bytes):
                    words = "random.Random"
                with self.subTest(api=name, seed=seed):
                    with self.assertRaisesRegex(error, words):
                        call(seed)
        with self.assertRaisesRegex(TypeError, "not a str"):
            anqi.Game(client_seeds="12")


class Pickle(unittest.TestCase):
    """A game pickles (and so goes to another process, and serializes in OpenSpiel) as its deal
    and the ids played, and comes back as it was: every state, chance nodes and records too."""

    def test_a_game_comes_back_as_it_was_at_every_moment_in_every_shipped_variant(self):
        import pickle

        rng = random.Random(8)
        for name in anqi.variants():
            for chance in (False, True):
                with self.subTest(variant=name, chance=chance):
                    game = anqi.Game(name, seed=f"pickle-{name}", chance=chance, record=True)
                    while True:
                        back = pickle.loads(pickle.dumps(game))
                        self.assertEqual(full_state(back), full_state(game))
                        self.assertEqual(repr(back), repr(game))
                        if game.is_terminal:
                            self.assertEqual(back.record().plies, game.record().plies)
                            break
                        # The copy plays on as the original: the repetition rule's positions,
                        # the counters and the hidden pieces came back too.
                        if game.is_chance_node:
                            letter = game.sample_chance(rng)
                            back.apply_chance(letter)
                        else:
                            i = rng.choice(game.legal_action_ids())
                            game.apply(i)
                            back.apply(i)
                        self.assertEqual(full_state(back), full_state(game))

    def test_resampled_revealed_and_given_games_pickle_and_vecgame_copies_refuse(self):
        import pickle

        for game in (anqi.Game("traditional", seed="r", revealed=6).resample(1),
                     anqi.Game("puzzle", deal="C.kgK..p"),
                     anqi.Game(anqi.Variant("strategic-2x4"), seed=3)):
            for i in game.legal_action_ids()[:1]:
                game.apply(i)
            self.assertEqual(full_state(pickle.loads(pickle.dumps(game))), full_state(game))
        with tempfile.TemporaryDirectory() as d:
            path = pathlib.Path(d) / "mine.sexp"
            path.write_text((SHIPPED_DIR / "traditional-2x4.sexp").read_text().replace(
                "(name traditional-2x4)", "(name mine)"))
            game = anqi.Game(str(path), seed=1)
            back = pickle.loads(pickle.dumps(game))
            self.assertEqual((back.variant, back.deal), ("mine", game.deal))
        try:
            vec = anqi.VecGame("traditional", n=1)
        except ImportError:
            return
        with self.assertRaisesRegex(TypeError, "cannot be pickled"):
            pickle.dumps(vec.game(0))


class GivenDeal(unittest.TestCase):
    LAYOUT = "KGGBBRRNNCCPPPPPkggbbrrnnccppppp"

    def test_a_layout_string_deals_those_pieces_face_down(self):
        game = anqi.Game("traditional", deal=self.LAYOUT)
        self.assertEqual(game.board, "X" * 32)
        self.assertIsNone(game.seeds)
        self.assertEqual(game.deal, {"cells": self.LAYOUT, "face_up": [], "bag": ""})
        for cell in range(32):  # reveals only: nothing is captured, the game goes on
            game.play(f"(rev {cell})")
            self.assertEqual(game.board[cell], self.LAYOUT[cell])

    def test_the_deal_of_a_seeded_game_replays_it_in_every_shipped_variant(self):
        rng = random.Random(5)
        for name in anqi.variants():
            with self.subTest(variant=name):
                game = anqi.Game(name, seed="deal")
                start = state(game)
                replay = anqi.Game(name, deal=game.deal)
                self.assertEqual(replay.deal, game.deal)
                self.assertEqual(state(replay), start)
                for action, after in id_playout(game, rng):
                    replay.apply(action)
                    self.assertEqual(state(replay), after)
                self.assertEqual(replay.deal, game.deal, "a normal game's deal never changes")

    def test_open_fixed_and_bag_starts_from_a_string(self):
        game = anqi.Game("open", deal=self.LAYOUT)
        self.assertEqual(game.board, self.LAYOUT)
        self.assertEqual(game.deal["face_up"], list(range(32)))
        puzzle = anqi.Game("puzzle", deal="C.kgK..p")
        self.assertEqual(puzzle.board, "C.XgK..p")
        bag = anqi.Game("strategic-2x4", deal="pPkKPPpp")
        self.assertEqual(bag.deal["bag"], "pPkKPPpp")
        bag.play("(bag)")
        self.assertIn("(put p 0)", bag.legal_actions())
        reveal = anqi.Game("reveal-4", deal={"cells": self.LAYOUT, "face_up": [0, 9, 17, 31]})
        self.assertEqual(reveal.board, "K" + "X" * 8 + "C" + "X" * 7 + "g" + "X" * 13 + "p")

    def test_bad_deals_raise_with_the_reason(self):
        cases = [
            ("traditional", self.LAYOUT[:-1], "31 cells"),
            ("traditional", self.LAYOUT[:-1] + "K", "missing 1 p; too many 1 K"),
            ("traditional", self.LAYOUT[:-1] + ".", "missing 1 p"),
            ("traditional", self.LAYOUT[:-1] + "x", "'x' at index 31"),
            ("traditional", {"cells": self.LAYOUT, "face_up": [3]}, "give no face-up cells"),
            ("traditional", {"cells": self.LAYOUT, "hand": "K"}, 'unknown key "hand"'),
            ("traditional", {"face_up": []}, "give the cells"),
            ("reveal-4", self.LAYOUT, "give their cells as face_up"),
            ("open", {"cells": self.LAYOUT, "face_up": [1]}, "1 face-up cells given for 32 pieces"),
            ("puzzle", "C.kgK.p.", "does not fit the fixed board"),
            ("strategic-2x4", "KPPPkpp", "missing 1 p"),
            ("strategic-2x4", {"cells": "K.......", "bag": "PPPkppp"}, "empty board"),
        ]
        for variant, deal, reason in cases:
            with self.subTest(variant=variant, deal=deal):
                with self.assertRaises(ValueError) as e:
                    anqi.Game(variant, deal=deal)
                self.assertIn(reason, str(e.exception))
                self.assertTrue(str(e.exception).startswith("deal: "), str(e.exception))
        with self.assertRaises(ValueError) as e:
            anqi.Game("traditional", seed="1", deal=self.LAYOUT)
        self.assertIn("not both", str(e.exception))
        with self.assertRaises(TypeError):
            anqi.Game("traditional", deal=5)


if __name__ == "__main__":
    unittest.main()
