"""NcclComm: one rank's NCCL communicator on the current device's current stream, with
waits that never hang: every wait polls the stream with a deadline and the peers'
liveness, and gives up by aborting the communicator.

Forming the communicator blocks until every rank has joined; `NcclComm` does it in a
helper thread so that a rank that never joins is an error after `timeout_s`, not a hang.
"""

from __future__ import annotations

import threading
import time

import numpy as np


class PeerLost(RuntimeError):
    """A rank died or stopped answering: the NCCL communicator was aborted."""


def _displacements(counts) -> np.ndarray:
    return np.concatenate([[0], np.cumsum(np.asarray(counts, np.int64))])


def form_communicator(size: int, uid, rank: int, alive=lambda: True, timeout_s: float = 300.0):
    """cupy's NcclCommunicator(size, uid, rank), waited for with a deadline and the
    peers' liveness (a daemon thread blocks in NCCL meanwhile)."""
    from cupy.cuda import Device, nccl

    device = Device().id
    out: dict = {}

    def form() -> None:
        try:
            Device(device).use()
            out["comm"] = nccl.NcclCommunicator(size, uid, rank)
        except BaseException as exc:  # handed to the waiting thread
            out["error"] = exc

    t = threading.Thread(target=form, daemon=True, name=f"gpubfs-nccl-init-{rank}")
    t.start()
    deadline = time.monotonic() + timeout_s
    while t.is_alive():
        t.join(0.02)
        if not alive():
            raise PeerLost(f"rank {rank}: a peer rank exited before the NCCL communicator formed")
        if time.monotonic() > deadline:
            raise PeerLost(f"rank {rank}: the NCCL communicator did not form in {timeout_s:g} s "
                           "(a rank never joined)")
    if "error" in out:
        raise PeerLost(f"rank {rank}: NCCL init failed: {out['error']}")
    return out["comm"]


class NcclComm:
    """cupy.cuda.nccl over the current device's current stream. `alive()` says whether
    every peer this rank can see is still running (False ends a wait at once)."""

    def __init__(self, size: int, uid, rank: int, alive=lambda: True, timeout_s: float = 300.0):
        from cupy.cuda import nccl

        self.nccl = nccl
        self.rank, self.size = rank, size
        self.alive, self.timeout_s = alive, timeout_s
        self.comm = form_communicator(size, uid, rank, alive, timeout_s)
        self.types = {np.dtype(np.int64): nccl.NCCL_INT64, np.dtype(np.int32): nccl.NCCL_INT32,
                      np.dtype(np.uint8): nccl.NCCL_UINT8, np.dtype(np.uint32): nccl.NCCL_UINT32}

    def _stream(self):
        import cupy as cp

        return cp.cuda.get_current_stream()

    def wait_event(self, done) -> None:
        """Until `done` (a recorded event) has happened; PeerLost when a peer died or time ran out."""
        deadline = time.monotonic() + self.timeout_s
        try:
            while not done.done:
                if not self.alive():
                    raise PeerLost(f"rank {self.rank}: a peer rank exited during a collective")
                if time.monotonic() > deadline:
                    raise PeerLost(f"rank {self.rank}: a collective took over {self.timeout_s:g} s")
                time.sleep(20e-6)
        except BaseException:  # Ctrl-C included: no collective may stay pending on the GPU
            self.abort()
            raise

    def wait(self) -> None:
        """Until the current stream's work is done (guarded as wait_event)."""
        import cupy as cp

        done = cp.cuda.Event(disable_timing=True)
        done.record(self._stream())
        self.wait_event(done)

    def host(self, a):
        self.wait()
        return a.get() if hasattr(a, "get") else np.asarray(a)

    def allgather(self, a):
        import cupy as cp

        a = cp.ascontiguousarray(a)
        out = cp.empty(a.size * self.size, a.dtype)
        self.comm.allGather(a.data.ptr, out.data.ptr, a.size, self.types[a.dtype], self._stream().ptr)
        return out

    def allreduce_sum(self, send, recv, stream=None) -> None:
        """recv = the sum over ranks of send (element-wise; in place when they are one array)."""
        s = stream if stream is not None else self._stream()
        self.comm.allReduce(send.data.ptr, recv.data.ptr, send.size, self.types[send.dtype],
                            self.nccl.NCCL_SUM, s.ptr)

    def alltoallv(self, send, send_counts, recv_counts):
        import cupy as cp

        send = cp.ascontiguousarray(send)
        sd = _displacements(send_counts)
        rd = _displacements(recv_counts)
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

    def abort(self) -> None:
        try:
            self.comm.abort()
        except Exception:  # already torn down
            pass
