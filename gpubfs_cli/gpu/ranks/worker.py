"""Ranks 1..N-1 of a multi-GPU strategy: a process per GPU that waits for rank 0's orders.

Started by gpubfs itself (multiprocessing spawn, one host: `main_local`) or by an MPI
launcher across hosts (`python -m gpubfs_cli.gpu.ranks.worker` as the other ranks of an
MPMD mpirun, see docs/scaling.md). Orders (tuples):
("init", "package.module:Class", kwargs, nccl_uid, size, timeout_s) -> builds
    Class(rank=, device=, comm=NcclComm, **kwargs) -> ("ready", its nbytes(), NCCL_NVLS_ENABLE);
    with no uid the rank has no GPU and no communicator (comm=None: the CPU checks of
    the launch and failure paths)
("call", method, args) -> ("ok", the method's result)
("release",) drops the object; ("exit",) ends the process; both abort the rank's
communicator first (rank 0 aborts its own meanwhile: RankGroup.stop). A failure answers
("error", "rank R: what happened"), aborts the rank's NCCL communicator (so that no
teardown waits on peers) and ends the process. serve() returns the exit status.
"""

from __future__ import annotations

import importlib
import os


def build(spec: str, **kwargs):
    """The object of class "package.module:Class" built with `kwargs`."""
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)(**kwargs)


def serve(channel, rank: int, device: int, alive) -> int:
    state = comm = None
    try:
        while True:
            order = channel.recv(None)
            kind = order[0]
            if kind == "exit":
                _abort(comm)
                return 0
            if kind == "init":
                _, spec, kwargs, uid, size, timeout_s = order
                comm = None
                if uid is not None:
                    import cupy as cp

                    from gpubfs_cli.gpu.ranks.nccl import NcclComm

                    cp.cuda.Device(device).use()
                    comm = NcclComm(size, uid, rank, alive=alive, timeout_s=timeout_s)
                state = build(spec, rank=rank, device=device, comm=comm, **kwargs)
                channel.send(("ready", state.nbytes(), os.environ.get("NCCL_NVLS_ENABLE")))
            elif kind == "call":
                _, method, args = order
                channel.send(("ok", getattr(state, method)(*args)))
            elif kind == "release":
                if state is not None and hasattr(state, "release"):
                    state.release()
                state = None
                _abort(comm)
                comm = None
                _free_gpu_pool()
    except BaseException as exc:  # tell rank 0 in one line, then end
        try:
            channel.send(("error", f"rank {rank}: {type(exc).__name__}: {str(exc).strip()[:300]}"))
        except Exception:
            pass
        _abort(comm)
        return 1


def _abort(comm) -> None:
    """End this rank's communicator without waiting on its peers (NcclComm.abort)."""
    if comm is not None:
        comm.abort()


def _free_gpu_pool() -> None:
    import sys

    cp = sys.modules.get("cupy")
    if cp is not None:
        cp.get_default_memory_pool().free_all_blocks()


def main_local(conn, rank: int) -> None:
    """Entry point of a spawned worker: orders through a pipe, device = rank."""
    import multiprocessing

    from gpubfs_cli.gpu.ranks.channels import PipeChannel

    parent = multiprocessing.parent_process()
    status = serve(PipeChannel(conn), rank, rank, alive=lambda: parent is None or parent.is_alive())
    # No interpreter teardown: destructors of CUDA and NCCL objects could wait on peers
    # that are gone; the driver frees the process's GPU memory at exit.
    os._exit(status)


def main_mpi() -> None:
    """Entry point under mpirun: orders from world rank 0 through MPI, device = local rank."""
    from mpi4py import MPI

    from gpubfs_cli.gpu.ranks.channels import MpiChannel, mpi_local_rank

    rank = MPI.COMM_WORLD.Get_rank()
    serve(MpiChannel(MPI.COMM_WORLD, 0), rank, mpi_local_rank(), alive=lambda: True)


if __name__ == "__main__":
    main_mpi()
