#!/usr/bin/env python3
"""A uci-banqi test engine for tests/integration/bridge_uci.rs (standard library only), written from the
protocol as protocol/bridges/UCI-BANQI.md describes it (MistyBanqi's dialect of UCI):

    uci                          -> id name ..., id author ..., uciok
    isready                      -> readyok
    ucinewgame                   -> (forgets the position)
    position fen FEN [moves M..] -> (stores the position)
    go [movetime MS] [nodes N]   -> bestmove FROMTO | bestmove (none)
    quit                         -> exits

FEN = BOARD TURN POOL CLOCK [MOVENUM]: 4 ranks separated by '/', top (rank 3) first, files a-h,
digits for runs of empty squares, X face-down; pieces G A E R H C S (general, advisor,
elephant, chariot, horse, cannon, soldier), red upper case; TURN r, b or - (colours not
decided yet); POOL the face-down pieces as letter+count pairs, or -; CLOCK the plies since the
last flip or capture. Squares are a file letter and a rank digit 0-3, rank 0 at the bottom; a
flip is the same square twice.

The engine rebuilds its board from every `position` with its own map (anqi cells and letters,
for banqi.py), checks what it is told, and plays a legal action of banqi.py (a capture when it
has one). Whatever does not add up is reported on stderr and the engine exits with status 2,
so a bridge that translates anything wrong fails its test; so does a flip in the `moves` list
(the real engine panics on one) and `go movetime 0` (no time limit to the real engine).

Modes:
  --noise          prints debug lines on stdout between its replies (and `info` lines);
  --never-exit     ignores quit, the end of its input and SIGTERM: it must be killed;
  --illegal N      answers an illegal move (a3h0) once, at its Nth go;
  --say N LINE     answers LINE instead of its move once, at its Nth go;
  --crash N        exits at once with status 3 at its Nth go;
  --pidfile PATH   writes its process id to PATH;
  --seed S         seeds its choices.
"""

import argparse
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import banqi  # noqa: E402

FILES = "abcdefgh"
# The protocol's letters and anqi's (banqi.py's) for the same kinds.
TO_ANQI = {"G": "K", "A": "G", "E": "B", "R": "R", "H": "N", "C": "C", "S": "P"}
FULL = {"G": 1, "A": 2, "E": 2, "R": 2, "H": 2, "C": 2, "S": 5}


class Confused(Exception):
    """What the engine was told does not add up."""


def anqi_letter(letter):
    upper = TO_ANQI.get(letter.upper())
    if upper is None:
        raise Confused(f"unknown piece letter {letter!r}")
    return upper if letter.isupper() else upper.lower()


def cell(square):
    """The anqi cell of a square such as d1: column = file, row = 3 - rank."""
    if len(square) != 2 or square[0] not in FILES or square[1] not in "0123":
        raise Confused(f"not a square: {square!r}")
    return (3 - int(square[1])) * 8 + FILES.index(square[0])


def square(c):
    row, col = divmod(c, 8)
    return f"{FILES[col]}{3 - row}"


def parse_fen(fields):
    if len(fields) < 4:
        raise Confused(f"a FEN needs 4 fields at least: {' '.join(fields)!r}")
    ranks = fields[0].split("/")
    if len(ranks) != 4:
        raise Confused(f"the board needs 4 ranks: {fields[0]!r}")
    board = banqi.Board()
    cells = []
    for rank in ranks:
        row = []
        for ch in rank:
            if ch.isdigit():
                row.extend(["."] * int(ch))
            elif ch == "X":
                row.append("X")
            else:
                row.append(anqi_letter(ch))
        if len(row) != 8:
            raise Confused(f"rank {rank!r} is not 8 squares")
        cells.extend(row)
    board.cells = cells
    turn = {"r": "red", "b": "black", "-": None}.get(fields[1], "bad")
    if turn == "bad":
        raise Confused(f"bad TURN {fields[1]!r}")
    pool = {}
    if fields[2] != "-":
        text, i = fields[2], 0
        while i < len(text):
            letter = text[i]
            anqi_letter(letter)
            j = i + 1
            while j < len(text) and text[j].isdigit():
                j += 1
            if j == i + 1:
                raise Confused(f"POOL {text!r}: no count after {letter!r}")
            pool[letter] = int(text[i + 1:j])
            i = j
    try:
        clock = int(fields[3])
    except ValueError:
        raise Confused(f"bad CLOCK {fields[3]!r}")
    # The pool is exactly the face-down pieces; nothing is counted twice.
    hidden = sum(1 for c in cells if c == "X")
    if sum(pool.values()) != hidden:
        raise Confused(f"POOL {fields[2]} counts {sum(pool.values())} pieces, the board has {hidden} X")
    for letter, full in FULL.items():
        for piece in (letter, letter.lower()):
            up = sum(1 for c in cells if c == anqi_letter(piece))
            if up + pool.get(piece, 0) > full:
                raise Confused(f"more {piece} face-up and face-down than a set has")
    return board, turn, clock


