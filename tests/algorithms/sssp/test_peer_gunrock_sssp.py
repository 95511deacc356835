"""peer.gunrock for SSSP with a stub binary that reads the weighted export and writes a
metrics JSON and the errors line like Gunrock's (CPU), and the real binary
($GPUBFS_PEERS/gunrock-sssp, else ../shared/peers/gunrock-sssp) on a GPU."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from gpubfs_cli.bench.config import load_config
from gpubfs_cli.cli import app
from gpubfs_cli.configs import experiments_dir
from tests.algorithms.sssp.test_peer_gapbs_sssp import run

cli = CliRunner()
# The peers' folder: $GPUBFS_PEERS where the binaries were carried, else ../shared/peers.
PEERS = Path(os.environ.get("GPUBFS_PEERS") or Path(__file__).resolve().parents[4] / "shared" / "peers")
PEER = PEERS / "gunrock-sssp" / "sssp"
LOAD_BALANCES = ["block_mapped", "thread_mapped", "merge_path"]

# Stands in for Gunrock's sssp: the raw flags run.sh passes, a weighted Matrix Market file
# (copied to $STUB_COPY for the test to read), times that tell the load balance apart.
STUB = """#!/usr/bin/env python3
import json, os, shutil, sys
a = sys.argv[1:]
assert "--validate" in a and "--export_metrics" in a
srcs = a[a.index("-s") + 1].split(",")
mtx = a[a.index("-m") + 1]
assert mtx.endswith(".mtx") and open(mtx).readline().split()[3] == "integer"
if os.environ.get("STUB_COPY"):
    shutil.copy(mtx, os.environ["STUB_COPY"])
lb = LOAD_BALANCES.index(a[a.index("--advance_load_balance") + 1])
out = a[a.index("-d") + 1] + "/" + a[a.index("-f") + 1]
json.dump({"srcs": [int(s) for s in srcs], "process_times": [0.5 + i + 100 * lb for i in range(len(srcs))]},
          open(out, "w"))
