"""The regions the region-local kernels run (regions.bfs, sssp.regions): vertices grouped
around random seeds, so that on a road network or a mesh most edges join two vertices of
one region; and a CSR renumbered region by region.

Every vertex joins the seed a breadth-first search from all seeds at once reaches it
from first (a Voronoi cell of the hop distance, on the graph's edges taken both ways),
cells are cut into pieces of at most `size` vertices in the order of that search, and
vertices of components without a seed are cut into pieces in id order. Each region is
numbered in one run of ids that starts on a multiple of 32 (the kernel's mark bitmap
words then belong to one region each); the ids between regions are padding, which no
edge touches.

Vectorized: one numpy pass a level of the seeds' search (a cell is a few dozen levels
deep), no Python loop over vertices or edges.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass

import numpy as np

from gpubfs_cli.graph.csr import CSRGraph
from gpubfs_cli.graph.reorder import gather_rows, symmetric_pattern

# The regions of each graph object by (size, seed), for as long as the graph lives: a run
# prepares each variant once a round, and the variants of one size share them.
_MADE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()
CELL_FILL = 1.5  # seeds a region's worth of vertices: cells average size / 1.5 before the cut
WORD = 32  # a region starts on a multiple of this id


@dataclass(frozen=True)
class Regions:
    perm: np.ndarray  # int32, n_new: the input's id of each id in region order, -1 for padding
    rank: np.ndarray  # int64, n: each input vertex's id in region order
    offsets: np.ndarray  # int32, regions + 1: region r is ids offsets[r] .. offsets[r + 1] - 1
    region: np.ndarray  # int32, n_new: each id's region

    @property
    def count(self) -> int:
        return len(self.offsets) - 1

    @property
    def n_new(self) -> int:
        return len(self.perm)


def pattern(graph: CSRGraph) -> tuple[np.ndarray, np.ndarray]:
    """(row offsets, columns) of the graph's edges both ways (the graph itself when it is
    undirected)."""
    if not graph.directed:
        return np.asarray(graph.row_offsets), np.asarray(graph.col_indices)
    a = symmetric_pattern(graph)
    return a.indptr, a.indices


def cells(row: np.ndarray, col: np.ndarray, seeds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(owner, depth) per vertex: the index of the seed a search from all seeds at once
    reaches it from first (ties: the first edge in the level's order) and its hop count;
    -1 and -1 where no seed reaches it."""
    n = len(row) - 1
    owner = np.full(n, -1, dtype=np.int64)
    depth = np.full(n, -1, dtype=np.int64)
    owner[seeds] = np.arange(len(seeds))
    depth[seeds] = 0
    frontier = np.asarray(seeds, dtype=np.int64)
    level = 0
    while frontier.size:
        level += 1
        offsets, edges = gather_rows(row, frontier)  # the frontier's out-edges, list by list
        if edges.size == 0:
            break
        heads = col[edges].astype(np.int64)
        fresh = owner[heads] < 0
        heads, tails = heads[fresh], np.repeat(frontier, np.diff(offsets))[fresh]
        heads, at = np.unique(heads, return_index=True)
        owner[heads] = owner[tails[at]]
        depth[heads] = level
        frontier = heads
    return owner, depth


def regions(graph: CSRGraph, size: int, seed: int = 0) -> Regions:
    """The regions of at most `size` vertices (a multiple of 32) of `graph`: made once per
    graph object, size and seed (_MADE)."""
    if size < WORD or size % WORD:
        raise ValueError(f"a region's size must be a positive multiple of {WORD}, not {size}")
    with _LOCK:
        made = _MADE.setdefault(graph, {})
        if (size, seed) not in made:
            made[(size, seed)] = _regions(graph, size, seed)
        return made[(size, seed)]


def _regions(graph: CSRGraph, size: int, seed: int) -> Regions:
    n = graph.n
    row, col = pattern(graph)
    k = max(1, min(n, int(np.ceil(n * CELL_FILL / size))))
    seeds = np.sort(np.random.default_rng(seed).choice(n, size=k, replace=False)) if n else np.zeros(0, np.int64)
    owner, depth = cells(row, col, seeds)
    owner[owner < 0] = k  # the unreached: one more cell, in id order
    order = np.lexsort((depth, owner))  # by cell, then by depth; ties in id order (stable)
    cell = owner[order]
    starts = np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]]) if n else np.zeros(0, np.int64)
    pos = np.arange(n, dtype=np.int64) - np.repeat(starts, np.diff(np.r_[starts, n]))
    piece = np.r_[True, (cell[1:] != cell[:-1]) | (pos[1:] % size == 0)] if n else np.zeros(0, bool)
    rid = np.cumsum(piece) - 1  # each sorted vertex's region
    count = int(rid[-1]) + 1 if n else 0
    sizes = np.bincount(rid, minlength=count)
    padded = -(-sizes // WORD) * WORD
    offsets = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(padded, out=offsets[1:])
    n_new = int(offsets[-1])
    if n_new >= 2**31 - 1:
        raise ValueError(f"{n_new} ids in region order do not fit 32 bits")
    first = np.flatnonzero(piece)  # each region's first sorted vertex
    new = offsets[rid] + np.arange(n, dtype=np.int64) - first[rid]
    rank = np.empty(n, dtype=np.int64)
    rank[order] = new
    perm = np.full(n_new, -1, dtype=np.int32)
    perm[new] = order
    region = np.repeat(np.arange(count, dtype=np.int32), padded)
    return Regions(perm=perm, rank=rank, offsets=offsets.astype(np.int32), region=region)


def relabelled(row: np.ndarray, col: np.ndarray, parts: Regions,
               values: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
    """(row offsets, columns) of the CSR (row, col) in region order: id i's list is the
    list of input vertex perm[i] (empty for padding), its entries renumbered; with
    `values` (one per edge, e.g. weights), those values in the same order too."""
    offsets, take = gather_rows(row, parts.perm)
    out = (offsets.astype(np.int32), parts.rank[np.asarray(col)[take]].astype(np.int32))
    return out if values is None else (*out, np.asarray(values)[take])
