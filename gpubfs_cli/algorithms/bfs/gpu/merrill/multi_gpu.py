"""Merrill, Garland, Grimshaw, "Scalable GPU Graph Traversal" (PPoPP'12), section 6:
BFS over several GPUs, on NCCL, so that the same code runs on one host or across hosts.

- ``merrill.multi_gpu``: vertices partitioned across the ranks (one process per GPU);
  each level every rank expands its local frontier with a fused bitmask filter (each
  GPU keeps its own full n-bit visited mask, as in the paper), buckets the survivors by
  owner, all-gathers the p x p count matrix (which also ends the search: all zero),
  exchanges the ids with grouped NCCL send/recv and contracts locally. The level loop
  and the bookkeeping are multi/level.py and multi/exchange.py, which the CPU simulation
  (multi/simulate.py) runs too.
- ``merrill.multi_gpu_do``: direction-optimizing: top-down levels as above while the
  frontier is small, bottom-up levels (Beamer's alpha/beta rule) that all-gather the
  frontier bitmap (stride/8 bytes per rank and level) instead of neighbour lists.

What differs from the paper: the paper's host launched kernels on each GPU and read
peers' bins through unified virtual addressing over PCIe; here each rank is its own
process and the bins travel through NCCL (NVLink within a host, IB/RoCE across hosts).
The per-level kernels (multi_gpu.cu) are small generic ones: merrill.cu's gathering and
culling live inside its persistent kernel and cannot be called per level.

Processes: this object is rank 0 on GPU 0 (in the runner's process); prepare() starts
ranks 1..N-1 (multi/ranks.py: MPI when launched under mpirun with N ranks, otherwise
spawned processes) and hands each its owned rows; release() ends them. A dead or silent
rank is one error, never a hang (every wait has `timeout_s`).

Timing (`self`): every rank times its level loop with CUDA events on its own GPU; the
figure is the slowest rank's (Answer.time_ms). Labels are gathered to rank 0 afterwards, in
to_host(), outside the timed region. The partition is prepare() time.

Knobs: ``gpus`` (ranks, one GPU each; the config key `gpus` / `gpubfs run --gpus N`
sets it), ``partition`` (``stripe``: v mod p, the paper's; ``degree``: degree-aware
snake dealing), ``timeout_s`` (longest wait for a rank), and for the DO variant
``alpha``/``beta`` (Beamer's switch thresholds).
"""

from __future__ import annotations

import os
import pickle
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np

from gpubfs_cli.algorithms.bfs.gpu.merrill.multi import partition as pt
from gpubfs_cli.algorithms.bfs.gpu.merrill.multi.channels import mpi_world_size
from gpubfs_cli.algorithms.bfs.gpu.merrill.multi.kernels import kernel_module
from gpubfs_cli.algorithms.bfs.gpu.merrill.multi.level import Direction, merge_counters
from gpubfs_cli.algorithms.bfs.gpu.merrill.multi.ranks import RankGroup
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.device import gpu
from gpubfs_cli.core.strategy import StrategyUnavailable, register
from gpubfs_cli.gpu import backend
from gpubfs_cli.gpu.base import GpuStrategy
from gpubfs_cli.gpu.launch import require_int32_ids


@dataclass(frozen=True)
class MultiGpuKnobs:
    gpus: int = 1
    partition: str = "stripe"
    timeout_s: float = 300.0

    def __post_init__(self):
        if int(self.gpus) < 1:
            raise ValueError(f"gpus: expected 1 or more, got {self.gpus}")
        if self.partition not in pt.KINDS:
            raise ValueError(f"partition: expected one of {', '.join(pt.KINDS)}, got {self.partition!r}")
        if not float(self.timeout_s) > 0:
            raise ValueError(f"timeout_s: expected a positive number of seconds, got {self.timeout_s}")


@dataclass(frozen=True)
class MultiGpuDoKnobs(MultiGpuKnobs):
    alpha: float = 15.0
    beta: float = 18.0


class GatheredAnswer(Answer):
    """An answer whose labels are still spread over the ranks: to_host() gathers them."""

    def __init__(self, gather, counters: dict, time_ms: float):
        super().__init__(None, None, counters, time_ms=time_ms)
        self._gather = gather

    def to_host(self) -> Answer:
        dist, parents = self._gather()
        return Answer(dist, parents, dict(self.counters), time_ms=self.time_ms)


