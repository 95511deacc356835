"""Every reader on small files with known content, in every compression the opener reads."""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.errors import InputFormatError
from gpubfs_cli.graph import build_csr
from gpubfs_cli.graph.io import FORMATS, read_graph, text
from tests.graph import io_files as f


def _pairs(edges) -> list[tuple[int, int]]:
    return sorted(zip(edges.src.tolist(), edges.dst.tolist(), strict=True))


def test_format_names():
    assert set(FORMATS) == {"dimacs9", "metis", "snap", "mtx", "gtgraph"}


@pytest.mark.parametrize("compression", f.COMPRESSIONS)
@pytest.mark.parametrize("fmt", ["snap", "dimacs9", "gtgraph", "mtx"])
def test_arc_formats(tmp_path, fmt, compression):
    make, suffix = f.TEXTS[fmt]
    path = f.write(tmp_path, "g", suffix, make(), compression)
    edges = read_graph(path, fmt)
    assert edges.directed
    assert _pairs(edges) == sorted((u, v) for u, v, _ in f.ARCS)
    assert edges.n == (5 if fmt == "snap" else f.N)  # SNAP: largest id + 1
    g = build_csr(edges)
    assert (g.n, g.m) == (edges.n, f.ARCS_M)
    assert list(g.neighbors(0)) == [1, 2] and list(g.neighbors(4)) == []
    if compression == "tar.gz":
        assert edges.info["source"].endswith(f"[g/g{suffix}]")


@pytest.mark.parametrize("compression", f.COMPRESSIONS)
@pytest.mark.parametrize("fmt", [0, 1, 10, 11, 100])
def test_metis(tmp_path, fmt, compression):
    path = f.write(tmp_path, "g", ".graph", f.metis_text(fmt), compression)
    edges = read_graph(path, "metis")
    assert not edges.directed and edges.n == f.N
    entries = sorted([(u, v) for u, v, _ in f.EDGES] + [(v, u) for u, v, _ in f.EDGES])
    if fmt == 100:
        entries = sorted(entries + [(0, 1), (1, 0), (4, 4)])
    assert _pairs(edges) == entries
    assert edges.info["header"]["fmt"] == fmt
    g = build_csr(edges)
    assert (g.n, g.m) == (f.N, f.EDGES_M)
    assert list(g.neighbors(2)) == [0, 1, 3] and list(g.neighbors(5)) == []
    if fmt in (1, 11):
        weight = {(u, v): w for u, v, w in f.EDGES} | {(v, u): w for u, v, w in f.EDGES}
        assert edges.weights.tolist() == [weight[p] for p in zip(edges.src.tolist(), edges.dst.tolist(), strict=True)]
    else:
        assert edges.weights is None


def test_weights_kept(tmp_path):
    expected = [w for _, _, w in f.ARCS]
    for fmt, make, suffix in (("dimacs9", f.dimacs9_text, ".gr"), ("mtx", f.mtx_general_text, ".mtx")):
        edges = read_graph(f.write(tmp_path, fmt, suffix, make()), fmt)
        assert edges.weights.dtype == np.int64 and edges.weights.tolist() == expected
    real = read_graph(f.write(tmp_path, "real", ".mtx", f.mtx_general_text("real")), "mtx")
    assert real.weights.dtype == np.float64 and real.weights.tolist() == [w / 4 for w in expected]
    pattern = read_graph(f.write(tmp_path, "pat", ".mtx", f.mtx_general_text("pattern")), "mtx")
    assert pattern.weights is None


def test_mtx_symmetric(tmp_path):
    edges = read_graph(f.write(tmp_path, "s", ".mtx", f.mtx_symmetric_text()), "mtx")
    assert not edges.directed and edges.n == f.N and edges.num_records == len(f.EDGES) + 1
    g = build_csr(edges)
    assert (g.n, g.m) == (f.N, f.EDGES_M)
    assert list(g.neighbors(2)) == [0, 1, 3]


def test_float_values(tmp_path):
    values = ["1e-300", "-0.5", "1.5E+10", ".25", "5.", "-7", "2.2250738585072014e-308", "3.0000000000000000e+00"]
    body = "".join(f"1 2 {v}\n" for v in values)
    path = f.write(tmp_path, "v", ".mtx", f"%%MatrixMarket matrix coordinate real general\n2 2 {len(values)}\n{body}")
    assert read_graph(path, "mtx").weights.tolist() == [float(v) for v in values]


def test_snap_undirected_and_compact(tmp_path):
    path = f.write(tmp_path, "s", ".txt", "# c\n10 30\n30\t10\n30 99\n")
    edges = read_graph(path, "snap", directed=False, compact_ids=True)
    assert not edges.directed and edges.n == 3
    assert _pairs(edges) == [(0, 1), (1, 0), (1, 2)]
    assert edges.info["compact_ids"] == {"distinct": 3, "max_original_id": 99}
    g = build_csr(edges)
    assert (g.n, g.m) == (3, 4)
    sparse = read_graph(f.write(tmp_path, "t", ".txt", "7 1000000000000\n1000000000000 5\n"), "snap", compact_ids=True)
    assert sparse.n == 3 and _pairs(sparse) == [(1, 2), (2, 0)]
    plain = read_graph(path, "snap")
    assert plain.n == 100 and plain.info["header"] == {}


