"""Validation: exact distance comparison and the Graph500 tree checks, each of which
must catch its own planted fault."""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs
from gpubfs_cli.algorithms.bfs.validate import (
    edge_blocks,
    graph500_failures,
    parent_failures,
    validate,
)
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.checks import compare_distances
from gpubfs_cli.graph import EdgeList, build_csr, samples


def grid_plus_path():
    """A 5 x 5 grid (0..24, id = x + 5y) and a separate path 25-26-27."""
    return samples.disjoint(samples.grid(5, 5), samples.path(3))


@pytest.fixture
def tree():
    g = grid_plus_path()
    r = sequential_bfs(g, 0, predecessors=True)
    return g, r.distances.copy(), r.parents.astype(np.int64)


def checks(failures: list[str]) -> set[str]:
    return {f.split(":", 1)[0] for f in failures}


def test_a_correct_tree_passes(tree):
    g, dist, par = tree
    assert graph500_failures(g, 0, dist, par, dist >= 0) == []
    assert dist[24] == 8 and dist[25] == -1


def test_wrong_root(tree):
    g, dist, par = tree
    par[0] = 1
    assert checks(graph500_failures(g, 0, dist, par)) == {"root"}


def test_cycle(tree):
    g, dist, par = tree
    # 12 and 13 point at each other: neither chain reaches the source
    par[12], par[13] = 13, 12
    assert "cycle" in checks(graph500_failures(g, 0, dist, par))


def test_non_edge_parent(tree):
    g, dist, par = tree
    # vertex 2 (level 2) re-parented to 5 (level 1), which is not its neighbour
    assert dist[2] == 2 and dist[5] == 1
    par[2] = 5
    assert checks(graph500_failures(g, 0, dist, par, dist >= 0)) == {"tree-edge"}


def test_parent_two_levels_up(tree):
    g, dist, par = tree
    par[3] = 1  # vertex 3 is at level 3, vertex 1 at level 1
    assert "levels" in checks(graph500_failures(g, 0, dist, par))


def test_edge_skipping_a_level(tree):
    g, dist, par = tree
    # a leaf v moved one level below a neighbour w: tree edge (w, v) is fine, but the
    # edge from v's old parent now spans three levels
    children = np.bincount(par[par >= 0], minlength=g.n)
    v = next(int(u) for u in range(1, 25) if children[u] == 0 and dist[u] < 8)
    w = next(int(x) for x in g.neighbors(v) if dist[x] == dist[v] + 1)
    dist[v], par[v] = dist[w] + 1, w
    assert checks(graph500_failures(g, 0, dist, par, None)) == {"edge-span"}


def test_vertex_outside_the_component(tree):
    g, dist, par = tree
    reachable = dist >= 0
    par[25], dist[25] = 24, dist[24] + 1  # a vertex of the other component joins the tree
    assert "component" in checks(graph500_failures(g, 0, dist, par, reachable))


def test_tree_missing_a_reachable_vertex(tree):
    g, dist, par = tree
    reachable = dist >= 0
    par[24], dist[24] = -1, -1  # the far corner left out
    assert checks(graph500_failures(g, 0, dist, par, reachable)) == {"component"}


def test_directed_back_edges_may_span_many_levels():
    # 0 -> 1 -> 2 -> 3 -> 0: the edge 3 -> 0 goes back three levels, which is fine
    g = build_csr(EdgeList(np.array([0, 1, 2, 3]), np.array([1, 2, 3, 0]), 4, True))
    r = sequential_bfs(g, 0, predecessors=True)
    assert graph500_failures(g, 0, r.distances, r.parents) == []


def test_compare_distances_counts_and_names_the_first_bad_vertex():
    ref = np.array([0, 1, 2, -1], dtype=np.int32)
    assert compare_distances(ref.copy(), ref) is None
    bad = np.array([0, 2, 2, 3], dtype=np.int32)
    assert compare_distances(bad, ref) == (
        "distances differ at 2 of 4 vertices (first: vertex 1 has 2, expected 1)"
    )
    assert "shape" in compare_distances(ref[:3], ref)


def test_validate_combines_both(tree):
    g, dist, par = tree
    assert validate(g, 0, Answer(dist, par), dist, predecessors=True) is None
    assert validate(g, 0, Answer(dist, None), dist, predecessors=True).startswith("no parents")
    par[0] = 3
    assert validate(g, 0, Answer(dist, par), dist, predecessors=True).startswith("root:")
    assert validate(g, 0, Answer(dist, par), dist, predecessors=False) is None


def test_wrong_distances_are_reported_before_parents(tree):
    """The answer is compared with the baseline's distances, never with its own: as the
    SSSP validator's test of the same name, with the validator alone."""
    g, dist, par = tree
    d = dist.copy()
    d[24] = 9
    for predecessors in (False, True):
        reason = validate(g, 0, Answer(d, par), dist, predecessors=predecessors)
        assert reason == "distances differ at 1 of 28 vertices (first: vertex 24 has 9, expected 8)"
    par[0] = 3  # parents wrong too: the distances are reported first
    assert validate(g, 0, Answer(d, par), dist, predecessors=True).startswith("distances differ at 1 of 28")


