"""The rank layer (gpu/ranks) on the CPU: ranks start, answer, fail and end the way the
multi-GPU strategies rely on, with one error line naming the rank and no process left
behind; and the same orders over MPI under `mpiexec -n 2` (mpi4py and the mpich wheel,
which `make test` installs)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gpubfs_cli.gpu.ranks import group as group_module
from gpubfs_cli.gpu.ranks.channels import RankFailed, mpi_local_rank
from gpubfs_cli.gpu.ranks.group import RankGroup

ECHO = "tests.gpu.rank_helpers:Echo"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def group():
    g = RankGroup(3, timeout_s=30.0)
    yield g
    procs = list(g.procs)
    g.stop()
    assert all(not p.is_alive() for p in procs)


def test_ranks_build_their_object_and_answer_calls(group):
    group.start(ECHO, lambda r: {"tag": f"t{r}"}, None)
    assert [a[1] for a in group.ready()] == [100, 200]
    group.call("whoami", 7)
    got = group.results()
    assert [g[:3] for g in got] == [(1, "t1", 7), (2, "t2", 7)]
    assert len({g[3] for g in got} | {os.getpid()}) == 3  # one process a rank


def test_ranks_must_see_rank_0s_nccl_settings(monkeypatch):
    """NCCL_NVLS_ENABLE is what keeps NVLink multicast off: a rank that sees another value
    than rank 0 (started under another environment) is refused, naming it."""
    monkeypatch.setenv("NCCL_NVLS_ENABLE", "0")
    g = RankGroup(3, timeout_s=30.0)
    try:
        g.start(ECHO, lambda r: {"tag": f"t{r}"}, None)
        monkeypatch.setenv("NCCL_NVLS_ENABLE", "1")  # rank 0's now differs from the ranks'
        with pytest.raises(RankFailed, match=r"rank 1 sees NCCL_NVLS_ENABLE='0', rank 0 '1'"):
            g.ready()
    finally:
        g.stop()
    monkeypatch.setenv("NCCL_NVLS_ENABLE", "0")
    g = RankGroup(2, timeout_s=30.0)
    try:
        g.start(ECHO, lambda r: {"tag": f"t{r}"}, None)
        assert [a[2] for a in g.ready()] == ["0"]
    finally:
        g.stop()


def test_a_rank_that_fails_to_start_is_one_line_naming_it(group):
    group.start("tests.gpu.rank_helpers:Broken", lambda r: {}, None)
    with pytest.raises(RankFailed, match=r"^rank 1: MemoryError: out of memory on GPU 1 \(asked 17.2 GB\)$"):
        group.ready()


def test_a_failing_call_names_the_rank_and_its_message(group):
    group.start(ECHO, lambda r: {}, None)
    group.ready()
    group.call("boom")
    with pytest.raises(RankFailed, match=r"^rank 1: RuntimeError: boom on 1$"):
        group.results()


def test_a_dead_rank_is_one_error_not_a_hang(group):
    group.start(ECHO, lambda r: {}, None)
    group.ready()
    group.procs[1].kill()
    group.procs[1].join()
    with pytest.raises(RankFailed, match=r"^rank 2: exited"):
        group.call("whoami", 1)
        group.results()


def test_a_killed_rank_is_named_with_its_exit_code(group):
    group.start(ECHO, lambda r: {}, None)
    group.ready()
    group.procs[1].kill()
    group.procs[1].join()
    with pytest.raises(RankFailed, match=r"^rank 2: exited with code -9$"):  # at the order or the answer
        group.call("whoami", 1)
        group.results()


def test_a_rank_that_ended_is_named_by_its_last_words(group):
    """Ranks that failed to start answer their error and end; an order sent after that
    (rank 0 never read the answers) names the first rank's own message, not its exit."""
    group.start("tests.gpu.rank_helpers:Broken", lambda r: {}, None)
    for p in group.procs:
        p.join(timeout=30)
    with pytest.raises(RankFailed, match=r"^rank 1: MemoryError: out of memory on GPU 1 \(asked 17.2 GB\)$"):
        group.call("whoami", 1)


def test_an_mpi_world_of_one_spawns_local_ranks(monkeypatch):
    """`mpiexec -n 1 gpubfs run --gpus 2`: a world of one process is no MPI group; the
    other rank is spawned here, as without a launcher."""
    monkeypatch.setenv("OMPI_COMM_WORLD_SIZE", "1")
    g = RankGroup(2, timeout_s=30.0)
    try:
        assert not g.mpi and len(g.procs) == 1
        g.start(ECHO, lambda r: {"tag": "local"}, None)
        g.ready()
        g.call("whoami", 3)
        assert [a[:3] for a in g.results()] == [(1, "local", 3)]
    finally:
        g.stop()


def test_mpi_ranks_are_told_to_exit_once_when_rank_0_ends(monkeypatch):
    """MPI ranks outlive a graph: one exit hook, registered by the first group, orders
    every rank out when rank 0's process ends."""
    registered, sent = [], []
    monkeypatch.setattr(group_module, "_EXIT_REGISTERED", [])
    monkeypatch.setattr("atexit.register", registered.append)

    class Channel:
        def __init__(self, rank):
            self.rank = rank

        def send(self, order):
            sent.append((self.rank, order))

    channels = [Channel(1), Channel(2)]
    group_module._exit_at_end(channels)
    group_module._exit_at_end(channels)  # a second group on the same ranks
    assert len(registered) == 1 and sent == []
    registered[0]()
    assert sent == [(1, ("exit",)), (2, ("exit",))]


