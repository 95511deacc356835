"""core.checks.edge_violations: the one parallel count of edges a distance array
violates, which both certificates (BFS's graph500_failures, SSSP's relaxation) trust
when it is zero and skip their numpy pass for."""

import numpy as np

from gpubfs_cli.core.checks import edge_violations
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
