"""Live progress of a run: what is running (dataset · strategy · source i/N), elapsed, ETA.

The runner talks to this small interface. Each (graph, variant) turn, when it ends, is one
line of the `gpubfs.progress` logger (`turn`), and so are notes (`note`: fewer sources
than asked for, ...); the command line's logging (gpubfs_cli/logs.py) shows them on stderr
or not (--quiet), and writes them to --log FILE. Which progress a command gets
(`for_console`):

  RunProgress   on a terminal: the bar; the turn lines go to the log file only
  LineProgress  off a terminal (nohup, CI, a pipe): no bar, a line a turn as it ends,
                and the dataset layer's progress lines (downloading, generating, ...)
  NullProgress  --quiet, and where no command line runs (tests, the library): no bar and
                no dataset progress; the lines still reach the logger
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

log = logging.getLogger("gpubfs.progress")


def seconds_text(s: float) -> str:
    return f"{s:.1f} s" if s < 60 else f"{int(s // 60)} min {s % 60:02.0f} s"


@dataclass
class Turn:
    """One turn as its line says it; `outcome` replaces the time (`unavailable: ...`)."""

    graph: str
    variant: str
    sources: int
    outcome: str | None = None


class NullProgress:
    enabled = False  # the dataset layer shows its own progress (lines, download bars)
    turn_lines_on_stderr = True  # False where a bar shows the same

    def __init__(self):
        self.completed = 0
        self.total = 0
        self._start = time.monotonic()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None

    def start(self, total: int) -> None:
        self.total = max(total, 1)
        self._start = time.monotonic()

    def resize(self, delta: int) -> None:
        self.total = max(self.total + delta, 1)

    def describe(self, text: str) -> None:
        pass

    def advance_by(self, steps: int, text: str | None = None) -> None:
        # The total is an estimate made before the graphs are loaded; never "2/1".
        self.completed += steps
        self.total = max(self.total, self.completed)

    def note(self, text: str) -> None:
        """A line the user should read (e.g. fewer sources than asked for)."""
        log.info(f"note: {text}")

    @contextlib.contextmanager
    def turn(self, graph: str, variant: str, sources: int) -> Iterator[Turn]:
        """One variant's turn on one graph; its line once it ends (not when it raised)."""
        t0 = time.monotonic()
        turn = Turn(graph, variant, sources)
        yield turn
        now = time.monotonic()
        what = turn.outcome or f"{sources} source{'' if sources == 1 else 's'} in {seconds_text(now - t0)}"
        # the extra key is gpubfs_cli/logs.py's: False keeps the line off stderr. A turn
        # that could not run here is debug: the run's end lists the unavailable variants once.
        level = logging.DEBUG if turn.outcome and turn.outcome.startswith("unavailable") else logging.INFO
        log.log(level, f"{graph} · {variant}: {what}; {self.completed}/{self.total} traversals, "
                f"{seconds_text(now - self._start)} elapsed", extra={"gpubfs_stderr": self.turn_lines_on_stderr})


class LineProgress(NullProgress):
    """Off a terminal: a line a turn (NullProgress's) and the dataset layer's lines."""

    enabled = True


class RunProgress(NullProgress):
    """One bar over every traversal of the run (baseline runs included)."""

    enabled = True
    turn_lines_on_stderr = False

    def __init__(self, console: Console):
        super().__init__()
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("elapsed"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console,
            transient=True,
        )
        self._task = None

    def __enter__(self):
        self._progress.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._progress.__exit__(*exc)

    def start(self, total: int) -> None:
        super().start(total)
        self._task = self._progress.add_task("starting", total=self.total)

    def resize(self, delta: int) -> None:
        super().resize(delta)
        if self._task is not None and delta:
            self._progress.update(self._task, total=self.total)

    def describe(self, text: str) -> None:
        if self._task is not None:
            self._progress.update(self._task, description=text)

    def advance_by(self, steps: int, text: str | None = None) -> None:
        super().advance_by(steps, text)
        if self._task is not None:
            self._progress.update(self._task, advance=steps, total=self.total, description=text)


def for_console(console: Console, quiet: bool) -> NullProgress:
    """A command's progress: none under --quiet, the bar on a terminal, else lines."""
    if quiet:
        return NullProgress()
    return RunProgress(console) if console.is_terminal else LineProgress()
