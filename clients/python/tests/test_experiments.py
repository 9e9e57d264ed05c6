"""Experiments from Python against the real anqi program: Server, play, records, analysis.

The `anqi` and `anqi-bot` programs must be built (test.sh builds them); `find_anqi` finds them
in the checkout's target directory.
"""

import dataclasses
import json
import os
import subprocess
import tempfile
import time
import tomllib
import unittest
from pathlib import Path

import anqi
from anqi._anqi import toml_dumps, tournament_config_toml
from anqi._binary import BinaryNotFound, find_anqi
from anqi.records import Counts, RecordError

REPO = Path(__file__).resolve().parents[3]
DATA = REPO / "tests" / "data"


def anqi_bot() -> str:
    return str(Path(find_anqi()).with_name("anqi-bot"))


def replay(path) -> subprocess.CompletedProcess:
    return subprocess.run([find_anqi(), "replay", str(path)], capture_output=True, text=True)


def report_json(path) -> dict:
    """What `anqi report --json PATH` prints."""
    out = subprocess.run([find_anqi(), "report", "--json", str(path)], capture_output=True,
                         text=True)
    if out.returncode != 0:
        raise AssertionError(f"anqi report failed: {out.stderr}")
    return json.loads(out.stdout)


class FirstLegal(anqi.Bot):
    """Deterministic and simple: always the first legal action."""

    name = "first"

    def choose(self, view):
        return view.legal_actions()[0]


