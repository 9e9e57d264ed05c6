#!/usr/bin/env python3
"""A minimal engine for the Computer Chinese Dark Chess game platform (the cdc-platform bridge,
protocol/bridges/CDC-PLATFORM.md), standard library only.

    anqi bridge --protocol cdc-platform --connect HOST:PORT -- python3 cdc_platform_template.py
    anqi check "cdc-platform:python3 cdc_platform_template.py"

The engine is a TCP client of the platform (here the bridge): the host and port come last on
its command line. It plays a legal random ply of the traditional game: a flip, a step to an
empty square, or a capture by a step under the standard ranks (never a cannon's jump: the
protocol cannot say whether the variant's cannons jump, and in hong-kong they do not; a flip is
legal while any piece is face-down). Replace choose() with your own search. Squares are (X, Y): X 0..3, Y 0..7; piece codes 1-7 red K G B R N C P,
9-15 black, 8 face-down, 0 empty.
"""
import random
import socket
import sys

RANK = {1: 7, 2: 6, 3: 5, 4: 4, 5: 3, 6: 2, 7: 1}  # red codes; black ones are 8 more
SQUARES = [(x, y) for y in range(8) for x in range(4)]  # /start's order: index 4 * Y + X


def frame(text):
    data = text.encode()
    return bytes([len(data) % 128, len(data) // 128]) + data


def read_frame(sock):
    head = sock.recv(2, socket.MSG_WAITALL)
    if len(head) < 2:
        return None  # the bridge closed the connection: the game is over
    n = head[0] + 128 * head[1]
    return sock.recv(n, socket.MSG_WAITALL).decode(errors="replace").strip("\0 ")


class Engine:
    def __init__(self):
        self.board, self.colour, self.first, self.plies = {}, None, False, 0

    def mine(self, code):
        return code not in (0, 8) and self.colour is not None and (code < 8) == (self.colour == 0)

    def theirs(self, code):
        return code not in (0, 8) and self.colour is not None and (code < 8) != (self.colour == 0)

    def takes(self, a, t):
        """Whether piece a takes piece t by a step (a cannon takes only by a jump)."""
        ra, rt = RANK[a if a < 8 else a - 8], RANK[t if t < 8 else t - 8]
        if ra == 2:
            return False
        if (ra, rt) == (1, 7):
            return True  # a pawn takes the king
        return ra >= rt and (ra, rt) != (7, 1)  # but the king never takes a pawn

    def choose(self):
        """A legal ply, as the platform writes it (None: nothing legal is left)."""
        b = self.board
        plies = ["/flip %d %d" % s for s in SQUARES if b[s] == 8]
        for (x, y) in SQUARES:
            if not self.mine(b[(x, y)]):
                continue
            for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                t = (x + dx, y + dy)
                if t in b and (b[t] == 0 or self.theirs(b[t]) and self.takes(b[(x, y)], b[t])):
                    plies.append("/move %d %d %d %d" % ((x, y) + t))
        return random.choice(plies) if plies else None

    def echo(self, words):
        """A ply played (ours or theirs): update the board, and learn our colour from the
        first flip when /turn did not say it."""
        ours = (self.plies % 2 == 0) == self.first
        self.plies += 1
        if words[0] == "/flip":
            x, y, piece = int(words[1]), int(words[2]), int(words[3])
            self.board[(x, y)] = piece
            if self.colour is None:
                red = piece < 8
                self.colour = 0 if red == ours else 1
        else:
            sx, sy, dx, dy = (int(w) for w in words[1:5])
            self.board[(dx, dy)], self.board[(sx, sy)] = self.board[(sx, sy)], 0


def play(host, port):
    sock = socket.create_connection((host, port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    engine = Engine()
    while True:
        text = read_frame(sock)
        if text is None:
            return 0
        words = text.split()
        if words[0] == "/start":  # the board, the face-down counts, a history, our time
            numbers = [int(n) for n in text[len("/start "):].split(",")]
            engine.board = {s: numbers[i] for i, s in enumerate(SQUARES)}
            sock.sendall(frame("/start"))
            continue
        if words[0] == "/turn":  # who plays first, and our colour (2: the first flip says)
            engine.first = words[1] == "1"
            engine.colour = None if words[2] == "2" else int(words[2])
            sock.sendall(frame("/turn"))
        else:
            engine.echo(words)
        # Our turn: after /turn if we play first, else after each ply of the opponent's.
        if (engine.plies % 2 == 0) == engine.first:
            ply = engine.choose()
            if ply:
                sock.sendall(frame(ply))


if __name__ == "__main__":
    sys.exit(play(sys.argv[-2], int(sys.argv[-1])))
