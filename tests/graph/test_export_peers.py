"""Each export format loads, as written, in the peer it is meant for.

el is for gapbs (`bfs -f G.el`), mtx for Gunrock and scipy. Each file is read back with
the peer's own rules, on the CPU, here (the readers below follow gapbs's src/reader.h
and builder.h, Gunrock's io/matrix_market.hxx with mmio, and scipy.io.mmread itself),
and with the peer itself where it runs: gapbs's static x86-64 binary from
../shared/peers/gapbs (skipped visibly where absent); Gunrock's binary needs a GPU
(a `gpu` test, skipped without one). GPUBFS_PEERS names another peers folder.
"""

from __future__ import annotations

import json
import os
import platform
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from gpubfs_cli.graph import EdgeList, build_csr
from gpubfs_cli.graph.io.export import export_graph
from gpubfs_cli.graph.samples import gnm

# ../shared/peers beside the checkout; GPUBFS_PEERS points elsewhere (e.g. a copy on a GPU machine)
PEERS = Path(os.environ.get("GPUBFS_PEERS") or Path(__file__).resolve().parents[2].parent / "shared" / "peers")
INT32_MAX = 2**31 - 1


GRAPHS = {  # an isolated tail: the last vertices have no edge at all
    "directed": lambda: gnm(300, 1500, 3, directed=True, name="g"),
    "undirected": lambda: gnm(300, 1500, 3, name="g"),
    "directed-isolated-tail": lambda: gnm(300, 1500, 3, directed=True, isolated=7, name="g"),
    "undirected-isolated-tail": lambda: gnm(300, 1500, 3, isolated=1, name="g"),
}


def _same(a, b) -> None:
    assert a.n == b.n
    np.testing.assert_array_equal(a.row_offsets, b.row_offsets)
    np.testing.assert_array_equal(a.col_indices, b.col_indices)


