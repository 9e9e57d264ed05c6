"""Exact values (protocol/SOLVING.md): `anqi solve` (Rust) and the simple Python solver
`anqi.exact` agree, value for value, on small boards; `anqi.Solution` reads the files.

The Python solver is written apart on purpose (chance mode of `anqi.Game`, thresholds instead
of a retrograde pass). On traditional-2x4 it takes about 15 minutes, so the test runs it on
2x2 and 2x3 boards with the same rules; the 2x4 agreement is a documented run
(`python -m anqi.exact traditional-2x4 --check traditional-2x4.solution`, SOLVING.md).
"""

import json
import pathlib
import subprocess
import tempfile
import unittest
from fractions import Fraction

import anqi
from anqi import exact

from test_client import REPO, anqi_binary


def like_2x4(directory: pathlib.Path, board: str, pieces: str) -> pathlib.Path:
    """traditional-2x4's description on another board with other pieces, as a file."""
    text = (REPO / "protocol/variants/traditional-2x4.sexp").read_text()
    text = (
        text.replace("(name traditional-2x4)", f"(name small-{pieces})")
        .replace("(rectangle 2 4)", f"(rectangle {board})")
        .replace("(pieces KPPPkppp)", f"(pieces {pieces})")
    )
    path = directory / f"small-{pieces}.sexp"
    path.write_text(text)
    return path


class ExactValues(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.binary = anqi_binary()
        cls.dir = tempfile.TemporaryDirectory()
        cls.path = pathlib.Path(cls.dir.name)

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def solve(self, variant: pathlib.Path) -> pathlib.Path:
        out = variant.with_suffix(".solution")
        run = subprocess.run(
            [str(self.binary), "solve", str(variant), "--out", str(out)],
            capture_output=True,
            text=True,
            check=True,
        )
        self.assertIn("value: ", run.stdout)
        return out

    def test_the_two_solvers_agree_on_the_start_and_a_thousand_random_positions(self):
        for board, pieces, value in (("2 2", "KPkp", Fraction(0)), ("2 3", "KPPkpp", Fraction(2, 3))):
            with self.subTest(pieces):
                variant = like_2x4(self.path, board, pieces)
                solution = self.solve(variant)
                solver = exact.SimpleSolver(str(variant))
                self.assertEqual(solver.value(solver.start()), value)
                compared, wrong = exact.check(solver, str(solution), 1000, seed=3)
                self.assertEqual(compared, 1001)
                self.assertEqual(wrong, [])
                # The simple solver reached every state the file holds, and no other.
                self.assertEqual(len(solver.values), len(anqi.Solution(solution)))

    def test_a_solution_reads_back_by_state(self):
        variant = like_2x4(self.path, "2 2", "KPkp")
        solution = anqi.Solution(self.solve(variant))
        game = anqi.Game(anqi.Variant(str(variant)), seed="s")
        self.assertEqual(solution.value(game), Fraction(solution.header["value"], solution.denominator))
        self.assertEqual(solution.entry(game.state_key()), (solution.value(game), 0))
        self.assertIn("states", repr(solution))
        with self.assertRaises(KeyError):
            solution.value(0)  # no state has key 0 (an empty board with nothing unseen)
        bad = self.path / "bad.solution"
        bad.write_bytes(b"not json\n")
        with self.assertRaisesRegex(ValueError, "not a solution file"):
            anqi.Solution(bad)
        short = self.path / "short.solution"
        short.write_bytes(pathlib.Path(solution_path := variant.with_suffix(".solution")).read_bytes()[:-3])
        with self.assertRaisesRegex(ValueError, "bytes for"):
            anqi.Solution(short)
        del solution_path

    def test_a_solution_file_is_checked_as_it_is_read_and_refuses_other_variants(self):
        variant = like_2x4(self.path, "2 2", "KPkp")
        path = self.solve(variant)
        line, _, states = path.read_bytes().partition(b"\n")
        header = json.loads(line)
        records = [states[i : i + 26] for i in range(0, len(states), 26)]

        def written(header: dict, records: list[bytes]) -> pathlib.Path:
            out = self.path / "changed.solution"
            out.write_bytes(json.dumps(header).encode() + b"\n" + b"".join(records))
            return out

        # Two states swapped: the file is refused, not searched by bisection and missed.
        swapped = list(records)
        swapped[10], swapped[11] = swapped[11], swapped[10]
        with self.assertRaisesRegex(ValueError, "state 11 is not after the one before it"):
            anqi.Solution(written(header, swapped))
        with self.assertRaisesRegex(ValueError, "not sorted by key"):
            anqi.Solution(written(header, records[:5] + records[4:-1]))
        # Another semantics, and a count of states no file holds.
        with self.assertRaisesRegex(ValueError, "semantics .the referee's draw rules.: this package reads"):
            anqi.Solution(written({**header, "semantics": "the referee's draw rules"}, records))
        with self.assertRaisesRegex(ValueError, "bytes for 1000000000000000 states"):
            anqi.Solution(written({**header, "states": 10**15}, records))
        with self.assertRaisesRegex(ValueError, "without its states"):
            anqi.Solution(written({**header, "states": "many"}, records))
        # A value past the denominator, in a state or the header: refused (before, read and
        # given as a score above 1).
        over = list(records)
        over[7] = over[7][:16] + (header["denominator"] + 1).to_bytes(8, "little") + over[7][24:]
        with self.assertRaisesRegex(ValueError, f"state 8: value {header['denominator'] + 1} is more than the denominator"):
            anqi.Solution(written(header, over))
        with self.assertRaisesRegex(ValueError, "the start's value -1 is not within the denominator"):
            anqi.Solution(written({**header, "value": -1}, records))
        with self.assertRaisesRegex(ValueError, "the start's value .* is not within the denominator"):
            anqi.Solution(written({**header, "value": header["denominator"] + 1}, records))
        endless = self.path / "endless.solution"
        endless.write_bytes(b'{"format": "' + b"z" * (anqi.solution.MAX_HEADER_BYTES + 10))
        with self.assertRaisesRegex(ValueError, "no header line ended"):
            anqi.Solution(endless)
        # A game of another variant (other pieces on the same board): refused, not looked up.
        solution = anqi.Solution(path)
        other = anqi.Game(anqi.Variant(str(like_2x4(self.path, "2 2", "GPgp"))), seed="s")
        with self.assertRaisesRegex(ValueError, "a game of variant small-GPgp, and this solution is of variant small-KPkp"):
            solution.value(other)
        with self.assertRaisesRegex(ValueError, "of variant small-KPkp"):
            solution.entry(other)
        same = anqi.Game(anqi.Variant(str(variant)), seed="s")
        self.assertEqual(solution.value(same), Fraction(header["value"], header["denominator"]))

    def test_state_keys_are_refused_where_there_is_no_state(self):
        game = anqi.Game("traditional-2x4", chance=True)
        game.apply(0)  # a reveal: a chance node
        with self.assertRaisesRegex(ValueError, "chance node"):
            game.state_key()
        with self.assertRaisesRegex(ValueError, "bag"):
            anqi.Game("strategic-2x4").state_key()
        with self.assertRaisesRegex(ValueError, "16"):
            anqi.Game("traditional").state_key()


if __name__ == "__main__":
    unittest.main()
