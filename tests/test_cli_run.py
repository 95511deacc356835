"""`gpubfs run` and `gpubfs info` through Typer's CliRunner (no GPU needed)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from gpubfs_cli.cli import app
from gpubfs_cli.gpu import backend
from gpubfs_cli.results.journal import journal_path
from gpubfs_cli.results.schema import SCHEMA_VERSION, load_results

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
    from gpubfs_cli.bench.config import load_config
    from gpubfs_cli.configs import experiments_dir

    cfg = load_config(experiments_dir() / f"{name}.yaml")  # real catalogue and registry
    assert cfg.name == name and cfg.datasets and cfg.variants
    assert {"cpu.sequential", "cpu.scipy", "cpu.networkx"} <= {v.strategy for v in cfg.variants}


def test_smoke_config_runs_end_to_end(tmp_path, no_gpu):
    out = tmp_path / "smoke.json"  # the shipped config by its bare name
    result = runner.invoke(app, ["run", "smoke", "--out", str(out), "--dir", str(tmp_path / "data")])
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
    # --quiet: no progress lines (each graph's, each turn's) before the error's one line
    result = runner.invoke(app, ["--quiet", "run", "-d", "smoke-grid,smoke-gnm", "-s", "cpu.sequential", "--source",
                                 "10000", "--out", str(out), "--dir", str(tmp_path / "data")])
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


# ---------------------------------------------------------------- stopped runs, journals


@pytest.fixture
def stops(monkeypatch):
    """fakerun.stops registered, and every dataset a 6 x 6 grid (nothing generated)."""
    from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs
    from gpubfs_cli.bench import runner as runner_module
    from gpubfs_cli.core import strategy as strategy_module
    from gpubfs_cli.core.problem import discover
    from gpubfs_cli.core.strategy import Strategy
    from gpubfs_cli.graph.samples import grid

    class Stops(Strategy):
        name = "fakerun.stops"
        paper = "cpu"
        section = "test"
        after: int | None = 3
        calls = 0

        def traverse(self, source, predecessors=False):
            Stops.calls += 1
            if Stops.after is not None and Stops.calls > Stops.after:
                raise KeyboardInterrupt
            return sequential_bfs(self.graph, source, predecessors)

    discover()
    monkeypatch.setitem(strategy_module._REGISTRY["bfs"], Stops.name, Stops)
    monkeypatch.setattr(runner_module, "default_loader", lambda spec, d, p: (grid(6, 6, name=spec.name), {}))
    return Stops


def _run_stops(tmp_path, *args):
    return runner.invoke(app, ["run", "-d", "smoke-grid", "-s", "cpu.sequential,fakerun.stops", "--sources", "5",
                               "--warmup", "0", "--dir", str(tmp_path / "data"), *args])


def test_ctrl_c_leaves_partial_cells_marked_and_resume_finishes_them(tmp_path, monkeypatch, stops):
    monkeypatch.chdir(tmp_path)
    result = _run_stops(tmp_path)
    assert result.exit_code == 130, result.output
    (path,) = (tmp_path / "results").glob("*.json")
    journal = path.with_name(path.stem + ".journal.jsonl")
    assert " ms (3/5)" in result.stdout  # the end table: 3 of the 5 sources
    assert "partial (3 of 5 sources measured" in result.stdout
    assert (f"interrupted by SIGINT during fakerun.stops on smoke-grid: the results file keeps every sample "
            f"measured, cells marked (measured/planned) are partial; go on with: gpubfs run --resume "
            f"results/{journal.name}") in " ".join(result.stderr.split())
    for file in (path, journal):  # the report reads the results file and the journal alike
        report = runner.invoke(app, ["report", str(file), "--format", "md"])
        assert report.exit_code == 0, report.output
        assert "(3/5)" in report.stdout and "the run did not complete: interrupted by SIGINT" in report.stdout
    bad = runner.invoke(app, ["run", "--resume", str(journal), "--sources", "6"])
    _one_line(bad, "the run config differs from the journal's (sources: 6 here, 5 in the journal)")
    stops.after = None
    done = runner.invoke(app, ["run", "--resume", str(journal)])
    assert done.exit_code == 0, done.output
    assert "(3/5)" not in done.stdout and not journal.exists()
    doc = load_results(path)
    assert doc["complete"] is True and len(doc["resumed"]) == 1
    per = {}
    for s in doc["samples"]:
        per.setdefault(s["strategy"], []).append(s["source"])
    assert sorted(per["fakerun.stops"]) == sorted(per["cpu.sequential"]) == sorted(doc["sources"]["smoke-grid"])


def test_ctrl_c_during_the_reference_answers_says_so(tmp_path, monkeypatch, stops):
    from gpubfs_cli.bench import graph_run as graph_run_module

    def no_references(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(graph_run_module, "problem_input", no_references)
    out = tmp_path / "r.json"
    result = _run_stops(tmp_path, "--out", str(out))
    assert result.exit_code == 130, result.output
    assert result.stderr.strip() == ("interrupted by SIGINT during the reference answers of smoke-grid (bfs): "
                                     "nothing was measured, so no results file")
    assert "not run" not in result.output and not out.exists()


def test_out_over_an_existing_file_needs_force(tmp_path, stops):
    stops.after = None
    out = tmp_path / "r.json"
    assert _run_stops(tmp_path, "--out", str(out)).exit_code == 0
    before = out.read_text()
    _one_line(_run_stops(tmp_path, "--out", str(out)), f"{out}: already exists; give --force to replace it, or another --out")
    assert out.read_text() == before
    forced = _run_stops(tmp_path, "--out", str(out), "--force")
    assert forced.exit_code == 0, forced.output
    assert out.read_text() != before


def test_runs_started_in_one_second_never_share_a_results_file(tmp_path, monkeypatch, stops):
    from datetime import datetime, timezone

    from gpubfs_cli.bench import runner as runner_module

    stops.after = None
    monkeypatch.chdir(tmp_path)
    second = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    real = runner_module.default_out_path
    monkeypatch.setattr(runner_module, "default_out_path", lambda cfg, now=None: real(cfg, second))
    for _ in range(3):
        assert _run_stops(tmp_path).exit_code == 0
    assert sorted(p.name for p in (tmp_path / "results").iterdir()) == [
        "run-20260102T030405Z-2.json", "run-20260102T030405Z-3.json", "run-20260102T030405Z.json"]


def test_a_config_where_nothing_can_run_loads_no_graph(tmp_path, monkeypatch, no_gpu):
    """merrill.yaml without a GPU: no graph generated, no reference answer computed, one
    line saying so, exit 1 and no results file."""
    from gpubfs_cli.bench import runner as runner_module

    def load(*args):
        raise AssertionError("no graph should be loaded")

    monkeypatch.setattr(runner_module, "default_loader", load)
    monkeypatch.chdir(tmp_path)  # no configs/ here: the old spelling names the shipped file
    out = tmp_path / "m.json"
    result = runner.invoke(app, ["run", "configs/experiments/merrill.yaml", "--no-require-gpu", "--out", str(out), "--dir", str(tmp_path / "d")])
    assert result.exit_code == 1, result.output
    assert result.stderr.splitlines() == ["error: nothing was measured: no strategy of this run can run here "
                                          "(merrill.hybrid: disabled for this test); no results file written"]
    assert not out.exists() and not journal_path(out).exists()


@pytest.fixture(scope="module")
def gnm_data(tmp_path_factory):
    """A dataset folder that the subprocess runs below share (smoke-gnm made once)."""
    return tmp_path_factory.mktemp("gnm-data")


def _start_and_stop(tmp_path, data, send, after_s=0.0, sources=100):
    """`python -m gpubfs_cli run` (cpu.sequential, then the slow cpu.networkx, on
    `sources` sources of smoke-gnm), sent `send` once its first turn is journaled (and
    `after_s` more seconds): (its journal, its return code)."""
    import subprocess
    import sys
    import time

    cmd = [sys.executable, "-m", "gpubfs_cli", "run", "-d", "smoke-gnm", "-s", "cpu.sequential,cpu.networkx",
           "--sources", str(sources), "--dir", str(data)]
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    journal = None
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            found = list((tmp_path / "results").glob("*.journal.jsonl")) if (tmp_path / "results").exists() else []
            if found and b'"kind":"measured"' in found[0].read_bytes():
                journal = found[0]
                break
            time.sleep(0.02)
        time.sleep(after_s)
        proc.send_signal(send)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert journal is not None, proc.stderr.read().decode()
    return journal, proc.returncode


def test_sigkill_loses_at_most_the_group_in_flight(tmp_path, gnm_data):
    """Killed once its first turn is journaled: the journal replays into a partial
    results document, and --resume finishes it with every source once."""
    import signal
    import subprocess
    import sys

    from gpubfs_cli.results.replay import read_journal

    journal, code = _start_and_stop(tmp_path, gnm_data, signal.SIGKILL)
    assert code == -signal.SIGKILL
    doc = read_journal(journal).results()
    assert doc["complete"] is False and doc["finished"] is None
    ok = {s["strategy"] for s in doc["samples"] if s["status"] == "ok"}
    assert "cpu.sequential" in ok and len(doc["sources"]["smoke-gnm"]) == 100
    report = runner.invoke(app, ["report", str(journal), "--format", "md"])
    assert report.exit_code == 0 and "unfinished (no end recorded" in report.stdout
    done = subprocess.run([sys.executable, "-m", "gpubfs_cli", "run", "--resume", str(journal)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    final = load_results(journal.with_name(journal.name.replace(".journal.jsonl", ".json")))
    assert final["complete"] is True
    for strategy in ("cpu.sequential", "cpu.networkx"):
        got = sorted(s["source"] for s in final["samples"] if s["strategy"] == strategy)
        assert got == sorted(final["sources"]["smoke-gnm"])


def test_sigterm_writes_the_partial_results_and_exits_143(tmp_path, gnm_data):
    import signal

    # cpu.networkx takes 5-15 ms a source: 5,000 of them outlast the 4 s it is given by far
    # (600 did not always: a run that had finished died by the default SIGTERM, exit -15)
    journal, code = _start_and_stop(tmp_path, gnm_data, signal.SIGTERM, after_s=4.0, sources=5000)
    assert code == 143
    doc = load_results(journal.with_name(journal.name.replace(".journal.jsonl", ".json")))
    assert (doc["complete"], doc["interrupted"], doc["stopped_by"]) == (False, True, "SIGTERM")
    assert doc["interrupted_during"] == "cpu.networkx on smoke-gnm"
    cells = {c["strategy"]: c for c in doc["summaries"]}
    assert cells["cpu.sequential"]["partial"] is False
    assert cells["cpu.networkx"]["partial"] is True  # what it measured before the signal is kept


def test_sssp_on_a_road_like_graph_without_a_gpu(tmp_path, monkeypatch, no_gpu):
    """The sssp-delta config on a small geometric graph built like geo-road-1M, no GPU:
    every GPU row unavailable, cpu.dijkstra checked, gapbs's sssp timed where its build runs."""
    import os
    from pathlib import Path

    from gpubfs_cli.algorithms.bfs.peer.gapbs_common import host_binary

    # gapbs's sssp build, where the peers' folder has one this host runs, named as a user would
    peers = Path(os.environ.get("GPUBFS_PEERS") or Path(__file__).resolve().parents[2] / "shared" / "peers")
    gapbs, why = host_binary("sssp", (peers / "gapbs" / "sssp",))
    monkeypatch.delenv("GPUBFS_GAPBS_SSSP", raising=False)
    if gapbs is not None:
        monkeypatch.setenv("GPUBFS_GAPBS_SSSP", str(gapbs))
    catalogue = tmp_path / "catalogue.yaml"
    catalogue.write_text(
        "datasets:\n  geo-road-test:\n    kind: generated\n    description: a small road-like stand-in\n"
        "    generator: geometric\n    params: {n: 3000, k: 2}\n    weights: true\n    seed: 1\n    directed: false\n")
    monkeypatch.setenv("GPUBFS_CATALOGUE", str(catalogue))
    out = tmp_path / "sssp.json"
    result = runner.invoke(app, ["run", "sssp-delta", "-d", "geo-road-test", "--no-require-gpu", "--sources", "2",
                                 "--out", str(out), "--dir", str(tmp_path / "data")])
    assert result.exit_code == 0, result.output
    samples = load_results(out)["samples"]
    by = {}
    for s in samples:
        by.setdefault(s["strategy"], []).append(s)
    for name in ("sssp.delta", "sssp.near_far", "sssp.regions", "raval.bs", "raval.ep"):
        assert by[name] and all(s["status"] == "unavailable" for s in by[name]), name
    assert len(by["cpu.dijkstra"]) == 2 and all(s["status"] == "ok" and s["valid"] for s in by["cpu.dijkstra"])
    if gapbs is None:
        assert all(s["status"] == "unavailable" for s in by["peer.gapbs"])
        pytest.skip(f"peer.gapbs not timed: {why}")
    # every delta of the config's sweep (multiples of the mean weight), from both sources, its -d recorded
    scales = [0.015625, 0.0625, 0.25, 1, 4, 16, 64, 256]
    assert sorted(s["knobs"]["delta_scale"] for s in by["peer.gapbs"]) == sorted(2 * scales)
    used = {s["knobs"]["delta_scale"]: s["counters"]["delta"] for s in by["peer.gapbs"]}
    assert [used[x] for x in scales] == sorted(used.values()) and used[64] > used[1] > 1
    assert all(s["status"] == "ok" and s["time_ms"] > 0 for s in by["peer.gapbs"])
