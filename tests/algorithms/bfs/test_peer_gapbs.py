"""peer.gapbs: its output parser on captured output, stub binaries for the failure paths
(CPU), and the real static binary from $GPUBFS_PEERS/gapbs, else ../shared/peers/gapbs,
where it is (skipped visibly elsewhere: it is not part of the repository), named to
gpubfs by GPUBFS_GAPBS_BFS as a user would."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from gpubfs_cli.algorithms.bfs.peer.gapbs_common import host_binary, parse_output
from gpubfs_cli.bench.config import build_config
from gpubfs_cli.bench.runner import Runner

# `OMP_NUM_THREADS=1 bfs -f g.sg -r 3 -n 2 -v` on a directed 300-vertex graph (gapbs b5e3e19c)
CAPTURED = """Read Time:           0.00008
Graph has 300 nodes and 1486 directed edges for degree: 4
Trial Time:          0.00005
Verification:           PASS
Verification Time:   0.00002
Trial Time:          0.00002
Verification:           PASS
Verification Time:   0.00001
Average Time:        0.00003
"""


def test_parser_reads_the_captured_output():
    run = parse_output(CAPTURED)
    assert (run.nodes, run.edges, run.directed) == (300, 1486, True)
    assert run.times_ms == pytest.approx([0.05, 0.02])
    assert run.verified == [True, True]
    undirected = parse_output(CAPTURED.replace("1486 directed", "743 undirected").replace("PASS", "FAIL", 1))
    assert (undirected.edges, undirected.directed, undirected.verified) == (743, False, [False, True])


@pytest.mark.parametrize("text, why", [
    (CAPTURED.replace("Graph has", "Graph had"), "Graph has"),
    ("Graph has 3 nodes and 4 directed edges\n", "Trial Time"),
    (CAPTURED.replace("Verification:           PASS\n", "", 1), "1 verification lines for 2 trials"),
])
def test_parser_names_what_is_missing(text, why):
    with pytest.raises(ValueError, match=why):
        parse_output(text)


STUB = """#!/usr/bin/env python3
import os, struct, sys
a = sys.argv[1:]
with open(a[a.index("-f") + 1], "rb") as f:
    directed, m, n = struct.unpack("<?qq", f.read(17))
trials = int(a[a.index("-n") + 1])
kind = "directed" if directed else "undirected"
print(f"Graph has {n + NODES_OFF} nodes and {m if directed else m // 2} {kind} edges for degree: 3")
for t in range(trials):
    src = int(a[a.index("-r") + 1])
    print(f"Trial Time:          {(src + 1) / 1000 + t / 10000 + int(os.environ['OMP_NUM_THREADS']) / 1e5:.5f}")
    print("Verification:           VERDICT")
