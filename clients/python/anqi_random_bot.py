#!/usr/bin/env python3
"""A random player for the anqi (Chinese Dark Chess) server, standard library only.

It exists to show that the protocol can be implemented from its description alone. It
reads every message, works out which actions the rules allow, and plays one of them at
random.

The protocol in brief
---------------------
The client and server talk over TCP. Each message is one S-expression list of clauses,
and each clause is a list that starts with a symbol. The server ends each message with a
newline, but a reader should find where a message ends by matching parentheses (strings in
"double quotes" with backslash escapes count as text, not as parentheses), because TCP can
split one message across reads or deliver several in one read.

    server: ((version 1.0))
    client: ((init py_random 1234))                 name, then our seed contribution
    server: ((id 1)(players 2)(game traditional)(size 8)(pieces KPPPkppp)
             (moves (0 1)(0 4)...)(jumps (0 2 3)...)(revs (0)(1)...))      setup, one line
    server: ((board XXXXXXXX)(turn 0 1))            player 1 must act (ply 0)
            ((board XXXXXXXX)(info 0 1))            what the other players get
    client: ((board XXXXXXXX)(rev 5))               reveal cell 5, echoing the board
            ((board KPXXpXXX)(mov 4 0))             or move/capture from 4 to 0
            ((resign))                              or give up
    server: ((error illegal "text"))                our action was refused; the server
                                                    then sends turn again
    server: ((win 1 0))                             player 1 (team 0) won; (win 0 0) is
                                                    a draw. The server then hangs up.

Clauses this bot does not know, such as (team T), (hand P) or (puts ...), are ignored so
that newer servers still work with it.

The board is a string with one character per cell, cell 0 first. Upper case letters are
red pieces and lower case are black: K king, G guard, B bishop, R rook, N knight, C
cannon, P pawn. ``X`` is a face-down piece and ``.`` is an empty cell. The setup lists the
board's single steps (``moves``) and the straight lines along which cannons jump
(``jumps``, in a compact form that :meth:`Topology.from_wire` explains).

Run ``anqi_random_bot.py --help`` for the command line.
"""

from __future__ import annotations

import argparse
import random
import re
import socket
import sys
from dataclasses import dataclass, field
from typing import Iterable, Optional, TextIO, Union

# -----------------------------------------------------------------------------------------
# S-expressions
# -----------------------------------------------------------------------------------------


class Symbol(str):
    """A bare word such as ``board``, ``rev`` or ``KPXXpXXX``.

    It is a ``str`` subclass so it compares equal to plain text. The separate type
    lets code tell a bare symbol from a "quoted string". Clause heads must be symbols.
    """

    def __repr__(self) -> str:
        return f"Symbol({str.__repr__(self)})"


# What the reader produces: integers, symbols, strings, and lists of those.
Value = Union[int, Symbol, str, list["Value"]]


class ProtocolError(Exception):
    """The server sent something this client cannot understand or cannot go on from."""


# A bare token made only of digits (with an optional sign) is a number. Anything else,
# like ``1.0`` or ``.P.P.XPX``, stays a symbol. This keeps board strings and version
# numbers exactly as they were written.
_INTEGER = re.compile(r"[+-]?[0-9]+\Z")

# Characters that end a bare token.
_DELIMITERS = frozenset(" \t\r\n\f\v()\";")

# String escapes that follow the Scheme/R7RS style the server uses. ``\xHH;`` is handled
# separately.
_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "0": "\0"}


def parse_sexp(text: str) -> Value:
    """Parse exactly one S-expression from ``text`` and return it.

    Lists become Python lists. Integers become ``int``. Bare words become
    :class:`Symbol`, and quoted strings become ``str`` with their escapes decoded. A
    ``;`` starts a comment that runs to the end of the line.

    Raises :class:`ProtocolError` if the text is not exactly one well-formed expression.
    """
    reader = _Reader(text)
    value = reader.read()
    reader.skip_blank()
    if reader.pos != len(text):
        raise ProtocolError(f"unexpected text after the expression: {text[reader.pos:reader.pos + 20]!r}")
    return value


