"""Small nasty graphs for the Merrill strategy tests (GPU and emulated), and checks.

Each graph stresses one part of the kernels: long paths and lattices (thousands of
tiny iterations), stars whose hub degree exceeds the CTA size and the grid-gathering
threshold, disconnected parts and isolated sources, self-loops and duplicate edges
kept in the CSR, a single vertex, a directed graph, and a skewed R-MAT-like graph.
"""

from __future__ import annotations

import numpy as np

from gpubfs_cli.graph.build import build_csr
from gpubfs_cli.graph.csr import CSRGraph
from gpubfs_cli.graph.edges import EdgeList


def _undirected(src, dst, n: int, name: str, **kw) -> CSRGraph:
    e = EdgeList(np.asarray(src, np.int64), np.asarray(dst, np.int64), n, directed=False)
    return build_csr(e, name=name, **kw)


def path(n: int = 300) -> CSRGraph:
    a = np.arange(n - 1)
    return _undirected(a, a + 1, n, f"path{n}")


def grid(w: int = 23, h: int = 17) -> CSRGraph:
    ids = np.arange(w * h).reshape(h, w)
    src = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    dst = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    return _undirected(src, dst, w * h, f"grid{w}x{h}")


def stars(hub1: int = 700, hub2: int = 300) -> CSRGraph:
    """Hub 0 with `hub1` leaves; leaf 1 is joined to hub 2 with `hub2` leaves of its
    own (some shared with hub 0), so big lists turn up at depth 0, 1 and 2."""
    n = 3 + hub1 + hub2
    leaves1 = np.arange(3, 3 + hub1)
    leaves2 = np.concatenate([np.arange(3 + hub1, n), leaves1[: hub2 // 3]])
    src = np.concatenate([np.zeros(hub1, np.int64), [0, 1], np.full(len(leaves2), 2)])
    dst = np.concatenate([leaves1, [1, 2], leaves2])
    return _undirected(src, dst, n, "stars")


def funnel(middle: int = 64, hubs: int = 4, leaves: int = 100) -> CSRGraph:
    """Source 0 -> `middle` vertices -> each joined to the same `hubs` hubs, each with
    `leaves` leaves: every hub is discovered `middle` times at depth 2 (duplicates in
    the vertex queue without exact culling) and has a long list."""
    mid = np.arange(1, 1 + middle)
    hub = np.arange(1 + middle, 1 + middle + hubs)
    n = 1 + middle + hubs + hubs * leaves
    leaf = np.arange(1 + middle + hubs, n)
    src = np.concatenate([np.zeros(middle, np.int64), np.repeat(mid, hubs), np.repeat(hub, leaves)])
    dst = np.concatenate([mid, np.tile(hub, middle), leaf])
    return _undirected(src, dst, n, "funnel")


def disconnected() -> CSRGraph:
    """A cycle of 40, a clique of 12, a path of 30, then 20 isolated vertices."""
    c = np.arange(40)
    s = [c, (c + 1) % 40]
    k = 40 + np.array([(i, j) for i in range(12) for j in range(i + 1, 12)])
    p = np.arange(52, 81)
    src = np.concatenate([s[0], k[:, 0], p])
    dst = np.concatenate([s[1], k[:, 1], p + 1])
    return _undirected(src, dst, 102, "disconnected")


def loops_and_duplicates(seed: int = 3) -> CSRGraph:
    rng = np.random.default_rng(seed)
    n = 150
    src = rng.integers(0, n, 900)
    dst = rng.integers(0, n, 900)
    src = np.concatenate([src, src[:200], np.arange(0, n, 3)])
    dst = np.concatenate([dst, dst[:200], np.arange(0, n, 3)])
    return _undirected(src, dst, n, "loops_dups", self_loops="keep", duplicates="keep")


def single_vertex() -> CSRGraph:
    return _undirected(np.zeros(0, np.int64), np.zeros(0, np.int64), 1, "single")


def directed(seed: int = 5) -> CSRGraph:
    rng = np.random.default_rng(seed)
    n = 400
    src = rng.integers(0, n, 1600)
    dst = (src + rng.integers(1, 30, 1600)) % n  # mostly forward: long directed chains
    e = EdgeList(src, dst, n, directed=True)
    return build_csr(e, name="directed")


def rmat(scale: int = 10, edge_factor: int = 12, seed: int = 7, a=0.57, b=0.19, c=0.19) -> CSRGraph:
    """Kronecker / R-MAT edges (vectorized bit by bit), symmetrized."""
    rng = np.random.default_rng(seed)
    m = edge_factor << scale
    src = np.zeros(m, np.int64)
    dst = np.zeros(m, np.int64)
    for bit in range(scale):
        r = rng.random(m)
        down = r >= a + b  # quadrants c, d: source bit set
        right = ((r >= a) & (r < a + b)) | (r >= a + b + c)
        src |= down.astype(np.int64) << bit
        dst |= right.astype(np.int64) << bit
    return _undirected(src, dst, 1 << scale, f"rmat{scale}")


def uniform(n: int, m: int, seed: int = 11) -> CSRGraph:
    rng = np.random.default_rng(seed)
    return _undirected(rng.integers(0, n, m), rng.integers(0, n, m), n, f"uniform{n}")


def nasty() -> list[CSRGraph]:
    return [
        path(),
        grid(),
        stars(),
        disconnected(),
        loops_and_duplicates(),
        single_vertex(),
        directed(),
        rmat(),
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
