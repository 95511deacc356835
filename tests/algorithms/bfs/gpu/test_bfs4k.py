"""bfs4k.bfs4k on the GPU: every knob that matters (each technique off alone, all off,
the thresholds at their extremes, dynamic parallelism on every vertex) on the nasty
graphs of test_strategies.py, exact distances against the sequential BFS, parents as
a BFS tree, and the counters that say which kernel and technique ran. One test per
variant and check loops over the graphs; test_strategies.UNION's graphs run as one
disjoint union (one prepare), the others alone. The pure parts (knobs, thresholds, hash
sizes) are checked without a GPU."""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.gpu.bfs4k import bfs4k
from gpubfs_cli.algorithms.bfs.gpu.bfs4k.bfs4k import Bfs4kKnobs
from gpubfs_cli.core.strategy import get_strategy, make_knobs
from gpubfs_cli.errors import UserError
from tests.algorithms.bfs.gpu.test_strategies import (
    GRAPHS,
    UNION,
    batch_reference,
    batches,
    check_parents,
    graph,
    reference,
    report,
    run_checks,
    sources,
)

NAME = "bfs4k.bfs4k"

# Each technique off alone, all off, and the thresholds at their extremes.
VARIANTS = {
    "default": {},
    "no_dynamic_parallelism": {"K2": 0},
    "static_warps": {"dynamic_warps": False},
    "no_edge_discover": {"K4": 0},
    "no_ext": {"ext": False},
    "no_single_block": {"K5": 0},
    "no_coalescing": {"K7": 0},
    "no_dedup": {"dedup": "off"},
    "warp_dedup": {"dedup": "warp"},
    "no_binary_scan": {"binary_scan": False},
    "paper_host_loop": {"persistent": False},
    "all_off": {"K2": 0, "dynamic_warps": False, "K4": 0, "ext": False, "K5": 0, "K7": 0,
                "dedup": "off", "binary_scan": False, "persistent": False},
    "dp_every_vertex": {"K2": 100, "dp_min_degree": 1},
    "dp_every_vertex_level_only": {"K2": 100, "dp_min_degree": 1, "K5": 0, "persistent": False},
    "K1_32": {"K1": 32},
    "K1_32_static_no_dp": {"K1": 32, "dynamic_warps": False, "K2": 0},
    "K1_1_static": {"K1": 1, "dynamic_warps": False},
    "K1_1": {"K1": 1},
    "K4_1": {"K4": 1},
    "K4_4": {"K4": 4},
    "always_coalesced": {"K7": 1},
    "single_block_largest": {"K5": 20},
    "multi_block_only": {"K5": 0, "K4": 0},
    "level_kernel_only": {"K5": 0, "persistent": False},
    "K6_64": {"K6": 64},
    "K6_256": {"K6": 256, "coop_blocks_per_sm": 1},
    "coop_8_per_sm": {"coop_blocks_per_sm": 8},
}
PARENT_GRAPHS = ["grid60x60", "star100k", "loops_dups", "directed", "kronecker", "disconnected"]


def make(overrides: dict):
    cls = get_strategy(NAME)
    return cls(make_knobs(cls, overrides))


def check_counters(got, ref, label: str) -> None:
    c = got.counters
    assert c["levels"] == ref.counters["levels"], label
    ran = c["single_block_levels"] + c["coop_levels"] + c["level_kernel_levels"]
    assert ran == c["levels"], f"{label}: {c}"
    assert ran == c["edge_discover_levels"] + int(np.sum(c["vwarp_levels"])), f"{label}: {c}"
    assert c["kernels_active"] <= c["kernel_launches"] - 1 and c["host_syncs"] >= 1, f"{label}: {c}"


def check_distances(at, got) -> None:
    ref = batch_reference(at)
    assert got.distances.dtype == np.int32, at.label
    np.testing.assert_array_equal(got.distances, ref.distances, err_msg=at.label)
    check_counters(got, ref, at.label)


