"""Colours: who owns which colour, worked out from the boards the server sends."""

from __future__ import annotations

from typing import Optional

from .rules import FACE_DOWN, colour_of, other_colour

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

