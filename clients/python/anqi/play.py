"""`anqi.play`: many games between Python bots and engine programs, with fair seating.

    records = anqi.play([anqi.RandomBot(1), anqi.GreedyBot(), anqi.RandomBot(2), anqi.GreedyBot()],
                        games=100, variant="2v2", concurrency=2)

It runs an `anqi tournament` (TOURNAMENTS.md): every group of as many players as the variant has
seats (all of them when there are exactly that many), each deal played once per rotation of the
seats, games at once up to `concurrency`, every game recorded and every player's counts kept at
every ply (`legal_counts = "all"`). Python bots take their seats as the tournament's external
engines (a fresh standing token each), from threads of this process; engine programs are
started by the tournament for each game.
"""

from __future__ import annotations

import copy
import math
import os
import secrets
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from ._anqi import tournament_config_toml
from ._binary import find_anqi
from .records import Records, load
from .server import ServerError, _drain, read_address


class PlayError(RuntimeError):
    """The tournament behind `play` failed: the message ends with what it printed."""


def _is_bot(p: Any) -> bool:
    return callable(getattr(p, "choose", None))


def _base_name(p: Any) -> str:
    if _is_bot(p):
        name = getattr(p, "display_name", None)
        if callable(name):
            return name()
        return getattr(p, "name", None) or type(p).__name__.lower()
    if isinstance(p, Mapping):
        if "name" in p:
            return str(p["name"])
        p = p.get("command", "engine")
    words = shlex.split(str(p))
    if not words:
        raise ValueError("an empty engine command")
    # `anqi-bot --strategy greedy` reads better as "anqi-bot-greedy" than as "anqi-bot".
    base = Path(words[0]).name
    if "--strategy" in words[:-1]:
        base += "-" + words[words.index("--strategy") + 1]
    return base


def _engine_entry(p: Any, name: str) -> dict[str, Any]:
    """The [[tournament.engine]] table of an engine program: a command line (a string, split
    like a shell does; placeholders as in tournament.toml) or a dict of engine keys."""
    if isinstance(p, Mapping):
        entry = {k: v for k, v in p.items() if k != "name"}
        if "command" not in entry:
            raise ValueError(f"engine {name!r}: a dict needs a `command` (tournament.toml)")
    else:
        text = str(p)
        protocol = None
        head, sep, rest = text.partition(":")
        if sep and head in ("tcg", "uci-banqi", "cdc-platform", "anqi") and " " not in head:
            protocol, text = head, rest
        words = shlex.split(text)
        entry = {"command": words[0], "args": words[1:]}
        if protocol:
            entry["protocol"] = protocol
    return {"name": name, **entry}


def _seats(variant: str) -> int:
    from ._anqi import Game

    return Game(variant, seed="seats").players


class _Seat(threading.Thread):
    """One game slot of a Python bot: connects with the bot's standing token, plays the game
    it is seated in, and connects again, until the tournament ends.

    A failure of the connection while the event runs is noted (`errors`) and the slot connects
    again: the tournament has ruled on that game. Anything else (the bot raised, or answered
    something that is not an action) is the experiment's bug: it is kept in `failure`, and
    `play` stops the event and raises it."""

    def __init__(self, addr: str, bot: Any, name: str, token: str, finished,
                 errors: list[str], lock: threading.Lock | None) -> None:
        super().__init__(daemon=True, name=f"anqi.play {name}")
        self.addr, self.bot, self.bot_name, self.token = addr, bot, name, token
        self.finished, self.errors, self.lock = finished, errors, lock
        self.failure: BaseException | None = None
        self.games = 0

    def run(self) -> None:
        from .client import play_one

        failures = 0
        while not self.finished():
            try:
                bot = _Locked(self.bot, self.lock) if self.lock else self.bot
                result = play_one(self.addr, bot, name=self.bot_name, token=self.token)
                self.games += 1
                failures = 0
                hook = getattr(self.bot, "game_over", None)
                if callable(hook):
                    hook(result)
            except (ConnectionError, TimeoutError, OSError) as e:
                # The event closes its connections as it ends: give it a moment to exit.
                for _ in range(40):
                    if self.finished():
                        return
                    time.sleep(0.05)
                failures += 1
                self.errors.append(f"{self.bot_name}: {type(e).__name__}: {e}")
                time.sleep(min(0.05 * failures, 1.0))
            except BaseException as e:  # the bot's own error: stop the experiment
                self.failure = e
                return


