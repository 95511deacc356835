"""The road-like geometric family: determinism, structure, weights, road-like depth."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components, shortest_path

from gpubfs_cli.errors import UserError
from gpubfs_cli.graph.generators import generate
from gpubfs_cli.graph.generators import geometric as geo


def adjacency(e):
    a = coo_matrix((np.ones(e.num_records), (e.src, e.dst)), shape=(e.n, e.n)).tocsr()
    return (a + a.T).tocsr()


def test_same_seed_same_graph_other_seed_other_graph():
    a = generate("geometric", {"n": 3000}, 1)
    b = generate("geometric", {"n": 3000}, 1)
    c = generate("geometric", {"n": 3000}, 2)
    for x, y in ((a.src, b.src), (a.dst, b.dst), (a.weights, b.weights)):
        assert np.array_equal(x, y)
    assert len(a.src) != len(c.src) or not np.array_equal(a.src, c.src)
    assert a.src.dtype == a.dst.dtype == a.weights.dtype == np.int32


def test_simple_undirected_connected_with_euclidean_weights():
    n, unit = 2000, 1000
    e = generate("geometric", {"n": n}, 5)
    assert not e.directed and e.n == n
    src, dst = e.src.astype(np.int64), e.dst.astype(np.int64)
    assert np.all(src < dst)  # each edge once, no self-loops
    key = src * n + dst
    assert len(np.unique(key)) == len(key)
    assert connected_components(adjacency(e), directed=False)[0] == 1
    pts = geo.points(n, 5)
    assert pts.min() >= 0 and pts.max() < 1
    want = np.maximum(1, np.rint(np.linalg.norm(pts[src] - pts[dst], axis=1) * unit * np.sqrt(n)))
    assert np.array_equal(e.weights, want.astype(np.int32))
    assert 1 <= e.weights.min() and e.weights.max() <= round(unit * np.sqrt(2 * n))
    # every vertex is joined to its 2 nearest neighbours
    d = np.linalg.norm(pts[:50, None, :] - pts[None, :, :], axis=2)
    nearest = np.argsort(d, axis=1)[:, 1:3]
    a = adjacency(e)
    assert all(a[i, j] for i in range(50) for j in nearest[i])


def test_mean_degree_and_depth_are_road_like():
    n = 20_000
    e = generate("geometric", {"n": n}, 1)
    mean = 2 * e.num_records / n
    assert 2.5 <= mean <= 3.0  # DIMACS USA-road-d: 2.4 to 2.8 arcs per vertex
    depth = shortest_path(adjacency(e), unweighted=True, indices=[0, 1, 2]).max()
    g = generate("gnm", {"n": n, "m": e.num_records, "directed": False}, 1)
    d = shortest_path(adjacency(g), unweighted=True, indices=[0, 1, 2])
    assert depth > 20 * d[np.isfinite(d)].max()
    assert depth > 2 * np.sqrt(n)  # grows as sqrt(n), like a planar road network


def test_chunked_equals_one_shot(monkeypatch):
    one = generate("geometric", {"n": 5000, "k": 3}, 4)
    monkeypatch.setattr(geo, "CHUNK", 97)
    parts = generate("geometric", {"n": 5000, "k": 3}, 4)
    assert np.array_equal(one.src, parts.src) and np.array_equal(one.dst, parts.dst)
    assert np.array_equal(one.weights, parts.weights)


def test_links_beyond_the_cached_neighbours():
    # probe 2: most components need wider searches (the doubling path)
    e = generate("geometric", {"n": 3000, "probe": 2}, 3)
    assert connected_components(adjacency(e), directed=False)[0] == 1


def test_tiny_graphs():
    e = generate("geometric", {"n": 2, "k": 1}, 0)
    assert (e.src.tolist(), e.dst.tolist()) == ([0], [1])
    e = generate("geometric", {"n": 7, "k": 1}, 0)
    assert connected_components(adjacency(e), directed=False)[0] == 1


@pytest.mark.parametrize(
    ("params", "message"),
    [({"n": 0}, "parameter 'n' must be an integer in [2, "),
     ({"n": -5}, "parameter 'n' must be an integer in [2, "),
     ({"n": 100, "k": 0}, "parameter 'k' must be an integer in [1, 64]"),
     ({"n": 5, "k": 5}, "parameter 'k' must be an integer < n (5)"),
     ({"n": 100, "unit": 0}, "parameter 'unit' must be an integer in [1, "),
     ({}, "missing parameter 'n'"),
     ({"n": 100, "radius": 0.1}, "unknown parameter 'radius'")],
)
def test_bad_params_are_one_line(params, message):
    with pytest.raises(UserError) as err:
        generate("geometric", params, 1)
    assert str(err.value).startswith(f"generator geometric: {message}")
    assert "\n" not in str(err.value)
