"""Game records (protocol/RECORDS.md) as typed Python objects, for analysis.

    records = anqi.records.load("games.jsonl")          # a file, a directory, or a list of them
    for r in records:
        print(r.variant, r.result.reason, r.winners(), len(r.plies))
    df = records.to_pandas()                            # one row per ply (pandas, if installed)
    r.board_at(10)                                      # the public board after 10 plies

The fields are those of RECORDS.md, under the same names. Loading checks every line as
`anqi replay` reads it (crates/anqi-core/src/record.rs): every field's presence, type and
range (so that a record that loads can be re-played), and says which file, line and field is
wrong; `anqi replay` is what verifies the games against the rules, and `Record.replay()` does
the same in process.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

COUNT_KINDS = ("moves", "jumps", "reveals", "bags", "puts")

#: The `reason`s a record's result may give (RECORDS.md, Terminations).
TERMINATIONS = ("capture-all", "no-moves", "resign", "time", "illegal", "disconnect", "crash",
                "no-connect", "no-progress", "repetition", "cleared", "ply-cap", "adjudicated",
                "aborted")


class RecordError(ValueError):
    """A line that is not a game record: the message names the file and the line."""


@dataclass(frozen=True)
class Counts:
    """Legal actions of one player at one moment, by kind (RECORDS.md, `legal`)."""

    moves: int = 0
    jumps: int = 0
    reveals: int = 0
    bags: int = 0
    puts: int = 0

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Counts":
        return cls(**{k: int(d.get(k, 0)) for k in COUNT_KINDS})

    @property
    def total(self) -> int:
        return self.moves + self.jumps + self.reveals + self.bags + self.puts

    def get(self, kind: str) -> int:
        """The count of `kind` (one of COUNT_KINDS, or "total")."""
        return self.total if kind == "total" else getattr(self, kind)


@dataclass(frozen=True)
class Player:
    id: int
    name: str
    seed: str
    colour: str | None
    time_used_ms: int
    #: The player's side, from 0 in the variant's sides (None in records older than the key,
    #: for more than two players).
    side: int | None
    #: The team number the wire used for the player, as in (team T) and (win P T) (None in
    #: records older than the key).
    team: int | None


@dataclass(frozen=True)
class Ply:
    ply: int
    turn: int
    player: int
    action: str
    think_ms: int
    #: The mover's legal actions before the ply.
    legal: Counts
    #: Every player's legal actions before the ply, player 1 first: present when the server ran
    #: with `[records] legal_counts = "all"` (`anqi.play` asks for it), else None.
    legal_all: tuple[Counts, ...] | None
    revealed: str | None = None
    captured: str | None = None
    drawn: str | None = None
    #: What the mover said of the ply (the server's `comment` extension: an engine's depth,
    #: score and principal variation), None when it said nothing.
    comment: str | None = None

    @property
    def kind(self) -> str:
        """"rev", "mov", "bag" or "put"."""
        return self.action[1:].split(" ", 1)[0].rstrip(")")


@dataclass(frozen=True)
class Adjudication:
    """What the referee's endgame tables ruled (RECORDS.md, `result.adjudication`)."""

    by: str
    verdict: str
    tables: str


@dataclass(frozen=True)
class Result:
    win: str
    winner: int
    winner_team: int
    winner_side: int | None
    reason: str
    loser: int | None
    plies: int
    turns: int
    #: Present when the endgame tables ended the game (`reason` "adjudicated").
    adjudication: Adjudication | None = None


@dataclass(frozen=True)
class Drop:
    """A lost connection of a player whose seat was kept for it (RECORDS.md, `drops`)."""

    player: int
    ply: int
    away_ms: int
    back: bool


@dataclass(frozen=True)
class Fault:
    ply: int
    player: int
    code: str
    text: str


