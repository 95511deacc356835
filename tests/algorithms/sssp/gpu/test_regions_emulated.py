"""sssp.regions runs end to end on the CPU: the real launcher with numpy in place of CuPy,
regions_sssp.cu (compiled unchanged) under the CUDA emulator
(tests/gpu/emu/regions_sssp_driver.cpp, tests/gpu/emulated_cupy.py). No GPU needed, only
g++.

Scaled down: CTAs of 128 threads, 2 SMs with 2 resident CTAs each, regions of 32 and 64
vertices on graphs of a few hundred, so a search crosses many regions and CTAs race for
the ring's tickets; fibers switch at atomics and __ldcg at random (seeded). Every answer
is checked exactly against cpu.dijkstra (distances; with predecessors the shortest-path
tree of sssp/validate.py), on the weighted graphs that break SSSP implementations
(zero-weight cycles, ties, int64-sized distances, hubs), at delta 1 (a threshold step
per distance), the default rule and 2^62 (the whole region at once). Plus the host-only
pieces: knobs, the weighted transpose, registration.
"""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.algorithms.sssp.gpu.delta import strategies as ds
from gpubfs_cli.algorithms.sssp.gpu.regions import strategies as rs
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.strategy import StrategyUnavailable, all_strategies, make_knobs
from gpubfs_cli.gpu.region_queue import EMPTY
from gpubfs_cli.graph import samples
from tests.algorithms.sssp.gpu import test_delta_emulated as de
from tests.algorithms.sssp.gpu import weighted_graphs as wg
from tests.gpu import emulated_cupy as ec

CTA = 128
FEW_EDGES = {"RS_EDGE_CAP": 40}  # regions of more than 40 edges run from the global CSR
TINY_OUTBOX = {"RS_OUTBOX": 2}  # most edges out of a region sent at once
ONE_LANE = {"RS_LANES": 1}
RS = ec.Family(rs.KERNELS, "regions_sssp_driver.cpp", (rs,),
               defines=[{**rs.kernel_defines(CTA), **extra} for extra in ({}, FEW_EDGES, TINY_OUTBOX, ONE_LANE)])
PATCHES = {"blocks_per_sm": lambda kernel, block, shared_mem=0: 2}


@pytest.fixture(scope="module")
def emulation() -> ec.Emulation:
    return ec.Emulation(RS, ec.build_libraries(RS))


def host(a: Answer) -> Answer:
    """A copy: the returned arrays are the strategy's buffers, reused by the next run."""
    a = a.to_host()
    return Answer(np.array(a.distances), None if a.parents is None else np.array(a.parents), dict(a.counters))


def check_state(strategy, got: Answer, pred: bool) -> None:
    """Every region queued was run once; between searches the ring, the flags and the
    marks are all clear (the next search starts from them)."""
    c = got.counters
    assert c["pushes"] == c["runs"] >= 1 and c["steps"] >= 1 and 0 <= c["copied"] <= c["runs"], c
    assert c["regions"] == strategy._parts.count
    assert (np.asarray(strategy._ring) == EMPTY).all()
    assert not np.asarray(strategy._active).any()
    assert not np.asarray(strategy._dirty).any()
    assert ("parent_rounds" in c) == pred and (not pred or c["parent_rounds"] >= 1), c


def run(monkeypatch, emulation, knobs: dict, graph_names, *, seed: int = 1,
        predecessors=(False, True)) -> list[Answer]:
    emulation.defines.clear()
    cls = all_strategies("sssp")["sssp.regions"]
    answers = []
    with ec.emulated(monkeypatch, emulation, sms=2, seed=seed, patches=PATCHES):
        for gname in graph_names:
            g = de.graph(gname)
            k = {"cta_size": CTA, **knobs}
            if isinstance(k.get("delta"), str):
                k["delta"] = de.delta_of(k["delta"], g)
            strategy = cls(make_knobs(cls, k))
            strategy.prepare(g)
            for s in de.sources(g):
                for pred in predecessors:
                    got = host(strategy.traverse(s, pred))
                    wg.check_sssp(g, s, got, pred, f"sssp.regions {k} on {gname}")
                    check_state(strategy, got, pred)
                    assert got.counters["delta"] == (k.get("delta") or ds.default_delta(g))
                    assert k.get("absorb") or got.counters["absorbed"] == 0
                    answers.append(got)
            strategy.release()
    return answers


def build(monkeypatch, extra: dict) -> None:
    """The launcher asks for the build with `extra` defines."""
    monkeypatch.setattr(rs, "kernel_defines", lambda cta: {**RS.defines[0], **extra} if cta == CTA else None)


# ---- on the emulator ----------------------------------------------------------------------

# big_int64's weights are past 31 bits: unavailable (test_weights_past_31_bits...)
ALL = [g for g in [*de.GRAPHS, "wide_hub", "many_hubs", "one_hub", "grid-w7"] if g != "big_int64"]
HARD = [g for g in de.HARD if g != "big_int64"]


@pytest.mark.parametrize("which", ["1", "default", "huge"])
@pytest.mark.parametrize("size", [32, 64])
def test_every_graph_matches_dijkstra(monkeypatch, emulation, size, which):
    answers = run(monkeypatch, emulation, {"region_size": size, "delta": which}, ALL)
    if size == 32:  # the grids cross regions many times
        assert max(a.counters["runs"] for a in answers) > 8


