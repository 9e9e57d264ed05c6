"""Random playouts per second: OpenSpiel's banqi driven from Python, anqi driven from Python
(action ids), and anqi's native batch `anqi.playouts`, measured in one run; then `VecGame`'s
steps per second on 1, 2, ... threads (the threads table).

    python -m anqi.speed                 # about 30 seconds: 15 for each part
    python -m anqi.speed --seconds 60    # longer, steadier figures
    python -m anqi.speed --threads-only --threads 1,2,4,8,16   # the threads table alone

The threads table: `VecGame(variant, n=256 * threads, threads=threads)` stepped with
`step(random_actions())`, observations and masks written at every step, the same number of
games on each thread for every count (1, 2 and every processor this process may use, by
default), the counts taking turns in short rounds. Each count's steps per second, and its
ratio to one thread's: a machine of `k` idle cores gives up to `k`x. The load average before
and after is printed: a machine busy with other work gives its threads less.

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
import os
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


def vec_round(
    variant: str, seconds: float, seed: str, n: int = 256, threads: int = 1
) -> tuple[int, int, float]:
    """`anqi.VecGame` of `n` games on `threads` threads, stepped with `random_actions()` for
    about `seconds`, observations and masks written at every step: episodes finished, steps,
    seconds."""
    import numpy  # noqa: PLC0415 (VecGame's arrays; optional for the rest)

    vec = anqi.VecGame(variant, n=n, threads=threads)
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


def processors() -> int:
    """The processors this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every system
        return os.cpu_count() or 1


def load_average() -> str:
    """The system's load average over the last minute, as text ("unknown" where there is none)."""
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except (AttributeError, OSError):
        return "unknown"


def busy_seconds() -> tuple[float, float] | None:
    """Processor seconds spent so far by the whole machine (every processor's time not idle,
    from /proc/stat) and by this process, or None where there is no /proc/stat (not Linux)."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except OSError:
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle and iowait
    ticks = os.sysconf("SC_CLK_TCK")
    mine = os.times()
    return (sum(fields[:8]) - idle) / ticks, mine.user + mine.system


@dataclasses.dataclass
class ThreadsTable:
    """The threads table's figures: by thread count, `Figures` of episodes and steps; the load
    average before and after, and the share of the processors other processes used meanwhile
    (None where it cannot be told)."""

    variant: str
    per_thread: int
    figures: dict[int, Figures]
    load_before: str
    load_after: str
    others: float | None = None


def measure_threads(
    seconds: float = 15.0,
    variant: str = OPENSPIEL_VARIANT,
    counts: list[int] | None = None,
    per_thread: int = 256,
    seed: int = 1,
    rounds: int = 10,
) -> ThreadsTable:
    """`VecGame` of `per_thread * t` games on `t` threads for each `t` of `counts` (1, 2 and
    every processor, by default), taking turns, `rounds` times, for `seconds` in all."""
    counts = sorted(set(counts or [1, 2, processors()]))
    figures = {t: Figures(f"threads-{t}") for t in counts}
    slice_ = seconds / rounds / len(counts)
    load_before, busy_before, start = load_average(), busy_seconds(), time.perf_counter()
    for r in range(rounds):
        for t in counts:
            figures[t].add(
                *vec_round(variant, slice_, seed=f"threads-{seed}-{r}", n=per_thread * t, threads=t)
            )
    busy_after, elapsed = busy_seconds(), time.perf_counter() - start
    others = None
    if busy_before and busy_after and elapsed > 0:
        machine, mine = (after - before for after, before in zip(busy_after, busy_before))
        others = max(0.0, machine - mine) / (elapsed * processors())
    return ThreadsTable(variant, per_thread, figures, load_before, load_average(), others)


def report_threads(table: ThreadsTable) -> str:
    """The threads table as text: a line per thread count, its steps per second and its ratio
    to one thread's."""
    base = table.figures.get(1)
    others = "" if table.others is None else f", other processes {table.others:.0%} of them"
    lines = [
        f"anqi {table.variant}, VecGame of {table.per_thread} games a thread, "
        f"obs and masks each step; {processors()} processors{others}, "
        f"load average {table.load_before} before, {table.load_after} after:",
        f"{'threads':>7s} {'games':>7s} {'steps/s':>14s} {'/ 1 thread':>10s}",
    ]
    for t, f in table.figures.items():
        ratio = f.plies_per_second / base.plies_per_second if base and base.plies_per_second else 0
        lines.append(
            f"{t:7d} {t * table.per_thread:7d} {f.plies_per_second:14,.0f} {ratio:9.2f}x"
        )
    return "\n".join(lines)


def thread_counts(text: str) -> list[int]:
    """`--threads`: thread counts separated by commas, each at least 1."""
    try:
        counts = [int(c) for c in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: thread counts separated by commas") from None
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: every thread count is at least 1")
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m anqi.speed",
        description="Random playouts per second: pyspiel banqi vs anqi (Python-driven and "
        "native); then the threads table: VecGame's steps per second (observations and masks "
        "written at every step) on 1, 2, ... threads with the same games on each thread, and "
        "each count's ratio to one thread.",
    )
    parser.add_argument("--seconds", type=float, default=15.0, help="run time of the playouts (default 15)")
    parser.add_argument("--variant", default=OPENSPIEL_VARIANT, help="anqi variant (default openspiel)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random choices")
    parser.add_argument("--no-chance", action="store_true", help="skip the chance-mode figure")
    parser.add_argument(
        "--threads", type=thread_counts, default=None, metavar="N,N,...",
        help="the threads table's thread counts (default: 1, 2 and every processor)",
    )
    parser.add_argument(
        "--threads-seconds", type=float, default=None, metavar="S",
        help="run time of the threads table (default: --seconds; 0 skips it)",
    )
    parser.add_argument(
        "--per-thread", type=int, default=256, metavar="N",
        help="games on each thread in the threads table (default 256; a VecGame uses one "
        "thread per 64 games at most)",
    )
    parser.add_argument("--threads-only", action="store_true", help="the threads table alone")
    args = parser.parse_args(argv)
    threads_seconds = args.seconds if args.threads_seconds is None else args.threads_seconds
    if args.seconds <= 0:
        parser.error("--seconds must be positive")
    if threads_seconds < 0 or (args.threads_only and threads_seconds == 0):
        parser.error("--threads-seconds must be positive (0 skips the table, without --threads-only)")
    if args.per_thread < 1:
        parser.error("--per-thread must be at least 1")
    try:
        anqi.Variant(args.variant)  # a bad name fails here, before the run
    except ValueError as e:
        parser.error(str(e))
    if not args.threads_only:
        figures = measure(args.seconds, args.variant, args.seed, chance=not args.no_chance)
        print(report(figures, args.variant))
    if threads_seconds > 0:
        try:
            import numpy  # noqa: F401, PLC0415 (VecGame's arrays)
        except ImportError:
            print("\nThe threads table needs numpy (VecGame's arrays): pip install numpy")
            return 0 if not args.threads_only else 1
        table = measure_threads(
            threads_seconds, args.variant, args.threads, args.per_thread, args.seed
        )
        print(("" if args.threads_only else "\n") + report_threads(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
