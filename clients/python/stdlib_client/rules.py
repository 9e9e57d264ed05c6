"""Pieces and rules: capture tables and the legal actions of a public state.

Everything legality depends on is public (the board, what the player may move, a piece in
hand, a chain capture in progress, whether the bag has pieces), so :func:`legal_actions`
takes exactly that; the same inputs are the columns of the shared legal-count tables in
``tests/data/legal_counts/`` that the Rust core is checked against too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, NamedTuple, Optional, Union

from .topology import Topology

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
    #: A cannon jump rather than a step (both are ``mov`` on the wire). Only the counts use
    #: it, and it takes no part in comparisons: a move is the same action however it was found.
    jump: bool = field(default=False, compare=False)

    def clause(self) -> tuple[Union[int, str], ...]:
        """The action as a wire clause, such as ``("mov", 4, 0)`` or ``("put", "P", 7)``."""
        if self.kind == "bag":
            return ("bag",)
        if self.kind == "put":
            assert self.piece is not None and self.cell is not None
            return ("put", self.piece, self.cell)
        assert self.cell is not None
        return (self.kind, self.cell) if self.to is None else (self.kind, self.cell, self.to)

    def text(self) -> str:
        """The clause as the server writes it: ``(rev 3)``, ``(mov 4 0)``, ``(bag)``, ``(put K 7)``."""
        return "(" + " ".join(str(item) for item in self.clause()) + ")"

    def count_kind(self) -> str:
        """Which count this action adds to: ``moves`` (a step, capturing or not), ``jumps`` (a
        cannon jump), ``reveals``, ``bags`` or ``puts``, as the server's records count them."""
        if self.kind == "mov":
            return "jumps" if self.jump else "moves"
        return {"rev": "reveals", "bag": "bags", "put": "puts"}[self.kind]


#: The legal-action counts, in the order the server's records write them.
COUNT_KINDS = ("moves", "jumps", "reveals", "bags", "puts")


def count_actions(actions: Iterable[Action]) -> dict[str, int]:
    """Count actions by kind: ``{"moves": ..., "jumps": ..., "reveals": ..., "bags": ..., "puts": ...}``."""
    counts = dict.fromkeys(COUNT_KINDS, 0)
    for action in actions:
        counts[action.count_kind()] += 1
    return counts


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


@dataclass(frozen=True)
class PublicState:
    """Everything the legality of the mover's actions depends on, all of it public.

    It mirrors the server's ``PublicState`` and is what a client rebuilds from the messages
    it receives (:class:`stdlib_client.client.Bot` does), and what each row of the shared
    legal-count tables holds. ``board`` uses ``X`` only for face-down pieces; see
    :func:`legal_actions` for the others.
    """

    board: str
    topology: Topology
    rules: CaptureRules
    control: Optional[str]
    hand: Optional[str] = None
    chain: Optional[int] = None
    bag: bool = False

    def legal_actions(self) -> list[Action]:
        """Every legal action, in the server's order."""
        return legal_actions(self.board, self.topology, self.control, self.rules,
                             hand=self.hand, chain=self.chain, bag=self.bag)

    def counts(self) -> dict[str, int]:
        """The legal actions counted by kind (:func:`count_actions`)."""
        return count_actions(self.legal_actions())


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
                out.append(Action("mov", cell, landing, jump=True))
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

