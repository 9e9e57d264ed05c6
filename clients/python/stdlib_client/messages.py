"""Messages: a parsed message split into clauses, and typed access to their arguments."""

from __future__ import annotations

from .sexp import ProtocolError, Symbol, Value
from .topology import Topology


def clauses(message: Value) -> list[tuple[str, list[Value]]]:
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


def arg(args: Value, index: int, head: str) -> Value:
    """Argument ``index`` of clause ``head``; :class:`ProtocolError` when it is missing."""
    if not isinstance(args, list) or index >= len(args):
        raise ProtocolError(f"({head} ...) is missing a value")
    return args[index]


def integer(args: Value, index: int, head: str) -> int:
    """Argument ``index`` of clause ``head`` as a number; :class:`ProtocolError` otherwise."""
    value = arg(args, index, head)
    if not isinstance(value, int):
        raise ProtocolError(f"({head} ...) expected a number, got {value!r}")
    return value


def lists(args: Value, head: str) -> list[list[Value]]:
    """The arguments of ``head`` when each is a list, such as ``(moves (0 1) (0 4) ...)``."""
    if not isinstance(args, list) or not all(isinstance(a, list) for a in args):
        raise ProtocolError(f"({head} ...) must hold lists of numbers")
    return args  # type: ignore[return-value]



def setup_topology(clauses: dict[str, list[Value]]) -> Topology:
    """The board of a setup message, from its ``(size N)``, ``(moves ...)`` and ``(jumps ...)``.

    ``clauses`` maps each clause name to its arguments. Raises :class:`ProtocolError` when
    ``size`` or ``moves`` is missing or the clauses do not decode.
    """
    for needed in ("size", "moves"):
        if needed not in clauses:
            raise ProtocolError(f"setup message without a ({needed} ...) clause")
    size = integer(clauses["size"], 0, "size")
    moves = [(integer(m, 0, "moves"), integer(m, 1, "moves")) for m in lists(clauses["moves"], "moves")]
    # A variant without cannon jumps may leave the clause out.
    jumps = [(integer(j, 0, "jumps"), integer(j, 1, "jumps"), integer(j, 2, "jumps"))
             for j in lists(clauses.get("jumps", []), "jumps")]
    return Topology.from_wire(size, moves, jumps)
