"""anqi: Chinese Dark Chess (Banqi) and its variants, with the Rust rules core in process.

In process (the native module `anqi._anqi`, the same rules as the server):

    >>> import anqi
    >>> game = anqi.Game("traditional", seed="42")
    >>> game.play(game.legal_actions()[0])

Experiments (the real server, started for you; see PACKAGE.md, Experiments):

    records = anqi.play([anqi.RandomBot(1), anqi.GreedyBot()], games=100)
    m = anqi.analysis.mobility(records, group="winner")
    anqi.plot.mobility(m, path="mobility.png")

Actions are their wire clauses, as strings: "(rev 3)", "(mov 4 0)", "(bag)", "(put K 7)".
See PACKAGE.md beside this package for the whole API.
"""

from . import analysis, client, env, plot, records
from ._anqi import (
    ClientSession,
    Game,
    Observation,
    ReferenceBot,
    Variant,
    VecGame,
    playouts,
    variants,
    wilson,
)
from .bots import Bot, GreedyBot, RandomBot, SearchBot
from .play import PlayError, play
from .server import Server, ServerError
from .solution import Solution
from ._standings import Standings, standings
from .symmetry import Symmetry, symmetries
from .env import TENSOR_PLANES, TENSOR_VERSION

__all__ = [
    "Bot",
    "ClientSession",
    "Game",
    "GreedyBot",
    "Observation",
    "PlayError",
    "RandomBot",
    "ReferenceBot",
    "SearchBot",
    "Variant",
    "VecGame",
    "Server",
    "ServerError",
    "Solution",
    "Standings",
    "Symmetry",
    "TENSOR_PLANES",
    "TENSOR_VERSION",
    "analysis",
    "client",
    "env",
    "play",
    "playouts",
    "plot",
    "records",
    "standings",
    "symmetries",
    "variants",
    "wilson",
]
