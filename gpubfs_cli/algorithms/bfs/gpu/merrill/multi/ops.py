"""The per-rank operations that touch the visited bitmask: expand-and-filter and mark.

HostOps is the numpy twin (the CPU simulation); DeviceOps launches multi_gpu.cu's
kernels on the rank's GPU. Both keep one uint32 bitmask over all n global vertices (the
paper's best-effort n-bit mask per GPU) and give the same answer: every neighbour of
the frontier whose bit was clear, once, with one of its frontier parents, bit now set.
"""

from __future__ import annotations

import numpy as np

from gpubfs_cli.algorithms.bfs.gpu.merrill.multi import exchange as ex

BLOCK = 256


class HostOps:
    xp = np

    def __init__(self, view):
        self.view = view
        self.mask = np.zeros((view.n + 31) // 32, np.uint32)
        self.scratch = np.zeros(view.count, np.int32)

    def reset(self) -> None:
        self.mask[:] = 0

    def mark(self, ids) -> None:
        ids = np.asarray(ids, np.int64)
        np.bitwise_or.at(self.mask, ids >> 5, (np.uint32(1) << (ids & 31).astype(np.uint32)))

    def expand(self, frontier, predecessors: bool):
        v = self.view
        seg, idx = ex.gather_rows(np, v.row_offsets, frontier)
        cols = v.col_indices[idx].astype(np.int64)
        keep = ~ex.bitmask_test(np, self.mask, cols)
        cols, seg = cols[keep], seg[keep]
        ids, first = np.unique(cols, return_index=True)
        self.mark(ids)
        parents = v.owned[frontier][seg[first]].astype(np.int32) if predecessors else None
        return ids, parents


class DeviceOps:
    """The same operations on the rank's current GPU: one thread per frontier vertex
    walks its list (a warp per vertex for long lists), atomicOr test-and-set on the
    bitmask, survivors appended with one atomicAdd per warp."""

    def __init__(self, view, module, capacity: int):
        cp = view.xp
        self.view = view
        self.xp = cp
        self.mask = cp.zeros((view.n + 31) // 32, cp.uint32)
        self.scratch = cp.zeros(max(1, view.count), cp.int32)
        self.ids = cp.empty(max(1, capacity), cp.int64)
        self.parents = cp.empty(max(1, capacity), cp.int32)
        self.count = cp.zeros(1, cp.int64)
        self._expand = module.get_function("merrill_multi_expand")
        self.host = lambda a: a.get()  # the rank's communicator replaces it (a guarded wait)
        self._mark = module.get_function("merrill_multi_mark")

    def nbytes(self) -> int:
        return int(sum(a.nbytes for a in (self.mask, self.scratch, self.ids, self.parents, self.count)))

    def reset(self) -> None:
        self.mask.fill(0)

    def mark(self, ids) -> None:
        cp = self.xp
        ids = cp.ascontiguousarray(ids, dtype=cp.int64)
        if len(ids):
            self._mark(((len(ids) + BLOCK - 1) // BLOCK,), (BLOCK,), (self.mask, ids, np.int64(len(ids))))

    def expand(self, frontier, predecessors: bool):
        cp, v = self.xp, self.view
        frontier = cp.ascontiguousarray(frontier, dtype=cp.int64)
        self.count.fill(0)
        if len(frontier):
            warps = len(frontier)
            grid = (warps * 32 + BLOCK - 1) // BLOCK
            self._expand((grid,), (BLOCK,), (
                v.row_offsets, v.col_indices, v.owned, frontier, np.int64(len(frontier)), self.mask,
                self.ids, self.parents, np.int32(1 if predecessors else 0), self.count))
        k = int(self.host(self.count)[0])
        return self.ids[:k], (self.parents[:k] if predecessors else None)
