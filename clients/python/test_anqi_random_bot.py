"""Unit tests for anqi_random_bot and its stdlib_client package, standard library only.

Run from clients/python (by name: ``discover`` would import the ``anqi`` package, which
needs building first):

    python3 -m unittest test_anqi_random_bot test_legal_counts

The variant tests read the shipped descriptions in protocol/variants. The last two test classes use a small fake server on localhost. It plays the server's part
over a real socket, so the whole client loop can be checked without the Rust server.
"""

from __future__ import annotations

import contextlib
import io
import random
import socket
import threading
import unittest
from typing import Any, Optional

import anqi_random_bot
from stdlib_client.client import Bot, Logger, play_game
from stdlib_client.colours import ColourTracker
from stdlib_client.framing import FrameScanner
from stdlib_client.rules import (
    BLACK,
    BOTH,
    RED,
    Action,
    CaptureRules,
    PublicState,
    can_step_capture,
    colour_of,
    legal_actions,
    other_colour,
)
from stdlib_client.sexp import ProtocolError, Symbol, format_message, parse_sexp
from stdlib_client.topology import Topology, unique_shortest_path
from stdlib_client.variant import Variant, VariantError, load_variant, parse_variant, shipped_variants

# The setup message of the 2x4 game, exactly as in the protocol description.
SETUP_2X4 = (
    "((id 1)(players 2)(game traditional)(size 8)(pieces KPPPkppp)"
    "(moves (0 1)(0 4)(1 0)(1 2)(1 5)(2 1)(2 3)(2 6)(3 2)(3 7)(4 0)(4 5)(5 1)(5 4)(5 6)(6 2)(6 5)(6 7)(7 3)(7 6))"
    "(jumps (0 2 3)(1 3 3)(2 0 0)(3 0 1)(4 6 7)(5 7 7)(6 4 4)(7 4 5))"
    "(revs (0)(1)(2)(3)(4)(5)(6)(7)))"
)


def rectangle_wire(lines: int, columns: int) -> tuple[list[tuple[int, int]], list[tuple[int, int, int]], list[list[list[int]]]]:
    """Build what the server would send for a rectangle (cell = row * columns + col).

    Returns the moves, the compact jump clauses, and, for checking the decoder, the
    expected rays (from the adjacent cell out to the edge) of every cell.
    """
    moves: list[tuple[int, int]] = []
    jumps: list[tuple[int, int, int]] = []
    rays: list[list[list[int]]] = [[] for _ in range(lines * columns)]
    for r in range(lines):
        for c in range(columns):
            origin = r * columns + c
            for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0)):
                ray = []
                rr, cc = r + dr, c + dc
                while 0 <= rr < lines and 0 <= cc < columns:
                    ray.append(rr * columns + cc)
                    rr, cc = rr + dr, cc + dc
                if ray:
                    moves.append((origin, ray[0]))
                if len(ray) >= 2:
                    jumps.append((origin, min(ray[1], ray[-1]), max(ray[1], ray[-1])))
                    rays[origin].append(ray)
    return sorted(moves), jumps, rays


def topology_2x4() -> Topology:
    setup = parse_sexp(SETUP_2X4)
    clauses = {c[0]: c[1:] for c in setup}
    return Topology.from_wire(clauses["size"][0], [tuple(m) for m in clauses["moves"]], [tuple(j) for j in clauses["jumps"]])


def topology_4x8() -> Topology:
    moves, jumps, _ = rectangle_wire(4, 8)
    return Topology.from_wire(32, moves, jumps)


def quiet_logger() -> Logger:
    return Logger(quiet=True, stream=io.StringIO())


# -----------------------------------------------------------------------------------------


class ReaderTest(unittest.TestCase):
    def test_board_and_turn(self) -> None:
        value = parse_sexp("((board .P.P.XPX)(turn 5 2))")
        self.assertEqual(value, [["board", ".P.P.XPX"], ["turn", 5, 2]])
        self.assertIsInstance(value[0][0], Symbol)
        self.assertIsInstance(value[0][1], Symbol)
        self.assertIsInstance(value[1][1], int)

    def test_strings_with_escapes(self) -> None:
        value = parse_sexp(r'((error illegal "cell 3 is \"empty\" \\ ok"))')
        self.assertEqual(value, [["error", "illegal", 'cell 3 is "empty" \\ ok']])
        self.assertNotIsInstance(value[0][2], Symbol)  # a quoted string, not a symbol
        self.assertEqual(parse_sexp(r'("a\nb\x41;")'), ["a\nbA"])
        self.assertEqual(parse_sexp('("has ) and ( inside")'), ["has ) and ( inside"])

    def test_nested_lists_numbers_and_whitespace(self) -> None:
        value = parse_sexp("(\n (jumps (0 2 3) ( 3  0 1 ))\t(x -4 +5 1.0) ())")
        self.assertEqual(value, [["jumps", [0, 2, 3], [3, 0, 1]], ["x", -4, 5, "1.0"], []])
        self.assertIsInstance(value[1][3], Symbol)  # 1.0 is kept as written, not made a float

    def test_comments(self) -> None:
        self.assertEqual(parse_sexp("((a 1) ; a comment (b 2)\n (c 3))"), [["a", 1], ["c", 3]])

    def test_setup_message(self) -> None:
        value = parse_sexp(SETUP_2X4)
        self.assertEqual([c[0] for c in value], ["id", "players", "game", "size", "pieces", "moves", "jumps", "revs"])
        self.assertEqual(len(value[5]) - 1, 20)

    def test_malformed(self) -> None:
        for text in ["((a 1)", "(a))", '("open', "", "(a) (b)"]:
            with self.subTest(text=text), self.assertRaises(ProtocolError):
                parse_sexp(text)

    def test_writer(self) -> None:
        self.assertEqual(format_message(("init", "py_random", 42)), "((init py_random 42))\n")
        self.assertEqual(format_message(("init", "my bot", -1)), '((init "my bot" -1))\n')
        self.assertEqual(format_message(("board", ".P.P.XPX"), ("mov", 1, 3)), "((board .P.P.XPX)(mov 1 3))\n")
        self.assertEqual(format_message(("resign",)), "((resign))\n")
        tricky = 'say "hi" \\'
        self.assertEqual(parse_sexp(format_message(("init", tricky, 1))), [["init", tricky, 1]])


