"""The client: one game's protocol state (:class:`Bot`, no I/O) and the socket loop (:func:`play_game`).

:class:`Bot` reads every message, tracks what the server does not say (colours, bag draws,
chain captures, refused actions), works out the legal actions with :mod:`stdlib_client.rules`
and asks its strategy (:mod:`stdlib_client.strategy`) to pick one. :func:`play_game` connects
it to a server.
"""

from __future__ import annotations

import random
import socket
import sys
from dataclasses import dataclass, field
from typing import Optional, TextIO

from .colours import ColourTracker
from .framing import FrameScanner
from . import messages
from .rules import BOTH, EMPTY, FACE_DOWN, RED, Action, PublicState, colour_of, moves_from
from .sexp import ProtocolError, Value, format_message, parse_sexp
from .strategy import Strategy, random_strategy
from .topology import Topology
from .variant import Variant, default_variant, parse_variant

class Logger:
    """Writes progress to stderr, or only warnings and errors when ``quiet`` is set.

    Logs go to stderr so that stdout holds only the one-line game results.
    """

    def __init__(self, quiet: bool, stream: Optional[TextIO] = None) -> None:
        self.quiet = quiet
        self._stream = stream

    def _write(self, text: str) -> None:
        # Look sys.stderr up on every call rather than once, so that a redirected stderr
        # (contextlib.redirect_stderr in the tests) is honoured.
        print(text, file=self._stream or sys.stderr, flush=True)

    def info(self, text: str) -> None:
        if not self.quiet:
            self._write(text)

    def warn(self, text: str) -> None:
        self._write(f"warning: {text}")

    def error(self, text: str) -> None:
        self._write(f"error: {text}")


