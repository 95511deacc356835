"""raval.* (BFS and SSSP, every strategy and knob) run end to end on the CPU: the real
launchers with numpy in place of CuPy, raval.cu under the CUDA emulator (tests/gpu/emu,
see tests/gpu/emulated_cupy.py). No GPU needed, only g++.

Blocks of 32 threads (64 and 96 too), 1 SM, 2 resident blocks (so EP's and WD's "all
active threads" are 64), helper kernels of 32 threads: on graphs of a few hundred
vertices a hub's list spans several blocks and WD's shares span several nodes. The
emulator switches threads at atomics (seeded, 20% of them), so concurrent relaxations
of one vertex happen. Distances are compared exactly with cpu.dijkstra / cpu.sequential,
parents with the shortest-path-tree checks of sssp/validate.py / a BFS tree check.
Each strategy's default knobs run on every graph; the other knob values on the graphs
that stress them (hubs, zero-weight cycles, parallel edges, directed, skewed), to keep
the emulator's minutes down (every emulated thread is a fiber with its own stack).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs
from gpubfs_cli.algorithms.sssp.gpu.raval import base as raval_base
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.strategy import all_strategies, make_knobs
from gpubfs_cli.graph import samples
from tests.algorithms.bfs.gpu.test_strategies import check_parents
from tests.algorithms.sssp.gpu import weighted_graphs as wg
from tests.gpu import emulated_cupy as ec
from tests.gpu import fixed_cost as fc

BLOCK = 32
RAVAL = ec.Family(raval_base.KERNELS, "raval_driver.cpp", (raval_base,), raval_base.KERNEL_DEFINES)
# helper kernels of 32 threads, 2 blocks per SM
SMALL_UTIL = {"UTIL_BLOCK": 32, "UTIL_BLOCKS_PER_SM": 2}


@pytest.fixture(scope="module")
def emulation() -> ec.Emulation:
    return ec.Emulation(RAVAL, ec.build_libraries(RAVAL))


# ---- graphs ---------------------------------------------------------------------------

BFS_GRAPHS = dict(samples.NASTY_BFS)

SSSP_GRAPHS = dict(samples.NASTY_SSSP)
SSSP_GRAPHS["grid9x13-w"] = lambda: samples.with_rule_weights(samples.grid(9, 13))
SSSP_GRAPHS["rmat-w"] = lambda: samples.with_rule_weights(samples.rmat(8, 6, 4, permute=True), seed=3)
SSSP_GRAPHS["broom-w"] = lambda: samples.with_rule_weights(samples.broom(20, 150), seed=5)


@functools.cache
def graph(problem: str, name: str):
    return (SSSP_GRAPHS if problem == "sssp" else BFS_GRAPHS)[name]()


HARD = {"bfs": ["star300", "loops_dups", "directed", "rmat", "single"],
        "sssp": ["zero_cycles", "hub", "loops_dups", "big_int64", "rmat-w", "single"]}


def sources(g) -> list[int]:
    return samples.pick_sources(g, k=1)[:3]


# ---- variants -------------------------------------------------------------------------

DEFAULTS = [(name, {}) for name in ("raval.bs", "raval.ep", "raval.wd", "raval.ns", "raval.hp")]
# (raval.ep's default chunk_edges 0: a node's whole list per atomic; raval.hp's default
# wd_threshold 1024 exceeds every list here: WD throughout)
KNOB_VARIANTS = [
    ("raval.bs", {"block_size": 64}),
    ("raval.ep", {"chunk_edges": 1}),  # one atomic per edge (Fig. 11's plain EP)
    ("raval.ep", {"chunk_edges": 3, "block_size": 96}),
    ("raval.wd", {"threads": 5}),  # long shares that cross many nodes
    ("raval.wd", {"threads": 1}),
    ("raval.ns", {"mdt": 1}),  # every node of degree > 1 split: all edges in their own node
    ("raval.ns", {"histogram_bins": 1}),  # MDT = max degree: nothing split
    ("raval.ns", {"histogram_bins": 1000}),  # MDT near the most common degree
    ("raval.ns", {"propagation": "pass"}),
    ("raval.ns", {"propagation": "pass", "mdt": 2}),
    ("raval.hp", {"wd_threshold": 0}),  # never WD: sub-iterations only
    ("raval.hp", {"wd_threshold": 0, "mdt": 1}),  # one edge per node per sub-iteration
    ("raval.hp", {"wd_threshold": 6, "mdt": 2, "threads": 7}),  # both, switching mid-round
]


def _id(v) -> str:
    name, knobs = v
    return name + "".join(f"-{k}={x}" for k, x in knobs.items())


def run(monkeypatch, emulation, problem: str, name: str, knobs: dict, graph_names, *,
        predecessors=None, seed: int = 1, check=None) -> list[Answer]:
    """Every source of every graph, distances (and parents) checked; the answers.
    predecessors None: with parents from every source, and without from the first."""
    cls = all_strategies(problem)[name]
    knobs = {"block_size": BLOCK, **knobs}
    answers = []
    with ec.emulated(monkeypatch, emulation, seed=seed, patches=SMALL_UTIL):
        for gname in graph_names:
            g = graph(problem, gname)
            strategy = cls(make_knobs(cls, knobs))
            strategy.prepare(g)
            for i, s in enumerate(sources(g)):
                for pred in predecessors or ((False, True) if i == 0 else (True,)):
                    got = host(strategy.traverse(s, pred))
                    label = f"{problem} {_id((name, knobs))} on {gname}"
                    if problem == "sssp":
                        wg.check_sssp(g, s, got, pred, label)
                    else:
                        check_bfs(g, s, got, pred, label, edge_worklist=cls.edge_items)
                    if check is not None:
                        check(strategy, g, s, got)
                    answers.append(got)
            strategy.release()
    return answers


def host(a: Answer) -> Answer:
    """A copy: the returned arrays are the strategy's buffers, reused by the next run."""
    return Answer(np.array(a.distances), None if a.parents is None else np.array(a.parents),
                  dict(a.counters))


