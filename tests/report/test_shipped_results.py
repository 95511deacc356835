"""The results files shipped under docs/results/ still render every paper layout, with
strategies recorded under their earlier names (hong.vwarp, harish...) read under
today's, and the measured figures unchanged."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpubfs_cli.cli import app
from gpubfs_cli.report.load import load_many

RESULTS = Path(__file__).parents[2] / "docs" / "results"


def results_in(folder: Path) -> list[Path]:
    """The results files of a folder: *.json, and *.json.gz (the larger ones ship gzipped)."""
    return sorted([*folder.glob("*.json"), *folder.glob("*.json.gz")])


SHIPPED = sorted(p for folder in RESULTS.iterdir() if folder.is_dir() for p in results_in(folder))
# The papers' own families (bfs4k, lbbfs, raval), measured on an H100: rendered apart,
# since pooled with the H200 files of the same graphs the best cell could come from either.
FAMILIES = results_in(RESULTS / "h100-2026-11-23-s5")
# Session 6 (H100): `gpubfs reproduce luo`, the Gunrock peer, warm/cold L2, Merrill's knobs.
SESSION6 = results_in(RESULTS / "h100-2026-11-23-s6")
# Session 7 (H100): the catalogue run behind auto.bfs's table (do.* included), rendered apart.
SESSION7 = results_in(RESULTS / "h100-2026-11-23-s7")
# Session 8 (H100): do.bfs's small-frontier mode on and off beside Gunrock, and its profile.
SESSION8 = results_in(RESULTS / "h100-2026-11-23-s8")
# Session 9 (H100): do.bfs's growth and small-frontier variants beside Gunrock, the
# small-frontier probe, cpu.parallel_* beside gapbs at 1 and 16 threads.
SESSION9 = results_in(RESULTS / "h100-2026-11-23-s9")
# Session 10 (H100): do.bfs's defaults taking turns, merrill.hybrid's CTA sizes, the
# catalogue behind today's auto table and its held-out twin (heldout-catalogue-K*.json).
SESSION10 = results_in(RESULTS / "h100-2026-11-24-s10")
# Session 11 (H100): the catalogue behind today's auto table (files that record
# depth_probe) and its held-out twin, merrill's fixed cost.
SESSION11 = results_in(RESULTS / "h100-2026-11-24-s11")
# Session 12 (H100): the held-out catalogue's small graphs with one warm-up run, with
# 50 ms of warm-up (twice), and with 50 ms over 10 rounds.
SESSION12 = results_in(RESULTS / "h100-2026-11-24-s12")
# Session 13 (H100): do.bfs's mid-frontier mode, its team size swept, beside merrill.hybrid
# and Gunrock.
SESSION13 = results_in(RESULTS / "h100-2026-11-24-s13")
APART = (set(FAMILIES) | set(SESSION6) | set(SESSION7) | set(SESSION8) | set(SESSION9) | set(SESSION10)
         | set(SESSION11) | set(SESSION12) | set(SESSION13))
PAPERS = ("merrill", "luo", "bfs4k", "raval", "lbbfs")


def _render(files) -> dict[str, str]:
    runner = CliRunner()
    out = {}
    for paper in PAPERS:
        r = runner.invoke(app, ["report", "--paper", paper, "--format", "md", *map(str, files)])
        assert r.exit_code == 0, r.output
        out[paper] = r.stdout
    return out


@pytest.fixture(scope="module")
def rendered() -> dict[str, str]:
    return _render([p for p in SHIPPED if p not in APART])


@pytest.fixture(scope="module")
def rendered_families() -> dict[str, str]:
    return _render(FAMILIES)


@pytest.fixture(scope="module")
def rendered_session6() -> dict[str, str]:
    return _render(SESSION6)


def test_session6_figures_unchanged(rendered_session6):
    # Luo Table 3 the paper's way (H100): UIUC-BFS split 0.487 ms on the 1M scale-free graph
    # beside IIIT-BFS 2.493, the unsplit variant 5.060
    assert "| 1M | 161.5 \\| 2.493 | 52.8 \\| 57.58 | 100.7 \\| 0.487 | - \\| 5.060 |" in rendered_session6["luo"]


def test_session7_catalogue_figures_unchanged():
    # do.bfs on g500-s20-ef16 in the catalogue run: 0.136 ms median over 5 sources
    r = CliRunner().invoke(app, ["report", "--format", "md", "--metric", "ms", str(SESSION7[0])])
    assert r.exit_code == 0, r.output
    row = next(line for line in r.stdout.splitlines() if line.startswith("| do.bfs |"))
    assert "| 0.136 |" in row


def test_session8_small_frontier_figures_unchanged():
    # do.bfs on g500-s20-ef16, 50 sources: 0.147 ms with the small-frontier mode off, 0.178 on
    r = CliRunner().invoke(app, ["report", "--format", "md", "--metric", "ms",
                                 str(RESULTS / "h100-2026-11-23-s8" / "do-ab.json")])
    assert r.exit_code == 0, r.output
    assert "0.147 (small_frontier=0)" in r.stdout, r.stdout


def test_session9_figures_unchanged():
    s9 = RESULTS / "h100-2026-11-23-s9"
    # do.bfs on g500-s20-ef16 with Beamer's growth conditions: 0.162 ms, 50 sources
    r = CliRunner().invoke(app, ["report", "--format", "md", "--metric", "ms", str(s9 / "do-warm.json")])
    assert r.exit_code == 0, r.output
    assert "| do.bfs | 0.162 (growth=True,small_frontier=0)!" in r.stdout, r.stdout
    # gapbs's rows over gapbs are 1.000 (each thread count divided into its own run);
    # cpu.parallel_do with parents, best of 1 and 16 threads, 1.235x gapbs's speed
    r = CliRunner().invoke(app, ["report", "--format", "md", str(s9 / "cpu-parallel.json")])
    assert r.exit_code == 0, r.output
    vs = r.stdout[r.stdout.index("speedup over peer.gapbs"):]
    assert "| peer.gapbs | 1.000 (threads=1) |" in vs and "| cpu.parallel_do +pred | 1.235 [1.016-1.307]" in vs


def test_shipped_files_exist():
    assert len(SHIPPED) >= 7


def test_old_names_load_under_the_current_ones():
    results = load_many(SHIPPED)
    names = {s.strategy for s in results.samples}
    assert {"classic.vwarp", "classic.harish", "classic.edge_coo", "classic.spmv"} <= names
    assert not names & {"hong.vwarp", "harish", "edge.coo", "algebraic.spmv"}
    assert {s.problem for s in results.samples} == {"bfs", "sssp"}  # raval's SSSP runs


@pytest.mark.parametrize("paper", PAPERS)
def test_every_paper_layout_renders(rendered, paper):
    assert "| Graph |" in rendered[paper]


def test_measured_figures_unchanged(rendered):
    # Merrill Table 2, rmat.2Mv.128Me: hybrid predecessor 44.28 GTEPS, 165.2x speedup (the
    # median of per-source ratios with their interquartile range; 171.4x as a ratio of sums)
    assert "| 2.6 \\| 44.28 | 17 \\| 165.2 [158.6-183.1] |" in rendered["merrill"]
    # BFS-4K Table 2, rmat.2Mv.128Me: Harish 5.427 ms, edge-parallel 2.292, vwarp 1.544 (W32)
    assert "| 103.0 \\| 5.427 | 62.0 \\| 2.292 | 56.0 (W4) \\| 1.544 (W32) |" in rendered["bfs4k"]
    # Luo Table 1, 10M grid: UIUC-BFS 4.23 ms
    assert "| 10M | 11019.8 \\| 28.53 | 5023.0 \\| 291.3 | 488.0 \\| 4.230 | 10.3 \\| 68.87 |" in rendered["luo"]


def test_family_figures_unchanged(rendered_families):
    # lbbfs Fig. 7, R-MAT d = 64: perfect, balanced gathering, balanced redistribution, hybrid,
    # merrill (its best over this file and the BFS-4K runs of the same graph)
    assert "| rmat d=64 | 64.0 | 51.85 | 66.78 | 74.95 | 74.93 | 43.38 |" in rendered_families["lbbfs"]
    # BFS-4K Table 2, random.2Mv.128Me: Merrill 2.552 ms, BFS-4K 1.594 (its best variant over
    # the Table 2 and ablation runs) where the paper has 66.5 and 52.0
    assert "| 66.5 \\| 2.552 | 52.0 \\| 1.594 (K1=16," in rendered_families["bfs4k"]
    # Raval Fig. 11, rmat20: SSSP EP 77.88 ms without chunking, 4.143 with; BFS 22.96, 1.361
    assert "| rmat20 | 77.88 | 4.143 | 22.96 | 1.361 |" in rendered_families["raval"]


def test_every_results_file_under_docs_results_is_shipped_here():
    # A file in a deeper folder, or renamed away from *.json(.gz), would be rendered by no test.
    everything = {p for p in RESULTS.rglob("*") if p.is_file() and p.name.endswith((".json", ".json.gz"))}
    assert everything == set(SHIPPED)
    assert set(FAMILIES) <= set(SHIPPED)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_each_shipped_file_renders_alone(path):
    r = CliRunner().invoke(app, ["report", "--format", "md", str(path)])
    assert r.exit_code == 0, r.output
    assert str(path) in r.stdout and "median time per" in r.stdout
    assert re.search(r"\| \d+\.\d+", r.stdout)  # at least one measured cell


def test_session10_do_defaults_figures_unchanged():
    # do.bfs on g500-s20-ef16, 50 sources over 10 rounds: growth alone 0.153 ms
    r = CliRunner().invoke(app, ["report", "--format", "md", "--metric", "ms",
                                 str(RESULTS / "h100-2026-11-24-s10" / "do-defaults.json")])
    assert r.exit_code == 0, r.output
    assert "| g500-s20-ef16 | 0.153 (growth=True,small_frontier=0)! |" in r.stdout, r.stdout


def test_session13_mid_frontier_figures_unchanged():
    # grid5pt.5000: do.bfs with the mid-frontier mode (default) 5.81 us a level, merrill.hybrid 6.11
    r = CliRunner().invoke(app, ["report", "--format", "md", "--metric", "us_level",
                                 str(RESULTS / "h100-2026-11-24-s13" / "do-levels.json.gz")])
    assert r.exit_code == 0, r.output
    assert "| grid5pt.5000 | 5.810 (mid_ctas=0,mid_frontier=32768,small_frontier=512) | 6.114 |" in r.stdout, r.stdout
