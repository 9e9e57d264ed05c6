"""Solution files of `anqi solve` (protocol/SOLVING.md), read from Python: the exact value of
every state of a solved variant, looked up by `Game.state_key()`.

    sol = anqi.Solution("traditional-2x4.solution")
    sol.value(anqi.Game("traditional-2x4"))      # Fraction(31, 80): player 1's expected score
    sol.header["states"]                        # 3744233

The file is read into memory once (26 bytes a state) and searched by bisection: no numpy, no
dictionary of millions of Python objects.

A solution file is untrusted input, checked as it is read: its header line (at most
`MAX_HEADER_BYTES`; the format, version and semantics, the numbers, the start's value within
the denominator), its length against the number of states, the order of its states (each key
greater than the one before, or a lookup by bisection would miss some) and each state's value
within the denominator. A game of another variant than the solution's is refused
(ValueError): the solution holds no value of it. What this package cannot check, having no
solver, is that the header's variant is one the solver holds and its denominator that
variant's; whether each value follows from its children's is what `anqi solve --verify FILE`
checks, with those.
"""

from __future__ import annotations

import itertools
import json
import operator
import os
import struct
from fractions import Fraction
from typing import Any

RECORD = struct.Struct("<QQQH")  # key low 64 bits, key high 64 bits, value, plies

# A key's two halves, for checking the order of the states without a Python loop.
_KEY = struct.Struct("<QQ10x")

# A state's value alone, for checking the values without a Python loop.
_VALUE = struct.Struct("<16xQ2x")

#: The semantics of every solution file this package reads (the Rust `solve::file::SEMANTICS`).
SEMANTICS = "quiet play forever is a draw; no other draw rule"

#: The most bytes a solution file's header line may take: the variant's description (at most
#: 1 MiB) escaped as JSON, and a few fields.
MAX_HEADER_BYTES = 8 * (1 << 20) + 4096


def _clip(text: object, n: int = 60) -> str:
    """At most `n` characters of a text from the file, for an error message."""
    text = str(text)
    return text if len(text) <= n else text[:n] + "..."


def _keys(data: bytes) -> Any:
    """The states' keys as `(high, low)` pairs, which compare as the 128-bit keys do (read in
    place, nothing copied)."""
    return map(operator.itemgetter(1, 0), _KEY.iter_unpack(memoryview(data)))


class Solution:
    """A solution file: `header` (its first line, as a dict), `len()` states, and each state's
    exact value (`value`) and plies (`entry`). ValueError when the file does not hold
    together (see the module's documentation)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        with open(path, "rb") as f:
            line = f.readline(MAX_HEADER_BYTES)
            if not line.endswith(b"\n"):
                raise ValueError(f"{path}: not a solution file (no header line ended within {len(line)} bytes)")
            try:
                header = json.loads(line)
            except ValueError as e:
                raise ValueError(f"{path}: not a solution file (its first line is no JSON: {_clip(e)})") from None
            if not isinstance(header, dict):
                raise ValueError(f"{path}: not a solution file (its first line is no JSON object)")
            self.header: dict[str, Any] = header
            if header.get("format") != "anqi-solution" or header.get("version") != 1:
                raise ValueError(f"{path}: not an anqi-solution file of version 1")
            if header.get("semantics") != SEMANTICS:
                raise ValueError(
                    f"{path}: semantics {_clip(header.get('semantics'))!r}: this package reads "
                    f"solutions of the semantics {SEMANTICS!r}"
                )
            n, denominator = header.get("states"), header.get("denominator")
            ints = all(isinstance(x, int) and not isinstance(x, bool) for x in (n, denominator, header.get("value")))
            if not ints or n < 1 or denominator < 1 or not isinstance(header.get("variant"), str):
                raise ValueError(f"{path}: a header without its states, denominator, value and variant")
            if not 0 <= header["value"] <= denominator:
                raise ValueError(
                    f"{path}: the start's value {_clip(header['value'])} is not within the denominator {denominator}"
                )
            size = os.fstat(f.fileno()).st_size - len(line)
            if size != n * RECORD.size:
                raise ValueError(f"{path}: {size} bytes for {n} states of {RECORD.size}")
            self._data = f.read(size)
        if len(self._data) != n * RECORD.size:
            raise ValueError(f"{path}: {len(self._data)} bytes for {n} states of {RECORD.size}")
        # Each key greater than the one before, compared in C a pair at a time (0.8 s for the
        # 3.7 million states of traditional-2x4).
        if not all(itertools.starmap(operator.lt, itertools.pairwise(_keys(self._data)))):
            at = next(i for i, (a, b) in enumerate(itertools.pairwise(_keys(self._data))) if not a < b)
            raise ValueError(f"{path}: state {at + 1} is not after the one before it: the states are not sorted by key")
        # Each value within the denominator (a value is player 1's expected score times it),
        # also compared in C (0.2 s more for traditional-2x4).
        (most,) = max(_VALUE.iter_unpack(memoryview(self._data)))
        if most > denominator:
            at, value = next((i, v) for i, (v,) in enumerate(_VALUE.iter_unpack(memoryview(self._data))) if v > denominator)
            raise ValueError(f"{path}: state {at + 1}: value {value} is more than the denominator {denominator}")
        self._n = n
        self.denominator: int = denominator
        self._variant: str = header["variant"]

    def __len__(self) -> int:
        return self._n

    def variant_name(self) -> str:
        """The name of the solution's variant (from the description in its header)."""
        from . import Variant  # noqa: PLC0415

        try:
            return _clip(Variant.from_description(self._variant).name)
        except ValueError:
            return "(a description that does not read)"

    def _key_at(self, i: int) -> int:
        lo, hi, _, _ = RECORD.unpack_from(self._data, i * RECORD.size)
        return hi << 64 | lo

    def _key_of(self, game_or_key: Any) -> int:
        """A key as given, or the key of a game of the solution's variant (ValueError for a
        game of another)."""
        if isinstance(game_or_key, int):
            return game_or_key
        if game_or_key.variant_info.description != self._variant:
            raise ValueError(
                f"a game of variant {_clip(game_or_key.variant)}, and this solution is of variant "
                f"{self.variant_name()}: it holds no value of that game"
            )
        return game_or_key.state_key()

    def entry(self, game_or_key: Any) -> tuple[Fraction, int] | None:
        """`(value, plies)` of a state (an `anqi.Game` or its `state_key()`), `None` when the
        file does not hold it. The value is player 1's expected score under best play.
        ValueError for a game of another variant than the solution's."""
        key = self._key_of(game_or_key)
        lo, hi = 0, self._n
        while lo < hi:
            mid = (lo + hi) // 2
            if self._key_at(mid) < key:
                lo = mid + 1
            else:
                hi = mid
        if lo < self._n and self._key_at(lo) == key:
            _, _, value, plies = RECORD.unpack_from(self._data, lo * RECORD.size)
            return Fraction(value, self.denominator), plies
        return None

    def value(self, game_or_key: Any) -> Fraction:
        """Player 1's expected score under best play from a state; KeyError when the file does
        not hold it (an ended game: see `Game.outcome`), ValueError for a game of another
        variant than the solution's."""
        found = self.entry(game_or_key)
        if found is None:
            raise KeyError("this solution holds no such state")
        return found[0]

    def __repr__(self) -> str:
        v = Fraction(self.header["value"], self.denominator)
        return f"<anqi.Solution {self._n} states, value {v}>"