@dataclass(frozen=True)
class Record:
    """One game (RECORDS.md). `source` says where it was read: "FILE:LINE"."""

    format: int
    game: int
    started_unix_ms: int
    variant: str
    variant_source: str
    #: `{"clients": [str, ...], "server": str}`, checked at load.
    seeds: dict[str, Any]
    players: tuple[Player, ...]
    plies: tuple[Ply, ...]
    faults: tuple[Fault, ...]
    result: Result
    final_board: str
    max_plies: int | None = None
    faults_dropped: int = 0
    #: `{"index", "deal", "engines", "seats", "commitment"}` in tournament records, checked at
    #: load; None otherwise.
    tournament: dict[str, Any] | None = None
    drops: tuple[Drop, ...] = ()
    source: str = ""
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    # --- who is who -------------------------------------------------------------------------

    def player(self, pid: int) -> Player:
        return self.players[pid - 1]

    def side_of(self, pid: int) -> int | None:
        return self.players[pid - 1].side

    @property
    def sides(self) -> list[list[int]]:
        """The players of each side, side 0 first (from the players' `side`)."""
        out: dict[int, list[int]] = {}
        for p in self.players:
            if p.side is not None:
                out.setdefault(p.side, []).append(p.id)
        return [out[s] for s in sorted(out)]

    @property
    def one_sided(self) -> bool:
        """Single-player and cooperative games: every player is on side 0."""
        return all(p.side == 0 for p in self.players)

    def winners(self) -> list[int]:
        """The players on the winning side (empty for a draw, a missed goal, an abort)."""
        ws = self.result.winner_side
        return [] if ws is None else [p.id for p in self.players if p.side == ws]

    def score(self, pid: int) -> float:
        """1 for a win (or a reached goal), 0.5 for a draw between sides, 0 otherwise."""
        ws = self.result.winner_side
        if ws is not None:
            return 1.0 if self.players[pid - 1].side == ws else 0.0
        if self.one_sided or self.result.win == "":
            return 0.0
        return 0.5

    @property
    def engines(self) -> list[str]:
        """Who sat in each seat: the tournament's engine names, else the players' names."""
        if self.tournament and self.tournament.get("engines"):
            return list(self.tournament["engines"])
        return [p.name for p in self.players]

    # --- the rules ----------------------------------------------------------------------------

    def new_game(self):
        """A fresh `anqi.Game` with this record's variant and deal (ply 0)."""
        from ._anqi import Game

        return Game(
            _variant(self.variant_source),
            seed=self.seeds.get("server", ""),
            client_seeds=list(self.seeds.get("clients", [])),
        )

    def games(self) -> Iterator[Any]:
        """The game after each ply, ply 0 (the start) first: `anqi.Game` objects re-derived
        through the rules core (each one a copy, so they can be kept)."""
        game = self.new_game()
        yield game.clone()
        for p in self.plies:
            game.play(p.action)
            yield game.clone()

    def boards(self) -> list[str]:
        """The public board (wire string) at ply 0, 1, ..., len(plies)."""
        game = self.new_game()
        out = [game.board]
        for p in self.plies:
            game.play(p.action)
            out.append(game.board)
        return out

    def board_at(self, ply: int) -> str:
        """The public board after `ply` plies (0: the start)."""
        if not 0 <= ply <= len(self.plies):
            raise IndexError(f"ply {ply} is not in 0..{len(self.plies)}")
        game = self.new_game()
        for p in self.plies[:ply]:
            game.play(p.action)
        return game.board

    def replay(self) -> None:
        """Re-plays the record through the rules core: the mover, every action and the counts
        must be the rules' (ValueError says where not). A record of a game that ended by fault,
        time or abort stops where the plies stop."""
        game = self.new_game()
        for p in self.plies:
            if game.to_move != p.player:
                raise ValueError(f"{self.source}: ply {p.ply}: player {p.player} moved, "
                                 f"but player {game.to_move} was to move")
            counts = Counts.from_json(game.counts())
            if counts != p.legal:
                raise ValueError(f"{self.source}: ply {p.ply}: recorded {p.legal}, "
                                 f"the rules count {counts}")
            try:
                game.play(p.action)
            except ValueError as e:
                raise ValueError(f"{self.source}: ply {p.ply}: {p.action}: {e}") from None
        if game.board != self.final_board:
            raise ValueError(f"{self.source}: final board {self.final_board}, "
                             f"the rules give {game.board}")


