"""Ctrl-C during a long generation or build: the generators call numba a chunk at a time,
and the long numpy sorts wait in a worker thread, so KeyboardInterrupt lands within a
fraction of a second and a fetch leaves nothing in the cache."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from gpubfs_cli.graph import interruptible
from gpubfs_cli.graph.generators import forest_fire as ff_mod
from gpubfs_cli.graph.generators import generate, rng
from gpubfs_cli.graph.generators import kronecker as kron_mod
from gpubfs_cli.graph.generators import rmat as rmat_mod

ROOT = Path(__file__).resolve().parents[2]


def test_call_hands_back_the_value_and_the_exception():
    assert interruptible.call(lambda: 41 + 1) == 42
    with pytest.raises(ZeroDivisionError):
        interruptible.call(lambda: 1 / 0)
    keys = np.arange(interruptible.MIN_ITEMS, dtype=np.int64)[::-1].copy()
    interruptible.sort(keys)
    assert keys[0] == 0 and bool(np.all(keys[1:] > keys[:-1]))


def test_a_signal_lands_while_a_long_call_runs():
    def stop(signum, frame):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGALRM, stop)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.2)
        t0 = time.perf_counter()
        with pytest.raises(KeyboardInterrupt):
            interruptible.call(lambda: time.sleep(5))  # a call that holds no GIL, as numpy's sort
        assert time.perf_counter() - t0 < 1.5
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _spy(monkeypatch, module, name, count_arg):
    calls = []
    real = getattr(module, name)

    def spy(*args):
        calls.append(args[count_arg])
        return real(*args)

    monkeypatch.setattr(module, name, spy)
    return calls


def test_rmat_cpu_path_calls_numba_a_chunk_at_a_time(monkeypatch):
    params = {"n": 1024, "m": 10_000}
    whole = generate("rmat", params, 3)
    monkeypatch.setattr(rmat_mod, "CPU_CHUNK", 999)
    calls = _spy(monkeypatch, rmat_mod, "_rmat_numba", 3)
    chunked = generate("rmat", params, 3)
    assert len(calls) == 11 and max(calls) == 999 and sum(calls) == 10_000
    assert np.array_equal(whole.src, chunked.src) and np.array_equal(whole.dst, chunked.dst)


def test_kronecker_cpu_path_calls_numba_a_chunk_at_a_time(monkeypatch):
    params = {"scale": 10, "edgefactor": 8}
    whole = generate("kronecker", params, 3)
    monkeypatch.setattr(kron_mod, "CHUNK", 1000)
    calls = _spy(monkeypatch, kron_mod, "_kron_numba", 3)
    chunked = generate("kronecker", params, 3)
    assert len(calls) == 9 and max(calls) == 1000 and sum(calls) == 8192
    assert np.array_equal(whole.src, chunked.src) and np.array_equal(whole.dst, chunked.dst)


def test_forest_fire_resumes_between_calls(monkeypatch):
    whole = generate("forest_fire", {"n": 3000}, 4)
    monkeypatch.setattr(ff_mod, "CHUNK", 7)  # many calls, the arrays growing across them
    calls = _spy(monkeypatch, ff_mod, "_burn", 3)
    chunked = generate("forest_fire", {"n": 3000}, 4)
    assert len(calls) == -(-2999 // 7)
    assert np.array_equal(whole.src, chunked.src) and np.array_equal(whole.dst, chunked.dst)


def test_the_permutation_sorts_through_the_worker(monkeypatch):
    monkeypatch.setattr(interruptible, "MIN_ITEMS", 10)
    used = []
    real = interruptible.call
    monkeypatch.setattr(interruptible, "call", lambda fn: used.append(1) or real(fn))
    perm = rng.permutation(rng.stream_key(1, 4), 1000, np)
    assert used and np.array_equal(np.sort(perm), np.arange(1000))


@pytest.mark.slow
def test_ctrl_c_while_generating_a_large_graph_stops_at_once(tmp_path):
    """rmat.2Mv.128Me takes a minute and more to generate on 2 cores."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "gpubfs_cli", "fetch-dataset", "rmat.2Mv.128Me", "--dir", str(tmp_path)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "CUDA_VISIBLE_DEVICES": ""},
    )
    try:
        for line in proc.stderr:
            if "generating" in line:
                break
        time.sleep(2.0)
        t0 = time.perf_counter()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        waited = time.perf_counter() - t0
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert waited < 5.0  # a numba call of 2^20 records, then the exit
    assert err.strip().splitlines()[-1].startswith("interrupted"), err
    assert sorted(p.name for p in tmp_path.iterdir()) == []
