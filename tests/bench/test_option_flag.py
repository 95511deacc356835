"""The problem's option (BFS predecessors, SSSP parents) reaches the strategy in every
warm-up and every timed call of its mode, and each sample records the mode it ran in:
fake strategies record the flag they get, through the runner."""

from __future__ import annotations

import pytest

from gpubfs_cli.algorithms.bfs.cpu.sequential import SequentialBfs, sequential_bfs
from gpubfs_cli.algorithms.sssp.cpu.dijkstra import DijkstraSssp, dijkstra
from gpubfs_cli.bench import timing
from gpubfs_cli.bench.config import build_config
from gpubfs_cli.bench.runner import Runner
from gpubfs_cli.core.strategy import Strategy
from tests.bench.test_runner_answers import bfs_graph, sssp_graph

CALLS: list[tuple[str, bool, tuple]] = []  # (warm-up | timed, flag, sources)
TIMED = [False]
WARMUP, SOURCES = 2, 3


class Records(Strategy):
    paper = "cpu"
    section = "test"
    solve = staticmethod(sequential_bfs)

    def traverse(self, source, predecessors=False):
        CALLS.append(("timed" if TIMED[0] else "warm-up", predecessors, (source,)))
        return self.solve(self.graph, source, predecessors)


class RecordsBfs(Records):
    name = "fake.records_bfs"


class RecordsSssp(Records):
    name = "fake.records_sssp"
    problem = "sssp"
    solve = staticmethod(dijkstra)


class RecordsBatch(Records):
    """Two sources a call; a warm-up is a batch of one."""

    name = "fake.records_batch"

    def batch_size(self) -> int:
        return 2

    def traverse_batch(self, sources, predecessors=False):
        CALLS.append(("timed" if TIMED[0] else "warm-up", predecessors, tuple(sources)))
        return [sequential_bfs(self.graph, s, predecessors) for s in sources]


@pytest.fixture
def recorded(monkeypatch):
    """CALLS cleared; the host timer marks the calls made inside it."""
    real = timing.TIMERS["host"]

    def host(fn, devices=()):
        TIMED[0] = True
        try:
            return real(fn, devices)
        finally:
            TIMED[0] = False

    monkeypatch.setitem(timing.TIMERS, "host", host)
    CALLS.clear()
    return CALLS


def run(tmp_path, cls, graph, baseline, predecessors):
    registry = {cls.problem: {baseline.name: baseline, cls.name: cls}}
    cfg = build_config({"name": "t", "datasets": [graph.name], "strategies": [cls.name], "problem": cls.problem,
                        "sources": SOURCES, "seed": 1, "warmup": WARMUP, "warmup_ms": 0,
                        "predecessors": predecessors},
                       dataset_check=lambda name: None, registry=registry)
    return Runner(cfg, load_graph=lambda spec, d, p: (graph, {}), out_path=tmp_path / "out.json",
                  environment={}, registry=registry).run().doc


CASES = [pytest.param(RecordsBfs, bfs_graph, SequentialBfs, id="bfs-predecessors"),
         pytest.param(RecordsSssp, sssp_graph, DijkstraSssp, id="sssp-parents")]


@pytest.mark.parametrize(("cls", "graph", "baseline"), CASES)
@pytest.mark.parametrize(("option", "modes"), [("false", [False]), ("true", [True]), ("both", [False, True])])
def test_every_warm_up_and_timed_call_gets_its_modes_flag(tmp_path, recorded, cls, graph, baseline, option, modes):
    doc = run(tmp_path, cls, graph(), baseline, option)
    first, *_ = sources = doc["sources"][graph().name]
    expected = []
    for mode in modes:
        expected += [("warm-up", mode, (first,))] * WARMUP + [("timed", mode, (s,)) for s in sources]
    assert recorded == expected
    got = [(s["predecessors"], s["source"], s["status"]) for s in doc["samples"]]
    assert got == [(mode, s, "ok") for mode in modes for s in sources]


@pytest.mark.parametrize(("option", "modes"), [("true", [True]), ("both", [False, True])])
def test_a_batch_strategy_gets_its_modes_flag_in_every_call(tmp_path, recorded, option, modes):
    doc = run(tmp_path, RecordsBatch, bfs_graph(), SequentialBfs, option)
    sources = doc["sources"][bfs_graph().name]
    expected = []
    for mode in modes:
        expected += [("warm-up", mode, (sources[0],))] * WARMUP
        expected += [("timed", mode, tuple(sources[i:i + 2])) for i in range(0, len(sources), 2)]
    assert recorded == expected
    assert [(s["predecessors"], s["status"]) for s in doc["samples"]] == [(m, "ok") for m in modes for _ in sources]


class Plans(RecordsBfs):
    """Records what it is told before its graph, and what it holds when prepared."""

    name = "fake.plans"
    told: list = []

    def plan_predecessors(self, asked):
        Plans.told.append(("plan", asked, self.graph is None))
        super().plan_predecessors(asked)

    def prepare(self, graph):
        Plans.told.append(("prepare", self.predecessors_planned, None))
        super().prepare(graph)


@pytest.mark.parametrize(("option", "asked"), [("false", False), ("true", True), ("both", True)])
def test_a_strategy_is_told_before_its_graph_whether_any_call_asks_for_the_option(tmp_path, recorded, option, asked):
    Plans.told = []
    run(tmp_path, Plans, bfs_graph(), SequentialBfs, option)
    assert Plans.told == [("plan", asked, True), ("prepare", asked, None)]


def test_a_strategy_never_told_prepares_for_both():
    assert Strategy().predecessors_planned is True and RecordsBfs().predecessors_planned is True
