"""msbfs.bfs runs end to end on the CPU: the real launcher with numpy in place of CuPy,
msbfs.cu (compiled unchanged) under the CUDA emulator (tests/gpu/emu/msbfs_driver.cpp,
tests/gpu/emulated_cupy.py). No GPU needed, only g++.

Scaled down: CTAs of 128 threads, 2 SMs with 2 resident CTAs each (4 CTAs), so the CTA,
warp and scan gathering of top-down levels and the bottom-up levels (a thread per vertex,
its warp past thread_edges in-edges)
run on graphs of a few hundred vertices; fibers switch at atomics and __ldcg at random
(seeded), so warps race for the same vertex's bits. Every source of every batch is
checked against cpu.sequential on its own: distances, a BFS tree of parents, its level
count; batches of 1, 3 and 64 sources (64 drawn with repeats, the first one twice).

With counters, every per-level series is checked exactly against a replay on the host
from the batch's cpu.sequential distances: the directions Beamer's rule takes, the
frontier sizes, the labels of each distance, the out-edges of a top-down frontier, and a
bottom-up level's vertices and in-edges (each list scanned in the kernel's order until
the live sources it lacks are found, thread_edges by its thread and 32 a step by its
warp).

The hub pass (top-down lists of hub_edges or more spread over the grid's warps after the
level's barrier) runs with hub_edges 1 and 3 on these graphs, also in a build whose hub
queue holds 8 lists (MSBFS_SPREAD 8), so that lists past its room stay with their tiles.
Bottom-up, lists still lacking sources past warp_edges 1, 2 or 5 in-edges are held for
the hub pass (their remaining in-edges a chunk a warp): answers and series exact too.
"""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs
from gpubfs_cli.algorithms.bfs.gpu.msbfs import replay
from gpubfs_cli.algorithms.bfs.gpu.msbfs import strategies as ms
from gpubfs_cli.core.knobs import PROBE_BATCHES
from gpubfs_cli.core.strategy import StrategyUnavailable, all_strategies, make_knobs
from gpubfs_cli.errors import UserError
from tests.algorithms.bfs.gpu import emulated_bfs as eb
from tests.algorithms.bfs.gpu import test_strategies as ts
from tests.gpu import emulated_cupy as ec
from tests.gpu import fixed_cost as fc

# The hub queue takes the first MSBFS_SPREAD lists (the rest stay with their tiles): a
# build where that is 8 fills it on these small graphs.
SPREAD8 = {"MSBFS_SPREAD": 8}
MS = ec.Family(ms.KERNELS, "msbfs_driver.cpp", (ms,),
               defines=[ms.kernel_defines(128), ms.kernel_defines(128, offset64=True),
                        {**ms.kernel_defines(128), **SPREAD8},
                        *(ms.kernel_defines(128, probe_batch=b) for b in (1, 8)),
                        ms.kernel_defines(128, frontier_cache="l1"),
                        *(ms.kernel_defines(128, words=w) for w in (2, 4))])
# 128-thread CTAs and passes of 64 (the 1-word build) unless a test names its width: the
# features below are the same code at every width, and the wide builds have tests of their own.
BASE = {"cta_size": 128, "width": 64}
PATCHES = {"blocks_per_sm": lambda kernel, block, shared_mem=0: 2}
FORCED_BU = {"alpha": 1e9, "beta": 1e9}  # bottom-up from the first level, never back
TOP_DOWN = {"bottom_up": False}
GRAPHS = [*eb.HARD, "disconnected", "path60"]


@pytest.fixture(scope="module")
def emulation() -> ec.Emulation:
    return ec.Emulation(MS, ec.build_libraries(MS))


def test_params_mirror_the_compiled_struct(emulation):
    """PARAMS has the fields of msbfs.cuh's Params, in its order, at its offsets, and its size."""
    for lib in emulation.libs.values():
        ec.assert_mirrors(lib, ms.PARAMS)


def batches(g, width: int, seed: int = 5) -> list[list[int]]:
    """One source, three, and `width` (64 at BASE) drawn with repeats (the first
    one twice)."""
    first = eb.sources(g)
    three = (first * 3)[:3]
    many = np.random.default_rng(seed).integers(0, g.n, width).tolist()
    many[1:2] = many[:1]
    return [first[:1], three[:width], many]


def check_answer(g, s, got, label):
    ref = sequential_bfs(g, s)
    np.testing.assert_array_equal(got.distances, ref.distances, err_msg=label)
    assert int(got.counters["levels"]) == ref.counters["levels"], (label, got.counters)


