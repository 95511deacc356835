"""p ranks of mgpu.bfs in one process, step by step: every rank runs a step before any
runs the next, and a "sum" step adds the ranks' buffers here instead of over NCCL (the
peer-to-peer exchange needs no help: its kernels that wait on the peers run after
every rank's kernels that those waits are for). Several ranks here run the host loop:
the device loop needs every rank's kernel running at once; one rank runs its own. The
kernels and the level program are the GPU ranks' own (rank.py); only the executor
differs. Runs on one GPU (all ranks on device 0) or, in the tests, on the CPU kernel
emulator: the multi-rank logic checked where there is one GPU or none.
"""

from __future__ import annotations

import numpy as np

from gpubfs_cli.algorithms.bfs.gpu.mgpu.rank import C, MgpuRank, published_frontier


def _sum(pairs) -> None:
    total = pairs[0][0].copy()
    for send, _ in pairs[1:]:
        total += send
    for _, recv in pairs:
        recv[...] = total


def _run(ranks: list, programs: list) -> None:
    for i in range(len(programs[0])):
        if programs[0][i][0] == "sum":
            _sum([(prog[i][1], prog[i][2]) for prog in programs])
        else:
            for rank, prog in zip(ranks, programs, strict=True):
                rank.launch(prog[i])


def _sync(ranks) -> None:
    sync = getattr(ranks[0].cp.cuda.Device(ranks[0].device), "synchronize", None)
    if sync is not None:
        sync()


def traverse(ranks: list[MgpuRank], source: int, predecessors: bool = False):
    """(distances int32[n], parents or None, counters of rank 0) of one BFS."""
    if ranks[0].exchange == "p2p" and ranks[0].peers is None:
        addresses = [r.region.address for r in ranks]
        for r in ranks:
            r.attach(addresses)
    for r in ranks:
        r.pub.words[:] = 0
        r.pub.words[C["PUB_SOURCE"]] = int(source)
    _run(ranks, [r.init_steps(predecessors) for r in ranks])
    if ranks[0].device_loop:  # one rank: its level loop is one cooperative launch
        _run(ranks, [r.loop_steps(predecessors) for r in ranks])
        _sync(ranks)
        words = ranks[0].pub.words
        assert published_frontier(words, int(words[C["PUB_SEQ"]])) == 0, "the device loop ended early"
        return _answer(ranks, predecessors)
    levels = [r.level_steps(predecessors) for r in ranks]
    n = ranks[0].plan.n
    for k in range(1, n + 3):
        _sync(ranks)
        assert all(int(r.pub.words[C["PUB_SEQ"]]) == k for r in ranks)
        if published_frontier(ranks[0].pub.words, k) == 0:
            break
        _run(ranks, levels)
    else:
        raise RuntimeError("the level loop did not end")
    return _answer(ranks, predecessors)


def _answer(ranks, predecessors: bool):
    dist = np.concatenate([np.asarray(r.dist.get()) for r in ranks]) if ranks else np.zeros(0, np.int32)
    parents = np.concatenate([np.asarray(r.parent.get()) for r in ranks]) if predecessors else None
    return dist, parents, ranks[0].counters()
