"""Merrill et al. strategies on the GPU: every strategy x gather x culling combination
(distances and predecessors) against the sequential baseline on nasty graphs, the
counters, and the redundant expansion factor with warp + history culling."""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs
from gpubfs_cli.algorithms.bfs.gpu.merrill import strategies as merrill
from gpubfs_cli.core.strategy import get_strategy, make_knobs
from gpubfs_cli.graph import samples
from tests.algorithms.bfs.gpu import merrill_graphs as mg

NAMES = ["merrill.expand_contract", "merrill.contract_expand", "merrill.two_phase",
         "merrill.hybrid"]  # fmt: skip
GRAPHS = mg.nasty()


def run(name: str, g, sources, knobs: dict | None = None, predecessors: bool = False):
    cls = get_strategy(name)
    s = cls(make_knobs(cls, knobs or {}))
    s.prepare(g)
    try:
        for src in sources:
            r = s.traverse(src, predecessors).to_host()
            ref = sequential_bfs(g, src)
            np.testing.assert_array_equal(
                r.distances, ref.distances, err_msg=f"{name} {knobs} {g.name} source {src}"
            )
            if predecessors:
                mg.check_parents(g, r.distances, r.parents, src)
            yield src, r, ref
    finally:
        s.release()


@pytest.mark.gpu
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("gather", list(merrill.GATHER))
@pytest.mark.parametrize("culling", list(merrill.CULLING))
def test_every_combination(name, gather, culling):
    # A low grid threshold sends the stars' hubs (700, 300) through grid gathering.
    # Claims off for distances, on (every list of 4 or more) for predecessors.
    for g in GRAPHS:
        for pred, claim in ((False, 0), (True, 4)):
            knobs = {"gather": gather, "culling": culling, "grid_threshold": 280,
                     "claim_threshold": claim}  # fmt: skip
            for _ in run(name, g, mg.some_sources(g, 2), knobs, pred):
                pass


@pytest.mark.gpu
@pytest.mark.parametrize("name", NAMES)
def test_defaults_every_source(name):
    for g in GRAPHS:
        for _ in run(name, g, range(g.n)):
            pass


@pytest.mark.gpu
@pytest.mark.parametrize("cta_size", [128, 512, 1024])
def test_cta_sizes(cta_size):
    for g in GRAPHS:
        for name in NAMES:
            knobs = {"cta_size": cta_size, "grid_threshold": 600, "claim_threshold": 8}
            for _ in run(name, g, mg.some_sources(g, 2), knobs, predecessors=True):
                pass


@pytest.mark.gpu
@pytest.mark.parametrize("name", NAMES)
def test_counters(name):
    g = samples.grid(17, 23)
    for _, r, ref in run(name, g, [0, 100], {"counters": True}, predecessors=True):
        c = r.counters
        d = ref.distances
        levels = int(d.max()) + 1
        assert c["levels"] == levels == ref.counters["levels"]
        np.testing.assert_array_equal(c["frontier_vertices"], np.bincount(d[d >= 0]))
        deg = g.out_degrees()
        np.testing.assert_array_equal(
            c["frontier_edges"], np.bincount(d[d >= 0], weights=deg[d >= 0]).astype(np.int64)
        )
        assert np.all(c["duplicates"] >= 0)
        assert c["false_negatives"] == int(c["duplicates"].sum())
        assert c["kernel_launches"] == 1 and c["exact_rerun"] == 0
        assert np.all(c["vertices_enqueued"] >= c["frontier_vertices"])
        assert c["edges_expanded"].sum() >= c["frontier_edges"].sum()
        assert c["redundant_expansion"] >= 1.0


@pytest.mark.gpu
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("small", [1, 64, merrill.SMALL_CAP])
def test_small_frontier(name, small):
    """Small-frontier mode on: CTA 0 runs the levels whose frontier fits, the grid the
    others (hand-offs both ways on the lattice, the stars and R-MAT); exact distances,
    valid parents, and counters that still bound the logical frontier."""
    for g in GRAPHS:
        for pred in (False, True):
            knobs = {"small_frontier": small, "counters": True, "claim_threshold": 4 if pred else 0}
            for _, r, ref in run(name, g, mg.some_sources(g, 2), knobs, pred):
                d = ref.distances
                assert np.all(r.counters["vertices_enqueued"] >= np.bincount(d[d >= 0]))


@pytest.mark.gpu
@pytest.mark.parametrize("name", NAMES)
def test_counters_off_reports_logical_frontiers_only(name):
    g = samples.grid(17, 23)
    for _, r, _ in run(name, g, [0], {"small_frontier": 32}):
        assert "vertices_enqueued" not in r.counters and "redundant_expansion" not in r.counters
        assert r.counters["levels"] == len(r.counters["frontier_vertices"])


