"""configs/papers/*.yaml validate; each --paper layout shows published | measured."""

from __future__ import annotations

import shutil

import pytest
import yaml

from gpubfs_cli.errors import UserError
from gpubfs_cli.report.layouts import paper_document
from gpubfs_cli.report.load import load_many
from gpubfs_cli.report.papers import load_all, load_paper, load_paper_file, papers_dir
from tests.report.docs import SOURCES, dataset_entry, document, sample, write

PAPERS = ["bfs4k", "lbbfs", "luo", "merrill", "raval"]
EUROPE_N, EUROPE_M = 50_912_018, 108_109_320


def test_every_paper_yaml_validates():
    papers = {p.key: p for p in load_all()}
    assert sorted(papers) == PAPERS
    merrill = papers["merrill"]
    assert [t.id for t in merrill.tables] == ["table1", "table2", "fig10", "fig11"]
    t2 = merrill.tables[1]
    assert len(t2.rows) == 13
    europe = t2.rows[0]
    assert europe.published["hybrid_dist"].value == 0.31 and europe.published["hybrid_dist_sp"].value == 11
    # flattened CPU columns: distance [21] on five graphs, predecessor [3] on two
    assert sum("cpu_dist" in r.published for r in t2.rows) == 5
    assert [r.published["cpu_pred"].text for r in t2.rows if "cpu_pred" in r.published] == ["0.50", "0.70"]
    vwarp = papers["bfs4k"].tables[1].rows[0].published["vwarp"]
    assert (vwarp.value, vwarp.knob, vwarp.text) == (5.2, "W1", "5.2 (W1)")
    assert papers["bfs4k"].tables[1].rows[3].published["bfs4k"].value == 6.5  # as-skitter
    luo_t1 = papers["luo"].tables[0]
    assert [r.published["uiuc"].value for r in luo_t1.rows] == [67.8, 121.0, 266.0, 509.5, 449.3, 488.0]


# Generated graphs named by the generators' brief; they join the catalogue as that work lands.
GENERATED = {
    "grid5pt.5000", "grid7pt.300", "random.2Mv.128Me", "rmat.2Mv.128Me", "kron_g500-logn20-gen",
    "Gen-ForestFire", "Gen-SmallWorld", "rmat20", "ER20", "ER23",
    *(f"graph500-s24-ef20-seed{i}" for i in (1, 2, 3)),
    *(f"lbbfs-{f}-d{d}" for f in ("random", "rmat") for d in (2, 4, 8, 16, 32, 64)),
    *(f"luo-grid-{s}M" for s in (1, 2, 5, 7, 9, 10)), *(f"luo-scalefree-{s}M" for s in (1, 5, 10)),
}


def test_dataset_mapping_names_the_catalogue():
    """Every catalogue name a paper maps to exists (generated ones once they are added)."""
    catalogue = yaml.safe_load((papers_dir().parents[0] / "datasets.yaml").read_text())["datasets"]
    ours = {o for p in load_all() for names in p.datasets.values() for o in names}
    assert ours - set(catalogue) <= GENERATED, sorted(ours - set(catalogue) - GENERATED)
    assert {"europe.osm", "USA-road-d.NY", "amazon0505", "germany.osm"} <= ours & set(catalogue)


# Merrill's knobs as results files record them: today's defaults, the paper's behaviour.
ADAPTED = {"claim_threshold": 1, "grid_threshold": 4096}
FAITHFUL = {"claim_threshold": 0, "grid_threshold": 0}


