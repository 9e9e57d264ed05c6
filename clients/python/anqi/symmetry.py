"""The symmetries of a variant: the board's automorphisms and the colour swap, as permutations of
the cells and of the action ids (PACKAGE.md, Symmetries).

    >>> import anqi
    >>> [s.name for s in anqi.symmetries("traditional-2x4")]
    ['identity', 'mirror-rows', 'mirror-columns', 'rotate-180', 'colours', 'mirror-rows+colours', 'mirror-columns+colours', 'rotate-180+colours']

A symmetry maps a game to another game of the same variant that plays the same way: the legal
actions of one are the images of the other's, and both end alike. So it multiplies training
data (augmentation) and lets a table store one position of each class.

Board symmetries come from the board's drawing: the eight turns and mirrors of a rectangle
(four unless it is square) or of a drawn shape's grid positions, each kept only when it maps the
cells onto themselves and every step and every cannon jump onto a step and a jump. A board
given as bare cells and moves, with no drawing, has only the identity. The colour swap (red and
black exchanged) is a symmetry when colours are decided by the first reveal and the pieces are
the same for both colours; a variant with a fixed start has only the identity (its board is
part of its rules).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._anqi import TENSOR_COLOUR_SWAP, TENSOR_PLANES, Variant

__all__ = ["Symmetry", "symmetries"]

LETTERS = "KGBRNCPkgbrncp"


@dataclass(frozen=True)
class Symmetry:
    """One symmetry: `cells[c]` is the image of cell `c`, `actions[i]` the image of action id
    `i`, and `colour_swap` whether red and black are exchanged."""

    name: str
    cells: tuple[int, ...]
    actions: tuple[int, ...]
    colour_swap: bool

    def piece(self, letter: str) -> str:
        """The image of a board letter (`X` and `.` are their own)."""
        return letter.swapcase() if self.colour_swap and letter in LETTERS else letter

    def board(self, board: str) -> str:
        """The image of a board string (the wire's, one letter per cell)."""
        out = [""] * len(board)
        for c, x in enumerate(board):
            out[self.cells[c]] = self.piece(x)
        return "".join(out)

    def deal(self, deal: dict[str, Any]) -> dict[str, Any]:
        """The image of a game's `deal` (`{"cells", "face_up", "bag"}`): the deal of the game this
        symmetry maps it to, for `anqi.Game(variant, deal=...)`."""
        return {
            "cells": self.board(deal["cells"]),
            "face_up": sorted(self.cells[c] for c in deal["face_up"]),
            "bag": "".join(self.piece(x) for x in deal["bag"]),
        }

    def policy(self, v):
        """The image of a numpy array over the action ids (a legal-action mask, a policy), or a
        batch of them (any leading dimensions, the action ids last): `out[..., actions[i]] =
        v[..., i]`."""
        import numpy as np

        out = np.empty_like(v)
        out[..., list(self.actions)] = v
        return out

    def tensor(self, x, relative: bool = False):
        """The image of an observation tensor (`Game.observation_tensor`, `VecGame`'s `obs`):
        `(planes, S)`, a grid `(planes, rows, columns)`, or a batch of either with any leading
        dimensions (`(n, planes, S)`, ...). The cells moved, and with the colour swap each
        plane moved to the one the layout names for it (`anqi.env.TENSOR_COLOUR_SWAP`: each
        colour's planes exchanged).

        `relative=True` for relative tensors (`observation_tensor(relative=True)`): their
        colour roles are the observer's, which the colour swap does not change when the observer
        moves one colour (its pieces are "red" before and after), so only the cells move; an
        observer with no colour yet, or both, sees the tensor as it is, whose planes the swap
        moves. Each tensor of a batch is told apart by its own `red` and `black` planes."""
        import numpy as np

        x = np.asarray(x)
        planes, n = len(TENSOR_COLOUR_SWAP), len(self.cells)
        if x.ndim >= 2 and x.shape[-2:] == (planes, n):
            flat = x
        elif x.ndim >= 3 and x.shape[-3] == planes and x.shape[-2] * x.shape[-1] == n:
            flat = x.reshape(*x.shape[:-2], n)
        else:
            raise ValueError(
                f"a tensor of shape {x.shape}: expected (..., {planes}, {n}) or a grid "
                f"(..., {planes}, rows, columns) of {n} cells, the variant's board"
            )
        # Gathered through the inverse permutation: out[..., cells[c]] = flat[..., c].
        moved = flat[..., np.argsort(self.cells)]
        if not self.colour_swap:
            return moved.reshape(x.shape)
        swapped = moved[..., np.argsort(TENSOR_COLOUR_SWAP), :]
        if not relative:
            return swapped.reshape(x.shape)
        red, black = TENSOR_PLANES.index("red"), TENSOR_PLANES.index("black")
        one_colour = moved[..., red, 0] != moved[..., black, 0]
        return np.where(one_colour[..., None, None], moved, swapped).reshape(x.shape)


def _transforms(points: list[tuple[int, int]]):
    """The eight turns and mirrors of a set of grid points, each as a function on points, with
    its name: those that map the set onto itself come out of `symmetries`."""
    rows = [r for r, _ in points]
    cols = [c for _, c in points]
    r0, r1, c0, c1 = min(rows), max(rows), min(cols), max(cols)
    # Shift to the origin, so that turns of a square keep the points in place.
    yield "identity", lambda r, c: (r, c)
    yield "mirror-rows", lambda r, c: (r0 + r1 - r, c)
    yield "mirror-columns", lambda r, c: (r, c0 + c1 - c)
    yield "rotate-180", lambda r, c: (r0 + r1 - r, c0 + c1 - c)
    yield "transpose", lambda r, c: (r0 + (c - c0), c0 + (r - r0))
    yield "anti-transpose", lambda r, c: (r0 + (c1 - c), c0 + (r1 - r))
    yield "rotate-90", lambda r, c: (r0 + (c - c0), c0 + (r1 - r))
    yield "rotate-270", lambda r, c: (r0 + (c1 - c), c0 + (r - r0))


def _board_maps(v: Variant) -> list[tuple[str, tuple[int, ...]]]:
    """The board's automorphisms as named cell permutations, identity first."""
    n = v.size
    identity = ("identity", tuple(range(n)))
    if v.start == "fixed":
        return [identity]
    points = v.coords
    if points is None and v.rectangle is not None:
        _, columns = v.rectangle
        points = [divmod(c, columns) for c in range(n)]
    if points is None:
        return [identity]
    where = {p: c for c, p in enumerate(points)}
    moves = set(v.moves)
    jumps = set(v.jumps)
    out = []
    for name, t in _transforms(points):
        image = [where.get(t(*p)) for p in points]
        if None in image or len(set(image)) != n:
            continue
        if {(image[a], image[b]) for a, b in moves} != moves:
            continue
        if {(image[a], image[b]) for a, b in jumps} != jumps:
            continue
        out.append((name, tuple(image)))
    return out


def _colours_swap(v: Variant) -> bool:
    """Whether exchanging red and black maps the variant to itself."""
    return (
        v.colours == "first-reveal"
        and v.start != "fixed"
        and sorted(v.pieces) == sorted(v.pieces.swapcase())
    )


def _action_map(v: Variant, cells: tuple[int, ...], colour_swap: bool) -> tuple[int, ...]:
    """The image of every action id under a cell permutation (and the colour swap)."""
    out = []
    for i in range(v.num_distinct_actions):
        words = v.action_text(i)[1:-1].split()
        if words[0] == "rev":
            text = f"(rev {cells[int(words[1])]})"
        elif words[0] == "mov":
            text = f"(mov {cells[int(words[1])]} {cells[int(words[2])]})"
        elif words[0] == "put":
            piece = words[1].swapcase() if colour_swap else words[1]
            text = f"(put {piece} {cells[int(words[2])]})"
        else:
            text = "(bag)"
        out.append(v.action_id(text))
    return tuple(out)


def symmetries(variant: str | Variant) -> list[Symmetry]:
    """Every symmetry of a variant (a shipped name, a description file or an `anqi.Variant`):
    the board's automorphisms, then the same composed with the colour swap when that is one.
    The first is the identity."""
    v = variant if isinstance(variant, Variant) else Variant(variant)
    boards = _board_maps(v)
    swaps = [False, True] if _colours_swap(v) else [False]
    out = []
    for swap in swaps:
        for name, cells in boards:
            label = name if not swap else ("colours" if name == "identity" else f"{name}+colours")
            out.append(Symmetry(label, cells, _action_map(v, cells, swap), swap))
    return out
