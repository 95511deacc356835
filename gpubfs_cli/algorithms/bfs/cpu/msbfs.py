"""cpu.msbfs: multi-source BFS, bit-parallel (Then et al., "The More the Merrier:
Efficient Multi-Source Graph Traversal", PVLDB 8(4), 2014), compiled with numba.

Up to 64 BFSs share one pass over the graph: bit i of a vertex's 64-bit words says
whether source i has seen it (`seen`), reaches it in this level (`visit`) or in the next
(`next`). Each frontier vertex's list is read once for the whole batch, and a neighbour
takes every source bit its parent carries that it has not seen yet, so an edge costs one
AND and one OR however many searches cross it. This is the paper's top-down MS-BFS with
a frontier queue instead of a scan of every vertex per level (which would cost O(n) per
level on high-diameter graphs); its bottom-up (direction-optimizing) extension is not
built here. One thread, as the paper's per-core unit of work.

It answers a batch of sources per call (core/strategy.py batch_size): the harness times
the call once, each source's time is the call's over the batch, and every source's
distances (and parents) are checked against cpu.sequential like any other answer.

Knobs: width (sources per batch, 1 to 64: the bits of one word).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.knobs import knob
from gpubfs_cli.core.strategy import Strategy, register
from gpubfs_cli.graph.csr import CSRGraph

WORD = 64
# A set bit's index from the bit alone (de Bruijn multiplication): setting the levels and
# parents of a newly reached vertex costs one step per source that reached it, not 64.
DE_BRUIJN = 0x03F79D71B4CB0A89
BIT_INDEX = np.zeros(WORD, dtype=np.int64)
for _i in range(WORD):
    BIT_INDEX[((1 << _i) * DE_BRUIJN & (2**64 - 1)) >> 58] = _i


@dataclass(frozen=True)
class MsbfsKnobs:
    width: int = knob(WORD, 1, WORD)  # sources per batch: the bits of one 64-bit word at most

    def __post_init__(self):
        if not 1 <= int(self.width) <= WORD:
            raise ValueError(f"width: expected 1 to {WORD} sources per batch, got {self.width}")


@njit(cache=True, nogil=True)
def _msbfs(row_offsets, col_indices, sources, dist, parent, with_parents, bit_index):
    """Fills dist[i] (and parent[i]) for every source i; returns (levels, edges read)."""
    n = dist.shape[1]
    one = np.uint64(1)
    de_bruijn = np.uint64(DE_BRUIJN)
    shift = np.uint64(58)
    seen = np.zeros(n, dtype=np.uint64)
    visit = np.zeros(n, dtype=np.uint64)
    nxt = np.zeros(n, dtype=np.uint64)
    queue = np.empty(n, dtype=np.int64)
    next_queue = np.empty(n, dtype=np.int64)
    size = 0
    for i in range(sources.shape[0]):
        s = sources[i]
        bit = one << np.uint64(i)
        if visit[s] == 0:
            queue[size] = s
            size += 1
        visit[s] |= bit
        seen[s] |= bit
        dist[i, s] = 0
        if with_parents:
            parent[i, s] = s
    level = 0
    edges = 0
    while size > 0:
        level += 1
        next_size = 0
        for q in range(size):
            v = queue[q]
            bits = visit[v]
            start = row_offsets[v]
            end = row_offsets[v + 1]
            edges += end - start
            for e in range(start, end):
                w = col_indices[e]
                new = bits & ~seen[w] & ~nxt[w]
                if new == 0:
                    continue
                if nxt[w] == 0:
                    next_queue[next_size] = w
                    next_size += 1
                nxt[w] |= new
                if with_parents:
                    while new:
                        low = new & (~new + one)
                        parent[bit_index[(low * de_bruijn) >> shift], w] = v
                        new ^= low
        for q in range(size):
            visit[queue[q]] = 0
        for q in range(next_size):
            w = next_queue[q]
            bits = nxt[w]
            seen[w] |= bits
            visit[w] = bits
            nxt[w] = 0
            queue[q] = w
            while bits:
                low = bits & (~bits + one)
                dist[bit_index[(low * de_bruijn) >> shift], w] = level
                bits ^= low
        size = next_size
    return level, edges


def multi_source_bfs(graph: CSRGraph, sources: list[int], predecessors: bool = False) -> list[Answer]:
    """One answer per source (at most 64), from one bit-parallel pass."""
    k = len(sources)
    if not 1 <= k <= WORD:
        raise ValueError(f"a batch holds 1 to {WORD} sources, got {k}")
    n = graph.n
    for s in sources:
        if not 0 <= int(s) < n:
            raise ValueError(f"source {s} out of range [0, {n})")
    dist = np.full((k, n), -1, dtype=np.int32)
    parent = np.full((k, n) if predecessors else (1, 1), -1, dtype=graph.col_indices.dtype)
    levels, edges = _msbfs(graph.row_offsets, graph.col_indices, np.asarray(sources, dtype=np.int64), dist, parent,
                           predecessors, BIT_INDEX)
    counters = {"levels": int(levels), "edges_inspected": int(edges), "batch": k}
    return [Answer(dist[i], parent[i] if predecessors else None, dict(counters)) for i in range(k)]


@register
class MultiSourceBfs(Strategy):
    name = "cpu.msbfs"
    paper = "cpu"
    section = "Then et al. PVLDB'14, MS-BFS: bit-parallel BFS from up to 64 sources per pass (top-down)"
    summary = "64 BFSs in one pass over the graph, one bit per source, numba-compiled, one thread"
    caveats = (
        "answers a batch of sources per call: each source's time is the batch's time over its size",
        "top-down only (the paper's direction-optimizing extension is not built)",
    )
    Knobs = MsbfsKnobs

    def batch_size(self) -> int:
        return int(self.knobs.width)

    def traverse_batch(self, sources: list[int], predecessors: bool = False) -> list[Answer]:
        return multi_source_bfs(self.graph, [int(s) for s in sources], predecessors)

    def traverse(self, source: int, predecessors: bool = False) -> Answer:
        return multi_source_bfs(self.graph, [int(source)], predecessors)[0]
