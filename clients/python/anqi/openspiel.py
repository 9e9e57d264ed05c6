"""anqi's variants as OpenSpiel games (PACKAGE.md, OpenSpiel).

    >>> import anqi.openspiel, pyspiel
    >>> anqi.openspiel.register()            # every shipped variant, as anqi_<name>
    >>> game = pyspiel.load_game("anqi_traditional_2x4")

A face-down piece is hidden from every player alike, so the state is public: each variant is
declared a perfect-information game with explicit stochastic chance. A reveal (or a bag draw)
is a player's action followed by a chance node whose outcomes are the unseen pieces, ids 0-13
in the order `KGBRNCPkgbrncp`, each with its share of the unseen pool. Player actions are
anqi's action ids (PACKAGE.md, Action ids); players are counted from 0, as OpenSpiel counts
them (anqi's player 1 is OpenSpiel's player 0). Returns are +1 for the winning side's players,
-1 for the others, 0 in a draw (one-side games: +1 when the goal is reached).

States serialize as OpenSpiel serializes every Python game's state (`state.serialize()`,
`game.deserialize_state(text)`, `pyspiel.serialize_game_and_state`, pickle): the history, then
the state's attributes pickled, here the `anqi.Game`, which pickles as its deal and the ids
played. `max_game_length()` is the bound the variant's rules guarantee (`max_game_length`).

Needs the `openspiel` extra (`pip install './clients/python[openspiel]'`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from ._anqi import TENSOR_PLANES, Game, Variant, variants

__all__ = ["game_name", "max_game_length", "register"]

LETTERS = "KGBRNCPkgbrncp"
#: The observation tensor's planes, from the layout's one definition (tensor.rs).
PLANES = len(TENSOR_PLANES)


def game_name(variant: str) -> str:
    """The name a variant is registered under: `anqi_` and the variant's name, `-` as `_`
    (`traditional-2x4` is `anqi_traditional_2x4`)."""
    return "anqi_" + variant.replace("-", "_")


def _utility(v: Variant):
    sides = v.sides
    if len(sides) == 1:
        return pyspiel.GameType.Utility.IDENTICAL, None
    if len(sides) == 2 and len(sides[0]) == len(sides[1]):
        return pyspiel.GameType.Utility.ZERO_SUM, 0.0
    return pyspiel.GameType.Utility.GENERAL_SUM, None


def max_game_length(variant: str | Variant) -> int:
    """The most plies (player actions; chance outcomes are not counted, as in OpenSpiel) that a
    game of `variant` can last under its rules: the ply cap, or what the no-progress rule
    allows, whichever is less. ValueError for a variant with neither rule, whose games the
    rules do not bound usefully (the repetition rule alone allows more plies than there are
    positions).

    The derivation (PACKAGE.md, OpenSpiel), with `P` pieces, `L` the no-progress limit, and
    `F` and `U` the pieces face-down and face-up at the start:

    - Progress plies, the ones that reset the no-progress count (anything but a step that
      captures nothing, rules/game/mod.rs): at most `F` reveals (a piece turns up once),
      `P - 1` captures (a capture needs a piece of each colour, so one at least is left), and
      in a bag game `P` draws and `P` puts. `E` in all.
    - Quiet plies come in runs between them. The `L`-th quiet ply in a row ends the game, so
      every run has at most `L - 1` plies but the last, which may have `L`. A run can follow
      a reveal, a capture or a put, not a draw (the piece drawn must be put at once), and can
      come before the first progress ply only if a piece starts face-up on a board with an
      empty cell. On a full board (a piece on every cell) nothing can step before the first
      capture empties a cell, and a capture needs two face-up pieces: the first
      `max(0, 2 - U)` reveals have no run after them. `K` runs in all.
    - So a game lasts at most `E + K * (L - 1) + 1` plies.

    `traditional` (32 pieces on 32 cells, all face-down, `L` = 180): `E` = 32 + 31 = 63, `K`
    = 61, 10,983 plies. OpenSpiel's banqi says 1,664 for its 50-ply rule (`2 * 32 + 32 *
    50`), which its rules do not guarantee: the same count gives 3,053 (`openspiel`). The
    repetition rule bounds nothing further: a run of quiet plies repeats no position a third
    time long before `L` on a board with pieces to move.
    """
    v = variant if isinstance(variant, Variant) else Variant(variant)
    pieces, cells = len(v.pieces), v.size
    if v.no_progress is None:
        if v.ply_cap:
            return v.ply_cap
        raise ValueError(
            f"{v.name}: no no-progress rule and no ply cap, so its rules do not bound a game's "
            "length, which OpenSpiel needs (max_game_length): add (no-progress N) to the variant"
        )
    limit = v.no_progress
    bag = v.start == "bag"
    if v.start == "face-down":
        face_down, face_up = pieces, 0
    elif v.start == "reveal":
        face_down, face_up = pieces - v.reveal_count, v.reveal_count
    elif v.start == "fixed":
        face_down = v.fixed_board.count("X")
        face_up = sum(x not in "X." for x in v.fixed_board)
    elif v.start == "open":
        face_down, face_up = 0, pieces
    else:  # the bag: the board starts empty
        face_down, face_up = 0, 0
    captures = pieces - 1
    progress = face_down + captures + (2 * pieces if bag else 0)
    full = not bag and face_down + face_up == cells
    runs = face_down + captures + (pieces if bag else 0)
    if full:
        # No step before the first capture, and none after the reveals it needs first.
        runs -= min(face_down, max(0, 2 - face_up))
    elif face_up > 0:
        runs += 1  # a run before the first progress ply
    bound = progress + runs * (limit - 1) + (1 if runs else 0)
    return min(bound, v.ply_cap) if v.ply_cap else bound


class _Observer:
    """OpenSpiel's PyObserver: the tensor of `Game.observation_tensor` (flat, with its
    `(PLANES, cells)` view in `dict["observation"]`), and a text of the public state."""

    def __init__(self, cells: int, iig_obs_type, params) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        self.iig_obs_type = iig_obs_type
        self.tensor = np.zeros(PLANES * cells, np.float32)
        self.dict = {"observation": self.tensor.reshape(PLANES, cells)}

    def set_from(self, state: "_State", player: int) -> None:
        if state.game.is_chance_node:
            # The public state is the one before the pending reveal or draw.
            self.tensor[:] = state.before_chance.observation_tensor(player + 1).ravel()
        else:
            self.tensor[:] = state.game.observation_tensor(player + 1).ravel()

    def string_from(self, state: "_State", player: int) -> str:
        # With perfect recall (an information state), the history: in a game without private
        # information it names the state exactly. Otherwise the public state as it stands.
        if self.iig_obs_type is not None and self.iig_obs_type.perfect_recall:
            return " ".join(str(a) for a in state.history())
        return f"player {player}: {state.public_text()}"


class _State(pyspiel.State):
    """One anqi game, in chance mode. Its attributes are what OpenSpiel pickles to serialize
    it (the C++ side keeps the history): both are `anqi.Game`s, which pickle."""

    def __init__(self, pygame: "_Game") -> None:
        super().__init__(pygame)
        self.game = Game(pygame.variant, seed=pygame.seed, chance=True)
        # The game before a pending reveal or draw (its public state, for observers).
        self.before_chance: Game | None = None

    def current_player(self) -> int:
        if self.game.is_terminal:
            return pyspiel.PlayerId.TERMINAL
        if self.game.is_chance_node:
            return pyspiel.PlayerId.CHANCE
        return self.game.to_move - 1

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(self.game.legal_action_ids())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(LETTERS.index(letter), p) for letter, p in self.game.chance_outcomes()]

    def _apply_action(self, action: int) -> None:
        if self.game.is_chance_node:
            self.game.apply_chance(LETTERS[action])
            self.before_chance = None
            return
        before = self.game.clone()
        self.game.apply(action)
        if self.game.is_chance_node:
            self.before_chance = before

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"piece {LETTERS[action]}"
        return self.game.action_text(action)

    def is_terminal(self) -> bool:
        return self.game.is_terminal

    def returns(self) -> list[float]:
        return list(self.game.returns())

    def public_text(self) -> str:
        """The public state: the board, each player's colour, who is to move, the piece in
        hand and the chain, the no-progress and repetition counts (the observation tensor's
        facts; what it leaves out is which positions occurred before, which the history
        has)."""
        g = self.game if not self.game.is_chance_node else self.before_chance
        colours = []
        for p in range(1, g.players + 1):
            x = g.observation_tensor(p)
            colours.append(("r" if x[16, 0] else "") + ("b" if x[17, 0] else "") or "-")
        x = g.observation_tensor(g.to_move)
        held = [LETTERS[i] for i in range(14) if x[35 + i, 0]]
        chain = [c for c in range(x.shape[1]) if x[49, c]]
        return (f"{g.board} colours {'/'.join(colours)} ply {g.ply} quiet {x[33, 0]:.4f} "
                f"repeated {x[34, 0]:.4f} hand {''.join(held) or '-'} "
                f"chain {chain[0] if chain else '-'}")

    def __str__(self) -> str:
        g = self.game
        if g.is_terminal:
            return f"{g.board} over: {g.outcome['win']} by {g.outcome['reason']}"
        chance = " (chance node)" if g.is_chance_node else ""
        return f"{self.public_text()} player {g.to_move - 1} to move{chance}"


def _make_game_class(name: str, v: Variant, game_type: "pyspiel.GameType") -> type:
    cells = v.size
    utility, utility_sum = _utility(v)

    class _Game(pyspiel.Game):
        def __init__(self, params: dict[str, Any] | None = None) -> None:
            params = params or {}
            super().__init__(
                game_type,
                pyspiel.GameInfo(
                    num_distinct_actions=v.num_distinct_actions,
                    max_chance_outcomes=len(LETTERS),
                    num_players=v.players,
                    min_utility=-1.0 if utility != pyspiel.GameType.Utility.IDENTICAL else 0.0,
                    max_utility=1.0,
                    utility_sum=utility_sum,
                    max_game_length=max_game_length(v),
                ),
                params,
            )
            self.variant = v
            # The start's face-up pieces, in variants that have some, come from this seed (an
            # int, meaning its decimal string as everywhere in anqi); reveals and draws are
            # chance nodes. A bad seed is refused here, not at the first state.
            self.seed = params.get("seed", 0)
            Game(v, seed=self.seed)

        def new_initial_state(self) -> _State:
            return _State(self)

        def make_py_observer(self, iig_obs_type=None, params=None) -> _Observer:
            return _Observer(cells, iig_obs_type, params)

    _Game.__name__ = f"AnqiGame_{name}"
    return _Game


def register(names: list[str] | None = None) -> list[str]:
    """Registers anqi variants as OpenSpiel games (every shipped one by default; names of
    shipped variants or description files otherwise) and returns their OpenSpiel names.
    Registering again is harmless."""
    out = []
    registered = set(pyspiel.registered_names())
    for name in names if names is not None else list(variants()):
        v = Variant(name)
        short = game_name(v.name)
        out.append(short)
        if short in registered:
            continue
        max_game_length(v)  # a variant whose length the rules do not bound is refused here
        utility, _ = _utility(v)
        game_type = pyspiel.GameType(
            short_name=short,
            long_name=f"anqi {v.name}: {v.summary}",
            dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
            chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
            information=pyspiel.GameType.Information.PERFECT_INFORMATION,
            utility=utility,
            reward_model=pyspiel.GameType.RewardModel.TERMINAL,
            max_num_players=v.players,
            min_num_players=v.players,
            provides_information_state_string=True,
            provides_information_state_tensor=False,
            provides_observation_string=True,
            provides_observation_tensor=True,
            parameter_specification={"seed": 0},
        )
        pyspiel.register_game(game_type, _make_game_class(short, v, game_type))
        registered.add(short)
    return out
