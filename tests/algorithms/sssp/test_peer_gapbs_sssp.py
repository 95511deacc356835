"""peer.gapbs for SSSP: the wel export it reads, stub binaries for the failure paths
(CPU), and the real static binary from $GPUBFS_PEERS/gapbs, else ../shared/peers/gapbs,
where it is (skipped visibly elsewhere: it is not part of the repository), named to
gpubfs by GPUBFS_GAPBS_SSSP as a user would."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from gpubfs_cli.algorithms.bfs.peer.gapbs_common import host_binary
from gpubfs_cli.algorithms.sssp.peer.gapbs import GapbsSsspKnobs, delta_for
from gpubfs_cli.bench.config import build_config
from gpubfs_cli.bench.runner import Runner
from gpubfs_cli.cli import app
from gpubfs_cli.gpu import backend
from gpubfs_cli.graph.csr import CSRGraph
from gpubfs_cli.graph.io.export import export_graph
from gpubfs_cli.results.schema import load_results

cli = CliRunner()
# The peers' folder: $GPUBFS_PEERS where the binaries were carried, else ../shared/peers.
PEERS = Path(os.environ.get("GPUBFS_PEERS") or Path(__file__).resolve().parents[4] / "shared" / "peers")


@pytest.fixture(autouse=True)
def no_gpu(monkeypatch):
    monkeypatch.setattr(backend, "unavailable_reason", lambda: "disabled for this test")
    monkeypatch.delenv("GPUBFS_GAPBS_SSSP", raising=False)


def flat(text: str) -> str:
    return " ".join(text.split())


# Stands in for gapbs's sssp: reads the wel as gapbs does (n = largest id + 1, self-loops
# dropped) and prints gapbs's lines with the given verdict.
STUB = """#!/usr/bin/env python3
import os, sys
a = sys.argv[1:]
ids, m = 0, 0
with open(a[a.index("-f") + 1]) as f:
    for line in f:
        u, v, w = map(int, line.split())
        ids = max(ids, u, v)
        m += u != v
print(f"Graph has {ids + 1} nodes and {m} directed edges for degree: 3")
for t in range(int(a[a.index("-n") + 1])):
    print(f"Trial Time:          {int(a[a.index('-d') + 1]) / 1e5 + int(os.environ['OMP_NUM_THREADS']) / 1e5:.5f}")
    print("Verification:           VERDICT")