def check_bfs(g, s, got: Answer, pred: bool, label: str, edge_worklist: bool) -> None:
    """Exact levels; one round per level (EP, whose worklists hold the edges out of a
    level, has none for a last level without out-edges); a BFS tree."""
    ref = sequential_bfs(g, s)
    assert got.distances.dtype == np.int32, label
    np.testing.assert_array_equal(got.distances, ref.distances, err_msg=f"{label} source {s}")
    levels, rounds = ref.counters["levels"], got.counters["iterations"]
    last = ref.distances == levels - 1
    sinks = not np.any(np.repeat(last, g.out_degrees()))
    expected = levels - 1 if edge_worklist and sinks else levels
    assert rounds == expected, f"{label} source {s}: {rounds} rounds for {levels} levels"
    if pred:
        check_parents(g, s, got.distances, got.parents)
    else:
        assert got.parents is None


# ---- tests ----------------------------------------------------------------------------


@pytest.mark.parametrize("problem", ["bfs", "sssp"])
@pytest.mark.parametrize("variant", DEFAULTS, ids=[_id(v) for v in DEFAULTS])
def test_every_strategy_on_every_graph(monkeypatch, emulation, problem, variant):
    name, knobs = variant
    run(monkeypatch, emulation, problem, name, knobs, list(SSSP_GRAPHS if problem == "sssp" else BFS_GRAPHS))


@pytest.mark.parametrize("problem", ["bfs", "sssp"])
@pytest.mark.parametrize("variant", KNOB_VARIANTS, ids=[_id(v) for v in KNOB_VARIANTS])
def test_every_knob(monkeypatch, emulation, problem, variant):
    name, knobs = variant
    run(monkeypatch, emulation, problem, name, knobs, HARD[problem])


