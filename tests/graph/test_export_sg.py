"""The sg export is gapbs's serialized graph: read back by the layout gapbs's reader
expects (CPU, here) and by gapbs's own binary where it is (skipped visibly elsewhere)."""

from __future__ import annotations

import os
import re
import subprocess

import numpy as np
import pytest

from gpubfs_cli.errors import UserError
from gpubfs_cli.graph import CSRGraph
from gpubfs_cli.graph.build import reverse_csr
from gpubfs_cli.graph.io.export import export_graph
from tests.graph.test_export_peers import GRAPHS, _gapbs_bfs, _reached, _same


def gapbs_sg(path) -> tuple[CSRGraph, CSRGraph | None]:
    """(out-CSR, in-CSR or None): a byte `directed`, int64 m, int64 n, int64 offsets[n+1],
    int32 neighbours[m], and the in-edges the same way when directed; nothing after."""
    raw = path.read_bytes()
    directed = bool(raw[0])
    m, n = (int(x) for x in np.frombuffer(raw[1:17], dtype=np.int64))
    pos = 17
    csrs = []
    for _ in range(2 if directed else 1):
        offsets = np.frombuffer(raw[pos:pos + 8 * (n + 1)], dtype=np.int64)
        pos += 8 * (n + 1)
        cols = np.frombuffer(raw[pos:pos + 4 * m], dtype=np.int32)
        pos += 4 * m
        assert offsets[0] == 0 and offsets[-1] == m
        csrs.append(CSRGraph(offsets, cols, directed))
    assert pos == len(raw), "bytes after the graph"
    return csrs[0], (csrs[1] if directed else None)


@pytest.mark.parametrize("kind", GRAPHS)
def test_sg_holds_the_csr_and_the_in_edges(tmp_path, kind):
    g = GRAPHS[kind]()
    path = tmp_path / "g.sg"
    assert export_graph(g, path, "sg") == g.m
    out, inn = gapbs_sg(path)
    _same(out, g)
    assert (inn is not None) == g.directed
    if g.directed:
        _same(inn, reverse_csr(g))
        # every edge u -> v appears as v's in-edge from u
        rows = np.repeat(np.arange(g.n), np.diff(g.row_offsets))
        in_rows = np.repeat(np.arange(g.n), np.diff(inn.row_offsets))
        assert sorted(zip(rows, g.col_indices, strict=True)) == sorted(zip(inn.col_indices, in_rows, strict=True))


def test_sg_refuses_ids_gapbs_cannot_hold(tmp_path):
    class Huge(CSRGraph):  # says it has 2^31 + 1 vertices without holding them
        n = 2**31 + 1

    g = Huge(np.zeros(2, dtype=np.int64), np.zeros(0, dtype=np.int64), True)
    with pytest.raises(UserError, match="below 2\\^31"):
        export_graph(g, tmp_path / "big.sg", "sg")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kind", GRAPHS)
def test_gapbs_itself_reads_the_sg_export(tmp_path, kind):
    exe = _gapbs_bfs()
    g = GRAPHS[kind]()
    path = tmp_path / "g.sg"
    export_graph(g, path, "sg")
    source = int(np.flatnonzero(np.diff(g.row_offsets))[0])
    env = dict(os.environ, OMP_NUM_THREADS="1")
    out = subprocess.run([str(exe), "-f", str(path), "-n", "1", "-r", str(source), "-a", "-v"],
                         capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    graph = re.search(r"Graph has (\d+) nodes and (\d+) (un)?directed edges", out.stdout)
    edges = g.m if g.directed else g.m // 2
    assert graph and (int(graph[1]), int(graph[2]), graph[3] is None) == (g.n, edges, g.directed), out.stdout
    tree = re.search(r"BFS Tree has (\d+) nodes", out.stdout)
    assert tree and int(tree[1]) == _reached(g, source), out.stdout
    assert "Verification:           PASS" in out.stdout