class FramingTest(unittest.TestCase):
    STREAM = (
        b"((version 1.0))\n"
        + SETUP_2X4.encode()
        + b"\n((error illegal \"a ) in \\\" text (\"))\n"
        + b"((board XXXXXXXX)(turn 0 1))\n"
        + b"((win 0 0))\n"
    )
    EXPECTED = 5

    def test_whole_stream_at_once(self) -> None:
        frames = FrameScanner().feed(self.STREAM)
        self.assertEqual(len(frames), self.EXPECTED)
        self.assertEqual(frames[0], b"((version 1.0))")
        self.assertEqual(parse_sexp(frames[2].decode()), [["error", "illegal", 'a ) in " text (']])

    def test_every_split_point(self) -> None:
        whole = FrameScanner().feed(self.STREAM)
        for cut in range(len(self.STREAM) + 1):
            scanner = FrameScanner()
            frames = scanner.feed(self.STREAM[:cut]) + scanner.feed(self.STREAM[cut:])
            self.assertEqual(frames, whole, f"split at byte {cut}")

    def test_random_chunks_and_one_byte_at_a_time(self) -> None:
        whole = FrameScanner().feed(self.STREAM)
        rng = random.Random(7)
        for _ in range(50):
            scanner, frames, pos = FrameScanner(), [], 0
            while pos < len(self.STREAM):
                size = rng.randint(1, 40)
                frames += scanner.feed(self.STREAM[pos:pos + size])
                pos += size
            self.assertEqual(frames, whole)
        scanner = FrameScanner()
        frames = [f for b in self.STREAM for f in scanner.feed(bytes([b]))]
        self.assertEqual(frames, whole)

    def test_coalesced_without_newlines(self) -> None:
        frames = FrameScanner().feed(b"((a 1))((b 2))  ((c \"3)\"))")
        self.assertEqual(frames, [b"((a 1))", b"((b 2))", b'((c "3)"))'])

    def test_partial_message_waits(self) -> None:
        scanner = FrameScanner()
        self.assertEqual(scanner.feed(b"((board XX"), [])
        self.assertTrue(scanner.mid_message)
        self.assertEqual(scanner.feed(b")(turn 0 1))"), [b"((board XX)(turn 0 1))"])
        self.assertFalse(scanner.mid_message)

    def test_garbage_between_messages(self) -> None:
        with self.assertRaises(ProtocolError):
            FrameScanner().feed(b"hello ((a 1))")


class TopologyTest(unittest.TestCase):
    def test_4x8_rectangle(self) -> None:
        moves, jumps, expected_rays = rectangle_wire(4, 8)
        self.assertEqual(len(moves), 104)
        topology = Topology.from_wire(32, moves, jumps)
        self.assertEqual(topology.jump_target_count(), 216)
        self.assertEqual(sum(len(n) for n in topology.neighbours), 104)
        for cell in range(32):
            self.assertCountEqual(topology.rays[cell], expected_rays[cell], f"rays of cell {cell}")
        # The example from the protocol: (0 16 24) is the ray 8, 16, 24 down from cell 0.
        self.assertIn((0, 16, 24), jumps)
        self.assertIn([8, 16, 24], topology.rays[0])
        self.assertIn([1, 2, 3, 4, 5, 6, 7], topology.rays[0])

    def test_2x4_setup(self) -> None:
        topology = topology_2x4()
        self.assertEqual(topology.jump_target_count(), 12)
        self.assertEqual(topology.rays[3], [[2, 1, 0]])  # (3 0 1): screen 2, targets 1 and 0
        self.assertEqual(topology.rays[0], [[1, 2, 3]])  # (0 2 3)
        self.assertEqual(topology.rays[1], [[2, 3]])  # (1 3 3): a single target
        self.assertEqual(topology.rays[6], [[5, 4]])  # (6 4 4)
        self.assertEqual(sorted(topology.neighbours[5]), [1, 4, 6])

    def test_bad_jump(self) -> None:
        moves, _, _ = rectangle_wire(2, 4)
        with self.assertRaises(ProtocolError):
            Topology.from_wire(8, moves, [(0, 5, 6)])  # not a straight line from 0
        with self.assertRaises(ProtocolError):
            Topology.from_wire(8, moves, [(0, 2, 9)])  # outside the board


