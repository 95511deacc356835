"""Weighted graphs that break SSSP implementations, and the checks against cpu.dijkstra.

Zero-weight edges and zero-weight cycles (a parent pass that takes any tight in-edge
closes loops there), many equal-length paths, a heavy direct edge beaten by a lighter
two-hop path, unreachable parts, directed graphs, weights near the top of int32 (sums
past int32), and int64 weights near 2^57 on few vertices (sums near the int64 bound
that inputs.check_weights allows). `bfs_weighted` gives the BFS test graphs weights by
the catalogue's hash rule (0..100, zeros included).
"""

from __future__ import annotations

import numpy as np

from gpubfs_cli.algorithms.sssp.cpu.dijkstra import dijkstra
from gpubfs_cli.algorithms.sssp.inputs import check_weights
from gpubfs_cli.algorithms.sssp.validate import parent_failures
from gpubfs_cli.datasets.weights import WeightRule, rule_weights
from gpubfs_cli.graph.build import build_csr
from gpubfs_cli.graph.csr import CSRGraph, narrow_ints
from gpubfs_cli.graph.edges import EdgeList

INT32_TOP = 2**31 - 1


def weighted(src, dst, w, n: int, name: str, directed: bool = True) -> CSRGraph:
    e = EdgeList(np.asarray(src, np.int64), np.asarray(dst, np.int64), n, directed, np.asarray(w))
    g = build_csr(e, duplicates="keep", self_loops="keep", keep_weights=True, name=name)
    g.weights = narrow_ints(g.weights)  # int32 where they fit: both kernel builds get used
    check_weights(g)  # what the runner does: integer weights whose sums fit int64
    return g


def zero_cycles(seed: int = 11) -> CSRGraph:
    """Directed: 0 -(5)-> a zero-weight cycle 1..6 with zero-weight exits and re-entries,
    a zero-weight two-cycle reached at distance 0 from the source, and a random part
    where 40% of the weights are 0."""
    rng = np.random.default_rng(seed)
    src = [0, 1, 2, 3, 4, 5, 6, 3, 7, 8, 7, 0, 9, 10, 10, 11]
    dst = [1, 2, 3, 4, 5, 6, 1, 7, 8, 1, 9, 10, 10, 9, 11, 2]
    w = [5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 7]
    n = 120
    s = rng.integers(0, n, 500)
    d = rng.integers(0, n, 500)
    ww = np.where(rng.random(500) < 0.4, 0, rng.integers(1, 6, 500))
    return weighted(np.r_[src, s], np.r_[dst, d], np.r_[w, ww], n, "zero_cycles")


def ties(rows: int = 9, cols: int = 11, weight: int = 7) -> CSRGraph:
    """An undirected grid, every edge the same weight: many shortest paths of one length."""
    ids = np.arange(rows * cols).reshape(rows, cols)
    src = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    dst = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    return weighted(src, dst, np.full(len(src), weight), rows * cols, "ties", directed=False)


def heavy_direct(k: int = 40) -> CSRGraph:
    """A chain of triangles: i -> i+1 weighs 100, i -> x_i -> i+1 weighs 1 + 1; every
    fifth direct edge weighs 2 instead and ties with the two-hop path."""
    main = np.arange(k + 1)
    mid = k + 1 + np.arange(k)
    src = np.concatenate([main[:-1], main[:-1], mid])
    dst = np.concatenate([main[1:], mid, main[1:]])
    w = np.concatenate([np.full(k, 100), np.ones(k, np.int64), np.ones(k, np.int64)])
    w[: k : 5] = 2  # direct edge ties with the two-hop path
    return weighted(src, dst, w, 2 * k + 1, "heavy_direct")


def unreachable() -> CSRGraph:
    """Directed: a reachable random part 0..59, a part 60..99 that only points into it,
    and 20 isolated vertices."""
    rng = np.random.default_rng(5)
    s1, d1 = rng.integers(0, 60, 240), rng.integers(0, 60, 240)
    s2, d2 = rng.integers(60, 100, 120), rng.integers(0, 100, 120)
    src, dst = np.r_[s1, s2], np.r_[d1, d2]
    return weighted(src, dst, rng.integers(0, 50, len(src)), 120, "unreachable")


