"""Every threshold of the harness and the problems at its last passing and its first
failing value: the low-reach flag at exactly 1% of the vertices, the frontier record's
level cap, the time limit of a timed call and of a warm-up, warmup_ms, and the memory
budget that keeps the reference answers as arrays."""

from __future__ import annotations

import time
import types

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.cpu.sequential import SequentialBfs, sequential_bfs
from gpubfs_cli.algorithms.bfs.problem import FRONTIER_LEVELS, BfsFacts
from gpubfs_cli.algorithms.sssp.problem import SsspFacts
from gpubfs_cli.bench import schedule as schedule_module
from gpubfs_cli.bench import timing as timing_module
from gpubfs_cli.bench.config import build_config
from gpubfs_cli.bench.references import References
from gpubfs_cli.bench.runner import Runner
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.problem import LOW_REACH, get_problem
from gpubfs_cli.core.strategy import Strategy
from gpubfs_cli.graph.samples import disjoint, grid, path

ABOVE = float(np.nextafter(0.5, 1.0))  # the first float past 0.5


def _run(tmp_path, graph, strategies, registry, **raw):
    raw = {"name": "t", "datasets": [graph.name], "strategies": strategies, "warmup": 0, "warmup_ms": 0, **raw}
    cfg = build_config(raw, dataset_check=lambda name: None, registry=registry)
    return Runner(cfg, load_graph=lambda spec, d, p: (graph, {}), out_path=tmp_path / "out.json",
                  environment={}, registry=registry).run().doc


# ---- low reach: under 1% of the vertices ----------------------------------------

@pytest.mark.parametrize("facts", [BfsFacts, SsspFacts])
def test_reaching_exactly_one_percent_is_not_low_reach_and_one_vertex_fewer_is(facts):
    assert LOW_REACH == 0.01
    g = path(1000)
    measure = facts(g).measure
    ten = np.full(1000, -1, np.int64)
    ten[:10] = np.arange(10)
    assert measure(ten).reached == 10 and measure(ten).low_reach is False
    ten[9] = -1
    assert measure(ten).reached == 9 and measure(ten).low_reach is True


@pytest.mark.parametrize(("others", "low"), [(990, False), (991, True)])
def test_low_reach_at_one_percent_through_the_runner(tmp_path, others, low):
    """Source 0 reaches its path of 10 vertices: exactly 1% of 1,000; under 1% of 1,001."""
    g = disjoint(path(10), path(others), name="parts")
    doc = _run(tmp_path, g, ["cpu.sequential"], {"bfs": {SequentialBfs.name: SequentialBfs}}, fixed_sources=[0])
    (s,) = doc["samples"]
    assert (s["reached"], s["low_reach"], g.n) == (10, low, 10 + others)


# ---- the frontier record's level cap --------------------------------------------

@pytest.mark.parametrize(("levels", "cut"), [(FRONTIER_LEVELS, False), (FRONTIER_LEVELS + 1, True)])
def test_the_frontier_keeps_10000_levels_whole_and_cuts_one_more(levels, cut):
    g = path(levels)  # from vertex 0: one vertex on each level
    bfs = get_problem("bfs")
    f = bfs.frontier(g, 0, sequential_bfs(g, 0).distances)
    assert f["truncated"] is cut
    assert len(f["vertices"]) == FRONTIER_LEVELS and set(f["vertices"]) == {1}


# ---- the time limit of a timed call ----------------------------------------------

class SelfTimed(Strategy):
    """Answers right and says its call took `ms` (timed by itself, so exactly that)."""

    name = "fake.self_timed"
    paper = "cpu"
    section = "test"
    timing = "self"
    ms = 0.0

    def traverse(self, source, predecessors=False):
        answer = sequential_bfs(self.graph, source, predecessors)
        return Answer(answer.distances, answer.parents, time_ms=SelfTimed.ms)