@dataclass
class Bot:
    """The protocol state of one game. It never touches a socket.

    Pass each parsed message to :meth:`handle`. It returns the lines to send back.
    Keeping the socket out of this class lets the unit tests run a whole game offline.
    ``variant`` gives the exact rules (``--variant``); without it the bot assumes
    :func:`default_variant` for whatever game the setup names.
    """

    name: str
    seed: int | str
    rng: random.Random
    log: "Logger"
    variant: Optional[Variant] = None
    #: Picks one of the legal actions (:mod:`stdlib_client.strategy`); uniformly at random
    #: unless told otherwise.
    strategy: Strategy = random_strategy
    my_id: Optional[int] = None
    players: int = 2
    #: ``(team T)`` and the ``(teammate ID)`` players, in team games.
    team: Optional[int] = None
    teammates: list[int] = field(default_factory=list)
    topology: Optional[Topology] = None
    #: The rules in force: ``variant``, or the default for the setup's game.
    rules: Optional[Variant] = None
    #: The number of pieces in the game, from the setup's ``(pieces ...)``: a bag holds them all.
    piece_count: int = 0
    tracker: ColourTracker = field(default_factory=ColourTracker)
    #: The board from the previous ``turn``/``info`` (with ``X`` only for face-down pieces)
    #: and the player who was to move on it.
    last_board: Optional[str] = None
    last_mover: Optional[int] = None
    #: Pieces drawn from the bag so far, and whether the previous prompt showed ``(hand P)``.
    #: A drawn piece stays in hand over several prompts (other players' ``info``, or a
    #: re-prompt after an error), so only a hand that appears after a prompt without one is
    #: a new draw.
    draws: int = 0
    last_had_hand: bool = False
    #: This bot's last action that the server played, and whether it captured, for as long
    #: as no other player has moved since. A chain capture continues from its destination.
    my_last: Optional[tuple[Action, bool]] = None
    #: The action just sent, whether it captures, and the position (board, hand) it was sent
    #: on. The next prompt tells whether the server played it: every action changes the
    #: board or the hand, so an unchanged position means it was refused.
    pending: Optional[tuple[Action, bool, tuple[str, Optional[str]]]] = None
    #: Actions the server refused on the current position. They are left out when the
    #: server asks again, so a rules disagreement cannot trap the bot in a loop.
    rejected: set[Action] = field(default_factory=set)
    #: The position (wire board, hand, player to move) that ``rejected`` belongs to.
    last_position: Optional[tuple[str, Optional[str], int]] = None
    last_action: Optional[Action] = None
    greeted: bool = False
    result: Optional[tuple[int, int]] = None

    def handle(self, message: Value) -> list[str]:
        """Process one message from the server. Return the lines to send, often none."""
        pairs = messages.clauses(message)
        # Look clauses up by name. If a name repeats, the first one wins; (teammate ID) is
        # the exception, read from ``pairs``, and so is (error ...): every one is logged.
        clauses: dict[str, list[Value]] = {}
        for head, args in pairs:
            clauses.setdefault(head, args)
        out: list[str] = []

        # Errors come first. They explain a refused action before any re-prompt that
        # arrives in the same message.
        for head, args in pairs:
            if head == "error":
                self._on_error(args)

        if "version" in clauses and not self.greeted:
            version = str(messages.arg(clauses["version"], 0, "version"))
            if not version.startswith("1."):
                self.log.warn(f"server speaks protocol version {version}, this bot knows 1.0; trying anyway")
            # Its own message: a server without extensions refuses only this one.
            out.append(format_message(("ext", "variant")))
            out.append(format_message(("init", self.name, self.seed)))
            self.greeted = True

        if "id" in clauses:
            self._on_setup(clauses, [messages.integer(args, 0, "teammate") for head, args in pairs if head == "teammate"])

        if "win" in clauses:
            args = clauses["win"]
            self.result = (messages.integer(args, 0, "win"), messages.integer(args, 1, "win"))
            return out

        if "board" in clauses:
            board = str(messages.arg(clauses["board"], 0, "board"))
            hand = str(messages.arg(clauses["hand"], 0, "hand")) if "hand" in clauses else None
            # (turn ROUND ID) goes to the player who must act, (info ROUND ID) to the others.
            # Both name the player to move, which colour tracking needs.
            prompt = "turn" if "turn" in clauses else "info" if "info" in clauses else None
            if prompt is not None:
                mover = messages.integer(clauses[prompt], 1, prompt)
                self._on_board(board, mover, hand)
                if prompt == "turn" and mover == self.my_id:
                    out.append(self._act(board, hand))
        return out

    # --- message parts -------------------------------------------------------------------

    def _on_error(self, args: list[Value]) -> None:
        code = str(args[0]) if args else "?"
        text = str(args[1]) if len(args) > 1 else ""
        self.log.error(f"server error {code}: {text}")
        if code == "illegal" and self.last_action is not None:
            self.rejected.add(self.last_action)

    def _on_setup(self, clauses: dict[str, list[Value]], teammates: list[int]) -> None:
        self.my_id = messages.integer(clauses["id"], 0, "id")
        if "players" in clauses:
            self.players = messages.integer(clauses["players"], 0, "players")
        self.team = messages.integer(clauses["team"], 0, "team") if "team" in clauses else None
        self.teammates = teammates
        self.topology = messages.setup_topology(clauses)
        size = self.topology.size
        game = str(clauses["game"][0]) if clauses.get("game") else "traditional"
        pieces = str(clauses["pieces"][0]) if clauses.get("pieces") else ""

        if self.variant is None and clauses.get("variant"):
            # The server's own description (the variant extension): the exact rules.
            self.rules = parse_variant(str(clauses["variant"][0]))
        elif self.variant is None:
            if game not in ("traditional", "single", "cooperative") and not game.startswith("strategic"):
                self.log.warn(f"game type {game} is unknown to this bot; playing by the traditional rules")
            self.rules = default_variant(game, pieces, self.players, size)
        else:
            self.rules = self.variant
            self._check_variant(game, pieces, size)
        # The server's own piece list says how many draws the bag allows.
        self.piece_count = len(pieces) if pieces else len(self.rules.pieces)

        # The sides as this player can know them: itself and its teammates, and everyone
        # else. That is exact whenever there are two sides, which is every game with colours.
        allies = {self.my_id, *teammates}
        self.tracker = ColourTracker(self.players, [allies, set(range(1, self.players + 1)) - allies])
        if self.rules.fixed_colours and not self.rules.both_colours:
            # Side 1 plays red from the start: as if one of its players had revealed red.
            self.tracker.decide(self.rules.sides[0][0], RED)
        team = f", team {self.team} with {teammates}" if self.team is not None else ""
        self.log.info(f"I am player {self.my_id} of {self.players}{team}, game {game} "
                      f"(rules of {self.rules.name}), {size} cells")

    def _check_variant(self, game: str, pieces: str, size: int) -> None:
        """Refuse a ``--variant`` that cannot be the server's; warn about lesser differences."""
        rules = self.rules
        assert rules is not None
        if size != rules.size or self.players != rules.players:
            raise ProtocolError(
                f"the server plays {self.players} players on {size} cells, but variant {rules.name} "
                f"has {rules.players} on {rules.size}: give the bot the server's --variant")
        if game != rules.game or (pieces and sorted(pieces) != sorted(rules.pieces)):
            self.log.warn(f"the server's game {game} ({pieces}) differs from variant {rules.name} "
                          f"({rules.game}, {rules.pieces}); playing by the variant's rules")

    def _on_board(self, text: str, mover: int, hand: Optional[str]) -> None:
        if self.topology is not None and len(text) != self.topology.size:
            raise ProtocolError(f"board {text!r} has {len(text)} cells, the setup said {self.topology.size}")
        board = self._rules_board(text)
        if self.last_board is not None and self.last_mover is not None:
            self.tracker.observe(self.last_board, board, self.last_mover)
        if hand is not None:
            drawn = colour_of(hand)
            if drawn is None or len(hand) != 1:
                raise ProtocolError(f"(hand {hand}) is not a piece letter")
            if not self.last_had_hand:
                self.draws += 1
            # The drawer keeps the turn to put the piece, so the player to move drew it.
            self.tracker.decide(mover, drawn)
        self.last_had_hand = hand is not None

        if self.pending is not None:
            action, captured, sent_on = self.pending
            if sent_on != (board, hand):
                self.my_last = (action, captured)  # The server played it.
            self.pending = None
        if mover != self.my_id:
            self.my_last = None  # Someone else moved: no chain capture can go on.

        position = (text, hand, mover)
        if position != self.last_position:
            self.rejected.clear()  # Refusals only apply to the position they were made in.
        self.last_position = position
        self.last_board, self.last_mover = board, mover

    def _rules_board(self, text: str) -> str:
        """The board as the rules see it: in a bag game ``X`` is a never-filled, empty cell."""
        if self.rules is not None and self.rules.bag:
            return text.replace(FACE_DOWN, EMPTY)
        return text

    def control(self) -> Optional[str]:
        """What this player may move now: ``BOTH``, its colour, or ``None`` before it has one."""
        if self.rules is not None and self.rules.both_colours:
            return BOTH
        return self.tracker.colour(self.my_id) if self.my_id is not None else None

    def public_state(self, text: str, hand: Optional[str]) -> PublicState:
        """What legality depends on, for this player on the wire board ``text`` with ``hand``."""
        if self.topology is None or self.rules is None:
            raise ProtocolError("asked to move before the setup message")
        board = self._rules_board(text)
        rules = self.rules
        return PublicState(
            board, self.topology, rules.capture, self.control(),
            hand=hand, chain=self._chain_cell(board),
            bag=rules.bag and self.draws < self.piece_count,
        )

    def legal(self, text: str, hand: Optional[str]) -> list[Action]:
        """Every legal action for this player on the wire board ``text`` with ``hand``."""
        return self.public_state(text, hand).legal_actions()

    def _chain_cell(self, board: str) -> Optional[int]:
        """The cell of a piece that must capture again, if a chain capture is going on.

        The server keeps the turn after a capture exactly when the variant has chain
        captures and the capturing piece can capture again on the new board. This bot
        sees the same board, so it can tell. If that piece cannot capture, the bot is to
        move again only because the turn order says so, and every action is open.
        """
        if self.rules is None or not self.rules.chain_capture or self.my_last is None or self.topology is None:
            return None
        action, captured = self.my_last
        if action.kind != "mov" or not captured or action.to is None:
            return None
        if moves_from(board, self.topology, self.rules.capture, action.to, captures_only=True):
            return action.to
        return None

    def _act(self, text: str, hand: Optional[str]) -> str:
        state = self.public_state(text, hand)
        choices = [a for a in state.legal_actions() if a not in self.rejected]
        if not choices:
            # The server ends the game when the player to move has no legal action. If it
            # still asks, resigning is the only honest answer.
            self.log.warn("no legal action left; resigning")
            self.last_action = None
            return format_message(("resign",))
        action = self.strategy(choices, state, self.rng)
        self.last_action = action
        board = state.board
        captures = action.kind == "mov" and action.to is not None and colour_of(board[action.to]) is not None
        self.pending = (action, captures, (board, hand))
        # Echo the board exactly as the server sent it (``X`` included in bag games).
        return format_message(("board", text), action.clause())




