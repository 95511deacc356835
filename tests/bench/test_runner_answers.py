"""The runner catches every way an answer can be wrong, for BFS and SSSP, both with the
reference arrays kept and with the memory budget so small that the baselines are kept
as digests only (the mode the largest graphs run in).

Each fake strategy runs the real baseline and then damages one thing in its answer;
the verdict (status, valid, and the check named in the reason) must be the same in
both modes, so a digest that trusts the answer it is comparing cannot hide anything.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.cpu.sequential import SequentialBfs, sequential_bfs
from gpubfs_cli.algorithms.sssp.cpu.dijkstra import DijkstraSssp, dijkstra
from gpubfs_cli.bench import inputs as inputs_module
from gpubfs_cli.bench.config import build_config
from gpubfs_cli.bench.references import References
from gpubfs_cli.bench.runner import Runner
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.strategy import Strategy
from gpubfs_cli.graph.samples import from_edges, grid, grid_edges

NX = NY = 6
SOURCE = 0  # a corner of the grid: vertex x + NX * y is at BFS level x + y


def bfs_graph():
    return grid(NY, NX, name="grid")


def sssp_graph():
    """The grid with weights 1..5 that are not all equal, so a neighbour is not always a
    shortest-path parent (the tight check has something to catch)."""
    src, dst = grid_edges(NY, NX)
    w = 1 + (src * 7 + dst * 3) % 5
    return from_edges(src, dst, NX * NY, weights=w, name="wgrid", self_loops="drop", duplicates="drop")


# ------------------------------------------------------------------ damage
def _neighbours(graph, v: int) -> np.ndarray:
    return np.asarray(graph.col_indices[graph.row_offsets[v]:graph.row_offsets[v + 1]])


def _far(d: np.ndarray) -> int:
    return int(np.argmax(d))


def dist_plus_one(g, d, p):
    d[_far(d)] += 1
    return d, p


def dist_unreached(g, d, p):
    d[_far(d)] = -1
    return d, p


def dist_reached_source_moved(g, d, p):
    d[SOURCE] = 1
    return d, p


def dist_short(g, d, p):
    return d[:-1], p


def dist_fractional(g, d, p):
    return d + 0.5, p


def dist_other_int_dtype(g, d, p):
    """Right values in another integer type: a right answer."""
    return d.astype(np.int64 if d.dtype == np.int32 else np.int32), p


def parent_not_neighbour(g, d, p):
    """A vertex's parent one level (or a shorter distance) up that is no neighbour."""
    for v in np.argsort(d)[::-1]:
        v = int(v)
        if v == SOURCE:
            continue
        near = set(_neighbours(g, v).tolist())
        for u in np.flatnonzero((d >= 0) & (d < d[v])):
            if int(u) not in near and (d.dtype != np.int32 or d[u] == d[v] - 1):
                p[v] = u
                return d, p
    raise AssertionError("no vertex has a non-neighbour one level up")


def parent_is_n(g, d, p):
    p[_far(d)] = g.n
    return d, p


def parent_is_minus_one(g, d, p):
    p[_far(d)] = -1
    return d, p


def parent_of_source(g, d, p):
    p[SOURCE] = int(_neighbours(g, SOURCE)[0])
    return d, p


def parent_of_source_unset(g, d, p):
    p[SOURCE] = -1
    return d, p


def parents_short(g, d, p):
    return d, p[:-1]


def parents_missing(g, d, p):
    return d, None


def parent_loose(g, d, p):
    """SSSP: a neighbour as parent whose edge is not tight."""
    w = np.asarray(g.weights)
    for v in range(g.n):
        lo, hi = g.row_offsets[v], g.row_offsets[v + 1]
        # undirected grid: the weight of u -> v equals that of v -> u
        for u, wt in zip(g.col_indices[lo:hi], w[lo:hi], strict=True):
            if v != SOURCE and d[u] + wt != d[v]:
                p[v] = int(u)
                return d, p
    raise AssertionError("every edge is tight")


def parents_other_tree(g, d, p):
    """Every vertex's parent swapped for another valid one where it has a choice."""
    w = np.asarray(g.weights) if g.weights is not None else np.ones(g.m, dtype=np.int64)
    for v in range(g.n):
        lo, hi = g.row_offsets[v], g.row_offsets[v + 1]
        tight = [int(u) for u, wt in zip(g.col_indices[lo:hi], w[lo:hi], strict=True)
                 if v != SOURCE and d[u] + wt == d[v]]
        if len(tight) > 1:
            p[v] = tight[-1] if p[v] == tight[0] else tight[0]
    return d, p