_VARIANTS: dict[str, Any] = {}


def _variant(source: str) -> Any:
    """The `anqi.Variant` of a description (records carry their variant's description
    verbatim), parsed once per distinct description for this process."""
    variant = _VARIANTS.get(source)
    if variant is None:
        from ._anqi import Variant

        variant = _VARIANTS[source] = Variant.from_description(source)
    return variant


class _FieldError(ValueError):
    """A field of a record that is missing or of the wrong type (its path in the message)."""


#: JSON's names of the types `json` reads values into, for messages.
_JSON_TYPES = {dict: "an object", list: "an array", str: "a string", int: "an integer",
               float: "a number with a fraction", bool: "a boolean", type(None): "null"}


def _json_type(v: Any) -> str:
    return _JSON_TYPES.get(type(v), type(v).__name__)


#: The largest value of each integer kind, as `anqi replay` reads it into a Rust u32 or u64
#: (usize: a 64-bit count).
_INT_MAX = {"u32": 2**32 - 1, "u64": 2**64 - 1}

#: What each kind is called in messages.
_KIND_NAMES = {"u32": "an integer", "u64": "an integer", "str": "a string", "char": "a string",
               "bool": "a boolean", "dict": "an object", "list": "an array"}

_KIND_TYPES = {"u32": int, "u64": int, "str": str, "char": str, "bool": bool, "dict": dict,
               "list": list}


def _field(d: dict[str, Any], key: str, what: str, kind: str, default: Any = ...) -> Any:
    """`d[key]`, checked to be of `kind`, or `default` when the key is absent and a default is
    given. Kinds: "u32" and "u64" (a JSON integer, not a boolean, not 1.0, not "1", from 0 to
    2**32 - 1 or 2**64 - 1: the Rust type `anqi replay` reads it into), "str", "char" (a
    string of one character), "bool", "dict", "list"; with a "?" (for example "u64?") null is
    taken too. `what` names the field for the message (`players[1].name`)."""
    if key not in d:
        if default is ...:
            raise _FieldError(f"{what}: missing")
        return default
    v = d[key]
    optional = kind.endswith("?")
    if v is None and optional:
        return None
    base = kind.rstrip("?")
    if type(v) is not _KIND_TYPES[base]:
        raise _FieldError(f"{what}: {_KIND_NAMES[base]}{' or null' if optional else ''} was "
                          f"expected, not {_json_type(v)}")
    if base in _INT_MAX and not 0 <= v <= _INT_MAX[base]:
        digits = len(str(abs(v)))
        shown = str(v) if digits <= 40 else f"an integer of {digits} digits"
        raise _FieldError(f"{what}: an integer from 0 to {_INT_MAX[base]} was expected, "
                          f"not {shown}")
    if base == "char" and len(v) != 1:
        raise _FieldError(f"{what}: a string of one character was expected, not one of {len(v)}")
    return v


def _object(v: Any, what: str) -> dict[str, Any]:
    if type(v) is not dict:
        raise _FieldError(f"{what}: an object was expected, not {_json_type(v)}")
    return v


def _list(d: dict[str, Any], key: str, what: str, default: Any = ...) -> list[Any]:
    """`d[key]`, an array (or `default` when absent and given)."""
    return _field(d, key, what, "list", default)


def _strings(v: list[Any], what: str) -> list[str]:
    for i, item in enumerate(v):
        if type(item) is not str:
            raise _FieldError(f"{what}[{i}]: a string was expected, not {_json_type(item)}")
    return v


def _counts(v: Any, what: str) -> Counts:
    """`legal` and each `legal_all` entry: `moves`, `jumps` and `reveals` always, `bags` and
    `puts` when not 0 (RECORDS.md)."""
    d = _object(v, what)
    return Counts(**{k: _field(d, k, f"{what}.{k}", "u32", 0 if k in ("bags", "puts") else ...)
                     for k in COUNT_KINDS})


