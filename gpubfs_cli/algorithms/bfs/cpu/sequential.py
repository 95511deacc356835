"""cpu.sequential: the queue-based BFS of Cormen et al., compiled with numba.

Every paper's CPU baseline and the denominator of every speedup, so it is written to
be an honest, fast sequential BFS: one FIFO array, one pass over each reached
vertex's adjacency list, a byte array as the visited test. Vertex ids and edge offsets
are read as unsigned integers, so numba emits no negative-index wraparound test per
access (about 30% faster; scripts/bench_baseline.py compares it with scipy).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.strategy import Strategy, register
from gpubfs_cli.graph.csr import CSRGraph, unsigned_views


def _make_bfs(with_parents: bool):
    # Two compiled copies, so the distance-only loop carries no parent test at all.
    @njit(cache=True, nogil=True)
    def bfs(row_offsets, col_indices, source, dist, parent, queue):
        # A byte array is the visited test: n bytes stay in cache far longer than the
        # int32 distances, which are then only written. The queue is consumed one
        # level at a time, so no distance is ever read back.
        seen = np.zeros(dist.shape[0], dtype=np.bool_)
        seen[source] = True
        dist[source] = 0
        if with_parents:
            parent[source] = source
        queue[0] = source
        head = 0
        tail = 1
        level = 0
        edges = 0
        while head < tail:
            level_end = tail
            level += 1
            while head < level_end:
                u = queue[head]
                head += 1
                start = row_offsets[u]
                end = row_offsets[u + np.uint32(1)]
                edges += end - start
                e = start
                while e < end:
                    v = col_indices[e]
                    e += np.uint64(1)
                    if not seen[v]:
                        seen[v] = True
                        dist[v] = level
                        if with_parents:
                            parent[v] = u
                        queue[tail] = v
                        tail += 1
        return tail, edges, level - 1

    return bfs


_bfs_distances = _make_bfs(False)
_bfs_parents = _make_bfs(True)


def sequential_bfs(graph: CSRGraph, source: int, predecessors: bool = False) -> Answer:
    """Distances (and parents) from `source`; counters: reached, edges_inspected, levels."""
    n = graph.n
    dist = np.full(n, -1, dtype=np.int32)
    parent = np.full(n if predecessors else 1, -1, dtype=graph.col_indices.dtype)
    offsets, ucols = unsigned_views(graph)
    queue = np.empty(n, dtype=ucols.dtype)
    bfs = _bfs_parents if predecessors else _bfs_distances
    reached, edges, depth = bfs(offsets, ucols, ucols.dtype.type(source), dist, parent, queue)
    return Answer(
        distances=dist,
        parents=parent if predecessors else None,
        counters={"reached": int(reached), "edges_inspected": int(edges), "levels": int(depth) + 1},
    )


@register
class SequentialBfs(Strategy):
    name = "cpu.sequential"
    caveats = (
        "the speedup denominator: one CPU thread, numba-compiled, not the papers' own CPU code or machines",
    )
    paper = "cpu"
    section = "Cormen et al., BFS with a FIFO queue (the baseline of all five papers)"
    summary = "sequential queue BFS, numba-compiled: the speedup denominator"

    def traverse(self, source: int, predecessors: bool = False) -> Answer:
        return sequential_bfs(self.graph, source, predecessors)