class LegalActionsTest(unittest.TestCase):
    def setUp(self) -> None:
        self.t24 = topology_2x4()

    def moves(self, board: str, colour: Optional[str], topology: Optional[Topology] = None) -> set[tuple[int, int]]:
        actions = legal_actions(board, topology or self.t24, colour)
        return {(a.cell, a.to) for a in actions if a.kind == "mov"}

    def test_cannon_jumps_over_face_down_screen(self) -> None:
        # 2x4, top row C X . p: the face-down piece on 1 is the screen, empty 2 is skipped.
        self.assertIn((0, 3), self.moves("CX.p....", RED))

    def test_cannon_jumps_over_revealed_screens_of_either_colour(self) -> None:
        self.assertIn((0, 3), self.moves("CP.p....", RED))
        self.assertIn((0, 3), self.moves("C.kp....", RED))

    def test_cannon_cannot_jump_over_two_pieces(self) -> None:
        self.assertNotIn((0, 3), self.moves("CXXp....", RED))
        self.assertNotIn((0, 3), self.moves("CpKp....", RED))

    def test_cannon_cannot_land_on_face_down_or_own_piece(self) -> None:
        self.assertNotIn((0, 3), self.moves("CX.X....", RED))
        self.assertNotIn((0, 3), self.moves("CX.P....", RED))

    def test_cannon_needs_a_screen_and_never_takes_by_step(self) -> None:
        self.assertEqual(self.moves("C..p....", RED), {(0, 1), (0, 4)})
        self.assertEqual(self.moves("Cp......", RED), {(0, 4)})

    def test_cannon_jump_on_4x8(self) -> None:
        t48 = topology_4x8()
        board = ["."] * 32
        board[0], board[16], board[24], board[2], board[5] = "c", "X", "R", "P", "G"
        moves = self.moves("".join(board), BLACK, t48)
        self.assertIn((0, 24), moves)  # down: 8 empty, screen X on 16, target R on 24
        self.assertIn((0, 5), moves)  # right: 1 empty, screen P on 2, 3-4 empty, target G on 5
        self.assertNotIn((0, 2), moves)

    def test_king_and_pawn(self) -> None:
        self.assertNotIn((0, 1), self.moves("Kp......", RED))  # king cannot take a pawn
        self.assertIn((0, 1), self.moves("Pk......", RED))  # a pawn takes the king
        self.assertNotIn((0, 1), self.moves("kP......", BLACK))
        self.assertIn((0, 1), self.moves("pK......", BLACK))
        self.assertIn((1, 0), self.moves("kP......", RED))  # and the red pawn takes back

    def test_step_rules(self) -> None:
        self.assertTrue(can_step_capture("G", "g"))  # equal rank
        self.assertTrue(can_step_capture("R", "n"))
        self.assertFalse(can_step_capture("n", "R"))
        self.assertFalse(can_step_capture("P", "g"))  # a pawn takes only pawns and the king
        self.assertFalse(can_step_capture("c", "P"))  # a cannon never takes by a step
        self.assertTrue(can_step_capture("K", "g"))
        # Never onto a face-down piece or an own piece; empty cells are fine. Here the
        # king on 0 is boxed in by X on 1 and its own pawn on 4; the pawn can go to 5.
        self.assertEqual(self.moves("KX..P...", RED), {(4, 5)})
        # Only the mover's own colour moves: black has nothing to do here but reveal.
        self.assertEqual(self.moves("KX..P...", BLACK), set())

    def test_before_owning_a_colour_only_reveals(self) -> None:
        board = "KXXp.X.P"
        actions = legal_actions(board, self.t24, None)
        self.assertEqual(actions, [Action("rev", 1), Action("rev", 2), Action("rev", 5)])

    def test_reveals_are_always_legal(self) -> None:
        actions = legal_actions("XXXXXXXX", self.t24, RED)
        self.assertEqual([a.cell for a in actions], list(range(8)))
        self.assertTrue(all(a.kind == "rev" for a in actions))


class ColourTrackerTest(unittest.TestCase):
    def test_first_reveal_decides(self) -> None:
        tracker = ColourTracker()
        tracker.observe("XXXXXXXX", "XXXXXXXX", 1)  # nothing changed
        self.assertIsNone(tracker.colour(1))
        tracker.observe("XXXXXXXX", "XXKXXXXX", 2)  # player 2 turned over a red king
        self.assertEqual(tracker.colour(2), RED)
        self.assertEqual(tracker.colour(1), BLACK)
        tracker.observe("XXKXXXXX", "pXKXXXXX", 1)  # later reveals change nothing
        self.assertEqual(tracker.colour(1), BLACK)
        self.assertEqual(tracker.colour(2), RED)

    def test_revealing_the_other_colour(self) -> None:
        tracker = ColourTracker()
        tracker.observe("XXXXXXXX", "XXXXXXpX", 1)
        self.assertEqual(tracker.colour(1), BLACK)
        self.assertEqual(tracker.colour(2), RED)

    def test_moves_and_captures_are_not_reveals(self) -> None:
        tracker = ColourTracker()
        tracker.observe("K.XXXXXX", ".KXXXXXX", 1)  # a face-up piece moving is not a reveal
        self.assertIsNone(tracker.colour(1))

    def test_more_than_two_players(self) -> None:
        tracker = ColourTracker(players=4)
        tracker.observe("XXXXXXXX", "XXXXXXpX", 3)
        self.assertEqual(tracker.colour(3), BLACK)
        self.assertIsNone(tracker.colour(1))  # unknown without team information

    def test_bot_tracks_colours_from_messages(self) -> None:
        player = Bot(name="t", seed=1, rng=random.Random(1), log=quiet_logger())
        player.handle(parse_sexp(SETUP_2X4.replace("(id 1)", "(id 2)")))
        self.assertEqual(player.handle(parse_sexp("((board XXXXXXXX)(info 0 1))")), [])
        reply = player.handle(parse_sexp("((board XXXgXXXX)(turn 1 2))"))
        self.assertEqual(player.tracker.colour(2), RED)  # player 1 turned over black
        # Red has no face-up piece, so the only legal actions are reveals.
        self.assertEqual(len(reply), 1)
        action = parse_sexp(reply[0])
        self.assertEqual(action[0], ["board", "XXXgXXXX"])
        self.assertEqual(action[1][0], "rev")
        self.assertNotEqual(action[1][1], 3)


def shape_wire(rows: list[str]) -> tuple[int, list[tuple[int, int]], list[tuple[int, int, int]], list[list[list[int]]]]:
    """Build what the server would send for a drawn board, as ``Topology::shape`` does.

    Cells are the non-hole characters (anything but ``.`` and space), numbered row by row;
    moves are the orthogonal steps between cells; rays run along rows and columns and stop
    at a hole or the edge. Returns the size, the moves, the compact jump clauses and the
    expected rays of every cell.
    """
    number: dict[tuple[int, int], int] = {}
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch not in ". ":
                number[(r, c)] = len(number)
    moves: list[tuple[int, int]] = []
    jumps: list[tuple[int, int, int]] = []
    rays: list[list[list[int]]] = [[] for _ in number]
    for (r, c), origin in number.items():
        for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0)):
            ray = []
            rr, cc = r + dr, c + dc
            while (rr, cc) in number:
                ray.append(number[(rr, cc)])
                rr, cc = rr + dr, cc + dc
            if ray:
                moves.append((origin, ray[0]))
            if len(ray) >= 2:
                jumps.append((origin, min(ray[1], ray[-1]), max(ray[1], ray[-1])))
                rays[origin].append(ray)
    return len(number), sorted(moves), jumps, rays


