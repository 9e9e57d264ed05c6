#!/usr/bin/env python3
"""A minimal engine for the tcg protocol (the NTU "Theory of Computer Games" course protocol,
which anqi plays through its bridge: protocol/bridges/TCG.md), standard library only.

    anqi check "tcg:python3 tcg_template.py"
    anqi match random "tcg:python3 tcg_template.py"

A command is one line, `ID NAME ARGS`; the answer is `=ID TEXT` (`?ID TEXT` on failure). The
engine keeps its own board: `reset_board` makes every square face-down, and after every ply,
its own included, it is told `flip SQ PIECE` or `move SQ SQ`; `genmove COLOUR` only asks. It
plays a legal random action: a flip (the same square twice), or a step of one of its pieces to
an empty neighbour, else a capture by a step under the standard ranks (never a cannon's jump:
it is a starting point, not a player). Replace choose() with your own search; the rules are in
protocol/PROTOCOL.md (Rules as the referee applies them).
"""
import random
import sys

# Squares: files a-d, ranks 1-8 (a8 top left as the engines print it: anqi's board turned a
# quarter). Pieces K G M R N C P (king, guard, minister, rook, knight, cannon, pawn), red upper
# case; X face-down, . empty.
SQUARES = [f + str(r) for f in "abcd" for r in range(8, 0, -1)]
RANKS = {"K": 7, "G": 6, "M": 5, "R": 4, "N": 3, "C": 2, "P": 1}


def neighbours(sq):
    """The squares one step away (same file, next rank; or same rank, next file)."""
    f, r = "abcd".index(sq[0]), int(sq[1:])
    near = [(f + 1, r), (f - 1, r), (f, r + 1), (f, r - 1)]
    return ["abcd"[a] + str(b) for a, b in near if 0 <= a < 4 and 1 <= b <= 8]


def takes_by_step(a, t):
    """Whether piece a may take the enemy piece t by a step: the king never takes a pawn, a
    pawn takes the king, a cannon takes only by a jump, else rank against rank."""
    a, t = a.upper(), t.upper()
    if a == "C" or (a, t) == ("K", "P"):
        return False
    return (a, t) == ("P", "K") or RANKS[a] >= RANKS[t]


def choose(board, colour):
    """A legal action as (FROM, TO) for `colour` (red, black, or unknown before the first flip)."""
    flips = [(sq, sq) for sq in SQUARES if board[sq] == "X"]
    steps, takes = [], []
    for sq in SQUARES:
        piece = board[sq]
        if piece in ".X" or colour == "unknown" or piece.isupper() != (colour == "red"):
            continue  # empty, face-down, or not ours
        for to in neighbours(sq):
            if board[to] == ".":
                steps.append((sq, to))
            elif board[to] != "X" and board[to].isupper() != piece.isupper() and takes_by_step(piece, board[to]):
                takes.append((sq, to))
    actions = flips + steps or takes
    return random.choice(actions) if actions else None


def main():
    board = {sq: "X" for sq in SQUARES}
    for line in sys.stdin:
        words = line.split()
        if len(words) < 2:
            continue
        cid, name, args = words[0], words[1], words[2:]
        answer = ""
        if name == "name":
            answer = "tcg-template"
        elif name == "known_command":
            # The optional commands: we take the draw rules' numbers and ignore them.
            answer = "true" if args and args[0] in ("num_repetition", "num_moves_to_draw") else "false"
        elif name == "reset_board":
            board = {sq: "X" for sq in SQUARES}
        elif name == "flip":  # flip SQ PIECE: a reveal, ours or the opponent's
            board[args[0]] = args[1]
        elif name == "move":  # move SQ SQ: a step or a capture
            board[args[1]], board[args[0]] = board[args[0]], "."
        elif name == "genmove":
            action = choose(board, args[0] if args else "unknown")
            if action is None:
                print("?%s no legal action" % cid, flush=True)  # the bridge resigns for us
                continue
            answer = "%s %s" % action
        # Everything else (version, ready, time_settings, time_left, game_over, ...) needs no
        # more than an acknowledgement.
        print(("=%s %s" % (cid, answer)).rstrip(), flush=True)
        if name == "quit":
            return


if __name__ == "__main__":
    main()
