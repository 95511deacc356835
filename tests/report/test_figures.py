"""How the report's figures read: one colour per strategy in every figure of a report,
interquartile ranges as error bars, cells without a number marked (never bars of height
0), log axes where values span decades, whole levels on the frontier plot, Merrill's
Fig. 10 and the multi-GPU scaling figure; and the rate a table shows beside a median
time is that median's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gpubfs_cli.report.aggregate import RATE_OF_MEDIAN, Aggregate
from gpubfs_cli.report.build import run_summary
from gpubfs_cli.report.command import make_report
from gpubfs_cli.report.layouts import paper_document
from gpubfs_cli.report.load import load_many, results_from_doc
from gpubfs_cli.report.papers import load_paper, parse_paper
from gpubfs_cli.report.plots import LOG_SPAN, Palette, paper_plots, paper_table_plot, result_plots
from tests.report.docs import EDGES, SOURCES, dataset_entry, document, main_doc, sample, write

RESULTS = Path(__file__).parents[2] / "docs" / "results"


def _figure(plots, stem):
    return next(p for p in plots if p.stem == stem).figure


def _bars(fig) -> dict:
    """legend label -> its BarContainer."""
    return {c.get_label(): c for c in fig.axes[0].containers if hasattr(c, "patches")}


def _missing_marks(fig) -> list[str]:
    return [t.get_text() for t in fig.axes[0].texts if t.get_gid() == "missing"]


def _results(tmp_path, samples, datasets=None, name="r.json"):
    datasets = datasets or {"g1": dataset_entry(1000, EDGES), "g2": dataset_entry(1000, EDGES)}
    return load_many([write(tmp_path, name, document(samples, datasets))])


def _toy_paper(tables):
    return parse_paper({"key": "toy", "title": "Toy", "venue": "none", "hardware": {"gpu": "g", "cpu": "c"},
                        "datasets": {"G1": "g1", "G2": "g2"}, "tables": tables}, "toy.yaml")


# ---------------------------------------------------------------------- colours
def test_a_strategy_has_one_colour_in_every_figure_of_a_report(tmp_path):
    """The speedup figure leaves the baseline out, so a colour picked by place in each
    figure moved merrill.hybrid to another colour there; the report's palette keeps it."""
    results = load_many([write(tmp_path, "main.json", main_doc())])
    palette = Palette.of(results)
    plots, _ = result_plots(results, palette)
    colours = {stem: _bars(_figure(plots, stem))["merrill.hybrid"].patches[0].get_facecolor()
               for stem in ("throughput", "speedup", "per-level")}
    assert len(set(colours.values())) == 1, colours
    # a paper's figure of the same report, drawn with the same palette
    paper = _toy_paper([{"id": "t", "title": "t", "plot": {"kind": "bars"}, "rows": [{"graph": "G1"}],
                         "columns": [{"key": "h", "header": "hybrid", "strategy": "merrill.hybrid", "metric": "ms"}]}])
    (plot,), _ = paper_plots(paper, paper_document(paper, results).tables, palette)
    assert _bars(plot.figure)["hybrid"].patches[0].get_facecolor() == colours["throughput"]
    # a strategy's second series (+pred) keeps its colour and differs by hatch
    throughput = _bars(_figure(plots, "throughput"))
    pred = throughput["merrill.hybrid +pred"].patches[0]
    assert pred.get_facecolor() == colours["throughput"]
    assert pred.get_hatch() and not throughput["merrill.hybrid"].patches[0].get_hatch()
    # two strategies, two colours
    assert throughput["cpu.sequential"].patches[0].get_facecolor() != colours["throughput"]


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_a_paper_figure_and_the_plain_figures_share_the_palette(monkeypatch, tmp_path, fmt):
    """`--paper merrill --plot DIR` and the HTML page: Fig. 10's two-phase bars are
    merrill.two_phase's colour in the throughput bars (the paper's own strategies, sorted
    alone, would make it another)."""
    import gpubfs_cli.report.plots as plots

    drawn = []
    monkeypatch.setattr(plots, "save_plots", lambda found, *a, **k: drawn.extend(found) or [])
    monkeypatch.setattr(plots, "png_bytes", lambda plot: drawn.append(plot) or b"")
    make_report([RESULTS / "h200-2026-11-22" / "merrill-fig10.json.gz"], paper="merrill", fmt=fmt,
                plot_dir=tmp_path / "figs" if fmt == "md" else None)
    fig10 = _bars(_figure(drawn, "merrill-fig10"))["two-phase (adapted)"]
    throughput = _bars(_figure(drawn, "throughput"))["merrill.two_phase"]
    assert fig10.patches[0].get_facecolor() == throughput.patches[0].get_facecolor()


