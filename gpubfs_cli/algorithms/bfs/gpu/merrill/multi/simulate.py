"""The distributed BFS of merrill.multi_gpu run on the CPU: p ranks as threads, numpy
arrays, the thread communicator, the numpy twin of the GPU kernels, and the very same
level loop and exchange bookkeeping the GPU ranks run. Tests compare it with
cpu.sequential for 1 to 4 ranks."""

from __future__ import annotations

import threading

import numpy as np

from gpubfs_cli.algorithms.bfs.gpu.merrill.multi.comm import ThreadGroup
from gpubfs_cli.algorithms.bfs.gpu.merrill.multi.level import (
    Direction,
    RankView,
    bfs_rank,
    merge_counters,
)
from gpubfs_cli.algorithms.bfs.gpu.merrill.multi.ops import HostOps
from gpubfs_cli.algorithms.bfs.gpu.merrill.multi.partition import (
    gather,
    make_partition,
    rank_arrays,
)


def simulate(graph, ranks: int, source: int, *, partition: str = "stripe", predecessors: bool = False,
             direction: Direction | None = None):
    """(distances, parents or None, counters) of one BFS over `ranks` simulated ranks."""
    part = make_partition(partition, graph, ranks)
    views = [RankView(xp=np, **rank_arrays(part, graph, r, direction is not None)) for r in range(ranks)]
    group = ThreadGroup(ranks)
    results: list = [None] * ranks
    errors: list = []

    def run(r: int) -> None:
        try:
            results[r] = bfs_rank(HostOps(views[r]), group.comm(r), views[r], source, predecessors, direction)
        except BaseException as exc:  # one failing rank must not leave the others at the barrier
            errors.append(exc)
            group.barrier.abort()

    threads = [threading.Thread(target=run, args=(r,)) for r in range(ranks)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    dist = gather(part, [r.dist for r in results])
    parents = gather(part, [r.parent for r in results]) if predecessors else None
    counters = merge_counters([vars(r) for r in results], 4 * (2 if predecessors else 1), part.stride)
    return dist, parents, counters
