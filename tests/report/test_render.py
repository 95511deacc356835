"""Every output format reads back; files combine; --compare marks only real differences."""

from __future__ import annotations

import csv
import io
import json
from html.parser import HTMLParser

import pytest

from gpubfs_cli.report.build import compare, overview
from gpubfs_cli.report.load import load_many, shown_path
from gpubfs_cli.report.render import render
from tests.report.docs import SOURCES, dataset_entry, document, main_doc, sample, write


@pytest.fixture()
def doc(tmp_path):
    return overview(load_many([write(tmp_path, "main.json", main_doc())]), "ms")


COLUMNS = ["cpu.sequential", "classic.edge_coo", "classic.harish", "classic.vwarp", "luo.hierarchical",
           "merrill.hybrid", "merrill.hybrid +pred"]


def test_csv_reads_back(doc):
    rows = list(csv.DictReader(io.StringIO(render(doc, "csv"))))
    assert len(rows) == 2 * len(COLUMNS)
    by = {(r["row"], r["column"]): r for r in rows}
    assert float(by[("g1", "merrill.hybrid")]["value"]) == 1.5
    assert by[("g1", "classic.vwarp")]["knob"] == "W4"
    assert by[("g2", "classic.harish")]["status"] == "out-of-time" and by[("g2", "classic.harish")]["value"] == ""
    assert by[("g2", "merrill.hybrid")]["low_reach"] == "1"
    assert ("g1", "bfs4k") not in by  # only strategies with samples become columns
    unav = by[("g2", "luo.hierarchical")]  # the whole reason, never cut mid-word
    assert unav["text"] == "unavailable: no usable GPU: CuPy is not installed"
    assert unav["reason"] == "no usable GPU: CuPy is not installed"


def test_csv_carries_the_speedup_spread(tmp_path):
    d = overview(load_many([write(tmp_path, "main.json", main_doc())]), "speedup")
    by = {(r["row"], r["column"]): r for r in csv.DictReader(io.StringIO(render(d, "csv")))}
    hyb = by[("g1", "merrill.hybrid")]
    assert (float(hyb["value"]), float(hyb["low"]), float(hyb["high"])) == (8.5, 6.25, 10.5)
    base = by[("g1", "cpu.sequential")]  # every ratio 1: no spread, so none in the text
    assert (base["text"], base["low"], base["high"]) == ("1.000", "1.0", "1.0")
    cell = json.loads(render(d, "json"))["tables"][0]["rows"][0][-2]
    assert (cell["value"], cell["low"], cell["high"]) == (8.5, 6.25, 10.5)


def test_json_reads_back(doc):
    data = json.loads(render(doc, "json"))
    table = data["tables"][0]
    assert table["columns"] == ["dataset"] + COLUMNS
    assert table["rows"][0][0]["text"] == "g1"
    assert table["rows"][0][1]["value"] == 13.0
    assert data["metric"] == "ms" and len(data["groups"]) == 11


def test_markdown_has_header_row(doc):
    lines = render(doc, "md").splitlines()
    assert "| dataset | " + " | ".join(COLUMNS) + " |" in lines
    row = next(line for line in lines if line.startswith("| g1 |"))
    assert "| 13.00 |" in row and "2.000 (W4)" in row


def test_html_has_a_table(doc):
    class Counter(HTMLParser):
        def __init__(self):
            super().__init__()
            self.tags: dict[str, int] = {}

        def handle_starttag(self, tag, attrs):
            self.tags[tag] = self.tags.get(tag, 0) + 1

    p = Counter()
    p.feed(render(doc, "html"))
    assert p.tags["table"] == 1
    assert p.tags["tr"] == 3  # header + two datasets
    assert p.tags["td"] == 2 * len(COLUMNS)


def test_terminal_table_text(doc):
    text = render(doc, "table")
    assert "median time per BFS (ms)" in text and "out-of-time" in text


def test_two_files_combined(tmp_path):
    ds = {"g": dataset_entry(100, 400), "h": dataset_entry(50, 100)}
    a = write(tmp_path, "a.json", document([sample("g", "cpu.sequential", s, 4.0) for s in SOURCES], ds, gpu=None))
    b = write(tmp_path, "b.json", document(
        [sample("g", "classic.harish", s, 2.0) for s in SOURCES] + [sample("h", "classic.harish", s, 1.0) for s in SOURCES], ds))
    d = overview(load_many([a, b]), "speedup")
    rows = {r[0].text: r for r in d.tables[0].rows}
    assert d.tables[0].columns == ["dataset", "cpu.sequential", "classic.harish"]
    assert rows["g"][2].value == pytest.approx(2.0)
    assert rows["h"][2].text == "no baseline" and rows["h"][1].text == "missing"
    assert d.header == [f"{shown_path(a)}: no GPU (CuPy is not installed), CPU Test CPU; L2 warm",
                        f"{shown_path(b)}: GPU NVIDIA H100 80GB HBM3, CPU Test CPU; L2 warm",
                        "TEPS: directed edges of the reached vertices (--teps graph500: Graph500's undirected count)"]


