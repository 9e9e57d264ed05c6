r"""PPO by self-play over `anqi.VecGame`, in one file (CleanRL's style), evaluated against
random play in anqi's PettingZoo environment.

    python clients/python/examples/ppo_vecgame.py                       # traditional-2x4
    python clients/python/examples/ppo_vecgame.py --total-steps 200000 --eval-games 100

One network plays every seat: a `VecGame` of `--envs` games is stepped with the network's
choices for whoever is to move (each game's observation is already from its mover's seat), and
every step is one transition of that mover. Rewards come at an episode's end (+1 the winning
side, -1 the other, 0 a draw). The game is zero-sum between two sides, so a state's value for
the mover is minus its value for the other side: the advantages (GAE) and the bootstrapped
values change sign wherever the next step is the other side's ("negamax" GAE). Illegal actions
are masked out of the policy (their logits set to a large negative number).

Evaluation: `--eval-games` games in `anqi.env.pettingzoo_env`, the network (its most probable
legal action) on one side, uniformly random legal actions on the other, sides alternating from
game to game; before and after training. The last line gives the result with a 95% (Wilson)
interval for the win rate; with the defaults, on the project's 2-core machine (PACKAGE.md,
"Training examples"):

    result: won 97.5% (195 of 200 games, 95% interval 94.3%-98.9%), drew 4, lost 1 against
    random on traditional-2x4 (before training: won 35.0%) after 999,424 steps in 144 s

(The budget is spent in whole rollouts of `--envs` x `--rollout` steps.) Needs the
`examples` extra (`pip install './clients/python[examples]'`: PyTorch, numpy, PettingZoo).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

import anqi
import anqi.env


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0].replace("\n", " "),
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--variant", default="traditional-2x4",
                    help="a two-sided variant (a shipped name or a description file)")
    ap.add_argument("--total-steps", type=int, default=1_000_000,
                    help="the training budget: VecGame steps (one per game per step)")
    ap.add_argument("--seed", type=int, default=1,
                    help="seeds the games, the network and the evaluation")
    ap.add_argument("--envs", type=int, default=128, help="games stepped together")
    ap.add_argument("--rollout", type=int, default=64, help="steps per game between updates")
    ap.add_argument("--learning-rate", type=float, default=2.5e-4)
    ap.add_argument("--gamma", type=float, default=0.99)
    ap.add_argument("--gae-lambda", type=float, default=0.95)
    ap.add_argument("--minibatches", type=int, default=4)
    ap.add_argument("--epochs", type=int, default=4, help="passes over each rollout")
    ap.add_argument("--clip", type=float, default=0.2, help="PPO's clipping coefficient")
    ap.add_argument("--ent-coef", type=float, default=0.01)
    ap.add_argument("--vf-coef", type=float, default=0.5)
    ap.add_argument("--max-grad-norm", type=float, default=0.5)
    ap.add_argument("--hidden", type=int, default=256, help="units in each hidden layer")
    ap.add_argument("--eval-games", type=int, default=200,
                    help="evaluation games against random, before and after training")
    ap.add_argument("--threads", type=int, default=1, help="torch's threads")
    ap.add_argument("--export", metavar="FILE.npz",
                    help="write the trained policy as a network file that anqi.network reads "
                         "with numpy alone (PACKAGE.md, A trained network)")
    args = ap.parse_args(argv)
    for name in ("total_steps", "envs", "rollout", "minibatches", "epochs", "threads"):
        if getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.eval_games < 0:
        ap.error("--eval-games must be 0 or more")
    if (args.envs * args.rollout) % args.minibatches:
        ap.error(f"--minibatches {args.minibatches} must divide --envs x --rollout "
                 f"({args.envs * args.rollout})")
    sides = anqi.Variant(args.variant).sides
    if len(sides) != 2:
        ap.error(f"--variant {args.variant}: self-play here needs two sides (it has "
                 f"{len(sides)}); the values change sign between them")
    return args


def layer(linear: nn.Linear, std: float = math.sqrt(2)) -> nn.Linear:
    """CleanRL's initialisation: orthogonal weights, zero biases."""
    nn.init.orthogonal_(linear.weight, std)
    nn.init.zeros_(linear.bias)
    return linear