def _seeds(v: Any) -> dict[str, Any]:
    """`seeds` as RECORDS.md gives it: `clients`, an array of strings, and `server`, a
    string (what `Record.new_game` deals from)."""
    d = _object(v, "seeds")
    _strings(_list(d, "clients", "seeds.clients"), "seeds.clients")
    _field(d, "server", "seeds.server", "str")
    return d


def _tournament(v: Any) -> dict[str, Any] | None:
    """`tournament` (RECORDS.md): `index` and `deal`, counts; `engines`, strings; `seats`,
    objects with `protocol`, `tc` and an optional `assumes`, strings; `commitment`, an optional
    string."""
    if v is None:
        return None
    d = _object(v, "tournament")
    _field(d, "index", "tournament.index", "u64")
    _field(d, "deal", "tournament.deal", "u64")
    _strings(_list(d, "engines", "tournament.engines"), "tournament.engines")
    for i, seat in enumerate(_list(d, "seats", "tournament.seats", [])):
        at = f"tournament.seats[{i}]"
        seat = _object(seat, at)
        _field(seat, "protocol", f"{at}.protocol", "str")
        _field(seat, "assumes", f"{at}.assumes", "str?", None)
        _field(seat, "tc", f"{at}.tc", "str")
    _field(d, "commitment", "tournament.commitment", "str?", None)
    return d


def _record(d: dict[str, Any], where: str) -> Record:
    """The record of a line's object, every field RECORDS.md gives checked as `anqi replay`
    reads it (present unless optional, of its type, integers in range), so that a record that
    loads also re-plays (`Record.replay` says whether its plies are the rules'). Raises
    RecordError naming `where` otherwise."""
    try:
        players = []
        player_list = _list(d, "players", "players")
        two = len(player_list) == 2
        for i, p in enumerate(player_list):
            at = f"players[{i}]"
            p = _object(p, at)
            pid = _field(p, "id", f"{at}.id", "u64")
            side = _field(p, "side", f"{at}.side", "u64?", None)
            if side is None and two:
                side = pid - 1  # two-player records from before `side`: seat order
            players.append(Player(
                id=pid, name=_field(p, "name", f"{at}.name", "str"),
                seed=_field(p, "seed", f"{at}.seed", "str"),
                colour=_field(p, "colour", f"{at}.colour", "str?", None),
                time_used_ms=_field(p, "time_used_ms", f"{at}.time_used_ms", "u64"),
                side=side, team=_field(p, "team", f"{at}.team", "u64?", None),
            ))
        plies = []
        for i, q in enumerate(_list(d, "plies", "plies")):
            at = f"plies[{i}]"
            q = _object(q, at)
            legal_all = _field(q, "legal_all", f"{at}.legal_all", "list?", None)
            plies.append(Ply(
                ply=_field(q, "ply", f"{at}.ply", "u32"),
                turn=_field(q, "turn", f"{at}.turn", "u32"),
                player=_field(q, "player", f"{at}.player", "u64"),
                action=_field(q, "action", f"{at}.action", "str"),
                think_ms=_field(q, "think_ms", f"{at}.think_ms", "u64"),
                legal=_counts(_field(q, "legal", f"{at}.legal", "dict"), f"{at}.legal"),
                legal_all=(None if legal_all is None else tuple(
                    _counts(c, f"{at}.legal_all[{k}]") for k, c in enumerate(legal_all))),
                revealed=_field(q, "revealed", f"{at}.revealed", "char?", None),
                captured=_field(q, "captured", f"{at}.captured", "char?", None),
                drawn=_field(q, "drawn", f"{at}.drawn", "char?", None),
                comment=_field(q, "comment", f"{at}.comment", "str?", None),
            ))
        faults = []
        for i, f in enumerate(_list(d, "faults", "faults")):
            at = f"faults[{i}]"
            f = _object(f, at)
            faults.append(Fault(_field(f, "ply", f"{at}.ply", "u32"),
                                _field(f, "player", f"{at}.player", "u64"),
                                _field(f, "code", f"{at}.code", "str"),
                                _field(f, "text", f"{at}.text", "str")))
        r = _field(d, "result", "result", "dict")
        reason = _field(r, "reason", "result.reason", "str")
        if reason not in TERMINATIONS:
            raise _FieldError(f"result.reason: one of {', '.join(TERMINATIONS)} was expected, "
                              f"not {reason[:40]!r}")
        adjudication = _field(r, "adjudication", "result.adjudication", "dict?", None)
        if adjudication is not None:
            adjudication = Adjudication(*(
                _field(adjudication, k, f"result.adjudication.{k}", "str")
                for k in ("by", "verdict", "tables")))
        result = Result(
            win=_field(r, "win", "result.win", "str"),
            winner=_field(r, "winner", "result.winner", "u64"),
            winner_team=_field(r, "winner_team", "result.winner_team", "u64", 0),
            winner_side=_field(r, "winner_side", "result.winner_side", "u64?", None),
            reason=reason,
            loser=_field(r, "loser", "result.loser", "u64?", None),
            plies=_field(r, "plies", "result.plies", "u32"),
            turns=_field(r, "turns", "result.turns", "u32"),
            adjudication=adjudication,
        )
        drops = []
        for i, x in enumerate(_list(d, "drops", "drops", [])):
            at = f"drops[{i}]"
            x = _object(x, at)
            drops.append(Drop(_field(x, "player", f"{at}.player", "u64"),
                              _field(x, "ply", f"{at}.ply", "u32"),
                              _field(x, "away_ms", f"{at}.away_ms", "u64"),
                              _field(x, "back", f"{at}.back", "bool")))
        return Record(
            format=_field(d, "format", "format", "u32"), game=_field(d, "game", "game", "u64"),
            started_unix_ms=_field(d, "started_unix_ms", "started_unix_ms", "u64"),
            variant=_field(d, "variant", "variant", "str"),
            variant_source=_field(d, "variant_source", "variant_source", "str"),
            seeds=_seeds(_field(d, "seeds", "seeds", "dict")), players=tuple(players),
            plies=tuple(plies), faults=tuple(faults), result=result,
            final_board=_field(d, "final_board", "final_board", "str"),
            max_plies=_field(d, "max_plies", "max_plies", "u32?", None),
            faults_dropped=_field(d, "faults_dropped", "faults_dropped", "u64", 0),
            tournament=_tournament(_field(d, "tournament", "tournament", "dict?", None)),
            drops=tuple(drops), source=where, raw=d,
        )
    except _FieldError as e:
        raise RecordError(f"{where}: not a game record: {e}") from None
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError, RecursionError) as e:
        # Whatever else a line holds, it is a RecordError.
        raise RecordError(f"{where}: not a game record ({type(e).__name__}: {e})") from None


