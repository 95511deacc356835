"""peer.blest with a fake run.sh that writes BLEST's JSON from scipy's BFS (CPU), and the
real run.sh ($GPUBFS_PEERS/blest, else ../shared/peers/blest) on a GPU."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from gpubfs_cli.bench.config import build_config
from gpubfs_cli.bench.runner import Runner
from gpubfs_cli.cli import app
from gpubfs_cli.errors import UserError

PEERS = Path(os.environ.get("GPUBFS_PEERS") or Path(__file__).resolve().parents[4] / "shared" / "peers")
PEER = PEERS / "blest" / "run.sh"

# run.sh's interface: MTX SRCS OUT [JACCARD] [WINDOW], $BLEST_CACHE_DIR, $REPEAT. The load
# and reordering (a sleep) happen only without a cache; the last source's counts are off
# by LEVELS_OFF / VISITED_OFF; EXIT stands for BLEST's exit status.
FAKE = """#!PYTHON
import json, os, sys, time
import numpy as np
import scipy.io
from scipy.sparse.csgraph import shortest_path
mtx, srcs, out, j, w = sys.argv[1:]
assert j in ("0", "1") and w.isdigit()
if EXIT:
    json.dump({"ok": False, "error": "GPUassert: CUDA driver version is insufficient"}, open(out, "w"))
    sys.exit(EXIT)
cache = os.environ["BLEST_CACHE_DIR"]
reorder = None
if not os.path.exists(os.path.join(cache, "stamp")):
    os.makedirs(cache, exist_ok=True)
    open(os.path.join(cache, "stamp"), "w").close()
    time.sleep(REORDER_S)
    reorder = REORDER_S
    with open(LOG, "a") as f:
        f.write(j + " " + w + "\\n")
a = scipy.io.mmread(mtx).tocsr()
want = [int(s) for s in srcs.split(",")]
runs = want * int(os.environ["REPEAT"])
levels, visited = [], []
for s in runs:
    d = shortest_path(a, unweighted=True, indices=s)
    off = s == want[-1]
    levels.append(int(d[np.isfinite(d)].max()) + 1 + LEVELS_OFF * off)
    visited.append(int(np.isfinite(d).sum()) + VISITED_OFF * off)
json.dump({"ok": True, "reorder_s": reorder, "bvss_build_s": 0.004, "srcs": runs,
           "process_times": [0.5 + i for i in range(len(runs))], "levels": levels, "visited": visited},
          open(out, "w"))