def setup_message(player: int, players: int, game: str, pieces: str, size: int,
                  moves: list[tuple[int, int]], jumps: list[tuple[int, int, int]], extra: str = "",
                  tail: str = "") -> str:
    """A setup message in the server's clause order; ``extra`` goes after (players N)."""
    return (f"((id {player})(players {players}){extra}(game {game})(size {size})(pieces {pieces})"
            f"(moves {''.join(f'({a} {b})' for a, b in moves)})"
            f"(jumps {''.join(f'({o} {a} {b})' for o, a, b in jumps)}){tail})")


def rectangle_setup(player: int, players: int, game: str, pieces: str, lines: int, columns: int,
                    extra: str = "") -> str:
    moves, jumps, _ = rectangle_wire(lines, columns)
    return setup_message(player, players, game, pieces, lines * columns, moves, jumps, extra)


def new_bot(variant: Optional[Variant] = None, seed: int = 1) -> Bot:
    return Bot(name="t", seed=seed, rng=random.Random(seed), log=quiet_logger(), variant=variant)


def board_of(cells: dict[int, str], size: int = 32, fill: str = ".") -> str:
    """A board string of ``size`` cells, ``fill`` everywhere but ``cells``."""
    board = [fill] * size
    for cell, piece in cells.items():
        board[cell] = piece
    return "".join(board)


def reply_of(lines: list[str]) -> Any:
    """The one message a bot sent, parsed."""
    assert len(lines) == 1, lines
    return parse_sexp(lines[0])


CROSS_ROWS = ["..XXXX..", "..XXXX..", "XXXXXXXX", "XXXXXXXX", "..XXXX..", "..XXXX.."]


class VariantReaderTest(unittest.TestCase):
    def test_every_shipped_description_reads(self) -> None:
        names = shipped_variants()
        self.assertEqual(len(names), 21, names)
        for name in names:
            with self.subTest(variant=name):
                variant = load_variant(name)
                self.assertEqual(variant.name, name)
                self.assertGreaterEqual(variant.size, len(variant.pieces))
                self.assertEqual(sorted(p for side in variant.sides for p in side),
                                 list(range(1, variant.players + 1)))

    def test_traditional_is_the_standard_table(self) -> None:
        variant = load_variant("traditional")
        self.assertEqual(variant.capture, CaptureRules.standard())
        self.assertEqual((variant.size, variant.players, variant.sides), (32, 2, [[1], [2]]))
        self.assertFalse(variant.bag or variant.both_colours or variant.fixed_colours or variant.chain_capture)
        self.assertTrue(variant.capture.jumps("c"))

    def test_paper_ranks_put_the_knight_above_the_rook(self) -> None:
        rules = load_variant("paper-ranks").capture
        self.assertEqual((rules.ranks["N"], rules.ranks["R"]), (4, 3))
        self.assertTrue(rules.can_step_capture("N", "r"))
        self.assertFalse(rules.can_step_capture("r", "N"))
        self.assertFalse(rules.can_step_capture("K", "p"))  # the exceptions still hold
        self.assertTrue(rules.can_step_capture("p", "K"))

    def test_hong_kong_cannons_step_and_never_jump(self) -> None:
        rules = load_variant("hong-kong").capture
        self.assertFalse(rules.cannon_jump)
        self.assertFalse(rules.jumps("C"))
        self.assertTrue(rules.can_step_capture("C", "c"))
        self.assertTrue(rules.can_step_capture("C", "p"))
        self.assertFalse(rules.can_step_capture("C", "n"))
        self.assertFalse(rules.can_step_capture("K", "p"))
        # On a board: the cannon takes the pawn next to it and cannot jump the far one.
        t48 = topology_4x8()
        board = board_of({0: "C", 1: "p", 3: "g"})
        moves = {(a.cell, a.to) for a in legal_actions(board, t48, RED, rules) if a.kind == "mov"}
        self.assertEqual(moves, {(0, 1), (0, 8)})

    def test_cannon_step_cannons_do_both(self) -> None:
        rules = load_variant("cannon-step").capture
        self.assertTrue(rules.jumps("c"))
        self.assertTrue(rules.can_step_capture("c", "C"))
        self.assertTrue(rules.can_step_capture("c", "P"))
        self.assertFalse(rules.can_step_capture("c", "N"))
        t48 = topology_4x8()
        board = board_of({0: "C", 1: "p", 3: "g"})  # the pawn is the screen for the guard
        moves = {(a.cell, a.to) for a in legal_actions(board, t48, RED, rules) if a.kind == "mov"}
        self.assertEqual(moves, {(0, 1), (0, 8), (0, 3)})

    def test_other_flags(self) -> None:
        self.assertTrue(load_variant("chain-capture").chain_capture)
        self.assertTrue(load_variant("strategic").bag)
        self.assertTrue(load_variant("handicap").fixed_colours)
        self.assertEqual(load_variant("handicap").pieces.count("G"), 0)
        self.assertTrue(load_variant("open").fixed_colours)
        single = load_variant("single")
        self.assertEqual((single.players, single.sides, single.ply_cap, single.both_colours), (1, [[1]], 400, True))
        self.assertEqual(load_variant("cooperative").sides, [[1, 2]])
        self.assertEqual(load_variant("1v2").sides, [[1], [2, 3]])
        self.assertEqual(load_variant("2v2-8x16").size, 128)
        self.assertEqual(load_variant("cross").size, 32)
        self.assertEqual(load_variant("puzzle").start, "fixed")
        self.assertEqual(load_variant("reveal-4").start, "reveal")

    def test_defaults_are_the_servers(self) -> None:
        # No step-capture clause means no exceptions at all: a plain rank order.
        variant = parse_variant('(variant (name x) (board (shape "XXX" ".X.")) (pieces Kp))')
        self.assertEqual(variant.size, 4)
        self.assertTrue(variant.capture.can_step_capture("K", "p"))
        self.assertTrue(variant.capture.can_step_capture("C", "p"))
        self.assertFalse(variant.capture.can_step_capture("P", "k"))
        self.assertTrue(variant.capture.cannon_jump)
        self.assertEqual((variant.game, variant.players, variant.start), ("traditional", 2, "face-down"))
        # Forbids first, then allows: an allow of the same pair wins.
        variant = parse_variant("(variant (name x) (board (rectangle 2 4)) (pieces Kp)"
                                " (step-capture (allow (C P)) (forbid (C *))))")
        self.assertTrue(variant.capture.can_step_capture("C", "p"))
        self.assertFalse(variant.capture.can_step_capture("C", "c"))

    def test_an_explicit_board_gives_its_size(self) -> None:
        # VARIANTS.md's ring: the topology itself comes in the setup message.
        variant = parse_variant(
            "(variant (name ring) (board (cells 6) (moves (0 1) (0 5) (1 2) (1 0) (2 3) (2 1)"
            " (3 4) (3 2) (4 5) (4 3) (5 0) (5 4)) (jumps (0 2 2) (3 1 1))"
            " (coords (0 0) (0 1) (0 2) (1 2) (1 1) (1 0))) (pieces Cp) (colours fixed) (start open))")
        self.assertEqual(variant.size, 6)
        with self.assertRaises(VariantError):
            parse_variant("(variant (name x) (board (cells 1) (moves)) (pieces K))")

    def test_mistakes_are_refused(self) -> None:
        base = "(variant (name x) (board (rectangle 2 4)) (pieces KPPPkppp)"
        for tail in [" (colour red))", ")  (extra)", " (ranks (K 7)))", " (players 3))",
                     " (cannon-jump yes))", " (objective win))", " (name y))", " (start shuffled))",
                     " (sides (1) (1)))"]:
            with self.subTest(tail=tail), self.assertRaises(VariantError):
                parse_variant(base + tail)
        for text in ["(variant (board (rectangle 2 4)) (pieces Kk))", "(game (name x))",
                     "(variant (name x) (board (rectangle 1 1)) (pieces Kk))",
                     "(variant (name x) (board (rectangle 2 4)) (pieces KPPPPPPPP))",
                     "(variant (name x) (board (rectangle 2 4)) (pieces KPxk))"]:
            with self.subTest(text=text), self.assertRaises(VariantError):
                parse_variant(text)
        with self.assertRaises(VariantError) as caught:
            load_variant("no-such-variant")
        self.assertIn("traditional-2x4", str(caught.exception))