# (damage, expected status, the start of the reason, also in the option-off mode)
BOTH = [
    (dist_plus_one, "wrong-answer", "distances differ at 1 of 36 vertices"),
    (dist_unreached, "wrong-answer", "distances differ at 1 of 36 vertices"),
    (dist_reached_source_moved, "wrong-answer", "distances differ at 1 of 36 vertices (first: vertex 0 has 1"),
    (dist_short, "wrong-answer", "distances have shape (35,), expected (36,)"),
    (dist_fractional, "wrong-answer", "distances differ at 36 of 36 vertices"),
    (dist_other_int_dtype, "ok", None),
]
WITH_PARENTS = [
    (parent_not_neighbour, "wrong-answer", "tree-edge: 1 (parent, vertex) pairs are not graph edges"),
    (parent_of_source, "wrong-answer", "root: parent of source 0 is 1, expected 0"),
    (parent_of_source_unset, "wrong-answer", "root: parent of source 0 is -1, expected 0"),
    (parents_short, "wrong-answer", "shape: parents have shape (35,), expected (36,)"),
    (parents_missing, "wrong-answer", "no parents returned although"),
    (parents_other_tree, "ok", None),
]
BFS_ONLY = [
    (parent_is_n, "wrong-answer", "levels: 1 vertices, vertex 35 at level 10 has parent 36 at level none"),
    (parent_is_minus_one, "wrong-answer", "levels: 1 vertices, vertex 35 has parent -1 but distance 10"),
]
SSSP_ONLY = [
    (parent_is_n, "wrong-answer", "tree-edge: 1 (parent, vertex) pairs are not graph edges (first: 36 -> "),
    (parent_is_minus_one, "wrong-answer", "reach: 1 vertices have a parent without a distance"),
    (parent_loose, "wrong-answer", "tight: 1 tree edges are not tight"),
]


def fake(problem: str, damage):
    base = sequential_bfs if problem == "bfs" else dijkstra

    class Damaged(Strategy):
        name = f"fake.{damage.__name__}"
        paper = "cpu"
        section = "test"

        def traverse(self, source, predecessors=False):
            r = base(self.graph, source, True)
            d, p = damage(self.graph, r.distances.copy(), r.parents.copy())
            return Answer(d, p if predecessors else None, {})

    Damaged.problem = problem
    return Damaged


def run(tmp_path, problem, strategy_cls, budget, predecessors, monkeypatch, warmup=0, time_limit_s=60.0,
        sources=None):
    graph = bfs_graph() if problem == "bfs" else sssp_graph()
    baseline = SequentialBfs if problem == "bfs" else DijkstraSssp
    registry = {problem: {baseline.name: baseline, strategy_cls.name: strategy_cls}}
    made = []

    class Spy(References):
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            made.append(self)

    monkeypatch.setattr(inputs_module, "References", Spy)
    cfg = build_config(
        {"name": "t", "datasets": [graph.name], "strategies": [strategy_cls.name], "problem": problem,
         "fixed_sources": sources or [SOURCE], "warmup": warmup, "time_limit_s": time_limit_s,
         "predecessors": predecessors},
        dataset_check=lambda name: None, registry=registry,
    )
    kw = {} if budget is None else {"reference_budget_bytes": budget}
    out = Runner(cfg, load_graph=lambda spec, d, p: (graph, {}), out_path=tmp_path / "out.json",
                 environment={}, registry=registry, **kw).run()
    assert [r.keep_arrays for r in made] == [budget is None]  # the mode this case asked for
    return out.doc


MODES = [pytest.param(None, id="arrays"), pytest.param(0, id="digests")]


def _cases(problem):
    extra = BFS_ONLY if problem == "bfs" else SSSP_ONLY
    for damage, status, reason in BOTH:
        yield pytest.param(problem, damage, False, status, reason, id=f"{problem}-{damage.__name__}")
    for damage, status, reason in BOTH + WITH_PARENTS + extra:
        yield pytest.param(problem, damage, True, status, reason, id=f"{problem}-{damage.__name__}-parents")


CASES = [*_cases("bfs"), *_cases("sssp")]


@pytest.mark.parametrize("budget", MODES)
@pytest.mark.parametrize(("problem", "damage", "parents", "status", "reason"), CASES)
def test_every_wrong_answer_is_caught(tmp_path, monkeypatch, budget, problem, damage, parents, status, reason):
    cls = fake(problem, damage)
    doc = run(tmp_path, problem, cls, budget, "true" if parents else "false", monkeypatch)
    (s,) = doc["samples"]
    assert s["status"] == status, s["reason"]
    assert s["valid"] is (status == "ok")
    if reason is None:
        assert s["reason"] is None
    else:
        assert s["reason"].startswith(reason), s["reason"]
    (cell,) = doc["summaries"]
    assert cell["status"] == status


