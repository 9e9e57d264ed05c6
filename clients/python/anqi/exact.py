"""A second, simple solver: exact values of small variants in pure Python over `anqi.Game`'s
chance mode, written apart from `anqi solve` (Rust) to check it.

    python -m anqi.exact traditional-2x4          # the value, and how long it took

It solves what `anqi solve` solves (protocol/SOLVING.md): a state is the public board, the
unseen pieces, the player to move and the colours; play that never reveals nor captures again
is a draw, in place of the variant's own draw rules (which `SimpleSolver` strips from the
description). Values are `fractions.Fraction`s: player 1's expected score.

The method differs from `anqi solve`'s on purpose. A component of quiet moves is valued by
thresholds: for each value `t` that an exit of the component has, the states from which the
maximizer can make sure of at least `t` are found by a fixed-point iteration (reaching an exit
worth `t` or more when `t` is above a draw; keeping the minimizer from every exit worth less
when it is not, cycling being a draw), and a state's value is the largest `t` it makes sure of.
It is slow (a few thousand states a second: traditional-2x4 took 20 minutes), which is fine
for checking.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from fractions import Fraction

from . import _anqi as native

HALF = Fraction(1, 2)


def without_draw_rules(variant: str | native.Variant) -> native.Variant:
    """The variant with its no-progress and repetition rules taken out of its description."""
    v = variant if isinstance(variant, native.Variant) else native.Variant(variant)
    text = re.sub(r"\(no-progress\s+\d+\)", "", v.description)
    text = re.sub(r"\(repetition\s+[^()]*\)", "", text)
    text = re.sub(r"\(cycle\s+[^()]*\)", "", text)
    return native.Variant.from_description(text)


class SimpleSolver:
    """Values of states of `variant` (its draw rules stripped), computed on demand and kept."""

    def __init__(self, variant: str | native.Variant) -> None:
        self.variant = without_draw_rules(variant)
        self.values: dict[tuple, Fraction] = {}

    def start(self, seed: str = "start") -> native.Game:
        """A game of the stripped variant from its start, in chance mode (reveals are chance
        nodes, so the deal does not matter)."""
        return native.Game(self.variant, seed=seed, chance=True)

    @staticmethod
    def key(game: native.Game) -> tuple:
        obs = game.observation(game.to_move)
        return (obs.board, tuple(sorted(obs.pool.items())), game.to_move, tuple(obs.colours))

    @staticmethod
    def ended(game: native.Game) -> Fraction:
        side = game.outcome["winner_side"]
        return HALF if side is None else Fraction(1) if side == 0 else Fraction(0)

    def value(self, game: native.Game) -> Fraction:
        """Player 1's expected score under best play from `game` (chance mode, not at a chance
        node)."""
        if game.is_terminal:
            return self.ended(game)
        key = self.key(game)
        if key not in self.values:
            self._solve_component(game)
        return self.values[key]

    def _reveal(self, after: native.Game, pool: dict[str, int]) -> Fraction:
        """A chance node's value: each piece it may give, weighted by its count in `pool` (the
        unseen pieces before the reveal)."""
        total = sum(pool.values())
        out = Fraction(0)
        for piece, n in pool.items():
            if n == 0:
                continue
            child = after.clone()
            child.apply_chance(piece)
            out += Fraction(n, total) * self.value(child)
        return out

    def _solve_component(self, entry: native.Game) -> None:
        keys = [self.key(entry)]
        index = {keys[0]: 0}
        games = [entry]
        maxing: list[bool] = []
        exits: list[list[Fraction]] = []
        succ: list[list[int]] = []
        i = 0
        while i < len(keys):
            game = games[i]
            maxing.append(game.variant_info.sides[0].count(game.to_move) > 0)
            mine_exits: list[Fraction] = []
            mine_succ: list[int] = []
            pieces = sum(c != "." for c in game.board)
            pool = game.observation(game.to_move).pool
            for action in game.legal_action_ids():
                child = game.clone()
                child.apply(action)
                if child.is_chance_node:
                    mine_exits.append(self._reveal(child, pool))
                elif child.is_terminal:
                    mine_exits.append(self.ended(child))
                elif sum(c != "." for c in child.board) < pieces:
                    mine_exits.append(self.value(child))  # a capture
                else:
                    k = self.key(child)
                    if k in self.values:
                        mine_exits.append(self.values[k])
                    else:
                        if k not in index:
                            index[k] = len(keys)
                            keys.append(k)
                            games.append(child)
                        mine_succ.append(index[k])
            exits.append(mine_exits)
            succ.append(mine_succ)
            i += 1
        for k, v in zip(keys, _component_values(maxing, exits, succ)):
            self.values[k] = v


def _component_values(maxing: list[bool], exits: list[list[Fraction]], succ: list[list[int]]) -> list[Fraction]:
    """Values of one component by thresholds (see the module's documentation)."""
    n = len(maxing)
    thresholds = sorted({v for e in exits for v in e} | {HALF})

    def forces(t: Fraction, maximizer: bool) -> list[bool]:
        # The states from which the maximizer (or the minimizer) forces an exit it wants:
        # worth t or more for the maximizer, less than t for the minimizer.
        wanted = (lambda v: v >= t) if maximizer else (lambda v: v < t)
        inside = [False] * n
        changed = True
        while changed:
            changed = False
            for i in range(n):
                if inside[i]:
                    continue
                good = [wanted(v) for v in exits[i]] + [inside[j] for j in succ[i]]
                if any(good) if maxing[i] == maximizer else all(good):
                    inside[i] = changed = True
        return inside

    best = [Fraction(0)] * n
    for t in thresholds:
        assured = forces(t, True) if t > HALF else [not x for x in forces(t, False)]
        for i in range(n):
            if assured[i]:
                best[i] = max(best[i], t)
    return best


def random_positions(solver: SimpleSolver, n: int, seed: int = 0) -> list[native.Game]:
    """`n` positions of random play: game k is played at random from the start (chance mode,
    its reveals drawn at random too) and taken after a random number of its plies (never an
    ended game, never a chance node)."""
    import random  # noqa: PLC0415

    rng = random.Random(seed)
    out = []
    while len(out) < n:
        game = solver.start(seed=f"positions/{len(out)}")
        seen = [game.clone()]
        while not game.is_terminal and len(seen) < 400:
            if game.is_chance_node:
                game.sample_chance(rng)
                continue
            game.apply(rng.choice(game.legal_action_ids()))
            if not game.is_chance_node and not game.is_terminal:
                seen.append(game.clone())
        out.append(rng.choice(seen))
    return out


def check(solver: SimpleSolver, path: str, positions: int, seed: int = 0) -> tuple[int, list[str]]:
    """Compares this solver's values with a solution file of `anqi solve`: the start's and
    those of `positions` random positions. Returns how many were compared and what differed."""
    from .solution import Solution  # noqa: PLC0415

    solution = Solution(path)
    wrong = []
    games = [solver.start()] + random_positions(solver, positions, seed)
    for game in games:
        mine, theirs = solver.value(game), solution.value(game.state_key())
        if mine != theirs:
            wrong.append(f"{game.board} to move {game.to_move}: {mine} here, {theirs} in {path}")
    return len(games), wrong


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m anqi.exact",
        description="The exact value of a small variant by the simple Python solver "
        "(slow; a check of `anqi solve`).",
    )
    parser.add_argument("variant", help="a shipped name or a description file")
    parser.add_argument(
        "--check",
        metavar="FILE",
        help="compare with a solution file of `anqi solve` (the start and --positions random positions)",
    )
    parser.add_argument("--positions", type=int, default=1000, help="random positions to compare (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random positions")
    args = parser.parse_args(argv)
    solver = SimpleSolver(args.variant)
    started = time.perf_counter()
    value = solver.value(solver.start())
    print(
        f"{args.variant}: {value} = {float(value):.6f} "
        f"({len(solver.values)} states, {time.perf_counter() - started:.0f} s)"
    )
    if args.check:
        compared, wrong = check(solver, args.check, args.positions, args.seed)
        for line in wrong[:20]:
            print(line)
        print(
            f"{args.check}: {compared - len(wrong)} of {compared} positions agree "
            f"({len(solver.values)} states solved here in all, {time.perf_counter() - started:.0f} s)"
        )
        return 1 if wrong else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