def other(colour):
    return {"red": "black", "black": "red"}[colour]


class Engine:
    def __init__(self, args):
        self.args = args
        self.rng = banqi.rng_from(args.seed)
        self.position = None
        self.goes = 0

    def out(self, line):
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    def noise(self, text):
        if self.args.noise:
            self.out(text)

    def set_position(self, words):
        if words[:1] != ["fen"]:
            raise Confused(f"position without fen: {' '.join(words)!r}")
        rest = words[1:]
        moves = []
        if "moves" in rest:
            i = rest.index("moves")
            rest, moves = rest[:i], rest[i + 1:]
        board, turn, clock = parse_fen(rest)
        for token in moves:
            if len(token) != 4:
                raise Confused(f"bad move {token!r}")
            a, b = cell(token[:2]), cell(token[2:])
            if a == b:
                raise Confused(f"a flip in the moves list: {token} (the real engine panics)")
            if turn is None:
                raise Confused(f"a move {token} before the colours are decided")
            if ("mov", a, b) not in board.legal(turn):
                raise Confused(f"{token} is not legal for {turn} in the window")
            if board.cells[b] != ".":
                raise Confused(f"{token} is a capture: the window starts after the last capture")
            board.play(("mov", a, b))
            turn = other(turn)
            clock += 1
        self.position = (board, turn)
        self.noise(f"debug: {len(moves)} moves replayed, clock {clock}")

    def go(self, words):
        limits = {}
        i = 0
        while i < len(words):
            if words[i] in ("movetime", "nodes") and i + 1 < len(words):
                limits[words[i]] = int(words[i + 1])
                i += 2
            else:
                i += 1
        if limits.get("movetime") == 0:
            raise Confused("go movetime 0: no time limit at all")
        if self.position is None:
            raise Confused("go without a position")
        self.goes += 1
        board, turn = self.position
        self.noise("info depth 1 nodes 1 score cp 0")
        # --score CP: the same score every move (score adjudication's tests); else a
        # score that grows by one a move.
        score = self.args.score if self.args.score is not None else self.goes
        self.noise(f"info depth 2 nodes 7 score cp {score} pv a0a1 b0b1")
        self.noise("info string searched")
        self.noise(f"thinking for {limits.get('movetime', '?')} ms, {limits.get('nodes', 'any')} nodes")
        if self.goes == self.args.illegal:
            self.out("bestmove a3h0")
            return
        if self.goes == self.args.crash:
            sys.exit(3)
        if self.args.say and self.goes == self.args.say[0]:
            self.out(self.args.say[1])
            return
        action = board.choose(turn, self.rng)
        if action is None:
            self.out("bestmove (none)")
        elif action[0] == "rev":
            self.out(f"bestmove {square(action[1])}{square(action[1])}")
        else:
            self.out(f"bestmove {square(action[1])}{square(action[2])}")
        self.noise("debug: done")

    def run(self):
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            cmd, rest = words[0], words[1:]
            if cmd == "uci":
                self.noise("uci_engine.py starting up")
                self.out("id name UciTest")
                self.out("id author anqi tests")
                self.out("uciok")
            elif cmd == "isready":
                self.out("readyok")
            elif cmd == "ucinewgame":
                self.position = None
            elif cmd == "position":
                self.set_position(rest)
            elif cmd == "go":
                self.go(rest)
            elif cmd == "quit":
                if not self.args.never_exit:
                    return
            else:
                self.noise(f"debug: ignored {cmd}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--noise", action="store_true")
    parser.add_argument("--never-exit", action="store_true")
    parser.add_argument("--illegal", type=int, default=0)
    parser.add_argument("--crash", type=int, default=0)
    parser.add_argument("--say", nargs=2, metavar=("N", "LINE"))
    parser.add_argument("--pidfile")
    parser.add_argument("--seed", default="0")
    parser.add_argument("--score", type=int)
    args = parser.parse_args()
    if args.say:
        args.say = (int(args.say[0]), args.say[1])
    if args.pidfile:
        with open(args.pidfile, "w") as f:
            f.write(f"{os.getpid()}\n")
    if args.never_exit:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        Engine(args).run()
    except Confused as e:
        print(f"uci_engine.py: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        pass
    if args.never_exit:
        while True:
            time.sleep(3600)
    return 0


if __name__ == "__main__":
    sys.exit(main())