def test_edge_blocks_cover_every_edge_once_in_whole_rows():
    g = grid_plus_path()
    blocks = list(edge_blocks(g, block=7))
    assert len(blocks) > 5
    rows = np.concatenate([r for r, _ in blocks])
    cols = np.concatenate([c for _, c in blocks])
    np.testing.assert_array_equal(rows, np.repeat(np.arange(g.n), g.out_degrees()))
    np.testing.assert_array_equal(cols, g.col_indices)
    for (a, _), (b, _) in zip(blocks[:-1], blocks[1:], strict=True):
        assert a[-1] < b[0]  # a block ends where a row ends


def test_checks_agree_when_run_in_small_blocks(tree, monkeypatch):
    import gpubfs_cli.algorithms.bfs.validate as v

    g, dist, par = tree
    par[2] = 5  # non-edge parent
    whole = graph500_failures(g, 0, dist, par, dist >= 0)
    small = v.edge_blocks
    monkeypatch.setattr(v, "edge_blocks", lambda graph: small(graph, block=5))
    assert graph500_failures(g, 0, dist, par, dist >= 0) == whole


# parent_failures: the checks left once the distances equal the baseline's.
def test_parent_checks_pass_a_correct_tree(tree):
    g, dist, par = tree
    assert parent_failures(g, 0, dist, par) == []


@pytest.mark.parametrize(
    ("plant", "expected"),
    [
        (lambda par: par.__setitem__(0, 1), {"root"}),
        (lambda par: par.__setitem__(2, 5), {"tree-edge"}),  # 5 is a level up, not a neighbour
        (lambda par: par.__setitem__(3, 1), {"levels"}),  # two levels up
        (lambda par: (par.__setitem__(12, 13), par.__setitem__(13, 12)), {"levels"}),  # cycle
        (lambda par: par.__setitem__(7, -1), {"levels"}),  # reached without a parent
        (lambda par: par.__setitem__(25, 26), {"levels"}),  # unreached with a parent
        (lambda par: par.__setitem__(9, 10**9), {"levels"}),  # out of range
    ],
)
def test_parent_checks_catch_each_fault(tree, plant, expected):
    g, dist, par = tree
    plant(par)
    assert checks(parent_failures(g, 0, dist, par)) == expected


def test_parent_checks_agree_with_the_full_checks_on_random_graphs():
    rng = np.random.default_rng(7)
    for directed in (False, True):
        g = build_csr(EdgeList(rng.integers(0, 300, 900), rng.integers(0, 300, 900), 300, directed))
        r = sequential_bfs(g, 4, predecessors=True)
        par = r.parents.astype(np.int64)
        assert parent_failures(g, 4, r.distances, par) == []
        assert graph500_failures(g, 4, r.distances, par, r.distances >= 0) == []
        kids = np.flatnonzero(r.distances > 1)
        par[kids[0]] = 4  # the source: a level too high for a vertex at level >= 2
        assert checks(parent_failures(g, 4, r.distances, par)) == {"levels"}


@pytest.mark.parametrize("directed", [False, True])
def test_tree_edge_is_searched_in_the_shorter_list_only_where_edges_go_both_ways(directed):
    # a hub 0 with leaves 1..9, and 9 -> 10; BFS from 0: 10's parent is 9
    src = np.array([0] * 9 + [9])
    dst = np.array(list(range(1, 10)) + [10])
    g = build_csr(EdgeList(src, dst, 11, directed))
    r = sequential_bfs(g, 0, predecessors=True)
    dist, par = r.distances.copy(), r.parents.astype(np.int64)
    assert parent_failures(g, 0, dist, par) == []
    # 10 at level 2 under leaf 1 (level 1, short list) and 9's level 1 kept: not an edge
    par[10] = 1
    assert checks(parent_failures(g, 0, dist, par)) == {"tree-edge"}
    if directed:
        return
    # undirected: a kid whose list is shorter than its parent's (leaf 5 under hub 0) passes,
    # and a hub named as the parent of a vertex it does not touch (10 under 0, after moving
    # 10 to level 1) fails
    par[10] = 9
    assert parent_failures(g, 0, dist, par) == []
    dist2 = dist.copy()
    dist2[10] = 1
    par[10] = 0
    assert checks(parent_failures(g, 0, dist2, par)) == {"tree-edge"}


def test_a_directed_edge_the_other_way_is_not_a_tree_edge():
    # 0 -> 1, 1 -> 3, 1 -> 4 and 2 -> 1: naming 1 as 2's parent needs the edge 1 -> 2, which
    # only exists the other way; 2's list (one edge) is shorter than 1's, yet not searched
    g = build_csr(EdgeList(np.array([0, 1, 1, 2]), np.array([1, 3, 4, 1]), 5, True))
    dist = np.array([0, 1, 2, 2, 2], dtype=np.int32)
    par = np.array([0, 0, 1, 1, 1], dtype=np.int64)
    assert checks(parent_failures(g, 0, dist, par)) == {"tree-edge"}
