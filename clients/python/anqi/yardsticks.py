"""Reference players of known strength, measured by one command (PACKAGE.md, Yardsticks).

    python -m anqi.yardsticks --variant traditional-2x4 --deals 100 --out yardsticks/

plays a round robin on paired deals (`anqi.play`: every pair of players plays every deal twice,
the seats swapped) between the reference players of the variant and prints their table:

- `random`, `greedy`, `search-dN` (anqi-bot's strategies; N the search depth);
- on `traditional`, `search-d3+tables`: the search with the 4-piece endgame tables
  (`anqi tables build --pieces 4`, built into `--out` the first time);
- on `traditional-2x4`, `perfect`: the solved game played from its solution (`anqi solve`,
  written into `--out` the first time), and every player's score against it;
- `--python NAME=MODULE:FACTORY` adds a Python bot (any object with `choose(view)`), such as a
  trained network, to the table.

Each player's row: games, score, an Elo rating fitted by maximum likelihood over every game
(`fit_ratings`; `random`, or `--anchor`, at 0) with its 95% interval, and with the perfect
player its score against perfect play on pairs of games on one deal (the pentanomial model:
TOURNAMENTS.md, Statistics). So a new agent measured in the same way reads "+N over
search-d3". The records are kept in `--out` (`records.jsonl`, resumed by the same
command) and the table written as `table.md` and `table.json` beside them.

The players' programs are `anqi-bot` beside the `anqi` program (`--binary`, else `ANQI_BIN`,
else `anqi` on PATH): use release builds (`cargo build --release`), as the published table did.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

#: The players of each variant's table, weakest first (the first is the anchor).
DEFAULT_PLAYERS = {
    "traditional-2x4": ["random", "greedy", "search-d1", "search-d2", "search-d3", "search-d4",
                        "perfect"],
    "traditional": ["random", "greedy", "search-d1", "search-d2", "search-d3", "search-d4",
                    "search-d3+tables"],
}
OTHER_VARIANTS = ["random", "greedy", "search-d1", "search-d2", "search-d3"]


@dataclass
class Row:
    """A player's line of the table."""

    name: str
    games: int
    #: Points per game over all its games.
    score: float
    #: The fitted Elo rating (the anchor 0) and the ends of its 95% interval.
    rating: float
    rating_low: float
    rating_high: float
    #: Score against the perfect player and its 95% interval (on a solved variant).
    vs_perfect: tuple[float, float, float] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "games": self.games, "score": self.score,
                "rating": self.rating, "rating_low": self.rating_low,
                "rating_high": self.rating_high, "vs_perfect": self.vs_perfect}


def _bot_program(binary: Path) -> Path:
    """anqi-bot beside the anqi program."""
    bot = binary.with_name("anqi-bot" + binary.suffix)
    if not bot.exists():
        raise FileNotFoundError(f"{bot}: anqi-bot is built beside anqi (cargo build --release "
                                "builds both)")
    return bot


def engine(name: str, bot: Path, out: Path, variant: str, binary: Path, log: Any) -> dict:
    """The `[[tournament.engine]]` keys of a reference player named as in `DEFAULT_PLAYERS`
    (its solution or tables made in `out` when it needs them)."""
    stem = Path(variant).stem if variant.endswith(".sexp") else variant
    args = ["--connect", "{addr}", "--seed", "{seed}", "--name", "{name}"]
    if name in ("random", "greedy"):
        args += ["--strategy", name]
    elif name.startswith("search-d"):
        depth, _, extra = name[len("search-d"):].partition("+")
        if not depth.isdigit() or extra not in ("", "tables"):
            raise ValueError(f"player {name!r}: search-dN or search-dN+tables")
        args += ["--strategy", "search", "--depth", depth]
        if extra:
            args += ["--tables", str(prepared(out / f"{stem}-4.tables", log,
                                              [binary, "tables", "build", "--pieces", "4",
                                               variant, "--out"]))]
    elif name == "perfect":
        solution = prepared(out / f"{stem}.solution", log,
                            [binary, "solve", variant, "--out"])
        args += ["--strategy", "perfect", "--solution", str(solution)]
    else:
        raise ValueError(f"player {name!r}: random, greedy, search-dN, search-dN+tables or "
                         "perfect (or --python NAME=MODULE:FACTORY)")
    return {"name": name, "command": str(bot), "args": args}


