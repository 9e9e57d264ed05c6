"""Starts a pid-hopping helper, then becomes the engine (exec):

    with_hopper.py STOP BEAT PROGRAM ARGS...

The helper leaves the engine's process group (a new session), then, over and over, forks a
child that forks again and exits: each generation is an orphan at a new pid that lives about as
long as a fork takes, so a scan of the running processes finds only pids already gone. Every
eighth generation writes its pid to the file BEAT (through a rename: never read half written)
and stops when the file STOP exists, or after two minutes, so that a test that fails leaves
nothing running for long.

The tests check that the helper is gone, the beat stopped, once the engine's keeper, bridge or
game is over.
"""

import os
import sys
import time


def hop(stop: str, beat: str) -> None:
    deadline = time.monotonic() + 120
    os.setsid()
    generation = 0
    while True:
        if generation % 8 == 0:
            if os.path.exists(stop) or time.monotonic() > deadline:
                return
            pid = str(os.getpid())
            with open(beat + "." + pid, "w") as f:
                f.write(pid)
            os.replace(beat + "." + pid, beat)
        generation += 1
        if os.fork():
            os._exit(0)
        if os.fork():
            os._exit(0)


def main() -> None:
    stop, beat, command = sys.argv[1], sys.argv[2], sys.argv[3:]
    if os.fork() == 0:
        try:
            hop(stop, beat)
        finally:
            os._exit(0)
    # The engine starts once the helper runs (its first beat): a game over at once still had
    # its helper, and the test finds every one.
    deadline = time.monotonic() + 10
    while not os.path.exists(beat) and time.monotonic() < deadline:
        time.sleep(0.005)
    os.execvp(command[0], command)


if __name__ == "__main__":
    main()