def expected_directions(g, answers, knobs) -> list[int]:
    """Beamer's rule replayed on the host from the batch's distances, per level (1:
    bottom-up): msbfs.replay's counts and rule."""
    dist = np.stack([np.asarray(a.distances) for a in answers])
    in_deg = np.bincount(g.col_indices, minlength=g.n)
    counts = replay.pass_counts(dist, g.out_degrees(), in_deg, int(g.m))
    return replay.directions(*counts, g.n, knobs.alpha, knobs.beta, bool(knobs.bottom_up))


def expected_bottom_up_levels(g, answers, knobs) -> int:
    return sum(expected_directions(g, answers, knobs))


def in_edges(g) -> tuple[np.ndarray, np.ndarray]:
    """The in-edge CSR a bottom-up level scans, in its order: an undirected graph's own
    CSR; a directed graph's transpose, each list by source id (DeviceGraph.with_in_edges)."""
    if not g.directed:
        return np.asarray(g.row_offsets, dtype=np.int64), np.asarray(g.col_indices)
    rows = np.repeat(np.arange(g.n), np.diff(g.row_offsets))
    order = np.lexsort((rows, g.col_indices))
    offsets = np.zeros(g.n + 1, dtype=np.int64)
    np.cumsum(np.bincount(g.col_indices, minlength=g.n), out=offsets[1:])
    return offsets, rows[order]


