"""OpenSpiel's banqi driven from Python: the floor that `python -m anqi.speed` and `anqi bench`
(figure R1) compare anqi with. Standard library and pyspiel only, so `anqi bench` can run this
file with any `python3` that has pyspiel, without the anqi package.

Run as a program, it prints `ready`, then plays one round per line of seconds it reads on stdin
and answers each with `PLIES SECONDS`.
"""

from __future__ import annotations

import random
import sys
import time


def pyspiel_round(game, rng: random.Random, seconds: float) -> tuple[int, int, float]:
    """Random playouts of an OpenSpiel game for about `seconds` (whole games), a method call per
    step, the action by `random.Random.choice` over the legal ids: games, plies (player actions;
    chance outcomes, resolved by their probabilities, are not counted) and the seconds taken."""
    games = plies = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                # The outcome by its probability: one pass over the outcomes.
                r = rng.random()
                outcomes = state.chance_outcomes()
                action = outcomes[-1][0]
                for a, p in outcomes:
                    r -= p
                    if r < 0:
                        action = a
                        break
                state.apply_action(action)
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                plies += 1
        games += 1
    return games, plies, time.perf_counter() - start


def main() -> None:
    import pyspiel  # noqa: PLC0415 (only when run as the floor's program)

    game = pyspiel.load_game("banqi")
    rng = random.Random(1)
    print("ready", flush=True)
    for line in sys.stdin:
        _, plies, seconds = pyspiel_round(game, rng, float(line))
        print(plies, seconds, flush=True)


if __name__ == "__main__":
    main()
