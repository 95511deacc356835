"""A problem's baseline answers from many sources at once.

Here, below bench and algorithms, so that the runner's references and auto.bfs's depth
probe share one parallel solve without either importing the other's layer.

Ctrl-C lands within a fraction of a second: one baseline traversal of a large graph runs
for many seconds inside numba, which holds off a signal for as long as it runs. The
traversals run in daemon worker threads and the caller's thread waits for each answer in
short slices, where KeyboardInterrupt lands at once. Stopped, the workers take no new
source; the traversals under way are abandoned (they hold only their own arrays and end
with the process, which does not wait for daemon threads).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator

import numpy as np

from gpubfs_cli.core.problem import Problem

SLICE_S = 0.1  # how long the caller waits at a time: how late Ctrl-C can be


class _Failed:
    def __init__(self, error: BaseException):
        self.error = error


def solve_each(problem: Problem, graph, sources: list[int]) -> Iterator[np.ndarray]:
    """The problem's baseline distances from each source, in order. The numba baselines
    release the GIL: sources run on every core at once (the answers are the same; only
    the wall time shrinks)."""
    sources = list(sources)
    if not sources:
        return
    answers: dict[int, object] = {}
    ready = threading.Condition()
    stop = threading.Event()
    order = iter(range(len(sources)))  # next() on it is atomic under the GIL

    def work() -> None:
        for i in order:
            if stop.is_set():
                return
            try:
                answer: object = np.asarray(problem.reference(graph, sources[i]).distances)
            except BaseException as exc:  # handed to the waiting thread
                answer = _Failed(exc)
            with ready:
                answers[i] = answer
                ready.notify_all()

    workers = max(1, min(len(sources), os.cpu_count() or 1))
    for _ in range(workers):
        threading.Thread(target=work, name="gpubfs-baseline", daemon=True).start()
    try:
        for i in range(len(sources)):
            with ready:
                while i not in answers:
                    ready.wait(SLICE_S)
                answer = answers.pop(i)
            if isinstance(answer, _Failed):
                raise answer.error
            yield answer
    finally:  # done, failed, interrupted or abandoned by the caller: no new source starts
        stop.set()
