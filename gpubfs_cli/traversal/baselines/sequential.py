"""cpu.sequential: the queue-based BFS of Cormen et al., compiled with numba.

Every paper's CPU baseline and the denominator of every speedup, so it is written to
be an honest, fast sequential BFS: one FIFO array, one pass over each reached
vertex's adjacency list, distances as the visited test.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gpubfs_cli.graph.csr import CSRGraph
from gpubfs_cli.traversal.result import BfsResult
from gpubfs_cli.traversal.strategy import Strategy, register


@njit(cache=True, nogil=True)
def _bfs(row_offsets, col_indices, source, dist, parent, want_parent):
    n = dist.shape[0]
    queue = np.empty(n, dtype=np.int64)
    dist[source] = 0
    if want_parent:
        parent[source] = source
    queue[0] = source
    head = 0
    tail = 1
    edges = 0
    while head < tail:
        u = queue[head]
        head += 1
        du = dist[u] + 1
        start = row_offsets[u]
        end = row_offsets[u + 1]
        edges += end - start
        for e in range(start, end):
            v = col_indices[e]
            if dist[v] < 0:
                dist[v] = du
                if want_parent:
                    parent[v] = u
                queue[tail] = v
                tail += 1
    return tail, edges, dist[queue[tail - 1]]


def sequential_bfs(graph: CSRGraph, source: int, predecessors: bool = False) -> BfsResult:
    """Distances (and parents) from `source`; counters: reached, edges_inspected, levels."""
    n = graph.n
    dist = np.full(n, -1, dtype=np.int32)
    parent = np.full(n if predecessors else 1, -1, dtype=graph.col_indices.dtype)
    reached, edges, depth = _bfs(
        graph.row_offsets, graph.col_indices, np.int64(source), dist, parent, predecessors
    )
    return BfsResult(
        distances=dist,
        parents=parent if predecessors else None,
        counters={"reached": int(reached), "edges_inspected": int(edges), "levels": int(depth) + 1},
    )


@register
class SequentialBfs(Strategy):
    name = "cpu.sequential"
    paper = "cpu"
    section = "Cormen et al., BFS with a FIFO queue (the baseline of all five papers)"
    summary = "sequential queue BFS, numba-compiled: the speedup denominator"

    def traverse(self, source: int, predecessors: bool = False) -> BfsResult:
        return sequential_bfs(self.graph, source, predecessors)
