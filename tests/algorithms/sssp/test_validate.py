"""SSSP validation: each check must catch its own planted fault and pass right answers."""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.algorithms.sssp.cpu.dijkstra import dijkstra
from gpubfs_cli.algorithms.sssp.validate import (
    certificate_failures,
    parent_failures,
    relaxation_failures,
    validate,
)
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.strategy import get_strategy
from gpubfs_cli.graph import EdgeList, build_csr


def graph():
    """0 -2-> 1 -3-> 2, 0 -9-> 2, 2 -0-> 3 -0-> 4 -0-> 3 (zero-weight cycle 3 <-> 4),
    2 -1-> 5, and 6 -> 0 (6 unreachable from 0)."""
    src = [0, 1, 0, 2, 3, 4, 2, 6]
    dst = [1, 2, 2, 3, 4, 3, 5, 0]
    w = [2, 3, 9, 0, 0, 0, 1, 1]
    edges = EdgeList(np.array(src), np.array(dst), 7, True, np.array(w))
    return build_csr(edges, keep_weights=True, name="v")


def names(failures):
    return [f.split(":")[0] for f in failures]


@pytest.fixture
def ref():
    g = graph()
    a = dijkstra(g, 0, parents=True)
    assert a.distances.tolist() == [0, 2, 5, 5, 5, 6, -1]
    return g, a


def test_reference_and_scipy_parents_pass(ref):
    g, a = ref
    assert parent_failures(g, 0, a.distances, a.parents) == []
    assert certificate_failures(g, 0, a.distances, a.parents) == []
    assert validate(g, 0, a, a.distances, parents=True) is None
    st = get_strategy("cpu.scipy", "sssp")()
    st.prepare(g)
    b = st.traverse(0, True)
    assert validate(g, 0, b, a.distances, parents=True) is None


def test_wrong_root(ref):
    g, a = ref
    p = a.parents.copy()
    p[0] = 1
    assert "root" in names(parent_failures(g, 0, a.distances, p))


def test_missing_parent(ref):
    g, a = ref
    p = a.parents.copy()
    p[5] = -1
    f = parent_failures(g, 0, a.distances, p)
    assert names(f) == ["reach"] and "vertex 5 has parent -1, distance 6" in f[0]
    p = a.parents.copy()
    p[6] = 0  # a parent for an unreached vertex
    assert "reach" in names(parent_failures(g, 0, a.distances, p))


def test_parent_that_is_no_edge(ref):
    g, a = ref
    p = a.parents.copy()
    p[5] = 1  # 1 -> 5 is not an edge
    f = parent_failures(g, 0, a.distances, p)
    assert names(f) == ["tree-edge"] and "first: 1 -> 5" in f[0]
    p[5] = 99  # not even a vertex (so its chain never reaches the source either)
    f = parent_failures(g, 0, a.distances, p)
    assert names(f) == ["tree-edge", "cycle"] and "first: 99 -> 5" in f[0]


def test_edge_that_is_not_tight(ref):
    g, a = ref
    p = a.parents.copy()
    p[2] = 0  # 0 -9-> 2 is an edge, but d[2] = 5 comes through 1
    f = parent_failures(g, 0, a.distances, p)
    assert names(f) == ["tight"]
    assert "0 -> 2 of weight 9: d[2] = 5, d[0] + 9 = 9" in f[0]


def test_zero_weight_cycle(ref):
    g, a = ref
    p = a.parents.copy()
    p[3], p[4] = 4, 3  # both edges exist and are tight (weight 0, equal distances)
    f = parent_failures(g, 0, a.distances, p)
    assert names(f) == ["cycle"] and "2 tree vertices" in f[0]


def test_shape_and_missing_parents(ref):
    g, a = ref
    assert names(parent_failures(g, 0, a.distances, a.parents[:3])) == ["shape"]
    assert validate(g, 0, Answer(a.distances), a.distances, parents=True) == (
        "no parents returned although parents were asked for"
    )


def test_wrong_distances_are_reported_before_parents(ref):
    g, a = ref
    d = a.distances.copy()
    d[2] = 6
    reason = validate(g, 0, Answer(d, a.parents), a.distances, parents=True)
    assert reason.startswith("distances differ at 1 of 7 vertices (first: vertex 2 has 6, expected 5)")


@pytest.mark.parametrize("block", [1, 3, 1 << 24])
def test_relaxation_without_reference(ref, block):
    g, a = ref
    assert relaxation_failures(g, 0, a.distances, block=block) == []
    d = a.distances.copy()
    d[5] = 7  # too long: 2 -1-> 5 would shorten it
    f = relaxation_failures(g, 0, d, block=block)
    assert names(f) == ["relax"] and "first: 2 at 5 -> 5 at 7, weight 1" in f[0]
    d = a.distances.copy()
    d[5] = -1  # reachable but left unreached
    assert names(relaxation_failures(g, 0, d, block=block)) == ["component"]
    d = a.distances.copy()
    d[0] = 1
    assert "source" in names(relaxation_failures(g, 0, d, block=block))


def test_certificate_catches_too_short_distances(ref):
    g, a = ref
    d = a.distances.copy()
    d[3] = d[4] = 1  # too short, propped up by each other across the zero-weight cycle
    p = a.parents.copy()
    p[3], p[4] = 4, 3
    f = certificate_failures(g, 0, d, p)
    assert "cycle" in names(f)
    assert relaxation_failures(g, 0, d) == []  # relaxation alone cannot see it
