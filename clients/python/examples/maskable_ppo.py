r"""sb3-contrib's MaskablePPO on anqi's Gymnasium environment, against the random bot.

    python clients/python/examples/maskable_ppo.py                      # traditional-2x4
    python clients/python/examples/maskable_ppo.py --total-steps 20000 --eval-games 100

`anqi.env.gymnasium_env(variant, opponent="random")` is one seat of the game for one agent
(drawn at each reset), every other seat played in process by the opponent, a reference bot.
Its observation is a dict of the tensor (`observation`) and the legal actions (`action_mask`),
so the policy is stable-baselines3's `MultiInputPolicy`; its `action_masks()` method is the
protocol MaskablePPO asks for the legal actions by, so the agent never chooses an illegal
one. The reward is +1, -1 or 0 at the end of a game (won, lost, drawn).

Evaluation: `--eval-games` games against `--opponent` in the same environment, the agent's
seat alternating, its most probable legal action (`predict(..., deterministic=True)`); before
and after training. The progress lines (ten) give the results of the training games since
the line before (the policy samples its actions there); the last line gives the result with
a 95% (Wilson) interval for the win rate; with the defaults, on the project's 2-core machine
(PACKAGE.md, "Training examples"):

    result: won 97.5% (195 of 200 games, 95% interval 94.3%-98.9%), drew 3, lost 2 against
    random on traditional-2x4 (before training: won 18.0%) after 100,352 steps in 37 s

Needs the `examples` extra (`pip install './clients/python[examples]'`: sb3-contrib, PyTorch,
Gymnasium).
"""

from __future__ import annotations

import argparse
import sys
import time

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.env_util import make_vec_env

import anqi
import anqi.env


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0].replace("\n", " "),
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--variant", default="traditional-2x4",
                    help="the variant (a shipped name or a description file)")
    ap.add_argument("--opponent", default="random", choices=("random", "greedy", "search"),
                    help="the reference bot the agent trains and is evaluated against")
    ap.add_argument("--total-steps", type=int, default=100_000,
                    help="the training budget: the agent's actions, over all environments")
    ap.add_argument("--seed", type=int, default=1,
                    help="seeds the environments, the network and the evaluation")
    ap.add_argument("--envs", type=int, default=4, help="environments stepped together")
    ap.add_argument("--n-steps", type=int, default=256,
                    help="steps per environment between updates (PPO's n_steps)")
    ap.add_argument("--batch-size", type=int, default=128, help="PPO's minibatch size")
    ap.add_argument("--learning-rate", type=float, default=3e-4)
    ap.add_argument("--ent-coef", type=float, default=0.01)
    ap.add_argument("--eval-games", type=int, default=200,
                    help="evaluation games, before and after training")
    ap.add_argument("--threads", type=int, default=1, help="torch's threads")
    args = ap.parse_args(argv)
    for name in ("total_steps", "envs", "n_steps", "batch_size", "threads"):
        if getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.eval_games < 0:
        ap.error("--eval-games must be 0 or more")
    try:
        anqi.Variant(args.variant)
    except ValueError as e:
        ap.error(f"--variant {args.variant}: {e}")
    return args


def describe(counts: dict[str, int]) -> str:
    n = sum(counts.values())
    low, high = anqi.wilson(counts["wins"], n)
    return (f"won {counts['wins'] / max(n, 1):.1%} ({counts['wins']} of {n} games, 95% interval "
            f"{low:.1%}-{high:.1%}), drew {counts['draws']}, lost {counts['losses']}")


def evaluate(model: MaskablePPO, args: argparse.Namespace) -> dict[str, int]:
    """`--eval-games` games against the opponent, the agent in seat 1 in even games and seat 2
    in odd ones (one environment per seat): its wins, draws and losses."""
    players = anqi.Variant(args.variant).players
    envs = [anqi.env.gymnasium_env(args.variant, opponent=args.opponent, seat=seat)
            for seat in range(1, players + 1)]
    counts = {"wins": 0, "draws": 0, "losses": 0}
    for g in range(args.eval_games):
        env = envs[g % players]
        obs, _ = env.reset(seed=args.seed * 1_000_003 + g)
        done, reward = False, 0.0
        while not done:
            action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
            obs, reward, terminated, truncated, _ = env.step(int(action))
            done = terminated or truncated
        counts["wins" if reward > 0 else "losses" if reward < 0 else "draws"] += 1
    return counts


class Progress(BaseCallback):
    """A line after every tenth of the rollouts: the steps so far, and the results of the
    training games that ended since the line before (from the Monitor each environment is
    wrapped in)."""

    def __init__(self, rollouts: int) -> None:
        super().__init__()
        self.rollouts, self.done = rollouts, 0
        self.every = max(1, rollouts // 10)
        self.started = time.perf_counter()
        self.results = {"wins": 0, "draws": 0, "losses": 0}

    def _on_step(self) -> bool:
        for info in self.locals["infos"]:
            episode = info.get("episode")  # the Monitor's, at the end of an episode
            if episode is not None:
                r = episode["r"]
                self.results["wins" if r > 0 else "losses" if r < 0 else "draws"] += 1
        return True

    def _on_rollout_end(self) -> None:
        self.done += 1
        if self.done % self.every and self.done != self.rollouts:
            return
        games = sum(self.results.values())
        seconds = time.perf_counter() - self.started
        rate = f"{self.results['wins'] / games:.1%}" if games else "-"
        print(f"steps {self.num_timesteps:,}: {games:,} training games since the last line, "
              f"won {rate} (drew {self.results['draws']}, lost {self.results['losses']}), "
              f"{self.num_timesteps / seconds:,.0f} steps/s", flush=True)
        self.results = dict.fromkeys(self.results, 0)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    torch.set_num_threads(args.threads)

    # make_vec_env wraps each environment in a Monitor (the episodes' rewards, for Progress)
    # and seeds environment i with seed + i.
    env = make_vec_env(lambda: anqi.env.gymnasium_env(args.variant, opponent=args.opponent),
                       n_envs=args.envs, seed=args.seed)
    model = MaskablePPO("MultiInputPolicy", env, n_steps=args.n_steps,
                        batch_size=args.batch_size, learning_rate=args.learning_rate,
                        ent_coef=args.ent_coef, seed=args.seed, device="cpu", verbose=0)

    before = evaluate(model, args)
    print(f"before training: {describe(before)}", flush=True)
    started = time.perf_counter()
    # MaskablePPO collects whole rollouts: the budget rounded up to one.
    rollout = args.envs * args.n_steps
    rollouts = -(-args.total_steps // rollout)
    model.learn(total_timesteps=args.total_steps, callback=Progress(rollouts))
    seconds = time.perf_counter() - started
    after = evaluate(model, args)
    print(f"result: {describe(after)} against {args.opponent} on {args.variant} (before "
          f"training: won {before['wins'] / max(args.eval_games, 1):.1%}) after "
          f"{model.num_timesteps:,} steps in {seconds:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
