"""Vertex orders, and the relabelled graph a strategy runs on (`reorder:` in a run config).

An order is a permutation `perm` of 0..n-1: new id i is the old vertex perm[i]; its
inverse `rank` maps an old id to its new one. `relabel(graph, perm)` builds the graph in
the new numbering; `map_answer` turns an answer in the new numbering back into the old
one, so the harness checks and measures answers in the graph's own ids.

Orders (ORDERS), every one vectorized (numpy or scipy; no Python loop over vertices or
edges):
  none    the graph as it is
  degree  by out-degree, largest first, ties by id
  rcm     reverse Cuthill-McKee (scipy) on the symmetric pattern (a directed graph's
          arcs taken both ways): neighbours get near ids, a small bandwidth
  hub     hub clustering: vertices of out-degree above the average first, then the rest,
          each part in its original order (see hub_order)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gpubfs_cli.core.answer import Answer
from gpubfs_cli.graph.csr import CSRGraph, scipy_matrix

NONE = "none"


def degree_order(graph: CSRGraph) -> np.ndarray:
    """By out-degree, descending; a stable sort keeps ties in id order (deterministic)."""
    return np.argsort(-graph.out_degrees().astype(np.int64), kind="stable").astype(np.int64)


def rcm_order(graph: CSRGraph) -> np.ndarray:
    """scipy's reverse Cuthill-McKee on the symmetric pattern of the graph's edges."""
    from scipy.sparse.csgraph import reverse_cuthill_mckee

    return reverse_cuthill_mckee(symmetric_pattern(graph), symmetric_mode=True).astype(np.int64)


def hub_order(graph: CSRGraph) -> np.ndarray:
    """Hub clustering (Balaji and Lucia, IISWC 2018): the vertices whose out-degree is
    above the average first, then the others, each part in its original order.

    Chosen over a BFS order because it is one stable partition (O(n), no traversal, so
    its cost is negligible beside any run) and it keeps the locality the input's own
    numbering already has (road networks, meshes and crawls come well numbered), while
    the hubs, which most edges point at, get their distances and visited flags packed
    into a few cache lines. A BFS order would redo the numbering from scratch and needs
    a start per component."""
    deg = graph.out_degrees()
    hot = deg * max(graph.n, 1) > graph.m  # degree > m / n, in integers
    ids = np.arange(graph.n, dtype=np.int64)
    return np.concatenate([ids[hot], ids[~hot]])


ORDERS: dict[str, Callable[[CSRGraph], np.ndarray] | None] = {
    NONE: None,
    "degree": degree_order,
    "rcm": rcm_order,
    "hub": hub_order,
}


def symmetric_pattern(graph: CSRGraph):
    """The graph's pattern as a scipy CSR array (ones), with every arc both ways."""
    a = scipy_matrix(graph, np.ones(graph.m, dtype=np.int8))
    return a if not graph.directed else (a + a.T).tocsr()


def inverse(perm: np.ndarray) -> np.ndarray:
    """rank[perm[i]] = i: an old id -> its new id."""
    rank = np.empty(len(perm), dtype=np.int64)
    rank[perm] = np.arange(len(perm), dtype=np.int64)
    return rank


def check_permutation(perm: np.ndarray, n: int) -> np.ndarray:
    """perm as int64 when it is a bijection of 0..n-1, else ValueError."""
    perm = np.asarray(perm)
    if perm.shape != (n,) or perm.dtype.kind not in "iu":
        raise ValueError(f"an order of {n} vertices must be {n} integers, got {perm.shape} {perm.dtype}")
    perm = perm.astype(np.int64, copy=False)
    if n and (int(perm.min()) < 0 or int(perm.max()) >= n or len(np.unique(perm)) != n):
        raise ValueError(f"not a permutation of 0..{n - 1}")
    return perm


def gather_rows(row_offsets, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(new row offsets, take) of a CSR whose row i is old row rows[i] (an empty row where
    rows[i] < 0): edge k of the new layout is old edge take[k] (its column and weight
    follow it; each list's order is kept). Int64 arrays."""
    offsets = np.asarray(row_offsets, dtype=np.int64)
    rows = np.asarray(rows, dtype=np.int64)
    real = rows >= 0
    at = np.maximum(rows, 0)
    start = np.where(real, offsets[:-1][at], 0)
    deg = np.where(real, offsets[1:][at] - start, 0)
    new_offsets = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(deg, out=new_offsets[1:])
    # row starts shifted, then consecutive
    take = np.repeat(start - new_offsets[:-1], deg)
    take += np.arange(int(new_offsets[-1]), dtype=np.int64)
    return new_offsets, take


def relabel(graph: CSRGraph, perm: np.ndarray) -> CSRGraph:
    """The graph with vertex perm[i] renamed i: row i is old row perm[i], every column
    id mapped, weights carried with their edges; each neighbour list sorted again (a
    stable sort, so parallel edges keep their lightest-first order)."""
    n = graph.n
    perm = check_permutation(perm, n)
    rank = inverse(perm)
    new_offsets, take = gather_rows(graph.row_offsets, perm)
    deg = np.diff(new_offsets)
    cols = rank.astype(graph.col_indices.dtype, copy=False)[np.asarray(graph.col_indices)[take]]
    key = np.repeat(np.arange(n, dtype=np.int64) * n, deg)  # row * n + column, sorted below
    key += cols
    order = np.argsort(key, kind="stable")
    del key
    weights = None if graph.weights is None else np.asarray(graph.weights)[take[order]]
    return CSRGraph(new_offsets, cols[order], graph.directed, weights, graph.name)


def map_distances(distances: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """Distances indexed by new ids -> indexed by old ids."""
    return np.asarray(distances)[rank]


def map_parents(parents: np.ndarray, perm: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """Parents in the new numbering -> the old one: positions and values (a negative
    value, no parent, stays as it is, and so does one past n: the check flags it)."""
    p = np.asarray(parents)[rank]
    has = (p >= 0) & (p < len(perm))
    out = p.copy()
    out[has] = perm[p[has]].astype(p.dtype, copy=False)
    return out


def map_answer(answer: Answer, perm: np.ndarray, rank: np.ndarray) -> Answer:
    """A host answer in the new numbering as the same answer in the old one; counters
    and times as they are. An array of the wrong shape stays as it is (its check says so)."""
    n = len(rank)
    if answer.distances is not None and np.shape(answer.distances) == (n,):
        answer.distances = map_distances(answer.distances, rank)
    if answer.parents is not None and np.shape(answer.parents) == (n,):
        answer.parents = map_parents(answer.parents, perm, rank)
    return answer


@dataclass(eq=False)
class Reordered:
    """A graph relabelled by an order: the new graph, perm (new -> old), rank (old ->
    new) and what computing the order and building the graph took (ms)."""

    order: str
    graph: CSRGraph
    perm: np.ndarray
    rank: np.ndarray
    ms: float

    def source(self, v: int) -> int:
        return int(self.rank[v])

    def answer(self, answer: Answer) -> Answer:
        return map_answer(answer, self.perm, self.rank)


def order_of(graph: CSRGraph, order: str) -> np.ndarray:
    """The permutation of a named order (ValueError for an unknown name)."""
    fn = ORDERS.get(order)
    if order not in ORDERS:
        raise ValueError(f"unknown vertex order {order!r} (one of {', '.join(ORDERS)})")
    if fn is None:
        return np.arange(graph.n, dtype=np.int64)
    return check_permutation(fn(graph), graph.n)
