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
    # 6 CPU rows (3 + parallel_td, parallel_do, msbfs) x 2 modes x 17 sources
    assert len(cpu_ok) == 6 * 2 * (8 + 8 + 1)
    assert all(s["valid"] for s in cpu_ok)
    # cpu.msbfs answers each graph's sources in one batch; no other strategy's samples say batch.
    batch = {(s["dataset"], s.get("batch")) for s in cpu_ok if s["strategy"] == "cpu.msbfs"}
    assert batch == {("smoke-rmat", 8), ("smoke-gnm", 8), ("smoke-grid", 1)}
    assert not any("batch" in s for s in doc["samples"] if s["strategy"] != "cpu.msbfs")
    assert "batch strategies, time per source" in result.output


# ---------------------------------------------------------------- hostile inputs
def _one_line(result, *parts):
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit), result.exception  # not a traceback
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for p in parts:
        assert p in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("kind", ["folder", "fifo", "symlink", "under-a-file"])
def test_out_is_refused_before_the_run(tmp_path, kind):
    """--out that a rename would replace (or that cannot be written) stops the command
    before any dataset is built or any strategy runs, and is left as it was."""
    import os
    import stat

    target = tmp_path / "keep.json"
    target.write_text("{}")
    out = tmp_path / "out"
    if kind == "folder":
        out.mkdir()
        part = "is a folder"
    elif kind == "fifo":
        os.mkfifo(out)
        part = "is a FIFO"
    elif kind == "symlink":
        out.symlink_to(target)
        part = "is a symbolic link"
    else:
        out = target / "r.json"
        part = "is not a folder"
    mode = os.lstat(out).st_mode if kind != "under-a-file" else None
    data = tmp_path / "data"
    result = runner.invoke(app, ["run", "-d", "smoke-grid", "-s", "cpu.sequential", "--sources", "1",
                                 "--out", str(out), "--dir", str(data)])
    _one_line(result, str(out), part)
    assert not data.exists()  # nothing ran: the graph was not even generated
    if mode is not None:
        assert os.lstat(out).st_mode == mode
    assert target.read_text() == "{}" and stat.S_ISREG(os.lstat(target).st_mode)


def test_run_name_cannot_leave_results(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.yaml").write_text("name: ../../x\ndatasets: [smoke-grid]\nstrategies: [cpu.sequential]\nsources: 1\n")
    _one_line(runner.invoke(app, ["run", "c.yaml", "--dir", str(tmp_path / "data")]),
              "c.yaml: name: '../../x' cannot name a results file")
    for bad in (".hidden", "a/b", "a\\b", "tab\there", ""):
        (tmp_path / "c.yaml").write_text(f"name: {json.dumps(bad)}\ndatasets: [smoke-grid]\n")
        _one_line(runner.invoke(app, ["run", "c.yaml"]), "c.yaml: name: ", "cannot name a results file")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.yaml"]
    assert not (tmp_path.parent.parent / "x").exists()


def test_binary_config_is_one_line(tmp_path):
    cfg = tmp_path / "bin.yaml"
    cfg.write_bytes(bytes(range(256)) * 4)
    _one_line(runner.invoke(app, ["run", str(cfg)]), "bin.yaml:2: not a run config: not UTF-8 text (byte 0x80 at offset 128)")
    cfg.write_bytes(b"datasets: [smoke-grid]\nname: \x00\n")
    _one_line(runner.invoke(app, ["run", str(cfg)]), "bin.yaml:2: not valid YAML (unacceptable character #x0000)")
    _one_line(runner.invoke(app, ["run", str(tmp_path)]), "is a folder, expected a run config")


def test_failed_run_writes_no_results_file(tmp_path, monkeypatch):
    """An out-of-range --source fails the run: one line, exit 2, and no empty results file
    that would become the newest one for a bare `gpubfs report`."""
    monkeypatch.chdir(tmp_path)
    data = str(tmp_path / "data")
    ok = runner.invoke(app, ["run", "-d", "smoke-grid", "-s", "cpu.sequential", "--source", "0", "--dir", data])
    assert ok.exit_code == 0, ok.output
    first = sorted((tmp_path / "results").iterdir())
    assert len(first) == 1
    failed = runner.invoke(app, ["run", "-d", "smoke-grid", "-s", "cpu.sequential", "--source", "99999999", "--dir", data])
    _one_line(failed, "--source: vertex 99999999 is out of range for smoke-grid")
    assert sorted((tmp_path / "results").iterdir()) == first
    report = runner.invoke(app, ["report", "--format", "csv"])
    assert report.exit_code == 0 and "overview,smoke-grid,cpu.sequential," in report.stdout


def test_run_stopped_by_an_error_keeps_what_finished_marked_failed(tmp_path, monkeypatch):
    """Vertex 10,000 exists in smoke-grid (13,824 vertices), not in smoke-gnm (8,192): the
    grid's samples are written with `failed`, and a bare report passes the file over."""
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "results" / "partial.json"
    result = runner.invoke(app, ["run", "-d", "smoke-grid,smoke-gnm", "-s", "cpu.sequential", "--source", "10000",
                                 "--out", str(out), "--dir", str(tmp_path / "data")])
    _one_line(result, "--source: vertex 10000 is out of range for smoke-gnm")
    doc = load_results(out)
    assert doc["failed"].startswith("--source: vertex 10000 is out of range")
    assert {s["dataset"] for s in doc["samples"]} == {"smoke-grid"}
    bare = runner.invoke(app, ["report"])
    assert bare.exit_code == 2 and "none of the 1 in results/ is usable" in bare.stderr
    named = runner.invoke(app, ["report", str(out), "--format", "csv"])
    assert named.exit_code == 0 and "overview,smoke-grid,cpu.sequential," in named.stdout


def test_run_of_an_empty_graph_writes_nothing(tmp_path, monkeypatch):
    """A catalogue graph whose file holds no edge cannot be loaded: the run says why, exits
    1 and writes no results file (none to become the newest one)."""
    empty = tmp_path / "empty.txt"
    empty.write_text("# Nodes: 0 Edges: 0\n")
    cat = tmp_path / "cat.yaml"
    cat.write_text(f"datasets:\n  hollow:\n    kind: download\n    urls: [{empty.as_uri()}]\n    format: snap\n")
    monkeypatch.setenv("GPUBFS_CATALOGUE", str(cat))
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["run", "-d", "hollow", "-s", "cpu.sequential", "--dir", str(tmp_path / "data")])
    assert result.exit_code == 1, result.output
    assert "hollow: not run: " in result.stderr and "holds no edges" in result.stderr
    assert result.stderr.strip().endswith("nothing ran: no results file written")
    assert not (tmp_path / "results").exists()
    assert [p.name for p in (tmp_path / "data").iterdir()] == []  # nothing cached (the download is gone)