# ---------------------------------------------------------------- gapbs's rules (CPU)
def gapbs_el(path: Path, symmetrize: bool = False):
    """A .el file as gapbs builds it: ReadInEL is `while (in >> u >> v)` with int32 ids
    (it stops at the first token that is not one: a comment ends the graph); n = the
    largest id + 1 (FindMaxNodeID); SquishCSR drops self-loops and duplicates; -s
    symmetrizes."""
    ids = []
    for token in path.read_text().split():
        if not re.fullmatch(r"[+-]?\d+", token) or not -2**31 <= int(token) <= INT32_MAX:
            break
        ids.append(int(token))
    pairs = np.array(ids[: len(ids) // 2 * 2], dtype=np.int64).reshape(-1, 2)
    n = int(pairs.max()) + 1 if len(pairs) else 1  # gapbs: an empty list is 1 vertex
    return build_csr(EdgeList(pairs[:, 0], pairs[:, 1], n, not symmetrize), symmetrize=symmetrize)


@pytest.mark.parametrize("kind", GRAPHS)
def test_el_loads_as_written_by_gapbs_rules(tmp_path, kind):
    g = GRAPHS[kind]()
    path = tmp_path / "g.el"
    export_graph(g, path, "el", comment="a comment gapbs must never see")
    first = path.read_text().split("\n", 1)[0]
    assert re.fullmatch(r"\d+ \d+", first), first  # the 1-vertex-graph bug: no comment line
    _same(gapbs_el(path), g)


def test_comment_first_line_is_what_broke_gapbs(tmp_path):
    """The rules above reproduce the failure the issue saw: a '#' first line gives a
    1-vertex graph (so they are strict enough to catch a regression)."""
    path = tmp_path / "old.el"
    path.write_text("# gpubfs export of dataset g\n0 1\n1 2\n")
    assert (gapbs_el(path).n, gapbs_el(path).m) == (1, 0)


# ---------------------------------------------------------------- Gunrock's rules (CPU)
def gunrock_mtx(path: Path, weighted: bool = False):
    """A .mtx file as Gunrock's matrix_market_t::load reads it: mmio's banner (five words,
    `%%MatrixMarket matrix coordinate <field> <symmetry>`, lines under 1025 bytes), `%`
    comment lines, the size line `M N L` (M, N below int32 max), then exactly L entries
    `i j` (pattern) or `i j w` (integer or real: w read as double, kept as float32) read
    with fscanf, 1-based (0 is an error); symmetric files get every off-diagonal entry
    mirrored with its weight. The CSR keeps the entries as they are; with `weighted`, the
    weights come back too (the field must carry them)."""
    lines = path.read_text().split("\n")
    assert all(len(ln) < 1025 for ln in lines[:1000]), "mmio reads lines of at most 1024 bytes"
    words = lines[0].lower().split()
    assert len(words) == 5 and words[:3] == ["%%matrixmarket", "matrix", "coordinate"], lines[0]
    assert words[3] == ("integer" if weighted else "pattern") and words[4] in ("general", "symmetric")
    i = 1
    while lines[i].startswith("%"):
        i += 1
    rows, cols, nnz = (int(x) for x in lines[i].split())
    assert rows == cols and rows < INT32_MAX and nnz < INT32_MAX
    fields = 3 if weighted else 2
    entries = np.array(" ".join(lines[i + 1:]).split(), dtype=np.float64)
    assert len(entries) == fields * nnz, "fscanf reads exactly L entries; a shorter file fails"
    r, c = entries[0::fields].astype(np.int64), entries[1::fields].astype(np.int64)
    w = entries[2::fields].astype(np.float32) if weighted else np.zeros(nnz, np.float32)
    assert r.min() >= 1 and c.min() >= 1, "Market file is zero-indexed"
    r, c = r - 1, c - 1
    if words[4] == "symmetric":
        off = r != c
        r, c, w = np.concatenate([r, c[off]]), np.concatenate([c, r[off]]), np.concatenate([w, w[off]])
    order = np.lexsort((c, r))
    r, c, w = r[order], c[order], w[order]
    assert not np.any((r[1:] == r[:-1]) & (c[1:] == c[:-1])), "no duplicate entries"
    offsets = np.zeros(rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(r, minlength=rows), out=offsets[1:])
    return (rows, offsets, c, w) if weighted else (rows, offsets, c)


@pytest.mark.parametrize("kind", GRAPHS)
def test_mtx_loads_as_written_by_gunrock_rules_and_scipy(tmp_path, kind):
    import scipy.io
    import scipy.sparse

    g = GRAPHS[kind]()
    path = tmp_path / "g.mtx"
    export_graph(g, path, "mtx", comment="gpubfs export of dataset g: n=300\nsecond line " + "x" * 3000)
    n, offsets, cols = gunrock_mtx(path)
    assert n == g.n
    np.testing.assert_array_equal(offsets, g.row_offsets)
    np.testing.assert_array_equal(cols, g.col_indices)
    a = scipy.sparse.csr_matrix(scipy.io.mmread(path))
    a.sort_indices()
    assert a.shape == (g.n, g.n)
    np.testing.assert_array_equal(a.indptr, g.row_offsets)
    np.testing.assert_array_equal(a.indices, g.col_indices)


@pytest.mark.parametrize("kind", GRAPHS)
def test_wmtx_loads_with_its_weights_by_gunrock_rules_and_scipy(tmp_path, kind):
    """Gunrock's sssp reads the weights from the third column, both directions of an
    undirected edge with the one weight its symmetric entry carries."""
    import scipy.io
    import scipy.sparse

    from gpubfs_cli.graph.weights import WeightRule, rule_weights

    g = GRAPHS[kind]()
    g.weights = rule_weights(g, WeightRule(1, 100, 5))
    path = tmp_path / "g.mtx"
    export_graph(g, path, "wmtx", comment="gpubfs export for peer.gunrock")
    n, offsets, cols, weights = gunrock_mtx(path, weighted=True)
    assert n == g.n
    np.testing.assert_array_equal(offsets, g.row_offsets)
    np.testing.assert_array_equal(cols, g.col_indices)
    np.testing.assert_array_equal(weights, g.weights)
    a = scipy.sparse.csr_matrix(scipy.io.mmread(path))
    a.sort_indices()
    np.testing.assert_array_equal(a.indptr, g.row_offsets)
    np.testing.assert_array_equal(a.data, g.weights)


# ---------------------------------------------------------------- the peers themselves
def _gapbs_bfs() -> Path:
    exe = PEERS / "gapbs" / "bfs"
    if not exe.is_file():
        pytest.skip(f"gapbs binary not found at {exe}")
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip(f"gapbs binary is static x86-64 Linux; this is {platform.system()} {platform.machine()}")
    return exe


def _reached(g, source: int) -> int:
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import breadth_first_order

    a = csr_matrix((np.ones(g.m, dtype=np.int8), np.asarray(g.col_indices), np.asarray(g.row_offsets)), shape=(g.n, g.n))
    return len(breadth_first_order(a, source, directed=True, return_predecessors=False))


@pytest.mark.parametrize("kind", GRAPHS)
def test_gapbs_itself_reads_the_el_export(tmp_path, kind):
    """gapbs builds the very graph (n, directed edges) and its BFS tree from a source
    reaches as many vertices as gpubfs's baseline does."""
    exe = _gapbs_bfs()
    g = GRAPHS[kind]()
    path = tmp_path / "g.el"
    export_graph(g, path, "el", comment="never written")
    source = int(np.flatnonzero(np.diff(g.row_offsets))[0])
    env = dict(os.environ, OMP_NUM_THREADS="1")
    out = subprocess.run([str(exe), "-f", str(path), "-n", "1", "-r", str(source), "-a"],
                         capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    graph = re.search(r"Graph has (\d+) nodes and (\d+) directed edges", out.stdout)
    assert graph and (int(graph[1]), int(graph[2])) == (g.n, g.m), out.stdout
    tree = re.search(r"BFS Tree has (\d+) nodes", out.stdout)
    assert tree and int(tree[1]) == _reached(g, source), out.stdout


@pytest.mark.gpu
@pytest.mark.parametrize("peer, fmt", [("gunrock", "mtx"), ("gunrock-sssp", "wmtx")])
def test_gunrock_itself_reads_the_mtx_export(tmp_path, peer, fmt):
    """Gunrock's BFS on the mtx export, its SSSP on the weighted one: its own CPU check
    passes and it counts the graph's n and m (the metrics JSON)."""
    from gpubfs_cli.graph.weights import WeightRule, rule_weights

    run_sh = PEERS / peer / "run.sh"
    if not run_sh.is_file():
        pytest.skip(f"Gunrock not found at {run_sh}")
    for kind in ("directed", "undirected-isolated-tail"):
        g = GRAPHS[kind]()
        g.weights = rule_weights(g, WeightRule(1, 100, 5)) if fmt == "wmtx" else None
        path = tmp_path / f"{kind}.mtx"
        export_graph(g, path, fmt, comment="gpubfs export")
        source = int(np.flatnonzero(np.diff(g.row_offsets))[0])
        out = subprocess.run(["bash", str(run_sh), str(path), str(source), str(tmp_path / f"{kind}.json")],
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stdout + out.stderr
        # run.sh notes on stderr that a pattern file gives SSSP weight 1 everywhere
        assert "Number of errors : 0" in out.stdout and "pattern file" not in out.stderr, out.stdout + out.stderr
        metrics = json.loads((tmp_path / f"{kind}.json").read_text())
        assert metrics.get("num_vertices") == g.n and metrics.get("num_edges") == g.m, metrics
