"""The nasty graphs of the Merrill strategy tests (GPU and emulated), and their checks.

Each graph (built by graph/samples.py) stresses one part of the kernels: a long path
and a lattice (many tiny iterations), stars whose hub degree exceeds the CTA size and
the grid-gathering threshold, disconnected parts and isolated sources, self-loops and
duplicate edges kept in the CSR, a single vertex, a directed graph, and a skewed
R-MAT graph.
"""

from __future__ import annotations

import numpy as np

from gpubfs_cli.graph import samples
from gpubfs_cli.graph.csr import CSRGraph


def nasty() -> list[CSRGraph]:
    return [
        samples.path(300),
        samples.grid(17, 23, name="grid23x17"),  # named width x height, as these tests know it
        samples.linked_stars(),
        # a cycle of 40, a clique of 12, a path of 30, then 20 isolated vertices
        samples.disjoint(samples.cycle(40), samples.clique(12), samples.path(30), isolated=20,
                         name="disconnected"),
        samples.loops_and_duplicates(150, 900, 3, loop_every=3),
        samples.single_vertex(),
        samples.forward_arcs(),
        samples.rmat(10, 12, 7),
    ]


def some_sources(g: CSRGraph, k: int = 3, seed: int = 0) -> list[int]:
    """Vertex 0, the largest-degree vertex, and random others (isolated ones included)."""
    rng = np.random.default_rng(seed)
    picks = [0, int(np.argmax(g.out_degrees()))]
    picks += [int(v) for v in rng.integers(0, g.n, k)]
    return sorted(set(picks))


def check_parents(g: CSRGraph, dist: np.ndarray, parent: np.ndarray, source: int) -> None:
    """Graph500 checks: the tree spans exactly the reached vertices, the source is its
    own parent, and every other parent is a neighbour one level closer."""
    reached = dist >= 0
    assert parent[source] == source
    assert np.array_equal(parent >= 0, reached), "parent set differs from reached set"
    v = np.flatnonzero(reached)
    v = v[v != source]
    p = parent[v].astype(np.int64)
    assert np.all(dist[p] == dist[v] - 1), "a parent is not one level closer"
    owners = np.repeat(np.arange(g.n, dtype=np.int64), np.diff(g.row_offsets))
    edge_keys = owners * g.n + g.col_indices
    assert np.all(np.isin(p * g.n + v, edge_keys)), "a parent is not adjacent to its child"
