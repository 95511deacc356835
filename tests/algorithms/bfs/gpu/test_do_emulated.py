"""do.bfs and do.top_down run end to end on the CPU: the real launcher with numpy in
place of CuPy, do.cu (compiled unchanged) under the CUDA emulator
(tests/gpu/emu/do_driver.cpp, tests/gpu/emulated_cupy.py). No GPU needed, only g++.

Scaled down: CTAs of 128 threads, 2 SMs with 2 resident CTAs each (4 CTAs, 16 warps),
so the CTA-wide, warp and scan gathering of top-down steps and the warp-per-word
bottom-up steps all run on graphs of a few hundred vertices; fibers switch at atomics
and __ldcg at random (seeded), so CTAs race for the visited bits. Each traversal is
checked against cpu.sequential (distances, a BFS tree of parents, the level count).

Every variant launches through the CUDA graph prepare captures (the emulated CuPy's
stream capture: a copy of the pinned source word, then the kernel reading its source
there), and some through the direct launch (the source as an argument).

Both edge offset builds run: the 32-bit one the launcher picks below 2^31 edges and the
64-bit one (DO_OFFSET64) it picks from there on, forced here by lowering the launcher's
threshold; a last test moves every offset past 2^32 (the column arrays shifted back by
as many elements) so that a truncation anywhere reads far outside the arrays (wrong
neighbours, or the process dies of a segmentation fault: a failure either way).
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs
from gpubfs_cli.algorithms.bfs.gpu.do import strategies as do
from gpubfs_cli.gpu import device_graph
from gpubfs_cli.graph import list_order, samples
from tests.algorithms.bfs.gpu import emulated_bfs as eb
from tests.algorithms.bfs.gpu import test_strategies as ts
from tests.gpu import emulated_cupy as ec
from tests.gpu import fixed_cost as fc

# The hub pass takes the first DO_SPREAD lists (the rest stay with their tiles): a build
# where that is 8 fills it on these small graphs.
SPREAD8 = {"DO_SPREAD": 8}
DO = ec.Family(do.KERNELS, "do_driver.cpp", (do,),
               defines=[do.kernel_defines(128), do.kernel_defines(128, offset64=True),
                        {**do.kernel_defines(128), **SPREAD8},
                        *(do.kernel_defines(128, probe_batch=b) for b in (1, 8)),
                        do.kernel_defines(128, frontier_cache="l2")])
OFFSETS = [32, 64]  # the edge offset builds
BASE = {"cta_size": 128, "small_frontier": 0, "mid_frontier": 0, "growth": False}  # the grid's steps, the thresholds' rule
PATCHES = {"blocks_per_sm": lambda kernel, block, shared_mem=0: 2}
FORCED_BU = {"alpha": 1e9, "beta": 1e9}  # bottom-up from the first level, never back


@pytest.fixture(scope="module")
def emulation() -> ec.Emulation:
    return ec.Emulation(DO, ec.build_libraries(DO))


def test_params_mirror_the_compiled_struct(emulation):
    """PARAMS has the fields of do.cuh's Params, in its order, at its offsets, and its size."""
    for lib in emulation.libs.values():
        ec.assert_mirrors(lib, do.PARAMS)


def check_counters(strategy, g, s, got):
    """Directions as the knobs force them; with counters, what each level examined is
    exactly what its direction must examine."""
    c = got.counters
    levels = int(c["levels"])
    bu, switches = int(c["bottom_up_levels"]), int(c["switches"])
    k = strategy.knobs
    assert c["launch"] == k.launch and "launch_error" not in c, c
    if not k.bottom_up or k.alpha == 0:
        assert (bu, switches) == (0, 0), c
    if k.bottom_up and (k.alpha, k.beta) == (FORCED_BU["alpha"], FORCED_BU["beta"]):
        # a source without out-edges has nothing to go bottom-up for (m_f = 0)
        assert (bu, switches) == ((levels, 1) if g.out_degrees()[s] else (0, 0)), c
    small = int(c["small_levels"])  # levels run by CTA 0 alone: never bottom-up
    mid = int(c["mid_levels"])  # levels run by the team alone: never bottom-up either
    assert 0 <= small and 0 <= mid and small + mid <= levels - bu, c
    if k.small_frontier == 0:
        assert small == 0, c
    if k.mid_frontier == 0:
        assert mid == 0, c
    hub = int(c["hub_levels"])  # top-down levels with a hub pass
    assert 0 <= hub <= levels - bu - small - mid, c
    if k.hub_edges == 0:
        assert hub == 0, c
    if not k.counters:
        return
    ref = sequential_bfs(g, s).distances
    deg = g.out_degrees()
    in_deg = np.bincount(g.col_indices, minlength=g.n)
    direction = np.asarray(c["direction"])[:levels]
    assert int(direction.sum()) == bu
    for L in range(levels):
        frontier = ref == L
        if direction[L]:
            unvisited = (ref < 0) | (ref > L)
            assert c["vertices_examined"][L] == unvisited.sum(), (L, c)
            # early exit: at most the in-edges of the unvisited, at least one per discovery
            assert (ref == L + 1).sum() <= c["edges_examined"][L] <= in_deg[unvisited].sum(), (L, c)
        else:
            assert c["vertices_examined"][L] == frontier.sum(), (L, c)
            assert c["edges_examined"][L] == deg[frontier].sum(), (L, c)


