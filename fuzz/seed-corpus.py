#!/usr/bin/env python3
"""Builds the seed corpus of every fuzz target in fuzz/corpus/TARGET/ (generated, not committed).

- client_message, frame: the client lines of protocol/transcripts/ (frame inputs start with
  two settings bytes: the largest limits and split seed 0), one file per distinct line, and
  each transcript's whole client stream;
- server_message: the server lines of the transcripts;
- variant: protocol/variants/*.sexp;
- record: tests/data/*.jsonl, and one game of each shipped variant recorded by a real server
  (`anqi serve` and the random `anqi-bot`, built here with cargo unless --no-games);
- rules: for each shipped variant, its index, a seed and random step bytes (fixed generator);
- every target but rules: edge cases (EDGE_CASES below), inputs that broke an invariant once
  and that a short run does not find by itself, so that the smoke run keeps checking them.

Standard library only (CI has python3). Run from anywhere: `python3 fuzz/seed-corpus.py`.
"""

import argparse
import hashlib
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FUZZ = ROOT / "fuzz"
TARGETS = ["frame", "client_message", "server_message", "variant", "record", "rules"]
# Frame settings byte: max_bytes = 1 + 4 * (b & 0x3f) = 253, max_depth = 1 + (b >> 6) = 4.
FRAME_SETTINGS = bytes([0xFF, 0x00])


def put(corpus: Path, target: str, data: bytes) -> None:
    """Writes one seed, named by its hash as libFuzzer names its own finds."""
    d = corpus / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()).write_bytes(data)


# Enough nested quotes to overflow the stack of an AddressSanitizer build (what smoke.sh
# runs), yet within the server's default frame limit (16384 bytes) for client_message.
QUOTES = "'" * 14000
# Inputs that broke an invariant (see fuzz/README.md), kept as seeds: libFuzzer runs every seed
# first, so each smoke run checks them again. By target, with what each one showed.
EDGE_CASES = {
    "frame": [
        # A run of garbage split across pushes is reported once per piece, and swallows a ')'
        # only when whole.
        FRAME_SETTINGS + b"a)",
        # Split after 'a', the ';' starts a comment that swallows the next message.
        FRAME_SETTINGS + b"a;((bag))\n",
    ],
    "client_message": [
        # Integers past u64 become floats: SEED is not kept as written, nor printed stably.
        b"((init player1 22222222222222222222222222222222222222222222222222222))",
        # Text printed bare that reads back as a number, or as several items.
        b'((init "01" 1))',
        b'((version "1.00"))',
        b'((board "a b")(rev 0))',
        # Nested quotes overflow lexpr's recursion (within the frame limits).
        ("((init " + QUOTES + "a 1))").encode(),
    ],
    "server_message": [
        b'((board "a b")(turn 0 1))',
        b'((game "1.00"))',
        ("((board " + QUOTES + "a))").encode(),
    ],
    "variant": [
        # LINES x COLUMNS overflows.
        b"(variant (name a) (board (rectangle 4294967296 4294967297)) (pieces Kk))",
        ("(variant (name " + QUOTES + "a))").encode(),
    ],
}


def edge_cases(corpus: Path) -> None:
    for target, inputs in EDGE_CASES.items():
        for data in inputs:
            put(corpus, target, data)
    # Records carry a variant description, parsed by `anqi replay`: the same cases there.
    record = json.loads((ROOT / "tests" / "data" / "one-game.jsonl").read_text().splitlines()[0])
    for source in EDGE_CASES["variant"]:
        record["variant_source"] = source.decode()
        put(corpus, "record", json.dumps(record, separators=(",", ":")).encode())


def transcripts(corpus: Path) -> None:
    for path in sorted((ROOT / "protocol" / "transcripts").glob("*.transcript")):
        client_stream = []
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("#") or " " not in line:
                continue
            direction, message = line.split(" ", 1)
            data = (message + "\n").encode()
            if direction.startswith("S>"):
                put(corpus, "server_message", data)
            elif direction.endswith(">S"):
                put(corpus, "client_message", data)
                put(corpus, "frame", FRAME_SETTINGS + data)
                client_stream.append(data)
        if client_stream:
            stream = b"".join(client_stream)
            put(corpus, "client_message", stream)
            put(corpus, "frame", FRAME_SETTINGS + stream)


def variants(corpus: Path) -> None:
    for path in sorted((ROOT / "protocol" / "variants").glob("*.sexp")):
        put(corpus, "variant", path.read_bytes())