def _results(tmp_path):
    s = []
    for src in SOURCES:
        s.append(sample("europe.osm", "cpu.sequential", src, 1000.0, edges=EUROPE_M, depth=19000))
        s.append(sample("europe.osm", "merrill.hybrid", src, 100.0, edges=EUROPE_M, depth=19000, knobs=ADAPTED))
        s.append(sample("europe.osm", "merrill.hybrid", src, 125.0, edges=EUROPE_M, predecessors=True,
                        knobs=ADAPTED))
        s.append(sample("europe.osm", "merrill.hybrid", src, 400.0, edges=EUROPE_M, knobs=FAITHFUL))
        s.append(sample("europe.osm", "cpu.parallel_do", src, 250.0, edges=EUROPE_M, depth=19000))
        for w, t in ((1, 300.0), (4, 200.0)):
            s.append(sample("europe.osm", "classic.vwarp", src, t, edges=EUROPE_M, knobs={"W": w}))
        s.append(sample("kron_g500-logn20-gen", "merrill.hybrid", src, 10.0, edges=10**8, knobs=ADAPTED))
        s.append(sample("amazon0505", "cpu.sequential", src, 40.0))
        s.append(sample("amazon0505", "classic.harish", src, 5.0))
        for w, t in ((1, 9.0), (4, 3.0), (32, 6.0)):
            s.append(sample("amazon0505", "classic.vwarp", src, t, knobs={"W": w}))
        s.append(sample("luo-grid-1M", "cpu.sequential", src, 30.0))
        s.append(sample("luo-grid-1M", "luo.hierarchical", src, 3.0, knobs={"split_degree": 0}))
        s.append(sample("graph500-s24-ef20-seed2", "cpu.sequential", src, 5000.0))
        s.append(sample("lbbfs-random-d2", "merrill.hybrid", src, 1.0, edges=4_000_000))
    s.append(sample("amazon0505", "luo.hierarchical", 0, None, status="out-of-time", valid=None))
    datasets = {
        "europe.osm": dataset_entry(EUROPE_N, EUROPE_M, avg_depth=19000.0, max_depth=19999, std=0.5, max_degree=13),
        "kron_g500-logn20-gen": dataset_entry(1 << 20, 100_663_296),
        "amazon0505": dataset_entry(410_236, 3_356_824),
        "luo-grid-1M": dataset_entry(1_000_000, 5_940_000),
        "graph500-s24-ef20-seed2": dataset_entry(16_777_216, 335_000_000, max_degree=900_000),
        "lbbfs-random-d2": dataset_entry(2_000_000, 4_000_000),
    }
    return load_many([write(tmp_path, "papers.json", document(s, datasets))])


def _table(doc, tid):
    return next(t for t in doc.tables if t.id == tid)


def _cells(table, row_label):
    row = next(r for r in table.rows if r[0].text == row_label)
    return dict(zip(table.columns[1:], row[1:], strict=True))


def test_merrill_layout(tmp_path):
    doc = paper_document(load_paper("merrill"), _results(tmp_path))
    t1 = _cells(_table(doc, "merrill.table1"), "europe.osm")
    assert (t1["n (10^6)"].published, t1["n (10^6)"].text) == ("50.9", "50.9")
    assert (t1["m (10^6)"].published, t1["m (10^6)"].text) == ("108.1", "108.1")
    assert (t1["d"].published, t1["d"].text) == ("2.1", "2.1")
    assert (t1["Avg. Search Depth"].published, t1["Avg. Search Depth"].text) == ("19314", "19,000")
    t2 = _table(doc, "merrill.table2")
    assert t2.side_by_side
    c = _cells(t2, "europe.osm")
    assert c["hybrid distance (adapted)"].published == "0.31"
    assert c["hybrid distance (adapted)"].value == pytest.approx(EUROPE_M / 100.0 / 1e6)
    assert c["hybrid distance (adapted)"].text == "1.081"
    assert c["hybrid predecessor (adapted)"].value == pytest.approx(EUROPE_M / 125.0 / 1e6)
    assert (c["distance speedup (adapted)"].published, c["distance speedup (adapted)"].value) == (
        "11", pytest.approx(10.0))  # fmt: skip
    assert (c["predecessor speedup (adapted)"].published, c["predecessor speedup (adapted)"].value) == (
        "11", pytest.approx(8.0))  # fmt: skip
    # The paper's knobs: their own column, not mixed into the adapted one's best.
    assert c["hybrid distance (paper's knobs)"].value == pytest.approx(EUROPE_M / 400.0 / 1e6)
    assert c["hybrid predecessor (paper's knobs)"].text == "missing"
    assert c["CPU sequential"].published == "~0.028" and c["CPU sequential"].value == pytest.approx(0.1081, rel=1e-3)
    assert c["GPU quadratic [18] distance"].published == "0.00014"
    assert c["GPU quadratic [18] distance"].knob == "W4"
    # the CPU parallel columns: measured here by cpu.parallel_do, the cited rates beside
    cpu_dist, cpu_pred = "CPU parallel distance [21] (measured here: cpu.parallel_do)", \
        "CPU parallel predecessor [3] (measured here: cpu.parallel_do)"
    assert c[cpu_dist].value == pytest.approx(EUROPE_M / 250.0 / 1e6)
    assert c[cpu_pred].text == "missing"  # no predecessor samples in these results
    grid = _cells(t2, "grid7pt.300")
    assert grid[cpu_dist].published == "0.12"
    assert _cells(t2, "rmat.2Mv.128Me")[cpu_pred].published == "0.70"
    assert grid["hybrid distance (adapted)"].text == "missing"
    kron = _cells(t2, "kron_g500-logn20")
    assert kron["hybrid distance (adapted)"].value == pytest.approx(10.0)
    assert "kron_g500-logn20: measured on kron_g500-logn20-gen" in t2.footnotes
    fig10 = _table(doc, "merrill.fig10")
    assert not fig10.side_by_side and "published: figure only" in fig10.title
    f = _cells(fig10, "europe.osm")
    assert f["two-phase (adapted)"].text == "missing" and f["hybrid (adapted)"].text == "1.081"
    assert f["hybrid (paper's knobs)"].value == pytest.approx(EUROPE_M / 400.0 / 1e6)
    assert any("4.2 x faster" in n for n in doc.notes)


