"""A graph's costs before it is fetched: the download size's basis, the converted size,
the conversion's host memory and a BFS's GPU memory, from the catalogue's counts."""

from __future__ import annotations

import pytest

from gpubfs_cli.datasets.catalogue import (
    DatasetEntry,
    Expected,
    load_catalogue,
    parse_catalogue,
    parse_size,
)
from gpubfs_cli.datasets.footprint import BYTES_PER_EDGE, download_of, footprint, human
from gpubfs_cli.errors import UserError
from gpubfs_cli.graph import build


def _entry(**kw) -> DatasetEntry:
    base = dict(name="g", kind="download", urls=("https://h/g.gr.gz",), format="dimacs9",
                expected=Expected(n=1000, m=4000))
    base.update(kw)
    return DatasetEntry(**base)


def test_parse_size_reads_decimal_units_and_refuses_words():
    assert parse_size("164 MB") == 164_000_000
    assert parse_size("3.6 MB") == 3_600_000
    assert parse_size("2 GB") == 2_000_000_000
    with pytest.raises(UserError, match="expected a size such as '164 MB', got 'big'"):
        parse_size("big")


def test_download_size_prefers_measured_then_mirror_then_published_then_estimate(tmp_path):
    e = _entry(published_size="2 MB")
    assert download_of(e, 4000, measured=1234).bytes == 1234
    assert download_of(e, 4000, measured=1234).basis == "measured"
    f = tmp_path / "g.gr.gz"
    f.write_bytes(b"x" * 777)
    assert (download_of(e, 4000, mirror_file=f).bytes, download_of(e, 4000, mirror_file=f).basis) == (777, "mirror")
    assert (download_of(e, 4000).bytes, download_of(e, 4000).basis) == (2_000_000, "published")
    est = download_of(_entry(), 4000)
    assert (est.bytes, est.basis) == (int(4000 * BYTES_PER_EDGE["dimacs9"]), "estimated")
    assert est.text() == f"about {human(est.bytes)} (estimated)"
    assert download_of(_entry(kind="generated", urls=(), format=None), 4000).bytes is None


def test_footprint_follows_the_converter_arithmetic():
    n, m = 1000, 4000
    plain = footprint(_entry(), n, m, download_of(_entry(), m))
    assert plain.disk_bytes == 8 * (n + 1) + 4 * m
    weighted = footprint(_entry(weights=True), n, m, download_of(_entry(), m))
    assert weighted.disk_bytes == 8 * (n + 1) + 8 * m
    # parse: three int64 columns a DIMACS record; the build: a chunk, the vertices, one part
    work = build.RECORD_BYTES * m + build.VERTEX_BYTES * n + build.entry_bytes(0) * m
    assert plain.host_bytes == 24 * m + work + plain.disk_bytes
    # a directed graph keeps its in-edges on the GPU too
    directed = footprint(_entry(directed=True), n, m, download_of(_entry(), m))
    assert directed.gpu_bytes - plain.gpu_bytes == 8 * (n + 1) + 4 * m


def test_every_catalogue_download_has_a_size_and_kron_its_published_one():
    cat = load_catalogue()
    for e in cat.entries.values():
        if e.kind == "download":
            d = download_of(e, None)
            assert d.bytes and d.bytes > 0, e.name
    kron = cat.get("kron_g500-logn20")
    assert download_of(kron, None).text() == "164 MB (as published)"


def test_catalogue_refuses_a_published_size_it_cannot_read():
    text = ("datasets:\n  g:\n    kind: download\n    urls: [https://h/g.gr]\n    format: dimacs9\n"
            "    published_size: lots\n")
    with pytest.raises(UserError, match="dataset 'g': key 'published_size': expected a size such as '164 MB'"):
        parse_catalogue(text, "cat.yaml")


def test_the_new_york_road_graph_is_pinned_and_served_by_three_urls():
    ny = load_catalogue().get("USA-road-d.NY")
    assert ny.sha256 == "7b2446c7ffe6179efbc42af6812448e8cb782f12968ca2bb1d50d979343056d4"
    assert "https://www.diag.uniroma1.it/challenge9/data/USA-road-d/USA-road-d.NY.gr.gz" in ny.urls
    assert len(ny.urls) == 3
