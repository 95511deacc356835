"""do.bfs / do.top_down: knob checks (CPU) and the direction-specific GPU checks the
generic suite (test_strategies.py, which runs both on every graph) does not make:
forced directions, the transpose of directed graphs, parents, no per-traversal
allocation, the graph launch against the direct one. The kernel logic itself is checked on the CPU by test_do_emulated.py."""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.gpu.do import strategies as do
from gpubfs_cli.core.knobs import PROBE_BATCHES
from gpubfs_cli.core.strategy import all_strategies, make_knobs
from gpubfs_cli.errors import UserError
from gpubfs_cli.gpu.device_graph import DeviceGraph
from tests.algorithms.bfs.gpu import test_strategies as ts
from tests.gpu.test_fixed_cost import counted_mallocs

FORCED_BU = {"alpha": 1e9, "beta": 1e9, "small_frontier": 0}  # CTA 0 alone stays top-down


def _do(name: str = "do.bfs", **knobs):
    cls = all_strategies()[name]
    return cls(make_knobs(cls, knobs))


@pytest.mark.parametrize("knobs, what", [
    ({"alpha": -1.0}, "alpha"), ({"beta": "x"}, "beta"), ({"cta_size": 96}, "cta_size"),
    ({"blocks_per_sm": -1}, "blocks_per_sm"), ({"profile": 1}, "profile"),
    ({"small_frontier": 513}, "small_frontier"), ({"small_frontier": -1}, "small_frontier"),
    ({"growth": 1}, "growth"), ({"mid_frontier": 32769}, "mid_frontier"), ({"mid_frontier": True}, "mid_frontier"),
    ({"mid_ctas": -1}, "mid_ctas"), ({"thread_edges": -1}, "thread_edges"), ({"thread_edges": 2.5}, "thread_edges"),
    ({"thread_edges": 2**31}, "thread_edges"), ({"hub_edges": -1}, "hub_edges"), ({"hub_edges": 2**31}, "hub_edges"),
    ({"hub_edges": True}, "hub_edges"), ({"probe_batch": 3}, "probe_batch"), ({"probe_batch": 16}, "probe_batch"),
    ({"probe_batch": True}, "probe_batch"), ({"launch": "cooperative"}, "launch"), ({"launch": True}, "launch"),
    ({"frontier_cache": "l3"}, "frontier_cache"), ({"frontier_cache": 1}, "frontier_cache"),
    ({"in_order": "rcm"}, "in_order"), ({"in_order": None}, "in_order"),
])
def test_bad_knobs_are_one_clear_error(knobs, what):
    with pytest.raises(UserError, match=what):
        _do(**knobs)


def test_family_is_not_a_paper():
    for name in ("do.bfs", "do.top_down"):
        cls = all_strategies()[name]
        assert cls.paper == "beyond" and cls.device_kind == "gpu"
    assert all_strategies()["do.top_down"].Knobs().bottom_up is False


def test_64bit_offsets_from_2_31_edges():
    """The 64-bit offset build exactly when int32 cannot hold every offset 0..m."""
    assert not do.offsets64(0) and not do.offsets64(2**31 - 1)
    assert do.offsets64(2**31) and do.offsets64(2**40)
    assert "DO_OFFSET64" not in do.kernel_defines(256)  # the 32-bit build's key is unchanged
    assert do.kernel_defines(256, offset64=True) == {**do.kernel_defines(256), "DO_OFFSET64": 1}
    assert "BU_BATCH" not in do.kernel_defines(256)  # nor the default probe batch's
    assert do.kernel_defines(256, probe_batch=8) == {**do.kernel_defines(256), "BU_BATCH": 8}
    assert do.kernel_defines(256)["BU_FRONT_L1"] == 1  # the default reads the bitmap through L1
    assert "BU_FRONT_L1" not in do.kernel_defines(256, frontier_cache="l2")
    assert {tuple(sorted(d.items())) for d in do.KERNEL_DEFINES} == {
        tuple(sorted(do.kernel_defines(c, w).items())) for c in do.CTA_SIZES for w in (False, True)} | {
        tuple(sorted(do.kernel_defines(256, w, b).items())) for b in PROBE_BATCHES for w in (False, True)} | {
        tuple(sorted(do.kernel_defines(256, w, frontier_cache="l2").items())) for w in (False, True)}


