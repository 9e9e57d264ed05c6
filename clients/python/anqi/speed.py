"""Random playouts per second: OpenSpiel's banqi driven from Python, anqi driven from Python
(action ids), and anqi's native batch `anqi.playouts`, measured in one run.

    python -m anqi.speed                 # about 15 seconds
    python -m anqi.speed --seconds 60    # longer, steadier figures

OpenSpiel (`pyspiel`) is not a dependency of anqi: install it for the comparison with
`pip install open_spiel`; without it, anqi's own figures are still printed.

Fairness: both Python loops are written the same plain way (a method call per step, the
action chosen by `random.Random.choice` over the legal ids, nothing cached) and count the
same thing, player actions (plies); pyspiel's chance nodes (its reveals pick their piece there)
are resolved in its loop but not counted as plies. anqi plays the `openspiel` variant
(protocol/variants/openspiel.sexp: OpenSpiel's rules, a 50-ply no-progress draw, no repetition
rule). The contenders take turns in short rounds, so a machine busy with other work slows them
alike. Measure the build a wheel gets (`pip install ./clients/python`, or `maturin develop`:
release, optimized across crates), not a debug one.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
import time

from . import _anqi as anqi  # the native module: Game, Variant, playouts
from .pyspiel_floor import pyspiel_round

# The anqi variant with OpenSpiel banqi's rules.
OPENSPIEL_VARIANT = "openspiel"


@dataclasses.dataclass
class Figures:
    """What one contender did: games finished, plies played in them, seconds taken."""

    name: str
    games: int = 0
    plies: int = 0
    seconds: float = 0.0

    @property
    def plies_per_second(self) -> float:
        return self.plies / self.seconds if self.seconds > 0 else 0.0

    def add(self, games: int, plies: int, seconds: float) -> None:
        self.games += games
        self.plies += plies
        self.seconds += seconds


def load_pyspiel():
    """OpenSpiel's Python module, or None when it is not installed."""
    try:
        import pyspiel  # noqa: PLC0415 (optional, imported only here)
    except ImportError:
        return None
    return pyspiel


def anqi_round(
    variant: str, rng: random.Random, seconds: float, first_game: int = 0, chance: bool = False
) -> tuple[int, int, float]:
    """Random playouts of an anqi variant driven from Python by action ids, for about `seconds`
    (whole games): games, plies and the seconds taken. Game k is dealt from the seed
    `speed-{first_game + k}`; with `chance`, reveals and draws are chance nodes resolved with
    `sample_chance(rng)` (not counted as plies), as in OpenSpiel."""
    games = plies = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        game = anqi.Game(variant, seed=f"speed-{first_game + games}", chance=chance)
        while not game.is_terminal:
            if chance and game.is_chance_node:
                game.sample_chance(rng)
                continue
            game.apply(rng.choice(game.legal_action_ids()))
            plies += 1
        games += 1
    return games, plies, time.perf_counter() - start


def native_round(
    variant: str, seconds: float, seed: str, pick: str = "count"
) -> tuple[int, int, float]:
    """`anqi.playouts` in batches for about `seconds`: games, plies and the seconds taken.
    `pick="list"` lists every ply's legal actions, as `VecGame` must for its masks."""
    games = plies = 0
    spent = 0.0
    batch = 16
    while spent < seconds:
        result = anqi.playouts(variant, batch, seed=f"{seed}-{games}", pick=pick)
        games += result["games"]
        plies += result["plies"]
        spent += result["seconds"]
        # Batches of about a tenth of the round, so the round ends near its time.
        if result["seconds"] < seconds / 10:
            batch *= 2
    return games, plies, spent


def vec_round(variant: str, seconds: float, seed: str, n: int = 256) -> tuple[int, int, float]:
    """`anqi.VecGame` of `n` games on one thread, stepped with `random_actions()` for about
    `seconds`, observations and masks written at every step: episodes finished, steps, seconds.
    """
    import numpy  # noqa: PLC0415 (VecGame's arrays; optional for the rest)

    vec = anqi.VecGame(variant, n=n, threads=1)
    vec.reset(seed=seed)
    episodes = steps = 0
    # The measurement's own bookkeeping, kept small: `count_nonzero` counts a bool array in
    # a fifth of the time `sum` takes (2% of a step of 256 games).
    count = numpy.count_nonzero
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        dones = vec.step(vec.random_actions())[3]
        episodes += count(dones)
        steps += n
    return episodes, steps, time.perf_counter() - start


def pyspiel_obs_round(game, rng: random.Random, seconds: float) -> tuple[int, int, float]:
    """pyspiel's random playouts with the acting player's `observation_tensor()` read at every
    ply, as a learner reads it: games, plies and seconds."""
    games = plies = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
                continue
            # What the player to act reads, before it acts (after a reveal comes a chance node,
            # where no player acts).
            state.observation_tensor(state.current_player())
            state.apply_action(rng.choice(state.legal_actions()))
            plies += 1
        games += 1
    return games, plies, time.perf_counter() - start


