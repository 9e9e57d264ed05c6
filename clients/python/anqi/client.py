"""Playing one game on an anqi server, with a Python bot, over a blocking socket.

    >>> import anqi.client
    >>> class First:
    ...     def choose(self, observation):
    ...         return observation.legal_actions()[0]
    >>> anqi.client.play_one("127.0.0.1:7700", First())   # doctest: +SKIP
    {'me': 2, 'win': [1, 0], 'errors': []}

The protocol is done by the native `ClientSession` (no I/O): the handshake, the tracking of the
game (colours, the bag, chain captures) and the legal actions, exactly as the Rust client
library does. This module only moves lines: the server writes one message per line
(protocol/PROTOCOL.md, Framing), and so does the client.
"""

import random
import socket

from ._anqi import ClientSession

__all__ = ["ConnectionClosed", "play_one"]


class ConnectionClosed(ConnectionError):
    """The server closed the connection before the game's result (the last error reply it had
    sent, such as ``busy`` or ``timeout``, is in the message and in ``errors``)."""

    def __init__(self, message, errors):
        super().__init__(message)
        self.errors = errors


def _address(addr):
    """``"HOST:PORT"`` (as ``anqi serve`` prints it) or a ``(host, port)`` pair."""
    if isinstance(addr, str):
        host, sep, port = addr.rpartition(":")
        if not sep or not port.isdigit():
            raise ValueError(f"address {addr!r}: expected HOST:PORT")
        return host.strip("[]"), int(port)
    host, port = addr
    return host, int(port)


def _choose(bot):
    """The bot's choice function: its ``choose`` method, or the bot itself if it is callable."""
    choose = getattr(bot, "choose", None)
    if callable(choose):
        return choose
    if callable(bot):
        return bot
    raise TypeError(f"{bot!r}: a bot has a choose(observation) method")


def play_one(addr, bot, name="python", token=None, seed=None, variant=None, timeout=None):
    """Connects to the server at ``addr``, plays one game with ``bot``, and returns the result:
    ``{"me": ID, "win": [PLAYER, TEAM], "errors": [(code, text), ...]}``.

    ``bot.choose(observation)`` is called whenever this client must act, with an
    ``anqi.Observation``; it returns an action as its wire clause (one of
    ``observation.legal_actions()``, such as ``"(rev 3)"``). An illegal action is sent all the
    same: the server replies with an error and prompts again, and the bot is asked again, until
    the server's ``max_errors`` ends the game (20 by default: a loss).

    ``token``: a tournament's token, sent as the SEED of ``(init NAME SEED)`` (seating by
    token); else ``seed`` (an int or a string; random when not given) is this client's seed
    contribution. ``variant`` (a shipped name or a description file) gives the exact rules;
    otherwise they come from the server (the ``variant`` protocol extension). ``timeout``: the
    longest wait, in seconds, for any one message from the server (``None``: no limit).

    Raises ``ConnectionClosed`` when the server closes the connection before the result,
    ``TimeoutError`` past ``timeout``, ``ValueError`` for a message that makes no sense or an
    answer of the bot that is not an action, and whatever the bot raises. In those cases the
    client resigns first (when the game has started) and closes the connection, so that
    nothing waits for it.
    """
    if token is not None and seed is not None:
        raise ValueError("give a token or a seed, not both: the token is sent as the seed")
    if token is None and seed is None:
        seed = random.getrandbits(63)
    session = ClientSession(name, token if token is not None else seed, variant)
    choose = _choose(bot)
    limit = ClientSession.MAX_LINE_BYTES
    with socket.create_connection(_address(addr), timeout=timeout) as sock:
        sock.settimeout(timeout)
        sock.sendall(session.hello().encode())
        with sock.makefile("rb") as reader:
            try:
                while True:
                    try:
                        raw = reader.readline(limit + 1)
                    except ConnectionResetError:
                        # A server that closes with our bytes unread resets the connection:
                        # the same end as a close, and the last error says why.
                        raw = b""
                    if not raw:
                        errors = session.errors
                        last = f" (last error: {errors[-1][0]} {errors[-1][1]!r})" if errors else ""
                        when = "the end of the game" if session.player else "seating this client"
                        raise ConnectionClosed(
                            f"the server closed the connection before {when}{last}", errors
                        )
                    if len(raw) > limit:
                        raise ValueError(f"a line from the server longer than {limit} bytes")
                    event = session.feed(raw.decode("utf-8"))
                    if event == "prompt":
                        action = choose(session.observation())
                        if not isinstance(action, str):
                            raise TypeError(
                                f"the bot answered {action!r}: an action is a str such as '(rev 3)'"
                            )
                        sock.sendall(session.reply(action).encode())
                    elif event == "over":
                        return session.result
            except BaseException:
                # Resign rather than leave the others waiting for a clock or a disconnection
                # to be noticed; the connection may already be gone.
                if session.player is not None and session.result is None:
                    try:
                        sock.sendall(session.resign().encode())
                    except OSError:
                        pass
                raise
