"""Live progress of a run: what is running (dataset · strategy · source i/N), elapsed, ETA.

The runner talks to this small interface; NullProgress stands in where no bar is
shown (tests, output that is not a terminal). Notes (`note`) reach the user either way
when a console is given: one line each, above the bar.
"""

from __future__ import annotations

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


class NullProgress:
    enabled = False

    def __init__(self, console: Console | None = None):
        self._console = console

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None

    def start(self, total: int) -> None:
        pass

    def resize(self, delta: int) -> None:
        pass

    def describe(self, text: str) -> None:
        pass

    def advance_by(self, steps: int, text: str | None = None) -> None:
        pass

    def note(self, text: str) -> None:
        """A line the user should read (e.g. fewer sources than asked for)."""
        if self._console is not None:
            self._console.print(f"note: {text}", markup=False, highlight=False, soft_wrap=True)


class RunProgress(NullProgress):
    """One bar over every traversal of the run (baseline runs included)."""

    enabled = True

    def __init__(self, console: Console):
        super().__init__(console)
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
        self._task = self._progress.add_task("starting", total=max(total, 1))

    def resize(self, delta: int) -> None:
        if self._task is not None and delta:
            total = self._progress.tasks[0].total or 0
            self._progress.update(self._task, total=max(total + delta, 1))

    def describe(self, text: str) -> None:
        if self._task is not None:
            self._progress.update(self._task, description=text)

    def advance_by(self, steps: int, text: str | None = None) -> None:
        if self._task is not None:
            task = self._progress.tasks[0]
            # The total is an estimate made before the graphs are loaded; the bar never
            # shows more steps done than it expects (a "2/1").
            total = max(task.total or 0, task.completed + steps)
            self._progress.update(self._task, advance=steps, total=total, description=text)
