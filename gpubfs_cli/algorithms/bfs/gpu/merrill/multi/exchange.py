"""Array steps and exchange bookkeeping of one rank, written once for numpy and CuPy
(`xp` is either module): the CPU simulation and the GPU ranks run these same functions.

Ids on the wire are global; a rank turns what it receives into local ids with the
partition's `local` map. Count matrices are `matrix[s, d]`: ids rank s sends rank d.
"""

from __future__ import annotations

import numpy as np


def exclusive_sum(xp, counts):
    """Displacements of consecutive parts of sizes `counts` (int64, one longer)."""
    out = xp.zeros(len(counts) + 1, dtype=xp.int64)
    xp.cumsum(xp.asarray(counts, dtype=xp.int64), out=out[1:])
    return out


def gather_rows(xp, row_offsets, rows):
    """(seg, idx) for every edge of `rows`, in order: seg indexes `rows`, idx indexes the
    column array. Load-balanced: one entry per edge, however skewed the degrees."""
    rows = xp.asarray(rows, dtype=xp.int64)
    starts = row_offsets[rows]
    lens = row_offsets[rows + 1] - starts
    ends = exclusive_sum(xp, lens)
    total = int(ends[-1])
    pos = xp.arange(total, dtype=xp.int64)
    seg = xp.searchsorted(ends[1:], pos, side="right")
    return seg, starts[seg] + (pos - ends[seg])


def bitmask_test(xp, mask, ids):
    """Bits of `ids` in a uint32 visited bitmask (1 bit per global vertex)."""
    ids = ids.astype(xp.int64)
    return ((mask[ids >> 5] >> (ids & 31).astype(xp.uint32)) & 1).astype(bool)


def frontier_bitmap(xp, frontier, stride: int):
    """This rank's segment of the frontier bitmap: `stride` bits over local ids, packed
    big-endian into stride/8 bytes (numpy and CuPy packbits agree on that order)."""
    bits = xp.zeros(stride, dtype=bool)
    bits[frontier] = True
    return xp.packbits(bits)


def bitmap_test(xp, bitmap, slots):
    """Bits at `slots` (owner * stride + local) of the all-gathered frontier bitmap."""
    return ((bitmap[slots >> 3] >> (7 - (slots & 7)).astype(xp.uint8)) & 1).astype(bool)


def bucket_by_owner(xp, ids, parents, owner, ranks: int):
    """(ids, parents, counts): ids grouped by owning rank (stable), and how many go to
    each rank (int64[ranks])."""
    dest = owner[ids]
    order = xp.argsort(dest, kind="stable")
    counts = xp.bincount(dest, minlength=ranks).astype(xp.int64)
    return ids[order], (None if parents is None else parents[order]), counts


def recv_plan(matrix: np.ndarray, rank: int) -> tuple[np.ndarray, np.ndarray]:
    """(recv_counts, recv_displacements) of `rank` from the all-gathered count matrix."""
    counts = np.asarray(matrix, np.int64)[:, rank]
    return counts, exclusive_sum(np, counts)


def send_plan(counts: np.ndarray) -> np.ndarray:
    """Send displacements of the owner-bucketed ids."""
    return exclusive_sum(np, counts)


def first_of_runs(xp, keys):
    """True at the first element of each run of equal consecutive keys."""
    first = xp.ones(len(keys), dtype=bool)
    if len(keys) > 1:
        first[1:] = keys[1:] != keys[:-1]
    return first


def contract(xp, ids, parents, dist, parent, level: int, scratch):
    """Label the received local `ids` not yet labelled with `level` (parent: the
    sender's vertex) and return them once each: the next local frontier. No sort:
    each candidate writes its position into `scratch` and keeps it only if its write
    is the one that stuck (exactly one per vertex, on numpy and on the GPU)."""
    fresh = dist[ids] < 0
    ids = ids[fresh]
    pos = xp.arange(len(ids), dtype=xp.int32)
    scratch[ids] = pos
    mine = scratch[ids] == pos
    ids = ids[mine]
    dist[ids] = level
    if parents is not None:
        parent[ids] = parents[fresh][mine]
    return ids


def bottom_up(xp, in_offsets, in_indices, dist, parent, bitmap, slot_of, level: int):
    """Every unlabelled owned vertex with an in-neighbour in the global frontier (the
    all-gathered bitmap) gets `level` and that neighbour as parent; returns them."""
    unvisited = xp.flatnonzero(dist < 0)
    seg, idx = gather_rows(xp, in_offsets, unvisited)
    u = in_indices[idx]
    hit = bitmap_test(xp, bitmap, slot_of(u))
    seg, u = seg[hit], u[hit]
    first = first_of_runs(xp, seg)
    found = unvisited[seg[first]]
    dist[found] = level
    if parent is not None:
        parent[found] = u[first]
    return found