def run(monkeypatch, emulation, knobs: dict, graphs, name: str = "do.bfs", offsets: int = 32, **kw):
    """eb.run on the build of `offsets`-bit edge offsets (64: the launcher's threshold
    lowered to 0 edges), checking that the launcher loaded that build alone."""
    if offsets == 64:
        monkeypatch.setattr(do, "OFFSET64_EDGES", 0)
    emulation.defines.clear()
    kw.setdefault("check", check_counters)
    answers = eb.run(monkeypatch, emulation, name, {**BASE, **knobs}, graphs, patches=PATCHES, sms=2,
                     resident=2, **kw)
    assert emulation.defines and {dict(k).get("DO_OFFSET64", 0) for k in emulation.defines} == {offsets == 64}
    return answers


VARIANTS = [
    {},
    {"counters": True},
    {**FORCED_BU, "counters": True},
    {"bottom_up": False, "counters": True},
    {"alpha": 0.5, "beta": 2.0, "counters": True},
    {"profile": True},
    {"spread_edges": 0, "counters": True},  # every small top-down level spread over the grid
    {"spread_edges": -1, "bottom_up": False, "counters": True},
    # small-frontier mode: CTA 0 alone while a frontier fits, handed back to the grid
    # past the threshold (4, 16: many entries and hand-backs; 512: whole traversals)
    {"small_frontier": 4, "counters": True},
    {"small_frontier": 16, "alpha": 0.5, "beta": 2.0, "counters": True},
    {"small_frontier": 16, "profile": True},
    {"small_frontier": 512, "counters": True},
    # mid-frontier mode: a team of CTAs (2 of the 4, 1, or all 4) while a frontier fits,
    # handed back past the threshold, to the small-frontier mode, or to go bottom-up
    {"mid_frontier": 64, "mid_ctas": 2, "counters": True},
    {"mid_frontier": 16, "mid_ctas": 1, "small_frontier": 4, "counters": True},
    {"mid_frontier": 64, "mid_ctas": 4, "small_frontier": 8, "alpha": 0.5, "beta": 2.0, "counters": True},
    {"mid_frontier": do.MID_CAP, "mid_ctas": 3, "growth": True, "alpha": 2.0, "beta": 8.0, "profile": True},
    {"mid_frontier": 64, "mid_ctas": 2, "bottom_up": False, "spread_edges": 0, "counters": True},
    # Beamer's state machine: to bottom-up only while growing, back only while shrinking
    {"growth": True, "alpha": 2.0, "beta": 8.0, "counters": True},
    {**FORCED_BU, "growth": True, "counters": True},
    # the shipped defaults (growth, small_frontier 512, mid_frontier 32768 with one CTA a
    # "SM": 2 of the 4)
    {"growth": True, "small_frontier": do.SMALL_CAP, "mid_frontier": do.MID_CAP, "counters": True},
    # the source as a kernel argument instead of the graph's device word
    {"launch": "direct", "alpha": 0.5, "beta": 2.0, "counters": True},
    {"launch": "direct", "small_frontier": 16, "mid_frontier": 64, "mid_ctas": 2, "profile": True},
]


def _id(knobs) -> str:
    return "-".join(f"{k}={v}" for k, v in knobs.items()) or "defaults"


@pytest.mark.parametrize("offsets", OFFSETS)
@pytest.mark.parametrize("knobs", VARIANTS, ids=[_id(k) for k in VARIANTS])
def test_every_graph(monkeypatch, emulation, knobs, offsets):
    run(monkeypatch, emulation, knobs, list(eb.GRAPHS), offsets=offsets)


