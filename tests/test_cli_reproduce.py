"""`gpubfs reproduce` through CliRunner on a tiny paper-like set (no GPU, no network).

A temporary papers folder holds a copy of the luo layout whose `configs:` names one run
config of a temporary experiments folder (smoke graphs, cpu.sequential and a GPU strategy),
and a catalogue entry whose download cannot be had (a loopback URL nobody serves). The
tests run in the temporary folder, so no results/ of the checkout counts as history.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpubfs_cli.cli import app
from gpubfs_cli.configs import shipped
from gpubfs_cli.datasets import catalogue
from gpubfs_cli.gpu import backend
from gpubfs_cli.report.load import shown_path
from gpubfs_cli.results.schema import load_results

runner = CliRunner()

UNREACHABLE = """
  offline-graph:
    kind: download
    description: "a download that cannot be had here"
    urls: ["http://127.0.0.1:9/offline.mtx"]
    format: mtx
    expected: {n: 1000, m: 5000}
"""


def tiny_paper(tmp_path: Path, monkeypatch, run_config: str) -> Path:
    """A papers folder with `tiny` (luo's layout) whose configs list is [tiny-run], that run
    config's text `run_config`, named by $GPUBFS_PAPERS_DIR; the working folder is
    tmp_path. Returns the run config's path."""
    monkeypatch.chdir(tmp_path)
    papers = tmp_path / "configs" / "papers"
    experiments = tmp_path / "configs" / "experiments"
    papers.mkdir(parents=True)
    experiments.mkdir()
    text = (shipped("papers") / "luo.yaml").read_text()
    text = text.replace("key: luo", "key: tiny").replace("configs: [luo]", "configs: [tiny-run]")
    (papers / "tiny.yaml").write_text(text)
    (experiments / "tiny-run.yaml").write_text(run_config)
    monkeypatch.setenv("GPUBFS_PAPERS_DIR", str(papers))
    return experiments / "tiny-run.yaml"


@pytest.fixture
def paper(tmp_path, monkeypatch):
    """`tiny` whose run has an offline graph beside two generated ones, on no GPU."""
    monkeypatch.setattr(backend, "unavailable_reason", lambda: "disabled for this test")
    tiny_paper(tmp_path, monkeypatch, "name: tiny-run\n"
                                      "datasets: [smoke-gnm, smoke-grid, offline-graph]\n"
                                      "strategies: [cpu.sequential, merrill.hybrid]\n"
                                      "sources: 2\nwarmup: 0\nrequire_gpu: true\n")
    cat = tmp_path / "datasets.yaml"
    cat.write_text(shipped("datasets.yaml").read_text().rstrip("\n") + "\n" + UNREACHABLE)
    monkeypatch.setenv(catalogue.CATALOGUE_ENV, str(cat))
    return tmp_path


def invoke(tmp: Path, *extra: str):
    return runner.invoke(app, ["reproduce", "tiny", "--dir", str(tmp / "data"), "--results", str(tmp / "out"), *extra])


def test_dry_run_lists_the_plan_and_runs_nothing(paper):
    result = invoke(paper, "--dry-run")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "no usable GPU here (disabled for this test): only the CPU rows run" in out
    assert "tiny-run: bfs merrill.hybrid: not run here: disabled for this test" in out
    assert "tiny-run: smoke-gnm: generate first" in out
    assert "tiny-run: offline-graph: fetch first" in out
    # 3 graphs x cpu.sequential, and their 3 baselines: no GPU and no history, so nothing is guessed
    assert "estimates for this CPU (" in out and "no GPU: its own earlier results (none yet) only" in out
    # the download's time is unknown too: no download was measured here
    assert ("tiny · tiny-run: 3 cell(s) to run, 0 finished, time unknown, plus 1 download(s) of unknown time "
            "(from unknown: 6)") in out
    assert "tiny: 3 cell(s) to run, time unknown, plus 1 download(s) of unknown time in all (from unknown: 6)" in out
    # every graph once, with its sizes and its fit (no GPU here)
    assert "tiny: 3 graph(s) in its tables:" in out
    assert re.search(r"^  offline-graph: download about 8.0 KB \(estimated\), 28 KB converted, conversion needs "
                     r".+, a BFS needs .+ of GPU memory \(no GPU here\), download time unknown "
                     r"\(no download measured here\)$", out, re.M), out
    assert not (paper / "out").exists() and not (paper / "data").exists()


def test_runs_skips_what_cannot_be_had_then_resumes(paper):
    result = invoke(paper)
    assert result.exit_code == 0, result.output
    out = result.output
    assert re.search(r"tiny-run: offline-graph: skipped, cannot be had here: .+", out)
    # the cells stay missing, and the line says how to fill them
    assert ("tiny-run: offline-graph: its cells stay missing: not fetched; to fill them: gpubfs fetch-dataset "
            "offline-graph (about 8.0 KB to download), then gpubfs reproduce tiny") in out
    # after each graph: its time, the time so far, what is left
    assert re.search(r"tiny · tiny-run: smoke-gnm done in (under 1|\d+) s \(estimate time unknown\); "
                     r"(under 1|\d+) s so far, time left unknown\n", out), out
    assert re.search(r"tiny · tiny-run: smoke-grid done in .+; .+ so far, nothing left\n", out), out
    files = sorted((paper / "out" / "tiny").glob("*.json"))
    assert len(files) == 1
    doc = load_results(files[0])
    assert set(doc["datasets"]) == {"smoke-gnm", "smoke-grid"}
    assert {s["strategy"] for s in doc["samples"]} == {"cpu.sequential"}
    assert "tiny: report written to" in out
    assert (paper / "out" / "tiny" / "report.html").read_text().lstrip().lower().startswith("<!doctype html")

    again = invoke(paper)
    assert again.exit_code == 0, again.output
    # the two smoke cells are finished; the graph that cannot be had is tried again
    assert "tiny · tiny-run: 1 cell(s) to run, 2 finished" in again.output, again.output
    # this CPU's own results now estimate cpu.sequential (the cell and its baseline)
    assert re.search(r"tiny · tiny-run: 1 cell\(s\) to run, 2 finished, (about .+|under 1 s.*) \(from local history: 2\)",
                     again.output), again.output
    assert "tiny-run: offline-graph: skipped, cannot be had here" in again.output
    assert sorted((paper / "out" / "tiny").glob("*.json")) == files  # nothing ran


def test_an_unfinished_cell_runs_again(paper):
    assert invoke(paper).exit_code == 0
    (path,) = (paper / "out" / "tiny").glob("*.json")
    doc = load_results(path)
    # cut smoke-gnm's cell to one of its two sources: an interrupted run's leftovers
    cut = [s for s in doc["samples"] if s["dataset"] == "smoke-gnm"][1:]
    doc["samples"] = [s for s in doc["samples"] if s not in cut]
    from gpubfs_cli.results.schema import write_results

    write_results(path, doc)
    result = invoke(paper, "--dry-run")
    assert "tiny · tiny-run: 2 cell(s) to run, 1 finished" in result.output, result.output
    assert invoke(paper).exit_code == 0
    new = [p for p in (paper / "out" / "tiny").glob("*.json") if p != path]
    assert len(new) == 1 and set(load_results(new[0])["datasets"]) == {"smoke-gnm"}


def test_a_failed_cell_fails_the_reproduction(paper):
    """A wrong answer is a finished cell (not re-run) but the reproduction exits 1, as `run` does."""
    assert invoke(paper).exit_code == 0
    (path,) = (paper / "out" / "tiny").glob("*.json")
    doc = load_results(path)
    doc["samples"][0].update(status="wrong-answer", valid=False, reason="planted")
    from gpubfs_cli.results.schema import write_results

    write_results(path, doc)
    result = invoke(paper)
    assert result.exit_code == 1, result.output
    assert "1 cells failed (wrong-answer or error)" in result.output


@pytest.fixture
def no_datasets(monkeypatch):
    """The dataset layer fails loudly if anything asks it for a graph or the cache."""
    from gpubfs_cli.datasets import prepare, store

    def called(*args, **kwargs):
        raise AssertionError("the dataset layer was called before --results was checked")

    for module, names in ((prepare, ("ensure_dataset", "resolve_entry")), (store, ("is_cached", "read_meta"))):
        for name in names:
            monkeypatch.setattr(module, name, called)


@pytest.mark.parametrize("dry", [False, True])
def test_results_folder_is_checked_before_any_graph(paper, no_datasets, dry):
    """A file where the results folder (or the paper's folder in it) should be: one line,
    exit 2, and no graph fetched or built; the dry run checks it too."""
    extra = ["--dry-run"] if dry else []
    blocker = paper / "out"
    blocker.write_text("not a folder")
    result = invoke(paper, *extra)
    assert result.exit_code == 2, result.output
    assert result.output.strip() == f"error: --results {blocker}: {blocker} is not a folder"

    blocker.unlink()
    (paper / "out").mkdir()
    (paper / "out" / "tiny").write_text("not a folder")
    result = invoke(paper, *extra)
    assert result.exit_code == 2, result.output
    assert result.output.strip() == f"error: --results {blocker}: {blocker / 'tiny'} is not a folder"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_results_folder_must_take_a_file(paper, no_datasets):
    locked = paper / "locked"
    locked.mkdir(mode=0o500)
    try:
        result = runner.invoke(app, ["reproduce", "tiny", "--dir", str(paper / "data"),
                                     "--results", str(locked / "out")])
    finally:
        locked.chmod(0o700)
    assert result.exit_code == 2, result.output
    assert result.output.strip().startswith(f"error: --results {locked / 'out'}: cannot write in {locked} (")


def test_unknown_paper_and_missing_configs_are_one_line(paper):
    result = runner.invoke(app, ["reproduce", "tinny", "--dry-run"])
    assert result.exit_code == 2
    assert "unknown paper 'tinny'" in result.output and "tiny" in result.output
    shutil.copy(paper / "configs" / "papers" / "tiny.yaml", paper / "configs" / "papers" / "bad.yaml")
    bad = paper / "configs" / "papers" / "bad.yaml"
    bad.write_text(bad.read_text().replace("key: tiny", "key: bad").replace("configs: [tiny-run]", "configs: [nope]"))
    result = runner.invoke(app, ["reproduce", "bad", "--dry-run"])
    assert result.exit_code == 2
    assert len(result.output.strip().splitlines()) == 1
    assert "bad.yaml: configs[0]: no run config" in result.output


def test_every_paper_names_existing_configs():
    from gpubfs_cli.report.papers import load_all
    from gpubfs_cli.workflows.reproduce import paper_config_paths

    for p in load_all():
        assert paper_config_paths(p.key), p.key


# ---------------------------------------------------------------- --quick
def quick_files(tmp: Path) -> list[Path]:
    return sorted((tmp / "results" / "reproduce-quick" / "tiny").glob("*.json"))


def test_quick_run_records_its_mode_and_the_report_says_so(paper, monkeypatch):
    """--quick-sources 1 (implies --quick) into the default quick folder, the paper's CPU
    column swapped for the parallel CPU BFS: every answer still checked, the file records
    the mode, and the report prints the quick line (a full file prints none)."""
    from gpubfs_cli.workflows import reproduce as rp

    monkeypatch.setitem(rp.QUICK_CPU, "tiny", {"cpu.sequential": "cpu.parallel_do"})
    result = runner.invoke(app, ["reproduce", "tiny", "--dir", str(paper / "data"), "--quick-sources", "1"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert ("tiny: quick mode: at most 1 source a graph; CPU column from cpu.parallel_do (not cpu.sequential) "
            "(every answer still checked against the baseline)") in out
    assert "tiny · tiny-run (1 source a graph): 3 cell(s) to run, 0 finished" in out
    assert "quick mode: 1 source a graph, CPU column from cpu.parallel_do (not cpu.sequential)" in out  # the report
    assert not (paper / "results" / "reproduce").exists()
    html = paper / "results" / "reproduce-quick" / "tiny" / "report-quick.html"
    assert f"tiny: report written to {html.relative_to(paper)}" in out and html.is_file()
    (path,) = quick_files(paper)
    doc = load_results(path)
    assert doc["reproduce"] == {"paper": "tiny", "mode": "quick", "sources": 1, "quick_sources": 1,
                                "cpu": {"cpu.sequential": "cpu.parallel_do"}}
    assert doc["config"]["sources"] == 1 and all(len(v) == 1 for v in doc["sources"].values())
    ok = [s for s in doc["samples"] if s["status"] == "ok"]
    assert {s["strategy"] for s in doc["samples"]} == {"cpu.parallel_do"}
    assert len(ok) == 2 and all(s["valid"] is True for s in ok)  # checked against cpu.sequential's answers

    report = runner.invoke(app, ["report", "--paper", "tiny", str(path)])
    assert report.exit_code == 0, report.output
    lines = report.output.splitlines()
    quick = [i for i, line in enumerate(lines) if line.startswith("quick mode:")]
    assert len(quick) == 1, report.output
    assert lines[quick[0]] == "quick mode: 1 source a graph, CPU column from cpu.parallel_do (not cpu.sequential)"
    assert lines[quick[0] - 1].startswith(f"measured: {shown_path(path)}: ")  # under the header's measured lines

    assert invoke(paper).exit_code == 0  # a full run: its own folder (--results), no mode line
    (full,) = sorted((paper / "out" / "tiny").glob("*.json"))
    assert load_results(full)["reproduce"] == {"paper": "tiny", "mode": "full"}
    report = runner.invoke(app, ["report", "--paper", "tiny", str(full)])
    assert report.exit_code == 0, report.output
    assert "quick mode" not in report.output and "full mode" not in report.output

    both = runner.invoke(app, ["report", "--paper", "tiny", str(full), str(path)])
    assert both.exit_code == 0, both.output
    text = both.output.replace("\n", " ")
    assert f"quick mode: 1 source a graph, CPU column from cpu.parallel_do (not cpu.sequential): {shown_path(path)}" in text
    assert f"full mode: {shown_path(full)}" in text
    assert "mixed modes: a cell may pool samples of quick and full files" in text


def test_resume_keeps_quick_and_full_cells_apart(paper):
    """One --results folder for both modes: a full run's cells do not finish quick ones, a
    quick run's do not finish full ones, and a quick run of fewer sources does not finish
    one of more. Each mode's report leaves the other mode's files out."""
    assert invoke(paper).exit_code == 0
    quick = invoke(paper, "--quick", "--dry-run")
    assert "tiny · tiny-run (2 sources a graph): 3 cell(s) to run, 0 finished" in quick.output, quick.output

    result = invoke(paper, "--quick-sources", "1")
    assert result.exit_code == 0, result.output
    assert "tiny: 1 full-mode file(s) in" in result.output and "left out of this quick-mode report" in result.output
    files = sorted((paper / "out" / "tiny").glob("*.json"))
    assert sorted(load_results(p)["reproduce"]["mode"] for p in files) == ["full", "quick"]

    full = invoke(paper, "--dry-run")
    assert "tiny · tiny-run: 1 cell(s) to run, 2 finished" in full.output, full.output
    again = invoke(paper, "--quick-sources", "1", "--dry-run")
    assert "tiny · tiny-run (1 source a graph): 1 cell(s) to run, 2 finished" in again.output, again.output
    more = invoke(paper, "--quick", "--dry-run")  # 2 sources: the 1-source quick cells do not count
    assert "tiny · tiny-run (2 sources a graph): 3 cell(s) to run, 0 finished" in more.output, more.output

    result = invoke(paper)
    assert result.exit_code == 0, result.output
    assert "tiny: 1 quick-mode file(s) in" in result.output and "left out of this full-mode report" in result.output
    assert sorted((paper / "out" / "tiny").glob("*.json")) == files  # nothing ran


@pytest.mark.parametrize("value", ["0", "-3"])
def test_bad_quick_sources_is_one_line(paper, no_datasets, value):
    result = invoke(paper, "--quick-sources", value, "--dry-run")
    assert result.exit_code == 2, result.output
    assert result.output.strip() == f"error: --quick-sources: expected a positive whole number of sources, got {value}"
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_each_vertex_order_is_a_cell_of_its_own(paper):
    # Run with the graphs' own order, then sweep a second: only the new order's cells are
    # left (the offline graph's two cells never ran), and once run they count as finished.
    run_config = paper / "configs" / "experiments" / "tiny-run.yaml"
    base = run_config.read_text()
    run_config.write_text(base + "reorder: [none]\n")
    assert invoke(paper).exit_code == 0
    run_config.write_text(base + "reorder: [none, degree]\n")
    plan = invoke(paper, "--dry-run")
    assert "tiny · tiny-run: 4 cell(s) to run, 2 finished" in plan.output, plan.output
    assert invoke(paper).exit_code == 0
    again = invoke(paper, "--dry-run")
    assert "tiny · tiny-run: 2 cell(s) to run, 4 finished" in again.output, again.output
