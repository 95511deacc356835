"""regions.bfs runs end to end on the CPU: the real launcher with numpy in place of CuPy,
regions.cu (compiled unchanged) under the CUDA emulator (tests/gpu/emu/regions_driver.cpp,
tests/gpu/emulated_cupy.py). No GPU needed, only g++.

Scaled down: CTAs of 128 threads, 2 SMs with 2 resident CTAs each, regions of 32 and 64
vertices on graphs of a few hundred, so a traversal crosses many regions, CTAs race for
the ring's tickets and run one region at once; fibers switch at atomics and __ldcg at
random (seeded). Each traversal is checked against cpu.sequential (distances, a BFS tree
of parents, the level count).
"""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.gpu.regions import strategies as rg
from gpubfs_cli.core.strategy import make_knobs
from tests.algorithms.bfs.gpu import emulated_bfs as eb
from tests.gpu import emulated_cupy as ec

# local frontiers of 4 entries and an outbox of 2: most steps overflow both (the
# vertices deferred to their region's next run, the edges sent at once)
TINY_QUEUE = {"RG_QUEUE": 4, "RG_OUTBOX": 2}
FEW_EDGES = {"RG_EDGE_CAP": 40}  # regions of more than 40 edges run from the global CSR
ONE_LANE, EIGHT_LANES = {"RG_LANES": 1}, {"RG_LANES": 8}  # a frontier vertex's edges by 1 or 8 threads (default 4)
RG = ec.Family(rg.KERNELS, "regions_driver.cpp", (rg,),
               defines=[{**rg.kernel_defines(128), **extra} for extra in ({}, TINY_QUEUE, FEW_EDGES, ONE_LANE,
                                                                          EIGHT_LANES)])
BASE = {"cta_size": 128}
PATCHES = {"blocks_per_sm": lambda kernel, block, shared_mem=0: 2}


@pytest.fixture(scope="module")
def emulation() -> ec.Emulation:
    return ec.Emulation(RG, ec.build_libraries(RG))


def check_counters(strategy, g, s, got):
    """Every region queued was run once (a run may find its marks taken by an earlier
    one: no step); the source's run took a step; and between searches the ring, the
    flags and the marks are all clear (the next search starts from them)."""
    c = {k: int(v) for k, v in got.counters.items()}
    assert c["pushes"] == c["runs"] >= 1 and c["steps"] >= 1 and 0 <= c["copied"] <= c["runs"], c
    assert c["regions"] == strategy._parts.count
    assert strategy.knobs.absorb or c["absorbed"] == 0, c
    assert (np.asarray(strategy._ring) == rg.RG_EMPTY).all()
    assert not np.asarray(strategy._active).any()
    assert not np.asarray(strategy._dirty).any()


def run(monkeypatch, emulation, knobs: dict, graphs, **kw):
    emulation.defines.clear()
    return eb.run(monkeypatch, emulation, "regions.bfs", {**BASE, **knobs}, graphs, patches=PATCHES, sms=2,
                  resident=2, check=check_counters, **kw)


VARIANTS = [{"region_size": 32}, {"region_size": 64, "seed": 3}, {"region_size": rg.REGION_CAP},
            {"region_size": 32, "blocks_per_sm": 1}, {"region_size": 32, "flush_steps": 1},
            {"region_size": 64, "flush_steps": 1000}, {"region_size": 32, "absorb": 1},
            {"region_size": 64, "flush_steps": 1, "absorb": 1}]


@pytest.mark.parametrize("knobs", VARIANTS, ids=lambda k: "-".join(f"{a}={b}" for a, b in k.items()))
def test_every_graph(monkeypatch, emulation, knobs):
    answers = run(monkeypatch, emulation, knobs, list(eb.GRAPHS))
    if knobs["region_size"] == 32:  # the long graphs cross regions many times
        assert max(a.counters["runs"] for a in answers) > 8


@pytest.mark.parametrize("absorb", [0, 1])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_races_under_other_seeds(monkeypatch, emulation, seed, absorb):
    answers = run(monkeypatch, emulation, {"region_size": 32, "absorb": absorb}, eb.HARD + ["grid9x13", "path60"],
                  seed=seed)
    if absorb:  # marks do come while a run runs, and it takes them
        assert sum(int(a.counters["absorbed"]) for a in answers) > 0


