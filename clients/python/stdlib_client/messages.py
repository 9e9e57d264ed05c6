"""Messages: a parsed message split into clauses, and typed access to their arguments."""

from __future__ import annotations

from .sexp import ProtocolError, Symbol, Value


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

