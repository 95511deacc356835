"""NcclComm's guard on NCCL calls that can block for good (forming the communicator,
the first operation of each kind, where NCCL connects the ranks), without a GPU: a fake
cupy.cuda gives the helper thread its device and stream."""

from __future__ import annotations

import contextlib
import sys
import threading
import time
import types

import pytest

from gpubfs_cli.gpu.ranks import nccl as nc


@pytest.fixture
def fake_cuda(monkeypatch):
    cuda = types.ModuleType("cupy.cuda")

    class Device:
        def __init__(self, index=0):
            self.id = index

        def use(self):
            pass

    cuda.Device = Device
    cuda.get_current_stream = lambda: contextlib.nullcontext()
    cupy = types.ModuleType("cupy")
    cupy.cuda = cuda
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    monkeypatch.setitem(sys.modules, "cupy.cuda", cuda)
    return cuda


def _comm(alive=lambda: True, timeout_s=5.0):
    comm = nc.NcclComm.__new__(nc.NcclComm)
    comm.rank, comm.size, comm.alive, comm.timeout_s = 0, 2, alive, timeout_s
    comm._connected = set()
    comm.aborted = 0

    class Inner:
        def abort(self):
            comm.aborted += 1

    comm.comm = Inner()
    return comm


def test_a_call_blocked_on_a_dead_peer_is_one_error_at_once(fake_cuda):
    dead = threading.Event()
    comm = _comm(alive=lambda: not dead.is_set())
    never = threading.Event()
    threading.Timer(0.1, dead.set).start()
    t0 = time.monotonic()
    with pytest.raises(nc.PeerLost, match="rank 0: a peer rank exited before NCCL connected \\(allgather\\)"):
        comm._enqueue("allgather", never.wait)
    assert time.monotonic() - t0 < 3 and comm.aborted == 1


def test_a_call_that_never_returns_times_out(fake_cuda):
    comm = _comm(timeout_s=0.2)
    with pytest.raises(nc.PeerLost, match="NCCL did not connect in 0.2 s"):
        comm._enqueue("allreduce", threading.Event().wait)
    assert comm.aborted == 1


def test_the_first_call_of_a_kind_connects_then_calls_go_direct(fake_cuda):
    comm = _comm()
    threads = []

    def call():
        threads.append(threading.current_thread())
        return 7

    assert comm._enqueue("allreduce", call) == 7
    assert comm._enqueue("allreduce", call) == 7
    assert threads[0] is not threading.main_thread() and threads[1] is threading.main_thread()
    assert comm._enqueue(("p2p", (1,)), call) == 7 and threads[2] is not threading.main_thread()


def test_the_call_s_own_error_comes_back_and_aborts(fake_cuda):
    comm = _comm()

    def fail():
        raise ValueError("bad count")

    with pytest.raises(ValueError, match="bad count"):
        comm._enqueue("allgather", fail)
    assert comm.aborted == 1 and "allgather" not in comm._connected
