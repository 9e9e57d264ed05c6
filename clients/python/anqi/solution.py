"""Solution files of `anqi solve` (protocol/SOLVING.md), read from Python: the exact value of
every state of a solved variant, looked up by `Game.state_key()`.

    sol = anqi.Solution("traditional-2x4.solution")
    sol.value(anqi.Game("traditional-2x4"))      # Fraction(31, 80): player 1's expected score
    sol.header["states"]                        # 3744233

The file is read into memory once (26 bytes a state) and searched by bisection: no numpy, no
dictionary of millions of Python objects.
"""

from __future__ import annotations

import json
import os
import struct
from fractions import Fraction
from typing import Any

RECORD = struct.Struct("<QQQH")  # key low 64 bits, key high 64 bits, value, plies


class Solution:
    """A solution file: `header` (its first line, as a dict), `len()` states, and each state's
    exact value (`value`) and plies (`entry`)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        with open(path, "rb") as f:
            line = f.readline()
            try:
                self.header: dict[str, Any] = json.loads(line)
            except ValueError as e:
                raise ValueError(f"{path}: not a solution file (its first line is no JSON: {e})") from None
            if self.header.get("format") != "anqi-solution" or self.header.get("version") != 1:
                raise ValueError(f"{path}: not an anqi-solution file of version 1")
            self._data = f.read()
        n = self.header["states"]
        if len(self._data) != n * RECORD.size:
            raise ValueError(f"{path}: {len(self._data)} bytes for {n} states of {RECORD.size}")
        self._n = n
        self.denominator: int = self.header["denominator"]

    def __len__(self) -> int:
        return self._n

    def _key_at(self, i: int) -> int:
        lo, hi, _, _ = RECORD.unpack_from(self._data, i * RECORD.size)
        return hi << 64 | lo

    def entry(self, game_or_key: Any) -> tuple[Fraction, int] | None:
        """`(value, plies)` of a state (an `anqi.Game` or its `state_key()`), `None` when the
        file does not hold it. The value is player 1's expected score under best play."""
        key = game_or_key if isinstance(game_or_key, int) else game_or_key.state_key()
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
        not hold it (a position of another variant, or an ended game: see `Game.outcome`)."""
        found = self.entry(game_or_key)
        if found is None:
            raise KeyError("this solution holds no such state")
        return found[0]

    def __repr__(self) -> str:
        v = Fraction(self.header["value"], self.denominator)
        return f"<anqi.Solution {self._n} states, value {v}>"
