"""Pictures of a board, drawn with numpy alone (the `[rl]` extra): what the environments'
`render_mode="rgb_array"` returns and `"human"` shows (PACKAGE.md, Environments).

    >>> frame = BoardRenderer(anqi.Variant("cross")).frame(game.board)   # (H, W, 3) uint8

The drawing follows the variant's topology, not a picture of 4x8: every cell is a point at its
`Variant.coords` (a rectangle's cells on their grid; a board without coordinates, a graph given
by its moves alone, on a circle in cell order), and every move (`Variant.moves`, a step between
two cells, either way) is a line between its cells. On each cell its state, from the board
string (`Game.board`): a small dot for an empty cell; a dark disc for a face-down piece; a
face-up piece as a light disc ringed in its colour with its letter, the board string's own (upper
case red, drawn red; lower case black, drawn black: `K` `G` `B` `R` `N` `C` `P`). In a bag game
the board string's `X` is an empty cell (no piece was put there yet), and is drawn as one.

The letters come from a bitmap font of 5x7 pixels written below, scaled up: no font file, no
matplotlib, no pygame. Frames are a multiple of 16 pixels on each side, so video encoders take
them as they are (gymnasium's RecordVideo, through imageio, would otherwise resize them).
"""

from __future__ import annotations

import math

import numpy as np

from .._anqi import Variant

# Pixels from one cell to the next on a grid, the radius of a piece, the margin around.
PITCH = 40
RADIUS = 16
MARGIN = 24
LINE = 3  # the width of a move's line
DOT = 4  # the radius of an empty cell's dot
SCALE = 2  # font pixels to frame pixels: a letter is 10x14

BACKGROUND = (232, 200, 150)
LINES = (140, 100, 60)
FACE_DOWN = (96, 64, 40)
FACE_DOWN_RING = (150, 110, 75)
FACE_UP = (250, 242, 222)
RED = (200, 30, 30)
BLACK = (25, 25, 25)

# The piece letters of board strings, each 7 rows of 5 pixels ('#' on). Lower case letters
# stand in the same box, without descenders, so that a letter's case is seen at once.
_FONT_ROWS = {
    "K": "#...# #..#. #.#.. ##... #.#.. #..#. #...#",
    "G": ".###. #...# #.... #.### #...# #...# .###.",
    "B": "####. #...# #...# ####. #...# #...# ####.",
    "R": "####. #...# #...# ####. #.#.. #..#. #...#",
    "N": "#...# #...# ##..# #.#.# #..## #...# #...#",
    "C": ".###. #...# #.... #.... #.... #...# .###.",
    "P": "####. #...# #...# ####. #.... #.... #....",
    "k": "#.... #.... #..#. #.#.. ##... #.#.. #..#.",
    "g": "..... .#### #...# #...# .#### ....# .###.",
    "b": "#.... #.... ####. #...# #...# #...# ####.",
    "r": "..... ..... #.##. ##..# #.... #.... #....",
    "n": "..... ..... ####. #...# #...# #...# #...#",
    "c": "..... ..... .###. #.... #.... #...# .###.",
    "p": "..... ..... ####. #...# ####. #.... #....",
}
FONT = {letter: np.array([[c == "#" for c in row] for row in rows.split()])
        for letter, rows in _FONT_ROWS.items()}


def layout(v: Variant) -> np.ndarray:
    """Each cell's position as (row, column), in cells (floats): `coords` when the variant
    has them (a rectangle's are its grid, a drawn shape's its drawing), else a circle in cell
    order, cell 0 at the top and the others clockwise, a cell apart (a graph given by its
    moves alone, whose description gave no `coords`)."""
    if v.coords is not None:
        return np.asarray(v.coords, dtype=float)
    n = v.size
    radius = max(n / (2 * math.pi), 0.5)
    angle = 2 * math.pi * np.arange(n) / n - math.pi / 2
    return radius * np.stack([1 + np.sin(angle), 1 + np.cos(angle)], axis=1)


def _disc(radius: int, inner: int | None = None) -> np.ndarray:
    """The pixels of a disc (a ring without those within `inner`), in a square of side
    2 * radius + 1."""
    y, x = np.mgrid[-radius:radius + 1, -radius:radius + 1]
    d2 = x * x + y * y
    disc = d2 <= radius * radius + radius  # a little fuller than the circle: rounder
    return disc if inner is None else disc & (d2 > inner * inner + inner)


