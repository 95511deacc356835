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


def _weighted(directed: bool):
    from gpubfs_cli.graph.weights import WeightRule, rule_weights

    g = gnm(300, 2000, 1, directed=directed)
    g.weights = rule_weights(g, WeightRule(0, 1000, 7))  # the same weight both ways of an undirected edge
    return g


@pytest.mark.parametrize("directed", [True, False])
def test_weighted_mtx_round_trip(tmp_path, directed, block):
    from gpubfs_cli.graph.io import read_graph

    g = _weighted(directed)
    path = tmp_path / "g.mtx"
    lines = export_graph(g, path, "wmtx", comment="weighted")
    kind = "general" if directed else "symmetric"
    assert path.read_text().startswith(f"%%MatrixMarket matrix coordinate integer {kind}\n% weighted\n")
    rows = np.array([ln.split() for ln in path.read_text().splitlines()[3:]], dtype=np.int64)
    assert rows.shape == (lines, 3) and rows[:, :2].min() == 1  # 1-based ids, the weight third
    assert lines == (g.m if directed else g.m // 2)  # the pattern export's entries
    assert path.read_text().splitlines()[2] == f"{g.n} {g.n} {lines}"
    back = build_csr(read_graph(path, "mtx"), keep_weights=True)
    assert back.directed == directed
    np.testing.assert_array_equal(back.row_offsets, g.row_offsets)
    np.testing.assert_array_equal(back.col_indices, g.col_indices)
    np.testing.assert_array_equal(back.weights, g.weights)


def test_weighted_mtx_refuses_what_it_cannot_write(tmp_path):
    g = gnm(30, 100, 1, directed=True, name="g")
    with pytest.raises(UserError, match="^g: wmtx needs edge weights and the graph has none$"):
        export_graph(g, tmp_path / "x.mtx", "wmtx")
    g.weights = np.ones(g.m, dtype=np.int64)
    g.weights[5] = -2
    with pytest.raises(UserError, match=r"g: wmtx weights must lie in \[0, 2\^63 - 1\] .*negative.* span \[-2, 1\]"):
        export_graph(g, tmp_path / "x.mtx", "wmtx")
    g.weights = np.full(g.m, 2.5)
    with pytest.raises(UserError, match="g: wmtx takes whole-number weights"):
        export_graph(g, tmp_path / "x.mtx", "wmtx")
    assert list(tmp_path.iterdir()) == []
    g.weights = np.full(g.m, 7.0)  # whole numbers stored as floats are written as integers
    export_graph(g, tmp_path / "x.mtx", "wmtx")  # no comment: the size line follows the banner
    lines = (tmp_path / "x.mtx").read_text().splitlines()
    assert lines[1].split() == ["30", "30", str(g.m)] and {ln.split()[2] for ln in lines[2:]} == {"7"}


def test_cli_exports_the_weights_a_sssp_run_uses(tmp_path):
    """`gpubfs export --format wmtx`: a graph without weights of its own gets those of its
    rule, as a SSSP run (and --format wel) does."""
    from typer.testing import CliRunner

    from gpubfs_cli.cli import app
    from gpubfs_cli.datasets.store import load_graph
    from gpubfs_cli.datasets.weights import ensure_weights

    edges = tmp_path / "g.txt"
    edges.write_text("0 1\n1 2\n2 0\n")
    cache, out = tmp_path / "cache", tmp_path / "g.mtx"
    cli = CliRunner()
    assert cli.invoke(app, ["fetch-dataset", "plain", "--file", str(edges), "--format", "snap",
                            "--dir", str(cache)]).exit_code == 0
    r = cli.invoke(app, ["export", "plain", str(out), "--format", "wmtx", "--dir", str(cache)])
    assert r.exit_code == 0, r.output
    assert f"wrote {out}: 3 edge lines (wmtx)" in r.stdout
    w = ensure_weights(load_graph("plain", cache), cache).weights
    assert out.read_text().splitlines()[-3:] == [f"1 2 {w[0]}", f"2 3 {w[1]}", f"3 1 {w[2]}"]
    assert out.read_text().startswith("%%MatrixMarket matrix coordinate integer general\n")
