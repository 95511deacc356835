"""raval.* for SSSP: the CPU-side pieces (histogram MDT, node-split graph, knobs,
registration) as plain tests, and every strategy and knob variant on the GPU against
cpu.dijkstra (exact int64 distances; parents checked as a shortest-path tree) on the
weighted nasty graphs of graph/samples.py and on the BFS test graphs with weights. One
test per variant and check loops over the graphs; the variants whose work does not
depend on the whole graph's degrees run UNION's graphs as disjoint unions (one per
direction and weight type).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from gpubfs_cli.algorithms.sssp.gpu.raval import base as raval_base
from gpubfs_cli.algorithms.sssp.gpu.raval.splitting import children_of, histogram_mdt, split_graph
from gpubfs_cli.algorithms.sssp.gpu.raval.strategies import EpKnobs, HpKnobs, NsKnobs, WdKnobs
from gpubfs_cli.core.strategy import all_strategies, make_knobs
from gpubfs_cli.errors import UserError
from gpubfs_cli.graph import samples
from tests.algorithms.bfs.gpu import test_strategies as bfs_graphs
from tests.algorithms.bfs.gpu.test_raval import _id, case_ids, case_sources, cases, union_safe
from tests.algorithms.bfs.gpu.test_strategies import batches, report, run_checks
from tests.algorithms.sssp.gpu import weighted_graphs as wg

# Every round reads a count back to the host: make test-gpu runs these apart (Makefile).
pytestmark = pytest.mark.host_paced

NAMES = ["raval.bs", "raval.ep", "raval.wd", "raval.ns", "raval.hp"]


# ---- CPU-side pieces (no GPU) -----------------------------------------------------------


def test_mdt_matches_the_papers_numbers():
    """RMAT: maximum degree 1,181, most degrees in the first tenth -> MDT 118 (section
    IV-C); road-like degrees 1..8 mostly 2-3 -> 2-4; ER-like mostly 3-5 of at most 15 -> 4."""
    rng = np.random.default_rng(0)
    rmat = np.r_[rng.integers(1, 60, 10_000), rng.integers(100, 1181, 300), [1181]]
    assert histogram_mdt(rmat, 10) == 118
    road = np.r_[np.full(500, 2), np.full(400, 3), np.full(100, 4), [1, 8]]
    assert histogram_mdt(road, 10) == 2  # degree 2 in bin [1.6, 2.4): upper edge 2.4
    road3 = np.r_[np.full(300, 2), np.full(600, 3), [8]]
    assert histogram_mdt(road3, 10) == 3  # degree 3 in bin [2.4, 3.2)
    er = np.r_[np.full(300, 3), np.full(500, 4), np.full(200, 5), [15]]
    assert 2 <= histogram_mdt(er, 10) <= 4


def test_mdt_extremes():
    deg = np.r_[np.ones(1000, np.int64), np.full(10, 50), [100_000]]
    assert histogram_mdt(deg, 1) == 100_000  # one bin: nothing is split
    assert histogram_mdt(deg, 10) == 10_000
    assert histogram_mdt(deg, 100_000) == 2  # the mode's bin: degree 1's upper edge
    assert histogram_mdt(deg, 2**31 - 1) == 1  # past the bincount limit: sorted counts
    assert histogram_mdt(np.zeros(5, np.int64), 10) == 1  # no edges
    assert histogram_mdt(np.zeros(0, np.int64), 10) == 1
    assert histogram_mdt(np.array([7, 7, 7]), 10) == 7  # all equal: the top bin, MDT = max
    assert histogram_mdt(np.array([0, 0, 9, 9]), 3) == 3  # a tie goes to the first bin
    with pytest.raises(ValueError):
        histogram_mdt(deg, 0)


def _csr(degrees) -> np.ndarray:
    return np.r_[0, np.cumsum(degrees)].astype(np.int64)


@pytest.mark.parametrize("mdt", [1, 2, 3, 5, 100])
def test_split_graph_partitions_every_list(mdt):
    degrees = np.array([0, 1, 2, 3, 7, 10, 0, 5, 1])
    row = _csr(degrees)
    n = len(degrees)
    sg = split_graph(row, mdt)
    pieces = np.maximum(-(-degrees // mdt), 1)
    assert sg.children == int((pieces - 1).sum()) == sg.child_off[-1]
    assert sg.split == int(np.count_nonzero(pieces > 1))
    assert sg.begin.shape == sg.end.shape == (n + sg.children,)
    assert sg.child_off.dtype == np.int32 and np.array_equal(np.diff(sg.child_off), pieces - 1)
    size = sg.end - sg.begin
    assert np.all(size >= 0) and np.all(size <= mdt)
    for v in range(n):  # tiny: a loop is fine here
        nodes = [v] + [n + k for k in range(sg.child_off[v], sg.child_off[v + 1])]
        edges = np.concatenate([np.arange(sg.begin[u], sg.end[u]) for u in nodes])
        assert np.array_equal(edges, np.arange(row[v], row[v + 1])), (v, nodes)
        assert all(sg.end[u] - sg.begin[u] == mdt for u in nodes[:-1])  # only the last is short
        assert children_of(degrees[v], mdt) == len(nodes) - 1


def test_split_graph_of_a_star_and_of_nothing():
    row = _csr([100_000] + [1] * 100_000)
    sg = split_graph(row, 1000)
    assert sg.children == 99 and sg.split == 1
    assert sg.begin[100_001] == 1000 and sg.end[-1] == 100_000
    none = split_graph(row, 100_000)
    assert none.children == 0 and np.array_equal(none.end - none.begin, np.diff(row))
    with pytest.raises(ValueError):
        split_graph(row, 0)


def test_knobs_are_the_papers_and_checked():
    assert EpKnobs().chunk_edges == 0 and EpKnobs().block_size == 1024
    assert NsKnobs().histogram_bins == 10 and NsKnobs().propagation == "atomic"
    assert HpKnobs().wd_threshold == 1024 and WdKnobs().threads == 0
    assert not EpKnobs().phase_timing
    for cls, bad in [(EpKnobs, {"chunk_edges": -1}), (EpKnobs, {"block_size": 2048}),
                     (EpKnobs, {"block_size": 100}), (NsKnobs, {"histogram_bins": 0}),
                     (NsKnobs, {"propagation": "lazy"}), (NsKnobs, {"mdt": -2}),
                     (HpKnobs, {"wd_threshold": -1}), (WdKnobs, {"threads": -1}),
                     (WdKnobs, {"phase_timing": 1})]:
        with pytest.raises(ValueError):
            cls(**bad)


@pytest.mark.parametrize("problem", ["bfs", "sssp"])
def test_registered_once_per_problem(problem):
    strategies = all_strategies(problem)
    for name in NAMES:
        cls = strategies[name]
        assert cls.problem == problem and cls.paper == "raval" and cls.device_kind == "gpu"
        assert cls.supports_predecessors
        assert "phase_timing" in {f for f in cls.Knobs.__dataclass_fields__}
    bfs, sssp = all_strategies("bfs"), all_strategies("sssp")
    for name in NAMES:  # one implementation: the BFS classes are the SSSP ones
        assert issubclass(bfs[name], sssp[name]) and bfs[name].Knobs is sssp[name].Knobs
    with pytest.raises(UserError):
        make_knobs(strategies["raval.ep"], {"chunk": 1})


def test_kernel_builds_per_problem_and_weight_type():
    assert raval_base.kernel_defines(False) == {"RAVAL_SSSP": 0}
    assert raval_base.kernel_defines(True, np.zeros(1, np.int32)) == {"RAVAL_SSSP": 1, "RAVAL_WEIGHT64": 0}
    assert raval_base.kernel_defines(True, np.zeros(1, np.int64)) == {"RAVAL_SSSP": 1, "RAVAL_WEIGHT64": 1}
    c = raval_base.C
    assert c["CTL_WORDS"] == 8 and raval_base.MAX_BLOCK == 1024
    assert len({c["CTL_OUT"], c["CTL_CHILD"], c["CTL_OUT"] + 2, c["CTL_CHILD"] + 2, c["CTL_SUB"],
                c["CTL_SUB"] + 1, c["CTL_REACHED"], c["CTL_ANCHORED"]}) == 8


# ---- GPU: every strategy and knob against cpu.dijkstra -----------------------------------

DEFAULTS = [(name, {}) for name in NAMES]
KNOB_VARIANTS = [
    ("raval.bs", {"block_size": 256}),
    ("raval.ep", {"chunk_edges": 1}),
    ("raval.ep", {"chunk_edges": 32}),
    ("raval.wd", {"threads": 1000}),
    ("raval.wd", {"threads": 1}),
    ("raval.ns", {"mdt": 1}),
    ("raval.ns", {"histogram_bins": 1}),
    ("raval.ns", {"histogram_bins": 100_000}),
    ("raval.ns", {"propagation": "pass"}),
    ("raval.ns", {"propagation": "pass", "mdt": 2}),
    ("raval.hp", {"wd_threshold": 0}),
    ("raval.hp", {"wd_threshold": 0, "mdt": 1}),
    ("raval.hp", {"wd_threshold": 64, "mdt": 4, "threads": 3000}),
    ("raval.hp", {"wd_threshold": 1 << 30}),
]
KNOB_VARIANTS += [(name, {"phase_timing": True}) for name in NAMES]


GRAPHS = dict(samples.NASTY_SSSP)
GRAPHS.update({f"{name}-w": functools.partial(lambda name: samples.with_rule_weights(bfs_graphs.graph(name)), name)
               for name in bfs_graphs.GRAPHS})
# The knob variants: the weighted nasty graphs and the BFS graphs that stress them
# (hubs, thousands of rounds, parallel edges, directed, skewed).
KNOB_GRAPHS = list(samples.NASTY_SSSP) + ["star100k-w", "broom-w", "grid3x2000-w", "directed-w", "kronecker-w"]


@functools.cache
def graph(name: str):
    return GRAPHS[name]()


# Every graph but those whose size or degrees matter alone: one vertex, the two hubs of
# thousands of edges.
UNION = tuple(name for name in GRAPHS if name not in ("single", "single-w", "star100k-w", "broom-w"))


def _strategy(variant):
    name, knobs = variant
    cls = all_strategies("sssp")[name]
    return cls(make_knobs(cls, knobs))


@functools.cache
def sources(name: str) -> tuple[int, ...]:
    return tuple(samples.pick_sources(graph(name)))


def _batches(variant, names):
    return batches(names, graph, UNION if union_safe(variant) else ())


def _check_distances(variant):
    def check(at, got) -> None:
        g = at.batch.graph
        wg.check_sssp(g, at.vertex, got, False, at.label)
        c = got.counters
        assert c["iterations"] >= 1 or g.out_degrees()[at.vertex] == 0, f"{at.label}: {c}"
        assert c["kernel_launches"] > c["iterations"], f"{at.label}: {c}"
        if variant[1].get("phase_timing"):
            assert isinstance(c["kernel_ms"], float) and c["kernel_ms"] >= 0 and c["overhead_ms"] >= 0, \
                f"{at.label}: {c}"
        else:
            assert "kernel_ms" not in c, f"{at.label}: {c}"
    return check


def check_tree(at, got) -> None:
    wg.check_sssp(at.batch.graph, at.vertex, got, True, at.label)


# raval.hp with MDT 1 and no WD walks star100k-w's hub one edge per sub-iteration: that
# graph is a test of its own, listed first to start first (as in the BFS file).
SPLIT = {_id(("raval.hp", {"wd_threshold": 0, "mdt": 1})): ("star100k-w",)}


def _run_distances(case) -> None:
    variant, names = case
    report(run_checks(_id(variant), lambda: _strategy(variant), _batches(variant, names),
                      case_sources(case, sources, 6, SPLIT), False, _check_distances(variant)))


DEFAULT_CASES = cases(DEFAULTS, list(GRAPHS), SPLIT)
KNOB_CASES = cases(KNOB_VARIANTS, KNOB_GRAPHS, SPLIT)


@pytest.mark.gpu
@pytest.mark.parametrize("case", DEFAULT_CASES, ids=case_ids(DEFAULT_CASES, SPLIT))
def test_distances_match_dijkstra(case):
    _run_distances(case)


@pytest.mark.gpu
@pytest.mark.parametrize("case", KNOB_CASES, ids=case_ids(KNOB_CASES, SPLIT))
def test_every_knob_matches_dijkstra(case):
    _run_distances(case)


PARENT_GRAPHS = ["zero_cycles", "ties", "heavy_direct", "unreachable", "big_int64", "hub",
                 "loops_dups", "single", "kronecker-w", "directed-w", "star100k-w"]
PARENT_VARIANTS = DEFAULTS + [v for v in KNOB_VARIANTS if v[0] in ("raval.ns", "raval.hp")]
PARENT_CASES = cases(PARENT_VARIANTS, PARENT_GRAPHS, SPLIT)


@pytest.mark.gpu
@pytest.mark.parametrize("case", PARENT_CASES, ids=case_ids(PARENT_CASES, SPLIT))
def test_parents_form_a_shortest_path_tree(case):
    variant, names = case
    report(run_checks(_id(variant), lambda: _strategy(variant), _batches(variant, names),
                      case_sources(case, sources, 4, SPLIT), True, check_tree))


@pytest.mark.gpu
def test_ep_reports_its_coo_and_ns_its_split():
    g = graph("hub")
    deg = g.out_degrees()
    ep = _strategy(("raval.ep", {}))
    ep.prepare(g)
    assert ep.traverse(1).to_host().counters["coo_bytes"] == 4 * g.m
    assert ep.prepared_bytes() >= 12 * g.m
    ep.release()
    ns = _strategy(("raval.ns", {"mdt": 7}))
    ns.prepare(g)
    c = ns.traverse(1).to_host().counters
    assert c["mdt"] == 7 and c["child_nodes"] == int(np.maximum(-(-deg // 7) - 1, 0).sum())
    ns.release()