class Binary(unittest.TestCase):
    def test_explicit_paths_must_exist(self):
        with self.assertRaises(BinaryNotFound) as e:
            find_anqi("/nonexistent/anqi")
        self.assertIn("/nonexistent/anqi", str(e.exception))

    def test_the_checkout_build_is_found(self):
        path = find_anqi()
        out = subprocess.run([path, "--version"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertTrue(out.stdout.startswith("anqi"), out.stdout)


class Toml(unittest.TestCase):
    def test_round_trip(self):
        doc = {"tournament": {"variant": "2v2", "deals": 3, "tc": "10+0.1", "quiet": True,
                              "ratio": 0.5, "tricky": 'a "quoted"\nline',
                              "clock": {"game_ms": 1000},
                              "engine": [{"name": "a", "token": "t", "env": {"X": "1"}},
                                         {"name": "b", "command": "bot", "args": ["-v", "{addr}"]}]}}
        self.assertEqual(tomllib.loads(toml_dumps(doc)), doc)
        self.assertEqual(tomllib.loads(toml_dumps(json.dumps(doc))), doc)
        # None is no value in TOML: the key is left out.
        self.assertEqual(tomllib.loads(toml_dumps({"t": {"x": None, "y": 1}})), {"t": {"y": 1}})

    def test_unwritable_values_are_refused(self):
        with self.assertRaises(TypeError):
            toml_dumps({"t": {"x": object()}})
        with self.assertRaises(ValueError):
            toml_dumps({"t": {"x": float("nan")}})
        with self.assertRaises(ValueError):
            toml_dumps({"t": {"x": 2**64}})
        with self.assertRaises(ValueError):
            toml_dumps({"t": {"x": [1, None]}})
        with self.assertRaises(TypeError):
            toml_dumps([1, 2])


class TournamentConfig(unittest.TestCase):
    """The file anqi.play writes is read, checked and written by anqi-tournament's own types."""

    SECTION = {"variant": "2v2", "deals": 3, "seed": "s", "tc": "st=0.5", "max_plies": 0,
               "legal_counts": "all", "listen": "127.0.0.1:0", "output": "out.jsonl",
               "engine": [{"name": "a", "token": "t1"},
                          {"name": "b", "command": "bot", "args": ["--connect", "{addr}"],
                           "env": {"X": "1"}, "protocol": "anqi"},
                          {"name": "c", "token": "t2"}, {"name": "d", "token": "t3"}]}

    def test_every_key_written_out_and_read_back(self):
        doc = tomllib.loads(tournament_config_toml(self.SECTION))
        t = doc["tournament"]
        for key, value in self.SECTION.items():
            if key != "engine":
                self.assertEqual(t[key], value, key)
        # The defaults are written too, as anqi tournament takes them.
        self.assertEqual((t["format"], t["cycles"], t["concurrency"]), ("round-robin", 1, 1))
        self.assertEqual([e["name"] for e in t["engine"]], ["a", "b", "c", "d"])
        self.assertEqual(t["engine"][1]["args"], ["--connect", "{addr}"])
        self.assertEqual(t["engine"][1]["env"], {"X": "1"})
        self.assertEqual(t["engine"][0]["token"], "t1")
        self.assertNotIn("command", t["engine"][0])
        # None: left out, as if not given.
        self.assertNotIn("gauntlet", tomllib.loads(
            tournament_config_toml({**self.SECTION, "gauntlet": None}))["tournament"])

    def test_mistakes_raise_with_the_tournaments_own_words(self):
        cases = [
            ({"comand": "x"}, "unknown field `comand`"),
            ({"tc": "60+"}, "40/60+0.6"),
            ({"legal_counts": "most"}, '"mover" or "all"'),
            ({"deals": 0}, "at least 1"),
            ({"engine": [{"name": "a/b", "token": "t"}]}, "engine name"),
        ]
        for extra, words in cases:
            with self.subTest(extra), self.assertRaises(ValueError) as e:
                tournament_config_toml({**self.SECTION, **extra})
            self.assertIn(words, str(e.exception))

    def test_play_refuses_a_bad_tournament_key_before_anything_starts(self):
        with self.assertRaises(ValueError) as e:
            anqi.play([FirstLegal(), FirstLegal()], variant="traditional-2x4",
                      tournament={"cycels": 2})
        self.assertIn("cycels", str(e.exception))


class ServerTests(unittest.TestCase):
    def test_serves_games_and_keeps_records(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "games.jsonl"
            with anqi.Server(variant="traditional-2x4", records=path,
                             config={"referee": {"max_plies": 200}}) as server:
                self.assertTrue(server.running)
                self.assertGreater(server.port, 0)
                import threading
                results = []
                threads = [threading.Thread(target=lambda b=b: results.append(
                    anqi.client.play_one(server.addr, b, name=b.display_name())))
                    for b in (FirstLegal(), anqi.RandomBot(3))]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join(60)
                self.assertEqual(len(results), 2)
                records = server.records()
            self.assertFalse(server.running)
            self.assertEqual(len(records), 1)
            r = records[0]
            self.assertEqual(r.variant, "traditional-2x4")
            self.assertEqual(r.max_plies, 200)
            self.assertEqual(sorted(p.name for p in r.players), ["first", "random"])
            r.replay()
            self.assertEqual(replay(path).returncode, 0)

    def test_a_local_server_seats_every_bot_of_its_owner(self):
        # 18 players from this machine at once: more than the public server's cap of players
        # per network (max_seats_per_address = 16), which a local server lifts.
        import threading
        with anqi.Server(variant="traditional-2x4") as server:
            results, errors = [], []

            class Slow(anqi.RandomBot):
                # Thinks a while over its first action, so that every player is seated at once.
                first = True

                def choose(self, view):
                    if self.first:
                        self.first = False
                        time.sleep(1.0)
                    return super().choose(view)

            def one(seed):
                try:
                    results.append(anqi.client.play_one(server.addr, Slow(seed)))
                except Exception as e:  # noqa: BLE001 - reported below
                    errors.append(repr(e))

            threads = [threading.Thread(target=one, args=(i,)) for i in range(18)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(120)
            self.assertEqual((len(results), errors), (18, []))
            self.assertEqual(len(server.records()), 9)

    def test_a_local_server_keeps_the_limits_its_config_sets(self):
        from anqi.server import _local_config
        self.assertEqual(
            _local_config({}),
            {"server": {"max_seats_per_address": 0}, "referee": {"first_move_ms": 0}})
        given = {"server": {"max_seats_per_address": 4}, "referee": {"max_plies": 9}}
        self.assertEqual(
            _local_config(given),
            {"server": {"max_seats_per_address": 4},
             "referee": {"max_plies": 9, "first_move_ms": 0}})
        self.assertEqual(given["referee"], {"max_plies": 9}, "the caller's dict is not changed")

    def test_a_bad_variant_is_reported(self):
        with self.assertRaises(anqi.ServerError) as e:
            anqi.Server(variant="no-such-variant").start()
        self.assertIn("no-such-variant", str(e.exception))

    def test_stop_deletes_the_default_records(self):
        server = anqi.Server(variant="single").start()
        path = server.records_path
        self.assertEqual(server.stop(), 0)
        self.assertFalse(path.exists())


class PlayTests(unittest.TestCase):
    def standings_agree_with_anqi_report(self, records, path):
        """anqi.standings of a tournament's records is what `anqi report --json` prints for
        its records file: the same code."""
        s = anqi.standings(records)
        self.assertEqual(s.report, report_json(path))
        self.assertEqual(s.games, len(records))
        return s

    def check(self, records, games, variant, seats):
        self.assertEqual(len(records), games)
        for r in records:
            self.assertEqual(r.variant, variant)
            self.assertEqual(len(r.players), seats)
            self.assertTrue(all(p.side is not None and p.team is not None for p in r.players))
            self.assertEqual(r.faults, ())
            for p in r.plies:
                self.assertIsNotNone(p.legal_all, "play keeps every player's counts")
                self.assertEqual(len(p.legal_all), seats)
                self.assertEqual(p.legal_all[p.player - 1], p.legal)
            r.replay()

    def test_two_v_two_with_python_bots(self):
        bots = [anqi.RandomBot(1), FirstLegal(), anqi.RandomBot(2), anqi.GreedyBot(4)]
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "2v2.jsonl"
            records = anqi.play(bots, games=8, variant="2v2", concurrency=2, seed="t",
                                max_plies=300, output=out)
            s = self.standings_agree_with_anqi_report(records, out)
        self.check(records, 8, "2v2", 4)
        # A team game: teams and every engine in every seat.
        self.assertTrue(s.teams)
        self.assertEqual(len(s.seats), 16)
        # Every rotation of the seats: each bot sat in every seat once per deal.
        seats = {tuple(r.engines) for r in records}
        self.assertEqual(len(seats), 4, seats)
        self.assertEqual({n for r in records for n in r.engines},
                         {"random", "first", "random-2", "greedy"})
        # Teams: seats 1 and 3 play together.
        r = records[0]
        self.assertEqual(r.sides, [[1, 3], [2, 4]])
        self.assertEqual(r.player(1).team, r.player(3).team)
        self.assertNotEqual(r.player(1).team, r.player(2).team)

    def test_two_experiments_on_one_deal_book_play_the_same_deals(self):
        # Different players, one book: the same deal for each deal number, each the book's
        # entry, and `anqi report` proves it with the book.
        with tempfile.TemporaryDirectory() as tmp:
            book = Path(tmp) / "deals.book"
            subprocess.run([find_anqi(), "book", "new", "--deals", "3", "--output", book],
                           check=True, capture_output=True)
            deals = json.loads(book.read_text())["deals"]

            def dealt(records):
                return sorted({(r.tournament["deal"], r.seeds["server"],
                                r.tournament["book"]["entry"]) for r in records})

            first = anqi.play([FirstLegal(), anqi.RandomBot(1)], games=4,
                              variant="traditional-2x4", book=book)
            path = Path(tmp) / "second.jsonl"
            second = anqi.play([anqi.GreedyBot(2), anqi.RandomBot(3)], games=6,
                               variant="traditional-2x4", book=book, output=path)
            self.assertEqual(dealt(first), [(n, deals[n], n) for n in range(2)])
            self.assertEqual(dealt(second), [(n, deals[n], n) for n in range(3)])
            out = subprocess.run([find_anqi(), "report", path, "--seed", "anqi", "--book", book],
                                 capture_output=True, text=True)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertIn("dealt from the deal book", out.stdout)

    def test_single_player_and_a_program(self):
        records = anqi.play([FirstLegal(), f"{anqi_bot()} --connect {{addr}} --strategy greedy"],
                            games=4, variant="single", concurrency=2, max_plies=400)
        self.check(records, 4, "single", 1)
        self.assertEqual({r.engines[0] for r in records}, {"first", "anqi-bot-greedy"})
        self.assertTrue(all(r.one_sided for r in records))

    def test_cooperative_teams_score_together(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "cooperative.jsonl"
            records = anqi.play([anqi.GreedyBot(1), anqi.RandomBot(2), FirstLegal()], games=6,
                                variant="cooperative", concurrency=2, output=out)
            s = self.standings_agree_with_anqi_report(records, out)
        self.check(records, 6, "cooperative", 2)
        [goal] = s.one_side
        self.assertEqual((goal["games"], len(goal["engines"]), len(goal["teams"])), (6, 3, 3))
        for r in records:
            self.assertTrue(r.one_sided)
            self.assertEqual(r.sides, [[1, 2]])
            self.assertEqual(r.score(1), r.score(2))
            self.assertEqual(r.score(1), 1.0 if r.result.reason == "cleared" else 0.0)

    def test_strategic_is_played_and_saved(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "kept.jsonl"
            records = anqi.play([anqi.RandomBot(5), anqi.GreedyBot(6)], games=2,
                                variant="strategic-2x4", output=out)
            self.check(records, 2, "strategic-2x4", 2)
            # One deal played twice, seats swapped: a pentanomial pair.
            s = self.standings_agree_with_anqi_report(records, out)
            self.assertEqual(sum(s.pentanomial[0]["counts"]), 1)
            self.assertEqual(replay(out).returncode, 0, replay(out).stdout)
            self.assertTrue(any(p.kind == "put" for r in records for p in r.plies))

    def test_a_failing_bot_stops_the_event(self):
        class Broken(anqi.Bot):
            name = "broken"

            def choose(self, view):
                raise KeyError("oops")

        with self.assertRaises(anqi.PlayError) as e:
            anqi.play([Broken(), anqi.RandomBot(1)], games=4, variant="traditional-2x4")
        self.assertIn("'broken' failed: KeyError", str(e.exception))
        self.assertIsInstance(e.exception.__cause__, KeyError)

    def test_a_variant_that_does_not_load(self):
        with self.assertRaises(ValueError):
            anqi.play([FirstLegal(), FirstLegal()], variant="no-such-variant")

    def test_too_few_players(self):
        with self.assertRaises(ValueError) as e:
            anqi.play([FirstLegal()], variant="2v2")
        self.assertIn("4 seats", str(e.exception))


class RecordsAndAnalysis(unittest.TestCase):
    def test_old_records_load(self):
        records = anqi.records.load(DATA / "one-game.jsonl")
        r = records[0]
        self.assertEqual([p.side for p in r.players], [0, 1])
        self.assertEqual(r.winners(), [2])
        self.assertEqual(r.board_at(0), "XXXXXXXX")
        self.assertEqual(r.board_at(len(r.plies)), r.final_board)
        r.replay()

    def test_the_dataclasses_have_every_field_of_the_record_types(self):
        # The schema's one definition is the Rust types (anqi-core's record.rs): RECORD_FIELDS
        # reads their fields, and each dataclass has the same, so a field added there and not
        # here (or renamed on one side) fails here. seeds, tournament and ladder stay dicts.
        from anqi import records as rec

        views = {"": rec.Record, "players[]": rec.Player, "plies[]": rec.Ply,
                 "plies[].legal": rec.Counts, "faults[]": rec.Fault, "result": rec.Result,
                 "result.adjudication": rec.Adjudication, "drops[]": rec.Drop}
        dicts = {"seeds", "tournament", "tournament.seats[]", "ladder"}
        self.assertEqual(set(rec.RECORD_FIELDS), set(views) | dicts)
        python_only = {"source", "raw"}
        for at, cls in views.items():
            with self.subTest(at):
                names = {f.name for f in dataclasses.fields(cls)} - python_only
                self.assertEqual(names, set(rec.RECORD_FIELDS[at]))
        self.assertEqual(rec.COUNT_KINDS, ("moves", "jumps", "reveals", "bags", "puts"))
        self.assertIn("capture-all", rec.TERMINATIONS)
        self.assertEqual(rec.RECORD_FORMAT, 1)
        # Every field of a record that has them all comes through to its dataclass.
        d = json.loads((DATA / "one-game.jsonl").read_text().splitlines()[0])
        full = {**d, "max_plies": 300, "faults_dropped": 2,
                "tournament": {"index": 3, "deal": 1, "engines": ["a", "b"],
                               "seats": [{"protocol": "anqi", "assumes": "x", "tc": "inf"}],
                               "commitment": "ab" * 32},
                "drops": [{"player": 1, "ply": 2, "away_ms": 310, "back": True}],
                "ladder": {"server": "anqi"},
                "faults": [{"ply": 1, "player": 2, "code": "illegal", "text": "no"}],
                "players": [{**p, "side": p["id"] - 1, "team": 0} for p in d["players"]],
                "plies": [{**d["plies"][0], "legal_all": [d["plies"][0]["legal"]] * 2,
                           "revealed": "K", "captured": "p", "drawn": "C", "comment": "c"}],
                "result": {**d["result"], "loser": 1,
                           "adjudication": {"by": "tables", "verdict": "draw", "tables": "t"}}}
        r = rec._record(rec.read_record(json.dumps(full)), "full")

        where = {cls: at for at, cls in views.items()}

        def every_field_set(obj):
            if dataclasses.is_dataclass(obj):
                at = where[type(obj)]
                for name in rec.RECORD_FIELDS[at]:
                    self.assertIsNotNone(getattr(obj, name), f"{at}: {name}")
                    every_field_set(getattr(obj, name))
            elif isinstance(obj, tuple):
                for x in obj:
                    every_field_set(x)

        every_field_set(r)
        self.assertEqual(r.plies[0].legal_all[1], r.plies[0].legal)

    def test_in_process_games_make_records_for_the_analysis(self):
        rng = __import__("random").Random(2)
        records = []
        for i in range(30):
            game = anqi.Game("traditional-2x4", seed=f"in-process-{i}", record=True)
            with self.assertRaisesRegex(ValueError, "not over"):
                game.record()
            while not game.is_terminal:
                game.apply(rng.choice(game.legal_action_ids()))
            r = game.record(names=["alpha", "beta"])
            self.assertEqual(len(r.plies), game.ply)
            self.assertEqual(r.result.reason, game.outcome["reason"])
            self.assertTrue(all(p.legal_all is not None and len(p.legal_all) == 2 for p in r.plies))
            r.replay()
            records.append(r)
        # As the server writes them: anqi replay verifies them.
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "in-process.jsonl"
            path.write_text("".join(json.dumps(r.raw) + "\n" for r in records))
            out = replay(path)
            self.assertEqual(out.returncode, 0, out.stdout)
            self.assertIn("30 verified, 0 failed", out.stdout)
        m = anqi.analysis.mobility(records, group="winner")
        self.assertEqual(m.games + m.skipped, 30)
        self.assertTrue(m.mean)
        rows = anqi.records.Records(records).game_rows()
        self.assertEqual((rows[0]["engine_p1"], rows[0]["engine_p2"]), ("alpha", "beta"))
        with self.assertRaisesRegex(ValueError, "record=True"):
            anqi.Game("traditional-2x4", seed="x").record()

    def test_wilson_is_the_reports_interval(self):
        # By hand (as crates/anqi-tournament's stats tests): 7 of 10 is [0.3967, 0.8922]; all
        # of them keeps its upper end at 1; no trial says nothing.
        low, high = anqi.wilson(7, 10)
        self.assertAlmostEqual(low, 0.3967, delta=1e-4)
        self.assertAlmostEqual(high, 0.8922, delta=1e-4)
        self.assertEqual(anqi.wilson(10, 10)[1], 1.0)
        self.assertEqual(anqi.wilson(0, 0), (0.0, 1.0))
        with self.assertRaises(ValueError):
            anqi.wilson(3, 2)

    def test_standings_agree_with_anqi_report(self):
        # In-process games of two random bots (wins, losses and draws), tagged as a
        # tournament's so that anqi report reads them too.
        lines, records = [], []
        for i in range(60):
            game = anqi.Game("traditional-2x4", seed=f"standings-{i}", record=True)
            names = ["alpha", "beta"] if i % 2 == 0 else ["beta", "alpha"]
            bots = {p: anqi.ReferenceBot("random", 7 * i + p) for p in (1, 2)}
            while not game.is_terminal:
                p = game.to_move
                game.play(bots[p].choose(game.observation(p)))
            r = game.record(names=names)
            raw = dict(r.raw, game=i + 1, tournament={"index": i, "deal": i // 2, "engines": names})
            lines.append(json.dumps(raw))
            records.append(anqi.records._record(raw, "test"))
        mine = anqi.standings(records)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "t.jsonl"
            path.write_text("\n".join(lines) + "\n")
            theirs = report_json(path)
        # The same code: the same numbers, to the last bit, pairs and pentanomials included.
        self.assertEqual(mine.report, theirs)
        self.assertEqual(mine.pentanomial[0]["first"], "alpha")
        self.assertEqual(sum(mine.pentanomial[0]["counts"]), 30)
        # The same games, not a tournament's: the players' names are the engines, every game
        # a deal of its own (no pairs of games, so no pentanomial).
        loose = [anqi.records._record({k: v for k, v in r.raw.items() if k != "tournament"},
                                      "test") for r in records]
        plain = anqi.standings(loose)
        self.assertEqual(plain.engines, mine.engines)
        self.assertEqual(plain.pentanomial, [])
        # Seats: each engine played each seat; Wilson intervals hold their rates.
        self.assertEqual({(s["name"], s["seat"]) for s in mine.seats},
                         {(n, p) for n in ("alpha", "beta") for p in (1, 2)})
        # Not a degenerate table: every kind of result, and finite Elo ends.
        for e in mine.engines:
            self.assertTrue(e["wins"] and e["draws"] and e["losses"], e)
            self.assertIsNotNone(e["elo_low"])
        for s in mine.seats:
            self.assertLessEqual(s["win_low"], s["win_rate"])
            self.assertLessEqual(s["win_rate"], s["win_high"])
        self.assertIn("alpha", str(mine))

    def test_one_side_games_get_success_rates_not_elo(self):
        records = []
        for i in range(12):
            game = anqi.Game("single", seed=f"one-side-{i}", record=True)
            bot = anqi.ReferenceBot("random", i)
            while not game.is_terminal:
                game.play(bot.choose(game.observation(game.to_move)))
            records.append(game.record(names=["solo"]))
        s = anqi.standings(records)
        self.assertEqual((s.engines, s.seats), ([], []))
        [goal] = s.one_side
        self.assertEqual((goal["variant"], goal["game_type"]), ("single", "single"))
        [row] = goal["engines"]
        reached = sum(r.result.winner_side is not None for r in records)
        self.assertEqual((row["name"], row["games"], row["successes"]), ("solo", 12, reached))
        self.assertLessEqual(row["success_low"], row["success_rate"])
        self.assertEqual(s.rows("one_side"), [{"variant": "single", **row}])

    def test_comments_load_and_reach_the_table(self):
        d = json.loads((DATA / "one-game.jsonl").read_text().splitlines()[0])
        self.assertNotIn("comment", d["plies"][0])
        d["plies"][0]["comment"] = "depth 6 score cp 35 pv a1a2"
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "commented.jsonl"
            path.write_text(json.dumps(d) + "\n")
            r = anqi.records.load(path)
        self.assertEqual(r[0].plies[0].comment, "depth 6 score cp 35 pv a1a2")
        self.assertIsNone(r[0].plies[1].comment)
        rows = r.ply_rows()
        self.assertEqual([row["comment"] for row in rows[:2]], ["depth 6 score cp 35 pv a1a2", None])

    def test_bad_lines_name_their_place(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "bad.jsonl"
            path.write_text((DATA / "one-game.jsonl").read_text() + '{"format": 1}\n')
            with self.assertRaises(RecordError) as e:
                anqi.records.load(path)
            self.assertIn("bad.jsonl:2", str(e.exception))

    def test_whatever_is_wrong_with_a_line_it_is_a_record_error(self):
        good = (DATA / "one-game.jsonl").read_text().splitlines()[0]
        d = json.loads(good)
        huge = json.dumps({**d, "game": 0}).replace('"game": 0', '"game": 1e400')
        lines = {
            "huge number": huge.encode(),
            "deep nesting": b"[" * 100_000 + b"]" * 100_000,
            "not UTF-8": b'{"format": 1, "name": "\xff\xfe"}',
            "wrong types": json.dumps({**d, "players": 5}).encode(),
            "a string for a dict": json.dumps({**d, "result": "won"}).encode(),
        }
        with tempfile.TemporaryDirectory() as tmp:
            for what, line in lines.items():
                path = Path(tmp) / "bad.jsonl"
                path.write_bytes(good.encode() + b"\n" + line + b"\n")
                with self.subTest(what), self.assertRaises(RecordError) as e:
                    anqi.records.load(path)
                self.assertIn("bad.jsonl:2", str(e.exception))

    def test_an_integer_too_long_to_read_is_a_bad_line(self):
        # Python converts at most 4,300 digits (sys.get_int_max_str_digits): json raised a plain
        # ValueError that bad_lines="skip" did not skip (issue 32). Lines are read by the record
        # types now, which take no integer past u64.
        good = (DATA / "one-game.jsonl").read_text().splitlines()[0]
        d = json.loads(good)
        long = json.dumps({**d, "game": 0}).replace('"game": 0', '"game": ' + "9" * 5000)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "long.jsonl"
            path.write_text(f"{good}\n{long}\n{good}\n")
            with self.assertRaises(RecordError) as e:
                anqi.records.load(path)
            self.assertIn("long.jsonl:2", str(e.exception))
            self.assertIn("game: number out of range", str(e.exception))
            records = anqi.records.load(path, bad_lines="skip")
            self.assertEqual(len(records), 2)
            self.assertEqual(len(records.skipped), 1)
            self.assertIn("long.jsonl:2", str(records.skipped[0]))

    def test_field_types_are_checked_at_load_so_a_record_that_loads_replays(self):
        # Seeds of odd types loaded, then failed in replay() (issue 32); so did other fields of
        # the wrong type. Each is a bad line now, named with its field.
        good = (DATA / "one-game.jsonl").read_text().splitlines()[0]
        d = json.loads(good)

        def with_player(**kw):
            return {**d, "players": [{**d["players"][0], **kw}, *d["players"][1:]]}

        def with_ply(**kw):
            return {**d, "plies": [{**d["plies"][0], **kw}, *d["plies"][1:]]}

        bad = [
            ("seeds: invalid type: integer `5`", {**d, "seeds": 5}),
            ('seeds[0]: invalid type: string "1"', {**d, "seeds": ["1", "2"]}),
            ('seeds.clients: invalid type: string "12"',
             {**d, "seeds": {"clients": "12", "server": "s"}}),
            ("seeds.clients[1]: invalid type: integer `2`",
             {**d, "seeds": {"clients": ["1", 2], "server": "s"}}),
            ("seeds.server: invalid type: integer `7`",
             {**d, "seeds": {"clients": [], "server": 7}}),
            ("seeds: missing field `server`", {**d, "seeds": {"clients": []}}),
            ("players[0].name: invalid type: integer `3`", with_player(name=3)),
            ("players[0].seed: invalid type: null", with_player(seed=None)),
            ('players[0].id: invalid type: string "1"', with_player(id="1")),
            ("players[0].side: invalid type: boolean `true`", with_player(side=True)),
            ("plies[0].action: invalid type: sequence", with_ply(action=["rev", 3])),
            ("plies[0].player: invalid type: floating point `1.0`", with_ply(player=1.0)),
            ('plies[0].legal.reveals: invalid type: string "32"',
             with_ply(legal={"moves": 0, "jumps": 0, "reveals": "32"})),
            ("final_board: invalid type: null", {**d, "final_board": None}),
            ("variant_source: invalid type: map", {**d, "variant_source": {"rows": 4}}),
            ("result.reason: expected value", {**d, "result": {**d["result"], "reason": 0}}),
            ("tournament.engines[0]: invalid type: integer `1`",
             {**d, "tournament": {"index": 0, "deal": 0, "engines": [1, 2]}}),
        ]
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "typed.jsonl"
            for what, record in bad:
                with self.subTest(what):
                    path.write_text(f"{good}\n{json.dumps(record)}\n")
                    with self.assertRaises(RecordError) as e:
                        anqi.records.load(path)
                    self.assertIn("typed.jsonl:2", str(e.exception))
                    self.assertIn(what, str(e.exception))
                    records = anqi.records.load(path, bad_lines="skip")
                    self.assertEqual((len(records), len(records.skipped)), (1, 1))
                    records[0].replay()
            # The documented shapes load, and replay.
            path.write_text(json.dumps({**d, "seeds": {"clients": [], "server": "x"}}) + "\n")
            (record,) = anqi.records.load(path)
            self.assertEqual(record.seeds, {"clients": [], "server": "x"})

    def test_integers_and_every_optional_field_are_checked_as_anqi_replay_reads_them(self):
        # Negative and above-u64 (or above-u32) integers loaded, then anqi replay refused the
        # line; so did tournament, drops and result.adjudication of any type (issue 32 review).
        # Each is a bad line now, named with its field, and anqi replay refuses it too.
        good = (DATA / "one-game.jsonl").read_text().splitlines()[0]
        d = json.loads(good)
        tournament = {"index": 3, "deal": 1, "engines": ["a", "b"],
                      "seats": [{"protocol": "anqi", "tc": "60+1"},
                                {"protocol": "uci-banqi", "assumes": "misty", "tc": "inf"}],
                      "commitment": "ab" * 32,
                      "book": {"commitment": "cd" * 32, "order": "random", "entry": 17}}
        drop = {"player": 1, "ply": 2, "away_ms": 310, "back": True}
        adjudication = {"by": "tables", "verdict": "win in 7", "tables": "t.tables"}

        def with_player(**kw):
            return {**d, "players": [{**d["players"][0], **kw}, *d["players"][1:]]}

        def with_ply(**kw):
            return {**d, "plies": [{**d["plies"][0], **kw}, *d["plies"][1:]]}

        def without_ply_key(key):
            ply = {k: v for k, v in d["plies"][0].items() if k != key}
            return {**d, "plies": [ply, *d["plies"][1:]]}

        def with_result(**kw):
            return {**d, "result": {**d["result"], **kw}}

        bad = [
            ("game: invalid value: integer `-1`", {**d, "game": -1}),
            ("game: invalid type: floating point", {**d, "game": 2**64}),
            ("started_unix_ms: invalid value: integer `-1`", {**d, "started_unix_ms": -1}),
            ("format: invalid value: integer `4294967296`", {**d, "format": 2**32}),
            ("max_plies: invalid value: integer `-3`", {**d, "max_plies": -3}),
            ("faults_dropped: invalid value: integer `-1`", {**d, "faults_dropped": -1}),
            ("players[0].id: invalid value: integer `-1`", with_player(id=-1)),
            ("players[0].time_used_ms: invalid type: floating point",
             with_player(time_used_ms=2**70)),
            ("players[0].side: invalid value: integer `-1`", with_player(side=-1)),
            ("players[0]: missing field `seed`", {**d, "players": [
                {k: v for k, v in d["players"][0].items() if k != "seed"}, *d["players"][1:]]}),
            ("plies[0].ply: invalid value: integer `4294967296`", with_ply(ply=2**32)),
            ("plies[0].think_ms: invalid value: integer `-1`", with_ply(think_ms=-1)),
            ("plies[0]: missing field `think_ms`", without_ply_key("think_ms")),
            ("plies[0]: missing field `legal`", without_ply_key("legal")),
            ("plies[0].legal.moves: invalid value: integer `-1`",
             with_ply(legal={"moves": -1, "jumps": 0, "reveals": 8})),
            ('plies[0].revealed: invalid value: string "PP"', with_ply(revealed="PP")),
            ("result.plies: invalid value: integer `-16`", with_result(plies=-16)),
            ("result.loser: invalid value: integer `-1`", with_result(loser=-1)),
            ("result.reason: unknown variant `won`", with_result(reason="won")),
            ('result.adjudication: invalid type: string "tables"',
             with_result(adjudication="tables")),
            ("result.adjudication.verdict: invalid type: integer `7`", with_result(
                reason="adjudicated", adjudication={**adjudication, "verdict": 7})),
            ("result.adjudication: missing field `verdict`", with_result(
                reason="adjudicated", adjudication={"by": "tables", "tables": "t.tables"})),
            ('tournament.index: invalid type: string "3"',
             {**d, "tournament": {**tournament, "index": "3"}}),
            ("tournament.deal: invalid value: integer `-1`",
             {**d, "tournament": {**tournament, "deal": -1}}),
            ("tournament: missing field `deal`", {**d, "tournament": {
                k: v for k, v in tournament.items() if k != "deal"}}),
            ("tournament: missing field `engines`", {**d, "tournament": {"index": 0, "deal": 0}}),
            ('tournament.seats: invalid type: string "x"',
             {**d, "tournament": {**tournament, "seats": "x"}}),
            ("tournament.seats[1].tc: invalid type: integer `60`", {**d, "tournament": {
                **tournament, "seats": [tournament["seats"][0], {"protocol": "anqi", "tc": 60}]}}),
            ("tournament.seats[0].assumes: invalid type: integer `1`", {**d, "tournament": {
                **tournament, "seats": [{"protocol": "anqi", "tc": "inf", "assumes": 1}]}}),
            ("tournament.commitment: invalid type: integer `5`", {**d, "tournament": {
                **tournament, "commitment": 5}}),
            ("tournament.book.entry: invalid value: integer `-1`", {**d, "tournament": {
                **tournament, "book": {**tournament["book"], "entry": -1}}}),
            ("tournament.book: missing field `order`", {**d, "tournament": {
                **tournament, "book": {"commitment": "cd" * 32, "entry": 0}}}),
            ("tournament.book.seed: unknown field `seed`", {**d, "tournament": {
                **tournament, "book": {**tournament["book"], "seed": "x"}}}),
            ("drops: invalid type: map", {**d, "drops": {}}),
            ('drops[0].back: invalid type: string "yes"',
             {**d, "drops": [{**drop, "back": "yes"}]}),
            ("drops[0].away_ms: invalid value: integer `-1`",
             {**d, "drops": [{**drop, "away_ms": -1}]}),
            ("drops[0].ply: invalid value: integer `4294967296`",
             {**d, "drops": [{**drop, "ply": 2**32}]}),
            ("drops[0]: missing field `player`", {**d, "drops": [{"ply": 2, "away_ms": 0,
                                                          "back": False}]}),
        ]
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "ranges.jsonl"
            for what, record in bad:
                with self.subTest(what):
                    path.write_text(f"{good}\n{json.dumps(record)}\n")
                    with self.assertRaises(RecordError) as e:
                        anqi.records.load(path)
                    self.assertIn("ranges.jsonl:2", str(e.exception))
                    self.assertIn(what, str(e.exception))
                    records = anqi.records.load(path, bad_lines="skip")
                    self.assertEqual((len(records), len(records.skipped)), (1, 1))
                    # anqi replay refuses the same line: what loads is what it reads.
                    out = replay(path)
                    self.assertIn("1 verified, 1 failed", out.stdout, out.stdout + out.stderr)
            # The largest values, and every optional field of the right type, load; anqi
            # replay reads them (the game's plies are unchanged, so it verifies).
            fine = {**d, "game": 2**64 - 1, "started_unix_ms": 2**64 - 1, "max_plies": 2**32 - 1,
                    "tournament": tournament, "drops": [drop], "faults_dropped": 0}
            path.write_text(json.dumps(fine) + "\n")
            (record,) = anqi.records.load(path)
            self.assertEqual(record.game, 2**64 - 1)
            self.assertEqual(record.tournament["commitment"], "ab" * 32)
            self.assertEqual(record.tournament["book"]["entry"], 17)
            self.assertEqual(record.drops, (anqi.records.Drop(1, 2, 310, True),))
            self.assertIsNone(record.result.adjudication)
            record.replay()
            out = replay(path)
            self.assertIn("1 verified, 0 failed", out.stdout, out.stdout + out.stderr)
            judged = with_result(reason="adjudicated", adjudication=adjudication)
            path.write_text(json.dumps(judged) + "\n")
            (record,) = anqi.records.load(path)
            self.assertEqual(record.result.adjudication,
                             anqi.records.Adjudication("tables", "win in 7", "t.tables"))

    def test_a_torn_line_is_named_and_can_be_skipped(self):
        good = (DATA / "one-game.jsonl").read_text().splitlines()[0]
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "torn.jsonl"
            # A record, half of one (a write cut short), and the record the server appends
            # after ending the cut line.
            path.write_text(f"{good}\n{good[:len(good) // 2]}\n{good}\n")
            with self.assertRaises(RecordError) as e:
                anqi.records.load(path)
            self.assertIn("torn.jsonl:2", str(e.exception))
            records = anqi.records.load(path, bad_lines="skip")
            self.assertEqual(len(records), 2)
            self.assertEqual(len(records.skipped), 1)
            self.assertIn("torn.jsonl:2", str(records.skipped[0]))
            # Cut at the very end: the message says so.
            path.write_text(f"{good}\n{good[:len(good) // 2]}")
            with self.assertRaises(RecordError) as e:
                anqi.records.load(path)
            self.assertIn("ends in the middle of this line", str(e.exception))
            self.assertEqual(len(anqi.records.load(path, bad_lines="skip")), 1)

    def test_tampered_record_fails_replay(self):
        d = json.loads((DATA / "one-game.jsonl").read_text().splitlines()[0])
        d["plies"][3]["legal"]["reveals"] += 1
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "t.jsonl"
            path.write_text(json.dumps(d) + "\n")
            with self.assertRaises(ValueError) as e:
                anqi.records.load(path)[0].replay()
            self.assertIn("ply 4", str(e.exception))

    def test_mobility_of_one_game_is_its_counts(self):
        # One game at a time: with two at once, which of a bot's seeded copies plays which
        # game depends on who connects first, and so do the games.
        records = anqi.play([anqi.RandomBot(1), anqi.RandomBot(2)], games=2,
                            variant="traditional-2x4", seed="m", concurrency=1)
        r = records[0]
        m = anqi.analysis.mobility(r, group="player", kinds=("moves", "reveals", "total"))
        self.assertEqual(m.source, "every player's counts")
        self.assertEqual(m.labels, ["player 1", "player 2"])
        for p in r.plies:
            i = m.index.index(p.ply)
            for n, c in enumerate(p.legal_all, start=1):
                self.assertEqual(m.mean[f"player {n}"]["moves"][i], c.moves)
                self.assertEqual(m.mean[f"player {n}"]["total"][i], c.total)
        self.assertEqual(m.alive, [1] * len(r.plies))
        # Games nobody won are a group of their own, "drawn": none is left out unsaid.
        both = anqi.analysis.mobility(records, group="winner")
        won = [x for x in records if x.result.winner_side is not None]
        self.assertEqual((both.games, both.skipped), (2, 0))
        self.assertEqual(set(both.labels), {"winner", "loser"} | ({"drawn"} if len(won) < 2 else set()))
        self.assertEqual(len(both.index), max(len(x.plies) for x in records))
        # drawn=False leaves them out, counted in `skipped`; the curves then run to the end of
        # the longest game that counts (before, the test took the longest of all, and failed
        # whenever that one was a draw).
        decided = anqi.analysis.mobility(records, group="winner", drawn=False)
        self.assertEqual((decided.games, decided.skipped), (len(won), 2 - len(won)))
        if won:
            self.assertEqual(len(decided.index), max(len(x.plies) for x in won))
        self.assertEqual(decided.alive[0] if decided.index else 0, decided.games)
        self.assertNotIn("drawn", decided.labels)

    def test_counts_total(self):
        self.assertEqual(Counts(moves=1, jumps=2, reveals=3, bags=1, puts=4).total, 11)

    def test_plot_writes_a_figure(self):
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            self.skipTest("matplotlib is not installed")
        records = anqi.records.load(DATA / "one-game.jsonl")
        m = anqi.analysis.mobility(records, group="colour", kinds=("moves", "reveals", "empty"))
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "m.png"
            anqi.plot.mobility(m, path=path)
            self.assertGreater(path.stat().st_size, 1000)

    def test_to_pandas(self):
        try:
            import pandas  # noqa: F401
        except ImportError:
            self.skipTest("pandas is not installed")
        records = anqi.records.load(DATA / "one-game.jsonl")
        df = records.to_pandas()
        self.assertEqual(len(df), len(records[0].plies))
        self.assertEqual(list(df["ply"])[:3], [1, 2, 3])
        self.assertEqual(len(records.to_pandas("games")), 1)


if __name__ == "__main__":
    unittest.main()
