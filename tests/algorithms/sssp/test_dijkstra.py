"""cpu.dijkstra and SSSP's cpu.scipy against networkx's Dijkstra, and SSSP's input checks."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from gpubfs_cli.algorithms.sssp.cpu.dijkstra import dijkstra
from gpubfs_cli.algorithms.sssp.validate import certificate_failures, parent_failures
from gpubfs_cli.core.problem import get_problem
from gpubfs_cli.core.strategy import StrategyUnavailable, get_strategy
from gpubfs_cli.errors import UserError
from gpubfs_cli.graph import EdgeList, build_csr

BIG = 2**31 - 1


def weighted(src, dst, w, n, directed=True, duplicates="keep"):
    edges = EdgeList(np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64), n, directed,
                     np.asarray(w))
    return build_csr(edges, duplicates=duplicates, self_loops="keep", keep_weights=True, name="t")


def networkx_distances(g, source):
    """networkx's Dijkstra on the very CSR entries (parallel edges: the lightest counts)."""
    G = nx.MultiDiGraph()
    G.add_nodes_from(range(g.n))
    rows = np.repeat(np.arange(g.n), np.diff(g.row_offsets))
    G.add_weighted_edges_from(zip(rows.tolist(), g.col_indices.tolist(), np.asarray(g.weights).tolist(), strict=True))
    lengths = nx.single_source_dijkstra_path_length(G, source)
    d = np.full(g.n, -1, dtype=np.int64)
    for v, dist in lengths.items():
        d[v] = dist
    return d


def solvers():
    """(name, solve(graph, source, parents) -> Answer) for each SSSP strategy here."""
    def strategy(name):
        cls = get_strategy(name, "sssp")

        def solve(g, s, parents):
            st = cls()
            st.prepare(g)
            return st.traverse(s, parents)

        return solve

    return [("dijkstra()", dijkstra), ("cpu.dijkstra", strategy("cpu.dijkstra")),
            ("cpu.scipy", strategy("cpu.scipy"))]


def check_all(g, sources):
    for s in sources:
        expected = networkx_distances(g, s)
        for name, solve in solvers():
            plain = solve(g, s, False)
            assert plain.distances.dtype == np.int64, name
            np.testing.assert_array_equal(plain.distances, expected, err_msg=f"{name} source {s}")
            assert plain.parents is None
            answer = solve(g, s, True)
            np.testing.assert_array_equal(answer.distances, expected, err_msg=f"{name} source {s}")
            assert parent_failures(g, s, answer.distances, answer.parents) == [], name
            assert certificate_failures(g, s, answer.distances, answer.parents) == [], name


@pytest.mark.parametrize("directed", [True, False])
def test_random_graphs_match_networkx(directed):
    rng = np.random.default_rng(7 + directed)
    for trial in range(60):
        n = int(rng.integers(1, 40))
        m = int(rng.integers(0, 4 * n + 1))
        src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
        # small weights: many zero-weight edges and ties; every fifth graph: huge ones
        w = rng.integers(0, 4, m) if trial % 5 else rng.integers(BIG - 3, BIG + 1, m)
        g = weighted(src, dst, w, n, directed)
        check_all(g, sorted({0, n - 1, int(rng.integers(0, n))}))


def test_heavy_direct_edge_loses_to_lighter_two_hop_path():
    g = weighted([0, 0, 1], [2, 1, 2], [10, 3, 4], 3)
    for _, solve in solvers():
        a = solve(g, 0, True)
        assert a.distances.tolist() == [0, 3, 7]
        assert a.parents.tolist() == [0, 0, 1]


def test_zero_weight_edges_and_unreachable_part():
    # 0 -0-> 1 -0-> 2 -5-> 3, 2 -0-> 0 (a zero-weight cycle), and 4 <-> 5 apart
    g = weighted([0, 1, 2, 2, 4, 5], [1, 2, 3, 0, 5, 4], [0, 0, 5, 0, 1, 1], 6)
    for name, solve in solvers():
        a = solve(g, 0, True)
        assert a.distances.tolist() == [0, 0, 0, 5, -1, -1], name
        assert a.parents.tolist() == [0, 0, 1, 2, -1, -1], name