# Bottom-up lists handed to the warp after 1 and 3 in-edges (bottom_up.cuh): the same
# parents and edge counts as a serial scan, on the graphs with hubs and odd lists.
@pytest.mark.parametrize("offsets", OFFSETS)
@pytest.mark.parametrize("knobs", [{**FORCED_BU, "thread_edges": 1, "counters": True},
                                   {"alpha": 0.5, "beta": 2.0, "thread_edges": 3, "counters": True}],
                         ids=["forced-1", "switching-3"])
def test_bottom_up_lists_handed_to_the_warp(monkeypatch, emulation, knobs, offsets):
    run(monkeypatch, emulation, knobs, eb.HARD + ["grid9x13", "broom"], offsets=offsets)


# Bottom-up lanes probing 1 and 8 in-edges at once (the default build: 4), alone and with
# lists handed to the warp after 3: batches that overrun a list's end or the hand-off
# must still stop at the first hit, so parents and edge counts are a serial scan's.
@pytest.mark.parametrize("thread_edges", [0, 3])
@pytest.mark.parametrize("probe_batch", [1, 8])
def test_probe_batches(monkeypatch, emulation, probe_batch, thread_edges):
    run(monkeypatch, emulation, {**FORCED_BU, "probe_batch": probe_batch, "thread_edges": thread_edges,
                                 "counters": True}, eb.HARD + ["grid9x13", "broom"])
    assert {dict(k).get("BU_BATCH") for k in emulation.defines} == {probe_batch}


# The default build reads bitmap words through L1 (__ldca), the other build through L2
# only (__ldcg): the emulator's loads are one memory, so this checks each define reaches
# the kernel and neither build's logic differs.
@pytest.mark.parametrize("cache, define", [("l2", None), ("l1", 1)])
def test_frontier_cache_builds(monkeypatch, emulation, cache, define):
    run(monkeypatch, emulation, {**FORCED_BU, "frontier_cache": cache, "thread_edges": 3, "counters": True},
        eb.HARD + ["grid9x13", "broom"])
    assert {dict(k).get("BU_FRONT_L1") for k in emulation.defines} == {define}


def first_parents(order: str, differ: list):
    """A check: with every level bottom-up, each parent is its lane's first hit, the
    first neighbour one level up in the in-list's `order` (ts.first_parents); `differ`
    collects how many vertices the other order would give another parent."""

    def check(strategy, g, s, got):
        check_counters(strategy, g, s, got)
        c = got.counters
        if got.parents is None or int(c["bottom_up_levels"]) != int(c["levels"]):
            return
        dg = strategy.dgraph.with_in_edges()
        want, n = ts.first_parents(dg.in_offsets, dg.in_indices, g.out_degrees(), got.distances, order)
        differ.append(n)
        reached = got.distances > 0
        np.testing.assert_array_equal(got.parents[reached], want[reached], err_msg=f"{g.name} from {s}")

    return check


# in_order: a lane scans its in-list as stored or hubs first; every level bottom-up (each
# parent a lane's first hit), with lists handed to the warp after 3 in-edges or not; the
# hubs-first lists also sorted a few edges at a time (chunks of whole lists, one list
# longer than a chunk alone in its own).
@pytest.mark.parametrize("order, thread_edges, chunk", [
    ("stored", 0, None), ("stored", 3, None), ("degree", 0, None), ("degree", 3, None), ("degree", 0, 5)])
def test_in_list_order(monkeypatch, emulation, order, thread_edges, chunk):
    if chunk is not None:
        monkeypatch.setattr(list_order, "CHUNK_EDGES", chunk)
    differ: list = []
    run(monkeypatch, emulation, {**FORCED_BU, "in_order": order, "thread_edges": thread_edges, "counters": True},
        eb.HARD + ["grid9x13", "broom"], check=first_parents(order, differ))
    assert sum(differ) > 0  # some vertex's parent tells the two orders apart


def check_hub_levels(strategy, g, s, got):
    """Every level tiled (spread_edges -1, no small or team mode): the hub pass runs on
    exactly the levels whose frontier has a list of hub_edges or more."""
    check_counters(strategy, g, s, got)
    ref = sequential_bfs(g, s).distances
    deg = g.out_degrees()
    want = sum(1 for L in range(int(ref.max()) + 1) if (deg[ref == L] >= strategy.knobs.hub_edges).any())
    assert int(got.counters["hub_levels"]) == want, (want, got.counters)


