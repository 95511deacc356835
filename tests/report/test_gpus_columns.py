"""A multi-GPU strategy's `gpus` knob is a column (row) of its own in every table: the
best knob is picked within one GPU count, never across two, and the two lines of a
`gpubfs run` cell (time and GTEPS) come from one variant. Strategies are recognised by
the knob name `gpus`, whatever their name (merrill.multi_gpu, mgpu.*)."""

from __future__ import annotations

import re

import pytest

from gpubfs_cli.report.aggregate import RATE_OF_MEDIAN, Aggregate, ColumnKey
from gpubfs_cli.report.build import column_title, compare, overview, run_summary
from gpubfs_cli.report.layouts import paper_document
from gpubfs_cli.report.load import load_many, results_from_doc
from gpubfs_cli.report.papers import parse_paper
from gpubfs_cli.report.plots import paper_table_plot, result_plots
from gpubfs_cli.report.render import render
from gpubfs_cli.report.table import fmt_number
from tests.report.docs import EDGES, SOURCES, dataset_entry, document, sample, write

# Times (ms) per source. SKEWED has the lower median but, with one slow source, the
# lower GTEPS (harmonic mean over sources = edges / mean time): a pick by time and a
# pick by rate disagree, which is what folded two variants into one cell.
SKEWED = [1.0, 1.0, 1.0, 100.0]  # median 1, GTEPS 8000 * 4 / 103 ms = 0.000311
EVEN = [2.0, 2.0, 2.0, 2.0]  # median 2, GTEPS 0.004
SLOW = [3.0, 3.0, 3.0, 3.0]  # median 3, GTEPS 0.00267

MULTI = "merrill.multi_gpu"
MGPU = "mgpu.example"  # a strategy of another family with the knob: covered by the knob's name


def _doc() -> dict:
    s = []
    variants = [
        ("cpu.sequential", {}, [10.0, 12.0, 14.0, 16.0]),
        # single-GPU knob sweep: W1 fastest by median time, W4 best by GTEPS
        ("classic.vwarp", {"W": 1}, SKEWED),
        ("classic.vwarp", {"W": 4}, EVEN),
        # one GPU: the lower median time; two GPUs: the higher GTEPS (two partitions)
        (MULTI, {"gpus": 1, "partition": "stripe"}, SKEWED),
        (MULTI, {"gpus": 2, "partition": "stripe"}, EVEN),
        (MULTI, {"gpus": 2, "partition": "block"}, SLOW),
        (MGPU, {"gpus": 2}, EVEN),
        (MGPU, {"gpus": 4}, SKEWED),
    ]
    for strategy, knobs, times in variants:
        for src, t in zip(SOURCES, times, strict=True):
            s.append(sample("g1", strategy, src, t, knobs=knobs))
    return document(s, {"g1": dataset_entry(1000, EDGES)})


def _results(tmp_path, name="r.json"):
    return load_many([write(tmp_path, name, _doc())])


def _cells(table, row_label: str = "g1") -> dict:
    row = next(r for r in table.rows if r[0].text == row_label)
    return dict(zip(table.columns[1:], row[1:], strict=True))


def test_columns_are_split_by_the_gpus_knob(tmp_path):
    agg = Aggregate(_results(tmp_path))
    cols = agg.columns()
    assert ColumnKey(MULTI, False, 1) in cols and ColumnKey(MULTI, False, 2) in cols
    assert ColumnKey(MGPU, False, 2) in cols and ColumnKey(MGPU, False, 4) in cols
    assert ColumnKey("classic.vwarp", False, None) in cols  # single-GPU: one column, as before
    assert [column_title(c) for c in cols] == [
        "cpu.sequential", "classic.vwarp", "merrill.multi_gpu (1 GPU)", "merrill.multi_gpu (2 GPUs)",
        "mgpu.example (2 GPUs)", "mgpu.example (4 GPUs)"]
    assert column_title(ColumnKey(MULTI, True, 2)) == "merrill.multi_gpu (2 GPUs) +pred"