"""


def stub(tmp_path: Path, verdict: str = "PASS") -> Path:
    path = tmp_path / "sssp"
    path.write_text(STUB.replace("VERDICT", verdict))
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def run(tmp_path: Path, monkeypatch, env: dict, strategies, sources: int = 3) -> dict:
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    cfg = build_config({"datasets": ["smoke-gnm"], "problem": "sssp", "strategies": list(strategies),
                        "sources": sources, "data_dir": str(tmp_path / "data"), "warmup": 1})
    return Runner(cfg, environment={}, out_path=tmp_path / "r.json").run().doc


def peer_samples(doc: dict) -> list[dict]:
    return [s for s in doc["samples"] if s["strategy"] == "peer.gapbs"]


def test_stub_time_delta_and_threads(tmp_path, monkeypatch):
    doc = run(tmp_path, monkeypatch, {"GPUBFS_GAPBS_SSSP": str(stub(tmp_path))},
              [{"name": "peer.gapbs", "knobs": {"threads": 1, "delta": 7}}])
    samples = peer_samples(doc)
    assert len(samples) == 3
    for s in samples:  # 7 * 10 us + 1 thread * 10 us
        assert s["problem"] == "sssp" and s["status"] == "ok" and s["valid"] is True
        assert s["timed_by"] == "peer.gapbs" and s["time_ms"] == pytest.approx(0.08)
        assert s["counters"] == {"threads": 1, "delta": 7}


def test_a_failed_verification_is_a_wrong_answer_and_fails_the_run(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUBFS_GAPBS_SSSP", str(stub(tmp_path, verdict="FAIL")))
    out = tmp_path / "r.json"
    r = cli.invoke(app, ["run", "--problem", "sssp", "-d", "smoke-gnm", "-s", "peer.gapbs", "-s", "cpu.dijkstra",
                         "--sources", "2", "--dir", str(tmp_path / "data"), "--out", str(out)])
    assert r.exit_code == 1, r.output
    samples = load_results(out)["samples"]
    assert {s["status"] for s in peer_samples({"samples": samples})} == {"wrong-answer"}
    assert "peer.gapbs's own check found errors" in peer_samples({"samples": samples})[0]["reason"]
    assert {s["status"] for s in samples if s["strategy"] == "cpu.dijkstra"} == {"ok"}


def test_missing_binary_is_unavailable_with_the_reason(tmp_path, monkeypatch):
    doc = run(tmp_path, monkeypatch, {"GPUBFS_GAPBS_SSSP": str(tmp_path / "nope")}, ["cpu.dijkstra", "peer.gapbs"])
    assert {s["status"] for s in peer_samples(doc)} == {"unavailable"}
    assert "not an executable file" in peer_samples(doc)[0]["reason"]
    monkeypatch.delenv("GPUBFS_GAPBS_SSSP")  # and no knob: nothing else is looked at
    doc = run(tmp_path, monkeypatch, {}, ["cpu.dijkstra", "peer.gapbs"])
    for s in peer_samples(doc):
        assert s["status"] == "unavailable"
        assert s["reason"] == ("no gapbs sssp binary: set GPUBFS_GAPBS_SSSP=PATH or peer.gapbs's knob binary "
                               "(docs/peers.md)")


@pytest.mark.parametrize("knobs, said", [
    ("{delta: 0}", "delta: peer.gapbs: expected a whole number from 1 to 2^31 - 1, or null, got 0"),
    ("{delta: -3}", "delta: peer.gapbs: expected a whole number from 1 to 2^31 - 1, or null, got -3"),
    ("{threads: -1}", "threads: peer.gapbs: expected a whole number >= 0 (0: all cores), got -1"),
    ("{trials: 0}", "trials: peer.gapbs: expected a positive whole number, got 0"),
    ("{delta_scale: 0}", "delta_scale: peer.gapbs: expected a positive number, or null, got 0"),
])
def test_bad_knobs_are_one_error_line(tmp_path, knobs, said):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"problem: sssp\nstrategies: [{{name: peer.gapbs, knobs: {knobs}}}]\n")
    r = cli.invoke(app, ["run", str(cfg), "-d", "smoke-gnm", "--dir", str(tmp_path / "data"),
                         "--out", str(tmp_path / "r.json")])
    assert r.exit_code == 2, r.output
    assert f"c.yaml: strategies[0].knobs.{said}" in flat(r.output)
    assert r.output.strip().startswith("error:") and "Traceback" not in r.output


def test_knobs_and_delta_rule():
    assert GapbsSsspKnobs().delta is None and GapbsSsspKnobs(delta=50000).delta == 50000
    with pytest.raises(ValueError, match="delta"):
        GapbsSsspKnobs(delta=True)
    assert delta_for(np.array([1, 2, 4])) == 2 and delta_for(np.array([0, 0])) == 1 and delta_for(np.array([])) == 1
    assert delta_for(np.array([100, 300]), 16) == 3200 and delta_for(np.array([100, 300]), 1 / 1024) == 1
    assert delta_for(np.array([2**30]), 64) == 2**31 - 1
    assert GapbsSsspKnobs(delta_scale=0.25).delta_scale == 0.25
    with pytest.raises(ValueError, match="delta and delta_scale"):
        GapbsSsspKnobs(delta=4, delta_scale=2.0)


def test_delta_scale_runs_that_multiple_of_the_mean_weight_and_records_it(tmp_path, monkeypatch):
    doc = run(tmp_path, monkeypatch, {"GPUBFS_GAPBS_SSSP": str(stub(tmp_path))},
              [{"name": "peer.gapbs", "knobs": {"threads": 1, "delta_scale": 4}}, "cpu.dijkstra"])
    plain = run(tmp_path, monkeypatch, {"GPUBFS_GAPBS_SSSP": str(stub(tmp_path))},
                [{"name": "peer.gapbs", "knobs": {"threads": 1}}])
    mean_delta = peer_samples(plain)[0]["counters"]["delta"]  # unset: the mean weight, rounded
    assert mean_delta > 1
    for s in peer_samples(doc):
        assert s["status"] == "ok" and s["knobs"]["delta_scale"] == 4
        assert abs(s["counters"]["delta"] - 4 * mean_delta) <= 2  # 4 x the mean, rounded once


def graph_with_weights() -> CSRGraph:
    # 0 -> 1 (5), 0 -> 2 (0), 1 -> 2 (2^31 - 1), 2 -> 0 (12); vertices 3 and 4 have no edges
    return CSRGraph(np.array([0, 2, 3, 4, 4, 4]), np.array([1, 2, 2, 0]), True,
                    np.array([5, 0, 2**31 - 1, 12]), name="w")


def test_wel_round_trip_without_a_comment(tmp_path):
    g = graph_with_weights()
    path = tmp_path / "g.wel"
    assert export_graph(g, path, "wel", comment="ignored: gapbs would build a 1-vertex graph") == 5
    lines = path.read_text().splitlines()
    assert lines[0] == "0 1 5" and all(ln.split()[0].isdigit() for ln in lines)
    rows = np.array([ln.split() for ln in lines], dtype=np.int64)
    assert rows.tolist()[-1] == [4, 4, 1]  # the tail self-loop keeps n; gapbs drops it
    u = np.repeat(np.arange(g.n), np.diff(g.row_offsets))
    assert rows[:-1].tolist() == np.stack([u, g.col_indices, g.weights], axis=1).tolist()
    bad = CSRGraph(g.row_offsets, g.col_indices, True, np.array([1.5, 0, 1, 1]), name="f")
    with pytest.raises(Exception, match="whole-number"):
        export_graph(bad, tmp_path / "b.wel", "wel")


def real_binary(monkeypatch=None) -> Path:
    """The real build, where this host runs it; with `monkeypatch`, named by GPUBFS_GAPBS_SSSP."""
    found, why = host_binary("sssp", (PEERS / "gapbs" / "sssp",))
    if found is None:
        pytest.skip(why)
    if monkeypatch is not None:
        monkeypatch.setenv("GPUBFS_GAPBS_SSSP", str(found))
    return found


def test_real_sssp_reads_the_wel_whole(tmp_path):
    g = CSRGraph(np.array([0, 2, 3, 4, 4, 4]), np.array([1, 2, 2, 0]), True, np.array([5, 1, 2, 12]))
    export_graph(g, tmp_path / "g.wel", "wel")
    done = subprocess.run([str(real_binary()), "-f", str(tmp_path / "g.wel"), "-r", "0", "-n", "1", "-v"],
                          capture_output=True, text=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
    assert "Graph has 5 nodes and 4 directed edges" in done.stdout and "Verification:           PASS" in done.stdout


def test_real_gapbs_sssp_through_the_cli(tmp_path, monkeypatch):
    real_binary(monkeypatch)
    cfg = tmp_path / "c.yaml"
    cfg.write_text("problem: sssp\nstrategies: [{name: peer.gapbs, knobs: {threads: 1}}, cpu.dijkstra]\n")
    out = tmp_path / "r.json"
    r = cli.invoke(app, ["run", str(cfg), "-d", "smoke-gnm", "--sources", "3", "--dir", str(tmp_path / "data"),
                         "--out", str(out)])
    assert r.exit_code == 0, r.output
    doc = load_results(out)
    samples = peer_samples(doc)
    assert len(samples) == 3
    assert all(s["status"] == "ok" and s["valid"] is True and s["timed_by"] == "peer.gapbs" for s in samples)
    assert all(s["time_ms"] > 0 and s["counters"]["threads"] == 1 and s["counters"]["delta"] >= 1 for s in samples)
    dijkstra = {s["source"]: s for s in doc["samples"] if s["strategy"] == "cpu.dijkstra"}
    for s in samples:  # measured with the baseline's answer for the same source
        assert s["max_distance"] == dijkstra[s["source"]]["max_distance"]
    assert "timed by the peer" in flat(r.output)
    json.dumps(doc)


def _far_path() -> CSRGraph:
    """0 - 1 - 2 with weights 2^29: from an end the far end is at 2^30, past gapbs's
    int32 infinity (2^30 - 1); from the middle everything is within 2^29."""
    w = 1 << 29
    return CSRGraph(np.array([0, 1, 3, 4], np.int64), np.array([1, 0, 2, 1], np.int32), directed=False,
                    weights=np.array([w, w, w, w], np.int64), name="far-path")


@pytest.mark.parametrize("told", [True, False], ids=["reaches_from_the_run", "solved_here"])
def test_sources_past_gapbs_int32_distances_are_unavailable(tmp_path, monkeypatch, told):
    from gpubfs_cli.algorithms.sssp.peer.gapbs import GapbsSssp
    from gpubfs_cli.core import solve
    from gpubfs_cli.core.strategy import StrategyUnavailable, make_knobs

    g = _far_path()
    peer = GapbsSssp(make_knobs(GapbsSssp, {"binary": str(stub(tmp_path)), "threads": 1}))
    peer.prepare(g)
    try:
        assert not peer.bounded
        if told:  # the run's baseline already knows how far each source reaches: nothing is solved again
            monkeypatch.setattr(solve, "solve_each", lambda *a, **k: pytest.fail("solved a source again"))
            peer.plan_reaches({0: 1 << 30, 1: 1 << 29})
        peer.plan_sources([0, 1])
        assert peer.too_far == {0: 1 << 30} and set(peer.runs) == {1}
        with pytest.raises(StrategyUnavailable, match="distances up to 1,073,741,824 from source 0"):
            peer.traverse(0)
        assert peer.traverse(1).timed_by == "peer.gapbs"
    finally:
        peer.release()
