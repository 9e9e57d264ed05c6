"""Tests of the client side of the `anqi` package: `anqi.Observation`, the sans-IO
`ClientSession`, the `ReferenceBot`s and `anqi.client.play_one`.

The games are played on the real server binary (`anqi serve` on 127.0.0.1:0), built with
`cargo build --bin anqi` when cargo is there; the records it writes are then checked with
`anqi replay` and against what every client saw. Run by clients/python/test.sh.
"""

import json
import os
import pathlib
import random
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import unittest

import anqi.client
from anqi._anqi import ClientSession, Observation, ReferenceBot

REPO = pathlib.Path(__file__).resolve().parents[3]
TARGET = pathlib.Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target")
COUNT_KEYS = ("moves", "jumps", "reveals", "bags", "puts")
# The setup message of the 2x4 board (PROTOCOL.md, T1), for the tests without a server.
SETUP_2X4 = (
    "((id {id})(players 2)(game traditional)(size 8)(pieces KPPPkppp)"
    "(moves (0 1)(1 2)(2 3)(4 5)(5 6)(6 7)(0 4)(1 5)(2 6)(3 7)))"
)
# The longest a test waits for one message: a game that stalls fails instead of hanging.
TIMEOUT = 60


def anqi_binary():
    """The server binary: `ANQI_BIN` when set (clients/python/test.sh sets it to the one it
    built), else target/debug/anqi, built first when cargo is available."""
    if os.environ.get("ANQI_BIN"):
        return pathlib.Path(os.environ["ANQI_BIN"])
    if shutil.which("cargo"):
        subprocess.run(
            ["cargo", "build", "--quiet", "--bin", "anqi"],
            cwd=REPO,
            check=True,
            env=dict(os.environ, CARGO_TARGET_DIR=str(TARGET)),
        )
    binary = TARGET / "debug" / "anqi"
    if not binary.exists():
        raise unittest.SkipTest(f"no server binary at {binary} and no cargo to build it")
    return binary


