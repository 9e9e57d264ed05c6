#!/usr/bin/env python3
"""A deliberately bad engine for the tournament tests (standard library only).

    misbehave.py MODE --connect HOST:PORT --token TOKEN

It joins its game like any engine (answers the version with (init NAME TOKEN)), then, the
first time it is asked to move:
  crash    exits at once with status 3 (a crash: the runner must say so);
  hang     stops answering and ignores SIGTERM, never exiting (the clock must rule, and the
           runner must kill it);
  illegal  sends an action no rule allows;
  slow     waits 3 seconds before answering (longer than the tests' move time);
  resign   resigns.
"""

import argparse
import signal
import socket
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["crash", "hang", "illegal", "slow", "resign"])
    parser.add_argument("--connect", required=True)
    parser.add_argument("--token", required=True)
    args = parser.parse_args()
    host, port = args.connect.rsplit(":", 1)
    sock = socket.create_connection((host, int(port)))
    stream = sock.makefile("r")
    stream.readline()  # ((version 1.0))
    sock.sendall(f"((init {args.mode} {args.token}))\n".encode())
    for line in stream:
        if "(win " in line:
            return 0
        if "(turn " not in line:
            continue
        board = line.split("(board ", 1)[1].split(")", 1)[0]
        if args.mode == "crash":
            sys.exit(3)
        if args.mode == "hang":
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            while True:
                time.sleep(3600)
        if args.mode == "illegal":
            sock.sendall(f"((board {board})(mov 0 0))\n".encode())
        elif args.mode == "slow":
            time.sleep(3)
            sock.sendall(f"((board {board})(resign))\n".encode())
        else:
            sock.sendall(b"((resign))\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
