#!/usr/bin/env python3
"""A crowd of idle seated players against a release `anqi serve`, and how long a fresh address
waits for a game (issue 32, section 6). Run by hand, not in CI:

    cargo build --release --bin anqi
    python3 benches/crowd.py                 # the built-in configuration
    python3 benches/crowd.py --no-seat-cap   # max_seats_per_address = 0: only making room

The crowd is 10,000 connections from 157 loopback addresses (127.1.0.1 ...), about 64 each,
opened 256 at a time; each sends `(init NAME SEED)` at once and then never moves (it reads
what it is sent, and answers nothing). Once every crowd connection has had its answer, two
fresh clients from other addresses (127.2.0.1, 127.2.0.2) connect, retrying every 100 ms while
they are told `busy`, send `init`, and are timed until both have their setup message; they
then play one ply each and resign. The script then watches the crowd until the first-move
deadline has passed, counts what the crowd was told, stops the server and exits (about two
minutes in all). Everything is on loopback; the server is the release binary, its records go
to a temporary directory.

Prints one line per figure. Needs a descriptor limit (ulimit -n, hard) above 10,000 for this
process; the server raises its own.

Measured (2 shared cores, release build, the server and this script on one machine):
- built in: the crowd answered in 3.3 s; 2,512 seated (16 per address, 1,256 games), 7,488
  told `busy` after their init; the fresh pair let in after 3 ms and seated in one game after
  23 ms; at 60 s the 1,256 crowd games were aborted (records: 1,256 `aborted`, 1 `resign`).
- --no-seat-cap: the crowd took all 4,096 places (2,048 games) in 6.1 s, the other 5,820
  told `busy` at once; the fresh pair, told `busy` while no crowd mover had waited the 10 s
  grace on its first action, got in after 2.8 s (one crowd game aborted to make room) and was
  seated in one game after 2.84 s; the 2,047 other crowd games were aborted at 60 s.
On main before this change (the trial of issue 32), a fresh address was told `busy` while the
crowd's 2,048 games held every place for their game clock (15 minutes).
"""

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ANQI = os.path.join(ROOT, "target", "release", "anqi")

CROWD = 10_000
ADDRESSES = 157
AT_ONCE = 256


class Crowd:
    """What the crowd was told, counted."""

    def __init__(self):
        self.counts = {}
        self.writers = []

    def count(self, what):
        self.counts[what] = self.counts.get(what, 0) + 1


def kind(line):
    """A short name for a server line."""
    if line is None:
        return "closed"
    if line.startswith("((version"):
        return "version"
    if line.startswith("((id "):
        return "setup"
    if line.startswith("((error "):
        return "error " + line.split()[1] + " " + " ".join(line.split()[2:6])
    if "(turn " in line or "(info " in line:
        return "prompt"
    return line[:30]


async def read_line(reader, timeout):
    try:
        line = await asyncio.wait_for(reader.readline(), timeout)
    except (asyncio.TimeoutError, ConnectionError):
        return None
    return line.decode().rstrip("\n") if line else None


async def idle_member(port, source, i, crowd, answered, stop):
    """One crowd member: connects, sends init, never moves; counts what it is told."""
    try:
        reader, writer = await asyncio.open_connection(
            "127.0.0.1", port, local_addr=(source, 0)
        )
    except OSError as e:
        crowd.count("connect failed: " + type(e).__name__)
        answered.release()
        return
    crowd.writers.append(writer)
    first = await read_line(reader, 30)
    crowd.count("first: " + kind(first))
    if first != "((version 1.0))":
        answered.release()
        writer.close()
        return
    writer.write(f"((init crowd{i} {i}))\n".encode())
    await writer.drain()
    answered.release()
    seen = set()
    while not stop.is_set():
        line = await read_line(reader, 1)
        if line is None and reader.at_eof():
            crowd.count("then: closed")
            break
        if line is not None:
            k = kind(line)
            if k not in seen and k != "prompt":
                seen.add(k)
                crowd.count("then: " + k)
    writer.close()


async def fresh_player(port, source, name, seed, log):
    """A fresh client: connects until let in (retrying on `busy`), sends init, reads up to
    its first prompt. Returns reader, writer, its setup line, and seconds from its first try
    to the setup."""
    start = time.monotonic()
    tries = 0
    while True:
        tries += 1
        reader, writer = await asyncio.open_connection(
            "127.0.0.1", port, local_addr=(source, 0)
        )
        first = await read_line(reader, 30)
        if first == "((version 1.0))":
            break
        if tries == 1:
            log(f"{name}: told {first}; trying again every 100 ms")
        writer.close()
        await asyncio.sleep(0.1)
    let_in = time.monotonic() - start
    writer.write(f"((init {name} {seed}))\n".encode())
    await writer.drain()
    while True:
        line = await read_line(reader, 120)
        if line is None:
            raise RuntimeError(f"{name}: closed before its game started")
        if line.startswith("((id "):
            setup = line
            break
        log(f"{name}: told {line}")
    seated = time.monotonic() - start
    prompt = await read_line(reader, 10)
    return reader, writer, setup, prompt, let_in, seated, tries


