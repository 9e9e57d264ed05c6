#!/usr/bin/env python3
"""A deliberately bad engine for the tournament tests (standard library only).

    misbehave.py MODE --connect HOST:PORT [--token TOKEN] [--delay SECONDS]

It joins its game like any engine (answers the version with (init NAME TOKEN), the token
coming from ANQI_TOKEN unless --token is given), then, the
first time it is asked to move:
  crash    exits at once with status 3 (a crash: the runner must say so);
  hang     stops answering and ignores SIGTERM, never exiting (the clock must rule, and the
           runner must kill it);
  illegal  sends an action no rule allows;
  slow     waits 3 seconds (or --delay) before answering, then resigns;
  resign   resigns;
  pause    (with --tell FIFO --gate FIFO) once seated, writes its token to the --tell FIFO and
           waits until the test opens and closes the --gate FIFO; then reveals a piece on its
           first turn and resigns on its second (the game goes on after whatever the test did).
  drop     closes its connection without a word, waits --delay seconds (default 3), connects
           again presenting the same token (what takes a seat back in a tournament with
           rejoin_grace_ms), then reveals a piece on the turn it is given and resigns on the
           next one.
"""

import argparse
import os
import signal
import socket
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["crash", "hang", "illegal", "slow", "resign", "pause", "drop"])
    parser.add_argument("--connect", required=True)
    parser.add_argument("--token", default=os.environ.get("ANQI_TOKEN"))
    parser.add_argument("--tell")
    parser.add_argument("--gate")
    parser.add_argument("--delay", type=float, default=3.0)
    args = parser.parse_args()
    if not args.token:
        parser.error("no token: give --token or set ANQI_TOKEN")
    if args.mode == "pause" and not (args.tell and args.gate):
        parser.error("pause needs --tell and --gate")
    host, port = args.connect.rsplit(":", 1)

    def join():
        sock = socket.create_connection((host, int(port)))
        stream = sock.makefile("r")
        stream.readline()  # ((version 1.0))
        sock.sendall(f"((init {args.mode} {args.token}))\n".encode())
        return sock, stream

    sock, stream = join()
    if args.mode == "drop":
        return drop(sock, stream, join, args.delay)
    turns = 0
    for line in stream:
        if "(win " in line:
            return 0
        if args.mode == "pause" and "(id " in line:
            with open(args.tell, "w") as tell:
                tell.write(args.token + "\n")
            with open(args.gate) as gate:
                gate.read()
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
        elif args.mode == "pause":
            turns += 1
            if turns == 1:
                sock.sendall(f"((board {board})(rev {board.index('X')}))\n".encode())
            else:
                sock.sendall(f"((board {board})(resign))\n".encode())
        elif args.mode == "slow":
            time.sleep(args.delay)
            sock.sendall(f"((board {board})(resign))\n".encode())
        else:
            sock.sendall(b"((resign))\n")
    return 0


def drop(sock, stream, join, delay):
    """Leaves on its first turn, comes back after `delay` seconds with the same token, reveals
    a piece on the turn it is given, and resigns on the next."""
    step = "leave"
    while True:
        line = stream.readline()
        if not line or "(win " in line:
            return 0
        if "(turn " not in line:
            continue
        board = line.split("(board ", 1)[1].split(")", 1)[0]
        if step == "leave":
            # The reader holds the socket open too: close both, or nothing is closed.
            stream.close()
            sock.close()
            time.sleep(delay)
            sock, stream = join()
            step = "reveal"
        elif step == "reveal" and "X" in board:
            sock.sendall(f"((board {board})(rev {board.index('X')}))\n".encode())
            step = "resign"
        else:
            sock.sendall(b"((resign))\n")


if __name__ == "__main__":
    sys.exit(main())