def test_equal_weight_ties_give_a_valid_tree():
    # a diamond with equal paths: either parent of 3 is right
    g = weighted([0, 0, 1, 2], [1, 2, 3, 3], [2, 2, 3, 3], 4, directed=False, duplicates="drop")
    for name, solve in solvers():
        a = solve(g, 0, True)
        assert a.distances.tolist() == [0, 2, 2, 5], name
        assert a.parents[3] in (1, 2)
        assert parent_failures(g, 0, a.distances, a.parents) == []


def test_weights_near_int32_max_sum_past_int32():
    n = 5
    g = weighted(range(n - 1), range(1, n), [BIG] * (n - 1), n)
    for name, solve in solvers():
        a = solve(g, 0, False)
        assert a.distances.tolist() == [k * BIG for k in range(n)], name
    assert int(dijkstra(g, 0).distances[-1]) > 2**32


def test_parallel_edges_use_the_lightest():
    g = weighted([0, 0, 0, 1], [1, 1, 1, 2], [9, 2, 5, 1], 3)
    for name, solve in solvers():
        a = solve(g, 0, True)
        assert a.distances.tolist() == [0, 2, 3], name


def test_directed_edges_are_one_way_and_undirected_both():
    d = weighted([0, 1], [1, 2], [1, 1], 3, directed=True)
    u = weighted([0, 1], [1, 2], [1, 1], 3, directed=False, duplicates="drop")
    for name, solve in solvers():
        assert solve(d, 2, False).distances.tolist() == [-1, -1, 0], name
        assert solve(u, 2, False).distances.tolist() == [2, 1, 0], name


def test_counters():
    g = weighted([0, 0, 1, 3], [1, 2, 2, 0], [4, 1, 1, 1], 4)
    a = dijkstra(g, 0)
    assert a.counters == {"reached": 3, "edges_relaxed": 3, "heap_pushes": 3, "decrease_keys": 0}
    a = dijkstra(g, 3)
    assert a.counters["reached"] == 4 and a.counters["edges_relaxed"] == 4


def test_scipy_refuses_sums_past_2_53():
    g = weighted([0, 1, 2], [1, 2, 3], [2**52, 2**52, 2**52], 4)
    st = get_strategy("cpu.scipy", "sssp")()
    with pytest.raises(StrategyUnavailable, match="2\\^53"):
        st.prepare(g)
    # cpu.dijkstra is exact there
    assert dijkstra(g, 0).distances.tolist() == [0, 2**52, 2**53, 3 * 2**52]


def test_problem_input_checks():
    problem = get_problem("sssp")
    whole = weighted([0, 1], [1, 2], np.array([1.0, 2.0]), 3)
    problem.check_graph(whole)
    assert whole.weights.dtype.kind == "i" and whole.weights.tolist() == [1, 2]
    assert problem.reference(whole, 0).distances.tolist() == [0, 1, 3]

    real = weighted([0, 1], [1, 2], np.array([1.0, 2.5]), 3)
    with pytest.raises(UserError, match="dataset 't': SSSP here takes integer weights; edge 1 -> 2 has weight 2.5"):
        problem.check_graph(real)

    negative = weighted([0, 1, 1], [1, 0, 2], [3, 3, -4], 3)
    with pytest.raises(UserError) as exc:
        problem.check_graph(negative)
    assert "dataset 't'" in str(exc.value) and "edge 1 -> 2 has weight -4" in str(exc.value)
    assert "\n" not in str(exc.value)

    none = build_csr(EdgeList(np.array([0]), np.array([1]), 2, True), name="t")
    with pytest.raises(UserError, match="has none"):
        problem.check_graph(none)


def test_int64_vertex_ids():
    """The path taken when n >= 2^31 (col_indices int64), on a small graph."""
    g = weighted([0, 0, 1], [2, 1, 2], [10, 3, 4], 3)
    g.col_indices = g.col_indices.astype(np.int64)
    g.weights = g.weights.astype(np.int64)
    a = dijkstra(g, 0, parents=True)
    assert a.distances.tolist() == [0, 3, 7] and a.parents.dtype == np.int64
    assert certificate_failures(g, 0, a.distances, a.parents) == []