class Records(list):
    """A list of `Record`s, with tables for pandas. `skipped`: the RecordErrors of the lines
    `load(..., bad_lines="skip")` left out."""

    def __init__(self, records: Iterable[Record] = (), skipped: Iterable[RecordError] = ()):
        super().__init__(records)
        self.skipped: list[RecordError] = list(skipped)

    def to_pandas(self, kind: str = "plies"):
        """A pandas DataFrame (pandas must be installed: `pip install pandas`).

        `kind="plies"`: one row per ply: game (its position in this list), source, variant,
        ply, turn, player, side, team, engine, action, kind, think_ms, the mover's counts
        (moves, jumps, reveals, bags, puts), revealed/captured/drawn, comment, and the game's
        winner_side, reason and the mover's score. With every player's counts in the records,
        also `<kind>_p<N>` columns for each player N.
        `kind="games"`: one row per game: variant, engines, plies, turns, reason, winner_side,
        and each seat's score and engine (`score_p<N>`, `engine_p<N>`).
        """
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("to_pandas needs pandas: pip install pandas") from None
        if kind == "plies":
            return pd.DataFrame(self.ply_rows())
        if kind == "games":
            return pd.DataFrame(self.game_rows())
        raise ValueError(f'kind must be "plies" or "games", not {kind!r}')

    def ply_rows(self) -> list[dict[str, Any]]:
        """The rows of `to_pandas("plies")`, as dicts (no pandas needed)."""
        rows = []
        for g, r in enumerate(self):
            engines = r.engines
            for p in r.plies:
                row = {
                    "game": g, "source": r.source, "variant": r.variant, "ply": p.ply,
                    "turn": p.turn, "player": p.player, "side": r.side_of(p.player),
                    "team": r.player(p.player).team, "engine": engines[p.player - 1],
                    "action": p.action, "kind": p.kind, "think_ms": p.think_ms,
                    **{k: p.legal.get(k) for k in COUNT_KINDS},
                    "revealed": p.revealed, "captured": p.captured, "drawn": p.drawn,
                    "comment": p.comment,
                    "winner_side": r.result.winner_side, "reason": r.result.reason,
                    "score": r.score(p.player),
                }
                if p.legal_all is not None:
                    for n, c in enumerate(p.legal_all, start=1):
                        for k in COUNT_KINDS:
                            row[f"{k}_p{n}"] = c.get(k)
                rows.append(row)
        return rows

    def game_rows(self) -> list[dict[str, Any]]:
        """The rows of `to_pandas("games")`, as dicts."""
        rows = []
        for g, r in enumerate(self):
            row = {
                "game": g, "source": r.source, "variant": r.variant,
                "engines": tuple(r.engines), "plies": r.result.plies, "turns": r.result.turns,
                "reason": r.result.reason, "winner_side": r.result.winner_side,
            }
            for p in r.players:
                row[f"score_p{p.id}"] = r.score(p.id)
            for p, engine in enumerate(r.engines, start=1):
                row[f"engine_p{p}"] = engine
            rows.append(row)
        return rows


