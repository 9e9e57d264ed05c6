"""S-expressions: the reader and writer of every message and of variant descriptions.

The protocol's messages are S-expression lists of clauses. This module turns text into
Python values (:func:`parse_sexp`) and writes messages back (:func:`format_message`); how a
byte stream is cut into messages is :mod:`stdlib_client.framing`'s job.
"""

from __future__ import annotations

import re
from typing import Iterable, Union

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
