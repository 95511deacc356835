"""Ranks 1..N-1 of merrill.multi_gpu: a process per GPU that waits for rank 0's orders.

Started by gpubfs itself (multiprocessing spawn, one host: `main_local`) or by an MPI
launcher across hosts (`python -m gpubfs_cli.algorithms.bfs.gpu.merrill.multi.worker`
as the other ranks of an MPMD mpirun, see docs/scaling.md). Orders (tuples):
("init", uid, arrays_file, timeout_s) -> ("ready", bytes, NCCL_NVLS_ENABLE as seen here)
("bfs", source, predecessors, direction) -> ("done", ms, counters)
("gather", predecessors) -> labels sent to rank 0 over NCCL, then ("sent",)
("release",) ends the graph; ("exit",) ends the process. A failure answers
("error", "rank R: what happened") and ends the process.
"""

from __future__ import annotations

import os
import pickle


def serve(channel, rank: int, device: int, alive) -> None:
    rank_state = None
    try:
        import cupy as cp

        cp.cuda.Device(device).use()
        while True:
            order = channel.recv(None)
            kind = order[0]
            if kind == "exit":
                return
            if kind == "init":
                from gpubfs_cli.algorithms.bfs.gpu.merrill.multi.comm import NcclComm
                from gpubfs_cli.algorithms.bfs.gpu.merrill.multi.kernels import kernel_module
                from gpubfs_cli.core.device import gpu

                _, uid, path, timeout_s = order
                with open(path, "rb") as f:
                    arrays = pickle.load(f)
                comm = NcclComm(arrays["size"], uid, rank, alive=alive, timeout_s=timeout_s)
                from gpubfs_cli.algorithms.bfs.gpu.merrill.multi.rank import GpuRank

                rank_state = GpuRank(arrays, comm, kernel_module(gpu(device)))
                channel.send(("ready", rank_state.nbytes(), os.environ.get("NCCL_NVLS_ENABLE")))
            elif kind == "bfs":
                _, source, predecessors, direction = order
                ms, counters = rank_state.bfs(source, predecessors, direction)
                channel.send(("done", ms, counters))
            elif kind == "gather":
                rank_state.send_answer(order[1])
                channel.send(("sent",))
            elif kind == "release":
                rank_state = None
                cp.get_default_memory_pool().free_all_blocks()
    except BaseException as exc:  # tell rank 0 in one line, then end
        try:
            channel.send(("error", f"rank {rank}: {type(exc).__name__}: {str(exc).strip()[:300]}"))
        except Exception:
            pass


def main_local(conn, rank: int) -> None:
    """Entry point of a spawned worker: orders through a pipe, device = rank."""
    import multiprocessing

    from gpubfs_cli.algorithms.bfs.gpu.merrill.multi.channels import PipeChannel

    parent = multiprocessing.parent_process()
    serve(PipeChannel(conn), rank, rank, alive=lambda: parent is None or parent.is_alive())


def main_mpi() -> None:
    """Entry point under mpirun: orders from world rank 0 through MPI, device = local rank."""
    from mpi4py import MPI

    from gpubfs_cli.algorithms.bfs.gpu.merrill.multi.channels import MpiChannel, mpi_local_rank

    rank = MPI.COMM_WORLD.Get_rank()
    serve(MpiChannel(MPI.COMM_WORLD, 0), rank, mpi_local_rank(), alive=lambda: True)


if __name__ == "__main__":
    main_mpi()