print("GPU Elapsed Time : 0.5 (ms)")
print("Number of errors : ERRORS")
""".replace("LOAD_BALANCES", repr(LOAD_BALANCES))


@pytest.fixture(autouse=True)
def no_env(monkeypatch):
    monkeypatch.delenv("GPUBFS_GUNROCK_SSSP", raising=False)
    monkeypatch.delenv("STUB_COPY", raising=False)


def stub(tmp_path: Path, errors: int = 0) -> Path:
    path = tmp_path / "peer" / "sssp"
    path.parent.mkdir(exist_ok=True)
    path.write_text(STUB.replace("ERRORS", str(errors)))
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def peer_samples(doc: dict) -> list[dict]:
    return [s for s in doc["samples"] if s["strategy"] == "peer.gunrock"]


def test_times_are_the_second_pass_and_only_the_last_source_is_checked(tmp_path, monkeypatch):
    doc = run(tmp_path, monkeypatch, {"GPUBFS_GUNROCK_SSSP": str(stub(tmp_path))}, ["cpu.dijkstra", "peer.gunrock"])
    samples = peer_samples(doc)
    dijkstra = [s for s in doc["samples"] if s["strategy"] == "cpu.dijkstra"]
    assert [s["source"] for s in samples] == [s["source"] for s in dijkstra]  # the run's sources, in order
    assert [s["time_ms"] for s in samples] == [3.5, 4.5, 5.5]  # runs 4..6 of 6: the warm pass
    assert all(s["problem"] == "sssp" and s["timed_by"] == "peer.gunrock" and s["status"] == "ok" for s in samples)
    assert [s["valid"] for s in samples] == [None, None, True]
    assert [s["counters"] for s in samples] == [{"peer_checked": 0}, {"peer_checked": 0},
                                                {"peer_checked": 1, "peer_errors": 0}]
    for s, d in zip(samples, dijkstra, strict=True):  # measured with the baseline's answer
        assert s["max_distance"] == d["max_distance"] and s["edges"] == d["edges"] > 0


def test_the_load_balance_reaches_the_binary(tmp_path, monkeypatch):
    doc = run(tmp_path, monkeypatch, {"GPUBFS_GUNROCK_SSSP": str(stub(tmp_path))},
              [{"name": "peer.gunrock", "knobs": {"load_balance": LOAD_BALANCES}}], sources=2)
    times = {}
    for s in peer_samples(doc):
        times.setdefault(s["knobs"]["load_balance"], []).append(s["time_ms"])
    assert times == {"block_mapped": [2.5, 3.5], "thread_mapped": [102.5, 103.5], "merge_path": [202.5, 203.5]}


def test_peer_errors_make_the_checked_sample_a_wrong_answer(tmp_path, monkeypatch):
    doc = run(tmp_path, monkeypatch, {"GPUBFS_GUNROCK_SSSP": str(stub(tmp_path, errors=7))}, ["peer.gunrock"])
    *others, last = peer_samples(doc)
    assert last["status"] == "wrong-answer" and last["valid"] is False
    assert last["reason"] == "peer.gunrock's own check found errors"
    assert last["counters"] == {"peer_checked": 1, "peer_errors": 7}
    assert all(s["status"] == "ok" and s["valid"] is None and s["counters"] == {"peer_checked": 0} for s in others)


def test_the_graph_it_gets_is_the_weighted_export(tmp_path, monkeypatch):
    from gpubfs_cli.algorithms.sssp.inputs import check_weights
    from gpubfs_cli.datasets.store import load_graph
    from gpubfs_cli.datasets.weights import ensure_weights
    from gpubfs_cli.graph import build_csr
    from gpubfs_cli.graph.io import read_graph

    copy = tmp_path / "seen.mtx"
    run(tmp_path, monkeypatch, {"GPUBFS_GUNROCK_SSSP": str(stub(tmp_path)), "STUB_COPY": str(copy)}, ["peer.gunrock"])
    g = ensure_weights(load_graph("smoke-gnm", tmp_path / "data"), tmp_path / "data")
    check_weights(g)
    assert copy.read_text().startswith("%%MatrixMarket matrix coordinate integer symmetric\n"
                                       "% gpubfs export of smoke-gnm for peer.gunrock\n")
    back = build_csr(read_graph(copy, "mtx"), keep_weights=True)
    np.testing.assert_array_equal(back.row_offsets, g.row_offsets)
    np.testing.assert_array_equal(back.col_indices, g.col_indices)
    np.testing.assert_array_equal(back.weights, g.weights)


def test_unavailable_without_a_binary_with_the_reason(tmp_path, monkeypatch):
    doc = run(tmp_path, monkeypatch, {}, ["cpu.dijkstra", "peer.gunrock"])
    (s,) = peer_samples(doc)
    assert s["status"] == "unavailable"
    assert s["reason"] == ("no Gunrock SSSP binary: set GPUBFS_GUNROCK_SSSP=PATH or peer.gunrock's knob binary "
                           "(docs/peers.md)")
    doc = run(tmp_path, monkeypatch, {"GPUBFS_GUNROCK_SSSP": str(tmp_path / "nope")}, ["cpu.dijkstra", "peer.gunrock"])
    (s,) = peer_samples(doc)
    assert s["status"] == "unavailable" and s["reason"] == f"Gunrock SSSP binary {tmp_path / 'nope'} is not an executable file"


def test_the_knob_names_the_binary_or_its_folder(tmp_path, monkeypatch):
    binary = stub(tmp_path)
    for given in (binary, binary.parent):  # run.sh's folder holds the sssp binary
        doc = run(tmp_path, monkeypatch, {}, [{"name": "peer.gunrock", "knobs": {"binary": str(given)}}], sources=2)
        assert [s["time_ms"] for s in peer_samples(doc)] == [2.5, 3.5], given


def test_a_bad_load_balance_is_one_error_line(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("problem: sssp\nstrategies: [{name: peer.gunrock, knobs: {load_balance: warp_mapped}}]\n")
    r = cli.invoke(app, ["run", str(cfg), "-d", "smoke-gnm", "--dir", str(tmp_path / "data"),
                         "--out", str(tmp_path / "r.json")])
    assert r.exit_code == 2, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "c.yaml" in lines[0], r.output
    assert ("load_balance: expected one of block_mapped, thread_mapped, merge_path, got 'warp_mapped'"
            in " ".join(r.output.split()))
    assert not (tmp_path / "r.json").exists()


def test_a_failing_binary_is_an_error_cell(tmp_path, monkeypatch):
    bad = tmp_path / "sssp"
    bad.write_text("#!/bin/sh\necho boom >&2\nexit 3\n")
    bad.chmod(0o755)
    doc = run(tmp_path, monkeypatch, {"GPUBFS_GUNROCK_SSSP": str(bad)}, ["peer.gunrock"])
    assert {s["status"] for s in peer_samples(doc)} == {"error"}
    assert "Gunrock SSSP exited with 3: boom" in peer_samples(doc)[0]["reason"]


def test_sssp_delta_runs_gunrock_in_its_three_load_balances():
    cfg = load_config(experiments_dir() / "sssp-delta.yaml")
    balances = [v.overrides["load_balance"] for v in cfg.variants if v.strategy == "peer.gunrock"]
    assert sorted(balances) == sorted(LOAD_BALANCES) and {v.problem for v in cfg.variants} == {"sssp"}


@pytest.mark.gpu
def test_real_gunrock_sssp_on_the_device(tmp_path, monkeypatch):
    if not os.access(PEER, os.X_OK):
        pytest.skip(f"Gunrock SSSP binary not found at {PEER}")
    doc = run(tmp_path, monkeypatch, {"GPUBFS_GUNROCK_SSSP": str(PEER)}, ["cpu.dijkstra", "peer.gunrock"], sources=5)
    samples = peer_samples(doc)
    assert len(samples) == 5 and all(s["status"] == "ok" and s["time_ms"] > 0 for s in samples)
    assert samples[-1]["valid"] is True and samples[-1]["counters"] == {"peer_checked": 1, "peer_errors": 0}
    json.dumps(doc)
