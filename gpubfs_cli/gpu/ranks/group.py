"""Rank 0's handle on ranks 1..N-1: start them, give orders, collect answers, never hang.

Bootstrap: under an MPI launcher whose world has exactly N processes (mpi4py present),
the other ranks are already running `worker.py` and orders go through MPI; otherwise
gpubfs spawns N-1 local processes (multiprocessing, spawn) and orders go through pipes.
Either way the NCCL unique id travels in the "init" order. The environment (with
NCCL_NVLS_ENABLE as the machine set it) is inherited by spawned ranks; each rank reports
the value it sees and a mismatch is an error. Every wait has a timeout and checks that
the ranks are alive: a dead rank is one RankFailed naming it and its own message.

Each rank runs an object of a class named "package.module:Class" (the same class rank 0
builds for itself): `start()` builds it on every other rank with that rank's keyword
arguments, `call(method, *args)` calls a method on all of them and returns their results.
"""

from __future__ import annotations

import os

from gpubfs_cli.gpu.ranks.channels import MpiChannel, PipeChannel, RankFailed, mpi_world_size

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

        from gpubfs_cli.gpu.ranks import worker

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
        for r, ch in enumerate(self.channels, start=1):
            try:
                ch.send(order)
            except (OSError, EOFError) as exc:  # a dead rank's pipe: name the rank, not the pipe
                raise RankFailed(self._why_dead(r, exc)) from None

    def _why_dead(self, r: int, exc) -> str:
        """The rank's own last words when it left any in its channel, else how it ended."""
        try:
            answer = self.channels[r - 1].recv(0.2)
            if answer and answer[0] == "error":
                return answer[1]
        except Exception:
            pass
        code = self.procs[r - 1].exitcode if self.procs else None
        return f"rank {r}: exited" + (f" with code {code}" if code is not None else f" ({exc})")

    def explain(self, exc: BaseException) -> BaseException:
        """What rank 0 raises when its own part failed: a dead rank's reason (its own last
        words) when one died, else `exc` itself."""
        for r, p in enumerate(self.procs, start=1):
            if not p.is_alive():
                return RankFailed(self._why_dead(r, exc))
        return exc

    def start(self, spec: str, kwargs_of, uid) -> None:
        """Build `spec`'s object on ranks 1..size-1 (kwargs_of(rank) -> keyword arguments)."""
        for r, ch in enumerate(self.channels, start=1):
            try:
                ch.send(("init", spec, kwargs_of(r), uid, self.size, float(self.timeout_s)))
            except (OSError, EOFError) as exc:
                raise RankFailed(self._why_dead(r, exc)) from None

    def ready(self) -> list:
        """Every rank's ("ready", bytes, NCCL_NVLS_ENABLE) answer; a rank seeing another
        NCCL_NVLS_ENABLE than rank 0 is an error."""
        out = self.answers("ready")
        mine = os.environ.get("NCCL_NVLS_ENABLE")
        for r, (_, _, seen) in enumerate(out, start=1):
            if seen != mine:
                raise RankFailed(f"rank {r} sees NCCL_NVLS_ENABLE={seen!r}, rank 0 {mine!r}")
        return out

    def call(self, method: str, *args) -> None:
        """Order every rank to call `method(*args)`; collect with results()."""
        self.tell(("call", method, args))

    def results(self) -> list:
        return [a[1] for a in self.answers("ok")]

    def answers(self, expect: str) -> list:
        """Every rank's answer to the last order; RankFailed naming the first that failed."""
        out = []
        for r, ch in enumerate(self.channels, start=1):
            alive = self.procs[r - 1].is_alive if self.procs else (lambda: True)
            try:
                answer = ch.recv(self.timeout_s, alive)
            except (RankFailed, EOFError, OSError) as exc:
                dead = self.procs and not self.procs[r - 1].is_alive()
                raise RankFailed(self._why_dead(r, exc) if dead else f"rank {r}: {exc}") from None
            if answer[0] == "error":
                raise RankFailed(answer[1])
            if answer[0] != expect:
                raise RankFailed(f"rank {r}: answered {answer[0]!r}, expected {expect!r}")
            out.append(answer)
        return out

    def stop(self, then=None) -> None:
        """Release the graph; local ranks end, MPI ranks wait for the next graph. `then()`
        runs once every rank has its order, before waiting for the local ones to end: rank
        0 aborts its communicator there, as each rank aborts its own, so that no rank's
        teardown waits on another's."""
        for ch in self.channels:
            try:
                ch.send(("release",) if self.mpi else ("exit",))
            except Exception:
                pass
        if then is not None:
            then()
        for p in self.procs:
            p.join(timeout=10)
            if p.is_alive():
                p.kill()
                p.join(timeout=5)
        self.procs, self.channels = [], []
