"""Vertex orders and the relabelled graph (graph/reorder.py) on the small nasty graphs:
every order a bijection, relabel an isomorphism that keeps weights with their edges, and
answers mapped back equal to the answers on the graph itself."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse
from scipy.sparse.csgraph import reverse_cuthill_mckee

from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs
from gpubfs_cli.algorithms.sssp.cpu.dijkstra import dijkstra
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.problem import get_problem
from gpubfs_cli.graph import samples
from gpubfs_cli.graph.csr import CSRGraph
from gpubfs_cli.graph.reorder import (
    ORDERS,
    degree_order,
    hub_order,
    inverse,
    map_answer,
    order_of,
    rcm_order,
    relabel,
)

GRAPHS = {**{f"bfs:{k}": v for k, v in samples.NASTY_BFS.items()},
          **{f"sssp:{k}": v for k, v in samples.NASTY_SSSP.items()}}
REAL_ORDERS = [o for o in ORDERS if o != "none"]


def edges(g: CSRGraph) -> np.ndarray:
    """(src, dst[, weight]) rows, sorted: the graph's edge multiset."""
    src = np.repeat(np.arange(g.n), np.diff(g.row_offsets))
    cols = [src, np.asarray(g.col_indices, dtype=np.int64)]
    if g.weights is not None:
        cols.append(np.asarray(g.weights, dtype=np.int64))
    rows = np.stack(cols, axis=1)
    return rows[np.lexsort(rows.T[::-1])] if len(rows) else rows


@pytest.fixture(params=sorted(GRAPHS))
def graph(request) -> CSRGraph:
    return GRAPHS[request.param]()


@pytest.mark.parametrize("order", list(ORDERS))
def test_every_order_is_a_permutation(graph, order):
    perm = order_of(graph, order)
    assert perm.shape == (graph.n,)
    assert np.array_equal(np.sort(perm), np.arange(graph.n))


@pytest.mark.parametrize("order", REAL_ORDERS)
def test_relabel_is_an_isomorphism_that_keeps_weights(graph, order):
    perm = order_of(graph, order)
    r = relabel(graph, perm)
    assert (r.n, r.m, r.directed, r.name) == (graph.n, graph.m, graph.directed, graph.name)
    assert r.row_offsets.dtype == np.int64 and r.col_indices.dtype == graph.col_indices.dtype
    assert (r.weights is None) == (graph.weights is None)
    if r.weights is not None:
        assert r.weights.dtype == graph.weights.dtype
    assert sorted(r.out_degrees().tolist()) == sorted(graph.out_degrees().tolist())
    assert np.array_equal(r.out_degrees(), graph.out_degrees()[perm])
    # neighbour lists sorted, as every CSRGraph keeps them
    src = np.repeat(np.arange(r.n), np.diff(r.row_offsets))
    cols = np.asarray(r.col_indices, dtype=np.int64)
    same_row = src[1:] == src[:-1]
    assert np.all(cols[1:][same_row] >= cols[:-1][same_row])
    # mapped back through perm, the edges (and their weights) are the graph's own
    back = edges(r)
    back[:, 0], back[:, 1] = perm[back[:, 0]], perm[back[:, 1]]
    back = back[np.lexsort(back.T[::-1])] if len(back) else back
    assert np.array_equal(back, edges(graph))


def test_parallel_edges_keep_lightest_first():
    g = samples.NASTY_SSSP["loops_dups"]()
    r = relabel(g, order_of(g, "rcm"))
    src = np.repeat(np.arange(r.n), np.diff(r.row_offsets))
    cols, w = np.asarray(r.col_indices), np.asarray(r.weights)
    same = (src[1:] == src[:-1]) & (cols[1:] == cols[:-1])
    assert same.any() and np.all(w[1:][same] >= w[:-1][same])