def directed_random(n: int = 300, m: int = 1500, seed: int = 2) -> CSRGraph:
    rng = np.random.default_rng(seed)
    return weighted(rng.integers(0, n, m), rng.integers(0, n, m), rng.integers(0, 101, m), n,
                    "directed_random")


def big_int32(n: int = 80, seed: int = 3) -> CSRGraph:
    """Weights within 100 of 2^31 - 1: every path of two edges or more passes int32."""
    rng = np.random.default_rng(seed)
    a = np.arange(n - 1)
    src = np.r_[a, rng.integers(0, n, 3 * n)]
    dst = np.r_[a + 1, rng.integers(0, n, 3 * n)]
    w = INT32_TOP - rng.integers(0, 100, len(src))
    return weighted(src, dst, w.astype(np.int64), n, "big_int32", directed=False)


def big_int64(n: int = 16, seed: int = 4) -> CSRGraph:
    """int64 weights up to 2^58 on 16 vertices: sums up to 15 x 2^58 < 2^63."""
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, 60), rng.integers(0, n, 60)
    w = rng.integers(2**56, 2**58, 60, dtype=np.int64)
    w[::7] = 0
    return weighted(src, dst, w, n, "big_int64")


def hub(leaves: int = 300, seed: int = 6) -> CSRGraph:
    """A star whose hub has more edges than a block and than any histogram MDT, with a
    ring through the leaves, random weights 0..9."""
    rng = np.random.default_rng(seed)
    lv = np.arange(1, leaves + 1)
    src = np.r_[np.zeros(leaves, np.int64), lv]
    dst = np.r_[lv, np.r_[lv[1:], lv[:1]]]
    return weighted(src, dst, rng.integers(0, 10, len(src)), leaves + 1, "hub", directed=False)


def loops_dups(seed: int = 8) -> CSRGraph:
    """Self-loops and parallel edges of different weights (the lightest counts)."""
    rng = np.random.default_rng(seed)
    n = 100
    s, d = rng.integers(0, n, 400), rng.integers(0, n, 400)
    s = np.r_[s, np.arange(0, n, 3), s[:100]]
    d = np.r_[d, np.arange(0, n, 3), d[:100]]
    return weighted(s, d, rng.integers(0, 20, len(s)), n, "loops_dups", directed=False)


def single() -> CSRGraph:
    return weighted(np.zeros(0), np.zeros(0), np.zeros(0, np.int64), 1, "single")


NASTY = {
    "zero_cycles": zero_cycles,
    "ties": ties,
    "heavy_direct": heavy_direct,
    "unreachable": unreachable,
    "directed_random": directed_random,
    "big_int32": big_int32,
    "big_int64": big_int64,
    "hub": hub,
    "loops_dups": loops_dups,
    "single": single,
}


def bfs_weighted(g: CSRGraph, seed: int = 0) -> CSRGraph:
    """A copy of a BFS test graph with the catalogue's hash-rule weights in 0..100."""
    w = rule_weights(g, WeightRule(0, 100, seed))
    out = CSRGraph(g.row_offsets, g.col_indices, g.directed, w, name=f"{g.name or 'g'}-w")
    check_weights(out)
    return out


def pick_sources(g: CSRGraph, k: int = 4, seed: int = 7) -> list[int]:
    """Vertex 0, the last vertex, the largest out-degree, an isolated one, random ones."""
    deg = g.out_degrees()
    picks = [0, g.n - 1, int(np.argmax(deg))]
    zero = np.flatnonzero(deg == 0)
    if len(zero):
        picks.append(int(zero[0]))
    picks += np.random.default_rng(seed).integers(0, g.n, k).tolist()
    return list(dict.fromkeys(picks))


def check_sssp(g: CSRGraph, source: int, answer, predecessors: bool, label: str = "") -> None:
    """Exact distances (int64) against cpu.dijkstra; with predecessors, the shortest-path
    tree checks of sssp/validate.py (root, reach, tree-edge, tight, cycle)."""
    ref = dijkstra(g, source)
    got = np.asarray(answer.distances)
    assert got.dtype == np.int64, label
    np.testing.assert_array_equal(got, ref.distances, err_msg=f"{label} source {source}")
    if predecessors:
        failures = parent_failures(g, source, got, np.asarray(answer.parents))
        assert failures == [], f"{label} source {source}: {failures}"
    else:
        assert answer.parents is None
