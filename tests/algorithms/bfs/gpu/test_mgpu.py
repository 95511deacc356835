"""mgpu.bfs on real GPUs: p ranks in lockstep on one GPU (the kernels under real
concurrency, no NCCL), the strategy with 1 rank always and 2 ranks where the machine has
2 GPUs (peer to peer with the level loop on the device or on the host, NCCL; CUDA graphs
or direct launches), exact distances and a valid BFS tree; and its failures: a dead
rank, a rank out of memory, Ctrl-C, too few GPUs. The undirected graphs run as one
disjoint union (one set of ranks for all of them: starting ranks is most of the cost)."""

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
    # rmat14: hubs of thousands of edges, many tasks a vertex
    parts = [eb.graph(n) for n in UNDIRECTED] + [samples.rmat(14, 16, 3, permute=True)]
    return {
        "nasty-union": samples.disjoint(*parts, isolated=5, name="nasty-union"),
        "directed": eb.graph("directed"),
    }


def _gpus(need: int) -> None:
    why = backend.gpus_unavailable_reason(need)
    if why is not None:
        pytest.skip(why)


def sources(g) -> list[int]:
    return samples.pick_sources(g, k=8)


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
            held = s.device_bytes()  # each rank's own part, in rank order
            assert len(held) == knobs["gpus"] and min(held) > 0 and sum(held) == s.prepared_bytes()
            for source in sources(g):
                for preds in (False, True):
                    ms, a = timed_traverse(s, source, preds)
                    _check_answer(g, source, a.distances, a.parents if preds else None, (gname, knobs, source))
                    assert ms > 0 and len(a.counters["rank_ms"]) == knobs["gpus"]
                    assert a.counters["levels"] == sequential_bfs(g, source).counters["levels"]
                    if "exchange" in knobs:
                        assert a.counters["exchange"] == knobs["exchange"]
                        assert a.counters["launch"] == ("graph" if knobs.get("graph", True) else "direct")
                    p2p = knobs.get("exchange", "p2p") == "p2p"  # auto is peer to peer on one host
                    assert a.counters["loop"] == knobs.get("loop", "device" if p2p else "host")
        finally:
            s.release()


@pytest.mark.gpu
@pytest.mark.parametrize("knobs", [{"graph": True}, {"graph": False, "loop": "host"}, {"ahead": 6, "loop": "host"}],
                         ids=["device_loop", "host_loop_direct", "host_loop_ahead6"])
def test_one_rank(knobs):
    _gpus(1)
    _strategy_check({"gpus": 1, "timeout_s": 60.0, **knobs})


@pytest.mark.gpu
@pytest.mark.parametrize("knobs", [{"exchange": "p2p"}, {"exchange": "p2p", "loop": "host"},
                                   {"exchange": "nccl", "graph": False}], ids=["p2p", "p2p_host_loop", "nccl"])
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


@pytest.mark.gpu
def test_an_out_of_memory_rank_is_one_line_naming_it(monkeypatch):
    # Spawned ranks read CUPY_GPU_MEMORY_LIMIT when their CuPy starts; rank 0 (this
    # process) started its own before, so only rank 1 runs out while loading its rows.
    _gpus(2)
    monkeypatch.setenv("CUPY_GPU_MEMORY_LIMIT", "4096")
    cls = all_strategies("bfs")["mgpu.bfs"]
    s = cls(make_knobs(cls, {"gpus": 2, "timeout_s": 30.0}))
    try:
        with pytest.raises(RuntimeError) as caught:
            s.prepare(graphs()["nasty-union"])
        procs = list(s.group.procs) if s.group is not None else []
    finally:
        s.release()
    line = str(caught.value)
    assert line.startswith("rank 1: OutOfMemoryError") and "\n" not in line, line
    assert not any(p.is_alive() for p in procs)


@pytest.mark.gpu
def test_ctrl_c_stops_a_two_gpu_run_and_leaves_no_rank_behind(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    _gpus(2)
    cmd = [sys.executable, "-m", "gpubfs_cli", "run", "-d", "smoke-rmat", "-s", "mgpu.bfs", "--gpus", "2",
           "--sources", "100000", "--dir", str(tmp_path / "data")]
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    children: set[int] = set()
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            journals = list((tmp_path / "results").glob("*.journal.jsonl")) if (tmp_path / "results").exists() else []
            if journals and b'"kind":"measured"' in journals[0].read_bytes():
                break
            time.sleep(0.05)
        listed = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout
        children = {int(pid) for pid in listed.split()}
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = proc.stderr.read().decode()
    assert proc.returncode == 130, err
    assert "Traceback" not in err, err

    def alive(pid: int) -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True

    deadline = time.monotonic() + 15  # a rank told to stop gets 10 s before it is killed
    while time.monotonic() < deadline and any(alive(pid) for pid in children):
        time.sleep(0.2)
    assert children and not [pid for pid in children if alive(pid)], children
