r"""Self-play data and bot evaluation across a Ray cluster, with anqi in every worker.

    python clients/python/examples/ray_selfplay.py                    # a local Ray, 2 workers
    python clients/python/examples/ray_selfplay.py --address auto --tasks 32 --workers 16 \
        --variant traditional --steps 500 --games 200 --out selfplay/
    python clients/python/examples/ray_selfplay.py --address auto --wheel dist/anqi-*.whl ...

Two kinds of task, `--tasks` of each (default: `--workers`), at most `--workers` running at once:
- **self-play**: task K steps an `anqi.VecGame` of `--envs` games, dealt from the seed text
  `"{--seed}/K"`, with random legal actions (drawn in Rust) for `--steps` steps, and returns
  a batch; `--out DIR` saves it as `DIR/selfplay-K.npz`;
- **evaluation**: task K plays `--games` games of `--bot` against `--against` (reference bots,
  in process) in the PettingZoo environment, seats alternating, and returns the first bot's
  points (1 a win, 0.5 a draw); `--out DIR` saves every task's points in
  `DIR/evaluation.json`.

A self-play batch of T = `--steps` steps of E = `--envs` games (S cells, A action ids, P
players), row t being step t:

| key | shape, dtype | |
|---|---|---|
| `observations` | `(T, E, 50, S)`, float16 | each game's tensor before step t, its mover's view |
| `masks` | `(T, E, A)`, bool | that player's legal action ids |
| `actions` | `(T, E)`, int64 | the action id played at step t |
| `to_move` | `(T, E)`, int32 | the player who played it (from 1) |
| `rewards` | `(T, E, P)`, float32 | each player's reward for the episode step t ended, else 0 |
| `dones` | `(T, E)`, bool | whether step t ended its game's episode |
| `final_observations` | `(E, 50, S)`, float16 | each game's tensor after the last step |
| `final_to_move` | `(E,)`, int32 | whose tensor that is |

An episode's outcome attaches to the step that ended it: `rewards[t, i]` is nonzero only where
`dones[t, i]`, and game i's next step (row t + 1) is already its next episode's first (the
`VecGame` deals it at once). Each player's steps of that episode are game i's rows since its
previous done where `to_move` is that player. The final observations are what a learner
bootstraps the values of the episodes still running at the batch's end from. Observations are
float16 to halve the transfer: their 0s and 1s stay exact, their fractions (counts over their
limits) within 0.05%.

Determinism: a task's data depends on `--seed` and its number K alone, never on the node or
worker that runs it, nor on how many there are: self-play task K deals from `"{seed}/K"` and
draws its actions from the `VecGame`'s own per-game generators; evaluation task K's game G is
dealt, and its bots seeded, from the seed text `"{seed}/eval/K/G"` (through SHA-256, not
Python's per-process `hash`). So `--tasks 8 --workers 2` and `--tasks 8 --workers 8` give the
same batches and points, and task K's are the same in a run of more tasks.

The package on every node: the nodes import `anqi`, so each either has it installed
(`pip install './clients/python[rl]' ray` in the node's image, the same Python as the driver),
or gets it from the driver with `--wheel PATH`: a wheel of the package (`pip wheel --no-deps
./clients/python -w dist/`), which Ray uploads with the job and installs on each node
(`runtime_env={"py_modules": [PATH]}`). The nodes still need Ray, numpy, and for evaluation
PettingZoo and Gymnasium. Several Ray nodes on one machine (a test cluster) install the wheel
into one directory and race: there, install the package. See PACKAGE.md, "Past one machine:
Ray".
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

import anqi
import anqi.env


def selfplay(variant: str, seed: str, envs: int, steps: int) -> dict:
    """`steps` steps of a VecGame of `envs` games dealt from `seed`, with random legal
    actions: the batch (the module's docstring lists its keys)."""
    vec = anqi.VecGame(variant, n=envs)
    obs, masks, rewards, dones, to_move = vec.reset(seed=seed)
    # The VecGame's arrays are overwritten by every call: each step's are copied into these.
    batch = {
        "observations": np.empty((steps, *obs.shape), np.float16),
        "masks": np.empty((steps, *masks.shape), bool),
        "actions": np.empty((steps, envs), np.int64),
        "to_move": np.empty((steps, envs), np.int32),
        "rewards": np.empty((steps, *rewards.shape), np.float32),
        "dones": np.empty((steps, envs), bool),
    }
    for t in range(steps):
        action = vec.random_actions()
        batch["observations"][t] = obs
        batch["masks"][t] = masks
        batch["actions"][t] = action
        batch["to_move"][t] = to_move
        obs, masks, rewards, dones, to_move = vec.step(action)
        batch["rewards"][t] = rewards
        batch["dones"][t] = dones
    batch["final_observations"] = obs.astype(np.float16)
    batch["final_to_move"] = to_move.copy()
    return batch


def seed_of(text: str) -> int:
    """A 63-bit seed from a seed text, the same in every process (SHA-256: Python's `hash` of a
    string differs from one process to the next)."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def evaluate(variant: str, seed: str, games: int, bot: str, against: str) -> float:
    """`games` games of `bot` against `against` in the PettingZoo environment (seats
    alternating, two-sided variants): `bot`'s points (1 a win, 0.5 a draw). Game `g` is dealt
    from the seed text `"{seed}/{g}"`, and each player's bot is seeded from it and its seat,
    so that a game depends on the seed and its number alone."""
    env = anqi.env.pettingzoo_env(variant)
    points = 0.0
    for g in range(games):
        game_seed = f"{seed}/{g}"
        env.reset(seed=seed_of(game_seed))
        first = 1 + g % 2  # the seat `bot` plays
        # One bot per player: a bot's tie-breaking generator is its own.
        bots = {p: anqi.ReferenceBot(bot if p == first else against,
                                     seed_of(f"{game_seed}/{p}"))
                for p in range(1, env.game.players + 1)}
        for agent in env.agent_iter():
            _, reward, termination, truncation, _ = env.last()
            if termination or truncation:
                if agent == env.agent(first):
                    points += (reward + 1) / 2
                env.step(None)
                continue
            p = env.game.to_move
            env.step(env.game.action_id(bots[p].choose(env.game.observation(p))))
    return points


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        # The summary and the commands; the epilog, where the rest is.
        description="\n\n".join(__doc__.split("\n\n")[:2]),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Task K's data depends on --seed and K alone, whatever the nodes and workers.\n"
               "This file's docstring and clients/python/PACKAGE.md (Past one machine: Ray)\n"
               "give the batches' keys and how the package reaches every node.")
    ap.add_argument("--address", default=None,
                    help="a Ray cluster's address: 'auto' on a node of it, HOST:6379, or "
                         "ray://HOST:10001 (default: start a local Ray of --workers CPUs)")
    ap.add_argument("--wheel", type=Path, default=None, metavar="PATH",
                    help="a wheel of the anqi package that Ray installs on every node "
                         "(runtime_env py_modules), for nodes that lack it")
    ap.add_argument("--workers", type=int, default=2, metavar="N",
                    help="tasks running at once (default 2)")
    ap.add_argument("--tasks", type=int, default=None, metavar="N",
                    help="tasks of each kind (default: --workers)")
    ap.add_argument("--variant", default="traditional-2x4",
                    help="the variant played (default traditional-2x4)")
    ap.add_argument("--envs", type=int, default=64, help="games per self-play task (default 64)")
    ap.add_argument("--steps", type=int, default=200,
                    help="steps per self-play task (default 200)")
    ap.add_argument("--games", type=int, default=20,
                    help="games per evaluation task (default 20)")
    ap.add_argument("--bot", default="greedy", help="the bot evaluated (default greedy)")
    ap.add_argument("--against", default="random", help="its opponent (default random)")
    ap.add_argument("--seed", default="ray",
                    help="the seed text every task's seeds come from (default ray)")
    ap.add_argument("--out", type=Path, default=None, metavar="DIR",
                    help="save the self-play batches and the evaluation's points here")
    args = ap.parse_args(argv)
    if args.workers < 1:
        ap.error("--workers must be at least 1")
    if args.tasks is None:
        args.tasks = args.workers
    if args.tasks < 1:
        ap.error("--tasks must be at least 1")
    if args.wheel is not None:
        # Checked here, where the driver reads it, rather than in a failed upload.
        if args.wheel.suffix != ".whl":
            ap.error(f"--wheel {args.wheel}: a wheel's name ends in .whl")
        if not args.wheel.is_file():
            ap.error(f"--wheel {args.wheel}: no such file")
        args.wheel = args.wheel.resolve()
    return args


def ray_init_options(args: argparse.Namespace) -> dict:
    """What `ray.init` gets: the cluster to join (or a local Ray of `--workers` CPUs), and with
    `--wheel`, the runtime environment that ships the package to every node."""
    # "local" starts a Ray of its own even where one runs already (`ray start`, another
    # program's), which ray.init(address=None) would join instead.
    options = {"address": args.address or "local", "include_dashboard": False,
               "log_to_driver": False}
    if args.address is None:
        options["num_cpus"] = args.workers
    if args.wheel is not None:
        # Ray uploads the wheel with the job and pip-installs it on each node, into a
        # directory its workers for this job import from ahead of site-packages.
        options["runtime_env"] = {"py_modules": [str(args.wheel)]}
    return options


def run_tasks(ray, tasks: list, workers: int):
    """Runs `tasks`, `(key, submit)` pairs where `submit()` starts a Ray task, at most `workers`
    at once, in order; yields `(key, result)` as each ends, so that the driver holds one result
    at a time. The order they end in changes nothing: a result is keyed by its task."""
    waiting = list(reversed(tasks))
    running = {}
    while waiting or running:
        while waiting and len(running) < workers:
            key, submit = waiting.pop()
            running[submit()] = key
        [ready], _ = ray.wait(list(running), num_returns=1)
        yield running.pop(ready), ray.get(ready)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)

    import ray  # noqa: PLC0415 (an optional dependency, imported once the options are read)

    ray.init(**ray_init_options(args))
    try:
        run(ray, args)
    finally:  # the driver leaves the cluster as it found it, even on an error
        ray.shutdown()
    return 0


def run(ray, args: argparse.Namespace) -> None:
    """The tasks, on the Ray `ray.init` joined: prints what they made, saves it with --out."""
    started = time.perf_counter()
    play = ray.remote(selfplay)
    judge = ray.remote(evaluate)
    tasks = [(("selfplay", k), lambda k=k: play.remote(
                 args.variant, f"{args.seed}/{k}", args.envs, args.steps))
             for k in range(args.tasks)]
    tasks += [(("evaluation", k), lambda k=k: judge.remote(
                  args.variant, f"{args.seed}/eval/{k}", args.games, args.bot, args.against))
              for k in range(args.tasks)]
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    steps = episodes = 0
    scores = [0.0] * args.tasks
    for (kind, k), result in run_tasks(ray, tasks, args.workers):
        if kind == "evaluation":
            scores[k] = result
            continue
        steps += result["actions"].size
        episodes += int(result["dones"].sum())
        if args.out:
            np.savez_compressed(args.out / f"selfplay-{k}.npz", **result)
    seconds = time.perf_counter() - started
    games = args.games * args.tasks
    print(f"self-play: {steps} steps, {episodes} episodes in {args.tasks} tasks")
    print(f"evaluation: {args.bot} scored {sum(scores):g}/{games} against {args.against}")
    nodes = sum(node["Alive"] for node in ray.nodes())
    print(f"{seconds:.1f} s on {nodes} node(s)")
    if args.out:
        record = {"variant": args.variant, "seed": args.seed, "games": args.games,
                  "bot": args.bot, "against": args.against, "points": scores}
        (args.out / "evaluation.json").write_text(json.dumps(record, indent=1) + "\n")
        print(f"batches and points saved in {args.out}/")


if __name__ == "__main__":
    sys.exit(main())
