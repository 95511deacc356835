"""`gpubfs run` and `gpubfs info` through Typer's CliRunner (no GPU needed)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from gpubfs_cli.bench.results import SCHEMA_VERSION, load_results
from gpubfs_cli.cli import app
from gpubfs_cli.gpu import backend

runner = CliRunner()


@pytest.fixture
def no_gpu(monkeypatch):
    monkeypatch.setattr(backend, "unavailable_reason", lambda: "disabled for this test")


def test_run_with_flags_writes_the_results_file(tmp_path, no_gpu):
    out = tmp_path / "r" / "smoke.json"
    result = runner.invoke(
        app,
        [
            "run", "--dataset", "smoke-gnm", "--strategy", "cpu.sequential", "-s", "cpu.scipy,merrill.*",
            "--sources", "3", "--seed", "2", "--out", str(out), "--dir", str(tmp_path / "data"),
            "--predecessors", "both",
        ],
    )
    assert result.exit_code == 0, result.output
    doc = load_results(out)
    assert doc["schema_version"] == SCHEMA_VERSION
    assert doc["datasets"]["smoke-gnm"]["n"] == 8192
    assert len(doc["sources"]["smoke-gnm"]) == 3
    ok = [s for s in doc["samples"] if s["status"] == "ok"]
    assert len(ok) == 2 * 3 * 2 and all(s["valid"] for s in ok)
    gpu = [s for s in doc["samples"] if s["strategy"].startswith("merrill.")]
    assert gpu and all(s["status"] == "unavailable" and s["reason"] == "disabled for this test" for s in gpu)
    assert doc["environment"]["gpu"] == {"available": False, "reason": "disabled for this test"}
    assert f"results: {out}" in result.output
    assert "smoke-gnm" in result.output and "GTEPS" in result.output


def test_fixed_sources_flag(tmp_path):
    out = tmp_path / "r.json"
    result = runner.invoke(
        app,
        ["run", "-d", "smoke-grid", "-s", "cpu.sequential", "--source", "0", "--source", "5",
         "--out", str(out), "--dir", str(tmp_path / "data")],
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    assert doc["sources"]["smoke-grid"] == [0, 5]
    # on the 24^3 grid: corner (0,0,0) is 3 * 23 steps from the far corner, (5,0,0) 18 + 2 * 23
    assert [s["depth"] for s in doc["samples"]] == [69, 64]


def test_bad_config_is_one_line_and_exit_2(tmp_path):
    cfg = tmp_path / "bad.yaml"
    cfg.write_text("datasets: [smoke-gnm]\nstrategies: [cpu.sequentail]\n")
    result = runner.invoke(app, ["run", str(cfg)])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1
    assert "bad.yaml: strategies[0]: unknown bfs strategy 'cpu.sequentail' (did you mean: cpu.sequential" in lines[0]
    result = runner.invoke(app, ["run", "--dataset", "smoke-gmn"])
    assert result.exit_code == 2
    assert "datasets[0]: unknown dataset 'smoke-gmn'" in result.output
    assert "smoke-gnm" in result.output


def test_require_gpu_fails_without_one(tmp_path, no_gpu):
    result = runner.invoke(
        app, ["run", "-d", "smoke-gnm", "-s", "cpu.sequential", "--require-gpu", "--out", str(tmp_path / "x.json")]
    )
    assert result.exit_code == 2
    assert "--require-gpu: no usable GPU here (disabled for this test)" in result.output
    assert not (tmp_path / "x.json").exists()


def test_info_says_why_there_is_no_gpu(no_gpu):
    result = runner.invoke(app, ["info"])
    assert result.exit_code == 0, result.output
    assert "GPU:     none usable: disabled for this test" in result.output
    assert "CPU:" in result.output and "numpy" in result.output
    result = runner.invoke(app, ["info", "--json"])
    env = json.loads(result.output)
    assert env["gpu"] == {"available": False, "reason": "disabled for this test"}
    assert env["versions"]["numpy"] and env["cpu"]["cores"] >= 1


@pytest.mark.parametrize("name", ["smoke", "default"])
def test_shipped_experiment_configs_are_valid(name):
    from pathlib import Path

    from gpubfs_cli.bench.config import load_config

    path = Path(__file__).resolve().parents[1] / "configs" / "experiments" / f"{name}.yaml"
    cfg = load_config(path)  # real catalogue and registry
    assert cfg.name == name and cfg.datasets and cfg.variants
    assert {"cpu.sequential", "cpu.scipy", "cpu.networkx"} <= {v.strategy for v in cfg.variants}


def test_smoke_config_runs_end_to_end(tmp_path, no_gpu):
    from pathlib import Path

    smoke = Path(__file__).resolve().parents[1] / "configs" / "experiments" / "smoke.yaml"
    out = tmp_path / "smoke.json"
    result = runner.invoke(app, ["run", str(smoke), "--out", str(out), "--dir", str(tmp_path / "data")])
    assert result.exit_code == 0, result.output
    doc = load_results(out)
    statuses = {s["status"] for s in doc["samples"]}
    assert statuses <= {"ok", "unavailable"}
    assert doc["sources"]["smoke-grid"] == [doc["datasets"]["smoke-grid"]["meta"]["input_info"]["center"]]
    cpu_ok = [s for s in doc["samples"] if s["strategy"].startswith("cpu.") and s["status"] == "ok"]
    assert len(cpu_ok) == 3 * 2 * (8 + 8 + 1)  # 3 CPU rows x 2 modes x (8 + 8 + 1 sources)
    assert all(s["valid"] for s in cpu_ok)
