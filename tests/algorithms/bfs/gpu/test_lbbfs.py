"""lbbfs strategies on the GPU: every strategy with every tile and CTA size, the
hybrid's threshold at both ends, the 64-bit build, predecessors, profile, and the
frontier counters, against the sequential BFS on test_strategies' nasty graphs (a path
of 3000, long grids, a star of 100,000 leaves, a broom, disconnected graphs, isolated
sources, self-loops and duplicates, directed graphs, R-MAT, Kronecker). The CPU tests
at the end (knobs, builds, run configs) need no GPU."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.gpu.lbbfs import strategies as lb
from gpubfs_cli.core.strategy import get_strategy, make_knobs
from gpubfs_cli.errors import UserError
from gpubfs_cli.graph import samples
from tests.algorithms.bfs.gpu.test_strategies import (
    GRAPHS,
    check_parents,
    graph,
    reference,
    sources,
)

NAMES = ["lbbfs.perfect", "lbbfs.balanced_gather", "lbbfs.balanced_redistribution", "lbbfs.hybrid"]
PARENT_GRAPHS = [
    "grid60x60",
    "star100k",
    "broom",
    "loops_dups",
    "directed",
    "kronecker",
    "disconnected",
]


def sinks_between(groups: int = 40, zeros: int = 3000):
    """Directed: 0 -> 1..groups*zeros; every zeros-th of those has 5 out-edges to new
    vertices, the rest are sinks: vertical tiles of level 1 span thousands of
    zero-degree vertices (staged in chunks)."""
    k = groups * zeros
    busy = np.arange(zeros, k + 1, zeros)
    nxt = k + 1 + np.arange(5 * len(busy))
    src = np.concatenate([np.zeros(k, np.int64), np.repeat(busy, 5)])
    dst = np.concatenate([np.arange(1, k + 1), nxt])
    return samples.from_edges(src, dst, k + 1 + len(nxt), directed=True)


def refs(graph_name: str):
    """The sequential references of one of test_strategies' graphs, by source."""
    return functools.partial(reference, graph_name)


def make(name: str, **knobs):
    cls = get_strategy(name)
    return cls(make_knobs(cls, knobs))


def check_answer(g, s, got, ref, predecessors: bool) -> None:
    np.testing.assert_array_equal(got.distances, ref.distances, err_msg=f"source {s}")
    assert got.distances.dtype == np.int32
    c = got.counters
    levels = ref.counters["levels"]
    assert c["levels"] == levels, f"source {s}"
    d = ref.distances
    reached = d >= 0
    deg = g.out_degrees().astype(np.int64)
    np.testing.assert_array_equal(c["frontier_vertices"], np.bincount(d[reached], minlength=levels))
    fe = np.bincount(d[reached], weights=deg[reached], minlength=levels).astype(np.int64)
    np.testing.assert_array_equal(c["frontier_edges"], fe)
    assert c["vertices_enqueued"] == ref.counters["reached"]
    assert c["edges_expanded"] == int(deg[reached].sum())
    if predecessors:
        check_parents(g, s, got.distances, got.parents)
    else:
        assert got.parents is None


def run_all(strategy, g, srcs, ref_of, predecessors=False):
    strategy.prepare(g)
    try:
        out = []
        for s in srcs:
            got = strategy.traverse(s, predecessors).to_host()
            check_answer(g, s, got, ref_of(s), predecessors)
            out.append(got)
        return out
    finally:
        strategy.release()


# ---- GPU ---------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("graph_name", list(GRAPHS))
@pytest.mark.parametrize("name", NAMES)
def test_defaults_every_graph_with_counters(name, graph_name):
    run_all(make(name), graph(graph_name), sources(graph_name), refs(graph_name))


@pytest.mark.gpu
@pytest.mark.parametrize("graph_name", PARENT_GRAPHS)
@pytest.mark.parametrize("name", NAMES)
def test_predecessors(name, graph_name):
    run_all(make(name), graph(graph_name), sources(graph_name)[:4],
            refs(graph_name), predecessors=True)  # fmt: skip


