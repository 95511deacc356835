"""core.checks.edge_violations: the one parallel count of edges a distance array
violates, which both certificates (BFS's graph500_failures, SSSP's relaxation) trust
when it is zero and skip their numpy pass for."""

import numpy as np

from gpubfs_cli.core.checks import edge_violations, summable
from gpubfs_cli.graph.samples import from_edges


def graph():
    # 0 -> 1 (4), 0 -> 2 (1), 2 -> 1 (2), 1 -> 3 (1); 4 is isolated
    return from_edges(np.array([0, 0, 2, 1]), np.array([1, 2, 1, 3]), 5, weights=np.array([4, 1, 2, 1]),
                      name="v", directed=True, self_loops="drop", duplicates="drop")


def test_shortest_distances_violate_nothing():
    g = graph()
    w = np.asarray(g.weights, dtype=np.int64)
    assert edge_violations(g, np.array([0, 3, 1, 4, -1]), w) == (0, 0)
    assert edge_violations(g, np.array([0, 1, 1, 2, -1])) == (0, 0)  # BFS levels: unit weights


def test_a_long_distance_is_loose_and_a_missing_one_escapes():
    g = graph()
    w = np.asarray(g.weights, dtype=np.int64)
    assert edge_violations(g, np.array([0, 4, 1, 5, -1]), w) == (1, 0)  # 2 -> 1 would shorten 4 to 3
    assert edge_violations(g, np.array([0, 3, 1, -1, -1]), w) == (0, 1)  # 1 -> 3 leaves the reached set
    assert edge_violations(g, np.array([0, 1, 1, 9, -1])) == (1, 0)  # level 9 after level 1
    assert edge_violations(g, np.array([-1, -1, -1, -1, -1]), w) == (0, 0)  # nothing reached: nothing to check


def test_levels_keep_their_int32_and_weighted_sums_do_not_overflow():
    g = graph()
    levels = np.array([0, 1, 1, 9, -1], dtype=np.int32)
    assert summable(levels, unit=True) is levels  # no copy: the pass reads half the bytes
    assert edge_violations(g, levels) == edge_violations(g, levels.astype(np.int64)) == (1, 0)
    assert edge_violations(g, np.array([0, 1, 1, -1, -1], dtype=np.int32)) == (0, 1)
    # weighted: int32 distances near 2^31 are widened, so d[1] + 1 past 2^31 - 1 does not wrap
    # (0 -> 1 and 2 -> 1 are loose, 1 -> 3 is not)
    big = 2**31 - 8
    d = np.array([big, big + 7, big + 1, big + 7, -1], dtype=np.int32)
    w = np.asarray(g.weights, dtype=np.int64)
    assert summable(d, unit=False).dtype == np.int64
    assert edge_violations(g, d, w) == edge_violations(g, d.astype(np.int64), w)
    assert edge_violations(g, d, w) == (2, 0)
