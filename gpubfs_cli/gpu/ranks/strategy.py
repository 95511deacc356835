"""RankedStrategy: what every multi-GPU strategy shares (one process per GPU).

A subclass names its rank class (RANK_CLASS, "package.module:Class") and, in prepare(),
calls `start_ranks(graph, kwargs_of)`: ranks 1..N-1 are started and build their object,
the NCCL communicator forms, rank 0 builds its own with `rank0_kwargs` and the sizes the
ranks report are summed. Each rank times its GPU with events (timing `self`: no clock
in this process can see the others; the slowest rank counts), and answers come back to
rank 0 afterwards through a GatheredAnswer.

What starting the ranks cost is kept apart from the samples and recorded with the
prepare (prepare_details): ranks_start_ms (from starting ranks 1..N-1 until every rank
has built its object), and rank 0's nccl_form_ms and nccl_first_call_ms (gpu/ranks/nccl.py).
"""

from __future__ import annotations

import time

from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.device import gpu
from gpubfs_cli.core.strategy import StrategyUnavailable
from gpubfs_cli.gpu import backend
from gpubfs_cli.gpu.base import GpuStrategy
from gpubfs_cli.gpu.launch import require_int32_ids
from gpubfs_cli.gpu.ranks.channels import mpi_world_size
from gpubfs_cli.gpu.ranks.group import RankGroup
from gpubfs_cli.gpu.ranks.worker import build


class GatheredAnswer(Answer):
    """An answer whose labels are still on the ranks: to_host() gathers them."""

    def __init__(self, gather, counters: dict, time_ms: float):
        super().__init__(None, None, counters, time_ms=time_ms)
        self._gather = gather

    def to_host(self) -> Answer:
        dist, parents = self._gather()
        return Answer(dist, parents, dict(self.counters), time_ms=self.time_ms)


class RankedStrategy(GpuStrategy):
    RANK_CLASS = ""
    timing = "self"
    multi_gpu = True

    @classmethod
    def devices_for(cls, knobs) -> tuple:
        """GPUs 0..gpus-1 of this host; under MPI the other ranks' GPUs may be on other
        hosts, so this process holds GPU 0 alone."""
        world = mpi_world_size()
        return (gpu(0),) if world is not None and world > 1 else tuple(gpu(i) for i in range(int(knobs.gpus)))

    def upload(self, graph) -> None:
        """Each rank loads its own part in prepare(); nothing is shared with others."""

    def start_ranks(self, graph, kwargs_of, rank0_kwargs: dict) -> None:
        """Ranks 1..gpus-1 built with kwargs_of(rank), rank 0 here with rank0_kwargs
        (self.group, self.rank0); a failing rank is one RankFailed naming it."""
        from gpubfs_cli.gpu.ranks.nccl import NcclComm

        size, timeout_s = int(self.knobs.gpus), float(self.knobs.timeout_s)
        world = mpi_world_size()
        if world is None or world <= 1:
            why = backend.gpus_unavailable_reason(size)
            if why is not None:
                raise StrategyUnavailable(f"{self.name}: {why}")
        require_int32_ids(graph, self.name)
        self.graph = graph
        self._buffers, self._pinned = {}, {}
        self.cupy()
        from cupy.cuda import nccl

        self.group = RankGroup(size, timeout_s)
        uid = nccl.get_unique_id()
        t0 = time.perf_counter()
        self.group.start(self.RANK_CLASS, kwargs_of, uid)
        try:
            comm = NcclComm(size, uid, 0, alive=self.group.alive, timeout_s=timeout_s)
            self.rank0 = build(self.RANK_CLASS, rank=0, device=self.device.index, comm=comm, **rank0_kwargs)
        except Exception as exc:
            raise self.group.explain(exc) from None
        self._device_bytes = [self.rank0.nbytes(), *(int(a[1]) for a in self.group.ready())]
        self._bytes = sum(self._device_bytes)
        self._setup = {"ranks_start_ms": round((time.perf_counter() - t0) * 1000.0, 3),
                       **{f"nccl_{k}": v for k, v in comm.setup.items()}}

    def run_everywhere(self, method: str, *args):
        """(rank 0's result, the other ranks' results) of method(*args) on every rank."""
        self.group.call(method, *args)
        try:
            mine = getattr(self.rank0, method)(*args)
        except Exception as exc:
            raise self.group.explain(exc) from None
        return mine, self.group.results()

    def prepared_bytes(self) -> int:
        return int(getattr(self, "_bytes", 0))

    def device_bytes(self) -> list[int] | None:
        """Each rank's graph part and buffers, rank order (rank r on GPU r of its host)."""
        got = getattr(self, "_device_bytes", None)
        return None if got is None else list(got)

    def prepare_details(self) -> dict[str, float]:
        return dict(getattr(self, "_setup", {}))

    def release(self) -> None:
        group, rank0 = getattr(self, "group", None), getattr(self, "rank0", None)

        def abort0() -> None:
            if rank0 is not None:
                rank0.comm.abort()

        if group is not None:
            group.stop(then=abort0)  # the ranks told first, then rank 0's communicator ends
            self.group = None
        else:
            abort0()
        if rank0 is not None:
            if hasattr(rank0, "release"):
                rank0.release()
            self.rank0 = None
        super().release()