def check_tree(at, got) -> None:
    np.testing.assert_array_equal(got.distances, batch_reference(at).distances, err_msg=at.label)
    check_parents(at.batch.graph, at.vertex, got.distances, got.parents, at.label)


@pytest.mark.gpu
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_distances(variant):
    report(run_checks(f"{NAME} {variant}", lambda: make(VARIANTS[variant]), batches(GRAPHS, union=UNION),
                      sources, False, check_distances))


@pytest.mark.gpu
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_parents(variant):
    report(run_checks(f"{NAME} {variant}", lambda: make(VARIANTS[variant]), batches(PARENT_GRAPHS, union=UNION),
                      lambda name: sources(name)[:4], True, check_tree))


@pytest.mark.gpu
def test_child_kernels_take_the_hub():
    """star100k's hub (100,000 leaves) is the only list of at least K3 * K6 = 2048: from
    the hub, and from a leaf one level later, exactly one child kernel expands it."""
    g = graph("star100k")
    s = make({})
    s.prepare(g)
    try:
        for src, _level in ((0, 0), (5, 1)):
            got = s.traverse(src, predecessors=True).to_host()
            np.testing.assert_array_equal(got.distances, reference("star100k", src).distances)
            check_parents(g, src, got.distances, got.parents)
            c = got.counters
            assert c["child_launches"] + c["child_launch_failures"] == 1, c
            assert c["child_launches"] == 1, c
            assert c["level_kernel_levels"] >= 1, c
    finally:
        s.release()
    s = make({"K2": 0})
    s.prepare(g)
    try:
        got = s.traverse(0).to_host()
        np.testing.assert_array_equal(got.distances, reference("star100k", 0).distances)
        assert got.counters["child_launches"] == 0
    finally:
        s.release()


@pytest.mark.gpu
def test_child_kernels_on_every_vertex():
    """K2 = 100% and no degree floor: every vertex with a neighbour is expanded by a
    child kernel, on every level (all of them run in the level kernel)."""
    name = "kronecker"
    g = graph(name)
    s = make({"K2": 100, "dp_min_degree": 1})
    s.prepare(g)
    try:
        for src in sources(name)[:3]:
            ref = reference(name, src)
            got = s.traverse(src, predecessors=True).to_host()
            np.testing.assert_array_equal(got.distances, ref.distances)
            check_parents(g, src, got.distances, got.parents)
            c = got.counters
            reached = ref.distances >= 0
            lists = int(np.count_nonzero(g.out_degrees()[reached] > 0))
            assert c["child_launches"] + c["child_launch_failures"] == lists, c
            assert c["level_kernel_levels"] == c["levels"] or lists == 0, c
    finally:
        s.release()


@pytest.mark.gpu
def test_single_block_kernel_runs_a_path_alone():
    """A 3000-vertex path: one vertex per level, all 3000 levels in one launch of the
    single-block kernel, one status read."""
    s = make({})
    s.prepare(graph("path3000"))
    try:
        got = s.traverse(0).to_host()
        np.testing.assert_array_equal(got.distances, reference("path3000", 0).distances)
        c = got.counters
        assert c["single_block_levels"] == c["levels"] == 3000
        assert c["kernels_active"] == 1 and c["host_syncs"] == 1
        assert c["edge_discover_levels"] == 3000  # |Fd| * K4 < 1024 threads
    finally:
        s.release()


@pytest.mark.gpu
def test_grid_switches_between_kernels():
    """grid60x60 from its centre with K5 = 0: every level in the cooperative kernel;
    with the paper's host loop, every level in the level kernel, one read each."""
    centre = 30 * 60 + 30
    ref = reference("grid60x60", centre)
    for knobs, key in (({"K5": 0}, "coop_levels"), ({"K5": 0, "persistent": False}, "level_kernel_levels")):
        s = make(knobs)
        s.prepare(graph("grid60x60"))
        try:
            got = s.traverse(centre).to_host()
            np.testing.assert_array_equal(got.distances, ref.distances)
            assert got.counters[key] == got.counters["levels"] == ref.counters["levels"]
        finally:
            s.release()


