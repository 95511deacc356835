"""A variant's timed calls run back to back and their answers are checked afterwards
(bench/unchecked.py: CHECK_AFTER_BYTES of answers or CHECK_AFTER_MS of calls at a time), so
no check's host work sits just before an unprimed call. Through the runner, with a fake
strategy and the problem's check both writing one log: every call before every check
while the answers fit; a check after each call, or each second one, when the room holds
one or two answers or when any call's time fills it; and a failure, the time limit or
Ctrl-C in a call first checks and records the calls before it."""

from __future__ import annotations

import time

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.cpu.sequential import SequentialBfs, sequential_bfs
from gpubfs_cli.bench import unchecked
from gpubfs_cli.bench.config import build_config
from gpubfs_cli.bench.references import References
from gpubfs_cli.bench.runner import Runner
from gpubfs_cli.core.strategy import Strategy
from tests.bench.test_runner_answers import bfs_graph

LOG: list[tuple[str, int]] = []
SOURCES = 5


class Logged(Strategy):
    name = "fake.logged"
    paper = "cpu"
    section = "test"
    stop_at: int | None = None  # the timed call (0-based) that raises `stop_with`
    stop_with: BaseException = RuntimeError("broken")
    slow_at: int | None = None  # the timed call that outlasts the time limit
    calls = 0

    def traverse(self, source, predecessors=False):
        if Logged.calls >= 0:  # the warm-up is not logged (calls < 0 until the first timed call)
            if Logged.calls == Logged.stop_at:
                raise Logged.stop_with
            if Logged.calls == Logged.slow_at:
                time.sleep(0.05)
            LOG.append(("timed", int(source)))
        Logged.calls += 1
        return sequential_bfs(self.graph, source, predecessors)


@pytest.fixture
def logged(monkeypatch):
    real = References.check

    def check(self, i, result, predecessors):
        LOG.append(("check", int(self.sources[i])))
        return real(self, i, result, predecessors)

    monkeypatch.setattr(References, "check", check)
    LOG.clear()
    Logged.calls, Logged.stop_at, Logged.slow_at, Logged.stop_with = -1, None, None, RuntimeError("broken")
    return LOG


def run(tmp_path, time_limit_s: float = 60.0):
    registry = {"bfs": {SequentialBfs.name: SequentialBfs, Logged.name: Logged}}
    cfg = build_config({"name": "t", "datasets": [bfs_graph().name], "strategies": [Logged.name],
                        "sources": SOURCES, "seed": 1, "warmup": 1, "warmup_ms": 0, "time_limit_s": time_limit_s},
                       dataset_check=lambda name: None, registry=registry)
    return Runner(cfg, load_graph=lambda spec, d, p: (bfs_graph(), {}), out_path=tmp_path / "out.json",
                  environment={}, registry=registry).run()


def answer_size() -> int:
    return int(np.asarray(sequential_bfs(bfs_graph(), 0).distances).nbytes)


def statuses(doc):
    return [(s["source"], s["status"]) for s in doc["samples"] if s["strategy"] == Logged.name]


def test_every_call_runs_before_any_check_while_the_answers_fit(tmp_path, logged):
    doc = run(tmp_path).doc
    sources = doc["sources"][bfs_graph().name]
    assert logged == [("timed", s) for s in sources] + [("check", s) for s in sources]
    assert statuses(doc) == [(s, "ok") for s in sources]


@pytest.mark.parametrize(("answers", "by"), [(1, "bytes"), (2, "bytes"), (1, "time")])
def test_the_room_for_answers_sets_how_many_calls_run_before_their_checks(tmp_path, logged, monkeypatch, answers, by):
    if by == "bytes":
        monkeypatch.setattr(unchecked, "CHECK_AFTER_BYTES", answers * answer_size())
    else:  # any call's time fills the room
        monkeypatch.setattr(unchecked, "CHECK_AFTER_MS", 0.0)
    doc = run(tmp_path).doc
    sources = doc["sources"][bfs_graph().name]
    expected = []
    for i in range(0, SOURCES, answers):
        chunk = sources[i:i + answers]
        expected += [("timed", s) for s in chunk] + [("check", s) for s in chunk]
    assert logged == expected
    assert statuses(doc) == [(s, "ok") for s in sources]


def test_a_failed_call_first_checks_and_records_the_calls_before_it(tmp_path, logged):
    Logged.stop_at = 2
    doc = run(tmp_path).doc
    first, second, third = doc["sources"][bfs_graph().name][:3]
    assert logged == [("timed", first), ("timed", second), ("check", first), ("check", second)]
    assert statuses(doc) == [(first, "ok"), (second, "ok"), (third, "error")]


def test_a_call_over_the_time_limit_is_checked_with_those_before_it_and_ends_the_variant(tmp_path, logged):
    Logged.slow_at = 1
    doc = run(tmp_path, time_limit_s=0.02).doc
    first, second = doc["sources"][bfs_graph().name][:2]
    assert logged == [("timed", first), ("timed", second), ("check", first), ("check", second)]
    assert statuses(doc) == [(first, "ok"), (second, "out-of-time")]


def test_ctrl_c_in_a_call_keeps_the_calls_timed_before_it_checked(tmp_path, logged):
    Logged.stop_at, Logged.stop_with = 3, KeyboardInterrupt()
    outcome = run(tmp_path)
    sources = outcome.doc["sources"][bfs_graph().name]
    assert outcome.interrupted
    assert logged == [("timed", s) for s in sources[:3]] + [("check", s) for s in sources[:3]]
    assert statuses(outcome.doc) == [(s, "ok") for s in sources[:3]]