def test_the_local_rank_is_the_launchers_or_0(monkeypatch):
    for var in ("OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "PMI_LOCAL_RANK"):
        monkeypatch.delenv(var, raising=False)
    assert mpi_local_rank() == 0
    monkeypatch.setenv("MPI_LOCALRANKID", "3")
    assert mpi_local_rank() == 3


def test_a_silent_rank_times_out():
    g = RankGroup(2, timeout_s=30.0)
    try:
        g.start(ECHO, lambda r: {}, None)
        g.ready()
        g.timeout_s = 0.5
        g.call("nap", 5.0)
        with pytest.raises(RankFailed, match=r"rank 1: no answer in 0.5 s"):
            g.results()
    finally:
        procs = list(g.procs)
        g.stop()
    assert all(not p.is_alive() for p in procs)


def _mpiexec() -> str | None:
    return shutil.which("mpiexec", path=str(Path(sys.executable).parent)) or shutil.which("mpiexec")


def test_the_same_orders_over_mpi():
    mpiexec = _mpiexec()
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        mpiexec = None
    if mpiexec is None:
        pytest.skip("mpi4py or mpiexec not installed (make test installs both: the mpi extra)")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PMI_", "OMPI_", "PMIX_"))}
    # Open MPI's mpiexec (MPICH's ignores these): it refuses root unless told twice, and it
    # looks for ssh even to start two local ranks, where a machine without ssh has none
    env["OMPI_MCA_plm_rsh_agent"] = ""
    if os.geteuid() == 0:
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    proc = subprocess.run([mpiexec, "-n", "2", sys.executable, "-m", "tests.gpu.mpi_ranks"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "mpi ranks: 2, answers [(1, 't1', 5)], error 'rank 1: RuntimeError: boom on 1'" in proc.stdout


def test_stop_tells_every_rank_then_runs_then_before_waiting_for_them():
    """Rank 0 aborts its communicator between telling the ranks to end and waiting for
    them (RankedStrategy.release), so no rank's exit waits on rank 0's communicator."""
    events = []

    class Channel:
        def send(self, order):
            events.append(order)

    class Proc:
        def join(self, timeout=None):
            events.append("joined")

        def is_alive(self):
            return False

    g = RankGroup(1, timeout_s=5.0)
    g.channels, g.procs = [Channel(), Channel()], [Proc(), Proc()]
    g.stop(then=lambda: events.append("rank 0 aborted"))
    assert events == [("exit",), ("exit",), "rank 0 aborted", "joined", "joined"]
    assert g.channels == [] and g.procs == []


def test_a_ranked_strategy_aborts_rank_0s_communicator_while_the_ranks_end():
    from gpubfs_cli.gpu.ranks.strategy import RankedStrategy

    events = []

    class Group:
        def stop(self, then=None):
            events.append("told")
            then()
            events.append("joined")

    class Comm:
        def abort(self):
            events.append("abort")

    class Rank0:
        comm = Comm()

        def release(self):
            events.append("rank 0 released")

    s = RankedStrategy.__new__(RankedStrategy)
    s.group, s.rank0 = Group(), Rank0()
    s.release()
    assert events == ["told", "abort", "joined", "rank 0 released"]
    assert s.group is None and s.rank0 is None
    events.clear()
    s.rank0 = Rank0()  # no ranks of its own (one GPU): its communicator still ends
    s.release()
    assert events == ["abort", "rank 0 released"]


def test_a_worker_aborts_its_communicator_on_release_and_on_exit(monkeypatch):
    """Each rank ends its own communicator before it drops a graph or exits, never
    leaving NCCL's teardown to wait on a peer."""
    import types

    from gpubfs_cli.gpu.ranks import nccl, worker

    aborted = []

    class FakeComm:
        def __init__(self, size, uid, rank, alive, timeout_s):
            self.uid = uid

        def abort(self):
            aborted.append(self.uid)

    pool = types.SimpleNamespace(free_all_blocks=lambda: None)
    fake_cupy = types.SimpleNamespace(cuda=types.SimpleNamespace(Device=lambda i: types.SimpleNamespace(use=lambda: None)),
                                      get_default_memory_pool=lambda: pool)
    monkeypatch.setitem(sys.modules, "cupy", fake_cupy)
    monkeypatch.setattr(nccl, "NcclComm", FakeComm)
    init = ("init", "tests.gpu.rank_helpers:WithComm", {})
    orders = [(*init, "uid-1", 2, 5.0), ("release",), (*init, "uid-2", 2, 5.0), ("exit",)]
    sent = []

    class Channel:
        def recv(self, timeout_s):
            return orders.pop(0)

        def send(self, answer):
            sent.append(answer[0])

    assert worker.serve(Channel(), 1, 0, alive=lambda: True) == 0
    assert aborted == ["uid-1", "uid-2"] and sent == ["ready", "ready"]
