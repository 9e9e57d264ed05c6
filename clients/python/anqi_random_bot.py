#!/usr/bin/env python3
"""A random player for the anqi (Chinese Dark Chess) server, standard library only.

It exists to show that the protocol can be implemented from its description alone. It
reads every message, works out which actions the rules allow, and plays one of them at
random. It plays every shipped variant: other boards, team games, the strategic (bag) game,
single-player and cooperative games, chain captures and house capture rules.

This file is the command line; the client itself is the ``stdlib_client`` package beside
it (small modules, read its docstring for the protocol in brief and the layout). Run
``anqi_random_bot.py --help`` for the options.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from typing import Optional

try:
    from stdlib_client.client import Bot, Logger, play_game
    from stdlib_client.sexp import ProtocolError
    from stdlib_client.variant import Variant, VariantError, load_variant
except ModuleNotFoundError as exc:  # pragma: no cover - a copy of this file without the package
    if exc.name != "stdlib_client" and not (exc.name or "").startswith("stdlib_client."):
        raise
    # Python puts this script's directory first on sys.path, so the package is found when it
    # sits beside the script; a lone copy of the script cannot work, and should say why.
    sys.exit(f"{sys.argv[0]}: the stdlib_client package must be in the same directory as this script ({exc})")


def parse_address(text: str) -> tuple[str, int]:
    """Split ``HOST:PORT`` (or ``[v6addr]:PORT``) for argparse."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {text!r}")
    return host.strip("[]"), int(port)


def main(argv: Optional[list[str]] = None) -> int:
    """Run the command line. Return the process exit code: 0 if all games finished, else 1."""
    parser = argparse.ArgumentParser(description="A random player for the anqi (Chinese Dark Chess) server.")
    parser.add_argument("--connect", required=True, type=parse_address, metavar="HOST:PORT", help="server address")
    parser.add_argument("--name", default="py_random", help="player name sent in (init ...) (default: py_random)")
    parser.add_argument("--seed", type=int, default=None,
                        help="seeds this bot's choices and is sent as its seed contribution (default: random)")
    # The environment, unlike the command line, is private to the process's owner: anqi
    # tournament hands engines their (secret) token there.
    parser.add_argument("--token", default=os.environ.get("ANQI_TOKEN") or None,
                        help="token given by a tournament: sent as the SEED of (init NAME SEED) in place of the seed, "
                             "which then only drives the bot's own choices (default: $ANQI_TOKEN, which anqi "
                             "tournament sets; prefer it, since other local users can read a command line)")
    parser.add_argument("--games", type=int, default=1, metavar="N", help="games to play one after another (default: 1)")
    parser.add_argument("--quiet", action="store_true", help="log only warnings and errors to stderr")
    parser.add_argument("--variant", metavar="NAME|FILE",
                        help="the rules to play by: a shipped variant name (protocol/variants/NAME.sexp) or a "
                             "description file; use the server's --variant (default: standard rules for the "
                             "setup's game type)")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    variant: Optional[Variant] = None
    if args.variant is not None:
        try:
            variant = load_variant(args.variant)
        except VariantError as exc:
            parser.error(f"--variant: {exc}")

    seed: int = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 2**31)
    rng = random.Random(seed)  # One generator for the whole run, so N games replay exactly from one seed.
    log = Logger(args.quiet)
    host, port = args.connect
    log.info(f"seed {seed}")

    for number in range(1, args.games + 1):
        # Game k sends seed + k - 1, so a run of games with one --seed still gets different deals.
        contribution: int | str = args.token if args.token is not None else seed + number - 1
        bot = Bot(name=args.name, seed=contribution, rng=rng, log=log, variant=variant)
        try:
            player, team = play_game(host, port, bot)
        except OSError as exc:
            log.error(f"game {number}: cannot talk to {host}:{port}: {exc}")
            return 1
        except ProtocolError as exc:
            log.error(f"game {number}: protocol error: {exc}")
            return 1
        print(f"game over: (win {player} {team}), I was player {bot.my_id}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
