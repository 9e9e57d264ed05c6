"""The board topology: cells, single steps, and the cannon rays decoded from the setup."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Optional

from .sexp import ProtocolError

@dataclass
class Topology:
    """The cells of a board, their single steps, and the cannon rays.

    ``neighbours[c]`` lists the cells one step from ``c``. ``rays[c]`` lists the straight
    lines leaving ``c``. Each ray starts with the adjacent cell, which can only be a
    screen, and runs out to the farthest target.
    """

    size: int
    neighbours: list[list[int]]
    rays: list[list[list[int]]]

    @classmethod
    def from_wire(cls, size: int, moves: list[tuple[int, int]], jumps: list[tuple[int, int, int]]) -> "Topology":
        """Build a topology from the setup clauses ``size``, ``moves`` and ``jumps``.

        A jump clause ``(ORI TG_I TG_F)`` names one ray from ``ORI`` by its targets, the
        cells at distance 2 or more; it does not say which way the ray goes. The server's
        decoding rule works for any board shape, holes and odd numberings included: the
        ray is the *unique shortest path of moves* from ``ORI`` to the farther of ``TG_I``
        and ``TG_F``, and the nearer one is its cell at distance 2. The server refuses to
        start with a board whose rays break this rule, so a breadth-first search that
        counts shortest paths always finds them. On 2x4, ``(3 0 1)`` decodes to the ray
        ``[2, 1, 0]``: cell 2 can be a screen, and cells 1 and 0 are targets.

        Raises :class:`ProtocolError` if a clause names a cell outside the board or does
        not decode.
        """
        neighbours: list[list[int]] = [[] for _ in range(size)]
        for a, b in moves:
            if not (0 <= a < size and 0 <= b < size):
                raise ProtocolError(f"move ({a} {b}) is outside a board of {size} cells")
            if b not in neighbours[a]:
                neighbours[a].append(b)
        rays: list[list[list[int]]] = [[] for _ in range(size)]
        for origin, first, last in jumps:
            if not all(0 <= c < size for c in (origin, first, last)):
                raise ProtocolError(f"jump ({origin} {first} {last}) is outside a board of {size} cells")
            ray = decode_ray(neighbours, origin, first, last)
            if ray is None:
                raise ProtocolError(
                    f"jump ({origin} {first} {last}) is not the unique shortest path of moves from "
                    f"{origin} with its first target at distance 2")
            rays[origin].append(ray)
        return cls(size, neighbours, rays)

    def jump_target_count(self) -> int:
        """The number of (cannon cell, target cell) pairs. Mainly useful for checks."""
        return sum(len(ray) - 1 for cell_rays in self.rays for ray in cell_rays)


def decode_ray(neighbours: list[list[int]], origin: int, a: int, b: int) -> Optional[list[int]]:
    """Return the ray from ``origin`` whose targets run from ``a`` to ``b`` (either order).

    This is the server's rule (``Topology::decode_ray``): the longer of the two unique
    shortest paths is the ray, and the other end must be its cell at distance 2. ``a``
    and ``b`` are equal when the ray has a single target. ``None`` if the clause does not
    decode.
    """
    to_a = unique_shortest_path(neighbours, origin, a)
    to_b = unique_shortest_path(neighbours, origin, b)
    if to_a is None or to_b is None:
        return None
    ray = to_a if len(to_a) >= len(to_b) else to_b
    near = b if ray[-1] == a else a
    return ray if len(ray) >= 2 and ray[1] == near else None


def unique_shortest_path(neighbours: list[list[int]], start: int, goal: int) -> Optional[list[int]]:
    """The cells of the only shortest path of moves from ``start`` to ``goal``, without ``start``.

    Returns ``None`` when there is no path, or more than one of the shortest length (then
    the clause would be ambiguous, and the server never sends such a ray). A breadth-first
    search counts the shortest paths to each cell, capped at 2 since only "one" matters,
    and keeps one parent per cell to walk the path back.
    """
    if start == goal:
        return None
    size = len(neighbours)
    dist = [-1] * size
    paths = [0] * size
    parent = [-1] * size
    dist[start], paths[start] = 0, 1
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        if cell == goal:
            # Every cell one step nearer was dequeued before this one, so the count is final.
            break
        for nxt in neighbours[cell]:
            if dist[nxt] < 0:
                dist[nxt], paths[nxt], parent[nxt] = dist[cell] + 1, paths[cell], cell
                queue.append(nxt)
            elif dist[nxt] == dist[cell] + 1:
                paths[nxt] = min(paths[nxt] + paths[cell], 2)
    if paths[goal] != 1:
        return None
    path = [goal]
    while parent[path[-1]] != start:
        path.append(parent[path[-1]])
    path.reverse()
    return path

