"""peer.gunrock with a stub binary that writes a metrics JSON like Gunrock's (CPU), and the
real binary ($GPUBFS_PEERS/gunrock, else ../shared/peers/gunrock) on a GPU."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from gpubfs_cli.algorithms.bfs.peer.gunrock_common import GunrockKnobs
from gpubfs_cli.bench.config import build_config
from gpubfs_cli.bench.runner import Runner
from gpubfs_cli.errors import UserError

# The peers' folder: $GPUBFS_PEERS where the binaries were carried, else ../shared/peers.
PEERS = Path(os.environ.get("GPUBFS_PEERS") or Path(__file__).resolve().parents[4] / "shared" / "peers")
PEER = PEERS / "gunrock" / "bfs"

STUB = """#!/usr/bin/env python3
import json, os, sys
a = sys.argv[1:]
srcs = a[a.index("-s") + 1].split(",")
if os.environ.get("STUB_LOG"):
    open(os.environ["STUB_LOG"], "a").write(",".join(srcs) + "\\n")
assert open(a[a.index("-m") + 1]).readline().startswith("%%MatrixMarket")
out = a[a.index("-d") + 1] + "/" + a[a.index("-f") + 1]
json.dump({"srcs": [int(s) for s in srcs], "process_times": [0.5 + i for i in range(len(srcs))]}, open(out, "w"))
print("Number of errors : ERRORS")
"""


def stub(tmp_path: Path, errors: int = 0) -> Path:
    path = tmp_path / "bfs"
    path.write_text(STUB.replace("ERRORS", str(errors)))
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def run(tmp_path: Path, env: dict, monkeypatch, strategies=("peer.gunrock",), sources: int = 3) -> dict:
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    cfg = build_config({"datasets": ["smoke-gnm"], "strategies": list(strategies), "sources": sources,
                        "data_dir": str(tmp_path / "data"), "warmup": 1})
    return Runner(cfg, environment={}, out_path=tmp_path / "r.json").run().doc


def test_stub_times_are_the_peers_second_pass(tmp_path, monkeypatch):
    doc = run(tmp_path, {"GPUBFS_GUNROCK_BFS": str(stub(tmp_path))}, monkeypatch)
    samples = [s for s in doc["samples"] if s["strategy"] == "peer.gunrock"]
    assert [s["time_ms"] for s in samples] == [3.5, 4.5, 5.5]  # runs 4..6 of 6
    assert all(s["timed_by"] == "peer.gunrock" and s["status"] == "ok" for s in samples)
    assert [s["valid"] for s in samples] == [None, None, True]  # the peer checks its last source only
    assert [s["counters"] for s in samples] == [{"peer_checked": 0}, {"peer_checked": 0},
                                                {"peer_checked": 1, "peer_errors": 0}]
    assert all(s["edges"] > 0 for s in samples)  # the baseline's answer gives the rate's edges


def test_peer_errors_make_a_wrong_answer(tmp_path, monkeypatch):
    doc = run(tmp_path, {"GPUBFS_GUNROCK_BFS": str(stub(tmp_path, errors=7))}, monkeypatch)
    last = [s for s in doc["samples"] if s["strategy"] == "peer.gunrock"][-1]
    assert last["status"] == "wrong-answer" and "own check" in last["reason"]
    assert last["counters"] == {"peer_checked": 1, "peer_errors": 7}


def test_check_all_has_gunrock_check_every_source_untimed(tmp_path, monkeypatch):
    """check_all: after the timed run of all sources twice, each source but the last runs
    alone once (its own last source, so Gunrock checks it); the times stay the timed run's
    and every sample is checked."""
    log = tmp_path / "calls.txt"
    monkeypatch.setenv("STUB_LOG", str(log))
    doc = run(tmp_path, {"GPUBFS_GUNROCK_BFS": str(stub(tmp_path))}, monkeypatch,
              strategies=({"name": "peer.gunrock", "knobs": {"check_all": True}},))
    samples = [s for s in doc["samples"] if s["strategy"] == "peer.gunrock"]
    assert [s["time_ms"] for s in samples] == [3.5, 4.5, 5.5]
    assert [s["valid"] for s in samples] == [True, True, True]
    assert [s["counters"] for s in samples] == [{"peer_checked": 1, "peer_errors": 0}] * 3
    calls = [line.split(",") for line in log.read_text().split()]
    sources = doc["sources"]["smoke-gnm"]
    assert calls == [[str(s) for s in sources * 2], [str(sources[0])], [str(sources[1])]]


def test_check_all_is_a_flag(tmp_path, monkeypatch):
    with pytest.raises(UserError, match=r"strategies\[0\]\.knobs\.check_all: peer\.gunrock: expected bool"):
        run(tmp_path, {"GPUBFS_GUNROCK_BFS": str(stub(tmp_path))}, monkeypatch,
            strategies=({"name": "peer.gunrock", "knobs": {"check_all": "yes"}},))
    with pytest.raises(ValueError, match="check_all must be true or false, not 1"):
        GunrockKnobs(check_all=1)


def test_the_knob_names_the_binary_or_its_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("GPUBFS_GUNROCK_BFS", raising=False)
    binary = stub(tmp_path)
    for given in (binary, tmp_path):  # the folder holding bfs, as run.sh's is
        doc = run(tmp_path, {}, monkeypatch, strategies=({"name": "peer.gunrock", "knobs": {"binary": str(given)}},))
        assert [s["time_ms"] for s in doc["samples"]] == [3.5, 4.5, 5.5], given


def test_unavailable_with_the_reason(tmp_path, monkeypatch):
    monkeypatch.delenv("GPUBFS_GUNROCK_BFS", raising=False)
    doc = run(tmp_path, {}, monkeypatch, strategies=("cpu.sequential", "peer.gunrock"))
    (s,) = [s for s in doc["samples"] if s["strategy"] == "peer.gunrock"]
    assert s["status"] == "unavailable"
    assert s["reason"] == ("no Gunrock BFS binary: set GPUBFS_GUNROCK_BFS=PATH or peer.gunrock's knob binary "
                           "(docs/peers.md)")
    doc = run(tmp_path, {"GPUBFS_GUNROCK_BFS": str(tmp_path / "nope")}, monkeypatch,
              strategies=("cpu.sequential", "peer.gunrock"))
    (s,) = [s for s in doc["samples"] if s["strategy"] == "peer.gunrock"]
    assert s["status"] == "unavailable" and "not an executable file" in s["reason"]


def test_a_failing_binary_is_an_error_cell(tmp_path, monkeypatch):
    bad = tmp_path / "bfs"
    bad.write_text("#!/bin/sh\necho boom >&2\nexit 3\n")
    bad.chmod(0o755)
    doc = run(tmp_path, {"GPUBFS_GUNROCK_BFS": str(bad)}, monkeypatch)
    assert {s["status"] for s in doc["samples"]} == {"error"}
    assert "exited with 3: boom" in doc["samples"][0]["reason"]


@pytest.mark.gpu
def test_real_gunrock_on_the_device(tmp_path, monkeypatch):
    if not os.access(PEER, os.X_OK):
        pytest.skip(f"Gunrock binary not found at {PEER}")
    doc = run(tmp_path, {"GPUBFS_GUNROCK_BFS": str(PEER)}, monkeypatch, sources=5)
    samples = [s for s in doc["samples"] if s["strategy"] == "peer.gunrock"]
    assert len(samples) == 5 and all(s["status"] == "ok" and s["time_ms"] > 0 for s in samples)
    assert samples[-1]["valid"] is True
    json.dumps(doc)
