"""Communicators of the level loop: the same four calls over NCCL (GPU ranks:
gpu/ranks/nccl.NcclComm) or over threads of one process (the CPU simulation of p ranks).

allgather(a): every rank's equal-sized `a`, concatenated in rank order.
alltoallv(send, send_counts, recv_counts): send[displ[d]:displ[d+1]] goes to rank d;
  returns what every rank sent this one, in rank order (grouped send/recv on NCCL).
host(a): `a` as a numpy array; on NCCL a guarded wait that gives up (and aborts the
  communicator) when a peer has died or the wait outlasts the timeout.
"""

from __future__ import annotations

import threading

import numpy as np

from gpubfs_cli.algorithms.bfs.gpu.merrill.multi import exchange as ex


class ThreadGroup:
    """What `size` ThreadComms share: one slot per rank and a barrier."""

    def __init__(self, size: int, timeout_s: float = 60.0):
        self.size = size
        self.slots: list = [None] * size
        self.barrier = threading.Barrier(size, timeout=timeout_s)

    def comm(self, rank: int) -> ThreadComm:
        return ThreadComm(self, rank)


class ThreadComm:
    def __init__(self, group: ThreadGroup, rank: int):
        self.group, self.rank, self.size = group, rank, group.size

    def host(self, a):
        return np.asarray(a)

    def _share(self, value) -> list:
        g = self.group
        g.slots[self.rank] = value
        g.barrier.wait()
        everyone = list(g.slots)
        g.barrier.wait()
        return everyone

    def allgather(self, a):
        parts = self._share(np.asarray(a))
        if len({p.shape for p in parts}) != 1:
            raise RuntimeError(f"allgather: unequal parts {[p.shape for p in parts]}")
        return np.concatenate(parts)

    def alltoallv(self, send, send_counts, recv_counts):
        displ = ex.send_plan(send_counts)
        parts = self._share((np.asarray(send), displ))
        got = []
        for s, (data, d) in enumerate(parts):
            piece = data[d[self.rank]: d[self.rank + 1]]
            if len(piece) != recv_counts[s]:
                raise RuntimeError(f"rank {self.rank} expected {recv_counts[s]} ids from rank {s}, got {len(piece)}")
            got.append(piece)
        return np.concatenate(got) if got else np.asarray(send)[:0]
