"""SSSP on the real New York road graph, on the CPU rows, with both weight rules.

USA-road-d.NY keeps its file's distance weights; USA-road-d.NY@weights=rule is the same
cached CSR with the catalogue rule's weights (datasets/weights.py). Served as
test_reproduce_real.py serves it (tests/workflows/conftest.py), fetched once, then
`gpubfs run sssp-delta` on both names without a GPU: cpu.dijkstra measures both rows,
each labelled, from the same sources; the GPU rows are unavailable (skipped, saying
so, where ../shared/data is absent).
"""

from __future__ import annotations

import hashlib
import json

import pytest
import yaml
from typer.testing import CliRunner

from gpubfs_cli.cli import app
from gpubfs_cli.configs import run_config_path
from gpubfs_cli.datasets.weights import DEFAULT_RANGE
from gpubfs_cli.results.schema import load_results
from tests.workflows.conftest import UPSTREAM_PATH, needs_ny

runner = CliRunner()
PLAIN = "USA-road-d.NY"
RULE = "USA-road-d.NY@weights=rule"


GPU_ROWS = ("auto.", "sssp.", "raval.", "peer.gunrock")


def _config_gpu_rows() -> set[str]:
    """The GPU strategies the shipped sssp-delta config names: each must have its row."""
    raw = yaml.safe_load(run_config_path("sssp-delta").read_text())
    names = {s if isinstance(s, str) else s["name"] for s in raw["strategies"]}
    return {n for n in names if n.startswith(GPU_ROWS)}


def _digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@needs_ny
def test_new_york_sssp_runs_with_its_file_weights_and_with_the_rule_each_labelled(served, tmp_path, monkeypatch):
    monkeypatch.delenv("GPUBFS_GAPBS_SSSP", raising=False)  # the peer's row stays unavailable alike anywhere
    data, out = tmp_path / "data", tmp_path / "ny-sssp.json"
    fetched = runner.invoke(app, ["fetch-dataset", PLAIN, "--accept-checksum", "--dir", str(data)])
    assert fetched.exit_code == 0, fetched.output
    folder = data / PLAIN
    arrays = {f: (folder / f).stat().st_mtime_ns for f in ("row_offsets.npy", "col_indices.npy")}
    file_weights = _digest(folder / "weights.npy")

    result = runner.invoke(app, ["run", "sssp-delta", "-d", f"{PLAIN},{RULE}", "--sources", "2", "--no-require-gpu",
                                 "--dir", str(data), "--out", str(out)])
    assert result.exit_code == 0, result.output
    # one download, one conversion: the option's row read the cached CSR
    assert [p for p, _ in served.log] == [UPSTREAM_PATH]
    assert {f: (folder / f).stat().st_mtime_ns for f in arrays} == arrays
    assert not (data / RULE).exists()
    # the rule's weights are cached apart; the file's are untouched
    assert _digest(folder / "weights.npy") == file_weights
    meta = json.loads((folder / "meta.json").read_text())
    assert meta["weights"] == {"rule": "file"}
    assert meta["rule_weights"]["file"] == "weights-rule.npy" and meta["rule_weights"]["range"] == list(DEFAULT_RANGE)

    doc = load_results(out)
    assert set(doc["datasets"]) == {PLAIN, RULE}
    assert doc["datasets"][PLAIN]["meta"]["weights"] == {"rule": "file"}
    recorded = doc["datasets"][RULE]["meta"]["weights"]
    assert (recorded["rule"], recorded["range"], recorded["seed"]) == ("hash", list(DEFAULT_RANGE), 0)
    assert doc["sources"][PLAIN] == doc["sources"][RULE] and len(doc["sources"][PLAIN]) == 2  # paired rows
    largest = {}
    for name in (PLAIN, RULE):
        rows = [s for s in doc["samples"] if s["dataset"] == name]
        dijkstra = [s for s in rows if s["strategy"] == "cpu.dijkstra"]
        assert len(dijkstra) == 2 and all(s["status"] == "ok" and s["valid"] for s in dijkstra), dijkstra
        gpu = {s["strategy"] for s in rows if s["strategy"].startswith(GPU_ROWS)}
        assert gpu == _config_gpu_rows() and "sssp.near_far" in gpu
        assert all(s["status"] == "unavailable" for s in rows if s["strategy"] in gpu)
        largest[name] = [s["max_distance"] for s in dijkstra]
    assert largest[PLAIN] != largest[RULE]  # the same sources, other weights

    report = runner.invoke(app, ["report", str(out)])
    assert report.exit_code == 0, report.output
    assert PLAIN in report.output and RULE in report.output


@pytest.mark.parametrize("names, line", [
    ("USA-road-d.NY@weights=miles", "datasets[0]: dataset 'USA-road-d.NY@weights=miles': @weights=miles is not an "
                                    "option; expected @weights=file"),
    ("rmat20@weights=file", "datasets[0]: dataset 'rmat20' has no weights of its own (SSSP weights it by its rule): "
                            "@weights=file does not apply"),
    (f"{PLAIN},{PLAIN}@weights=file", f"datasets[1]: '{PLAIN}@weights=file' is the graph of datasets[0] again"),
    ("rmat20,rmat20@weights=rule", "datasets[1]: 'rmat20@weights=rule' is the graph of datasets[0] again"),
], ids=["bad-value", "file-on-a-rule-graph", "file-twice", "rule-twice"])
def test_a_weights_option_that_names_nothing_new_is_one_line(names, line, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # --dry-run: the config's check comes first, and a run that got past it fetches nothing
    result = runner.invoke(app, ["run", "-d", names, "-s", "cpu.dijkstra", "--dir", str(tmp_path / "data"),
                                 "--dry-run"])
    assert result.exit_code == 2, result.output
    assert line in result.output and len(result.output.strip().splitlines()) == 1, result.output
    assert not (tmp_path / "data").exists()


def test_both_weight_rules_of_one_graph_plan_one_download(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GPUBFS_MIRROR", raising=False)
    result = runner.invoke(app, ["run", "-d", f"{PLAIN},New York@weights=rule", "-s", "cpu.dijkstra", "--dir",
                                 str(tmp_path / "data"), "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "run: 2 graph(s):" in result.output and "plus 1 download(s)" in result.output, result.output
