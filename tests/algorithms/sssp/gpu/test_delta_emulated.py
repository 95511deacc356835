"""sssp.delta and sssp.near_far run end to end on the CPU: the real launcher with numpy
in place of CuPy, delta.cu (compiled unchanged) under the CUDA emulator
(tests/gpu/emu/delta_driver.cpp, tests/gpu/emulated_cupy.py). No GPU needed, only g++.

Scaled down: CTAs of 128 threads, 2 SMs with 2 resident CTAs each (the persistent grid:
4 CTAs meeting at grid barriers), so a hub's list (300 edges) goes through the CTA-wide
gathering and the others through the warp and scan stages; fibers switch at atomics and
__ldcg at random (seeded), so CTAs race for one vertex's distance and stamps. Every
answer is checked exactly against cpu.dijkstra (distances; with predecessors the
shortest-path tree of sssp/validate.py), for delta = 1 (a bucket per distance), the
default rule, 2^62 (one bucket: Bellman-Ford with a worklist) and a delta that splits
each graph's weights into light and heavy edges. The bucket count is exact: one per
distinct dist // delta of the reached vertices (empty buckets are skipped).
Plus the CPU-only pieces: knobs, the default delta rule, registration.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from gpubfs_cli.algorithms.sssp.cpu.dijkstra import dijkstra
from gpubfs_cli.algorithms.sssp.gpu.delta import strategies as ds
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.strategy import StrategyUnavailable, all_strategies, make_knobs
from gpubfs_cli.errors import UserError
from gpubfs_cli.gpu import device_graph
from gpubfs_cli.graph import samples
from tests.algorithms.sssp.gpu import weighted_graphs as wg
from tests.gpu import emulated_cupy as ec
from tests.gpu import fixed_cost as fc

CTA = 128
DELTA = ec.Family(ds.KERNELS, "delta_driver.cpp", (ds,),
                  defines=[ds.kernel_defines(CTA, False), ds.kernel_defines(CTA, True),
                           ds.kernel_defines(CTA, False, profile=True),
                           ds.kernel_defines(CTA, False, leader_async=True),
                           ds.kernel_defines(CTA, True, leader_async=True),
                           ds.kernel_defines(384, False), ds.kernel_defines(384, False, leader_async=True)])
PATCHES = {"blocks_per_sm": lambda kernel, block, shared_mem=0: 2,
           "PARTITION_BLOCK": 64, "PARTITION_BLOCKS_PER_SM": 1}
NAMES = ["sssp.delta", "sssp.near_far"]


@pytest.fixture(scope="module")
def emulation() -> ec.Emulation:
    return ec.Emulation(DELTA, ec.build_libraries(DELTA))


def test_params_mirror_the_compiled_struct(emulation):
    """PARAMS has the fields of delta.cuh's DeltaParams, in its order, at its offsets, and
    its size (each weight width's build)."""
    for lib in emulation.libs.values():
        ec.assert_mirrors(lib, ds.PARAMS)


# ---- graphs ---------------------------------------------------------------------------


def zero_undirected(seed: int = 9) -> object:
    """Undirected, half the weights 0: every zero-weight edge is a zero-weight two-cycle,
    and zero-weight components hold longer cycles; a few weights tie."""
    rng = np.random.default_rng(seed)
    src, dst = samples.grid_edges(8, 9)
    w = np.where(rng.random(len(src)) < 0.5, 0, rng.integers(1, 4, len(src)))
    return samples.from_edges(src, dst, 72, weights=w, name="zero_undirected")


def wide_hub(leaves: int = ds.SMALL_CAP + 200) -> object:
    """A path into a hub whose list is longer than the leader's queues can count (the
    only way to most of its leaves), then an edge on from every tenth leaf; undirected."""
    rng = np.random.default_rng(5)
    hub = 3
    ls = np.arange(hub + 1, hub + 1 + leaves)
    tail = np.arange(ls[-1] + 1, ls[-1] + 1 + leaves // 10)
    src = np.concatenate([[0, 1, 2], np.full(leaves, hub), ls[::10][:len(tail)]])
    dst = np.concatenate([[1, 2, hub], ls, tail])
    w = rng.integers(1, 50, len(src))
    return samples.from_edges(src, dst, int(tail[-1]) + 1, weights=w, name="wide_hub")


def many_hubs(lists: int = ds.HUB_CAP + 40) -> object:
    """Directed: the source 0 reaches `lists` vertices at once, each with 3 out-edges to a
    shared ring of 50 vertices: one round with more lists than a hub pass takes (the rest
    stay with the tiles), at hub_edges 1 to 3."""
    rng = np.random.default_rng(11)
    mids = np.arange(1, lists + 1)
    ring = lists + 1 + np.arange(50)
    src = np.concatenate([np.zeros(lists, np.int64), np.repeat(mids, 3), ring])
    dst = np.concatenate([mids, rng.choice(ring, 3 * lists), np.roll(ring, 1)])
    w = rng.integers(1, 30, len(src))
    return samples.from_edges(src, dst, int(ring[-1]) + 1, weights=w, directed=True, name="many_hubs")


def one_hub(leaves: int = 200, tail: int = 8) -> object:
    """Directed: a path 0 -> 1 -> 2 into hub 3, whose only way in it is, from the hub to
    `leaves` leaves, and from the first leaf a path of `tail` more vertices: the hub enters
    one round's frontier once, and rounds go on after it."""
    after = 4 + leaves + np.arange(tail)
    src = np.concatenate([[0, 1, 2], np.full(leaves, 3), [4], after[:-1]])
    dst = np.concatenate([[1, 2, 3], np.arange(4, 4 + leaves), after])
    w = np.arange(1, len(src) + 1) % 17 + 1
    return samples.from_edges(src, dst, 4 + leaves + tail, weights=w, directed=True, name="one_hub")


GRAPHS = dict(samples.NASTY_SSSP)
GRAPHS["zero_undirected"] = zero_undirected
GRAPHS["grid9x13-w"] = lambda: samples.with_rule_weights(samples.grid(9, 13))
GRAPHS["rmat-w"] = lambda: samples.with_rule_weights(samples.rmat(8, 6, 4, permute=True), seed=3)
OTHER = {"wide_hub": wide_hub, "many_hubs": many_hubs, "one_hub": one_hub,
         "grid-w7": lambda: samples.grid(6, 7, weight=7)}
HARD = ["zero_cycles", "zero_undirected", "hub", "loops_dups", "big_int64", "directed_random"]


@functools.cache
def graph(name: str):
    return {**GRAPHS, **OTHER}[name]()


def sources(g) -> list[int]:
    return samples.pick_sources(g, k=1)[:3]


def split_delta(g) -> int:
    """A delta with light and heavy edges on both sides where the weights allow it: the
    median of the distinct weights (at least 1; one below it when it is the largest)."""
    ws = np.unique(np.asarray(g.weights, dtype=np.int64))
    if len(ws) == 0:
        return 1
    d = int(ws[(len(ws) - 1) // 2])
    if d == int(ws[-1]):
        d -= 1
    return max(d, 1)


DELTAS = ["1", "default", "huge", "split"]


def delta_of(which: str, g) -> int:
    return {"1": 1, "default": 0, "huge": ds.MAX_DELTA, "split": split_delta(g)}[which]


# ---- running --------------------------------------------------------------------------


def host(a: Answer) -> Answer:
    """A copy: the returned arrays are the strategy's buffers, reused by the next run."""
    a = a.to_host()
    return Answer(np.array(a.distances), None if a.parents is None else np.array(a.parents), dict(a.counters))


def check_phases(c: dict, label: str) -> None:
    """The profile build's phases: the barrier's counted wherever the leader ran a round;
    the four before it are counted together, in the rounds that had edges (a round of
    vertices without light edges, a sink's or a single vertex's, has only its barrier)."""
    *edges, barrier = [c[key] for key in ds.PROFILE_COUNTERS]
    if not c["small_rounds"]:
        assert not any(edges) and not barrier, label
    else:
        assert barrier > 0 and (all(edges) or not any(edges)), label


def check_counters(heavy: bool, delta: int, g, ref: np.ndarray, got: Answer, pred: bool) -> None:
    """The counters of a traversal with bucket width `delta` (heavy: sssp.delta); ref:
    cpu.dijkstra's distances."""
    c = got.counters
    assert c["delta"] == delta
    reached = ref >= 0
    assert c["buckets"] == len(np.unique(ref[reached] // delta)), c
    assert c["light_rounds"] >= c["buckets"], c
    if heavy:
        assert c["heavy_rounds"] == c["buckets"], c  # each bucket settles a vertex at least
    else:
        assert c["heavy_rounds"] == 0, c
    # every reached vertex relaxes each of its edges at least once
    assert c["relaxations"] >= int(g.out_degrees()[reached].sum()), c
    assert 0 <= c["small_rounds"] <= c["light_rounds"], c
    assert c["small_rounds"] == 0 or c["small_entries"] > 0, c
    assert c["ns_small"] + c["ns_grid_rounds"] <= c["ns_search"], c
    assert c["far_scanned"] >= c["buckets"] - 1, c  # every bucket but the first comes from the far pile
    # a hub pass follows a grid round (light or heavy) and spreads 1 to HUB_CAP lists
    grid_rounds = c["light_rounds"] - c["small_rounds"] + c["heavy_rounds"]
    assert 0 <= c["hub_rounds"] <= grid_rounds, c
    assert c["hub_rounds"] <= c["hub_lists"] <= ds.HUB_CAP * c["hub_rounds"], c
    if pred:
        assert c["parent_rounds"] >= 2, c
    else:
        assert "parent_rounds" not in c


def run(monkeypatch, emulation, name: str, knobs: dict, graph_names, *, seed: int = 1,
        predecessors=(False, True)) -> list[Answer]:
    cls = all_strategies("sssp")[name]
    answers = []
    with ec.emulated(monkeypatch, emulation, sms=2, seed=seed, patches=PATCHES):
        for gname in graph_names:
            g = graph(gname)
            k = {"cta_size": CTA, **knobs}
            if isinstance(k.get("delta"), str):
                k["delta"] = delta_of(k["delta"], g)
            strategy = cls(make_knobs(cls, k))
            strategy.prepare(g)
            for s in sources(g):
                for pred in predecessors:
                    got = host(strategy.traverse(s, pred))
                    label = f"{name} {k} on {gname}"
                    wg.check_sssp(g, s, got, pred, label)
                    assert strategy.delta == ds.knob_delta(g, strategy.knobs)[0]
                    check_counters(strategy.heavy, strategy.delta, g, dijkstra(g, s).distances, got, pred)
                    answers.append(got)
            strategy.release()
    return answers


# ---- tests on the emulator ---------------------------------------------------------------


@pytest.mark.parametrize("which", DELTAS)
@pytest.mark.parametrize("name", NAMES)
def test_every_graph_matches_dijkstra(monkeypatch, emulation, name, which):
    """At the default small_frontier the leader runs most of these small graphs' rounds."""
    run(monkeypatch, emulation, name, {"delta": which}, list(GRAPHS))


@pytest.mark.parametrize("scale", [0.5, 64.0])
@pytest.mark.parametrize("name", NAMES)
def test_delta_scale_sets_the_width(monkeypatch, emulation, name, scale):
    """delta_scale: half a mean weight (many buckets) and 64 (few): the width used is that
    many mean weights (run() checks it against default_delta) and every answer Dijkstra's."""
    answers = run(monkeypatch, emulation, name, {"delta_scale": scale}, ["grid9x13-w", "rmat-w"], predecessors=(False,))
    assert {a.counters["delta"] for a in answers} == {ds.default_delta(graph(g), scale) for g in ("grid9x13-w", "rmat-w")}


@pytest.mark.parametrize("small", [(0, 4096), (1, 4096), (5, 4096), (1024, 3)])
@pytest.mark.parametrize("name", NAMES)
def test_small_frontier_mode_off_and_handing_back(monkeypatch, emulation, name, small):
    """small_frontier 0: the grid runs every round; (1 or 5 vertices, 4096 edges) and
    (1024 vertices, 3 edges): the leader enters, then hands rounds back to the grid (too
    many vertices, or too many light edges), and rounds of one kind and the other
    alternate inside a bucket. wide_hub's hub has more light edges than the leader's
    queues count: the grid must take that round."""
    knobs = {"delta": "split", "small_frontier": small[0], "small_edges": small[1]}
    answers = run(monkeypatch, emulation, name, knobs, [*GRAPHS, "wide_hub"],
                  predecessors=(False,) if small[0] else (False, True))
    small_rounds = [a.counters["small_rounds"] for a in answers]
    grid_rounds = [a.counters["light_rounds"] - a.counters["small_rounds"] for a in answers]
    if small[0] == 0:
        assert not any(small_rounds)
    else:
        assert any(small_rounds) and any(grid_rounds)
        assert any(s and g for s, g in zip(small_rounds, grid_rounds, strict=True))


@pytest.mark.parametrize("hub_edges", [1, 8, 64])
@pytest.mark.parametrize("name", NAMES)
def test_the_hub_pass_spreads_long_lists(monkeypatch, emulation, name, hub_edges):
    """hub_edges 1, 8, 64 with the grid running every round (small_frontier 0): the lists
    that long go to a hub pass after the round's barrier, spread over every warp, and
    every answer is still Dijkstra's (light and heavy rounds both: the split delta)."""
    knobs = {"delta": "split", "small_frontier": 0, "hub_edges": hub_edges}
    answers = run(monkeypatch, emulation, name, knobs, [*HARD, "rmat-w", "wide_hub", "many_hubs"])
    spread = [a.counters["hub_rounds"] > 0 for a in answers if a.counters["relaxations"]]
    assert all(spread) if hub_edges == 1 else any(spread)  # at 1 every round with an edge has a hub


@pytest.mark.parametrize("name", NAMES)
def test_a_round_with_more_hubs_than_the_pass_takes(monkeypatch, emulation, name):
    """many_hubs's second round has HUB_CAP + 40 lists of 3 edges: at hub_edges 3 the pass
    spreads HUB_CAP of them and the tiles run the rest; the answers are Dijkstra's."""
    knobs = {"delta": ds.MAX_DELTA, "small_frontier": 0, "hub_edges": 3}
    answers = run(monkeypatch, emulation, name, knobs, ["many_hubs"], predecessors=(False,))
    from_zero = [a for a in answers if a.counters["relaxations"] > 3 * ds.HUB_CAP]  # the other sources: the ring
    assert from_zero and all(a.counters["hub_lists"] >= ds.HUB_CAP for a in from_zero)


@pytest.mark.parametrize("name", NAMES)
def test_a_hub_is_spread_once_per_round_it_is_in(monkeypatch, emulation, name):
    """one_hub: the hub enters one frontier once (one path in), so one hub pass spreads one
    list, whatever the rounds after it: a count left over in a queue's word would spread
    it again three rounds later. hub_edges 0: no hub pass at all. Every vertex enters a
    frontier once, so each edge it reaches is relaxed exactly once: a list both spread and
    left to its tile would count twice."""
    knobs = {"delta": ds.MAX_DELTA, "small_frontier": 0}
    g = graph("one_hub")
    for hub_edges, expected in ((100, 1), (0, 0), (201, 0)):  # 201: longer than any list
        answers = run(monkeypatch, emulation, name, {**knobs, "hub_edges": hub_edges}, ["one_hub"],
                      predecessors=(False,))
        for s, a in zip(sources(g), answers, strict=True):
            reached = dijkstra(g, s).distances >= 0
            assert a.counters["relaxations"] == int(g.out_degrees()[reached].sum()), a.counters
            if a.counters["relaxations"]:  # a source that reaches the hub
                assert (a.counters["hub_rounds"], a.counters["hub_lists"]) == (expected, expected), a.counters


@pytest.mark.parametrize("small_frontier", [0, 256])
def test_light_rounds_relax_light_edges_only(monkeypatch, emulation, small_frontier):
    """sssp.delta with delta 1 on a lattice of weight 7: every edge is heavy, so the light
    rounds (the grid's, or the leader's) relax none, and each reached vertex's edges are
    relaxed once, by the heavy round of its bucket (delta 1: the bucket of its final
    distance). A light round that also took the heavy part of a list would count them
    twice."""
    g = graph("grid-w7")
    knobs = {"delta": 1, "small_frontier": small_frontier}
    answers = run(monkeypatch, emulation, "sssp.delta", knobs, ["grid-w7"], predecessors=(False,))
    for s, a in zip(sources(g), answers, strict=True):
        reached = dijkstra(g, s).distances >= 0
        assert a.counters["relaxations"] == int(g.out_degrees()[reached].sum()), a.counters


def test_no_hub_pass_where_no_list_is_that_long():
    """hub_threshold: the kernel gets 0 (no pass, no count read a round) where the graph's
    longest list is shorter than hub_edges, else hub_edges; 0 stays 0."""
    g = graph("one_hub")  # the hub's list: 200 edges
    assert [ds.hub_threshold(g, h) for h in (0, 1, 200, 201, 2048)] == [0, 1, 200, 0, 0]
    assert ds.hub_threshold(samples.single_vertex(directed=True, weighted=True), 1) == 0


@pytest.mark.parametrize("name", NAMES)
def test_a_list_longer_than_the_leaders_queue_goes_to_the_grid(monkeypatch, emulation, name):
    """At the largest threshold, the hub's round (one vertex, more light edges than the
    leader's counts hold) is handed back at once and the grid runs it."""
    for a in run(monkeypatch, emulation, name, {"delta": ds.MAX_DELTA}, ["wide_hub"], predecessors=(False,)):
        assert 0 < a.counters["small_rounds"] < a.counters["light_rounds"], a.counters


@pytest.mark.parametrize("name", NAMES)
def test_the_leader_runs_a_lattice_alone(monkeypatch, emulation, name):
    """A small lattice's rounds all fit the default threshold: the leader runs every light
    round, each bucket's first included."""
    for a in run(monkeypatch, emulation, name, {"delta": "default"}, ["grid9x13-w"], predecessors=(False,)):
        assert a.counters["small_rounds"] == a.counters["light_rounds"] > 0, a.counters


@pytest.mark.parametrize("name", NAMES)
def test_the_profile_build_splits_the_leaders_rounds(monkeypatch, emulation, name):
    """profile: the profile build's answers (run() checks each against Dijkstra), with the
    leader's rounds split into five phases, each counted wherever the leader ran a round
    and their sum within ns_small (one clock in the emulator: the phases lie inside the
    leader's spans). The timed build reports no phases."""
    graphs = ["grid9x13-w", "rmat-w", "wide_hub", "single", "directed_random"]
    answers = run(monkeypatch, emulation, name, {"delta": "split", "profile": True}, graphs)
    assert any(a.counters["small_rounds"] for a in answers)
    for a in answers:
        c = a.counters
        check_phases(c, str(c))
        assert sum(c[key] for key in ds.PROFILE_COUNTERS) <= c["ns_small"], c
    plain = run(monkeypatch, emulation, name, {"delta": "split"}, graphs[:1], predecessors=(False,))
    assert not set(ds.PROFILE_COUNTERS) & set(plain[0].counters)


@pytest.mark.parametrize("small_frontier", [0, 256])
def test_direct_rounds(monkeypatch, emulation, small_frontier):
    """near-far's direct_below: grid rounds of fewer vertices take their atomics without a
    look first, on every graph (the grid alone, and with the leader), at the default width
    and one bucket, with the threads' interleavings of two seeds; every answer Dijkstra's."""
    for seed in (1, 5):
        for which in ("default", "huge", "1"):
            run(monkeypatch, emulation, "sssp.near_far",
                {"delta": which, "direct_below": 1 << 20, "small_frontier": small_frontier},
                [*GRAPHS, "wide_hub"], seed=seed)


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("name", NAMES)
def test_the_async_leader(monkeypatch, emulation, name, seed):
    """leader_async: the leader's warps take vertices from one pool with no rounds; every
    answer Dijkstra's (run() checks), at every width, on every graph, with three seeds of
    the threads' interleavings, and its batches counted where it ran."""
    answers = []
    for which in DELTAS:
        answers += run(monkeypatch, emulation, name, {"delta": which, "leader_async": True},
                       [*GRAPHS, "wide_hub"], seed=seed)
    assert any(a.counters["async_batches"] for a in answers)
    assert all(a.counters["small_rounds"] == a.counters["small_entries"] for a in answers)


@pytest.mark.parametrize("leader_async", [False, True])
@pytest.mark.parametrize("name", NAMES)
def test_a_cta_of_twelve_warps(monkeypatch, emulation, name, leader_async):
    """cta_size 384: 12 warps, not a power of two (the block scans over its warps, the
    leader's rounds and its pool, the tiles of the grid's rounds), with each leader, on the
    lattice, the skewed graph and the zero-weight cycles; Dijkstra's answers (run() checks)."""
    answers = run(monkeypatch, emulation, name, {"cta_size": 384, "leader_async": leader_async, "small_edges": 1536},
                  ["grid9x13-w", "rmat-w", "zero_cycles"])
    assert any(a.counters["small_rounds"] for a in answers)
    assert any(a.counters.get("async_batches", 0) for a in answers) == leader_async


@pytest.mark.parametrize("small", [(1, 4096), (5, 4096), (1024, 3), (1, ds.SMALL_EDGES_MAX)])
@pytest.mark.parametrize("name", NAMES)
def test_the_async_leader_hands_back(monkeypatch, emulation, name, small):
    """The asynchronous leader stops and hands its pool to the grid as a round: when the
    pool holds more than small_frontier vertices (1 or 5), when a warp takes a batch wider
    than small_edges / warps (3: any hub's), and when pushes find the pool full (one hub's
    5,000 leaves pushed by one batch, no batch too wide, after the first push stopped the
    takes: 4,096 fill the pool, the rest go straight to the grid's round): the grid then
    runs rounds after it."""
    knobs = {"delta": ds.MAX_DELTA, "leader_async": True, "small_frontier": small[0], "small_edges": small[1]}
    with monkeypatch.context() as m:
        m.setitem(OTHER, "hub5000", lambda: one_hub(leaves=5000))
        names = ["hub5000"] if small[1] == ds.SMALL_EDGES_MAX else ["grid9x13-w", "rmat-w", "one_hub", "wide_hub"]
        answers = run(monkeypatch, emulation, name, knobs, names, predecessors=(False,))
    grid_rounds = [a.counters["light_rounds"] - a.counters["small_entries"] for a in answers]
    assert all(a.counters["small_entries"] for a in answers)
    assert any(grid_rounds), [a.counters for a in answers]


def test_async_leader_and_profile_are_one_or_the_other():
    with pytest.raises(ValueError, match="leader_async"):
        ds.NearFarKnobs(profile=True, leader_async=True)


@pytest.mark.parametrize("seed", [2, 3, 4])
@pytest.mark.parametrize("name", NAMES)
def test_more_thread_interleavings(monkeypatch, emulation, name, seed):
    """Other seeds of the emulator's thread switches where one vertex is lowered by many
    threads at once (hub, zero-weight cycles, parallel edges)."""
    for which in ("split", "default"):
        run(monkeypatch, emulation, name, {"delta": which}, HARD, seed=seed)


@pytest.mark.parametrize("name", NAMES)
def test_one_cta_per_sm(monkeypatch, emulation, name):
    """blocks_per_sm = 1: a grid of 2 CTAs (one per emulated SM) instead of 4."""
    def grid(strategy):
        return strategy._grid

    with ec.emulated(monkeypatch, emulation, sms=2, patches=PATCHES):
        cls = all_strategies("sssp")[name]
        for bps, expected in ((1, 2), (0, 4), (5, 4)):
            strategy = cls(make_knobs(cls, {"cta_size": CTA, "blocks_per_sm": bps}))
            strategy.prepare(graph("hub"))
            assert grid(strategy) == expected
            strategy.release()
    run(monkeypatch, emulation, name, {"blocks_per_sm": 1, "delta": "split"}, ["hub", "zero_cycles", "rmat-w"])


@pytest.mark.parametrize("name", NAMES)
def test_light_edges_come_first_in_each_list(monkeypatch, emulation, name):
    """delta_partition's order, as the kernel reads it (pcol, pw): v's list holds its own
    edges, each once, those of weight <= delta first, up to split[v] (sssp.delta); near-far
    reads the graph's own arrays, every edge light (split[v] = row[v + 1])."""
    cls = all_strategies("sssp")[name]
    with ec.emulated(monkeypatch, emulation, sms=2, patches=PATCHES):
        for gname in ("hub", "big_int64", "loops_dups", "rmat-w"):
            g = graph(gname)
            strategy = cls(make_knobs(cls, {"cta_size": CTA, "delta": split_delta(g)}))
            strategy.prepare(g)
            _, split, pcol, pw = (np.array(a, dtype=np.int64) for a in strategy._params[False][:4])
            row, col = np.asarray(g.row_offsets), np.asarray(g.col_indices)
            w = np.asarray(g.weights, dtype=np.int64)
            assert not hasattr(strategy, "_perm")  # the edge ids are prepare's alone
            for v in range(g.n):
                b, e, sp = int(row[v]), int(row[v + 1]), int(split[v])
                assert b <= sp <= e, (gname, v)
                assert sorted(zip(pcol[b:e], pw[b:e], strict=True)) == sorted(zip(col[b:e], w[b:e], strict=True)), (gname, v)
                if strategy.heavy:
                    assert np.all(pw[b:sp] <= strategy.delta) and np.all(pw[sp:e] > strategy.delta)
                else:
                    assert sp == e and list(pcol[b:e]) == list(col[b:e]), (gname, v)
            strategy.release()


def test_every_build_is_used(monkeypatch, emulation):
    """int32 weights and int64 weights load their own builds."""
    emulation.defines.clear()
    run(monkeypatch, emulation, "sssp.delta", {}, ["ties", "big_int64"], predecessors=(False,))
    assert [dict(d) for d in emulation.defines] == [ds.kernel_defines(CTA, False), ds.kernel_defines(CTA, True)]


def test_one_launch_per_traversal(monkeypatch, emulation):
    """The whole search (and the parents pass) is one cooperative launch; prepare adds
    the partition."""
    cls = all_strategies("sssp")["sssp.delta"]
    with ec.emulated(monkeypatch, emulation, sms=2, patches=PATCHES):
        strategy = cls(make_knobs(cls, {"cta_size": CTA, "delta": 1}))
        strategy.prepare(graph("heavy_direct"))
        assert emulation.launches == ["delta_partition"]
        emulation.launches.clear()
        strategy.traverse(0, True)
        assert emulation.launches == [ds.kernel_name(True, True)]
        strategy.release()


def test_64_bit_edge_offsets_are_unavailable(monkeypatch, emulation):
    with ec.emulated(monkeypatch, emulation, sms=2, patches=PATCHES):
        monkeypatch.setattr(device_graph, "offsets32_fit", lambda m: False)
        cls = all_strategies("sssp")["sssp.near_far"]
        strategy = cls(make_knobs(cls, {"cta_size": CTA}))
        with pytest.raises(StrategyUnavailable, match="2\\^31 edges"):
            strategy.prepare(graph("ties"))


@pytest.mark.parametrize("name", NAMES)
def test_traverse_has_no_fixed_cost_leaks(monkeypatch, emulation, name):
    """No device allocation and no pageable read inside traverse()."""
    fc.check_fixed_cost(monkeypatch, emulation, "sssp", name, {"cta_size": CTA}, sms=2, patches=PATCHES)


# ---- CPU only -------------------------------------------------------------------------


def test_knobs_are_checked():
    k = ds.DeltaKnobs()
    assert (k.delta, k.cta_size, k.blocks_per_sm, k.small_frontier, k.small_edges) == (0, 256, 0, 256, 1024)
    assert k.hub_edges == 2048 and ds.DeltaKnobs(hub_edges=0).hub_edges == 0
    assert k.delta_scale is None and ds.DeltaKnobs(delta_scale=0.25).delta_scale == 0.25
    with pytest.raises(UserError):
        make_knobs(all_strategies("sssp")["sssp.near_far"], {"delta_scale": "wide"})
    assert ds.DeltaKnobs(small_frontier=0).small_frontier == 0
    assert ds.DeltaKnobs(delta=ds.MAX_DELTA).delta == 2**62
    for bad in [{"delta": -1}, {"delta": 2**62 + 1}, {"delta": 1.5}, {"delta": True}, {"delta": "1"},
                {"cta_size": 1024}, {"cta_size": 64}, {"cta_size": 256.0}, {"blocks_per_sm": -1},
                {"blocks_per_sm": False}, {"small_frontier": -1}, {"small_frontier": ds.SMALL_CAP + 1},
                {"small_frontier": 2.5}, {"small_edges": 0}, {"small_edges": ds.SMALL_EDGES_MAX + 1},
                {"delta_scale": 0.0}, {"delta_scale": -2.0}, {"delta_scale": 4.0, "delta": 7},
                {"depth_widen": 1}, {"profile": 1}, {"hub_edges": -1}, {"hub_edges": 2**31}, {"hub_edges": 2.5}]:
        with pytest.raises(ValueError) as err:
            ds.DeltaKnobs(**bad)
        assert "\n" not in str(err.value)
    with pytest.raises(UserError):
        make_knobs(all_strategies("sssp")["sssp.delta"], {"width": 3})
    # direct_below is near-far's alone (sssp.delta's kernel has one form of its rounds)
    assert ds.NearFarKnobs().direct_below == 32768 and ds.NearFarKnobs(direct_below=4096).direct_below == 4096
    for bad in (-1, 2**31, 2.5, True):
        with pytest.raises(ValueError):
            ds.NearFarKnobs(direct_below=bad)
    with pytest.raises(UserError):
        make_knobs(all_strategies("sssp")["sssp.delta"], {"direct_below": 4096})


def test_default_delta_rule():
    """32 x mean weight / mean out-degree, rounded, at least 1; widened by depth / 64,
    from 1 to 16 times."""
    g = samples.grid(10, 10, weight=7)  # 360 directed edges on 100 vertices
    assert ds.default_delta(g) == round(32 * 7 / 3.6)
    assert ds.default_delta(g, depth=10) == ds.default_delta(g, depth=64) == round(32 * 7 / 3.6)
    assert ds.default_delta(g, depth=160) == round(32 * 7 / 3.6 * 2.5)
    assert ds.default_delta(g, depth=1024) == ds.default_delta(g, depth=1e6) == round(32 * 7 / 3.6 * 16)
    assert ds.default_delta(samples.grid(3, 3, weight=0)) == 1
    assert ds.default_delta(samples.single_vertex(directed=True, weighted=True)) == 1
    big = graph("big_int64")
    expected = round(32 * float(np.mean(np.asarray(big.weights, dtype=np.float64))) / (big.m / big.n))
    assert ds.default_delta(big) == min(expected, ds.MAX_DELTA)
    # delta_scale: that many mean weights instead, rounded, at least 1, at most MAX_DELTA
    assert ds.default_delta(g, 3.0) == 21 and ds.default_delta(g, 0.01) == 1
    assert ds.default_delta(g, 0.5) == 4  # 3.5 rounds to even
    assert ds.default_delta(big, 1e30) == ds.MAX_DELTA


def test_the_knobs_delta_probes_only_for_the_default_rule(monkeypatch):
    """knob_delta: delta as given; delta_scale without the probe; the default rule with
    the probe's depth (a 3 x 400 grid: about 200 levels from a random source), or
    without it when depth_widen is off."""
    from gpubfs_cli.algorithms.bfs import probe

    g = samples.grid(3, 400, weight=5)
    calls = []
    real = probe.probe_depth
    monkeypatch.setattr(probe, "probe_depth", lambda graph: calls.append(1) or real(graph))
    assert ds.knob_delta(g, ds.DeltaKnobs(delta=9)) == (9, None)
    assert ds.knob_delta(g, ds.DeltaKnobs(delta_scale=2.0)) == (10, None)
    assert ds.knob_delta(g, ds.DeltaKnobs(depth_widen=False)) == (ds.default_delta(g), None)
    assert not calls
    delta, depth = ds.knob_delta(g, ds.DeltaKnobs())
    assert calls and 100 < depth < 400 and delta == ds.default_delta(g, depth=depth) > ds.default_delta(g)


def test_registered_as_beyond_the_papers():
    strategies = all_strategies("sssp")
    for name in NAMES:
        cls = strategies[name]
        assert cls.problem == "sssp" and cls.paper == "beyond" and cls.device_kind == "gpu"
        assert cls.supports_predecessors and cls.timing == "events" and cls.teps == "traversed"
    assert strategies["sssp.delta"].Knobs is ds.DeltaKnobs and strategies["sssp.near_far"].Knobs is ds.NearFarKnobs
    assert strategies["sssp.delta"].heavy and not strategies["sssp.near_far"].heavy
    assert "sssp.delta" not in all_strategies("bfs")


def test_builds_cover_every_cta_size_and_weight_type():
    plain = [{"DELTA_BLOCK": c, "DELTA_WEIGHT64": w} for c in (128, 256, 384, 512) for w in (0, 1)]
    assert ds.KERNEL_DEFINES == (plain + [{**d, "DELTA_PROFILE": 1} for d in plain]
                                 + [{**d, "DELTA_ASYNC": 1} for d in plain])
    assert set(ds.KERNEL_NAMES) == {f"delta_sssp<{h}, {p}>" for h in ("true", "false") for p in ("true", "false")}
    c = ds.C
    assert c["CTL_PSIZE"] + 3 <= c["CTL_WORDS"]
    words = [c["CTL_LSIZE"] + i for i in range(3)] + [c["CTL_FSIZE"], c["CTL_FSIZE"] + 1] + [
        c[k] for k in ("CTL_RSIZE", "CTL_MIN", "CTL_BUCKETS", "CTL_LIGHT_ROUNDS", "CTL_HEAVY_ROUNDS",
                       "CTL_RELAXATIONS", "CTL_PARENT_ROUNDS", "CTL_SMALL_ROUNDS", "CTL_SMALL_ENTRIES",
                       "CTL_FAR_SCANNED", "CTL_NS_SEARCH", "CTL_NS_SMALL", "CTL_NS_GRID", "CTL_HUB_ROUNDS",
                       "CTL_HUB_LISTS")] + [c["CTL_PROF_GATHER"] + i for i in range(c["CTL_PROF_PHASES"])] + [
        c["CTL_PSIZE"] + i for i in range(3)] + [c["CTL_SF"], c["CTL_SF"] + 1] + [  # three ints in two words
        c["CTL_HUBS"] + i for i in range(3)]
    assert len(set(words)) == len(words) and max(words) < c["CTL_WORDS"]
