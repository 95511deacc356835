"""NcclComm's guard on NCCL calls that can block for good (forming the communicator,
the first operation of each kind, where NCCL connects the ranks), without a GPU: a fake
cupy.cuda gives the helper thread its device and stream."""

from __future__ import annotations

import contextlib
import sys
import threading
import time
import types

import numpy as np
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


def test_displacements_start_at_0_and_add_each_count():
    assert nc._displacements([3, 0, 2]).tolist() == [0, 3, 3, 5]


class Event:
    """A recorded CUDA event that has happened after `polls` looks at it (None: never)."""

    def __init__(self, polls=None):
        self.polls, self.looked = polls, 0

    @property
    def done(self):
        self.looked += 1
        return self.polls is not None and self.looked >= self.polls


def test_a_wait_polls_the_event_until_it_happened():
    comm, event = _comm(timeout_s=5.0), Event(polls=3)
    comm.wait_event(event)
    assert event.looked == 3 and comm.aborted == 0


def test_a_wait_on_a_dead_peer_is_one_error_at_once():
    comm = _comm(alive=lambda: False)
    with pytest.raises(nc.PeerLost, match="^rank 0: a peer rank exited during a collective$"):
        comm.wait_event(Event())
    assert comm.aborted == 1


def test_a_wait_that_never_ends_times_out():
    comm = _comm(timeout_s=0.05)
    with pytest.raises(nc.PeerLost, match=r"^rank 0: a collective took over 0.05 s$"):
        comm.wait_event(Event())
    assert comm.aborted == 1


def test_host_waits_for_the_current_stream_then_copies(fake_cuda):
    """host() records an event on the current stream, waits for it, then copies: get()
    for a device array, the array itself for a host one."""
    stream, recorded = object(), []

    class Recorded:
        def __init__(self, disable_timing=False):
            self.done = False

        def record(self, on):
            recorded.append(on)
            self.done = True

    fake_cuda.Event, fake_cuda.get_current_stream = Recorded, lambda: stream

    class OnDevice:
        def get(self):
            return np.array([4, 5])

    comm = _comm()
    assert comm.host(OnDevice()).tolist() == [4, 5] and comm.host([1, 2]).tolist() == [1, 2]
    assert recorded == [stream, stream]


class DeviceArray(np.ndarray):
    """A numpy array with cupy's `.data.ptr`."""

    @property
    def data(self):
        return types.SimpleNamespace(ptr=self.ctypes.data)


def test_alltoallv_keeps_its_own_part_and_talks_only_to_peers_with_counts(fake_cuda):
    """Rank 1 of 4: two values of its own, two to rank 2, two from rank 2, three from
    rank 3, nothing with rank 0. Each receive lands at its sender's displacement, in an
    array allocated for exactly what comes in; one NCCL group holds ranks 2 and 3."""
    made, sent, groups = [], {}, []

    class Stream(contextlib.nullcontext):
        ptr = 0

    def on_device(a):
        made.append(a.view(DeviceArray))
        return made[-1]

    def inside(ptr, count):  # device memory: a transfer past an array's end is an error
        for a in made:
            if a.ctypes.data <= ptr and ptr + count * a.itemsize <= a.ctypes.data + a.nbytes:
                return a, (ptr - a.ctypes.data) // a.itemsize
        raise AssertionError(f"{count} values at {ptr:#x} are outside every array")

    class Wire:  # the NCCL communicator: what each send carries, what each peer sends back
        def send(self, ptr, count, kind, peer, stream):
            a, at = inside(ptr, count)
            sent[peer] = a[at: at + count].tolist()

        def recv(self, ptr, count, kind, peer, stream):
            a, at = inside(ptr, count)
            a[at: at + count] = 100 * peer + np.arange(count)

    cupy = sys.modules["cupy"]
    cupy.ascontiguousarray = lambda a: on_device(np.ascontiguousarray(a))
    cupy.empty = lambda size, dtype: on_device(np.zeros(size, dtype))
    fake_cuda.get_current_stream = Stream
    comm = _comm()
    comm.rank, comm.size, comm.comm = 1, 4, Wire()
    comm.types = {np.dtype(np.int64): "int64"}
    comm.nccl = types.SimpleNamespace(groupStart=lambda: groups.append("start"), groupEnd=lambda: groups.append("end"))
    out = comm.alltoallv(np.array([10, 11, 12, 13], np.int64), [0, 2, 2, 0], [0, 2, 2, 3])
    assert out.tolist() == [10, 11, 200, 201, 300, 301, 302]
    assert sent == {2: [12, 13]} and groups == ["start", "end"]
    assert comm._connected == {("p2p", (2, 3))}


def test_making_the_communicator_times_forming_and_the_first_all_reduce(fake_cuda, monkeypatch):
    """Every rank forms the communicator and then makes one all-reduce of one word, both
    timed into `setup`, so NCCL's connection is never inside a timed sample."""
    calls = []

    class Communicator:
        def __init__(self, size, uid, rank):
            time.sleep(0.05)
            calls.append(("form", size, rank))

        def allReduce(self, send, recv, count, kind, op, stream):
            time.sleep(0.03)
            calls.append(("allreduce", count, kind, op))

    class Recorded:
        def __init__(self, disable_timing=False):
            self.done = False

        def record(self, on):
            calls.append(("wait",))
            self.done = True

    class Stream(contextlib.nullcontext):
        ptr = 0

    nccl = types.SimpleNamespace(NcclCommunicator=Communicator, NCCL_INT64=1, NCCL_INT32=2, NCCL_UINT8=3,
                                 NCCL_UINT32=4, NCCL_SUM=9)
    fake_cuda.nccl, fake_cuda.Event, fake_cuda.get_current_stream = nccl, Recorded, Stream
    monkeypatch.setitem(sys.modules, "cupy.cuda.nccl", nccl)
    sys.modules["cupy"].zeros = lambda size, dtype: np.zeros(size, dtype).view(DeviceArray)
    sys.modules["cupy"].int32 = np.int32
    comm = nc.NcclComm(2, b"uid", 1)
    assert calls == [("form", 2, 1), ("allreduce", 1, 2, 9), ("wait",)]
    assert set(comm.setup) == {"form_ms", "first_call_ms"}
    assert comm.setup["form_ms"] >= 50 and comm.setup["first_call_ms"] >= 30
    assert comm._connected == {"allreduce"}