# Lists of hub_edges or more left by the tiles to the hub pass (1: every list; 3: the
# hubs and odd lists of these graphs), with room for 8 of them (the rest stay with
# their tiles) or for DO_SPREAD (1024: all of them here).
@pytest.mark.parametrize("room", [8, "default"])
@pytest.mark.parametrize("hub_edges", [1, 3])
def test_hub_pass(monkeypatch, emulation, hub_edges, room):
    if room == 8:
        defines = do.kernel_defines
        monkeypatch.setattr(do, "kernel_defines", lambda *a, **kw: {**defines(*a, **kw), **SPREAD8})
    run(monkeypatch, emulation, {"bottom_up": False, "spread_edges": -1, "hub_edges": hub_edges, "counters": True},
        eb.HARD + ["grid9x13", "broom"], check=check_hub_levels)


@pytest.mark.parametrize("offsets", OFFSETS)
def test_top_down_variant(monkeypatch, emulation, offsets):
    run(monkeypatch, emulation, {"counters": True}, eb.HARD, name="do.top_down", offsets=offsets)


def test_automatic_switch_goes_both_ways(monkeypatch, emulation):
    """Beamer's thresholds on the R-MAT graph and the broom: some traversal goes
    bottom-up and comes back (two switches), and they still match the reference."""
    answers = run(monkeypatch, emulation, {"alpha": 2.0, "beta": 8.0}, ["rmat", "broom", "directed"])
    assert any(a.counters["switches"] >= 2 for a in answers), [a.counters for a in answers]


def test_small_frontier_mode_enters_and_hands_back(monkeypatch, emulation):
    """Threshold 4: a path's frontiers (2 vertices, 4 edges) never pass it, so CTA 0 runs
    every level alone; a grid's grow past it, so the grid takes the frontier back."""
    knobs = {"small_frontier": 4, "counters": True}
    path = run(monkeypatch, emulation, knobs, ["path60"])
    assert all(a.counters["small_levels"] == a.counters["levels"] for a in path), [a.counters for a in path]
    grid = run(monkeypatch, emulation, knobs, ["grid9x13"])
    assert all(0 < a.counters["small_levels"] < a.counters["levels"] for a in grid), [a.counters for a in grid]


def test_mid_frontier_mode_enters_and_hands_back(monkeypatch, emulation):
    """A team of 2 CTAs of the 4: on a path (frontiers of 1-2 vertices, at most 4 edges)
    held top-down, with small_frontier 0, it runs every level; on the grid, with the small-frontier mode
    below it and a threshold the grid's middle levels pass, it enters and hands back
    both ways (to CTA 0 alone and to the whole grid)."""
    path = run(monkeypatch, emulation, {"mid_frontier": 8, "mid_ctas": 2, "bottom_up": False, "counters": True},
               ["path60"])
    assert all(a.counters["mid_levels"] == a.counters["levels"] for a in path), [a.counters for a in path]
    grid = run(monkeypatch, emulation, {"mid_frontier": 24, "mid_ctas": 2, "small_frontier": 8, "growth": True,
                                        "counters": True}, ["grid9x13"])
    for a in grid:
        c = a.counters
        assert 0 < c["mid_levels"] and 0 < c["small_levels"], c
        assert c["mid_levels"] + c["small_levels"] < c["levels"], c  # the widest levels: the grid's


def check_profile(strategy, g, s, got):
    """One row per level, in the kernel's direction, with the logical frontier sizes
    (checked as each traversal ends: the arrays are the strategy's buffers)."""
    check_counters(strategy, g, s, got)
    host = do.DoAnswer(got.distances, got.parents, got.counters).to_host()
    rows = do.profile_rows(host.counters["profile"], host.counters)
    assert len(rows) == host.counters["levels"]
    assert [r["direction"] == "bottom-up" for r in rows] == list(host.counters["direction"] == 1)
    assert [r["frontier"] for r in rows] == list(np.bincount(got.distances[got.distances >= 0]))
    assert all(r["convert_us"] >= 0 and r["step_us"] >= 0 for r in rows)
    # the header: entry, then the set-up's end, before the first level's stamp
    span = do.profile_span(host.counters)
    entry, ready = host.counters["profile_header"][:2]
    assert 0 < entry <= ready, host.counters["profile_header"]
    assert min(span.values()) >= 0 and span["kernel_us"] == pytest.approx(
        span["setup_us"] + span["to_first_stamp_us"] + span["levels_us"]), span