def bottom_up_scan(g, dist, L: int, thread_edges: int, warp_edges: int = 0) -> tuple[int, int, int]:
    """(vertices, in-edges, lists held for the hub pass) of bottom-up level L:
    every vertex lacking a live source (one with a level-L frontier) scans its in-edges in
    order until it has them all, its thread the first thread_edges (0: all), then its warp
    32 a step, up to warp_edges in-edges (0: all); a list that goes on past them still
    lacking a source there is held, and the hub pass examines every in-edge past them."""
    frontier, seen = dist == L, (dist >= 0) & (dist <= L)  # sources x vertices
    miss = ~seen & frontier.any(axis=1)[:, None]  # the live sources each vertex lacks
    row, col = in_edges(g)
    degree = np.diff(row)
    owner = np.repeat(np.arange(g.n), degree)
    at = np.arange(len(col)) - row[owner]  # an in-edge's place in its list
    # a list is done at the in-edge that brings its last missing source: the latest of
    # each missing source's first in-edge
    done, complete = np.zeros(g.n, dtype=np.int64), np.ones(g.n, dtype=bool)
    for i in range(dist.shape[0]):
        edges = np.flatnonzero(frontier[i, col] & miss[i, owner])  # in scan order
        first = np.full(g.n, -1)
        if edges.size:
            lead = np.r_[True, owner[edges[1:]] != owner[edges[:-1]]]  # the first of each owner's
            first[owner[edges[lead]]] = at[edges[lead]]
        wanted = miss[i]
        complete &= ~wanted | (first >= 0)
        done = np.where(wanted, np.maximum(done, first + 1), done)
    reach = np.minimum(degree, warp_edges) if warp_edges > 0 else degree  # the thread's and warp's part
    within = complete & (done <= reach)
    scanned = np.where(within, done, degree)
    if thread_edges > 0:  # past them the warp scans 32 in-edges a step, the last step whole
        warp = np.minimum(-(-(done - thread_edges) // 32) * 32, reach - thread_edges)
        scanned = np.where(within & (done > thread_edges), thread_edges + warp, scanned)
    lacking = miss.any(axis=0)
    held = lacking & ~within & (degree > reach)
    return int(lacking.sum()), int(scanned[lacking].sum()), int(held.sum())


def check_level_counters(g, answers, knobs, label):
    """The per-level series (the batch's, in every answer) against the host's replay;
    the profile's stamps in order, one per level and two more."""
    c = answers[0].counters
    levels = int(c["pass_levels"])
    for a in answers:
        for key in ms.PER_LEVEL:
            assert np.array_equal(a.counters[key], c[key]), (label, key)
    dist = np.stack([np.asarray(a.distances) for a in answers])
    out_deg = g.out_degrees().astype(np.int64)
    want = {key: [] for key in ms.PER_LEVEL}
    for L, bu in enumerate(expected_directions(g, answers, knobs)):
        frontier = (dist == L).any(axis=0)
        want["direction"].append(bu)
        want["frontier"].append(int(frontier.sum()))
        want["labels"].append(int((dist == L + 1).sum()))
        if bu:
            vertices, edges, _ = bottom_up_scan(g, dist, L, int(knobs.thread_edges), int(knobs.warp_edges))
        else:
            vertices, edges = int(frontier.sum()), int(out_deg[frontier].sum())
        want["vertices_examined"].append(vertices)
        want["edges_examined"].append(edges)
    assert len(want["direction"]) == levels, (label, levels)
    for key, series in want.items():
        got = c[key]
        assert isinstance(got, np.ndarray) and got.dtype == np.int64, (label, key, got)
        np.testing.assert_array_equal(got, series, err_msg=f"{label}: {key}")
    assert int(c["bottom_up_levels"]) == sum(want["direction"]), (label, c)
    assert sum(want["labels"]) + len(answers) == int((dist >= 0).sum()), label  # the sources' own at level 0
    rows = ms.level_rows(c)
    assert [r["bytes"] for r in rows] == [e * 12 + x * 4 for e, x in zip(want["edges_examined"], want["labels"],
                                                                         strict=True)], label
    if not knobs.profile:
        assert "profile" not in c and ms.setup_us(c) is None and all(r["us"] is None for r in rows), label
        return
    prof = c["profile"]  # in order (a coarse clock may stamp two alike)
    assert len(prof) == levels + 2 and prof[0] > 0 and (np.diff(prof) >= 0).all(), (label, prof)
    assert ms.setup_us(c) >= 0 and all(r["us"] >= 0 for r in rows), (label, rows)


def expected_hub_levels(g, answers, knobs) -> int:
    """The levels that run a hub pass: top-down, a frontier holding a list of hub_edges
    or more; bottom-up, a list held past warp_edges (bottom_up_scan)."""
    dist = np.stack([np.asarray(a.distances) for a in answers])
    deg = g.out_degrees()
    count = 0
    for L, bu in enumerate(expected_directions(g, answers, knobs)):
        if bu:
            count += knobs.warp_edges > 0 and bottom_up_scan(g, dist, L, int(knobs.thread_edges),
                                                             int(knobs.warp_edges))[2] > 0
        else:
            count += knobs.hub_edges > 0 and bool((deg[(dist == L).any(axis=0)] >= knobs.hub_edges).any())
    return count


def check_pass(strategy, g, batch, answers, label):
    """The batch's counters: its size, a pass as deep as its deepest source, the
    directions the knobs force, and the hub pass on exactly the levels with a hub."""
    c = answers[0].counters
    levels, bu = int(c["pass_levels"]), int(c["bottom_up_levels"])
    assert all(a.counters["batch"] == len(batch) for a in answers), label
    assert int(c["hub_levels"]) == expected_hub_levels(g, answers, strategy.knobs), (label, c)
    assert levels == max(int(a.counters["levels"]) for a in answers), (label, c)
    assert 0 <= bu <= levels, (label, c)
    assert bu == expected_bottom_up_levels(g, answers, strategy.knobs), (label, c)
    k = strategy.knobs
    if not k.bottom_up or k.alpha == 0:
        assert bu == 0, (label, c)
    if k.bottom_up and (k.alpha, k.beta) == (FORCED_BU["alpha"], FORCED_BU["beta"]):
        # sources without out-edges have nothing to go bottom-up for (m_f = 0)
        assert bu == (levels if g.out_degrees()[list(set(batch))].sum() else 0), (label, c)


def run(monkeypatch, emulation, knobs: dict, graph_names, *, seed: int = 1, offsets: int = 32,
        preds=(False, True), check=None) -> list[list]:
    """Every batch of every graph, with and without parents, each source checked on its
    own (and by check(g, answers, knobs) when given); the answers (host copies), per batch."""
    if offsets == 64:
        monkeypatch.setattr(ms, "OFFSET64_EDGES", 0)
    cls = all_strategies()["msbfs.bfs"]
    out = []
    emulation.defines.clear()
    with ec.emulated(monkeypatch, emulation, seed=seed, patches=PATCHES, sms=2, resident=2):
        for gname in graph_names:
            g = eb.graph(gname)
            strategy = cls(make_knobs(cls, {**BASE, **knobs}))
            strategy.prepare(g)
            assert strategy._offset64 == (offsets == 64)
            for batch in batches(g, strategy.batch_size()):
                for pred in preds:
                    label = f"msbfs.bfs {knobs} on {gname}, batch of {len(batch)}, predecessors={pred}"
                    answers = [eb.host(a.to_host()) for a in strategy.traverse_batch(batch, pred)]
                    assert len(answers) == len(batch), label
                    for i, (s, got) in enumerate(zip(batch, answers, strict=True)):
                        check_answer(g, s, got, f"{label}: source {i} ({s})")
                        if pred:
                            ts.check_parents(g, s, got.distances, got.parents, f"{label}: source {i} ({s})")
                        else:
                            assert got.parents is None, label
                    check_pass(strategy, g, batch, answers, label)
                    if strategy.knobs.counters or strategy.knobs.profile:
                        check_level_counters(g, answers, strategy.knobs, label)
                    else:
                        assert not set(ms.PER_LEVEL) & set(answers[0].counters), label
                    if check is not None:
                        check(g, answers, strategy.knobs)
                    out.append(answers)
            strategy.release()
    assert emulation.defines and {dict(d).get("MSBFS_OFFSET64", 0) for d in emulation.defines} == {offsets == 64}
    return out


VARIANTS = [{}, TOP_DOWN, FORCED_BU, {"alpha": 0.5, "beta": 2.0}]


def _id(knobs) -> str:
    return "-".join(f"{k}={v}" for k, v in knobs.items()) or "defaults"


@pytest.mark.parametrize("knobs", VARIANTS, ids=[_id(k) for k in VARIANTS])
def test_batches_on_the_nasty_graphs(monkeypatch, emulation, knobs):
    run(monkeypatch, emulation, knobs, GRAPHS)


def test_without_parents_planned_the_rows_are_left_out(monkeypatch, emulation):
    """Told that no call will ask for parents (plan_predecessors(False), as the runner does
    for a run without them), prepare leaves out the width x n parent rows: the prepared
    bytes are fewer by exactly those, every answer is the same, and a call that asks for
    parents anyway is refused with one line."""
    cls = all_strategies()["msbfs.bfs"]
    g = eb.graph("rmat")
    sizes = {}
    with ec.emulated(monkeypatch, emulation, seed=1, patches=PATCHES, sms=2, resident=2):
        for planned in (True, False):
            strategy = cls(make_knobs(cls, BASE))
            strategy.plan_predecessors(planned)
            strategy.prepare(g)
            sizes[planned] = strategy.prepared_bytes()
            width = strategy.batch_size()
            if not planned:
                for batch in batches(g, width):
                    answers = [eb.host(a.to_host()) for a in strategy.traverse_batch(batch)]
                    for i, (s, got) in enumerate(zip(batch, answers, strict=True)):
                        check_answer(g, s, got, f"unplanned parents, source {i} ({s})")
                        assert got.parents is None
                with pytest.raises(ValueError, match=r"^msbfs.bfs was prepared without parent rows") as refused:
                    strategy.traverse_batch(batch, True)
                assert "\n" not in str(refused.value)
            strategy.release()
    assert sizes[True] - sizes[False] == width * g.n * 4


@pytest.mark.parametrize("knobs", [{}, {**FORCED_BU, "thread_edges": 2}, {"alpha": 0.5, "beta": 2.0, "width": 40},
                                   {"alpha": 0.5, "beta": 2.0, "thread_edges": 1, "profile": True}],
                         ids=["defaults", "bottom-up-thread_edges2", "switching-width40", "profile"])
def test_64bit_offset_build(monkeypatch, emulation, knobs):
    """The build the launcher picks from 2^31 edges on, forced by lowering its threshold."""
    run(monkeypatch, emulation, knobs, ["rmat", "directed", "star300"], offsets=64, preds=(True,))


COUNTED = [{"counters": True}, {**TOP_DOWN, "counters": True}, {**FORCED_BU, "counters": True},
           {**FORCED_BU, "thread_edges": 1, "counters": True}, {**FORCED_BU, "thread_edges": 0, "counters": True},
           {"alpha": 0.5, "beta": 2.0, "thread_edges": 2, "profile": True}, {"alpha": 2.0, "beta": 8.0, "profile": True}]


@pytest.mark.parametrize("knobs", COUNTED, ids=[_id(k) for k in COUNTED])
def test_level_counters_are_exact(monkeypatch, emulation, knobs):
    """The counting instantiation on every graph: the same checked answers, and each
    level's series equal to the host's replay (run's check_level_counters)."""
    run(monkeypatch, emulation, knobs, GRAPHS)


# Lanes loading 1 and 8 in-edges at once (the default build: 4), alone and handing lists
# to the warp after 2: the edges each level examines and the labels, exact (the replay).
@pytest.mark.parametrize("thread_edges", [0, 2])
@pytest.mark.parametrize("probe_batch", [1, 8])
def test_probe_batches(monkeypatch, emulation, probe_batch, thread_edges):
    run(monkeypatch, emulation, {**FORCED_BU, "probe_batch": probe_batch, "thread_edges": thread_edges,
                                 "counters": True}, GRAPHS)
    assert {dict(k).get("BU_BATCH") for k in emulation.defines} == {probe_batch}


# The build that reads frontier words through L1 (__ldca): the emulator's loads are one
# memory, so this checks the define reaches the kernel and the build's logic is unchanged.
def test_frontier_through_l1(monkeypatch, emulation):
    run(monkeypatch, emulation, {**FORCED_BU, "frontier_cache": "l1", "thread_edges": 2, "counters": True}, GRAPHS)
    assert {dict(k).get("BU_FRONT_L1") for k in emulation.defines} == {1}


# Passes of more than 64 sources: source sets of 2 words (65 to 128 sources) and of 4
# (129 to 256), each source checked on its own and every level's series exact. Top-down,
# a vertex's set is several words, so its queueing and its leaving m_u go through its
# marks (a level, a count of sources) instead of one word's atomic: the exact frontier
# and direction series say each vertex was queued once and left m_u once.
WIDE = [{"counters": True}, {**TOP_DOWN, "counters": True}, {**FORCED_BU, "thread_edges": 2, "counters": True},
        {"alpha": 0.5, "beta": 2.0, "hub_edges": 3, "profile": True}]


@pytest.mark.parametrize("width", [65, 128, 129, 256])
@pytest.mark.parametrize("knobs", WIDE, ids=[_id(k) for k in WIDE])
def test_passes_wider_than_64(monkeypatch, emulation, knobs, width):
    run(monkeypatch, emulation, {**knobs, "width": width}, GRAPHS)
    assert {dict(k).get("MSBFS_WORDS") for k in emulation.defines} == {ms.words_for(width)}


@pytest.mark.parametrize("seed", [2, 3])
def test_wide_passes_under_more_interleavings(monkeypatch, emulation, seed):
    run(monkeypatch, emulation, {"alpha": 2.0, "beta": 8.0, "thread_edges": 1, "counters": True, "width": 200},
        ["rmat", "star300", "directed"], seed=seed)


def test_sets_take_the_words_their_width_needs():
    assert [ms.words_for(w) for w in (1, 64, 65, 128, 129, 256)] == [1, 1, 2, 2, 4, 4]
    assert "MSBFS_WORDS" not in ms.kernel_defines(256)  # the 64-source build's key is unchanged
    assert ms.kernel_defines(256, words=2) == {**ms.kernel_defines(256), "MSBFS_WORDS": 2, "MSBFS_MIN_BLOCKS": 3}
    assert ms.kernel_defines(256, words=4)["MSBFS_MIN_BLOCKS"] == 2
    assert ms.kernel_defines(1024, words=4)["MSBFS_MIN_BLOCKS"] == 1


def test_counters_see_both_directions_and_the_warp(monkeypatch, emulation):
    """The replay is not vacuous: some checked pass has top-down and bottom-up levels,
    and a bottom-up level whose warps scanned past thread_edges (more in-edges than
    thread_edges for some vertex)."""
    passes = run(monkeypatch, emulation, {"alpha": 2.0, "beta": 8.0, "thread_edges": 1, "counters": True},
                 ["rmat", "star300"], preds=(False,))
    mixed = [p[0].counters for p in passes if 0 < int(p[0].counters["bottom_up_levels"]) < len(p[0].counters["direction"])]
    assert mixed
    assert any((c["edges_examined"] > c["vertices_examined"])[c["direction"] == 1].any() for c in mixed)


HUBS = [{"hub_edges": 1, "counters": True}, {"hub_edges": 3, "counters": True},
        {**TOP_DOWN, "hub_edges": 1, "counters": True}, {"alpha": 0.5, "beta": 2.0, "hub_edges": 3, "profile": True}]


@pytest.mark.parametrize("room", [8, "default"])
@pytest.mark.parametrize("knobs", HUBS, ids=[_id(k) for k in HUBS])
def test_hub_pass(monkeypatch, emulation, knobs, room):
    """Lists of hub_edges or more left to the hub pass (1: every list; 3: the hubs and
    odd lists of these graphs), with room for 8 (the rest stay with their tiles) or for
    MSBFS_SPREAD (1024: all of them here): the same exact answers and per-level series,
    hub_levels on exactly the top-down levels with such a list (check_pass). Not
    vacuous: some pass ran the hub pass, and some level had more such lists than 8."""
    if room == 8:
        defines = ms.kernel_defines
        monkeypatch.setattr(ms, "kernel_defines", lambda *a, **kw: {**defines(*a, **kw), **SPREAD8})
    most = []  # per pass: the most such lists a top-down level had

    def count_hubs(g, answers, k):
        dist = np.stack([np.asarray(a.distances) for a in answers])
        deg = g.out_degrees()
        most.append(max((int((deg[(dist == L).any(axis=0)] >= k.hub_edges).sum())
                         for L, bu in enumerate(expected_directions(g, answers, k)) if not bu), default=0))

    passes = run(monkeypatch, emulation, knobs, GRAPHS, check=count_hubs)
    assert {dict(d).get("MSBFS_SPREAD") for d in emulation.defines} == {8 if room == 8 else None}
    assert any(int(p[0].counters["hub_levels"]) > 0 for p in passes)
    assert max(most) > 8


def test_the_hub_pass_changes_no_answer(monkeypatch, emulation):
    """hub_edges 0 (tiles only) and 1 give the same distances and series on every graph."""
    off = run(monkeypatch, emulation, {"hub_edges": 0, "counters": True}, GRAPHS, preds=(False,))
    on = run(monkeypatch, emulation, {"hub_edges": 1, "counters": True}, GRAPHS, preds=(False,))
    assert all(int(p[0].counters["hub_levels"]) == 0 for p in off)
    for a, b in zip(off, on, strict=True):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x.distances, y.distances)
            for key in ms.PER_LEVEL:
                np.testing.assert_array_equal(x.counters[key], y.counters[key])


# Bottom-up lists held past warp_edges for the hub pass: after 1, 2 or 5 in-edges, the
# thread alone or with its warp, 64 and wider sets, both offset widths.
BU_HUBS = [{**FORCED_BU, "warp_edges": 1, "counters": True},
           {**FORCED_BU, "warp_edges": 5, "thread_edges": 2, "counters": True},
           {**FORCED_BU, "warp_edges": 2, "thread_edges": 0, "counters": True},
           {"alpha": 0.5, "beta": 2.0, "warp_edges": 2, "thread_edges": 1, "profile": True},
           {**FORCED_BU, "warp_edges": 2, "thread_edges": 1, "counters": True, "width": 130}]


def held_counter(held: list):
    """A run() check that appends, per bottom-up level of the pass, the lists it holds
    (the replay's)."""
    def count_held(g, answers, k):
        dist = np.stack([np.asarray(a.distances) for a in answers])
        held.extend(bottom_up_scan(g, dist, L, int(k.thread_edges), int(k.warp_edges))[2]
                    for L, bu in enumerate(expected_directions(g, answers, k)) if bu)
    return count_held


@pytest.mark.parametrize("knobs", BU_HUBS, ids=[_id(k) for k in BU_HUBS])
def test_bottom_up_hub_pass(monkeypatch, emulation, knobs):
    """Lists still lacking sources past warp_edges are held for the hub pass, the rest of
    their in-edges a chunk a warp over the grid: exact answers and parents, every
    per-level series exact against the replay (each held list's in-edges all examined),
    hub_levels on exactly the levels with a held list. Not vacuous: some level held a list."""
    held = []
    passes = run(monkeypatch, emulation, knobs, GRAPHS, check=held_counter(held))
    assert max(held) > 0 and any(int(p[0].counters["hub_levels"]) > 0 for p in passes)


def test_held_lists_have_no_room_limit(monkeypatch, emulation):
    """In the build whose top-down hub queue holds 8 lists, a level holding more than 8
    lists still gets them all through the hub pass (they queue after that room): exact
    answers and series."""
    defines = ms.kernel_defines
    monkeypatch.setattr(ms, "kernel_defines", lambda *a, **kw: {**defines(*a, **kw), **SPREAD8})
    held = []
    run(monkeypatch, emulation, {**FORCED_BU, "warp_edges": 1, "counters": True}, GRAPHS, check=held_counter(held))
    assert {dict(d).get("MSBFS_SPREAD") for d in emulation.defines} == {8}
    assert max(held) > 8


def test_bottom_up_hub_pass_64bit_offsets(monkeypatch, emulation):
    run(monkeypatch, emulation, {**FORCED_BU, "warp_edges": 2, "thread_edges": 1, "counters": True},
        ["rmat", "star300"], offsets=64)


def test_the_bottom_up_hub_pass_changes_no_answer(monkeypatch, emulation):
    """warp_edges 0 (warps only) and 1 give the same distances, frontiers and labels on
    every graph."""
    off = run(monkeypatch, emulation, {**FORCED_BU, "warp_edges": 0, "counters": True}, GRAPHS, preds=(False,))
    on = run(monkeypatch, emulation, {**FORCED_BU, "warp_edges": 1, "counters": True}, GRAPHS, preds=(False,))
    assert all(int(p[0].counters["hub_levels"]) == 0 for p in off)
    for a, b in zip(off, on, strict=True):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x.distances, y.distances)
            for key in ("direction", "frontier", "vertices_examined", "labels"):
                np.testing.assert_array_equal(x.counters[key], y.counters[key])