@pytest.mark.parametrize(("ms", "status"), [(500.0, "ok"), (ABOVE * 1000, "out-of-time")])
def test_a_call_taking_exactly_the_limit_is_in_time_and_a_hair_more_is_not(tmp_path, ms, status):
    SelfTimed.ms = ms
    registry = {"bfs": {c.name: c for c in (SequentialBfs, SelfTimed)}}
    doc = _run(tmp_path, grid(4, 4, name="g"), [SelfTimed.name], registry, sources=2, time_limit_s=0.5)
    got = [s["status"] for s in doc["samples"]]
    assert got == (["ok", "ok"] if status == "ok" else ["out-of-time"])


# ---- the time limit of a warm-up -------------------------------------------------

class Clock:
    """A perf_counter that moves only when a traversal says so."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now


class WarmsUpSlowly(Strategy):
    """Each call moves the fake clock by `took` seconds."""

    name = "fake.warm_slow"
    paper = "cpu"
    section = "test"
    clock: Clock
    took = 0.0

    def traverse(self, source, predecessors=False):
        WarmsUpSlowly.clock.now += WarmsUpSlowly.took
        return sequential_bfs(self.graph, source, predecessors)


@pytest.mark.parametrize(("took", "status"), [(0.5, "ok"), (ABOVE, "out-of-time")])
def test_a_warm_up_taking_exactly_the_limit_is_in_time(tmp_path, monkeypatch, took, status):
    clock = Clock()
    # the warm-up's clock (bench/timing.warm_up) is the fake; the timers keep the real one
    monkeypatch.setattr(timing_module, "time", types.SimpleNamespace(perf_counter=clock.perf_counter,
                                                                       perf_counter_ns=time.perf_counter_ns))
    WarmsUpSlowly.clock, WarmsUpSlowly.took = clock, took
    registry = {"bfs": {c.name: c for c in (SequentialBfs, WarmsUpSlowly)}}
    doc = _run(tmp_path, grid(4, 4, name="g"), [WarmsUpSlowly.name], registry, sources=2, warmup=1,
               time_limit_s=0.5)
    got = [(s["status"], s["reason"]) for s in doc["samples"]]
    if status == "ok":
        assert [s for s, _ in got] == ["ok", "ok"]
    else:
        assert got == [("out-of-time", f"warm-up took {ABOVE:.3g} s, over the limit of 0.5 s")]


# ---- warmup_ms ---------------------------------------------------------------------

@pytest.mark.parametrize(("runs", "ms", "expected"), [(1, 500.0, 2), (1, 499.0, 2), (1, 501.0, 3), (3, 250.0, 3),
                                                      (0, 5000.0, 0)])
def test_warm_up_runs_stop_once_exactly_warmup_ms_have_passed(monkeypatch, runs, ms, expected):
    """Each run takes 0.25 s: after two, exactly 500 ms have passed, which is enough."""
    clock = Clock()
    monkeypatch.setattr(schedule_module, "time", types.SimpleNamespace(perf_counter=clock.perf_counter))
    done = 0
    for _ in schedule_module.warm_up_runs(runs, ms):
        clock.now += 0.25
        done += 1
        assert done < 10
    assert done == expected


# ---- the reference answers' memory budget ---------------------------------------

@pytest.mark.parametrize(("spare", "arrays"), [(0, True), (-1, False)])
def test_references_fit_the_budget_exactly_or_are_digests(spare, arrays):
    g = grid(5, 5)
    bfs = get_problem("bfs")
    sources = [0, 7, 24]
    need = len(sources) * g.n * np.dtype(bfs.distance_dtype).itemsize
    refs = References(bfs, g, sources, budget_bytes=need + spare)
    assert refs.keep_arrays is arrays
    right = sequential_bfs(g, 7)
    assert refs.check(1, right, predecessors=False) is None
    assert refs.check(1, Answer(right.distances + 1), predecessors=False).startswith("distances differ")