def test_profile_rows(monkeypatch, emulation):
    eb.run(monkeypatch, emulation, "do.bfs", {**BASE, "profile": True, "alpha": 2.0}, ["rmat", "broom"],
           patches=PATCHES, sms=2, resident=2, check=check_profile)


@pytest.mark.parametrize("offsets", OFFSETS)
@pytest.mark.parametrize("seed", [2, 3])
def test_more_thread_interleavings(monkeypatch, emulation, seed, offsets):
    for knobs in ({}, FORCED_BU, {"alpha": 2.0, "beta": 8.0}, {"small_frontier": 8},
                  {"small_frontier": 4, "mid_frontier": 32, "mid_ctas": 2}):
        run(monkeypatch, emulation, knobs, ["loops_dups", "rmat", "directed"], seed=seed, offsets=offsets)


def test_growth_rule_keeps_a_lattice_tail_top_down(monkeypatch, emulation):
    """On a grid the thresholds alone send small tail frontiers bottom-up (m_u is tiny
    there) and back; with `growth` a shrinking frontier never goes bottom-up."""
    knobs = {"alpha": 48.0, "beta": 24.0, "counters": True}
    counts = run(monkeypatch, emulation, knobs, ["grid9x13"])
    growth = run(monkeypatch, emulation, {**knobs, "growth": True}, ["grid9x13"])
    flips = [int(a.counters["switches"]) for a in counts]
    kept = [int(a.counters["switches"]) for a in growth]
    assert sum(kept) < sum(flips), (flips, kept)  # 5 against 2 a traversal today


# The emulated grid's 16 warps convert a frontier in strides: 16 x 4 words (2,048
# vertices) bitmap-ward, 16 x 32 words (16,384 vertices) queue-ward.
STRIDE_TO_QUEUE = 16 * 32 * 32