class ShortestPathDecodingTest(unittest.TestCase):
    def test_cross_board(self) -> None:
        size, moves, jumps, expected = shape_wire(CROSS_ROWS)
        self.assertEqual(size, load_variant("cross").size)
        topology = Topology.from_wire(size, moves, jumps)
        for cell in range(size):
            self.assertCountEqual(topology.rays[cell], expected[cell], f"rays of cell {cell}")
        # Down the cross's left arm from cell 0 (row 0, column 2): the cell numbers grow by
        # 4, 6, 8, 6, 4, so no arithmetic progression finds this ray.
        self.assertIn((0, 10, 28), jumps)
        self.assertIn([4, 10, 18, 24, 28], topology.rays[0])
        # Row 2 runs 8..15 without a hole; row 0 stops at the arm's edges.
        self.assertIn([9, 10, 11, 12, 13, 14, 15], topology.rays[8])
        self.assertEqual(sorted(topology.rays[0]), [[1, 2, 3], [4, 10, 18, 24, 28]])
        self.assertEqual(sorted(topology.neighbours[8]), [9, 16])  # a hole above row 2's first cell

    def test_rays_that_do_not_decode(self) -> None:
        # A 2x2 ring: from 0 to 3 there are two shortest paths, so (0 3 3) names no ray.
        ring = [(0, 1), (1, 0), (1, 3), (3, 1), (3, 2), (2, 3), (2, 0), (0, 2)]
        with self.assertRaises(ProtocolError):
            Topology.from_wire(4, ring, [(0, 3, 3)])
        # On 2x4, (0 1 2): the nearer target 1 is at distance 1, not 2.
        moves, _, _ = rectangle_wire(2, 4)
        with self.assertRaises(ProtocolError):
            Topology.from_wire(8, moves, [(0, 1, 2)])
        self.assertEqual(unique_shortest_path([[1], [0]], 0, 0), None)


class BagGameTest(unittest.TestCase):
    """The strategic game on 2x4, through the messages a bot receives."""

    def setUp(self) -> None:
        self.player = new_bot(load_variant("strategic-2x4"))
        moves, jumps, _ = rectangle_wire(2, 4)
        setup = setup_message(1, 2, "strategic", "KPPPkppp", 8, moves, jumps,
                              tail="(puts (0)(1)(2)(3)(4)(5)(6)(7))")
        self.player.handle(parse_sexp(setup))

    def test_draw_put_and_colours(self) -> None:
        player = self.player
        # X is a never-filled cell: nothing to reveal, so the only action is a draw.
        self.assertEqual(reply_of(player.handle(parse_sexp("((board XXXXXXXX)(turn 0 1))"))),
                         [["board", "XXXXXXXX"], ["bag"]])
        # Holding a black pawn: only puts, onto every empty cell, and a black drawer is black.
        self.assertEqual(player.legal("XXXXXXXX", "p"), [Action("put", c, piece="p") for c in range(8)])
        reply = reply_of(player.handle(parse_sexp("((board XXXXXXXX)(hand p)(turn 0 1))")))
        self.assertEqual(reply[0], ["board", "XXXXXXXX"])
        self.assertEqual(reply[1][:2], ["put", "p"])
        self.assertEqual(player.draws, 1)
        self.assertEqual((player.tracker.colour(1), player.tracker.colour(2)), (BLACK, RED))
        # The opponent's turn, then its draw: one more draw, however many prompts show it.
        player.handle(parse_sexp("((board XXXpXXXX)(info 0 2))"))
        player.handle(parse_sexp("((board XXXpXXXX)(hand K)(info 0 2))"))
        player.handle(parse_sexp("((board XXXpXXXX)(hand K)(info 0 2))"))
        self.assertEqual(player.draws, 2)
        self.assertEqual(player.tracker.colour(1), BLACK)  # the first draw decided
        # Our turn: move the black pawn on 3 (onto empty 2 or 7), or draw again.
        # Our turn: the black pawn on 3 takes the red king or steps onto never-filled 7, or
        # we draw again.
        self.assertCountEqual(player.legal("XXKpXXXX", None),
                              [Action("mov", 3, 2), Action("mov", 3, 7), Action("bag")])

    def test_no_draw_once_the_bag_is_empty(self) -> None:
        player = self.player
        player.tracker.decide(1, RED)
        player.draws = 7
        self.assertIn(Action("bag"), player.legal("KP.Pkpp.", None))
        player.draws = 8
        self.assertNotIn(Action("bag"), player.legal("KP.Pkppp", None))
        self.assertEqual(player.legal("KP.Pkppp", None),
                         [Action("mov", 0, 4), Action("mov", 1, 2), Action("mov", 1, 5),
                          Action("mov", 3, 2), Action("mov", 3, 7)])

    def test_default_rules_for_a_strategic_game(self) -> None:
        player = new_bot()  # no --variant: (game strategic) means a bag game
        moves, jumps, _ = rectangle_wire(2, 4)
        player.handle(parse_sexp(setup_message(2, 2, "strategic", "KPPPkppp", 8, moves, jumps)))
        self.assertTrue(player.rules is not None and player.rules.bag)
        self.assertEqual(player.legal("XXXXXXXX", None), [Action("bag")])


