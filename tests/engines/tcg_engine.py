#!/usr/bin/env python3
"""A test engine that speaks the tcg protocol (the NTU course protocol) on stdin and stdout,
for the bridge tests (standard library only).

    tcg_engine.py [--seed N] [--noise] [--never-exit] [--illegal N] [--stall N] [--crash N]

A command is `ID NAME ARGS`; the answer is `=ID TEXT` (or `?ID TEXT` on failure). The engine
keeps its own board from what it is told (`reset_board`, then `flip SQ PIECE` and
`move SQ SQ` after every ply, its own included: `genmove` only answers), converting squares
and letters with its own map, and picks a legal action with banqi.py. When what it is told
makes no sense on its board (a flip of a square that is not face-down, a move from an empty
square), it says `tcg_engine: inconsistent ...` on stderr and answers `?ID`: the tests look
for that line.

The map: files a-d are anqi's rows 0-3, ranks 1-8 its columns 7-0 (`a8` is anqi cell 0,
`a1` cell 7, `d1` cell 31). Pieces K G M R N C P (M is anqi's B); red upper case.

Modes:
  --noise       prints debug lines on stdout before every answer (the bridge must skip them);
  --flood N     prints N long debug lines (2 KB) before every answer (the bridge must not log
                them all);
  --never-exit  answers `quit` but does not exit, ignores the end of its input and SIGTERM
                (the bridge must kill it);
  --illegal N   at its Nth genmove, answers an illegal (but well-formed) action once;
  --stall N     at its Nth genmove, never answers (the referee's clock must end the game);
  --crash N     at its Nth genmove, exits at once with status 3;
  --say N TEXT  at its Nth genmove, answers `=ID TEXT` (something that is no move, say);
  --crash-on C  exits at once with status 3 when it gets the command C, though it says it
                knows it (as an engine that lists num_repetition and dies on it).
"""

import argparse
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import banqi  # noqa: E402

FILES = "abcd"
TO_ANQI = {"M": "B", "m": "b"}

NOISE = [
    "------------Red-------------",
    "<8>  X  X  X  X",
    "# call flip(): flip(3,3) = 9",
    "My result: ",
    "move:a1-a1",
    "= not a reply",
    "?",
    "=",
    "=1x",
    "=999 a1 a1",
    " =12 a1 a1",
    "",
]


def cell_of(square):
    """anqi cell of a TCG square (None when it is not one)."""
    if len(square) != 2 or square[0] not in FILES or square[1] not in "12345678":
        return None
    row = FILES.index(square[0])
    col = 8 - int(square[1])
    return row * 8 + col


def square_of(cell):
    row, col = divmod(cell, 8)
    return f"{FILES[row]}{8 - col}"