class Server:
    """`anqi serve` on a free port with its own records file; stopped on exit (SIGTERM: the
    server then writes its records and exits)."""

    def __init__(self, binary, variant, directory, mix_client_seeds=False):
        # One file per server: each test reads the games of its own server only.
        self.records = pathlib.Path(tempfile.mkstemp(".jsonl", variant + "-", directory)[1])
        # Deals from the server's fixed seed alone: the same game whatever order the clients
        # connect in (threads race), as long as the bots are the same.
        config = self.records.with_suffix(".toml")
        mix = "true" if mix_client_seeds else "false"
        config.write_text(f'[seed]\nserver = "python-client-tests"\nclients = {mix}\n')
        self.proc = subprocess.Popen(
            [binary, "serve", "--listen", "127.0.0.1:0", "--variant", variant,
             "--records", self.records, "--config", config],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        line = self.proc.stdout.readline()
        if not line.startswith("listening on "):
            self.proc.kill()
            raise RuntimeError(f"the server said {line!r}")
        self.addr = line.split()[-1]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.proc.terminate()
        self.proc.wait(timeout=30)
        self.proc.stdout.close()

    def load_records(self):
        return [json.loads(line) for line in self.records.read_text().splitlines()]

    def wait_records(self, n):
        """Waits until `n` records are written: a client that resigned and left has sent its
        resignation, but stopping the server before the referee reads it would abort the game
        instead (a race of the test, not of the client)."""
        deadline = time.monotonic() + TIMEOUT
        while len(self.load_records()) < n:
            if time.monotonic() > deadline:
                raise AssertionError(f"{n} records were not written within {TIMEOUT} s")
            time.sleep(0.01)


class Logged:
    """Wraps a bot: keeps, for every question, the observation's facts and the answer."""

    def __init__(self, bot):
        self.bot = bot
        self.asked = []

    def choose(self, observation):
        action = self.bot.choose(observation)
        self.asked.append(
            {
                "player": observation.player,
                "board": observation.board,
                "legal": observation.legal_actions(),
                "counts": observation.counts(),
                "action": action,
            }
        )
        return action


class RandomPython:
    """A bot written in Python: a random legal action."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def choose(self, observation):
        assert observation.is_my_turn
        return self.rng.choice(observation.legal_actions())


class IllegalFirst:
    """Answers its first `times` prompts first with an action the rules forbid, then legally
    (fewer errors than the server's limit of 20 a game); notes the board of every question
    asked twice, so the re-prompt can be seen."""

    def __init__(self, seed, bad="(mov 0 0)", times=5):
        self.rng = random.Random(seed)
        self.bad = bad
        self.times = times
        self.boards = []

    def choose(self, observation):
        if self.times == 0:
            return self.rng.choice(observation.legal_actions())
        self.boards.append(observation.board)
        if len(self.boards) % 2 == 1:
            return self.bad
        self.times -= 1
        return self.rng.choice(observation.legal_actions())


class Games(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.binary = anqi_binary()
        cls.tmp = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def play(self, variant, bots, seeds=None):
        """One game of `variant` with `bots`, each on its own client thread (seated in the order
        they connect, which the checks do not depend on); returns the results, in the order of
        `bots`, and the game's record."""
        results = [None] * len(bots)
        failures = []

        def run(i, bot):
            try:
                results[i] = anqi.client.play_one(
                    server.addr, bot, name=f"py{i}", seed=1000 + i, timeout=TIMEOUT
                )
            except BaseException as e:  # reported by the test thread
                failures.append(e)

        with Server(self.binary, variant, self.tmp.name) as server:
            threads = []
            for i, bot in enumerate(bots):
                t = threading.Thread(target=run, args=(i, bot))
                t.start()
                threads.append(t)
            for t in threads:
                t.join(TIMEOUT * 5)
                self.assertFalse(t.is_alive(), f"{variant}: a client did not finish")
        if failures:
            raise failures[0]
        (record,) = server.load_records()
        replay = subprocess.run(
            [self.binary, "replay", "--quiet", server.records], capture_output=True, text=True
        )
        self.assertEqual(replay.returncode, 0, replay.stdout + replay.stderr)
        return results, record

    def check_record(self, record, results, bots):
        """Every ply of the record was answered by its player's bot at that point, from an
        observation whose legal actions are the server's (same counts, action among them)."""
        by_player = {}
        for result, bot in zip(results, bots):
            win = record["result"]["win"]  # "(win P T)"
            self.assertEqual(result["win"], [int(x) for x in win[len("(win "):-1].split()])
            asked = [q for q in bot.asked if q["player"] == result["me"]]
            self.assertEqual(len(asked), len(bot.asked))
            by_player[result["me"]] = iter(asked)
        for ply in record["plies"]:
            question = next(by_player[ply["player"]])
            self.assertEqual(question["action"], ply["action"], ply)
            self.assertIn(ply["action"], question["legal"])
            want = {k: ply["legal"].get(k, 0) for k in COUNT_KEYS}
            self.assertEqual(question["counts"], want, ply)
            self.assertEqual(len(question["legal"]), sum(want.values()), ply)
        for rest in by_player.values():
            self.assertEqual(list(rest), [], "questions the record has no ply for")

    def test_traditional_python_bot_against_a_reference_bot(self):
        bots = [Logged(RandomPython(1)), Logged(ReferenceBot("greedy", seed=2))]
        results, record = self.play("traditional", bots)
        self.assertEqual(sorted(r["me"] for r in results), [1, 2])
        self.assertGreater(len(record["plies"]), 10)
        self.check_record(record, results, bots)

    def test_2v2_four_clients(self):
        bots = [
            Logged(RandomPython(1)),
            Logged(ReferenceBot("random", seed=2)),
            Logged(RandomPython(3)),
            Logged(ReferenceBot("search", seed=4, depth=1)),
        ]
        results, record = self.play("2v2", bots)
        self.assertEqual(sorted(r["me"] for r in results), [1, 2, 3, 4])
        self.check_record(record, results, bots)

    def test_single_one_client(self):
        bots = [Logged(RandomPython(5))]
        results, record = self.play("single", bots)
        self.assertEqual(results[0]["me"], 1)
        self.check_record(record, results, bots)

    def test_strategic_bag_draws_and_puts(self):
        bots = [Logged(ReferenceBot("greedy", seed=6)), Logged(RandomPython(7))]
        results, record = self.play("strategic", bots)
        actions = [p["action"] for p in record["plies"]]
        self.assertIn("(bag)", actions)
        self.assertTrue(any(a.startswith("(put ") for a in actions))
        self.check_record(record, results, bots)

    def test_chain_captures_keep_the_turn(self):
        # Greedy bots capture whenever they safely can, so chains happen; the observation of a
        # chain's next capture offers only that piece's captures, as the server does. (Two
        # identical bots and the fixed deal: the same game every time.)
        bots = [Logged(ReferenceBot("greedy", seed=13)), Logged(ReferenceBot("greedy", seed=13))]
        results, record = self.play("chain-capture", bots)
        players = [p["player"] for p in record["plies"]]
        self.assertTrue(any(a == b for a, b in zip(players, players[1:])), "no chain")
        self.check_record(record, results, bots)

    def test_an_illegal_answer_gets_an_error_and_the_same_prompt_again(self):
        sly = IllegalFirst(8)
        results, record = self.play("traditional", [sly, RandomPython(9)])
        errors = results[0]["errors"]
        self.assertTrue(errors)
        self.assertEqual({code for code, _ in errors}, {"illegal"})
        # Each refused answer was followed by the same prompt: the same board, asked again.
        self.assertEqual(len(sly.boards), 10, "a 4x8 game lasts more than 5 turns of each player")
        for first, again in zip(sly.boards[::2], sly.boards[1::2]):
            self.assertEqual(first, again)
        self.assertEqual(len(errors), 5)
        self.assertEqual(len(record["faults"]), len(errors))

    def test_a_bot_that_always_answers_illegally_loses_at_the_error_limit(self):
        class Stubborn:
            asked = 0

            def choose(self, observation):
                self.asked += 1
                return "(mov 0 0)"

        stubborn = Stubborn()
        results, record = self.play("traditional", [stubborn, RandomPython(10)])
        # The default [referee] max_errors is 20: the 21st error loses, without a re-prompt.
        self.assertEqual(stubborn.asked, 21)
        self.assertEqual(len(results[0]["errors"]), 21)
        self.assertEqual(record["result"]["reason"], "illegal")
        self.assertEqual(results[1]["win"], [results[1]["me"], 0])

    def test_a_bot_that_raises_resigns_and_the_exception_reaches_the_caller(self):
        class Broken:
            def choose(self, observation):
                raise KeyError("my bug")

        with Server(self.binary, "traditional-2x4", self.tmp.name) as server:
            other = {}
            t = threading.Thread(
                target=lambda: other.update(
                    anqi.client.play_one(server.addr, RandomPython(11), timeout=TIMEOUT)
                )
            )
            with self.assertRaisesRegex(KeyError, "my bug"):
                t.start()
                threading.Event().wait(0.2)
                anqi.client.play_one(server.addr, Broken(), timeout=TIMEOUT)
            t.join(TIMEOUT)
            server.wait_records(1)
        self.assertEqual(other["win"][0], other["me"])
        (record,) = server.load_records()
        self.assertEqual(record["result"]["reason"], "resign")

    def test_an_answer_that_is_not_an_action_is_refused_before_sending(self):
        with Server(self.binary, "single", self.tmp.name) as server:
            with self.assertRaisesRegex(ValueError, "not an action"):
                anqi.client.play_one(server.addr, lambda o: "(dance)", timeout=TIMEOUT)
            with self.assertRaisesRegex(TypeError, "an action is a str"):
                anqi.client.play_one(server.addr, lambda o: 3, timeout=TIMEOUT)
            server.wait_records(2)
        reasons = [r["result"]["reason"] for r in server.load_records()]
        self.assertEqual(reasons, ["resign", "resign"])

    def test_a_token_is_sent_as_the_seed(self):
        with Server(self.binary, "single", self.tmp.name, mix_client_seeds=True) as server:
            result = anqi.client.play_one(
                server.addr, RandomPython(12), token="tok-123", timeout=TIMEOUT
            )
        self.assertEqual(result["me"], 1)
        (record,) = server.load_records()
        self.assertEqual(record["seeds"]["clients"], ["tok-123"])
        with self.assertRaises(ValueError):
            anqi.client.play_one(server.addr, RandomPython(12), token="a", seed=1)


class FakeServer:
    """A listening socket that sends `lines` to the first client, then closes."""

    def __init__(self, lines):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.addr = "127.0.0.1:%d" % self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self.serve, args=(lines,))
        self.thread.start()

    def serve(self, lines):
        conn, _ = self.sock.accept()
        with conn:
            for line in lines:
                conn.sendall(line.encode() + b"\n")
            # Close gracefully: the end of the stream, then read the client's bytes to its own
            # close (closing with them unread would reset the connection).
            conn.shutdown(socket.SHUT_WR)
            while conn.recv(4096):
                pass
        self.sock.close()


class Closed(unittest.TestCase):
    def test_a_reset_connection_is_a_closed_one(self):
        # The fake server closes without reading the client's hello: a reset, not a FIN.
        sock = socket.create_server(("127.0.0.1", 0))
        addr = "127.0.0.1:%d" % sock.getsockname()[1]

        def serve():
            conn, _ = sock.accept()
            conn.sendall(b'((error busy "full"))\n')
            threading.Event().wait(0.2)  # the client's hello has arrived, unread
            conn.close()
            sock.close()

        t = threading.Thread(target=serve)
        t.start()
        with self.assertRaisesRegex(anqi.client.ConnectionClosed, "busy"):
            anqi.client.play_one(addr, RandomPython(1), timeout=TIMEOUT)
        t.join()

    def test_a_connection_closed_before_the_result_raises(self):
        fake = FakeServer([SETUP_2X4.format(id=1)])
        with self.assertRaisesRegex(anqi.client.ConnectionClosed, "before the end of the game"):
            anqi.client.play_one(fake.addr, RandomPython(1), timeout=TIMEOUT)
        fake.thread.join()

    def test_the_last_error_is_in_the_exception(self):
        fake = FakeServer(['((error busy "the server is full"))'])
        with self.assertRaises(anqi.client.ConnectionClosed) as caught:
            anqi.client.play_one(fake.addr, RandomPython(1), timeout=TIMEOUT)
        self.assertIn("seating this client", str(caught.exception))
        self.assertIn("busy", str(caught.exception))
        self.assertEqual(caught.exception.errors, [("busy", "the server is full")])
        fake.thread.join()


class Session(unittest.TestCase):
    """ClientSession fed message text, without a server."""

    def seated(self, player=2):
        s = ClientSession("py bot", 42)
        self.assertIsNone(s.feed(SETUP_2X4.format(id=player)))
        return s

    def test_hello_asks_for_the_variant_then_joins(self):
        s = ClientSession("py bot", 42)
        self.assertEqual(s.hello(), '((ext variant))\n((init "py bot" 42))\n')
        self.assertEqual(ClientSession("a", "tok").hello().splitlines()[1], "((init a tok))")
        self.assertIsNone(s.player)
        self.assertIsNone(s.setup)
        with self.assertRaises(ValueError):
            ClientSession("", 1)
        with self.assertRaises(ValueError):
            ClientSession("x" * 2000, 1)
        with self.assertRaises(TypeError):
            ClientSession("a", 1.5)
        with self.assertRaises(ValueError):
            ClientSession("a", 1, variant="no-such-variant")

    def test_colour_prompt_reply_and_result(self):
        s = self.seated()
        self.assertEqual(s.setup["id"], 2)
        self.assertEqual(s.setup["variant"], "traditional")
        with self.assertRaises(RuntimeError):
            s.observation()
        self.assertIsNone(s.feed("((board XXXXXXXX)(info 0 1))"))
        o = s.observation()
        self.assertFalse(o.is_my_turn)
        self.assertEqual(o.legal_actions(), [])
        self.assertIsNone(o.colour)
        with self.assertRaises(RuntimeError):
            s.reply("(rev 0)")
        # Player 1 turned up a red pawn: player 2 is black.
        self.assertEqual(s.feed("((board PXXXXXXX)(turn 0 2))"), "prompt")
        o = s.observation()
        self.assertEqual((o.player, o.to_move, o.turn, o.board), (2, 2, 0, "PXXXXXXX"))
        self.assertEqual((o.colour, o.colours), ("black", ["red", "black"]))
        self.assertEqual((o.side, o.sides), (1, [[1], [2]]))
        self.assertEqual(o.legal_actions(), [f"(rev {c})" for c in range(1, 8)])
        self.assertEqual(o.counts()["reveals"], 7)
        self.assertEqual(o.counts_of(1)["reveals"], 7)
        with self.assertRaises(ValueError):
            o.counts_of(3)
        for bad in ["(resign)", "(dance)", "rev 1", "(rev 1)(rev 2)", "(rev " + "1" * 300 + ")"]:
            with self.assertRaisesRegex(ValueError, "not an action"):
                s.reply(bad)
        self.assertTrue(s.awaiting)
        self.assertEqual(s.reply("(rev 3)"), "((board PXXXXXXX)(rev 3))\n")
        self.assertFalse(s.awaiting)
        self.assertIsNone(s.result)
        self.assertEqual(s.feed('((error illegal "not now"))'), None)
        self.assertEqual(s.feed("((board PXXXXXXX)(turn 0 2))"), "prompt")
        self.assertEqual(s.resign(), "((resign))\n")
        self.assertEqual(s.feed("((win 1 0))"), "over")
        self.assertEqual(s.result, {"me": 2, "win": [1, 0], "errors": [("illegal", "not now")]})

    def test_lines_are_bounded_and_must_be_messages(self):
        s = self.seated()
        self.assertIsNone(s.feed("\n"))
        for bad in ["hello", "((win 1 0))((win 1 0))", "((board XXXXXXXX)", "((dance))",
                    "(" * 40 + ")" * 40]:
            with self.assertRaises(ValueError, msg=bad):
                s.feed(bad)
        with self.assertRaisesRegex(ValueError, "more than"):
            s.feed("(" + "x" * ClientSession.MAX_LINE_BYTES + ")")
        with self.assertRaisesRegex(ValueError, "cells"):
            s.feed("((board XXX)(turn 0 2))")
        with self.assertRaisesRegex(ValueError, "before the setup"):
            ClientSession("a", 1).feed("((board XXXXXXXX)(turn 0 1))")

    def test_the_given_variant_wins(self):
        s = ClientSession("a", 1, variant="hong-kong")
        s.feed(SETUP_2X4.replace("(size 8)", "(size 32)").format(id=1).replace(
            "(moves (0 1)(1 2)(2 3)(4 5)(5 6)(6 7)(0 4)(1 5)(2 6)(3 7))", ""))
        self.assertEqual(s.setup["variant"], "hong-kong")
        self.assertEqual(s.feed("((board " + "X" * 32 + ")(turn 0 1))"), "prompt")
        self.assertIn("(variant", s.observation().description)


class Observations(unittest.TestCase):
    def test_from_public_facts(self):
        o = Observation.from_public("traditional", "X" * 31 + "K", 1, 1, colours=["red", "black"])
        self.assertEqual((o.variant, o.player, o.colour), ("traditional", 1, "red"))
        self.assertEqual(o.game, "traditional")
        self.assertEqual(o.counts()["reveals"], 31)
        self.assertEqual(len(o.legal_actions()), 31)
        self.assertEqual(Observation.from_public("traditional", "X" * 32, 2, 1).legal_actions(), [])
        o = Observation.from_public("strategic", "X" * 32, 1, 1)
        self.assertEqual(o.legal_actions(), ["(bag)"])
        o = Observation.from_public("strategic", "X" * 32, 1, 1, hand="K", colours=["red", "black"])
        self.assertEqual(len(o.legal_actions()), 32)
        self.assertTrue(all(a.startswith("(put K ") for a in o.legal_actions()))
        # Fixed colours by default in `open`; a team game's sides and teammates.
        self.assertEqual(Observation.from_public("open", "X" * 32, 2, 1).colour, "black")
        o = Observation.from_public("2v2", "X" * 32, 3, 1)
        self.assertEqual((o.side, o.team, o.teammates, o.players), (0, 1, [1], 4))
        self.assertIsNone(Observation.from_public("single", "X" * 32, 1, 1).colour)
        for kwargs in [dict(board="X"), dict(player=3), dict(hand="Q"), dict(chain=40),
                       dict(colours=["red"]), dict(colours=["red", "blue"]), dict(variant="nope")]:
            args = dict(variant="traditional", board="X" * 32, player=1, to_move=1)
            args.update(kwargs)
            with self.assertRaises(ValueError, msg=kwargs):
                Observation.from_public(**args)

    def test_what_the_player_has_seen_of_the_game(self):
        # From a connection: the pool, the plies without progress and the repetitions follow
        # the prompts (the kings step out and back: the first position comes back).
        s = ClientSession("a", 1)
        s.feed(SETUP_2X4.format(id=1))
        for board, prompt in [("K.XXXX.k", "(turn 3 1)"), (".KXXXX.k", "(info 3 2)"),
                              (".KXXXXk.", "(turn 4 1)"), ("K.XXXXk.", "(info 4 2)")]:
            s.feed(f"((board {board}){prompt})")
            o = s.observation()
            self.assertEqual(o.occurrences, 1)
        s.feed("((board K.XXXX.k)(turn 5 1))")
        o = s.observation()
        self.assertEqual((o.pool, o.progress, o.occurrences), ({"P": 3, "p": 3}, 4, 2))
        # A position shown alone: the pieces not face-up, nothing before it.
        o = Observation.from_public("traditional-2x4", "K..pXXXX", 1, 1)
        self.assertEqual((o.pool, o.progress, o.occurrences), ({"P": 3, "k": 1, "p": 2}, 0, 1))
        # In process: the rules core's exact pool and count.
        game = anqi.Game("traditional-2x4", seed="s")
        game.play("(rev 0)")
        o = game.observation(2)
        self.assertEqual(sum(o.pool.values()), 7)
        self.assertEqual((o.progress, o.occurrences), (0, 1))

    def test_a_description_text_is_a_variant(self):
        s = ClientSession("a", 1, variant="chain-capture")
        s.feed(SETUP_2X4.replace("(size 8)", "(size 32)").format(id=1).replace(
            "(moves (0 1)(1 2)(2 3)(4 5)(5 6)(6 7)(0 4)(1 5)(2 6)(3 7))", ""))
        s.feed("((board " + "X" * 32 + ")(turn 0 1))")
        text = s.observation().description
        o = Observation.from_public(text, "X" * 32, 1, 1)
        self.assertEqual(o.variant, "chain-capture")


class ReferenceBots(unittest.TestCase):
    def test_each_strategy_answers_a_legal_action_deterministically(self):
        o = Observation.from_public("traditional", "X" * 31 + "K", 1, 1, colours=["red", "black"])
        for strategy in ["random", "greedy", "search"]:
            bot = ReferenceBot(strategy, seed=3)
            self.assertEqual(bot.strategy, strategy)
            choice = bot.choose(o)
            self.assertIn(choice, o.legal_actions())
            self.assertEqual(ReferenceBot(strategy, seed=3).choose(o), choice)

    def test_refusals(self):
        with self.assertRaises(ValueError):
            ReferenceBot("clever")
        with self.assertRaises(ValueError):
            ReferenceBot("greedy", depth=2)
        with self.assertRaises(ValueError):
            ReferenceBot("search", depth=0)
        waiting = Observation.from_public("traditional", "X" * 32, 2, 1)
        with self.assertRaisesRegex(ValueError, "not to move"):
            ReferenceBot().choose(waiting)


if __name__ == "__main__":
    unittest.main()