class _Locked:
    """A bot shared by several game slots (one that cannot be copied): one call at a time."""

    def __init__(self, bot: Any, lock: threading.Lock) -> None:
        self._bot, self._lock = bot, lock

    def choose(self, view: Any) -> str:
        with self._lock:
            return self._bot.choose(view)


def play(
    players: Sequence[Any],
    games: int = 100,
    variant: str = "traditional",
    concurrency: int = 2,
    seed: str | int = "anqi",
    tc: str | None = None,
    max_plies: int = 0,
    legal_counts: str = "all",
    output: str | os.PathLike[str] | None = None,
    binary: str | os.PathLike[str] | None = None,
    progress: bool | None = None,
    tournament: Mapping[str, Any] | None = None,
    book: str | os.PathLike[str] | None = None,
) -> Records:
    """Plays at least `games` games of `variant` and returns their records.

    `players`: Python bots (objects with `choose(view)`, see `anqi.Bot`) and engine programs (a
    command line such as `"target/release/anqi-bot --connect {addr} --strategy greedy --name
    {name}"`, `"uci-banqi:/path/engine"` for a bridged engine, or a dict of tournament.toml
    engine keys), at least as many as the variant has seats; list a bot twice to fill two
    seats (each listing is its own player). Every group of seats plays every deal once per
    rotation of its seats, so the number of games is rounded up to whole deals.

    `concurrency`: games at once. `seed`: the master seed (the same seed plays the same
    deals). `tc`: a time control ("10+0.1", "st=2", "inf"; default: the variant's clock, or 60 s
    per move when it has none). `max_plies`: adjudicate a draw after this many plies (0: the
    variant's rules). `legal_counts`: "all" keeps every player's counts at every ply (what
    `anqi.analysis.mobility` plots), "mover" only the mover's. `output`: keep the records in
    this file (a run with the same arguments and file resumes it); by default they are read
    back and the temporary files deleted. `progress`: print "N/M games" on stderr (default:
    when stderr is a terminal). `tournament`: more [tournament] keys (TOURNAMENTS.md).
    `book`: a deal book (`anqi book new --deals N --output FILE`) to take the deals from, in
    order, instead of the seed: two `play` calls with one book play the same deals, whatever
    their players (TOURNAMENTS.md, Deal books; `tournament={"book": {...}}` sets its order).
    """
    if not players:
        raise ValueError("play needs players")
    if games < 1:
        raise ValueError("games must be at least 1")
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    if legal_counts not in ("all", "mover"):
        raise ValueError('legal_counts must be "all" or "mover"')
    binary = find_anqi(binary)
    seats = _seats(variant)
    if len(players) < seats:
        raise ValueError(
            f"{variant} has {seats} seats but {len(players)} player(s) were given: "
            "list a bot several times to fill seats"
        )
    per_deal = math.comb(len(players), seats) * seats
    deals = max(1, math.ceil(games / per_deal))
    total = deals * per_deal
    if progress is None:
        progress = sys.stderr.isatty()

    names: list[str] = []
    for p in players:
        base, n = _base_name(p), 1
        name = base
        while name in names:
            n += 1
            name = f"{base}-{n}"
        names.append(name)

    tmp = Path(tempfile.mkdtemp(prefix="anqi-play-"))
    out_path = Path(output) if output is not None else tmp / "games.jsonl"
    engines, python_seats = [], []
    for p, name in zip(players, names):
        if _is_bot(p):
            token = secrets.token_hex(16)
            engines.append({"name": name, "token": token})
            python_seats.append((p, name, token))
        else:
            engines.append(_engine_entry(p, name))
    section: dict[str, Any] = {
        "variant": variant,
        "format": "round-robin",
        "deals": deals,
        "seed": str(seed),
        "listen": "127.0.0.1:0",
        "concurrency": concurrency,
        "output": str(out_path),
        "logs": str(tmp / "logs"),
        "max_plies": max_plies,
        "legal_counts": legal_counts,
    }
    if tc is not None:
        section["tc"] = tc
    if book is not None:
        section["book"] = {"file": str(book)}
    section.update(tournament or {})
    section["engine"] = engines
    # Read, checked and written by the Rust types `anqi tournament` reads the file with: a
    # key it does not take raises ValueError here, with its own words.
    try:
        text = tournament_config_toml(section)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    config = tmp / "play.toml"
    config.write_text(text)

    stderr_log = tmp / "tournament.err"
    proc = subprocess.Popen(
        [binary, "tournament", str(config), "--quiet"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    done = threading.Event()

    def finished() -> bool:
        return done.is_set() or proc.poll() is not None

    errors: list[str] = []
    threads: list[_Seat] = []
    locks: dict[int, threading.Lock] = {}
    try:
        # Python bots connect to the event's server; with engine programs alone nobody does,
        # and a quiet tournament prints no address.
        addr = None
        if python_seats:
            try:
                addr = read_address(proc, proc.stderr, 60.0, "anqi tournament")
            except ServerError as e:
                raise PlayError(str(e)) from None
        with open(stderr_log, "wb") as sink:
            drain = threading.Thread(target=_drain, args=(proc.stderr, sink), daemon=True)
            drain.start()
            for bot, name, token in python_seats:
                for _ in range(min(concurrency, total)):
                    lock = None
                    try:
                        own = bot.spawn() if hasattr(bot, "spawn") else copy.deepcopy(bot)
                    except Exception:  # cannot be copied: one bot, one call at a time
                        own, lock = bot, locks.setdefault(id(bot), threading.Lock())
                    t = _Seat(addr, own, name, token, finished, errors, lock)
                    t.start()
                    threads.append(t)
            last, shown = 0.0, -1
            while proc.poll() is None:
                time.sleep(0.1)
                failed = next((t for t in threads if t.failure is not None), None)
                if failed is not None:
                    raise PlayError(
                        f"bot {failed.bot_name!r} failed: {type(failed.failure).__name__}: "
                        f"{failed.failure} (the event is stopped)"
                    ) from failed.failure
                if progress and time.monotonic() - last >= 2.0:
                    last, shown = time.monotonic(), _count_lines(out_path)
                    print(f"anqi.play: {shown}/{total} games", file=sys.stderr, flush=True)
            done.set()
            drain.join(timeout=5)
        if proc.returncode != 0:
            text = stderr_log.read_text(errors="replace").strip().splitlines()
            raise PlayError(
                f"anqi tournament exited with status {proc.returncode}:\n"
                + "\n".join(text[-30:] + errors[-5:])
            )
        if progress and shown != total:
            print(f"anqi.play: {total}/{total} games", file=sys.stderr, flush=True)
        if errors:
            warnings.warn(
                f"anqi.play: {len(errors)} connection failure(s) of Python bots during the "
                f"event (those games were ruled by the referee); the first: {errors[0]}",
                RuntimeWarning,
                stacklevel=2,
            )
        return load(out_path)
    finally:
        done.set()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()
        for t in threads:
            t.join(timeout=5)
        shutil.rmtree(tmp, ignore_errors=True)


def _count_lines(path: Path) -> int:
    try:
        with open(path, "rb") as f:
            return sum(1 for _ in f)
    except OSError:
        return 0


def players_from(specs: Iterable[str]) -> list[Any]:
    """Players from command-line words: `random[:SEED]`, `greedy[:SEED]`, `search[:SEED]` (the
    reference bots in process) or an engine command line."""
    from .bots import GreedyBot, RandomBot, SearchBot

    kinds = {"random": RandomBot, "greedy": GreedyBot, "search": SearchBot}
    out = []
    for spec in specs:
        head, _, arg = spec.partition(":")
        if head in kinds:
            out.append(kinds[head](int(arg) if arg else 0))
        else:
            out.append(spec)
    return out
