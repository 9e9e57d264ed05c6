"""Datasets of played games for learning: records, and one row per decision as arrays
(PACKAGE.md, Datasets).

    python -m anqi.dataset --variant traditional-2x4 --games 1000 --players random,greedy \\
        --seed 1 --out data/

plays the games in process between reference bots (`random`, `greedy`, `search` or
`search:DEPTH`), the seats taking turns from game to game, and writes in `--out`:

- `records.jsonl`: the games as the server records them (`anqi replay` verifies them,
  `anqi.records.load` reads them back);
- `steps.npz` (or `steps.parquet` with `--format parquet`, which needs pyarrow): a row per
  decision, in game and ply order (`COLUMNS` says what each column holds);
- `dataset.json`: what made it (variant, players, seed, games, rows, the tensor layout's
  version and planes, the columns), so that a file says how to read it.

With `--solution FILE` (a solution of `anqi solve`, for traditional-2x4 and boards as small),
each row also has `value`: the exact expected score of the player to move under best play,
the label that a value network is meant to learn (and the best action is the one whose child
is worth most to its mover). Without it, `outcome` is the only label: the game's result for the
mover, which best play would not always reach.

The same seed, players and games give the same files, row for row.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from ._anqi import TENSOR_PLANES, TENSOR_VERSION, Game, ReferenceBot, Variant

#: The columns of `steps`, with what each holds (`dataset.json` repeats them).
COLUMNS = {
    "game": "int32: the game's number, from 0 (its line in records.jsonl)",
    "ply": "int32: the ply this decision played, from 1 (as in the records)",
    "player": "int8: the player to move, the protocol's id (from 1)",
    "observation": "float32 (PLANES, cells): Game.observation_tensor of the player to move, "
                   "before it acted",
    "mask": "bool (actions): the legal action ids",
    "action": "int32: the action id played",
    "outcome": "float32: the game's end for the player to move: +1 its side won, -1 lost, "
               "0 nobody won (Game.returns)",
    "value": "float32, with --solution only: the exact expected score of the player to move "
             "under best play (win 1, draw 1/2, loss 0)",
}

STRATEGIES = ("random", "greedy", "search")


@dataclass(frozen=True)
class PlayerSpec:
    """A reference bot by name: `random`, `greedy`, `search` or `search:DEPTH`."""

    strategy: str
    depth: int | None = None

    @staticmethod
    def parse(text: str) -> "PlayerSpec":
        name, _, depth = text.strip().partition(":")
        if name not in STRATEGIES:
            raise ValueError(f"player {text!r}: one of {', '.join(STRATEGIES)} (search:DEPTH "
                             "for a search of that depth)")
        if depth and name != "search":
            raise ValueError(f"player {text!r}: only search takes a depth")
        if depth and not (depth.isdigit() and 1 <= int(depth) <= 12):
            raise ValueError(f"player {text!r}: the depth is a whole number from 1 to 12")
        return PlayerSpec(name, int(depth) if depth else None)

    def __str__(self) -> str:
        return self.strategy + (f":{self.depth}" if self.depth else "")


def _seed(*parts: object) -> int:
    """A bot's 63-bit seed from the dataset's seed, the game and the seat (no secret: a
    dataset is meant to be made again)."""
    text = "/".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little") >> 1


def play_games(variant: str | Variant, players: Sequence[str], games: int, seed: str,
               solution: Any = None, progress: Any = None) -> tuple[list[Any], dict[str, Any]]:
    """Plays `games` games of `variant` between `players` (one spec per seat: see
    `PlayerSpec`; game `g` seats them rotated by `g`, so each plays every seat in turn), game
    `g` dealt as `Game(variant, seed=f"{seed}/{g}")`. Returns the records and the columns (numpy
    arrays; `value` only with `solution`, an `anqi.Solution`). `progress(done, games)` is
    called after each game."""
    import numpy as np

    specs = [PlayerSpec.parse(p) for p in players]
    v = variant if isinstance(variant, Variant) else Variant(variant)
    if len(specs) != v.players:
        raise ValueError(f"{v.name} has {v.players} seats: give {v.players} players, not {len(specs)}")
    records, rows = [], []
    for g in range(games):
        seated = [specs[(p + g) % len(specs)] for p in range(len(specs))]
        bots = {p + 1: ReferenceBot(s.strategy, _seed(seed, g, p + 1), s.depth)
                for p, s in enumerate(seated)}
        game = Game(v, seed=f"{seed}/{g}", record=True)
        start = len(rows)
        while game.outcome is None:
            player = game.to_move
            value = None
            if solution is not None:
                one = solution.value(game)
                value = float(one if player == 1 else 1 - one)
            observation = game.observation_tensor(player)
            mask = game.legal_action_mask()
            action = game.action_id(bots[player].choose(game.observation(player)))
            rows.append((g, game.ply + 1, player, observation, mask, action, value))
            game.apply(action)
        returns = game.returns()
        rows[start:] = [r + (returns[r[2] - 1],) for r in rows[start:]]
        records.append(game.record([f"{s}#{p + 1}" for p, s in enumerate(seated)]))
        if progress is not None:
            progress(g + 1, games)
    columns: dict[str, Any] = {
        "game": np.array([r[0] for r in rows], dtype=np.int32),
        "ply": np.array([r[1] for r in rows], dtype=np.int32),
        "player": np.array([r[2] for r in rows], dtype=np.int8),
        "observation": (np.stack([r[3] for r in rows]).astype(np.float32) if rows
                        else np.zeros((0, len(TENSOR_PLANES), v.size), dtype=np.float32)),
        "mask": (np.stack([r[4] for r in rows]).astype(bool) if rows
                 else np.zeros((0, v.num_distinct_actions), dtype=bool)),
        "action": np.array([r[5] for r in rows], dtype=np.int32),
        "outcome": np.array([r[7] for r in rows], dtype=np.float32),
    }
    if solution is not None:
        columns["value"] = np.array([r[6] for r in rows], dtype=np.float32)
    return records, columns


def write(out: Path, records: list[Any], columns: dict[str, Any], meta: dict[str, Any],
          fmt: str = "npz") -> list[Path]:
    """Writes `records.jsonl`, `steps.npz` or `steps.parquet`, and `dataset.json` in `out`;
    returns their paths."""
    out.mkdir(parents=True, exist_ok=True)
    records_path = out / "records.jsonl"
    records_path.write_text("".join(json.dumps(r.raw) + "\n" for r in records))
    if fmt == "npz":
        import numpy as np

        steps = out / "steps.npz"
        np.savez_compressed(steps, **columns)
    elif fmt == "parquet":
        steps = out / "steps.parquet"
        _write_parquet(steps, columns)
    else:
        raise ValueError(f'format {fmt!r}: "npz" or "parquet"')
    meta_path = out / "dataset.json"
    meta_path.write_text(json.dumps({**meta, "steps": steps.name}, indent=2) + "\n")
    return [records_path, steps, meta_path]


def _write_parquet(path: Path, columns: dict[str, Any]) -> None:
    """The columns as a Parquet table; `observation` and `mask` as fixed-size lists of their
    rows flattened (`dataset.json` keeps their shapes)."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ImportError("--format parquet needs pyarrow: pip install pyarrow (or use npz, "
                          "which needs numpy alone)") from None
    arrays, names = [], []
    for name, col in columns.items():
        if col.ndim > 1:
            width = int(math.prod(col.shape[1:]))
            arrays.append(pa.FixedSizeListArray.from_arrays(pa.array(col.reshape(-1)), width))
        else:
            arrays.append(pa.array(col))
        names.append(name)
    pq.write_table(pa.Table.from_arrays(arrays, names=names), path)


