"""--plot writes PNG and SVG from results files alone; frontier sizes come from a
strategy's counters or from the baseline frontier the run stored."""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.graph.samples import path
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
    assert names == ["frontier-g1.png", "frontier-g1.svg", "per-level.png", "per-level.svg",
                     "speedup.png", "speedup.svg", "throughput.png", "throughput.svg"]
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

    g = path(100)
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


def _paper(plot_tables):
    from gpubfs_cli.report.papers import parse_paper

    return parse_paper({
        "key": "toy", "title": "Toy", "venue": "none", "hardware": {"gpu": "g", "cpu": "c"},
        "datasets": {"d2": "gA", "d4": "gB"}, "tables": plot_tables}, "toy.yaml")


def _toy_results(tmp_path):
    from tests.report.docs import dataset_entry, document

    s = []
    for src in (0, 1, 2, 3):
        for ds, t in (("gA", 2.0), ("gB", 4.0)):
            s.append(sample(ds, "cpu.sequential", src, 10 * t))
            s.append(sample(ds, "x.fast", src, t, knobs={"phase_timing": True},
                            counters={"kernel_ms": 0.75 * t, "overhead_ms": 0.25 * t}))
            s.append(sample(ds, "x.slow", src, 2 * t))
    doc = document(s, {"gA": dataset_entry(1000, 2000), "gB": dataset_entry(1000, 4000)})
    return load_many([write(tmp_path, "toy.json", doc)])


def test_paper_tables_draw_their_figures(tmp_path):
    from gpubfs_cli.report.layouts import paper_document
    from gpubfs_cli.report.plots import write_paper_plots

    rows = [{"graph": "d2"}, {"graph": "d4"}]
    paper = _paper([
        {"id": "sweep", "title": "rate against degree", "plot": {"kind": "lines", "x": "d", "ylabel": "GTEPS"},
         "columns": [{"key": "d", "header": "d", "stat": "avg_degree"},
                     {"key": "f", "header": "fast", "strategy": "x.fast", "metric": "gteps"},
                     {"key": "s", "header": "slow", "strategy": "x.slow", "metric": "gteps"}], "rows": rows},
        {"id": "split", "title": "kernel and overhead", "plot": {"kind": "stacked", "ylabel": "ms"},
         "columns": [{"key": "k", "header": "fast kernel", "strategy": "x.fast", "metric": "counter.kernel_ms", "stack": "fast"},
                     {"key": "o", "header": "overhead", "strategy": "x.fast", "metric": "counter.overhead_ms",
                      "stack": "fast"}], "rows": rows},
        {"id": "times", "title": "times", "plot": {"kind": "bars", "log": True},
         "columns": [{"key": "f", "header": "fast", "strategy": "x.fast", "metric": "ms"},
                     {"key": "r", "header": "rank", "strategy": "x.slow", "metric": "rank"}], "rows": rows},
        {"id": "nothing", "title": "never ran", "plot": {"kind": "bars"},
         "columns": [{"key": "z", "header": "z", "strategy": "x.absent", "metric": "ms"}], "rows": rows},
    ])
    doc = paper_document(paper, _toy_results(tmp_path))
    split = doc.tables[1]
    assert [c.value for c in split.rows[0][1:]] == [1.5, 0.5]  # gA: 0.75 and 0.25 of 2 ms
    files, notes = write_paper_plots(paper, doc.tables, tmp_path / "plots")
    assert sorted(p.name for p in files) == sorted(
        f"toy-{t}.{fmt}" for t in ("sweep", "split", "times") for fmt in ("png", "svg"))
    assert notes == ["toy-nothing: no measured values to plot"]
    for p in files:
        assert p.stat().st_size > 5000  # drawn, not blank


@pytest.mark.parametrize("plot, message", [
    ({"kind": "pie"}, r"plot\.kind: expected one of bars, stacked, lines"),
    ({"kind": "lines"}, r"plot\.x: a lines plot needs x"),
    ({"kind": "lines", "x": "f"}, r"plot\.x: a lines plot needs x"),
    ({"kind": "bars", "x": "d"}, r"plot\.x: only lines plots take x"),
    ({"kind": "stacked"}, r"needs columns with a `stack` label"),
    ({"kind": "bars", "log": "yes"}, r"plot\.log: expected true or false"),
])
def test_bad_plot_entries_are_one_line(plot, message):
    from gpubfs_cli.errors import UserError

    table = {"id": "t", "title": "t", "plot": plot, "rows": [{"graph": "d2"}],
             "columns": [{"key": "d", "header": "d", "stat": "avg_degree"},
                         {"key": "f", "header": "fast", "strategy": "x.fast", "metric": "gteps"}]}
    with pytest.raises(UserError, match=message):
        _paper([table])


def test_log_axis_labels_values_below_one(tmp_path):
    """GTEPS from 0.06 to 20 draw on a log axis: every tick in view is labelled in plain
    digits, below 1 too (matplotlib's default left 0.05, 0.2, 0.5 blank)."""
    from gpubfs_cli.report.plots import result_plots
    from tests.report.docs import SOURCES, dataset_entry, document

    edges = 60_000_000  # 1000 ms -> 0.06 GTEPS, 3 ms -> 20 GTEPS
    s = [sample("g", "cpu.sequential", x, 1000.0, edges=edges) for x in SOURCES]
    s += [sample("g", "merrill.hybrid", x, 3.0, edges=edges) for x in SOURCES]
    results = load_many([write(tmp_path, "r.json", document(s, {"g": dataset_entry(1000, 8000)}))])
    plots, _ = result_plots(results)
    fig = next(p for p in plots if p.stem == "throughput").figure
    ax = fig.axes[0]
    assert ax.get_yscale() == "log"
    fig.draw_without_rendering()
    low, high = ax.get_ylim()
    shown = {t.get_position()[1]: t.get_text() for t in ax.get_yticklabels(which="both")
             if low <= t.get_position()[1] <= high}
    assert shown == {0.05: "0.05", 0.1: "0.1", 0.2: "0.2", 0.5: "0.5", 1.0: "1", 2.0: "2", 5.0: "5",
                     10.0: "10", 20.0: "20"}


def test_log_axis_over_many_decades_labels_the_decades(tmp_path):
    from gpubfs_cli.report.plots import result_plots
    from tests.report.docs import SOURCES, dataset_entry, document

    s = [sample("g", "cpu.sequential", x, 100_000.0, edges=60_000) for x in SOURCES]  # 6e-7 GTEPS
    s += [sample("g", "merrill.hybrid", x, 3.0, edges=60_000_000) for x in SOURCES]  # 20 GTEPS
    results = load_many([write(tmp_path, "r.json", document(s, {"g": dataset_entry(1000, 8000)}))])
    fig = next(p for p in result_plots(results)[0] if p.stem == "throughput").figure
    ax = fig.axes[0]
    fig.draw_without_rendering()
    low, high = ax.get_ylim()
    labels = [t.get_text() for t in ax.get_yticklabels(which="both") if low <= t.get_position()[1] <= high]
    assert {"1e-06", "0.0001", "0.01", "1", "10"} <= set(labels)
    assert "0.2" not in labels  # minor ticks unlabelled over six decades: they would collide