def shipped_names() -> list[str]:
    """The shipped variants in the order of anqi_core::rules::SHIPPED (what the rules target indexes)."""
    text = (ROOT / "crates" / "anqi-core" / "src" / "rules" / "catalog.rs").read_text(encoding="utf-8")
    block = text.split("pub const SHIPPED", 1)[1].split("];", 1)[0]
    return [part.split('"')[1] for part in block.split(",") if '"' in part]


def rules(corpus: Path) -> None:
    rng = random.Random(7)
    for index, _name in enumerate(shipped_names()):
        for _ in range(2):
            seed = rng.randbytes(8)
            steps = rng.randbytes(800)
            put(corpus, "rules", bytes([index]) + seed + steps)


def cargo_target_dir() -> Path:
    meta = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    )
    return Path(json.loads(meta.stdout)["target_directory"])


# A fixed server seed (with the bots' fixed seeds, the same games every time) and a ply cap
# (records of a few thousand plies would slow every execution down; capped games also seed
# the ply-cap branch of the verifier).
SERVER_CONFIG = """
[seed]
server = "seed-corpus"
[referee]
max_plies = 150
"""


def play_one_game(bin_dir: Path, variant: str, players: int, config: Path, records: Path) -> None:
    """One game on a real server: `anqi serve` and one random bot per seat, on loopback. The bots
    share one seed, so that the game does not depend on the order in which they connect."""
    server = subprocess.Popen(
        [bin_dir / "anqi", "serve", "--config", str(config), "--listen", "127.0.0.1:0",
         "--variant", variant, "--records", str(records)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    bots = []
    try:
        line = server.stdout.readline().strip()
        if not line.startswith("listening on "):
            raise RuntimeError(f"anqi serve --variant {variant} printed {line!r}")
        addr = line.removeprefix("listening on ")
        for _ in range(players):
            bots.append(subprocess.Popen(
                [bin_dir / "anqi-bot", "--connect", addr, "--strategy", "random",
                 "--seed", "1", "--variant", variant],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            ))
        deadline = time.monotonic() + 60
        for bot in bots:
            bot.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        for bot in bots:
            if bot.poll() is None:
                bot.kill()
                bot.wait()
        # SIGTERM: the server stops gracefully and flushes its records.
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def records(corpus: Path, games: bool) -> None:
    for path in sorted((ROOT / "tests" / "data").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                put(corpus, "record", line.encode())
    if not games:
        return
    subprocess.run(["cargo", "build", "--quiet", "--workspace", "--bins"], cwd=ROOT, check=True)
    bin_dir = cargo_target_dir() / "debug"
    out = subprocess.run([bin_dir / "anqi", "variants"], check=True, capture_output=True, text=True)
    with tempfile.TemporaryDirectory(prefix="anqi-seed-") as tmp:
        recs = Path(tmp) / "games.jsonl"
        config = Path(tmp) / "config.toml"
        config.write_text(SERVER_CONFIG, encoding="utf-8")
        for name in shipped_names():
            if name not in out.stdout:
                raise RuntimeError(f"anqi variants does not list {name}")
            text = (ROOT / "protocol" / "variants" / f"{name}.sexp").read_text(encoding="utf-8")
            players = 2
            for clause in text.splitlines():
                clause = clause.strip()
                if clause.startswith("(players "):
                    players = int(clause.removeprefix("(players ").rstrip(")"))
            play_one_game(bin_dir, name, players, config, recs)
        n = 0
        for line in recs.read_text(encoding="utf-8").splitlines():
            if line.strip():
                # Clock readings are the only thing that differs from run to run: zero them
                # so that the same seeds get the same names.
                record = json.loads(line)
                record["started_unix_ms"] = 0
                for p in record["players"]:
                    p["time_used_ms"] = 0
                for p in record["plies"]:
                    p["think_ms"] = 0
                data = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
                put(corpus, "record", data.encode())
                n += 1
        print(f"seed-corpus: {n} recorded games", file=sys.stderr)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=FUZZ / "corpus",
                    help="corpus directory (default: fuzz/corpus)")
    ap.add_argument("--no-games", action="store_true",
                    help="record seeds from tests/data only: build and play nothing")
    args = ap.parse_args()
    corpus = args.out
    # Seeds are regenerated from scratch; what the fuzzer added to a target's corpus stays.
    for target in TARGETS:
        (corpus / target).mkdir(parents=True, exist_ok=True)
    transcripts(corpus)
    variants(corpus)
    rules(corpus)
    edge_cases(corpus)
    records(corpus, not args.no_games)
    for target in TARGETS:
        n = sum(1 for _ in (corpus / target).iterdir())
        print(f"seed-corpus: {target}: {n} inputs in {corpus / target}", file=sys.stderr)


if __name__ == "__main__":
    main()
