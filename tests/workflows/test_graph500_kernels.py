"""The Graph 500 kernels end to end on the CPU: the shipped config `graph500` with its GPU
strategies swapped for the CPU baselines (no GPU here), on a small Kronecker graph with
the specification's SSSP weights (NAME@weights=graph500), then `gpubfs report --graph500`:
kernel 2 and kernel 3 each get the reference's statistics, rated by the same Graph 500
edge count, every answer validated by its certificate (the specification's rules), no
baseline solved."""

from __future__ import annotations

import json

import yaml
from typer.testing import CliRunner

from gpubfs_cli.cli import app
from gpubfs_cli.configs import experiments_dir
from gpubfs_cli.results.schema import load_results

runner = CliRunner()


def test_graph500_config_runs_both_kernels_and_reports_them_the_references_way(tmp_path, monkeypatch):
    catalogue = tmp_path / "catalogue.yaml"
    catalogue.write_text("datasets:\n  g500-tiny:\n    kind: generated\n    description: a small Graph 500 graph\n"
                         "    generator: kronecker\n    params: {scale: 9, edgefactor: 16}\n    seed: 1\n"
                         "    directed: false\n")
    monkeypatch.setenv("GPUBFS_CATALOGUE", str(catalogue))
    cfg = yaml.safe_load((experiments_dir() / "graph500.yaml").read_text())
    assert {(s if isinstance(s, str) else s["name"]) for s in cfg["strategies"]} == {
        "do.bfs", "sssp.near_far", "sssp.delta"}
    assert cfg["sources"] == 64 and cfg["validate"] == "certificate" and cfg["predecessors"] is True
    assert all(d.endswith("@weights=graph500") for d in cfg["datasets"])
    cfg.update(strategies=["cpu.sequential", {"name": "cpu.dijkstra", "problem": "sssp"}], require_gpu=False)
    from gpubfs_cli.bench import references

    def no_baseline(*a, **k):
        raise AssertionError("a baseline was solved: every answer has a parent tree to certify it")

    monkeypatch.setattr(references, "solve_each", no_baseline)  # the specification's validation alone
    monkeypatch.setattr(references.References, "_solve", no_baseline)
    path = tmp_path / "graph500-cpu.yaml"
    path.write_text(yaml.safe_dump(cfg))
    out = tmp_path / "g500.json"
    result = runner.invoke(app, ["run", str(path), "-d", "g500-tiny@weights=graph500", "--sources", "6",
                                 "--out", str(out), "--dir", str(tmp_path / "data")])
    assert result.exit_code == 0, result.output
    doc = load_results(out)
    assert doc["datasets"]["g500-tiny@weights=graph500"]["meta"]["weights"]["unit"] == 2.0**-24
    samples = doc["samples"]
    assert {(s["problem"], s["status"], s["valid"], s["predecessors"]) for s in samples} == {
        ("bfs", "ok", True, True), ("sssp", "ok", True, True)}
    by_source = {}
    for s in samples:  # both kernels count the same component's edges from a source
        by_source.setdefault(s["source"], set()).add(s["edges_graph500"])
    assert all(len(v) == 1 and next(iter(v)) > 0 for v in by_source.values())

    text = runner.invoke(app, ["report", "--graph500", str(out)])
    assert text.exit_code == 0, text.output
    lines = text.stdout.splitlines()
    assert "SCALE:                          9" in lines and "NBFS:                           6" in lines
    assert any(line.startswith("bfs  harmonic_mean_TEPS:") for line in lines)
    assert any(line.startswith("sssp harmonic_mean_TEPS:") for line in lines)
    got = json.loads(runner.invoke(app, ["report", "--graph500", "--format", "json", str(out)]).stdout)
    kernels = {v["kernel"]: v for v in got["datasets"]["g500-tiny@weights=graph500"]}
    assert set(kernels) == {2, 3} and all(v["nbfs"] == 6 and v["stats"]["harmonic_mean_TEPS"] > 0
                                          for v in kernels.values())
