"""graph/list_order.hubs_first on numpy against a per-list stable sort, whole and in
chunks of a few edges (the device runs the same code on CuPy: test_do_emulated.py)."""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.graph import list_order
from gpubfs_cli.graph import samples as sample_graphs


def reference(offsets, cols, deg):
    out = []
    for v in range(len(offsets) - 1):
        out += sorted(cols[offsets[v]:offsets[v + 1]].tolist(), key=lambda u: -deg[u])  # stable
    return np.asarray(out, dtype=cols.dtype)


@pytest.mark.parametrize("chunk", [None, 1, 3, 7, 64])
@pytest.mark.parametrize("name", ["rmat", "star300", "loops_dups", "directed", "single"])
def test_each_list_by_degree_largest_first_ties_as_stored(name, chunk):
    g = dict(sample_graphs.NASTY_BFS)[name]()
    deg = g.out_degrees()
    got = list_order.hubs_first(np, g.row_offsets, g.col_indices, deg, chunk)
    assert got.dtype == g.col_indices.dtype
    np.testing.assert_array_equal(got, reference(g.row_offsets, g.col_indices, deg))


def test_an_empty_graph_and_empty_lists():
    offsets = np.array([0, 0, 2, 2, 3], dtype=np.int64)
    cols = np.array([3, 0, 1], dtype=np.int32)
    deg = np.array([1, 5, 0, 9])
    np.testing.assert_array_equal(list_order.hubs_first(np, offsets, cols, deg, 1), [3, 0, 1])
    none = list_order.hubs_first(np, np.zeros(3, dtype=np.int64), np.zeros(0, dtype=np.int32), np.zeros(2))
    assert none.shape == (0,)
