"""sssp.delta and sssp.near_far on a real GPU against cpu.dijkstra: exact int64
distances, parents checked as a shortest-path tree (sssp/validate.py), and the exact
bucket count, on the weighted nasty graphs of graph/samples.py (zero-weight cycles,
ties, unreachable parts, int64 weights), an undirected graph of zero-weight cycles and
a weighted R-MAT of scale 14, for delta = 1, the default rule, 2^62 (one bucket) and a
delta that splits the weights into light and heavy edges; every CTA size once; the
small-frontier mode at its default, off and at a low threshold. The
emulated twin (test_delta_emulated.py) runs the same checks without a GPU.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from gpubfs_cli.algorithms.sssp.cpu.dijkstra import dijkstra
from gpubfs_cli.algorithms.sssp.gpu.delta import strategies as ds
from gpubfs_cli.algorithms.sssp.validate import parent_failures
from gpubfs_cli.core.strategy import all_strategies, make_knobs
from gpubfs_cli.graph import samples
from tests.algorithms.bfs.gpu.test_strategies import batches, report, run_checks
from tests.algorithms.sssp.gpu.test_delta_emulated import (
    DELTAS,
    NAMES,
    check_counters,
    check_phases,
    delta_of,
    zero_undirected,
)

GRAPHS = dict(samples.NASTY_SSSP)
GRAPHS["zero_undirected"] = zero_undirected
GRAPHS["rmat14-w"] = lambda: samples.with_rule_weights(samples.rmat(14, 16, 3, permute=True), seed=1)
GRAPHS["grid100-w"] = lambda: samples.with_rule_weights(samples.grid(100, 100), seed=2)


@functools.cache
def graph(name: str):
    return GRAPHS[name]()


@functools.cache
def reference(name: str, source: int) -> np.ndarray:
    return dijkstra(graph(name), source).distances


@functools.cache
def sources(name: str) -> tuple[int, ...]:
    return tuple(samples.pick_sources(graph(name), k=2))


def run_sssp(name: str, which: str, predecessors: bool, knobs: dict | None, graph_names, counters) -> None:
    """Strategy `name` at delta `which` (delta_of) with `knobs`, from each graph's
    sources: int64 distances equal to cpu.dijkstra's (computed once per source), parents
    a shortest-path tree or absent; then counters(g, knobs, ref, got, label), the
    strategy's own checks. test_regions.py runs sssp.regions through it too."""
    cls = all_strategies("sssp")[name]
    failures = []
    for gname in graph_names:
        g = graph(gname)
        k = {"delta": delta_of(which, g), **(knobs or {})}

        def make(k=k):
            return cls(make_knobs(cls, k))

        def check(at, got, g=g, gname=gname, k=k):
            ref = reference(gname, at.source)
            assert got.distances.dtype == np.int64, at.label
            np.testing.assert_array_equal(got.distances, ref, err_msg=at.label)
            if predecessors:
                failures = parent_failures(g, at.source, got.distances, got.parents)
                assert failures == [], f"{at.label}: {failures}"
            else:
                assert got.parents is None, at.label
            counters(g, k, ref, got, at.label)

        failures += run_checks(f"{name} {k}", make, batches([gname], graph), sources, predecessors, check)
    report(failures)


def _run(name: str, which: str, predecessors: bool, knobs: dict | None = None) -> None:
    cls = all_strategies("sssp")[name]

    def counters(g, k, ref, got, label):
        delta = ds.knob_delta(g, make_knobs(cls, k))[0]
        check_counters(cls.heavy, delta, g, ref, got, predecessors)
        if k.get("profile"):
            check_phases(got.counters, label)

    run_sssp(name, which, predecessors, knobs, GRAPHS, counters)


@pytest.mark.gpu
@pytest.mark.parametrize("which", DELTAS)
@pytest.mark.parametrize("name", NAMES)
def test_distances_match_dijkstra(name, which):
    _run(name, which, False)


@pytest.mark.gpu
@pytest.mark.parametrize("which", DELTAS)
@pytest.mark.parametrize("name", NAMES)
def test_parents_form_a_shortest_path_tree(name, which):
    _run(name, which, True)


@pytest.mark.gpu
@pytest.mark.parametrize("cta_size", ds.CTA_SIZES)
@pytest.mark.parametrize("name", NAMES)
def test_every_cta_size_and_one_cta_per_sm(name, cta_size):
    _run(name, "split", True, {"cta_size": cta_size, "blocks_per_sm": 1})


@pytest.mark.gpu
@pytest.mark.parametrize("name", NAMES)
def test_the_profile_build(name):
    """knob profile: the same answers from the build whose leader splits its rounds into
    phases, and the phases' counters (cycles)."""
    _run(name, "split", True, {"profile": True})


@pytest.mark.gpu
@pytest.mark.parametrize("small", [(256, 1024), (1, 1024), (1024, 3), (1024, 1 << 20)])
@pytest.mark.parametrize("which", ["split", "default"])
@pytest.mark.parametrize("name", NAMES)
def test_the_async_leader(name, which, small):
    """knob leader_async: the same answers from the leader without rounds, at the default
    thresholds and at those that make it hand its pool back (1 vertex; batches of 3 light
    edges; no batch too wide), with parents."""
    _run(name, which, True, {"leader_async": True, "small_frontier": small[0], "small_edges": small[1]})


@pytest.mark.gpu
@pytest.mark.parametrize("cta_size", ds.CTA_SIZES)
@pytest.mark.parametrize("name", NAMES)
def test_the_async_leader_at_every_cta_size(name, cta_size):
    """leader_async with 4, 8 and 16 warps (auto.sssp's table takes it at 512 threads),
    each warp's batch bound at 128 light edges (small_edges / warps), with parents."""
    _run(name, "split", True, {"leader_async": True, "cta_size": cta_size, "small_edges": 4 * cta_size})


@pytest.mark.gpu
@pytest.mark.parametrize("small_frontier", [0, 256])
def test_direct_rounds(small_frontier):
    """near-far's grid rounds taking their atomics without a look first (direct_below),
    every round the grid runs (small_frontier 0) and those the leader leaves it."""
    _run("sssp.near_far", "split", True, {"direct_below": 1 << 20, "small_frontier": small_frontier})


@pytest.mark.gpu
@pytest.mark.parametrize("small", [(0, 4096), (16, 4096), (1024, 24)])
@pytest.mark.parametrize("name", NAMES)
def test_small_frontier_mode_off_and_handing_back(name, small):
    """The grid alone (0), and thresholds low enough that the leader hands rounds back
    on the lattice and the R-MAT graph (16 vertices; 24 light edges); the defaults run
    in every test above."""
    _run(name, "split", True, {"small_frontier": small[0], "small_edges": small[1]})
