#!/usr/bin/env python3
"""A cdc-platform test engine for the bridge tests (standard library only), written from
protocol/bridges/CDC-PLATFORM.md.

    platform_engine.py [--seed S] [MODE...] HOST PORT

It connects to HOST PORT (the bridge appends them), answers /start and /turn, then plays as a
CDC platform client does: it sends /move or /flip on its turn, reads the echo of its own ply
and then the opponent's ply, and moves again. It keeps its board from the messages alone, with
its own map (platform X = anqi row, Y = 7 - anqi column), and picks a legal action with
banqi.py. Anything that does not add up (an echo that is not its own ply, a ply from an empty
square, face-down counts that are not the face-down cells) makes it exit with status 1: a
bridge that translated wrong loses its game.

Modes:
  --noise         prints debug lines on stdout between messages (not the protocol's channel)
  --never-exit    ignores SIGTERM and the end of the connection; runs until killed
  --illegal N     at its Nth turn, moves a face-down piece (or from an empty cell): illegal
  --garbage N     at its Nth turn, sends a frame that is no move at all
  --huge N        at its Nth turn, sends a 3000-byte frame
  --off-board N   at its Nth turn, sends a move from a square off the board
  --exit-at-once  exits before connecting
  --no-connect    never connects (sleeps)
On stderr it prints `platform_engine: time T` for every time it is told, and once
`platform_engine: start BOARD counts COUNTS pid PID` (BOARD in anqi's cells and letters).
"""

import argparse
import os
import signal
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import banqi  # noqa: E402

CODES = "-KGBRNCPXkgbrncp"  # the platform's codes 0..15, in anqi letters (M is anqi's B)


def cell(x, y):
    """The anqi cell of the platform's square (X, Y)."""
    return x * 8 + 7 - y


def square(c):
    return c // 8, 7 - c % 8


