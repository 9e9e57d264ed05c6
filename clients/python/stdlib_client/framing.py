"""Framing: cutting the TCP byte stream into messages, by matching parentheses."""

from __future__ import annotations

from .sexp import ProtocolError

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