class Agent(nn.Module):
    """A policy over the action ids and a value, for the player whose observation it is."""

    def __init__(self, observation_size: int, actions: int, hidden: int) -> None:
        super().__init__()
        self.critic = nn.Sequential(
            layer(nn.Linear(observation_size, hidden)), nn.Tanh(),
            layer(nn.Linear(hidden, hidden)), nn.Tanh(),
            layer(nn.Linear(hidden, 1), std=1.0))
        self.actor = nn.Sequential(
            layer(nn.Linear(observation_size, hidden)), nn.Tanh(),
            layer(nn.Linear(hidden, hidden)), nn.Tanh(),
            layer(nn.Linear(hidden, actions), std=0.01))

    def value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x).squeeze(-1)

    def policy(self, x: torch.Tensor, mask: torch.Tensor) -> Categorical:
        # Illegal actions get a logit no legal one comes near: probability 0.
        return Categorical(logits=self.actor(x).masked_fill(~mask, -1e9))


def evaluate(agent: Agent, variant: str, games: int, seed: int) -> dict[str, int]:
    """`games` games in the PettingZoo environment: the agent (its most probable legal action)
    on one side, uniformly random legal actions on the other, the sides alternating. Returns
    the agent's wins, draws and losses."""
    env = anqi.env.pettingzoo_env(variant)
    sides = anqi.Variant(variant).sides
    rng = np.random.default_rng(seed)
    counts = {"wins": 0, "draws": 0, "losses": 0}
    for g in range(games):
        env.reset(seed=seed + g)
        # Agent possible_agents[k] is player k + 1 (PACKAGE.md, Environments: Players).
        ours = {env.possible_agents[p - 1] for p in sides[g % 2]}
        result = None
        for agent_name in env.agent_iter():
            obs, reward, termination, truncation, _ = env.last()
            if termination or truncation:
                if agent_name in ours and result is None:
                    result = reward
                env.step(None)
                continue
            mask = obs["action_mask"].astype(bool)
            if agent_name in ours:
                with torch.no_grad():
                    x = torch.as_tensor(obs["observation"]).reshape(1, -1)
                    dist = agent.policy(x, torch.as_tensor(mask).unsqueeze(0))
                    action = int(dist.probs.argmax())
            else:
                action = int(rng.choice(np.flatnonzero(mask)))
            env.step(action)
        counts["wins" if result > 0 else "losses" if result < 0 else "draws"] += 1
    return counts