@pytest.mark.gpu
def test_counters_atomic_culling_are_exact():
    """Exact culling: actual counts equal the logical ones, level by level."""
    g = samples.rmat(12, 16, 7)
    for _, r, _ in run("merrill.hybrid", g, [0, 5], {"culling": "atomic", "counters": True}):
        c = r.counters
        np.testing.assert_array_equal(c["vertices_enqueued"], c["frontier_vertices"])
        np.testing.assert_array_equal(c["edges_expanded"], c["frontier_edges"])
        assert c["redundant_expansion"] == 1.0


@pytest.mark.gpu
@pytest.mark.parametrize("name", NAMES)
def test_redundant_expansion_below_1_05(name):
    """Section 4.2: warp + history culling (with the default claims of long lists)
    keeps the redundant expansion factor under 1.05 on a uniform random graph of 2^20
    vertices and 2^24 arcs. (On graphs so small that a whole level is in flight at once,
    e.g. 2^16 vertices, contract-expand measured 1.16 on an H200.)"""
    g = samples.gnm(1 << 20, 1 << 23, 11)
    factors = [r.counters["redundant_expansion"] for _, r, _ in run(name, g, [0, 1, 2], {"counters": True})]
    assert max(factors) < 1.05, factors


@pytest.mark.gpu
def test_tight_queues_rerun_exactly(monkeypatch):
    """Queues that hold the widest level but no duplicates: whatever overflows is rerun
    with atomic culling and the answer stays exact."""
    g = samples.rmat(12, 16, 7)
    sources = [0, int(np.argmax(g.out_degrees()))]
    widest = max(int(np.bincount(d[d >= 0]).max()) for d in
                 (sequential_bfs(g, s).distances for s in sources))  # fmt: skip
    edges = int(g.m)
    monkeypatch.setattr(
        merrill, "buffer_caps",
        lambda n, m, t: merrill.Caps(vq=widest, eq=edges, big=1024, counters=n + 2),
    )  # fmt: skip
    for name in NAMES:
        for _ in run(name, g, sources, {"culling": "bitmask", "gather": "warp"}, True):
            pass


def test_imports_and_registers_without_cupy():
    """CPU side: the module imports, registers and validates knobs with CuPy blocked."""
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['cupy'] = None\n"
        "from gpubfs_cli.core.strategy import all_strategies, make_knobs\n"
        "from gpubfs_cli.errors import UserError\n"
        "s = all_strategies()\n"
        "names = sorted(k for k in s if k.startswith('merrill.'))\n"
        "print(names)\n"
        "print(s['merrill.hybrid'].unavailable_reason())\n"
        "k = make_knobs(s['merrill.two_phase'], {'gather': 'warp', 'culling': 'label'})\n"
        "print(k.gather, k.culling, k.grid_threshold)\n"
        "try:\n"
        "    make_knobs(s['merrill.hybrid'], {'gather': 'lanes'})\n"
        "except UserError as e:\n"
        "    print('UserError', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    lines = out.stdout.splitlines()
    assert lines[0] == str(sorted(NAMES + ["merrill.multi_gpu", "merrill.multi_gpu_do"]))
    assert "CuPy" in lines[1]
    assert lines[2] == "warp label 4096"
    assert lines[3].startswith("UserError") and "gather must be one of serial" in lines[3]


def _huge_graph(n: int, m: int):
    """A graph's size without its arrays: prepare must decide before allocating."""
    from types import SimpleNamespace

    return SimpleNamespace(n=n, m=m, name="huge", col_indices=np.empty(0, np.int32))


@pytest.mark.parametrize("m", [1_910_000_000, 1_950_000_000, merrill.EDGE_LIMIT - 1])
def test_caps_fit_32_bit_positions(m):
    """m between 1.91e9 and 2^31 - 2^27: the edge queue's slack used to pass INT32_MAX
    and the launch's i32() raised OverflowError; now every capacity is a valid int32
    and still holds the exact rerun's m edges."""
    caps = merrill.graph_caps(_huge_graph(50_000_000, m), "merrill.hybrid", 4096)
    for cap in (caps.vq, caps.eq, caps.big, caps.counters):
        assert int(merrill.i32(cap)) == cap
    assert caps.eq >= m and caps.vq >= 50_000_000


@pytest.mark.parametrize(("n", "m", "knobs", "why"), [
    (1000, merrill.EDGE_LIMIT, {}, "edge offsets in 32 bits"),
    (2**31, 10, {}, "vertex ids below 2"),
    (100_000_000, 1_000_000_000, {"grid_threshold": 8}, "raise grid_threshold"),
])  # fmt: skip
def test_prepare_refuses_before_allocating(n, m, knobs, why):
    """A graph the kernel's 32-bit positions or packed huge-list counter cannot hold is
    an `unavailable` cell with the reason, raised before any device work."""
    from gpubfs_cli.core.strategy import StrategyUnavailable

    cls = get_strategy("merrill.expand_contract")
    s = cls(make_knobs(cls, knobs))
    with pytest.raises(StrategyUnavailable, match=why):
        s.prepare(_huge_graph(n, m))


