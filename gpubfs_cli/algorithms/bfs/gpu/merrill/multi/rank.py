"""One GPU rank: its arrays on its device, its ops and communicator, and one timed BFS.
Rank 0 (inside the strategy) and every worker process (gpu/ranks/worker.py, which builds
it from "init": the arrays file rank 0 wrote) use this same class."""

from __future__ import annotations

import pickle

import numpy as np

from gpubfs_cli.algorithms.bfs.gpu.merrill.multi.level import RankView, bfs_rank
from gpubfs_cli.algorithms.bfs.gpu.merrill.multi.ops import DeviceOps


class GpuRank:
    def __init__(self, rank: int, device: int, comm, arrays: dict | None = None, arrays_file: str | None = None):
        import cupy as cp

        from gpubfs_cli.algorithms.bfs.gpu.merrill.multi.kernels import kernel_module
        from gpubfs_cli.core.device import gpu

        if arrays is None:
            with open(arrays_file, "rb") as f:
                arrays = pickle.load(f)
        module = kernel_module(gpu(device))

        self.view = RankView(xp=cp, **{k: cp.asarray(v) if isinstance(v, np.ndarray) else v
                                      for k, v in arrays.items()})
        self.comm = comm
        self.ops = DeviceOps(self.view, module, capacity=self.view.n)
        self.ops.host = comm.host
        self.result = None

    def nbytes(self) -> int:
        v = self.view
        arrays = (v.owner, v.local, v.owned, v.row_offsets, v.col_indices, v.in_offsets, v.in_indices)
        return int(sum(a.nbytes for a in arrays if a is not None)) + self.ops.nbytes()

    def bfs(self, source: int, predecessors: bool, direction) -> tuple[float, dict]:
        """(this rank's event-timed milliseconds, its per-level counters)."""
        import cupy as cp

        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        self.result = bfs_rank(self.ops, self.comm, self.view, source, predecessors, direction)
        stop.record()
        self.comm.wait()
        ms = float(cp.cuda.get_elapsed_time(start, stop))
        r = self.result
        return ms, {"sent": r.sent, "frontier": r.frontier, "bottom_up": r.bottom_up}

    def send_answer(self, predecessors: bool) -> None:
        """Send this rank's labels (and parents) to rank 0 (which posts the matching recvs)."""
        self.comm.send(self.result.dist, 0)
        if predecessors:
            self.comm.send(self.result.parent, 0)
        self.comm.wait()
