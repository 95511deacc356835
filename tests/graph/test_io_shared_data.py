"""The real files in ../shared/data: counts from DATASETS.md section 3."""

from __future__ import annotations

import re

import numpy as np
import pytest

from gpubfs_cli.errors import InputFormatError
from gpubfs_cli.graph import build_csr
from gpubfs_cli.graph.io import read_graph
from tests.graph import io_files as f


def test_chesapeake(shared_data):
    edges = read_graph(shared_data / "chesapeake.mtx", "mtx")
    assert not edges.directed and edges.num_records == 170
    assert edges.info["header"]["symmetry"] == "symmetric"
    assert any("chesapeake" in c for c in edges.info["comments"])
    g = build_csr(edges)
    assert (g.n, g.m) == (39, 340)


def test_chesapeake_in_a_suitesparse_tarball(shared_data, tmp_path):
    path = f.write(tmp_path, "chesapeake", ".mtx", (shared_data / "chesapeake.mtx").read_bytes(), "tar.gz")
    g = build_csr(read_graph(path, "mtx"))
    assert (g.n, g.m) == (39, 340)


def test_bips98_606(shared_data):
    edges = read_graph(shared_data / "bips98_606.mtx", "mtx")
    assert edges.directed and (edges.n, edges.num_records) == (7135, 34738)
    assert int((edges.src == edges.dst).sum()) == 6900
    lines = [ln for ln in (shared_data / "bips98_606.mtx").read_text().splitlines() if not ln.startswith("%")]
    values = np.array([float(ln.split()[2]) for ln in lines[1:]])
    assert edges.weights.dtype == np.float64
    assert np.allclose(edges.weights, values, rtol=4.5e-16, atol=0)  # within an ulp or two
    assert build_csr(edges).m == 27838
    assert build_csr(edges, symmetrize=True).m == 30380


@pytest.mark.parametrize(("name", "m"), [("delaunay_n15.graph", 98274), ("rgg_n_2_15_s0.graph", 160240)])
def test_dimacs10_graphs(shared_data, name, m):
    edges = read_graph(shared_data / name, "metis")
    assert edges.info["header"] == {"n": 32768, "m": m, "fmt": 0, "ncon": 1}
    assert edges.num_records == 2 * m
    g = build_csr(edges)
    assert (g.n, g.m) == (32768, 2 * m)


def test_ca_grqc(shared_data):
    edges = read_graph(shared_data / "CA-GrQc.txt", "snap", compact_ids=True, directed=False)
    assert edges.num_records == 28980 and edges.n == 5242
    assert int((edges.src == edges.dst).sum()) == 12
    assert edges.info["header"] == {"nodes": 5242, "edges": 28980}
    assert edges.info["compact_ids"] == {"distinct": 5242, "max_original_id": 26196}
    g = build_csr(edges)
    assert (g.n, g.m) == (5242, 28968)
    assert read_graph(shared_data / "CA-GrQc.txt", "snap").n == 26197


def test_p2p_gnutella08(shared_data):
    edges = read_graph(shared_data / "p2p-Gnutella08.txt.gz", "snap")
    assert edges.info["header"] == {"nodes": 6301, "edges": 20777}
    g = build_csr(edges)
    assert g.directed and (g.n, g.m) == (6301, 20777)
    assert build_csr(edges, symmetrize=True).m == 41554


@pytest.mark.parametrize("fmt", ["gtgraph", "dimacs9"])
def test_gtgraph_sample(shared_data, fmt):
    edges = read_graph(shared_data / "gtgraph-sample.gr", fmt)
    assert (edges.n, edges.num_records) == (64, 300)
    assert int(edges.weights.min()) >= 0 and int(edges.weights.max()) <= 100
    g = build_csr(edges, duplicates="keep")
    assert g.m == 300
    assert build_csr(edges).m == 288
    assert build_csr(edges, symmetrize=True).m == 558


GAPBS_EDGE_FILES = [("4.el", "snap"), ("4.wel", "snap"), ("4.gr", "dimacs9"), ("4.mtx", "mtx"), ("4w.mtx", "mtx")]


def test_gapbs_formats_agree(shared_data):
    folder = shared_data / "gapbs-4"
    expected = re.search(r"Graph has (\d+) nodes and (\d+) directed edges", (folder / "graph-4.out").read_text())
    n, m = int(expected[1]), int(expected[2])
    graphs = []
    for name, fmt in GAPBS_EDGE_FILES:
        edges = read_graph(folder / name, fmt)
        assert edges.num_records == 256, name
        graphs.append(build_csr(edges))
    for g in graphs:
        assert (g.n, g.m) == (n, m) == (14, 53)
        assert np.array_equal(g.row_offsets, graphs[0].row_offsets)
        assert np.array_equal(g.col_indices, graphs[0].col_indices)


def test_gapbs_metis_files_are_rejected(shared_data):
    """gapbs lists each arc once, against the DIMACS10 convention (DATASETS.md 2.2)."""
    with pytest.raises(InputFormatError, match=r"4\.graph:2: vertex 2 is in the line of vertex 1 but not the other way round"):
        read_graph(shared_data / "gapbs-4" / "4.graph", "metis")
    with pytest.raises(InputFormatError, match=r"4w\.graph:1: header declares m = 53 .* hold 53 entries"):
        read_graph(shared_data / "gapbs-4" / "4w.graph", "metis")
