"""Finding the `anqi` program (the server and tournament runner) that `Server` and `play` start.

The native module holds the rules, not the server: experiments talk to the real server, the
same program tournaments and bot authors use, so what a Python experiment measures is what the
server does. This module only decides which executable that is.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

#: The environment variable that names the program, when it is neither on PATH nor built in
#: the checkout the package came from.
ENV = "ANQI_BIN"


class BinaryNotFound(FileNotFoundError):
    """The `anqi` program could not be found; the message says where it was looked for."""


def _checkout_candidates() -> list[Path]:
    """`target/{release,debug}/anqi` of the repository this package sits in (an editable
    install, `maturin develop`) and of the current directory's repository."""
    roots = []
    here = Path(__file__).resolve()
    # clients/python/anqi/_binary.py: the repository is three levels up.
    if len(here.parents) > 3:
        roots.append(here.parents[3])
    cwd = Path.cwd().resolve()
    roots.extend([cwd, *cwd.parents])
    out = []
    for root in roots:
        if (root / "Cargo.toml").is_file() and (root / "protocol").is_dir():
            target = Path(os.environ.get("CARGO_TARGET_DIR", root / "target"))
            if not target.is_absolute():
                target = root / target
            out += [target / "release" / "anqi", target / "debug" / "anqi"]
    return out


def find_anqi(binary: str | os.PathLike[str] | None = None) -> str:
    """The path of the `anqi` program to run.

    In this order: `binary` when given; the `ANQI_BIN` environment variable; `anqi` on `PATH`
    (`cargo install --path .` puts it there); the release, then debug, build of the anqi
    checkout this package was installed from or that the current directory is in (after
    `cargo build --release`). Raises `BinaryNotFound` naming every place it looked.
    """
    tried = []
    for label, candidate in (("binary=", binary), (ENV, os.environ.get(ENV))):
        if candidate:
            path = Path(candidate)
            if path.is_file() and os.access(path, os.X_OK):
                return str(path)
            raise BinaryNotFound(f"{label}{candidate}: no executable file there")
    built = []
    for path in _checkout_candidates():
        if path.is_file() and os.access(path, os.X_OK):
            built.append(path)
        else:
            tried.append(str(path))
    if built:
        # The newest build: a release build left from an older commit must not shadow the
        # debug build just made (or the other way round).
        return str(max(built, key=lambda p: p.stat().st_mtime))
    on_path = shutil.which("anqi")
    if on_path:
        return on_path
    tried.append("anqi on PATH")
    raise BinaryNotFound(
        "the anqi program was not found (looked for "
        + ", ".join(tried)
        + "). Build it with `cargo build --release` in the anqi repository and run from "
        "there, or install it with `cargo install --path .`, or set ANQI_BIN to its path."
    )