def _check(strategy, graph_name, sources, predecessors=False):
    g = ts.graph(graph_name)
    strategy.prepare(g)
    out = []
    for s in sources:
        got = strategy.traverse(s, predecessors).to_host()
        ref = ts.reference(graph_name, s)
        np.testing.assert_array_equal(got.distances, ref.distances, err_msg=f"{graph_name} from {s}")
        assert got.counters["levels"] == ref.counters["levels"]
        if predecessors:
            ts.check_parents(g, s, got.distances, got.parents)
        out.append((s, got))
    strategy.release()
    return out


@pytest.mark.gpu
@pytest.mark.parametrize("graph_name", ["kronecker", "grid60x60", "directed", "disconnected"])
def test_forced_top_down(graph_name):
    for name, knobs in (("do.top_down", {}), ("do.bfs", {"alpha": 0.0}), ("do.bfs", {"alpha": 0.0, "small_frontier": 0})):
        for _, got in _check(_do(name, counters=True, **knobs), graph_name, ts.sources(graph_name)[:4]):
            c = got.counters
            assert c["bottom_up_levels"] == 0 and c["switches"] == 0 and not c["direction"].any()


@pytest.mark.gpu
@pytest.mark.parametrize("graph_name", ["kronecker", "grid60x60", "directed", "star100k"])
def test_forced_bottom_up_from_level_1(graph_name):
    """Every level after the source's is found bottom-up (the source has out-edges)."""
    g = ts.graph(graph_name)
    srcs = [s for s in ts.sources(graph_name) if g.out_degrees()[s] > 0][:4]
    for _, got in _check(_do(counters=True, **FORCED_BU), graph_name, srcs, predecessors=True):
        c = got.counters
        assert c["bottom_up_levels"] == c["levels"] and c["switches"] == 1 and c["direction"].all()


@pytest.mark.gpu
def test_directed_graph_uses_the_transpose():
    """On a directed graph bottom-up must scan in-edges: with out-edges it would find
    parents that cannot reach the vertex."""
    assert ts.graph("directed").directed
    for knobs in (FORCED_BU, {"alpha": 2.0, "beta": 8.0}, {}):
        _check(_do(**knobs), "directed", ts.sources("directed"), predecessors=True)


@pytest.mark.gpu
def test_automatic_switch_goes_both_ways_on_kronecker():
    got = _check(_do(counters=True, growth=False, small_frontier=0), "kronecker", ts.sources("kronecker"), predecessors=True)
    assert any(g.counters["switches"] >= 2 for _, g in got), [g.counters for _, g in got]


@pytest.mark.gpu
def test_small_frontier_mode():
    """CTA 0 runs every level of a path alone (2 vertices, 4 edges a level); a grid's
    frontiers grow past a threshold of 16 and go back to the grid; off means never."""
    for s, got in _check(_do(small_frontier=16, counters=True), "path3000", ts.sources("path3000")[:3], True):
        assert got.counters["small_levels"] == got.counters["levels"], (s, got.counters)
    for s, got in _check(_do(small_frontier=16), "grid60x60", ts.sources("grid60x60")[:3], True):
        assert 0 < got.counters["small_levels"] < got.counters["levels"], (s, got.counters)
    for s, got in _check(_do(small_frontier=0), "path3000", ts.sources("path3000")[:2]):
        assert got.counters["small_levels"] == 0, (s, got.counters)


@pytest.mark.gpu
def test_mid_frontier_mode():
    """A team of 16 CTAs runs every level of a path held top-down; on a grid, between the
    small-frontier mode (16) and a threshold of 128, the team takes some levels and hands
    the others back; off means never."""
    for s, got in _check(_do("do.top_down", mid_frontier=64, mid_ctas=16, small_frontier=0), "path3000",
                         ts.sources("path3000")[:3], True):
        assert got.counters["mid_levels"] == got.counters["levels"], (s, got.counters)
    for s, got in _check(_do(mid_frontier=128, mid_ctas=16, small_frontier=16), "grid60x60",
                         ts.sources("grid60x60")[:3], True):
        c = got.counters
        assert 0 < c["mid_levels"] and c["mid_levels"] + c["small_levels"] < c["levels"], (s, c)
    for s, got in _check(_do(mid_frontier=0), "grid60x60", ts.sources("grid60x60")[:2]):
        assert got.counters["mid_levels"] == 0, (s, got.counters)


