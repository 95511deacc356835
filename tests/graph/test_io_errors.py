"""Every violation is an InputFormatError naming the file and, where it has one, the line."""

from __future__ import annotations

import bz2
import gzip
import re

import pytest

from gpubfs_cli.errors import InputFormatError, UserError
from gpubfs_cli.graph.io import read_graph
from tests.graph import io_files as f


def _fails(path, fmt: str, line: int | None, pattern: str, **kwargs) -> InputFormatError:
    with pytest.raises(InputFormatError) as info:
        read_graph(path, fmt, **kwargs)
    err = info.value
    where = f"{path}:{line}: " if line is not None else f"{path}: "
    assert str(err).startswith(where), str(err)
    assert re.search(pattern, str(err)), str(err)
    assert "\n" not in str(err)
    return err


# (format, suffix, file text, line, message pattern)
CASES = [
    # DIMACS 9
    ("dimacs9", ".gr", "c x\np sp 3 3\na 1 2 1\na 2 3 1\n", 5, r"declares 3 arcs; the file holds 2"),
    ("dimacs9", ".gr", "p sp 3 1\na 1 2 1\nc mid\na 2 3 1\n", 4, r"more arcs than the 1 declared on line 1"),
    ("dimacs9", ".gr", "p sp 3 2\na 1 2 1\na 2 4 1\n", 3, r"head 4 out of range 1\.\.3"),
    ("dimacs9", ".gr", "p sp 3 2\na 0 2 1\na 2 3 1\n", 2, r"tail 0 out of range 1\.\.3"),
    ("dimacs9", ".gr", "p sp 3 2\na 1 2 1\na 2 x 1\n", 3, r"expected an arc line .*value 2 is not a number: 'a 2 x 1'"),
    ("dimacs9", ".gr", "p sp 3 2\na 1 2\na 2 3 1\n", 2, r"found 2 values"),
    ("dimacs9", ".gr", "p sp 3 2\na 1 2 1\ne 2 3 1\n", 3, r"line does not start with 'a'"),
    ("dimacs9", ".gr", "p sp 3 1\na 1 2 1 9\n", 2, r"found 4\+ values"),
    ("dimacs9", ".gr", "c only\np max 3 2\n", 2, r"expected the problem line 'p sp <n> <m>'"),
    ("dimacs9", ".gr", "c nothing\n", 2, r"expected the problem line"),
    ("dimacs9", ".gr", "p sp 3 1\na 1 2 12345678901234567890\n", 2, r"value 3 has too many digits"),
    ("gtgraph", ".gr", "c\tGT\np sp 2 1\na 1 2 5\np sp 2 1\n", 4, r"line does not start with 'a'"),
    # Matrix Market
    ("mtx", ".mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 2\n2 3\n", 5, r"declares 3 entries; the file holds 2"),
    ("mtx", ".mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2\n2 3\n", 4, r"more entries than the 1 declared on line 2"),
    ("mtx", ".mtx", "%%MatrixMarket matrix coordinate pattern general\n%c\n3 3 2\n1 2\n4 3\n", 5, r"row index 4 out of range 1\.\.3"),
    ("mtx", ".mtx", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 2 1.5\n", 3, r"value 3 is not a number"),
    ("mtx", ".mtx", "%%MatrixMarket matrix coordinate complex general\n3 3 1\n1 2 1 0\n", 1, r"field 'complex' is not supported"),
    ("mtx", ".mtx", "%%MatrixMarket matrix array real general\n3 3\n1\n", 1, r"dense 'array' .* expected 'coordinate'"),
    ("mtx", ".mtx", "%%MatrixMarket matrix coordinate pattern general\n3 4 1\n1 2\n", 2, r"3 x 4; a graph needs a square matrix"),
    ("mtx", ".mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n1 3\n", 4, r"symmetric file lists only entries on or below the diagonal; found \(1, 3\)"),
    ("mtx", ".mtx", "%%MatrixMarket matrix coordinate pattern skew-symmetric\n3 3 1\n2 2\n", 3, r"strictly below"),
    ("mtx", ".mtx", "3 3 1\n1 2\n", 1, r"expected the banner '%%MatrixMarket"),
    ("mtx", ".mtx", "%%MatrixMarket matrix coordinate pattern general\n% c\n3 3\n", 3, r"expected the size line"),
    # METIS / DIMACS10
    ("metis", ".graph", "3 3\n2\n1 3\n2\n", 1, r"header declares m = 3 \(edges, i\.e\. 6 adjacency entries\); the adjacency lines hold 4 entries"),
    ("metis", ".graph", "3 2\n2\n1 3\n2\n3\n", 5, r"line 1 declares 3 vertices; this is line 4 of adjacency data"),
    ("metis", ".graph", "%\n3 2\n2\n1 3\n", 5, r"declares 3 vertices; the file holds 2 adjacency lines"),
    ("metis", ".graph", "3 2\n2\n1 4\n2\n", 3, r"neighbour id 4 out of range 1\.\.3"),
    ("metis", ".graph", "3 2\n2\n% c\n1 3\n3\n", 4, r"vertex 3 is in the line of vertex 2 but not the other way round"),
    ("metis", ".graph", "3 2 1\n2 5\n1 5 3\n2 1\n", 3, r"vertex 2: expected '<neighbour> <weight>' pairs \(fmt 1\)"),
    ("metis", ".graph", "3 2 7\n2\n1 3\n2\n", 1, r"fmt 7 is not supported"),
    ("metis", ".graph", "3\n2\n", 1, r"expected the header '<n> <m> \[fmt \[ncon\]\]'"),
    ("metis", ".graph", "3 2\n2\n1 -3\n2\n", 3, r"neighbour id -3 out of range"),
    # SNAP
    ("snap", ".txt", "# h\n0 1\n1 2 3 4\n", 3, r"found 3\+ values"),
    ("snap", ".txt", "# h\n0 1\n1\n", 3, r"found 1 values"),
    ("snap", ".txt", "# h\n0 1\n1 -2\n", 3, r"node id -2 out of range"),
    ("snap", ".txt", "0 1 2 3\n", 1, r"expected '<from> <to>' \(or '<from> <to> <weight>'\); found 4 values"),
    ("snap", ".txt", "0 1\n1 2a\n", 2, r"value 2 is not a number: '1 2a'"),
]


@pytest.mark.parametrize(("fmt", "suffix", "body", "line", "pattern"), CASES)
def test_bad_files(tmp_path, fmt, suffix, body, line, pattern):
    path = f.write(tmp_path, "bad", suffix, body)
    err = _fails(path, fmt, line, pattern)
    assert err.line == line and err.path == str(path)


def test_error_line_counts_past_comments_and_blocks(tmp_path, monkeypatch):
    """The line of a bad record found after parsing is right across comments and block reads."""
    from gpubfs_cli.graph.io import text

    body = "p sp 9 40\n" + "".join(("c x\n" if i % 3 == 0 else "") + f"a {i % 9 + 1} 1 1\n" for i in range(39)) + "a 1 10 1\n"
    path = f.write(tmp_path, "long", ".gr", body, "gz")
    monkeypatch.setattr(text, "CHUNK_BYTES", 23)
    expected_line = body.count("\n")
    _fails(path, "dimacs9", expected_line, r"head 10 out of range 1\.\.9")


def test_truncated_gzip(tmp_path):
    data = gzip.compress(f.snap_text().encode() * 50)
    path = tmp_path / "t.txt.gz"
    path.write_bytes(data[: len(data) // 2])
    _fails(path, "snap", None, r"truncated or corrupt gzip data")


def test_corrupt_gzip(tmp_path):
    data = bytearray(gzip.compress(f.snap_text().encode() * 50))
    data[20:40] = b"\xff" * 20
    path = tmp_path / "c.txt.gz"
    path.write_bytes(bytes(data))
    _fails(path, "snap", None, r"truncated or corrupt gzip data")


def test_truncated_bz2(tmp_path):
    data = bz2.compress(f.dimacs9_text().encode() * 3)
    path = tmp_path / "t.gr.bz2"
    path.write_bytes(data[:-10])
    _fails(path, "dimacs9", None, r"truncated or corrupt bzip2 data")


def test_truncated_tar(tmp_path):
    path = f.write(tmp_path, "g", ".mtx", f.mtx_general_text() * 200, "tar.gz")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 40])
    with pytest.raises(InputFormatError, match=r"g\.tar\.gz.*truncated or corrupt tar \(gzip\) data"):
        read_graph(path, "mtx")


def test_archive_without_the_member(tmp_path):
    path = f.write(tmp_path, "g", ".mtx", f.mtx_general_text(), "tar.gz")
    renamed = path.rename(tmp_path / "other.tar.gz")
    _fails(renamed, "mtx", None, r"archive holds no other/other\.mtx; name one with member= \(members: g/README\.txt, g/g\.mtx\)")
    _fails(renamed, "mtx", None, r"archive has no member 'x\.mtx' \(members: g/README\.txt, g/g\.mtx\)", member="x.mtx")


def test_missing_file_and_directory(tmp_path):
    _fails(tmp_path / "nope.gr", "dimacs9", None, r"file not found")
    _fails(tmp_path, "dimacs9", None, r"is a directory")


def test_unknown_format(tmp_path):
    with pytest.raises(UserError, match=r"unknown graph format 'mtxx' \(did you mean: mtx"):
        read_graph(tmp_path / "x", "mtxx")


# ---------------------------------------------------------------- counts, no edges, vertex bound
# (format, suffix, file text, line, message pattern): a file whose records do not give a
# graph: truncated against its header, no edge at all, or n far beyond its records.
COUNT_CASES = [
    # SNAP's `# Nodes: N Edges: M` header is checked against the pairs read
    ("snap", ".txt", "# Nodes: 3 Edges: 5\n0 1\n1 2\n", 4, r"line 1 declares 5 edges; the file holds 2"),
    ("snap", ".txt", "# c\n# Nodes: 3 Edges: 1\n0 1\n1 2\n", 4, r"more edges than the 1 declared on line 2"),
    # no edge records
    ("snap", ".txt", "", None, r"holds no edges"),
    ("snap", ".txt", "# Nodes: 0 Edges: 0\n", None, r"holds no edges"),
    ("dimacs9", ".gr", "p sp 3 0\n", None, r"holds no edges"),
    ("gtgraph", ".gr", "c x\np sp 3 0\n", None, r"holds no edges"),
    ("mtx", ".mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 0\n", None, r"holds no edges"),
    ("metis", ".graph", "3 0\n\n\n\n", None, r"holds no edges"),
    # n from the largest id (SNAP) or a header, far beyond the records: the 17-byte file
    ("snap", ".txt", "0 1\n1 2000000000\n", 2,
     r"node id 2,000,000,000 \(n = largest id \+ 1\) gives 2,000,000,001 vertices for 2 edge records: "
     r"almost all would be isolated .*compact ids \(fetch-dataset --compact-ids; catalogue: compact_ids: true\)"),
    ("snap", ".txt", "# c\n0 1\n1 99999999999\n7 8\n", 3, r"gives 100,000,000,000 vertices, over the 3,037,000,499"),
    ("dimacs9", ".gr", "p sp 99999999999 1\na 1 2 1\n", 1, r"line 1 declares 99,999,999,999 vertices, over the"),
    ("dimacs9", ".gr", "c\np sp 500000000 1\na 1 2 1\n", 2, r"line 2 declares 500,000,000 vertices for 1 edge record: almost all"),
    ("mtx", ".mtx", "%%MatrixMarket matrix coordinate pattern general\n90000000 90000000 2\n1 2\n2 3\n", 2,
     r"line 2 declares 90,000,000 vertices for 2 edge records"),
]


@pytest.mark.parametrize(("fmt", "suffix", "body", "line", "pattern"), COUNT_CASES)
def test_counts_no_edges_and_vertex_bound(tmp_path, fmt, suffix, body, line, pattern):
    path = f.write(tmp_path, "bad", suffix, body)
    err = _fails(path, fmt, line, pattern)
    assert err.line == line


def test_compact_ids_lift_the_vertex_bound(tmp_path):
    path = f.write(tmp_path, "sparse", ".txt", "0 1\n1 2000000000\n")
    edges = read_graph(path, "snap", compact_ids=True)
    assert edges.n == 3 and edges.info["compact_ids"] == {"distinct": 3, "max_original_id": 2_000_000_000}
    # a graph of isolated vertices up to the free allowance is fine
    assert read_graph(f.write(tmp_path, "iso", ".gr", "p sp 4000000 1\na 1 4000000 1\n"), "dimacs9").n == 4_000_000


def test_vertex_bound_against_memory(tmp_path, monkeypatch):
    """n within the records' allowance but beyond the memory available: refused before the build."""
    from gpubfs_cli.graph.io import common

    monkeypatch.setattr(common, "available_memory", lambda: 50 * 2**20)
    path = f.write(tmp_path, "mem", ".gr", "p sp 3000000 1\na 1 2 1\n")
    _fails(path, "dimacs9", 1, r"line 1 declares 3,000,000 vertices: building the graph needs about 0\.1 GiB, "
                               r"0\.0 GiB of memory is available; renumber the ids")
    monkeypatch.setattr(common, "available_memory", lambda: None)  # unknown: only the ratio applies
    assert read_graph(path, "dimacs9").n == 3_000_000


def test_available_memory_is_a_positive_count():
    from gpubfs_cli.graph.io.common import available_memory

    free = available_memory()
    assert free is None or free > 0


def test_truncated_snap_text_against_its_header(shared_data, tmp_path):
    """CA-GrQc's header says 28,980 edges: its first 8,979 lines (8,975 pairs) are refused."""
    lines = (shared_data / "CA-GrQc.txt").read_text().splitlines(keepends=True)
    path = tmp_path / "CA-GrQc-cut.txt"
    path.write_text("".join(lines[:8979]))
    _fails(path, "snap", 8980, r"line 3 declares 28980 edges; the file holds 8975")


def test_every_truncation_of_a_gzip_fails(shared_data, tmp_path):
    """p2p-Gnutella08.txt.gz cut anywhere (in the data, the header, the 8-byte trailer)."""
    data = (shared_data / "p2p-Gnutella08.txt.gz").read_bytes()
    cuts = sorted({0, 1, 2, 9, 10, 11, *range(20, len(data), len(data) // 40), *range(len(data) - 12, len(data))})
    path = tmp_path / "cut.txt.gz"
    for cut in cuts:
        path.write_bytes(data[:cut])
        with pytest.raises(InputFormatError, match=r"truncated or corrupt gzip data|holds no edges|declares 20777 edges"):
            read_graph(path, "snap")
    path.write_bytes(data)
    assert read_graph(path, "snap").num_records == 20777


def test_truncated_tar_header(tmp_path):
    """tarfile raises TypeError on a gzip header cut short: still one InputFormatError."""
    path = f.write(tmp_path, "g", ".mtx", f.mtx_general_text(), "tar.gz")
    data = path.read_bytes()
    for cut in range(1, 40):  # 3 bytes: the gzip magic and method, no flags byte
        path.write_bytes(data[:cut])
        _fails(path, "mtx", None, r"not a readable tar archive|truncated or corrupt")