class Engine:
    def __init__(self, args):
        self.args = args
        self.rng = banqi.rng_from(args.seed)
        self.noise_rng = banqi.rng_from(args.seed + 1)
        self.board = None
        self.genmoves = 0
        self.times = {}
        # The colour of the first piece revealed, and whether this engine revealed it.
        self.first = None
        self.opened = False

    def out(self, line):
        if self.args.noise:
            for n in self.noise_rng.sample(NOISE, 3):
                sys.stdout.write(n + "\n")
        for i in range(self.args.flood):
            sys.stdout.write(f"flood {i} " + "x" * 2000 + "\n")
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    def inconsistent(self, what):
        print(f"tcg_engine: inconsistent {what}", file=sys.stderr, flush=True)

    def handle(self, ident, name, args):
        """The answer's text, and whether it succeeded; None for no answer at all."""
        if name == self.args.crash_on:
            sys.exit(3)
        if name == "protocol_version":
            return True, "1.1.0"
        if name == "name":
            return True, "TcgTest"
        if name == "version":
            return True, "0.1"
        if name == "known_command":
            known = {"protocol_version", "name", "version", "known_command", "quit",
                     "reset_board", "num_repetition", "num_moves_to_draw", "move", "flip",
                     "genmove", "game_over", "ready", "time_settings", "time_left"}
            return True, "true" if args and args[0] in known else "false"
        if name == "reset_board":
            self.board = banqi.Board()
            self.genmoves = 0
            self.first = None
            self.opened = False
            return True, ""
        if name in ("num_repetition", "num_moves_to_draw", "time_settings"):
            if len(args) != 1 or not args[0].isdigit():
                self.inconsistent(f"{name} {args}")
                return False, "a number"
            return True, ""
        if name == "game_over":
            # For the tests: the board as this engine believes it, in anqi's cell order.
            board = "".join(self.board.cells) if self.board else "-"
            print(f"tcg_engine: board {board} {' '.join(args)}", file=sys.stderr, flush=True)
            return True, ""
        if name in ("ready", "quit"):
            return True, ""
        if name == "time_left":
            if len(args) != 2 or args[0] not in ("red", "black") or not args[1].isdigit():
                self.inconsistent(f"time_left {args}")
                return False, "time_left red|black MS"
            self.times[args[0]] = int(args[1])
            return True, ""
        if name == "flip":
            return self.flip(args)
        if name == "move":
            return self.move(args)
        if name == "genmove":
            return self.genmove(args)
        return False, "unknown command"

    def flip(self, args):
        cell = cell_of(args[0]) if len(args) == 2 else None
        if self.board is None or cell is None or len(args[1]) != 1 or \
                args[1] not in "KGMRNCPkgmrncp":
            self.inconsistent(f"flip {args}")
            return False, "flip SQ PIECE"
        letter = TO_ANQI.get(args[1], args[1])
        if self.first is None:
            self.first = banqi.colour_of(letter)
        if self.board.cells[cell] != "X":
            self.inconsistent(f"flip {args}: {args[0]} is {self.board.cells[cell]}")
            return False, "not face-down"
        self.board.play(("rev", cell), letter)
        return True, ""

    def move(self, args):
        cells = [cell_of(a) for a in args]
        if self.board is None or len(cells) != 2 or None in cells:
            self.inconsistent(f"move {args}")
            return False, "move SQ SQ"
        a, b = cells
        sq = self.board.cells[a]
        if sq in "X.":
            self.inconsistent(f"move {args}: {args[0]} is {sq}")
            return False, "nothing to move"
        if ("mov", a, b) not in self.board.legal(banqi.colour_of(sq)):
            self.inconsistent(f"move {args}: not legal on this board")
            return False, "illegal"
        self.board.play(("mov", a, b))
        return True, ""

    def genmove(self, args):
        self.genmoves += 1
        colour = args[0] if args and args[0] in ("red", "black") else None
        if args and args[0] not in ("red", "black", "unknown"):
            self.inconsistent(f"genmove {args}")
        if self.board is None:
            self.inconsistent("genmove before reset_board")
            return False, "no board"
        if self.first is None:
            if colour is not None:
                self.inconsistent(f"genmove {colour} before any flip")
            self.opened = True
        else:
            mine = self.first if self.opened else ("black" if self.first == "red" else "red")
            if colour != mine:
                self.inconsistent(f"genmove {args}: this engine plays {mine}")
            colour = mine
        if self.args.stall == self.genmoves:
            while True:
                time.sleep(3600)
        if self.args.crash == self.genmoves:
            sys.exit(3)
        if colour is not None and colour not in self.times:
            # The bridge sends time_left before every genmove once colours are known, when
            # the game has a clock; the tests always give one.
            self.inconsistent("genmove without time_left")
        if self.args.illegal == self.genmoves:
            return True, self.illegal()
        if self.args.say and self.args.say[0] == self.genmoves:
            return True, self.args.say[1]
        action = self.board.choose(colour, self.rng)
        if action is None:
            return False, "no legal move"
        if action[0] == "rev":
            sq = square_of(action[1])
            return True, f"{sq} {sq}"
        return True, f"{square_of(action[1])} {square_of(action[2])}"

    def illegal(self):
        """A well-formed action no rule allows: flip a face-up piece, or else move a
        face-down one."""
        cells = self.board.cells
        up = [c for c, sq in enumerate(cells) if sq not in "X."]
        if up:
            sq = square_of(self.rng.choice(up))
            return f"{sq} {sq}"
        down = [c for c, sq in enumerate(cells) if sq == "X"]
        a = self.rng.choice(down)
        b = next(n for n, _ in self.board.neighbours(a))
        return f"{square_of(a)} {square_of(b)}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--noise", action="store_true")
    parser.add_argument("--flood", type=int, default=0)
    parser.add_argument("--never-exit", action="store_true")
    parser.add_argument("--illegal", type=int, default=0)
    parser.add_argument("--stall", type=int, default=0)
    parser.add_argument("--crash", type=int, default=0)
    parser.add_argument("--crash-on", default="")
    parser.add_argument("--say", nargs=2, metavar=("N", "TEXT"))
    args = parser.parse_args()
    if args.say:
        args.say = (int(args.say[0]), args.say[1])
    if args.never_exit:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    engine = Engine(args)
    for raw in sys.stdin:
        line = raw.rstrip("\n")
        if line.endswith("\r"):
            engine.inconsistent("a CR before the newline")
            line = line[:-1]
        words = line.split()
        if len(words) < 2 or not words[0].isdigit():
            engine.inconsistent(f"command {line!r}")
            continue
        ident, name, rest = words[0], words[1], words[2:]
        ok, text = engine.handle(ident, name, rest)
        engine.out(f"{'=' if ok else '?'}{ident}{' ' + text if text else ''}")
        if name == "quit" and not args.never_exit:
            return 0
    if args.never_exit:
        while True:
            time.sleep(3600)
    return 0


if __name__ == "__main__":
    sys.exit(main())
