"""The HTML report is one self-contained page: tables, figures as inline PNG, each results
file's environment, the command line and each strategy's caveats; nothing it needs comes
from the network. The shipped results render as pages too."""

from __future__ import annotations

import base64
import io
import sys
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from gpubfs_cli.cli import app
from gpubfs_cli.core.strategy import registry
from gpubfs_cli.report.command import make_report
from gpubfs_cli.report.html import PAGE_KEY, attach_page, command_line, environment_rows
from gpubfs_cli.report.load import load_many
from gpubfs_cli.report.render import render
from tests.report.docs import SOURCES, main_doc, sample, write

RESULTS = Path(__file__).parents[2] / "docs" / "results"
FRONTIER = {"frontier_vertices": [1, 7, 50, 300, 642], "frontier_edges": [8, 56, 400, 2400, 5136]}


class Page(HTMLParser):
    """Tag counts, every src/href, the images' data, the text of each section."""

    def __init__(self, text: str):
        super().__init__()
        self.tags: dict[str, int] = {}
        self.links: list[str] = []
        self.images: list[str] = []
        self.sections: dict[str, str] = {}
        self._section: str | None = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags[tag] = self.tags.get(tag, 0) + 1
        self.links += [a[k] for k in ("src", "href") if k in a]
        if tag == "img":
            self.images.append(a["src"])
        if tag == "section":
            self._section = a["id"]
            self.sections[self._section] = ""

    def handle_endtag(self, tag):
        if tag == "section":
            self._section = None

    def handle_data(self, data):
        if self._section:
            self.sections[self._section] += data


def png_of(src: str) -> np.ndarray:
    import matplotlib.image

    head, data = src.split(",", 1)
    assert head == "data:image/png;base64"
    return matplotlib.image.imread(io.BytesIO(base64.b64decode(data)), format="png")


def non_blank(image: np.ndarray) -> bool:
    rgb = image[..., :3]
    return bool(rgb.std() > 0.02 and (rgb < 0.5).any())


def results_doc() -> dict:
    doc = main_doc()
    doc["environment"]["command_line"] = "gpubfs run test"
    doc["samples"] += [sample("g1", "merrill.hybrid", s, 1.0, counters=FRONTIER,
                              knobs={"gather": "scan_warp_cta", "culling": "history"}).to_dict()
                       for s in SOURCES[:1]]
    return doc


@pytest.fixture(scope="module")
def page_text(tmp_path_factory) -> str:
    tmp = tmp_path_factory.mktemp("page")
    path = write(tmp, "main.json", results_doc())
    out = tmp / "page.html"
    args = ["report", str(path), "--format", "html", "--out", str(out)]
    with pytest.MonkeyPatch.context() as mp:
        # the page shows sys.argv: `gpubfs report ...`'s, not a pytest-xdist worker's ("-c")
        mp.setattr(sys, "argv", ["gpubfs", *args])
        r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    return out.read_text()


def test_page_has_every_section(page_text):
    page = Page(page_text)
    assert set(page.sections) == {"tables", "figures", "environment", "strategies"}
    # the overview table, then one environment table per results file
    assert page.tags["table"] == 2
    assert "NVIDIA H100 80GB HBM3" in page.sections["environment"]
    assert "Test CPU (2 cores)" in page.sections["environment"]
    assert "gpubfs run test" in page.sections["environment"]  # the run's command line
    assert '<pre id="command">gpubfs ' in page_text  # the report's own (argv: see below)
    # throughput, speedup, per-level, and g1's frontier from merrill.hybrid's counters
    assert len(page.images) == 4
    assert "frontier-g2: skipped" in page.sections["figures"]


def test_every_image_is_an_inline_non_blank_png(page_text):
    page = Page(page_text)
    for src in page.images:
        image = png_of(src)
        assert image.shape[0] > 100 and image.shape[1] > 100
        assert non_blank(image)


def test_page_needs_no_network(page_text):
    page = Page(page_text)
    assert page.links, "the page links its own sections"
    assert all(link.startswith(("data:", "#")) for link in page.links), page.links
    assert page.tags.get("script", 0) == 0 and page.tags.get("link", 0) == 0
    assert "@import" not in page_text and "url(" not in page_text


def test_strategies_show_their_caveats(page_text):
    text = Page(page_text).sections["strategies"]
    reg = registry()["bfs"]
    for name in ("cpu.sequential", "merrill.hybrid", "classic.vwarp", "classic.harish",
                 "classic.edge_coo", "luo.hierarchical"):
        assert name in text
        assert reg[name].caveats[0] in text


def test_every_registered_strategy_declares_caveats():
    missing = [f"{p} {n}" for p, names in registry().items() for n, cls in names.items() if not cls.caveats]
    assert missing == []


def test_environment_shows_clocks_and_l2_mode_when_recorded():
    env = {"gpu": {"available": True, "name": "NVIDIA H200", "driver_version": 13000, "runtime_version": 13020,
                   "clocks": {"sm_mhz": 1980, "mem_mhz": 3201}},
           "cpu": {"model": "Xeon", "cores": 16}, "l2_mode": "cold", "git_commit": "abc123",
           "command_line": "gpubfs run x.yaml"}
    rows = dict(environment_rows(env))
    assert rows["CUDA driver"] == "13.0" and rows["CUDA runtime"] == "13.2"
    assert "1980" in rows["GPU clocks"] and "3201" in rows["GPU clocks"]
    assert rows["l2_mode"] == "cold"
    assert "abc123" in rows["gpubfs"]
    assert dict(environment_rows({}))["environment"] == "not recorded"