"""


def fake(tmp_path: Path, levels_off: int = 0, visited_off: int = 0, exit: int = 0, reorder_s: float = 0.0) -> Path:
    path = tmp_path / "blest" / "run.sh"
    path.parent.mkdir(exist_ok=True)
    text = (FAKE.replace("PYTHON", sys.executable).replace("LEVELS_OFF", str(levels_off))
            .replace("VISITED_OFF", str(visited_off)).replace("EXIT", str(exit))
            .replace("REORDER_S", str(reorder_s)).replace("LOG", repr(str(tmp_path / "reorders"))))
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def run(tmp_path: Path, env: dict, monkeypatch, strategies=("peer.blest",), sources: int = 3) -> dict:
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    cfg = build_config({"datasets": ["smoke-gnm"], "strategies": list(strategies), "sources": sources,
                        "data_dir": str(tmp_path / "data"), "warmup": 1})
    return Runner(cfg, environment={}, out_path=tmp_path / "r.json").run().doc


def blest(doc: dict) -> list[dict]:
    return [s for s in doc["samples"] if s["strategy"] == "peer.blest"]


def test_fake_times_are_the_warm_pass_and_the_counts_agree(tmp_path, monkeypatch):
    doc = run(tmp_path, {"GPUBFS_BLEST": str(fake(tmp_path))}, monkeypatch)
    samples = blest(doc)
    assert [s["time_ms"] for s in samples] == [3.5, 4.5, 5.5]  # runs 4..6 of 6
    for s in samples:
        assert s["timed_by"] == "peer.blest" and s["status"] == "ok" and s["valid"] is True
        assert s["counters"]["levels"] == s["depth"] + 1 and s["counters"]["visited"] == s["reached"]
        assert s["edges"] > 0  # the baseline's answer gives the rate's edges
    assert "peer.blest" in doc["equivalent_teps"]


def test_the_folder_stands_for_its_run_sh_and_the_knobs_reach_it(tmp_path, monkeypatch):
    folder = fake(tmp_path).parent
    doc = run(tmp_path, {"GPUBFS_BLEST": str(folder)}, monkeypatch,
              strategies=({"name": "peer.blest", "knobs": {"jaccard": True, "window": 1024}},))
    assert {s["status"] for s in blest(doc)} == {"ok"}
    assert (tmp_path / "reorders").read_text() == "1 1024\n"


@pytest.mark.parametrize("off", [{"levels_off": 1}, {"visited_off": -1}])
def test_counts_that_disagree_make_a_wrong_answer(tmp_path, monkeypatch, off):
    doc = run(tmp_path, {"GPUBFS_BLEST": str(fake(tmp_path, **off))}, monkeypatch)
    samples = blest(doc)
    assert [s["status"] for s in samples] == ["ok", "ok", "wrong-answer"]  # only the last source is off
    assert [s["valid"] for s in samples] == [True, True, False]
    assert "peer.blest" in samples[-1]["reason"]


def test_a_wrong_answer_fails_gpubfs_run(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUBFS_BLEST", str(fake(tmp_path, visited_off=1)))
    result = CliRunner().invoke(app, ["run", "-d", "smoke-gnm", "-s", "peer.blest", "--sources", "2",
                                      "--dir", str(tmp_path / "data"), "--out", str(tmp_path / "r.json")])
    assert result.exit_code == 1, result.output
    doc = json.loads((tmp_path / "r.json").read_text())
    assert {s["status"] for s in blest(doc)} == {"ok", "wrong-answer"}


def test_the_reordering_is_prepare_time_not_sample_time(tmp_path, monkeypatch):
    doc = run(tmp_path, {"GPUBFS_BLEST": str(fake(tmp_path, reorder_s=0.3))}, monkeypatch)
    (prep,) = [p for p in doc["prepares"] if p["strategy"] == "peer.blest"]
    assert prep["status"] == "ok" and prep["time_ms"] >= 300
    samples = blest(doc)
    assert [s["time_ms"] for s in samples] == [3.5, 4.5, 5.5]
    assert all(s["counters"]["reorder_ms"] == pytest.approx(300) for s in samples)
    assert all(s["counters"]["bvss_build_ms"] == pytest.approx(4) for s in samples)
    assert (tmp_path / "reorders").read_text() == "0 65536\n"  # once, in prepare; the batch found the cache


def test_unavailable_with_the_reason(tmp_path, monkeypatch):
    monkeypatch.delenv("GPUBFS_BLEST", raising=False)  # and no knob: nothing else is looked at
    doc = run(tmp_path, {}, monkeypatch, strategies=("cpu.sequential", "peer.blest"))
    (s,) = blest(doc)
    assert s["status"] == "unavailable"
    assert s["reason"] == "no BLEST run.sh: set GPUBFS_BLEST=PATH or peer.blest's knob binary (docs/peers.md)"
    for where in (tmp_path / "nope", tmp_path):  # a missing file; a folder without run.sh
        doc = run(tmp_path, {"GPUBFS_BLEST": str(where)}, monkeypatch, strategies=("cpu.sequential", "peer.blest"))
        (s,) = blest(doc)
        assert s["status"] == "unavailable" and "not an executable file" in s["reason"]


def test_no_usable_gpu_is_unavailable(tmp_path, monkeypatch):
    doc = run(tmp_path, {"GPUBFS_BLEST": str(fake(tmp_path, exit=35))}, monkeypatch)
    (s,) = blest(doc)
    assert s["status"] == "unavailable" and "no usable GPU" in s["reason"] and "driver version" in s["reason"]


def test_a_failing_run_sh_is_an_error_cell(tmp_path, monkeypatch):
    bad = tmp_path / "run.sh"
    bad.write_text("#!/bin/sh\necho boom >&2\nexit 3\n")
    bad.chmod(0o755)
    doc = run(tmp_path, {"GPUBFS_BLEST": str(bad)}, monkeypatch)
    assert {s["status"] for s in doc["samples"]} == {"error"}
    assert "exited with 3: boom" in doc["samples"][0]["reason"]


@pytest.mark.parametrize("knobs, why", [
    ({"window": 0}, "window: peer.blest: expected a positive whole number, got 0"),
    ({"window": "big"}, "window: peer.blest: expected int"),  # the config's type check
    ({"jaccard": 1}, "jaccard: peer.blest: expected bool"),
    ({"reorder": True}, "reorder"),
])
def test_bad_knobs_are_one_clear_error(tmp_path, knobs, why):
    with pytest.raises(UserError, match=why) as caught:
        build_config({"datasets": ["smoke-gnm"], "strategies": [{"name": "peer.blest", "knobs": knobs}],
                      "data_dir": str(tmp_path / "data")})
    assert "peer.blest" in str(caught.value) and "\n" not in str(caught.value)


def test_knobs_made_directly_are_checked_too():
    from gpubfs_cli.algorithms.bfs.peer.blest import BlestKnobs

    for bad in ({"jaccard": 1}, {"window": True}, {"window": -5}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            BlestKnobs(**bad)


@pytest.mark.gpu
def test_real_blest_passes_the_cross_check(tmp_path, monkeypatch):
    from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs
    from gpubfs_cli.algorithms.bfs.peer.blest import BlestBfs, BlestKnobs
    from gpubfs_cli.graph import samples as graphs

    if not os.access(PEER, os.X_OK):
        pytest.skip(f"BLEST's run.sh not found at {PEER}")
    monkeypatch.setenv("GPUBFS_BLEST", str(PEER))
    g = graphs.rmat(14, 16, 1, permute=True, name="g500-s14")  # Graph500's shape at scale 14
    sources = graphs.pick_sources(g, 6)
    for jaccard in (False, True):
        peer = BlestBfs(BlestKnobs(jaccard=jaccard))
        try:
            peer.prepare(g)
            peer.plan_sources(sources)
            for s in sources:
                a = peer.traverse(s)
                dist = np.asarray(sequential_bfs(g, s).distances)
                assert a.time_ms > 0 and a.peer_valid is not False, (jaccard, s, a.counters)  # passes agree
                assert a.peer_counts == (a.counters["levels"], a.counters["visited"]) == (dist.max() + 1, (dist >= 0).sum())
        finally:
            peer.release()