@pytest.mark.parametrize("which", ["1", "default", "huge"])
def test_absorbing_runs_match_dijkstra(monkeypatch, emulation, which):
    """A run that takes the marks arriving while it runs: exact on every graph, and on the
    grids marks do come during runs."""
    answers = run(monkeypatch, emulation, {"region_size": 32, "delta": which, "absorb": 1}, ALL)
    assert max(a.counters["absorbed"] for a in answers) > 0


@pytest.mark.parametrize("absorb", [0, 1])
@pytest.mark.parametrize("seed", [2, 3])
def test_races_under_other_seeds(monkeypatch, emulation, seed, absorb):
    run(monkeypatch, emulation, {"region_size": 32, "absorb": absorb}, [*HARD, "grid9x13-w"], seed=seed)


@pytest.mark.parametrize("knobs", [{"flush_steps": 1}, {"flush_steps": 1000}, {"region_size": rs.REGION_CAP},
                                   {"seed": 5}, {"blocks_per_sm": 1}],
                         ids=lambda k: "-".join(f"{a}={b}" for a, b in k.items()))
def test_the_knobs(monkeypatch, emulation, knobs):
    run(monkeypatch, emulation, {"region_size": 32, **knobs}, [*HARD, "grid9x13-w", "rmat-w"])


def test_regions_of_many_edges_run_from_the_global_csr(monkeypatch, emulation):
    """With room for 40 edges most runs read the global CSR instead of the copy: exact."""
    build(monkeypatch, FEW_EDGES)
    answers = run(monkeypatch, emulation, {"region_size": 32}, ["grid9x13-w", "rmat-w", "hub", "zero_undirected"])
    assert all(dict(k).get("RS_EDGE_CAP") == 40 for k in emulation.defines)
    assert 0 < sum(a.counters["copied"] for a in answers) < sum(a.counters["runs"] for a in answers)


@pytest.mark.parametrize("extra", [TINY_OUTBOX, ONE_LANE], ids=["outbox2", "lanes1"])
def test_a_full_outbox_and_one_lane_a_vertex(monkeypatch, emulation, extra):
    build(monkeypatch, extra)
    run(monkeypatch, emulation, {"region_size": 32}, [*HARD, "grid9x13-w"])
    assert all(dict(k).get(next(iter(extra))) == next(iter(extra.values())) for k in emulation.defines)


def test_zero_weight_parents_take_rounds(monkeypatch, emulation):
    """zero_undirected's zero-weight components: their vertices get parents in rounds
    after the positive-weight one."""
    answers = run(monkeypatch, emulation, {"region_size": 32}, ["zero_undirected", "zero_cycles"], predecessors=(True,))
    assert max(a.counters["parent_rounds"] for a in answers) > 1


def test_the_real_new_york_road_graph(monkeypatch, emulation, shared_data):
    """The DIMACS9 New York road graph (264,346 vertices, its distance weights) in regions
    of 1,024 from one source: exact against cpu.dijkstra, parents a shortest-path tree,
    and the search crosses every region that source reaches (all of them, the graph is
    connected) through the queue, several times over. Absorbing, exact too, and the
    marks taken inside runs spare runs."""
    from gpubfs_cli.graph.build import build_csr
    from gpubfs_cli.graph.io import read_graph

    edges = read_graph(shared_data / "USA-road-d.NY.gr.gz", "dimacs9")
    g = build_csr(edges, symmetrize=False, duplicates="drop", keep_weights=True, name="USA-road-d.NY")
    cls = all_strategies("sssp")["sssp.regions"]
    runs = {}
    with ec.emulated(monkeypatch, emulation, sms=2, seed=1, patches=PATCHES):
        for absorb in (0, 1):
            strategy = cls(make_knobs(cls, {"cta_size": CTA, "absorb": absorb}))
            strategy.prepare(g)
            got = host(strategy.traverse(1000, True))
            wg.check_sssp(g, 1000, got, True, f"sssp.regions absorb={absorb} on USA-road-d.NY")
            check_state(strategy, got, True)
            assert got.counters["runs"] > 2 * got.counters["regions"] > 2 * 200
            assert (got.counters["absorbed"] > 0) == bool(absorb)
            runs[absorb] = got.counters["runs"]
            strategy.release()
    assert runs[1] < runs[0], runs


# ---- host only ---------------------------------------------------------------------------


@pytest.mark.parametrize(("knobs", "word"), [({"region_size": 48}, "multiple of 32"),
                                             ({"region_size": rs.REGION_CAP + 32}, "region_size"),
                                             ({"cta_size": 384}, "cta_size"), ({"delta": -1}, "delta"),
                                             ({"flush_steps": 0}, "flush_steps")])
def test_bad_knobs_are_one_clear_line(knobs, word):
    from gpubfs_cli.errors import UserError

    with pytest.raises(UserError, match=word):
        make_knobs(rs.RegionsSssp, knobs)


def test_weights_past_31_bits_make_it_unavailable():
    with pytest.raises(StrategyUnavailable, match="2\\^31 - 1"):
        rs.RegionsSssp(make_knobs(rs.RegionsSssp, {})).prepare(de.graph("big_int64"))
    g = samples.from_edges(np.arange(4), np.arange(1, 5), 5, weights=np.array([1, 2, 2**31, 3]), name="wide")
    with pytest.raises(StrategyUnavailable, match="2\\^31 - 1"):
        rs.RegionsSssp(make_knobs(rs.RegionsSssp, {})).prepare(g)


def test_registered_for_sssp_only():
    assert all_strategies("sssp")["sssp.regions"] is rs.RegionsSssp
    assert "sssp.regions" not in all_strategies("bfs")
