"""cpu.dijkstra: Dijkstra's algorithm with a binary heap, compiled with numba.

The SSSP reference and the denominator of every SSSP speedup, so it is written to be
an honest, fast sequential Dijkstra (the textbook one, as in Cormen et al. 24.3): an
indexed binary min-heap of vertices with decrease-key, so the heap never holds more
than n entries (a lazy-deletion heap holds up to m) and each vertex is popped once.
Each popped vertex relaxes its out-edges once; with non-negative weights a settled
vertex never improves, so one comparison with its tentative distance is the whole
per-edge test. Keys live beside the vertex ids in the heap (no indirection when
sifting). Vertex ids and edge offsets are read through unsigned views, as
cpu.sequential does, so numba emits no negative-index wraparound test.

Distances are int64 (-1 unreached); parents on request (parent[source] = source,
-1 unreached). Counters: reached, edges_relaxed (out-edges of the settled vertices),
heap_pushes (inserts), decrease_keys.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.strategy import Strategy, register
from gpubfs_cli.graph.csr import CSRGraph, unsigned_views

INF = np.iinfo(np.int64).max


def _make_dijkstra(with_parents: bool):
    # Two compiled copies, so the distance-only loop carries no parent store at all.
    @njit(cache=True, nogil=True)
    def run(row_offsets, col_indices, weights, source, dist, parent, pos, heap_v, heap_k):
        # dist holds INF for never-seen vertices; pos[v] is v's slot while it is queued.
        dist[source] = 0
        if with_parents:
            parent[source] = source
        heap_v[0] = source
        heap_k[0] = 0
        pos[source] = 0
        size = 1
        reached = 0
        pushes = 1
        decreases = 0
        edges = np.uint64(0)
        while size > 0:
            u = heap_v[0]
            du = heap_k[0]
            size -= 1
            if size > 0:  # the last entry goes to the root and sinks
                lv = heap_v[size]
                lk = heap_k[size]
                i = 0
                while True:
                    c = 2 * i + 1
                    if c >= size:
                        break
                    ck = heap_k[c]
                    if c + 1 < size and heap_k[c + 1] < ck:
                        c += 1
                        ck = heap_k[c]
                    if lk <= ck:
                        break
                    cv = heap_v[c]
                    heap_v[i] = cv
                    heap_k[i] = ck
                    pos[cv] = i
                    i = c
                heap_v[i] = lv
                heap_k[i] = lk
                pos[lv] = i
            reached += 1
            start = row_offsets[u]
            end = row_offsets[u + np.uint32(1)]
            edges += end - start
            e = start
            while e < end:
                v = col_indices[e]
                nd = du + weights[e]
                e += np.uint64(1)
                dv = dist[v]
                if nd < dv:
                    dist[v] = nd
                    if with_parents:
                        parent[v] = u
                    if dv == INF:
                        i = size
                        size += 1
                        pushes += 1
                    else:
                        i = np.int64(pos[v])
                        decreases += 1
                    while i > 0:  # rise to its place
                        q = (i - 1) >> 1
                        qk = heap_k[q]
                        if qk <= nd:
                            break
                        qv = heap_v[q]
                        heap_v[i] = qv
                        heap_k[i] = qk
                        pos[qv] = i
                        i = q
                    heap_v[i] = v
                    heap_k[i] = nd
                    pos[v] = i
        for v in range(dist.shape[0]):
            if dist[v] == INF:
                dist[v] = -1
        return reached, edges, pushes, decreases

    return run


_dijkstra_distances = _make_dijkstra(False)
_dijkstra_parents = _make_dijkstra(True)


def _weights(graph: CSRGraph) -> np.ndarray:
    w = graph.weights
    if w is None or np.asarray(w).dtype.kind != "i":
        from gpubfs_cli.algorithms.sssp.inputs import integer_weights

        w = integer_weights(graph)
    return np.asarray(w)


def dijkstra(graph: CSRGraph, source: int, parents: bool = False) -> Answer:
    """Distances (int64, -1 unreached) and optionally parents from `source`.

    The weights must be non-negative integers (Sssp.check_graph checks them; a
    negative weight here gives wrong distances, not an error).
    """
    return _solve(graph, _weights(graph), source, parents)


def _solve(graph: CSRGraph, weights: np.ndarray, source: int, parents: bool) -> Answer:
    n = graph.n
    offsets, ucols = unsigned_views(graph)
    dist = np.full(n, INF, dtype=np.int64)
    parent = np.full(n if parents else 1, -1, dtype=graph.col_indices.dtype)
    pos = np.empty(n, dtype=np.int32 if n < 2**31 else np.int64)
    heap_v = np.empty(n, dtype=ucols.dtype)
    heap_k = np.empty(n, dtype=np.int64)
    run = _dijkstra_parents if parents else _dijkstra_distances
    reached, edges, pushes, decreases = run(
        offsets, ucols, weights, ucols.dtype.type(source), dist, parent, pos, heap_v, heap_k
    )
    return Answer(
        distances=dist,
        parents=parent if parents else None,
        counters={
            "reached": int(reached),
            "edges_relaxed": int(edges),
            "heap_pushes": int(pushes),
            "decrease_keys": int(decreases),
        },
    )


@register
class DijkstraSssp(Strategy):
    name = "cpu.dijkstra"
    caveats = (
        "the SSSP speedup denominator: one CPU thread, numba-compiled binary-heap Dijkstra",
    )
    problem = "sssp"
    paper = "cpu"
    section = "Dijkstra 1959, binary heap with decrease-key (Cormen et al. 24.3): the SSSP baseline"
    summary = "sequential binary-heap Dijkstra, numba-compiled: the SSSP speedup denominator"

    def prepare(self, graph: CSRGraph) -> None:
        super().prepare(graph)
        self._weights = _weights(graph)  # converted once, not per source

    def traverse(self, source: int, predecessors: bool = False) -> Answer:
        return _solve(self.graph, self._weights, source, predecessors)

    def release(self) -> None:
        self._weights = None
        super().release()
