"""Every BFS validation check at its boundary: the last value that passes and the first
that fails (an edge spanning exactly one level and exactly two, a parent equal to
n - 1 and to n, a non-edge just past the end of an adjacency list, the longest parent
chain), for graph500_failures (no trusted distances) and parent_failures (exact
distances), so an off-by-one in either is caught."""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs
from gpubfs_cli.algorithms.bfs.validate import graph500_failures, parent_failures, validate
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.checks import compare_distances, tree_depths
from gpubfs_cli.graph import EdgeList, build_csr
from gpubfs_cli.graph.samples import path


def directed(n, pairs):
    src, dst = zip(*pairs, strict=True)
    return build_csr(EdgeList(np.array(src), np.array(dst), n, True))


def names(failures):
    return [f.split(":", 1)[0] for f in failures]


BOTH = [graph500_failures, parent_failures]


# ------------------------------------------------------------------ edge-span
def test_an_edge_spanning_one_level_passes_and_two_levels_fails():
    # 0 -> 1 -> 2 and a shortcut 0 -> 2: the true levels are 0, 1, 1
    g = directed(3, [(0, 1), (1, 2), (0, 2)])
    par = np.array([0, 0, 1])
    assert graph500_failures(g, 0, np.array([0, 1, 1]), np.array([0, 0, 0])) == []
    # claimed levels 0, 1, 2 with a valid tree 0 -> 1 -> 2: the shortcut skips exactly 2
    got = graph500_failures(g, 0, np.array([0, 1, 2]), par)
    assert names(got) == ["edge-span"]
    assert got[0] == "edge-span: 1 edges skip a level (first: 0 at level 0 -> 2 at level 2)"


def test_an_edge_into_a_lower_level_is_fine_on_directed_graphs():
    # 0 -> 1 -> 2 -> 1: 2 -> 1 goes one level up, 0 -> 1 down one
    g = directed(3, [(0, 1), (1, 2), (2, 1)])
    assert graph500_failures(g, 0, np.array([0, 1, 2]), np.array([0, 0, 1])) == []


# ------------------------------------------------------------------ parents in range
@pytest.mark.parametrize("check", BOTH)
def test_parent_n_minus_1_passes_and_n_fails(check):
    g = path(5)  # 0 - 1 - 2 - 3 - 4, source 4: every parent is the next higher id
    r = sequential_bfs(g, 4, True)
    par = r.parents.astype(np.int64)
    assert par[3] == 4 == g.n - 1
    assert check(g, 4, r.distances, par) == []
    par[0] = g.n
    got = check(g, 4, r.distances, par)
    if check is graph500_failures:  # the chain of 0 leaves [0, n): it never reaches the source
        assert got == ["cycle: 1 tree vertices never reach the source through their parents (first: vertex 0)"]
    else:
        assert got == ["levels: 1 vertices, vertex 0 at level 4 has parent 5 at level none"]


@pytest.mark.parametrize("check", BOTH)
def test_a_parent_one_level_up_passes_the_same_level_and_two_up_fail(check):
    g = build_csr(EdgeList(np.array([0, 0, 1, 2, 1]), np.array([1, 2, 3, 3, 2]), 4, False))
    d = np.array([0, 1, 1, 2])
    assert check(g, 0, d, np.array([0, 0, 0, 1])) == []
    assert check(g, 0, d, np.array([0, 0, 0, 2])) == []  # the other parent one level up
    same = check(g, 0, d, np.array([0, 0, 1, 1]))  # 2's parent 1 is on 2's own level
    assert "levels" in names(same)
    up2 = check(g, 0, d, np.array([0, 0, 0, 0]))  # 3's parent is two levels up (and no edge)
    assert "levels" in names(up2)


@pytest.mark.parametrize("check", BOTH)
def test_root_must_be_its_own_parent(check):
    g = path(3)
    d = np.array([0, 1, 2])
    assert check(g, 0, d, np.array([0, 0, 1])) == []
    for bad in (-1, 1, 3):
        assert names(check(g, 0, d, np.array([bad, 0, 1])))[0] == "root"


@pytest.mark.parametrize("check", BOTH)
def test_parent_shape_off_by_one(check):
    g = path(3)
    d = np.array([0, 1, 2])
    for par in (np.array([0, 0]), np.array([0, 0, 1, 2])):
        assert names(check(g, 0, d, par)) == ["shape"]


# ------------------------------------------------------------------ tree-edge lookups
@pytest.mark.parametrize("check", BOTH)
def test_a_non_edge_just_past_the_end_of_the_parent_list(check):
    # Directed: row 1 is [3], row 2 is [4]. Vertex 4 (level 2) claims parent 1 (level 1):
    # 4 sorts after every neighbour of 1, and the entry just past row 1 *is* 4.
    g = directed(5, [(0, 1), (0, 2), (1, 3), (2, 4)])
    assert list(g.col_indices[g.row_offsets[1]:g.row_offsets[2] + 1]) == [3, 4]
    d = np.array([0, 1, 1, 2, 2])
    assert check(g, 0, d, np.array([0, 0, 0, 1, 2])) == []
    got = check(g, 0, d, np.array([0, 0, 0, 1, 1]))
    assert names(got) == ["tree-edge"] and "(first: 1 -> 4)" in got[0]