@pytest.mark.parametrize("metric", ["ms", "gteps", "speedup"])
def test_two_gpu_counts_are_never_folded(tmp_path, metric):
    table = overview(_results(tmp_path), metric).tables[0]
    assert MULTI not in table.columns and MGPU not in table.columns
    c = _cells(table)
    one, two = c["merrill.multi_gpu (1 GPU)"], c["merrill.multi_gpu (2 GPUs)"]
    value = {"ms": (1.0, 2.0), "gteps": (EDGES * 4 / 103e-3 / 1e9, EDGES / 2e-3 / 1e9), "speedup": (11.0, 6.5)}  # speedup: paired medians
    assert (one.value, two.value) == pytest.approx(value[metric])
    # within one GPU count the knob sweep folds as before, and the GPU count is no knob label
    assert one.knob is None and two.knob == "partition=stripe"
    assert c["mgpu.example (4 GPUs)"].value == pytest.approx(value[metric][0])


def test_a_best_pick_never_crosses_gpu_counts(tmp_path):
    agg = Aggregate(_results(tmp_path))
    with pytest.raises(ValueError, match="GPU counts"):
        agg.best("g1", MULTI, "ms")  # both counts offered to one cell: refused, not folded
    group, label = agg.best("g1", MULTI, "gteps", knobs={"gpus": 1})
    assert (group.gpus, label) == (1, None)
    group, label = agg.best("g1", MULTI, "ms", knobs={"gpus": 2})
    assert (group.knobs["partition"], label) == ("stripe", "partition=stripe")


def _parse_run_cell(text: str) -> tuple[str, str]:
    ms, rate = text.split("\n")
    return ms.split()[0], rate.split()[0]


def test_run_summary_time_and_gteps_of_a_cell_come_from_one_variant(tmp_path):
    """Every cell of the end-of-run table: its ms line and its GTEPS line are the median
    time and that median's rate (edges / median time, not the harmonic mean one slow
    source drags down) of one and the same group of its row's column."""
    results = results_from_doc(_doc())
    agg = Aggregate(results)
    by_title = {column_title(c, agg.option_label): c for c in agg.columns()}
    table = run_summary(results, "test").tables[0]
    assert {r[0].text for r in table.rows} == set(by_title)
    checked = 0
    for row in table.rows:
        col = by_title[row[0].text]
        for ds, cell in zip(table.columns[1:], row[1:], strict=True):
            ms, rate = _parse_run_cell(cell.text)
            same = [g for g in agg.variants(ds, col.strategy, col.predecessors, col.knobs)
                    if fmt_number(g.summary["median_ms"]) == ms and fmt_number(agg.value(g, RATE_OF_MEDIAN)) == rate]
            assert same, f"{row[0].text} on {ds}: {cell.text!r} mixes two variants"
            checked += 1
    assert checked == len(by_title)
    cells = {r[0].text: r[1].text for r in table.rows}
    # SKEWED: median 1 ms, so 8000 edges / 1 ms = 0.008 GTEPS (its harmonic mean: 0.000311)
    assert cells["classic.vwarp"].startswith("1.000 (W1) ms\n0.008 (W1) GTEPS")
    assert cells["merrill.multi_gpu (1 GPU)"].startswith("1.000 ms\n0.008 GTEPS")
    assert cells["merrill.multi_gpu (2 GPUs)"].startswith("2.000 (partition=stripe) ms\n0.004 ")


def test_the_plain_gteps_table_still_picks_the_best_rate(tmp_path):
    """One metric per cell: the best knob by that metric, as before (W4 by GTEPS)."""
    c = _cells(overview(_results(tmp_path), "gteps").tables[0])
    assert c["classic.vwarp"].knob == "W4"


