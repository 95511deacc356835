"""Every SSSP validation check at its boundary: a tree edge exactly tight and one unit
off either way, the lightest of parallel edges, a parent equal to n - 1 and to n, a
non-edge just past the end of an adjacency list, an edge relaxed exactly and one that
would shorten a distance by one, so an off-by-one in any of them is caught."""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.algorithms.sssp.cpu.dijkstra import dijkstra
from gpubfs_cli.algorithms.sssp.validate import (
    certificate_failures,
    parent_failures,
    relaxation_failures,
)
from gpubfs_cli.graph import EdgeList, build_csr
from gpubfs_cli.graph.csr import CSRGraph


def weighted(n, triples, duplicates="drop", self_loops="drop"):
    src, dst, w = (np.array(x) for x in zip(*triples, strict=True))
    return build_csr(EdgeList(src, dst, n, True, w), keep_weights=True, duplicates=duplicates,
                     self_loops=self_loops)


def names(failures):
    return [f.split(":", 1)[0] for f in failures]


# ------------------------------------------------------------------ tight
def test_a_tree_edge_exactly_tight_passes_and_one_off_either_way_fails():
    g = weighted(3, [(0, 1, 4), (1, 2, 5)])
    par = np.array([0, 0, 1])
    assert parent_failures(g, 0, np.array([0, 4, 9]), par) == []
    for d2 in (8, 10):
        got = parent_failures(g, 0, np.array([0, 4, d2]), par)
        assert names(got) == ["tight"]
        assert f"d[2] = {d2}, d[1] + 5 = 9" in got[0]


def test_the_lightest_of_parallel_edges_decides_tightness():
    # two arcs 0 -> 1 of weights 7 and 3 (kept): d[1] = 3 is tight, 7 is not
    g = weighted(2, [(0, 1, 7), (0, 1, 3)], duplicates="keep")
    assert g.m == 2
    par = np.array([0, 0])
    assert parent_failures(g, 0, np.array([0, 3]), par) == []
    got = parent_failures(g, 0, np.array([0, 7]), par)
    assert names(got) == ["tight"] and "of weight 3" in got[0]


@pytest.mark.parametrize("weights", [(2, 5, 7), (5, 7, 2), (7, 2, 5)])
def test_every_one_of_three_parallel_edges_is_read(weights):
    # build_csr puts the lightest parallel arc first, but the check must not rely on it:
    # a CSR made any other way may hold them in any order (a scan of the run that
    # stepped by 2 missed the third arc, the lightest in one of these orders)
    g = CSRGraph(np.array([0, 3, 3]), np.array([1, 1, 1], dtype=np.int32), True, np.array(weights))
    par = np.array([0, 0])
    assert parent_failures(g, 0, np.array([0, 2]), par) == []
    assert names(parent_failures(g, 0, np.array([0, 5]), par)) == ["tight"]


def test_parallel_edges_are_not_read_past_the_end_of_the_list():
    # 1's list ends with two arcs to 2 and row 2 starts with an arc 2 -> 2 of weight 0:
    # only the two real arcs (weights 6 and 5) may count
    g = weighted(3, [(0, 1, 1), (1, 2, 6), (1, 2, 5), (2, 2, 0)], duplicates="keep", self_loops="keep")
    assert g.col_indices.tolist() == [1, 2, 2, 2]
    par = np.array([0, 0, 1])
    assert parent_failures(g, 0, np.array([0, 1, 6]), par) == []
    assert names(parent_failures(g, 0, np.array([0, 1, 1]), par)) == ["tight"]


# ------------------------------------------------------------------ parents in range and edges
def test_parent_n_minus_1_passes_and_n_fails():
    g = weighted(3, [(2, 1, 1), (1, 0, 1)])  # source 2 = n - 1 is 1's parent
    a = dijkstra(g, 2, parents=True)
    assert a.parents.tolist() == [1, 2, 2]
    assert parent_failures(g, 2, a.distances, a.parents) == []
    par = a.parents.copy()
    par[0] = g.n
    got = parent_failures(g, 2, a.distances, par)
    assert names(got) == ["tree-edge", "cycle"]
    assert "(first: 3 -> 0)" in got[0]