@pytest.mark.gpu
def test_hub_pass():
    """Every level tiled (top-down, never spread): with hub_edges 1 every list goes to the
    hub pass (the first 1024 a level; the rest stay with their tiles), with 64 the hubs
    of the Kronecker graph do; 0 never runs it. Distances, parents and edge counts as a
    plain traversal's."""
    base = {"spread_edges": -1, "small_frontier": 0, "mid_frontier": 0, "counters": True}
    for graph_name, hub_edges in (("kronecker", 1), ("kronecker", 64), ("grid60x60", 1), ("directed", 2)):
        g = ts.graph(graph_name)
        deg = g.out_degrees()
        for s, got in _check(_do("do.top_down", hub_edges=hub_edges, **base), graph_name,
                             ts.sources(graph_name)[:3], True):
            ref = ts.reference(graph_name, s).distances
            levels = range(int(got.counters["levels"]))
            hubs = [L for L in levels if (deg[ref == L] >= hub_edges).any()]
            assert got.counters["hub_levels"] == len(hubs), (graph_name, s, got.counters)
            assert list(got.counters["edges_examined"]) == [int(deg[ref == L].sum()) for L in levels]
    for s, got in _check(_do(hub_edges=0), "kronecker", ts.sources("kronecker")[:2]):
        assert got.counters["hub_levels"] == 0, (s, got.counters)


@pytest.mark.gpu
@pytest.mark.parametrize("build", [{"probe_batch": 1}, {"probe_batch": 8}, {"frontier_cache": "l2"}])
def test_probe_builds_keep_the_serial_scan(build):
    """Bottom-up from the first level (lanes alone, and handing lists to the warp after
    3): a lane probing 1 or 8 in-edges at once, or reading the bitmap through L2 only,
    finds the parents and examines the edges the default build's (4, through L1) does."""
    forced = {"alpha": 1e9, "beta": 1e9, "counters": True}
    for graph_name in ("kronecker", "grid60x60", "directed"):
        srcs = ts.sources(graph_name)[:2]
        for thread_edges in (0, 3):
            base = _check(_do(thread_edges=thread_edges, **forced), graph_name, srcs, True)
            got = _check(_do(**build, thread_edges=thread_edges, **forced), graph_name, srcs, True)
            for (s, a), (_, b) in zip(base, got, strict=True):
                assert a.counters["bottom_up_levels"] > 0
                assert list(a.counters["edges_examined"]) == list(b.counters["edges_examined"]), (graph_name, s)
                assert np.array_equal(a.parents, b.parents), (graph_name, s)


@pytest.mark.gpu
@pytest.mark.parametrize("order", ["stored", "degree"])
def test_in_list_order_gives_the_first_hit_of_that_order(order):
    """Bottom-up from the first level: each parent is the first neighbour one level up in
    the in-list as stored or hubs first (in_order), lanes alone and handing lists to the
    warp after 3; on these graphs the two orders give some vertex different parents."""
    forced = {"alpha": 1e9, "beta": 1e9, "counters": True, "in_order": order}
    differ = 0
    for graph_name in ("kronecker", "directed"):
        g = ts.graph(graph_name)
        srcs = [s for s in ts.sources(graph_name) if g.out_degrees()[s] > 0][:2]
        for thread_edges in (0, 3):
            strategy = _do(thread_edges=thread_edges, **forced)
            for s, got in _check(strategy, graph_name, srcs, True):
                assert got.counters["bottom_up_levels"] == got.counters["levels"]
                dg = DeviceGraph.of(g).with_in_edges()
                want, n = ts.first_parents(dg.in_offsets.get(), dg.in_indices.get(), g.out_degrees(),
                                           got.distances, order)
                reached = got.distances > 0
                np.testing.assert_array_equal(got.parents[reached], want[reached], err_msg=f"{graph_name} from {s}")
                differ += n
    assert differ > 0


@pytest.mark.gpu
def test_growth_rule_flips_less_on_a_lattice():
    srcs = ts.sources("grid60x60")[:3]
    counts = _check(_do(growth=False), "grid60x60", srcs)
    growth = _check(_do(growth=True), "grid60x60", srcs, True)
    flips = sum(g.counters["switches"] for _, g in counts)
    kept = sum(g.counters["switches"] for _, g in growth)
    assert kept <= flips, (flips, kept)


@pytest.mark.gpu
@pytest.mark.parametrize("knobs", [{}, FORCED_BU, {"bottom_up": False, "spread_edges": 0},
                                   {"bottom_up": False, "spread_edges": -1, "hub_edges": 2}])
