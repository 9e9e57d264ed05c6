"""Game records (protocol/RECORDS.md) as typed Python objects, for analysis.

    records = anqi.records.load("games.jsonl")          # a file, a directory, or a list of them
    for r in records:
        print(r.variant, r.result.reason, r.winners(), len(r.plies))
    df = records.to_pandas()                            # one row per ply (pandas, if installed)
    r.board_at(10)                                      # the public board after 10 plies

The fields are those of RECORDS.md, under the same names. Loading checks the shape of every
line and says which file and line is wrong; `anqi replay` is what verifies the games against
the rules, and `Record.replay()` does the same in process.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

COUNT_KINDS = ("moves", "jumps", "reveals", "bags", "puts")


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
class Result:
    win: str
    winner: int
    winner_team: int
    winner_side: int | None
    reason: str
    loser: int | None
    plies: int
    turns: int


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
    seeds: dict[str, Any]
    players: tuple[Player, ...]
    plies: tuple[Ply, ...]
    faults: tuple[Fault, ...]
    result: Result
    final_board: str
    max_plies: int | None = None
    faults_dropped: int = 0
    tournament: dict[str, Any] | None = None
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


def _record(d: dict[str, Any], where: str) -> Record:
    try:
        players = []
        two = len(d["players"]) == 2
        for p in d["players"]:
            side = p.get("side")
            if side is None and two:
                side = p["id"] - 1  # two-player records from before `side`: seat order
            players.append(Player(
                id=int(p["id"]), name=p["name"], seed=p.get("seed", ""),
                colour=p.get("colour"), time_used_ms=int(p.get("time_used_ms", 0)),
                side=side, team=p.get("team"),
            ))
        plies = tuple(
            Ply(
                ply=int(q["ply"]), turn=int(q["turn"]), player=int(q["player"]),
                action=q["action"], think_ms=int(q.get("think_ms", 0)),
                legal=Counts.from_json(q.get("legal", {})),
                legal_all=(tuple(Counts.from_json(c) for c in q["legal_all"])
                           if q.get("legal_all") is not None else None),
                revealed=q.get("revealed"), captured=q.get("captured"),
                drawn=q.get("drawn"), comment=q.get("comment"),
            )
            for q in d["plies"]
        )
        r = d["result"]
        result = Result(
            win=r["win"], winner=int(r["winner"]), winner_team=int(r.get("winner_team", 0)),
            winner_side=r.get("winner_side"), reason=r["reason"], loser=r.get("loser"),
            plies=int(r["plies"]), turns=int(r["turns"]),
        )
        return Record(
            format=int(d["format"]), game=int(d["game"]),
            started_unix_ms=int(d.get("started_unix_ms", 0)), variant=d["variant"],
            variant_source=d["variant_source"], seeds=d["seeds"], players=tuple(players),
            plies=plies,
            faults=tuple(Fault(int(f["ply"]), int(f["player"]), f["code"], f["text"])
                         for f in d.get("faults", [])),
            result=result, final_board=d["final_board"], max_plies=d.get("max_plies"),
            faults_dropped=int(d.get("faults_dropped", 0)), tournament=d.get("tournament"),
            source=where, raw=d,
        )
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError, RecursionError) as e:
        # Whatever a line holds, it is a RecordError: a number too large for an int, a
        # string where a list should be, a nesting too deep...
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
    except (json.JSONDecodeError, RecursionError) as e:
        raise RecordError(f"{where}: not JSON ({type(e).__name__}: {e}){torn}") from None
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