@pytest.mark.gpu
@pytest.mark.parametrize("cta_size", lb.CTA_SIZES)
@pytest.mark.parametrize("tile_size", lb.TILE_SIZES)
def test_every_build(cta_size, tile_size):
    for name in NAMES:
        for graph_name in ("star100k", "broom", "kronecker", "grid3x2000", "disconnected"):
            for pred in (False, True):
                run_all(make(name, cta_size=cta_size, tile_size=tile_size), graph(graph_name),
                        sources(graph_name)[:3], refs(graph_name), pred)  # fmt: skip


@pytest.mark.gpu
@pytest.mark.parametrize("name", NAMES)
def test_wide_offsets_build(name, monkeypatch):
    """The 64-bit build (used when n + m >= 2^31), forced on small graphs."""
    monkeypatch.setattr(lb, "wide_offsets", lambda n, m, tile: True)
    for graph_name in ("star100k", "kronecker", "directed", "path3000"):
        s = make(name)
        run_all(s, graph(graph_name), sources(graph_name)[:3], refs(graph_name), True)
        assert s._wide


@pytest.mark.gpu
@pytest.mark.parametrize("name", NAMES)
def test_one_huge_vertex(name):
    """The star of 100,000 leaves: from the hub, one vertex of degree 100,000 is the
    whole level-0 frontier (expand factor 100,000); from a leaf it is level 1's."""
    g = graph("star100k")
    for s in (0, 1, 99_999):
        (got,) = run_all(make(name), g, [s], refs("star100k"), predecessors=True)
        assert got.counters["frontier_vertices"][0] == 1
        if s == 0:
            np.testing.assert_array_equal(got.counters["frontier_edges"], [100_000, 100_000])


@pytest.mark.gpu
@pytest.mark.parametrize("name", NAMES)
def test_degree_zero_frontiers(name):
    """A frontier of 5000 sinks (output_total 0 ends the BFS), a degree-0 source, and
    level-1 tiles spanning thousands of sinks between the vertices that have edges."""
    from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs

    for g, srcs in ((samples.star(5000, directed=True), [0, 7]), (sinks_between(), [0, 3000])):
        run_all(make(name), g, srcs, lambda s, g=g: sequential_bfs(g, s), predecessors=True)
    g = samples.star(5000, directed=True)
    (got,) = run_all(make(name), g, [0], lambda s: sequential_bfs(g, s))
    assert got.counters["levels"] == 2
    np.testing.assert_array_equal(got.counters["frontier_edges"], [5000, 0])


@pytest.mark.gpu
@pytest.mark.parametrize("f0", [0.0, 10.0, 1e30, math.inf])
def test_hybrid_threshold(f0):
    """f0 = 0: every level balanced redistribution; 1e30 or inf: every level balanced
    gathering; 10: each level's side follows output_total >= f0 * input_total."""
    for graph_name in ("kronecker", "grid60x60", "star100k", "broom", "disconnected", "single"):
        got = run_all(make("lbbfs.hybrid", f0=f0), graph(graph_name), sources(graph_name),
                      refs(graph_name))  # fmt: skip
        for a in got:
            c = a.counters
            assert c["levels_balanced_gather"] + c["levels_balanced_redistribution"] == c["levels"]
            want = int(np.sum(c["frontier_edges"] >= f0 * c["frontier_vertices"]))
            assert c["levels_balanced_redistribution"] == want
            if f0 == 0:
                assert c["levels_balanced_redistribution"] == c["levels"]
            if f0 >= 1e30:
                assert c["levels_balanced_gather"] == c["levels"]


