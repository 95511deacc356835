"""How rank 0 and the other ranks of a multi-GPU strategy talk (a pipe or MPI) and what an
MPI launcher says about this process.

Below group.py (rank 0's side) and worker.py (the others' side), which both need them, so
that neither imports the other to get them.
"""

from __future__ import annotations

import os
import time

MPI_SIZE_VARS = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE")


class RankFailed(RuntimeError):
    pass


class PipeChannel:
    def __init__(self, conn):
        self.conn = conn

    def send(self, obj) -> None:
        self.conn.send(obj)

    def recv(self, timeout_s: float | None, alive=lambda: True):
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while not self.conn.poll(0.05):
            if not alive():
                raise RankFailed("exited")
            if deadline is not None and time.monotonic() > deadline:
                raise RankFailed(f"no answer in {timeout_s:g} s")
        return self.conn.recv()


class MpiChannel:
    TAG = 17

    def __init__(self, comm, peer: int):
        self.comm, self.peer = comm, peer

    def send(self, obj) -> None:
        self.comm.send(obj, dest=self.peer, tag=self.TAG)

    def recv(self, timeout_s: float | None, alive=lambda: True):
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while not self.comm.iprobe(source=self.peer, tag=self.TAG):
            if deadline is not None and time.monotonic() > deadline:
                raise RankFailed(f"no answer in {timeout_s:g} s")
            time.sleep(0.001)
        return self.comm.recv(source=self.peer, tag=self.TAG)


def mpi_world_size() -> int | None:
    """The MPI world size when this process was started by an MPI launcher, else None."""
    for var in MPI_SIZE_VARS:
        if os.environ.get(var, "").isdigit():
            return int(os.environ[var])
    return None


def mpi_local_rank() -> int:
    for var in ("OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "PMI_LOCAL_RANK"):
        if os.environ.get(var, "").isdigit():
            return int(os.environ[var])
    return 0
