"""The shared legal-count tables, checked against this client's own rules code.

``tests/data/legal_counts/`` (see its README) holds positions of every shipped variant, each
given by exactly the public state a client knows (board, control, hand, chain cell, whether the
bag has pieces), with the legal actions and their counts as the Rust core works them out;
``tests/integration/legal_counts.rs`` checks the core against the same rows. Here the standard-library
client decodes each variant's board from the setup clauses the server sends (as in a game),
reads the shipped description for the capture rules, and must list the same actions with the
same counts for every row. Standard library only; run from clients/python:

    python3 -m unittest test_legal_counts
"""

from __future__ import annotations

import json
import unittest
from pathlib import Path
from typing import Any, Optional

from stdlib_client import messages
from stdlib_client.rules import BLACK, BOTH, EMPTY, FACE_DOWN, RED, PublicState, count_actions
from stdlib_client.sexp import parse_sexp
from stdlib_client.topology import Topology
from stdlib_client.variant import Variant, load_variant, shipped_variants

TABLES = Path(__file__).resolve().parents[2] / "tests" / "data" / "legal_counts"

#: The row's ``control`` as this client names it: ``None`` before the player owns a colour.
CONTROLS: dict[str, Optional[str]] = {"none": None, "red": RED, "black": BLACK, "both": BOTH}

#: Every key of a row, so that a table this test does not fully read cannot pass unnoticed.
ROW_KEYS = {"variant", "tag", "board", "control", "hand", "chain", "bag_has_pieces", "counts", "actions"}


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


def setups() -> dict[str, Topology]:
    """Each variant's topology, decoded from its setup clauses by the client's own code."""
    out = {}
    for line in read_jsonl(TABLES / "setups.jsonl"):
        setup = {head: args for head, args in messages.clauses(parse_sexp(line["setup"]))}
        out[line["variant"]] = messages.setup_topology(setup)
    return out


def state_of(row: dict[str, Any], variant: Variant, topology: Topology) -> PublicState:
    """The row's public state as this client holds it during a game."""
    board = row["board"]
    if variant.bag:
        board = board.replace(FACE_DOWN, EMPTY)  # a never-filled cell, as Bot._rules_board says
    return PublicState(board, topology, variant.capture, CONTROLS[row["control"]],
                       hand=row["hand"], chain=row["chain"], bag=row["bag_has_pieces"])


def disagreements(variant: Variant, topology: Topology, rows: list[dict[str, Any]]) -> list[str]:
    """Every row where this client's legal actions or counts differ from the table's."""
    out = []
    for number, row in enumerate(rows, 1):
        at = f"{variant.name} row {number} ({row['tag']}, {row['board']})"
        actions = state_of(row, variant, topology).legal_actions()
        texts = sorted(action.text() for action in actions)
        counts = count_actions(actions)
        if counts != row["counts"]:
            out.append(f"{at}: counts {counts}, the table says {row['counts']}")
        if texts != row["actions"]:
            mine, table = set(texts), set(row["actions"])
            out.append(f"{at}: only this client has {sorted(mine - table)}; only the table has {sorted(table - mine)}")
    return out


class LegalCountsTest(unittest.TestCase):
    def test_every_shipped_variant_has_a_table(self) -> None:
        names = shipped_variants()
        self.assertEqual(sorted(setups()), names)
        self.assertEqual(sorted(p.stem for p in TABLES.glob("*.jsonl") if p.stem != "setups"), names)

    def test_the_setup_agrees_with_the_description(self) -> None:
        for name, topology in setups().items():
            with self.subTest(variant=name):
                self.assertEqual(topology.size, load_variant(name).size)

    def test_every_row_agrees(self) -> None:
        topologies = setups()
        total = 0
        for name in shipped_variants():
            with self.subTest(variant=name):
                rows = read_jsonl(TABLES / f"{name}.jsonl")
                total += len(rows)
                self.assertGreaterEqual(len(rows), 10)
                for row in rows:
                    self.assertEqual(set(row), ROW_KEYS)
                    self.assertEqual(row["variant"], name)
                problems = disagreements(load_variant(name), topologies[name], rows)
                self.assertFalse(problems, "\n".join(problems))
        self.assertGreaterEqual(total, 10 * len(shipped_variants()))

    def test_a_changed_count_is_caught(self) -> None:
        # The check itself can fail: one wrong number, or one missing action, in a real row.
        name = "chain-capture"
        topology = setups()[name]
        variant = load_variant(name)
        row = next(r for r in read_jsonl(TABLES / f"{name}.jsonl") if r["chain"] is not None)
        self.assertEqual(disagreements(variant, topology, [row]), [])
        wrong = dict(row, counts=dict(row["counts"], moves=row["counts"]["moves"] + 1))
        self.assertEqual(len(disagreements(variant, topology, [wrong])), 1)
        fewer = dict(row, actions=row["actions"][1:])
        self.assertEqual(len(disagreements(variant, topology, [fewer])), 1)
        # Without the chain, the piece is free to do anything again.
        free = dict(row, chain=None)
        self.assertNotEqual(disagreements(variant, topology, [free]), [])


if __name__ == "__main__":
    unittest.main()