# ---------------------------------------------------------------------- spreads and gaps
def test_time_bars_carry_their_interquartile_range(tmp_path):
    times = [1.0, 2.0, 3.0, 4.0]  # median 2.5, q25 1.75, q75 3.25
    s = [sample("g1", "x.fast", src, t) for src, t in zip(SOURCES, times, strict=True)]
    s += [sample("g2", "x.fast", src, 2.0) for src in SOURCES]
    results = _results(tmp_path, s)
    paper = _toy_paper([{"id": "t", "title": "t", "plot": {"kind": "bars"}, "rows": [{"graph": "G1"}, {"graph": "G2"}],
                         "columns": [{"key": "f", "header": "fast", "strategy": "x.fast", "metric": "ms"}]}])
    table = paper_document(paper, results).tables[0]
    cell = table.rows[0][1]
    assert (cell.value, cell.low, cell.high) == (2.5, 1.75, 3.25)
    plot, _ = paper_table_plot(paper.key, paper.tables[0], table)
    bars = _bars(plot.figure)["fast"]
    assert bars.errorbar is not None
    segments = bars.errorbar.lines[2][0].get_segments()
    assert [tuple(seg[:, 1]) for seg in segments][0] == pytest.approx((1.75, 3.25))
    # the per-level figure: time / (depth + 1), depth 5: 1000 * [1..4] / 6 us
    level = _bars(_figure(result_plots(results)[0], "per-level"))["x.fast"]
    low, high = level.errorbar.lines[2][0].get_segments()[0][:, 1]
    assert (low, high) == pytest.approx((1750 / 6, 3250 / 6))


def test_a_missing_cell_is_marked_never_a_bar_of_zero(tmp_path):
    s = [sample("g1", "x.fast", src, 1.0) for src in SOURCES]
    s += [sample(ds, "x.slow", src, 2.0) for ds in ("g1", "g2") for src in SOURCES]
    results = _results(tmp_path, s)  # x.fast: no samples on g2
    paper = _toy_paper([{"id": "t", "title": "t", "plot": {"kind": "bars"}, "rows": [{"graph": "G1"}, {"graph": "G2"}],
                         "columns": [{"key": "f", "header": "fast", "strategy": "x.fast", "metric": "gteps"},
                                     {"key": "s", "header": "slow", "strategy": "x.slow", "metric": "gteps"}]}])
    table = paper_document(paper, results).tables[0]
    assert table.rows[1][1].status == "missing"
    plot, _ = paper_table_plot(paper.key, paper.tables[0], table)
    fast = _bars(plot.figure)["fast"]
    assert len(fast.patches) == 1 and all(p.get_height() > 0 for p in fast.patches)
    assert _missing_marks(plot.figure) == ["n/a"]
    # the plain report's bars alike, and a failure is marked by its status
    s.append(sample("g2", "x.fast", 0, None, status="out-of-time", reason="over 10 s", valid=None))
    throughput = _figure(result_plots(_results(tmp_path, s, name="r2.json"))[0], "throughput")
    assert len(_bars(throughput)["x.fast"].patches) == 1
    assert _missing_marks(throughput) == ["out-of-time"]


def test_rows_and_series_with_no_samples_are_left_out_and_named(tmp_path):
    results = _results(tmp_path, [sample("g1", "x.fast", src, 1.0) for src in SOURCES])
    paper = _toy_paper([{"id": "t", "title": "t", "plot": {"kind": "bars"}, "rows": [{"graph": "G1"}, {"graph": "G2"}],
                         "columns": [{"key": "f", "header": "fast", "strategy": "x.fast", "metric": "ms"},
                                     {"key": "a", "header": "absent", "strategy": "x.absent", "metric": "ms"}]}])
    plot, note = paper_table_plot(paper.key, paper.tables[0], paper_document(paper, results).tables[0])
    assert note == "toy-t: no samples on G2; none of absent: left out of the figure"
    assert list(_bars(plot.figure)) == ["fast"]
    assert [t.get_text() for t in plot.figure.axes[0].get_xticklabels()] == ["G1"]


