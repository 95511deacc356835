"""NcclComm: one rank's NCCL communicator on the current device's current stream, with
waits that never hang: every wait polls the stream with a deadline and the peers'
liveness, and gives up by aborting the communicator.

Forming the communicator blocks until every rank has joined, and NCCL connects ranks
lazily inside the first call of each kind of operation (that call blocks until the peer
connects): `NcclComm` makes both in a helper thread, so that a rank that never joins or
died is an error after `timeout_s` or at once, not a hang.

Both costs are paid, and timed, while the communicator is made: every rank forms it and
then makes one all-reduce of one word (`setup`: form_ms, first_call_ms), so no timed
sample pays NCCL's connection of the all-reduce (about 0.7 s on an H100 pair).
"""

from __future__ import annotations

import threading
import time

import numpy as np


class PeerLost(RuntimeError):
    """A rank died or stopped answering: the NCCL communicator was aborted."""


def _displacements(counts) -> np.ndarray:
    return np.concatenate([[0], np.cumsum(np.asarray(counts, np.int64))])


def in_helper_thread(call, alive, timeout_s: float, dead: str, late: str):
    """call()'s result, the call made in a daemon thread on this thread's device and
    current stream, waited for with a deadline and the peers' liveness: PeerLost(dead)
    when a peer died, PeerLost(late) past the deadline (the thread stays blocked in
    NCCL); the call's own error is handed back."""
    from cupy.cuda import Device, get_current_stream

    device, stream = Device().id, get_current_stream()
    out: dict = {}

    def run() -> None:
        try:
            Device(device).use()
            with stream:
                out["result"] = call()
        except BaseException as exc:  # handed to the waiting thread
            out["error"] = exc

    t = threading.Thread(target=run, daemon=True, name="gpubfs-nccl")
    t.start()
    deadline = time.monotonic() + timeout_s
    while t.is_alive():
        t.join(0.02)
        if not alive():
            raise PeerLost(dead)
        if time.monotonic() > deadline:
            raise PeerLost(late)
    if "error" in out:
        raise out["error"]
    return out.get("result")


def form_communicator(size: int, uid, rank: int, alive=lambda: True, timeout_s: float = 300.0):
    """cupy's NcclCommunicator(size, uid, rank), waited for with a deadline and the
    peers' liveness."""
    from cupy.cuda import nccl

    try:
        return in_helper_thread(lambda: nccl.NcclCommunicator(size, uid, rank), alive, timeout_s,
                                f"rank {rank}: a peer rank exited before the NCCL communicator formed",
                                f"rank {rank}: the NCCL communicator did not form in {timeout_s:g} s "
                                "(a rank never joined)")
    except PeerLost:
        raise
    except Exception as exc:
        raise PeerLost(f"rank {rank}: NCCL init failed: {exc}") from None


class NcclComm:
    """cupy.cuda.nccl over the current device's current stream. `alive()` says whether
    every peer this rank can see is still running (False ends a wait at once)."""

    def __init__(self, size: int, uid, rank: int, alive=lambda: True, timeout_s: float = 300.0):
        from cupy.cuda import nccl

        self.nccl = nccl
        self.rank, self.size = rank, size
        self.alive, self.timeout_s = alive, timeout_s
        t0 = time.perf_counter()
        self.comm = form_communicator(size, uid, rank, alive, timeout_s)
        t1 = time.perf_counter()
        self._connected: set = set()
        self.types = {np.dtype(np.int64): nccl.NCCL_INT64, np.dtype(np.int32): nccl.NCCL_INT32,
                      np.dtype(np.uint8): nccl.NCCL_UINT8, np.dtype(np.uint32): nccl.NCCL_UINT32}
        self._first_call()
        self.setup = {"form_ms": round((t1 - t0) * 1000.0, 3),
                      "first_call_ms": round((time.perf_counter() - t1) * 1000.0, 3)}

    def _first_call(self) -> None:
        """One all-reduce of one word, waited for: NCCL connects the ranks for it here."""
        import cupy as cp

        word = cp.zeros(1, cp.int32)
        self.allreduce_sum(word, word)
        self.wait()

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

    def _enqueue(self, kind, call):
        """call() (NCCL work put on the current stream); the first call of each kind
        (an operation, or point-to-point with a set of peers) in a helper thread, since
        NCCL connects the ranks inside it and would block for good on a dead peer."""
        if kind in self._connected:
            return call()
        try:
            result = in_helper_thread(call, self.alive, self.timeout_s,
                                      f"rank {self.rank}: a peer rank exited before NCCL connected ({kind})",
                                      f"rank {self.rank}: NCCL did not connect in {self.timeout_s:g} s ({kind})")
        except BaseException:
            self.abort()
            raise
        self._connected.add(kind)
        return result

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
        self._enqueue("allgather", lambda: self.comm.allGather(a.data.ptr, out.data.ptr, a.size,
                                                                self.types[a.dtype], self._stream().ptr))
        return out

    def allreduce_sum(self, send, recv, stream=None) -> None:
        """recv = the sum over ranks of send (element-wise; in place when they are one array)."""
        s = stream if stream is not None else self._stream()
        self._enqueue("allreduce", lambda: self.comm.allReduce(send.data.ptr, recv.data.ptr, send.size,
                                                                self.types[send.dtype], self.nccl.NCCL_SUM, s.ptr))

    def alltoallv(self, send, send_counts, recv_counts):
        import cupy as cp

        send = cp.ascontiguousarray(send)
        sd = _displacements(send_counts)
        rd = _displacements(recv_counts)
        out = cp.empty(int(rd[-1]), send.dtype)
        kind, item, stream = self.types[send.dtype], send.itemsize, self._stream().ptr
        out[rd[self.rank]: rd[self.rank + 1]] = send[sd[self.rank]: sd[self.rank + 1]]
        peers = [p for p in range(self.size) if p != self.rank and (send_counts[p] or recv_counts[p])]

        def post() -> None:
            for peer in peers:
                if send_counts[peer]:
                    self.comm.send(send.data.ptr + int(sd[peer]) * item, int(send_counts[peer]), kind, peer, stream)
                if recv_counts[peer]:
                    self.comm.recv(out.data.ptr + int(rd[peer]) * item, int(recv_counts[peer]), kind, peer, stream)

        self.grouped(peers, post)
        return out

    def grouped(self, peers, post) -> None:
        """post() (sends and receives with `peers`) as one NCCL group."""
        def group() -> None:
            self.nccl.groupStart()
            try:
                post()
            finally:
                self.nccl.groupEnd()

        self._enqueue(("p2p", tuple(sorted(peers))), group)

    def send(self, a, peer: int) -> None:
        import cupy as cp

        a = cp.ascontiguousarray(a)
        self._enqueue(("p2p", (peer,)),
                      lambda: self.comm.send(a.data.ptr, a.size, self.types[a.dtype], peer, self._stream().ptr))

    def recv(self, out, peer: int) -> None:
        """A receive from `peer` (inside grouped()'s post, or alone)."""
        self.comm.recv(out.data.ptr, out.size, self.types[out.dtype], peer, self._stream().ptr)

    def abort(self) -> None:
        try:
            self.comm.abort()
        except Exception:  # already torn down
            pass
