"""cpu.sequential, cpu.scipy and cpu.networkx give the same answers, and valid trees."""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.bfs_order import distances_from_order
from gpubfs_cli.algorithms.bfs.cpu.networkx_ref import NetworkxBfs
from gpubfs_cli.algorithms.bfs.cpu.scipy_ref import ScipyBfs
from gpubfs_cli.algorithms.bfs.cpu.sequential import SequentialBfs, sequential_bfs
from gpubfs_cli.algorithms.bfs.validate import graph500_failures
from gpubfs_cli.core.checks import tree_depths
from gpubfs_cli.core.strategy import StrategyUnavailable
from gpubfs_cli.graph import EdgeList, build_csr, samples


def test_sequential_on_a_path_and_a_star():
    g = samples.path(6)
    r = sequential_bfs(g, 2, predecessors=True)
    assert r.distances.tolist() == [2, 1, 0, 1, 2, 3]
    assert r.parents.tolist() == [1, 2, 2, 2, 3, 4]
    assert r.counters == {"reached": 6, "edges_inspected": 10, "levels": 4}
    star = samples.disjoint(samples.star(4, directed=True), isolated=2)
    r = sequential_bfs(star, 0)
    assert r.distances.tolist() == [0, 1, 1, 1, 1, -1, -1]
    assert r.parents is None
    r = sequential_bfs(star, 6)  # isolated source
    assert r.distances.tolist() == [-1] * 6 + [0]
    assert r.counters == {"reached": 1, "edges_inspected": 0, "levels": 1}


CASES = [
    # seed, n, m, directed, self_loops: sparse ones are disconnected with isolated vertices
    (1, 300, 250, False, "drop"),
    (2, 300, 900, True, "drop"),
    (3, 500, 400, True, "keep"),
    (4, 200, 1200, False, "keep"),
]


@pytest.mark.parametrize("seed,n,m,directed,loops", CASES)
def test_three_baselines_agree_and_trees_pass_graph500(seed, n, m, directed, loops):
    g = samples.gnm(n, m, seed, directed=directed, isolated=5, self_loops=loops)  # 5 isolated at the end
    deg = g.out_degrees()
    isolated = np.flatnonzero(deg == 0)
    assert len(isolated) > 0  # the cases include isolated vertices
    sources = [0, int(np.argmax(deg)), int(isolated[0]), n - 1]
    strategies = [SequentialBfs(), ScipyBfs(), NetworkxBfs()]
    for s in strategies:
        s.prepare(g)
    for source in sources:
        ref = sequential_bfs(g, source, predecessors=True)
        assert ref.distances[source] == 0
        for s in strategies:
            for pred in (False, True):
                r = s.traverse(source, pred)
                np.testing.assert_array_equal(r.distances, ref.distances, err_msg=f"{s.name} from {source}")
                assert r.distances.dtype == np.int32
                if pred:
                    fails = graph500_failures(g, source, r.distances, r.parents, ref.distances >= 0)
                    assert fails == [], (s.name, source, fails)
                else:
                    assert r.parents is None


def test_baselines_reach_a_whole_component_only():
    # two triangles: BFS from one never reaches the other
    g = build_csr(EdgeList(np.array([0, 1, 2, 3, 4, 5]), np.array([1, 2, 0, 4, 5, 3]), 6, False))
    for cls in (SequentialBfs, ScipyBfs, NetworkxBfs):
        s = cls()
        s.prepare(g)
        assert s.traverse(4).distances.tolist() == [-1, -1, -1, 1, 0, 1]


def test_networkx_refuses_graphs_over_its_limit():
    g = samples.gnm(100, 400, 5, directed=True, isolated=5)
    s = NetworkxBfs(NetworkxBfs.Knobs(max_edges=g.m - 1))
    with pytest.raises(StrategyUnavailable, match=f"max_edges={g.m - 1}"):
        s.prepare(g)
    NetworkxBfs(NetworkxBfs.Knobs(max_edges=g.m)).prepare(g)


def test_distances_from_order_and_tree_depths():
    # 0 -> 1, 0 -> 2, 1 -> 3, 2 -> 4, 4 -> 5; 6 unreached
    parents = np.array([-9999, 0, 0, 1, 2, 4, -9999])
    order = np.array([0, 1, 2, 3, 4, 5])
    assert distances_from_order(order, parents, 7).tolist() == [0, 1, 1, 2, 2, 3, -1]
    # another FIFO order of the same tree
    assert distances_from_order(np.array([0, 2, 1, 4, 3, 5]), parents, 7).tolist() == [0, 1, 1, 2, 2, 3, -1]
    # a parent listed after its child is not a FIFO order
    assert distances_from_order(np.array([0, 3, 1]), np.array([-1, 0, -1, 1]), 4) is None
    tree = np.array([0, 0, 0, 1, 2, 4, -1])
    depth, broken = tree_depths(tree, 0)
    assert depth.tolist() == [0, 1, 1, 2, 2, 3, -1]
    assert not broken.any()
    cyc = np.array([0, 0, 3, 2, -1])  # 2 <-> 3 cycle
    depth, broken = tree_depths(cyc, 0)
    assert broken.tolist() == [False, False, True, True, False]
    assert depth.tolist() == [0, 1, -1, -1, -1]
