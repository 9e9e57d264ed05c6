#!/usr/bin/env python3
"""A random player for the anqi (Chinese Dark Chess) server, standard library only.

It exists to show that the protocol can be implemented from its description alone. It
reads every message, works out which actions the rules allow, and plays one of them at
random. It plays every shipped variant: other boards, team games, the strategic (bag) game,
single-player and cooperative games, chain captures and house capture rules.

The protocol in brief
---------------------
The client and server talk over TCP. Each message is one S-expression list of clauses,
and each clause is a list that starts with a symbol. The server ends each message with a
newline, but a reader should find where a message ends by matching parentheses (strings in
"double quotes" with backslash escapes count as text, not as parentheses), because TCP can
split one message across reads or deliver several in one read.

    server: ((version 1.0))
    client: ((ext variant))                         ask for the variant's description
            ((init py_random 1234))                 name, then our seed contribution
    server: ((id 1)(players 2)(game traditional)(size 8)(pieces KPPPkppp)
             (moves (0 1)(0 4)...)(jumps (0 2 3)...)(revs (0)(1)...))      setup, one line
    server: ((board XXXXXXXX)(turn 0 1))            player 1 must act (round 0)
            ((board XXXXXXXX)(info 0 1))            what the other players get
    client: ((board XXXXXXXX)(rev 5))               reveal cell 5, echoing the board
            ((board KPXXpXXX)(mov 4 0))             or move/capture from 4 to 0
            ((resign))                              or give up
    server: ((error illegal "text"))                our action was refused; the server
                                                    then sends turn again
    server: ((win 1 0))                             player 1 won; (win 0 2) means team 2
                                                    won; (win 0 0) is a draw or a failed
                                                    single-player game. The server then
                                                    hangs up.

Other variants add a few clauses:

- Team games: the setup carries ``(team T)`` and one ``(teammate ID)`` per teammate. The
  turn order can be anything (``1 2 1 3`` in one-against-two), so the bot simply acts
  whenever ``(turn T ID)`` names its id.
- Bag (strategic) games: the setup has ``(puts ...)`` instead of ``(revs ...)``; an ``X`` on
  the board is a cell that never held a piece (an empty cell). ``((board B)(bag))`` draws a
  piece; every prompt then shows ``(hand P)`` until the same player sends
  ``((board B)(put P POS))`` onto an empty cell.
- Chain capture: after a capture, if the capturing piece can capture again, the same
  player is prompted again and must capture with that piece.
- Single-player and cooperative games: every player moves pieces of both colours.

Clauses this bot does not know are ignored, so that newer servers still work with it. The
setup's ``(revs ...)`` and ``(puts ...)`` are read past: the board itself shows which cells
can be revealed or filled.

The paper's messages never carry the capture rules, the colour rule or the objective: they
are in the variant description. This bot asks the server for it with the ``variant``
extension, ``((ext variant))`` sent before its ``init``; the setup message then ends with
``(variant "DESCRIPTION")``. ``--variant`` gives the description instead (the server's
``--variant`` should name the same one). From a server without extensions (which answers
``((error unknown ...))`` and seats the bot all the same) and without ``--variant``, the bot
assumes the standard rules (see :func:`default_variant`).

The board is a string with one character per cell, cell 0 first. Upper case letters are
red pieces and lower case are black: K king, G guard, B bishop, R rook, N knight, C
cannon, P pawn. ``X`` is a face-down piece and ``.`` is an empty cell. The setup lists the
board's single steps (``moves``) and the lines along which cannons jump (``jumps``, in a
compact form that :meth:`Topology.from_wire` explains).

Run ``anqi_random_bot.py --help`` for the command line.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import socket
import sys
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, NamedTuple, Optional, TextIO, Union

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

        A jump clause ``(ORI TG_I TG_F)`` names one ray from ``ORI`` by its targets, the
        cells at distance 2 or more; it does not say which way the ray goes. The server's
        decoding rule works for any board shape, holes and odd numberings included: the
        ray is the *unique shortest path of moves* from ``ORI`` to the farther of ``TG_I``
        and ``TG_F``, and the nearer one is its cell at distance 2. The server refuses to
        start with a board whose rays break this rule, so a breadth-first search that
        counts shortest paths always finds them. On 2x4, ``(3 0 1)`` decodes to the ray
        ``[2, 1, 0]``: cell 2 can be a screen, and cells 1 and 0 are targets.

        Raises :class:`ProtocolError` if a clause names a cell outside the board or does
        not decode.
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
            ray = decode_ray(neighbours, origin, first, last)
            if ray is None:
                raise ProtocolError(
                    f"jump ({origin} {first} {last}) is not the unique shortest path of moves from "
                    f"{origin} with its first target at distance 2")
            rays[origin].append(ray)
        return cls(size, neighbours, rays)

    def jump_target_count(self) -> int:
        """The number of (cannon cell, target cell) pairs. Mainly useful for checks."""
        return sum(len(ray) - 1 for cell_rays in self.rays for ray in cell_rays)


def decode_ray(neighbours: list[list[int]], origin: int, a: int, b: int) -> Optional[list[int]]:
    """Return the ray from ``origin`` whose targets run from ``a`` to ``b`` (either order).

    This is the server's rule (``Topology::decode_ray``): the longer of the two unique
    shortest paths is the ray, and the other end must be its cell at distance 2. ``a``
    and ``b`` are equal when the ray has a single target. ``None`` if the clause does not
    decode.
    """
    to_a = unique_shortest_path(neighbours, origin, a)
    to_b = unique_shortest_path(neighbours, origin, b)
    if to_a is None or to_b is None:
        return None
    ray = to_a if len(to_a) >= len(to_b) else to_b
    near = b if ray[-1] == a else a
    return ray if len(ray) >= 2 and ray[1] == near else None


def unique_shortest_path(neighbours: list[list[int]], start: int, goal: int) -> Optional[list[int]]:
    """The cells of the only shortest path of moves from ``start`` to ``goal``, without ``start``.

    Returns ``None`` when there is no path, or more than one of the shortest length (then
    the clause would be ambiguous, and the server never sends such a ray). A breadth-first
    search counts the shortest paths to each cell, capped at 2 since only "one" matters,
    and keeps one parent per cell to walk the path back.
    """
    if start == goal:
        return None
    size = len(neighbours)
    dist = [-1] * size
    paths = [0] * size
    parent = [-1] * size
    dist[start], paths[start] = 0, 1
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        if cell == goal:
            # Every cell one step nearer was dequeued before this one, so the count is final.
            break
        for nxt in neighbours[cell]:
            if dist[nxt] < 0:
                dist[nxt], paths[nxt], parent[nxt] = dist[cell] + 1, paths[cell], cell
                queue.append(nxt)
            elif dist[nxt] == dist[cell] + 1:
                paths[nxt] = min(paths[nxt] + paths[cell], 2)
    if paths[goal] != 1:
        return None
    path = [goal]
    while parent[path[-1]] != start:
        path.append(parent[path[-1]])
    path.reverse()
    return path


# -----------------------------------------------------------------------------------------
# Pieces and rules
# -----------------------------------------------------------------------------------------

RED = "red"
BLACK = "black"
#: What a player may move in single-player and cooperative games: pieces of both colours.
BOTH = "both"
FACE_DOWN = "X"
EMPTY = "."

#: The seven kinds, strongest first in the standard rank order.
KINDS = "KGBRNCP"

#: Standard step-capture ranks: a piece takes any piece of equal or lower rank, with the
#: exceptions of the standard rules (see :meth:`CaptureRules.standard`).
RANKS = {"K": 7, "G": 6, "B": 5, "R": 4, "N": 3, "C": 2, "P": 1}


class StepException(NamedTuple):
    """``(forbid (A T))`` or ``(allow (A T))`` of a variant: ``target`` ``None`` means ``*``."""

    attacker: str
    target: Optional[str]
    allowed: bool


@dataclass
class CaptureRules:
    """Who may capture whom, as the variant description says.

    ``step`` holds every (attacker, target) pair of upper-case kind letters where a step
    capture is allowed; it is built once, like the server's table, so a lookup is cheap.
    """

    ranks: dict[str, int]
    step: frozenset[tuple[str, str]]
    #: Whether cannons capture by jumping one screen. Without it they only step (Hong Kong).
    cannon_jump: bool = True

    @classmethod
    def build(cls, ranks: dict[str, int], exceptions: Iterable[StepException], cannon_jump: bool) -> "CaptureRules":
        """Build the table as the server does: rank order first, then every forbid, then every allow.

        The order matters when both name the same pair: an allow always wins.
        """
        step = {(a, t) for a in KINDS for t in KINDS if ranks[a] >= ranks[t]}
        exceptions = list(exceptions)
        for allowed in (False, True):
            for exc in exceptions:
                if exc.allowed != allowed:
                    continue
                for t in KINDS:
                    if exc.target is None or exc.target == t:
                        (step.add if allowed else step.discard)((exc.attacker, t))
        return cls(dict(ranks), frozenset(step), cannon_jump)

    @classmethod
    def standard(cls) -> "CaptureRules":
        """The standard Taiwanese / ICGA rules: K > G > B > R > N > C > P; the king cannot
        take a pawn, a pawn takes the king, and a cannon never takes by a step but jumps."""
        return cls.build(RANKS, [StepException("K", "P", False), StepException("C", None, False),
                                 StepException("P", "K", True)], True)

    def can_step_capture(self, attacker: str, target: str) -> bool:
        """Whether piece ``attacker`` may take ``target`` by one step (letters of either case).

        Colour is checked elsewhere. An unknown letter from a future variant is never a
        capture, to stay on the safe side.
        """
        return (attacker.upper(), target.upper()) in self.step

    def jumps(self, piece: str) -> bool:
        """Whether ``piece`` captures by jumping (only cannons, and only if the variant says so)."""
        return self.cannon_jump and piece.upper() == "C"


STANDARD_RULES = CaptureRules.standard()


def colour_of(cell: str) -> Optional[str]:
    """Return ``RED`` or ``BLACK`` for a face-up piece, or ``None`` for ``X`` or ``.``."""
    if cell == FACE_DOWN or not cell.isalpha():
        return None
    return RED if cell.isupper() else BLACK


def other_colour(colour: str) -> str:
    """Return the opposing colour."""
    return BLACK if colour == RED else RED


def controls(control: Optional[str], colour: Optional[str]) -> bool:
    """Whether a player with ``control`` (``None``, ``RED``, ``BLACK`` or ``BOTH``) moves ``colour``."""
    return colour is not None and (control == BOTH or control == colour)


def can_step_capture(attacker: str, target: str) -> bool:
    """Return whether ``attacker`` may take ``target`` with a single step, by the standard rules.

    Higher or equal rank wins, except that the king cannot take a pawn, a pawn can take the
    king (a pawn takes only pawns and the king), and a cannon never takes by a step.
    """
    return STANDARD_RULES.can_step_capture(attacker, target)


@dataclass(frozen=True)
class Action:
    """One thing a player can do.

    ``Action("rev", cell)``, ``Action("mov", from, to)``, ``Action("bag")`` or
    ``Action("put", cell, piece="P")``.
    """

    kind: str  # "rev", "mov", "bag" or "put"
    cell: Optional[int] = None  # the revealed cell, the moving piece's cell, or where a put goes
    to: Optional[int] = None  # destination of a move
    piece: Optional[str] = None  # the piece letter of a put

    def clause(self) -> tuple[Union[int, str], ...]:
        """The action as a wire clause, such as ``("mov", 4, 0)`` or ``("put", "P", 7)``."""
        if self.kind == "bag":
            return ("bag",)
        if self.kind == "put":
            assert self.piece is not None and self.cell is not None
            return ("put", self.piece, self.cell)
        assert self.cell is not None
        return (self.kind, self.cell) if self.to is None else (self.kind, self.cell, self.to)


def legal_actions(
    board: str,
    topology: Topology,
    control: Optional[str],
    rules: CaptureRules = STANDARD_RULES,
    *,
    hand: Optional[str] = None,
    chain: Optional[int] = None,
    bag: bool = False,
) -> list[Action]:
    """List every legal action, in the same order as the server's ``PublicState::for_each_legal``.

    ``board`` uses ``X`` only for face-down pieces (a bag game's never-filled cells must be
    turned into ``.`` first). ``control`` is what the player may move: ``None`` before it
    owns a colour (then only reveals and bag draws are legal), ``RED``, ``BLACK``, or
    ``BOTH`` in single-player and cooperative games.

    - ``hand``: the piece the player drew and must put: only puts onto empty cells.
    - ``chain``: a chain capture is in progress: only captures by the piece on that cell.
    - otherwise every reveal and every move of a controlled piece, cell by cell, and
      ``(bag)`` last when ``bag`` says a draw is possible.
    """
    if hand is not None:
        return [Action("put", cell, piece=hand) for cell, there in enumerate(board) if there == EMPTY]
    if chain is not None:
        return moves_from(board, topology, rules, chain, captures_only=True)
    actions: list[Action] = []
    for cell, piece in enumerate(board):
        if piece == FACE_DOWN:
            actions.append(Action("rev", cell))
        elif controls(control, colour_of(piece)):
            actions.extend(moves_from(board, topology, rules, cell, captures_only=False))
    if bag:
        actions.append(Action("bag"))
    return actions


def moves_from(board: str, topology: Topology, rules: CaptureRules, cell: int, captures_only: bool) -> list[Action]:
    """Every move of the face-up piece on ``cell`` (only its captures if ``captures_only``).

    Captures are of the other colour than the moving piece, which is what matters when a
    player moves both colours. Single steps go onto an empty cell, or onto an enemy the
    rules let this piece take; never onto a face-down piece, because nobody may capture
    what is not yet revealed. A jumping cannon takes any face-up enemy beyond one screen.
    """
    piece = board[cell]
    colour = colour_of(piece)
    if colour is None:
        return []
    out: list[Action] = []
    for dest in topology.neighbours[cell]:
        there = board[dest]
        if there == EMPTY:
            ok = not captures_only
        elif there == FACE_DOWN:
            ok = False
        else:
            ok = colour_of(there) == other_colour(colour) and rules.can_step_capture(piece, there)
        if ok:
            out.append(Action("mov", cell, dest))
    if rules.jumps(piece):
        for ray in topology.rays[cell]:
            landing = cannon_target(board, ray)
            if landing is not None and colour_of(board[landing]) == other_colour(colour):
                out.append(Action("mov", cell, landing))
    return out


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


# -----------------------------------------------------------------------------------------
# Variant descriptions
# -----------------------------------------------------------------------------------------

#: Where the shipped descriptions live: ``protocol/variants`` at the repository root, two
#: levels above this file (``clients/python/``).
VARIANTS_DIR = Path(__file__).resolve().parent.parent.parent / "protocol" / "variants"

#: Every clause a description may have (the server refuses any other, so this reader does too).
_VARIANT_CLAUSES = frozenset({
    "name", "summary", "game", "board", "pieces", "ranks", "step-capture", "cannon-jump",
    "players", "sides", "order", "start", "colours", "objective", "chain-capture", "clock",
    "no-progress", "repetition",
})

class VariantError(Exception):
    """A variant description cannot be found or does not make sense."""


@dataclass
class Variant:
    """The rules of a variant that decide which actions are legal.

    Draw rules and clocks are the referee's business and are not kept: they never make an
    action illegal.
    """

    name: str
    #: The value of ``(game TYPE)``, which the setup message repeats.
    game: str
    #: The number of cells of the board.
    size: int
    #: Every piece of the game, both colours.
    pieces: str
    capture: CaptureRules = field(default_factory=CaptureRules.standard)
    players: int = 2
    #: The players of each side: two sides in a competitive game, one in a ``clear`` game.
    sides: list[list[int]] = field(default_factory=lambda: [[1], [2]])
    #: ``face-down``, ``open``, ``bag``, ``reveal`` or ``fixed``.
    start: str = "face-down"
    #: ``(colours fixed)``: side 1 plays red and side 2 black from the start. Otherwise the
    #: first piece revealed or drawn from the bag decides.
    fixed_colours: bool = False
    #: ``(objective (clear N))``: the ply cap N, and every player moves both colours.
    #: ``None`` for the competitive ``capture`` objective.
    ply_cap: Optional[int] = None
    #: A capturing piece that can capture again must, in the same turn.
    chain_capture: bool = False
    summary: str = ""

    @property
    def bag(self) -> bool:
        """Whether this is a bag (strategic) game: pieces are drawn and put, never revealed."""
        return self.start == "bag"

    @property
    def both_colours(self) -> bool:
        """Whether every player moves pieces of both colours (single-player and cooperative)."""
        return self.ply_cap is not None


def default_variant(game: str, pieces: str, players: int, size: int) -> Variant:
    """The rules to assume without ``--variant``, as the Rust client does.

    Standard capture rules; ``(game strategic...)`` means a bag game, and ``(game single)``
    or ``(game cooperative)`` means every player moves both colours. Everything else comes
    from the setup message.
    """
    both = game in ("single", "cooperative")
    return Variant(
        name=game,
        game=game,
        size=size,
        pieces=pieces,
        players=players,
        sides=[list(range(1, players + 1))] if both else [[1], [2]],
        start="bag" if game.startswith("strategic") else "face-down",
        ply_cap=2**32 - 1 if both else None,
    )


def shipped_variants() -> list[str]:
    """The names of the shipped descriptions, sorted."""
    return sorted(path.stem for path in VARIANTS_DIR.glob("*.sexp"))


def load_variant(name_or_path: str) -> Variant:
    """Read a variant as the server's ``--variant`` does: a shipped name first, else a file.

    Raises :class:`VariantError` naming the shipped variants when neither exists.
    """
    shipped = VARIANTS_DIR / f"{name_or_path}.sexp"
    # A shipped name is a bare word; anything with a path separator is taken as a file.
    if "/" not in name_or_path and "\\" not in name_or_path and shipped.is_file():
        path = shipped
    elif Path(name_or_path).is_file():
        path = Path(name_or_path)
    else:
        names = ", ".join(shipped_variants()) or f"none found in {VARIANTS_DIR}"
        raise VariantError(f"no shipped variant is named {name_or_path!r} and no such file exists; shipped: {names}")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise VariantError(f"cannot read {path}: {exc}") from exc
    try:
        return parse_variant(text)
    except VariantError as exc:
        raise VariantError(f"{path}: {exc}") from exc


def parse_variant(text: str) -> Variant:
    """Parse a description ``(variant (name ...) ...)`` into the rules this bot needs.

    It checks what it reads the way the server does (every clause known and given once,
    ranks for all seven kinds, players on sides), so a description the server would
    refuse is refused here too, with the clause named.
    """
    try:
        value = parse_sexp(text)
    except ProtocolError as exc:
        raise VariantError(f"not a valid S-expression: {exc}") from exc
    if not isinstance(value, list) or not value or value[0] != "variant" or not isinstance(value[0], Symbol):
        raise VariantError("a description is one list that starts with (variant")
    clauses: dict[str, list[Value]] = {}
    for item in value[1:]:
        if not isinstance(item, list) or not item or not isinstance(item[0], Symbol):
            raise VariantError(f"every clause is a list (KEY VALUE...), found {item!r}")
        key = str(item[0])
        if key not in _VARIANT_CLAUSES:
            raise VariantError(f"({key} ...): unknown clause; known clauses: {', '.join(sorted(_VARIANT_CLAUSES))}")
        if key in clauses:
            raise VariantError(f"({key} ...): given twice")
        clauses[key] = item[1:]
    for key in ("name", "board", "pieces"):
        if key not in clauses:
            raise VariantError(f"missing clause ({key} ...)")

    name = _one_name(clauses, "name")
    size = _board_size(clauses["board"])
    pieces = _one_name(clauses, "pieces")
    if not pieces or any(ch.upper() not in KINDS for ch in pieces):
        raise VariantError(f"(pieces ...): {pieces!r} is not a string of piece letters (KGBRNCP, kgbrncp)")
    if len(pieces) > size:
        raise VariantError(f"(pieces ...): {len(pieces)} pieces do not fit on {size} cells")
    if not any(ch.isupper() for ch in pieces) or not any(ch.islower() for ch in pieces):
        raise VariantError("(pieces ...): both colours need at least one piece")

    ranks = _ranks(clauses["ranks"]) if "ranks" in clauses else dict(RANKS)
    exceptions = _exceptions(clauses.get("step-capture", []))
    cannon_jump = _boolean(clauses, "cannon-jump", True)
    players = _count(clauses, "players", 2)
    if not 1 <= players <= 64:
        raise VariantError("(players ...): a game has 1 to 64 players")
    ply_cap = _objective(clauses["objective"]) if "objective" in clauses else None
    if "sides" in clauses:
        sides = _sides(clauses["sides"], players)
    elif ply_cap is not None:
        sides = [list(range(1, players + 1))]
    elif players == 2:
        sides = [[1], [2]]
    else:
        raise VariantError("(players ...): with more than two players, say who plays with whom: (sides (1 3) (2 4))")
    if ply_cap is None and len(sides) != 2:
        raise VariantError("(sides ...): a competitive game has exactly two sides")
    if ply_cap is not None and len(sides) != 1:
        raise VariantError("(sides ...): in a (clear N) game every player is on one side")
    start = _start(clauses["start"]) if "start" in clauses else "face-down"
    colours = _one_name(clauses, "colours") if "colours" in clauses else "first-reveal"
    if colours not in ("first-reveal", "fixed"):
        raise VariantError(f"(colours ...): unknown rule {colours!r}; known: first-reveal, fixed")
    return Variant(
        name=name,
        game=_one_name(clauses, "game") if "game" in clauses else "traditional",
        size=size,
        pieces=pieces,
        capture=CaptureRules.build(ranks, exceptions, cannon_jump),
        players=players,
        sides=sides,
        start=start,
        fixed_colours=colours == "fixed",
        ply_cap=ply_cap,
        chain_capture=_boolean(clauses, "chain-capture", False),
        summary=_one_name(clauses, "summary") if "summary" in clauses else "",
    )


def _one_name(clauses: dict[str, list[Value]], key: str) -> str:
    """A clause with one symbol, string or number, as text: ``(name "2v2")``, ``(game single)``."""
    args = clauses[key]
    if len(args) != 1 or isinstance(args[0], list):
        raise VariantError(f"({key} ...): expected exactly one name or string")
    return str(args[0])


def _count(clauses: dict[str, list[Value]], key: str, default: int) -> int:
    if key not in clauses:
        return default
    args = clauses[key]
    if len(args) == 1:
        value = args[0]
        if isinstance(value, int) and value >= 0:
            return value
    raise VariantError(f"({key} ...): expected one whole number")


def _boolean(clauses: dict[str, list[Value]], key: str, default: bool) -> bool:
    if key not in clauses:
        return default
    args = clauses[key]
    if len(args) == 1 and args[0] in ("#t", "#true"):
        return True
    if len(args) == 1 and args[0] in ("#f", "#false"):
        return False
    raise VariantError(f"({key} ...): expected #t or #f")


def _board_size(args: list[Value]) -> int:
    """The number of cells of ``(board (rectangle L C))`` or ``(board (shape "ROW" ...))``.

    In a shape, every character but ``.`` and space is a cell (the server's rule).
    """
    shape = args[0] if len(args) == 1 and isinstance(args[0], list) and args[0] else None
    if shape is not None and shape[0] == "rectangle":
        dims = [d for d in shape[1:] if isinstance(d, int) and d > 0]
        if len(dims) == 2 == len(shape) - 1 and dims[0] * dims[1] >= 2:
            return dims[0] * dims[1]
        raise VariantError("(board ...): expected (rectangle LINES COLUMNS) with at least 2 cells")
    if shape is not None and shape[0] == "shape":
        rows = shape[1:]
        if rows and all(isinstance(r, str) and not isinstance(r, Symbol) for r in rows):
            size = sum(1 for row in rows for ch in str(row) if ch not in ". ")
            if size >= 2:
                return size
        raise VariantError('(board ...): expected (shape "ROW" ...), X a cell and . a hole, with at least 2 cells')
    raise VariantError('(board ...): expected (rectangle LINES COLUMNS) or (shape "ROW" ...)')


def _kind(value: Value) -> str:
    if isinstance(value, Symbol) and len(value) == 1 and value.upper() in KINDS:
        return value.upper()
    raise VariantError(f"(ranks/step-capture ...): {value!r} is not a piece letter (K G B R N C P)")


def _ranks(args: list[Value]) -> dict[str, int]:
    ranks: dict[str, int] = {}
    for item in args:
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[1], int) and 0 <= item[1] <= 255):
            raise VariantError(f"(ranks ...): expected (LETTER RANK), found {item!r}")
        kind = _kind(item[0])
        if kind in ranks:
            raise VariantError(f"(ranks ...): {kind} is ranked twice")
        ranks[kind] = item[1]
    missing = [k for k in KINDS if k not in ranks]
    if missing:
        raise VariantError(f"(ranks ...): {missing[0]} has no rank")
    return ranks


def _exceptions(args: list[Value]) -> list[StepException]:
    out: list[StepException] = []
    for item in args:
        if not (isinstance(item, list) and item and item[0] in ("allow", "forbid")):
            raise VariantError(f"(step-capture ...): expected (allow (A T)...) or (forbid (A T)...), found {item!r}")
        for pair in item[1:]:
            if not (isinstance(pair, list) and len(pair) == 2):
                raise VariantError(f"(step-capture ...): expected (ATTACKER TARGET), found {pair!r}")
            target = None if pair[1] == "*" else _kind(pair[1])
            out.append(StepException(_kind(pair[0]), target, item[0] == "allow"))
    return out


def _objective(args: list[Value]) -> Optional[int]:
    """``capture`` gives ``None``; ``(clear N)`` gives the ply cap N."""
    if len(args) == 1 and args[0] == "capture":
        return None
    if len(args) == 1 and isinstance(args[0], list) and len(args[0]) == 2 and args[0][0] == "clear":
        cap = args[0][1]
        if isinstance(cap, int) and cap >= 1:
            return cap
    raise VariantError("(objective ...): expected capture or (clear PLY_CAP)")


def _sides(args: list[Value], players: int) -> list[list[int]]:
    sides: list[list[int]] = []
    seen: set[int] = set()
    for item in args:
        members = [p for p in item if isinstance(p, int) and 1 <= p <= players] if isinstance(item, list) else []
        if not members or not isinstance(item, list) or len(members) != len(item):
            raise VariantError(f"(sides ...): expected lists of player numbers 1..{players}, found {item!r}")
        for player in members:
            if player in seen:
                raise VariantError(f"(sides ...): player {player} is on two sides")
            seen.add(player)
        sides.append(members)
    missing = [p for p in range(1, players + 1) if p not in seen]
    if missing:
        raise VariantError(f"(sides ...): player {missing[0]} is on no side")
    return sides


def _start(args: list[Value]) -> str:
    """The kind of start: the only thing legality needs is whether it is a bag game."""
    if len(args) == 1:
        one = args[0]
        if isinstance(one, Symbol) and one in ("face-down", "open", "bag"):
            return str(one)
        if isinstance(one, list) and one and one[0] in ("reveal", "fixed"):
            return str(one[0])
    raise VariantError("(start ...): expected face-down, open, bag, (reveal N), (fixed BOARD) or (fixed BOARD DEAL)")


# -----------------------------------------------------------------------------------------
# Colours
# -----------------------------------------------------------------------------------------


class ColourTracker:
    """Works out which colour each player owns by watching the boards go by.

    No one owns a colour at the start (unless the variant fixes them, see :meth:`decide`).
    The first piece any player turns over, or draws from the bag, gives that player's side
    its colour, and the other side gets the other one. The server never says who owns
    what, so the tracker compares consecutive boards: the first cell that changes from
    ``X`` to a letter was revealed by the player who was to move on the earlier board.
    Bag draws are shown as ``(hand P)`` and reported with :meth:`decide`.

    ``sides`` lists the players of each side. This bot builds it from the setup message:
    its own id with its ``(teammate ID)`` players, and everyone else. With two players and
    no ``sides``, each player is a side of its own.
    """

    def __init__(self, players: int = 2, sides: Optional[list[set[int]]] = None) -> None:
        self.players = players
        self.sides: Optional[list[set[int]]] = sides if sides is not None else (
            [{1}, {2}] if players == 2 else None)
        #: Who turned over (or drew) the first piece, and that piece's colour. ``None`` until then.
        self.first_revealer: Optional[int] = None
        self.first_colour: Optional[str] = None

    def decide(self, player: int, colour: str) -> None:
        """``player`` revealed or drew a piece of ``colour``: the first one decides, later ones do not."""
        if self.first_colour is None:
            self.first_revealer, self.first_colour = player, colour

    def observe(self, before: str, after: str, mover: int) -> None:
        """Take in one ply: ``before`` was sent with ``mover`` to act, ``after`` came next.

        Both boards must use ``X`` only for face-down pieces (in a bag game ``X`` means a
        never-filled cell; turn it into ``.`` first).
        """
        if self.first_colour is not None or len(before) != len(after):
            return  # Colours are fixed after the first reveal.
        for old, new in zip(before, after):
            colour = colour_of(new)
            if old == FACE_DOWN and colour is not None:
                self.decide(mover, colour)
                return

    def colour(self, player: int) -> Optional[str]:
        """Return the colour ``player`` owns, or ``None`` if it owns none yet (or if that is unknown)."""
        if self.first_colour is None or self.first_revealer is None:
            return None
        if player == self.first_revealer:
            return self.first_colour
        side = self._side_of(player)
        first_side = self._side_of(self.first_revealer)
        if side is None or first_side is None:
            return None  # Without team information, the first reveal alone says nothing more.
        return self.first_colour if side == first_side else other_colour(self.first_colour)

    def _side_of(self, player: int) -> Optional[int]:
        for index, members in enumerate(self.sides or []):
            if player in members:
                return index
        return None


# -----------------------------------------------------------------------------------------
# One game, without I/O
# -----------------------------------------------------------------------------------------


@dataclass
class Bot:
    """The protocol state of one game. It never touches a socket.

    Pass each parsed message to :meth:`handle`. It returns the lines to send back.
    Keeping the socket out of this class lets the unit tests run a whole game offline.
    ``variant`` gives the exact rules (``--variant``); without it the bot assumes
    :func:`default_variant` for whatever game the setup names.
    """

    name: str
    seed: int | str
    rng: random.Random
    log: "Logger"
    variant: Optional[Variant] = None
    my_id: Optional[int] = None
    players: int = 2
    #: ``(team T)`` and the ``(teammate ID)`` players, in team games.
    team: Optional[int] = None
    teammates: list[int] = field(default_factory=list)
    topology: Optional[Topology] = None
    #: The rules in force: ``variant``, or the default for the setup's game.
    rules: Optional[Variant] = None
    #: The number of pieces in the game, from the setup's ``(pieces ...)``: a bag holds them all.
    piece_count: int = 0
    tracker: ColourTracker = field(default_factory=ColourTracker)
    #: The board from the previous ``turn``/``info`` (with ``X`` only for face-down pieces)
    #: and the player who was to move on it.
    last_board: Optional[str] = None
    last_mover: Optional[int] = None
    #: Pieces drawn from the bag so far, and whether the previous prompt showed ``(hand P)``.
    #: A drawn piece stays in hand over several prompts (other players' ``info``, or a
    #: re-prompt after an error), so only a hand that appears after a prompt without one is
    #: a new draw.
    draws: int = 0
    last_had_hand: bool = False
    #: This bot's last action that the server played, and whether it captured, for as long
    #: as no other player has moved since. A chain capture continues from its destination.
    my_last: Optional[tuple[Action, bool]] = None
    #: The action just sent, whether it captures, and the position (board, hand) it was sent
    #: on. The next prompt tells whether the server played it: every action changes the
    #: board or the hand, so an unchanged position means it was refused.
    pending: Optional[tuple[Action, bool, tuple[str, Optional[str]]]] = None
    #: Actions the server refused on the current position. They are left out when the
    #: server asks again, so a rules disagreement cannot trap the bot in a loop.
    rejected: set[Action] = field(default_factory=set)
    #: The position (wire board, hand, player to move) that ``rejected`` belongs to.
    last_position: Optional[tuple[str, Optional[str], int]] = None
    last_action: Optional[Action] = None
    greeted: bool = False
    result: Optional[tuple[int, int]] = None

    def handle(self, message: Value) -> list[str]:
        """Process one message from the server. Return the lines to send, often none."""
        pairs = _clauses(message)
        # Look clauses up by name. If a name repeats, the first one wins; (teammate ID) is
        # the exception, read from ``pairs``, and so is (error ...): every one is logged.
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
            # Its own message: a server without extensions refuses only this one.
            out.append(format_message(("ext", "variant")))
            out.append(format_message(("init", self.name, self.seed)))
            self.greeted = True

        if "id" in clauses:
            self._on_setup(clauses, [_int(args, 0, "teammate") for head, args in pairs if head == "teammate"])

        if "win" in clauses:
            args = clauses["win"]
            self.result = (_int(args, 0, "win"), _int(args, 1, "win"))
            return out

        if "board" in clauses:
            board = str(_arg(clauses["board"], 0, "board"))
            hand = str(_arg(clauses["hand"], 0, "hand")) if "hand" in clauses else None
            # (turn ROUND ID) goes to the player who must act, (info ROUND ID) to the others.
            # Both name the player to move, which colour tracking needs.
            prompt = "turn" if "turn" in clauses else "info" if "info" in clauses else None
            if prompt is not None:
                mover = _int(clauses[prompt], 1, prompt)
                self._on_board(board, mover, hand)
                if prompt == "turn" and mover == self.my_id:
                    out.append(self._act(board, hand))
        return out

    # --- message parts -------------------------------------------------------------------

    def _on_error(self, args: list[Value]) -> None:
        code = str(args[0]) if args else "?"
        text = str(args[1]) if len(args) > 1 else ""
        self.log.error(f"server error {code}: {text}")
        if code == "illegal" and self.last_action is not None:
            self.rejected.add(self.last_action)

    def _on_setup(self, clauses: dict[str, list[Value]], teammates: list[int]) -> None:
        self.my_id = _int(clauses["id"], 0, "id")
        if "players" in clauses:
            self.players = _int(clauses["players"], 0, "players")
        self.team = _int(clauses["team"], 0, "team") if "team" in clauses else None
        self.teammates = teammates
        for needed in ("size", "moves"):
            if needed not in clauses:
                raise ProtocolError(f"setup message without a ({needed} ...) clause")
        size = _int(clauses["size"], 0, "size")
        moves = [(_int(m, 0, "moves"), _int(m, 1, "moves")) for m in _lists(clauses["moves"], "moves")]
        # A variant without cannon jumps may leave the clause out.
        jumps = [(_int(j, 0, "jumps"), _int(j, 1, "jumps"), _int(j, 2, "jumps"))
                 for j in _lists(clauses.get("jumps", []), "jumps")]
        self.topology = Topology.from_wire(size, moves, jumps)
        game = str(clauses["game"][0]) if clauses.get("game") else "traditional"
        pieces = str(clauses["pieces"][0]) if clauses.get("pieces") else ""

        if self.variant is None and clauses.get("variant"):
            # The server's own description (the variant extension): the exact rules.
            self.rules = parse_variant(str(clauses["variant"][0]))
        elif self.variant is None:
            if game not in ("traditional", "single", "cooperative") and not game.startswith("strategic"):
                self.log.warn(f"game type {game} is unknown to this bot; playing by the traditional rules")
            self.rules = default_variant(game, pieces, self.players, size)
        else:
            self.rules = self.variant
            self._check_variant(game, pieces, size)
        # The server's own piece list says how many draws the bag allows.
        self.piece_count = len(pieces) if pieces else len(self.rules.pieces)

        # The sides as this player can know them: itself and its teammates, and everyone
        # else. That is exact whenever there are two sides, which is every game with colours.
        allies = {self.my_id, *teammates}
        self.tracker = ColourTracker(self.players, [allies, set(range(1, self.players + 1)) - allies])
        if self.rules.fixed_colours and not self.rules.both_colours:
            # Side 1 plays red from the start: as if one of its players had revealed red.
            self.tracker.decide(self.rules.sides[0][0], RED)
        team = f", team {self.team} with {teammates}" if self.team is not None else ""
        self.log.info(f"I am player {self.my_id} of {self.players}{team}, game {game} "
                      f"(rules of {self.rules.name}), {size} cells")

    def _check_variant(self, game: str, pieces: str, size: int) -> None:
        """Refuse a ``--variant`` that cannot be the server's; warn about lesser differences."""
        rules = self.rules
        assert rules is not None
        if size != rules.size or self.players != rules.players:
            raise ProtocolError(
                f"the server plays {self.players} players on {size} cells, but variant {rules.name} "
                f"has {rules.players} on {rules.size}: give the bot the server's --variant")
        if game != rules.game or (pieces and sorted(pieces) != sorted(rules.pieces)):
            self.log.warn(f"the server's game {game} ({pieces}) differs from variant {rules.name} "
                          f"({rules.game}, {rules.pieces}); playing by the variant's rules")

    def _on_board(self, text: str, mover: int, hand: Optional[str]) -> None:
        if self.topology is not None and len(text) != self.topology.size:
            raise ProtocolError(f"board {text!r} has {len(text)} cells, the setup said {self.topology.size}")
        board = self._rules_board(text)
        if self.last_board is not None and self.last_mover is not None:
            self.tracker.observe(self.last_board, board, self.last_mover)
        if hand is not None:
            drawn = colour_of(hand)
            if drawn is None or len(hand) != 1:
                raise ProtocolError(f"(hand {hand}) is not a piece letter")
            if not self.last_had_hand:
                self.draws += 1
            # The drawer keeps the turn to put the piece, so the player to move drew it.
            self.tracker.decide(mover, drawn)
        self.last_had_hand = hand is not None

        if self.pending is not None:
            action, captured, sent_on = self.pending
            if sent_on != (board, hand):
                self.my_last = (action, captured)  # The server played it.
            self.pending = None
        if mover != self.my_id:
            self.my_last = None  # Someone else moved: no chain capture can go on.

        position = (text, hand, mover)
        if position != self.last_position:
            self.rejected.clear()  # Refusals only apply to the position they were made in.
        self.last_position = position
        self.last_board, self.last_mover = board, mover

    def _rules_board(self, text: str) -> str:
        """The board as the rules see it: in a bag game ``X`` is a never-filled, empty cell."""
        if self.rules is not None and self.rules.bag:
            return text.replace(FACE_DOWN, EMPTY)
        return text

    def control(self) -> Optional[str]:
        """What this player may move now: ``BOTH``, its colour, or ``None`` before it has one."""
        if self.rules is not None and self.rules.both_colours:
            return BOTH
        return self.tracker.colour(self.my_id) if self.my_id is not None else None

    def legal(self, text: str, hand: Optional[str]) -> list[Action]:
        """Every legal action for this player on the wire board ``text`` with ``hand``."""
        if self.topology is None or self.rules is None:
            raise ProtocolError("asked to move before the setup message")
        board = self._rules_board(text)
        rules = self.rules
        return legal_actions(
            board, self.topology, self.control(), rules.capture,
            hand=hand, chain=self._chain_cell(board),
            bag=rules.bag and self.draws < self.piece_count,
        )

    def _chain_cell(self, board: str) -> Optional[int]:
        """The cell of a piece that must capture again, if a chain capture is going on.

        The server keeps the turn after a capture exactly when the variant has chain
        captures and the capturing piece can capture again on the new board. This bot
        sees the same board, so it can tell. If that piece cannot capture, the bot is to
        move again only because the turn order says so, and every action is open.
        """
        if self.rules is None or not self.rules.chain_capture or self.my_last is None or self.topology is None:
            return None
        action, captured = self.my_last
        if action.kind != "mov" or not captured or action.to is None:
            return None
        if moves_from(board, self.topology, self.rules.capture, action.to, captures_only=True):
            return action.to
        return None

    def _act(self, text: str, hand: Optional[str]) -> str:
        choices = [a for a in self.legal(text, hand) if a not in self.rejected]
        if not choices:
            # The server ends the game when the player to move has no legal action. If it
            # still asks, resigning is the only honest answer.
            self.log.warn("no legal action left; resigning")
            self.last_action = None
            return format_message(("resign",))
        action = self.rng.choice(choices)
        self.last_action = action
        board = self._rules_board(text)
        captures = action.kind == "mov" and action.to is not None and colour_of(board[action.to]) is not None
        self.pending = (action, captures, (board, hand))
        # Echo the board exactly as the server sent it (``X`` included in bag games).
        return format_message(("board", text), action.clause())

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
    # The environment, unlike the command line, is private to the process's owner: anqi
    # tournament hands engines their (secret) token there.
    parser.add_argument("--token", default=os.environ.get("ANQI_TOKEN") or None,
                        help="token given by a tournament: sent as the SEED of (init NAME SEED) in place of the seed, "
                             "which then only drives the bot's own choices (default: $ANQI_TOKEN, which anqi "
                             "tournament sets; prefer it, since other local users can read a command line)")
    parser.add_argument("--games", type=int, default=1, metavar="N", help="games to play one after another (default: 1)")
    parser.add_argument("--quiet", action="store_true", help="log only warnings and errors to stderr")
    parser.add_argument("--variant", metavar="NAME|FILE",
                        help="the rules to play by: a shipped variant name (protocol/variants/NAME.sexp) or a "
                             "description file; use the server's --variant (default: standard rules for the "
                             "setup's game type)")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    variant: Optional[Variant] = None
    if args.variant is not None:
        try:
            variant = load_variant(args.variant)
        except VariantError as exc:
            parser.error(f"--variant: {exc}")

    seed: int = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 2**31)
    rng = random.Random(seed)  # One generator for the whole run, so N games replay exactly from one seed.
    log = Logger(args.quiet)
    host, port = args.connect
    log.info(f"seed {seed}")

    for number in range(1, args.games + 1):
        # Game k sends seed + k - 1, so a run of games with one --seed still gets different deals.
        contribution: int | str = args.token if args.token is not None else seed + number - 1
        bot = Bot(name=args.name, seed=contribution, rng=rng, log=log, variant=variant)
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
