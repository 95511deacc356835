"""mgpu.bfs on real GPUs: p ranks in lockstep on one GPU (the kernels under real
concurrency, no NCCL), the strategy with 1 rank always and 2 ranks where the machine has
2 GPUs (NCCL, CUDA graphs or direct launches), exact distances and a valid BFS tree;
and its failures: a dead rank, too few GPUs. The nasty graphs run as one disjoint
union (one set of ranks for all of them: starting ranks is most of the cost)."""

from __future__ import annotations

import functools
from dataclasses import asdict

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs
from gpubfs_cli.algorithms.bfs.gpu.mgpu import lockstep, rank
from gpubfs_cli.algorithms.bfs.gpu.mgpu import partition as pt
from gpubfs_cli.algorithms.bfs.gpu.mgpu.strategies import MgpuKnobs, make_plan
from gpubfs_cli.algorithms.bfs.validate import parent_failures
from gpubfs_cli.bench.timing import timed_traverse
from gpubfs_cli.core.strategy import StrategyUnavailable, all_strategies, make_knobs
from gpubfs_cli.gpu import backend
from gpubfs_cli.graph import samples
from tests.algorithms.bfs.gpu import emulated_bfs as eb

UNDIRECTED = ["path60", "grid9x13", "star300", "broom", "disconnected", "loops_dups", "rmat"]


@functools.cache
def graphs() -> dict:
    return {
        "nasty-union": samples.disjoint(*[eb.graph(n) for n in UNDIRECTED], isolated=5, name="nasty-union"),
        "directed": eb.graph("directed"),
        "rmat14": samples.rmat(14, 16, 3, permute=True),  # hubs of thousands of edges: many tasks a vertex
    }


def _gpus(need: int) -> None:
    why = backend.gpus_unavailable_reason(need)
    if why is not None:
        pytest.skip(why)


def sources(g) -> list[int]:
    return samples.pick_sources(g, k=6)


def _check_answer(g, source, dist, parents, label) -> None:
    ref = sequential_bfs(g, source)
    assert np.array_equal(dist, ref.distances), label
    if parents is not None:
        assert parent_failures(g, source, dist, parents) == [], label


@pytest.mark.gpu
@pytest.mark.parametrize("ranks", [2, 3])
def test_lockstep_ranks_on_one_gpu(ranks):
    _gpus(1)
    for gname, g in graphs().items():
        for knobs in ({}, {"alpha": 1000.0, "beta": 0.0, "growth": False}, {"exchange": "p2p"},
                      {"exchange": "p2p", "alpha": 1000.0, "beta": 0.0, "growth": False}):
            plan = asdict(make_plan(g, MgpuKnobs(gpus=ranks, **knobs)))
            files = pt.graph_files(g)
            group = [rank.MgpuRank(r, 0, None, files.folder, plan) for r in range(ranks)]
            try:
                for s in sources(g):
                    for preds in (False, True):
                        dist, parents, counters = lockstep.traverse(group, s, preds)
                        _check_answer(g, s, dist, parents if preds else None, (gname, ranks, knobs, s, preds))
            finally:
                for r in group:
                    r.release()
                files.drop()


def _strategy_check(knobs: dict) -> None:
    cls = all_strategies("bfs")["mgpu.bfs"]
    for gname, g in graphs().items():
        s = cls(make_knobs(cls, knobs))
        s.prepare(g)
        try:
            for source in sources(g):
                for preds in (False, True):
                    ms, a = timed_traverse(s, source, preds)
                    _check_answer(g, source, a.distances, a.parents if preds else None, (gname, knobs, source))
                    assert ms > 0 and len(a.counters["rank_ms"]) == knobs["gpus"]
                    assert a.counters["levels"] == sequential_bfs(g, source).counters["levels"]
                    if "exchange" in knobs:
                        assert a.counters["exchange"] == knobs["exchange"]
                        assert a.counters["launch"] == ("graph" if knobs.get("graph", True) else "direct")
        finally:
            s.release()


@pytest.mark.gpu
@pytest.mark.parametrize("knobs", [{"graph": True}, {"graph": False}, {"ahead": 6}], ids=["graph", "direct", "ahead6"])
def test_one_rank(knobs):
    _gpus(1)
    _strategy_check({"gpus": 1, "timeout_s": 60.0, **knobs})


@pytest.mark.gpu
@pytest.mark.parametrize("knobs", [{"exchange": "p2p"}, {"exchange": "nccl", "graph": False}], ids=["p2p", "nccl"])
def test_two_ranks(knobs):
    _gpus(2)
    _strategy_check({"gpus": 2, "timeout_s": 30.0, **knobs})


MULTI = ["mgpu.bfs", "merrill.multi_gpu", "merrill.multi_gpu_do"]


@pytest.mark.gpu
@pytest.mark.parametrize("name", MULTI)
def test_more_gpus_than_the_machine_has_is_unavailable(name):
    _gpus(1)
    cls = all_strategies("bfs")[name]
    s = cls(make_knobs(cls, {"gpus": backend.device_count() + 1}))
    with pytest.raises(StrategyUnavailable, match="needs .* GPUs, this machine has"):
        s.prepare(eb.graph("rmat"))
    s.release()


@pytest.mark.gpu
@pytest.mark.parametrize("name", MULTI[:2])
def test_a_dead_rank_is_one_error_not_a_hang(name):
    _gpus(2)
    cls = all_strategies("bfs")[name]
    s = cls(make_knobs(cls, {"gpus": 2, "timeout_s": 30.0}))
    s.prepare(eb.graph("rmat"))
    procs = list(s.group.procs)
    try:
        procs[0].kill()
        procs[0].join()
        with pytest.raises(RuntimeError, match="rank 1: exited|peer rank exited"):
            s.traverse(0).to_host()
    finally:
        s.release()
    assert not any(p.is_alive() for p in procs)