class BothColoursTest(unittest.TestCase):
    def test_moves_of_both_colours_and_captures_of_the_other(self) -> None:
        t24 = topology_2x4()
        # K G k . / . . . . : red king and guard, black king.
        actions = {(a.cell, a.to) for a in legal_actions("KGk.....", t24, BOTH) if a.kind == "mov"}
        self.assertEqual(actions, {(0, 4), (1, 5), (2, 1), (2, 3), (2, 6)})
        # The guard may not take its own king, nor the black king (higher rank).
        self.assertNotIn((1, 0), actions)
        self.assertNotIn((1, 2), actions)

    def test_single_player_game(self) -> None:
        player = new_bot(load_variant("single"))
        player.handle(parse_sexp(rectangle_setup(1, 1, "single", "KGGBBRRNNCCPPPPPkggbbrrnnccppppp", 4, 8)))
        self.assertEqual(player.control(), BOTH)
        board = board_of({0: "K", 1: "k", 9: "p"}, fill="X")
        board = board[:2] + ".." + board[4:]
        legal = player.legal(board, None)
        moves = {(a.cell, a.to) for a in legal if a.kind == "mov"}
        self.assertEqual(moves, {(0, 1), (1, 0), (1, 2)})  # kings take kings; 9 is the black pawn
        self.assertEqual(sum(a.kind == "rev" for a in legal), 32 - 5)
        # Without --variant, (game cooperative) means the same.
        player = new_bot()
        player.handle(parse_sexp(rectangle_setup(2, 2, "cooperative", "KPPPkppp", 2, 4, "(team 1)(teammate 1)")))
        self.assertEqual(player.control(), BOTH)


class ChainCaptureTest(unittest.TestCase):
    # 4x8: red rook on 0, black pawns on 1 and 2, a black guard on 8 (out of the rook's
    # reach by rank). The only action is the rook taking 1.
    START = board_of({0: "R", 1: "p", 2: "p", 8: "g"})
    AFTER = board_of({1: "R", 2: "p", 8: "g"})

    def play_capture(self, variant: str) -> Bot:
        player = new_bot(load_variant(variant))
        player.handle(parse_sexp(rectangle_setup(1, 2, "traditional", "KGGBBRRNNCCPPPPPkggbbrrnnccppppp", 4, 8)))
        player.tracker.decide(1, RED)
        self.assertEqual(player.legal(self.START, None), [Action("mov", 0, 1)])
        reply = reply_of(player.handle(parse_sexp(f"((board {self.START})(turn 5 1))")))
        self.assertEqual(reply[1], ["mov", 0, 1])
        return player

    def test_the_capturing_piece_must_capture_again(self) -> None:
        player = self.play_capture("chain-capture")
        # The server keeps the turn (same round, same player): only the rook's capture of 2.
        reply = reply_of(player.handle(parse_sexp(f"((board {self.AFTER})(turn 5 1))")))
        self.assertEqual(reply[1], ["mov", 1, 2])
        # After that capture the rook on 2 cannot capture: the chain is over, whatever comes.
        done = board_of({2: "R", 8: "g"})
        self.assertIn(Action("mov", 2, 3), player.legal(done, None))

    def test_the_strategy_sees_the_public_state(self) -> None:
        # A strategy is asked with the choices and the state they came from: here the chain.
        player = self.play_capture("chain-capture")
        asked: list[tuple[list[Action], PublicState]] = []

        def last(choices: list[Action], state: PublicState, rng: random.Random) -> Action:
            asked.append((choices, state))
            return choices[-1]

        player.strategy = last
        reply = reply_of(player.handle(parse_sexp(f"((board {self.AFTER})(turn 5 1))")))
        self.assertEqual(reply[1], ["mov", 1, 2])
        [(choices, state)] = asked
        self.assertEqual((choices, state.board, state.control, state.chain), ([Action("mov", 1, 2)], self.AFTER, RED, 1))
        self.assertEqual(state.counts(), {"moves": 1, "jumps": 0, "reveals": 0, "bags": 0, "puts": 0})
        self.assertEqual(choices[0].text(), "(mov 1 2)")

    def test_no_chain_once_someone_else_moved(self) -> None:
        player = self.play_capture("chain-capture")
        player.handle(parse_sexp(f"((board {self.AFTER})(info 5 2))"))
        moved = board_of({1: "R", 2: "p", 16: "g"})
        player.handle(parse_sexp(f"((board {moved})(turn 6 1))"))
        self.assertIsNone(player.my_last)
        self.assertIn(Action("mov", 1, 0), player.legal(moved, None))

    def test_no_chain_without_the_house_rule(self) -> None:
        player = self.play_capture("traditional")
        self.assertIn(Action("mov", 1, 0), player.legal(self.AFTER, None))

    def test_a_refused_capture_starts_no_chain(self) -> None:
        player = self.play_capture("chain-capture")
        # The server refused the capture and asks again on the same board: no chain.
        player.handle(parse_sexp('((error illegal "no"))'))
        self.assertIsNone(player.my_last)
        replies = player.handle(parse_sexp(f"((board {self.START})(turn 5 1))"))
        self.assertEqual(reply_of(replies), [["resign"]])  # its only action was refused
        self.assertIsNone(player.my_last)


