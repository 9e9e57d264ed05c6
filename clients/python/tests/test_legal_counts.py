"""The package's Observation against the shared legal-count tables (tests/data/legal_counts).

The same tables check the Rust core (tests/integration/legal_counts.rs) and the standard-library client
(clients/python/test_legal_counts.py): here the path a Python bot sees, an `anqi.Observation`
built from public facts only, must give the same legal actions and counts.
"""

import json
import unittest
from pathlib import Path

import anqi

TABLES = Path(__file__).resolve().parents[3] / "tests" / "data" / "legal_counts"
KINDS = ("moves", "jumps", "reveals", "bags", "puts")


def observation(row):
    """The mover's observation of a row: player 1 (side 0) to move, owning the row's control."""
    control = row["control"]
    if control in ("red", "black"):
        other = "black" if control == "red" else "red"
        colours = [control, other]
    else:  # "none": no colour decided yet; "both": a one-side game
        colours = None
    return anqi.Observation.from_public(
        row["variant"], row["board"], player=1, to_move=1, colours=colours,
        hand=row["hand"], chain=row["chain"], bag=row["bag_has_pieces"],
    )


class LegalCounts(unittest.TestCase):
    def test_every_row(self):
        files = sorted(TABLES.glob("*.jsonl"))
        rows = [json.loads(line) for f in files if f.name != "setups.jsonl"
                for line in f.read_text().splitlines() if line.strip()]
        self.assertGreater(len(rows), 500)
        self.assertEqual({r["variant"] for r in rows}, set(anqi.variants()))
        for row in rows:
            with self.subTest(variant=row["variant"], board=row["board"], tag=row["tag"]):
                obs = observation(row)
                self.assertEqual(sorted(obs.legal_actions()), row["actions"])
                counts = obs.counts()
                self.assertEqual({k: counts.get(k, 0) for k in KINDS},
                                 {k: row["counts"].get(k, 0) for k in KINDS})


if __name__ == "__main__":
    unittest.main()
