"""The real New York road graph through the whole reproduce path, on the CPU rows.

`../shared/data/USA-road-d.NY.gr.gz` is the DIMACS9 graph of Luo's Table 2, whole, but
re-compressed: its archive's sha256 is not the one the catalogue pins (the upstream
file's), while its header is. Served under its upstream path by a loopback HTTP server,
or from a mirror folder, it goes through the fetch, the checksum decision, the
conversion, `gpubfs reproduce luo --graph USA-road-d.NY` (no GPU: the CPU rows) and the
paper report, whose Table 2 row then holds a measured CPU-BFS time (skipped, saying so,
where ../shared/data is absent). Small archives in the other upstream layouts (SNAP,
SuiteSparse, DIMACS10 METIS) go through the same path.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpubfs_cli.cli import app
from gpubfs_cli.configs import shipped
from gpubfs_cli.datasets import catalogue
from gpubfs_cli.gpu import backend
from gpubfs_cli.results.schema import load_results
from tests.datasets.conftest import LoopbackServer
from tests.datasets.test_acquire import CASES
from tests.workflows.conftest import NY, UPSTREAM_PATH, needs_ny

runner = CliRunner()
PIN = "7b2446c7ffe6179efbc42af6812448e8cb782f12968ca2bb1d50d979343056d4"


@pytest.fixture
def no_gpu(monkeypatch):
    monkeypatch.setattr(backend, "unavailable_reason", lambda: "disabled for this test")


def reproduce(tmp: Path, *extra: str):
    return runner.invoke(app, ["reproduce", "luo", "--graph", "USA-road-d.NY", "--dir", str(tmp / "data"),
                               "--results", str(tmp / "out"), *extra])


def table2_row(output: str) -> str:
    rows = [line for line in output.splitlines() if line.lstrip("│| ").startswith("New York")]
    assert rows, output
    return rows[0]


@needs_ny
def test_the_pin_stops_a_recompressed_copy_with_one_line_and_the_rest_goes_on(served, tmp_path):
    result = reproduce(tmp_path)
    out = result.output
    assert result.exit_code == 0, out
    assert f"the catalogue pins {PIN}" in out
    assert "its header still matches the catalogue" in out and "--accept-checksum" in out
    assert ("USA-road-d.NY: its cells stay missing: not fetched; to fill them: gpubfs fetch-dataset "
            "USA-road-d.NY") in out
    assert not (tmp_path / "data" / "USA-road-d.NY").exists()
    assert not list((tmp_path / "data").rglob("*.gr.gz"))  # the refused download is gone


@needs_ny
def test_the_new_york_row_is_measured_through_the_whole_path(served, tmp_path):
    dry = reproduce(tmp_path, "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert "luo: 1 graph(s) in its tables:" in dry.output
    assert re.search(r"USA-road-d\.NY: download about 3\.7 MB \(estimated\), 8\.0 MB converted, conversion "
                     r"needs [\d.]+ MB of host memory", dry.output), dry.output
    assert "(no GPU here)" in dry.output and "download time unknown (no download measured here)" in dry.output

    result = reproduce(tmp_path, "--accept-checksum")
    out = result.output
    assert result.exit_code == 0, out
    assert [p for p, _ in served.log] == [UPSTREAM_PATH]
    files = sorted((tmp_path / "out" / "luo").glob("*.json"))
    assert len(files) == 1
    doc = load_results(files[0])
    info = doc["datasets"]["USA-road-d.NY"]
    assert (info["n"], info["m"]) == (264_346, 730_100)  # 733,846 arcs, 3,746 of them duplicates
    source = info["meta"]["source"]
    assert source["origin"] == "url" and source["url"] == served.url(UPSTREAM_PATH)
    assert source["checksum"] == "accepted-mismatch" and source["pinned_sha256"] == PIN
    assert source["header_match"] is True and source["bytes"] == NY.stat().st_size
    seq = [s for s in doc["samples"] if s["strategy"] == "cpu.sequential"]
    assert len(seq) == 10 and all(s["status"] == "ok" and s["valid"] for s in seq)
    # the report: Table 2's New York row holds a measured CPU-BFS time beside the paper's 41.6
    row = table2_row(out)
    assert re.search(r"41\.6 \| [\d.]+ ms", row) or re.search(r"41\.6 \| [\d.]+", row), row
    assert "missing" in row  # the GPU columns: no GPU here
    assert "USA-road-d.NY: archive sha256" in out and "used with --accept-checksum" in out
    # the same files report the same way through `gpubfs report --paper luo`
    again = runner.invoke(app, ["report", "--paper", "luo", str(files[0])])
    assert again.exit_code == 0, again.output
    assert table2_row(again.output) == row


@needs_ny
def test_the_mirror_serves_it_with_no_network(served, tmp_path, monkeypatch):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    shutil.copy(NY, mirror / NY.name)
    served.files.clear()  # any request would now fail
    monkeypatch.setenv("GPUBFS_MIRROR", str(mirror))
    dry = reproduce(tmp_path, "--dry-run")
    assert f"mirror: {mirror}" in dry.output
    assert "USA-road-d.NY: from the mirror: 3.7 MB (in the mirror)" in dry.output, dry.output
    result = reproduce(tmp_path, "--accept-checksum")
    assert result.exit_code == 0, result.output
    assert served.log == []
    doc = load_results(next((tmp_path / "out" / "luo").glob("*.json")))
    source = doc["datasets"]["USA-road-d.NY"]["meta"]["source"]
    assert source["origin"] == "mirror" and source["path"] == str(mirror / NY.name)
    assert (mirror / NY.name).read_bytes() == NY.read_bytes()  # read in place, left there
    assert "41.6 |" in table2_row(result.output)


@needs_ny
def test_graph_must_name_a_graph_of_the_papers_tables(served, tmp_path):
    result = runner.invoke(app, ["reproduce", "luo", "--graph", "europe.osm", "--dir", str(tmp_path / "d"),
                                 "--results", str(tmp_path / "o"), "--dry-run"])
    assert result.exit_code != 0
    assert "europe.osm" in result.output and "USA-road-d.NY" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("origin", ["url", "mirror"])
def test_every_upstream_layout_fills_a_paper_row(origin, no_gpu, tmp_path, monkeypatch):
    """A SNAP .txt.gz, a SuiteSparse .tar.gz holding NAME/NAME.mtx and a DIMACS10 METIS
    .graph.bz2, small archives in their upstream layout, each pinned by its sha256: served
    by a loopback server or read from a mirror, fetched, checked, converted, run by
    `gpubfs reproduce` (a copy of Luo's layout whose Table 2 rows name them) and reported."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GPUBFS_MIRROR", raising=False)
    server = LoopbackServer()
    try:
        mirror = tmp_path / "mirror"
        mirror.mkdir()
        entries = ""
        for case in CASES:
            if origin == "url":
                server.files[case.path] = case.body
            else:
                (mirror / case.path.rsplit("/", 1)[1]).write_bytes(case.body)
            sha = hashlib.sha256(case.body).hexdigest()
            entries += (f"  {case.name}:\n    kind: download\n    urls: [{server.url(case.path)}]\n"
                        f"    format: {case.fmt}\n{case.lines}    expected: {{n: {case.n}, m: {case.m}}}\n"
                        f"    sha256: '{sha}'\n")
        cat = tmp_path / "datasets.yaml"
        cat.write_text(shipped("datasets.yaml").read_text().rstrip("\n") + "\n" + entries)
        monkeypatch.setenv(catalogue.CATALOGUE_ENV, str(cat))
        papers = tmp_path / "configs" / "papers"
        papers.mkdir(parents=True)
        (tmp_path / "configs" / "experiments").mkdir()
        layout = (shipped("papers") / "luo.yaml").read_text().replace("key: luo", "key: tiny")
        layout = layout.replace("configs: [luo]", "configs: [tiny-real]")
        for road, case in zip(("USA-road-d.NY", "USA-road-d.FLA", "USA-road-d.E"), CASES, strict=True):
            layout = layout.replace(f": {road}\n", f": {case.name}\n")
        (papers / "tiny.yaml").write_text(layout)
        (tmp_path / "configs" / "experiments" / "tiny-real.yaml").write_text(
            "name: tiny-real\ndatasets: [snap-tiny, mesh-tiny, metis-tiny]\nstrategies: [cpu.sequential]\n"
            "sources: 2\nwarmup: 0\n")
        monkeypatch.setenv("GPUBFS_PAPERS_DIR", str(papers))
        extra = ["--mirror", str(mirror)] if origin == "mirror" else []
        result = runner.invoke(app, ["reproduce", "tiny", "--dir", str(tmp_path / "data"), "--results",
                                     str(tmp_path / "out"), *extra])
        assert result.exit_code == 0, result.output
        assert (server.log == []) == (origin == "mirror")
        doc = load_results(next((tmp_path / "out" / "tiny").glob("*.json")))
        for case in CASES:
            info = doc["datasets"][case.name]
            assert (info["n"], info["m"]) == (case.n, case.m)
            assert info["meta"]["source"]["origin"] == origin and info["meta"]["source"]["checksum"] == "verified"
        rows = {label: next(line for line in result.output.splitlines() if line.lstrip("│| ").startswith(label))
                for label in ("New York", "Florida", "USA-East")}
        for label, published in (("New York", "41.6"), ("Florida", "120.7"), ("USA-East", "581.4")):
            row = rows[label]
            assert re.search(r"\| 5 │", row), row  # the measured vertex count
            assert re.search(rf"{re.escape(published)} \| [\d.]+", row), row  # CPU-BFS measured
        assert "USA-West" in result.output and "USA-road-d.W" in result.output  # still missing, named
    finally:
        server.close()
