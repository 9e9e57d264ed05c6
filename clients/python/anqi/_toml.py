"""Writing the small TOML files `Server` and `play` hand to the `anqi` program.

Python reads TOML (`tomllib`) but does not write it, and the files here are plain: tables of
strings, numbers, booleans, lists of those, inline tables (`env`) and arrays of tables
(`[[tournament.engine]]`). Anything else is refused rather than written wrong.
"""

from __future__ import annotations

import json
import math
from typing import Any, Mapping


def _value(v: Any, where: str) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"{where}: {v} cannot be written in TOML")
        return repr(v)
    if isinstance(v, str):
        # A JSON string is a valid TOML basic string (the same escapes).
        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x, where) for x in v) + "]"
    if isinstance(v, Mapping):
        return "{ " + ", ".join(f"{_key(k)} = {_value(x, where)}" for k, x in v.items()) + " }"
    raise TypeError(f"{where}: {type(v).__name__} values cannot be written in TOML")


def _key(k: str) -> str:
    if k and all(c.isalnum() or c in "-_" for c in k):
        return k
    return json.dumps(k)


def dumps(doc: Mapping[str, Any]) -> str:
    """TOML text for `doc`: top-level keys must be tables (dicts) or arrays of tables; inside a
    table, a dict value becomes a sub-table unless it is named `env` (an inline table, as the
    tournament's engines take it) and a list of dicts becomes an array of tables."""
    lines: list[str] = []

    def table(name: str, body: Mapping[str, Any], header: str) -> None:
        lines.append(header)
        subs = []
        for k, v in body.items():
            if isinstance(v, Mapping) and k != "env":
                subs.append((k, v, False))
            elif isinstance(v, (list, tuple)) and v and all(isinstance(x, Mapping) for x in v):
                subs.append((k, v, True))
            elif v is not None:
                lines.append(f"{_key(k)} = {_value(v, f'{name}.{k}')}")
        lines.append("")
        for k, v, many in subs:
            sub = f"{name}.{_key(k)}"
            if many:
                for item in v:
                    table(sub, item, f"[[{sub}]]")
            else:
                table(sub, v, f"[{sub}]")

    for name, body in doc.items():
        if not isinstance(body, Mapping):
            raise TypeError(f"config key {name!r}: expected a table (a dict of keys)")
        table(_key(name), body, f"[{_key(name)}]")
    return "\n".join(lines)