def test_bfs4k_layout_best_warp_and_failures(tmp_path):
    doc = paper_document(load_paper("bfs4k"), _results(tmp_path))
    c = _cells(_table(doc, "bfs4k.table2"), "Amazon0505")
    vw = c["Static Virtual Warp [5]"]
    assert (vw.published, vw.text, vw.knob) == ("5.2 (W1)", "3.000 (W4)", "W4")
    assert (c["Harish [4]"].published, c["Harish [4]"].value) == ("5.2", 5.0)
    assert (c["Luo [15]"].published, c["Luo [15]"].text) == ("4.3", "out-of-time")
    assert (c["Garland [16]"].published, c["Garland [16]"].text) == ("not run", "missing")
    assert (c["BFS-4K"].published, c["BFS-4K"].text) == ("1.5", "missing")
    eu = _cells(_table(doc, "bfs4k.table2"), "europe.osm")
    assert eu["Harish [4]"].published == "59,620.0"
    t1 = _cells(_table(doc, "bfs4k.table1"), "europe.osm")
    assert (t1["Approx. Diameter"].published, t1["Approx. Diameter"].text) == ("30,102", "19,999")
    assert (t1["Mode (max degree)"].published, t1["Mode (max degree)"].text) == ("13", "13")
    assert (t1["Std. Deviation"].published, t1["Std. Deviation"].text) == ("0.5", "0.5")


def test_luo_raval_lbbfs_layouts(tmp_path):
    results = _results(tmp_path)
    luo = _cells(_table(paper_document(load_paper("luo"), results), "luo.table1"), "1M")
    assert (luo["UIUC-BFS"].published, luo["UIUC-BFS"].value) == ("67.8", 3.0)
    assert (luo["Sp."].published, luo["Sp."].value) == ("2.2", pytest.approx(10.0))
    assert (luo["IIIT-BFS"].published, luo["IIIT-BFS"].text) == ("462.8", "missing")
    raval = paper_document(load_paper("raval"), results)
    g500 = _cells(_table(raval, "raval.table2"), "Graph500 (three graphs)")
    assert (g500["Outdegree Max"].published, g500["Outdegree Max"].text) == ("924,000", "900,000")
    assert (g500["Nodes (Million)"].published, g500["Nodes (Million)"].text) == ("16.78", "16.78")
    assert "Graph500 (three graphs): measured on graph500-s24-ef20-seed2" in _table(raval, "raval.table2").footnotes
    assert _cells(_table(raval, "raval.fig8"), "rmat20")["BS"].text == "missing"
    lb = _cells(_table(paper_document(load_paper("lbbfs"), results), "lbbfs.fig6"), "random d=2")
    assert lb["merrill.hybrid (not in the figure)"].value == pytest.approx(4.0)
    assert lb["d"].text == "2.0" and lb["hybrid (f0 = 10)"].text == "missing"


@pytest.mark.parametrize("key", PAPERS)
def test_every_layout_renders_every_format(tmp_path, key):
    from gpubfs_cli.report.render import FORMATS, render

    doc = paper_document(load_paper(key), _results(tmp_path))
    published = [c.published for t in doc.tables if t.side_by_side for r in t.rows for c in r[1:]]
    assert any(p is not None for p in published)
    for fmt in FORMATS:
        assert render(doc, fmt)