def test_64bit_offsets_build(knobs, monkeypatch):
    """The build for 2^31 edges and more, forced on small graphs (threshold 0 edges)."""
    monkeypatch.setattr(do, "OFFSET64_EDGES", 0)
    for graph_name in ("kronecker", "grid60x60", "directed", "disconnected"):
        strategy = _do(**knobs)
        strategy.prepare(ts.graph(graph_name))
        assert strategy._offset64
        strategy.release()
        _check(strategy, graph_name, ts.sources(graph_name)[:3], predecessors=True)


@pytest.mark.gpu
@pytest.mark.parametrize("launch", do.LAUNCHES)
def test_traverse_allocates_nothing(launch):
    """Every buffer comes from prepare: no device allocation in a warm traverse, and the
    pool's used bytes do not grow."""
    import cupy as cp

    strategy = _do(launch=launch)
    strategy.prepare(ts.graph("kronecker"))
    strategy.traverse(0, True)
    strategy.traverse(0, False)
    cp.cuda.Device().synchronize()
    pool = cp.get_default_memory_pool()
    before = pool.used_bytes()
    with counted_mallocs() as sizes:
        for s in ts.sources("kronecker"):
            answer = strategy.traverse(s, predecessors=bool(s % 2))
        cp.cuda.Device().synchronize()
    assert sizes == [] and pool.used_bytes() == before
    assert answer.counters["launch"] == launch
    strategy.release()


def _same_search(a, b, where):
    """Two answers from one source: equal distances and directions level by level
    (parents may differ: concurrent claims pick any parent of the level before)."""
    np.testing.assert_array_equal(a.distances, b.distances, err_msg=where)
    for key in ("levels", "bottom_up_levels", "switches", "small_levels", "mid_levels", "hub_levels"):
        assert a.counters[key] == b.counters[key], (where, key)
    np.testing.assert_array_equal(a.counters["direction"], b.counters["direction"], err_msg=where)


@pytest.mark.gpu
@pytest.mark.parametrize("graph_name", ["kronecker", "grid60x60", "directed", "disconnected"])
def test_graph_and_direct_launches_agree(graph_name):
    """Consecutive traversals from several sources, without and with parents: the graph
    launch (the source through its device word) answers as the direct launch does, both
    checked against the reference; on a GPU the graph is captured (no fallback)."""
    g = ts.graph(graph_name)
    srcs = ts.sources(graph_name)[:6]
    got = {}
    for launch in do.LAUNCHES:
        strategy = _do(launch=launch, counters=True, alpha=2.0, beta=8.0)
        strategy.prepare(g)
        got[launch] = []
        for pred in (False, True):
            for s in srcs:
                a = strategy.traverse(s, pred).to_host()
                assert a.counters["launch"] == launch and "launch_error" not in a.counters, a.counters
                ref = ts.reference(graph_name, s)
                np.testing.assert_array_equal(a.distances, ref.distances, err_msg=f"{launch} from {s}")
                if pred:
                    ts.check_parents(g, s, a.distances, a.parents)
                got[launch].append(a)
        # launches queued back to back (no read between them): the last answer is whole
        for s in srcs:
            last = strategy.traverse(s, True)
        last = last.to_host()
        np.testing.assert_array_equal(last.distances, ts.reference(graph_name, srcs[-1]).distances)
        ts.check_parents(g, srcs[-1], last.distances, last.parents)
        strategy.release()
    for i, (a, b) in enumerate(zip(got["graph"], got["direct"], strict=True)):
        _same_search(a, b, f"{graph_name}, traversal {i}")


@pytest.mark.gpu
def test_graph_launch_runs_between_the_timing_events():
    """The harness records its events on the current stream and the graph is launched
    there: once the stop event has completed the answer is whole, read here through a
    non-blocking stream that waits for nothing else."""
    import cupy as cp

    from gpubfs_cli.bench.timing import time_events

    graph_name = "kronecker"
    strategy = _do()
    strategy.prepare(ts.graph(graph_name))
    side = cp.cuda.Stream(non_blocking=True)
    for s in ts.sources(graph_name)[:6]:
        ms, answer = time_events(lambda s=s: strategy.traverse(s, True), strategy.devices)
        dist = answer.distances.get(stream=side)
        side.synchronize()
        assert ms > 0 and answer.counters["launch"] == "graph"
        np.testing.assert_array_equal(dist, ts.reference(graph_name, s).distances, err_msg=f"from {s}")
    strategy.release()