# ---- no GPU needed ------------------------------------------------------------------


def test_knobs_are_validated():
    cls = get_strategy(NAME)
    for bad in ({"K1": 3}, {"K2": -1}, {"K3": 0}, {"K4": -1}, {"K5": 21}, {"K6": 96},
                {"K7": -1}, {"dedup": "hash32"}, {"coop_blocks_per_sm": 0}):  # fmt: skip
        with pytest.raises(UserError):
            make_knobs(cls, bad)
    assert make_knobs(cls, {}) == Bfs4kKnobs()


def test_defaults_are_the_papers():
    k = Bfs4kKnobs()
    assert (k.K1, k.K2, k.K3, k.K4, k.K5, k.K6, k.K7) == (4, 0.15, 16, 2, 1, 128, 10)
    assert k.dedup == "hash64" and k.ext and k.dynamic_warps and k.binary_scan


def test_dp_degree_takes_the_longest_lists():
    deg = np.array([1] * 9990 + [5000, 4000, 3000, 2500, 2100, 2000, 1000, 50, 40, 30])
    k = Bfs4kKnobs()  # 0.15% of 10,000 vertices: the 15 longest lists, at least 2048 long
    assert bfs4k.dp_degree(k, deg) == 2048
    assert bfs4k.dp_degree(Bfs4kKnobs(K2=0.03), deg) == 3000  # the 3 longest
    assert bfs4k.dp_degree(Bfs4kKnobs(K2=0), deg) == 0
    assert bfs4k.dp_degree(k, np.ones(100, np.int64)) == 0  # nothing that long: no DP
    assert bfs4k.dp_degree(Bfs4kKnobs(K2=100, dp_min_degree=1), deg) == 1


def test_shared_memory_sizes_follow_the_paper():
    # H100: 228 KB per SM, 227 KB per block, 2048 threads per SM. K6 = 128: 14.25 KB per
    # block, 8 KB of it local queues, 1 KB kept by the driver: a 4 KB table.
    assert bfs4k.hash_multi_entries(128, 233_472, 2048, 144) == 512
    assert bfs4k.hash_multi_entries(256, 233_472, 2048, 144) == 1024
    assert bfs4k.hash_multi_entries(64, 233_472, 2048, 144) == 128
    ft = bfs4k.single_threshold(Bfs4kKnobs())
    assert ft == 1024
    entries = bfs4k.hash_single_entries(ft, 232_448, 144)
    assert entries == 16384  # 128 KB: the power of two below what Fd, Fdnew, queues leave
    assert bfs4k.single_dynamic_bytes(ft, entries) + 144 <= 232_448
    assert bfs4k.hash_single_entries(bfs4k.single_threshold(Bfs4kKnobs(K5=20)), 232_448, 144) >= 64


def test_params_and_program():
    geo = bfs4k.Geometry(coop_threads=67_584, hash_multi=2048, hash_single=16384)
    p = bfs4k.kernel_config(Bfs4kKnobs(), 1000, 2048, geo)
    assert [name for name, _ in bfs4k.CONFIG] == list(p)
    assert p["ft"] == 1024 and p["ft_low"] == 512 and p["coop_limit"] == 67_584
    assert p["dp_degree"] == 2048 and p["dedup"] == bfs4k.C["DEDUP_HASH64"]
    paper = bfs4k.kernel_config(Bfs4kKnobs(persistent=False), 1000, 0, geo)
    assert paper["coop_limit"] == 0
    assert bfs4k.program(Bfs4kKnobs()) == "SCLLLCS" and bfs4k.program(Bfs4kKnobs(persistent=False)) == "SL"