def test_degree_order_is_by_degree_then_id():
    g = samples.disjoint(samples.star(5), samples.path(4), samples.cycle(3), isolated=3, name="mix")
    deg = g.out_degrees()
    expected = sorted(range(g.n), key=lambda v: (-int(deg[v]), v))
    assert degree_order(g).tolist() == expected
    assert degree_order(g).tolist() == degree_order(g).tolist()
    # ties in id order on a regular graph: the identity
    assert degree_order(samples.cycle(9)).tolist() == list(range(9))


def test_rcm_is_scipys_permutation():
    undirected = samples.NASTY_BFS["disconnected"]()
    a = scipy.sparse.csr_array((np.ones(undirected.m), undirected.col_indices, undirected.row_offsets),
                               shape=(undirected.n, undirected.n))
    assert np.array_equal(rcm_order(undirected), reverse_cuthill_mckee(a, symmetric_mode=True))
    directed = samples.NASTY_BFS["directed"]()
    src = np.repeat(np.arange(directed.n), np.diff(directed.row_offsets))
    both = scipy.sparse.csr_array((np.ones(2 * directed.m), (np.concatenate([src, directed.col_indices]),
                                                             np.concatenate([directed.col_indices, src]))),
                                  shape=(directed.n, directed.n))
    assert np.array_equal(rcm_order(directed), reverse_cuthill_mckee(both, symmetric_mode=True))


def test_hub_order_puts_hubs_first_in_their_order():
    g = samples.disjoint(samples.path(3), samples.star(4), samples.star(6), name="hubs")  # average 1.6
    perm = hub_order(g).tolist()
    deg = g.out_degrees()
    hubs = [v for v in range(g.n) if deg[v] > g.m / g.n]
    assert hubs == [1, 3, 8] and perm == hubs + [v for v in range(g.n) if v not in hubs]


def test_relabel_rejects_what_is_no_permutation():
    g = samples.path(4)
    for bad in ([0, 1, 2], [0, 1, 1, 2], [0, 1, 2, 4], [-1, 0, 1, 2]):
        with pytest.raises(ValueError):
            relabel(g, np.array(bad))
    with pytest.raises(ValueError, match="unknown vertex order"):
        order_of(g, "random")


ANSWER_CASES = [("bfs", name) for name in ["directed", "disconnected", "loops_dups", "rmat"]] + \
    [("sssp", name) for name in ["zero_cycles", "loops_dups", "unreachable", "big_int64"]]


@pytest.mark.parametrize("order", REAL_ORDERS)
@pytest.mark.parametrize(("problem_key", "name"), ANSWER_CASES)
def test_answers_mapped_back_are_the_graphs_own(order, problem_key, name):
    g = (samples.NASTY_BFS if problem_key == "bfs" else samples.NASTY_SSSP)[name]()
    solve = sequential_bfs if problem_key == "bfs" else dijkstra
    perm = order_of(g, order)
    rank = inverse(perm)
    r = relabel(g, perm)
    problem = get_problem(problem_key)
    for s in samples.pick_sources(g):
        want = solve(g, s).distances
        got = map_answer(solve(r, int(rank[s]), True), perm, rank)
        assert np.array_equal(got.distances, want)
        assert problem.check(g, s, got, want, True) is None  # parents a BFS / shortest-path tree in the old ids


def test_map_answer_leaves_missing_and_misshapen_arrays():
    perm = np.array([2, 0, 1])
    rank = inverse(perm)
    assert map_answer(Answer(None, None), perm, rank).distances is None
    short = np.array([0, 1])
    assert map_answer(Answer(short, None), perm, rank).distances is short
    got = map_answer(Answer(np.array([0, 1, 2]), np.array([0, -1, 0])), perm, rank)
    # old vertex v is new rank[v]: old 0 -> new 1, old 1 -> new 2, old 2 -> new 0
    assert got.distances.tolist() == [1, 2, 0]
    assert got.parents.tolist() == [-1, 2, 2]