# ---------------------------------------------------------------------- axes
@pytest.mark.parametrize("ratio, log", [(40, True), (20, False)])
def test_a_y_axis_is_logarithmic_where_values_span_decades(tmp_path, ratio, log):
    """Above LOG_SPAN (30) between the largest and the smallest value: a log axis, in the
    plain report's bars and in a paper's figure whose `plot` entry does not say."""
    assert 20 < LOG_SPAN < 40
    s = [sample("g1", "x.fast", src, 1.0) for src in SOURCES] + [sample("g1", "x.slow", src, ratio) for src in SOURCES]
    results = _results(tmp_path, s, {"g1": dataset_entry(1000, EDGES)})
    assert (_figure(result_plots(results)[0], "throughput").axes[0].get_yscale() == "log") is log
    paper = _toy_paper([{"id": "t", "title": "t", "plot": {"kind": "bars"}, "rows": [{"graph": "G1"}],
                         "columns": [{"key": "f", "header": "fast", "strategy": "x.fast", "metric": "ms"},
                                     {"key": "s", "header": "slow", "strategy": "x.slow", "metric": "ms"}]}])
    plot, _ = paper_table_plot(paper.key, paper.tables[0], paper_document(paper, results).tables[0])
    assert (plot.figure.axes[0].get_yscale() == "log") is log


def test_the_frontier_plot_has_whole_levels_and_a_log_axis(tmp_path):
    s = [sample("g1", "merrill.hybrid", 0, 1.0, counters={"frontier_vertices": [1, 7, 50, 300, 2],
                                                           "frontier_edges": [8, 56, 400, 24000, 0]})]
    fig = _figure(result_plots(_results(tmp_path, s, {"g1": dataset_entry(1000, EDGES)}))[0], "frontier-g1")
    ax = fig.axes[0]
    assert ax.get_yscale() == "log"  # the vertex frontier is not flattened under the edge one
    fig.draw_without_rendering()
    low, high = ax.get_xlim()
    ticks = [t for t in ax.get_xticks() if low <= t <= high]
    assert ticks and all(float(t).is_integer() for t in ticks), ticks
    edges = ax.get_lines()[0].get_ydata()
    assert np.isnan(edges[-1])  # an empty frontier is a gap, not a point at 0


# ---------------------------------------------------------------------- Merrill's figures
def test_merrill_fig10_is_drawn_from_its_shipped_results():
    results = load_many([RESULTS / "h200-2026-11-22" / "merrill-fig10.json.gz"])
    paper = load_paper("merrill")
    doc = paper_document(paper, results)
    plots, notes = paper_plots(paper, doc.tables)
    fig = _figure(plots, "merrill-fig10")
    bars = _bars(fig)
    assert set(bars) == {"expand-contract (adapted)", "contract-expand (adapted)", "two-phase (adapted)"}
    table = next(t for t in doc.tables if t.id == "merrill.fig10")
    row = next(r for r in table.rows if r[0].text == "grid7pt.300")
    heights = sorted(p.get_height() for b in bars.values() for p in b.patches)
    assert all(pytest.approx(c.value) in heights for c in row[1:4])
    assert any(n.startswith("merrill-fig10: no samples on europe.osm") for n in notes)


def _scaling_doc() -> dict:
    s = []
    for ds, scale in (("g1", 1.0), ("g2", 2.0)):
        for gpus, t in ((1, 4.0), (2, 2.5), (4, 1.6)):
            s += [sample(ds, "mgpu.example", src, scale * t, knobs={"gpus": gpus}) for src in SOURCES]
    s += [sample("g1", "do.bfs", src, 2.0) for src in SOURCES]  # no do.bfs on g2: no reference there
    return document(s, {"g1": dataset_entry(1000, EDGES), "g2": dataset_entry(1000, EDGES)})