def build(monkeypatch, extra: dict) -> None:
    """The launcher asks for the build with `extra` defines."""
    monkeypatch.setattr(rg, "kernel_defines", lambda cta: {**RG.defines[0], **extra} if cta == 128 else None)


@pytest.mark.parametrize("absorb", [0, 1])
def test_a_full_local_queue_hands_its_vertices_back(monkeypatch, emulation, absorb):
    """With 4 entries a local frontier, a run hands most of its vertices back to the
    next run of their region (marked, the region queued again; absorbing, to its own
    next step): still exact."""
    build(monkeypatch, TINY_QUEUE)
    answers = run(monkeypatch, emulation, {"region_size": 64, "absorb": absorb},
                  ["grid9x13", "star300", "path60", "rmat"])
    assert all(dict(k).get("RG_QUEUE") == 4 for k in emulation.defines)
    assert sum(int(a.counters["deferred"]) for a in answers) > 0
    assert (sum(int(a.counters["absorbed"]) for a in answers) > 0) == bool(absorb)


def test_regions_of_many_edges_run_from_the_global_csr(monkeypatch, emulation):
    """The default build copies every region of these graphs into shared memory; with
    room for 40 edges most runs read the global CSR instead, some the copy: both exact."""
    graphs = ["grid9x13", "star300", "path60", "rmat", "directed"]
    copied = [int(a.counters["copied"]) == int(a.counters["runs"])
              for a in run(monkeypatch, emulation, {"region_size": 32}, graphs)]
    assert all(copied)
    build(monkeypatch, FEW_EDGES)
    answers = run(monkeypatch, emulation, {"region_size": 32}, graphs)
    assert all(dict(k).get("RG_EDGE_CAP") == 40 for k in emulation.defines)
    assert 0 < sum(int(a.counters["copied"]) for a in answers) < sum(int(a.counters["runs"]) for a in answers)


@pytest.mark.parametrize("lanes", [ONE_LANE, EIGHT_LANES], ids=["1", "8"])
def test_a_frontier_vertex_by_other_lane_counts(monkeypatch, emulation, lanes):
    """A frontier vertex's edges by one thread, or by eight (most idle on these graphs)."""
    build(monkeypatch, lanes)
    run(monkeypatch, emulation, {"region_size": 32}, eb.HARD + ["grid9x13", "path60"])
    assert all(dict(k).get("RG_LANES") == lanes["RG_LANES"] for k in emulation.defines)


def test_the_real_new_york_road_graph_absorbing_and_not(monkeypatch, emulation, shared_data):
    """The DIMACS9 New York road graph in regions of 2,048 on 16 emulated SMs, from one
    source, with parents: exact either way, and a run that takes the marks coming while
    it runs spares the region's later runs."""
    from gpubfs_cli.graph.build import build_csr
    from gpubfs_cli.graph.io import read_graph

    edges = read_graph(shared_data / "USA-road-d.NY.gr.gz", "dimacs9")
    g = build_csr(edges, symmetrize=False, duplicates="drop", name="USA-road-d.NY")
    ref = eb.sequential_bfs(g, 1000)
    runs = {}
    with ec.emulated(monkeypatch, emulation, sms=16, seed=1, patches=PATCHES):
        for absorb in (0, 1):
            strategy = rg.RegionsBfs(make_knobs(rg.RegionsBfs, {**BASE, "absorb": absorb}))
            strategy.prepare(g)
            got = eb.host(strategy.traverse(1000, True))
            np.testing.assert_array_equal(got.distances, ref.distances, err_msg=f"absorb={absorb}")
            eb.ts.check_parents(g, 1000, got.distances, got.parents)
            check_counters(strategy, g, 1000, got)
            assert (got.counters["absorbed"] > 0) == bool(absorb)
            runs[absorb] = int(got.counters["runs"])
            strategy.release()
    assert runs[1] < runs[0], runs