@pytest.mark.parametrize("problem", ["bfs", "sssp"])
@pytest.mark.parametrize("name", ["raval.bs", "raval.ep", "raval.wd", "raval.ns", "raval.hp"])
def test_phase_timing_counters(monkeypatch, emulation, problem, name):
    """phase_timing adds kernel_ms and overhead_ms (host floats, >= 0); without it they
    are absent. Every run counts its rounds and launches."""
    gname = "hub" if problem == "sssp" else "star300"
    knobs = {"phase_timing": True, **({"wd_threshold": 4} if name == "raval.hp" else {})}
    for a in run(monkeypatch, emulation, problem, name, knobs, [gname]):
        c = a.counters
        assert isinstance(c["kernel_ms"], float) and isinstance(c["overhead_ms"], float)
        assert c["kernel_ms"] >= 0 and c["overhead_ms"] >= 0
        assert c["iterations"] >= 1 and c["kernel_launches"] > c["iterations"]
    for a in run(monkeypatch, emulation, problem, name, {}, [gname], predecessors=(False,)):
        assert "kernel_ms" not in a.counters and "overhead_ms" not in a.counters


def test_every_build_is_used(monkeypatch, emulation):
    """BFS, SSSP on int32 weights and SSSP on int64 weights load their own builds."""
    emulation.defines.clear()
    run(monkeypatch, emulation, "bfs", "raval.bs", {}, ["single"], predecessors=(False,))
    run(monkeypatch, emulation, "sssp", "raval.bs", {}, ["ties", "big_int64"], predecessors=(False,))
    assert [dict(d) for d in emulation.defines] == raval_base.KERNEL_DEFINES


def test_counters_of_each_strategy(monkeypatch, emulation):
    """The hub (degree 300) from a leaf: EP reports its COO bytes, NS its MDT and
    children, HP its sub-iterations and WD passes, all from the host's own arithmetic."""
    g = graph("sssp", "hub")
    deg = g.out_degrees()

    def ep(strategy, g, s, got):
        assert got.counters["coo_bytes"] == 4 * g.m

    def ns(strategy, g, s, got):
        c = got.counters
        assert c["mdt"] == 3
        assert c["child_nodes"] == int(np.maximum(-(-deg // 3) - 1, 0).sum())
        assert c["split_nodes"] == int(np.count_nonzero(deg > 3))

    def hp(strategy, g, s, got):
        c = got.counters
        assert c["mdt"] == 100 and c["wd_passes"] == 0 and c["sub_iterations"] >= c["iterations"]

    run(monkeypatch, emulation, "sssp", "raval.ep", {}, ["hub"], check=ep, predecessors=(False,))
    run(monkeypatch, emulation, "sssp", "raval.ns", {"mdt": 3}, ["hub"], check=ns, predecessors=(False,))
    run(monkeypatch, emulation, "sssp", "raval.hp", {"mdt": 100, "wd_threshold": 0}, ["hub"], check=hp,
        predecessors=(False,))


@pytest.mark.parametrize("seed", [2, 3])
def test_more_thread_interleavings(monkeypatch, emulation, seed):
    """Other seeds of the emulator's thread switches on the graphs with the most
    concurrent updates of one vertex (hub, zero-weight cycles)."""
    for name, knobs in [("raval.ep", {"chunk_edges": 2}), ("raval.wd", {"threads": 9}),
                        ("raval.ns", {"mdt": 2}), ("raval.hp", {"wd_threshold": 0, "mdt": 3})]:
        run(monkeypatch, emulation, "sssp", name, knobs, ["hub", "zero_cycles", "loops_dups"], seed=seed)


@pytest.mark.parametrize("problem", ["bfs", "sssp"])
@pytest.mark.parametrize("name", ["raval.bs", "raval.ep", "raval.wd", "raval.ns", "raval.hp"])
def test_traverse_has_no_fixed_cost_leaks(monkeypatch, emulation, problem, name):
    """No device allocation and no pageable read inside traverse();
    HP with a small wd_threshold runs sub-iterations on the grid, NS with mdt=1 splits."""
    knobs = {"block_size": BLOCK, **({"wd_threshold": 2, "mdt": 1} if name == "raval.hp" else {}),
             **({"mdt": 1} if name == "raval.ns" else {})}
    fc.check_fixed_cost(monkeypatch, emulation, problem, name, knobs, patches=SMALL_UTIL)