def test_the_scaling_figure_has_a_line_per_graph_and_do_bfs_as_reference():
    plots, _ = result_plots(results_from_doc(_scaling_doc()))
    ax = _figure(plots, "scaling-mgpu.example").axes[0]
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert set(lines) == {"g1", "g2", "do.bfs, 1 GPU: g1"}
    assert list(lines["g1"].get_xdata()) == [1, 2, 4]
    assert list(lines["g1"].get_ydata()) == pytest.approx([EDGES / t / 1e6 for t in (4.0, 2.5, 1.6)])
    assert list(lines["g2"].get_ydata()) == pytest.approx([EDGES / t / 2e6 for t in (4.0, 2.5, 1.6)])
    ref = lines["do.bfs, 1 GPU: g1"]
    assert ref.get_linestyle() == "--" and list(ref.get_ydata()) == pytest.approx([EDGES / 2.0 / 1e6] * 2)
    assert ref.get_color() == lines["g1"].get_color()  # a graph's reference in its colour
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1 GPU", "2 GPUs", "4 GPUs"]


def test_no_scaling_figure_for_one_gpu_count(tmp_path):
    s = [sample("g1", "mgpu.example", src, 1.0, knobs={"gpus": 1}) for src in SOURCES]
    plots, _ = result_plots(_results(tmp_path, s, {"g1": dataset_entry(1000, EDGES)}))
    assert not [p for p in plots if p.stem.startswith("scaling")]


def test_the_shipped_two_gpu_runs_draw_their_scaling_figure():
    folder = RESULTS / "h200x2-2026-11-26"
    results = load_many([folder / "mgpu-g500-s24-ef16.json.gz", folder / "mgpu-g500-s26-ef16.json.gz"])
    ax = _figure(result_plots(results)[0], "scaling-mgpu.bfs").axes[0]
    labels = [line.get_label() for line in ax.get_lines()]
    assert {"g500-s24-ef16", "g500-s26-ef16", "do.bfs, 1 GPU: g500-s24-ef16", "do.bfs, 1 GPU: g500-s26-ef16"} <= set(labels)


# ---------------------------------------------------------------------- the median's rate
def test_a_median_time_stands_beside_its_own_rate():
    """One slow source: the harmonic mean falls far below edges / median time; the
    end-of-run cell shows the latter beside the median."""
    times = [0.3, 0.3, 0.31, 13.0]  # median 0.305 ms
    doc = document([sample("g1", "x.fast", src, t) for src, t in zip(SOURCES, times, strict=True)],
                   {"g1": dataset_entry(1000, EDGES)})
    results = results_from_doc(doc)
    agg = Aggregate(results)
    group = agg.variants("g1", "x.fast")[0]
    assert agg.value(group, RATE_OF_MEDIAN) == pytest.approx(EDGES / 0.305 / 1e6)
    assert agg.value(group, "gteps") < 0.1 * agg.value(group, RATE_OF_MEDIAN)
    cell = run_summary(results, "t").tables[0].rows[0][1]
    assert cell.text == "0.305 ms\n0.026 GTEPS"  # 8000 edges / 0.305 ms
    assert "median edges / median time" in run_summary(results, "t").title


def test_a_median_rate_leaves_low_reach_sources_out():
    s = [sample("g1", "x.fast", 0, 1.0), sample("g1", "x.fast", 1, 3.0)]
    s += [sample("g1", "x.fast", src, 0.001, edges=2, low_reach=True) for src in (2, 3)]
    agg = Aggregate(results_from_doc(document(s, {"g1": dataset_entry(1000, EDGES)})))
    # the two that count: median 2 ms, 8000 edges (all four: 4001 edges / 0.5005 ms)
    assert agg.value(agg.variants("g1", "x.fast")[0], RATE_OF_MEDIAN) == pytest.approx(EDGES / 2.0 / 1e6)


def test_paper_tables_name_their_rates_a_harmonic_mean(tmp_path):
    results = _results(tmp_path, [sample("g1", "x.fast", src, 1.0) for src in SOURCES])
    paper = _toy_paper([{"id": "t", "title": "Rates", "rows": [{"graph": "G1"}],
                         "columns": [{"key": "f", "header": "fast", "strategy": "x.fast", "metric": "gteps"}]}])
    assert "[measured GTEPS: harmonic mean over sources; TEPS: " in paper_document(paper, results).tables[0].title
