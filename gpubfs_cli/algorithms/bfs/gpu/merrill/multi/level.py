"""The level loop every rank runs (Merrill et al., section 6.1; numpy or CuPy arrays).

Top-down level: expand the local frontier and filter it through this rank's own
full-size visited bitmask (`ops.expand`: each neighbour leaves at most once per rank),
bucket the survivors by owner, all-gather the p x p count matrix (every rank then knows
what it receives, and all-zero means the search is over), exchange the ids with grouped
send/recv, contract locally (label, dedupe) and mark the new frontier in the bitmask.

Bottom-up level (direction-optimizing variant only, Beamer's rule with alpha and beta):
all-gather every rank's frontier bitmap (stride/8 bytes each) and let each rank label
its unvisited vertices that have an in-neighbour in it: no neighbour ids are sent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gpubfs_cli.algorithms.bfs.gpu.merrill.multi import exchange as ex


@dataclass
class RankView:
    """What one rank holds (arrays of its `xp`): owner/local for every global vertex,
    its owned rows (local rows, global columns) and, for bottom-up levels, in-edge rows."""

    xp: Any
    rank: int
    size: int
    n: int
    stride: int
    owner: Any
    local: Any
    owned: Any  # int64 global id of each local vertex
    row_offsets: Any
    col_indices: Any
    in_offsets: Any = None
    in_indices: Any = None

    @property
    def count(self) -> int:
        return int(len(self.owned))

    def slot_of(self, ids):
        xp = self.xp
        return self.owner[ids].astype(xp.int64) * self.stride + self.local[ids]


@dataclass(frozen=True)
class Direction:
    """Beamer's switch: bottom-up when frontier edges > unvisited edges / alpha, back to
    top-down when frontier vertices < n / beta. None of it for the top-down strategy."""

    alpha: float = 15.0
    beta: float = 18.0


@dataclass
class RankResult:
    dist: Any  # local labels (int32, -1 unreached)
    parent: Any  # local parents (global ids) or None
    sent: list = field(default_factory=list)  # ids this rank sent to other ranks, per level
    frontier: list = field(default_factory=list)  # this rank's frontier size, per level
    bottom_up: list = field(default_factory=list)  # 1 where the level was bottom-up


def bfs_rank(ops, comm, view: RankView, source: int, predecessors: bool,
             direction: Direction | None = None) -> RankResult:
    xp, rank, size = view.xp, view.rank, view.size
    dist = xp.full(view.count, -1, dtype=xp.int32)
    parent = xp.full(view.count, -1, dtype=xp.int32) if predecessors else None
    scratch = ops.scratch
    ops.reset()
    src = xp.asarray([source], dtype=xp.int64)
    ops.mark(src)
    frontier = xp.zeros(0, dtype=xp.int64)
    if int(comm.host(view.owner[src])[0]) == rank:
        frontier = view.local[src].astype(xp.int64)
        dist[frontier] = 0
        if parent is not None:
            parent[frontier] = source
    out = RankResult(dist, parent)
    degrees = view.row_offsets[1:] - view.row_offsets[:-1]
    unvisited_edges = int(comm.host(degrees.sum())) - int(comm.host(degrees[frontier].sum()))
    going_up = False
    level = 0
    while True:
        if direction is not None:
            mine = xp.asarray([len(frontier), int(comm.host(degrees[frontier].sum())), unvisited_edges], dtype=xp.int64)
            nf, mf, mu = comm.host(comm.allgather(mine)).reshape(size, 3).sum(axis=0)
            if nf == 0:
                break
            going_up = mf > mu / direction.alpha if not going_up else nf >= view.n / direction.beta
        out.frontier.append(int(len(frontier)))
        if going_up:
            bitmap = comm.allgather(ex.frontier_bitmap(xp, frontier, view.stride))
            frontier = ex.bottom_up(xp, view.in_offsets, view.in_indices, dist, parent, bitmap,
                                    view.slot_of, level + 1)
            out.sent.append(0)
            out.bottom_up.append(1)
        else:
            ids, pars = ops.expand(frontier, predecessors)
            ids, pars, counts = ex.bucket_by_owner(xp, ids, pars, view.owner, size)
            ids = ids.astype(xp.int32)  # ids < 2^31 on the wire: half the bytes
            matrix = comm.host(comm.allgather(counts)).reshape(size, size)
            if direction is None and not matrix.any():
                break
            recv_counts, _ = ex.recv_plan(matrix, rank)
            send_counts = matrix[rank]
            got = comm.alltoallv(ids, send_counts, recv_counts)
            got_par = comm.alltoallv(pars, send_counts, recv_counts) if predecessors else None
            frontier = ex.contract(xp, view.local[got].astype(xp.int64), got_par, dist, parent,
                                   level + 1, scratch)
            out.sent.append(int(send_counts.sum() - send_counts[rank]))
            out.bottom_up.append(0)
        ops.mark(view.owned[frontier])
        unvisited_edges -= int(comm.host(degrees[frontier].sum()))
        level += 1
    return out


def merge_counters(results: list[dict], bytes_per_id: int, stride: int) -> dict:
    """Counters of one traversal from every rank's {sent, frontier, bottom_up} lists:
    per level the global frontier, the ids crossing between ranks and the bytes moved
    (ids for top-down levels, p x (p-1) bitmap segments for bottom-up ones); levels
    counts the non-empty frontiers."""
    size = len(results)
    levels = max(len(r["frontier"]) for r in results)

    def total(key):
        a = np.zeros(levels, np.int64)
        for r in results:
            a[: len(r[key])] += np.asarray(r[key], np.int64)
        return a

    up = np.asarray(results[0]["bottom_up"], np.int64)
    up = np.pad(up, (0, levels - len(up)))
    sent = total("sent")
    moved = np.where(up == 1, size * (size - 1) * (stride // 8), sent * bytes_per_id)
    frontier = total("frontier")
    # A level whose received ids were all labelled already leaves an empty frontier
    # behind it (its traffic is real and stays in the exchange series).
    depth = int(np.flatnonzero(frontier).max()) + 1
    return {"levels": depth, "ranks": size, "frontier_vertices": frontier[:depth],
            "exchanged_ids": sent, "exchanged_bytes": moved, "bottom_up_levels": int(up.sum())}