# ---------------------------------------------------------------------- broken files
@pytest.fixture()
def folder(tmp_path):
    shutil.copy(papers_dir() / "luo.yaml", tmp_path / "luo.yaml")
    return tmp_path


def _edit(folder, fn):
    path = folder / "luo.yaml"
    doc = yaml.safe_load(path.read_text())
    fn(doc)
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.update(titel="x"), r"luo\.yaml: titel: unknown key 'titel' \(did you mean: title\?\)"),
        (lambda d: d.pop("venue"), r"luo\.yaml: top level: missing key 'venue'"),
        (lambda d: d["tables"][0]["rows"][0].update(uiuc="fast"),
         r"luo\.yaml: tables\[0\]\.rows\[0\]\.uiuc: expected a number, \{value, knob\} or one of"),
        (lambda d: d["tables"][1]["rows"][0].update(graph="Boston"),
         r"luo\.yaml: tables\[1\]\.rows\[0\]\.graph: unknown graph \(not in datasets\) 'Boston'"),
        (lambda d: d["tables"][0]["columns"][0].update(metric="fps"),
         r"luo\.yaml: tables\[0\]\.columns\[0\]\.metric: expected one of ms, gteps, speedup"),
        (lambda d: d["tables"][1]["columns"][0].update(stat="girth"),
         r"luo\.yaml: tables\[1\]\.columns\[0\]\.stat: unknown stat 'girth'"),
        (lambda d: d.update(key="merrill"), r"luo\.yaml: key: expected 'luo' \(the file name\)"),
        (lambda d: d["hardware"].pop("gpu"), r"luo\.yaml: hardware: missing key 'gpu'"),
    ],
)
def test_broken_yaml_one_line_error(folder, edit, message):
    _edit(folder, edit)
    with pytest.raises(UserError, match=message) as exc:
        load_paper("luo", folder)
    assert "\n" not in str(exc.value)


def test_yaml_syntax_error(folder):
    path = folder / "luo.yaml"
    path.write_text("key: luo\ntitle: [unclosed\nvenue: x\n")
    with pytest.raises(UserError, match=r"luo\.yaml:\d+: not valid YAML"):
        load_paper_file(path)


def test_unknown_paper_key(folder):
    with pytest.raises(UserError, match=r"unknown paper 'luoo' \(did you mean: luo\?\)"):
        load_paper("luoo", folder)


def test_rank_columns_order_each_row(tmp_path):
    from gpubfs_cli.report.layouts import rank_cells
    from gpubfs_cli.report.table import Cell

    cells = [Cell("3.0", value=3.0), Cell("out-of-memory", status="out-of-memory"), Cell("1.0", value=1.0),
             Cell("3.0", value=3.0, knob="W4")]
    rank_cells(cells)
    assert [c.text for c in cells] == ["2", "out-of-memory", "1", "2 (W4)"]
    assert [c.value for c in cells] == [2.0, None, 1.0, 2.0]


def test_column_knobs_and_rank_metric_validate(tmp_path):
    doc = yaml.safe_load((papers_dir() / "raval.yaml").read_text())
    doc["tables"][1]["columns"][0]["knobs"] = {"chunk": 0}
    doc["tables"][1]["columns"][1]["metric"] = "rank"
    paper = load_paper_file(write_yaml(tmp_path, doc))
    assert paper.tables[1].columns[0].knobs == {"chunk": 0}
    assert paper.tables[1].columns[1].metric == "rank"
    doc["tables"][1]["columns"][0]["knobs"] = [1]
    with pytest.raises(UserError, match=r"columns\[0\]\.knobs: expected a mapping"):
        load_paper_file(write_yaml(tmp_path, doc))


def write_yaml(tmp_path, doc):
    path = tmp_path / "raval.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def test_a_folder_without_layouts_is_an_error_not_an_empty_list(tmp_path):
    with pytest.raises(UserError, match=r"^.*/empty: holds no paper layout \(no KEY\.yaml file\); expected a folder of "
                                        r"paper layouts \(KEY\.yaml\)$"):
        (tmp_path / "empty").mkdir()
        load_all(tmp_path / "empty")
    with pytest.raises(UserError, match=r"/nope: no such folder; "):
        load_paper("luo", tmp_path / "nope")