class TeamAndFixedColoursTest(unittest.TestCase):
    def test_a_teammates_reveal_gives_the_team_its_colour(self) -> None:
        player = new_bot(load_variant("2v2"))
        player.handle(parse_sexp(rectangle_setup(1, 4, "traditional", "KGGBBRRNNCCPPPPPkggbbrrnnccppppp", 4, 8,
                                                 "(team 1)(teammate 3)")))
        self.assertEqual(player.teammates, [3])
        hidden = "X" * 32
        player.handle(parse_sexp(f"((board {hidden})(info 0 3))"))
        player.handle(parse_sexp(f"((board {'c' + hidden[1:]})(info 0 4))"))  # player 3 turned over black
        self.assertEqual([player.tracker.colour(p) for p in (1, 2, 3, 4)], [BLACK, RED, BLACK, RED])
        self.assertEqual(player.control(), BLACK)

    def test_an_opponents_reveal_in_one_against_two(self) -> None:
        player = new_bot(load_variant("1v2"))
        player.handle(parse_sexp(rectangle_setup(3, 3, "traditional", "KGGBBRRNNCCPPPPPkggbbrrnnccppppp", 4, 8,
                                                 "(team 2)(teammate 2)")))
        hidden = "X" * 32
        player.handle(parse_sexp(f"((board {hidden})(info 0 1))"))
        player.handle(parse_sexp(f"((board {'K' + hidden[1:]})(info 0 2))"))  # player 1 turned over red
        self.assertEqual(player.control(), BLACK)
        self.assertEqual(player.tracker.colour(2), BLACK)

    def test_fixed_colours(self) -> None:
        for me, colour in ((1, RED), (2, BLACK)):
            player = new_bot(load_variant("handicap"))
            player.handle(parse_sexp(rectangle_setup(me, 2, "traditional", "KBBRRNNCCPPPPPkggbbrrnnccppppp", 4, 8)))
            self.assertEqual(player.control(), colour)

    def test_a_variant_of_another_size_is_refused(self) -> None:
        player = new_bot(load_variant("traditional"))
        with self.assertRaises(ProtocolError):
            player.handle(parse_sexp(SETUP_2X4))


# -----------------------------------------------------------------------------------------
# Offline self-test: the client loop against fake servers
# -----------------------------------------------------------------------------------------


class Connection:
    """The fake server's end of one client connection: send lines, read framed messages."""

    def __init__(self, sock: socket.socket) -> None:
        # Without TCP_NODELAY, Nagle's algorithm and delayed ACKs add ~40 ms to some plies.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock = sock
        self.scanner = FrameScanner()
        self.pending: list[bytes] = []

    def send(self, text: str) -> None:
        self.sock.sendall(text.encode())

    def read(self) -> list:
        while not self.pending:
            data = self.sock.recv(4096)
            if not data:
                raise EOFError("client hung up")
            self.pending += self.scanner.feed(data)
        return parse_sexp(self.pending.pop(0).decode())


class FakeServer:
    """A minimal referee for the 2x4 game: it deals, prompts, checks and applies actions.

    It uses the bot's own move generator to check actions. So it cannot catch a rules
    mistake that both share, but it does check the protocol, the turn order, the board
    echo, and that each player moves only its own colour.
    """

    def __init__(self, clients: int, deal_seed: int, max_plies: int = 200) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.clients = clients
        self.deal_seed = deal_seed
        self.max_plies = max_plies
        self.failure: Optional[BaseException] = None
        self.result: Optional[tuple[int, int]] = None
        self.inits: list[list] = []
        self.colours: dict[int, str] = {}  # player id -> colour, as the referee saw it
        self.plies = 0
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self._referee()
        except BaseException as exc:  # noqa: BLE001 - reported to the test thread
            self.failure = exc
        finally:
            self.listener.close()

    def _referee(self) -> None:
        conns = []
        for _ in range(self.clients):
            sock, _ = self.listener.accept()
            conn = Connection(sock)
            # Coalesce nothing here; the version line goes alone, as the real server does.
            conn.send("((version 1.0))\n")
            # The bot asks for the variant extension first; this fake server has none.
            ext = conn.read()
            assert ext == [["ext", "variant"]], ext
            conn.send('((error unknown "unknown clause (ext ...)"))\n')
            self.inits.append(conn.read())
            conns.append(conn)
        pieces = list("KPPPkppp")
        random.Random(self.deal_seed).shuffle(pieces)
        topology = topology_2x4()
        board = "X" * 8
        colours = self.colours
        for player, conn in enumerate(conns, start=1):
            conn.send(SETUP_2X4.replace("(id 1)", f"(id {player})") + "\n")
        for ply in range(self.max_plies):
            self.plies = ply
            mover = ply % 2 + 1
            for player, conn in enumerate(conns, start=1):
                kind = "turn" if player == mover else "info"
                conn.send(f"((board {board})({kind} {ply} {mover}))\n")
            reply = conns[mover - 1].read()
            clauses = {c[0]: c[1:] for c in reply}
            if "resign" in clauses:
                return self._finish(conns, (3 - mover, 0))
            assert clauses["board"] == [board], f"board not echoed: {reply}"
            own = colours.get(mover)
            allowed = legal_actions(board, topology, own)
            if "rev" in clauses:
                action = Action("rev", clauses["rev"][0])
            else:
                action = Action("mov", clauses["mov"][0], clauses["mov"][1])
            assert action in allowed, f"player {mover} ({own}) played illegal {action} on {board}"
            cells = list(board)
            assert action.cell is not None
            if action.kind == "rev":
                cells[action.cell] = pieces[action.cell]
                if not colours:
                    colours[mover] = colour_of(cells[action.cell])
                    colours[3 - mover] = other_colour(colours[mover])
            else:
                assert action.to is not None
                cells[action.to], cells[action.cell] = cells[action.cell], "."
            board = "".join(cells)
            for player, colour in colours.items():
                hidden = "X" in board
                if not hidden and not any(colour_of(c) == colour for c in board):
                    return self._finish(conns, (3 - player, 0))
        self._finish(conns, (0, 0))

    def _finish(self, conns: list[Connection], result: tuple[int, int]) -> None:
        self.result = result
        for conn in conns:
            conn.send(f"((win {result[0]} {result[1]}))\n")
            conn.sock.close()

    def join(self) -> None:
        self.thread.join(timeout=30)
        if self.failure is not None:
            raise self.failure


