"""`anqi.Server`: the real anqi server on a free port, started and stopped from Python.

    with anqi.Server(variant="2v2") as server:
        anqi.client.play_one(server.addr, bot)          # one client; the others likewise
        records = server.records()

The server is the `anqi` program (found as `anqi._binary.find_anqi` says), run as
`anqi serve --listen 127.0.0.1:0`: clients are seated in the order they connect, as many per game
as the variant has players (PROTOCOL.md), and every finished game is appended to the records file.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Mapping

from ._anqi import toml_dumps
from ._binary import find_anqi

PathLike = str | os.PathLike[str]


class ServerError(RuntimeError):
    """The server could not start (the message ends with what it printed), or stopped early."""


def read_address(proc: subprocess.Popen, stream, timeout: float, what: str) -> str:
    """Reads `stream` (a pipe of `proc`) until the `listening on HOST:PORT` line and returns
    HOST:PORT. Raises ServerError with everything the program printed if it exits first or the
    line does not come within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    seen: list[str] = []
    buf = b""
    fd = stream.fileno()
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            proc.kill()
            raise ServerError(f"{what}: no `listening on` line within {timeout:g} s" + _tail(seen))
        ready, _, _ = select.select([fd], [], [], min(left, 0.5))
        if not ready:
            if proc.poll() is not None:
                raise ServerError(f"{what} exited with status {proc.returncode}" + _tail(seen))
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            proc.wait()
            raise ServerError(f"{what} exited with status {proc.returncode}" + _tail(seen))
        buf += chunk
        *lines, buf = buf.split(b"\n")
        for raw in lines:
            line = raw.decode("utf-8", "replace").rstrip("\r")
            seen.append(line)
            if line.startswith("listening on "):
                return line[len("listening on ") :].strip()


def _tail(lines: list[str]) -> str:
    return (":\n" + "\n".join(lines[-20:])) if lines else " (it printed nothing)"


def _drain(stream, sink) -> None:
    """Copies what is left of a pipe to `sink` (or nowhere), so the program never blocks on a
    full pipe."""
    try:
        for line in iter(stream.readline, b""):
            if sink is not None:
                sink.write(line)
                sink.flush()
    except (OSError, ValueError):
        pass


def _local_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """`config` with the limits against crowds of strangers lifted where it leaves them out:
    a local server's players are all its owner's (see `Server`)."""
    out = {k: dict(v) if isinstance(v, Mapping) else v for k, v in config.items()}
    out.setdefault("server", {}).setdefault("max_seats_per_address", 0)
    out.setdefault("referee", {}).setdefault("first_move_ms", 0)
    return out


class Server:
    """The anqi server, started on a free loopback port; a context manager.

    `variant`: a shipped name or a description file. `config`: a `config.toml` path, or a dict
    of its sections (`{"referee": {"max_plies": 400}, "clock": {...}}`; see config.toml for every
    key). Every client of this server is the caller's own, on this machine, so unless the dict
    (or the lack of one) says otherwise the server takes as many players from this machine as
    connect (`[server] max_seats_per_address = 0`) and waits for a first move as long as the
    clock allows (`[referee] first_move_ms = 0`): the public server's defaults against idle
    crowds would abort a game left waiting in a debugger, or refuse the 17th bot. A file path is
    used as it is. `records`: the records file to append to; by default a file in a temporary
    directory that `stop()` deletes, so read `records()` before, or pass a path to keep them. The server's
    log (stderr) goes to `log_path` (by default beside the records). `binary`: the `anqi`
    program (see `anqi._binary.find_anqi`).
    """

    def __init__(
        self,
        variant: str = "traditional",
        config: PathLike | Mapping[str, Any] | None = None,
        records: PathLike | None = None,
        binary: PathLike | None = None,
        log: PathLike | None = None,
        startup_timeout: float = 30.0,
    ) -> None:
        self.variant = variant
        self._config = config
        self._binary = binary
        self._records_arg = records
        self._log_arg = log
        self._startup_timeout = startup_timeout
        self._proc: subprocess.Popen | None = None
        self._tmp: str | None = None
        self._log_file = None
        self.addr: str | None = None
        self.records_path: Path | None = None
        self.log_path: Path | None = None

    @property
    def host(self) -> str:
        return self._require_addr().rsplit(":", 1)[0]

    @property
    def port(self) -> int:
        return int(self._require_addr().rsplit(":", 1)[1])

    def _require_addr(self) -> str:
        if self.addr is None:
            raise ServerError("the server is not running: use `with Server(...)` or start()")
        return self.addr

    def start(self) -> "Server":
        """Starts the server and waits until it listens. Returns self."""
        if self._proc is not None:
            raise ServerError("this server is already started")
        binary = find_anqi(self._binary)
        self._tmp = tempfile.mkdtemp(prefix="anqi-server-")
        tmp = Path(self._tmp)
        self.records_path = Path(self._records_arg) if self._records_arg else tmp / "games.jsonl"
        self.log_path = Path(self._log_arg) if self._log_arg else tmp / "server.log"
        cmd = [binary, "serve", "--listen", "127.0.0.1:0", "--variant", str(self.variant)]
        cmd += ["--records", str(self.records_path)]
        if self._config is None or isinstance(self._config, Mapping):
            path = tmp / "config.toml"
            path.write_text(toml_dumps(_local_config(self._config or {})))
            cmd += ["--config", str(path)]
        elif self._config is not None:
            cmd += ["--config", str(self._config)]
        self._log_file = open(self.log_path, "ab")
        self._proc = subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self._log_file
        )
        try:
            self.addr = read_address(
                self._proc, self._proc.stdout, self._startup_timeout, "anqi serve"
            )
        except ServerError as e:
            log = self.log_path.read_text(errors="replace")[-2000:] if self.log_path else ""
            self._cleanup()
            raise ServerError(f"{e}\n{log}".rstrip()) from None
        threading.Thread(target=_drain, args=(self._proc.stdout, None), daemon=True).start()
        return self

    def stop(self, timeout: float = 10.0) -> int | None:
        """Stops the server gracefully (SIGTERM: running games are aborted and recorded), or
        kills it after `timeout` seconds. Returns its exit status. Deletes the temporary
        directory (and the default records file in it)."""
        if self._proc is None:
            return None
        proc = self._proc
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        status = proc.returncode
        self._cleanup()
        return status

    def _cleanup(self) -> None:
        if self._proc is not None and self._proc.stdout is not None:
            self._proc.stdout.close()
        self._proc = None
        self.addr = None
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def records(self):
        """The records written so far (`anqi.records.load` of the records file)."""
        from .records import load

        if self.records_path is None or not self.records_path.exists():
            return load([])
        return load(self.records_path)

    def __enter__(self) -> "Server":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def __del__(self) -> None:
        if getattr(self, "_proc", None) is not None:
            try:
                self.stop(timeout=2)
            except Exception:
                pass

    def __repr__(self) -> str:
        state = f"on {self.addr}" if self.addr else "stopped"
        return f"Server(variant={self.variant!r}, {state})"