def test_snap_weighted_column(tmp_path):
    edges = read_graph(f.write(tmp_path, "w", ".wel", "0 1 7\n1 2 9\n"), "snap")
    assert edges.weights.tolist() == [7, 9]
    real = read_graph(f.write(tmp_path, "r", ".wel", "0 1 0.5\n1 2 1e3\n"), "snap")
    assert real.weights.tolist() == [0.5, 1000.0]


def test_snap_header_counts_recorded(tmp_path):
    edges = read_graph(f.write(tmp_path, "s", ".txt", f.snap_text()), "snap")
    assert edges.info["header"] == {"nodes": 5, "edges": len(f.ARCS)}
    assert edges.info["comments"][0] == "# Directed graph: test.txt"


def test_line_endings_and_blank_lines(tmp_path):
    crlf = "c x\r\np sp 3 2\r\n\r\na 1 2 5\r\n   \r\na 2 3 6"  # CRLF, blank lines, no final newline
    edges = read_graph(f.write(tmp_path, "c", ".gr", crlf), "dimacs9")
    assert _pairs(edges) == [(0, 1), (1, 2)] and edges.weights.tolist() == [5, 6]
    metis = "3 2\n2\n1 3\n2\n\n\n"  # trailing blank lines after the last vertex
    g = build_csr(read_graph(f.write(tmp_path, "m", ".graph", metis), "metis"))
    assert (g.n, g.m) == (3, 4)


def test_metis_isolated_last_vertex(tmp_path):
    g = build_csr(read_graph(f.write(tmp_path, "m", ".graph", "3 1\n2\n1\n\n"), "metis"))
    assert (g.n, g.m) == (3, 2) and list(g.neighbors(2)) == []
    path = f.write(tmp_path, "n", ".graph", "3 1\n2\n1\n")  # vertex 3's (empty) line is missing
    with pytest.raises(InputFormatError, match=r"n\.graph:4: line 1 declares 3 vertices; the file holds 2"):
        read_graph(path, "metis")


def test_tar_member_explicit(tmp_path):
    path = f.write(tmp_path, "g", ".mtx", f.mtx_general_text(), "tar.gz")
    renamed = path.rename(tmp_path / "other.tar.gz")
    edges = read_graph(renamed, "mtx", member="g/g.mtx")
    assert edges.num_records == len(f.ARCS)
    assert read_graph(renamed, "mtx", member="./g/g.mtx").num_records == len(f.ARCS)


def test_progress_reports_bytes(tmp_path):
    path = f.write(tmp_path, "g", ".txt", f.snap_text(), "gz")
    calls = []
    read_graph(path, "snap", progress=lambda done, total: calls.append((done, total)))
    size = path.stat().st_size
    assert calls[-1] == (size, size)
    assert all(total == size for _, total in calls)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


@pytest.mark.parametrize("fmt", ["snap", "metis", "mtx"])
def test_small_blocks_and_growth(tmp_path, monkeypatch, fmt):
    """Lines cut at every block boundary, arrays that start tiny and grow: same result."""
    rng = np.random.default_rng(7)
    n, m = 300, 4000
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    if fmt == "snap":
        body = "# h\n" + "".join(f"{u} {v}\n" for u, v in zip(src, dst, strict=True))
        expected = sorted(zip(src.tolist(), dst.tolist(), strict=True))
    elif fmt == "mtx":
        body = f"%%MatrixMarket matrix coordinate real general\n{n} {n} {m}\n"
        body += "".join(f"{u + 1} {v + 1} {u / 7:.6f}\n" for u, v in zip(src, dst, strict=True))
        expected = sorted(zip(src.tolist(), dst.tolist(), strict=True))
    else:
        keys = np.unique(np.concatenate([src * n + dst, dst * n + src]))
        keys = keys[keys // n != keys % n]
        adj = [[] for _ in range(n)]
        for k in keys.tolist():
            adj[k // n].append(k % n + 1)
        body = f"{n} {len(keys) // 2}\n" + "".join(" ".join(map(str, a)) + "\n" for a in adj)
        expected = sorted((int(k // n), int(k % n)) for k in keys)
    path = f.write(tmp_path, "big", {"snap": ".txt", "metis": ".graph", "mtx": ".mtx"}[fmt], body, "gz")
    monkeypatch.setattr(text, "CHUNK_BYTES", 37)
    monkeypatch.setattr(text, "INITIAL_ROWS", 3)
    edges = read_graph(path, fmt)
    assert _pairs(edges) == expected
    if fmt == "mtx":
        assert np.allclose(edges.weights, edges.src / 7, atol=1e-6)
