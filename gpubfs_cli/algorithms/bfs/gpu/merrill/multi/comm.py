"""Communicators of the level loop: the same four calls over NCCL (GPU ranks) or over
threads of one process (the CPU simulation of p ranks).

allgather(a): every rank's equal-sized `a`, concatenated in rank order.
alltoallv(send, send_counts, recv_counts): send[displ[d]:displ[d+1]] goes to rank d;
  returns what every rank sent this one, in rank order (grouped send/recv on NCCL).
host(a): `a` as a numpy array; on NCCL a guarded wait that gives up (and aborts the
  communicator) when a peer has died or the wait outlasts the timeout.
"""

from __future__ import annotations

import threading
import time

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


class PeerLost(RuntimeError):
    """A rank died or stopped answering: the NCCL communicator was aborted."""


class NcclComm:
    """cupy.cuda.nccl over the current device's current stream. `alive()` says whether
    every peer this rank can see is still running (False ends a wait at once)."""

    def __init__(self, size: int, uid, rank: int, alive=lambda: True, timeout_s: float = 300.0):
        from cupy.cuda import nccl

        self.nccl = nccl
        self.rank, self.size = rank, size
        self.alive, self.timeout_s = alive, timeout_s
        self.comm = nccl.NcclCommunicator(size, uid, rank)
        self.types = {np.dtype(np.int64): nccl.NCCL_INT64, np.dtype(np.int32): nccl.NCCL_INT32,
                      np.dtype(np.uint8): nccl.NCCL_UINT8, np.dtype(np.uint32): nccl.NCCL_UINT32}

    def _stream(self):
        import cupy as cp

        return cp.cuda.get_current_stream()

    def wait(self) -> None:
        """Until the stream's work is done; PeerLost when a peer died or time ran out."""
        import cupy as cp

        done = cp.cuda.Event(disable_timing=True)
        done.record(self._stream())
        deadline = time.monotonic() + self.timeout_s
        while not done.done:
            if not self.alive():
                self.abort()
                raise PeerLost(f"rank {self.rank}: a peer rank exited during a collective")
            if time.monotonic() > deadline:
                self.abort()
                raise PeerLost(f"rank {self.rank}: a collective took over {self.timeout_s:g} s")
            time.sleep(20e-6)

    def host(self, a):
        self.wait()
        return a.get() if hasattr(a, "get") else np.asarray(a)

    def allgather(self, a):
        import cupy as cp

        a = cp.ascontiguousarray(a)
        out = cp.empty(a.size * self.size, a.dtype)
        self.comm.allGather(a.data.ptr, out.data.ptr, a.size, self.types[a.dtype], self._stream().ptr)
        return out

    def alltoallv(self, send, send_counts, recv_counts):
        import cupy as cp

        send = cp.ascontiguousarray(send)
        sd = ex.send_plan(send_counts)
        rd = ex.send_plan(recv_counts)
        out = cp.empty(int(rd[-1]), send.dtype)
        kind, item, stream = self.types[send.dtype], send.itemsize, self._stream().ptr
        out[rd[self.rank]: rd[self.rank + 1]] = send[sd[self.rank]: sd[self.rank + 1]]
        self.nccl.groupStart()
        for peer in range(self.size):
            if peer == self.rank:
                continue
            if send_counts[peer]:
                self.comm.send(send.data.ptr + int(sd[peer]) * item, int(send_counts[peer]), kind, peer, stream)
            if recv_counts[peer]:
                self.comm.recv(out.data.ptr + int(rd[peer]) * item, int(recv_counts[peer]), kind, peer, stream)
        self.nccl.groupEnd()
        return out

    def send(self, a, peer: int) -> None:
        import cupy as cp

        a = cp.ascontiguousarray(a)
        self.comm.send(a.data.ptr, a.size, self.types[a.dtype], peer, self._stream().ptr)

    def recv(self, out, peer: int) -> None:
        self.comm.recv(out.data.ptr, out.size, self.types[out.dtype], peer, self._stream().ptr)

    def max_time(self, ms: float) -> float:
        """The largest `ms` over ranks (all-gathered; every rank gets it)."""
        import cupy as cp

        return float(self.host(self.allgather(cp.asarray([ms], cp.float64).view(cp.int64))).view(np.float64).max())

    def abort(self) -> None:
        try:
            self.comm.abort()
        except Exception:  # already torn down
            pass