def _timed(dataset, strategy, times):
    return [sample(dataset, strategy, s % 4, t) for s, t in enumerate(times)]


def test_compare_marks_only_beyond_the_noise(tmp_path):
    ds = {"g": dataset_entry(100, 400)}
    a_samples = (_timed("g", "merrill.hybrid", [10, 11, 12, 13, 10, 11, 12, 13])
                 + _timed("g", "classic.harish", [10, 14, 18, 22, 10, 14, 18, 22])
                 + _timed("g", "classic.edge_coo", [5, 5]))
    b_samples = (_timed("g", "merrill.hybrid", [5, 5.5, 6, 6.5, 5, 5.5, 6, 6.5])  # 2x faster
                 # slower on every paired source, by 8-17%: the interval reaches into the 10% band
                 + _timed("g", "classic.harish", [12, 16, 20, 24, 12, 16, 20, 24])
                 + _timed("g", "classic.edge_coo", [1, 1])  # too few samples to judge
                 + _timed("g", "luo.hierarchical", [1, 1, 1]))
    a = load_many([write(tmp_path, "a.json", document(a_samples, ds))])
    b = load_many([write(tmp_path, "b.json", document(b_samples, ds))])
    d = compare(a, b)
    cols = d.tables[0].columns
    row = {c: cell for c, cell in zip(cols, d.tables[0].rows[0], strict=True)}
    assert row["merrill.hybrid"].text == "2.000x FASTER"
    assert row["classic.harish"].text == "0.887x SAME [0.833-0.917]"
    assert (row["classic.harish"].low, row["classic.harish"].high) == pytest.approx((0.8333, 0.9167), abs=1e-4)
    assert row["classic.edge_coo"].text == "5.000x (too few samples)"
    assert row["luo.hierarchical"].text == "missing"
    verdicts = {c["strategy"]: c["verdict"] for c in d.data["cells"]}
    assert verdicts == {"classic.edge_coo": None, "classic.harish": "SAME", "luo.hierarchical": None,
                        "merrill.hybrid": "FASTER"}
    assert all(c["paired"] for c in d.data["cells"] if c["ratio"] is not None)


def test_compare_noise_one_outlier_and_small_drift_read_same(tmp_path):
    ds = {"g": dataset_entry(100, 400)}
    a_s = (_timed("g", "merrill.hybrid", [10, 14, 18, 22])
           + [sample("g", "classic.harish", s, 1.0) for s in range(8)]
           + [sample("g", "classic.vwarp", s, 1.0) for s in range(8)]
           + [sample("g", "classic.spmv", s, 1.0 + s / 10) for s in range(8)])
    b_s = (_timed("g", "merrill.hybrid", [11, 13, 19, 21])  # noise around A
           + [sample("g", "classic.harish", s, 4.3 if s == 3 else 1.0) for s in range(8)]  # one outlier
           + [sample("g", "classic.vwarp", s, 1.05) for s in range(8)]  # a consistent 5% drift
           + [sample("g", "classic.spmv", s, 0.8 + s / 10) for s in range(2, 10)])  # other sources: unpaired
    b_s += [sample("g", "classic.edge_coo", s, 1.0 + s / 4) for s in range(8)]  # 25% on average: scatter
    a_s += [sample("g", "classic.edge_coo", s, 1.0 + (s % 2) * s / 4) for s in range(8)]  # only half moved
    a = load_many([write(tmp_path, "a.json", document(a_s, ds))])
    b = load_many([write(tmp_path, "b.json", document(b_s, ds))])
    cells = {c["strategy"]: c for c in compare(a, b).data["cells"]}
    for name in ("merrill.hybrid", "classic.harish", "classic.vwarp", "classic.spmv", "classic.edge_coo"):
        assert cells[name]["verdict"] == "SAME", cells[name]
        assert cells[name]["low"] <= 1.0 or name in ("classic.vwarp", "classic.edge_coo")
    assert cells["classic.spmv"]["paired"] is False and cells["merrill.hybrid"]["paired"] is True


def test_compare_same_file_twice_reads_same(tmp_path):
    from tests.report.docs import main_doc

    a = load_many([write(tmp_path, "m.json", main_doc())])
    d = compare(a, a)
    judged = [c for c in d.data["cells"] if c["verdict"] is not None]
    assert judged and {c["verdict"] for c in judged} == {"SAME"}
    assert all(c["ratio"] == 1.0 for c in judged)


def test_compare_slower_and_failures(tmp_path):
    ds = {"g": dataset_entry(100, 400)}
    a = load_many([write(tmp_path, "a.json", document(
        _timed("g", "classic.harish", [1, 1, 1, 1]) + _timed("g", "classic.edge_coo", [1, 1, 1]), ds))])
    b = load_many([write(tmp_path, "b.json", document(
        _timed("g", "classic.harish", [4, 4, 4, 4])
        + [sample("g", "classic.edge_coo", 0, None, status="out-of-memory", valid=None)], ds))])
    row = compare(a, b).tables[0].rows[0]
    assert row[2].text == "0.250x SLOWER"  # columns: dataset, classic.edge_coo, harish
    assert row[1].text == "B: out-of-memory" and row[1].value is None