class SelfPlayTest(unittest.TestCase):
    """Two bots play whole 2x4 games through real sockets against the fake referee."""

    def test_games(self) -> None:
        outcomes: list[tuple[Optional[tuple[int, int]], int]] = []
        for seed in range(5):
            server = FakeServer(clients=2, deal_seed=seed)
            bots = [Bot(name=f"p{i}", seed=seed * 10 + i, rng=random.Random(seed * 10 + i), log=quiet_logger())
                    for i in (1, 2)]
            results: list = [None, None]

            def play(index: int) -> None:
                results[index] = play_game("127.0.0.1", server.port, bots[index])

            # Connect one after the other so that the first bot gets id 1.
            threads = []
            for index in (0, 1):
                thread = threading.Thread(target=play, args=(index,), daemon=True)
                thread.start()
                threads.append(thread)
                while len(server.inits) <= index and server.failure is None and thread.is_alive():
                    threading.Event().wait(0.01)
            for thread in threads:
                thread.join(timeout=30)
            server.join()
            self.assertEqual(results[0], server.result)
            self.assertEqual(results[1], server.result)
            self.assertEqual(server.inits[0], [["init", "p1", seed * 10 + 1]])
            self.assertEqual({b.my_id for b in bots}, {1, 2})
            for player in bots:  # each bot worked out the same colours as the referee
                for player_id, colour in server.colours.items():
                    self.assertEqual(player.tracker.colour(player_id), colour)
            outcomes.append((server.result, server.plies))
        # Not a rule, but a sign the games were real: someone won within the ply limit.
        self.assertTrue(any(result != (0, 0) for result, _ in outcomes), outcomes)


class MainTest(unittest.TestCase):
    """The command line against a scripted server, including error re-prompts."""

    def run_main(self, argv: list[str]) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = anqi_random_bot.main(argv)
        return code, out.getvalue(), err.getvalue()

    def test_scripted_game_with_reprompt_and_unknown_clauses(self) -> None:
        listener = socket.create_server(("127.0.0.1", 0))
        port = listener.getsockname()[1]
        seen: list = []
        failure: list = []

        def serve() -> None:
            try:
                sock, _ = listener.accept()
                conn = Connection(sock)
                conn.send("((version 1.0))\n")
                seen.append(conn.read())
                seen.append(conn.read())
                # Setup with clauses the bot does not know, coalesced with the first prompt.
                setup = SETUP_2X4.replace("(id 1)", "(id 2)(team 2)(teammate 2)")
                conn.send(setup + "\n((board XXXXXXXX)(info 0 1))\n((board XXKXXXXX)(turn 1 2))\n")
                first = conn.read()
                seen.append(first)
                # Refuse whatever it did; it must act again on the same board, differently.
                conn.send('((error illegal "no \\"thanks\\""))\n((board XXKXXXXX)(turn 1 2))\n')
                second = conn.read()
                seen.append(second)
                conn.send("((win 1 0))\n")
                sock.close()
            except BaseException as exc:  # noqa: BLE001
                failure.append(exc)
            finally:
                listener.close()

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        code, out, err = self.run_main(["--connect", f"127.0.0.1:{port}", "--seed", "3", "--quiet"])
        thread.join(timeout=10)
        self.assertFalse(failure, failure)
        self.assertEqual(code, 0, err)
        self.assertEqual(out, "game over: (win 1 0), I was player 2\n")
        self.assertIn("illegal", err)
        self.assertEqual(seen[0], [["ext", "variant"]])
        self.assertEqual(seen[1], [["init", "py_random", 3]])
        # Player 1 revealed a red king, so this bot is black and may only reveal (no black
        # piece is up yet). The refused action is not repeated.
        for reply in seen[2:]:
            self.assertEqual(reply[0], ["board", "XXKXXXXX"])
            self.assertEqual(reply[1][0], "rev")
        self.assertNotEqual(seen[2][1], seen[3][1])

    def test_unknown_variant_is_a_usage_error(self) -> None:
        with self.assertRaises(SystemExit) as caught:
            self.run_main(["--connect", "127.0.0.1:1", "--variant", "no-such-variant"])
        self.assertEqual(caught.exception.code, 2)

    def test_connection_refused(self) -> None:
        listener = socket.create_server(("127.0.0.1", 0))
        port = listener.getsockname()[1]
        listener.close()  # nothing listens on this port now
        code, out, err = self.run_main(["--connect", f"127.0.0.1:{port}", "--quiet"])
        self.assertEqual(code, 1)
        self.assertEqual(out, "")
        self.assertIn("cannot talk", err)

    def test_server_hangs_up_mid_game(self) -> None:
        listener = socket.create_server(("127.0.0.1", 0))
        port = listener.getsockname()[1]

        def serve() -> None:
            sock, _ = listener.accept()
            sock.sendall(b'((error busy "full"))\n')
            sock.close()
            listener.close()

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        code, out, err = self.run_main(["--connect", f"127.0.0.1:{port}", "--quiet"])
        thread.join(timeout=10)
        self.assertEqual(code, 1)
        self.assertIn("busy", err)


if __name__ == "__main__":
    unittest.main()
