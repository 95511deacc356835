"""merrill.multi_gpu on real GPUs: 1 rank always (a one-rank NCCL communicator), 2 ranks
where the machine has 2 GPUs; exact distances and a valid BFS tree on the nasty graphs."""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs
from gpubfs_cli.algorithms.bfs.validate import parent_failures
from gpubfs_cli.bench.timing import timed_traverse
from gpubfs_cli.core.strategy import StrategyUnavailable, all_strategies, make_knobs
from gpubfs_cli.gpu import backend
from tests.algorithms.bfs.gpu import emulated_bfs as eb

NAMES = ["merrill.multi_gpu", "merrill.multi_gpu_do"]


def _gpus(need: int) -> None:
    why = backend.gpus_unavailable_reason(need)
    if why is not None:
        pytest.skip(why)


def _check(name: str, knobs: dict, graphs) -> None:
    cls = all_strategies("bfs")[name]
    for gname in graphs:
        g = eb.graph(gname)
        s = cls(make_knobs(cls, knobs))
        s.prepare(g)
        try:
            for source in eb.sources(g):
                for preds in (False, True):
                    ms, a = timed_traverse(s, source, preds)
                    ref = sequential_bfs(g, source).distances
                    assert np.array_equal(a.distances, ref), (gname, source, preds)
                    assert ms > 0 and len(a.counters["rank_ms"]) == knobs.get("gpus", 1)
                    if preds:
                        assert parent_failures(g, source, a.distances, a.parents) == []
        finally:
            s.release()


@pytest.mark.gpu
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("partition", ["stripe", "degree"])
def test_one_rank(name, partition):
    _gpus(1)
    _check(name, {"gpus": 1, "partition": partition, "alpha": 2.0} if name.endswith("_do")
           else {"gpus": 1, "partition": partition}, list(eb.GRAPHS))


@pytest.mark.gpu
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("partition", ["stripe", "degree"])
def test_two_ranks(name, partition):
    _gpus(2)
    _check(name, {"gpus": 2, "partition": partition}, list(eb.GRAPHS))


@pytest.mark.gpu
def test_more_gpus_than_the_machine_has_is_unavailable():
    _gpus(1)
    cls = all_strategies("bfs")["merrill.multi_gpu"]
    s = cls(make_knobs(cls, {"gpus": backend.device_count() + 1}))
    with pytest.raises(StrategyUnavailable, match="needs .* GPUs, this machine has"):
        s.prepare(eb.graph("rmat"))
    s.release()


@pytest.mark.gpu
def test_a_dead_rank_is_one_error_not_a_hang():
    _gpus(2)
    cls = all_strategies("bfs")["merrill.multi_gpu"]
    s = cls(make_knobs(cls, {"gpus": 2, "timeout_s": 30.0}))
    s.prepare(eb.graph("rmat"))
    try:
        s.group.procs[0].kill()
        s.group.procs[0].join()
        with pytest.raises(RuntimeError, match="rank 1|peer rank exited"):
            s.traverse(0).to_host()
    finally:
        s.release()
