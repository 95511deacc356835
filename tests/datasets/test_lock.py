"""Two fetches of one name: the second waits on the name's lock file, says so, and then
finds the graph the first one cached (it builds nothing). The lock file goes with its
holder."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

from gpubfs_cli.datasets import prepare, store
from gpubfs_cli.datasets.lock import build_lock, lock_path
from gpubfs_cli.graph.csr import CSRGraph

ROOT = Path(__file__).resolve().parents[2]


def _graph(m: int) -> CSRGraph:
    cols = np.zeros(m, np.int32)
    return CSRGraph(np.array([0, m, m], np.int64), cols + 1, directed=True)


def test_the_second_holder_waits_and_says_so(tmp_path):
    d = tmp_path / "cache"
    order, heard = [], []
    inside = threading.Event()

    def first():
        with build_lock("g", d):
            inside.set()
            time.sleep(0.3)
            order.append("first done")

    t = threading.Thread(target=first)
    t.start()
    inside.wait(5)
    with build_lock("g", d, heard.append):
        order.append("second in")
    t.join()
    assert order == ["first done", "second in"]
    assert len(heard) == 1 and heard[0].startswith("waiting for another gpubfs process that is building it (lock ")
    assert not lock_path("g", d).exists() and sorted(p.name for p in d.iterdir()) == []


def test_force_after_waiting_takes_the_copy_just_built(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    store.write_graph("smoke-grid", _graph(2), {"kind": "generated"}, d)
    inside, built = threading.Event(), threading.Event()

    def other_process():
        with build_lock("smoke-grid", d):
            inside.set()
            time.sleep(0.3)
            store.write_graph("smoke-grid", _graph(5), {"kind": "generated"}, d)
            built.set()

    def never(*args, **kwargs):
        raise AssertionError("built again although a fresh copy was just cached")

    monkeypatch.setattr(prepare, "build_dataset", never)
    t = threading.Thread(target=other_process)
    t.start()
    inside.wait(5)
    g = prepare.ensure_dataset("smoke-grid", d, force=True, progress=False)
    t.join()
    assert built.is_set() and g.m == 5


def _fetch(d: Path, out: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "gpubfs_cli", "fetch-dataset", "smoke-grid", "--dir", str(d)],
        cwd=ROOT, stdout=open(out.with_suffix(".out"), "w"), stderr=open(out.with_suffix(".err"), "w"),
        env={**os.environ, "CUDA_VISIBLE_DEVICES": ""},
    )


def test_two_concurrent_fetches_build_once_and_both_succeed(tmp_path):
    d = tmp_path / "cache"
    logs = [tmp_path / "a", tmp_path / "b"]
    with build_lock("smoke-grid", d):  # both start while the name is locked: they must wait
        procs = [_fetch(d, log) for log in logs]
        deadline = time.monotonic() + 60
        while not all("waiting for another" in log.with_suffix(".err").read_text() for log in logs):
            assert time.monotonic() < deadline and all(p.poll() is None for p in procs)
            time.sleep(0.1)
    for p in procs:
        assert p.wait(60) == 0
    err = [log.with_suffix(".err").read_text() for log in logs]
    out = [log.with_suffix(".out").read_text() for log in logs]
    assert sum("generating lattice" in e for e in err) == 1, err  # one built, the other found it cached
    assert all(o == "smoke-grid: n = 13,824, m = 79,488 (undirected)\n" for o in out), out
    assert sorted(p.name for p in d.iterdir()) == ["smoke-grid"]  # no lock file, no temporary folder
    assert store.load_graph("smoke-grid", d).n == 13_824
