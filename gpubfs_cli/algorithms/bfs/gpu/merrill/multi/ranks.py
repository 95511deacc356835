"""Rank 0's handle on ranks 1..N-1: start them, give orders, collect answers, never hang.

Bootstrap: under an MPI launcher whose world has exactly N processes (mpi4py present),
the other ranks are already running `worker.py` and orders go through MPI; otherwise
gpubfs spawns N-1 local processes (multiprocessing, spawn) and orders go through pipes.
Either way the NCCL unique id travels in the "init" order. The environment (with
NCCL_NVLS_ENABLE as the machine set it) is inherited by spawned ranks; each rank reports
the value it sees and a mismatch is an error. Every wait has a timeout and checks that
the ranks are alive: a dead rank is one clear RuntimeError.
"""

from __future__ import annotations

from gpubfs_cli.algorithms.bfs.gpu.merrill.multi.channels import (
    MpiChannel,
    PipeChannel,
    RankFailed,
    mpi_world_size,
)

_EXIT_REGISTERED: list = []


def _exit_at_end(channels: list) -> None:
    """MPI ranks outlive a graph; they end when rank 0's process ends."""
    if not _EXIT_REGISTERED:
        import atexit

        atexit.register(lambda: [ch.send(("exit",)) for ch in channels])
        _EXIT_REGISTERED.append(True)


class RankGroup:
    """Ranks 1..size-1 and a channel to each."""

    def __init__(self, size: int, timeout_s: float):
        self.size, self.timeout_s = size, timeout_s
        self.procs: list = []
        self.channels: list = []
        self.mpi = False
        world = mpi_world_size()
        if size == 1:
            return
        if world is not None and world > 1:
            if world != size:
                raise RankFailed(f"the MPI launcher started {world} ranks for a strategy of {size} GPUs")
            from mpi4py import MPI

            self.mpi = True
            self.channels = [MpiChannel(MPI.COMM_WORLD, r) for r in range(1, size)]
            _exit_at_end(self.channels)
            return
        import multiprocessing

        from gpubfs_cli.algorithms.bfs.gpu.merrill.multi import worker

        ctx = multiprocessing.get_context("spawn")
        for r in range(1, size):
            ours, theirs = ctx.Pipe()
            p = ctx.Process(target=worker.main_local, args=(theirs, r), daemon=True, name=f"gpubfs-rank{r}")
            p.start()
            theirs.close()
            self.procs.append(p)
            self.channels.append(PipeChannel(ours))

    def alive(self) -> bool:
        return all(p.is_alive() for p in self.procs)

    def tell(self, order) -> None:
        for ch in self.channels:
            ch.send(order)

    def answers(self, expect: str) -> list:
        """Every rank's answer to the last order; RankFailed naming the first that failed."""
        out = []
        for r, ch in enumerate(self.channels, start=1):
            alive = self.procs[r - 1].is_alive if self.procs else (lambda: True)
            try:
                answer = ch.recv(self.timeout_s, alive)
            except (RankFailed, EOFError, OSError) as exc:
                raise RankFailed(f"rank {r}: {exc or 'exited'}") from None
            if answer[0] == "error":
                raise RankFailed(answer[1])
            if answer[0] != expect:
                raise RankFailed(f"rank {r}: answered {answer[0]!r}, expected {expect!r}")
            out.append(answer)
        return out

    def stop(self) -> None:
        """Release the graph; local ranks end, MPI ranks wait for the next graph."""
        for ch in self.channels:
            try:
                ch.send(("release",) if self.mpi else ("exit",))
            except Exception:
                pass
        for p in self.procs:
            p.join(timeout=10)
            if p.is_alive():
                p.kill()
                p.join(timeout=5)
        self.procs, self.channels = [], []