def test_a_non_edge_just_past_the_end_of_the_parent_list():
    # row 1 is [3], row 2 is [4]: vertex 4 claiming parent 1 sorts past 1's list, and the
    # entry right after that list is 4 (of row 2)
    g = weighted(5, [(0, 1, 1), (0, 2, 1), (1, 3, 1), (2, 4, 1)])
    d = np.array([0, 1, 1, 2, 2])
    assert parent_failures(g, 0, d, np.array([0, 0, 0, 1, 2])) == []
    got = parent_failures(g, 0, d, np.array([0, 0, 0, 1, 1]))
    assert names(got) == ["tree-edge"] and "(first: 1 -> 4)" in got[0]
    got = parent_failures(g, 0, d, np.array([0, 0, 0, 2, 2]))  # 3 sorts before 2's list
    assert names(got) == ["tree-edge"] and "(first: 2 -> 3)" in got[0]


@pytest.mark.parametrize("bad", [-1, 1, 3])
def test_root_must_be_its_own_parent(bad):
    g = weighted(3, [(0, 1, 1), (1, 2, 1)])
    assert names(parent_failures(g, 0, np.array([0, 1, 2]), np.array([bad, 0, 1])))[0] == "root"


def test_reach_at_the_edge():
    g = weighted(3, [(0, 1, 1)])  # 2 unreachable
    d = np.array([0, 1, -1])
    assert parent_failures(g, 0, d, np.array([0, 0, -1])) == []
    assert names(parent_failures(g, 0, d, np.array([0, -1, -1]))) == ["reach"]  # reached, no parent
    assert "reach" in names(parent_failures(g, 0, d, np.array([0, 0, 0])))  # parent, no distance


# ------------------------------------------------------------------ relaxation
def test_an_edge_relaxed_exactly_passes_and_one_unit_short_fails():
    g = weighted(3, [(0, 1, 4), (1, 2, 5), (0, 2, 9)])
    assert relaxation_failures(g, 0, np.array([0, 4, 9])) == []  # 0 -> 2 is tight, not loose
    got = relaxation_failures(g, 0, np.array([0, 4, 10]))
    assert names(got) == ["relax"] and got[0].startswith("relax: 2 edges would shorten")
    assert relaxation_failures(g, 0, np.array([0, 4, 8])) == []  # too short: the tree checks say so
    assert names(certificate_failures(g, 0, np.array([0, 4, 8]), np.array([0, 0, 1]))) == ["tight"]


def test_source_distance_and_shape():
    g = weighted(2, [(0, 1, 1)])
    assert relaxation_failures(g, 0, np.array([0, 1])) == []
    assert names(relaxation_failures(g, 0, np.array([1, 2]))) == ["source"]
    for d in (np.array([0]), np.array([0, 1, 2])):
        assert names(relaxation_failures(g, 0, d)) == ["shape"]
        assert names(certificate_failures(g, 0, d, np.array([0, 0]))) == ["shape"]


def test_component_needs_a_reached_tail():
    g = weighted(3, [(0, 1, 1), (2, 0, 1)])  # 2 -> 0 starts at an unreached vertex: fine
    assert relaxation_failures(g, 0, np.array([0, 1, -1])) == []
    got = relaxation_failures(g, 0, np.array([0, -1, -1]))  # 0 -> 1 leaves the reached set
    assert names(got) == ["component"] and "(first: 0 -> 1" in got[0]


def test_an_edge_back_into_the_source_does_not_leave_the_reached_set():
    # the head's distance 0 is a distance (`dv < 0` made `<= 0` called it unreached)
    g = weighted(2, [(0, 1, 1), (1, 0, 1)])
    assert relaxation_failures(g, 0, np.array([0, 1])) == []


@pytest.mark.parametrize("block", [1, 2, 3, 1 << 24])
def test_relaxation_is_the_same_in_any_block_size(block):
    g = weighted(4, [(0, 1, 1), (1, 2, 1), (2, 3, 1), (0, 3, 1)])
    d = np.array([0, 1, 2, 3])  # 0 -> 3 would shorten 3 by two
    assert relaxation_failures(g, 0, d, block=block) == [
        "relax: 1 edges would shorten a distance (first: 0 at 0 -> 3 at 3, weight 1)"
    ]


def test_vertices_at_distance_zero_are_checked_like_any_other():
    # zero-weight arcs 0 -> 1 and 0 -> 2: every distance is 0, and 2 claiming parent 1
    # (a chain that reaches the source, but 1 -> 2 is no edge) must fail tree-edge
    # (a survivor of `make mutants`: `distances >= 0` made `>= 1` skipped these vertices)
    g = weighted(3, [(0, 1, 0), (0, 2, 0)])
    d = np.array([0, 0, 0])
    assert parent_failures(g, 0, d, np.array([0, 0, 0])) == []
    got = parent_failures(g, 0, d, np.array([0, 0, 1]))
    assert names(got) == ["tree-edge"] and "(first: 1 -> 2)" in got[0]