def _files(paths: Any) -> list[Path]:
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    out: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            out.extend(sorted(p.glob("*.jsonl")))
        elif p.exists():
            out.append(p)
        else:
            raise FileNotFoundError(f"{p}: no such records file or directory")
    return out


def iter_records(
    paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    bad_lines: str = "raise",
    skipped: list[RecordError] | None = None,
) -> Iterator[Record]:
    """Reads records one at a time (for files too big to hold): as `load`."""
    if bad_lines not in ("raise", "skip"):
        raise ValueError(f'bad_lines must be "raise" or "skip", not {bad_lines!r}')
    for path in _files(paths):
        with open(path, "rb") as f:
            for n, raw in enumerate(f, start=1):
                where = f"{path}:{n}"
                try:
                    record = _line(raw, where)
                except RecordError as e:
                    if bad_lines == "raise":
                        raise
                    if skipped is not None:
                        skipped.append(e)
                    continue
                if record is not None:
                    yield record


def _line(raw: bytes, where: str) -> Record | None:
    """The record on one line of a records file, `None` for a blank line. Raises RecordError
    for anything else, whatever is wrong with it."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise RecordError(f"{where}: not UTF-8 text ({e})") from None
    if not line.strip():
        return None
    if not line.endswith("\n"):
        torn = " (the file ends in the middle of this line: a write cut short)"
    else:
        torn = ""
    try:
        d = json.loads(line)
    except (ValueError, RecursionError) as e:
        # ValueError: json's JSONDecodeError, and also an integer of more digits than Python
        # converts (4,300 by default: sys.set_int_max_str_digits).
        raise RecordError(f"{where}: not JSON that can be read ({type(e).__name__}: {e}){torn}") from None
    if not isinstance(d, dict):
        raise RecordError(f"{where}: not a game record (a JSON {type(d).__name__})")
    return _record(d, where)


def load(
    paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    bad_lines: str = "raise",
) -> Records:
    """The records of one or more JSON-lines files (a directory means its `*.jsonl` files), in
    file and line order. A line that is not a record (a write cut short by a crash, another
    file's line) raises RecordError naming its file and line; with `bad_lines="skip"` it is
    left out instead, and kept in the result's `skipped` list (RecordErrors), as `anqi replay`
    reports such lines and goes on."""
    skipped: list[RecordError] = []
    records = list(iter_records(paths, bad_lines, skipped))
    return Records(records, skipped)
