"""CSR builder against networkx on random small graphs, and the edge policies."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpubfs_cli.graph import EdgeList, build_csr


def _edges(draw_pairs, n, directed):
    src = np.array([p[0] for p in draw_pairs], dtype=np.int64)
    dst = np.array([p[1] for p in draw_pairs], dtype=np.int64)
    return EdgeList(src, dst, n, directed)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 30),
    data=st.data(),
    directed=st.booleans(),
)
def test_matches_networkx(n, data, directed):
    pairs = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=120))
    g = build_csr(_edges(pairs, n, directed))
    ref = nx.DiGraph() if directed else nx.Graph()
    ref.add_nodes_from(range(n))
    ref.add_edges_from((u, v) for u, v in pairs if u != v)
    assert g.n == n
    expected_m = ref.number_of_edges() * (1 if directed else 2)
    assert g.m == expected_m
    assert g.directed == directed
    for v in range(n):
        nbrs = g.neighbors(v)
        assert list(nbrs) == sorted(ref.successors(v) if directed else ref.neighbors(v))
    assert g.col_indices.dtype == np.int32 and g.row_offsets.dtype == np.int64


def test_policies_keep_loops_and_duplicates():
    e = EdgeList(np.array([0, 0, 1, 2]), np.array([1, 1, 1, 0]), 3, directed=True)
    assert build_csr(e).m == 2  # 0->1, 2->0
    assert build_csr(e, self_loops="keep").m == 3
    assert build_csr(e, duplicates="keep").m == 3
    g = build_csr(e, self_loops="keep", duplicates="keep")
    assert g.m == 4 and list(g.neighbors(0)) == [1, 1]


def test_weights_follow_their_edges():
    e = EdgeList(np.array([2, 0, 0]), np.array([0, 2, 1]), 3, True, weights=np.array([7, 5, 3]))
    g = build_csr(e, keep_weights=True)
    assert list(g.col_indices) == [1, 2, 0] and list(g.weights) == [3, 5, 7]


def test_stats():
    # star: centre 0 with 4 leaves, plus an isolated vertex 5
    e = EdgeList(np.zeros(4, dtype=np.int64), np.arange(1, 5), 6, directed=False)
    s = build_csr(e).stats()
    assert (s.n, s.m, s.max_degree, s.mode_degree, s.isolated) == (6, 8, 4, 1, 1)
    assert s.avg_degree == pytest.approx(8 / 6)
    assert s.std_degree == pytest.approx(np.std([4, 1, 1, 1, 1, 0]))


def test_out_of_range_rejected():
    with pytest.raises(ValueError, match="out of range"):
        build_csr(EdgeList(np.array([0]), np.array([3]), 3, True))


def test_symmetrized_self_loop_stored_once():
    e = EdgeList(np.array([0, 1, 1]), np.array([0, 2, 1]), 3, directed=False)
    g = build_csr(e, self_loops="keep", duplicates="keep")
    assert g.m == 4  # loops 0-0 and 1-1 once each, 1-2 both ways
    assert list(g.neighbors(1)) == [1, 2]


def test_the_transpose_carries_each_edges_weight_when_asked():
    """reverse_csr(weights=True): edge u -> v of weight w becomes v -> u of weight w, parallel
    edges and self-loops each with their own; without it, no weights."""
    from gpubfs_cli.graph import samples
    from gpubfs_cli.graph.build import reverse_csr

    g = samples.from_edges(np.array([0, 0, 0, 1, 2, 2]), np.array([1, 1, 2, 2, 2, 0]), 3,
                           weights=np.array([5, 7, 1, 4, 9, 3]), directed=True, name="w")
    t = reverse_csr(g, weights=True)
    heads = np.repeat(np.arange(3), np.diff(np.asarray(t.row_offsets)))
    got = sorted(zip(np.asarray(t.col_indices).tolist(), heads.tolist(), np.asarray(t.weights).tolist(), strict=True))
    tails = np.repeat(np.arange(3), np.diff(np.asarray(g.row_offsets)))
    assert got == sorted(zip(tails.tolist(), np.asarray(g.col_indices).tolist(), np.asarray(g.weights).tolist(),
                             strict=True))
    assert reverse_csr(g).weights is None
