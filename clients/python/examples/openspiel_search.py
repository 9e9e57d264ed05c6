r"""OpenSpiel's MCTS and expectiminimax on anqi's OpenSpiel games, against random play.

    python clients/python/examples/openspiel_search.py                  # both, traditional-2x4
    python clients/python/examples/openspiel_search.py --algorithms mcts --simulations 400

`anqi.openspiel.register()` makes every shipped variant an OpenSpiel game (`anqi_<name>`, a
perfect-information game with explicit chance: a reveal is the player's action, then a chance
node whose outcomes are the unseen pieces). OpenSpiel's own Python algorithms then play it
as they play any game:

- **mcts**: `open_spiel.python.algorithms.mcts.MCTSBot`, `--simulations` simulations a move
  (random rollouts; at chance nodes it samples the outcomes);
- **expectiminimax**: `open_spiel.python.algorithms.minimax.expectiminimax` to `--depth` plies
  (chance nodes averaged over their outcomes, not counted in the depth), and at the depth
  `material`: the searching player's pieces left (face-up or unseen) against the other
  colour's, read off the observation tensor by the planes' names.

Each plays `--games` games against OpenSpiel's uniform random bot with
`open_spiel.python.algorithms.evaluate_bots`, seats alternating; a line per algorithm gives
the result with a 95% (Wilson) interval for the win rate; with the defaults, on the project's
2-core machine (PACKAGE.md, "Training examples"):

    result: mcts (100 simulations a move) won 96.5% (193 of 200 games, 95% interval
    93.0%-98.3%), drew 3, lost 4 against random on traditional-2x4 in 58 s
    result: expectiminimax (depth 2) won 99.5% (199 of 200 games, 95% interval
    97.2%-99.9%), drew 1, lost 0 against random on traditional-2x4 in 6 s

Needs the `openspiel` extra (`pip install './clients/python[openspiel]'`).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import evaluate_bots, mcts, minimax

import anqi
import anqi.openspiel

ALGORITHMS = ("mcts", "expectiminimax")
LETTERS = "KGBRNCPkgbrncp"  # red's pieces, then black's: the planes' order


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0].replace("\n", " "),
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--variant", default="traditional-2x4",
                    help="a two-player variant: a shipped name (its OpenSpiel game is "
                         "anqi_<name>) or a description file")
    ap.add_argument("--algorithms", nargs="+", choices=ALGORITHMS, default=list(ALGORITHMS),
                    help="the searches to evaluate, one after the other")
    ap.add_argument("--games", type=int, default=200,
                    help="games of each algorithm against random, seats alternating")
    ap.add_argument("--simulations", type=int, default=100,
                    help="MCTS's budget: simulations a move")
    ap.add_argument("--rollouts", type=int, default=1,
                    help="MCTS: random rollouts to evaluate a new leaf")
    ap.add_argument("--uct-c", type=float, default=2.0, help="MCTS's exploration constant")
    ap.add_argument("--depth", type=int, default=2,
                    help="expectiminimax's budget: plies searched (chance nodes not counted)")
    ap.add_argument("--seed", type=int, default=1, help="seeds the bots and the chance nodes")
    args = ap.parse_args(argv)
    for name in ("games", "simulations", "rollouts", "depth"):
        if getattr(args, name) < 1:
            ap.error(f"--{name} must be at least 1")
    try:
        variant = anqi.Variant(args.variant)
    except ValueError as e:
        ap.error(f"--variant {args.variant}: {e}")
    if variant.players != 2:
        ap.error(f"--variant {args.variant}: a two-player variant (expectiminimax and the "
                 f"evaluation's seats are for two)")
    return args


def material(variant: anqi.Variant):
    """The evaluation at expectiminimax's depth: `value(state, player)`, the player's pieces
    left against the other colour's, `(mine - theirs) / (mine + theirs)` scaled into
    (-0.9, 0.9) so that a won game (+1) is always worth more; 0 while colours are undecided.
    A piece is left when it stands face-up or is unseen (face-down, in the bag)."""
    planes = anqi.TENSOR_PLANES
    up = [planes.index(f"up-{c}") for c in LETTERS]
    unseen = [planes.index(f"unseen-{c}") for c in LETTERS]
    red, black = planes.index("red"), planes.index("black")
    # An unseen plane holds the unseen count over the variant's number of that piece.
    total = np.array([variant.pieces.count(c) for c in LETTERS], dtype=np.float32)

    def value(state, player: int) -> float:
        x = np.asarray(state.observation_tensor(player), np.float32).reshape(len(planes), -1)
        left = x[up].sum(axis=1) + x[unseen, 0] * total
        reds, blacks = left[:7].sum(), left[7:].sum()
        plays_red, plays_black = x[red, 0] == 1, x[black, 0] == 1
        if plays_red == plays_black:  # colours undecided (or both: not a two-colour game)
            return 0.0
        mine, theirs = (reds, blacks) if plays_red else (blacks, reds)
        return 0.9 * (mine - theirs) / max(mine + theirs, 1.0)

    return value


class ExpectiminimaxBot(pyspiel.Bot):
    """OpenSpiel's expectiminimax as a bot: the action of the best expected value to `depth`
    plies, with `value` at the depth."""

    def __init__(self, player: int, depth: int, value) -> None:
        pyspiel.Bot.__init__(self)
        self.player, self.depth, self.value = player, depth, value

    def restart_at(self, state) -> None:  # no memory between moves
        pass

    def inform_action(self, state, player_id, action) -> None:
        pass

    def step(self, state) -> int:
        _, action = minimax.expectiminimax(
            state, self.depth, lambda s: self.value(s, self.player), self.player)
        return action


def make_bot(algorithm: str, game, player: int, args: argparse.Namespace, rng, value):
    if algorithm == "mcts":
        evaluator = mcts.RandomRolloutEvaluator(args.rollouts, rng)
        return mcts.MCTSBot(game, args.uct_c, args.simulations, evaluator, random_state=rng)
    return ExpectiminimaxBot(player, args.depth, value)


def budget(algorithm: str, args: argparse.Namespace) -> str:
    return (f"{args.simulations} simulations a move" if algorithm == "mcts"
            else f"depth {args.depth}")


def play(algorithm: str, game, args: argparse.Namespace) -> dict[str, int]:
    """`--games` games of `algorithm` against OpenSpiel's uniform random bot, the algorithm
    player 0 in even games and player 1 in odd ones: its wins, draws and losses."""
    value = material(anqi.Variant(args.variant))
    counts = {"wins": 0, "draws": 0, "losses": 0}
    started = time.perf_counter()
    for g in range(args.games):
        # Game g is seeded by --seed and g alone: the chance nodes, the search and the random
        # bot's choices.
        rng = np.random.RandomState((args.seed * 1_000_003 + g) % 2**32)
        seat = g % 2
        bots = [None, None]
        bots[seat] = make_bot(algorithm, game, seat, args, rng, value)
        bots[1 - seat] = pyspiel.make_uniform_random_bot(1 - seat, int(rng.randint(2**31)))
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
        mine = returns[seat]
        counts["wins" if mine > 0 else "losses" if mine < 0 else "draws"] += 1
        if (g + 1) % max(1, args.games // 10) == 0 or g + 1 == args.games:
            seconds = time.perf_counter() - started
            print(f"{algorithm}: {g + 1}/{args.games} games: {counts['wins']} won, "
                  f"{counts['draws']} drawn, {counts['losses']} lost "
                  f"({seconds / (g + 1):.2f} s a game)", flush=True)
    return counts


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    [name] = anqi.openspiel.register([args.variant])
    game = pyspiel.load_game(name)
    results = []
    for algorithm in args.algorithms:
        started = time.perf_counter()
        counts = play(algorithm, game, args)
        seconds = time.perf_counter() - started
        n = args.games
        low, high = anqi.wilson(counts["wins"], n)
        results.append(
            f"result: {algorithm} ({budget(algorithm, args)}) won {counts['wins'] / n:.1%} "
            f"({counts['wins']} of {n} games, 95% interval {low:.1%}-{high:.1%}), drew "
            f"{counts['draws']}, lost {counts['losses']} against random on {args.variant} in "
            f"{seconds:.0f} s")
    # The results together at the end, one line per algorithm.
    for line in results:
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
