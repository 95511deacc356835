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

from gpubfs_cli.gpu.ranks.channels import RankFailed
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
    proc = subprocess.run([mpiexec, "-n", "2", sys.executable, "-m", "tests.gpu.mpi_ranks"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "mpi ranks: 2, answers [(1, 't1', 5)], error 'rank 1: RuntimeError: boom on 1'" in proc.stdout