"""


def stub(tmp_path: Path, verdict: str = "PASS", nodes_off: int = 0) -> Path:
    path = tmp_path / "bfs"
    path.write_text(STUB.replace("VERDICT", verdict).replace("NODES_OFF", str(nodes_off)))
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def run(tmp_path: Path, env: dict, monkeypatch, strategies=("peer.gapbs",), sources: int = 3) -> dict:
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    cfg = build_config({"datasets": ["smoke-gnm"], "strategies": list(strategies), "sources": sources,
                        "data_dir": str(tmp_path / "data"), "warmup": 1, "predecessors": "both"})
    return Runner(cfg, environment={}, out_path=tmp_path / "r.json").run().doc


def test_stub_times_are_the_last_trial_per_source_with_the_threads(tmp_path, monkeypatch):
    doc = run(tmp_path, {"GPUBFS_GAPBS_BFS": str(stub(tmp_path))}, monkeypatch,
              strategies=({"name": "peer.gapbs", "knobs": {"threads": 1, "trials": 3}},))
    samples = [s for s in doc["samples"] if s["strategy"] == "peer.gapbs" and not s["predecessors"]]
    assert len(samples) == 3
    for s in samples:  # (source + 1) ms + the third trial's 0.2 ms + 1 thread's 0.01 ms
        assert s["time_ms"] == pytest.approx(s["source"] + 1 + 0.2 + 0.01)
        assert s["timed_by"] == "peer.gapbs" and s["status"] == "ok" and s["valid"] is True
        assert s["edges"] > 0


def test_the_predecessor_row_is_unavailable_not_a_copy_of_the_distance_row(tmp_path, monkeypatch):
    """gapbs makes one parent-tree run per source: a predecessor row of the same times
    would read as a second measurement. It is unavailable, with why, in the report too."""
    from gpubfs_cli.report.build import overview
    from gpubfs_cli.report.load import results_from_doc

    doc = run(tmp_path, {"GPUBFS_GAPBS_BFS": str(stub(tmp_path))}, monkeypatch)
    pred = [s for s in doc["samples"] if s["strategy"] == "peer.gapbs" and s["predecessors"]]
    assert pred and all(s["status"] == "unavailable" and s["time_ms"] is None for s in pred)
    assert pred[0]["reason"] == ("gapbs's BFS always builds the parent tree: its distance row is that run, "
                                 "so there is no separate predecessor figure")
    table = overview(results_from_doc(doc), "ms").tables[0]  # datasets down, strategies across
    cells = dict(zip(table.columns[1:], table.rows[0][1:], strict=True))
    assert cells["peer.gapbs"].status == "ok" and cells["peer.gapbs +pred"].status == "unavailable"
    assert cells["peer.gapbs +pred"].text.startswith("unavailable: gapbs's BFS always builds the parent tree")


def test_a_failed_verification_is_a_wrong_answer(tmp_path, monkeypatch):
    doc = run(tmp_path, {"GPUBFS_GAPBS_BFS": str(stub(tmp_path, verdict="FAIL"))}, monkeypatch)
    samples = [s for s in doc["samples"] if s["strategy"] == "peer.gapbs" and not s["predecessors"]]
    assert {s["status"] for s in samples} == {"wrong-answer"} and "own check" in samples[0]["reason"]


def test_a_misread_graph_is_an_error(tmp_path, monkeypatch):
    doc = run(tmp_path, {"GPUBFS_GAPBS_BFS": str(stub(tmp_path, nodes_off=1))}, monkeypatch)
    assert {s["status"] for s in doc["samples"]} == {"error"}
    assert "gapbs read 8,193 nodes" in doc["samples"][0]["reason"]


def test_unavailable_and_failing_binaries(tmp_path, monkeypatch):
    doc = run(tmp_path, {"GPUBFS_GAPBS_BFS": str(tmp_path / "nope")}, monkeypatch,
              strategies=("cpu.sequential", "peer.gapbs"))
    peer = [s for s in doc["samples"] if s["strategy"] == "peer.gapbs"]
    assert {s["status"] for s in peer} == {"unavailable"}
    assert "not an executable file" in peer[0]["reason"]
    monkeypatch.delenv("GPUBFS_GAPBS_BFS")  # and no knob: nothing else is looked at
    doc = run(tmp_path, {}, monkeypatch, strategies=("cpu.sequential", "peer.gapbs"))
    for s in [s for s in doc["samples"] if s["strategy"] == "peer.gapbs"]:
        assert s["status"] == "unavailable"
        assert s["reason"] == ("no gapbs bfs binary: set GPUBFS_GAPBS_BFS=PATH or peer.gapbs's knob binary "
                               "(docs/peers.md)")
    bad = tmp_path / "bad"
    bad.write_text("#!/bin/sh\necho boom >&2\nexit 3\n")
    bad.chmod(0o755)
    doc = run(tmp_path, {"GPUBFS_GAPBS_BFS": str(bad)}, monkeypatch)
    assert {s["status"] for s in doc["samples"]} == {"error"}
    assert "exited with 3: boom" in doc["samples"][0]["reason"]


# The peers' folder: $GPUBFS_PEERS where the binaries were carried, else ../shared/peers.
PEERS = Path(os.environ.get("GPUBFS_PEERS") or Path(__file__).resolve().parents[4] / "shared" / "peers")


def real_binary() -> Path:
    found, why = host_binary("bfs", (PEERS / "gapbs" / "bfs",))
    if found is None:
        pytest.skip(why)
    return found


def test_real_gapbs_from_the_same_sources(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUBFS_GAPBS_BFS", str(real_binary()))
    doc = run(tmp_path, {}, monkeypatch, sources=3,
              strategies=("cpu.sequential", {"name": "peer.gapbs", "knobs": {"threads": 1}}))
    samples = [s for s in doc["samples"] if s["strategy"] == "peer.gapbs" and not s["predecessors"]]
    assert len(samples) == 3
    assert all(s["status"] == "ok" and s["valid"] is True and s["time_ms"] > 0 for s in samples)
    seq = {s["source"] for s in doc["samples"] if s["strategy"] == "cpu.sequential"}
    assert {s["source"] for s in samples} == seq
    json.dumps(doc)
