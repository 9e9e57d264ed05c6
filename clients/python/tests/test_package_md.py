"""Every ```python block of PACKAGE.md runs as written (issue 35), so that the manual's examples
cannot rot.

The blocks run in the page's order. A "##" or "###" heading starts a section, and a section's
blocks share one namespace, as a reader who types them one after another has it; the namespace
starts with `anqi` imported, since the page imports it once, in "In process", and its later
sections take it as given. Each section runs in a fresh temporary working directory (what its
blocks write, figures and records, goes there), each block with a time limit
(`BLOCK_SECONDS`). A failure names the section and the PACKAGE.md line of the block's first
line, and the traceback's lines are PACKAGE.md's own. Blocks that start the server
(`anqi.play`, `anqi.Server`) run the `anqi` program found as the other tests find it
(`ANQI_BIN`, which clients/python/test.sh sets).

A block that cannot run in a test (it needs a cluster's address, a person, a large file) says
why right before it in the markdown, in an HTML comment the rendered page does not show:

    <!-- not run: needs traditional-2x4.solution, ... -->
    ```python

Such a block is still compiled, and there may be at most `MAX_NOT_RUN` of them. A section whose
blocks need an extra that is not installed (numpy, PettingZoo, OpenSpiel, matplotlib, ...) is
skipped with a message saying which.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import signal
import tempfile
import traceback
import unittest
from dataclasses import dataclass
from pathlib import Path

import anqi

PACKAGE_MD = Path(__file__).resolve().parents[1] / "PACKAGE.md"

#: The longest a block may run, in seconds (the slowest take a few seconds on 2 busy cores).
BLOCK_SECONDS = 60
#: How many blocks may be marked `<!-- not run: ... -->`: a handful. An example a test cannot
#: run is one a reader may not be able to run either; this keeps such blocks the exception.
MAX_NOT_RUN = 3

#: Sections of PACKAGE.md that other branches own, whose blocks fail on this branch until those
#: branches merge: section title -> (why, a pattern of the error expected). A section listed
#: here must fail with that error: another failure is reported as any other, and once the
#: section runs the test says so, so that its entry is taken out.
EXPECTED_FAILURES: dict[str, tuple[str, str]] = {}

#: The optional packages a block may import, and the extra that installs each.
EXTRAS = {"numpy": "rl", "pettingzoo": "rl", "gymnasium": "rl", "pyspiel": "openspiel",
          "open_spiel": "openspiel", "matplotlib": "analysis", "pandas": "analysis",
          "ray": "ray", "torch": "examples", "sb3_contrib": "examples"}

NOT_RUN = re.compile(r"<!--\s*not run:\s*(.+?)\s*-->")


@dataclass
class Block:
    section: str  # the heading's title, without its #s
    heading: int  # the heading's line (0: the top of the page)
    line: int  # the PACKAGE.md line of the block's first line (after the fence)
    source: str
    not_run: str | None  # the reason given in `<!-- not run: ... -->`, or None


def blocks(text: str) -> list[Block]:
    """The ```python blocks of a markdown text, with their sections and first lines. Headings
    inside a fenced block (a shell comment, a Python comment) are not headings."""
    out: list[Block] = []
    section, heading = "(top of the page)", 0
    fence = None  # the language of the open fence, or None outside one
    body: list[str] = []
    start = 0
    previous = ""  # the last non-blank line outside a block
    for number, line in enumerate(text.splitlines(), 1):
        if fence is None:
            if line.startswith("```"):
                fence, body, start = line[3:].strip(), [], number + 1
                reason = NOT_RUN.fullmatch(previous.strip())
                not_run = reason.group(1) if reason else None
            elif re.match(r"#{2,3} ", line):
                section, heading = line.lstrip("#").strip(), number
            if line.strip():
                previous = line
        elif line.startswith("```"):
            if fence == "python":
                out.append(Block(section, heading, start, "\n".join(body) + "\n", not_run))
            fence = None
            previous = line
        else:
            body.append(line)
    if fence is not None:
        raise ValueError(f"PACKAGE.md: the ``` block of line {start - 1} is never closed")
    return out