def load(directory: str | Path) -> dict[str, Any]:
    """A dataset written by `write` (either format) as numpy arrays, `observation` and `mask`
    in their shapes, with `meta` (dataset.json) beside them."""
    import numpy as np

    directory = Path(directory)
    meta = json.loads((directory / "dataset.json").read_text())
    steps = directory / meta["steps"]
    if steps.suffix == ".npz":
        with np.load(steps) as data:
            columns = {k: data[k] for k in data.files}
    else:
        import pyarrow.parquet as pq

        table = pq.read_table(steps)
        columns = {}
        for name in table.column_names:
            col = table.column(name).combine_chunks()
            if name in meta["shapes"]:
                shape = meta["shapes"][name]
                columns[name] = col.flatten().to_numpy(zero_copy_only=False).reshape(-1, *shape)
            else:
                columns[name] = col.to_numpy(zero_copy_only=False)
        columns["mask"] = columns["mask"].astype(bool)
    return {**columns, "meta": meta}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m anqi.dataset",
        description="Play games between reference bots in process and write them as records "
                    "and as one row per decision (observation, mask, action, outcome; the exact "
                    "value with --solution), for learning.",
        epilog="Example: python -m anqi.dataset --variant traditional-2x4 --games 1000 "
               "--players random,greedy --seed 1 --out data/ (PACKAGE.md, Datasets).")
    parser.add_argument("--variant", default="traditional-2x4",
                        help="a shipped variant or a description file (default traditional-2x4)")
    parser.add_argument("--games", type=int, default=100, help="games to play (default 100)")
    parser.add_argument("--players", default="random,random",
                        help="a reference bot per seat, comma-separated: random, greedy, search "
                             "or search:DEPTH (default random,random); the seats rotate from "
                             "game to game")
    parser.add_argument("--seed", default="0",
                        help="game g is dealt with seed SEED/g; the bots' seeds follow from it")
    parser.add_argument("--out", required=True, type=Path, help="the folder to write")
    parser.add_argument("--format", choices=("npz", "parquet"), default="npz",
                        help="the rows' file: npz (numpy, default) or parquet (needs pyarrow)")
    parser.add_argument("--solution", type=Path,
                        help="a solution file of `anqi solve` for the variant: adds each row's "
                             "exact value")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games: at least 1")
    try:
        variant = Variant(args.variant)
        solution = None
        if args.solution is not None:
            from .solution import Solution

            solution = Solution(str(args.solution))
        players = [p for p in args.players.split(",") if p.strip()]
        started = time.monotonic()
        step = max(1, args.games // 10)

        def progress(done: int, total: int) -> None:
            if done % step == 0 or done == total:
                print(f"{done}/{total} games, {time.monotonic() - started:.1f} s",
                      file=sys.stderr, flush=True)

        records, columns = play_games(variant, players, args.games, args.seed, solution,
                                      progress)
        meta = {
            "variant": variant.name, "players": [str(PlayerSpec.parse(p)) for p in players],
            "seed": args.seed, "games": args.games, "rows": int(len(columns["action"])),
            "tensor_version": TENSOR_VERSION, "planes": list(TENSOR_PLANES),
            "shapes": {k: list(v.shape[1:]) for k, v in columns.items() if v.ndim > 1},
            "columns": {k: COLUMNS[k] for k in columns},
            "solution": str(args.solution) if args.solution else None,
        }
        paths = write(args.out, records, columns, meta, args.format)
    except (ValueError, OSError, ImportError) as e:
        print(f"anqi.dataset: {e}", file=sys.stderr)
        return 2
    print(f"{args.games} games, {meta['rows']} rows: " + ", ".join(str(p) for p in paths))
    return 0


if __name__ == "__main__":
    sys.exit(main())
