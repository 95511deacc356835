"""Ctrl-C during the untimed reference answers lands within a second, however long one
baseline traversal runs: a fake slow baseline (it waits, holding no GIL, as numba's
does) and SIGINT sent to the main thread from a timer thread."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest
from typer.testing import CliRunner

from gpubfs_cli.algorithms.bfs.problem import Bfs
from gpubfs_cli.bench import runner as runner_module
from gpubfs_cli.cli import app
from gpubfs_cli.core.problem import get_problem
from gpubfs_cli.core.solve import solve_each
from gpubfs_cli.graph.samples import grid
from tests.results.test_journal import config, runner

SLOW_S = 5.0  # how long one fake baseline traversal runs, unless released
ANSWER_S = 2.0  # Ctrl-C must be answered within this


@pytest.fixture
def slow_baseline(monkeypatch):
    """BFS's baseline made slow; -> the sources it started. Released at the end, so the
    abandoned workers finish."""
    real = Bfs.reference
    started: list[int] = []
    release = threading.Event()

    def reference(self, graph, source, predecessors=False):
        started.append(source)
        release.wait(SLOW_S)
        return real(self, graph, source, predecessors)

    monkeypatch.setattr(Bfs, "reference", reference)
    yield started
    release.set()


class CtrlC(threading.Thread):
    """SIGINT to the main thread, as a terminal's Ctrl-C, 0.2 s after the first baseline
    traversal started; `sent` is when."""

    def __init__(self, started: list[int]):
        super().__init__(daemon=True)
        self.started = started
        self.sent: float | None = None
        self.cancelled = threading.Event()
        self.start()

    def run(self) -> None:
        while not self.started:
            if self.cancelled.wait(0.01):
                return
        if not self.cancelled.wait(0.2):
            self.sent = time.perf_counter()
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)

    def cancel(self) -> None:
        self.cancelled.set()
        self.join()


def test_solve_each_answers_ctrl_c_within_a_second(slow_baseline):
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    g = grid(5, 5)
    sources = [v % g.n for v in range(2 * (os.cpu_count() or 1) + 5)]  # more than the workers
    timer = CtrlC(slow_baseline)
    try:
        with pytest.raises(KeyboardInterrupt):
            list(solve_each(get_problem("bfs"), g, sources))
        took = time.perf_counter() - timer.sent
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert took < ANSWER_S
    started = len(slow_baseline)
    time.sleep(0.3)
    assert len(slow_baseline) == started < len(sources)  # stopped: no new source starts


def test_solve_each_still_answers_in_order_and_hands_back_a_failure():
    g = grid(5, 5)
    bfs = get_problem("bfs")
    got = [d.tolist() for d in solve_each(bfs, g, [3, 0, 24])]
    assert got == [bfs.reference(g, s).distances.tolist() for s in (3, 0, 24)]
    assert list(solve_each(bfs, g, [])) == []

    class Broken(Bfs):
        def reference(self, graph, source, predecessors=False):
            if source == 7:
                raise ValueError("source 7")
            return super().reference(graph, source, predecessors)

    answers = solve_each(Broken(), g, [1, 7, 2])
    assert next(answers).tolist() == bfs.reference(g, 1).distances.tolist()
    with pytest.raises(ValueError, match="source 7"):
        next(answers)


def test_the_run_stops_within_a_second_and_says_where(slow_baseline, tmp_path):
    r = runner(config(["cpu.sequential"]), tmp_path / "r.json")
    timer = CtrlC(slow_baseline)
    try:
        outcome = r.run()
        took = time.perf_counter() - timer.sent
    finally:
        timer.cancel()
    assert took < ANSWER_S
    assert outcome.interrupted and outcome.stopped_by == "SIGINT" and not outcome.written
    assert outcome.doc["interrupted_during"] == "the reference answers of g (bfs)"


def test_gpubfs_run_says_it_was_interrupted_during_the_reference_answers(slow_baseline, tmp_path, monkeypatch):
    monkeypatch.setattr(runner_module, "default_loader", lambda spec, d, p: (grid(6, 6, name=spec.name), {}))
    monkeypatch.chdir(tmp_path)
    timer = CtrlC(slow_baseline)
    try:
        result = CliRunner().invoke(app, ["run", "-d", "smoke-grid", "-s", "cpu.sequential", "--sources", "5",
                                          "--dir", str(tmp_path / "data")])
        took = time.perf_counter() - timer.sent
    finally:
        timer.cancel()
    assert took < ANSWER_S
    assert result.exit_code == 130, result.output
    assert result.stderr.strip() == ("interrupted by SIGINT during the reference answers of smoke-grid (bfs): "
                                     "nothing was measured, so no results file")
