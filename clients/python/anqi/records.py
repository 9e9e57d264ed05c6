"""Game records (protocol/RECORDS.md) as typed Python objects, for analysis.

    records = anqi.records.load("games.jsonl")          # a file, a directory, or a list of them
    for r in records:
        print(r.variant, r.result.reason, r.winners(), len(r.plies))
    df = records.to_pandas()                            # one row per ply (pandas, if installed)
    r.board_at(10)                                      # the public board after 10 plies

The fields are those of RECORDS.md, under the same names. The schema has one definition, the
Rust types the server writes records with and `anqi replay` reads them with
(crates/anqi-core/src/record.rs; RECORDS.md, One definition): loading reads every line through
those same types in the native module (`_anqi.read_record`), so a line loads exactly when
`anqi replay` reads it (every field's presence, type and range), and the error names the file,
the line and the field that is wrong. The dataclasses below are views of those types; a test
checks that they have every field the types have (`RECORD_FIELDS`). `anqi replay` is what
verifies the games against the rules, and `Record.replay()` does the same in process.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

from ._anqi import RECORD_FIELDS, RECORD_FORMAT, TERMINATIONS, read_record

# From the record types (the native module): TERMINATIONS, the `reason`s a record's result may
# give (RECORDS.md, Terminations); RECORD_FORMAT, the `format` the server writes; RECORD_FIELDS,
# the keys of each object of a record by where it stands ("": the record, "players[]", ...).
__all__ = ["COUNT_KINDS", "RECORD_FIELDS", "RECORD_FORMAT", "TERMINATIONS", "Adjudication",
           "Counts", "Drop", "Fault", "Player", "Ply", "Record", "RecordError", "Records",
           "Result", "iter_records", "load"]

#: The kinds of legal actions a ply counts, as the records' `legal` objects name them.
COUNT_KINDS: tuple[str, ...] = RECORD_FIELDS["plies[].legal"]


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
    side: int | None = None
    #: The team number the wire used for the player, as in (team T) and (win P T) (None in
    #: records older than the key).
    team: int | None = None


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
    legal_all: tuple[Counts, ...] | None = None
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
    """What ruled an adjudicated game (RECORDS.md, `result.adjudication`): the endgame
    tables (`by` "tables", and the `tables` file's name) or the players' scores (`by`
    "scores", and the `rule` met)."""

    by: str
    verdict: str
    tables: str = ""
    rule: str = ""


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
    #: The referee's adjudication by the players' scores, as configured ("" when off).
    score_draw: str = ""
    score_resign: str = ""
    faults_dropped: int = 0
    #: `{"index", "deal", "engines", "seats", "commitment"}` in tournament records (with
    #: `"node"` on a Ray cluster, and `"book": {"commitment", "order", "entry"}` for a deal
    #: dealt from a deal book), checked at load; None otherwise.
    tournament: dict[str, Any] | None = None
    drops: tuple[Drop, ...] = ()
    #: `{"server": NAME}` in a ladder's records (protocol/LADDER.md); None otherwise.
    ladder: dict[str, Any] | None = None
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


def _make(cls: type, d: dict[str, Any], **convert: Any) -> Any:
    """The dataclass `cls` of a record's object `d` (as the record types write it): each field
    from the key of its name, through `convert[name]` when given and the value is not null; a
    field whose key is absent (an optional one the record leaves out) takes its default, or
    None."""
    kw = {}
    for f in dataclasses.fields(cls):
        if f.name in d:
            v = d[f.name]
            kw[f.name] = convert[f.name](v) if f.name in convert and v is not None else v
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            kw[f.name] = None
    return cls(**kw)


def _record(d: dict[str, Any], where: str) -> Record:
    """The `Record` of a record's dict as the record types write it: from `read_record` (a
    line of a file) or `Game.record` (in process), so every field is there and of its type.
    `where` is its `source`."""
    two = len(d["players"]) == 2

    def player(p: dict[str, Any]) -> Player:
        if p.get("side") is None and two:
            p = {**p, "side": p["id"] - 1}  # two-player records from before `side`: seat order
        return _make(Player, p)

    def ply(q: dict[str, Any]) -> Ply:
        return _make(Ply, q, legal=Counts.from_json,
                     legal_all=lambda cs: tuple(Counts.from_json(c) for c in cs))

    return _make(
        Record, {**d, "source": where, "raw": d},
        players=lambda ps: tuple(player(p) for p in ps),
        plies=lambda qs: tuple(ply(q) for q in qs),
        faults=lambda fs: tuple(_make(Fault, f) for f in fs),
        result=lambda r: _make(Result, r, adjudication=lambda a: _make(Adjudication, a)),
        drops=lambda xs: tuple(_make(Drop, x) for x in xs),
    )


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
        # The record types' own reading, as `anqi replay`'s: not JSON, another shape, a field
        # missing, of another type or out of its type's range are all ValueError, naming the
        # field ("players[0].id: invalid type: ...").
        d = read_record(line)
    except ValueError as e:
        raise RecordError(f"{where}: not a game record: {e}{torn}") from None
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