def test_traverse_allocates_nothing(monkeypatch):
    """No fixed cost per traversal: after prepare (and the first predecessor BFS, which
    allocates the parent queues), traverse() creates no device array; it launches the
    parameter struct built in prepare with the source and the culling beside it, and
    reads nothing back (an overflow reruns inside the kernel); to_host(), after the
    timer, reads the control words into the pinned buffer. CuPy is numpy here
    (tests/gpu/emulated_cupy.py; a struct's pointer holds a numpy array's address) and
    the kernel a stand-in that records its arguments and finishes in one iteration."""
    import types

    from gpubfs_cli.gpu import launch
    from tests.gpu import emulated_cupy as ec

    calls: list = []

    reads: list = []
    overflow = [0]
    current: list = []  # the strategy under test

    def kernel(grid, block, args):
        assert isinstance(args, tuple) and len(args) == 5
        calls.append(args)
        s = current[0]
        params = args[2].view(merrill.PARAMS)[0]
        assert (int(params["dist"]), int(params["ctl"])) == (s._dist.ctypes.data, s._ctl.ctypes.data)
        dist, ctl = s._dist, s._ctl
        dist[:] = -1  # a BFS that reached only its source (to_host's counters read it)
        dist[int(args[3])] = 0
        ctl[:] = 0
        ctl[merrill.CTL_ITERS] = 1
        ctl[merrill.CTL_RERUNS] = 1
        ctl[merrill.CTL_OVERFLOW] = overflow[0]

    module = types.SimpleNamespace(get_function=lambda name: kernel)
    stub = types.SimpleNamespace(family=types.SimpleNamespace(modules=(merrill,)),
                                 configure=lambda *a: None, launches=[],
                                 load_module=lambda *a, **k: module)  # fmt: skip
    monkeypatch.setattr(ec.DeviceArray, "get", lambda self, out=None: reads.append(out is not None) or (
                        np.copyto(out, self) or out if out is not None else np.array(self)), raising=False)  # fmt: skip
    allocated: list = []
    monkeypatch.setattr(launch, "device_address", lambda a: 0 if a is None else a.ctypes.data)
    with ec.emulated(monkeypatch, stub, patches={"blocks_per_sm": lambda k, b: 2}) as fake:
        import sys

        monkeypatch.setattr(sys.modules["cupyx"], "empty_pinned", np.empty, raising=False)
        for name in ("empty", "zeros", "full", "ones", "array", "asarray", "diff", "arange",
                     "empty_like", "zeros_like", "full_like", "concatenate", "copy"):  # fmt: skip
            f = getattr(fake, name)
            monkeypatch.setattr(fake, name, lambda *a, _f=f, _n=name, **k: allocated.append(_n) or _f(*a, **k),
                                raising=False)  # fmt: skip
        g = samples.grid(17, 23)
        for name in NAMES:
            cls = get_strategy(name)
            s = cls(make_knobs(cls, {"small_frontier": 64}))
            current[:] = [s]
            s.prepare(g)
            s.traverse(0, True)
            allocated.clear()
            for src, pred in ((5, False), (7, True), (9, False)):
                reads.clear()
                r = s.traverse(src, pred)
                assert int(calls[-1][3]) == src and type(calls[-1][3]) is np.int32
                assert r.distances is s._dist and r.counters == {"kernel_launches": 1}
                assert reads == [], f"{name}: traverse read back"
                assert allocated == [], f"{name}: traverse allocated {allocated}"
                c = r.to_host().counters
                assert (c["iterations"], c["exact_rerun"], c["levels"]) == (1, 1, 1) and reads[0] is True  # pinned
                allocated.clear()
            assert calls[-1][2] is calls[-3][2] and calls[-1][2] is not calls[-2][2]  # one struct a kind
            overflow[0] = 1
            with pytest.raises(RuntimeError, match="overflowed even with exact culling"):
                s.traverse(3).to_host()
            overflow[0] = 0
            s.release()


@pytest.mark.parametrize("bad", [-1, merrill.SMALL_CAP + 1])
def test_small_frontier_knob_range(bad):
    """The small-frontier queues live in shared memory: a threshold past their capacity
    (or negative) is a knob error, not a kernel that overruns them."""
    from gpubfs_cli.errors import UserError

    cls = get_strategy("merrill.hybrid")
    with pytest.raises(UserError, match=rf"small_frontier: expected a whole number from 0 to {merrill.SMALL_CAP} "):
        make_knobs(cls, {"small_frontier": bad})
    assert make_knobs(cls, {"small_frontier": merrill.SMALL_CAP}).small_frontier == merrill.SMALL_CAP