class _Reader:
    """A small recursive-descent reader over a string, used by :func:`parse_sexp`."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def skip_blank(self) -> None:
        """Skip whitespace and ``;`` comments."""
        text = self.text
        while self.pos < len(text):
            ch = text[self.pos]
            if ch.isspace():
                self.pos += 1
            elif ch == ";":
                end = text.find("\n", self.pos)
                self.pos = len(text) if end < 0 else end + 1
            else:
                break

    def read(self) -> Value:
        self.skip_blank()
        if self.pos >= len(self.text):
            raise ProtocolError("unexpected end of input")
        ch = self.text[self.pos]
        if ch == "(":
            self.pos += 1
            items: list[Value] = []
            while True:
                self.skip_blank()
                if self.pos >= len(self.text):
                    raise ProtocolError("unclosed '('")
                if self.text[self.pos] == ")":
                    self.pos += 1
                    return items
                items.append(self.read())
        if ch == ")":
            raise ProtocolError("')' without a matching '('")
        if ch == '"':
            return self.read_string()
        return self.read_atom()

    def read_string(self) -> str:
        self.pos += 1  # opening quote
        out: list[str] = []
        text = self.text
        while self.pos < len(text):
            ch = text[self.pos]
            self.pos += 1
            if ch == '"':
                return "".join(out)
            if ch != "\\":
                out.append(ch)
                continue
            if self.pos >= len(text):
                break
            esc = text[self.pos]
            self.pos += 1
            if esc in _ESCAPES:
                out.append(_ESCAPES[esc])
            elif esc == "x":
                # \xHH; : a character given by its hexadecimal code.
                end = text.find(";", self.pos)
                if end < 0:
                    raise ProtocolError("unterminated \\x escape in a string")
                try:
                    out.append(chr(int(text[self.pos:end], 16)))
                except ValueError as exc:
                    raise ProtocolError(f"bad \\x escape in a string: {text[self.pos:end]!r}") from exc
                self.pos = end + 1
            else:
                # Unknown escapes are kept as the escaped character itself rather than
                # rejected. An error text with an odd escape should not kill the bot.
                out.append(esc)
        raise ProtocolError("unterminated string")

    def read_atom(self) -> Union[int, Symbol]:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in _DELIMITERS:
            self.pos += 1
        token = self.text[start:self.pos]
        if _INTEGER.match(token):
            return int(token)
        return Symbol(token)


# Symbols the server can read back unchanged. This is the same rule the server uses when it
# prints. Anything else is sent as a quoted string.
_BARE = re.compile(r"[A-Za-z0-9!$%&*+\-./:<=>?@^_~]+\Z")


def format_atom(value: Union[int, str]) -> str:
    """Write one atom: an integer, a bare symbol if that is safe, or a quoted string."""
    if isinstance(value, int):
        return str(value)
    if _BARE.match(value) and not value.startswith("#") and value != "." and not _INTEGER.match(value):
        return value
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def format_message(*clauses: Iterable[Union[int, str]]) -> str:
    """Write one message from flat clauses, ending with a newline.

    ``format_message(("board", "XX"), ("rev", 1))`` returns ``'((board XX)(rev 1))\\n'``.
    """
    parts = ["(" + " ".join(format_atom(item) for item in clause) + ")" for clause in clauses]
    return "(" + "".join(parts) + ")\n"


# -----------------------------------------------------------------------------------------
# Framing
# -----------------------------------------------------------------------------------------


class FrameScanner:
    """Cuts a byte stream into messages. Each message is one balanced top-level list.

    Feed it whatever ``recv`` returned. It gives back every message that is now
    complete. It never relies on newlines, because TCP may split a message across reads
    or join several into one read. It tracks strings (a ``)`` inside ``"..."`` does not
    count) and ``;`` comments.
    """

    #: A message longer than this is treated as a protocol error. The limit keeps memory
    #: use bounded if the server goes wrong. Real messages are a few kilobytes.
    MAX_BYTES = 1 << 20

    def __init__(self) -> None:
        self._buf = bytearray()
        self._depth = 0
        self._in_string = False
        self._escape = False
        self._in_comment = False

    def feed(self, data: bytes) -> list[bytes]:
        """Add received bytes and return the complete messages they finish, in order."""
        frames: list[bytes] = []
        for byte in data:
            ch = chr(byte)  # bytes >= 0x80 (UTF-8 in strings) are never syntax, so this is safe
            if self._in_comment:
                if ch == "\n":
                    self._in_comment = False
                continue
            if self._depth == 0:
                # Between messages: only whitespace, comments or the start of a new message.
                if ch == "(":
                    self._buf = bytearray(b"(")
                    self._depth = 1
                elif ch == ";":
                    self._in_comment = True
                elif not ch.isspace():
                    raise ProtocolError(f"expected '(' to start a message, got {ch!r}")
                continue
            self._buf.append(byte)
            if len(self._buf) > self.MAX_BYTES:
                raise ProtocolError(f"message longer than {self.MAX_BYTES} bytes")
            if self._in_string:
                if self._escape:
                    self._escape = False
                elif ch == "\\":
                    self._escape = True
                elif ch == '"':
                    self._in_string = False
            elif ch == '"':
                self._in_string = True
            elif ch == ";":
                self._in_comment = True
            elif ch == "(":
                self._depth += 1
            elif ch == ")":
                self._depth -= 1
                if self._depth == 0:
                    frames.append(bytes(self._buf))
                    self._buf = bytearray()
        return frames

    @property
    def mid_message(self) -> bool:
        """True while part of a message has been received but not all of it."""
        return self._depth > 0


# -----------------------------------------------------------------------------------------
# Board topology
# -----------------------------------------------------------------------------------------


@dataclass
class Topology:
    """The cells of a board, their single steps, and the cannon rays.

    ``neighbours[c]`` lists the cells one step from ``c``. ``rays[c]`` lists the straight
    lines leaving ``c``. Each ray starts with the adjacent cell, which can only be a
    screen, and runs out to the farthest target.
    """

    size: int
    neighbours: list[list[int]]
    rays: list[list[list[int]]]

    @classmethod
    def from_wire(cls, size: int, moves: list[tuple[int, int]], jumps: list[tuple[int, int, int]]) -> "Topology":
        """Build a topology from the setup clauses ``size``, ``moves`` and ``jumps``.

        A jump clause ``(ORI TG_I TG_F)`` names one ray from ``ORI`` by its targets, which
        are the cells at distance 2 or more. The ray's cells are ``ORI+d``, ``ORI+2d``, and
        so on, where each consecutive pair is a move. The clause does not give ``d``, so
        this method tries each neighbour ``ORI+d`` of ``ORI`` and keeps the one whose cell at
        distance 2 and farthest cell are ``{TG_I, TG_F}``. On 2x4, ``(3 0 1)`` decodes to the
        ray ``[2, 1, 0]``: cell 2 can be a screen, and cells 1 and 0 are targets.

        Raises :class:`ProtocolError` if a clause names a cell outside the board or no
        direction fits.
        """
        neighbours: list[list[int]] = [[] for _ in range(size)]
        for a, b in moves:
            if not (0 <= a < size and 0 <= b < size):
                raise ProtocolError(f"move ({a} {b}) is outside a board of {size} cells")
            if b not in neighbours[a]:
                neighbours[a].append(b)
        rays: list[list[list[int]]] = [[] for _ in range(size)]
        for origin, first, last in jumps:
            if not all(0 <= c < size for c in (origin, first, last)):
                raise ProtocolError(f"jump ({origin} {first} {last}) is outside a board of {size} cells")
            ray = _decode_ray(neighbours, origin, {first, last})
            if ray is None:
                raise ProtocolError(f"jump ({origin} {first} {last}) is not a straight line of moves")
            rays[origin].append(ray)
        return cls(size, neighbours, rays)

    def jump_target_count(self) -> int:
        """The number of (cannon cell, target cell) pairs. Mainly useful for checks."""
        return sum(len(ray) - 1 for cell_rays in self.rays for ray in cell_rays)


def _decode_ray(neighbours: list[list[int]], origin: int, ends: set[int]) -> Optional[list[int]]:
    """Find the ray from ``origin`` whose distance-2 cell and last cell are ``ends``.

    ``ends`` has one element when the ray has a single target.
    """
    size = len(neighbours)
    for adjacent in neighbours[origin]:
        step = adjacent - origin
        ray = [adjacent]
        while True:
            nxt = ray[-1] + step
            # Keep going only while the next cell in the progression is a real move. This
            # stops the ray at the board's edge. On a rectangle, cell 7 + 1 = 8 exists but
            # is not a neighbour of 7.
            if not (0 <= nxt < size) or nxt not in neighbours[ray[-1]]:
                break
            ray.append(nxt)
            if {ray[1], nxt} == ends:
                return ray
    return None


# -----------------------------------------------------------------------------------------
# Pieces and rules
# -----------------------------------------------------------------------------------------

RED = "red"
BLACK = "black"
FACE_DOWN = "X"
EMPTY = "."

#: Step-capture ranks: a piece takes any piece of equal or lower rank, with the exceptions
#: in :func:`can_step_capture`.
RANKS = {"K": 7, "G": 6, "B": 5, "R": 4, "N": 3, "C": 2, "P": 1}


def colour_of(cell: str) -> Optional[str]:
    """Return ``RED`` or ``BLACK`` for a face-up piece, or ``None`` for ``X`` or ``.``."""
    if cell == FACE_DOWN or not cell.isalpha():
        return None
    return RED if cell.isupper() else BLACK


def other_colour(colour: str) -> str:
    """Return the opposing colour."""
    return BLACK if colour == RED else RED


def can_step_capture(attacker: str, target: str) -> bool:
    """Return whether ``attacker`` may take ``target`` with a single step.

    Both arguments are piece letters of either case. Colour is checked elsewhere. Higher
    or equal rank wins, except that the king cannot take a pawn, a pawn can take the king
    (a pawn takes only pawns and the king), and a cannon never takes by a step (it takes
    by jumping).
    """
    a, t = attacker.upper(), target.upper()
    if a not in RANKS or t not in RANKS:
        return False  # An unknown piece letter from a future variant: stay on the safe side.
    if a == "C":
        return False
    if a == "K" and t == "P":
        return False
    if a == "P":
        return t in ("P", "K")
    return RANKS[a] >= RANKS[t]


@dataclass(frozen=True)
class Action:
    """One thing a player can do: ``Action("rev", cell)`` or ``Action("mov", from, to)``."""

    kind: str  # "rev" or "mov"
    cell: int  # the revealed cell, or the moving piece's cell
    to: Optional[int] = None  # destination of a move

    def clause(self) -> tuple[Union[int, str], ...]:
        """The action as a wire clause, such as ``("mov", 4, 0)``."""
        return (self.kind, self.cell) if self.to is None else (self.kind, self.cell, self.to)


def legal_actions(board: str, topology: Topology, colour: Optional[str]) -> list[Action]:
    """List every legal action on ``board`` for a player owning ``colour``.

    ``colour`` is ``None`` before the player owns a colour. Then only reveals are legal,
    because there is no piece of its own to move. The list is in a stable order: reveals,
    then moves by origin cell.
    """
    actions = [Action("rev", cell) for cell, piece in enumerate(board) if piece == FACE_DOWN]
    if colour is None:
        return actions
    for cell, piece in enumerate(board):
        if colour_of(piece) != colour:
            continue
        # Single steps: onto an empty cell, or a capture of a weaker enemy. Never onto a
        # face-down piece, because nobody may capture what is not yet revealed.
        for dest in topology.neighbours[cell]:
            there = board[dest]
            if there == EMPTY or (colour_of(there) == other_colour(colour) and can_step_capture(piece, there)):
                actions.append(Action("mov", cell, dest))
        if piece.upper() == "C":
            for ray in topology.rays[cell]:
                landing = cannon_target(board, ray)
                if landing is not None and colour_of(board[landing]) == other_colour(colour):
                    actions.append(Action("mov", cell, landing))
    return actions


def cannon_target(board: str, ray: list[int]) -> Optional[int]:
    """Return the cell a cannon could land on along ``ray``, or ``None``.

    The cannon jumps over exactly one occupied cell, the screen. The screen may be any
    piece, face-up or face-down, of either colour, and empty cells may lie on either side
    of it. The landing cell is the next occupied cell after the screen. The caller checks
    that it holds an enemy piece. A face-down piece is never an enemy because its colour
    is unknown.
    """
    screen_seen = False
    for cell in ray:
        if board[cell] == EMPTY:
            continue
        if not screen_seen:
            screen_seen = True
            continue
        return cell
    return None


class ColourTracker:
    """Works out which colour each player owns by watching the boards go by.

    No one owns a colour at the start. The first piece any player turns over gives that
    player its colour, and the other player gets the other one. The server never says who
    owns what, so the tracker compares consecutive boards. The first cell that changes
    from ``X`` to a letter was revealed by the player who was to move on the earlier
    board.
    """

    def __init__(self, players: int = 2) -> None:
        self.players = players
        #: Who turned over the first piece, and that piece's colour. ``None`` until then.
        self.first_revealer: Optional[int] = None
        self.first_colour: Optional[str] = None

    def observe(self, before: str, after: str, mover: int) -> None:
        """Take in one ply: ``before`` was sent with ``mover`` to act, ``after`` came next."""
        if self.first_colour is not None or len(before) != len(after):
            return  # Colours are fixed after the first reveal.
        for old, new in zip(before, after):
            colour = colour_of(new)
            if old == FACE_DOWN and colour is not None:
                self.first_revealer, self.first_colour = mover, colour
                return

    def colour(self, player: int) -> Optional[str]:
        """Return the colour ``player`` owns, or ``None`` if it owns none yet (or if that is unknown)."""
        if self.first_colour is None:
            return None
        if player == self.first_revealer:
            return self.first_colour
        # With two players, the other player owns the other colour. With more players
        # (team variants), the first reveal alone does not say who owns what.
        return other_colour(self.first_colour) if self.players == 2 else None


# -----------------------------------------------------------------------------------------
# One game, without I/O
# -----------------------------------------------------------------------------------------


@dataclass
class Bot:
    """The protocol state of one game. It never touches a socket.

    Pass each parsed message to :meth:`handle`. It returns the lines to send back.
    Keeping the socket out of this class lets the unit tests run a whole game offline.
    """

    name: str
    seed: int
    rng: random.Random
    log: "Logger"
    my_id: Optional[int] = None
    players: int = 2
    topology: Optional[Topology] = None
    tracker: ColourTracker = field(default_factory=ColourTracker)
    #: The board from the previous ``turn``/``info`` and the player who was to move on it.
    last_board: Optional[str] = None
    last_mover: Optional[int] = None
    #: Actions the server refused as ``illegal`` on ``last_board``. They are left out when
    #: the server asks again, so a rules disagreement cannot trap the bot in a loop.
    rejected: set[Action] = field(default_factory=set)
    last_action: Optional[Action] = None
    greeted: bool = False
    result: Optional[tuple[int, int]] = None

    def handle(self, message: Value) -> list[str]:
        """Process one message from the server. Return the lines to send, often none."""
        pairs = _clauses(message)
        # Look clauses up by name. If a name repeats, the first one wins. Errors are the
        # exception: every one of them is logged.
        clauses: dict[str, list[Value]] = {}
        for head, args in pairs:
            clauses.setdefault(head, args)
        out: list[str] = []

        # Errors come first. They explain a refused action before any re-prompt that
        # arrives in the same message.
        for head, args in pairs:
            if head == "error":
                self._on_error(args)

        if "version" in clauses and not self.greeted:
            version = str(_arg(clauses["version"], 0, "version"))
            if not version.startswith("1."):
                self.log.warn(f"server speaks protocol version {version}, this bot knows 1.0; trying anyway")
            out.append(format_message(("init", self.name, self.seed)))
            self.greeted = True

        if "id" in clauses:
            self._on_setup(clauses)

        if "win" in clauses:
            args = clauses["win"]
            self.result = (_int(args, 0, "win"), _int(args, 1, "win"))
            return out

        if "board" in clauses:
            board = str(_arg(clauses["board"], 0, "board"))
            # (turn PLY ID) goes to the player who must act, (info PLY ID) to the others.
            # Both name the player to move, which the colour tracker needs.
            prompt = "turn" if "turn" in clauses else "info" if "info" in clauses else None
            if prompt is not None:
                mover = _int(clauses[prompt], 1, prompt)
                self._on_board(board, mover)
                if prompt == "turn" and mover == self.my_id:
                    out.append(self._act(board))
        return out

    # --- message parts -------------------------------------------------------------------

    def _on_error(self, args: list[Value]) -> None:
        code = str(args[0]) if args else "?"
        text = str(args[1]) if len(args) > 1 else ""
        self.log.error(f"server error {code}: {text}")
        if code == "illegal" and self.last_action is not None:
            self.rejected.add(self.last_action)

    def _on_setup(self, clauses: dict[str, list[Value]]) -> None:
        self.my_id = _int(clauses["id"], 0, "id")
        if "players" in clauses:
            self.players = _int(clauses["players"], 0, "players")
        self.tracker = ColourTracker(self.players)
        for needed in ("size", "moves"):
            if needed not in clauses:
                raise ProtocolError(f"setup message without a ({needed} ...) clause")
        size = _int(clauses["size"], 0, "size")
        moves = [(_int(m, 0, "moves"), _int(m, 1, "moves")) for m in _lists(clauses["moves"], "moves")]
        # A variant without cannon jumps may leave the clause out.
        jumps = [(_int(j, 0, "jumps"), _int(j, 1, "jumps"), _int(j, 2, "jumps"))
                 for j in _lists(clauses.get("jumps", []), "jumps")]
        self.topology = Topology.from_wire(size, moves, jumps)
        game = str(clauses["game"][0]) if clauses.get("game") else "?"
        if game != "traditional":
            self.log.warn(f"game type {game} is unknown to this bot; playing by the traditional rules")
        self.log.info(f"I am player {self.my_id} of {self.players}, game {game}, {size} cells")

    def _on_board(self, board: str, mover: int) -> None:
        if self.topology is not None and len(board) != self.topology.size:
            raise ProtocolError(f"board {board!r} has {len(board)} cells, the setup said {self.topology.size}")
        if self.last_board is not None and self.last_mover is not None:
            self.tracker.observe(self.last_board, board, self.last_mover)
        if board != self.last_board:
            self.rejected.clear()  # Refusals only apply to the position they were made in.
        self.last_board, self.last_mover = board, mover

    def _act(self, board: str) -> str:
        if self.topology is None or self.my_id is None:
            raise ProtocolError("asked to move before the setup message")
        colour = self.tracker.colour(self.my_id)
        choices = [a for a in legal_actions(board, self.topology, colour) if a not in self.rejected]
        if not choices:
            # The server should end the game when a player cannot move. If it still asks,
            # resigning is the only honest answer.
            self.log.warn("no legal action left; resigning")
            self.last_action = None
            return format_message(("resign",))
        action = self.rng.choice(choices)
        self.last_action = action
        return format_message(("board", board), action.clause())


def _clauses(message: Value) -> list[tuple[str, list[Value]]]:
    """Split a message into ``(head, arguments)`` pairs, in order.

    Raises :class:`ProtocolError` if the message is not a non-empty list of clauses.
    """
    if not isinstance(message, list) or not message:
        raise ProtocolError(f"a message must be a non-empty list of clauses, got {message!r}")
    pairs: list[tuple[str, list[Value]]] = []
    for clause in message:
        if not isinstance(clause, list) or not clause or not isinstance(clause[0], Symbol):
            raise ProtocolError(f"a clause must be a list headed by a name, got {clause!r}")
        pairs.append((str(clause[0]), clause[1:]))
    return pairs


def _arg(args: Value, index: int, head: str) -> Value:
    if not isinstance(args, list) or index >= len(args):
        raise ProtocolError(f"({head} ...) is missing a value")
    return args[index]


def _int(args: Value, index: int, head: str) -> int:
    value = _arg(args, index, head)
    if not isinstance(value, int):
        raise ProtocolError(f"({head} ...) expected a number, got {value!r}")
    return value


def _lists(args: Value, head: str) -> list[list[Value]]:
    if not isinstance(args, list) or not all(isinstance(a, list) for a in args):
        raise ProtocolError(f"({head} ...) must hold lists of numbers")
    return args  # type: ignore[return-value]


# -----------------------------------------------------------------------------------------
# Network and command line
# -----------------------------------------------------------------------------------------


class Logger:
    """Writes progress to stderr, or only warnings and errors when ``quiet`` is set.

    Logs go to stderr so that stdout holds only the one-line game results.
    """

    def __init__(self, quiet: bool, stream: Optional[TextIO] = None) -> None:
        self.quiet = quiet
        self._stream = stream

    def _write(self, text: str) -> None:
        # Look sys.stderr up on every call rather than once, so that a redirected stderr
        # (contextlib.redirect_stderr in the tests) is honoured.
        print(text, file=self._stream or sys.stderr, flush=True)

    def info(self, text: str) -> None:
        if not self.quiet:
            self._write(text)

    def warn(self, text: str) -> None:
        self._write(f"warning: {text}")

    def error(self, text: str) -> None:
        self._write(f"error: {text}")


def play_game(host: str, port: int, bot: Bot, timeout: float = 10.0) -> tuple[int, int]:
    """Connect, play one game with ``bot``, and return the ``(player, team)`` from ``(win ...)``.

    Raises ``OSError`` if the connection fails, and :class:`ProtocolError` if the server
    sends nonsense or hangs up before the game ends.
    """
    scanner = FrameScanner()
    with socket.create_connection((host, port), timeout=timeout) as sock:
        # The timeout guards only the connect. After that the opponent may think for as
        # long as the server allows, so reads block without a limit.
        sock.settimeout(None)
        # Messages are small and each one waits for an answer, so send them at once
        # instead of letting Nagle's algorithm hold them back.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        bot.log.info(f"connected to {host}:{port}")
        while True:
            data = sock.recv(65536)
            if not data:
                raise ProtocolError("the server closed the connection before the game ended")
            for frame in scanner.feed(data):
                text = frame.decode("utf-8", errors="replace")
                bot.log.info(f"<< {text}")
                for line in bot.handle(parse_sexp(text)):
                    bot.log.info(f">> {line.rstrip()}")
                    sock.sendall(line.encode("utf-8"))
                if bot.result is not None:
                    return bot.result  # The server hangs up after (win ...). Nothing more to read.
    raise ProtocolError("the game ended without a (win ...) message")  # not reached: the loop returns


def parse_address(text: str) -> tuple[str, int]:
    """Split ``HOST:PORT`` (or ``[v6addr]:PORT``) for argparse."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {text!r}")
    return host.strip("[]"), int(port)


