"""core.checks.distance_certificate: distances alone proved shortest where every weight is
positive (relaxed: none too long; supported: every reached vertex but the source has a
tight in-edge, so none too short). Each half fails on its own kind of wrong distance, and
right distances pass on random graphs, BFS levels and weighted."""

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs
from gpubfs_cli.algorithms.sssp.cpu.dijkstra import dijkstra
from gpubfs_cli.core.checks import distance_certificate, edge_violations, support_failures
from gpubfs_cli.graph.samples import from_edges
from tests.core.test_edge_violations import graph


def names(failures):
    return [f.split(":")[0] for f in failures]


def test_shortest_distances_pass_and_each_wrong_kind_names_its_check():
    g = graph()
    w = np.asarray(g.weights, dtype=np.int64)
    assert distance_certificate(g, 0, np.array([0, 3, 1, 4, -1]), w) == []
    assert distance_certificate(g, 0, np.array([0, 1, 1, 2, -1])) == []  # BFS levels
    assert names(distance_certificate(g, 0, np.array([0, 2, 1, 3, -1]), w)) == ["support"]  # 1 too short
    assert names(distance_certificate(g, 0, np.array([0, 4, 1, 5, -1]), w)) == ["relax"]  # 1 too long
    assert names(distance_certificate(g, 0, np.array([0, 3, 1, -1, -1]), w)) == ["component"]
    assert names(distance_certificate(g, 0, np.array([0, 3, 1, 4, 7]), w)) == ["support"]  # 4 is unreachable
    assert names(distance_certificate(g, 0, np.array([1, 3, 1, 4, -1]), w))[0] == "source"
    assert names(distance_certificate(g, 0, np.array([0, 3, 1]), w)) == ["shape"]


def test_the_source_needs_no_support_and_the_first_offender_is_named():
    g = graph()
    for d, lacking in (([0, -1, -1, -1, -1], []), ([0, 1, 1, 1, -1], ["vertex 3 at 1"])):  # BFS: 3 is two down
        d = np.array(d)
        tight = np.zeros(g.n, dtype=bool)
        edge_violations(g, d, tight=tight)
        got = support_failures(0, d, tight)
        assert len(got) == len(lacking) and all(x in f for x, f in zip(lacking, got, strict=True)), got
    assert distance_certificate(g, 0, np.array([0, 1, 1, 1, -1]))[0].startswith("support: 1 reached vertices")


def test_marks_are_left_alone_without_an_array():
    """edge_violations without `tight` counts as before and marks nothing."""
    g = graph()
    assert edge_violations(g, np.array([0, 1, 1, 2, -1])) == (0, 0)
    tight = np.zeros(g.n, dtype=bool)
    assert edge_violations(g, np.array([0, 1, 1, 2, -1]), tight=tight) == (0, 0)
    assert tight.tolist() == [False, True, True, True, False]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_right_answers_pass_and_a_changed_distance_fails_on_random_graphs(seed):
    rng = np.random.default_rng(seed)
    n, m = 400, 1600
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    g = from_edges(src, dst, n, weights=rng.integers(1, 9, m), name="r", directed=bool(seed % 2),
                   self_loops="drop", duplicates="drop")
    w = np.asarray(g.weights, dtype=np.int64)
    for s in rng.integers(0, n, 5).tolist():
        levels = np.asarray(sequential_bfs(g, s).distances)
        dist = np.asarray(dijkstra(g, s).distances)
        assert distance_certificate(g, s, levels) == []
        assert distance_certificate(g, s, dist, w) == []
        for d, weights in ((levels, None), (dist, w)):
            reached = np.flatnonzero(d > 0)
            if len(reached) == 0:
                continue
            for change in (-1, 1):
                bad = d.copy()
                bad[reached[len(reached) // 2]] += change
                assert distance_certificate(g, s, bad, weights) != [], (s, change)
