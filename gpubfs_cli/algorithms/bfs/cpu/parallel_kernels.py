"""The numba kernels of the parallel CPU BFS (cpu.parallel_td, cpu.parallel_do).

Level-synchronous, as gapbs's bfs.cc: a top-down step expands a vertex queue, a
bottom-up step (Beamer) has every unvisited vertex look for a parent in a frontier
bitmap. One driver runs the levels and picks the direction; with alpha = 0 it never
goes bottom-up (cpu.parallel_td).

Top-down: the frontier is cut into chunks of TD_CHUNK vertices. A chunk's discoveries
go to its own region of `scratch`, sized by the chunk's total out-degree (an upper
bound on what it can claim; the regions' offsets are a prefix sum of those degrees),
and a second prefix sum over the chunks' counts packs the regions into the next queue.
A vertex is claimed by compare_and_swap on its distance (atomics.py): one thread wins,
so each vertex is queued once and counted once.

Bottom-up: the frontier is a bitmap of 64-bit words. One parallel iteration owns one
word of the next bitmap and builds it in a register, so no two threads write the same
word and no atomic is needed; a vertex writes only its own distance and parent. The
bitmap of a level is built from the distances (bit v = dist[v] == level), so switching
from a queue needs no atomic bit setting either.

Vertex ids and edge offsets are unsigned (graph.csr.unsigned_views); counters are
int64. Every array is allocated once per graph by the strategy (prepare), never here.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from gpubfs_cli.algorithms.bfs.cpu.atomics import compare_and_swap

TD_CHUNK = 64  # frontier vertices per top-down chunk (gapbs: dynamic schedule, 64)
BITS_BLOCK = 64  # bitmap words per block when a bitmap becomes a queue
ONE = np.uint64(1)
SIX = np.uint64(6)
LOW6 = np.uint64(63)


def chunk_slots(n: int) -> int:
    """Entries the per-chunk offset arrays need for a frontier of up to n vertices."""
    return max(n // TD_CHUNK + 2, n // (64 * BITS_BLOCK) + 2)


@njit(cache=True, nogil=True)
def _exclusive_scan(counts, k):
    """counts[0:k] becomes its exclusive prefix sum; returns the total."""
    total = 0
    for i in range(k):
        c = counts[i]
        counts[i] = total
        total += c
    return total


@njit(parallel=True, cache=True, nogil=True)
def _td_step(offsets, cols, queue, nf, nxt, dist, parent, with_parents, level, scratch, region, found):
    """One top-down level from queue[0:nf] into nxt; returns (queued, scout, edges):
    scout is the out-degree of the claimed vertices (gapbs's scout_count)."""
    chunks = (nf + TD_CHUNK - 1) // TD_CHUNK
    for c in prange(chunks):
        degree = 0
        for i in range(c * TD_CHUNK, min(c * TD_CHUNK + TD_CHUNK, nf)):
            u = queue[i]
            degree += np.int64(offsets[u + ONE] - offsets[u])
        region[c] = degree
    edges = _exclusive_scan(region, chunks)
    # Per-chunk sums, added after the loop: a prange reduction over a variable the inner
    # while loop updates trips numba's reduction analysis on Python 3.12 bytecode
    # ("unexpected cycle in lookup()").
    scouts = np.empty(chunks, np.int64)
    for c in prange(chunks):
        pos = region[c]
        start = pos
        claimed_degree = 0
        for i in range(c * TD_CHUNK, min(c * TD_CHUNK + TD_CHUNK, nf)):
            u = queue[i]
            e = offsets[u]
            end = offsets[u + ONE]
            while e < end:
                v = cols[e]
                e += ONE
                if dist[v] < 0 and compare_and_swap(dist, v, -1, level):
                    if with_parents:
                        parent[v] = u
                    scratch[pos] = v
                    pos += 1
                    claimed_degree += np.int64(offsets[v + ONE] - offsets[v])
        found[c] = pos - start
        scouts[c] = claimed_degree
    scout = scouts.sum()
    queued = _exclusive_scan(found, chunks)
    for c in prange(chunks):
        src = region[c]
        dst = found[c]
        count = (found[c + 1] if c + 1 < chunks else queued) - dst
        for k in range(count):
            nxt[dst + k] = scratch[src + k]
    return queued, scout, edges


@njit(parallel=True, cache=True, nogil=True)
def _unvisited(dist, parent, with_parents):
    """Every distance (and parent) -1, in parallel: the arrays are fresh each traversal
    (np.empty), so this is also their first touch, spread over the threads as gapbs's
    InitParent does inside its timed kernel."""
    for v in prange(dist.shape[0]):
        dist[v] = -1
        if with_parents:
            parent[v] = -1


@njit(parallel=True, cache=True, nogil=True)
def _bits_of_level(dist, level, bits):
    """bits: bit v set where dist[v] == level (the frontier of that level)."""
    n = dist.shape[0]
    for w in prange(bits.shape[0]):
        word = np.uint64(0)
        base = w * 64
        for b in range(min(64, n - base)):
            if dist[base + b] == level:
                word |= ONE << np.uint64(b)
        bits[w] = word


@njit(cache=True, nogil=True)
def _bu_word(in_offsets, in_cols, front, dist, parent, with_parents, level, w):
    """Bottom-up for the 64 vertices of word w: every unvisited one takes the first
    in-neighbour found in `front` as its parent. Returns (next word, found, edges)."""
    n = dist.shape[0]
    word = np.uint64(0)
    found = 0
    edges = 0
    base = w * 64
    for b in range(min(64, n - base)):
        v = base + b
        if dist[v] < 0:
            e = in_offsets[v]
            end = in_offsets[v + 1]
            while e < end:
                u = np.uint64(in_cols[e])
                e += ONE
                edges += 1
                if (front[u >> SIX] >> (u & LOW6)) & ONE:
                    dist[v] = level
                    if with_parents:
                        parent[v] = u
                    word |= ONE << np.uint64(b)
                    found += 1
                    break
    return word, found, edges


@njit(parallel=True, cache=True, nogil=True)
def _bu_step(in_offsets, in_cols, front, nxt, dist, parent, with_parents, level):
    """One bottom-up level into the bitmap nxt; returns (found, edges)."""
    found = 0
    edges = 0
    for w in prange(nxt.shape[0]):
        word, awake, looked = _bu_word(in_offsets, in_cols, front, dist, parent, with_parents, level, w)
        nxt[w] = word
        found += awake
        edges += looked
    return found, edges


@njit(parallel=True, cache=True, nogil=True)
def _queue_of_bits(bits, queue, block):
    """The set bits of `bits`, in order, into queue; returns how many."""
    words = bits.shape[0]
    blocks = (words + BITS_BLOCK - 1) // BITS_BLOCK
    for k in prange(blocks):
        count = 0
        for w in range(k * BITS_BLOCK, min(k * BITS_BLOCK + BITS_BLOCK, words)):
            word = bits[w]
            while word:
                word &= word - ONE
                count += 1
        block[k] = count
    total = _exclusive_scan(block, blocks)
    for k in prange(blocks):
        pos = block[k]
        for w in range(k * BITS_BLOCK, min(k * BITS_BLOCK + BITS_BLOCK, words)):
            word = bits[w]
            b = 0
            while word:
                if word & ONE:
                    queue[pos] = w * 64 + b
                    pos += 1
                word >>= ONE
                b += 1
    return total


@njit(cache=True, nogil=True)
def bfs(offsets, cols, in_offsets, in_cols, source, dist, parent, with_parents, alpha, beta,
        queue, nxt, scratch, region, found, front, front_next):
    """Distances (and parents) from source into dist and parent (any contents: they are
    set to -1 first); returns (reached, edges inspected, depth, bottom-up levels).

    The direction rule is gapbs's: go bottom-up when the out-degree of the last level's
    discoveries (scout) exceeds the edges not yet checked / alpha; come back top-down
    when a bottom-up level finds fewer vertices than the one before and at most n / beta.
    alpha = 0: top-down only. Jitted itself, so a level costs no Python call (a road
    graph has 10^4 levels); the prange kernels it calls run parallel all the same."""
    n = dist.shape[0]
    m = np.int64(offsets[n])
    _unvisited(dist, parent, with_parents)
    dist[source] = 0
    if with_parents:
        parent[source] = source
    queue[0] = source
    nf = 1
    scout = np.int64(offsets[source + ONE] - offsets[source])
    unchecked = m
    level = 0
    depth = 0
    reached = 1
    edges = 0
    bottom_up = 0
    while nf > 0:
        if alpha > 0 and scout > unchecked / alpha:
            _bits_of_level(dist, level, front)
            awake = nf
            while True:
                before = awake
                level += 1
                bottom_up += 1
                awake, looked = _bu_step(in_offsets, in_cols, front, front_next, dist, parent, with_parents, level)
                edges += looked
                reached += awake
                if awake > 0:
                    depth = level
                front, front_next = front_next, front
                if not (awake >= before or awake > n / beta):
                    break
            nf = _queue_of_bits(front, queue, found)
            scout = 1
        else:
            unchecked -= scout
            level += 1
            nf, scout, looked = _td_step(offsets, cols, queue, nf, nxt, dist, parent, with_parents, level,
                                         scratch, region, found)
            edges += looked
            reached += nf
            if nf > 0:
                depth = level
            queue, nxt = nxt, queue
    return reached, edges, depth, bottom_up