class _MultiGpu(GpuStrategy):
    paper = "merrill"
    Knobs: ClassVar[type] = MultiGpuKnobs
    caveats = (
        "one process per GPU; neighbour bins travel through NCCL grouped send/recv instead of the paper's peer pointers over PCIe",
        "per-level kernels are small generic ones (warp per frontier vertex, atomic bitmask filter), not merrill.cu's persistent kernel",
        "the time is the slowest rank's event-timed level loop; labels are gathered to rank 0 afterwards, untimed",
    )
    traverse_allocates = ("the per-rank level loop builds its exchange bins and bottom-up bitmaps as CuPy arrays "
                          "each level (rank-local, freed when the traversal ends)")

    # Each rank times its own level loop with events on its GPU; the slowest rank's figure
    # is the answer's time_ms: no clock around the call in this process can see the others.
    timing = "self"

    @classmethod
    def devices_for(cls, knobs) -> tuple:
        """GPUs 0..gpus-1 of this host; under MPI the other ranks' GPUs may be on other
        hosts, so this process holds GPU 0 alone."""
        world = mpi_world_size()
        return (gpu(0),) if world is not None and world > 1 else tuple(gpu(i) for i in range(int(knobs.gpus)))

    def _direction(self) -> Direction | None:
        return None

    def upload(self, graph) -> None:
        """Each rank uploads its own rows in prepare(); nothing is shared with others."""

    def prepare(self, graph) -> None:
        from gpubfs_cli.algorithms.bfs.gpu.merrill.multi.comm import NcclComm
        from gpubfs_cli.algorithms.bfs.gpu.merrill.multi.rank import GpuRank

        k = self.knobs
        size = int(k.gpus)
        world = mpi_world_size()
        if world is None or world <= 1:
            why = backend.gpus_unavailable_reason(size)
            if why is not None:
                raise StrategyUnavailable(f"{self.name}: {why}")
        require_int32_ids(graph, self.name)
        self.graph = graph
        self._buffers, self._pinned = {}, {}
        self.part = pt.make_partition(k.partition, graph, size)
        bottom_up = self._direction() is not None
        self.cupy()
        from cupy.cuda import nccl

        self.group = RankGroup(size, float(k.timeout_s))
        folder = Path(tempfile.mkdtemp(prefix="gpubfs-mgpu-", dir=os.environ.get("GPUBFS_MULTIGPU_DIR")))
        try:
            uid = nccl.get_unique_id()
            for r, ch in enumerate(self.group.channels, start=1):
                path = folder / f"rank{r}.pkl"
                with open(path, "wb") as f:
                    pickle.dump(pt.rank_arrays(self.part, graph, r, bottom_up), f, protocol=5)
                ch.send(("init", uid, str(path), float(k.timeout_s)))
            comm = NcclComm(size, uid, 0, alive=self.group.alive, timeout_s=float(k.timeout_s))
            self.rank0 = GpuRank(pt.rank_arrays(self.part, graph, 0, bottom_up), comm, kernel_module(self.device))
            ready = self.group.answers("ready")
        finally:
            for p in folder.glob("*"):
                p.unlink()
            folder.rmdir()
        mine = os.environ.get("NCCL_NVLS_ENABLE")
        for r, (_, _, seen) in enumerate(ready, start=1):
            if seen != mine:
                raise RuntimeError(f"rank {r} sees NCCL_NVLS_ENABLE={seen!r}, rank 0 {mine!r}")
        self._bytes = self.rank0.nbytes() + sum(int(a[1]) for a in ready)

    def prepared_bytes(self) -> int:
        return int(getattr(self, "_bytes", 0))

    def traverse(self, source: int, predecessors: bool = False) -> Answer:
        n = self.graph.n
        if not 0 <= source < n:
            raise ValueError(f"source {source} out of range [0, {n})")
        direction = self._direction()
        self.group.tell(("bfs", int(source), bool(predecessors), direction))
        ms, mine = self.rank0.bfs(int(source), bool(predecessors), direction)
        others = self.group.answers("done")
        times = [ms] + [a[1] for a in others]
        bytes_per_id = 4 * (2 if predecessors else 1)
        counters = merge_counters([mine] + [a[2] for a in others], bytes_per_id, self.part.stride)
        counters["rank_ms"] = np.asarray(times, np.float64)
        return GatheredAnswer(lambda: self._gather(predecessors), counters, max(times))

    def _gather(self, predecessors: bool):
        """Every rank's labels (and parents) to rank 0 over NCCL, in rank order."""
        cp = self.cupy()
        comm, res = self.rank0.comm, self.rank0.result
        self.group.tell(("gather", bool(predecessors)))
        out = []
        for key in ("dist", "parent") if predecessors else ("dist",):
            bufs = [cp.empty(len(ids), cp.int32) for ids in self.part.owned[1:]]
            comm.nccl.groupStart()
            for r, buf in enumerate(bufs, start=1):
                comm.recv(buf, r)
            comm.nccl.groupEnd()
            out.append(pt.gather(self.part, [comm.host(getattr(res, key))] + [comm.host(b) for b in bufs]))
        self.group.answers("sent")
        return out[0], (out[1] if predecessors else None)

    def release(self) -> None:
        group = getattr(self, "group", None)
        if group is not None:
            group.stop()
            self.group = None
        rank0 = getattr(self, "rank0", None)
        if rank0 is not None:
            rank0.comm.abort()
            self.rank0 = None
        super().release()


@register
class MultiGpu(_MultiGpu):
    name = "merrill.multi_gpu"
    section = "Merrill et al. PPoPP'12, section 6 (multi-GPU: partition, exchange by owner, contract)"
    summary = "vertices split across GPUs; neighbours bucketed by owner and exchanged with NCCL every level"


@register
class MultiGpuDo(_MultiGpu):
    name = "merrill.multi_gpu_do"
    section = "Merrill et al. PPoPP'12, section 6, direction-optimizing (Beamer et al. SC'12) levels"
    summary = "multi-GPU with bottom-up levels that all-gather the frontier bitmap (n/8 bytes per level)"
    Knobs = MultiGpuDoKnobs

    def _direction(self) -> Direction:
        return Direction(float(self.knobs.alpha), float(self.knobs.beta))