async def main(args):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if hard < CROWD + 500:
        sys.exit(f"this process may open {hard} descriptors: the crowd needs {CROWD + 500}")
    if not os.access(ANQI, os.X_OK):
        sys.exit(f"no {ANQI}: run cargo build --release --bin anqi first")
    work = tempfile.mkdtemp(prefix="anqi-crowd-")
    config = os.path.join(work, "config.toml")
    with open(config, "w") as f:
        f.write(f'[records]\npath = "{work}/games.jsonl"\nfsync = false\n')
        if args.no_seat_cap:
            f.write("[server]\nmax_seats_per_address = 0\n")
    server = subprocess.Popen(
        [ANQI, "serve", "--listen", "127.0.0.1:0", "--config", config],
        stdout=subprocess.PIPE,
        stderr=open(os.path.join(work, "server.log"), "w"),
        text=True,
    )
    stop = asyncio.Event()
    try:
        line = server.stdout.readline()
        port = int(line.strip().rsplit(":", 1)[1])
        print(f"server: {ANQI} on port {port}, records and log in {work}")
        print(f"configuration: {'max_seats_per_address = 0' if args.no_seat_cap else 'built in'}")

        crowd = Crowd()
        answered = asyncio.Semaphore(AT_ONCE)
        tasks = []
        started = time.monotonic()
        for i in range(CROWD):
            a = i % ADDRESSES
            source = f"127.1.{a // 250}.{a % 250 + 1}"
            await answered.acquire()
            tasks.append(
                asyncio.create_task(idle_member(port, source, i, crowd, answered, stop))
            )
        for _ in range(AT_ONCE):
            await answered.acquire()
        settled = time.monotonic() - started
        print(f"crowd: {CROWD} connections from {ADDRESSES} addresses answered in {settled:.1f} s")
        await asyncio.sleep(1)
        for k, v in sorted(crowd.counts.items()):
            print(f"  {v:6d}  {k}")

        log = lambda text: print("  " + text)
        t0 = time.monotonic()
        (r1, w1, s1, p1, in1, seated1, tries1), (r2, w2, s2, p2, in2, seated2, tries2) = (
            await asyncio.gather(
                fresh_player(port, "127.2.0.1", "fresh_a", "1", log),
                fresh_player(port, "127.2.0.2", "fresh_b", "2", log),
            )
        )
        print(
            f"fresh address: let in after {min(in1, in2):.3f} s and {max(in1, in2):.3f} s "
            f"({tries1} and {tries2} tries); both seated in one game after "
            f"{time.monotonic() - t0:.3f} s ({seated1:.3f} s, {seated2:.3f} s): {s1[:12]} {s2[:12]}"
        )
        # Who moves first plays; the other then resigns: the game is live.
        (mover_r, mover_w), (other_r, other_w) = (
            ((r1, w1), (r2, w2)) if "(turn" in (p1 or "") else ((r2, w2), (r1, w1))
        )
        mover_w.write(b"((rev 0))\n")
        await mover_w.drain()
        while "(turn" not in (await read_line(other_r, 10) or "(turn"):
            pass
        other_w.write(b"((resign))\n")
        await other_w.drain()
        result = await read_line(mover_r, 10)
        while result is not None and not result.startswith("((win"):
            result = await read_line(mover_r, 10)
        print(f"fresh game: one ply, a resignation, result {result}")

        # The crowd after the first-move deadline (60 s from its prompts) has passed.
        wait = max(0.0, started + args.watch - time.monotonic())
        await asyncio.sleep(wait)
        print(f"crowd {args.watch} s after it began:")
        for k, v in sorted(crowd.counts.items()):
            print(f"  {v:6d}  {k}")
    finally:
        stop.set()
        for w in crowd.writers if "crowd" in locals() else []:
            w.close()
        server.terminate()
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    reasons = {}
    with open(os.path.join(work, "games.jsonl")) as f:
        for line in f:
            reason = json.loads(line)["result"]["reason"]
            reasons[reason] = reasons.get(reason, 0) + 1
    print(f"records: {reasons}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--no-seat-cap",
        action="store_true",
        help="serve with max_seats_per_address = 0 (only making room keeps players in)",
    )
    parser.add_argument(
        "--watch",
        type=float,
        default=75.0,
        help="seconds from the crowd's start to its last count (past the 60 s deadline)",
    )
    asyncio.run(main(parser.parse_args()))
