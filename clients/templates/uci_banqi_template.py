#!/usr/bin/env python3
"""A minimal engine for the uci-banqi protocol (MistyBanqi's UCI dialect, which anqi plays
through its bridge: protocol/bridges/UCI-BANQI.md), standard library only.

    anqi check "uci-banqi:python3 uci_banqi_template.py"
    anqi match random "uci-banqi:python3 uci_banqi_template.py"

The engine talks on stdin and stdout, one line each way at a time, and keeps no game of its
own: before each search it is sent the whole position (`position fen ...`), then `go`, and
answers `bestmove FROMTO`. It plays a legal random action: a flip while anything is face-down
(a flip is the same square twice, `b1b1`), else a step of one of its pieces to an empty
neighbour, else a capture by a step under the standard ranks (never a cannon's jump: it is a
starting point, not a player). Replace choose() with your own search; the rules are in
protocol/PROTOCOL.md (Rules as the referee applies them).
"""
import random
import sys

# The standard ranks, in this protocol's letters: general, advisor, elephant, chariot, horse,
# cannon, soldier. A piece takes by a step one of lower or equal rank, except that the general
# never takes a soldier, a soldier takes the general, and a cannon takes only by a jump.
RANKS = {"G": 7, "A": 6, "E": 5, "R": 4, "H": 3, "C": 2, "S": 1}
FILES = "abcdefgh"  # a square is a file a-h and a rank 0-3, rank 0 at the bottom


def square(row, col):
    """The square of the board's row (0 at the top, as the FEN lists them) and column."""
    return "%s%d" % (FILES[col], 3 - row)


def cell(sq):
    """(row, col) of a square such as d1."""
    return 3 - int(sq[1]), FILES.index(sq[0])


def read_fen(fields):
    """The board of `position fen BOARD TURN POOL CLOCK [MOVENUM] [moves M ...]` as 4 rows of
    8 characters ('.' empty, 'X' face-down, a letter a piece: upper case red), the colour to
    move ('r', 'b', or '-' before the first flip), and the moves played since."""
    rows = []
    for rank in fields[0].split("/"):
        row = ""
        for ch in rank:
            row += "." * int(ch) if ch.isdigit() else ch
        rows.append(list(row))
    turn = fields[1]
    moves = fields[fields.index("moves") + 1:] if "moves" in fields else []
    for m in moves:  # quiet moves only (the bridge sends no flips or captures here)
        (r1, c1), (r2, c2) = cell(m[:2]), cell(m[2:4])
        rows[r2][c2], rows[r1][c1] = rows[r1][c1], "."
        turn = {"r": "b", "b": "r"}.get(turn, turn)
    return rows, turn


def choose(rows, turn):
    """A legal action as FROMTO, or None when there is none."""
    hidden = [(r, c) for r in range(4) for c in range(8) if rows[r][c] == "X"]
    if hidden:
        r, c = random.choice(hidden)
        return square(r, c) * 2  # a flip: the same square twice
    steps, takes = [], []
    for r in range(4):
        for c in range(8):
            piece = rows[r][c]
            if piece in ".X" or piece.isupper() != (turn == "r"):
                continue  # empty, face-down, or not the colour to move
            for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                r2, c2 = r + dr, c + dc
                if not (0 <= r2 < 4 and 0 <= c2 < 8):
                    continue
                target = rows[r2][c2]
                if target == ".":
                    steps.append(square(r, c) + square(r2, c2))
                elif target != "X" and target.isupper() != piece.isupper() and takes_by_step(piece, target):
                    takes.append(square(r, c) + square(r2, c2))
    moves = steps or takes
    return random.choice(moves) if moves else None


def takes_by_step(a, t):
    """Whether piece a may take the enemy piece t by a step, under the standard rules."""
    a, t = a.upper(), t.upper()
    if a == "C" or (a, t) == ("G", "S"):
        return False
    return (a, t) == ("S", "G") or RANKS[a] >= RANKS[t]


def main():
    rows, turn = None, "-"
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "uci":  # who we are; options would be listed before uciok
            print("id name uci-banqi-template")
            print("id author anqi")
            print("uciok")
        elif words[0] == "isready":  # answered once everything before it is done
            print("readyok")
        elif words[0] == "position" and len(words) > 2 and words[1] == "fen":
            rows, turn = read_fen(words[2:])
        elif words[0] == "go":  # `go movetime MS`: we answer at once
            move = choose(rows, turn) if rows else None
            # An `info` line before the move is kept as the ply's comment in the records.
            print("info depth 0 string random")
            print("bestmove %s" % (move or "(none)"))
        elif words[0] == "quit":
            return
        # ucinewgame and anything else: nothing to do
        sys.stdout.flush()


if __name__ == "__main__":
    main()
