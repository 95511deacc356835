"""--plot writes PNG and SVG from results files alone; frontier sizes come from a
strategy's counters or from the baseline frontier the run stored."""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.graph.build import build_csr
from gpubfs_cli.graph.edges import EdgeList
from gpubfs_cli.report.load import load_many
from gpubfs_cli.report.plots import write_plots
from tests.report.docs import main_doc, sample, write

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_plot_files_written(tmp_path):
    doc = main_doc()
    doc["samples"].append(sample("g1", "merrill.hybrid", 0, 1.0, knobs={"gather": "warp", "culling": "history"},
                                 counters={"frontier_vertices": [1, 7, 50, 300, 642],
                                           "frontier_edges": [8, 56, 400, 2400, 5136]}).to_dict())
    results = load_many([write(tmp_path, "main.json", doc)])
    out = tmp_path / "plots"
    files, notes = write_plots(results, out)
    names = sorted(p.name for p in files)
    assert names == ["frontier-g1.png", "frontier-g1.svg", "speedup.png", "speedup.svg",
                     "throughput.png", "throughput.svg"]
    for p in files:
        data = p.read_bytes()
        assert data.startswith(PNG_MAGIC) if p.suffix == ".png" else b"<svg" in data[:2000]
    assert not list(out.glob(".*"))  # no temporary files left
    # g2 has no counters and no recorded frontier: skipped, with the reason
    assert len(notes) == 1 and notes[0].startswith("frontier-g2: skipped: ")


def test_frontier_from_the_baseline_the_run_stored(tmp_path, monkeypatch):
    """The runner stores the baseline's logical frontiers in the dataset's entry; the
    plot reads them there and never opens the dataset cache."""
    import gpubfs_cli.datasets.store as store

    monkeypatch.setattr(store, "load_graph", lambda *a, **k: pytest.fail("the report loaded a graph"))
    from gpubfs_cli.algorithms.bfs.problem import Bfs

    src = np.arange(99)
    g = build_csr(EdgeList(src, src + 1, 100, directed=False), name="path100")
    dist = np.abs(np.arange(100) - 0).astype(np.int32)
    frontier = Bfs().frontier(g, 0, dist)
    assert frontier["vertices"] == [1] * 100 and frontier["edges"] == [1] + [2] * 98 + [1]
    doc = main_doc()
    doc["datasets"] = {"path100": {"n": 100, "m": 198, "directed": False, "stats": {}, "meta": {},
                                   "frontier": frontier}}
    doc["sources"] = {"path100": [0]}
    doc["samples"] = [sample("path100", "cpu.sequential", 0, 1.0, edges=198).to_dict()]
    files, notes = write_plots(load_many([write(tmp_path, "p.json", doc)]), tmp_path / "plots")
    assert notes == ["speedup: no strategies to plot"]  # only the baseline ran
    assert sorted(p.name for p in files if p.name.startswith("frontier")) == [
        "frontier-path100.png", "frontier-path100.svg"]