def main(argv: Optional[list[str]] = None) -> int:
    """Run the command line. Return the process exit code: 0 if all games finished, else 1."""
    parser = argparse.ArgumentParser(description="A random player for the anqi (Chinese Dark Chess) server.")
    parser.add_argument("--connect", required=True, type=parse_address, metavar="HOST:PORT", help="server address")
    parser.add_argument("--name", default="py_random", help="player name sent in (init ...) (default: py_random)")
    parser.add_argument("--seed", type=int, default=None,
                        help="seeds this bot's choices and is sent as its seed contribution (default: random)")
    parser.add_argument("--games", type=int, default=1, metavar="N", help="games to play one after another (default: 1)")
    parser.add_argument("--quiet", action="store_true", help="log only warnings and errors to stderr")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")

    seed: int = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 2**31)
    rng = random.Random(seed)  # One generator for the whole run, so N games replay exactly from one seed.
    log = Logger(args.quiet)
    host, port = args.connect
    log.info(f"seed {seed}")

    for number in range(1, args.games + 1):
        # Game k sends seed + k - 1, so a run of games with one --seed still gets different deals.
        bot = Bot(name=args.name, seed=seed + number - 1, rng=rng, log=log)
        try:
            player, team = play_game(host, port, bot)
        except OSError as exc:
            log.error(f"game {number}: cannot talk to {host}:{port}: {exc}")
            return 1
        except ProtocolError as exc:
            log.error(f"game {number}: protocol error: {exc}")
            return 1
        print(f"game over: (win {player} {team}), I was player {bot.my_id}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
