"""The rules of traditional 4x8 Banqi, just enough for the test engines of the bridges
(standard library only). Each test engine keeps this board from what its own protocol tells
it, converting its protocol's notation with its own map, and picks a legal action here: if a
bridge translated anything wrong, the engine's board drifts and its actions turn illegal,
which the referee reports.

Cells are numbered as anqi numbers them: row * 8 + column, 4 rows of 8, row 0 first.
Pieces are anqi's letters: K G B R N C P, red upper case, black lower case; X is face-down,
. empty.
"""

import random

ROWS, COLS = 4, 8
RANK = {"K": 7, "G": 6, "B": 5, "R": 4, "N": 3, "C": 2, "P": 1}
ALL_PIECES = "KGGBBRRNNCCPPPPPkggbbrrnnccppppp"


def colour_of(letter):
    return "red" if letter.isupper() else "black"


class Board:
    def __init__(self):
        self.cells = ["X"] * (ROWS * COLS)

    def neighbours(self, cell):
        r, c = divmod(cell, COLS)
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            rr, cc = r + dr, c + dc
            if 0 <= rr < ROWS and 0 <= cc < COLS:
                yield rr * COLS + cc, (dr, dc)

    def step_captures(self, attacker, target):
        a, t = attacker.upper(), target.upper()
        if a == "C":
            return False
        if a == "K" and t == "P":
            return False
        if a == "P" and t == "K":
            return True
        return RANK[a] >= RANK[t]

    def cannon_targets(self, cell):
        r, c = divmod(cell, COLS)
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            rr, cc, screens = r + dr, c + dc, 0
            while 0 <= rr < ROWS and 0 <= cc < COLS:
                sq = self.cells[rr * COLS + cc]
                if sq != ".":
                    if screens == 1:
                        yield rr * COLS + cc
                        break
                    screens += 1
                rr, cc = rr + dr, cc + dc

    def legal(self, colour):
        """Every legal action of `colour` (None before the colours are known: reveals only),
        as ("rev", cell) or ("mov", from, to)."""
        out = [("rev", c) for c, sq in enumerate(self.cells) if sq == "X"]
        if colour is None:
            return out
        for cell, sq in enumerate(self.cells):
            if sq in "X." or colour_of(sq) != colour:
                continue
            for to, _ in self.neighbours(cell):
                t = self.cells[to]
                if t == ".":
                    out.append(("mov", cell, to))
                elif t != "X" and colour_of(t) != colour and self.step_captures(sq, t):
                    out.append(("mov", cell, to))
            if sq.upper() == "C":
                for to in self.cannon_targets(cell):
                    t = self.cells[to]
                    if t != "X" and colour_of(t) != colour:
                        out.append(("mov", cell, to))
        return out

    def play(self, action, revealed=None):
        if action[0] == "rev":
            self.cells[action[1]] = revealed
        else:
            _, a, b = action
            self.cells[b] = self.cells[a]
            self.cells[a] = "."

    def choose(self, colour, rng):
        """A capture when there is one, else any legal action; None when there is none."""
        legal = self.legal(colour)
        captures = [a for a in legal if a[0] == "mov" and self.cells[a[2]] not in ".X"]
        pool = captures or legal
        return rng.choice(pool) if pool else None


def rng_from(seed):
    return random.Random(seed)