def measure(
    seconds: float = 15.0,
    variant: str = OPENSPIEL_VARIANT,
    seed: int = 1,
    rounds: int = 10,
    chance: bool = True,
) -> dict[str, Figures]:
    """Runs every contender in turn, `rounds` times, for `seconds` in all, and returns their
    figures by name: `pyspiel` (missing when OpenSpiel is not installed), `anqi-ids`,
    `anqi-ids-chance` (with `chance`), `anqi-native`, `anqi-listed` (native, every ply's legal
    actions listed: the floor under `anqi-vec`), and with observations at every step
    `pyspiel-obs` (missing without OpenSpiel) and `anqi-vec` (numpy needed)."""
    pyspiel = load_pyspiel()
    spiel_game = pyspiel.load_game("banqi") if pyspiel else None
    names = (["pyspiel"] if spiel_game else []) + ["anqi-ids"]
    names += ["anqi-ids-chance"] if chance else []
    names += ["anqi-native", "anqi-listed"]
    names += ["pyspiel-obs"] if spiel_game else []
    try:
        import numpy  # noqa: F401, PLC0415 (VecGame's arrays)

        names += ["anqi-vec"]
    except ImportError:
        pass
    figures = {name: Figures(name) for name in names}
    slice_ = seconds / rounds / len(names)
    rng = random.Random(seed)
    for r in range(rounds):
        for name in names:
            f = figures[name]
            if name == "pyspiel":
                f.add(*pyspiel_round(spiel_game, rng, slice_))
            elif name == "anqi-ids":
                f.add(*anqi_round(variant, rng, slice_, first_game=f.games))
            elif name == "anqi-ids-chance":
                f.add(*anqi_round(variant, rng, slice_, first_game=f.games, chance=True))
            elif name == "pyspiel-obs":
                f.add(*pyspiel_obs_round(spiel_game, rng, slice_))
            elif name == "anqi-vec":
                f.add(*vec_round(variant, slice_, seed=f"speed-{seed}-{r}"))
            elif name == "anqi-listed":
                f.add(*native_round(variant, slice_, seed=f"speed-{seed}-{r}", pick="list"))
            else:
                f.add(*native_round(variant, slice_, seed=f"speed-{seed}-{r}"))
    return figures


def report(figures: dict[str, Figures], variant: str = OPENSPIEL_VARIANT) -> str:
    """The figures as text: one line per contender, then the ratios to pyspiel."""
    labels = {
        "pyspiel": "pyspiel banqi, random playouts driven from Python",
        "anqi-ids": f"anqi {variant}, driven from Python by action ids",
        "anqi-ids-chance": f"anqi {variant}, the same in chance mode (like pyspiel)",
        "anqi-native": f"anqi {variant}, native anqi.playouts",
        "anqi-listed": f"anqi {variant}, the same listing every ply's actions",
        "pyspiel-obs": "pyspiel banqi, with observation_tensor() at each ply",
        "anqi-vec": f"anqi {variant}, VecGame x256, obs and masks each ply",
    }
    lines = []
    for name, f in figures.items():
        lines.append(
            f"{labels[name]:58s} {f.plies_per_second:12,.0f} plies/s"
            f"  ({f.games} games, {f.plies / max(f.games, 1):.0f} plies each, {f.seconds:.1f} s)"
        )
    spiel = figures.get("pyspiel")
    if spiel and spiel.plies_per_second > 0:
        base = spiel.plies_per_second
        lines.append("")
        for name in ("anqi-ids", "anqi-ids-chance", "anqi-native", "anqi-listed"):
            if name in figures:
                lines.append(
                    f"ratio {name} / pyspiel: {figures[name].plies_per_second / base:6.2f}x"
                )
        spiel_obs, vec = figures.get("pyspiel-obs"), figures.get("anqi-vec")
        if spiel_obs and vec and spiel_obs.plies_per_second > 0:
            lines.append(
                f"ratio anqi-vec / pyspiel-obs: {vec.plies_per_second / spiel_obs.plies_per_second:6.2f}x"
            )
    else:
        lines.append("")
        lines.append(
            "pyspiel is not installed, so there is no ratio: `pip install open_spiel` "
            "(OpenSpiel, for this measurement only) and run again."
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m anqi.speed",
        description="Random playouts per second: pyspiel banqi vs anqi (Python-driven and native).",
    )
    parser.add_argument("--seconds", type=float, default=15.0, help="total run time (default 15)")
    parser.add_argument("--variant", default=OPENSPIEL_VARIANT, help="anqi variant (default openspiel)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random choices")
    parser.add_argument("--no-chance", action="store_true", help="skip the chance-mode figure")
    args = parser.parse_args(argv)
    if args.seconds <= 0:
        parser.error("--seconds must be positive")
    try:
        anqi.Variant(args.variant)  # a bad name fails here, before the run
    except ValueError as e:
        parser.error(str(e))
    figures = measure(args.seconds, args.variant, args.seed, chance=not args.no_chance)
    print(report(figures, args.variant))
    return 0


if __name__ == "__main__":
    sys.exit(main())