def describe(counts: dict[str, int]) -> str:
    n = sum(counts.values())
    low, high = anqi.wilson(counts["wins"], n)
    return (f"won {counts['wins'] / max(n, 1):.1%} ({counts['wins']} of {n} games, 95% interval "
            f"{low:.1%}-{high:.1%}), drew {counts['draws']}, lost {counts['losses']}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)

    vec = anqi.VecGame(args.variant, n=args.envs)
    variant = anqi.Variant(args.variant)
    # side_of[p]: player p's side (index 0 unused: players count from 1).
    side_of = torch.zeros(variant.players + 1, dtype=torch.long)
    for s, players in enumerate(variant.sides):
        side_of[players] = s
    obs_size = anqi.env.PLANES * variant.size
    agent = Agent(obs_size, variant.num_distinct_actions, args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    before = evaluate(agent, args.variant, args.eval_games, args.seed)
    print(f"before training: {describe(before)}", flush=True)
    started = time.perf_counter()

    E, T = args.envs, args.rollout
    # One rollout: T steps of E games, a transition of each game's mover per step.
    observations = torch.zeros((T, E, obs_size))
    masks = torch.zeros((T, E, variant.num_distinct_actions), dtype=torch.bool)
    actions = torch.zeros((T, E), dtype=torch.long)
    logprobs = torch.zeros((T, E))
    values = torch.zeros((T, E))
    rewards = torch.zeros((T, E))
    dones = torch.zeros((T, E))
    movers = torch.zeros((T, E), dtype=torch.long)  # the side that moved

    obs, mask, reward, done, to_move = vec.reset(seed=str(args.seed))
    updates = max(1, args.total_steps // (E * T))
    steps = episodes = 0
    lengths: list[int] = []  # the plies of the episodes finished since the last report
    plies = np.zeros(E, dtype=np.int64)
    for update in range(1, updates + 1):
        # Annealed learning rate, as CleanRL does by default.
        optimizer.param_groups[0]["lr"] = args.learning_rate * (1 - (update - 1) / updates)
        for t in range(T):
            # The VecGame's arrays are overwritten by the next step: copied here.
            x = torch.tensor(obs.reshape(E, -1))
            m = torch.tensor(mask)
            side = side_of[torch.tensor(to_move, dtype=torch.long)]
            with torch.no_grad():
                dist = agent.policy(x, m)
                action = dist.sample()
                values[t] = agent.value(x)
            observations[t], masks[t], movers[t] = x, m, side
            actions[t], logprobs[t] = action, dist.log_prob(action)
            mover = to_move.astype(np.int64) - 1
            obs, mask, reward, done, to_move = vec.step(action.numpy())
            # The mover's reward: nonzero only on the step that ended the episode.
            rewards[t] = torch.as_tensor(reward[np.arange(E), mover])
            dones[t] = torch.tensor(done, dtype=torch.float32)
            plies += 1
            lengths.extend(plies[done].tolist())
            plies[done] = 0
            episodes += int(done.sum())
        steps += E * T

        # Negamax GAE: a value is the mover's, so it changes sign where the side to move does.
        with torch.no_grad():
            x = torch.tensor(obs.reshape(E, -1))
            next_value = agent.value(x)
            next_side = side_of[torch.tensor(to_move, dtype=torch.long)]
            advantages = torch.zeros((T, E))
            next_advantage = torch.zeros(E)
            for t in reversed(range(T)):
                if t < T - 1:
                    next_value, next_side = values[t + 1], movers[t + 1]
                sign = torch.where(next_side == movers[t], 1.0, -1.0)
                going_on = 1.0 - dones[t]
                delta = rewards[t] + args.gamma * sign * next_value * going_on - values[t]
                next_advantage = (delta + args.gamma * args.gae_lambda * sign * going_on
                                  * next_advantage)
                advantages[t] = next_advantage
            returns = advantages + values

        # PPO's clipped objective over minibatches of the flattened rollout.
        b_obs, b_masks = observations.reshape(E * T, -1), masks.reshape(E * T, -1)
        b_actions, b_logprobs = actions.reshape(-1), logprobs.reshape(-1)
        b_advantages, b_returns = advantages.reshape(-1), returns.reshape(-1)
        size = E * T // args.minibatches
        for _ in range(args.epochs):
            for batch in torch.randperm(E * T).split(size):
                dist = agent.policy(b_obs[batch], b_masks[batch])
                ratio = (dist.log_prob(b_actions[batch]) - b_logprobs[batch]).exp()
                adv = b_advantages[batch]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                policy_loss = torch.max(-adv * ratio,
                                        -adv * ratio.clamp(1 - args.clip, 1 + args.clip)).mean()
                value_loss = 0.5 * ((agent.value(b_obs[batch]) - b_returns[batch]) ** 2).mean()
                entropy = dist.entropy().mean()
                loss = policy_loss - args.ent_coef * entropy + args.vf_coef * value_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        if update % max(1, updates // 10) == 0 or update == updates:
            seconds = time.perf_counter() - started
            mean_length = sum(lengths) / len(lengths) if lengths else float("nan")
            print(f"update {update}/{updates}: {steps:,} steps, {episodes:,} episodes "
                  f"(mean length {mean_length:.1f} plies), {steps / seconds:,.0f} steps/s; "
                  f"policy loss {policy_loss.item():.3f}, value loss {value_loss.item():.3f}, "
                  f"entropy {entropy.item():.3f}", flush=True)
            lengths.clear()

    train_seconds = time.perf_counter() - started
    after = evaluate(agent, args.variant, args.eval_games, args.seed)
    result = (f"result: {describe(after)} against random on {args.variant} (before training: "
              f"won {before['wins'] / max(args.eval_games, 1):.1%}) after {steps:,} steps in "
              f"{train_seconds:.0f} s")
    print(result, flush=True)
    if args.export:
        # The command as it was given, the file by its name alone (no folder of this machine).
        words = [os.path.basename(w) if w == args.export else w
                 for w in (argv if argv is not None else sys.argv[1:])]
        export(agent, variant, args.export,
               about=f"examples/ppo_vecgame.py {' '.join(words)}: {result}")
        print(f"wrote {args.export}", flush=True)
    return 0


def export(agent: Agent, variant: anqi.Variant, path: str, about: str) -> None:
    """The actor as anqi.network's file: its linear layers in order (`W` in x out), tanh between
    them, with the variant and the observations' layout it reads."""
    linear = [m for m in agent.actor if isinstance(m, nn.Linear)]
    arrays = {}
    for i, m in enumerate(linear):
        arrays[f"W{i}"] = m.weight.detach().numpy().T.astype(np.float32)
        arrays[f"b{i}"] = m.bias.detach().numpy().astype(np.float32)
    np.savez_compressed(path, **arrays, activation=np.array("tanh"),
                        variant=np.array(variant.name),
                        tensor_version=np.array(anqi.env.TENSOR_VERSION),
                        planes=np.array(anqi.env.TENSOR_PLANES), about=np.array(about))


if __name__ == "__main__":
    sys.exit(main())