def test_parent_damage_is_invisible_without_the_option(tmp_path, monkeypatch):
    # Parents are not asked for: a strategy returning none, or bad ones, is not judged on them.
    for problem in ("bfs", "sssp"):
        doc = run(tmp_path, problem, fake(problem, parent_of_source), 0, "false", monkeypatch)
        assert [s["status"] for s in doc["samples"]] == ["ok"]


# ------------------------------------------------------------------ severity
class WrongThenSlow(Strategy):
    """Source 0: a wrong answer at once; any other source: right but over the limit."""

    name = "fake.wrong_then_slow"
    paper = "cpu"
    section = "test"

    def traverse(self, source, predecessors=False):
        r = sequential_bfs(self.graph, source, predecessors)
        if source == SOURCE:
            d = r.distances.copy()
            d[_far(d)] += 1
            return Answer(d, r.parents, {})
        time.sleep(0.08)
        return r


@pytest.mark.parametrize("order", [[SOURCE, 7], [7, SOURCE]], ids=["wrong-first", "slow-first"])
def test_wrong_answer_is_not_hidden_by_out_of_time(tmp_path, monkeypatch, order):
    doc = run(tmp_path, "bfs", WrongThenSlow, None, "false", monkeypatch, time_limit_s=0.05, sources=order)
    statuses = [s["status"] for s in doc["samples"]]
    if order[0] == SOURCE:
        assert statuses == ["wrong-answer", "out-of-time"]
        (cell,) = doc["summaries"]
        assert cell["status"] == "wrong-answer"
    else:  # out-of-time skips the rest of the variant: the wrong answer is never computed
        assert statuses == ["out-of-time"]


@pytest.mark.parametrize("statuses", [
    ["out-of-time", "wrong-answer"], ["wrong-answer", "out-of-time"], ["ok", "out-of-memory", "error"],
    ["unavailable", "ok"], ["unavailable", "out-of-time"], ["out-of-memory", "out-of-time"],
])
def test_the_most_serious_failure_decides_the_cell_in_any_order(statuses):
    from gpubfs_cli.results.status import FAILURES, RUN_FAILURES, group_status, severity

    got = group_status(statuses)
    assert group_status(list(reversed(statuses))) == got
    failed = [s for s in statuses if s in FAILURES]
    if failed:
        assert got == min(failed, key=severity)
    else:
        assert got == "ok"
    assert severity("wrong-answer") < severity("error") < severity("out-of-memory") < severity("out-of-time")
    assert severity("out-of-time") < severity("unavailable") < severity("missing") < severity("ok")
    assert set(RUN_FAILURES) == {"wrong-answer", "error"}


# ------------------------------------------------------------------ References on its own
class CountingProblem:
    """BFS, counting how often the baseline runs."""

    def __init__(self):
        from gpubfs_cli.core.problem import get_problem

        self.inner = get_problem("bfs")
        self.distance_dtype = self.inner.distance_dtype
        self.calls = 0

    def reference(self, graph, source):
        self.calls += 1
        return self.inner.reference(graph, source)

    def check(self, *args):
        return self.inner.check(*args)


def test_a_right_answer_in_digest_mode_costs_no_second_baseline():
    # the digest of a right answer matches: no recomputation (a wrong one recomputes its
    # source to say where it differs); the verdicts are those of array mode
    g, problem = bfs_graph(), CountingProblem()
    refs = References(problem, g, [0, 5], budget_bytes=0)
    assert not refs.keep_arrays and problem.calls == 2
    right = Answer(distances=sequential_bfs(g, 5).distances)
    assert refs.check(1, right, predecessors=False) is None and problem.calls == 2
    wrong = Answer(distances=right.distances + 1)
    assert refs.check(1, wrong, predecessors=False) is not None and problem.calls == 3


def test_on_source_is_told_each_finished_source_and_may_be_left_out():
    g, seen = bfs_graph(), []
    References(CountingProblem(), g, [0, 5, 7], on_source=seen.append)
    assert seen == [0, 1, 2]
    assert References(CountingProblem(), g, [0]).reaches == [NX + NY - 2]


@pytest.mark.parametrize(("pages", "expected"), [(1 << 30, (1 << 30) * 4096 // 4), (1, 2 << 30)])
def test_the_default_budget_is_a_quarter_of_memory_but_at_least_2_gib(monkeypatch, pages, expected):
    from gpubfs_cli.bench import references

    sizes = {"SC_PAGE_SIZE": 4096, "SC_PHYS_PAGES": pages}
    monkeypatch.setattr(references.os, "sysconf", sizes.__getitem__)
    assert references._default_budget() == expected