class BoardRenderer:
    """Draws boards of one variant. The lines and the empty board are drawn once; a frame
    copies them and stamps each cell's piece."""

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self.bag = variant.start == "bag"
        pos = layout(variant)
        pos -= pos.min(axis=0)
        # The frame: the drawing's extent plus margins, rounded up to 16 pixels, centred.
        extent = pos.max(axis=0) * PITCH + 2 * (RADIUS + MARGIN)
        size = (np.ceil(extent / 16) * 16).astype(int)
        offset = (size - pos.max(axis=0) * PITCH) / 2
        self.centres = np.rint(pos * PITCH + offset).astype(int)  # (cells, 2): y, x
        self.height, self.width = int(size[0]), int(size[1])

        empty = np.empty((self.height, self.width, 3), dtype=np.uint8)
        empty[:] = BACKGROUND
        for a, b in {tuple(sorted(m)) for m in variant.moves}:
            self._line(empty, self.centres[a], self.centres[b])
        dot = _disc(DOT)
        for c in range(variant.size):
            self._stamp(empty, c, dot, LINES)
        self.empty = empty
        self._piece = _disc(RADIUS)
        self._inner = _disc(RADIUS - 3)
        self._ring = _disc(RADIUS - 6, inner=RADIUS - 8)
        self._glyphs = {k: np.kron(g, np.ones((SCALE, SCALE), dtype=bool))
                        for k, g in FONT.items()}

    @property
    def shape(self) -> tuple[int, int, int]:
        """The shape of every frame, `(height, width, 3)`."""
        return (self.height, self.width, 3)

    def _line(self, img: np.ndarray, p0: np.ndarray, p1: np.ndarray) -> None:
        """A line of width LINE from p0 to p1: points a pixel apart, each a square."""
        steps = int(np.ceil(np.hypot(*(p1 - p0)))) + 1
        t = np.linspace(0.0, 1.0, steps)[:, None]
        pts = np.rint(p0 + t * (p1 - p0)).astype(int)
        half = LINE // 2
        for dy in range(-half, half + 1):
            for dx in range(-half, half + 1):
                img[np.clip(pts[:, 0] + dy, 0, self.height - 1),
                    np.clip(pts[:, 1] + dx, 0, self.width - 1)] = LINES

    def _stamp(self, img: np.ndarray, cell: int, mask: np.ndarray, colour, dy: int = 0) -> None:
        """Paints `mask`'s pixels, centred on `cell` (moved `dy` pixels down), in `colour`."""
        h, w = mask.shape
        y0 = self.centres[cell, 0] - h // 2 + dy
        x0 = self.centres[cell, 1] - w // 2
        img[y0:y0 + h, x0:x0 + w][mask] = colour

    def frame(self, board: str) -> np.ndarray:
        """The picture of a board string (`Game.board`): a new `(H, W, 3)` uint8 array."""
        if len(board) != self.variant.size:
            raise ValueError(f"a board of {len(board)} cells for {self.variant.name}'s "
                             f"{self.variant.size}")
        img = self.empty.copy()
        for cell, ch in enumerate(board):
            if ch == "." or (ch == "X" and self.bag):
                continue  # the empty board's dot
            if ch == "X":
                self._stamp(img, cell, self._piece, FACE_DOWN)
                self._stamp(img, cell, self._ring, FACE_DOWN_RING)
                continue
            colour = RED if ch.isupper() else BLACK
            self._stamp(img, cell, self._piece, colour)
            self._stamp(img, cell, self._inner, FACE_UP)
            self._stamp(img, cell, self._glyphs[ch], colour)
        return img


_NON_INTERACTIVE = {"agg", "cairo", "pdf", "pgf", "ps", "svg", "template"}

MISSING_MATPLOTLIB = (
    "render_mode=\"human\" shows the board in a matplotlib window, and matplotlib is not "
    "installed: pip install matplotlib (or the [analysis] extra, pip install "
    "'./clients/python[analysis]'); render_mode=\"rgb_array\" gives the same frames as numpy "
    "arrays with the [rl] extra alone")


def require_matplotlib() -> None:
    """Raises gymnasium's DependencyNotInstalled (what its own environments raise for a
    missing renderer) saying what to install, when matplotlib is missing."""
    try:
        import matplotlib  # noqa: F401
    except ImportError as e:
        from gymnasium.error import DependencyNotInstalled

        raise DependencyNotInstalled(MISSING_MATPLOTLIB) from e


class Window:
    """The "human" render mode: a matplotlib window showing the latest frame, at most
    `fps` frames a second. Closing the window by hand is allowed: the next frame opens
    another."""

    def __init__(self, title: str, fps: float) -> None:
        require_matplotlib()
        self.title = title
        self.fps = fps
        self._figure = None
        self._image = None

    def show(self, frame: np.ndarray) -> None:
        import matplotlib
        import matplotlib.pyplot as plt

        if self._figure is None or not plt.fignum_exists(self._figure.number):
            plt.ion()
            self._figure, ax = plt.subplots(num=self.title)
            ax.set_axis_off()
            self._image = ax.imshow(frame)
            self._figure.tight_layout()
        else:
            self._image.set_data(frame)
        self._figure.canvas.draw_idle()
        # plt.pause shows the frame and runs the window's events for a frame's time; with a
        # backend that draws no window (Agg, in tests and on servers) there is nothing to wait
        # for.
        if matplotlib.get_backend().lower() not in _NON_INTERACTIVE:
            plt.pause(1 / self.fps)

    def close(self) -> None:
        if self._figure is not None:
            import matplotlib.pyplot as plt

            plt.close(self._figure)
            self._figure = self._image = None


class Rendering:
    """An environment's `render()` for its `render_mode`: the text of `Game.board` by rows
    ("ansi"), a frame ("rgb_array"), or that frame shown in a window ("human", returning
    None); None (with a warning) without a render mode."""

    def __init__(self, variant: Variant, render_mode: str | None, fps: float) -> None:
        self.variant = variant
        self.render_mode = render_mode
        self.fps = fps
        self._renderer: BoardRenderer | None = None
        self._window: Window | None = None

    def frame(self, game) -> np.ndarray:
        if self._renderer is None:
            self._renderer = BoardRenderer(self.variant)
        return self._renderer.frame(game.board)

    def __call__(self, game) -> str | np.ndarray | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() without a render_mode: make the environment with "
                                  "render_mode=\"ansi\", \"rgb_array\" or \"human\"")
            return None
        if game is None:
            raise RuntimeError("render() before reset(): there is no game yet")
        if self.render_mode == "ansi":
            from ._common import ansi

            return ansi(game)
        frame = self.frame(game)
        if self.render_mode == "rgb_array":
            return frame
        if self._window is None:
            self._window = Window(f"anqi {self.variant.name}", self.fps)
        self._window.show(frame)
        return None

    def close(self) -> None:
        if self._window is not None:
            self._window.close()
            self._window = None