def test_compare_has_a_column_per_gpu_count(tmp_path):
    a = _results(tmp_path, "a.json")
    b = load_many([write(tmp_path, "b.json", _doc())])
    doc = compare(a, b)
    table = doc.tables[0]
    assert "merrill.multi_gpu (1 GPU)" in table.columns and "merrill.multi_gpu (2 GPUs)" in table.columns
    assert MULTI not in table.columns
    cells = {(c["strategy"], c.get("gpus")) for c in doc.data["cells"]}
    assert {(MULTI, 1), (MULTI, 2), (MGPU, 2), (MGPU, 4), ("classic.vwarp", None)} <= cells
    two = _cells(table)["merrill.multi_gpu (2 GPUs)"]
    assert two.knob == "partition=stripe"  # the variant fastest in A among the two-GPU ones
    assert "merrill.multi_gpu (2 GPUs)" in render(doc, "md")


def test_throughput_plot_has_a_bar_per_gpu_count(tmp_path):
    plots, _ = result_plots(_results(tmp_path))
    throughput = next(p for p in plots if p.stem == "throughput")
    labels = throughput.figure.axes[0].get_legend_handles_labels()[1]
    assert "merrill.multi_gpu (1 GPU)" in labels and "merrill.multi_gpu (2 GPUs)" in labels
    assert MULTI not in labels


def _paper():
    raw = {
        "key": "multi", "title": "A multi-GPU paper", "venue": "Test", "hardware": {"gpu": "x", "cpu": "y"},
        "datasets": {"G1": "g1"},
        "tables": [{
            "id": "t", "title": "Table 1", "plot": {"kind": "bars"},
            "columns": [
                {"key": "multi", "header": "multi-GPU", "strategy": MULTI, "metric": "gteps"},
                {"key": "two", "header": "two GPUs", "strategy": MULTI, "metric": "ms", "knobs": {"gpus": 2}},
                {"key": "vw", "header": "virtual warp", "strategy": "classic.vwarp", "metric": "ms"},
            ],
            "rows": [{"graph": "G1", "multi": 0.5, "two": 1.5, "vw": 3.0}],
        }],
    }
    return parse_paper(raw, "multi.yaml")


def test_paper_columns_split_by_gpu_count(tmp_path):
    paper = _paper()
    doc = paper_document(paper, _results(tmp_path))
    table = doc.tables[0]
    assert table.columns == ["Graph", "multi-GPU (1 GPU)", "multi-GPU (2 GPUs)", "two GPUs", "virtual warp"]
    c = _cells(table, "G1")
    assert c["multi-GPU (1 GPU)"].value == pytest.approx(EDGES * 4 / 103e-3 / 1e9)
    assert c["multi-GPU (2 GPUs)"].value == pytest.approx(EDGES / 2e-3 / 1e9)
    assert c["multi-GPU (1 GPU)"].published == c["multi-GPU (2 GPUs)"].published == "0.5"
    assert (c["two GPUs"].value, c["two GPUs"].knob) == (2.0, "partition=stripe")  # pinned: one column
    assert (c["virtual warp"].value, c["virtual warp"].knob) == (1.0, "W1")  # single-GPU: as before
    assert any(f.startswith("multi-GPU: one column per GPU count") for f in table.footnotes)
    plot, note = paper_table_plot(paper.key, paper.tables[0], table)
    assert note is None
    labels = plot.figure.axes[0].get_legend_handles_labels()[1]
    assert labels == ["multi-GPU (1 GPU)", "multi-GPU (2 GPUs)", "two GPUs", "virtual warp"]


def test_single_gpu_strategies_keep_their_titles(tmp_path):
    """A pool without the knob reads exactly as before: no GPU count in any title."""
    from tests.report.docs import main_doc

    doc = overview(load_many([write(tmp_path, "main.json", main_doc())]), "ms")
    assert not any(re.search(r"GPUs?\)", col) for t in doc.tables for col in t.columns)
    assert doc.tables[0].columns[:3] == ["dataset", "cpu.sequential", "classic.edge_coo"]