def test_held_lists_bound_the_bottom_up_hub_queue():
    """Room for every list of more than warp_edges in-edges: at most m / (warp_edges + 1),
    and n; none with warp_edges 0."""
    assert ms.held_lists(10, 100, 0) == 0
    assert ms.held_lists(10, 100, 1) == 10
    assert ms.held_lists(1000, 100, 4) == 20
    assert ms.held_lists(1000, 99, 4) == 19  # 20 lists of 5 would need 100 edges


def test_a_warp_edges_that_could_overflow_the_held_count_is_unavailable(monkeypatch, emulation):
    """A level counts its held lists in the bits above MS_HELD_SHIFT: a warp_edges under
    which more lists could be held than those bits count is refused in prepare, naming the
    least that fits (here the counter stood in for by one of 4 lists)."""
    monkeypatch.setattr(ms, "HELD_MAX", 4)
    g = eb.graph("rmat")
    cls = all_strategies()["msbfs.bfs"]
    with ec.emulated(monkeypatch, emulation, patches=PATCHES, sms=2, resident=2):
        strategy = cls(make_knobs(cls, {**BASE, "warp_edges": 1}))
        with pytest.raises(StrategyUnavailable, match=rf"warp_edges 1 could hold [\d,]+ lists .* use warp_edges "
                                                       rf"{g.m // 4} or more, or 0"):
            strategy.prepare(g)
        fits = cls(make_knobs(cls, {**BASE, "warp_edges": g.m // 4}))
        fits.prepare(g)  # m / (m // 4 + 1) < 4 lists
        fits.release()
        off = cls(make_knobs(cls, {**BASE, "warp_edges": 0}))
        off.prepare(g)
        off.release()


def test_counters_name_their_instantiation():
    assert ms.kernel_name(False) == "msbfs_bfs<false, false>"
    assert ms.kernel_name(True, stats=True) == "msbfs_bfs<true, true>"
    assert set(ms.KERNEL_NAMES) == {ms.kernel_name(p, s) for p in (False, True) for s in (False, True)}


def test_the_emulated_profile_stamps_every_level_apart(monkeypatch, emulation):
    """The emulator's clock moves at every reading: each level's stamp is its own."""
    passes = run(monkeypatch, emulation, {"alpha": 0.5, "beta": 2.0, "profile": True}, ["rmat"], preds=(False,))
    assert all((np.diff(p[0].counters["profile"]) > 0).all() for p in passes)


def test_level_rows_state_the_floor():
    """level_bytes: 4 + 8 bytes an edge examined (8 a word of a wider set), 4 a label; the rows' microseconds from
    consecutive stamps, the set-up's from the kernel's start to level 0."""
    c = {"pass_levels": 2, "direction": np.array([0, 1]), "frontier": np.array([1, 5]),
         "vertices_examined": np.array([1, 9]), "edges_examined": np.array([3, 20]), "labels": np.array([5, 0]),
         "profile": np.array([1000, 4000, 6500, 10500])}
    rows = ms.level_rows(c)
    assert [(r["direction"], r["us"], r["bytes"]) for r in rows] == [("top-down", 2.5, 56), ("bottom-up", 4.0, 240)]
    assert ms.setup_us(c) == 3.0
    assert ms.level_bytes(np.array([1, 2]), np.array([3, 0])).tolist() == [24, 24]
    # a 4-word set read for each edge: 4 + 32 bytes
    assert [r["bytes"] for r in ms.level_rows(c, 4)] == [3 * 36 + 5 * 4, 20 * 36]
    assert ms.level_bytes(np.array([1, 2]), np.array([3, 0]), 2).tolist() == [32, 40]


def test_traverse_is_a_batch_of_one(monkeypatch, emulation):
    """traverse(source) (the source as a kernel argument, no copy) on every nasty graph,
    through the shared harness of the emulated BFS tests."""
    for knobs in ({}, FORCED_BU):
        eb.run(monkeypatch, emulation, "msbfs.bfs", {**BASE, **knobs}, list(eb.GRAPHS), patches=PATCHES,
               sms=2, resident=2)


def test_traverse_has_no_fixed_cost(monkeypatch, emulation):
    """A warm traverse() allocates nothing on the device and reads nothing back."""
    fc.check_fixed_cost(monkeypatch, emulation, "bfs", "msbfs.bfs", {**BASE}, patches=PATCHES, sms=2, resident=2)


def test_the_switch_goes_both_ways(monkeypatch, emulation):
    """Beamer's thresholds on the R-MAT graph and the broom: some 64-source pass goes
    bottom-up and comes back top-down before its last level."""
    passes = run(monkeypatch, emulation, {"alpha": 2.0, "beta": 8.0}, ["rmat", "broom"], preds=(False,))
    counts = [(int(p[0].counters["bottom_up_levels"]), int(p[0].counters["pass_levels"])) for p in passes]
    assert any(0 < bu < levels - 1 for bu, levels in counts), counts


@pytest.mark.parametrize("seed", [2, 3])
def test_more_thread_interleavings(monkeypatch, emulation, seed):
    """Bottom-up here scans past the first in-edge with the whole warp (thread_edges 1), or
    never hands a list to the warp (0)."""
    for knobs in ({}, {**FORCED_BU, "thread_edges": 1}, {"alpha": 2.0, "beta": 8.0, "thread_edges": 1},
                  {**FORCED_BU, "thread_edges": 0}):
        run(monkeypatch, emulation, knobs, ["loops_dups", "rmat", "directed", "star300"], seed=seed)


def test_bad_batches_are_refused(monkeypatch, emulation):
    cls = all_strategies()["msbfs.bfs"]
    with ec.emulated(monkeypatch, emulation, patches=PATCHES, sms=2, resident=2):
        strategy = cls(make_knobs(cls, {**BASE, "width": 4}))
        g = eb.graph("path60")
        strategy.prepare(g)
        assert strategy.batch_size() == 4
        for bad in ([], [0] * 5):
            with pytest.raises(ValueError, match="batch holds 1 to 4"):
                strategy.traverse_batch(bad)
        with pytest.raises(ValueError, match="out of range"):
            strategy.traverse_batch([0, g.n])
        strategy.release()


# ---- knobs (CPU only) ----


@pytest.mark.parametrize("knobs, what", [
    ({"width": 0}, "width"), ({"width": 257}, "width"), ({"width": 3.0}, "width"), ({"width": True}, "width"),
    ({"alpha": -1.0}, "alpha"), ({"beta": "x"}, "beta"), ({"alpha": True}, "alpha"),
    ({"bottom_up": 1}, "bottom_up"), ({"cta_size": 96}, "cta_size"), ({"cta_size": 2048}, "cta_size"),
    ({"blocks_per_sm": -1}, "blocks_per_sm"), ({"blocks_per_sm": 1.5}, "blocks_per_sm"),
    ({"thread_edges": -1}, "thread_edges"), ({"thread_edges": 2**31}, "thread_edges"),
    ({"thread_edges": 2.0}, "thread_edges"), ({"counters": 1}, "counters"), ({"profile": "yes"}, "profile"),
    ({"hub_edges": -1}, "hub_edges"), ({"hub_edges": 2**31}, "hub_edges"), ({"hub_edges": 1.5}, "hub_edges"),
    ({"probe_batch": 3}, "probe_batch"), ({"probe_batch": 16}, "probe_batch"), ({"probe_batch": True}, "probe_batch"),
    ({"frontier_cache": "L1"}, "frontier_cache"), ({"frontier_cache": None}, "frontier_cache"),
])
def test_bad_knobs_are_one_clear_error(knobs, what):
    cls = all_strategies()["msbfs.bfs"]
    with pytest.raises(UserError, match=what) as err:
        cls(make_knobs(cls, knobs))
    assert "\n" not in str(err.value)


def test_registration():
    cls = all_strategies()["msbfs.bfs"]
    assert cls.paper == "beyond" and cls.device_kind == "gpu" and cls.timing == "events"
    assert cls.teps == "equivalent" and any("batch" in c for c in cls.caveats)
    k = cls.Knobs()
    assert (k.width, k.alpha, k.beta, k.bottom_up, k.cta_size, k.blocks_per_sm, k.thread_edges, k.probe_batch,
            k.hub_edges, k.warp_edges, k.counters, k.profile) == (256, 8.0, 18.0, True, 256, 0, 32, 4, 4096, 1024,
                                                                   False, False)
    assert cls(make_knobs(cls, {"width": 7})).batch_size() == 7


def test_64bit_offsets_from_2_31_edges():
    assert not ms.offsets64(2**31 - 1) and ms.offsets64(2**31)
    assert "MSBFS_OFFSET64" not in ms.kernel_defines(256)
    assert ms.kernel_defines(256, offset64=True) == {**ms.kernel_defines(256), "MSBFS_OFFSET64": 1}
    assert "BU_BATCH" not in ms.kernel_defines(256)  # nor the default probe batch's
    assert ms.kernel_defines(256, probe_batch=8) == {**ms.kernel_defines(256), "BU_BATCH": 8}
    assert ms.kernel_defines(256, frontier_cache="l1") == {**ms.kernel_defines(256), "BU_FRONT_L1": 1}
    assert {tuple(sorted(d.items())) for d in ms.KERNEL_DEFINES} == {
        tuple(sorted(ms.kernel_defines(c, w).items())) for c in ms.CTA_SIZES for w in (False, True)} | {
        tuple(sorted(ms.kernel_defines(256, w, b).items())) for b in PROBE_BATCHES for w in (False, True)} | {
        tuple(sorted(ms.kernel_defines(256, w, frontier_cache="l1").items())) for w in (False, True)} | {
        tuple(sorted(ms.kernel_defines(256, w, words=x).items())) for x in (2, 4) for w in (False, True)}
