"""merrill.multi_gpu on real GPUs: 1 rank always (a one-rank NCCL communicator), 2 ranks
where the machine has 2 GPUs; exact distances and a valid BFS tree on the nasty graphs,
run as one disjoint union plus the directed one (starting ranks is most of the cost).
Too few GPUs and a dead rank: test_mgpu.py, for every multi-GPU strategy."""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs
from gpubfs_cli.algorithms.bfs.validate import parent_failures
from gpubfs_cli.bench.timing import timed_traverse
from gpubfs_cli.core.strategy import all_strategies, make_knobs
from gpubfs_cli.gpu import backend
from gpubfs_cli.graph import samples
from tests.algorithms.bfs.gpu import test_mgpu as tm

# Every round reads a count back to the host: make test-gpu runs these apart (Makefile).
pytestmark = pytest.mark.host_paced

NAMES = ["merrill.multi_gpu", "merrill.multi_gpu_do"]


def _gpus(need: int) -> None:
    why = backend.gpus_unavailable_reason(need)
    if why is not None:
        pytest.skip(why)


def _check(name: str, knobs: dict, k: int = 8, modes: tuple = (False, True)) -> None:
    cls = all_strategies("bfs")[name]
    for gname in ("nasty-union", "directed"):
        g = tm.graphs()[gname]
        s = cls(make_knobs(cls, knobs))
        s.prepare(g)
        try:
            for source in samples.pick_sources(g, k=k):
                for preds in modes:
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
           else {"gpus": 1, "partition": partition})


@pytest.mark.gpu
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("partition", ["stripe", "degree"])
def test_two_ranks(name, partition):
    # Its host-paced rounds cross two processes (48 traversals took 27 s on 2 x H200): the
    # four kinds of source (first, last, hub, isolated) and one random one, with parents
    # (their distances checked too), so the 2-GPU tests stay under two minutes
    _gpus(2)
    _check(name, {"gpus": 2, "partition": partition}, k=1, modes=(True,))