def test_clocks_recorded_per_strategy_are_shown(tmp_path):
    doc = results_doc()
    doc["prepares"] = [{"dataset": "g1", "strategy": "merrill.hybrid", "status": "ok",
                        "clocks": {"before": {"sm_mhz": 1755}, "after": {"sm_mhz": 1980}}}]
    results = load_many([write(tmp_path, "c.json", doc)])
    d = make_report([tmp_path / "c.json"], fmt="md")
    attach_page(d, results, argv=["gpubfs", "report", "c.json", "--format", "html"])
    text = Page(render(d, "html")).sections["environment"]
    assert "recorded per strategy" in text and "1755" in text and "1980" in text
    assert "gpubfs report c.json --format html" in text


def test_command_line_names_gpubfs():
    assert command_line(["/x/__main__.py", "report", "a b.json"]) == "gpubfs report 'a b.json'"


def test_other_formats_carry_no_page(tmp_path):
    path = write(tmp_path, "m.json", results_doc())
    assert PAGE_KEY not in make_report([path], fmt="json").data
    assert PAGE_KEY in make_report([path], fmt="html").data


def test_compare_renders_a_page(tmp_path):
    a = write(tmp_path, "a.json", results_doc())
    b = write(tmp_path, "b.json", results_doc())
    page = Page(render(make_report(None, fmt="html", compare_files=(a, b)), "html"))
    assert page.tags["table"] == 1 + 1  # the comparison, then the one machine of both files
    assert len(page.images) == 4


@pytest.mark.slow
@pytest.mark.parametrize("paper, folder, figure", [
    ("merrill", "h200-2026-11-22", "frontier-"),  # Merrill's Fig. 3 from the stored frontiers
    ("lbbfs", "h100-2026-11-23", "lbbfs-"),  # the degree sweeps (the tables' `plot` entries)
    ("raval", "h100-2026-11-23", "raval-"),
])
def test_shipped_results_render_as_pages(paper, folder, figure):
    files = sorted((RESULTS / folder).glob(f"{paper}*.json.gz"))
    doc = make_report(files, fmt="html", paper=paper)
    page = Page(render(doc, "html"))
    assert page.tags["table"] == len(doc.tables) + 1  # one machine measured every file
    assert '<span class="pub">' in render(doc, "html")  # published | measured
    assert page.images and all(src.startswith("data:image/png;base64,") for src in page.images)
    ids = {f["id"] for f in doc.data[PAGE_KEY]["figures"]}
    assert any(i.startswith(figure) for i in ids), ids
    assert "throughput" in ids


def test_each_machine_is_shown_once_with_the_files_it_measured(tmp_path):
    """Three files, two of one machine (their runs' commands and code differ): two
    environment tables, the shared one listing both files with their own commands."""
    a, b, c = results_doc(), results_doc(), results_doc()
    b["environment"].update(command_line="gpubfs run other.yaml", git_commit="abc123")
    c["environment"]["gpu"] = {"available": True, "name": "NVIDIA H200"}
    files = [write(tmp_path, f"{name}.json", d) for name, d in (("a", a), ("b", b), ("c", c))]
    page = Page(render(make_report(files, fmt="html"), "html"))
    assert page.tags["table"] == 1 + 2  # the overview, then one table per machine
    text = page.sections["environment"]
    assert text.count("GPU NVIDIA H100 80GB HBM3, CPU Test CPU") == 1  # the captions
    assert text.count("GPU NVIDIA H200, CPU Test CPU") == 1
    assert "(2 files)" in text and "(1 file)" in text
    assert "gpubfs run test" in text and "gpubfs run other.yaml" in text and "commit abc123" in text
    assert all(f"{name}.json" in text for name in "abc")


def test_the_command_line_shows_no_absolute_folder(tmp_path):
    outside = tmp_path / "mine" / "r.json"
    assert command_line(["gpubfs", "report", str(outside), f"--out={outside}.html", "--paper", "merrill"]) == (
        "gpubfs report r.json --out=r.json.html --paper merrill")


@pytest.mark.parametrize("fmt", ["table", "md", "html", "json", "csv"])
def test_reports_name_files_relative_to_the_working_directory(tmp_path, monkeypatch, fmt):
    """A file under the working directory by its relative path, one outside by its name:
    a shared report shows none of the sharer's folders."""
    work = tmp_path / "work"
    (work / "runs").mkdir(parents=True)
    inside = write(work / "runs", "in.json", results_doc())
    outside = write(tmp_path, "out.json", results_doc())
    monkeypatch.chdir(work)
    text = render(make_report([inside, outside], fmt=fmt), fmt)
    assert str(tmp_path) not in text
    if fmt != "csv":  # CSV holds the cells only
        assert "runs/in.json" in text and "out.json" in text
