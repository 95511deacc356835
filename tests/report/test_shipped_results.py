"""The results files shipped under docs/results/ (one folder per machine and date, every
results file gzipped) still render alone and in every paper layout, with strategies
recorded under their earlier names (hong.vwarp, harish...) read under today's. The figures
the docs quote from them are recomputed through docs/results/claims.yaml
(tests/report/test_claims.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpubfs_cli.cli import app
from gpubfs_cli.report.load import load_many, shown_path
from tests.report.claims import FOLDER, INDEX, RESULTS
from tests.report.pools import pooled_sets

PAPERS = ("merrill", "luo", "bfs4k", "raval", "lbbfs")
# The GPU each folder's name says its files were measured on (h200x2: two of them).
MACHINES = {"h100": "NVIDIA H100 80GB HBM3", "h200": "NVIDIA H200"}


def results_in(folder: Path) -> list[Path]:
    """The results files of a folder (shipped gzipped)."""
    return sorted(folder.glob("*.json.gz"))


FOLDERS = sorted(p for p in RESULTS.iterdir() if p.is_dir())
# The shipped sets: each folder that holds results files, by name (the others hold printed tables).
SHIPPED = {p.name: results_in(p) for p in FOLDERS if results_in(p)}
EVERY = sorted(p for files in SHIPPED.values() for p in files)


def machine(name: str) -> str:
    return MACHINES[re.match(r"[a-z]+\d+", name).group(0)]


def _render(files, paper) -> str:
    r = CliRunner().invoke(app, ["report", "--paper", paper, "--format", "md", *map(str, files)])
    assert r.exit_code == 0, r.output
    return r.stdout


@pytest.fixture(scope="module")
def rendered() -> dict[tuple[str, str], str]:
    """Every paper layout over each shipped set, as `gpubfs report --paper KEY FOLDER/*`
    (each set read once for its five layouts: tests/report/pools.py)."""
    with pooled_sets(SHIPPED):
        return {(name, paper): _render(files, paper) for name, files in SHIPPED.items() for paper in PAPERS}


def test_docs_results_holds_one_folder_per_machine_and_date():
    # the index beside the folders, every file one folder down: a file anywhere else would
    # be rendered by no test
    assert sorted(p.name for p in RESULTS.iterdir() if not p.is_dir()) == [INDEX.name]
    assert all(re.fullmatch(FOLDER, p.name) for p in FOLDERS), [p.name for p in FOLDERS]
    assert all(f.is_file() for p in FOLDERS for f in p.iterdir())


def test_every_results_file_is_gzipped_and_in_a_shipped_set():
    everything = {p for p in RESULTS.rglob("*") if p.is_file() and ".json" in p.name}
    assert everything == set(EVERY), "a results file under docs/results/ that is not *.json.gz in a shipped set"


@pytest.mark.parametrize("name", SHIPPED)
@pytest.mark.parametrize("paper", PAPERS)
def test_every_paper_layout_renders_each_set(rendered, name, paper):
    text = rendered[(name, paper)]
    assert "| Graph |" in text
    assert machine(name) in text  # each set's files were measured on its folder's machine


def test_old_names_load_under_the_current_ones():
    results = load_many(EVERY)
    names = {s.strategy for s in results.samples}
    assert {"classic.vwarp", "classic.harish", "classic.edge_coo", "classic.spmv"} <= names
    assert not names & {"hong.vwarp", "harish", "edge.coo", "algebraic.spmv"}
    assert {s.problem for s in results.samples} == {"bfs", "sssp"}  # raval's SSSP runs


@pytest.mark.parametrize("path", EVERY, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_each_shipped_file_renders_alone(path):
    r = CliRunner().invoke(app, ["report", "--format", "md", str(path)])
    assert r.exit_code == 0, r.output
    assert shown_path(path) in r.stdout and "median time per" in r.stdout
    assert str(RESULTS) not in r.stdout  # relative to the working directory, or the name alone
    assert re.search(r"\| \d+\.\d+", r.stdout)  # at least one measured cell