def prepared(path: Path, log: Any, command: list) -> Path:
    """`path`, made by `command + [path]` the first time (a solution, tables)."""
    if not path.exists():
        print(f"making {path.name}: {' '.join(map(str, command))} {path}", file=log, flush=True)
        started = time.monotonic()
        tmp = path.with_name(path.name + ".part")
        run = subprocess.run([*map(str, command), str(tmp)], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        if run.returncode != 0:
            tmp.unlink(missing_ok=True)
            tail = run.stderr.strip().splitlines()[-3:]
            raise ValueError(f"making {path.name} failed (status {run.returncode}): "
                             + " / ".join(tail))
        tmp.rename(path)
        print(f"  done in {time.monotonic() - started:.0f} s", file=log, flush=True)
    return path


def python_player(spec: str) -> Any:
    """`NAME=MODULE:FACTORY`: `FACTORY()` from `MODULE`, named NAME."""
    name, eq, target = spec.partition("=")
    module, colon, factory = target.partition(":")
    if not (eq and colon and name and module and factory):
        raise ValueError(f"--python {spec!r}: NAME=MODULE:FACTORY, e.g. "
                         "net=anqi.network:NetworkBot")
    bot = getattr(importlib.import_module(module), factory)()
    bot.name = name
    return bot


#: The fit's prior: this many virtual draws between every two players who met, so that a pair
#: won in full (every player beats `random` every time) does not push a rating to infinity
#: (BayesElo's prior of virtual draws, as Ordo and BayesElo use for the same reason).
PRIOR_DRAWS = 1.0

LOG10_400 = math.log(10) / 400


def fit_ratings(records: Any, names: list[str], anchor: str,
                prior_draws: float = PRIOR_DRAWS) -> dict[str, tuple[float, float]]:
    """Elo ratings of `names` from every game of `records` (two-player games), by maximum
    likelihood under the logistic model, a draw counting half a win (each player's expected
    score against another is 1/(1 + 10^((r_other - r_self)/400))), with `prior_draws` draws
    added to every pair that met, `anchor` fixed at 0. Returns name -> (rating, standard
    error), the error from the curvature of the log-likelihood (the inverse of its Hessian):
    the 95% interval is rating ± 1.96 errors. Unlike a pair's own Elo, the fit uses every
    game: search-d4's rating against random is finite though it never lost to it."""
    index = {n: i for i, n in enumerate(names)}
    k = len(names)
    points = [[0.0] * k for _ in range(k)]   # points[i][j]: i's points against j
    games = [[0.0] * k for _ in range(k)]
    for r in records:
        if len(r.players) != 2:
            continue
        (a, b) = (index.get(p.name) for p in r.players)
        if a is None or b is None:
            continue
        ws = r.result.winner_side
        sa = 0.5 if ws is None else (1.0 if r.players[0].side == ws else 0.0)
        points[a][b] += sa
        points[b][a] += 1 - sa
        games[a][b] += 1
        games[b][a] += 1
    for i in range(k):
        for j in range(k):
            if i != j and games[i][j]:
                points[i][j] += prior_draws / 2
                games[i][j] += prior_draws
    free = [i for i in range(k) if names[i] != anchor]
    r = [0.0] * k
    for _ in range(100):
        grad, hess = _gradient_and_hessian(r, points, games, free)
        step = _solve(hess, grad)
        for f, d in zip(free, step):
            r[f] -= d
        if max((abs(d) for d in step), default=0.0) < 1e-9:
            break
    _, hess = _gradient_and_hessian(r, points, games, free)
    cov = _inverse([[-h for h in row] for row in hess])
    errors = {f: math.sqrt(max(cov[n][n], 0.0)) for n, f in enumerate(free)}
    return {names[i]: (r[i], errors.get(i, 0.0)) for i in range(k)}


def _gradient_and_hessian(r, points, games, free):
    """The log-likelihood's gradient and Hessian in the free ratings."""
    k = len(r)
    grad = {i: 0.0 for i in range(k)}
    hess = {(i, j): 0.0 for i in range(k) for j in range(k)}
    for i in range(k):
        for j in range(k):
            if i == j or not games[i][j]:
                continue
            e = 1 / (1 + math.exp(-LOG10_400 * (r[i] - r[j])))
            grad[i] += LOG10_400 * (points[i][j] - games[i][j] * e)
            w = LOG10_400 ** 2 * games[i][j] * e * (1 - e)
            hess[(i, i)] -= w
            hess[(i, j)] += w
    return ([grad[i] for i in free], [[hess[(i, j)] for j in free] for i in free])


def _solve(a, b):
    """x with a·x = b (Gaussian elimination, partial pivoting; a is small)."""
    n = len(b)
    m = [list(row) + [v] for row, v in zip(a, b)]
    for c in range(n):
        p = max(range(c, n), key=lambda i: abs(m[i][c]))
        m[c], m[p] = m[p], m[c]
        if m[c][c] == 0:
            raise ValueError("the players are not all connected by games: no rating fits")
        for i in range(n):
            if i != c:
                f = m[i][c] / m[c][c]
                m[i] = [x - f * y for x, y in zip(m[i], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


def _inverse(a):
    n = len(a)
    cols = [_solve(a, [1.0 if i == j else 0.0 for i in range(n)]) for j in range(n)]
    return [[cols[j][i] for j in range(n)] for i in range(n)]


#: How long a player's program may take to connect (`connect_timeout_ms`): the perfect player
#: reads its solution (100 MB on traditional-2x4) and a search its tables before connecting,
#: which a busy machine slows down, and a seat still empty then is a game lost unplayed.
CONNECT_TIMEOUT_MS = 120_000


def played(records: Any, names: list[str]) -> tuple[list[Any], int]:
    """The games of `records` that `names` played, and how many others there were: those
    where a seat stood empty (the server names its stand-in `(absent seat N)`), which were
    ruled, not played, and would count as a loss of the absent player to nobody's skill."""
    kept = [r for r in records if all(p.name in names for p in r.players)]
    return kept, len(records) - len(kept)


def _pair(pairs: list[dict], a: str, b: str) -> dict | None:
    """The pairs row of a against b (`anqi.standings`), from a's side."""
    for p in pairs:
        if (p["first"], p["second"]) == (a, b):
            return p
        if (p["first"], p["second"]) == (b, a):
            flip = lambda x: None if x is None else -x  # noqa: E731
            return {**p, "first": a, "second": b, "score": 1 - p["score"],
                    "elo": flip(p["elo"]), "elo_low": flip(p["elo_high"]),
                    "elo_high": flip(p["elo_low"])}
    return None


def _score(elo: float | None, edge: float) -> float:
    """The score of an Elo difference (an infinite one: `edge`)."""
    return edge if elo is None else 1 / (1 + 10 ** (-elo / 400))


def table(records: Any, names: list[str], anchor: str, perfect: str | None) -> list[Row]:
    """The table's rows, strongest first: each player's games and score, its fitted rating
    (`fit_ratings`), and its score against `perfect` on paired deals (the pentanomial model of
    `anqi.standings`)."""
    from . import standings as standings_of

    s = standings_of(records, order=names)
    ratings = fit_ratings(records, names, anchor)
    rows = []
    for e in s.engines:
        rating, error = ratings[e["name"]]
        vs_perfect = None
        if perfect and e["name"] != perfect:
            p = _pair(s.pairs, e["name"], perfect)
            if p is not None:
                vs_perfect = (p["score"], _score(p["elo_low"], 0.0), _score(p["elo_high"], 1.0))
        rows.append(Row(e["name"], e["games"], e["score"], rating, rating - 1.96 * error,
                        rating + 1.96 * error, vs_perfect))
    rows.sort(key=lambda r: -r.rating)
    return rows


def markdown(rows: list[Row], variant: str, anchor: str, deals: int, perfect: str | None) -> str:
    """The table as Markdown, as PACKAGE.md publishes it."""
    head = ["player", "games", "score", f"Elo [95%] ({anchor} = 0)"]
    if perfect:
        head.append(f"score against {perfect} [95%]")
    lines = [f"Yardsticks on {variant}: a round robin, {deals} paired deals per pair of players",
             "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [r.name, str(r.games), f"{r.score:.1%}",
                 "0 (the anchor)" if r.name == anchor else
                 f"{r.rating:+.0f} [{r.rating_low:+.0f}, {r.rating_high:+.0f}]"]
        if perfect:
            cells.append("" if r.vs_perfect is None else
                         f"{r.vs_perfect[0]:.3f} [{r.vs_perfect[1]:.3f}, {r.vs_perfect[2]:.3f}]")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m anqi.yardsticks",
        description="Measure the reference players of a variant against each other: a round "
                    "robin on paired deals, then a table of Elo ratings fitted over every game "
                    "(random = 0, with 95% intervals) and, with the perfect player, each "
                    "player's score against perfect play. The same command resumes an "
                    "interrupted run.",
        epilog="Example: python -m anqi.yardsticks --variant traditional-2x4 --deals 100 --out "
               "yardsticks-2x4 (PACKAGE.md, Yardsticks). Use release builds.")
    parser.add_argument("--variant", default="traditional-2x4",
                        help="a shipped variant or a description file (default traditional-2x4)")
    parser.add_argument("--deals", type=int, default=50,
                        help="deals per pair of players, each played twice with the seats "
                             "swapped (default 50)")
    parser.add_argument("--players", help="comma-separated reference players (default: the "
                        "variant's table: " + "; ".join(f"{v}: {','.join(p)}"
                                                        for v, p in DEFAULT_PLAYERS.items()) + ")")
    parser.add_argument("--python", action="append", default=[], metavar="NAME=MODULE:FACTORY",
                        help="a Python bot to measure with them (repeatable)")
    parser.add_argument("--out", type=Path, required=True,
                        help="the folder of the records, the table and any solution or tables")
    parser.add_argument("--seed", default="yardsticks", help="the master seed of the deals")
    parser.add_argument("--anchor", help="the player whose rating is 0 (default: the first, "
                        "random); the fit is the same, the intervals are against this player")
    parser.add_argument("--concurrency", type=int, default=os.cpu_count() or 1,
                        help="games at once (default: the processors)")
    parser.add_argument("--binary", type=Path, help="the anqi program (default: ANQI_BIN, "
                        "else anqi on PATH); anqi-bot is taken from beside it")
    args = parser.parse_args(argv)
    if args.deals < 1:
        parser.error("--deals: at least 1")
    import anqi
    from ._binary import find_anqi

    try:
        binary = Path(find_anqi(args.binary))
        bot = _bot_program(binary)
        names = (args.players.split(",") if args.players
                 else DEFAULT_PLAYERS.get(args.variant, OTHER_VARIANTS))
        args.out.mkdir(parents=True, exist_ok=True)
        players: list[Any] = [engine(n.strip(), bot, args.out, args.variant, binary, sys.stderr)
                              for n in names]
        players += [python_player(spec) for spec in args.python]
        pairs = len(players) * (len(players) - 1) // 2
        records_path = args.out / "records.jsonl"
        before = len(records_path.read_text().splitlines()) if records_path.exists() else 0
        started = time.monotonic()
        records = anqi.play(players, games=2 * args.deals * pairs, variant=args.variant,
                            seed=args.seed, concurrency=args.concurrency,
                            output=records_path, binary=binary, progress=True,
                            legal_counts="mover",
                            tournament={"connect_timeout_ms": CONNECT_TIMEOUT_MS})
    except (ValueError, OSError, anqi.PlayError) as e:
        print(f"anqi.yardsticks: {e}", file=sys.stderr)
        return 2
    order = [p["name"] if isinstance(p, dict) else p.name for p in players]
    total = len(records)
    records, absent = played(records, order)
    if absent:
        print(f"anqi.yardsticks: {absent} games left out of the table: a player was absent (its "
              f"program did not connect within {CONNECT_TIMEOUT_MS // 1000} s, and the referee "
              "ruled the game for the other); on a busy machine, lower --concurrency",
              file=sys.stderr)
    anchor = args.anchor or order[0]
    if anchor not in order:
        print(f"anqi.yardsticks: --anchor {anchor}: not one of the players "
              f"({', '.join(order)})", file=sys.stderr)
        return 2
    perfect = "perfect" if "perfect" in order else None
    rows = table(records, order, anchor, perfect)
    text = markdown(rows, args.variant, anchor, args.deals, perfect)
    if absent:
        text += f"\n({absent} games left out: a player's program did not connect in time.)\n"
    (args.out / "table.md").write_text(text)
    (args.out / "table.json").write_text(json.dumps(
        {"variant": args.variant, "deals": args.deals, "seed": args.seed, "anchor": anchor,
         "games": len(records), "left_out_absent": absent, "seconds": round(time.monotonic() - started, 1),
         "rows": [r.as_dict() for r in rows]}, indent=2) + "\n")
    print(text, end="")
    resumed = f" ({before} played before, resumed)" if before else ""
    print(f"{total - before} games in {time.monotonic() - started:.0f} s{resumed}; "
          f"records, table.md and table.json in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
