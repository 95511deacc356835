"""export_graph: Matrix Market and edge list text that reads back to the same graph."""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.errors import UserError
from gpubfs_cli.graph import EdgeList, build_csr
from gpubfs_cli.graph.io import export
from gpubfs_cli.graph.io.export import export_graph
from gpubfs_cli.graph.samples import gnm


def _read_back(path, base):
    lines = [ln for ln in path.read_text().splitlines() if not ln.startswith(("%", "#"))]
    header = None
    if path.suffix == ".mtx":
        header, lines = lines[0], lines[1:]
    pairs = np.array([ln.split(" ") for ln in lines], dtype=np.int64).reshape(-1, 2) - base
    return header, pairs


@pytest.fixture(params=[1 << 22, 97])  # one block, and many small ones
def block(request, monkeypatch):
    monkeypatch.setattr(export, "BLOCK_EDGES", request.param)
    return request.param


@pytest.mark.parametrize("directed", [True, False])
def test_mtx_round_trip(tmp_path, directed, block):
    g = gnm(300, 2000, 1, directed=directed)
    path = tmp_path / "g.mtx"
    lines = export_graph(g, path, "mtx", comment="from a test")
    text = path.read_text()
    kind = "general" if directed else "symmetric"
    assert text.startswith(f"%%MatrixMarket matrix coordinate pattern {kind}\n% from a test\n")
    header, pairs = _read_back(path, 1)
    assert header == f"{g.n} {g.n} {lines}" and len(pairs) == lines
    if not directed:
        assert lines == g.m // 2 and np.all(pairs[:, 0] > pairs[:, 1])  # lower triangle, no loops
    back = build_csr(EdgeList(pairs[:, 0], pairs[:, 1], g.n, directed))
    np.testing.assert_array_equal(back.row_offsets, g.row_offsets)
    np.testing.assert_array_equal(back.col_indices, g.col_indices)


@pytest.mark.parametrize("directed", [True, False])
def test_edge_list_round_trip(tmp_path, directed, block):
    g = gnm(300, 2000, 1, directed=directed)
    path = tmp_path / "g.el"
    assert export_graph(g, path, "el") == g.m
    _, pairs = _read_back(path, 0)
    src = np.repeat(np.arange(g.n), np.diff(g.row_offsets))
    np.testing.assert_array_equal(pairs[:, 0], src)
    np.testing.assert_array_equal(pairs[:, 1], g.col_indices)


def test_large_ids_and_isolated_tail(tmp_path):
    # ids with many digits, and vertices with no edges at the end of the range
    n = 10_000_000
    g = build_csr(EdgeList(np.array([0, 1_234_567]), np.array([9_999_998, 7]), n, True))
    # the last vertex has no edge: a self-loop on it keeps n for readers that size the
    # graph by the largest id (gapbs drops the loop)
    assert export_graph(g, tmp_path / "big.el", "el") == 3
    assert (tmp_path / "big.el").read_text() == "0 9999998\n1234567 7\n9999999 9999999\n"
    export_graph(g, tmp_path / "big.mtx", "mtx")
    assert (tmp_path / "big.mtx").read_text().endswith("10000000 10000000 2\n1 9999999\n1234568 8\n")


def test_errors_and_no_partial_file(tmp_path, monkeypatch):
    g = gnm(300, 2000, 1, directed=True)
    with pytest.raises(UserError, match=r"unknown export format 'csv'"):
        export_graph(g, tmp_path / "x.csv", "csv")
    with pytest.raises(UserError, match="no such folder"):
        export_graph(g, tmp_path / "nope" / "x.mtx")

    def broken(*a):
        raise OSError("disk full")

    monkeypatch.setattr(export, "_format_pairs", broken)
    with pytest.raises(UserError, match=r"x\.mtx: cannot write the export \(disk full\)"):
        export_graph(g, tmp_path / "x.mtx")
    assert list(tmp_path.iterdir()) == []
