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
ranks 1..N-1 (gpu/ranks/group.py: MPI when launched under mpirun with N ranks, otherwise
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
from gpubfs_cli.algorithms.bfs.gpu.merrill.multi.level import Direction, merge_counters
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.knobs import knob
from gpubfs_cli.core.strategy import register
from gpubfs_cli.gpu.ranks.strategy import GatheredAnswer, RankedStrategy


@dataclass(frozen=True)
class MultiGpuKnobs:
    gpus: int = knob(1, 1)
    partition: str = "stripe"
    timeout_s: float = knob(300.0, 0, above=True, unit="seconds")

    def __post_init__(self):
        if int(self.gpus) < 1:
            raise ValueError(f"gpus: expected 1 or more, got {self.gpus}")
        if self.partition not in pt.KINDS:
            raise ValueError(f"partition: expected one of {', '.join(pt.KINDS)}, got {self.partition!r}")
        if not float(self.timeout_s) > 0:
            raise ValueError(f"timeout_s: expected a positive number of seconds, got {self.timeout_s}")


@dataclass(frozen=True)
class MultiGpuDoKnobs(MultiGpuKnobs):
    alpha: float = knob(15.0, 0, above=True)  # both divide (multi/level.py)
    beta: float = knob(18.0, 0, above=True)


class _MultiGpu(RankedStrategy):
    paper = "merrill"
    Knobs: ClassVar[type] = MultiGpuKnobs
    caveats = (
        "one process per GPU; neighbour bins travel through NCCL grouped send/recv instead of the paper's peer pointers over PCIe",
        "per-level kernels are small generic ones (warp per frontier vertex, atomic bitmask filter), not merrill.cu's persistent kernel",
        "the time is the slowest rank's event-timed level loop; labels are gathered to rank 0 afterwards, untimed",
    )
    traverse_allocates = ("the per-rank level loop builds its exchange bins and bottom-up bitmaps as CuPy arrays "
                          "each level (rank-local, freed when the traversal ends)")

    RANK_CLASS = "gpubfs_cli.algorithms.bfs.gpu.merrill.multi.rank:GpuRank"

    def _direction(self) -> Direction | None:
        return None

    def prepare(self, graph) -> None:
        self.part = pt.make_partition(self.knobs.partition, graph, int(self.knobs.gpus))
        bottom_up = self._direction() is not None
        folder = Path(tempfile.mkdtemp(prefix="gpubfs-mgpu-", dir=os.environ.get("GPUBFS_MULTIGPU_DIR")))
        try:
            paths = {}
            for r in range(1, int(self.knobs.gpus)):
                paths[r] = folder / f"rank{r}.pkl"
                with open(paths[r], "wb") as f:
                    pickle.dump(pt.rank_arrays(self.part, graph, r, bottom_up), f, protocol=5)
            self.start_ranks(graph, lambda r: {"arrays_file": str(paths[r])},
                             {"arrays": pt.rank_arrays(self.part, graph, 0, bottom_up)})
        finally:
            for p in folder.glob("*"):
                p.unlink()
            folder.rmdir()

    def traverse(self, source: int, predecessors: bool = False) -> Answer:
        n = self.graph.n
        if not 0 <= source < n:
            raise ValueError(f"source {source} out of range [0, {n})")
        (ms, mine), others = self.run_everywhere("bfs", int(source), bool(predecessors), self._direction())
        times = [ms] + [a[0] for a in others]
        bytes_per_id = 4 * (2 if predecessors else 1)
        counters = merge_counters([mine] + [a[1] for a in others], bytes_per_id, self.part.stride)
        counters["rank_ms"] = np.asarray(times, np.float64)
        return GatheredAnswer(lambda: self._gather(predecessors), counters, max(times))

    def _gather(self, predecessors: bool):
        """Every rank's labels (and parents) to rank 0 over NCCL, in rank order."""
        cp = self.cupy()
        comm, res = self.rank0.comm, self.rank0.result
        self.group.call("send_answer", bool(predecessors))
        out = []
        for key in ("dist", "parent") if predecessors else ("dist",):
            bufs = [cp.empty(len(ids), cp.int32) for ids in self.part.owned[1:]]
            comm.grouped(range(1, len(bufs) + 1),
                         lambda bufs=bufs: [comm.recv(buf, r) for r, buf in enumerate(bufs, start=1)])
            out.append(pt.gather(self.part, [comm.host(getattr(res, key))] + [comm.host(b) for b in bufs]))
        self.group.results()
        return out[0], (out[1] if predecessors else None)

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