def test_conversions_span_several_strides_of_the_grid(monkeypatch, emulation):
    """On an R-MAT graph of 2^16 vertices, with Beamer's thresholds, traversals go
    bottom-up and back: both conversions take the grid more than one stride, the
    frontier converted back to a queue spread over several, and that queue holds exactly
    the level's vertices (the counters and distances say so)."""
    eb.GRAPHS["rmat16"] = lambda: samples.rmat(16, 4, 9, permute=True)
    spans = []

    def check(strategy, g, s, got):  # the counters are the strategy's buffers: read them now
        check_counters(strategy, g, s, got)
        c = got.counters
        direction = np.asarray(c["direction"])[:int(c["levels"])]
        back = [L for L in range(1, len(direction)) if direction[L - 1] and not direction[L]]
        if back:
            spans.append(len(np.unique(np.flatnonzero(got.distances == back[0]) // STRIDE_TO_QUEUE)))

    run(monkeypatch, emulation, {"alpha": 2.0, "beta": 8.0, "counters": True}, ["rmat16"], check=check)
    assert eb.graph("rmat16").n >= 4 * STRIDE_TO_QUEUE
    assert spans and max(spans) >= 2, spans


# Past 2^32, with the low word's sign bit set: a start cut to 32 bits, or its low word
# sign-extended, lands far from the column it names.
SHIFT = 3 * 2**31 + 5


def _shifted(a: np.ndarray, by: int) -> np.ndarray:
    """A view of `a`'s memory as an array starting `by` elements earlier (never read
    there: the kernel indexes it with offsets of at least `by`)."""
    raw = (ctypes.c_int32 * (len(a) + by)).from_address(a.ctypes.data - by * a.itemsize)
    return np.ctypeslib.as_array(raw).view(ec.DeviceArray)


@pytest.mark.parametrize("knobs", [
    {"bottom_up": False, "spread_edges": -1, "counters": True},  # CTA, warp and scan gathering
    {"bottom_up": False, "spread_edges": 0, "counters": True},  # every level spread over the grid
    {"alpha": 0.5, "beta": 2.0, "counters": True},  # both directions, switching
    {"small_frontier": 16, "mid_frontier": 64, "mid_ctas": 2, "growth": True, "alpha": 2.0, "beta": 8.0,
     "counters": True},  # CTA 0 alone and the team: starts in the shared and team queues
    {**FORCED_BU, "counters": True},
    {"bottom_up": False, "spread_edges": -1, "hub_edges": 2, "counters": True},  # the hub pass's starts
], ids=["gather", "spread", "switching", "small-mid", "bottom-up", "hubs"])
def test_offsets_past_2_32(monkeypatch, emulation, knobs):
    """The 64-bit build with every row and in-row offset raised by SHIFT and the column
    arrays it indexes moved back by as many elements: the kernel reads the same lists
    only if it carries all 64 bits of every offset (row reads, the gathering's shared
    starts, the spread's, the small-frontier and team queues', bottom-up's in-edges)."""
    of = device_graph.DeviceGraph.of.__func__
    keep = []  # the arrays the shifted views borrow

    def shifted_of(cls, graph, device=None, **kw):
        dg = of(cls, graph, device, **kw)
        if not getattr(dg, "_shifted", False):
            dg.with_in_edges()
            keep.append((dg.row_offsets, dg.col_indices, dg.in_offsets, dg.in_indices))
            undirected = dg.in_offsets is dg.row_offsets
            dg.row_offsets = (dg.row_offsets + SHIFT).view(ec.DeviceArray)
            dg.row_offsets32 = None
            dg.col_indices = _shifted(dg.col_indices, SHIFT)
            if undirected:
                dg.in_offsets, dg.in_indices = dg.row_offsets, dg.col_indices
            else:
                dg.in_offsets = (dg.in_offsets + SHIFT).view(ec.DeviceArray)
                dg.in_indices = _shifted(dg.in_indices, SHIFT)
            dg._shifted = True
        return dg

    monkeypatch.setattr(device_graph.DeviceGraph, "of", classmethod(shifted_of))
    run(monkeypatch, emulation, knobs, ["rmat", "broom", "directed", "grid9x13", "loops_dups"], offsets=64)
    assert keep


@pytest.mark.parametrize("launch", ["graph", "direct"])
def test_traverse_has_no_fixed_cost(monkeypatch, emulation, launch):
    """A warm traverse() allocates nothing on the device and reads nothing back."""
    fc.check_fixed_cost(monkeypatch, emulation, "bfs", "do.bfs", {**BASE, "launch": launch}, patches=PATCHES,
                        sms=2, resident=2)


def test_graph_launches_behind_the_host_keep_their_sources(monkeypatch, emulation):
    """A GPU runs behind the host: here each graph launch is held until an event is
    waited on. Traversals queued back to back still run from their own sources: each
    waits for the launch before it to have run before writing the pinned source word
    (without that wait all of them would read the last source)."""
    held, ran = [], []
    run_graph = ec._Graph.launch
    with ec.emulated(monkeypatch, emulation, patches=PATCHES, sms=2, resident=2):
        g = eb.graph("grid9x13")
        strategy = do.DirectionOptimizing(do.DoKnobs(**{**BASE, "cta_size": 128}))
        strategy.prepare(g)

        def catch_up(event=None):
            while held:
                run_graph(held.pop(0))
                ran.append(np.flatnonzero(np.asarray(strategy._dist) == 0).tolist())

        monkeypatch.setattr(ec._Graph, "launch", lambda graph, stream=None: held.append(graph))
        monkeypatch.setattr(ec._Event, "synchronize", catch_up)
        sources = [0, 5, 40, 116]
        for s in sources:
            strategy.traverse(s)
        catch_up()
        strategy.release()
    assert ran == [[s] for s in sources]


def test_a_failed_capture_falls_back_to_the_direct_launch(monkeypatch, emulation):
    """A kernel launch the capture refuses: prepare ends the capture and launches directly,
    and every answer's counters say so and why."""
    call = ec.EmulatedKernel.__call__

    def refuse_in_capture(kernel, grid, block, args):
        if ec._Stream.capturing() is not None:
            raise RuntimeError("cudaErrorStreamCaptureUnsupported: operation not permitted when stream is capturing")
        return call(kernel, grid, block, args)

    def check(strategy, g, s, got):
        c = got.counters
        assert c["launch"] == "direct" and "cudaErrorStreamCaptureUnsupported" in c["launch_error"], c
        assert ec._Stream.current == []  # the capture stream is no longer current

    monkeypatch.setattr(ec.EmulatedKernel, "__call__", refuse_in_capture)
    answers = run(monkeypatch, emulation, {"counters": True}, ["rmat", "directed"], check=check)
    assert answers


def test_launch_knob_is_checked():
    assert do.DoKnobs().launch == "graph"
    for bad in ("cooperative", 1, None, ["graph"]):
        with pytest.raises(ValueError, match="launch must be one of graph, direct"):
            do.DoKnobs(launch=bad)