class Link:
    def __init__(self, host, port):
        self.sock = socket.create_connection((host, port))

    def send(self, text):
        data = text.encode()
        self.sock.sendall(bytes([len(data) % 128, len(data) // 128]) + data)

    def _exact(self, n):
        out = b""
        while len(out) < n:
            got = self.sock.recv(n - len(out))
            if not got:
                raise EOFError
            out += got
        return out

    def recv(self):
        head = self._exact(2)
        return self._exact(head[0] + 128 * head[1]).decode()


def log(text):
    """One line on stderr in one write (the bridge writes its own lines there too)."""
    sys.stderr.write("platform_engine: " + text + "\n")
    sys.stderr.flush()


def fail(why):
    log(why)
    sys.exit(1)


class Engine:
    def __init__(self, link, args):
        self.link = link
        self.args = args
        self.rng = banqi.rng_from(args.seed)
        self.board = banqi.Board()
        self.colour = None
        self.turns = 0

    def noise(self, text):
        if self.args.noise:
            print("debug: " + text, flush=True)

    def told_time(self, t):
        log("time %d" % t)

    def start(self):
        msg = self.link.recv()
        if not msg.startswith("/start "):
            fail("expected /start, got %r" % msg)
        fields = msg[len("/start "):].split(",")
        codes = [int(f) for f in fields[:32]]
        counts = [int(f) for f in fields[32:46]]
        history = int(fields[46])
        if history != 0 or len(fields) != 48:
            fail("unexpected history in %r" % msg)
        for i, code in enumerate(codes):
            self.board.cells[cell(i % 4, i // 4)] = {"-": ".", "X": "X"}.get(CODES[code], CODES[code])
        hidden = self.board.cells.count("X")
        if sum(counts) != hidden:
            fail("face-down counts %r do not add up to the %d face-down cells" % (counts, hidden))
        self.told_time(int(fields[47]))
        log("start %s counts %s pid %d" % ("".join(self.board.cells), counts, os.getpid()))
        self.link.send("/start")
        msg = self.link.recv()
        words = msg.split()
        if len(words) != 3 or words[0] != "/turn":
            fail("expected /turn F C, got %r" % msg)
        self.link.send("/turn")
        self.colour = {"0": "red", "1": "black"}.get(words[2])
        return words[1] == "1"

    def apply(self, msg):
        """Plays a /move or /flip echo on the board; returns the ply and the revealed letter."""
        w = msg.split()
        self.noise("got " + msg)
        if w[0] == "/flip" and len(w) == 5:
            c = cell(int(w[1]), int(w[2]))
            letter = CODES[int(w[3])]
            if self.board.cells[c] != "X" or letter in "-X":
                fail("a flip of %s on %d, which holds %s" % (letter, c, self.board.cells[c]))
            self.board.play(("rev", c), letter)
            self.told_time(int(w[4]))
            return ("rev", c), letter
        if w[0] == "/move" and len(w) == 6:
            a, b = cell(int(w[1]), int(w[2])), cell(int(w[3]), int(w[4]))
            if self.board.cells[a] in ".X":
                fail("a move from %d, which holds %s" % (a, self.board.cells[a]))
            self.board.play(("mov", a, b))
            self.told_time(int(w[5]))
            return ("mov", a, b), None
        fail("not a ply: %r" % msg)

    def misbehave(self):
        """The Nth turn's bad answer, if a mode asks for one."""
        a, n = self.args, self.turns
        if a.illegal == n:
            cells = self.board.cells
            frm = next((c for c, s in enumerate(cells) if s == "X"), None)
            if frm is None:
                frm = next((c for c, s in enumerate(cells) if s == "."), 0)
            to = next(iter(self.board.neighbours(frm)))[0]
            (x1, y1), (x2, y2) = square(frm), square(to)
            return "/move %d %d %d %d" % (x1, y1, x2, y2)
        if a.garbage == n:
            return "/resign please"
        if a.huge == n:
            return "/move " + "9" * 3000
        if a.off_board == n:
            return "/move -1 0 0 9"
        return None

    def my_turn(self):
        self.turns += 1
        bad = self.misbehave()
        if bad is not None:
            self.link.send(bad)
            return None
        action = self.board.choose(self.colour, self.rng)
        if action is None:
            # The game is over (this side has no piece or no move left): the platform says
            # nothing more, and closes the connection.
            self.noise("no legal action: waiting for the end")
            return None
        if action[0] == "rev":
            x, y = square(action[1])
            text = "/flip %d %d" % (x, y)
        else:
            (x1, y1), (x2, y2) = square(action[1]), square(action[2])
            text = "/move %d %d %d %d" % (x1, y1, x2, y2)
        self.noise("thinking... " + text)
        self.link.send(text)
        return action

    def play(self):
        first = self.start()
        if not first:
            ply, letter = self.apply(self.link.recv())
            if self.colour is None and letter:
                self.colour = "black" if banqi.colour_of(letter) == "red" else "red"
        while True:
            sent = self.my_turn()
            if sent is None:
                # After a bad answer (the bridge resigns, or the referee ends the game), or with
                # no action left: wait for the end of the connection.
                while True:
                    self.noise("after the last answer: " + self.link.recv())
            ply, letter = self.apply(self.link.recv())
            if ply != sent:
                fail("the echo %r is not my ply %r" % (ply, sent))
            if self.colour is None and letter:
                self.colour = banqi.colour_of(letter)
            self.apply(self.link.recv())


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--noise", action="store_true")
    p.add_argument("--never-exit", action="store_true")
    p.add_argument("--illegal", type=int, default=0)
    p.add_argument("--garbage", type=int, default=0)
    p.add_argument("--huge", type=int, default=0)
    p.add_argument("--off-board", type=int, default=0)
    p.add_argument("--exit-at-once", action="store_true")
    p.add_argument("--no-connect", action="store_true")
    p.add_argument("host")
    p.add_argument("port", type=int)
    args = p.parse_args()
    if args.exit_at_once:
        return 0
    if args.never_exit:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if args.no_connect:
        time.sleep(60)
        return 0
    link = Link(args.host, args.port)
    try:
        Engine(link, args).play()
    except (EOFError, ConnectionError):
        pass
    if args.never_exit:
        while True:
            time.sleep(1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