@pytest.mark.gpu
@pytest.mark.parametrize("name", NAMES)
def test_profile(name):
    """Both phases take time on the star (a level of 100,000 outputs); the CTAs' average
    busy time fits in the kernel's wall time; with profile off no counter appears."""
    for graph_name in ("star100k", "kronecker"):
        srcs = sources(graph_name)[:3]
        got = run_all(make(name, profile=True), graph(graph_name), srcs, refs(graph_name))
        for a in got:
            c = a.counters
            assert 0 <= c["redistribution_ns"] and 0 <= c["gathering_ns"]
            assert c["redistribution_ns"] + c["gathering_ns"] <= c["kernel_ns"]
            if graph_name == "star100k" and c["edges_expanded"] >= 100_000:
                assert c["redistribution_ns"] > 0 and c["gathering_ns"] > 0
    for a in run_all(make(name), graph("kronecker"), sources("kronecker")[:1], refs("kronecker")):
        assert "redistribution_ns" not in a.counters and "kernel_ns" not in a.counters


@pytest.mark.gpu
@pytest.mark.parametrize("blocks_per_sm", [1, 2])
def test_small_grids(blocks_per_sm):
    for name in NAMES:
        for graph_name in ("kronecker", "star100k"):
            run_all(make(name, blocks_per_sm=blocks_per_sm), graph(graph_name), sources(graph_name)[:2],
                    refs(graph_name), True)  # fmt: skip


# ---- CPU ---------------------------------------------------------------------------


def test_names_and_knobs():
    for name in NAMES:
        cls = get_strategy(name)
        assert cls.paper == "lbbfs" and cls.device_kind == "gpu" and cls.supports_predecessors
        k = cls.Knobs()
        assert (k.tile_size, k.cta_size, k.blocks_per_sm, k.profile) == (1024, 256, 0, False)
    assert get_strategy("lbbfs.hybrid").Knobs().f0 == 10.0
    for bad in ({"tile_size": 1000}, {"cta_size": 96}, {"blocks_per_sm": -1}, {"profile": "yes"}):
        with pytest.raises(UserError):
            make_knobs(get_strategy("lbbfs.perfect"), bad)
    for bad in (-1.0, float("nan"), "ten"):
        with pytest.raises(UserError):
            make_knobs(get_strategy("lbbfs.hybrid"), {"f0": bad})
    make_knobs(get_strategy("lbbfs.hybrid"), {"f0": math.inf})
    with pytest.raises(UserError):
        make_knobs(get_strategy("lbbfs.perfect"), {"f0": 1.0})


def test_every_knob_combination_is_a_listed_build():
    builds = {tuple(sorted(d.items())) for d in lb.KERNEL_DEFINES}
    for c in lb.CTA_SIZES:
        for t in lb.TILE_SIZES:
            assert tuple(sorted(lb.kernel_defines(c, t).items())) in builds


def test_offsets_and_packing():
    assert not lb.wide_offsets(2_000_000, 128_000_000, 1024)
    assert lb.wide_offsets(2**30, 2**30, 1024)
    assert lb.packing_shift(2_000_000, 128_000_000) == 27
    assert lb.packing_shift(1, 0) == 1
    with pytest.raises(ValueError):
        lb.packing_shift(2**31 - 2, 2**40)


@pytest.mark.parametrize("config", ["lbbfs", "lbbfs-profile"])
def test_run_configs_load(config):
    from gpubfs_cli.bench.config import load_config
    from gpubfs_cli.configs import experiments_dir

    cfg = load_config(experiments_dir() / f"{config}.yaml")  # real catalogue and registry
    names = {v.strategy for v in cfg.variants}
    assert set(NAMES) <= names
    if config == "lbbfs":
        assert {"merrill.hybrid", "cpu.sequential"} <= names and cfg.sources == 100
        assert {"random.2Mv.128Me", "rmat.2Mv.128Me", "lbbfs-random-d2", "lbbfs-rmat-d32"} <= {
            d.name for d in cfg.datasets
        }
    else:
        assert all(
            v.overrides.get("profile") for v in cfg.variants if v.strategy.startswith("lbbfs.")
        )
