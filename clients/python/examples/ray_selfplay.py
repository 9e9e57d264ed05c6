"""Self-play data and bot evaluation across a Ray cluster, with anqi in every worker.

    python clients/python/examples/ray_selfplay.py                    # a local Ray, 2 workers
    python clients/python/examples/ray_selfplay.py --address auto --workers 16 \
        --variant traditional --steps 20000 --games 200 --out selfplay/

Two kinds of task, shared out over `--workers` Ray tasks at once:
- **self-play**: each task steps an `anqi.VecGame` of `--envs` games with random legal actions
  (drawn in Rust) for `--steps` steps, and returns what a learner stores: observations (float16,
  to halve the transfer), actions, the players to move, and each finished episode's rewards;
  `--out DIR` saves each task's batch as `DIR/selfplay-K.npz`;
- **evaluation**: each task plays `--games` games of `--bot` against `--against` (reference
  bots, in process) in the PettingZoo environment, seats alternating, and returns the first
  bot's points.

Every task is seeded from `--seed` and its number, so the same command gives the same data on
any cluster. Needs `pip install './clients/python[rl]' ray`.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

import anqi
import anqi.env


def selfplay(variant: str, seed: str, envs: int, steps: int) -> dict:
    """`steps` steps of a VecGame of `envs` games with random legal actions: the batch."""
    vec = anqi.VecGame(variant, n=envs)
    obs, masks, rewards, dones, to_move = vec.reset(seed=seed)
    observations, actions, movers, finished = [], [], [], []
    for _ in range(steps):
        action = vec.random_actions()
        observations.append(obs.astype(np.float16))
        actions.append(action)
        movers.append(to_move.copy())
        obs, masks, rewards, dones, to_move = vec.step(action)
        finished.extend(rewards[dones].tolist())
    return {
        "observations": np.stack(observations),
        "actions": np.stack(actions),
        "to_move": np.stack(movers),
        "episode_rewards": np.array(finished, dtype=np.float32).reshape(-1, rewards.shape[1]),
    }


def evaluate(variant: str, seed: int, games: int, bot: str, against: str) -> float:
    """`games` games of `bot` against `against` in the PettingZoo environment (seats
    alternating, two-sided variants): `bot`'s points (1 a win, 0.5 a draw)."""
    env = anqi.env.pettingzoo_env(variant)
    points = 0.0
    for g in range(games):
        env.reset(seed=seed * 100_003 + g)
        first = 1 + g % 2  # the seat `bot` plays
        bots = {p: anqi.ReferenceBot(bot if p == first else against, seed + g)
                for p in range(1, env.game.players + 1)}
        for agent in env.agent_iter():
            _, reward, termination, truncation, _ = env.last()
            if termination or truncation:
                if agent == f"player_{first}":
                    points += (reward + 1) / 2
                env.step(None)
                continue
            p = env.game.to_move
            env.step(env.game.action_id(bots[p].choose(env.game.observation(p))))
    return points


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--address", default=None, help="a Ray cluster's address (default: a local Ray)")
    ap.add_argument("--workers", type=int, default=2, help="tasks of each kind (default 2)")
    ap.add_argument("--variant", default="traditional-2x4")
    ap.add_argument("--envs", type=int, default=64, help="games per self-play task")
    ap.add_argument("--steps", type=int, default=200, help="steps per self-play task")
    ap.add_argument("--games", type=int, default=20, help="games per evaluation task")
    ap.add_argument("--bot", default="greedy")
    ap.add_argument("--against", default="random")
    ap.add_argument("--seed", default="ray")
    ap.add_argument("--out", type=Path, default=None, help="save the self-play batches here")
    args = ap.parse_args(argv)

    import ray  # noqa: PLC0415 (an optional dependency, imported once the options are read)

    ray.init(address=args.address, num_cpus=None if args.address else args.workers,
             include_dashboard=False, log_to_driver=False)
    started = time.perf_counter()
    play = ray.remote(selfplay)
    judge = ray.remote(evaluate)
    batches = [play.remote(args.variant, f"{args.seed}/{k}", args.envs, args.steps)
               for k in range(args.workers)]
    scores = [judge.remote(args.variant, k + 1, args.games, args.bot, args.against)
              for k in range(args.workers)]
    batches, scores = ray.get(batches), ray.get(scores)
    seconds = time.perf_counter() - started
    steps = sum(b["actions"].size for b in batches)
    episodes = sum(len(b["episode_rewards"]) for b in batches)
    games = args.games * args.workers
    print(f"self-play: {steps} steps, {episodes} episodes in {len(batches)} tasks")
    print(f"evaluation: {args.bot} scored {sum(scores):g}/{games} against {args.against}")
    print(f"{seconds:.1f} s on {len(ray.nodes())} node(s)")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        for k, b in enumerate(batches):
            np.savez_compressed(args.out / f"selfplay-{k}.npz", **b)
        print(f"batches saved in {args.out}/")
    ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
