"""`reorder:` / `--reorder`: runs on relabelled graphs give the answers of the graph itself
(the harness checks them in the original ids), the order's cost is prepare time, each
order is a variant of its own in the results and in every report."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest
from typer.testing import CliRunner

from gpubfs_cli.bench.config import build_config
from gpubfs_cli.bench.resume import journal_config
from gpubfs_cli.bench.runner import Runner
from gpubfs_cli.cli import app
from gpubfs_cli.graph import reorder, samples
from gpubfs_cli.report.aggregate import Aggregate, ColumnKey
from gpubfs_cli.report.build import overview, run_summary
from gpubfs_cli.report.load import results_from_doc
from gpubfs_cli.results.journal import Journal

cli = CliRunner()
ORDERS = ["none", "degree", "rcm", "hub"]


def run(tmp_path, graphs, strategies, **raw):
    raw = {"name": "t", "datasets": [g.name for g in graphs], "strategies": strategies, "warmup": 0, **raw}
    cfg = build_config(raw, dataset_check=lambda name: None)
    by_name = {g.name: g for g in graphs}
    runner = Runner(cfg, load_graph=lambda spec, data_dir, progress: (by_name[spec.name], {}),
                    out_path=tmp_path / "out.json", environment={"git_commit": None, "command_line": "test"})
    return cfg, runner.run().doc


def measures(doc, order):
    """(dataset, strategy, source, option) -> what the sample measured, for one order."""
    return {(s["dataset"], s["strategy"], s["source"], s["predecessors"]):
            (s["reached"], s["edges"], s.get("depth"), s.get("max_distance"))
            for s in doc["samples"] if s["knobs"].get("reorder", "none") == order}


def check_every_order(doc, strategies, datasets, sources):
    assert all(s["status"] == "ok" and s["valid"] is True for s in doc["samples"]), [
        (s["strategy"], s["knobs"], s["reason"]) for s in doc["samples"] if s["status"] != "ok"]
    plain = measures(doc, "none")
    assert len(plain) == len(strategies) * len(datasets) * sources * 2
    for order in ORDERS[1:]:
        assert measures(doc, order) == plain  # the same answers from every source


def test_bfs_strategies_answer_alike_under_every_order(tmp_path):
    graphs = [samples.NASTY_BFS[k]() for k in ("directed", "disconnected", "loops_dups", "rmat")]
    strategies = ["cpu.sequential", "cpu.scipy"]
    cfg, doc = run(tmp_path, graphs, strategies, sources=4, predecessors="both", reorder=ORDERS)
    assert [v.label for v in cfg.variants][:4] == [
        "cpu.sequential", "cpu.sequential[reorder=degree]", "cpu.sequential[reorder=rcm]",
        "cpu.sequential[reorder=hub]"]
    check_every_order(doc, strategies, graphs, 4)
    assert {json.dumps(s["knobs"]) for s in doc["samples"]} == {
        "{}", '{"reorder": "degree"}', '{"reorder": "rcm"}', '{"reorder": "hub"}'}
    for p in doc["prepares"]:  # the cost of the order: only the reordered variants', apart
        assert ("reorder_ms" in p) == ("reorder" in p["knobs"])
        assert p.get("reorder_ms", 0) >= 0 and p["status"] == "ok"
    assert doc["config"]["reorder"] == ORDERS
    assert [v.get("reorder") for v in doc["config"]["variants"]][:4] == [None, "degree", "rcm", "hub"]


def test_sssp_strategies_answer_alike_under_every_order(tmp_path):
    graphs = [samples.NASTY_SSSP[k]() for k in ("zero_cycles", "loops_dups", "unreachable", "hub")]
    strategies = ["cpu.dijkstra", {"name": "cpu.scipy", "problem": "sssp"}]
    _, doc = run(tmp_path, graphs, strategies, sources=3, predecessors="both", reorder=ORDERS)
    assert {s["problem"] for s in doc["samples"]} == {"sssp"}
    check_every_order(doc, ["cpu.dijkstra", "cpu.scipy"], graphs, 3)


def test_the_orders_cost_is_prepare_time_once_per_graph(tmp_path, monkeypatch):
    calls = []

    def slow(graph):
        calls.append(graph.name)
        time.sleep(0.3)
        return reorder.degree_order(graph)

    monkeypatch.setitem(reorder.ORDERS, "degree", slow)
    graphs = [samples.grid(9, 13, name="grid"), samples.NASTY_BFS["directed"]()]
    _, doc = run(tmp_path, graphs, ["cpu.sequential", "cpu.scipy"], sources=3, reorder=["none", "degree"])
    assert calls == ["grid", "directed"]  # one order per graph, for both strategies
    reordered = [p for p in doc["prepares"] if p["knobs"] == {"reorder": "degree"}]
    assert len(reordered) == 4 and all(p["reorder_ms"] >= 300 for p in reordered)
    assert all(p["time_ms"] < 300 for p in doc["prepares"])
    times = [s["time_ms"] for s in doc["samples"]]
    assert len(times) == 2 * 2 * 2 * 3 and max(times) < 300
    assert all(s["valid"] for s in doc["samples"])


def test_a_failing_order_is_the_variants_prepare_failure(tmp_path, monkeypatch):
    def broken(graph):
        return np.zeros(graph.n, dtype=np.int64)  # no permutation

    monkeypatch.setitem(reorder.ORDERS, "hub", broken)
    _, doc = run(tmp_path, [samples.grid(5, 5, name="g")], ["cpu.sequential"], sources=2, reorder=["none", "hub"])
    bad = [s for s in doc["samples"] if s["knobs"]]
    assert len(bad) == 1 and bad[0]["status"] == "error" and bad[0]["reason"].startswith("reorder: ")
    assert all(s["valid"] for s in doc["samples"] if not s["knobs"])


def test_reports_keep_each_order_in_its_own_column(tmp_path):
    g = samples.grid(9, 13, name="grid")
    _, doc = run(tmp_path, [g], ["cpu.sequential", "cpu.scipy"], sources=3, reorder=["none", "rcm"])
    results = results_from_doc(doc)
    agg = Aggregate(results)
    assert set(agg.columns()) == {ColumnKey("cpu.sequential"), ColumnKey("cpu.sequential", reorder="rcm"),
                                  ColumnKey("cpu.scipy"), ColumnKey("cpu.scipy", reorder="rcm")}
    table = overview(results, "ms").tables[0]
    assert table.columns == ["dataset", "cpu.sequential", "cpu.sequential (rcm order)",
                             "cpu.scipy", "cpu.scipy (rcm order)"]
    assert all(c.knob is None for c in table.rows[0][1:])  # no cell is a best-of-orders pick
    # a reordered column divides into the baseline run in the same order
    rcm = next(g for g in agg.groups if g.strategy == "cpu.scipy" and g.reorder == "rcm")
    assert agg.baseline("grid", False, like=rcm).reorder == "rcm"
    plain = next(g for g in agg.groups if g.strategy == "cpu.scipy" and g.reorder is None)
    assert agg.baseline("grid", False, like=plain).reorder is None
    summary = run_summary(results, "t").tables[0]
    assert [r[0].text for r in summary.rows] == [
        "cpu.sequential", "cpu.sequential (rcm order)", "cpu.scipy", "cpu.scipy (rcm order)"]


def test_a_reordered_run_resumes_as_the_same_run(tmp_path):
    cfg, _ = run(tmp_path, [samples.grid(5, 5, name="g")], ["cpu.sequential"], sources=2, reorder=["none", "rcm"])
    journal = tmp_path / "j.journal.jsonl"
    header = {"results": str(tmp_path / "j.json"), "created": "now", "environment": {}, "problems": {},
              "equivalent_teps": [], "config": json.loads(json.dumps(cfg.to_dict()))}
    Journal.create(journal, header, exclusive=True).close()
    again = build_config(journal_config(journal), dataset_check=lambda name: None)
    assert again.to_dict() == cfg.to_dict()
    plain = build_config({"datasets": ["g"], "strategies": ["cpu.sequential"]}, dataset_check=lambda name: None)
    assert "reorder" not in plain.to_dict() and plain.to_dict()["variants"][0] == {
        "problem": "bfs", "strategy": "cpu.sequential", "knobs": {}}


@pytest.fixture
def no_gpu(monkeypatch):
    from gpubfs_cli.gpu import backend

    monkeypatch.setattr(backend, "unavailable_reason", lambda: "disabled for this test")


def test_run_flag_end_to_end(tmp_path, no_gpu):
    out = tmp_path / "r.json"
    result = cli.invoke(app, ["run", "-d", "smoke-grid", "-s", "cpu.sequential,cpu.scipy", "--sources", "2",
                              "--reorder", "none,rcm", "--reorder", "hub", "--predecessors", "both",
                              "--out", str(out), "--dir", str(tmp_path / "data")])
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    assert doc["config"]["reorder"] == ["none", "rcm", "hub"]
    sources = len(doc["sources"]["smoke-grid"])  # the dataset's one fixed source
    assert len(doc["samples"]) == 2 * 3 * 2 * sources and all(s["valid"] for s in doc["samples"])
    assert "cpu.scipy (rcm order)" in result.output and "cpu.scipy (hub order)" in result.output


@pytest.mark.parametrize("args, text", [
    (["--reorder", "foo"], "command line: reorder: unknown vertex order 'foo'"),
    (["--reorder", "rcm,degre"], "command line: reorder: unknown vertex order 'degre' (did you mean: degree?)"),
])
def test_bad_flag_is_one_line_and_exit_2(tmp_path, args, text):
    result = cli.invoke(app, ["run", "-d", "smoke-grid", "-s", "cpu.sequential", *args,
                              "--out", str(tmp_path / "x.json"), "--dir", str(tmp_path / "data")])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and text in lines[0] and "Traceback" not in result.output
    assert not (tmp_path / "x.json").exists()


@pytest.mark.parametrize("value, text", [
    ("3", "reorder: expected none, degree, rcm, hub or a list of them, got 3"),
    ("[]", "reorder: expected none, degree, rcm, hub or a list of them, got an empty list"),
    ("[rcm, 2.5]", "reorder: expected none, degree, rcm, hub or a list of them, got 2.5"),
    ("bfs", "reorder: unknown vertex order 'bfs'"),
])
def test_bad_config_value_is_one_line_and_exit_2(tmp_path, value, text):
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(f"datasets: [smoke-grid]\nstrategies: [cpu.sequential]\nreorder: {value}\n")
    result = cli.invoke(app, ["run", str(cfg)])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and f"bad.yaml: {text}" in lines[0], result.output