@pytest.mark.parametrize("check", BOTH)
def test_a_non_edge_before_the_start_of_the_parent_list(check):
    # Row 2 is [4]; vertex 3 (level 2) claims parent 2: 3 sorts before 2's only neighbour.
    g = directed(5, [(0, 1), (0, 2), (1, 3), (2, 4)])
    d = np.array([0, 1, 1, 2, 2])
    got = check(g, 0, d, np.array([0, 0, 0, 2, 2]))
    assert names(got) == ["tree-edge"] and "(first: 2 -> 3)" in got[0]


@pytest.mark.parametrize("check", BOTH)
def test_first_and_last_neighbour_are_found(check):
    # vertex 0's list is [1, 2, 3]; each of 1 and 3 (first, last) is a child of 0
    g = directed(4, [(0, 1), (0, 2), (0, 3)])
    assert check(g, 0, np.array([0, 1, 1, 1]), np.array([0, 0, 0, 0])) == []


# ------------------------------------------------------------------ cycle and depth
def test_the_longest_chain_reaches_the_source():
    # A path of 1025 vertices: the deepest chain (1024 steps) needs every doubling round.
    for n in (2, 3, 4, 5, 1024, 1025):
        g = path(n)
        r = sequential_bfs(g, 0, True)
        depth, broken = tree_depths(r.parents, 0)
        assert not broken.any()
        assert np.array_equal(depth, np.arange(n))
        assert graph500_failures(g, 0, r.distances, r.parents) == []


def test_tree_depths_marks_chains_through_outside_or_out_of_range_parents():
    par = np.array([0, 0, 1, -1, 3, 5, 6, 7])  # 4's chain stops at 3 (not in the tree)
    par[5], par[6], par[7] = 8, 5, 6  # 5's parent is n; 6 and 7 hang below it
    depth, broken = tree_depths(par, 0)
    assert list(depth) == [0, 1, 2, -1, -1, -1, -1, -1]
    assert list(broken) == [False, False, False, False, True, True, True, True]
    depth, broken = tree_depths(np.array([0, 0, 7]), 0)  # n - 1 + 1 = 3 would be n; 7 is far out
    assert list(broken) == [False, False, True]


def test_a_two_cycle_is_caught_at_every_level():
    g = path(4)
    d = np.array([0, 1, 2, 3])
    got = graph500_failures(g, 0, d, np.array([0, 2, 1, 2]))  # 1 <-> 2 point at each other
    assert "cycle" in names(got)


# ------------------------------------------------------------------ component
def test_component_at_the_edge_of_reach():
    # 0 - 1 - 2 and 3 alone: 2 is the last reachable vertex, 3 the first unreachable one
    g = build_csr(EdgeList(np.array([0, 1]), np.array([1, 2]), 4, False))
    d, par = np.array([0, 1, 2, -1]), np.array([0, 0, 1, -1])
    reach = d >= 0
    assert graph500_failures(g, 0, d, par, reach) == []
    d2, par2 = d.copy(), par.copy()
    d2[2], par2[2] = -1, -1  # the last reachable vertex left out: the edge 1 - 2 escapes
    assert names(graph500_failures(g, 0, d2, par2, reach)) == ["component"]
    assert names(graph500_failures(g, 0, d2, par2, None)) == ["component"]
    d3 = d.copy()
    d3[3] = 3  # an unreachable vertex given a level (no parent)
    assert "component" in names(graph500_failures(g, 0, d3, par, reach))


# ------------------------------------------------------------------ distances
def test_distances_differing_at_the_first_or_last_vertex():
    ref = np.array([0, 1, 2, 3], dtype=np.int32)
    assert compare_distances(ref.copy(), ref) is None
    for v in (0, 3):
        got = ref.copy()
        got[v] += 1
        assert compare_distances(got, ref) == (
            f"distances differ at 1 of 4 vertices (first: vertex {v} has {got[v]}, expected {ref[v]})"
        )
    assert compare_distances(ref[:-1], ref) == "distances have shape (3,), expected (4,)"
    assert compare_distances(np.r_[ref, 4], ref) == "distances have shape (5,), expected (4,)"


def test_validate_checks_parents_only_when_asked():
    g = path(3)
    ref = np.array([0, 1, 2], dtype=np.int32)
    bad = Answer(ref.copy(), np.array([0, 0, 0]))
    assert validate(g, 0, bad, ref, predecessors=False) is None
    assert validate(g, 0, bad, ref, predecessors=True).startswith("levels:")
    assert validate(g, 0, Answer(ref.copy()), ref, True) == "no parents returned although predecessors were asked for"
