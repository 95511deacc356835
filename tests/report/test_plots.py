"""--plot writes PNG and SVG; frontier sizes come from counters or are recomputed."""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.graph.build import build_csr
from gpubfs_cli.graph.edges import EdgeList
from gpubfs_cli.report.load import load_many
from gpubfs_cli.report.plots import frontier_from_graph, write_plots
from tests.report.docs import main_doc, sample, write

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_plot_files_written(tmp_path):
    doc = main_doc()
    doc["samples"].append(sample("g1", "merrill.hybrid", 0, 1.0, knobs={"gather": "warp", "culling": "history"},
                                 counters={"frontier_vertices": [1, 7, 50, 300, 642],
                                           "frontier_edges": [8, 56, 400, 2400, 5136]}).to_dict())
    results = load_many([write(tmp_path, "main.json", doc)])
    out = tmp_path / "plots"
    files, notes = write_plots(results, out, data_dir=tmp_path / "no-cache")
    names = sorted(p.name for p in files)
    assert names == ["frontier-g1.png", "frontier-g1.svg", "speedup.png", "speedup.svg",
                     "throughput.png", "throughput.svg"]
    for p in files:
        data = p.read_bytes()
        assert data.startswith(PNG_MAGIC) if p.suffix == ".png" else b"<svg" in data[:2000]
    assert not list(out.glob(".*"))  # no temporary files left
    # g2 has no counters and no cached graph: skipped, with the reason
    assert len(notes) == 1 and notes[0].startswith("frontier-g2: skipped: ")


def test_frontier_recomputed_from_graph():
    # a path 0-1-2-3 plus a star at 3 (3-4, 3-5), undirected
    src = np.array([0, 1, 2, 3, 3])
    dst = np.array([1, 2, 3, 4, 5])
    g = build_csr(EdgeList(src, dst, 6, directed=False))
    fv, fe = frontier_from_graph(g, 0)
    assert fv.tolist() == [1, 1, 1, 1, 2]
    assert fe.tolist() == [1, 2, 2, 3, 2]  # out-degrees of the vertices at each distance


def test_frontier_from_cached_graph(tmp_path):
    """When the cache layer holds the graph, the frontier is recomputed from it."""
    store = pytest.importorskip("gpubfs_cli.datasets.store")
    src = np.arange(99)
    g = build_csr(EdgeList(src, src + 1, 100, directed=False), name="path100")
    store.write_graph("path100", g, {"name": "path100", "kind": "generated"}, tmp_path)
    doc = main_doc()
    doc["datasets"] = {"path100": {"n": 100, "m": 198, "directed": False, "stats": {}, "meta": {}}}
    doc["sources"] = {"path100": [0]}
    doc["samples"] = [sample("path100", "cpu.sequential", 0, 1.0, edges=198).to_dict()]
    files, notes = write_plots(load_many([write(tmp_path, "p.json", doc)]), tmp_path / "plots", tmp_path)
    assert notes == ["speedup: no strategies to plot"]  # only the baseline ran
    assert sorted(p.name for p in files if p.name.startswith("frontier")) == [
        "frontier-path100.png", "frontier-path100.svg"]
