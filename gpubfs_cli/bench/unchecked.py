"""Timed calls waiting for their checks: a variant's calls run back to back and their
answers (host copies) are checked afterwards, up to CHECK_AFTER_BYTES of answers or
CHECK_AFTER_MS of calls at a time.

Why: a check's host work (a pass over every edge, on every core, for a certificate) right
before an unprimed call slows that call's launch (docs/performance.md, "The check between
timed calls"), and the peers time their sources back to back too. The caller settles the
calls held before it records a failure, stops at the time limit, or lets an interrupt
through, so nothing measured is lost but to a kill no handler sees; the time bound keeps
that loss small for a slow strategy.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gpubfs_cli.core.answer import Answer

# About 250 answers of a 2^20-vertex graph, one of a 2^28-vertex one.
CHECK_AFTER_BYTES = 1 << 30
CHECK_AFTER_MS = 1000.0


def answer_bytes(answer: Answer) -> int:
    """The bytes of an answer's distances and parents (host arrays)."""
    return sum(int(np.asarray(a).nbytes) for a in (answer.distances, answer.parents) if a is not None)


class Unchecked:
    """The calls timed and not yet checked, in order; settle() hands each to `check`
    (its group, answers, milliseconds and the sources left after it)."""

    def __init__(self, check: Callable[[list, list[Answer], float, int], None]):
        self.check = check
        self.calls: list[tuple] = []
        self.bytes, self.ms = 0, 0.0

    def add(self, group: list, answers: list[Answer], ms: float, left: int) -> None:
        """One timed call; settled at once when the held answers or time fill the room."""
        self.calls.append((group, answers, ms, left))
        self.bytes += sum(answer_bytes(a) for a in answers)
        self.ms += ms
        if self.bytes >= CHECK_AFTER_BYTES or self.ms >= CHECK_AFTER_MS:
            self.settle()

    def settle(self) -> None:
        calls, self.calls = self.calls, []
        self.bytes, self.ms = 0, 0.0
        for call in calls:
            self.check(*call)
