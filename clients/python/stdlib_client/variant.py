"""Variant descriptions: reading ``(variant ...)`` into the rules a client needs."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from .rules import KINDS, RANKS, CaptureRules, StepException
from .sexp import ProtocolError, Symbol, Value, parse_sexp

#: Where the shipped descriptions live: ``protocol/variants`` at the repository root, three
#: levels above this package (``clients/python/stdlib_client/``).
VARIANTS_DIR = Path(__file__).resolve().parents[3] / "protocol" / "variants"

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
    """The number of cells of ``(board (rectangle L C))``, ``(board (shape "ROW" ...))`` or
    ``(board (cells N) (moves ...) ...)``.

    In a shape, every character but ``.`` and space is a cell (the server's rule). Of an
    explicit board only the size is read here: its moves and jumps reach the client in the
    setup message, as every board's do, and the server has checked them.
    """
    first = args[0] if args and isinstance(args[0], list) and args[0] else None
    if first is not None and first[0] == "cells":
        if len(first) == 2 and isinstance(first[1], int) and first[1] >= 2:
            return first[1]
        raise VariantError("(board (cells N) ...): expected a whole number of cells, at least 2")
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
    raise VariantError('(board ...): expected (rectangle LINES COLUMNS), (shape "ROW" ...) or (cells N) (moves ...) ...')


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

