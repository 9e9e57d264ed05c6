"""anqi: Chinese Dark Chess (Banqi) and its variants, with the Rust rules core in process.

    >>> import anqi
    >>> game = anqi.Game("traditional", seed="42")
    >>> game.play(game.legal_actions()[0])

Actions are their wire clauses, as strings: "(rev 3)", "(mov 4 0)", "(bag)", "(put K 7)".
See PACKAGE.md beside this package for the whole API and what is still to come.
"""

from ._anqi import Game, Variant, playouts, variants

__all__ = ["Game", "Variant", "playouts", "variants"]