class BlockTimeout(Exception):
    pass


@contextlib.contextmanager
def time_limit(seconds: float):
    """Raises BlockTimeout in this (the main) thread after `seconds`: a blocked socket read is
    interrupted too."""
    def expire(signum, frame):
        raise BlockTimeout(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def compiled(block: Block):
    """The block compiled as PACKAGE.md's own lines: its tracebacks name PACKAGE.md and the
    page's line numbers."""
    return compile("\n" * (block.line - 1) + block.source, str(PACKAGE_MD), "exec")


def run_section(section: list[Block]) -> tuple[str, str | None]:
    """Runs a section's blocks in one namespace, in a fresh temporary directory: `("ok", None)`,
    `("failed", message)` naming the failing block, or `("missing", message)` when a block
    imports an extra that is not installed. Blocks marked not run are only compiled."""
    namespace = {"__name__": "__package_md__", "anqi": anqi}
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as directory:
        os.chdir(directory)
        try:
            for block in section:
                code = compiled(block)
                if block.not_run:
                    continue
                out = io.StringIO()
                try:
                    with time_limit(BLOCK_SECONDS), contextlib.redirect_stdout(out):
                        exec(code, namespace)
                except ModuleNotFoundError as e:
                    if e.name and e.name.split(".")[0] in EXTRAS:
                        extra = EXTRAS[e.name.split(".")[0]]
                        return "missing", (f"{e.name} is not installed: pip install "
                                           f"'./clients/python[{extra}]'")
                    raise_with = e
                except BaseException as e:  # noqa: BLE001 (reported with the block's place)
                    if isinstance(e, KeyboardInterrupt):
                        raise
                    raise_with = e
                else:
                    continue
                printed = out.getvalue()[-2000:]
                # The traceback from the block's own frame on (not this function's).
                tb = raise_with.__traceback__
                tb = tb.tb_next if tb is not None and tb.tb_next is not None else tb
                return "failed", (
                    f"section {block.section!r}, the block of PACKAGE.md line {block.line}:\n"
                    + "".join(traceback.format_exception(type(raise_with), raise_with, tb))
                    + (f"it printed (the end):\n{printed}" if printed else "it printed nothing"))
        finally:
            os.chdir(here)
    return "ok", None


class PackageMd(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.blocks = blocks(PACKAGE_MD.read_text(encoding="utf-8"))

    def test_the_page_has_its_examples(self):
        # A parser that lost the blocks would make the other test pass on nothing.
        self.assertGreaterEqual(len(self.blocks), 15, [(b.section, b.line) for b in self.blocks])
        for block in self.blocks:
            self.assertTrue(block.source.strip(), f"an empty block at PACKAGE.md line {block.line}")

    def test_few_blocks_are_marked_not_run(self):
        marked = [(b.section, b.line, b.not_run) for b in self.blocks if b.not_run]
        self.assertLessEqual(len(marked), MAX_NOT_RUN, f"blocks marked not run: {marked}")

    def test_every_python_block_runs_as_written(self):
        sections: dict[int, list[Block]] = {}
        for block in self.blocks:
            sections.setdefault(block.heading, []).append(block)
        unknown = set(EXPECTED_FAILURES) - {b.section for b in self.blocks}
        self.assertFalse(unknown, f"EXPECTED_FAILURES names sections without blocks: {unknown}")
        for section in sections.values():
            title = section[0].section
            with self.subTest(section=title, line=section[0].line):
                status, message = run_section(section)
                if status == "missing":
                    self.skipTest(message)
                if title not in EXPECTED_FAILURES:
                    self.assertEqual(status, "ok", message)
                    continue
                why, error = EXPECTED_FAILURES[title]
                self.assertEqual(status, "failed",
                                 f"section {title!r} runs now: take it out of "
                                 f"EXPECTED_FAILURES ({why})")
                self.assertRegex(message, error, f"not the failure expected ({why})")


if __name__ == "__main__":
    unittest.main()