def play_game(host: str, port: int, bot: Bot, timeout: float = 10.0) -> tuple[int, int]:
    """Connect, play one game with ``bot``, and return the ``(player, team)`` from ``(win ...)``.

    Raises ``OSError`` if the connection fails, and :class:`ProtocolError` if the server
    sends nonsense or hangs up before the game ends.
    """
    scanner = FrameScanner()
    with socket.create_connection((host, port), timeout=timeout) as sock:
        # The timeout guards only the connect. After that the opponent may think for as
        # long as the server allows, so reads block without a limit.
        sock.settimeout(None)
        # Messages are small and each one waits for an answer, so send them at once
        # instead of letting Nagle's algorithm hold them back.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        bot.log.info(f"connected to {host}:{port}")
        while True:
            data = sock.recv(65536)
            if not data:
                raise ProtocolError("the server closed the connection before the game ended")
            for frame in scanner.feed(data):
                text = frame.decode("utf-8", errors="replace")
                bot.log.info(f"<< {text}")
                for line in bot.handle(parse_sexp(text)):
                    bot.log.info(f">> {line.rstrip()}")
                    sock.sendall(line.encode("utf-8"))
                if bot.result is not None:
                    return bot.result  # The server hangs up after (win ...). Nothing more to read.
    raise ProtocolError("the game ended without a (win ...) message")  # not reached: the loop returns

