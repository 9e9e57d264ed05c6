#!/usr/bin/env python3
"""A minimal engine for anqi's own protocol (protocol/PROTOCOL.md), standard library only.

    python3 anqi_template.py HOST:PORT [NAME]

It plays a legal random action in every shipped variant: a reveal, a step of one of its
pieces to an empty cell, a capture by a step as the variant's ranks allow, or a cannon's jump
(it is a starting point, not a player). Replace choose() with your own search; the rules
are in protocol/PROTOCOL.md (Rules as the referee applies them) and protocol/VARIANTS.md. Check it with:  anqi check "python3 anqi_template.py {addr}"
"""
import os
import random
import re
import socket
import sys

# One token: a quoted string, a parenthesis, or an atom (a symbol or a number).
TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[()]|[^\s()"]+')


def parse(line):
    """A message, `((a 1)(b "x"))`, as its clauses: [['a', '1'], ['b', '"x"']]."""
    stack = [[]]
    for tok in TOKEN.findall(line):
        if tok == "(":
            stack.append([])
        elif tok == ")":
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(tok)
    return stack[0][0] if stack[0] else []


def section(text, name):
    """The clause `(name ...)` of a variant description, as text ('' when absent)."""
    m = re.search(r"\(%s((?: \([^()]*\))*)\)" % name, text)
    return m.group(1) if m else ""


class Engine:
    def __init__(self):
        self.me, self.mates, self.colour = 0, set(), None  # colour: "red" or "black"
        self.moves, self.bag, self.one_side, self.draws, self.pieces = {}, False, False, 0, 0

    def setup(self, c, msg):
        """The setup message: who we are and the board's steps (never assume a shape)."""
        self.me = int(c["id"][0])
        self.mates = {int(cl[1]) for cl in msg if cl[0] == "teammate"} | {self.me}
        self.pieces = len(c["pieces"][0])
        self.moves = {}
        for a, b in c["moves"]:
            self.moves.setdefault(int(a), []).append(int(b))
        self.bag = "puts" in c  # a bag game: draw with (bag), then (put P POS)
        rules = c.get("variant", [""])[0]  # the `variant` extension: the whole description
        self.lines = [] if "(cannon-jump #f)" in rules else [
            self.line(int(o), int(a), int(b)) for o, a, b in c.get("jumps", [])]
        self.one_side = "(objective (clear" in rules  # single-player, cooperative: any piece
        # Who may take whom by a step: the ranks, and the exceptions to them (VARIANTS.md).
        self.ranks = {k: int(r) for k, r in re.findall(r"\((\w) (\d+)\)", section(rules, "ranks"))}
        self.allow = set(re.findall(r"\(([\w*]) ([\w*])\)", section(rules, "allow")))
        self.forbid = set(re.findall(r"\(([\w*]) ([\w*])\)", section(rules, "forbid")))
        if "(colours fixed)" in rules:  # side 1 red, side 2 black from the start
            side = int(c["team"][0]) if "team" in c else self.me
            self.colour = "red" if side == 1 else "black"

    def line(self, ori, a, b):
        """A cannon line of the compact `jumps` (PROTOCOL.md): ORI, then the unique shortest
        path of moves from ORI to the farther of TG_I and TG_F."""
        prev, frontier = {ori: None}, [ori]
        while frontier:  # breadth first: the first way found to a cell is a shortest one
            nxt = []
            for x in frontier:
                for n in self.moves.get(x, []):
                    if n not in prev:
                        prev[n], _ = x, nxt.append(n)
            frontier = nxt

        def path(t):
            cells = []
            while t != ori:
                cells.append(t)
                t = prev[t]
            return [ori] + cells[::-1]
        return max(path(a), path(b), key=len)

    def learn(self, c, mover):
        """Our colour is set by the first piece revealed (or drawn) by anyone: ours if it was
        our side's, the other one if not (PROTOCOL.md, Your colour)."""
        last = c.get("last", [])
        if len(last) >= 2 and last[1] == "bag":
            self.draws += 1
        piece = None
        if len(last) == 4 and last[1] == "rev":
            piece, mover = last[3], int(last[0])
        elif "hand" in c:
            piece = c["hand"][0]
        if piece and self.colour is None and not self.one_side:
            red = piece.isupper() == (mover in self.mates)
            self.colour = "red" if red else "black"

    def mine(self, x):
        """Whether we may move the piece letter x (upper case red, lower case black)."""
        if not x.isalpha() or x == "X":
            return False
        return self.one_side or (self.colour is not None and x.isupper() == (self.colour == "red"))

    def takes(self, a, t):
        """Whether piece a may take piece t by a step (kinds compared in upper case)."""
        a, t = a.upper(), t.upper()
        if {(a, t), (a, "*"), ("*", t)} & self.allow:
            return True
        if {(a, t), (a, "*"), ("*", t)} & self.forbid:
            return False
        return self.ranks.get(a, 0) >= self.ranks.get(t, 99)

    def choose(self, c):
        """A legal action for the prompt `c`, as a clause (None: resign)."""
        board = c["board"][0].strip('"')
        empty = ".X" if self.bag else "."  # in a bag game X is an empty cell too
        cells = range(len(board))
        if self.bag and "hand" in c:  # we drew a piece: put it on any empty cell
            return "(put %s %d)" % (c["hand"][0], random.choice([i for i in cells if board[i] in empty]))
        if self.bag and self.draws < self.pieces:
            return "(bag)"
        theirs = lambda x: x.isalpha() and x != "X" and not self.one_side and not self.mine(x)
        takes = [(a, b) for a in cells if self.mine(board[a]) for b in self.moves.get(a, [])
                 if theirs(board[b]) and self.takes(board[a], board[b])]
        for line in self.lines:  # a cannon jumps one screen (any piece) onto an enemy
            if board[line[0]].upper() == "C" and self.mine(board[line[0]]):
                pieces = [i for i in line[1:] if board[i] not in empty]
                if len(pieces) >= 2 and theirs(board[pieces[1]]):
                    takes.append((line[0], pieces[1]))
        last = c.get("last", [])
        if len(last) == 4 and last[1] == "mov" and int(last[0]) == self.me:
            # Our turn again after our own move: a chain capture goes on (chain-capture), and
            # only a capture by the piece that moved is legal.
            takes = [(a, b) for a, b in takes if a == int(last[3])]
            return "(mov %d %d)" % random.choice(takes) if takes else None
        actions = ["(mov %d %d)" % ab for ab in takes]
        actions += ["(mov %d %d)" % (a, b) for a in cells if self.mine(board[a])
                    for b in self.moves.get(a, []) if board[b] in empty]
        if not self.bag:
            actions += ["(rev %d)" % i for i in cells if board[i] == "X"]
        return random.choice(actions) if actions else None


def play(addr, name):
    host, port = addr.rsplit(":", 1)
    engine, secret = Engine(), None
    # The token a tournament (or anqi check) seats us with; any seed otherwise.
    seed = os.environ.get("ANQI_TOKEN", str(random.randrange(10**9)))
    for _attempt in range(5):  # one game; come back (rejoin) after a lost connection
        sock = socket.create_connection((host, int(port)))
        out, lines = sock.makefile("w"), sock.makefile("r")
        hello = '(rejoin "%s")' % secret if secret else "(init %s %s)" % (name, seed)
        out.write("((version 1.0)%s(ext last variant rejoin))\n" % hello)
        out.flush()
        for line in lines:
            msg = parse(line)
            c = {clause[0]: clause[1:] for clause in reversed(msg)}  # clause name -> arguments
            if "id" in c:
                engine.setup(c, msg)
                secret = c.get("rejoin", [None])[0] and c["rejoin"][0].strip('"')
            elif "error" in c:
                print("anqi said:", line.strip(), file=sys.stderr)
            elif "win" in c:
                return 0
            elif "turn" in c or "info" in c:
                mover = int((c.get("turn") or c["info"])[1])
                engine.learn(c, mover)
                if "turn" in c:
                    action = engine.choose(c)
                    out.write("((board %s)%s)\n" % (c["board"][0], action) if action else "((resign))\n")
                    out.flush()
        if not secret:
            return 1  # the connection closed without a result, and we cannot come back
    return 1


if __name__ == "__main__":
    sys.exit(play(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "template"))
